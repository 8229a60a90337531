//! The orphan sweep's invariants (docs/sweep.md#invariants), and the twin: an independent
//! re-statement of each barrier rule, written from docs/sweep.md#barrier-rules. It shares no code
//! with the sweep it judges, and the oracle never calls that sweep: the caller hands in what the
//! sweep did (its output, its swept ids, whether it returned the input itself, what a second sweep
//! of the output swept).

use std::borrow::Borrow;

use foldhash::{HashSet, HashSetExt};
use serde::Serialize;

use super::{Invariant, Violation, same_message, write_name};
use crate::error::{Named, UnknownName, unknown};
use crate::js::{Json, View};
use crate::js_value::JsValue;
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

pub const ONLY_REMOVES: Invariant = Invariant {
    id: "sweep-only-removes",
    statement: "the output is the input minus some tool results, order kept, and `swept` names exactly the removed results",
};
pub const NOOP_IDENTITY: Invariant = Invariant {
    id: "sweep-noop-identity",
    statement: "nothing swept => the very input is returned; something swept => a new list",
};
pub const IDEMPOTENT: Invariant = Invariant {
    id: "sweep-idempotent",
    statement: "sweeping the output again sweeps nothing",
};
pub const MATCHES_TWIN: Invariant = Invariant {
    id: "sweep-matches-twin",
    statement: "the swept ids equal what the oracle's own statement of the barrier rule predicts",
};

/// Every sweep invariant.
pub const INVARIANTS: &[Invariant] = &[ONLY_REMOVES, NOOP_IDENTITY, IDEMPOTENT, MATCHES_TWIN];

/// The oracle's own statement of the barrier rules (docs/sweep.md#barrier-rules), by the same
/// names.
#[derive(Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TwinRule {
    /// Only an assistant message changes the open calls.
    None,
    /// Roles that pi's `convertToLlm` turns into `user` close the open calls, nothing else.
    Allowlist,
    /// Every role other than `assistant` and `toolResult` closes the open calls.
    AllOtherRoles,
    /// As `AllOtherRoles`, and an assistant that stopped with `error`/`aborted` has no open calls.
    Strict,
}

impl Named for TwinRule {
    const KIND: &'static str = "barrier rule";
}

impl TwinRule {
    /// The contract every sweep is judged against by default (docs/sweep.md#barrier-rules: default
    /// `strict`).
    pub const CONTRACT: TwinRule = TwinRule::Strict;
}

/// A message as the twin reads it: a `serde_json::Value`, or a [`crate::js_value::JsValue`] (the
/// sweep target's generated transcripts, read without a conversion).
pub trait Message: Json + Serialize + PartialEq {}

impl<J: Json + Serialize + PartialEq> Message for J {}

/// Everything a sweep did to one input, as the caller observed it.
#[derive(Debug, Clone, Copy)]
pub struct SweepRun<'a, J> {
    pub input: &'a [J],
    /// The messages the sweep kept (borrowed from `input` for the Rust sweep).
    pub output: &'a [&'a J],
    pub swept: &'a [String],
    /// The sweep handed back the input itself (the Rust sweep: the very input slice).
    pub returned_input: bool,
    /// What sweeping `output` again swept.
    pub second_swept: &'a [String],
    /// The rule the twin predicts with (normally [`TwinRule::CONTRACT`]).
    pub twin: TwinRule,
}

/// All four sweep invariants.
pub fn check<J: Message>(run: &SweepRun<'_, J>) -> Vec<Violation> {
    let mut violations = only_removes(run.input, run.output, run.swept);
    violations.extend(noop_identity(run.swept, run.returned_input));
    violations.extend(idempotent(run.second_swept));
    violations.extend(matches_twin(run.input, run.swept, run.twin));
    violations
}

