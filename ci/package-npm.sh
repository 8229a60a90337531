#!/usr/bin/env bash
# Builds the npm packages (docs/javascript.md) from release binaries already built, into
# ${CARGO_TARGET_DIR:-target}/packages/: `ctxfuzz-VERSION.tgz` (the API and the launcher) and one
# `ctxfuzz-OS-CPU-VERSION.tgz` per platform (`@ctxfuzz/OS-CPU`, the binary, with npm's `os` and
# `cpu` fields so that npm installs only the one that fits). Nothing is published.
#
#   ci/package-npm.sh [--out DIR] [OS-CPU=BINARY ...]
#
# The platforms are a matrix: one OS-CPU=BINARY entry each, OS and CPU as Node names them
# (process.platform, process.arch). Without any, the host's entry: linux-x64 and the release
# binary of this tree. Another platform is one more entry, e.g. in a CI matrix job per target:
#   cargo build --release --target aarch64-apple-darwin
#   ci/package-npm.sh darwin-arm64=target/aarch64-apple-darwin/release/ctxfuzz   (on a macOS runner: strip is its own)
# (the main package lists every platform given as an optional dependency, so build it once
# with all the entries, or once per job and keep the one that lists them all).
# The version is Cargo.toml's [package] version, the one place it is written.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${CARGO_TARGET_DIR:-target}/packages
if [ "${1:-}" = "--out" ]; then
  out=$2
  shift 2
fi
entries=("$@")
[ ${#entries[@]} -gt 0 ] || entries=("linux-x64=${CARGO_TARGET_DIR:-target}/release/ctxfuzz")

version=$(sed -n '/^\[package\]/,/^\[/ s/^version = "\(.*\)"$/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "ci/package-npm.sh: no version in Cargo.toml's [package]" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# set FILE KEY=VALUE...: sets top-level or `a.b` keys of a package.json (values are JSON).
set_fields() {
  node -e '
    const fs = require("node:fs");
    const [file, ...pairs] = process.argv.slice(1);
    const json = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const pair of pairs) {
      const at = pair.indexOf("=");
      const keys = pair.slice(0, at).split(".");
      const last = keys.pop();
      keys.reduce((o, k) => o[k], json)[last] = JSON.parse(pair.slice(at + 1));
    }
    fs.writeFileSync(file, JSON.stringify(json, null, 2) + "\n");
  ' "$@"
}

cp -r packages/npm/ctxfuzz "$stage/ctxfuzz"
set_fields "$stage/ctxfuzz/package.json" "version=\"$version\""
for entry in "${entries[@]}"; do
  platform=${entry%%=*}
  binary=${entry#*=}
  [ -x "$binary" ] || { echo "ci/package-npm.sh: $binary: no executable (build it with cargo build --release)" >&2; exit 2; }
  dir="$stage/$platform"
  mkdir -p "$dir/bin"
  cp packages/npm/platform/package.json "$dir/"
  set_fields "$dir/package.json" "name=\"@ctxfuzz/$platform\"" "version=\"$version\"" \
    "os=[\"${platform%-*}\"]" "cpu=[\"${platform#*-}\"]"
  # The symbol tables are a fifth of the binary (docs/figures.md); a stripped one still prints
  # its panics, without the frames' names.
  strip -o "$dir/bin/ctxfuzz" "$binary"
  chmod 755 "$dir/bin/ctxfuzz"
  (cd "$dir" && npm pack --silent --pack-destination "$out" >/dev/null)
  set_fields "$stage/ctxfuzz/package.json" "optionalDependencies.@ctxfuzz/$platform=\"$version\""
done
(cd "$stage/ctxfuzz" && npm pack --silent --pack-destination "$out" >/dev/null)
ls -1 "$out"/ctxfuzz-*"$version".tgz
