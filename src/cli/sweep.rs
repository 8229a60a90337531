//! `ctxfuzz sweep FILE [--rule R] [--json] [--output OUT]`: apply the orphan sweep to one transcript.
//!
//! FILE holds a JSON array of pi messages, or the external-program request `{"messages": [...]}`.
//! Without `--json`: the kept messages, pretty-printed, on stdout, and one line on stderr saying
//! what was swept. With `--json`: exactly the external-program protocol line
//! `{"messages":[...],"swept":[...]}` (docs/sweep.md#the-protocol-line).
//!
//! A transcript another program wrote (an OpenAI `tool` message, an Anthropic `tool_result`
//! block, ...) is refused, naming the first message that tells its format: pi passes over what it
//! does not know, so its results would never be swept, and "nothing swept" would be a clean bill
//! for a file never judged.
//!
//! An array is read twice, one message at a time ([`crate::sweep::streamed`]), and a protocol
//! request whole into `JsValue`s that borrow from the text: either way the kept messages come out
//! as the file has them (fields in its order).

use std::path::PathBuf;

use anyhow::Result;
use ctxfuzz_oracles::formats::{self, Format};
use serde::Serialize;

use super::exit::ExitCode;
use crate::sweep::streamed::decide;
use crate::sweep::{BarrierRule, Swept, sweep, write_protocol_line};
use crate::transcript::io;

/// Arguments of `ctxfuzz sweep`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// A JSON array of pi messages, or `{"messages": [...]}`.
    pub file: PathBuf,
    /// Barrier rule: none | allowlist | all-other-roles (pi-condense) | strict.
    #[arg(long, default_value_t = BarrierRule::Strict)]
    pub rule: BarrierRule,
    /// Print `{"messages":[...],"swept":[...]}` on one line (the external-program protocol).
    #[arg(long)]
    pub json: bool,
    /// Write the result to this file (atomically) instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let text = io::read_text(&args.file)?;
    let mut other_format = None;
    let decided = decide(&args.file, &text, args.rule, |at, message| {
        if other_format.is_none() {
            other_format = formats::written_in(message).map(|written| (at, written));
        }
    })?;
    if let Some((at, written)) = other_format {
        return Err(io::other_format(&args.file, &text, at, written, Format::Pi));
    }
    let swept = match decided {
        Some(decided) => {
            write(&args, &decided.kept(&args.file, &text), &decided.swept)?;
            decided.swept
        }
        None => {
            let document = io::parse_json_borrowed(&args.file, &text)?;
            let messages = io::messages_of(&args.file, &document)?;
            io::refuse_other_formats(&args.file, &text, messages, Format::Pi)?;
            let Swept { messages, swept } = sweep(messages, args.rule);
            write(&args, &messages, &swept)?;
            super::free_at_exit(messages);
            super::free_at_exit(document);
            swept
        }
    };
    if !args.json {
        eprintln!("{}", report(&swept, args.rule));
    }
    super::free_at_exit(text);
    Ok(ExitCode::Clean)
}

/// The kept messages and the report, as `args` asks for them.
fn write(args: &Args, kept: &impl Serialize, swept: &[String]) -> Result<()> {
    super::write_output(args.output.as_deref(), |out| {
        if args.json {
            write_protocol_line(&mut *out, kept, swept)?;
            writeln!(out)
        } else {
            super::pretty_line(out, kept)
        }
    })
}

/// One line for a person: how many results went, and their ids.
fn report(swept: &[String], rule: BarrierRule) -> String {
    if swept.is_empty() {
        return format!("rule {rule}: nothing swept (the transcript is returned unchanged)");
    }
    let ids: Vec<String> = swept.iter().map(|id| format!("{id:?}")).collect();
    format!(
        "rule {rule}: swept {} orphan tool result(s): {}",
        swept.len(),
        ids.join(", ")
    )
}
