#!/usr/bin/env bash
# The GitHub Action's steps (action.yml; docs/github-action.md), a script so the tests can run them
# with a scratch GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (tests/ctxfuzz/action.rs).
#
#   ci/action.sh install   puts ctxfuzz on PATH: INPUT_INSTALL=cargo builds it from this checkout
#                          unless that version is on PATH already; `none` only checks it is there
#   ci/action.sh run       one `ctxfuzz fuzz` of INPUT_COMMAND (or `ctxfuzz replay INPUT_REPLAY`),
#                          its summary appended to GITHUB_STEP_SUMMARY, the case files' folder set
#                          as the step's `findings` output; exits with ctxfuzz's exit code
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

fail() {
  printf 'ctxfuzz action: %s\n' "$*" >&2
  exit 2
}
# The version this action's source builds: its package version in Cargo.toml.
source_version() { sed -n 's/^version = "\(.*\)"$/\1/p' "$here/Cargo.toml" | head -1; }

install() {
  case "${INPUT_INSTALL:-cargo}" in
    none)
      command -v ctxfuzz >/dev/null ||
        fail "install is 'none' but no ctxfuzz is on PATH (pip install ctxfuzz, or npm install ctxfuzz, first)"
      ;;
    cargo)
      local want
      want=$(source_version)
      if [ "$(ctxfuzz --version 2>/dev/null)" = "ctxfuzz $want" ]; then
        printf 'ctxfuzz %s is on PATH already\n' "$want"
        return 0
      fi
      command -v cargo >/dev/null || fail "install is 'cargo' but cargo is not on PATH (add a Rust toolchain step, or install ctxfuzz with pip or npm and set install: none)"
      local root=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ctxfuzz
      cargo install --locked --quiet --path "$here" --root "$root" || fail "cargo install failed"
      if [ -n "${GITHUB_PATH:-}" ]; then printf '%s/bin\n' "$root" >>"$GITHUB_PATH"; fi
      ;;
    *) fail "install must be 'cargo' or 'none', not '$INPUT_INSTALL'" ;;
  esac
}

# summary STATUS TITLE OUTPUT_FILE [REPORT_FILE]: the job summary's section for this run; the
# output (each finding's input and diff) is shown open when the run failed.
summary() {
  local lines open=
  lines=$(wc -l <"$3")
  [ "$1" -ne 0 ] && open=" open"
  {
    printf '## ctxfuzz: %s\n\n' "$2"
    [ -n "${4:-}" ] && cat "$4" && printf '\n'
    printf '<details%s><summary>ctxfuzz output (%s lines)</summary>\n\n```text\n' "$open" "$lines"
    # A job summary holds at most 1 MiB: the output is cut, and says so.
    head -n 400 "$3"
    [ "$lines" -gt 400 ] && printf '... %s more lines in the job log\n' "$((lines - 400))"
    printf '```\n\n</details>\n'
  } >>"${GITHUB_STEP_SUMMARY:-/dev/stdout}"
}

run() {
  command -v ctxfuzz >/dev/null || fail "no ctxfuzz on PATH (run the install step first)"
  local log status
  log=$(mktemp)
  trap 'rm -f "$log" "$log.md"' EXIT
  if [ -n "${INPUT_REPLAY:-}" ]; then
    ctxfuzz replay "$INPUT_REPLAY" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    summary "$status" "replay of $INPUT_REPLAY: $([ "$status" -eq 0 ] && echo passed || echo FAILED)" "$log"
    return "$status"
  fi
  [ -n "${INPUT_COMMAND:-}" ] || fail "set 'command' (the program to fuzz) or 'replay' (a folder of case files)"
  local out=${INPUT_OUT:-ctxfuzz-findings}
  local args=(fuzz --sut "$INPUT_COMMAND" --contract "${INPUT_CONTRACT:-repair}"
    --format "${INPUT_FORMAT:-openai}" --out "$out")
  if [ -n "${INPUT_RUNS:-}" ]; then args+=(--runs "$INPUT_RUNS"); else args+=(--time "${INPUT_SECONDS:-30}"); fi
  [ -n "${INPUT_SEED:-}" ] && args+=(--seed "$INPUT_SEED")
  [ -n "${INPUT_MARKER:-}" ] && args+=(--marker "$INPUT_MARKER")
  ctxfuzz "${args[@]}" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  local verdict report=
  verdict=$(grep -m1 '^verdict: ' "$log" | sed 's/^verdict: //')
  if compgen -G "$out/*.json" >/dev/null; then
    ctxfuzz report "$out" --markdown "$log.md" >/dev/null && report="$log.md"
    [ -n "${GITHUB_OUTPUT:-}" ] && printf 'findings=%s\n' "$out" >>"$GITHUB_OUTPUT"
  fi
  summary "$status" "${verdict:-exit code $status}" "$log" "$report"
  return "$status"
}

case "${1:-}" in
  install) install ;;
  run) run ;;
  *) fail "usage: ci/action.sh install|run" ;;
esac
