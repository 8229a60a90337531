//! `ctxfuzz check FILE... [--pi V] [--json]`: would the provider accept these transcripts?
//!
//! Each file is rendered through pi's pipeline (the pi version `--pi` picks, default 1.6.0) and the
//! Anthropic request is checked against the API's rules. Every violation is printed with its rule
//! id, its location in the request (`messages.N.content.M`), the error text the API returns, the
//! known failure shape (docs/oracle.md#known-failure-shapes) it is (when it is one) and who could
//! have prevented it.
//!
//! Exit codes: 0 every file clean; 1 a violation, or pi itself would throw on a file (that
//! transcript cannot be sent either); 2 bad input (nothing is judged: every file is read first).
//!
//! pi session files are judged by the messages pi would start from (`buildSessionContext` of the
//! last entry); their malformed lines, which pi skips, are reported on stderr as
//! `FILE:LINE:COLUMN` warnings. A file that is not a session, or on which pi cannot build the
//! context at all, is bad input.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;
use ctxfuzz_oracles::invariants::Cause;
use ctxfuzz_oracles::invariants::wire::{PART_SIZE, Parts, WireFinding, findings};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::session_context::SessionRules;
use ctxfuzz_oracles::pi::{self, PiVersion, Thrown};
use serde_json::{Value, json};

use super::exit::ExitCode;
use crate::transcript::{io, session_file};

/// Arguments of `ctxfuzz check`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// JSON arrays of pi messages (or `{"messages": [...]}`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// pi version whose behaviour to model (any version string).
    #[arg(long, default_value = "1.6.0", value_parser = PiVersion::from_version)]
    pub pi: PiVersion,
    /// Print one JSON document (scriptable) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Judges one file: a pi session file (`*.jsonl`, or a session header on the first line) by the
/// messages pi `v` would load from it, read through the index of its lines and judged part by
/// part (whole when the index does not cover it, or the parts do not stand alone); a JSON array of pi messages part by part, in the memory of
/// its text and one part; anything else, and an array whose parts do not stand alone, parsed
/// whole (`{"messages": [...]}` too). Every form borrows its strings from `text`.
///
/// The seam for other transcript formats: a reader for them gives the messages pi would send
/// into `convertToLlm`. A whole document read from the `last_file` is left to the operating
/// system ([`super::free_at_exit`]).
fn judge(
    path: &Path,
    text: &str,
    model: &JsValue<'_>,
    v: PiVersion,
    last_file: bool,
) -> Result<Outcome> {
    fn leave<T>(document: T, last_file: bool) {
        if last_file {
            super::free_at_exit(document);
        }
    }
    if session_file::is_session_file(path, text) {
        if let Some(judged) = session_in_parts(path, text, model, v) {
            return Ok(Outcome::of(judged));
        }
        let messages = session_file::read_messages(path, text, v)?;
        let outcome = Outcome::of(findings(&messages, model, v));
        leave(messages, last_file);
        return Ok(outcome);
    }
    let mut parts = Parts::new(model, v, PART_SIZE);
    if io::for_each_item(path, text, |message| parts.push(message))?
        && let Some(judged) = parts.finish()
    {
        return Ok(Outcome::of(judged));
    }
    let document = io::parse_json_borrowed(path, text)?;
    let outcome = Outcome::of(findings(io::messages_of(path, &document)?, model, v));
    leave(document, last_file);
    Ok(outcome)
}

/// A session file judged in parts through the index of its lines
/// ([`session_file::Index`]): `None` when the file needs the whole reading, or its parts do not
/// stand alone.
fn session_in_parts(
    path: &Path,
    text: &str,
    model: &JsValue<'_>,
    v: PiVersion,
) -> Option<Result<Vec<WireFinding>, Thrown>> {
    let index = session_file::Index::read(text).ok()?;
    let mut parts = Parts::new(model, v, PART_SIZE);
    index
        .for_each_message(SessionRules::of(v), |message| parts.push(message))
        .ok()?;
    let judged = parts.finish()?;
    session_file::warn_malformed(path, &index.malformed);
    Some(judged)
}

