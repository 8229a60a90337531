#!/usr/bin/env bash
# The test command (README): installs what the tests need, then runs every test of the workspace.
# Nothing here relies on anything installed by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

source ci/lib.sh

if [ -f oracles/conformance/package-lock.json ]; then
  step "npm ci (the real pi packages, pinned, for the conformance tests)"
  timed npm ci --prefix oracles/conformance --no-audit --no-fund --loglevel=error
fi

if ! command -v chromium >/dev/null; then
  step "apt-get install chromium (tests/report.rs looks at the report page in a browser)"
  timed apt-get update -qq
  timed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# The nightly:: test runs ci/nightly-fuzz.sh with cargo-fuzz (stable, no sanitizer: the build CI's
# fuzz-build step then reuses).
ensure_tool cargo-fuzz cargo-fuzz 0.13.2

step "the published peers at their pinned versions, for the peers:: tests (skipped when installed)"
timed bash ci/peers-install.sh

step "cargo test --workspace --release"
timed cargo test --workspace --release
