// The peer protocol (docs/peers.md), shared by the Node adapters: one JSON request a line on stdin,
// one JSON answer a line on stdout, for as long as stdin stays open. A throw of the package's
// function is answered as {"error": "<Name>: <message>"} and the process goes on. Nothing else
// may reach stdout, so console output of the packages goes to stderr.
import { createInterface } from "node:readline";

for (const level of ["log", "info", "debug"]) console[level] = console.error;

/** Answers every request line with `handle(request)`, the answer or the error it threw. */
export async function serve(handle) {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    let answer;
    try {
      answer = await handle(JSON.parse(line));
    } catch (error) {
      answer = { error: `${error?.name ?? "Error"}: ${error?.message ?? String(error)}` };
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
}
