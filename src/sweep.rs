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

use std::fmt;
use std::io;
use std::ops::Range;

use ctxfuzz_oracles::error::{Named, UnknownName, unknown};
use ctxfuzz_oracles::js::{Json, View};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text;
use serde::{Serialize, Serializer};
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

use crate::transcript::js;

pub mod streamed;

/// Which messages between a call and its result close the open calls.
#[derive(Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
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

impl Named for BarrierRule {
    const KIND: &'static str = "barrier rule";
}

impl BarrierRule {
    /// Whether a message that is neither `assistant` nor `toolResult` closes the open calls.
    fn is_barrier(self, message: &impl Json) -> bool {
        match self {
            BarrierRule::None => false,
            BarrierRule::Allowlist => match role(message) {
                Some("user" | "custom" | "branchSummary" | "compactionSummary") => true,
                Some("bashExecution") => !js::truthy(message.member("excludeFromContext")),
                _ => false,
            },
            BarrierRule::AllOtherRoles | BarrierRule::Strict => true,
        }
    }

    /// Whether this assistant's tool calls become open.
    fn opens_calls(self, assistant: &impl Json) -> bool {
        self != BarrierRule::Strict
            || !matches!(string(assistant, "stopReason"), Some("error" | "aborted"))
    }
}

/// A message as the sweep reads it: the oracle's `JsValue` (what the fuzz targets build, and what
/// `ctxfuzz sweep` reads a file into, borrowed from its text: a fifth of the memory of a
/// `serde_json::Value`), or a reference to one.
pub trait Message {
    type Json: Json + Serialize + fmt::Debug + Clone + PartialEq;
    fn json(&self) -> &Self::Json;
}

impl<'t> Message for JsValue<'t> {
    type Json = JsValue<'t>;
    fn json(&self) -> &JsValue<'t> {
        self
    }
}

impl<M: Message> Message for &M {
    type Json = M::Json;
    fn json(&self) -> &M::Json {
        (**self).json()
    }
}

/// What the sweep kept and what it removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Swept<'a, M: Message> {
    pub messages: Kept<'a, M>,
    /// The `toolCallId` of every swept result, in encounter order (duplicates possible).
    pub swept: Vec<String>,
}

/// The messages a sweep kept, borrowed from its input (messages, or references to messages that
/// live elsewhere: a compaction's kept messages are swept without being copied).
#[derive(Debug, Clone, PartialEq)]
pub enum Kept<'a, M: Message> {
    /// Nothing was swept: the input itself.
    Input(&'a [M]),
    /// Some results were swept: the other messages, in order.
    Subset(Vec<&'a M::Json>),
}

impl<'a, M: Message> Kept<'a, M> {
    /// The kept messages, in order.
    pub fn refs(&self) -> Vec<&'a M::Json> {
        match self {
            Kept::Input(messages) => messages.iter().map(Message::json).collect(),
            Kept::Subset(messages) => messages.clone(),
        }
    }

    /// Whether this is `input` itself (the very slice, not an equal copy).
    pub fn is_input(&self, input: &[M]) -> bool {
        matches!(self, Kept::Input(kept) if std::ptr::eq(*kept, input))
    }
}

/// A JSON array of the kept messages.
impl<M: Message> Serialize for Kept<'_, M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Kept::Input(messages) => serializer.collect_seq(messages.iter().map(Message::json)),
            Kept::Subset(messages) => messages.serialize(serializer),
        }
    }
}

/// Sweeps the tool results that answer no open call. Never mutates `messages`; when nothing is
/// swept it returns `messages` itself, without allocating.
pub fn sweep<M: Message>(messages: &[M], rule: BarrierRule) -> Swept<'_, M> {
    let swept_at = swept_positions(messages, rule);
    if swept_at.is_empty() {
        return Swept {
            messages: Kept::Input(messages),
            swept: Vec::new(),
        };
    }
    let swept = swept_at
        .iter()
        .map(|&i| result_id(messages[i].json()))
        .collect();
    let mut kept = Vec::with_capacity(messages.len() - swept_at.len());
    let mut next_swept = swept_at.iter().peekable();
    for (index, message) in messages.iter().enumerate() {
        if next_swept.next_if(|&&at| at == index).is_none() {
            kept.push(message.json());
        }
    }
    Swept {
        messages: Kept::Subset(kept),
        swept,
    }
}

/// The ids [`sweep`] would sweep from `messages`, which may be a sweep's own [`Kept::refs`]: how
/// idempotence is checked without a copy.
pub fn swept_ids<M: Message>(messages: &[M], rule: BarrierRule) -> Vec<String> {
    swept_positions(messages, rule)
        .into_iter()
        .map(|i| result_id(messages[i].json()))
        .collect()
}

