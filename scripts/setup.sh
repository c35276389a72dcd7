#!/usr/bin/env bash
# Creates .venv and installs Chronicle with its test tools from the lock, the same versions as
# the Docker image (requirements-test.lock: requirements.lock's pins and the test tools, all
# with hashes; scripts/lock.sh makes both); re-installs when pyproject or a lock changes.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Chronicle needs Python 3.11 or newer (found $("$PY" --version))" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=.venv/.installed-$(cat pyproject.toml requirements.lock requirements-test.lock | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet --require-hashes -r requirements-test.lock
  .venv/bin/python -m pip install --quiet --no-deps -e .
  rm -f .venv/.installed-* && touch "$stamp"
fi
# The docs site (mkdocs.yml: docs/ -> site/, git-ignored), which `chronicle serve` serves at
# /docs/: rebuilt when mkdocs.yml or a file under docs/ changed since the last build.  A page
# that fails the strict build is reported here and fails the tests (tests/e2e/test_docs_site.py),
# but does not stop a serve.
site=site/.built-$( (cat mkdocs.yml; find docs -type f -print0 | sort -z | xargs -0 sha256sum) \
  | sha256sum | cut -c1-16)
if [ ! -f "$site" ]; then
  rm -f site/.built-*  # mkdocs' clean keeps dotfiles: an older stamp must not match again
  if NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet; then
    touch "$site"
  else
    echo "note: the docs site did not build (.venv/bin/mkdocs build --strict says why);" \
      "/docs/ will say it is not built" >&2
  fi
fi
# The browser tests drive Debian's chromium through Playwright (never a downloaded browser);
# the docs' curl walk-through (run by a test) uses curl and jq; the proxy test runs nginx with
# docker/nginx.conf as its own process (the package's system service is not started here).
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v jq > /dev/null || missing="$missing jq"
command -v curl > /dev/null || missing="$missing curl"
command -v nginx > /dev/null || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
# Japanese and Chinese pages need a CJK font (the page names Noto Sans CJK first among the
# system fonts): without one Chromium draws boxes, in screenshots and for the people it shows
fc-list :lang=ja 2> /dev/null | grep -q . || missing="$missing fonts-noto-cjk"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    # policy-rc.d exit 101: the packages' services are not started (nginx would take port 80)
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
      trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing > /dev/null
  else
    echo "note: missing:$missing (as root: apt-get install -y$missing);" \
      "the tests that need them will be skipped" >&2
  fi
fi
# The accessibility tests (tests/browser/test_accessibility.py) run axe-core in the pages: a
# test-only file, never served.  npm fetches the pinned tarball, its integrity is checked
# against the one recorded here, and only the engine (axe.min.js) is kept, in .cache/axe-core/.
AXE_VERSION=4.14.1
AXE_INTEGRITY=sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==
if [ "$(cat .cache/axe-core/VERSION 2> /dev/null)" != "$AXE_VERSION" ]; then
  if command -v npm > /dev/null; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "axe-core@$AXE_VERSION" > /dev/null)
    got=sha512-$(.venv/bin/python -c 'import base64, hashlib, sys
print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' \
      "$tmp/axe-core-$AXE_VERSION.tgz")
    if [ "$got" != "$AXE_INTEGRITY" ]; then
      echo "axe-core $AXE_VERSION: integrity mismatch ($got)" >&2
      rm -rf "$tmp"
      exit 1
    fi
    mkdir -p .cache/axe-core
    tar -xzf "$tmp/axe-core-$AXE_VERSION.tgz" -C "$tmp" package/axe.min.js package/LICENSE
    mv "$tmp/package/axe.min.js" "$tmp/package/LICENSE" .cache/axe-core/
    echo "$AXE_VERSION" > .cache/axe-core/VERSION
    rm -rf "$tmp"
  else
    echo "note: no npm; the accessibility tests (axe-core) will be skipped" >&2
  fi
fi
