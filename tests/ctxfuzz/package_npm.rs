//! The npm packages (docs/javascript.md), as a user gets them: `ci/package-npm.sh` packs the binary
//! these tests run, the tarballs install from the files into a fresh npm project with no registry
//! (an empty cache, `--offline`) and no Rust toolchain on PATH, and then:
//! - `npx ctxfuzz --version` runs, and each tarball is under 15 MB;
//! - examples/js/repair.test.mjs under `node --test`: the lossy repairer fails with the finding as
//!   its message, the careful one passes, and the case file is where the CLI writes it;
//! - `fuzz()` from ESM and CommonJS: a crash, a synchronous infinite loop and a throw in the
//!   caller's function are the CLI's findings (`sut-crash`, `sut-hang`, `sut-threw`), bad options
//!   are the CLI's error, a function no module exports is a readable error;
//! - under vitest and jest (tests/npm-runners/, pinned by its lockfile: the one install here that
//!   needs the registry, or npm's cache), the same: the lossy repairer fails with the finding,
//!   the careful one passes, a function of a CommonJS module in jest's sandbox is found; and the
//!   type declarations check under tsc, from ESM and CommonJS;
//! - a signal during a run (Ctrl-C to the terminal's group, or to the test's process alone, or
//!   to the `npx ctxfuzz` launcher alone) leaves no process behind.
//!
//! The tests are named `external_*`: process plumbing that mutation runs skip (.cargo/mutants.toml).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const REPOSITORY: &str = env!("CARGO_MANIFEST_DIR");
const VERSION: &str = env!("CARGO_PKG_VERSION");
const LIMIT_BYTES: u64 = 15 * 1024 * 1024;

/// A fresh npm project with the packages installed, and the PATH it was installed with.
struct Project {
    dir: tempfile::TempDir,
    path: String,
}

/// A directory holding `node`, `npm`, `npx` and `sh` only: a machine with Node and no Rust.
fn node_only_path(dir: &Path) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["node", "npm", "npx", "sh"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let target = String::from_utf8(found.stdout).unwrap();
        assert!(found.status.success(), "{tool} is not installed");
        std::os::unix::fs::symlink(target.trim(), bin.join(tool)).unwrap();
    }
    for tool in ["cargo", "rustc"] {
        assert!(!bin.join(tool).exists());
    }
    bin.display().to_string()
}

/// Packs the binary under test into `dir/packages` (the tarballs' paths, main package first).
fn pack(dir: &Path) -> Vec<PathBuf> {
    let out = dir.join("packages");
    let output = Command::new("bash")
        .arg(Path::new(REPOSITORY).join("ci/package-npm.sh"))
        .arg("--out")
        .arg(&out)
        .arg(format!("linux-x64={}", env!("CARGO_BIN_EXE_ctxfuzz")))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "ci/package-npm.sh: {}",
        text(&output)
    );
    let tarballs: Vec<PathBuf> = stdout(&output).lines().map(PathBuf::from).collect();
    assert_eq!(
        tarballs,
        [
            out.join(format!("ctxfuzz-{VERSION}.tgz")),
            out.join(format!("ctxfuzz-linux-x64-{VERSION}.tgz"))
        ]
    );
    tarballs
}