/// `sweep-only-removes`: `output` is `input` with some tool results left out, in order, and
/// `swept` lists exactly the ids of the results left out, in encounter order.
pub fn only_removes<J: Message, M: Borrow<J>>(
    input: &[J],
    output: &[M],
    swept: &[String],
) -> Vec<Violation> {
    let mut next = 0;
    let mut removed = Vec::new();
    for (index, message) in input.iter().enumerate() {
        if output
            .get(next)
            .is_some_and(|kept| same_message(kept.borrow(), message))
        {
            next += 1;
        } else if role_of(message) == Some("toolResult") {
            removed.push(index);
        } else {
            return vec![Violation::charged(
                ONLY_REMOVES,
                format!(
                    "input message {index} (role {}) is missing or changed in the output",
                    describe_role(message)
                ),
                SweepEvidence::Changed {
                    input_index: index,
                    output_index: next,
                    input_message: message.to_js().owned_copy(),
                    output_message: output
                        .get(next)
                        .map(|kept| kept.borrow().to_js().owned_copy()),
                },
            )];
        }
    }
    if next < output.len() {
        return vec![Violation::charged(
            ONLY_REMOVES,
            format!("output message {next} is not in the input (added or reordered)"),
            SweepEvidence::Added {
                output_index: next,
                output_message: output[next].borrow().to_js().owned_copy(),
            },
        )];
    }
    let removed_ids: Vec<String> = removed.iter().map(|&i| reported_id(&input[i])).collect();
    if removed_ids != swept {
        return vec![Violation::charged(
            ONLY_REMOVES,
            format!(
                "removed {} tool result(s) but reported {} swept id(s)",
                removed.len(),
                swept.len()
            ),
            SweepEvidence::Miscounted {
                removed_indices: removed,
                removed_ids,
                swept: swept.to_vec(),
            },
        )];
    }
    Vec::new()
}

/// `sweep-noop-identity`.
pub fn noop_identity(swept: &[String], returned_input: bool) -> Vec<Violation> {
    match (swept.is_empty(), returned_input) {
        (true, false) => vec![Violation::charged(
            NOOP_IDENTITY,
            "nothing was swept, yet the sweep returned a copy instead of the input itself".into(),
            SweepEvidence::Identity {
                swept: swept.to_vec(),
                returned_input: false,
            },
        )],
        (false, true) => vec![Violation::charged(
            NOOP_IDENTITY,
            format!(
                "{} result(s) swept, yet the input itself was returned",
                swept.len()
            ),
            SweepEvidence::Identity {
                swept: swept.to_vec(),
                returned_input: true,
            },
        )],
        _ => Vec::new(),
    }
}

/// `sweep-idempotent`: `second_swept` is what sweeping the output again swept.
pub fn idempotent(second_swept: &[String]) -> Vec<Violation> {
    if second_swept.is_empty() {
        return Vec::new();
    }
    vec![Violation::charged(
        IDEMPOTENT,
        format!(
            "sweeping the output again swept {} more result(s)",
            second_swept.len()
        ),
        SweepEvidence::SweptAgain {
            second_swept: second_swept.to_vec(),
        },
    )]
}

/// `sweep-matches-twin`: the swept ids, in order, equal the twin's prediction under `rule`.
pub fn matches_twin<J: Message>(input: &[J], swept: &[String], rule: TwinRule) -> Vec<Violation> {
    let predicted_at = twin_sweep(input, rule);
    let predicted: Vec<String> = predicted_at
        .iter()
        .map(|&i| reported_id(&input[i]))
        .collect();
    if predicted == swept {
        return Vec::new();
    }
    let first_difference = predicted
        .iter()
        .zip(swept)
        .position(|(p, s)| p != s)
        .unwrap_or(predicted.len().min(swept.len()));
    vec![Violation::charged(
        MATCHES_TWIN,
        format!(
            "swept {:?} but the `{rule}` rule sweeps {:?}",
            swept, predicted
        ),
        SweepEvidence::NotTheTwin {
            rule,
            predicted,
            predicted_indices: predicted_at,
            swept: swept.to_vec(),
            first_difference,
        },
    )]
}

