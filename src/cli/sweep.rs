//! `ctxfuzz sweep FILE [--rule R] [--json] [--output OUT]`: apply the orphan sweep to one transcript.
//!
//! FILE holds a JSON array of pi messages, or the external-program request `{"messages": [...]}`.
//! Without `--json`: the kept messages, pretty-printed, on stdout, and one line on stderr saying
//! what was swept. With `--json`: exactly the external-program protocol line
//! `{"messages":[...],"swept":[...]}` (docs/sweep.md#the-protocol-line).
//!
//! An array is read twice, one message at a time, and never held whole: the first read decides
//! what is swept (and finds any error before a byte is written), the second writes the kept
//! messages as it reads them, borrowed from the text, so they come out as the file has them
//! (fields in its order) and a large transcript costs little more than its text. A protocol
//! request is read whole into `JsValue`s that borrow from the text.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};

use super::exit::ExitCode;
use crate::sweep::{BarrierRule, Sweeper, Swept, result_id, sweep, write_protocol_line};
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
    let swept = match decide(&args.file, &text, args.rule)? {
        Some(Decided { swept_at, swept }) => {
            let kept = KeptItems {
                path: &args.file,
                text: &text,
                swept_at: &swept_at,
            };
            write(&args, &kept, &swept)?;
            swept
        }
        None => {
            let document = io::parse_json_borrowed(&args.file, &text)?;
            let messages = io::messages_of(&args.file, &document)?;
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

/// What the sweep of a file's array decided, read one message at a time.
pub struct Decided {
    /// The positions of the swept results, in order.
    pub swept_at: Vec<usize>,
    /// Their ids as the sweep reports them.
    pub swept: Vec<String>,
}

/// The first read: the sweep's decisions for the array in `text`, or `None` when the document is
/// not an array (a protocol request, or an error [`io::messages_of`] names).
pub fn decide(path: &Path, text: &str, rule: BarrierRule) -> Result<Option<Decided>> {
    let mut sweeper = Sweeper::new(rule);
    let mut decided = Decided {
        swept_at: Vec::new(),
        swept: Vec::new(),
    };
    let mut index = 0;
    let is_array = io::for_each_item(path, text, |message| {
        if !sweeper.keeps(&message) {
            decided.swept_at.push(index);
            decided.swept.push(result_id(&message));
        }
        index += 1;
    })?;
    Ok(is_array.then_some(decided))
}

/// The second read: the messages of the array in `text` but those at `swept_at`, serialised as
/// they are read.
pub struct KeptItems<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    pub swept_at: &'a [usize],
}

impl Serialize for KeptItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let mut failed = None;
        let mut swept = self.swept_at.iter().peekable();
        let mut index = 0;
        io::for_each_item(self.path, self.text, |message| {
            if swept.next_if(|&&at| at == index).is_none() && failed.is_none() {
                failed = seq.serialize_element(&message).err();
            }
            index += 1;
        })
        .map_err(|e| S::Error::custom(format!("{e:#}")))?;
        match failed {
            Some(error) => Err(error),
            None => seq.end(),
        }
    }
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
