// A function value, as the module and export name it can be imported by: the child process the
// CLI supervises imports it there (docs/decisions.md: the caller's function never runs in the
// caller's process). V8 knows where a function was defined (`[[FunctionLocation]]`, read through
// the in-process inspector); the export is the one of that module holding this very function (or,
// where the test runner loaded the module its own way, the function of the same name).
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
  // The function is reached through this global of ours: the main context's, or a sandbox's
  // (jest runs each test file in a vm context of its own; then every context is tried).
  const key = `__ctxfuzz_locate_${process.pid}`;
  const find = async (contextId) => {
    const { result } = await post("Runtime.evaluate", { expression: `globalThis[${JSON.stringify(key)}]`, contextId });
    return result.type === "function" ? result.objectId : undefined;
  };
  globalThis[key] = fn;
  try {
    let objectId = await find();
    if (!objectId) {
      const contexts = [];
      session.on("Runtime.executionContextCreated", ({ params }) => contexts.push(params.context.id));
      await post("Runtime.enable"); // reports every context
      for (const contextId of contexts) objectId ??= await find(contextId);
    }
    if (!objectId) return undefined;
    const { internalProperties = [] } = await post("Runtime.getProperties", { objectId, ownProperties: true });
    const location = internalProperties.find((p) => p.name === "[[FunctionLocation]]");
    if (!location) return undefined;
    const { scriptId } = location.value.value;
    // The script's URL by its id. Best-effort coverage lists most scripts in a millisecond or two,
    // but not all of them (not one whose top-level code V8 has let go of); the debugger's list
    // (Debugger.enable) has every script, and costs tens of milliseconds.
    const { result: covered } = await post("Profiler.getBestEffortCoverage");
    const url = covered.find((script) => script.scriptId === scriptId)?.url;
    if (url) return url;
    const parsed = new Map();
    session.on("Debugger.scriptParsed", ({ params }) => parsed.set(params.scriptId, params.url));
    await post("Debugger.enable"); // reports every script parsed so far
    await post("Debugger.disable");
    return parsed.get(scriptId);
  } finally {
    delete globalThis[key];
    session.disconnect();
  }
}

/**
 * The exports of the module at `url` as this process loaded them (so identity holds). The module
 * is loaded already (it defined `fn`), so the import settles at once, unless the module is still
 * evaluating: a top-level `await fuzz(...)` of a function it defines itself, which would wait for
 * itself forever.
 */
async function loaded(url, label) {
  let timer;
  const waiting = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`ctxfuzz: the module that defines ${label} is still evaluating (a top-level await in it?): move the function to a module of its own`)),
      2000,
    );
  });
  const importing = importOrRequire(url).catch((error) => {
    throw new Error(
      `ctxfuzz: ${fileURLToPath(url)}, where ${label} is defined, does not import in plain node (${error.message}): ` +
        "pass the module with the node arguments that load it, e.g. fuzz(new URL('./repair.ts', import.meta.url), " +
        "{ export: 'repair', nodeArgs: ['--import', 'tsx'], ... })",
    );
  });
  try {
    return await Promise.race([importing, waiting]);
  } finally {
    clearTimeout(timer);
  }
}

/** import() where the runtime has it; require() where it does not (jest's CommonJS sandbox). */
async function importOrRequire(url) {
  try {
    return await import(url);
  } catch (error) {
    if (!/ERR_VM_DYNAMIC_IMPORT|dynamic import/i.test(`${error.code} ${error.message}`)) throw error;
    return require(fileURLToPath(url));
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
  const exports = await loaded(url, label);
  if (exports === fn) return { module: url, name: "default" }; // module.exports = fn
  const candidates = [...Object.entries(exports)];
  if (exports.default && typeof exports.default === "object") candidates.push(...Object.entries(exports.default));
  if (exports.default === fn) return { module: url, name: "default" };
  // A runner with a module loader of its own (vitest) holds another instance of the module than
  // node's import() gives here: then the export is the function of the same name from that file.
  const found =
    candidates.find(([, value]) => value === fn) ??
    (fn.name ? candidates.find(([, value]) => typeof value === "function" && value.name === fn.name) : undefined);
  if (!found) {
    throw new Error(
      `ctxfuzz: ${label} is not exported by ${fileURLToPath(url)}: export it (the child process ctxfuzz supervises imports it by name), ` +
        "or pass the module and the export name: fuzz(new URL('./file.mjs', import.meta.url), { export: 'name', ... })",
    );
  }
  return { module: url, name: found[0] };
}

module.exports = { locate };
