//! External sweeps (`--sut CMD`): programs speaking the sweep protocol, one JSON line each way:
//! `{"messages": [...]}` in, `{"messages": [...], "swept": [...]}` out (exactly what
//! `ctxfuzz sweep --json` prints), run by the [`Supervisor`].
//!
//! The supervisor turns a crash, a hang, output that is too large or not UTF-8, extra output, or
//! an answer that is not one JSON object of this protocol's shape ([`sweep_answer`]) into a
//! violation charged to the program (its fault ids, see [`super::supervisor`]). None is a harness
//! failure: the program is killed and the next case starts a fresh one. See
//! docs/external-programs.md.

use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::invariants::{Invariant, Judgement, Violation};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::profile::Profile;
use super::supervisor::{AnswerReader, Failure, Limits, Malformed, Supervisor, read_object};
use crate::error::Error;
use crate::sweep::{BarrierRule, Message, sweep};

pub const SUT_MATCHES_RUST: Invariant = Invariant {
    id: "sut-matches-rust",
    statement: "an external sweep sweeps exactly what ctxfuzz's own sweep does, under the same barrier rule",
};

pub struct External {
    supervisor: Supervisor,
}

impl External {
    /// The program `command` (run by `sh -c`) with the limits the profile sets
    /// ([`Limits::from_profile`]).
    pub fn from_profile(command: &str, profile: &Profile) -> External {
        External {
            supervisor: Supervisor::new(command, Limits::from_profile(profile)),
        }
    }

    /// Adds what rebuilds this program to a case file's profile.
    pub fn record_in(&self, profile: &mut Profile) {
        profile.sut = Some(self.supervisor.command().to_string());
        self.supervisor.limits().record_in(profile);
    }

    /// One sweep by the program: its kept messages and swept ids; otherwise the judgement of the
    /// case (the program's fault, or "cannot judge" when the wait was cut short).
    pub fn sweep(
        &self,
        messages: &[impl Serialize],
    ) -> Result<(Vec<Value>, Vec<String>), Judgement> {
        match self
            .supervisor
            .ask(&json!({ "messages": messages }), sweep_answer)
        {
            Ok(answer) => Ok(answer),
            Err(Failure::Fault(fault)) => Err(Judgement::Fail(vec![fault.violation()])),
            Err(Failure::Stopped(why)) => Err(Judgement::CannotJudge(why)),
        }
    }

    /// `sut-matches-rust`: the program's answer equals the Rust sweep's under `rule`.
    pub fn matches_rust<M: Message>(
        &self,
        input: &[M],
        output: &[M::Json],
        swept: &[String],
        rule: BarrierRule,
    ) -> Option<Violation> {
        let rust = sweep(input, rule);
        let rust_kept = rust.messages.refs();
        if rust_kept.iter().copied().eq(output) && rust.swept == swept {
            return None;
        }
        let summary = if rust.swept == swept {
            // The same results swept, yet other messages differ: say where.
            let at = rust_kept
                .iter()
                .zip(output)
                .position(|(rust, program)| *rust != program)
                .unwrap_or(rust_kept.len().min(output.len()));
            format!(
                "the program swept what the Rust `{rule}` sweep sweeps ({swept:?}) but its kept message {at} differs (changed, added or lost)"
            )
        } else {
            format!(
                "the program swept {swept:?} but the Rust `{rule}` sweep sweeps {:?}",
                rust.swept
            )
        };
        Some(Violation::charged(
            SUT_MATCHES_RUST,
            summary,
            json!({"rule": rule.name(), "program_swept": swept, "rust_swept": rust.swept,
                   "program_kept": output.len(), "rust_kept": rust_kept.len()}),
        ))
    }
}

/// The cargo-fuzz target `answer_reader`: any bytes a program could print, split into pipe reads
/// of a size the first byte picks, go through the [`AnswerReader`] (with a small limit, so the
/// size check is reached) and each line through the answer parser and the sweep answer's shape. Panics if a line comes
/// back that is not exactly the bytes before a newline, or a refusal is unfounded.
pub fn fuzz_answer_reader(bytes: &[u8]) {
    let Some((&split, printed)) = bytes.split_first() else {
        return;
    };
    let limit = 64;
    let mut reader = AnswerReader::new(limit);
    let mut rest = printed;
    for chunk in printed.chunks(usize::from(split).max(1)) {
        reader.push(chunk);
        while let Some(answer) = reader.next_answer() {
            let end = rest.iter().position(|&b| b == b'\n');
            match answer {
                Ok(line) => {
                    assert_eq!(Some(line.len()), end);
                    assert_eq!(line.as_bytes(), &rest[..line.len()]);
                    let _ = read_object(&line).and_then(sweep_answer);
                }
                Err(Malformed::NotUtf8 { valid_up_to }) => {
                    let line = &rest[..end.expect("a refused line ends in a newline")];
                    assert_eq!(
                        std::str::from_utf8(line).map_err(|e| e.valid_up_to()),
                        Err(valid_up_to)
                    );
                }
                Err(Malformed::TooLarge { bytes }) => {
                    assert!(bytes > limit && end.unwrap_or(rest.len()) > limit);
                    // The supervisor kills a program at this point: nothing after it is read.
                    return;
                }
            }
            rest = &rest[end.expect("a line ends in a newline") + 1..];
        }
    }
    assert_eq!(reader.pending(), rest);
}

/// The kept messages and swept ids of `{"messages": [...], "swept": [strings]}`, or what is
/// missing (the supervisor makes that a `sut-malformed-output` fault).
fn sweep_answer(mut answer: Map<String, Value>) -> Result<(Vec<Value>, Vec<String>), Error> {
    let Some(Value::Array(messages)) = answer.remove("messages") else {
        return Err(Error::AnswerLacks {
            field: "messages",
            array: true,
        });
    };
    let swept = match answer.get("swept") {
        Some(Value::Array(ids)) => ids
            .iter()
            .map(|id| id.as_str().map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or(Error::AnswerNotStrings("swept"))?,
        _ => {
            return Err(Error::AnswerLacks {
                field: "swept",
                array: true,
            });
        }
    };
    Ok((messages, swept))
}
