//! The orphan sweep (pi-condense `sweepOrphanToolResults`) and its barrier rules.
//!
//! One forward pass with a set of open call ids: an `assistant` replaces the set with its own call
//! ids, a `toolResult` consumes its id if it is open and is swept otherwise, and every other message
//! is a barrier or not depending on the [`BarrierRule`]. When nothing is swept the input itself comes
//! back ([`Kept::Input`]): callers that forward "the same array" to the provider keep a byte-stable
//! prompt prefix, and the no-op path copies nothing. Otherwise the kept messages are borrowed from
//! the input ([`Kept::Subset`]), never copied: the sweep target sweeps twice a case, and the copies
//! were a sixth of its time.
//!
//! Malformed input never panics. Decisions where the JavaScript would do something else:
//! - a non-array `content` (pi-condense throws on a string) opens no calls;
//! - only string ids count: a `toolCall` without a string `id` opens nothing, and a `toolResult`
//!   without a string `toolCallId` is always swept (reported by its JSON text, `null` if missing);
//! - a message that is not an object, or has no string `role`, is an "other role" message.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::transcript::js;

/// Which messages between a call and its result close the open calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BarrierRule {
    /// Before the gh-11 fix: other roles pass through silently (the duplicate-id brick).
    None,
    /// Only the roles pi's `convertToLlm` maps to `user`: the design the fix rejects.
    Allowlist,
    /// The gh-11 fix (pi-condense compatibility): every role but `assistant`/`toolResult`.
    AllOtherRoles,
    /// The fix, plus an `error`/`aborted` assistant opens no calls (pi drops that assistant).
    #[default]
    Strict,
}

impl BarrierRule {
    pub const ALL: [BarrierRule; 4] = [
        BarrierRule::None,
        BarrierRule::Allowlist,
        BarrierRule::AllOtherRoles,
        BarrierRule::Strict,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BarrierRule::None => "none",
            BarrierRule::Allowlist => "allowlist",
            BarrierRule::AllOtherRoles => "all-other-roles",
            BarrierRule::Strict => "strict",
        }
    }

    /// Whether a message that is neither `assistant` nor `toolResult` closes the open calls.
    fn is_barrier(self, message: &Value) -> bool {
        match self {
            BarrierRule::None => false,
            BarrierRule::Allowlist => match role(message) {
                Some("user" | "custom" | "branchSummary" | "compactionSummary") => true,
                Some("bashExecution") => !js::truthy(message.get("excludeFromContext")),
                _ => false,
            },
            BarrierRule::AllOtherRoles | BarrierRule::Strict => true,
        }
    }

    /// Whether this assistant's tool calls become open.
    fn opens_calls(self, assistant: &Value) -> bool {
        self != BarrierRule::Strict
            || !matches!(
                assistant.get("stopReason").and_then(Value::as_str),
                Some("error" | "aborted")
            )
    }
}

impl fmt::Display for BarrierRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BarrierRule {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        BarrierRule::ALL
            .into_iter()
            .find(|rule| rule.name() == text)
            .ok_or_else(|| {
                format!("unknown barrier rule `{text}` (expected none, allowlist, all-other-roles or strict)")
            })
    }
}

/// What the sweep kept and what it removed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(bound = "M: Borrow<Value>")]
pub struct Swept<'a, M = Value> {
    pub messages: Kept<'a, M>,
    /// The `toolCallId` of every swept result, in encounter order (duplicates possible).
    pub swept: Vec<String>,
}

/// The messages a sweep kept, borrowed from its input (messages, or references to messages that
/// live elsewhere: a compaction's kept messages are swept without being copied).
#[derive(Debug, Clone, PartialEq)]
pub enum Kept<'a, M = Value> {
    /// Nothing was swept: the input itself.
    Input(&'a [M]),
    /// Some results were swept: the other messages, in order.
    Subset(Vec<&'a Value>),
}

impl<'a, M: Borrow<Value>> Kept<'a, M> {
    /// The kept messages, in order.
    pub fn refs(&self) -> Vec<&'a Value> {
        match self {
            Kept::Input(messages) => messages.iter().map(Borrow::borrow).collect(),
            Kept::Subset(messages) => messages.clone(),
        }
    }

    /// Whether this is `input` itself (the very slice, not an equal copy).
    pub fn is_input(&self, input: &[M]) -> bool {
        matches!(self, Kept::Input(kept) if std::ptr::eq(*kept, input))
    }
}

