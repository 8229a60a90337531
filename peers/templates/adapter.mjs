// ctxfuzz adapter template (docs/peers.md#your-own): copy it, call your function where marked,
// then `ctxfuzz fuzz --contract repair|cut|prune|trim --format FORMAT --sut "node adapter.mjs"`.
import { createInterface } from "node:readline";

const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
console.log = console.error; // your code's console.log must not reach ctxfuzz

function handle(request) {
  const { messages } = request;
  if ("target" in request) {
    // cut: the first kept index near `target` (0: do not compact); as copied: asked to compact
    // (target > 0), summarise everything
    return { boundary: request.target ? messages.length : 0 }; // <- your compactor(messages, request.target)
  }
  return { messages }; // <- your repairer, pruner or trimmer(messages)
}

for await (const line of createInterface({ input: process.stdin })) {
  try {
    answer(handle(JSON.parse(line)));
  } catch (error) {
    answer({ error: `${error.name}: ${error.message}` }); // a throw is an answer; the loop goes on
  }
}
