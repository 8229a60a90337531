# Shared helpers for the CI scripts (sourced, not run).

# Prints a step header; `timed CMD...` runs a command and prints how long it took.
step() { printf '\n== %s\n' "$*"; }
timed() {
  local start=$SECONDS status=0
  "$@" || status=$?
  printf '   (%ss: %s)\n' "$((SECONDS - start))" "$*"
  return "$status"
}

# ensure_tool BINARY CRATE VERSION: installs a pinned cargo tool unless that version is on PATH.
# Installed tools stay in ~/.cargo/bin, which is the cache on a machine that keeps its home.
ensure_tool() {
  local binary=$1 crate=$2 version=$3
  # A cargo subcommand prints its version only when run through cargo (`cargo mutants --version`).
  if cargo "${binary#cargo-}" --version 2>/dev/null | grep -q "$version"; then
    return 0
  fi
  step "installing $crate $version (not on PATH yet)"
  timed cargo install "$crate" --version "$version" --locked --quiet
}

# figure_setup EXAMPLE: what a figure script starts with. Builds the release binary and EXAMPLE
# (the example that writes the figure's inputs) into `$target`, and makes `$dir`, a scratch
# directory removed when the script exits.
figure_setup() {
  target=${CARGO_TARGET_DIR:-target}
  cargo build --release --quiet --bin ctxfuzz --example "$1"
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
}
