//! What the Python API (packages/python, docs/python.md) adds to a run: the same fixed cases
//! (`--runs`, `--seed`, one worker) of examples/python/repairers.py's careful repairer, fuzzed by
//! `ctxfuzz.fuzz` from a Python process (`api`) against the baseline, the CLI with an adapter file
//! around the same function (`cli-adapter`, tests/sut/careful_adapter.py). The ratio api /
//! cli-adapter is the figure (goal: below 1.05, docs/figures.md).
//! Runs the release binary `cargo build --release` leaves beside this benchmark's own.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};

/// The repository root (this package is `benches/`).
const REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// Cases of each run: two to three seconds of fuzzing on one core (the CLI's default run is 10 s
/// per core), so that the API's fixed costs (a Python process and its imports) are weighed
/// against a run of the length a test would make.
const RUNS: &str = "10000";
const MARKER: &str = "[no result was recorded]";

/// The release binary: `target/release/ctxfuzz`, beside `target/release/deps/` holding this one.
fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let binary = exe.parent().and_then(Path::parent).unwrap().join("ctxfuzz");
    assert!(
        binary.exists(),
        "no {}: build it first (cargo build --release)",
        binary.display()
    );
    binary
}

/// The Python interpreter itself, for both sides (`python3` may be a shim that costs a start of its
/// own, which would be counted once on one side and twice on the other).
fn python() -> String {
    let output = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

fn succeeds(command: &mut Command) {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?}: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn python_api(c: &mut Criterion) {
    let root = Path::new(REPOSITORY).canonicalize().unwrap();
    let binary = binary();
    let python = python();
    let scratch = tempfile::tempdir().unwrap();
    let adapter = format!(
        "exec {python} {}",
        root.join("tests/sut/careful_adapter.py").display()
    );
    let cli = || {
        let mut command = Command::new(&binary);
        command
            .args(["fuzz", "--contract", "repair", "--format", "openai"])
            .args([
                "--marker", MARKER, "--runs", RUNS, "--seed", "1", "--jobs", "1",
            ])
            .args(["--sut", &adapter])
            .current_dir(scratch.path());
        command
    };
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let source =
        std::env::join_paths([root.join("packages/python"), root.join("examples/python")]).unwrap();
    let script = format!(
        "import ctxfuzz; ctxfuzz.fuzz('repairers:careful_repair', 'repair', 'openai', \
         runs={RUNS}, seed=1, jobs=1, marker={MARKER:?})"
    );
    let api = || {
        let mut command = Command::new(&python);
        command
            .args(["-c", &script])
            .current_dir(scratch.path())
            .env("PATH", &path)
            .env("PYTHONPATH", &source);
        command
    };
    let mut group = c.benchmark_group("python_api");
    group.sample_size(10);
    group.bench_function("cli-adapter", |b| b.iter(|| succeeds(&mut cli())));
    group.bench_function("api", |b| b.iter(|| succeeds(&mut api())));
    group.finish();
}

criterion_group!(benches, python_api);
criterion_main!(benches);
