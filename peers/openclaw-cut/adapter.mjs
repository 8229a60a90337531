// openclaw-cut (docs/peers.md): openclaw's findCutPoint over session entries. Message i becomes
// entry i (a "message" entry), so the first kept entry index is the first kept message index. The
// token budget is what the package itself estimates for messages[target..]: walking back from the
// end, findCutPoint stops where that budget is reached, at the target, then settles on a cut point.
import { estimateTokens, findCutPoint } from "openclaw/plugin-sdk/agent-core";
import { serve } from "../serve.mjs";

await serve(({ messages, target }) => {
  const entries = messages.map((message, i) => ({
    type: "message",
    id: `m${i}`,
    parentId: i === 0 ? null : `m${i - 1}`,
    timestamp: new Date(0).toISOString(),
    message,
  }));
  const keepRecentTokens = messages.slice(target).reduce((sum, message) => sum + estimateTokens(message), 0);
  return { boundary: findCutPoint(entries, 0, entries.length, keepRecentTokens).firstKeptEntryIndex };
});
