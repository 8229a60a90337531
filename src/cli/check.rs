//! `ctxfuzz check FILE... [--pi V] [--provider P|all] [--format F] [--json]`: would the provider
//! accept these transcripts?
//!
//! Each file is rendered through pi's pipeline (the pi version `--pi` picks, default 1.6.0) into
//! the body pi builds for the provider (`--provider`, default `anthropic`; `all`: every modelled
//! provider, each verdict labelled with the provider and its API), and the body is checked against
//! that API's rules. Every violation is printed with its rule id, its location in the body
//! (`messages.N.content.M`, `input.N`), the error text the API returns and, for the Anthropic
//! body, the known failure shape (docs/oracle.md#known-failure-shapes) it is (when it is one) and
//! who could have prevented it. The Anthropic body is judged part by part, in bounded memory; the
//! others read the file's messages whole.
//!
//! Exit codes: 0 every file clean; 1 a violation, or pi itself would throw on a file (that
//! transcript cannot be sent either); 2 bad input (nothing is judged: every file is read first).
//!
//! `--format F` (openai, anthropic, gemini, ai-sdk, langchain) judges another program's transcript
//! as it stands, by the rules F's provider refuses calls and results by (`formats::wire`), each
//! violation with the provider's answer. A file whose messages are written in another format than
//! the one asked for (pi's by default) is bad input, named by its first such message
//! (`formats::written_in`): read as pi's, pi would pass over it, and the request would be judged
//! clean with nothing in it.
//!
//! pi session files are judged by the messages pi would start from (`buildSessionContext` of the
//! last entry); their malformed lines, which pi skips, are reported on stderr as
//! `FILE:LINE:COLUMN` warnings. A file that is not a session, or on which pi cannot build the
//! context at all, is bad input.

use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::formats::{Format, wire, written_in};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use ctxfuzz_oracles::invariants::Cause;
use ctxfuzz_oracles::invariants::wire::{
    BodyRejection, PART_SIZE, Parts, WireFinding, body_rejections, findings,
};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::{Api, PiVersion, Provider, Thrown};
use serde_json::{Value, json};

use super::exit::ExitCode;
use crate::transcript::{io, session_file};

/// Arguments of `ctxfuzz check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// JSON arrays of pi messages (or `{"messages": [...]}`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// pi version whose behaviour to model (any version string).
    #[arg(long, default_value = "1.6.0", value_parser = PiVersion::from_version)]
    pub pi: PiVersion,
    /// The provider whose body to judge (its catalog model picks the API): anthropic (the
    /// default), openai, openrouter, groq, deepseek, google, or `all` of them.
    #[arg(long, value_parser = providers)]
    pub provider: Option<Providers>,
    /// The format the files are written in: pi (pi's messages or session files, judged by the
    /// body pi builds), or openai, anthropic, gemini, ai-sdk or langchain (judged as they stand
    /// by that provider's rules on calls and results).
    #[arg(long, default_value = "pi")]
    pub format: Format,
    /// Print one JSON document (scriptable) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The providers `--provider` names: one, or every modelled one (`all`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Providers(pub Vec<Provider>);

impl Default for Providers {
    fn default() -> Self {
        Providers(vec![Provider::default()])
    }
}

/// `--provider`'s parser, `check`'s and `scan`'s.
pub(super) fn providers(name: &str) -> Result<Providers, String> {
    if name == "all" {
        return Ok(Providers(Provider::all().to_vec()));
    }
    let provider = name
        .parse::<Provider>()
        .map_err(|unknown| format!("{unknown}, or all"))?;
    Ok(Providers(vec![provider]))
}

/// Judges one file for `provider`: the Anthropic body by [`judge_anthropic`]; any other by the
/// messages pi would start from, read whole.
fn judge(
    path: &Path,
    text: &str,
    provider: Provider,
    v: PiVersion,
    last_file: bool,
) -> Result<Outcome> {
    if provider.api() == Api::AnthropicMessages {
        let model = provider.model();
        return judge_anthropic(path, text, model, v, last_file);
    }
    if session_file::is_session_file(path, text) {
        let messages = session_file::read_messages(path, text, v)?;
        return Ok(Outcome::of(verdict_of_whole(&messages, provider, v)));
    }
    let document = io::parse_json_borrowed(path, text)?;
    let messages = io::messages_of(path, &document)?;
    io::refuse_other_formats(path, text, messages, Format::Pi)?;
    Ok(Outcome::of(verdict_of_whole(messages, provider, v)))
}

