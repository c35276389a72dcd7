"""Pure folds of a game's recorded log: state at a version, per-seat views, redacted history,
the audit chain.  No I/O: the service reads the records and hands them in."""
