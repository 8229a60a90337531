// The program `fuzz()` hands to `ctxfuzz fuzz --sut`: the protocol loop (docs/contracts.md) around
// one export of the caller's module, in a child process the CLI supervises, so a crash, a hang
// (a synchronous infinite loop too) or a throw of the caller's function is the CLI's finding and
// the CLI's to kill, as with an adapter file (docs/decisions.md).
//
//   node serve.mjs CONTRACT MODULE-URL EXPORT
import { createInterface } from "node:readline";

const [contract, moduleUrl, exportName] = process.argv.slice(2);
const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
console.log = console.error; // the caller's console.log must not be read as an answer
console.info = console.error;

const namespace = await import(moduleUrl);
const exported = (name) => namespace[name] ?? namespace.default?.[name];
const fn = exportName === "default" ? namespace.default : exported(exportName);
if (typeof fn !== "function") {
  // A wrong name is the caller's mistake, found before any case: say it and stop (the CLI
  // reports the exit with this line as evidence).
  console.error(`ctxfuzz: ${moduleUrl} exports no function \`${exportName}\``);
  process.exit(2);
}

// What the caller's function returns, as the contract's answer.
const shape = {
  cut: async (request) => ({ boundary: await fn(request.messages, request.target) }),
  sweep: async (request) => await fn(request.messages),
};
const handle = shape[contract] ?? (async (request) => ({ messages: await fn(request.messages) }));

for await (const line of createInterface({ input: process.stdin })) {
  let reply;
  try {
    reply = await handle(JSON.parse(line));
  } catch (error) {
    reply = { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  answer(reply);
}
