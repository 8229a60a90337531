#!/usr/bin/env bash
# Builds every cargo-fuzz target on stable (no sanitizer; cargo-fuzz installed if missing), then
# runs the regression corpus once through each target's libFuzzer entry point (-runs=0), so a
# target that no longer builds or crashes on a known case fails CI.
# Nightly with ASan instead: `cargo +nightly fuzz build` (README "Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh

ensure_tool cargo-fuzz cargo-fuzz 0.13.2
step "cargo fuzz build -s none --no-trace-compares (stable; the flags of ci/nightly-fuzz.sh)"
timed cargo fuzz build -s none --no-trace-compares
triple="$(rustc -vV | sed -n 's/^host: //p')"

step "without a sanitizer every target allocates with mimalloc (fuzz/build.rs)"
for target in $(cargo fuzz list); do
  if ! grep -q -a mi_malloc "target/$triple/release/$target"; then
    echo "fuzz target $target was built without a sanitizer but does not link mimalloc" >&2
    exit 1
  fi
done

seeds="$(mktemp -d)"
trap 'rm -rf "$seeds"' EXIT
step "seed inputs from corpus/"
cargo run --release --quiet -- replay --export-seeds "$seeds"
for target in $(cargo fuzz list); do
  if [ -d "$seeds/$target" ]; then
    step "replay the corpus through fuzz target $target"
    timed "target/$triple/release/$target" -runs=0 "$seeds/$target"
  fi
done