/// What `check` concluded about one file.
enum Outcome {
    Judged(Vec<WireFinding>),
    Throws(Thrown),
}

impl Outcome {
    fn of(judged: Result<Vec<WireFinding>, Thrown>) -> Self {
        match judged {
            Ok(found) => Outcome::Judged(found),
            Err(thrown) => Outcome::Throws(thrown),
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let model = JsValue::from(pi::default_model());
    // One file at a time: a text is dropped once judged, so memory is that of the largest file,
    // not of them all.
    let last = args.files.len().saturating_sub(1);
    let outcomes = args
        .files
        .iter()
        .enumerate()
        .map(|(index, path)| {
            let text = io::read_text(path)?;
            let outcome = judge(path, &text, &model, args.pi, index == last)?;
            if index == last {
                super::free_at_exit(text);
            }
            Ok(outcome)
        })
        .collect::<Result<Vec<_>>>()?;
    let report = if args.json {
        json_text::to_string_pretty(&json_report(&args.files, &outcomes, args.pi))? + "\n"
    } else {
        text_report(&args.files, &outcomes, args.pi)
    };
    print!("{report}");
    let clean = outcomes
        .iter()
        .all(|o| matches!(o, Outcome::Judged(found) if found.is_empty()));
    Ok(ExitCode::found(!clean))
}

fn location(finding: &WireFinding) -> String {
    match finding.wire.block {
        Some(block) => format!("messages.{}.content.{block}", finding.wire.message),
        None => format!("messages.{}", finding.wire.message),
    }
}

fn text_report(files: &[PathBuf], outcomes: &[Outcome], pi_version: PiVersion) -> String {
    let mut out = String::new();
    for (file, outcome) in files.iter().zip(outcomes) {
        let file = file.display();
        match outcome {
            Outcome::Throws(thrown) => {
                let _ = writeln!(out, "{file}: cannot be sent: {thrown} (pi {pi_version})");
            }
            Outcome::Judged(found) if found.is_empty() => {
                let _ = writeln!(
                    out,
                    "{file}: ok (pi {pi_version}: the request breaks no rule)"
                );
            }
            Outcome::Judged(found) => {
                let _ = writeln!(
                    out,
                    "{file}: {} violation(s), the API would answer 400 (pi {pi_version})",
                    found.len()
                );
                for finding in found {
                    let _ = writeln!(out, "  {}  {}", location(finding), finding.wire.rule);
                    if let Some(shape) = finding.shape {
                        let _ = writeln!(
                            out,
                            "    known failure {}: {}",
                            shape.number(),
                            shape.describe()
                        );
                    }
                    if let Cause::Unpreventable(reason) = &finding.cause {
                        let _ = writeln!(out, "    pi's own doing: {reason}");
                    }
                    let _ = writeln!(out, "    API error: {}", finding.wire.text);
                }
            }
        }
    }
    out
}

fn json_report(files: &[PathBuf], outcomes: &[Outcome], pi_version: PiVersion) -> Value {
    let files: Vec<Value> = files
        .iter()
        .zip(outcomes)
        .map(|(file, outcome)| match outcome {
            Outcome::Throws(thrown) => json!({
                "file": file.display().to_string(),
                "verdict": "pi-throws",
                "thrown": {"stage": thrown.stage.to_string(), "error": thrown.error},
                "violations": [],
            }),
            Outcome::Judged(found) => json!({
                "file": file.display().to_string(),
                "verdict": if found.is_empty() { "clean" } else { "violations" },
                "violations": found.iter().map(finding_json).collect::<Vec<_>>(),
            }),
        })
        .collect();
    json!({"pi": pi_version.to_string(), "files": files})
}

fn finding_json(finding: &WireFinding) -> Value {
    let wire = &finding.wire;
    json!({
        "rule": wire.rule,
        "location": location(finding),
        "message": wire.message,
        "block": wire.block,
        "tool_use_id": wire.tool_use_id,
        "error": wire.text,
        "known_failure": finding.shape.map(|s| json!({"number": s.number(), "shape": s.describe()})),
        "cause": finding.cause,
    })
}
