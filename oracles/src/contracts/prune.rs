//! The prune contract: `{"messages": [...]}` in, `{"messages": [...]}` out, in the program's
//! format. A pruner (the AI SDK's `pruneMessages`) removes what the contract names: tool calls,
//! tool results and reasoning, and messages that hold nothing else (left empty by that removal,
//! or empty already). It does not repair: it adds nothing, and damage the input already had may
//! stay. A user's, an assistant's or a system's text (and an image, anything the contract does
//! not name) is never lost.
//!
//! What the contract names, per format ([`removable_part`], [`removable_field`]): content parts
//! that are calls, results or reasoning (pi `toolCall`, `thinking`; Anthropic `tool_use`,
//! `tool_result`, `thinking`, `redacted_thinking`; Gemini `functionCall`, `functionResponse`, a
//! `thought` part; AI SDK `tool-call`, `tool-result`, the tool approval parts, `reasoning`;
//! LangChain `tool_call`, `tool_use`, `thinking`, `reasoning`), the fields that hold calls or
//! reasoning outside the content (chat completions' `tool_calls` and `reasoning_content`,
//! LangChain's `tool_calls`), and messages that are only results (a `tool` message, pi's
//! `toolResult`).
//!
//! Each invariant's promise is its constant's statement (what `ctxfuzz explain` and the docs show);
//! here is how each is judged.
//!
//! - [`ONLY_REMOVES`]: the notice (with `--marker`) is ONE message that is no input message and
//!   carries the marker ("Skipped N messages."), judged like a repair's synthetic result. It hides
//!   no loss: every input message missing around it must still be one the contract lets go, so a
//!   notice never stands in for a user's text.
//! - [`NO_NEW_WIRE_DAMAGE`]: the rules are [`crate::formats::wire`]'s; a call is never pruned
//!   without its result, nor a result without its call. Damage the input had may change its shape
//!   (two results for one call, apart in the input, side by side once an empty message between
//!   them is removed): it is not new. A notice is a message like any other here: between a call
//!   and its results it is damage. An empty message (Anthropic's `empty-content`) is damage of
//!   that message: one the input has may stay, one the removal emptied and kept is new.

use foldhash::HashSet;
use serde::Serialize;

use super::{MessageAt, carries_marker};
use crate::formats::{Entry, Format, wire};
use crate::invariants::{Invariant, Violation};
use crate::js::{Json, View, as_string};
use crate::js_value::JsValue;
use crate::wire::WireRule;

pub const ONLY_REMOVES: Invariant = Invariant {
    id: "prune-only-removes",
    statement: "every output message is an input message, in order, with calls, results or \
                reasoning removed and its other fields as they were; a missing input message held \
                nothing else; the only message added is one marked notice",
};
pub const NO_NEW_WIRE_DAMAGE: Invariant = Invariant {
    id: "prune-no-new-wire-damage",
    statement: "the output breaks no provider rule of its format for a call the input kept every \
                rule for (an empty message: but for one the input has; without a call id: no rule \
                the input kept)",
};

/// Every prune invariant.
pub const INVARIANTS: &[Invariant] = &[ONLY_REMOVES, NO_NEW_WIRE_DAMAGE];

/// A contract of a rewriter that only removes: what may go, and the ids its findings carry.
pub struct Removal {
    /// Whether whole messages of any kind may go (a trimmer, [`super::trim`]), or only calls,
    /// results and reasoning and the messages they leave empty (a pruner).
    pub(super) whole_messages: bool,
    pub(super) only_removes: Invariant,
    pub(super) no_new_wire_damage: Invariant,
}

/// The prune contract.
pub const PRUNE: Removal = Removal {
    whole_messages: false,
    only_removes: ONLY_REMOVES,
    no_new_wire_damage: NO_NEW_WIRE_DAMAGE,
};

