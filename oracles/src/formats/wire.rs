//! The provider rules on tool calls and results, written once over [`Entry`] views for every
//! format but pi (pi's own request builder and the Anthropic rules judge pi transcripts).
//!
//! A rule is applied to a format only where that format's provider (or the library that sends
//! it) is known to refuse the request, by its error text; the sources, per format and rule:
//! - OpenAI chat completions: `result-without-call` (`Invalid parameter: messages with role
//!   'tool' must be a response to a preceeding message with 'tool_calls'`), `missing-result` (`An
//!   assistant message with 'tool_calls' must be followed by tool messages responding to each
//!   'tool_call_id'`), `duplicate-result` (`Invalid parameter: Duplicate value for
//!   'tool_call_id' of '<id>' in messages[i] and messages[j]`), `invalid-role` (`Invalid value:
//!   '<role>'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and
//!   'developer'.`); as in `crate::wire::openai`.
//! - Anthropic messages: `missing-result` (`tool_use ids were found without tool_result blocks
//!   immediately after`), `result-without-call` (`unexpected tool_use_id found in tool_result
//!   blocks`), `duplicate-result` (`each tool_use must have a single result. Found multiple
//!   tool_result blocks with id`), `duplicate-call-id` (`tool_use ids must be unique`),
//!   `invalid-role` (`messages.N.role: Input should be 'user' or 'assistant'`); as in
//!   `crate::wire::anthropic::validate`: every result of an assistant's calls sits in the one user
//!   message right after it.
//! - Gemini: `result-without-call` (`Please ensure that function response turn comes immediately
//!   after a function call turn`), `missing-result` and `duplicate-result` (`Please ensure that
//!   the number of function response parts is equal to the number of function call parts of the
//!   function call turn`), `invalid-role` (`@google/genai`'s `Role must be user or model, but got
//!   <role>.`). When a response carries no `id`, it is paired with the first unanswered call of
//!   the same name in that turn (calls and responses are matched by name and order; our bridge
//!   always writes ids).
//! - AI SDK: the SDK itself throws `MissingToolResultsError` (`Tool result is missing for tool
//!   call <id>.`, `missing-result`) and `InvalidMessageRoleError` (`Invalid message role:
//!   '<role>'`, `invalid-role`) in `convertToLanguageModelPrompt`; its OpenAI provider then sends
//!   each result as one chat-completions `tool` message, so the OpenAI 400s above apply
//!   (`result-without-call`, `duplicate-result`).
//! - LangChain: `convert_to_messages` raises `Unexpected message type: '<type>'` (`invalid-role`);
//!   `langchain-openai`'s `_convert_message_to_dict` sends each `ToolMessage` as one
//!   chat-completions `tool` message, so the OpenAI 400s above apply (`result-without-call`,
//!   `missing-result`, `duplicate-result`).
//!
//! `duplicate-call-id` is applied to Anthropic alone: no other provider here documents a refusal
//! of two calls that share an id (OpenAI's duplicate-value error names two `tool` messages, which
//! is `duplicate-result`).

use foldhash::{HashSet, HashSetExt};
use serde::Serialize;

use super::{Call, Entry, Format, ResultPart, Role};
use crate::wire::WireRule;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireViolation {
    /// One of `invalid-role`, `result-without-call`, `duplicate-result`, `missing-result`,
    /// `duplicate-call-id`.
    pub rule: WireRule,
    /// Index of the offending message.
    pub message: usize,
    /// The call id concerned, if any.
    pub id: Option<String>,
}

/// The calls of one message whose results are being read.
struct Batch<'a> {
    message: usize,
    calls: &'a [Call],
    answered: Vec<bool>,
}

impl Batch<'_> {
    /// The call `result` answers in this batch: by id, or (no id) the first unanswered call of
    /// the same name.
    fn find(&self, result: &ResultPart) -> Option<usize> {
        match &result.id {
            Some(id) => self.calls.iter().position(|c| c.id.as_deref() == Some(id)),
            None => (0..self.calls.len()).find(|&i| {
                !self.answered[i] && self.calls[i].id.is_none() && self.calls[i].name == result.name
            }),
        }
    }

    fn close(self, found: &mut Vec<WireViolation>) {
        for (call, answered) in self.calls.iter().zip(&self.answered) {
            if !answered {
                found.push(WireViolation {
                    rule: WireRule::MissingResult,
                    message: self.message,
                    id: call.id.clone(),
                });
            }
        }
    }
}

/// Every violation of `format`'s rules in `view` (`format` is not pi).
pub fn validate(format: Format, view: &[Entry]) -> Vec<WireViolation> {
    let mut found = Vec::new();
    let mut batch: Option<Batch> = None;
    let mut call_ids = HashSet::new();
    for (message, entry) in view.iter().enumerate() {
        if let Role::Other(_) = entry.role {
            found.push(WireViolation {
                rule: WireRule::InvalidRole,
                message,
                id: None,
            });
        }
        if !entry.results.is_empty() {
            for result in &entry.results {
                let answered = batch
                    .as_mut()
                    .and_then(|open| Some((open.find(result)?, open)));
                match answered {
                    Some((at, open)) if open.answered[at] => found.push(WireViolation {
                        rule: WireRule::DuplicateResult,
                        message,
                        id: result.id.clone(),
                    }),
                    Some((at, open)) => open.answered[at] = true,
                    None => found.push(WireViolation {
                        rule: WireRule::ResultWithoutCall,
                        message,
                        id: result.id.clone(),
                    }),
                }
            }
            let batch_ends = format.results_in_one_message() || entry.rest.is_some();
            if batch_ends && let Some(open) = batch.take() {
                open.close(&mut found);
            }
            continue;
        }
        if let Some(open) = batch.take() {
            open.close(&mut found);
        }
        for call in &entry.calls {
            if let Some(id) = &call.id
                && !call_ids.insert(id.as_str())
                && format == Format::Anthropic
            {
                found.push(WireViolation {
                    rule: WireRule::DuplicateCallId,
                    message,
                    id: Some(id.clone()),
                });
            }
        }
        if !entry.calls.is_empty() {
            batch = Some(Batch {
                message,
                calls: &entry.calls,
                answered: vec![false; entry.calls.len()],
            });
        }
    }
    if let Some(open) = batch {
        open.close(&mut found);
    }
    found
}
