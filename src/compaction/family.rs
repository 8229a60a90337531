//! The two transcript families the compaction reads: pi `AgentMessage`s and AutoBot's chat
//! messages (API schema `role/content/tool_calls` and stored schema `sender/text/messageType`).
//!
//! Everything here reads `serde_json::Value`s defensively: a non-object entry, a missing field or
//! a field of the wrong type reads as empty, never raises.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

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
    pub fn detect<'m>(messages: impl IntoIterator<Item = &'m Value>) -> Family {
        let pi = messages.into_iter().any(|m| {
            let role = str_field(m, "role");
            PI_ONLY_ROLES.contains(&role)
                || (role == "assistant"
                    && (m.get("stopReason").is_some_and(Value::is_string)
                        || blocks(m).iter().any(|b| is_block(b, "toolCall"))))
        });
        if pi { Family::Pi } else { Family::Chat }
    }

    /// AutoBot's `_role_of` for chat (`role`, else `sender`); pi's `role`. The methods that take a
    /// `role` take this, read once for every question asked of a message
    /// ([`crate::compaction::facts::Facts::read`]).
    pub fn role(self, message: &Value) -> &str {
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
    pub fn is_summary(self, role: &str, message: &Value) -> bool {
        match self {
            Family::Pi => role == "compactionSummary",
            Family::Chat => str_field(message, "messageType") == CHAT_SUMMARY_TYPE,
        }
    }

    /// The id a tool result answers (`toolCallId` / `tool_call_id`), if it is a string.
    pub fn result_id<'m>(self, role: &str, message: &'m Value) -> Option<&'m str> {
        if role != self.tool_role() {
            return None;
        }
        let key = match self {
            Family::Pi => "toolCallId",
            Family::Chat => "tool_call_id",
        };
        message.get(key)?.as_str()
    }

    /// The ids of the calls an assistant message opens, in order (non-string ids skipped).
    pub fn call_ids<'m>(self, role: &str, message: &'m Value) -> impl Iterator<Item = &'m str> {
        let calls = (role == "assistant").then(|| self.raw_calls(message));
        calls
            .into_iter()
            .flatten()
            .filter_map(|call| call.get("id")?.as_str())
    }

    /// Name and arguments of every tool call a message carries (AutoBot's `_tool_calls_of` and
    /// `_call_name_and_args`; pi's `toolCall` blocks). Malformed calls read as empty.
    pub fn tool_calls(self, message: &Value) -> Vec<(&str, Cow<'_, Map<String, Value>>)> {
        self.raw_calls(message)
            .map(|call| match self {
                Family::Pi => (
                    str_field(call, "name"),
                    arguments(call.get("arguments").unwrap_or(&Value::Null)),
                ),
                Family::Chat => {
                    let function = match call.get("function") {
                        Some(f @ Value::Object(_)) => f,
                        _ => call,
                    };
                    let raw = function
                        .get("arguments")
                        .or_else(|| function.get("args"))
                        .unwrap_or(&Value::Null);
                    (str_field(function, "name"), arguments(raw))
                }
            })
            .collect()
    }

    /// Whether `tool_calls` would return anything.
    pub fn has_tool_calls(self, message: &Value) -> bool {
        self.raw_calls(message).next().is_some()
    }

    fn raw_calls(self, message: &Value) -> impl Iterator<Item = &Value> {
        let calls: &[Value] = match self {
            Family::Pi => blocks(message),
            Family::Chat => message
                .get("tool_calls")
                .and_then(Value::as_array)
                .map_or(&[], Vec::as_slice),
        };
        calls.iter().filter(move |call| match self {
            Family::Pi => is_block(call, "toolCall"),
            Family::Chat => call.is_object(),
        })
    }

    /// The text a message contributes to token estimates and to the summariser (AutoBot's
    /// `_message_text`: list content → its text parts joined by a space; an empty or non-string
    /// content falls back to `text`). pi summaries read their `summary`.
    pub fn text<'m>(self, role: &str, message: &'m Value) -> Cow<'m, str> {
        if self == Family::Pi && matches!(role, "compactionSummary" | "branchSummary") {
            return Cow::Borrowed(str_field(message, "summary"));
        }
        message_text(message)
    }

    /// The message that replaces the summarised region.
    pub fn summary_message(self, text: &str, tokens_before: u64, last_summarised: &Value) -> Value {
        match self {
            Family::Pi => json!({
                "role": "compactionSummary",
                "summary": text,
                "tokensBefore": tokens_before,
                "timestamp": last_summarised.get("timestamp").filter(|t| t.is_number()).cloned().unwrap_or(json!(0)),
            }),
            Family::Chat => json!({
                "sender": "system",
                "text": text,
                "messageType": CHAT_SUMMARY_TYPE,
                "metadata": {"reason": "context_overflow_protection"},
            }),
        }
    }
}

/// AutoBot's `_message_text` (both families share it: pi content is a string or a list of parts).
/// Borrowed unless several text parts have to be joined.
pub fn message_text(message: &Value) -> Cow<'_, str> {
    match message.get("content") {
        Some(Value::Array(parts)) => {
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
        Some(Value::String(s)) if !s.is_empty() => return Cow::Borrowed(s),
        _ => {}
    }
    Cow::Borrowed(str_field(message, "text"))
}

/// AutoBot's `_text_parts`: the `text` of every `{type: "text", text: <string>}` part.
pub fn text_parts(parts: &[Value]) -> impl Iterator<Item = &str> {
    parts
        .iter()
        .filter(|p| is_block(p, "text"))
        .filter_map(|p| p.get("text")?.as_str())
}

/// A string field, or `""` when missing, not a string, or the message is not an object.
pub fn str_field<'a>(message: &'a Value, key: &str) -> &'a str {
    message.get(key).and_then(Value::as_str).unwrap_or("")
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn is_block(block: &Value, kind: &str) -> bool {
    block.get("type").and_then(Value::as_str) == Some(kind)
}

/// Tool-call arguments as an object: a JSON string is parsed; anything else reads as `{}`.
fn arguments(raw: &Value) -> Cow<'_, Map<String, Value>> {
    match raw {
        Value::Object(map) => Cow::Borrowed(map),
        Value::String(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => Cow::Owned(map),
            _ => Cow::Owned(Map::new()),
        },
        _ => Cow::Owned(Map::new()),
    }
}
