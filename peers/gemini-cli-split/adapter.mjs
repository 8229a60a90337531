// gemini-cli-split (docs/peers.md): gemini-cli-core's findCompressSplitPoint over Gemini Content[],
// asked to compress the fraction target / length of the history. The package throws for a fraction
// of 0 or 1 (target 0 or length): that is answered as an error, as the protocol says.
import { findCompressSplitPoint } from "@google/gemini-cli-core/dist/src/context/chatCompressionService.js";
import { serve } from "../serve.mjs";

await serve(({ messages, target }) => ({ boundary: findCompressSplitPoint(messages, target / messages.length) }));
