// Where the ctxfuzz binary is: in the per-platform package `@ctxfuzz/<os>-<cpu>` that npm installed
// as an optional dependency (only the one whose `os` and `cpu` match this machine is installed:
// the pattern of esbuild and biome, docs/javascript.md).
"use strict";

const { optionalDependencies } = require("../package.json");

function binaryPath() {
  const name = `@ctxfuzz/${process.platform}-${process.arch}`;
  try {
    return require.resolve(`${name}/bin/ctxfuzz`);
  } catch {
    const built = Object.keys(optionalDependencies).join(", ") || "none";
    throw new Error(
      `ctxfuzz: no binary for ${process.platform}-${process.arch}: the package ${name} is not installed ` +
        `(packages are built for: ${built}; on another platform, \`cargo install ctxfuzz\` and put it on PATH)`,
    );
  }
}

module.exports = { binaryPath };
