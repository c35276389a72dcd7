#!/usr/bin/env bash
# The web client's own checks (issue 36): tsc over the JSDoc of service/web/static/*.js
# (tsconfig.json), then node --test over tests/js/*.test.mjs, on views the engine makes
# (tests/js/make_fixtures.py writes them to .cache/js-fixtures/ first).  The tools are the
# ones package-lock.json pins, installed by `npm ci` into node_modules/ only when package.json
# or the lock changed (a stamp, as scripts/setup.sh does for .venv); nothing global, no
# install scripts.  Arguments go to node --test (e.g. --test-reporter=spec).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  echo "the web client's tests need node 20 or newer and npm (as root: apt-get install -y nodejs npm)" >&2
  exit 1
fi
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  echo "the web client's tests need node 20 or newer (found $(node --version))" >&2
  exit 1
fi
[ -x .venv/bin/python ] || scripts/setup.sh
stamp=node_modules/.installed-$(cat package.json package-lock.json | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error > /dev/null
  touch "$stamp" # npm ci empties node_modules/ first: the old stamp is gone with it
fi
node_modules/.bin/tsc -p tsconfig.json
node_modules/.bin/tsc -p tsconfig.sw.json  # the service worker, with its own globals
.venv/bin/python tests/js/make_fixtures.py
exec node --test "$@" tests/js/*.test.mjs
