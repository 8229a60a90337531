//! `ctxfuzz compact FILE`: apply the compaction once and print the new transcript and a report
//! (boundary, what was summarised, sizes, what the token tracker saw).
//!
//! A transcript another program wrote (an Anthropic `tool_use` block, a Gemini `parts`, ...; or
//! an OpenAI `tool` message in a pi transcript) is refused, naming the first message that tells its
//! format: read as pi's or AutoBot's chat, its calls and results would be none, and the boundary
//! could fall between them.

use std::path::PathBuf;

use anyhow::Result;
use ctxfuzz_oracles::formats::{self, Format};
use ctxfuzz_oracles::js_value::JsValue;
use serde::Serialize;
use serde_json::Value;

use super::exit::ExitCode;
use crate::compaction::{
    self, CompactionConfig, Compactor, Decision, Family, Faults, Outcome, Policy, Scripted,
    Tracker, TrackerCall, streamed,
};
use crate::transcript::io;

/// Arguments of `ctxfuzz compact`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// A JSON array of pi messages or chat messages (either schema), or `{"messages": [...]}`.
    pub file: PathBuf,
    /// A named variant (cycle-safe, autobot, midpoint, floor-0, compose-after-reset, old-clip-key,
    /// no-preserve, no-state); the options below override its knobs.
    #[arg(long = "variant", value_name = "VARIANT", default_value = "cycle-safe", value_parser = CompactionConfig::named)]
    pub config: CompactionConfig,
    /// Boundary policy.
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<Policy>,
    /// Transcript family (default: detected from the roles).
    #[arg(long, value_parser = parse_family)]
    pub format: Option<Family>,
    /// How far below the midpoint a user turn is looked for.
    #[arg(long)]
    pub window: Option<usize>,
    /// Most recent user turns carried verbatim.
    #[arg(long)]
    pub user_message_cap: Option<usize>,
    /// Tool-result body clip before the summariser (characters).
    #[arg(long)]
    pub clip_chars: Option<usize>,
    /// Last N shell commands rendered in the state block (0: all).
    #[arg(long)]
    pub state_command_cap: Option<usize>,
    /// Use this text as the summary instead of the offline digest.
    #[arg(long)]
    pub summary: Option<String>,
    /// One JSON object `{"messages", "boundary", "summary", "report"}` instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the new transcript to this file (atomically).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// The format a family's messages are written in: AutoBot's chat messages are OpenAI's (or its
/// stored schema, which no other format's messages look like).
fn format_of(family: Family) -> Format {
    match family {
        Family::Pi => Format::Pi,
        Family::Chat => Format::OpenAi,
    }
}

