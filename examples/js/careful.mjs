// A careful repairer of OpenAI chat transcripts: every message that is not a tool result stays,
// in order; right after an assistant's tool calls come, in call order, the first result that
// answers each one (wherever it was), or a synthetic result saying none was recorded; any other
// result is dropped. A user's message typed while the tools ran moves after the results.
const synthetic = (id) => ({ role: "tool", tool_call_id: id, content: "[synthetic] no result was recorded" });
const isResult = (message) => message?.role === "tool";

export function repair(messages) {
  const placed = new Set();
  const out = [];
  for (const message of messages) {
    if (isResult(message)) continue; // placed after its call
    out.push(message);
    for (const call of message?.role === "assistant" && Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      const at = messages.findIndex((m, i) => !placed.has(i) && isResult(m) && m.tool_call_id === call?.id);
      placed.add(at);
      out.push(at === -1 ? synthetic(call?.id) : messages[at]);
    }
  }
  return out;
}
