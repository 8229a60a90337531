//! The provider rules on tool calls and results, written once over [`Entry`] views for every
//! format but pi (pi's own request builder and the Anthropic rules judge pi transcripts).
//!
//! A rule is applied to a format only where that format's provider (or the library that sends
//! it) is known to refuse the request: [`SOURCES`] names, per rule and format, the error text it
//! answers with (or the path by which another provider's applies). Every rule but
//! `duplicate-call-id`, `results-not-first`, `function-call-not-after-user`, `empty-tool-calls`
//! and `empty-content` has a source in every format (a test holds it to that), and `validate`
//! applies those five only where their source is named. Gemini wants a turn with calls right
//! after a user turn (or a function response turn), never first or after another model turn. `docs/contracts.md`
//! shows the table as generated from it. When a Gemini response carries no `id`, it is paired with
//! the first unanswered call of the same name in that turn (calls and responses are matched by name and order; our bridge always writes ids).
//! Anthropic merges consecutive messages of one role into one turn and then judges turns, as
//! `crate::wire::anthropic::validate` does: every result of an assistant turn's calls sits in the
//! user turn right after it, first (`results-not-first`, Anthropic's alone). `duplicate-call-id` is applied to Anthropic alone: no
//! other provider here documents a refusal of two calls that share an id (OpenAI's duplicate-value
//! error names two `tool` messages, which is `duplicate-result`). `empty-tool-calls` is OpenAI's
//! alone: the other formats hold calls in their content, and LangChain's `tool_calls: []` (an AI
//! message's default) is left out by `langchain-openai`, which writes `tool_calls` only for a
//! message that has some. `empty-content` is Anthropic's: a message whose content is `[]` or `""`
//! is refused, but for a final assistant message (a prefill); each message is judged as it
//! stands (the error names its index in the request), and one that is only results is not empty.

use foldhash::{HashSet, HashSetExt};
use serde::Serialize;

use super::{Call, Entry, Format, ResultPart, Role};
use crate::js::{Json, View};
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

impl WireViolation {
    /// How a finding names it: `missing-result: message 3 (call c1)`.
    pub fn summary(&self) -> String {
        let about_a_message = matches!(
            self.rule,
            WireRule::InvalidRole | WireRule::EmptyToolCalls | WireRule::EmptyContent
        );
        match self.id.as_deref() {
            None if about_a_message => format!("{}: message {}", self.rule, self.message),
            id => format!(
                "{}: message {} (call {})",
                self.rule,
                self.message,
                id.unwrap_or("-")
            ),
        }
    }

    /// A finding's evidence of it: the rule, the message and the call id.
    pub fn evidence(&self) -> WireEvidence {
        WireEvidence {
            rule: self.rule,
            message: self.message,
            call_id: self.id.clone(),
        }
    }
}

/// What a finding's evidence shows of a [`WireViolation`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireEvidence {
    pub rule: WireRule,
    pub message: usize,
    pub call_id: Option<String>,
}

/// The formats [`SOURCES`] has a column for, in its order.
pub const SOURCE_FORMATS: [Format; 5] = [
    Format::OpenAi,
    Format::Anthropic,
    Format::Gemini,
    Format::AiSdk,
    Format::LangChain,
];

