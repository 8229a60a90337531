// `await fuzz(myRepair, { contract, format, ... })`: one `ctxfuzz fuzz --contract ... --sut ...`
// run around a function of the caller's own code, from any test runner (docs/javascript.md).
// The CLI does all the work and says everything: a charged finding rejects with the CLI's own
// text, a clean run resolves to the figures of its summary.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const { binaryPath } = require("./binary.cjs");
const { locate } = require("./locate.cjs");
const { parseSummary } = require("./summary.cjs");

const SERVE = path.join(__dirname, "serve.mjs");
/** Signals that stop a run: passed on to the CLI, which stops its programs (docs/external-programs.md#ctrl-c). */
const STOPS = ["SIGINT", "SIGTERM", "SIGHUP"];

/** A charged finding (or a run that judged nothing): the CLI's text is the message. */
class FuzzFailure extends Error {
  constructor(output, caseFiles) {
    super(output.trimEnd());
    this.name = "FuzzFailure";
    this.output = output;
    this.caseFiles = caseFiles;
  }
}

function shellQuote(word) {
  return /^[\w./=:@-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The module and export the child imports: a function value is located, a specifier is taken as given. */
async function target(subject, options) {
  if (typeof subject === "function") {
    if (options.export !== undefined) throw new Error("ctxfuzz: `export` names an export of a module: pass the module, not a function");
    return locate(subject);
  }
  const specifier = subject instanceof URL ? subject.href : String(subject);
  const module = /^[a-z][a-z0-9+.-]*:/i.test(specifier) ? specifier : pathToFileURL(path.resolve(options.cwd ?? ".", specifier)).href;
  return { module, name: options.export ?? "default" };
}

/** `ctxfuzz fuzz`'s arguments for `options` (every value is passed as given: the CLI checks them). */
function cliArguments(sut, options) {
  const args = ["fuzz", "--contract", options.contract, "--sut", sut];
  const flags = {
    format: "--format",
    seconds: "--time",
    runs: "--runs",
    seed: "--seed",
    marker: "--marker",
    jobs: "--jobs",
    out: "--out",
    sutTimeoutMs: "--sut-timeout-ms",
    sutStartupMs: "--sut-startup-ms",
  };
  for (const [key, flag] of Object.entries(flags)) {
    if (options[key] !== undefined && options[key] !== null) args.push(flag, String(options[key]));
  }
  return args;
}

/** Fuzzes `subject` (a function exported by a module, or a module specifier with `options.export`). */
async function fuzz(subject, options = {}) {
  if (!options.contract) throw new Error("ctxfuzz: `contract` is required: repair, cut, prune, trim or sweep");
  const { module, name } = await target(subject, options);
  const node = [process.execPath, ...(options.nodeArgs ?? []), SERVE, options.contract, module, name];
  const sut = `exec ${node.map(shellQuote).join(" ")}`;
  const binary = binaryPath();
  const child = spawn(binary, cliArguments(sut, options), {
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout = [];
  const stderr = [];
  child.stdout.on("data", (chunk) => stdout.push(chunk));
  child.stderr.on("data", (chunk) => stderr.push(chunk));
  let stoppedBy;
  const stop = (signal) => {
    stoppedBy = signal;
    child.kill(signal);
  };
  for (const signal of STOPS) process.on(signal, stop);
  const [code, signal] = await new Promise((resolve, reject) => {
    child.on("error", (error) => reject(new Error(`ctxfuzz: cannot run ${binary}: ${error.message}`)));
    child.on("close", (code, signal) => resolve([code, signal]));
  }).finally(() => {
    for (const signal of STOPS) process.off(signal, stop);
  });
  const output = Buffer.concat(stdout).toString();
  const errors = Buffer.concat(stderr).toString();
  if (stoppedBy) {
    // The run is over and its programs are gone: now stop as the signal says (a test runner's
    // own handler, if it has one, decides; otherwise the default, which ends this process).
    if (process.listenerCount(stoppedBy) === 0) process.kill(process.pid, stoppedBy);
    throw new Error(`ctxfuzz: stopped by ${stoppedBy}\n${output}${errors}`);
  }
  if (code === 0) return parseSummary(output);
  if (code === 1) {
    const caseFiles = [...output.matchAll(/case file:? +(\S+\.json)/g)].map((m) => path.resolve(options.cwd ?? ".", m[1]));
    throw new FuzzFailure(output, [...new Set(caseFiles)]);
  }
  const how = signal ? `was killed by ${signal}` : `exited ${code}`;
  throw new Error(`ctxfuzz ${how}: ${errors.trim() || output.trim()}`);
}

module.exports = { fuzz, FuzzFailure };
