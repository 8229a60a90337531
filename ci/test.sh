#!/usr/bin/env bash
# The test command (README): installs what the tests need, then runs every test of the workspace.
# Nothing here relies on anything installed by hand.
#
# The installs wait on the network and the disk, the build on the CPU, so they run side by side:
# each install goes to the background with its output kept in a log, printed if it fails. The
# tests then run under nextest's `ci` profile (.config/nextest.toml): the slow ones first, more at
# once than there are cores, since most of them wait on a timeout or a child process.
#
# The nightly script's end-to-end test (`nightly::`) needs an instrumented second build of the
# whole crate; it is ignored here and run by .ci/run right after ci/fuzz-build.sh, which makes that
# build anyway (docs/decisions.md).
set -euo pipefail
cd "$(dirname "$0")/.."

source ci/lib.sh

logs=$(mktemp -d)
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$logs"' EXIT
pids=()
names=()
# in_background NAME CMD...: runs CMD with its output in a log, timed like `timed`.
in_background() {
  names+=("$1")
  shift
  printf '   started in the background: %s\n' "${names[-1]}"
  (timed "$@") >"$logs/${#names[@]}" 2>&1 &
  pids+=($!)
}

step "installs, in the background while the tests build"
in_background "npm ci (the real pi packages, for the conformance tests)" \
  npm ci --prefix oracles/conformance --no-audit --no-fund --loglevel=error
# The peers:: tests run the published peers at their pinned versions (skipped when installed).
in_background "ci/peers-install.sh (the published peers)" bash ci/peers-install.sh
# --- Python package (docs/python.md) ---
# tests/ctxfuzz/package_python.rs builds the wheel from the test build's binary
# (ci/package-python.sh) and installs it with pytest into fresh venvs, from this local cache.
in_background "ci/python-test-wheels.sh (pytest, for the Python example suite)" bash ci/python-test-wheels.sh
# --- end of the Python package ---
if ! command -v chromium >/dev/null; then
  # tests/ctxfuzz/report.rs looks at the report page in a browser.
  in_background "apt-get install chromium" \
    sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null'
fi
# tests/ctxfuzz/mutation_gate.rs runs ci/mutants.sh, and so cargo-mutants, on a scratch crate.
in_background "cargo-mutants 27.1.0 (for the mutation_gate:: tests)" \
  ensure_tool cargo-mutants cargo-mutants 27.1.0
ensure_tool cargo-nextest cargo-nextest 0.9.143

step "cargo test --workspace --release --no-run (the build nextest runs)"
timed cargo test --workspace --release --no-run --quiet

step "waiting for the installs"
failed=0
for i in "${!pids[@]}"; do
  log="$logs/$((i + 1))"
  if wait "${pids[i]}"; then
    printf '   done: %s %s\n' "${names[i]}" "$(tail -1 "$log")"
  else
    printf '\n!! failed: %s; its output:\n' "${names[i]}"
    cat "$log"
    failed=1
  fi
done
[ "$failed" -eq 0 ] || exit 1

step "cargo nextest run --workspace --release --profile ci"
timed cargo nextest run --workspace --release --profile ci --no-fail-fast \
  --status-level fail --final-status-level slow
