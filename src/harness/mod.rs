//! The harness: targets, the fuzz loop, minimisation, findings, external programs.
//!
//! Every engine runs the same code: the in-process loop ([`runner::fuzz`]), the cargo-fuzz targets
//! ([`fuzz_one`]), replay ([`replay::replay`]) and `ctxfuzz minimize` all build targets from the
//! registry ([`targets::build`]) and judge through [`DynTarget::judge_caught`] or [`DynTarget::judge`].

pub mod artifacts;
pub mod bytes;
pub mod coverage;
pub mod external;
pub mod findings;
pub mod invariants;
pub mod minimize;
pub mod panics;
pub mod pi_bridge;
pub mod profile;
pub mod progress;
pub mod replay;
pub mod report;
pub mod runner;
pub mod stop;
pub mod supervisor;
pub mod target;
pub mod targets;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Mutex, OnceLock};

use ctxfuzz_oracles::invariants::Judgement;

pub use profile::Profile;
pub use target::{Class, DynTarget, Explanation, Target};

/// Turns off the backtrace anyhow captures with every error when `RUST_BACKTRACE` is set, unless
/// the user set `RUST_LIB_BACKTRACE` themselves. ctxfuzz prints an error as one line and never
/// its backtrace, and the targets build an error for every input they reject: the capture was 10%
/// of the `oracle-json` target's time under `RUST_BACKTRACE=1` (docs/figures.md). Panic backtraces
/// (a panic is a finding) stay as `RUST_BACKTRACE` says.
///
/// Call it first thing in `main` (or a fuzz target's `init`), before any other thread exists.
pub fn no_error_backtraces() {
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        // SAFETY: called at start-up, before the process has a second thread that could read the
        // environment concurrently.
        unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    }
}

/// One libFuzzer input through target `name` (the default variant, or `CTXFUZZ_VARIANT`; for a
/// target that judges a provider's body, the provider the bytes pick, as in the in-process loop):
/// decodes the bytes exactly as the in-process loop does and panics (a libFuzzer crash) on any
/// violation charged to the system under test. Unpreventable and informational violations are
/// not crashes.
///
/// Returns whether libFuzzer may keep the input in its corpus (the fuzz target answers
/// `Corpus::Reject` otherwise): not when the bytes decode to no input, nor when the input is
/// outsized ([`target::OUTSIZED_JSON_BYTES`]). An outsized input sets new hit-count features by
/// its size alone, and libFuzzer then mutates it as often as any other: at inputs of 512 bytes,
/// 85% of the sweep target's time went to the 10,000-message transcripts and 64 KiB bodies that
/// the in-process loop draws once in a few hundred cases. Rejected, such an input is still run
/// (and a crash on it reported) whenever a mutation draws it, but never bred on.
pub fn fuzz_one(name: &str, bytes: &[u8]) -> bool {
    let target = bytes::pick(cached_rotation(name), bytes).as_ref();
    let Ok(case) = target.libfuzzer_case(bytes) else {
        return false;
    };
    if let Judgement::Fail(violations) = &case.judgement {
        let charged: Vec<String> = violations
            .iter()
            .filter(|v| target.class(v) == Class::Charged)
            .map(|v| format!("{}: {}", v.invariant, v.summary))
            .collect();
        assert!(
            charged.is_empty(),
            "{} [{}] {}\nturn this artifact into a case file: ctxfuzz minimize --from-artifact {name} FILE",
            target.name(),
            target.variant(),
            charged.join("; ")
        );
    }
    !case.outsized
}

/// Targets built once per process (libFuzzer calls [`fuzz_one`] millions of times), one per
/// provider where the target judges one ([`targets::rotation`]).
fn cached_rotation(name: &str) -> &'static [Box<dyn DynTarget>] {
    type Rotation = &'static [Box<dyn DynTarget>];
    static CACHE: OnceLock<Mutex<HashMap<String, Rotation>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .expect("target cache lock");
    cache.entry(name.to_string()).or_insert_with(|| {
        let variant = std::env::var("CTXFUZZ_VARIANT").ok();
        let rotation = targets::rotation(name, variant.as_deref(), &Profile::default())
            .unwrap_or_else(|e| panic!("cannot build fuzz target `{name}`: {e:#}"));
        Vec::leak(rotation)
    })
}

/// The `main` of a cargo-fuzz target built without cargo-fuzz (plain stable `cargo build`): runs
/// every file named on the command line (every file inside a directory) through [`fuzz_one`],
/// as libFuzzer's `-runs=0` would. A charged violation panics, as under libFuzzer.
pub fn replay_inputs(name: &str) -> ExitCode {
    replay_files(name, |bytes| {
        fuzz_one(name, bytes);
    })
}

/// [`replay_inputs`] for a cargo-fuzz target whose body is `run` rather than a registered target.
pub fn replay_files(name: &str, run: impl Fn(&[u8])) -> ExitCode {
    no_error_backtraces();
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let mut files = Vec::new();
    for path in &paths {
        match std::fs::read_dir(path) {
            Ok(entries) => files.extend(entries.filter_map(|e| e.ok().map(|e| e.path()))),
            Err(_) => files.push(path.clone()),
        }
    }
    files.sort();
    for file in &files {
        match std::fs::read(file) {
            Ok(bytes) => run(&bytes),
            Err(error) => {
                eprintln!("{}: cannot read: {error}", file.display());
                return ExitCode::from(2);
            }
        }
    }
    println!("{name}: {} input(s) replayed, no failure", files.len());
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use std::backtrace::BacktraceStatus;
    use std::process::Command;

    /// Set in the child process the test starts: the environment is the process's, so each case
    /// runs in a fresh one (std reads the variables once, at the first capture).
    const CHILD: &str = "CTXFUZZ_BACKTRACE_CHILD";

    /// Whether an error built after [`super::no_error_backtraces`], in a child process started
    /// with `env`, carries a captured backtrace.
    fn error_backtrace_captured(env: &[(&str, &str)]) -> bool {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", "harness::tests::child", "--nocapture"])
            .env(CHILD, "1")
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE");
        command.envs(env.iter().copied());
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}");
        stdout.contains("backtrace: captured")
    }

    #[test]
    fn child() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        super::no_error_backtraces();
        let error = anyhow::anyhow!("rejected");
        let captured = error.backtrace().status() == BacktraceStatus::Captured;
        println!("backtrace: {}", if captured { "captured" } else { "off" });
    }

    #[test]
    fn errors_carry_no_backtrace_under_rust_backtrace_unless_the_user_asks_for_one() {
        assert!(!error_backtrace_captured(&[("RUST_BACKTRACE", "1")]));
        assert!(error_backtrace_captured(&[
            ("RUST_BACKTRACE", "1"),
            ("RUST_LIB_BACKTRACE", "1")
        ]));
    }
}
