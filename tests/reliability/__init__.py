"""Reliability and security: faults survived, bad input refused, secrets kept (issue 6)."""
