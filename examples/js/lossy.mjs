// A lossy repairer of OpenAI chat transcripts, with the defect of issue 38: it puts each result
// right after its call, and to do so jumps from the call to its last result, so a user's message
// typed while the tools ran (between the call and its result) is lost. Otherwise as careful.mjs.
const synthetic = (id) => ({ role: "tool", tool_call_id: id, content: "[synthetic] no result was recorded" });
const isResult = (message) => message?.role === "tool";

export function repair(messages) {
  const placed = new Set();
  const out = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (isResult(message)) continue; // placed after its call
    out.push(message);
    let last = i;
    for (const call of message?.role === "assistant" && Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      const at = messages.findIndex((m, j) => !placed.has(j) && isResult(m) && m.tool_call_id === call?.id);
      placed.add(at);
      out.push(at === -1 ? synthetic(call?.id) : messages[at]);
      last = Math.max(last, at);
    }
    i = last; // the defect: what lay between the call and its last result is skipped with them
  }
  return out;
}
