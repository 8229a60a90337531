//! The two transcript families the compaction reads: pi `AgentMessage`s and AutoBot's chat
//! messages (API schema `role/content/tool_calls` and stored schema `sender/text/messageType`).
//!
//! Everything here reads messages ([`Message`]) defensively: a non-object
//! entry, a missing field or a field of the wrong type reads as empty, never raises.

use std::borrow::Cow;

use ctxfuzz_oracles::js::{Json, View};
use serde::{Deserialize, Serialize};

use super::Message;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    Pi,
    Chat,
}

/// The `messageType` of a stored chat summary, as production persists it.
pub const CHAT_SUMMARY_TYPE: &str = "context_summary";

/// pi roles that only exist in pi transcripts: their presence decides the family.
const PI_ONLY_ROLES: &[&str] = &[
    "toolResult",
    "compactionSummary",
    "branchSummary",
    "custom",
    "bashExecution",
];

impl Family {
    /// pi if any message has a pi-only role, or an assistant carries a `toolCall` block or pi's
    /// `stopReason` (every pi assistant message has one; chat messages never do), else chat.
    pub fn detect<'m, J: Message + 'm>(messages: impl IntoIterator<Item = &'m J>) -> Family {
        let pi = messages.into_iter().any(|m| {
            let role = str_field(m, "role");
            PI_ONLY_ROLES.contains(&role)
                || (role == "assistant"
                    && (m
                        .member("stopReason")
                        .is_some_and(|r| matches!(r.view(), View::String(_)))
                        || blocks(m).iter().any(|b| is_block(b, "toolCall"))))
        });
        if pi { Family::Pi } else { Family::Chat }
    }

    /// AutoBot's `_role_of` for chat (`role`, else `sender`); pi's `role`. The methods that take a
    /// `role` take this, read once for every question asked of a message
    /// ([`crate::compaction::facts::Facts::read`]).
    pub fn role(self, message: &impl Message) -> &str {
        match self {
            Family::Pi => str_field(message, "role"),
            Family::Chat => match str_field(message, "role") {
                "" => str_field(message, "sender"),
                role => role,
            },
        }
    }

    pub fn tool_role(self) -> &'static str {
        match self {
            Family::Pi => "toolResult",
            Family::Chat => "tool",
        }
    }

    /// Whether the message is a summary this compaction (or an earlier one) wrote.
    pub fn is_summary(self, role: &str, message: &impl Message) -> bool {
        match self {
            Family::Pi => role == "compactionSummary",
            Family::Chat => str_field(message, "messageType") == CHAT_SUMMARY_TYPE,
        }
    }

    /// The id a tool result answers (`toolCallId` / `tool_call_id`), if it is a string.
    pub fn result_id<'m>(self, role: &str, message: &'m impl Message) -> Option<&'m str> {
        if role != self.tool_role() {
            return None;
        }
        let key = match self {
            Family::Pi => "toolCallId",
            Family::Chat => "tool_call_id",
        };
        as_str(message.member(key)?)
    }

    /// The ids of the calls an assistant message opens, in order (non-string ids skipped).
    pub fn call_ids<'m, J: Message>(
        self,
        role: &str,
        message: &'m J,
    ) -> impl Iterator<Item = &'m str> + use<'m, J> {
        let calls = (role == "assistant").then(|| self.raw_calls(message));
        calls
            .into_iter()
            .flatten()
            .filter_map(|call| as_str(call.member("id")?))
    }

    /// Name and arguments of every tool call a message carries (AutoBot's `_tool_calls_of` and
    /// `_call_name_and_args`; pi's `toolCall` blocks). Malformed calls read as empty, and the
    /// arguments are always an object.
    pub fn tool_calls<J: Message>(self, message: &J) -> Vec<(&str, Cow<'_, J>)> {
        self.raw_calls(message)
            .map(|call| match self {
                Family::Pi => (str_field(call, "name"), arguments(call.member("arguments"))),
                Family::Chat => {
                    let function = match call.member("function") {
                        Some(f) if is_object(f) => f,
                        _ => call,
                    };
                    let raw = function
                        .member("arguments")
                        .or_else(|| function.member("args"));
                    (str_field(function, "name"), arguments(raw))
                }
            })
            .collect()
    }

    /// Whether `tool_calls` would return anything.
    pub fn has_tool_calls(self, message: &impl Message) -> bool {
        self.raw_calls(message).next().is_some()
    }

    fn raw_calls<J: Message>(self, message: &J) -> impl Iterator<Item = &J> {
        let calls: &[J] = match self {
            Family::Pi => blocks(message),
            Family::Chat => array_field(message, "tool_calls"),
        };
        calls.iter().filter(move |call| match self {
            Family::Pi => is_block(*call, "toolCall"),
            Family::Chat => is_object(*call),
        })
    }

    /// The text a message contributes to token estimates and to the summariser (AutoBot's
    /// `_message_text`: list content → its text parts joined by a space; an empty or non-string
    /// content falls back to `text`). pi summaries read their `summary`.
    pub fn text<'m>(self, role: &str, message: &'m impl Message) -> Cow<'m, str> {
        if self == Family::Pi && matches!(role, "compactionSummary" | "branchSummary") {
            return Cow::Borrowed(str_field(message, "summary"));
        }
        message_text(message)
    }

    /// The message that replaces the summarised region; `timestamp` is the last summarised
    /// message's ([`timestamp`]).
    pub fn summary_message<J: Message>(
        self,
        text: &str,
        tokens_before: u64,
        timestamp: Option<J>,
    ) -> J {
        match self {
            Family::Pi => J::object(vec![
                ("role", J::text("compactionSummary")),
                ("summary", J::string(text.to_string())),
                ("tokensBefore", J::number(tokens_before)),
                ("timestamp", timestamp.unwrap_or_else(|| J::number(0))),
            ]),
            Family::Chat => J::object(vec![
                ("sender", J::text("system")),
                ("text", J::string(text.to_string())),
                ("messageType", J::text(CHAT_SUMMARY_TYPE)),
                (
                    "metadata",
                    J::object(vec![("reason", J::text("context_overflow_protection"))]),
                ),
            ]),
        }
    }
}

