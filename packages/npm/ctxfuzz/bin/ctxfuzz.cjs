#!/usr/bin/env node
// `npx ctxfuzz ...`: runs the platform's binary with the same arguments and exits as it does. A
// signal sent to this launcher alone (not to the terminal's whole group) is passed on, so the
// binary stops its run and its programs as it would on Ctrl-C.
"use strict";

const { spawn } = require("node:child_process");
const { binaryPath } = require("../lib/binary.cjs");

let binary;
try {
  binary = binaryPath();
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => {
  console.error(`ctxfuzz: cannot run ${binary}: ${error.message}`);
  process.exit(2);
});
child.on("exit", (code, signal) => process.exit(code ?? 128 + (require("node:os").constants.signals[signal] ?? 0)));
