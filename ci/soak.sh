#!/usr/bin/env bash
# The soak runs (tests/soak.rs): each fuzzes one system's fixed variant for SECONDS (default 300)
# and must find nothing charged to it. ci/test.sh runs them for 2 seconds; nightly runs this.
# Then the reference sweep, repairer, cutter and pruner of tests/sut/ under their contracts
# (ctxfuzz fuzz --contract, docs/contracts.md), SECONDS each: nothing may be charged either.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh
step "soak tests, ${1:-300}s each"
CTXFUZZ_SOAK_SECS=${1:-300} timed cargo test --release --test ctxfuzz soak:: -- --test-threads=1
step "contract reference programs (tests/sut/), ${1:-300}s each"
timed cargo build --release
for run in sweep:pi repair:openai cut:openai prune:ai-sdk; do
  contract=${run%%:*}
  timed target/release/ctxfuzz fuzz --contract "$contract" --format "${run#*:}" \
    --marker '[ctxfuzz-synthetic]' --sut "python3 tests/sut/$contract.py" \
    --time "${1:-300}" --out "${TMPDIR:-/tmp}/ctxfuzz-soak-contracts"
done
