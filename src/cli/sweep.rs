//! `ctxfuzz sweep FILE [--rule R] [--json] [--output OUT]`: apply the orphan sweep to one transcript.
//!
//! FILE holds a JSON array of pi messages, or the external-program request `{"messages": [...]}`.
//! Without `--json`: the kept messages, pretty-printed, on stdout, and one line on stderr saying
//! what was swept. With `--json`: exactly the external-program protocol line
//! `{"messages":[...],"swept":[...]}` (docs/sweep.md#the-protocol-line).
//!
//! The file is read into `JsValue`s that borrow from its text, so the kept messages are written as
//! the file has them (fields in its order) and a large transcript costs a few times its size.

use std::path::PathBuf;

use anyhow::Result;

use super::exit::ExitCode;
use crate::sweep::{BarrierRule, Message, Swept, sweep, write_protocol_line};
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
    let document = io::parse_json_borrowed(&args.file, &text)?;
    let messages = io::messages_of(&args.file, &document)?;
    let result = sweep(messages, args.rule);
    super::write_output(args.output.as_deref(), |out| {
        if args.json {
            write_protocol_line(&mut *out, &result)?;
            writeln!(out)
        } else {
            super::pretty_line(out, &result.messages)
        }
    })?;
    if !args.json {
        eprintln!("{}", report(&result, args.rule));
    }
    super::free_at_exit(result);
    super::free_at_exit(document);
    super::free_at_exit(text);
    Ok(ExitCode::Clean)
}

/// One line for a person: how many results went, and their ids.
fn report<M: Message>(result: &Swept<'_, M>, rule: BarrierRule) -> String {
    if result.swept.is_empty() {
        return format!("rule {rule}: nothing swept (the transcript is returned unchanged)");
    }
    let ids: Vec<String> = result.swept.iter().map(|id| format!("{id:?}")).collect();
    format!(
        "rule {rule}: swept {} orphan tool result(s): {}",
        result.swept.len(),
        ids.join(", ")
    )
}