/// The format `message` was written in, and what tells it, when that is not `family`'s: the
/// compaction would read another program's calls and results as none, and could cut between them.
fn written_in_other_format(
    family: Family,
    message: &JsValue,
) -> Option<((Format, &'static str), Format)> {
    let format = format_of(family);
    formats::written_in(message)
        .filter(|&(written, _)| written != format)
        .map(|written| (written, format))
}

fn parse_policy(text: &str) -> Result<Policy> {
    serde_json::from_value(Value::String(text.to_string()))
        .map_err(|_| anyhow::anyhow!("expected midpoint, autobot or cycle-safe"))
}

fn parse_family(text: &str) -> Result<Family> {
    serde_json::from_value(Value::String(text.to_string()))
        .map_err(|_| anyhow::anyhow!("expected pi or chat"))
}

pub fn run(mut args: Args) -> Result<ExitCode> {
    let text = io::read_text(&args.file)?;
    let mut config = std::mem::take(&mut args.config);
    config.policy = args.policy.unwrap_or(config.policy);
    config.window = args.window.unwrap_or(config.window);
    config.user_message_cap = args.user_message_cap.unwrap_or(config.user_message_cap);
    config.clip_chars = args.clip_chars.unwrap_or(config.clip_chars);
    config.state_command_cap = args.state_command_cap.unwrap_or(config.state_command_cap);
    let summariser = args
        .summary
        .take()
        .map_or(Scripted::Digest, Scripted::Fixed);
    let mut tracker = Tracker::default();
    let mut other_format = None;
    match streamed::compact(
        &args.file,
        &text,
        args.format,
        &config,
        &summariser,
        &mut tracker,
        |family, at, message| {
            if other_format.is_none() {
                other_format = written_in_other_format(family, message).map(|w| (at, w));
            }
        },
    )? {
        Some(compacted) => {
            if let Some((at, (written, format))) = other_format {
                return Err(io::other_format(&args.file, &text, at, written, format));
            }
            let messages = compacted.messages(&args.file, &text);
            print(
                &args,
                &config,
                &compacted.decision,
                compacted.kept(),
                &tracker,
                &messages,
            )?;
        }
        // A protocol request, `{"messages": [...]}`, is read whole (anything else is an error
        // that says what the document is instead).
        None => {
            let document = io::parse_json_borrowed(&args.file, &text)?;
            let messages = io::messages_of(&args.file, &document)?;
            let family = args.format.unwrap_or_else(|| Family::detect(messages));
            io::refuse_other_formats(&args.file, &text, messages, format_of(family))?;
            let compactor = Compactor {
                family,
                config: &config,
                summariser: &summariser,
                faults: Faults::default(),
            };
            let compaction = compaction::compact(messages, &compactor, &mut tracker);
            let new_transcript: Vec<&JsValue> = compaction.messages().collect();
            let kept = compaction.kept.len();
            print(
                &args,
                &config,
                &compaction.decision,
                kept,
                &tracker,
                &new_transcript,
            )?;
            super::free_at_exit(document);
        }
    }
    super::free_at_exit(text);
    Ok(ExitCode::Clean)
}

/// The new transcript (`messages`, `kept` of them kept) and the report of the compaction `config`
/// ran, as `args` asks for them.
fn print(
    args: &Args,
    config: &CompactionConfig,
    decision: &Decision<JsValue>,
    kept: usize,
    tracker: &Tracker,
    messages: &impl Serialize,
) -> Result<()> {
    if let Some(path) = &args.output {
        super::write_output(Some(path), |out| super::pretty_line(out, messages))?;
    }
    super::write_output(None, |out| {
        if args.json {
            super::pretty_line(out, &decision.to_json(messages, kept, tracker))
        } else {
            out.write_all(describe(decision, kept, config, tracker).as_bytes())?;
            super::pretty_line(out, messages)
        }
    })
}

/// The human-readable report printed before the transcript, `kept` messages kept.
fn describe(
    result: &Decision<JsValue>,
    kept: usize,
    config: &CompactionConfig,
    tracker: &Tracker,
) -> String {
    let policy = serde_json::to_value(config.policy).unwrap_or_default();
    let family = serde_json::to_value(result.family).unwrap_or_default();
    let mut text = format!(
        "policy {} on a {} transcript of {} message(s): boundary picked at {}\n",
        policy.as_str().unwrap_or(""),
        family.as_str().unwrap_or(""),
        kept + result.boundary,
        result.picked
    );
    text += &match &result.outcome {
        Outcome::Compacted => format!(
            "compacted: messages[..{b}] ({} tokens) replaced by one summary ({} tokens); {} kept untouched\n\
             summary carries {} verbatim user turn(s), {} file(s) written, {} command(s), {} tool(s)\n",
            result.region_tokens,
            result.summary_tokens,
            kept,
            result.preserved.len(),
            result.state.files_written.len(),
            result.state.commands.len(),
            result.state.tools_used.len(),
            b = result.boundary,
        ),
        Outcome::NoCut => "not compacted: no valid cut (boundary 0)\n".to_string(),
        Outcome::NotSmaller {
            summary_tokens,
            region_tokens,
        } => format!(
            "not compacted: the summary ({summary_tokens} tokens) would not be smaller than the region ({region_tokens} tokens)\n"
        ),
        Outcome::Failed { error } => format!("not compacted: {error}\n"),
    };
    let refills = tracker
        .calls
        .iter()
        .filter(|c| matches!(c, TrackerCall::Add { .. }))
        .count();
    text += &match tracker.calls.first() {
        None => "tracker: untouched\n".to_string(),
        Some(_) => format!(
            "tracker: reset, then refilled with {refills} kept message(s) ({} tokens)\n",
            tracker.total_tokens
        ),
    };
    text
}
