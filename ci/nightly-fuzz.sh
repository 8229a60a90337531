#!/usr/bin/env bash
# The nightly fuzz job for one cargo-fuzz target (or all of them): coverage-guided fuzzing with
# ASan on nightly, corpus merge and minimisation, and every new crash turned into a readable case
# file under findings/ (review it, then move it into corpus/<target>/ once fixed).
#
#   ci/nightly-fuzz.sh [TARGET] [SECONDS]     default: every target, 3600 s each
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh

seconds=${2:-3600}
ensure_tool cargo-fuzz cargo-fuzz 0.13.2
rustup toolchain install nightly --profile minimal >/dev/null
targets=${1:-$(cargo fuzz list)}

# The seed corpus is derived from the regression corpus (never committed twice).
step "seed corpus from corpus/"
timed cargo run --release --quiet -- replay --export-seeds fuzz/corpus

status=0
for target in $targets; do
  step "fuzz $target for ${seconds}s (nightly, ASan, fork mode keeps going after a crash)"
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
  timed cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- \
    -fork=2 -ignore_crashes=1 -max_total_time="$seconds" || status=1
  step "merge and minimise the corpus of $target"
  timed cargo +nightly fuzz cmin "$target" "fuzz/corpus/$target"
  for artifact in fuzz/artifacts/"$target"/crash-* fuzz/artifacts/"$target"/timeout-*; do
    [ -e "$artifact" ] || continue
    step "case file from $artifact"
    cargo run --release --quiet -- minimize --from-artifact "$target" "$artifact" --out findings/ || status=1
  done
done
exit "$status"
