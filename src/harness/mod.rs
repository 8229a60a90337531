//! The harness: targets, the fuzz loop, minimisation, findings, external programs.
//!
//! Every engine runs the same code: the in-process loop ([`runner::fuzz`]), the cargo-fuzz targets
//! ([`fuzz_one`]), replay ([`replay::replay`]) and `ctxfuzz minimize` all build targets from the
//! registry ([`targets::build`]) and judge through [`DynTarget::judge_caught`] or [`DynTarget::judge`].

pub mod artifacts;
pub mod bytes;
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

/// One libFuzzer input through target `name` (the default variant, or `CTXFUZZ_VARIANT`):
/// decodes the bytes exactly as the in-process loop does and panics (a libFuzzer crash) on any
/// violation charged to the system under test. Unpreventable and informational violations are
/// not crashes.
pub fn fuzz_one(name: &str, bytes: &[u8]) {
    let target = cached_target(name);
    let Ok(input) = target.decode(bytes) else {
        return;
    };
    if let Judgement::Fail(violations) = target.judge(&input) {
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
}

/// Targets built once per process (libFuzzer calls [`fuzz_one`] millions of times).
fn cached_target(name: &str) -> &'static dyn DynTarget {
    static CACHE: OnceLock<Mutex<HashMap<String, &'static dyn DynTarget>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .expect("target cache lock");
    *cache.entry(name.to_string()).or_insert_with(|| {
        let variant = std::env::var("CTXFUZZ_VARIANT").ok();
        let target = targets::build(name, variant.as_deref(), &Profile::default())
            .unwrap_or_else(|e| panic!("cannot build fuzz target `{name}`: {e:#}"));
        Box::leak(target)
    })
}

/// The `main` of a cargo-fuzz target built without cargo-fuzz (plain stable `cargo build`): runs
/// every file named on the command line (every file inside a directory) through [`fuzz_one`],
/// as libFuzzer's `-runs=0` would. A charged violation panics, as under libFuzzer.
pub fn replay_inputs(name: &str) -> ExitCode {
    replay_files(name, |bytes| fuzz_one(name, bytes))
}

/// [`replay_inputs`] for a cargo-fuzz target whose body is `run` rather than a registered target.
pub fn replay_files(name: &str, run: impl Fn(&[u8])) -> ExitCode {
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
