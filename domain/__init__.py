"""The pure domain: game rules as state machines.  No I/O, no clock, no global randomness."""
