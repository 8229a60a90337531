//! What the JavaScript API (`await fuzz(repair, {...})`, docs/javascript.md) adds to a run, against
//! the CLI with an adapter file, for the same fixed cases (`--runs`, a seed, one job): both start
//! from a Node process, as a test runner would. The baseline (`cli_with_adapter`) spawns
//! `ctxfuzz fuzz --sut 'exec node adapter.mjs'` (peers/templates/adapter.mjs calling the repairer);
//! `api` calls `fuzz()` (locating the function, the CLI, lib/serve.mjs around the same repairer,
//! reading the summary). The figure is the ratio of the two, in docs/figures.md.
//!
//! The time measured is CPU time (user and system) of every process a run starts, the caller's
//! Node, the CLI and the programs it supervises, through `getrusage(RUSAGE_CHILDREN)`: what the
//! API adds is work, and on this shared 2-core machine a run's wall time swings by 2-3x with the
//! other builds while its CPU time stays within a few percent.
//!
//! Needs the release binary (`cargo build --release`); the packages are packed from it with
//! ci/package-npm.sh and installed into a scratch npm project, as the tests do.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

/// The repository root (this package is `benches/`).
const REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// Cases per run: about a second of the careful example repairer on one job.
const RUNS: &str = "3000";

/// The baseline: the README's way, an adapter file around the repairer.
const ADAPTER: &str = r#"import { createInterface } from "node:readline";
import { repair } from "./careful.mjs";
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${JSON.stringify({ messages: repair(JSON.parse(line).messages) })}\n`);
}
"#;

fn binary() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(REPOSITORY).join("target"));
    let binary = target.join("release/ctxfuzz");
    assert!(
        binary.is_file(),
        "{}: build it first with `cargo build --release`",
        binary.display()
    );
    binary
}

/// A scratch npm project with the packages installed and the example repairer beside the scripts.
fn project(dir: &Path, binary: &Path) {
    let packages = dir.join("packages");
    let packed = Command::new("bash")
        .arg(Path::new(REPOSITORY).join("ci/package-npm.sh"))
        .arg("--out")
        .arg(&packages)
        .arg(format!("linux-x64={}", binary.display()))
        .output()
        .expect("bash runs");
    assert!(packed.status.success(), "{packed:?}");
    let tarballs: Vec<String> = String::from_utf8(packed.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    std::fs::write(dir.join("package.json"), r#"{"private": true}"#).unwrap();
    let installed = Command::new("npm")
        .args(["install", "--offline", "--no-audit", "--no-fund"])
        .args(&tarballs)
        .current_dir(dir)
        .output()
        .expect("npm runs");
    assert!(installed.status.success(), "{installed:?}");
    std::fs::copy(
        Path::new(REPOSITORY).join("examples/js/careful.mjs"),
        dir.join("careful.mjs"),
    )
    .unwrap();
    std::fs::write(dir.join("adapter.mjs"), ADAPTER).unwrap();
    let fuzz_args = format!(
        r#"["fuzz", "--contract", "repair", "--format", "openai", "--marker", "[synthetic]", "--sut", "exec node adapter.mjs", "--runs", "{RUNS}", "--seed", "1", "--jobs", "1", "--quiet"]"#
    );
    std::fs::write(
        dir.join("cli.mjs"),
        format!(
            "import {{ execFileSync }} from \"node:child_process\";\n\
             execFileSync({:?}, {fuzz_args});\n",
            binary.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("api.mjs"),
        format!(
            "import {{ fuzz }} from \"ctxfuzz\";\nimport {{ repair }} from \"./careful.mjs\";\n\
             await fuzz(repair, {{ contract: \"repair\", format: \"openai\", marker: \"[synthetic]\", runs: {RUNS}, seed: 1, jobs: 1 }});\n"
        ),
    )
    .unwrap();
}

fn node(dir: &Path, script: &str) {
    let output = Command::new("node")
        .arg(script)
        .current_dir(dir)
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{script}: {output:?}");
}

/// CPU time, user and system, of the children this process has waited for (and theirs).
fn children_cpu() -> Duration {
    // SAFETY: getrusage(2) fills the struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// `iters` runs of `script`, timed by their CPU time.
fn cpu_time(dir: &Path, script: &str, iters: u64) -> Duration {
    let before = children_cpu();
    for _ in 0..iters {
        node(dir, script);
    }
    children_cpu() - before
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    project(dir.path(), &binary());
    let mut group = c.benchmark_group("npm_api");
    group.bench_function("cli_with_adapter", |b| {
        b.iter_custom(|iters| cpu_time(dir.path(), "cli.mjs", iters))
    });
    group.bench_function("api", |b| {
        b.iter_custom(|iters| cpu_time(dir.path(), "api.mjs", iters))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(25));
    targets = bench
}
criterion_main!(benches);