/// The positions of the results [`sweep`] sweeps, in order (the differential target compares
/// two rules by them: positions, unlike ids, tell duplicates apart).
pub fn swept_positions<M: Message>(messages: &[M], rule: BarrierRule) -> Vec<usize> {
    let mut sweeper = Sweeper::new(rule);
    messages
        .iter()
        .enumerate()
        .filter(|(_, message)| !sweeper.keeps(message.json()))
        .map(|(index, _)| index)
        .collect()
}

/// The sweep one message at a time, in order: what [`swept_positions`] runs over a slice, and
/// `ctxfuzz sweep` over a file's messages as they are read, keeping none of them.
pub struct Sweeper {
    rule: BarrierRule,
    open: OpenCalls,
}

impl Sweeper {
    pub fn new(rule: BarrierRule) -> Sweeper {
        Sweeper {
            rule,
            open: OpenCalls::default(),
        }
    }

    /// Whether `message`, the next one, is kept: false for a tool result that answers no open call.
    pub fn keeps(&mut self, message: &impl Json) -> bool {
        match role(message) {
            Some("assistant") => {
                self.open.clear();
                if self.rule.opens_calls(message) {
                    self.open.open(message);
                }
                true
            }
            Some("toolResult") => {
                string(message, "toolCallId").is_some_and(|id| self.open.consume(id))
            }
            _ if self.rule.is_barrier(message) => {
                self.open.clear();
                true
            }
            _ => true,
        }
    }
}

/// Writes the external-program protocol line (docs/sweep.md#the-protocol-line):
/// `{"messages":[...],"swept":[...]}`, one line, no trailing newline, from the kept messages (a
/// sweep's [`Kept`], or anything that serialises as their array) and the swept ids. `ctxfuzz
/// sweep --json` prints exactly this, written as it is serialised (a large transcript's line is
/// never held whole).
pub fn write_protocol_line(
    out: impl io::Write,
    messages: &impl Serialize,
    swept: &[String],
) -> io::Result<()> {
    #[derive(Serialize)]
    struct Line<'a, K> {
        messages: &'a K,
        swept: &'a [String],
    }
    json_text::to_writer(out, &Line { messages, swept }).map_err(io::Error::from)
}

/// The open call ids of the current assistant turn: sorted, de-duplicated (a call id repeated
/// inside one assistant is answered once), each with a "consumed" flag. Sorted so that a huge
/// multi-call turn stays O(log n) per result; reused across turns so one buffer serves the pass.
/// The ids are copied into one buffer that every turn reuses: `ctxfuzz sweep` drops each message
/// once it is read, and an allocation per id cost the sweep target a few percent.
#[derive(Default)]
struct OpenCalls {
    /// The open ids, one after another.
    text: String,
    /// Each open id's span of `text`, sorted by the id, and whether it was answered.
    ids: Vec<(Range<usize>, bool)>,
}

impl OpenCalls {
    fn clear(&mut self) {
        self.text.clear();
        self.ids.clear();
    }

    fn open(&mut self, assistant: &impl Json) {
        let Some(View::Array(blocks)) = assistant.member("content").map(Json::view) else {
            return;
        };
        let calls = blocks
            .iter()
            .filter(|block| string(*block, "type") == Some("toolCall"))
            .filter_map(|block| string(block, "id"));
        for id in calls {
            let start = self.text.len();
            self.text.push_str(id);
            self.ids.push((start..self.text.len(), false));
        }
        let text = &self.text;
        self.ids
            .sort_unstable_by(|(a, _), (b, _)| text[a.clone()].cmp(&text[b.clone()]));
        self.ids
            .dedup_by(|(a, _), (b, _)| text[a.clone()] == text[b.clone()]);
    }

    /// Consumes `id` if it is open; false if it was never opened or already answered.
    fn consume(&mut self, id: &str) -> bool {
        let text = &self.text;
        match self
            .ids
            .binary_search_by(|(open, _)| text[open.clone()].cmp(id))
        {
            Ok(at) if !self.ids[at].1 => {
                self.ids[at].1 = true;
                true
            }
            _ => false,
        }
    }
}

fn role(message: &impl Json) -> Option<&str> {
    string(message, "role")
}

/// `message[key]` when it is a string.
fn string<'v>(message: &'v impl Json, key: &str) -> Option<&'v str> {
    match message.member(key).map(Json::view) {
        Some(View::String(text)) => Some(text),
        _ => None,
    }
}

/// How a swept result's id is reported: the string itself, or the JSON text of a non-string id
/// (`null` when missing, as `JSON.stringify` writes an `undefined` array element).
pub fn result_id<J: Json + Serialize>(message: &J) -> String {
    match message.member("toolCallId") {
        Some(id) => match id.view() {
            View::String(id) => id.to_string(),
            _ => json_text::to_string(id).expect("JSON values always serialise"),
        },
        None => "null".to_string(),
    }
}

#[cfg(test)]
mod tests;