/// Per rule, what each format of [`SOURCE_FORMATS`] answers when the rule is broken: its error
/// text (as users reported it, or as the library throws it), or how another's applies; `None`:
/// no refusal is known, and the rule is not applied to that format.
pub const SOURCES: [(WireRule, [Option<&str>; 5]); 9] = [
    (
        WireRule::ResultWithoutCall,
        [
            Some(
                "`Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'`",
            ),
            Some("`unexpected tool_use_id found in tool_result blocks`"),
            Some(
                "`Please ensure that function response turn comes immediately after a function call turn`",
            ),
            Some("OpenAI's, through its OpenAI provider (one `tool` message per result)"),
            Some("OpenAI's, through `langchain-openai`'s `_convert_message_to_dict`"),
        ],
    ),
    (
        WireRule::MissingResult,
        [
            Some(
                "`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'`",
            ),
            Some("`tool_use ids were found without tool_result blocks immediately after`"),
            Some(
                "`Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn`",
            ),
            Some(
                "its own `MissingToolResultsError` in `convertToLanguageModelPrompt` (`Tool result is missing for tool call <id>.`)",
            ),
            Some("OpenAI's, through `langchain-openai`"),
        ],
    ),
    (
        WireRule::DuplicateResult,
        [
            Some(
                "`Invalid parameter: Duplicate value for 'tool_call_id' of '<id>' in messages[i] and messages[j]`",
            ),
            Some(
                "`each tool_use must have a single result. Found multiple tool_result blocks with id`",
            ),
            Some("the number of parts, as for `missing-result`"),
            Some("OpenAI's, through its OpenAI provider"),
            Some("OpenAI's, through `langchain-openai`"),
        ],
    ),
    (
        WireRule::DuplicateCallId,
        [
            None,
            Some("`tool_use ids must be unique`"),
            None,
            None,
            None,
        ],
    ),
    (
        WireRule::InvalidRole,
        [
            Some(
                "`Invalid value: '<role>'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`",
            ),
            Some("`messages.N.role: Input should be 'user' or 'assistant'`"),
            Some("`@google/genai`'s `Role must be user or model, but got <role>.`"),
            Some("its own `InvalidMessageRoleError` (`Invalid message role: '<role>'`)"),
            Some("`convert_to_messages`: `Unexpected message type: '<type>'`"),
        ],
    ),
    (
        WireRule::ResultsNotFirst,
        [
            None,
            Some(
                "the tool-use guide's formatting requirements: the `tool_result` blocks come first in the user message that answers the calls, any text after them, or the request is refused with a 400 (consecutive user messages are first merged into that one turn)",
            ),
            None,
            None,
            None,
        ],
    ),
    (
        WireRule::FunctionCallNotAfterUser,
        [
            None,
            None,
            Some(
                "`Please ensure that function call turn comes immediately after a user turn or after a function response turn.` (a history that starts with a call too)",
            ),
            None,
            None,
        ],
    ),
    (
        WireRule::EmptyToolCalls,
        [
            Some(
                "`Invalid 'messages[i].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`",
            ),
            None,
            None,
            None,
            None,
        ],
    ),
    (
        WireRule::EmptyContent,
        [
            None,
            Some(
                "`messages.N: all messages must have non-empty content except for the optional final assistant message`",
            ),
            None,
            None,
            None,
        ],
    ),
];

/// Whether [`SOURCES`] knows `format`'s provider to refuse a request that breaks `rule`.
pub fn applies(format: Format, rule: WireRule) -> bool {
    source(format, rule).is_some()
}

/// What `format`'s provider answers a request that breaks `rule` with ([`SOURCES`]); `None` where
/// no refusal is known.
pub fn source(format: Format, rule: WireRule) -> Option<&'static str> {
    let column = SOURCE_FORMATS.iter().position(|&f| f == format)?;
    SOURCES
        .iter()
        .find(|(r, _)| *r == rule)
        .and_then(|(_, texts)| texts[column])
}

/// The calls whose results are being read: one message's, or (where the provider merges
/// turns) one assistant turn's, each with the message it is in.
struct Batch<'a> {
    calls: Vec<(usize, &'a Call)>,
    answered: Vec<bool>,
}

impl<'a> Batch<'a> {
    fn extend(&mut self, message: usize, calls: &'a [Call]) {
        self.calls.extend(calls.iter().map(|call| (message, call)));
        self.answered.resize(self.calls.len(), false);
    }

    /// The call `result` answers in this batch: by id, or (no id) the first unanswered call of
    /// the same name.
    fn find<J>(&self, result: &ResultPart<J>) -> Option<usize> {
        match &result.id {
            Some(id) => self
                .calls
                .iter()
                .position(|(_, c)| c.id.as_deref() == Some(id)),
            None => (0..self.calls.len()).find(|&i| {
                let call = self.calls[i].1;
                !self.answered[i] && call.id.is_none() && call.name == result.name
            }),
        }
    }

    fn close(self, found: &mut Vec<WireViolation>) {
        for ((message, call), answered) in self.calls.into_iter().zip(self.answered) {
            if !answered {
                found.push(WireViolation {
                    rule: WireRule::MissingResult,
                    message,
                    id: call.id.clone(),
                });
            }
        }
    }
}

