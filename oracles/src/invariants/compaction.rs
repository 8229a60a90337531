//! Invariants of a compaction (docs/compaction.md#invariants), judged from what went in, what came
//! out, what the summariser received and what the token tracker saw. Everything the compaction must
//! get right is re-stated here independently (message text, token estimate, call cycles, clipping,
//! state, preserved turns): this module never calls `ctxfuzz::compaction`.

mod reader;
mod summary;

use std::borrow::Borrow;

use serde::Serialize;

use super::{Invariant, Violation, same_message, same_messages};
use crate::js::{Json, View, as_string};
use reader::Reader;
use summary::{clip_bounded, items, render_items, state_retained, verbatim_block};

pub const BOUNDARY_VALID: Invariant = Invariant {
    id: "boundary-valid",
    statement: "the boundary is 0 only when no valid cut exists, never at a tool result, never inside an open call cycle (cycle-safe); 0 leaves transcript and tracker untouched",
};
pub const NO_NEW_ORPHANS: Invariant = Invariant {
    id: "compaction-no-new-orphans",
    statement: "every tool result the compaction keeps still answers a kept call",
};
pub const KEPT_SUFFIX: Invariant = Invariant {
    id: "kept-suffix-untouched",
    statement: "the kept messages come out exactly as they went in, behind one summary message carrying the composed text",
};
pub const SMALLER: Invariant = Invariant {
    id: "summary-smaller-than-region",
    statement: "the composed summary has fewer estimated tokens than the region it replaces",
};
pub const CLIP_BOUNDED: Invariant = Invariant {
    id: "clip-bounded",
    statement: "every tool-result body the summariser reads is at most clip_chars plus the marker; nothing else is changed",
};
pub const CAPS: Invariant = Invariant {
    id: "caps-respected",
    statement: "at most user_message_cap verbatim turns and the last state_command_cap commands are rendered",
};
pub const STATE_RETAINED: Invariant = Invariant {
    id: "state-retained",
    statement: "the summary carries the files written, commands run and tools used of the region",
};
pub const USER_TURNS: Invariant = Invariant {
    id: "user-turns-preserved",
    statement: "the region's most recent user turns (up to the cap) are carried verbatim, in order",
};
pub const ACROSS_ROUNDS: Invariant = Invariant {
    id: "user-turns-preserved-across-rounds",
    statement: "every summarised user turn survives later rounds (up to the cap), verbatim, in order",
};
pub const RESET_DELIVERED: Invariant = Invariant {
    id: "reset-implies-delivered",
    statement: "the tracker is reset only when the summary is delivered, then refilled once per kept message",
};
pub const INPUT_NOT_MUTATED: Invariant = Invariant {
    id: "input-not-mutated",
    statement: "the caller's transcript is unchanged",
};

/// Every compaction invariant.
pub const INVARIANTS: &[Invariant] = &[
    BOUNDARY_VALID,
    NO_NEW_ORPHANS,
    KEPT_SUFFIX,
    SMALLER,
    CLIP_BOUNDED,
    CAPS,
    STATE_RETAINED,
    USER_TURNS,
    ACROSS_ROUNDS,
    RESET_DELIVERED,
    INPUT_NOT_MUTATED,
];

/// Which transcript family, and the knobs the user configured (not the defect switches: a variant
/// is judged against the contract, never excused by its own configuration).
#[derive(Debug, Clone)]
pub struct Contract {
    pub pi: bool,
    pub cycle_safe: bool,
    pub user_message_cap: usize,
    pub clip_chars: usize,
    pub state_command_cap: usize,
    pub file_write_tools: Vec<String>,
    pub shell_tools: Vec<String>,
}

impl Contract {
    /// Reads `family` ("pi" or "chat") and the knobs of a compaction configuration as JSON;
    /// missing knobs take the reference's defaults.
    pub fn from_json<J: Json>(family: &str, config: &J) -> Contract {
        let number = |key: &str, default: usize| {
            config
                .member(key)
                .and_then(Json::as_u64)
                .map_or(default, |n| n as usize)
        };
        let names = |key: &str, default: &[&str]| match config.member(key).map(Json::view) {
            Some(View::Array(items)) => items
                .iter()
                .filter_map(|item| as_string(Some(item)))
                .map(str::to_lowercase)
                .collect(),
            _ => default.iter().map(|s| s.to_string()).collect(),
        };
        Contract {
            pi: family == "pi",
            cycle_safe: as_string(config.member("policy")).unwrap_or("cycle-safe") == "cycle-safe",
            user_message_cap: number("user_message_cap", 40),
            clip_chars: number("clip_chars", 400),
            state_command_cap: number("state_command_cap", 10),
            file_write_tools: names(
                "file_write_tools",
                &[
                    "write_file",
                    "edit_file",
                    "move_file",
                    "copy_file",
                    "create_directory",
                ],
            ),
            shell_tools: names(
                "shell_tools",
                &["bash", "shell", "execute_command", "run_command"],
            ),
        }
    }
}