/// A JSON array of the kept messages.
impl<M: Borrow<Value>> Serialize for Kept<'_, M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Kept::Input(messages) => serializer.collect_seq(messages.iter().map(Borrow::borrow)),
            Kept::Subset(messages) => messages.serialize(serializer),
        }
    }
}

/// Sweeps the tool results that answer no open call. Never mutates `messages`; when nothing is
/// swept it returns `messages` itself, without allocating.
pub fn sweep<M: Borrow<Value>>(messages: &[M], rule: BarrierRule) -> Swept<'_, M> {
    let swept_at = swept_positions(messages, rule);
    if swept_at.is_empty() {
        return Swept {
            messages: Kept::Input(messages),
            swept: Vec::new(),
        };
    }
    let swept = swept_at
        .iter()
        .map(|&i| result_id(messages[i].borrow()))
        .collect();
    let mut kept = Vec::with_capacity(messages.len() - swept_at.len());
    let mut next_swept = swept_at.iter().peekable();
    for (index, message) in messages.iter().enumerate() {
        if next_swept.next_if(|&&at| at == index).is_none() {
            kept.push(message.borrow());
        }
    }
    Swept {
        messages: Kept::Subset(kept),
        swept,
    }
}

/// The ids [`sweep`] would sweep from `messages`, which may be a sweep's own [`Kept::refs`]: how
/// idempotence is checked without a copy.
pub fn swept_ids<M: Borrow<Value>>(messages: &[M], rule: BarrierRule) -> Vec<String> {
    swept_positions(messages, rule)
        .into_iter()
        .map(|i| result_id(messages[i].borrow()))
        .collect()
}

/// The positions of the results [`sweep`] sweeps, in order (the differential target compares
/// two rules by them: positions, unlike ids, tell duplicates apart).
pub fn swept_positions<M: Borrow<Value>>(messages: &[M], rule: BarrierRule) -> Vec<usize> {
    let mut open = OpenCalls::default();
    let mut swept_at = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let message = message.borrow();
        match role(message) {
            Some("assistant") => {
                open.clear();
                if rule.opens_calls(message) {
                    open.open(message);
                }
            }
            Some("toolResult") => {
                let answered = message
                    .get("toolCallId")
                    .and_then(Value::as_str)
                    .is_some_and(|id| open.consume(id));
                if !answered {
                    swept_at.push(index);
                }
            }
            _ if rule.is_barrier(message) => open.clear(),
            _ => {}
        }
    }
    swept_at
}

/// The external-program protocol line (docs/sweep.md#the-protocol-line):
/// `{"messages":[...],"swept":[...]}`, one line, no trailing newline. `ctxfuzz sweep --json` prints
/// exactly this.
pub fn protocol_line(result: &Swept<'_>) -> String {
    serde_json::to_string(result).expect("JSON values and strings always serialise")
}

/// The open call ids of the current assistant turn: sorted, de-duplicated (a call id repeated
/// inside one assistant is answered once), each with a "consumed" flag. Sorted so that a huge
/// multi-call turn stays O(log n) per result; reused across turns so one buffer serves the pass.
#[derive(Default)]
struct OpenCalls<'a> {
    ids: Vec<(&'a str, bool)>,
}

impl<'a> OpenCalls<'a> {
    fn clear(&mut self) {
        self.ids.clear();
    }

    fn open(&mut self, assistant: &'a Value) {
        let Some(blocks) = assistant.get("content").and_then(Value::as_array) else {
            return;
        };
        let calls = blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("toolCall"))
            .filter_map(|block| block.get("id").and_then(Value::as_str));
        self.ids.extend(calls.map(|id| (id, false)));
        self.ids.sort_unstable();
        self.ids.dedup_by_key(|(id, _)| *id);
    }

    /// Consumes `id` if it is open; false if it was never opened or already answered.
    fn consume(&mut self, id: &str) -> bool {
        match self.ids.binary_search_by(|(open, _)| (*open).cmp(id)) {
            Ok(at) if !self.ids[at].1 => {
                self.ids[at].1 = true;
                true
            }
            _ => false,
        }
    }
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// How a swept result's id is reported: the string itself, or the JSON text of a non-string id
/// (`null` when missing, as `JSON.stringify` writes an `undefined` array element).
fn result_id(message: &Value) -> String {
    match message.get("toolCallId") {
        Some(Value::String(id)) => id.clone(),
        Some(other) => other.to_string(),
        None => "null".to_string(),
    }
}

#[cfg(test)]
mod tests;
