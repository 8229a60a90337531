//! The fields a format's messages always carry, as its bridge writes them: a call's id and name,
//! a result's id, a block's text. A transcript missing one is no transcript a real program sends
//! (an id-less call given an id-less synthetic result shows a different defect than the one a
//! minimiser started from), so [`super::Format::missing_field`] finds the first such gap.
//!
//! Each format is a table of rules: an object (at any depth) that a rule selects must have every
//! field the rule names (a dotted path reaches into nested objects). `content` that is `null` is
//! present (OpenAI writes it for an assistant that only calls tools). pi's rules are the fewest:
//! its generator writes messages without content on purpose, and entries that are no objects.

use std::fmt;

use crate::js::{Json, View};

use super::Format;

/// Which objects a rule applies to.
#[derive(Debug, Clone, Copy)]
enum Select {
    /// Objects whose string field `.0` is `.1` (a role, a block type).
    Is(&'static str, &'static str),
    /// Objects with a field `.0` (Gemini's parts have no type).
    Has(&'static str),
}

type Rule = (Select, &'static [&'static str]);

use Select::{Has, Is};

const PI: &[Rule] = &[
    (Is("role", "toolResult"), &["toolCallId", "toolName"]),
    (Is("type", "toolCall"), &["id", "name"]),
    (Is("type", "text"), &["text"]),
    (Is("type", "thinking"), &["thinking"]),
    (Is("type", "image"), &["data", "mimeType"]),
];

const OPENAI: &[Rule] = &[
    (Is("role", "system"), &["content"]),
    (Is("role", "user"), &["content"]),
    (Is("role", "assistant"), &["content"]),
    (Is("role", "tool"), &["tool_call_id", "content"]),
    (
        Is("type", "function"),
        &["id", "function.name", "function.arguments"],
    ),
    (Is("type", "text"), &["text"]),
    (Is("type", "image_url"), &["image_url.url"]),
];

const ANTHROPIC: &[Rule] = &[
    (Is("role", "user"), &["content"]),
    (Is("role", "assistant"), &["content"]),
    (Is("type", "text"), &["text"]),
    (Is("type", "thinking"), &["thinking", "signature"]),
    (Is("type", "image"), &["source.data", "source.media_type"]),
    (Is("type", "tool_use"), &["id", "name", "input"]),
    (Is("type", "tool_result"), &["tool_use_id", "content"]),
];

const GEMINI: &[Rule] = &[
    (Is("role", "user"), &["parts"]),
    (Is("role", "model"), &["parts"]),
    (
        Has("functionCall"),
        &["functionCall.name", "functionCall.args"],
    ),
    (
        Has("functionResponse"),
        &["functionResponse.name", "functionResponse.response"],
    ),
    (
        Has("inlineData"),
        &["inlineData.data", "inlineData.mimeType"],
    ),
];

const AI_SDK: &[Rule] = &[
    (Is("role", "system"), &["content"]),
    (Is("role", "user"), &["content"]),
    (Is("role", "assistant"), &["content"]),
    (Is("role", "tool"), &["content"]),
    // No rule for `text` parts: a result's `output` is `{"type": "text", "value"}`.
    (Is("type", "reasoning"), &["text"]),
    (Is("type", "image"), &["image"]),
    (
        Is("type", "tool-call"),
        &["toolCallId", "toolName", "input"],
    ),
    (
        Is("type", "tool-result"),
        &["toolCallId", "toolName", "output.type", "output.value"],
    ),
];

const LANGCHAIN: &[Rule] = &[
    (Is("type", "system"), &["content"]),
    (Is("type", "human"), &["content"]),
    (Is("type", "ai"), &["content"]),
    (Is("type", "tool"), &["tool_call_id", "content"]),
    (Is("type", "tool_call"), &["id", "name", "args"]),
    (Is("type", "text"), &["text"]),
    (Is("type", "thinking"), &["thinking"]),
    (Is("type", "image_url"), &["image_url.url"]),
];

/// A field a format's message always carries, missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingField {
    /// The index of the message it is missing in.
    pub message: usize,
    /// Its dotted path from the object that lacks it.
    pub field: &'static str,
}

impl fmt::Display for MissingField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "message {} lacks `{}`", self.message, self.field)
    }
}

/// The first field `format`'s messages always carry that `messages` lacks.
pub fn missing_field<J: Json>(format: Format, messages: &[J]) -> Option<MissingField> {
    let rules = match format {
        Format::Pi => PI,
        Format::OpenAi => OPENAI,
        Format::Anthropic => ANTHROPIC,
        Format::Gemini => GEMINI,
        Format::AiSdk => AI_SDK,
        Format::LangChain => LANGCHAIN,
    };
    messages.iter().enumerate().find_map(|(message, value)| {
        first_gap(rules, value).map(|field| MissingField { message, field })
    })
}

/// The first field a rule requires of `value` or of an object inside it that is not there.
fn first_gap<J: Json>(rules: &[Rule], value: &J) -> Option<&'static str> {
    match value.view() {
        View::Array(items) => items.iter().find_map(|item| first_gap(rules, item)),
        View::Object => rules
            .iter()
            .filter(|(select, _)| match *select {
                Is(key, kind) => {
                    matches!(value.member(key).map(Json::view), Some(View::String(s)) if s == kind)
                }
                Has(key) => value.member(key).is_some(),
            })
            .flat_map(|(_, fields)| fields.iter())
            .find(|field| !has_path(value, field))
            .copied()
            .or_else(|| value.members().find_map(|(_, item)| first_gap(rules, item))),
        _ => None,
    }
}

/// Whether the dotted `path` reaches a value (`null` included) from `value`.
fn has_path<J: Json>(value: &J, path: &str) -> bool {
    path.split('.')
        .try_fold(value, |value, key| value.member(key))
        .is_some()
}
