//! Writes a long, well-formed pi transcript (a JSON array) for measuring `ctxfuzz check`, `sweep`
//! and `compact` at scale (docs/figures.md):
//!
//!     cargo run --release --example long_transcript -- MESSAGES SEED > FILE
//!
//! With `session` after the seed, the same messages as a pi session file (version 3, with
//! branches and compactions: `generators::session_file::write_long`), for measuring `check` and
//! `scan` on session files: one million messages are about 300 MB.
use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(messages), Some(seed)) = (
        args.first().and_then(|a| a.parse().ok()),
        args.get(1).and_then(|a| a.parse().ok()),
    ) else {
        eprintln!("usage: long_transcript MESSAGES SEED [session] > FILE");
        return ExitCode::from(2);
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = match args.get(2).map(String::as_str) {
        Some("session") => ctxfuzz::generators::session_file::write_long(&mut out, messages, seed),
        _ => ctxfuzz::generators::long_session::write(&mut out, messages, seed),
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("long_transcript: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}
