// A function value, as the module and export name it can be imported by: the child process the
// CLI supervises imports it there (docs/decisions.md: the caller's function never runs in the
// caller's process). V8 knows where a function was defined (`[[FunctionLocation]]`, read through
// the in-process inspector); the export is the one of that module holding this very function.
"use strict";

const inspector = require("node:inspector");
const { pathToFileURL, fileURLToPath } = require("node:url");

/** The URL of the script that defines `fn`, or undefined (a native, bound or eval'd function). */
async function definingScript(fn) {
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  const scripts = new Map();
  session.on("Debugger.scriptParsed", ({ params }) => scripts.set(params.scriptId, params.url));
  const key = `__ctxfuzz_locate_${process.pid}`;
  globalThis[key] = fn;
  try {
    await post("Debugger.enable"); // reports every script already parsed
    const { result } = await post("Runtime.evaluate", { expression: `globalThis[${JSON.stringify(key)}]` });
    const { internalProperties = [] } = await post("Runtime.getProperties", {
      objectId: result.objectId,
      ownProperties: true,
    });
    const location = internalProperties.find((p) => p.name === "[[FunctionLocation]]");
    return location && scripts.get(location.value.value.scriptId);
  } finally {
    delete globalThis[key];
    await post("Debugger.disable").catch(() => {});
    session.disconnect();
  }
}

/** The module exports of `url` as this process loaded them (so identity holds). */
async function loaded(url) {
  try {
    return require(fileURLToPath(url)); // CommonJS, through the caller's require cache
  } catch (error) {
    if (error.code !== "ERR_REQUIRE_ESM") throw error;
    return import(url);
  }
}

/** `{ module, name }` for a function exported by a module file; throws a readable Error otherwise. */
async function locate(fn) {
  const label = fn.name ? `\`${fn.name}\`` : "an anonymous function";
  let url = await definingScript(fn);
  if (url && !url.startsWith("file:") && url.startsWith("/")) url = pathToFileURL(url).href;
  if (!url?.startsWith("file:")) {
    throw new Error(
      `ctxfuzz: ${label} is defined in no module file, so it cannot be run in the process ctxfuzz supervises: ` +
        "export it from a module, or pass fuzz(new URL('./file.mjs', import.meta.url), { export: 'name', ... })",
    );
  }
  const exports = await loaded(url);
  if (exports === fn) return { module: url, name: "default" }; // module.exports = fn
  const candidates = [...Object.entries(exports)];
  if (exports.default && typeof exports.default === "object") candidates.push(...Object.entries(exports.default));
  if (exports.default === fn) return { module: url, name: "default" };
  const found = candidates.find(([, value]) => value === fn);
  if (!found) {
    throw new Error(
      `ctxfuzz: ${label} is not exported by ${fileURLToPath(url)}: export it (the child process ctxfuzz supervises imports it by name), ` +
        "or pass the module and the export name: fuzz(new URL('./file.mjs', import.meta.url), { export: 'name', ... })",
    );
  }
  return { module: url, name: found[0] };
}

module.exports = { locate };
