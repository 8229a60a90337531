#!/usr/bin/env bash
# The soak runs (tests/soak.rs): each fuzzes one system's fixed variant for SECONDS (default 300)
# and must find nothing charged to it. ci/test.sh runs them for 5 seconds; nightly runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh
step "soak tests, ${1:-300}s each"
CTXFUZZ_SOAK_SECS=${1:-300} timed cargo test --release --test ctxfuzz soak:: -- --test-threads=1
