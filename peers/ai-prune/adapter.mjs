// ai-prune (docs/peers.md): the AI SDK's pruneMessages over ModelMessage[], with the options of the
// SDK's own example: reasoning before the last message, tool calls and results before the last two
// messages (unless those two reference them), empty messages removed.
import { pruneMessages } from "ai";
import { serve } from "../serve.mjs";

const options = { reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" };

await serve(({ messages }) => ({ messages: pruneMessages({ messages, ...options }) }));
