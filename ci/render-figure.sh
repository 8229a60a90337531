#!/usr/bin/env bash
# The figure of `ctxfuzz render --batch` against the real pi end to end
# (docs/figures.md#oracle-against-the-real-pi): COUNT generated transcripts (`render_inputs`),
# each answered with its Anthropic request body by `ctxfuzz render --batch` and by pi 1.6.0 in
# Node (`oracles/conformance/bridge.mjs`, the same lines wrapped in `{"pi": "1.6.0", "input": ...}`),
# RUNS times alternately, each under `/usr/bin/time`: reading, parsing, pi's pipeline and printing
# on both sides, Node's start-up and module loading included (about 0.2 s of its time). Needs
# `npm ci --prefix oracles/conformance`.
#
#     CARGO_TARGET_DIR=... bash ci/render-figure.sh [COUNT] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh
count=${1:-20000}
runs=${2:-3}
figure_setup render_inputs
"$target/release/examples/render_inputs" "$count" > "$dir/inputs.jsonl"
awk '{ print "{\"pi\":\"1.6.0\",\"input\":" $0 "}" }' "$dir/inputs.jsonl" > "$dir/requests.jsonl"
echo "inputs: $count transcripts, $(stat -c %s "$dir/inputs.jsonl") bytes"
for _ in $(seq "$runs"); do
  /usr/bin/time -o "$dir/node" -f "%e %U" node oracles/conformance/bridge.mjs \
    < "$dir/requests.jsonl" > "$dir/node.jsonl"
  /usr/bin/time -o "$dir/ours" -f "%e %U" "$target/release/ctxfuzz" render --batch \
    < "$dir/inputs.jsonl" > "$dir/ours.jsonl"
  read -r node_wall node_user < "$dir/node"
  read -r wall user < "$dir/ours"
  echo "pi in Node: $node_wall s wall, $node_user s user; ctxfuzz render --batch: $wall s wall, $user s user: $(awk "BEGIN {printf \"%.2f\", $node_wall / $wall}")x"
done
# The same answers on both sides, line for line (after key order), or the figure compares
# different work. A throw while pi builds a request body keeps only its message in the real pi
# (tests/ctxfuzz/conformance.rs, `without_error_name_at_provider_stage`): both sides are compared
# without the error's name there.
python3 - "$dir/node.jsonl" "$dir/ours.jsonl" <<'PY'
import json, sys

def answer(line):
    output = json.loads(line)
    error = output.get("error")
    if output.get("stage") == "anthropic" and isinstance(error, str):
        name, _, message = error.partition(": ")
        if message and name.endswith("Error"):
            output["error"] = message
    return output

node, ours = (open(path).read().splitlines() for path in sys.argv[1:])
differ = sum(answer(a) != answer(b) for a, b in zip(node, ours))
print(f"answers: {len(ours)} lines, {differ} differ" + ("" if len(node) == len(ours) else f" (Node answered {len(node)})"))
sys.exit(differ > 0 or len(node) != len(ours))
PY