impl Removal {
    /// Judges one removal: `output` as the program answered `input`; `marker` is the text the
    /// program's notice carries, if it adds one.
    pub fn check<J: Json + Clone + PartialEq + Serialize>(
        &self,
        format: Format,
        input: &[J],
        output: &[J],
        marker: Option<&str>,
    ) -> Vec<Violation> {
        let view = format.view(input);
        let may_go: Vec<bool> = view
            .iter()
            .map(|e| self.whole_messages || holds_nothing_kept(format, e))
            .collect();
        let mut found: Vec<Violation> =
            not_pruned(format, input, &may_go, output, marker, self.only_removes)
                .into_iter()
                .collect();
        let damaged = |v: &wire::WireViolation| match &v.id {
            Some(id) => Damage::Call(id.clone()),
            None => Damage::Rule(v.rule),
        };
        let broken = wire::validate(format, &view);
        let before: HashSet<Damage> = broken.iter().map(damaged).collect();
        // An empty message is damage of that message: one the input has empty may stay, one the
        // pruning emptied (and kept) is new.
        let empty_before: Vec<&J> = broken
            .iter()
            .filter(|v| v.rule == WireRule::EmptyContent)
            .map(|v| &input[v.message])
            .collect();
        for v in wire::validate(format, &format.view(output)) {
            let had = if v.rule == WireRule::EmptyContent {
                empty_before.contains(&&output[v.message])
            } else {
                before.contains(&damaged(&v))
            };
            if had {
                continue;
            }
            found.push(Violation::charged(
                self.no_new_wire_damage,
                format!("{}, which the input did not break", v.summary()),
                v.evidence(),
            ));
        }
        found
    }
}

/// What a wire violation damages: a call, by its id, or (no id) the rule's subject.
#[derive(PartialEq, Eq, Hash)]
enum Damage {
    Call(String),
    Rule(WireRule),
}

/// Where the output stops being the input pruned: an output message that is not the next input
/// message it could be (past only messages that may go) with what the contract names removed, and
/// not the one notice; or an input message the output lost that held more than that.
fn not_pruned<J: Json + PartialEq + Serialize>(
    format: Format,
    input: &[J],
    may_go: &[bool],
    output: &[J],
    marker: Option<&str>,
    invariant: Invariant,
) -> Option<Violation> {
    let violation =
        |summary: String, evidence: PruneEvidence| Violation::charged(invariant, summary, evidence);
    let owned = |message: &J| message.to_js().owned_copy();
    let mut notice = marker;
    let mut next = 0;
    for (at, message) in output.iter().enumerate() {
        let stop =
            (next..input.len()).find(|&i| pruned_from(format, &input[i], message) || !may_go[i]);
        match stop {
            Some(i) if pruned_from(format, &input[i], message) => next = i + 1,
            _ if notice.is_some_and(|marker| carries_marker(message, marker)) => notice = None,
            Some(i) => {
                return Some(violation(
                    format!(
                        "output message {at} is not input message {i} pruned, and input message \
                         {i} holds more than calls, results and reasoning (lost or changed)"
                    ),
                    PruneEvidence::NotPruned {
                        output_message: at,
                        value: owned(message),
                        input_message: i,
                        input: owned(&input[i]),
                    },
                ));
            }
            None => {
                return Some(violation(
                    format!(
                        "output message {at} is no later input message pruned (added, changed or out of order)"
                    ),
                    PruneEvidence::Added(MessageAt::output(at, message)),
                ));
            }
        }
    }
    let lost = (next..input.len()).find(|&i| !may_go[i])?;
    Some(violation(
        format!("input message {lost} holds more than calls, results and reasoning, and is lost"),
        PruneEvidence::Lost {
            input_message: lost,
            input: owned(&input[lost]),
        },
    ))
}

/// What a violation of a pruning contract's `only-removes` shows, one variant per way to break it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PruneEvidence {
    /// An output message that is not the input message it stands for pruned.
    NotPruned {
        output_message: usize,
        value: JsValue<'static>,
        input_message: usize,
        input: JsValue<'static>,
    },
    /// An output message that is no later input message pruned.
    Added(MessageAt),
    /// An input message that holds more than may go, and is lost.
    Lost {
        input_message: usize,
        input: JsValue<'static>,
    },
}