/// The verdict on the body pi `v` builds for `provider` from `messages`, judged whole: the
/// Anthropic body's findings, or any other API's rejections.
pub(super) fn verdict_of_whole(
    messages: &[JsValue<'_>],
    provider: Provider,
    v: PiVersion,
) -> Result<BodyVerdict, Thrown> {
    let model = provider.model();
    match body_rejections(messages, model, provider.api(), v) {
        Some(judged) => judged.map(BodyVerdict::BodyRejected),
        None => findings(messages, model, v).map(BodyVerdict::Rejected),
    }
}

/// Judges one file's Anthropic body: a pi session file (`*.jsonl`, or a session header on the first line) by the
/// messages pi `v` would load from it, read through the index of its lines and judged part by
/// part (whole when the index does not cover it, or the parts do not stand alone); a JSON array of pi messages part by part, in the memory of
/// its text and one part; anything else, and an array whose parts do not stand alone, parsed
/// whole (`{"messages": [...]}` too). Every form borrows its strings from `text`.
///
/// The seam for other transcript formats: a reader for them gives the messages pi would send
/// into `convertToLlm`. A whole document read from the `last_file` is left to the operating
/// system ([`super::free_at_exit`]).
fn judge_anthropic(
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
            return Ok(Outcome::of(judged.map(BodyVerdict::Rejected)));
        }
        let messages = session_file::read_messages(path, text, v)?;
        let outcome = Outcome::of(findings(&messages, model, v).map(BodyVerdict::Rejected));
        leave(messages, last_file);
        return Ok(outcome);
    }
    let mut parts = Parts::new(model, v, PART_SIZE);
    let (mut read, mut other_format) = (0, None);
    let an_array = io::for_each_item(path, text, |message| {
        if other_format.is_none() {
            other_format = written_in(&message).map(|written| (read, written));
        }
        read += 1;
        parts.push(message);
    })?;
    if let Some((at, (format, mark))) = other_format {
        return Err(io::other_format(path, text, at, (format, mark), Format::Pi));
    }
    if an_array && let Some(judged) = parts.finish() {
        return Ok(Outcome::of(judged.map(BodyVerdict::Rejected)));
    }
    let document = io::parse_json_borrowed(path, text)?;
    let messages = io::messages_of(path, &document)?;
    io::refuse_other_formats(path, text, messages, Format::Pi)?;
    let outcome = Outcome::of(findings(messages, model, v).map(BodyVerdict::Rejected));
    leave(document, last_file);
    Ok(outcome)
}

/// A session file judged in parts through the index of its lines
/// ([`session_file::for_each_message`]): `None` when the file needs the whole reading, or its
/// parts do not stand alone.
fn session_in_parts(
    path: &Path,
    text: &str,
    model: &JsValue<'_>,
    v: PiVersion,
) -> Option<Result<Vec<WireFinding>, Thrown>> {
    let mut parts = Parts::new(model, v, PART_SIZE);
    let malformed = session_file::for_each_message(text, v, |message| parts.push(message))?;
    let judged = parts.finish()?;
    session_file::warn_malformed(path, &malformed);
    Some(judged)
}

/// What `check` concluded about one file for one provider.
struct Judged<'p> {
    file: &'p Path,
    provider: Provider,
    outcome: Outcome,
}

/// Whether pi builds a body for the file at all, and the rules it breaks.
enum Outcome {
    Judged(BodyVerdict),
    Throws(Thrown),
}

/// The rules a body breaks: the Anthropic body's with their causes and known shapes, any other
/// API's with their location and text.
#[derive(Debug, PartialEq)]
pub enum BodyVerdict {
    Rejected(Vec<WireFinding>),
    BodyRejected(Vec<BodyRejection>),
}

impl Outcome {
    fn of(judged: Result<BodyVerdict, Thrown>) -> Self {
        match judged {
            Ok(verdict) => Outcome::Judged(verdict),
            Err(thrown) => Outcome::Throws(thrown),
        }
    }

    /// How many rules the body breaks (`None` when pi throws).
    fn violations(&self) -> Option<usize> {
        match self {
            Outcome::Judged(verdict) => Some(verdict.violations()),
            Outcome::Throws(_) => None,
        }
    }
}

