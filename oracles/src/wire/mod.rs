//! The providers' rules on a request body: the Anthropic Messages API's, OpenAI Chat
//! Completions' (chat-schema output, and the body pi's openai-completions provider sends), the
//! OpenAI Responses API's (the body pi's openai-responses provider sends) and the Gemini API's
//! (the body pi's google-generative-ai provider sends). What
//! builds the body (pi-ai's request builder) is pi's code and lives in [`crate::pi::request`].
//! The same rules, read over every transcript format's view, are [`crate::formats::wire`]; they
//! share [`WireRule`].

pub mod anthropic;
pub mod google;
pub mod openai;
pub mod openai_responses;

use serde::Serialize;

use crate::js::{Json, View};

/// A provider rule a request can break. Serialised (and printed) as its kebab-case id, the form
/// findings, case files, baselines, `check` and `scan` show.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::IntoStaticStr,
    strum::Display,
    strum::EnumString,
    strum::EnumMessage,
    strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum WireRule {
    // The Anthropic Messages API ([`anthropic`]); `missing-result` and `duplicate-result` are
    // rules of every format's view too ([`crate::formats::wire`]).
    /// A `tool_result` answers no `tool_use` of the assistant turn just before it.
    OrphanResult,
    /// A `tool_use` (a call, in any format) is not answered where the provider looks for its
    /// result.
    MissingResult,
    /// A `tool_use` id repeats across the request.
    DuplicateToolUseId,
    /// A second result for one call.
    DuplicateResult,
    /// A result after other content of its turn.
    ResultsNotFirst,
    /// A `tool_use` id the API refuses (`^[a-zA-Z0-9_-]+$`, 1 to 64 characters).
    InvalidToolUseId,
    // OpenAI chat completions ([`openai`]); `invalid-role` is a rule of every format's view too.
    /// An entry of `messages` is not an object.
    NotAnObject,
    /// A role the API (the format) does not accept.
    InvalidRole,
    /// A tool message with no assistant `tool_calls` message before it.
    ToolWithoutCall,
    /// A tool message's `tool_call_id` is none of that assistant message's calls.
    UnknownToolCallId,
    /// A tool call not answered before the next other message.
    MissingToolResponse,
    /// A `tool_calls[].id` longer than OpenAI's 40 characters (a rule of the request body,
    /// `openai::validate_body`).
    ToolCallIdTooLong,
    // The OpenAI Responses API, on a body's `input` items ([`openai_responses`]).
    /// A `function_call` no `function_call_output` of the input answers.
    MissingFunctionCallOutput,
    /// A `function_call_output` whose `call_id` no `function_call` of the input has.
    FunctionCallOutputWithoutCall,
    /// A `reasoning` item not followed by the output item it was made with.
    ReasoningWithoutFollowingItem,
    /// An item `id` an earlier item has.
    DuplicateItemId,
    /// A `function_call` item `id` that does not begin with `fc`.
    InvalidFunctionCallId,
    // The Gemini API, on a body's `contents` ([`google`]).
    /// A function call turn not right after a user turn or a function response turn.
    FunctionCallNotAfterUser,
    /// A function response turn not right after a function call turn.
    FunctionResponseNotAfterCall,
    /// A function response turn with another number of responses than its call turn has calls.
    FunctionResponseCountMismatch,
    /// A part whose text is empty, without a thought signature.
    EmptyTextPart,
    // Every format's view ([`crate::formats::wire`]), named apart from the Anthropic ids above
    // because they judge calls and results in any format, read the same way.
    /// A result answers no call of the message its results follow.
    ResultWithoutCall,
    /// A call id repeats across the transcript.
    DuplicateCallId,
    /// An assistant message whose `tool_calls` is an empty list (OpenAI's `empty_array`).
    EmptyToolCalls,
    /// A message whose content is empty (`[]` or `""`), other than a final assistant message.
    EmptyContent,
}

/// A rule an entry of a body's list breaks: a message of Chat Completions' `messages`
/// ([`openai`]), an item of a Responses `input` ([`openai_responses`]), a content of Gemini's
/// `contents` ([`google`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryViolation {
    pub rule: WireRule,
    /// Index of the offending entry.
    pub index: usize,
    /// The error text the API returns.
    pub message: String,
}

impl WireRule {
    /// The stable id: `orphan-result`, `missing-tool-response`, ...
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// The rule whose id is `id`.
    pub fn from_id(id: &str) -> Option<WireRule> {
        id.parse().ok()
    }

    /// Every rule, in the order of their declaration.
    pub fn all() -> impl Iterator<Item = WireRule> {
        <WireRule as strum::IntoEnumIterator>::iter()
    }

    /// What breaks the rule, as `ctxfuzz explain` states it: the variant's doc comment on one
    /// line, begun in lower case and without its full stop, as the invariants' statements are.
    pub fn description(self) -> String {
        let doc = strum::EnumMessage::get_documentation(&self).unwrap_or_default();
        let text = doc.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = text.strip_suffix('.').unwrap_or(&text);
        let mut chars = text.chars();
        chars
            .next()
            .map(|first| first.to_lowercase().chain(chars).collect())
            .unwrap_or_default()
    }
}

/// `object[key]` when it is a string, as the APIs read a body's fields.
fn str_field<'j, J: Json>(object: &'j J, key: &str) -> Option<&'j str> {
    match object.member(key).map(Json::view) {
        Some(View::String(text)) => Some(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use strum::IntoEnumIterator;

    use super::WireRule;

    /// The ids are stable (case files, baselines and `check` show them): a renamed variant must not
    /// change its id unnoticed. Serialised and printed, a rule is its id.
    #[test]
    fn a_rule_serialises_and_prints_as_its_stable_id() {
        let ids: Vec<&str> = WireRule::iter().map(WireRule::id).collect();
        assert_eq!(
            ids,
            [
                "orphan-result",
                "missing-result",
                "duplicate-tool-use-id",
                "duplicate-result",
                "results-not-first",
                "invalid-tool-use-id",
                "not-an-object",
                "invalid-role",
                "tool-without-call",
                "unknown-tool-call-id",
                "missing-tool-response",
                "tool-call-id-too-long",
                "missing-function-call-output",
                "function-call-output-without-call",
                "reasoning-without-following-item",
                "duplicate-item-id",
                "invalid-function-call-id",
                "function-call-not-after-user",
                "function-response-not-after-call",
                "function-response-count-mismatch",
                "empty-text-part",
                "result-without-call",
                "duplicate-call-id",
                "empty-tool-calls",
                "empty-content",
            ]
        );
        for rule in WireRule::iter() {
            assert_eq!(serde_json::to_value(rule).unwrap(), rule.id());
            assert_eq!(rule.to_string(), rule.id());
            assert_eq!(WireRule::from_id(rule.id()), Some(rule));
            let description = rule.description();
            assert!(description.starts_with('a'), "{rule}: {description}");
            assert!(!description.ends_with('.'), "{rule}: {description}");
        }
        assert_eq!(WireRule::from_id("orphan_result"), None);
        assert_eq!(
            WireRule::MissingResult.description(),
            "a `tool_use` (a call, in any format) is not answered where the provider looks for its result"
        );
    }
}
