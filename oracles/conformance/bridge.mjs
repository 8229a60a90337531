// The bridge from ctxfuzz to the real pi packages (pinned in package.json, side by side through npm
// aliases). It speaks JSON lines on stdin/stdout: one request per line, one response line per request,
// in order.
//
// Request:  {"pi": "0.79.0" | "0.81.1" | "0.87.1" | "1.6.0", "input": <vector input>}
//   message mode: {"messages": [...], "model"?: {...}, "skipConvert"?: bool, "anthropic"?: bool,
//                  "openaiCompletions"?: bool, "openaiResponses"?: bool, "google"?: bool}
//   session mode: {"entries": [...] | "jsonl": "...", "leafId"?: string | null, "model"?, "anthropic"?,
//                  "openaiCompletions"?, "openaiResponses"?, "google"?}
// Response: exactly the `output` shape of oracles/tests/data/vectors.expected.jsonl:
//   {"session"?: {...}, "llm": [...], "transformed": [...], "anthropic"?: {...},
//    "openaiCompletions"?: {"messages": [...]}, "openaiResponses"?: {"input": [...]},
//    "google"?: {"contents": [...]}}
//   or {"error": "<Name>: <message>", "stage": "...", ...what was computed before the throw}
//
// `transformed` is always `transformMessages` with Anthropic's id normaliser (the one the bridge
// can name). `openaiCompletions` asks for the body pi's openai-completions provider builds for the
// same messages and `model` (set its `api`, `provider`, `baseUrl` and `compat`): the real `stream`
// builds it (its own `getCompat`, normaliser and `convertMessages`), `onPayload` captures it and
// stops the request before anything is sent, and its `messages` are answered. `openaiResponses`
// does the same with pi's openai-responses provider and answers the body's `input`, `google` with
// pi's google-generative-ai provider and the body's `contents`.
//
// Timing request: {"pi": V, "bench": [<message-mode input>, ...], "repeat"?: n}
//   runs convertToLlm + transformMessages over every input once untimed (JIT warm-up), then
//   `repeat` times (default 1), and answers {"runs": <inputs * repeat>, "nanos": <wall time of the
//   timed passes>}: JSON parsing and printing are outside the timed region, so the benchmark
//   compares pure pipeline work on both sides.
//
// A line the bridge cannot understand gets {"error": ..., "stage": "input"} and the bridge goes on.

import { createInterface } from "node:readline";

// Synthetic tool results carry `timestamp: Date.now()`. Freezing the clock makes them comparable
// (the reference vectors were recorded the same way).
Date.now = () => 0;
// Session entries carry ISO timestamps that pi turns into epoch milliseconds; a date-time without
// an offset is local time, so the zone is pinned to keep runs comparable with the Rust model.
process.env.TZ = "UTC";

const here = new URL("./node_modules/", import.meta.url);
const load = (path) => import(new URL(path, here).href);

// Where each pinned version keeps the functions: pi-ai moved its providers from `providers/` to
// `api/` between 0.79 and 0.81, and renamed each provider's entry point (`streamAnthropic`, ...) to
// `stream`.
const API = {
  transform: "api/transform-messages.js",
  anthropic: "api/anthropic-messages.js",
  stream: "stream",
  openaiCompletions: "api/openai-completions.js",
  openaiStream: "stream",
  openaiResponses: "api/openai-responses.js",
  responsesStream: "stream",
  google: "api/google-generative-ai.js",
  googleStream: "stream",
};
const LAYOUT = {
  "0.79.0": {
    transform: "providers/transform-messages.js",
    anthropic: "providers/anthropic.js",
    stream: "streamAnthropic",
    openaiCompletions: "providers/openai-completions.js",
    openaiStream: "streamOpenAICompletions",
    openaiResponses: "providers/openai-responses.js",
    responsesStream: "streamOpenAIResponses",
    google: "providers/google.js",
    googleStream: "streamGoogle",
  },
  "0.81.1": API,
  "0.87.1": API,
  "1.6.0": API,
};

const loaded = new Map();
async function pi(version) {
  if (!loaded.has(version)) {
    const layout = LAYOUT[version];
    if (!layout) throw new Error(`unknown pi version ${JSON.stringify(version)} (pinned: ${Object.keys(LAYOUT).join(", ")})`);
    const ai = `pi-ai-${version}/dist/`;
    const agent = `pi-coding-agent-${version}/dist/core/`;
    const [transform, anthropic, openai, responses, google, messages, session] = await Promise.all([
      load(ai + layout.transform),
      load(ai + layout.anthropic),
      load(ai + layout.openaiCompletions),
      load(ai + layout.openaiResponses),
      load(ai + layout.google),
      load(agent + "messages.js"),
      load(agent + "session-manager.js"),
    ]);
    loaded.set(version, {
      transformMessages: transform.transformMessages,
      stream: anthropic[layout.stream],
      openaiStream: openai[layout.openaiStream],
      responsesStream: responses[layout.responsesStream],
      googleStream: google[layout.googleStream],
      convertToLlm: messages.convertToLlm,
      parseSessionEntries: session.parseSessionEntries,
      migrateSessionEntries: session.migrateSessionEntries,
      buildSessionContext: session.buildSessionContext,
    });
  }
  return loaded.get(version);
}