impl BodyVerdict {
    /// How many rules the body breaks.
    pub fn violations(&self) -> usize {
        match self {
            BodyVerdict::Rejected(found) => found.len(),
            BodyVerdict::BodyRejected(found) => found.len(),
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.format != Format::Pi {
        if args.provider.is_some() {
            bail!(
                "--provider picks the body pi builds from pi's messages; {} messages are judged \
                 as they stand by their provider's rules",
                args.format
            );
        }
        return run_format(&args);
    }
    let Providers(providers) = &args.provider.clone().unwrap_or_default();
    // One file at a time: a text is dropped once judged, so memory is that of the largest file,
    // not of them all.
    let last = args.files.len().saturating_sub(1);
    let mut judged = Vec::new();
    for (index, file) in args.files.iter().enumerate() {
        let text = io::read_text(file)?;
        for (at, &provider) in providers.iter().enumerate() {
            let last_judgement = index == last && at + 1 == providers.len();
            let outcome = judge(file, &text, provider, args.pi, last_judgement)?;
            judged.push(Judged {
                file,
                provider,
                outcome,
            });
        }
        if index == last {
            super::free_at_exit(text);
        }
    }
    let report = if args.json {
        json_text::to_string_pretty(&json_report(&judged, args.pi))? + "\n"
    } else {
        text_report(&judged, args.pi)
    };
    print!("{report}");
    let clean = judged.iter().all(|j| j.outcome.violations() == Some(0));
    Ok(ExitCode::found(!clean))
}

fn location(finding: &WireFinding) -> String {
    match finding.wire.block {
        Some(block) => format!("messages.{}.content.{block}", finding.wire.message),
        None => format!("messages.{}", finding.wire.message),
    }
}

fn text_report(judged: &[Judged], pi_version: PiVersion) -> String {
    let mut out = String::new();
    for Judged {
        file,
        provider,
        outcome,
    } in judged
    {
        let file = file.display();
        let label = format!(
            "pi {pi_version}, provider {provider}, API {}",
            provider.api().name()
        );
        let count = outcome.violations();
        match outcome {
            Outcome::Throws(thrown) => {
                let _ = writeln!(out, "{file}: cannot be sent: {thrown} ({label})");
            }
            Outcome::Judged(_) if count == Some(0) => {
                let _ = writeln!(out, "{file}: ok ({label}: the request breaks no rule)");
            }
            Outcome::Judged(verdict) => {
                let _ = writeln!(
                    out,
                    "{file}: {} violation(s), the API would answer 400 ({label})",
                    count.unwrap_or_default()
                );
                write_violations(&mut out, verdict);
            }
        }
    }
    out
}

fn write_violations(out: &mut String, verdict: &BodyVerdict) {
    match verdict {
        BodyVerdict::Rejected(found) => {
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
        BodyVerdict::BodyRejected(found) => {
            for rejection in found {
                let _ = writeln!(out, "  {}  {}", rejection.location, rejection.rule);
                let _ = writeln!(out, "    API error: {}", rejection.text);
            }
        }
    }
}

fn json_report(judged: &[Judged], pi_version: PiVersion) -> Value {
    let files: Vec<Value> = judged
        .iter()
        .map(|judged| {
            let mut entry = match &judged.outcome {
                Outcome::Throws(thrown) => json!({
                    "verdict": "pi-throws",
                    "thrown": {"stage": thrown.stage.to_string(), "error": thrown.error},
                    "violations": [],
                }),
                Outcome::Judged(verdict) => json!({
                    "verdict": if judged.outcome.violations() == Some(0) { "clean" } else { "violations" },
                    "violations": match verdict {
                        BodyVerdict::Rejected(found) => found.iter().map(finding_json).collect::<Vec<_>>(),
                        BodyVerdict::BodyRejected(found) => found.iter().map(rejection_json).collect(),
                    },
                }),
            };
            entry["file"] = json!(judged.file.display().to_string());
            entry["provider"] = json!(judged.provider.name());
            entry["api"] = json!(judged.provider.api().name());
            entry
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

fn rejection_json(rejection: &BodyRejection) -> Value {
    json!({
        "rule": rejection.rule,
        "location": rejection.location,
        "error": rejection.text,
    })
}

/// `check --format F` for a format other than pi: each file's messages judged as they stand by the
/// rules F's provider refuses calls and results by (`formats::wire`, docs/contracts.md), each
/// violation shown with the provider's answer.
fn run_format(args: &Args) -> Result<ExitCode> {
    let format = args.format;
    let mut judged = Vec::new();
    for file in &args.files {
        let text = io::read_text(file)?;
        let document = io::parse_json_borrowed(file, &text)?;
        let messages = io::messages_of(file, &document)?;
        io::refuse_other_formats(file, &text, messages, format)?;
        judged.push((file, wire::validate(format, &format.view(messages))));
    }
    let refusal = |rule| wire::source(format, rule).unwrap_or_default();
    if args.json {
        let files: Vec<Value> = judged
            .iter()
            .map(|(file, found)| {
                json!({
                    "file": file.display().to_string(),
                    "verdict": if found.is_empty() { "clean" } else { "violations" },
                    "violations": found.iter().map(|v| json!({
                        "rule": v.rule,
                        "message": v.message,
                        "call_id": v.id,
                        "refusal": refusal(v.rule),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let report = json!({"format": format.to_string(), "files": files});
        print!("{}", json_text::to_string_pretty(&report)? + "\n");
    } else {
        for (file, found) in &judged {
            let file = file.display();
            if found.is_empty() {
                println!("{file}: ok (format {format}: the messages break no rule)");
                continue;
            }
            println!(
                "{file}: {} violation(s), the provider would refuse the request (format {format})",
                found.len()
            );
            for violation in found {
                println!("  {}", violation.summary());
                println!("    provider's answer: {}", refusal(violation.rule));
            }
        }
    }
    Ok(ExitCode::found(
        judged.iter().any(|(_, found)| !found.is_empty()),
    ))
}
