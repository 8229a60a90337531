#!/usr/bin/env bash
# Mutation testing of our own code with cargo-mutants (config: .cargo/mutants.toml).
#
#   ci/mutants.sh --submission         mutants in every line changed since the commit named in
#                                      ci/submission-base (what landed before this submission);
#                                      what .ci/run runs before merge
#   ci/mutants.sh --in-diff BASE       mutants in the lines changed since BASE
#   ci/mutants.sh --full [--shard K/N] every mutant (nightly; shard K of N)
#   ci/mutants.sh --record-base        writes HEAD into ci/submission-base: the first step of a
#                                      submission (commit the file with the submission's first change)
#
# A base that cannot be found (a shallow clone, a typo, a file that names no ancestor of HEAD) is
# an error, never "nothing to do": a gate that examined nothing must not pass (docs/mutation.md).
#
# Two passes: each mutant is first tested against its own package's tests only (the oracle
# package's suite takes seconds; the root package's integration-test binary is the one that tests
# the root package's code anyway), then every mutant that survived that and is not a listed
# equivalent is tested again against the whole workspace, every test binary of every package. A
# mutant counts as caught if either pass catches it.
#
# Verdict: by cargo-mutants' exit code and the outcome counts in outcomes.json, never by an empty
# file. A missed mutant fails the check unless ci/mutants-equivalent.txt lists it with a reason; a
# timeout fails it (timeouts are investigated, not ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh

out=target/mutation
usage() {
  echo "usage: ci/mutants.sh --submission | --in-diff BASE | --full [--shard K/N] | --record-base" >&2
  exit 2
}
fail() {
  printf 'ci/mutants.sh: %s\n' "$*" >&2
  exit 2
}

mode=${1:-}
shift || true
# A stale outcomes.json from an earlier run must never be judged as this run's.
rm -rf "$out"
mkdir -p "$out"
# Pass 1 runs once per package (--package), pass 2 over the workspace (--workspace): every
# package's examined files (.cargo/mutants.toml), the oracle crate's too.
args=(--no-shuffle --in-place)
# in_diff BASE: restricts the run to the lines changed since BASE, which must be an ancestor of HEAD.
in_diff() {
  local base=$1
  git rev-parse --verify --quiet "$base^{commit}" >/dev/null ||
    fail "the base $base is not a commit of this clone (a shallow clone? fetch the whole history: git fetch --unshallow)"
  git merge-base --is-ancestor "$base" HEAD ||
    fail "the base $base is not an ancestor of HEAD"
  # Lines the submission only moved (a function into a file of its own, unchanged) are examined
  # where they were written, not again: git marks them, ci/mutants_diff.py leaves them out
  # (docs/mutation.md#moved-lines). Added lines git calls moved are blue, every other one green.
  local colours=(-c color.diff.new=green)
  for kind in newMoved newMovedAlternative newMovedDimmed newMovedAlternativeDimmed; do
    colours+=(-c "color.diff.$kind=blue")
  done
  git "${colours[@]}" diff --no-ext-diff --color=always --color-moved=blocks \
    --color-moved-ws=allow-indentation-change "$base" -- . | python3 ci/mutants_diff.py >"$out/diff"
  printf 'mutants: examining every line changed since %s (%s commits)\n' \
    "$(git rev-parse --short "$base")" "$(git rev-list --count "$base..HEAD")"
  if [ ! -s "$out/diff" ]; then
    echo "mutants: 0 (no change since $base other than moved lines)"
    exit 0
  fi
  args+=(--in-diff "$out/diff")
}
case "$mode" in
  --record-base)
    git rev-parse HEAD >ci/submission-base
    echo "ci/submission-base: $(cat ci/submission-base) (commit it with the submission's first change)"
    exit 0
    ;;
  --submission)
    [ -s ci/submission-base ] || fail "ci/submission-base is missing or empty: run ci/mutants.sh --record-base at the start of a submission"
    in_diff "$(head -n 1 ci/submission-base)"
    ;;
  --in-diff)
    [ -n "${1:-}" ] || usage
    in_diff "$1"
    ;;
  --full)
    if [ "${1:-}" = "--shard" ]; then args+=(--shard "$2"); fi
    ;;
  *) usage ;;
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

# run_pass NAME ARGS...: one cargo-mutants run into $out/NAME; fails on anything but a verdict.
run_pass() {
  local name=$1 status=0
  shift
  timed cargo mutants "${args[@]}" --output "$out/$name" "$@" || status=$?
  # Exit codes (cargo-mutants 27): 0 all caught, 2 missed, 3 timeouts, 4 baseline failed,
  # 5/6 bad --in-diff, 70 internal error.
  case "$status" in
    0 | 2 | 3) ;;
    *) fail "cargo-mutants failed (exit $status): see $out/$name/mutants.out/debug.log" ;;
  esac
}

# Pass 1's tests where a package's own are too many: the root package is tested by its one
# integration-test binary (tests/ctxfuzz/). Its unit tests would compile the whole crate a second
# time under cfg(test) for every mutant: 2 to 4 minutes a mutant instead of 15 to 60 s here
# (docs/mutation.md, "Two passes"). A mutant only they catch survives pass 1 and is caught in pass 2.
declare -A first_pass_test=([ctxfuzz]=ctxfuzz)

step "pass 1: each mutant against its own package's tests"
first_passes=()
for package in $(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(*sorted(p["name"] for p in json.load(sys.stdin)["packages"]))'); do
  narrowed=()
  if [ -n "${first_pass_test[$package]:-}" ]; then
    narrowed=(--cargo-arg="--test=${first_pass_test[$package]}")
  fi
  run_pass "own-$package" --package "$package" --test-workspace=false "${narrowed[@]}"
  # cargo-mutants 27 writes no output at all when the filters leave nothing to mutate.
  if [ -e "$out/own-$package/mutants.out/outcomes.json" ]; then
    first_passes+=("$out/own-$package/mutants.out")
  fi
done
if [ "${#first_passes[@]}" -eq 0 ]; then
  echo "mutants: 0 (no mutant in the examined code of this change)"
  exit 0
fi
verdict=(python3 ci/mutants_verdict.py ci/mutants-equivalent.txt "${first_passes[@]}")
survivors=$("${verdict[@]}" --survivors-regex)
if [ -n "$survivors" ]; then
  step "pass 2: the survivors of pass 1 against the whole workspace"
  run_pass workspace --workspace --test-workspace=true --re "$survivors"
  verdict+=(--rerun "$out/workspace/mutants.out")
fi
"${verdict[@]}"
