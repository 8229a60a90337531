#!/usr/bin/env bash
# ClusterFuzzLite / OSS-Fuzz build: the same cargo-fuzz targets, unchanged, built the way those
# engines expect (release with debug assertions, ASan from the base image), each binary and its
# seed corpus (derived from corpus/) copied to $OUT.
set -euo pipefail
cd "$SRC/ctxfuzz"
cargo fuzz build -O --debug-assertions
cargo run --release --quiet -- replay --export-seeds "$WORK/seeds"
for source in fuzz/fuzz_targets/*.rs; do
  target=$(basename "$source" .rs)
  cp "fuzz/target/x86_64-unknown-linux-gnu/release/$target" "$OUT/" 2>/dev/null \
    || cp "target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
  if [ -d "$WORK/seeds/$target" ]; then
    (cd "$WORK/seeds/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
done
