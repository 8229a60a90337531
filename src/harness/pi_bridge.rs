//! A client of `oracles/conformance/bridge.mjs`, the Node program that runs the real pi packages
//! (pinned: 0.79.0, 0.81.1, 0.87.1, 1.6.0). Used by the conformance test and the oracle benchmark.
//!
//! Protocol (JSON lines): `{"pi": VERSION, "input": <vectors input>}` answers in the vectors file's
//! output shape; `{"pi": VERSION, "bench": [<inputs>], "repeat": n}` answers
//! `{"runs": n, "nanos": t}`, timed inside Node around `convertToLlm` + `transformMessages` only.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail, ensure};
use ctxfuzz_oracles::{js_string, json_text};
use serde_json::{Value, json};

/// The command that installs the pinned packages, from the repository root.
pub const INSTALL: &str = "npm ci --prefix oracles/conformance";

/// The versions the bridge loads (one per pi version modelled).
pub const VERSIONS: [&str; 4] = ["0.79.0", "0.81.1", "0.87.1", "1.6.0"];

/// `oracles/conformance` of this repository.
pub fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracles/conformance")
}

/// Checks that Node runs and every pinned package is installed at its version; the error says
/// which command fixes it.
pub fn require_installation() -> Result<()> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|out| out.status.success()) {
        bail!(
            "`node` is not on PATH; the real pi runs in Node: install Node.js 20 or later, then run `{INSTALL}`"
        );
    }
    for version in VERSIONS {
        for package in ["pi-ai", "pi-coding-agent"] {
            let manifest =
                conformance_dir().join(format!("node_modules/{package}-{version}/package.json"));
            let installed = std::fs::read_to_string(&manifest)
                .ok()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .and_then(|json| json["version"].as_str().map(str::to_string));
            ensure!(
                installed.as_deref() == Some(version),
                "{} is not installed at {version}: run `{INSTALL}` from the repository root",
                manifest.display()
            );
        }
    }
    Ok(())
}

/// Sends `requests` to a fresh bridge process and returns its answers, in order. Writing runs on
/// its own thread so neither pipe fills up while the other waits.
pub fn ask(requests: Vec<Value>) -> Result<Vec<Value>> {
    require_installation()?;
    let mut child = Command::new("node")
        .arg(conformance_dir().join("bridge.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start the pi bridge; run `{INSTALL}`"))?;
    let stdin = child.stdin.take().context("the bridge's stdin")?;
    let stdout = child.stdout.take().context("the bridge's stdout")?;
    let count = requests.len();
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        let mut out = BufWriter::new(stdin);
        for request in requests {
            json_text::to_writer(&mut out, &request)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    });
    let mut answers = Vec::with_capacity(count);
    for line in BufReader::new(stdout).lines().take(count) {
        let line = line.context("reading from the pi bridge")?;
        answers.push(
            json_text::parse(&js_string::from_text(&line))
                .with_context(|| format!("the pi bridge wrote invalid JSON: {line}"))?,
        );
    }
    writer
        .join()
        .map_err(|_| anyhow!("the bridge writer panicked"))?
        .context("writing to the pi bridge")?;
    let status = child.wait().context("waiting for the pi bridge")?;
    ensure!(
        answers.len() == count,
        "the pi bridge answered {} of {count} requests ({status})",
        answers.len()
    );
    Ok(answers)
}

/// Node's own time for running `convertToLlm` + `transformMessages` of pi `version` over every
/// input, `repeat` times (JSON parsing excluded).
pub fn time_in_node(version: &str, inputs: &[Value], repeat: u64) -> Result<Duration> {
    let answer = ask(vec![
        json!({"pi": version, "bench": inputs, "repeat": repeat}),
    ])?;
    let nanos = answer
        .first()
        .and_then(|a| a["nanos"].as_u64())
        .with_context(|| format!("the pi bridge gave no timing: {answer:?}"))?;
    Ok(Duration::from_nanos(nanos))
}
