#!/usr/bin/env bash
# Installs the published packages ctxfuzz fuzzes as peers (docs/peers.md), each at its pinned
# version, into git-ignored folders: the npm ones (and the Node they run on) into peers/node_modules
# from peers/package-lock.json, the Python ones into the virtual environment peers/.venv from the
# hash-pinned peers/requirements.txt. A part already installed from the same lockfile is skipped
# (no registry is asked, so a second run works offline); a registry that cannot be reached stops
# the script with a message naming it.
set -euo pipefail
cd "$(dirname "$0")/../peers"
source ../ci/lib.sh

# A part counts as installed when its stamp holds the checksum of the lockfile it was installed from.
stamp_matches() { [ -f "$1" ] && [ "$(cat "$1")" = "$(sha256sum "$2")" ]; }
fail() {
  printf 'ci/peers-install.sh: %s\n' "$*" >&2
  exit 1
}

if stamp_matches node_modules/.ctxfuzz-installed package-lock.json; then
  step "npm peers: already installed from peers/package-lock.json"
else
  step "npm peers: npm ci (peers/package-lock.json)"
  npm ping --fetch-retries=0 --fetch-timeout=20000 --loglevel=error >/dev/null 2>&1 ||
    fail "the npm registry ($(npm config get registry)) cannot be reached: the npm peers are not installed"
  # Install scripts are skipped: openclaw's postinstall sets up bundled plugins, which no adapter loads.
  timed npm ci --ignore-scripts --omit=optional --no-audit --no-fund --loglevel=error ||
    fail "npm ci failed (messages above): the npm peers are not installed"
  sha256sum package-lock.json >node_modules/.ctxfuzz-installed
fi

if stamp_matches .venv/.ctxfuzz-installed requirements.txt; then
  step "Python peers: already installed from peers/requirements.txt"
else
  step "Python peers: pip install --require-hashes (peers/requirements.txt) into peers/.venv"
  # The hashes name the wheels pip picks for CPython 3.11 on Linux x86-64.
  python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
    fail "python3 is $(python3 --version 2>&1 | cut -d' ' -f2); peers/requirements.txt is pinned for CPython 3.11"
  rm -rf .venv
  python3 -m venv .venv
  timed .venv/bin/pip install --disable-pip-version-check --quiet --no-compile --timeout 30 --retries 2 \
    --require-hashes --no-deps -r requirements.txt ||
    fail "pip install failed (messages above; is PyPI reachable?): the Python peers are not installed"
  .venv/bin/pip check --disable-pip-version-check >/dev/null || fail "$(.venv/bin/pip check)"
  sha256sum requirements.txt >.venv/.ctxfuzz-installed
fi
