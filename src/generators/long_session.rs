//! Long, well-formed pi transcripts of any length, written straight to JSON text: the workload of
//! the scale benchmarks (`benches/check.rs`) and of `examples/long_transcript.rs`, which writes
//! one to a file for measuring the CLI (docs/figures.md). Deterministic from the seed; never
//! committed (a million messages are about 100 MB).
//!
//! Turns repeat the shape of a real agent session: a user prompt, an assistant with a short text
//! and one to three tool calls, one result per call; now and then an assistant ends the turn with
//! text alone. Every result answers the call before it, so `check` finds nothing and the cost
//! measured is the reading and the pipeline, not the report.

use std::io::{self, Write};

/// Writes a JSON array of `messages` pi messages (exactly that many) built from `seed`.
pub fn write(out: &mut impl Write, messages: usize, seed: u64) -> io::Result<()> {
    out.write_all(b"[")?;
    let mut separator = "";
    for_each_message(messages, seed, |message| {
        write!(out, "{separator}{message}")?;
        separator = ",\n";
        Ok(())
    })?;
    out.write_all(b"]\n")
}

/// Hands `each` the JSON text of `messages` pi messages (exactly that many) built from `seed`,
/// in order: the array [`write`] writes, or the message entries of a long session file
/// ([`super::session_file::write_long`]).
pub fn for_each_message(
    messages: usize,
    seed: u64,
    each: impl FnMut(std::fmt::Arguments<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut array = Messages {
        each,
        left: messages,
    };
    let mut turn = 0u64;
    while array.left > 0 {
        turn += 1;
        array.push(format_args!(
            r#"{{"role":"user","content":"step {turn}: keep going","timestamp":{turn}}}"#
        ))?;
        if rng.u8(..10) == 0 {
            array.push(format_args!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"done with step {turn}"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":{turn}}}"#
            ))?;
            continue;
        }
        let calls = rng.u8(1..=3);
        let content: String = (0..calls)
            .map(|call| {
                format!(
                    r#",{{"type":"toolCall","id":"toolu_{turn:07}_{call}","name":"bash","arguments":{{"command":"ls"}}}}"#
                )
            })
            .collect();
        array.push(format_args!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"running"}}{content}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":{turn}}}"#
        ))?;
        for call in 0..calls {
            array.push(format_args!(
                r#"{{"role":"toolResult","toolCallId":"toolu_{turn:07}_{call}","toolName":"bash","content":[{{"type":"text","text":"ok {}"}}],"isError":false,"timestamp":{turn}}}"#,
                rng.u32(..100_000)
            ))?;
        }
    }
    Ok(())
}

/// The messages being handed on: stops taking them once it has the number asked for.
struct Messages<F> {
    each: F,
    left: usize,
}

impl<F: FnMut(std::fmt::Arguments<'_>) -> io::Result<()>> Messages<F> {
    fn push(&mut self, message: std::fmt::Arguments<'_>) -> io::Result<()> {
        if self.left == 0 {
            return Ok(());
        }
        self.left -= 1;
        (self.each)(message)
    }
}

/// [`write`] into a string.
pub fn text(messages: usize, seed: u64) -> String {
    let mut out = Vec::with_capacity(messages * 160);
    write(&mut out, messages, seed).expect("writing to memory does not fail");
    String::from_utf8(out).expect("the generator writes UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_exactly_the_messages_asked_for_and_is_deterministic() {
        for n in [0, 1, 2, 7, 100] {
            let parsed: Vec<serde_json::Value> = serde_json::from_str(&text(n, 3)).unwrap();
            assert_eq!(parsed.len(), n);
        }
        assert_eq!(text(50, 1), text(50, 1));
        assert_ne!(text(50, 1), text(50, 2));
    }
}
