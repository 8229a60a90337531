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

step "the published peers at their pinned versions, for the peers:: tests (skipped when installed)"
timed bash ci/peers-install.sh

step "cargo test --workspace --release"
timed cargo test --workspace --release
