//! Which of the shapes real programs write (docs/contracts.md#shapes-the-generators-write) a
//! transcript in one of the contract formats has, read from the transcript itself through the
//! format's reader. The pi shapes of docs/fuzzing.md#shapes are [`super::shapes`]; these are the
//! ones a program in another format meets: empty and whitespace-only texts, an assistant that only
//! calls tools written with `null` or `""` content, optional fields left out, non-ASCII ids and a
//! leading system message.

use std::collections::BTreeSet;
use std::fmt;

use ctxfuzz_oracles::formats::{Format, Role};
use ctxfuzz_oracles::js::{Json, View, as_string};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FormatShape {
    /// A text that is `""` (a text part, a string content, a tool's output).
    EmptyText,
    /// A text of whitespace only.
    WhitespaceText,
    /// An assistant that calls tools with `content: null` (OpenAI).
    NullContentWithCalls,
    /// An assistant that calls tools with `content: ""` (LangChain).
    EmptyContentWithCalls,
    /// An object of the kind `.0` (a role or a block type) without its optional field `.1`.
    MissingOptional(&'static str, &'static str),
    /// A call or result id with a character outside ASCII.
    NonAsciiId,
    /// The first message is a system message.
    LeadingSystem,
}

/// Keys whose string values are texts a person or a tool wrote.
const TEXT_KEYS: [&str; 5] = ["text", "content", "thinking", "value", "output"];

impl FormatShape {
    /// The optional fields a format's bridge sometimes leaves out: (key, kind, field) reads
    /// "an object whose `key` is `kind` lacks `field`".
    fn optional_fields(format: Format) -> &'static [(&'static str, &'static str, &'static str)] {
        match format {
            Format::Pi => &[("type", "thinking", "thinkingSignature")],
            Format::OpenAi => &[("role", "assistant", "tool_calls")],
            Format::Anthropic => &[("type", "tool_result", "is_error")],
            Format::LangChain => &[("type", "ai", "tool_calls")],
            Format::Gemini | Format::AiSdk => &[],
        }
    }

    /// The shapes the generated stream of `format` must contain (the test
    /// `generators::every_listed_format_shape_is_generated` holds it to this list).
    pub fn listed(format: Format) -> Vec<FormatShape> {
        let mut listed = vec![
            FormatShape::EmptyText,
            FormatShape::WhitespaceText,
            FormatShape::NonAsciiId,
        ];
        if !format.results_in_one_message() {
            // Anthropic and Gemini keep the system prompt outside the messages.
            listed.push(FormatShape::LeadingSystem);
        }
        match format {
            Format::OpenAi => listed.push(FormatShape::NullContentWithCalls),
            Format::LangChain => listed.push(FormatShape::EmptyContentWithCalls),
            _ => {}
        }
        listed.extend(
            Self::optional_fields(format)
                .iter()
                .map(|&(_, kind, field)| FormatShape::MissingOptional(kind, field)),
        );
        listed
    }
}

impl fmt::Display for FormatShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            FormatShape::EmptyText => "empty-text",
            FormatShape::WhitespaceText => "whitespace-text",
            FormatShape::NullContentWithCalls => "null-content-with-calls",
            FormatShape::EmptyContentWithCalls => "empty-content-with-calls",
            FormatShape::MissingOptional(kind, field) => {
                return write!(f, "missing-optional:{kind}.{field}");
            }
            FormatShape::NonAsciiId => "non-ascii-id",
            FormatShape::LeadingSystem => "leading-system",
        };
        f.write_str(name)
    }
}

/// The shapes `messages`, written in `format`, has.
pub fn format_shapes<J: Json + Clone>(format: Format, messages: &[J]) -> BTreeSet<FormatShape> {
    let mut found = BTreeSet::new();
    let view = format.view(messages);
    if view.first().is_some_and(|entry| entry.role == Role::System) {
        found.insert(FormatShape::LeadingSystem);
    }
    for (message, entry) in messages.iter().zip(&view) {
        if !entry.calls.is_empty() {
            match message.member("content").map(Json::view) {
                Some(View::Null) => found.insert(FormatShape::NullContentWithCalls),
                Some(View::String("")) => found.insert(FormatShape::EmptyContentWithCalls),
                _ => false,
            };
        }
        let ids = entry.calls.iter().map(|c| &c.id);
        if ids
            .chain(entry.results.iter().map(|r| &r.id))
            .flatten()
            .any(|id| !id.is_ascii())
        {
            found.insert(FormatShape::NonAsciiId);
        }
        texts_and_fields(format, message, &mut found);
    }
    found
}

/// The text and optional-field shapes of `value` and everything inside it.
fn texts_and_fields<J: Json>(format: Format, value: &J, found: &mut BTreeSet<FormatShape>) {
    match value.view() {
        View::Array(items) => items
            .iter()
            .for_each(|item| texts_and_fields(format, item, found)),
        View::Object => {
            for &(key, kind, field) in FormatShape::optional_fields(format) {
                if as_string(value.member(key)) == Some(kind) && value.member(field).is_none() {
                    found.insert(FormatShape::MissingOptional(kind, field));
                }
            }
            for (key, item) in value.members() {
                match item.view() {
                    View::String(text) if TEXT_KEYS.contains(&key) => {
                        if text.is_empty() {
                            found.insert(FormatShape::EmptyText);
                        } else if text.trim().is_empty() {
                            found.insert(FormatShape::WhitespaceText);
                        }
                    }
                    _ => texts_and_fields(format, item, found),
                }
            }
        }
        _ => {}
    }
}