/// What a violation of the sweep's invariants shows, one variant per way to break them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SweepEvidence {
    /// An input message missing or changed in the output, and the output message in its place.
    Changed {
        input_index: usize,
        output_index: usize,
        input_message: JsValue<'static>,
        output_message: Option<JsValue<'static>>,
    },
    /// An output message that is not in the input.
    Added {
        output_index: usize,
        output_message: JsValue<'static>,
    },
    /// The results removed and the ids reported swept disagree.
    Miscounted {
        removed_indices: Vec<usize>,
        removed_ids: Vec<String>,
        swept: Vec<String>,
    },
    /// What was swept, and whether the input itself came back.
    Identity {
        swept: Vec<String>,
        returned_input: bool,
    },
    /// What sweeping the output again swept.
    SweptAgain { second_swept: Vec<String> },
    /// The twin's prediction under `rule` beside what was swept.
    NotTheTwin {
        #[serde(serialize_with = "write_name")]
        rule: TwinRule,
        predicted: Vec<String>,
        predicted_indices: Vec<usize>,
        swept: Vec<String>,
        first_difference: usize,
    },
}

/// The indices of the tool results `rule` removes from `input`.
///
/// A result stays only if its id (a string) was called by the latest assistant, has not been
/// answered since, and no closing message came in between.
pub fn twin_sweep<J: Json>(input: &[J], rule: TwinRule) -> Vec<usize> {
    let mut waiting: HashSet<&str> = HashSet::new();
    let mut orphans = Vec::new();
    for (index, message) in input.iter().enumerate() {
        let role = role_of(message);
        if role == Some("toolResult") {
            let id = string(message, "toolCallId");
            if !id.is_some_and(|id| waiting.remove(id)) {
                orphans.push(index);
            }
        } else if role == Some("assistant") {
            // One set, emptied and refilled for each assistant rather than a new one each.
            waiting.clear();
            if !has_no_live_calls(message, rule) {
                waiting.extend(call_ids(message));
            }
        } else if closes_calls(message, rule) {
            waiting.clear();
        }
    }
    orphans
}

fn has_no_live_calls(assistant: &impl Json, rule: TwinRule) -> bool {
    let stop = string(assistant, "stopReason");
    rule == TwinRule::Strict && (stop == Some("error") || stop == Some("aborted"))
}

fn call_ids<J: Json>(assistant: &J) -> impl Iterator<Item = &str> {
    let blocks = match assistant.member("content").map(Json::view) {
        Some(View::Array(blocks)) => blocks,
        _ => &[],
    };
    blocks
        .iter()
        .filter_map(|block| match string(block, "type") {
            Some("toolCall") => string(block, "id"),
            _ => None,
        })
}

/// Whether a message that is neither an assistant nor a tool result closes the open calls.
fn closes_calls(message: &impl Json, rule: TwinRule) -> bool {
    match rule {
        TwinRule::None => false,
        TwinRule::AllOtherRoles | TwinRule::Strict => true,
        TwinRule::Allowlist => {
            let role = role_of(message).unwrap_or("");
            ["user", "custom", "branchSummary", "compactionSummary"].contains(&role)
                || (role == "bashExecution" && !excluded_from_context(message))
        }
    }
}

/// pi's `if (m.excludeFromContext)`: JavaScript truthiness.
fn excluded_from_context(message: &impl Json) -> bool {
    match message.member("excludeFromContext").map(Json::view) {
        Some(View::Bool(flag)) => flag,
        Some(View::Number(n)) => n != 0.0 && !n.is_nan(),
        Some(View::String(text)) => !text.is_empty(),
        Some(View::Array(_) | View::Object) => true,
        Some(View::Null) | None => false,
    }
}

/// `message[key]` when it is a string.
fn string<'v>(message: &'v impl Json, key: &str) -> Option<&'v str> {
    match message.member(key).map(Json::view) {
        Some(View::String(text)) => Some(text),
        _ => None,
    }
}

fn role_of(message: &impl Json) -> Option<&str> {
    string(message, "role")
}

fn describe_role(message: &impl Json) -> String {
    role_of(message).map_or_else(|| "none".to_string(), str::to_string)
}

/// A swept result's id as a sweep reports it: the string, else the JSON text (`null` if missing).
fn reported_id<J: Message>(result: &J) -> String {
    match result.member("toolCallId") {
        Some(id) => match id.view() {
            View::String(id) => id.to_string(),
            _ => serde_json::to_string(id).expect("a JSON value always serialises"),
        },
        None => String::from("null"),
    }
}

#[cfg(test)]
mod tests;