/// Whether the contract lets a pruner remove the message `entry` views whole: it is only results,
/// or what is left of it holds no content but calls and reasoning (an empty list, `""`, `null`).
/// A message without a content field holds something: pi's bash runs and summaries keep their
/// text in other fields; in every other format, the content field is where a message's text is.
fn holds_nothing_kept<J: Json + Clone>(format: Format, entry: &Entry<J>) -> bool {
    let Some(rest) = &entry.rest else {
        return true;
    };
    match rest.member(content_key(format)).map(Json::view) {
        None => format != Format::Pi,
        Some(View::Array(parts)) => parts.iter().all(|part| removable_part(format, part)),
        Some(content) => matches!(content, View::Null | View::String("")),
    }
}

/// The field that holds a message's content parts.
fn content_key(format: Format) -> &'static str {
    match format {
        Format::Gemini => "parts",
        _ => "content",
    }
}

/// Whether `part`, a content part of a message of `format`, is one the contract lets a pruner
/// remove: a tool call, a tool result or reasoning.
fn removable_part<J: Json>(format: Format, part: &J) -> bool {
    let kind = as_string(part.member("type")).unwrap_or("");
    match format {
        Format::Pi => matches!(kind, "toolCall" | "thinking"),
        Format::OpenAi => false,
        Format::Anthropic => matches!(
            kind,
            "tool_use" | "tool_result" | "thinking" | "redacted_thinking"
        ),
        Format::Gemini => {
            ["functionCall", "functionResponse"]
                .iter()
                .any(|key| part.member(key).is_some())
                || matches!(
                    part.member("thought").map(Json::view),
                    Some(View::Bool(true))
                )
        }
        Format::AiSdk => matches!(
            kind,
            "tool-call"
                | "tool-result"
                | "tool-approval-request"
                | "tool-approval-response"
                | "reasoning"
        ),
        Format::LangChain => matches!(kind, "tool_call" | "tool_use" | "thinking" | "reasoning"),
    }
}

/// Whether the field `key` of a message of `format` holds only calls or reasoning.
fn removable_field(format: Format, key: &str) -> bool {
    match format {
        Format::OpenAi => matches!(key, "tool_calls" | "reasoning_content"),
        Format::LangChain => key == "tool_calls",
        _ => false,
    }
}

/// Whether `pruned` is `original` with some of what the contract names removed (or unchanged):
/// removable content parts and removable fields (or items of them), every other field as it was.
fn pruned_from<J: Json + PartialEq>(format: Format, original: &J, pruned: &J) -> bool {
    let (View::Object, View::Object) = (original.view(), pruned.view()) else {
        return original == pruned;
    };
    let content = content_key(format);
    pruned
        .members()
        .all(|(key, _)| original.member(key).is_some())
        && original
            .members()
            .all(|(key, value)| match pruned.member(key) {
                Some(kept) if key == content => {
                    items_removed(value, kept, |part| removable_part(format, part))
                }
                Some(kept) if removable_field(format, key) => items_removed(value, kept, |_| true),
                Some(kept) => kept == value,
                None => removable_field(format, key),
            })
}

/// Whether `kept` is `value`, or (both lists) `value` with some items `removable` allows removed.
fn items_removed<J: Json + PartialEq>(value: &J, kept: &J, removable: impl Fn(&J) -> bool) -> bool {
    let (View::Array(items), View::Array(kept)) = (value.view(), kept.view()) else {
        return value == kept;
    };
    let mut items = items.iter();
    kept.iter().all(|part| {
        items
            .by_ref()
            .find(|&item| item == part || !removable(item))
            == Some(part)
    }) && items.all(removable)
}

#[cfg(test)]
mod tests;
