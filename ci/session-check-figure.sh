#!/usr/bin/env bash
# The figure of `ctxfuzz check` on a long pi session file (docs/figures.md#check-scan-and-session-files): a
# session of MESSAGES messages with branches and compactions (`long_transcript MESSAGES 1
# session`, about 285 MB for a million), checked RUNS times alternately with Node's `JSON.parse`
# of its lines (what pi's `loadEntriesFromFile` does), each under `/usr/bin/time`: wall and user
# seconds and peak RSS, and the ratio of the RSS to the file's size. Then `ctxfuzz scan` of a
# directory of FILES such sessions (seeds 1 to FILES; 0 skips it), RUNS times: its peak RSS
# against the largest file's size.
#
#     CARGO_TARGET_DIR=... bash ci/session-check-figure.sh [MESSAGES] [RUNS] [FILES]
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh
messages=${1:-1000000}
runs=${2:-3}
files=${3:-10}
figure_setup long_transcript
"$target/release/examples/long_transcript" "$messages" 1 session > "$dir/session.jsonl"
bytes=$(stat -c %s "$dir/session.jsonl")
echo "session file: $bytes bytes, $messages messages"
parse='const text = require("fs").readFileSync(process.argv[1], "utf8");
for (const line of text.split("\n")) if (line.trim()) JSON.parse(line);'
for _ in $(seq "$runs"); do
  /usr/bin/time -f "node JSON.parse of the lines: %e s wall, %U s user, %M KiB" \
    node -e "$parse" "$dir/session.jsonl"
  /usr/bin/time -o "$dir/time" -f "%e %U %M" "$target/release/ctxfuzz" check "$dir/session.jsonl" > /dev/null
  read -r wall user kib < "$dir/time"
  echo "ctxfuzz check: $wall s wall, $user s user, $kib KiB ($(awk "BEGIN {printf \"%.2f\", $kib * 1024 / $bytes}")x the file)"
done
[ "$files" -gt 0 ] || exit 0
mkdir "$dir/scan"
mv "$dir/session.jsonl" "$dir/scan/long-1.jsonl"
for seed in $(seq 2 "$files"); do
  "$target/release/examples/long_transcript" "$messages" "$seed" session > "$dir/scan/long-$seed.jsonl"
done
largest=$(stat -c %s "$dir"/scan/*.jsonl | sort -n | tail -1)
echo "scan directory: $files session files, the largest $largest bytes"
for _ in $(seq "$runs"); do
  /usr/bin/time -o "$dir/time" -f "%e %U %M" "$target/release/ctxfuzz" scan "$dir/scan" > /dev/null
  read -r wall user kib < "$dir/time"
  echo "ctxfuzz scan: $wall s wall, $user s user, $kib KiB ($(awk "BEGIN {printf \"%.2f\", $kib * 1024 / $largest}")x the largest file)"
done
