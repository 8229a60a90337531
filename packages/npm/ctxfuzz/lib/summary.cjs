// A clean run's summary, read from the lines `ctxfuzz fuzz` prints at its end (src/cli/fuzz.rs:
// `stats_line`, `brief_summary`, the contract's `cannot express` line): the CLI's text is what a
// failure shows, so the same run gives the figures too (docs/decisions.md).
"use strict";

const STATS = /^\S+ \[[^\]]+\]: (\d+) execs in ([\d.]+)s \(\d+\/s\), (\d+) cannot judge, (\d+) rejected by the generator, (\d+) failing$/m;
const CLASSES = { informational: "reported in their own class", unpreventable: "unpreventable" };

/** `"name 3, other name 4"` as `{name: 3, "other name": 4}`. */
function counts(text) {
  const out = {};
  for (const part of text ? text.split(", ") : []) {
    const at = part.lastIndexOf(" ");
    out[part.slice(0, at)] = Number(part.slice(at + 1));
  }
  return out;
}

function parseSummary(output) {
  const stats = output.match(STATS);
  if (!stats) throw new Error(`ctxfuzz: the run printed no summary line:\n${output}`);
  const classes = {};
  for (const [key, title] of Object.entries(CLASSES)) {
    const line = output.match(new RegExp(`^  ${title}: (.*?)(?:; e\\.g\\. .*)? \\(--verbose shows them\\)$`, "m"));
    classes[key] = counts(line?.[1]);
  }
  const skipped = output.match(/^ {2}cannot express in \S+: (\d+) generated transcript\(s\) skipped(?: \((.*)\))?$/m);
  return {
    seed: output.match(/ seed (\d+) /)?.[1],
    execs: Number(stats[1]),
    seconds: Number(stats[2]),
    cannotJudge: Number(stats[3]),
    rejected: Number(stats[4]),
    failing: Number(stats[5]),
    classes,
    skipped: { total: Number(skipped?.[1] ?? 0), reasons: counts(skipped?.[2]) },
    output,
  };
}

module.exports = { parseSummary };