/// One compaction call as observed from outside. Every list holds messages or references to them
/// (`M = &J`): a caller that chains compactions lends the messages it keeps instead of copying
/// them, and the comparisons below pass a message borrowed from the other side without reading it.
/// The messages are any [`Json`] (`serde_json::Value`, or a [`crate::js_value::JsValue`], whose
/// fields are found without a B-tree).
#[derive(Debug, Clone, Copy)]
pub struct Round<'a, M> {
    /// The transcript handed to the compaction, as it was before the call.
    pub input: &'a [M],
    /// The same transcript after the call.
    pub input_after: &'a [M],
    pub output: &'a [M],
    /// The first kept index when compacted; 0 when nothing was compacted.
    pub boundary: usize,
    /// What the boundary policy picked (the compaction may still have been skipped or failed).
    pub picked: usize,
    /// The composed summary ("" when not compacted).
    pub summary: &'a str,
    /// What the summariser received (empty when it was not called).
    pub summariser_input: &'a [M],
    /// The calls the compaction made to the token tracker in this round, in order.
    pub tracker_calls: &'a [TrackerCall],
}

/// A call to the token tracker, as far as the oracle reads it: a reset, or a kept message added
/// with its prompt tokens. A case file writes them `"reset"` and `{"add": {"prompt": n, ...}}`;
/// in a fuzz case they were built as `Value`s only to be read back here, 4% of a compaction case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackerCall {
    Reset,
    Add { prompt: u64 },
}

