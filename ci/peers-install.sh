#!/usr/bin/env bash
# Installs the published packages ctxfuzz fuzzes as peers (docs/peers.md), each at its pinned
# version: the npm ones (and the Node they run on) from peers/package-lock.json, the Python ones
# into a virtual environment from the hash-pinned peers/requirements.txt.
#
# Each install lives in a cache outside the checkout, one folder per lockfile checksum
# (CTXFUZZ_PEERS_CACHE, default ~/.cache/ctxfuzz/peers), and is linked into the git-ignored
# peers/node_modules and peers/.venv: a second clone or worktree on the same machine installs
# nothing. A part already installed from the same lockfile is skipped (no registry is asked, so a
# second run works offline); a registry that cannot be reached stops the script with a message
# naming it.
set -euo pipefail
cd "$(dirname "$0")/../peers"
source ../ci/lib.sh

cache=${CTXFUZZ_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctxfuzz/peers}
mkdir -p "$cache"
# Checkouts installing at the same time take turns.
exec 9>"$cache/.lock"
flock 9

# A part counts as installed when its stamp holds the checksum of the lockfile it was installed
# from; the stamp is written last, so a part cut off half-way is installed again.
stamp_matches() { [ -f "$1" ] && [ "$(cat "$1")" = "$(sha256sum "$2")" ]; }
fail() {
  printf 'ci/peers-install.sh: %s\n' "$*" >&2
  exit 1
}
# cached_folder PREFIX LOCKFILE: the cache folder for what LOCKFILE pins.
cached_folder() { printf '%s/%s-%s' "$cache" "$1" "$(sha256sum "$2" | cut -c1-16)"; }
# link_into_checkout FOLDER NAME: peers/NAME becomes a link to FOLDER.
link_into_checkout() {
  [ "$(readlink "$2" 2>/dev/null)" = "$1" ] || { rm -rf "$2" && ln -s "$1" "$2"; }
}

npm_folder=$(cached_folder npm package-lock.json)
if stamp_matches "$npm_folder/node_modules/.ctxfuzz-installed" package-lock.json; then
  step "npm peers: already installed from peers/package-lock.json ($npm_folder)"
else
  step "npm peers: npm ci (peers/package-lock.json) in $npm_folder"
  npm ping --fetch-retries=0 --fetch-timeout=20000 --loglevel=error >/dev/null 2>&1 ||
    fail "the npm registry ($(npm config get registry)) cannot be reached: the npm peers are not installed"
  rm -rf "$npm_folder"
  mkdir -p "$npm_folder"
  cp package.json package-lock.json "$npm_folder/"
  # Install scripts are skipped: openclaw's postinstall sets up bundled plugins, which no adapter loads.
  timed npm ci --prefix "$npm_folder" --ignore-scripts --omit=optional --no-audit --no-fund \
    --loglevel=error || fail "npm ci failed (messages above): the npm peers are not installed"
  sha256sum package-lock.json >"$npm_folder/node_modules/.ctxfuzz-installed"
fi
link_into_checkout "$npm_folder/node_modules" node_modules

venv=$(cached_folder venv requirements.txt)
if stamp_matches "$venv/.ctxfuzz-installed" requirements.txt; then
  step "Python peers: already installed from peers/requirements.txt ($venv)"
else
  step "Python peers: pip install --require-hashes (peers/requirements.txt) into $venv"
  # The hashes name the wheels pip picks for CPython 3.11 on Linux x86-64.
  python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
    fail "python3 is $(python3 --version 2>&1 | cut -d' ' -f2); peers/requirements.txt is pinned for CPython 3.11"
  rm -rf "$venv"
  python3 -m venv "$venv"
  # --no-compile: compiled below, on all cores.
  timed "$venv/bin/pip" install --disable-pip-version-check --quiet --no-compile --timeout 30 \
    --retries 2 --require-hashes --no-deps -r requirements.txt ||
    fail "pip install failed (messages above; is PyPI reachable?): the Python peers are not installed"
  "$venv/bin/pip" check --disable-pip-version-check >/dev/null || fail "$("$venv/bin/pip" check)"
  sha256sum requirements.txt >"$venv/.ctxfuzz-installed"
fi
# Where PYTHONDONTWRITEBYTECODE is set, as on CI machines, Python reads bytecode but writes none,
# so each start of an adapter compiled what it imports: litellm's 3,000 modules took 11 s on an
# idle core and over a minute with four adapters starting at once beside other tests (the landing
# CI of 2026-12-02). So the venv is compiled once (compileall writes whatever that variable says),
# on a stamp of its own, which a venv installed before this step lacks.
if ! stamp_matches "$venv/.ctxfuzz-compiled" requirements.txt; then
  step "Python peers: compiling their bytecode in $venv"
  timed "$venv/bin/python" -m compileall -q -j0 "$venv/lib" ||
    fail "python -m compileall failed in $venv"
  sha256sum requirements.txt >"$venv/.ctxfuzz-compiled"
fi
link_into_checkout "$venv" .venv
