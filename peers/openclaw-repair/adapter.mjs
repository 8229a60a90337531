// openclaw-repair (docs/peers.md): openclaw's repairToolUseResultPairing over pi messages, with the
// option openclaw itself passes on the way to the provider (its transport's replay step and
// sanitizeToolUseResultPairingForModel): an errored assistant turn is dropped with its results. It
// is not exported from any public entry point: it lives in a hashed chunk of dist/, found by its
// stem and called by the alias its export list gives it.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serve } from "../serve.mjs";

const dist = fileURLToPath(new URL("../node_modules/openclaw/dist", import.meta.url));
const chunks = readdirSync(dist).filter((file) => /^session-transcript-repair-[\w-]{8}\.mjs$/.test(file));
if (chunks.length !== 1) throw new Error(`${dist}: expected one session-transcript-repair-<hash>.mjs, found ${chunks.length}`);
const chunk = `${dist}/${chunks[0]}`;
const alias = readFileSync(chunk, "utf8").match(/\brepairToolUseResultPairing as (\w+)\b/)?.[1];
if (!alias) throw new Error(`${chunk} does not export repairToolUseResultPairing`);
const repairToolUseResultPairing = (await import(chunk))[alias];

const options = { erroredAssistantResultPolicy: "drop" };

await serve(({ messages }) => ({ messages: repairToolUseResultPairing(messages, options).messages }));
