#!/usr/bin/env bash
# Creates .venv and installs Chronicle with its test tools; re-installs when pyproject changes.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Chronicle needs Python 3.11 or newer (found $("$PY" --version))" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[test]'
  rm -f .venv/.installed-* && touch "$stamp"
fi
# Headless Chromium for the browser tests: Debian's package, only if missing (never a browser
# build downloaded by a tool).  Needs root (CI runs as root); elsewhere those tests say why.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
fi
