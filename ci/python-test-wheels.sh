#!/usr/bin/env bash
# Downloads the wheels the Python example suite installs beside ctxfuzz's own (pytest and its
# dependencies, hash-pinned in packages/python/requirements-test.txt) into a cache outside the
# checkout, one folder per checksum of that file (CTXFUZZ_PYTHON_WHEELS_CACHE, default
# ~/.cache/ctxfuzz/python-wheels), linked as the git-ignored packages/python/.wheels. The tests
# install from there with --no-index into a fresh venv each time: after the first run no registry
# is asked (the way ci/peers-install.sh caches the peers).
set -euo pipefail
cd "$(dirname "$0")/../packages/python"
source ../../ci/lib.sh

cache=${CTXFUZZ_PYTHON_WHEELS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctxfuzz/python-wheels}
folder=$cache/$(sha256sum requirements-test.txt | cut -c1-16)
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$folder/.ctxfuzz-downloaded" ]; then
  step "Python test wheels: already downloaded from packages/python/requirements-test.txt ($folder)"
else
  step "Python test wheels: pip download --require-hashes (packages/python/requirements-test.txt) into $folder"
  rm -rf "$folder"
  timed python3 -m pip download --disable-pip-version-check --quiet --timeout 30 --retries 2 \
    --require-hashes --no-deps --only-binary=:all: -r requirements-test.txt -d "$folder" || {
    printf 'ci/python-test-wheels.sh: pip download failed (messages above; is PyPI reachable?)\n' >&2
    exit 1
  }
  touch "$folder/.ctxfuzz-downloaded"
fi
[ "$(readlink .wheels 2>/dev/null)" = "$folder" ] || { rm -rf .wheels && ln -s "$folder" .wheels; }
