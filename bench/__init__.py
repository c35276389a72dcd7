"""Benchmarks of Chronicle, run on demand: ``python -m bench [--quick] [--json]``.

Every row sets a figure beside a limit measured in the same run (or an absolute budget), so the
ratios mean something on any machine.  The benchmark starts its own Redis (a free port, no
persistence), the API under gunicorn exactly as in production, and one worker process; it never
touches the machine's Redis.  Modules are named for what they measure.
"""
