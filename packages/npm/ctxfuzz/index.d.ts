// Types of the ctxfuzz test-suite API (docs/javascript.md), for both `import` and `require`.

/** A message of the transcript, in the format the run speaks (`format`). */
export type Message = Record<string, unknown>;

/** The function under test, per contract (docs/contracts.md); it may be async, and a throw is a refusal (`sut-threw`). */
export type Repairer = (messages: Message[]) => Message[] | Promise<Message[]>;
/** `cut`: the first kept index near `target` (0: do not compact). */
export type Cutter = (messages: Message[], target: number) => number | Promise<number>;
/** `sweep` (pi messages): the messages after the sweep and the swept call ids. */
export type Sweeper = (messages: Message[]) => { messages: Message[]; swept: string[] } | Promise<{ messages: Message[]; swept: string[] }>;

export interface FuzzOptions {
  /** `--contract`: what the function promises. */
  contract: "repair" | "prune" | "trim" | "cut" | "sweep";
  /** `--format`: the transcript format it speaks [default: pi]. */
  format?: "pi" | "openai" | "anthropic" | "gemini" | "ai-sdk" | "langchain";
  /** With a module specifier: the export to fuzz [default: "default"]. */
  export?: string;
  /** `--time`: seconds to fuzz [default: 10 unless `runs` is given]. */
  seconds?: number;
  /** `--runs`: a fixed number of cases (with a `seed` and `jobs: 1`, the same cases every run). */
  runs?: number;
  /** `--seed`: every case derives from (seed, case index) [default: random, printed]. */
  seed?: number | bigint | string;
  /** `--marker`: text every result the function adds contains. */
  marker?: string;
  /** `--jobs`: worker threads, each with its own child process [default: every core]. */
  jobs?: number;
  /** `--out`: where case files are written, relative to `cwd` [default: findings]. */
  out?: string;
  /** Where the CLI runs (its `findings/` goes there) [default: process.cwd()]. */
  cwd?: string;
  /** `--sut-timeout-ms`: how long one answer may take [default: 2000, plus 10 s per MiB]. */
  sutTimeoutMs?: number;
  /** `--sut-startup-ms`: how long the child may take to import the module [default: 60000]. */
  sutStartupMs?: number;
  /** Arguments for the child's `node`, e.g. `["--import", "tsx"]` for a TypeScript module. */
  nodeArgs?: string[];
}

/** A clean run: the figures of the CLI's summary. */
export interface FuzzSummary {
  /** The run's seed (a u64, so a decimal string). */
  seed: string;
  execs: number;
  seconds: number;
  cannotJudge: number;
  rejected: number;
  failing: number;
  /** Violations not charged, by class and invariant. */
  classes: { informational: Record<string, number>; unpreventable: Record<string, number> };
  /** Generated transcripts the format cannot express, by reason. */
  skipped: { total: number; reasons: Record<string, number> };
  /** What the CLI printed. */
  output: string;
}

/** A charged finding (or a run that judged nothing): the message is the CLI's own report. */
export declare class FuzzFailure extends Error {
  name: "FuzzFailure";
  /** What the CLI printed: every charged finding in full, the summary, the verdict. */
  output: string;
  /** The case files written (absolute paths); `npx ctxfuzz replay FILE` replays one. */
  caseFiles: string[];
}

/**
 * Fuzzes a function of your own code under a contract, in a child process ctxfuzz supervises.
 * `subject`: a function exported by a module file, or a module (URL or path) with `options.export`.
 * Resolves to the summary of a clean run; rejects with a {@link FuzzFailure} on a charged finding.
 */
export declare function fuzz(
  subject: Repairer | Cutter | Sweeper | ((...args: never[]) => unknown) | URL | string,
  options: FuzzOptions,
): Promise<FuzzSummary>;