// The catalog entry of the reference vectors; a request's `model` is merged over it.
const DEFAULT_MODEL = {
  id: "claude-sonnet-4-5",
  name: "Claude Sonnet 4.5",
  api: "anthropic-messages",
  provider: "anthropic",
  baseUrl: "https://api.anthropic.com",
  reasoning: true,
  input: ["text", "image"],
  cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  contextWindow: 200000,
  maxTokens: 64000,
  compat: { supportsStrictTools: true },
};

// pi's Anthropic provider passes this normaliser to transformMessages. It is module-private in every
// pinned version (byte-identical in all four), so it is restated here.
const normalizeToolCallId = (id) => id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);

const describe = (error) => `${error?.name ?? "Error"}: ${error?.message ?? String(error)}`;

// Runs `fn`; a throw becomes the vectors' error shape, keeping what was computed before it.
function stage(name, out, fn) {
  try {
    return { value: fn() };
  } catch (error) {
    return { failed: { error: describe(error), stage: name, ...out } };
  }
}

// The request body a pi provider (Anthropic's, openai-completions', openai-responses', google-generative-ai's) would send: built by its real
// `stream`, captured in the
// `onPayload` hook, and never sent (the hook throws before the client is used). When building it
// throws, the provider reports the error as an `error` event that keeps only the message (pi's
// `errorMessage` drops the error's name), so that is what the bridge can report.
class ProviderError extends Error {}

async function capturedRequest(stream, model, messages) {
  let captured;
  let failure;
  const events = stream(model, { messages }, {
    apiKey: "ctxfuzz-bridge-never-sends",
    cacheRetention: "none",
    onPayload: (params) => {
      captured = params;
      throw new Error("ctxfuzz: payload captured");
    },
  });
  for await (const event of events) {
    if (event.type === "error") failure = event.error?.errorMessage;
    if (event.type === "done" || event.type === "error") break;
  }
  if (captured === undefined) throw new ProviderError(failure ?? "the provider built no request");
  return JSON.parse(JSON.stringify(captured));
}

function sessionEntries(api, input) {
  const entries = typeof input.jsonl === "string" ? api.parseSessionEntries(input.jsonl) : structuredClone(input.entries);
  // pi migrates old files (v1 -> v2 -> v3) on load, and only files that have a header.
  if (entries.some((entry) => entry?.type === "session")) api.migrateSessionEntries(entries);
  return entries;
}

async function run(api, input) {
  const model = { ...DEFAULT_MODEL, ...(input.model ?? {}) };
  const out = {};
  let messages = input.messages;
  if (input.entries !== undefined || input.jsonl !== undefined) {
    const leafId = "leafId" in input ? input.leafId : undefined;
    const built = stage("buildSessionContext", out, () => api.buildSessionContext(sessionEntries(api, input), leafId));
    if (built.failed) return built.failed;
    out.session = built.value;
    messages = built.value.messages;
  }
  const llm = input.skipConvert ? { value: messages } : stage("convertToLlm", out, () => api.convertToLlm(messages));
  if (llm.failed) return llm.failed;
  out.llm = llm.value;
  const transformed = stage("transformMessages", out, () => api.transformMessages(out.llm, model, normalizeToolCallId));
  if (transformed.failed) return transformed.failed;
  out.transformed = transformed.value;
  if (input.anthropic) {
    try {
      out.anthropic = await capturedRequest(api.stream, model, out.llm);
    } catch (error) {
      const text = error instanceof ProviderError ? error.message : describe(error);
      return { error: text, stage: "anthropic", ...out };
    }
  }
  // The other APIs' bodies, each answered as its list. From 0.86 the system messages are collapsed
  // before the provider's `try`: a throw there leaves `stream` itself, with its name.
  const bodies = [
    ["openaiCompletions", api.openaiStream, "messages", "openai-completions"],
    ["openaiResponses", api.responsesStream, "input", "openai-responses"],
    ["google", api.googleStream, "contents", "google-generative-ai"],
  ];
  for (const [key, stream, list, stageName] of bodies) {
    if (!input[key]) continue;
    try {
      out[key] = { [list]: (await capturedRequest(stream, model, out.llm))[list] };
    } catch (error) {
      const text = error instanceof ProviderError ? error.message : describe(error);
      return { error: text, stage: stageName, ...out };
    }
  }
  return out;
}

function bench(api, inputs, repeat) {
  const models = inputs.map((input) => ({ ...DEFAULT_MODEL, ...(input.model ?? {}) }));
  const once = () => {
    for (let i = 0; i < inputs.length; i++) {
      try {
        const llm = inputs[i].skipConvert ? inputs[i].messages : api.convertToLlm(inputs[i].messages);
        api.transformMessages(llm, models[i], normalizeToolCallId);
      } catch {
        // A throw is an outcome of the pipeline, timed like any other.
      }
    }
  };
  once(); // warm-up, untimed: the JIT compiles the hot paths before the clock starts
  const start = process.hrtime.bigint();
  for (let r = 0; r < repeat; r++) once();
  const nanos = Number(process.hrtime.bigint() - start);
  return { runs: inputs.length * repeat, nanos };
}

async function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { error: describe(error), stage: "input" };
  }
  try {
    const api = await pi(request?.pi);
    if (Array.isArray(request.bench)) return bench(api, request.bench, request.repeat ?? 1);
    if (request.input === null || typeof request.input !== "object") throw new Error("the request has no `input` object");
    return await run(api, request.input);
  } catch (error) {
    return { error: describe(error), stage: "input" };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  process.stdout.write(JSON.stringify(await answer(line)) + "\n");
}