/// Judges a sequence of rounds (each round's input is the previous output plus new messages).
/// `J` is the message type; rounds of references name it (`judge::<JsValue, _>`), since a
/// reference also borrows as itself.
pub fn judge<J: Json + PartialEq, M: Borrow<J>>(
    contract: &Contract,
    rounds: &[Round<'_, M>],
) -> Vec<Violation> {
    let reader = Reader { pi: contract.pi };
    let mut found = Vec::new();
    let mut summarised_turns: Vec<String> = Vec::new();
    let mut compacted_rounds = 0;
    for (number, round) in rounds.iter().enumerate() {
        judge_round(contract, &reader, number, round, &mut found);
        if round.boundary > 0 {
            // The summary an earlier round wrote sits at index 0; its turns are already counted.
            let own = usize::from(compacted_rounds > 0);
            // A boundary past the end is a kept-suffix violation (reported), not a panic here.
            let region = round.input.get(own..round.boundary).unwrap_or_default();
            summarised_turns.extend(reader.turns(region));
            if compacted_rounds > 0 {
                across_rounds(contract, number, round, &summarised_turns, &mut found);
            }
            compacted_rounds += 1;
        }
    }
    found
}

fn judge_round<J: Json + PartialEq, M: Borrow<J>>(
    contract: &Contract,
    reader: &Reader,
    number: usize,
    round: &Round<'_, M>,
    found: &mut Vec<Violation>,
) {
    let mut report = |invariant: Invariant, summary: String, evidence| {
        found.push(Violation::charged(
            invariant,
            summary,
            CompactionEvidence {
                round: number,
                evidence,
            },
        ));
    };
    let input = round.input;
    let b = round.boundary;
    if !same_messages(round.input, round.input_after) {
        report(
            INPUT_NOT_MUTATED,
            "the compaction modified the caller's transcript".into(),
            RoundEvidence::Nothing {},
        );
    }

    // boundary-valid
    let inside = if contract.cycle_safe {
        reader.open_cycles(input)
    } else {
        vec![false; input.len() + 1]
    };
    let valid = |i: usize| {
        i >= 1 && i < input.len() && !reader.is_tool_result(input[i].borrow()) && !inside[i]
    };
    if round.picked == 0 {
        if let Some(cut) = (1..=input.len() / 2).rev().find(|&i| valid(i)) {
            report(
                BOUNDARY_VALID,
                format!("boundary 0 although index {cut} is a valid cut"),
                RoundEvidence::ValidCut { valid_cut: cut },
            );
        }
        if !round.tracker_calls.is_empty() || !same_messages(round.output, input) {
            report(
                BOUNDARY_VALID,
                "boundary 0 but the transcript or the tracker was touched".into(),
                RoundEvidence::TrackerCalled {
                    tracker_calls: round.tracker_calls.len(),
                },
            );
        }
    } else if !valid(round.picked) {
        let why = match input.get(round.picked).map(Borrow::borrow) {
            Some(m) if reader.is_tool_result(m) => "at a tool result",
            Some(_) => "inside an open call cycle",
            None => "past the end",
        };
        report(
            BOUNDARY_VALID,
            format!("boundary {} is {why}", round.picked),
            RoundEvidence::Boundary {
                boundary: round.picked,
            },
        );
    }

    // kept-suffix-untouched
    if b == 0 {
        if !same_messages(round.output, input) {
            report(
                KEPT_SUFFIX,
                "nothing was compacted but the transcript changed".into(),
                RoundEvidence::Nothing {},
            );
        }
    } else if b > input.len()
        || round.output.len() != input.len() - b + 1
        || !same_messages(&round.output[1..], &input[b..])
        || !reader.is_summary_carrying(round.output[0].borrow(), round.summary)
    {
        report(
            KEPT_SUFFIX,
            format!("the output is not one summary message followed by messages[{b}..]"),
            RoundEvidence::NotTheSuffix {
                boundary: b,
                output_len: round.output.len(),
                input_len: input.len(),
            },
        );
        return; // everything below reads the output positionally
    }

    // compaction-no-new-orphans
    if b > 0 {
        let before = reader.orphans(input);
        let after = reader.orphans(round.output);
        let new: Vec<usize> = (1..round.output.len())
            .filter(|&k| after[k] && !before[b + k - 1])
            .map(|k| b + k - 1)
            .collect();
        if !new.is_empty() {
            report(
                NO_NEW_ORPHANS,
                format!(
                    "{} kept tool result(s) lost their call to the summary",
                    new.len()
                ),
                RoundEvidence::Orphaned {
                    boundary: b,
                    orphaned_input_indices: new,
                },
            );
        }
    }

    // clip-bounded (whenever the summariser was called)
    if !round.summariser_input.is_empty() {
        clip_bounded(
            contract,
            reader,
            &input[..round.picked.min(input.len())],
            round.summariser_input,
            &mut report,
        );
    }

    if b == 0 {
        reset_delivered(reader, round, &mut report);
        return;
    }
    let region = &input[..b];

    // summary-smaller-than-region
    let summary_tokens = estimate(round.summary);
    let region_tokens: u64 = region
        .iter()
        .map(|m| estimate(&reader.text(m.borrow())))
        .sum();
    if summary_tokens >= region_tokens {
        report(
            SMALLER,
            format!("summary of {summary_tokens} token(s) replaces a region of {region_tokens}"),
            RoundEvidence::NotSmaller {
                summary_tokens,
                region_tokens,
            },
        );
    }

    // user-turns-preserved, caps-respected
    let block = verbatim_block(round.summary);
    let turns = reader.turns(region);
    let expected = render_items(&turns[turns.len().saturating_sub(contract.user_message_cap)..]);
    if !block.unwrap_or("").ends_with(&expected) {
        report(
            USER_TURNS,
            "the summary does not end with the region's most recent user turns, verbatim".into(),
            RoundEvidence::TurnsMissing {
                verbatim_block: block.map(str::to_string),
                expected,
            },
        );
    }
    let rendered = block.map_or(0, |b| items(b).len());
    if rendered > contract.user_message_cap {
        report(
            CAPS,
            format!(
                "{rendered} verbatim turns rendered, cap {}",
                contract.user_message_cap
            ),
            RoundEvidence::TurnsOverCap {
                rendered,
                cap: contract.user_message_cap,
            },
        );
    }

    // state-retained, caps-respected (commands)
    state_retained(contract, reader, region, round.summary, &mut report);
    reset_delivered(reader, round, &mut report);
}

fn across_rounds<M>(
    contract: &Contract,
    number: usize,
    round: &Round<'_, M>,
    turns: &[String],
    found: &mut Vec<Violation>,
) {
    let expected = render_items(&turns[turns.len().saturating_sub(contract.user_message_cap)..]);
    let block = verbatim_block(round.summary);
    if !block.unwrap_or("").ends_with(&expected) {
        found.push(Violation::charged(
            ACROSS_ROUNDS,
            "a user turn summarised in an earlier round is missing from the latest summary".into(),
            CompactionEvidence {
                round: number,
                evidence: RoundEvidence::TurnsMissing {
                    verbatim_block: block.map(str::to_string),
                    expected,
                },
            },
        ));
    }
}

fn reset_delivered<J: Json, M: Borrow<J>>(
    reader: &Reader,
    round: &Round<'_, M>,
    report: &mut impl FnMut(Invariant, String, RoundEvidence),
) {
    let resets = round
        .tracker_calls
        .iter()
        .filter(|&&call| call == TrackerCall::Reset)
        .count();
    if resets == 0 {
        return;
    }
    let delivered = round.boundary > 0 && !round.summary.is_empty();
    if !delivered || resets != 1 || round.tracker_calls.first() != Some(&TrackerCall::Reset) {
        report(
            RESET_DELIVERED,
            format!("the tracker was reset {resets} time(s) without a delivered summary"),
            RoundEvidence::Resets { resets, delivered },
        );
        return;
    }
    // The one reset is the first call, so every call after it is an `Add`.
    let refills: Vec<u64> = round.tracker_calls[1..]
        .iter()
        .filter_map(|&call| match call {
            TrackerCall::Add { prompt } => Some(prompt),
            TrackerCall::Reset => None,
        })
        .collect();
    let kept: Vec<u64> = round.input[round.boundary..]
        .iter()
        .map(|m| estimate(&reader.text(m.borrow())))
        .collect();
    if refills != kept {
        report(
            RESET_DELIVERED,
            format!(
                "refilled {} message(s) for {} kept",
                refills.len(),
                kept.len()
            ),
            RoundEvidence::Refills {
                refills: refills.len(),
                kept: kept.len(),
            },
        );
    }
}

/// What a violation of the compaction's invariants shows: the round (from 0) and what in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactionEvidence {
    pub round: usize,
    #[serde(flatten)]
    pub evidence: RoundEvidence,
}

