#!/usr/bin/env bash
# Runs Chronicle (API + worker) from a fresh checkout: set-up, then `chronicle serve`.
# Without REDIS_URL an embedded Redis keeps its data under ./var/.  Extra arguments go to serve.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/chronicle serve "$@"