/// Every violation of `format`'s rules in `view` (`format` is not pi).
///
/// Where the provider merges consecutive messages of one role ([`Format::merges_turns`]), the
/// rules apply to turns: an assistant turn's calls are answered by the results anywhere in the
/// user turn after it, and each result after anything else in its turn (the user's text, or a
/// part before it in its message) breaks `results-not-first` (a message whose content is empty
/// adds nothing to its turn).
pub fn validate<J: Json + Clone>(format: Format, view: &[Entry<J>]) -> Vec<WireViolation> {
    let merges = format.merges_turns();
    let mut found = Vec::new();
    let mut batch: Option<Batch> = None;
    let mut call_ids = HashSet::new();
    let mut previous: Option<&Role> = None;
    // Whether something other than a result came first in the current user turn.
    let mut other_first = false;
    for (message, entry) in view.iter().enumerate() {
        let before = previous.replace(&entry.role);
        let same_turn = merges && before == Some(&entry.role);
        if !same_turn {
            other_first = false;
        }
        if let Role::Other(_) = entry.role {
            found.push(WireViolation {
                rule: WireRule::InvalidRole,
                message,
                id: None,
            });
        }
        let final_assistant = entry.role == Role::Assistant && message + 1 == view.len();
        if entry.results.is_empty()
            && !final_assistant
            && entry.rest.as_deref().is_some_and(has_empty_content)
            && applies(format, WireRule::EmptyContent)
        {
            found.push(WireViolation {
                rule: WireRule::EmptyContent,
                message,
                id: None,
            });
        }
        if !entry.results.is_empty() {
            let behind_from = if other_first {
                Some(0)
            } else {
                entry.first_result_behind_other
            };
            for (position, result) in entry.results.iter().enumerate() {
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
                // After the pairing: a result whose call is gone is shown as that first.
                if behind_from.is_some_and(|from| position >= from)
                    && applies(format, WireRule::ResultsNotFirst)
                {
                    found.push(WireViolation {
                        rule: WireRule::ResultsNotFirst,
                        message,
                        id: result.id.clone(),
                    });
                }
            }
            other_first |= entry.rest.as_deref().is_some_and(holds_content);
            let batch_ends = !merges && (format.results_in_one_message() || entry.rest.is_some());
            if batch_ends && let Some(open) = batch.take() {
                open.close(&mut found);
            }
            continue;
        }
        // A message without results: in a merged turn, what the user says first, or more of
        // the assistant's turn; else the end of the calls' turn.
        other_first |= entry.rest.as_deref().is_some_and(holds_content);
        let answering_turn = merges && entry.role == Role::User;
        if !same_turn
            && !answering_turn
            && let Some(open) = batch.take()
        {
            open.close(&mut found);
        }
        if entry.role == Role::Assistant
            && applies(format, WireRule::EmptyToolCalls)
            && entry.rest.as_deref().is_some_and(has_empty_call_list)
        {
            found.push(WireViolation {
                rule: WireRule::EmptyToolCalls,
                message,
                id: None,
            });
        }
        for call in &entry.calls {
            if let Some(id) = &call.id
                && !call_ids.insert(id.as_str())
                && applies(format, WireRule::DuplicateCallId)
            {
                found.push(WireViolation {
                    rule: WireRule::DuplicateCallId,
                    message,
                    id: Some(id.clone()),
                });
            }
        }
        if entry.role == Role::Assistant
            && !entry.calls.is_empty()
            && before != Some(&Role::User)
            && applies(format, WireRule::FunctionCallNotAfterUser)
        {
            // One per call, as `results-not-first` is one per result: the turn is refused for
            // each of them, and a rewriter that drops the first call (the input's damage) leaves
            // the others' as they were, not new.
            found.extend(entry.calls.iter().map(|call| WireViolation {
                rule: WireRule::FunctionCallNotAfterUser,
                message,
                id: call.id.clone(),
            }));
        }
        if !entry.calls.is_empty() {
            batch
                .get_or_insert_with(|| Batch {
                    calls: Vec::new(),
                    answered: Vec::new(),
                })
                .extend(message, &entry.calls);
        }
    }
    if let Some(open) = batch {
        open.close(&mut found);
    }
    found
}

/// Whether what is left of a message, its results taken out, still holds content: a string, or
/// a list with a part in it.
fn holds_content<J: Json>(rest: &J) -> bool {
    match rest.member("content").map(Json::view) {
        Some(View::String(_)) => true,
        Some(View::Array(parts)) => !parts.is_empty(),
        _ => false,
    }
}

/// Whether `message`'s content is there and empty: `[]` or `""` (a message without one is
/// refused for the missing field, another error).
fn has_empty_content<J: Json>(message: &J) -> bool {
    match message.member("content").map(Json::view) {
        Some(View::String(text)) => text.is_empty(),
        Some(View::Array(parts)) => parts.is_empty(),
        _ => false,
    }
}

/// Whether `message` carries `tool_calls: []`: a list of calls with none in it, which OpenAI
/// refuses rather than reading as no calls.
pub fn has_empty_call_list<J: Json>(message: &J) -> bool {
    matches!(message.member("tool_calls").map(Json::view), Some(View::Array(calls)) if calls.is_empty())
}
