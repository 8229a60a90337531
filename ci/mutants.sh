#!/usr/bin/env bash
# Mutation testing of our own code with cargo-mutants (config: .cargo/mutants.toml).
#
#   ci/mutants.sh --in-diff [BASE]     mutants in the lines changed since BASE (default: HEAD~1);
#                                      what a pull request gets before merge
#   ci/mutants.sh --full [--shard K/N] every mutant (nightly; shard K of N)
#
# Verdict: by cargo-mutants' exit code and the outcome counts in mutants.out/outcomes.json, never
# by an empty file. A missed mutant fails the check unless ci/mutants-equivalent.txt lists it
# with a reason; a timeout fails it (timeouts are investigated, not ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh

mode=${1:-}
shift || true
# A stale outcomes.json from an earlier run must never be judged as this run's.
rm -rf target/mutation/mutants.out
mkdir -p target/mutation
# --workspace: every package's examined files (.cargo/mutants.toml), the oracle crate's too; without
# it cargo-mutants mutates only the root package.
args=(--workspace --no-shuffle --in-place --output target/mutation)
case "$mode" in
  --in-diff)
    base=${1:-HEAD~1}
    if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
      echo "ci/mutants.sh: no base revision $base (a first commit has no diff to test); nothing to do"
      exit 0
    fi
    diff_file=$(mktemp)
    trap 'rm -f "$diff_file"' EXIT
    git diff "$base" -- . >"$diff_file"
    if [ ! -s "$diff_file" ]; then
      echo "ci/mutants.sh: no changes since $base; nothing to do"
      exit 0
    fi
    args+=(--in-diff "$diff_file")
    ;;
  --full)
    if [ "${1:-}" = "--shard" ]; then args+=(--shard "$2"); fi
    ;;
  *)
    echo "usage: ci/mutants.sh --in-diff [BASE] | --full [--shard K/N]" >&2
    exit 2
    ;;
esac

ensure_tool cargo-mutants cargo-mutants 27.1.0
ensure_tool cargo-nextest cargo-nextest 0.9.143

# One conformance seed for every mutant: a mutant's verdict must not depend on the run's clock.
export CTXFUZZ_CONFORMANCE_SEED=${CTXFUZZ_CONFORMANCE_SEED:-20261130}
# and the count the conformance tests ran before it was raised to 5,000 per version: a surviving
# mutant runs them in full, and 2,000 keep that run about 5 s shorter.
export CTXFUZZ_CONFORMANCE_CASES=${CTXFUZZ_CONFORMANCE_CASES:-2000}

# The soak tests run for a fixed time in every mutant's test run; 2 s each (instead of 5) still
# runs thousands of cases and shortens every survivor's run, the costly ones.
export CTXFUZZ_SOAK_SECS=${CTXFUZZ_SOAK_SECS:-2}

status=0
timed cargo mutants "${args[@]}" || status=$?
# Exit codes (cargo-mutants 27): 0 all caught, 2 missed, 3 timeouts, 4 baseline failed,
# 5/6 bad --in-diff, 70 internal error.
case "$status" in
  0 | 2 | 3) ;;
  *) echo "ci/mutants.sh: cargo-mutants failed (exit $status): see target/mutation/mutants.out/debug.log" >&2
     exit "$status" ;;
esac

if [ "$status" = 0 ] && [ ! -e target/mutation/mutants.out/outcomes.json ]; then
  # cargo-mutants 27 writes no output at all when the filters leave nothing to mutate.
  echo "mutants: 0 (no mutant in the examined code of this change)"
  exit 0
fi
python3 ci/mutants_verdict.py target/mutation/mutants.out ci/mutants-equivalent.txt