/// What in one round breaks an invariant, one variant per way to break them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RoundEvidence {
    /// Nothing more than the summary says.
    Nothing {},
    /// Boundary 0 although this index is a valid cut.
    ValidCut { valid_cut: usize },
    /// Boundary 0, yet the tracker was called this many times.
    TrackerCalled { tracker_calls: usize },
    /// The boundary picked is no valid cut.
    Boundary { boundary: usize },
    /// The output is not one summary message and `messages[boundary..]`.
    NotTheSuffix {
        boundary: usize,
        output_len: usize,
        input_len: usize,
    },
    /// Kept results whose call went into the summary.
    Orphaned {
        boundary: usize,
        orphaned_input_indices: Vec<usize>,
    },
    /// The summariser received another number of messages than the region holds.
    ClipMiscounted { given: usize, region: usize },
    /// A message the summariser received changed although it is no tool result.
    Changed { index: usize },
    /// A tool result the summariser reads beyond the clip.
    OverClipped {
        index: usize,
        chars_read: usize,
        limit: usize,
        original_chars: usize,
    },
    /// The summary is no smaller than the region it replaces.
    NotSmaller {
        summary_tokens: u64,
        region_tokens: u64,
    },
    /// The verbatim turns the summary should end with, and the block it has.
    TurnsMissing {
        expected: String,
        verbatim_block: Option<String>,
    },
    /// More verbatim turns than the cap.
    TurnsOverCap { rendered: usize, cap: usize },
    /// Every command rendered where the cap shows fewer.
    CommandsOverCap { commands: usize, cap: usize },
    /// The retained state the summary lacks, and what it should hold.
    StateMissing {
        missing: Vec<String>,
        files_written: Vec<String>,
        commands: Vec<String>,
        tools_used: Vec<String>,
    },
    /// Tracker resets without one delivered summary.
    Resets { resets: usize, delivered: bool },
    /// The tracker refilled another number of messages than were kept.
    Refills { refills: usize, kept: usize },
}

/// `len // 4` in code points.
fn estimate(text: &str) -> u64 {
    (text.chars().count() / 4) as u64
}

#[cfg(test)]
mod tests;
