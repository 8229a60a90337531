#!/usr/bin/env bash
# Builds the Python wheel (docs/python.md) from an already-built release binary, into
# ${CARGO_TARGET_DIR:-target}/packages/: it compiles nothing, so the test command, which has built
# the binary, does not build the crate a second time (docs/decisions.md). The version is the
# crate's, read from Cargo.toml by packages/python/build_wheel.py.
#
#   ci/package-python.sh [--target TRIPLE] [--binary PATH] [--out DIR]
#
# Platforms are a matrix: each Rust target triple is one entry of `platform_tag` below (the wheel's
# platform tag for it), and a CI matrix runs this script once per triple on the binary built with
# `cargo build --release --target TRIPLE` (its default path). Only Linux x86-64 is built and tested
# here; a new platform is a new line there (and, on Windows, the binary's `.exe`).
set -euo pipefail
cd "$(dirname "$0")/.."

target=
binary=
out=${CARGO_TARGET_DIR:-target}/packages
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2 ;;
    --binary) binary=$2 ;;
    --out) out=$2 ;;
    *) printf 'ci/package-python.sh: unknown argument %s (--target, --binary, --out)\n' "$1" >&2; exit 2 ;;
  esac
  shift 2
done
# cargo's layout: a build for the host under release/, one with --target under TRIPLE/release/.
[ -n "$binary" ] || binary=${CARGO_TARGET_DIR:-target}/${target:+$target/}release/ctxfuzz
# Without --target the binary is the host's, and the host is the one platform built here.
target=${target:-x86_64-unknown-linux-gnu}
[ -x "$binary" ] || {
  printf 'ci/package-python.sh: no binary at %s: build it first (cargo build --release)\n' "$binary" >&2
  exit 1
}

# The newest glibc symbol version the binary needs: a manylinux tag promises no more than that.
glibc() { grep -ao 'GLIBC_2\.[0-9]*' "$binary" | sort -uV | tail -1 | sed 's/GLIBC_2\./2_/'; }

# platform_tag TRIPLE: the wheel platform tag of a binary built for TRIPLE (the matrix).
platform_tag() {
  case "$1" in
    x86_64-unknown-linux-gnu) printf 'manylinux_%s_x86_64' "$(glibc)" ;;
    *)
      printf 'ci/package-python.sh: no wheel platform tag for %s yet: add its line to platform_tag\n' "$1" >&2
      exit 1
      ;;
  esac
}

python3 packages/python/build_wheel.py --binary "$binary" --platform "$(platform_tag "$target")" --out "$out"
