//! The providers' rules on a request body: the Anthropic Messages API's and OpenAI chat's. What
//! builds the body (pi-ai's request builder) is pi's code and lives in [`crate::pi::request`].

pub mod anthropic;
pub mod openai;

use std::fmt;

use serde::Serialize;

/// A provider rule a request can break. Serialised (and printed) as its kebab-case id, the form
/// findings, case files, `check` and `scan` show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WireRule {
    // The Anthropic Messages API ([`anthropic`]).
    /// A `tool_result` answers no `tool_use` of the assistant turn just before it.
    OrphanResult,
    /// A `tool_use` is not answered in the next turn.
    MissingResult,
    /// A `tool_use` id repeats across the request.
    DuplicateToolUseId,
    /// A second result for one call.
    DuplicateResult,
    /// A result after other content of its turn.
    ResultsNotFirst,
    /// A `tool_use` id the API refuses (`^[a-zA-Z0-9_-]+$`, 1 to 64 characters).
    InvalidToolUseId,
    // OpenAI chat completions ([`openai`]).
    /// An entry of `messages` is not an object.
    NotAnObject,
    /// A role the API does not accept.
    InvalidRole,
    /// A tool message with no assistant `tool_calls` message before it.
    ToolWithoutCall,
    /// A tool message's `tool_call_id` is none of that assistant message's calls.
    UnknownToolCallId,
    /// A tool call not answered before the next other message.
    MissingToolResponse,
}

impl WireRule {
    /// The stable id: `orphan-result`, `missing-tool-response`, ...
    pub fn id(self) -> &'static str {
        match self {
            WireRule::OrphanResult => "orphan-result",
            WireRule::MissingResult => "missing-result",
            WireRule::DuplicateToolUseId => "duplicate-tool-use-id",
            WireRule::DuplicateResult => "duplicate-result",
            WireRule::ResultsNotFirst => "results-not-first",
            WireRule::InvalidToolUseId => "invalid-tool-use-id",
            WireRule::NotAnObject => "not-an-object",
            WireRule::InvalidRole => "invalid-role",
            WireRule::ToolWithoutCall => "tool-without-call",
            WireRule::UnknownToolCallId => "unknown-tool-call-id",
            WireRule::MissingToolResponse => "missing-tool-response",
        }
    }
}

impl fmt::Display for WireRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::WireRule::*;

    #[test]
    fn a_rule_serialises_and_prints_as_its_id() {
        let every = [
            OrphanResult,
            MissingResult,
            DuplicateToolUseId,
            DuplicateResult,
            ResultsNotFirst,
            InvalidToolUseId,
            NotAnObject,
            InvalidRole,
            ToolWithoutCall,
            UnknownToolCallId,
            MissingToolResponse,
        ];
        for rule in every {
            assert_eq!(serde_json::to_value(rule).unwrap(), rule.id());
            assert_eq!(rule.to_string(), rule.id());
        }
    }
}
