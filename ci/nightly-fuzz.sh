#!/usr/bin/env bash
# The nightly fuzz job for one cargo-fuzz target (or all of them): coverage-guided fuzzing with
# ASan on nightly, corpus merge and minimisation, every crash artifact turned into one readable
# case file per distinct finding, and a report (docs/nightly.md says what is where).
#
#   ci/nightly-fuzz.sh [TARGET] [SECONDS]     default: every target, 3600 s each
#
# Environment:
#   CTXFUZZ_VARIANT          the variant fuzzed (default: each target's default); recorded in
#                            OUT/runs/TARGET/run.json and used to convert the run's artifacts
#   CTXFUZZ_NIGHTLY_OUT      where everything goes (default: target/nightly)
#   CTXFUZZ_FUZZ_TOOLCHAIN   default: nightly; CTXFUZZ_FUZZ_SANITIZER default: address
#                            (`stable` and `none` build without ASan, in a fraction of the time)
#   ASAN_OPTIONS             laid over the nightly's own (below); recorded in run.json
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh

seconds=${2:-3600}
out=${CTXFUZZ_NIGHTLY_OUT:-target/nightly}
toolchain=${CTXFUZZ_FUZZ_TOOLCHAIN:-nightly}
sanitizer=${CTXFUZZ_FUZZ_SANITIZER:-address}
variant=${CTXFUZZ_VARIANT:-}
if ! [[ $variant =~ ^[A-Za-z0-9_.-]*$ ]]; then
  echo "CTXFUZZ_VARIANT='$variant': a variant name is letters, digits, '_', '.', '-'" >&2
  exit 2
fi
if ! [[ $sanitizer =~ ^[a-z]+$ ]]; then
  echo "CTXFUZZ_FUZZ_SANITIZER='$sanitizer': one of cargo-fuzz's sanitizers (address, none, ...)" >&2
  exit 2
fi
ensure_tool cargo-fuzz cargo-fuzz 0.13.2
# An installed toolchain is kept as it is: updating it would rebuild every instrumented crate.
rustup run "$toolchain" rustc --version >/dev/null 2>&1 \
  || rustup toolchain install "$toolchain" --profile minimal >/dev/null
targets=${1:-$(cargo fuzz list)}
# Without libFuzzer's compare hooks: the targets decode their bytes into structured cases, so the
# compared values seldom map back onto input bytes, and the hooks halved the guard target's
# speed. Over 60 s from an empty corpus each target reached as much coverage or more without them
# (docs/figures.md, "libFuzzer"). Build, run and cmin must agree, or each rebuilds the others'.
build=(-s "$sanitizer" --no-trace-compares)
# ASan without the fake stack frames that catch a use after return and without the allocation and
# free stacks of a heap report: 1.3 to 1.7x the inputs a second, every other check kept (docs/nightly.md,
# "ASan options"). Safe Rust never returns a pointer into a stack frame, and the stacks are for
# reading a report: replaying the artifact with ASAN_OPTIONS unset prints them. A caller's
# options come after these, so they win.
export ASAN_OPTIONS="detect_stack_use_after_return=0:malloc_context_size=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
asan_options_json=${ASAN_OPTIONS//\\/\\\\}
asan_options_json=\"${asan_options_json//\"/\\\"}\"

# The seed corpus is derived from the regression corpus (never committed twice).
step "seed corpus from corpus/"
timed cargo run --release --quiet -- replay --export-seeds fuzz/corpus

status=0
mkdir -p "$out/findings"
for target in $targets; do
  run="$out/runs/$target"
  rm -rf "$run" "$out/findings/$target"-*.json
  mkdir -p "fuzz/corpus/$target" "$run/artifacts"
  printf '{"target": "%s", "variant": %s, "seconds": %s, "sanitizer": "%s", "asan_options": %s}\n' \
    "$target" "$([ -n "$variant" ] && printf '"%s"' "$variant" || printf null)" "$seconds" \
    "$sanitizer" "$asan_options_json" >"$run/run.json"

  step "build $target ($toolchain, sanitizer $sanitizer)"
  timed cargo "+$toolchain" fuzz build "${build[@]}" "$target" || { status=1; continue; }
  step "fuzz $target [${variant:-default variant}] for ${seconds}s"
  # Fork mode keeps going after a crash (-ignore_crashes); an input that crashes again is written
  # once (artifacts are named by content hash), and the conversion below groups the rest. The
  # full log is kept for the report, which plots the parent's periodic stats lines
  # (`#N: cov: .. corp: .. exec/s: ..`); only those lines are echoed here.
  start=$SECONDS
  rc=0
  cargo "+$toolchain" fuzz run "${build[@]}" "$target" "fuzz/corpus/$target" -- \
    -fork=2 -ignore_crashes=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$run/artifacts/" >"$run/fuzz.log" 2>&1 || rc=$?
  grep -E '^(#[0-9]+|INFO: (fuzzed|exiting)|stat::)' "$run/fuzz.log" || true
  printf '   (%ss: libFuzzer exit %s)\n' "$((SECONDS - start))" "$rc"
  if [ "$rc" -ne 0 ] && [ -z "$(ls -A "$run/artifacts")" ]; then
    echo "libFuzzer failed without an artifact; the end of $run/fuzz.log:" && tail -20 "$run/fuzz.log"
    status=1
  fi
  step "merge and minimise the corpus of $target"
  timed cargo "+$toolchain" fuzz cmin "${build[@]}" "$target" "fuzz/corpus/$target" >"$run/cmin.log" 2>&1 \
    || { tail -20 "$run/cmin.log"; status=1; }

  step "case files from the artifacts of $target (one per distinct finding)"
  cargo run --release --quiet -- minimize --from-run "$run" --out "$out/findings" || status=1
done

step "report"
peers=()
[ -f "$out/peers.json" ] && peers=("$out/peers.json")
cargo run --release --quiet -- report "$out/runs" "$out/findings" "${peers[@]}" \
  --html "$out/report.html" --markdown "$out/report.md" --json "$out/report.json" || status=1
echo "report: $out/report.html (and .md, .json)"
exit "$status"