impl Project {
    /// `npm install` of freshly packed tarballs into an empty project, offline, from an empty
    /// cache: nothing comes from a registry.
    fn install() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let tarballs = pack(dir.path());
        let path = node_only_path(dir.path());
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("package.json"), r#"{"private": true}"#).unwrap();
        let output = Command::new("npm")
            .args(["install", "--offline", "--no-audit", "--no-fund", "--cache"])
            .arg(dir.path().join("empty-cache"))
            .args(&tarballs)
            .current_dir(&project)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(output.status.success(), "npm install: {}", text(&output));
        Project { dir, path }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.current_dir(self.root()).env("PATH", &self.path);
        command
    }

    fn node(&self, args: &[&str]) -> Output {
        self.command("node").args(args).output().unwrap()
    }

    fn write(&self, name: &str, contents: &str) {
        std::fs::write(self.root().join(name), contents).unwrap();
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn text(output: &Output) -> String {
    format!(
        "{}\n{}\n{}",
        output.status,
        stdout(output),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn external_npm_tarballs_install_offline_and_run_without_a_rust_toolchain() {
    let project = Project::install();
    for tarball in std::fs::read_dir(project.dir.path().join("packages")).unwrap() {
        let tarball = tarball.unwrap();
        let size = tarball.metadata().unwrap().len();
        assert!(size < LIMIT_BYTES, "{:?}: {size} bytes", tarball.path());
    }
    let platform: Value = serde_json::from_str(
        &std::fs::read_to_string(
            project
                .root()
                .join("node_modules/@ctxfuzz/linux-x64/package.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(platform["os"], serde_json::json!(["linux"]));
    assert_eq!(platform["cpu"], serde_json::json!(["x64"]));
    let main: Value = serde_json::from_str(
        &std::fs::read_to_string(project.root().join("node_modules/ctxfuzz/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(main["version"], VERSION, "the version is Cargo.toml's");
    assert_eq!(main["optionalDependencies"]["@ctxfuzz/linux-x64"], VERSION);
    for launcher in [
        &["npx", "ctxfuzz", "--version"][..],
        &["node_modules/.bin/ctxfuzz", "--version"],
    ] {
        let output = project
            .command(launcher[0])
            .args(&launcher[1..])
            .output()
            .unwrap();
        assert!(output.status.success(), "{launcher:?}: {}", text(&output));
        assert_eq!(stdout(&output).trim(), format!("ctxfuzz {VERSION}"));
    }
    // The launcher passes the exit code on: a bad input is exit 2 with the CLI's own line.
    let output = project
        .command("npx")
        .args(["ctxfuzz", "check", "missing.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
}

#[test]
fn external_npm_example_suite_fails_on_the_lossy_repairer_with_the_finding_and_passes_on_the_careful_one()
 {
    let project = Project::install();
    for file in ["careful.mjs", "lossy.mjs", "repair.test.mjs"] {
        std::fs::copy(
            Path::new(REPOSITORY).join("examples/js").join(file),
            project.root().join(file),
        )
        .unwrap();
    }
    let output = project.node(&["--test", "--test-reporter=tap", "repair.test.mjs"]);
    let tap = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        tap.contains("\nok 1 - the careful repairer keeps the repair contract"),
        "{tap}"
    );
    assert!(
        tap.contains("\nnot ok 2 - the lossy repairer keeps the repair contract"),
        "{tap}"
    );
    let failure = tap.split("not ok 2").nth(1).unwrap();
    // The CLI's report of the finding, in full: invariant, explanation, input, diff, case file, replay.
    for words in [
        "repair-keeps-other-messages",
        "a message that is not a tool result was lost",
        "input:",
        "-{\"content\":",
        "case file:  findings/contract-repair-openai-repair-keeps-other-messages-",
        "replay:     ctxfuzz replay findings/",
        "name: 'FuzzFailure'",
        // the options, forwarded: `seconds` as --time, `marker` as --marker
        "thread(s) for 3s",
        "--marker '[synthetic]'",
    ] {
        assert!(failure.contains(words), "no {words:?} in {failure}");
    }
    // The case file is where the CLI writes it, and replays through the installed package.
    let case = failure
        .split("replay:     ctxfuzz replay ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap();
    assert!(project.root().join(case).is_file(), "{case}");
    let replay = project
        .command("npx")
        .args(["ctxfuzz", "replay", case])
        .output()
        .unwrap();
    // A replay judges the case again and exits 0 when it gets the verdict the file records.
    assert!(
        replay.status.success(),
        "the finding replays: {}",
        text(&replay)
    );
    assert!(
        stdout(&replay).contains("1 verdict(s) judged, 0 mismatch(es)"),
        "{}",
        text(&replay)
    );
}

/// The caller's functions, each misbehaving its own way; `stamp` writes this process's pid.
const FAULTS: &str = r#"
import { writeFileSync } from "node:fs";
if (process.env.PIDS) writeFileSync(`${process.env.PIDS}/${process.pid}`, "");
export const crashes = () => process.exit(3);
export const loops = () => { for (;;) {} };
export const throws = () => { throw new TypeError("no messages today"); };
export const chatty = () => { console.log("looking at the messages"); throw new Error("no"); };
export const cutAtEnd = (messages, target) => (target ? messages.length : 0);
export const sweepNothing = (messages) => ({ messages, swept: [] });
export const slow = (messages) => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); return messages; };
"#;

/// Runs each case of `ESM_CASES` and prints one JSON line per case: how `fuzz()` settled.
const ESM_CASES: &str = r#"
import { fuzz, FuzzFailure } from "ctxfuzz";
import * as faults from "./faults.mjs";
import * as inline from "./inline.mjs";
const quick = { contract: "repair", format: "openai", runs: 20, jobs: 1, seed: 7 };
const settle = (promise) => promise.then(
  (summary) => ({ resolved: summary }),
  (error) => ({ rejected: { name: error.name, message: error.message, caseFiles: error.caseFiles } }),
);
const cases = {
  crash: () => fuzz(faults.crashes, quick),
  hang: () => fuzz(faults.loops, { ...quick, sutTimeoutMs: 500 }),
  throw: () => fuzz(faults.throws, quick),
  badContract: () => fuzz(faults.throws, { ...quick, contract: "mend" }),
  badFormat: () => fuzz(faults.throws, { ...quick, format: "cobol" }),
  notExported: () => inline.fuzzInline(quick),
  stillEvaluating: () => fuzz((messages) => messages, quick),
  chatty: () => fuzz(faults.chatty, quick),
  cut: () => fuzz(faults.cutAtEnd, { ...quick, contract: "cut", format: "langchain" }),
  sweep: () => fuzz(faults.sweepNothing, { ...quick, contract: "sweep", format: undefined }),
  byUrl: () => fuzz(new URL("./faults.mjs", import.meta.url), { ...quick, export: "throws" }),
};
for (const [name, run] of Object.entries(cases)) {
  console.log(JSON.stringify({ name, ...(await settle(run())) }));
}
"#;

/// A function no module exports (its module has no top-level await: its import settles).
const INLINE: &str = r#"
import { fuzz } from "ctxfuzz";
export const fuzzInline = (options) => fuzz((messages) => messages, options);
"#;

/// The same API through `require`, on a CommonJS module's function (`module.exports = fn`).
const CJS_CASE: &str = r#"
const { fuzz } = require("ctxfuzz");
const refuse = require("./refuse.cjs");
fuzz(refuse, { contract: "repair", format: "anthropic", runs: 30, jobs: 1, seed: 3 })
  .then((summary) => console.log(JSON.stringify(summary)), (error) => { console.error(error); process.exit(1); });
"#;

fn settled(lines: &str) -> std::collections::BTreeMap<String, Value> {
    lines
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .map(|v| (v["name"].as_str().unwrap().to_string(), v))
        .collect()
}

#[test]
fn external_npm_fuzz_reports_a_crash_a_hang_and_a_throw_as_the_cli_does() {
    let project = Project::install();
    project.write("faults.mjs", FAULTS);
    project.write("inline.mjs", INLINE);
    project.write("cases.mjs", ESM_CASES);
    let started = Instant::now();
    let output = project.node(&["cases.mjs"]);
    assert!(output.status.success(), "{}", text(&output));
    // The hang case settling with `sut-hang` (below) shows the caller was let go after the
    // program's 500 ms; this bound only turns a caller held for good into a failure. It is no
    // measure of speed: the eleven cases took 20 to 80 s beside the suite's other tests.
    assert!(
        started.elapsed() < Duration::from_secs(600),
        "a hang held the caller"
    );
    let cases = settled(&stdout(&output));
    let message = |name: &str| {
        cases[name]["rejected"]["message"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    for (name, id) in [("crash", "sut-crash"), ("hang", "sut-hang")] {
        assert_eq!(
            cases[name]["rejected"]["name"], "FuzzFailure",
            "{:?}",
            cases[name]
        );
        assert!(
            message(name).contains(&format!("finding: contract [repair:openai] {id}")),
            "{}",
            message(name)
        );
        assert!(
            !message(name).contains("faults.mjs:"),
            "no stack of the caller's code: {}",
            message(name)
        );
        let files = cases[name]["rejected"]["caseFiles"].as_array().unwrap();
        assert!(
            !files.is_empty()
                && files
                    .iter()
                    .all(|f| Path::new(f.as_str().unwrap()).is_file())
        );
    }
    // A throw is a refusal, reported in its own class and never charged: the run is clean.
    for name in ["throw", "byUrl"] {
        let summary = &cases[name]["resolved"];
        assert!(
            summary["classes"]["informational"]["sut-threw"].as_u64() > Some(0),
            "{:?}",
            cases[name]
        );
        assert!(
            summary["execs"].as_u64() > Some(0) && summary["seed"] == "7",
            "{summary:?}"
        );
        assert!(summary["skipped"]["total"].is_u64(), "{summary:?}");
    }
    // The caller's console.log goes to stderr, not into the answer; every contract's answer has
    // its shape (a sweep that sweeps nothing is charged for it, not for a malformed answer).
    assert!(
        cases["chatty"]["resolved"]["classes"]["informational"]["sut-threw"].as_u64() > Some(0),
        "{:?}",
        cases["chatty"]
    );
    assert!(
        cases["cut"]["resolved"]["execs"].as_u64() > Some(0),
        "{:?}",
        cases["cut"]
    );
    assert!(
        message("sweep").contains("finding: sweep [strict] sut-matches-rust"),
        "{}",
        message("sweep")
    );
    assert!(
        !message("sweep").contains("sut-malformed-output"),
        "{}",
        message("sweep")
    );
    // Bad options: the CLI's own error line.
    assert!(
        message("badContract").contains("mend"),
        "{}",
        message("badContract")
    );
    assert!(
        message("badFormat").contains("cobol"),
        "{}",
        message("badFormat")
    );
    assert!(
        message("notExported").contains("is not exported by"),
        "{}",
        message("notExported")
    );
    assert!(
        message("notExported").contains("inline.mjs"),
        "{}",
        message("notExported")
    );
    assert!(
        message("stillEvaluating").contains("is still evaluating"),
        "{}",
        message("stillEvaluating")
    );

    project.write(
        "refuse.cjs",
        "module.exports = () => { throw new Error(\"no\"); };\n",
    );
    project.write("case.cjs", CJS_CASE);
    let output = project.node(&["case.cjs"]);
    assert!(output.status.success(), "CommonJS: {}", text(&output));
    let summary: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert!(
        summary["classes"]["informational"]["sut-threw"].as_u64() > Some(0),
        "{summary}"
    );
    assert!(
        summary["skipped"]["reasons"]["role:system"].as_u64() > Some(0),
        "{summary}"
    );
}

/// The example under vitest: function values, ESM.
const VITEST: &str = r#"
import { test } from "vitest";
import { fuzz } from "ctxfuzz";
import { repair as careful } from "./careful.mjs";
import { repair as lossy } from "./lossy.mjs";
const options = { contract: "repair", format: "openai", marker: "[synthetic]", seconds: 2 };
test("careful", async () => { await fuzz(careful, options); }, 60_000);
test("lossy", async () => { await fuzz(lossy, options); }, 60_000);
"#;

/// The example under jest: CommonJS, modules named by path, and a function value in its sandbox.
const JEST: &str = r#"
const path = require("node:path");
const { fuzz } = require("ctxfuzz");
const options = { contract: "repair", format: "openai", marker: "[synthetic]", seconds: 2, export: "repair" };
test("careful", async () => { await fuzz(path.join(__dirname, "careful.mjs"), options); }, 60_000);
test("lossy", async () => { await fuzz(path.join(__dirname, "lossy.mjs"), options); }, 60_000);
test("refuse", async () => { await fuzz(require("./refuse.cjs"), { contract: "repair", runs: 20 }); }, 60_000);
"#;

/// The type declarations, as a TypeScript user's code meets them from ESM and CommonJS: what must
/// type-check does, and each `@ts-expect-error` line must be an error (tsc fails on an unused one).
const TYPES_ESM: &str = r#"
import { fuzz, FuzzFailure, type FuzzSummary } from "ctxfuzz";
const repair = (messages: Record<string, unknown>[]) => messages;
const cut = async (messages: Record<string, unknown>[], target: number) => (target ? messages.length : 0);
const summary: FuzzSummary = await fuzz(repair, { contract: "repair", format: "openai", seconds: 1, seed: 1n });
const count: number = summary.execs + summary.skipped.total + (summary.classes.unpreventable["x"] ?? 0);
await fuzz(cut, { contract: "cut", runs: 10, marker: "m", jobs: 1, out: "f", cwd: ".", nodeArgs: [] });
await fuzz(new URL("./careful.mjs", import.meta.url), { contract: "repair", export: "repair" });
try { await fuzz(repair, { contract: "prune" }); } catch (e) { if (e instanceof FuzzFailure) console.log(e.caseFiles, e.output, count); }
// @ts-expect-error: an unknown contract
await fuzz(repair, { contract: "mend" });
// @ts-expect-error: the contract is required
await fuzz(repair, { format: "openai" });
"#;

const TYPES_CJS: &str = r#"
import ctxfuzz = require("ctxfuzz");
const trimmed: Promise<ctxfuzz.FuzzSummary> = ctxfuzz.fuzz((m: Record<string, unknown>[]) => m, { contract: "trim", format: "langchain" });
// @ts-expect-error: an unknown format
ctxfuzz.fuzz((m: Record<string, unknown>[]) => m, { contract: "trim", format: "xml" });
void trimmed;
"#;

const TSCONFIG: &str = r#"{
  "compilerOptions": { "module": "nodenext", "target": "es2022", "strict": true, "noEmit": true, "types": [] },
  "files": ["types.mts", "types.cts"]
}"#;

/// `{title: (status, failure messages)}` of a runner's `--json` report (jest's format; vitest's
/// `json` reporter writes the same).
fn report(file: &Path) -> std::collections::BTreeMap<String, (String, String)> {
    let report: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    report["testResults"][0]["assertionResults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| {
            let failures = test["failureMessages"]
                .as_array()
                .map(|m| format!("{m:?}"))
                .unwrap_or_default();
            (
                test["title"].as_str().unwrap().to_string(),
                (test["status"].as_str().unwrap().to_string(), failures),
            )
        })
        .collect()
}

#[test]
fn external_npm_fuzz_under_vitest_and_jest_and_its_types_under_tsc() {
    let dir = tempfile::tempdir().unwrap();
    let tarballs = pack(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(
            Path::new(REPOSITORY).join("tests/npm-runners").join(file),
            project.join(file),
        )
        .unwrap();
    }
    for file in ["careful.mjs", "lossy.mjs"] {
        std::fs::copy(
            Path::new(REPOSITORY).join("examples/js").join(file),
            project.join(file),
        )
        .unwrap();
    }
    std::fs::write(
        project.join("refuse.cjs"),
        "module.exports = () => { throw new Error(\"no\"); };\n",
    )
    .unwrap();
    std::fs::write(project.join("repair.vitest.test.mjs"), VITEST).unwrap();
    std::fs::write(project.join("repair.jest.test.cjs"), JEST).unwrap();
    let npm = |args: &[&str]| {
        let output = Command::new("npm")
            .args(args)
            .args(["--no-audit", "--no-fund"])
            .current_dir(&project)
            .output()
            .unwrap();
        assert!(output.status.success(), "npm {args:?}: {}", text(&output));
    };
    npm(&["ci"]);
    let mut install = vec!["install", "--no-save", "--offline"];
    install.extend(tarballs.iter().map(|t| t.to_str().unwrap()));
    npm(&install);
    std::fs::write(project.join("types.mts"), TYPES_ESM).unwrap();
    std::fs::write(project.join("types.cts"), TYPES_CJS).unwrap();
    std::fs::write(project.join("tsconfig.json"), TSCONFIG).unwrap();
    let tsc = Command::new(project.join("node_modules/.bin/tsc"))
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(tsc.status.success(), "tsc: {}", text(&tsc));
    let runs = [
        (
            "vitest",
            vec![
                "run",
                "repair.vitest.test.mjs",
                "--reporter=json",
                "--outputFile=report.json",
            ],
        ),
        (
            "jest",
            vec![
                "--testMatch",
                "**/*.jest.test.cjs",
                "--json",
                "--outputFile=report.json",
            ],
        ),
    ];
    for (runner, args) in runs {
        let output = Command::new(project.join("node_modules/.bin").join(runner))
            .args(&args)
            .current_dir(&project)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{runner}: {}", text(&output));
        let tests = report(&project.join("report.json"));
        assert_eq!(
            tests["careful"].0, "passed",
            "{runner}: {:?}",
            tests["careful"]
        );
        assert_eq!(tests["lossy"].0, "failed", "{runner}: {tests:?}");
        assert!(
            tests["lossy"].1.contains("repair-keeps-other-messages"),
            "{runner}: {:?}",
            tests["lossy"]
        );
        assert!(
            tests["lossy"].1.contains("case file:"),
            "{runner}: {:?}",
            tests["lossy"]
        );
        if runner == "jest" {
            assert_eq!(
                tests["refuse"].0, "passed",
                "{runner}: {:?}",
                tests["refuse"]
            );
        }
        std::fs::remove_file(project.join("report.json")).unwrap();
    }
}

/// Processes whose pid is a file name in `pids`, or that are children of them, still running.
fn running(pids: &[i32]) -> Vec<i32> {
    pids.iter()
        .copied()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    stat.rsplit_once(") ")
                        .map(|(_, rest)| !rest.starts_with('Z'))
                })
                .unwrap_or(false)
        })
        .collect()
}

/// The pids of the processes whose parent is `parent`.
fn children(parent: i32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect()
}

#[test]
fn external_npm_a_signal_during_a_run_leaves_no_process_behind() {
    let project = Project::install();
    project.write("faults.mjs", FAULTS);
    project.write(
        "long.mjs",
        r#"import { fuzz } from "ctxfuzz";
import { slow } from "./faults.mjs";
await fuzz(slow, { contract: "repair", format: "openai", seconds: 60, jobs: 2 });
"#,
    );
    let serve = format!(
        "exec node node_modules/ctxfuzz/lib/serve.mjs repair file://{}/faults.mjs slow",
        project.root().display()
    );
    let launcher = [
        "fuzz",
        "--contract",
        "repair",
        "--format",
        "openai",
        "--time",
        "60",
        "--jobs",
        "2",
        "--sut",
        &serve,
    ];
    // (who runs the run, its arguments, whether the signal goes to the whole group): Ctrl-C in a
    // terminal signals the foreground group; `kill -INT` signals the test's process alone, or
    // `npx ctxfuzz`'s launcher alone.
    let runs: [(&str, &[&str], bool); 3] = [
        ("node", &["long.mjs"], true),
        ("node", &["long.mjs"], false),
        ("node_modules/.bin/ctxfuzz", &launcher, false),
    ];
    for (program, args, to_group) in runs {
        let pids = tempfile::tempdir().unwrap();
        let mut command = project.command(program);
        command
            .args(args)
            .env("PIDS", pids.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut caller = command.spawn().unwrap();
        let caller_pid = caller.id() as i32;
        let started = Instant::now();
        while std::fs::read_dir(pids.path()).unwrap().count() < 2 {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the children never started"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let cli = children(caller_pid);
        let sut: Vec<i32> = std::fs::read_dir(pids.path())
            .unwrap()
            .map(|f| f.unwrap().file_name().to_string_lossy().parse().unwrap())
            .collect();
        assert_eq!(cli.len(), 1, "{program} runs the CLI: {cli:?}");
        let target = if to_group { -caller_pid } else { caller_pid };
        // SAFETY: kill(2) on a process (group) this test started and has not reaped.
        assert_eq!(unsafe { libc::kill(target, libc::SIGINT) }, 0);
        let status = caller.wait().unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "the run did not stop"
        );
        let mut all = cli.clone();
        all.extend(&sut);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !running(&all).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let what = format!("{program} {args:?}, to the group: {to_group}, {status}");
        assert_eq!(running(&all), Vec::<i32>::new(), "left behind: {what}");
        assert!(!status.success(), "{what}");
        if program != "node" {
            // The launcher exits as the CLI did: 130 after a SIGINT (docs/external-programs.md).
            assert_eq!(status.code(), Some(130), "{what}");
        }
    }
}
