//! `ctxfuzz render FILE [--pi V] [--provider P] [--stage llm|transformed|body]`: what the provider
//! would see. `--provider` picks the catalog model pi sends to, and so the API whose body is
//! printed ([`Provider`]); `anthropic` by default.
//! `ctxfuzz render --batch [--pi V]`: the vectors protocol on stdin/stdout, one line per line.
//!
//! FILE holds a JSON array of pi messages (or `{"messages": [...]}`). The stage is printed as
//! pretty JSON on stdout; when pi itself would throw before that stage, the error is printed on
//! stderr and the exit code is 1 (a finding about the transcript, not bad input).
//!
//! `--batch` reads JSON lines (`{"messages", "model"?, "skipConvert"?, "anthropic"?}`) and answers
//! each with exactly the `output` shape of the reference vectors (see
//! `ctxfuzz_oracles::pi::write_vector_answer`, which writes it as it is built: a message's keys in
//! the order the line gave them); a line that is not valid JSON (or not UTF-8) gets
//! `{"error": ..., "stage": "input"}` and the batch goes on. Every answer is flushed at once, so
//! another program can drive it line by line.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Result, bail};
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::js_value;
use ctxfuzz_oracles::pi::{self, PiVersion, Provider};
use ctxfuzz_oracles::{js_string, json_text};
use serde::Serialize;
use serde_json::{Value, json};

use super::exit::ExitCode;
use crate::transcript::io;

/// Arguments of `ctxfuzz render`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// A JSON array of pi messages, or `{"messages": [...]}` (not with --batch).
    pub file: Option<PathBuf>,
    /// Read vector inputs as JSON lines on stdin and answer each on one line of stdout.
    #[arg(long, conflicts_with_all = ["file", "stage"])]
    pub batch: bool,
    /// pi version whose behaviour to model (any version; see `ctxfuzz_oracles::pi::PiVersion`).
    #[arg(long, default_value = "1.6.0", value_parser = PiVersion::from_version)]
    pub pi: PiVersion,
    /// The provider pi sends to (its catalog model picks the API): anthropic, openai, openrouter,
    /// groq, deepseek, google.
    #[arg(long, default_value_t, conflicts_with = "batch")]
    pub provider: Provider,
    /// Which stage to print: after convertToLlm, after transformMessages, or the request body.
    #[arg(long, value_enum)]
    pub stage: Option<StageArg>,
}

/// A stage of pi's pipeline, as `--stage` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum StageArg {
    Llm,
    Transformed,
    /// The request body (`anthropic`, its name when it was the only one, is kept).
    #[default]
    #[value(alias = "anthropic")]
    Body,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.batch {
        return batch(args.pi);
    }
    let Some(file) = &args.file else {
        bail!("render needs a FILE (or --batch to read vector inputs from stdin)");
    };
    let text = io::read_text(file)?;
    let document = io::parse_json(file, &text)?;
    let messages = io::messages_of(file, &document)?;
    io::refuse_other_formats(file, &text, messages, Format::Pi)?;
    let messages = js_value::borrow_all(messages);
    let (model, api, v) = (args.provider.model(), args.provider.api(), args.pi);
    // Written through `Value`s, which write every object's keys sorted.
    let stage = match args.stage.unwrap_or_default() {
        StageArg::Llm => pi::convert_to_llm(&messages, v).map(|llm| to_value(&llm)),
        StageArg::Transformed => pi::convert_to_llm(&messages, v)
            .and_then(|llm| pi::transform_messages(&llm, model, api, v).map(|out| to_value(&out))),
        StageArg::Body => pi::render(&messages, model, api, v)
            .and_then(|rendered| rendered.body(model, v).map(|body| to_value(&body))),
    };
    match stage {
        Ok(value) => {
            println!("{}", json_text::to_string_pretty(&value)?);
            Ok(ExitCode::Clean)
        }
        Err(thrown) => {
            eprintln!("{}: {thrown} (pi {})", file.display(), args.pi);
            Ok(ExitCode::Findings)
        }
    }
}

/// The batch protocol: one answer line per input line, until end of input.
fn batch(pi_version: PiVersion) -> Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    // Each answer is written into one buffer and handed to stdout whole: stdout is line-buffered,
    // and the serialiser's many small writes each searched for a newline (a fifth of the time).
    let mut text = Vec::new();
    for (index, line) in stdin.lock().split(b'\n').enumerate() {
        let line = line?;
        text.clear();
        match read_line(&line, index + 1) {
            Ok(line) => match json_text::parse_borrowed(&line) {
                Ok(input) => pi::write_vector_answer(&input, pi_version, &mut text)?,
                Err(e) => {
                    let error = format!("line {}: invalid JSON: {e}", index + 1);
                    json_text::to_writer(&mut text, &input_error(&error))?;
                }
            },
            Err(error) => json_text::to_writer(&mut text, &input_error(&error))?,
        }
        text.push(b'\n');
        stdout.write_all(&text)?;
        stdout.flush()?;
    }
    Ok(ExitCode::Clean)
}

fn to_value(output: &impl Serialize) -> Value {
    serde_json::to_value(output).expect("pi's output is plain JSON")
}

/// The answer to a line that is no input.
fn input_error(error: &str) -> Value {
    json!({"error": error, "stage": "input"})
}

/// A line's text, as JavaScript reads it ([`js_string::from_text`]).
fn read_line(line: &[u8], number: usize) -> std::result::Result<std::borrow::Cow<'_, str>, String> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("line {number}: invalid UTF-8 at byte {}", e.valid_up_to()))?;
    Ok(js_string::from_text(text))
}
