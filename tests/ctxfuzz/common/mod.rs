//! Helpers every module of the test binary shares: running the `ctxfuzz` binary and writing
//! input files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arbitrary::Unstructured;
use ctxfuzz::generators::{pi, seeded_bytes};
use ctxfuzz::transcript::shapes::{Shape, shapes};
use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::Value;

/// Runs the `ctxfuzz` binary built for these tests with `args`.
pub fn ctxfuzz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(args)
        .output()
        .expect("the ctxfuzz binary runs")
}

/// Runs the `ctxfuzz` binary with `args` inside `dir` (for commands that write to the current
/// directory, such as `fuzz`'s default `findings/`).
pub fn ctxfuzz_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the ctxfuzz binary runs")
}

/// Writes `contents` to `dir/name` (creating parent directories) and returns the path.
pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("a file inside dir")).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The violations of `judgement` charged to the system under test, as `invariant: summary` lines
/// (unpreventable ones are the environment's).
pub fn charged_summaries(judgement: Judgement) -> Vec<String> {
    match judgement {
        Judgement::Fail(violations) => violations
            .into_iter()
            .filter(|v| v.cause == Cause::SystemUnderTest)
            .map(|v| format!("{}: {}", v.invariant, v.summary))
            .collect(),
        _ => Vec::new(),
    }
}

/// The seeded bytes ([`pi::SEED_BYTES`] long) of the first seed whose transcript is long
/// (10,000+ messages): about one seed in 3,300.
pub fn long_transcript_bytes() -> Vec<u8> {
    (0..)
        .map(|seed| seeded_bytes(seed, pi::SEED_BYTES))
        .find(|bytes| {
            let transcript = pi::transcript(&mut Unstructured::new(bytes)).unwrap();
            shapes(&transcript).contains(&Shape::LongTranscript)
        })
        .unwrap()
}

/// A 64-bit FNV-1a fingerprint of `texts`, for tests that pin what seeds generate.
pub fn fingerprint<'t>(texts: impl IntoIterator<Item = &'t str>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in texts.into_iter().flat_map(str::bytes) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Where `ctxfuzz check --json FILE` places the findings of a file it fails: (message, block).
pub fn charged_places(path: &Path) -> Vec<(u64, Option<u64>)> {
    let out = ctxfuzz(&["check", "--json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["files"][0]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["message"].as_u64().unwrap(), v["block"].as_u64()))
        .collect()
}

/// A violation's evidence as the JSON a finding shows.
pub fn evidence(violation: &Violation) -> Value {
    serde_json::to_value(&violation.evidence).unwrap()
}

/// The messages of a JSON array (written with `json!`) as the compaction and the generators hold
/// them.
pub fn messages(array: Value) -> Vec<JsValue<'static>> {
    match array {
        Value::Array(items) => items.into_iter().map(JsValue::from).collect(),
        other => panic!("not an array of messages: {other}"),
    }
}

/// Generated messages as `Value`s, for a test that reads or writes them as JSON.
pub fn values(messages: &[JsValue]) -> Vec<Value> {
    messages.iter().map(JsValue::to_value).collect()
}