/// A message's `timestamp` when it is a number: what a pi summary takes from the last message it
/// replaces.
pub fn timestamp<J: Message>(message: &J) -> Option<J> {
    message
        .member("timestamp")
        .filter(|t| matches!(t.view(), View::Number(_)))
        .cloned()
}

/// AutoBot's `_message_text` (both families share it: pi content is a string or a list of parts).
/// Borrowed unless several text parts have to be joined.
pub fn message_text(message: &impl Message) -> Cow<'_, str> {
    match message.member("content").map(Json::view) {
        Some(View::Array(parts)) => {
            let mut texts = text_parts(parts);
            let joined = match (texts.next(), texts.next()) {
                (None, _) => Cow::Borrowed(""),
                (Some(only), None) => Cow::Borrowed(only),
                (Some(first), Some(second)) => {
                    let rest: Vec<&str> = [first, second].into_iter().chain(texts).collect();
                    Cow::Owned(rest.join(" "))
                }
            };
            if !joined.is_empty() {
                return joined;
            }
        }
        Some(View::String(s)) if !s.is_empty() => return Cow::Borrowed(s),
        _ => {}
    }
    Cow::Borrowed(str_field(message, "text"))
}

/// AutoBot's `_text_parts`: the `text` of every `{type: "text", text: <string>}` part.
pub fn text_parts<J: Message>(parts: &[J]) -> impl Iterator<Item = &str> {
    parts
        .iter()
        .filter(|p| is_block(*p, "text"))
        .filter_map(|p| as_str(p.member("text")?))
}

/// A string field, or `""` when missing, not a string, or the message is not an object.
pub fn str_field<'a>(message: &'a impl Message, key: &str) -> &'a str {
    message.member(key).and_then(as_str).unwrap_or("")
}

fn as_str(value: &impl Message) -> Option<&str> {
    match value.view() {
        View::String(s) => Some(s),
        _ => None,
    }
}

fn is_object(value: &impl Message) -> bool {
    matches!(value.view(), View::Object)
}

/// An array field, or no items when missing or not an array.
fn array_field<'a, J: Message>(message: &'a J, key: &str) -> &'a [J] {
    match message.member(key).map(Json::view) {
        Some(View::Array(items)) => items,
        _ => &[],
    }
}

fn blocks<J: Message>(message: &J) -> &[J] {
    array_field(message, "content")
}

fn is_block(block: &impl Message, kind: &str) -> bool {
    block.member("type").and_then(as_str) == Some(kind)
}

/// Tool-call arguments as an object: a JSON string is parsed; anything else reads as `{}`.
fn arguments<J: Message>(raw: Option<&J>) -> Cow<'_, J> {
    match raw.map(|raw| (raw, raw.view())) {
        Some((object, View::Object)) => Cow::Borrowed(object),
        Some((_, View::String(text))) => {
            Cow::Owned(J::parse_object(text).unwrap_or_else(|| J::object(Vec::new())))
        }
        _ => Cow::Owned(J::object(Vec::new())),
    }
}
