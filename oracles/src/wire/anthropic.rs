//! The Anthropic Messages API's 400 rules on tool use, checked on a typed request body
//! ([`Request`], built by [`crate::pi::request`]).
//!
//! The API first merges consecutive same-role messages into one turn, then requires:
//! every `tool_result` answers a `tool_use` of the immediately preceding assistant turn
//! (`orphan-result`); every `tool_use` is answered in the next turn (`missing-result`);
//! `tool_use` ids are unique across the whole request (`duplicate-tool-use-id`); one result per
//! call (`duplicate-result`); results come before any other content of their turn
//! (`results-not-first`); ids match `^[a-zA-Z0-9_-]+$` with at most 64 characters
//! (`invalid-tool-use-id`). Locations are request indices (`messages.N.content.M`), as the API
//! prints them; the texts are the API's, as users have reported them (the `results-not-first`
//! and id-syntax texts are paraphrased: no report quotes them).

use std::borrow::Cow;

use crate::js_value::JsValue;
use foldhash::{HashSet, HashSetExt};
use serde::Serialize;

use super::WireRule;

mod request;

pub use request::{Block, Content, ImageSource, Message, Request, Role};

/// One rule the request breaks, and the error text the API rejects it with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// One of `OrphanResult`, `MissingResult`, `DuplicateToolUseId`, `DuplicateResult`,
    /// `ResultsNotFirst`, `InvalidToolUseId`.
    pub rule: WireRule,
    /// Index of the request message holding the offending block.
    pub message: usize,
    /// Index of the block in that message's content (`None` for string content).
    pub block: Option<usize>,
    pub tool_use_id: Option<String>,
    /// The error text the API returns (a finding's evidence names it `error`).
    #[serde(rename = "error")]
    pub text: String,
}

/// Where a block sits in the request.
struct Located<'r, 'a> {
    message: usize,
    block: Option<usize>,
    /// `None` for string content.
    value: Option<&'r Block<'a>>,
}

impl<'a> Located<'_, 'a> {
    fn tool_use_id(&self) -> Option<Option<&'a JsValue<'a>>> {
        match self.value {
            Some(Block::ToolUse { id, .. }) => Some(*id),
            _ => None,
        }
    }

    fn tool_result_id(&self) -> Option<Option<&'a JsValue<'a>>> {
        match self.value {
            Some(Block::ToolResult { tool_use_id, .. }) => Some(*tool_use_id),
            _ => None,
        }
    }
}

/// Consecutive request messages with the same role: one turn, as the API merges them. Turns are
/// read off the request as they are needed, never collected (a million-message request held a
/// copy of every block's place).
struct Turn<'r, 'a> {
    role: Role,
    /// Request index of the turn's first message.
    first: usize,
    messages: &'r [Message<'a>],
}

impl<'r, 'a> Turn<'r, 'a> {
    /// The turn's blocks in order; a string content is one block without a value.
    fn blocks(&self) -> impl Iterator<Item = Located<'r, 'a>> + use<'r, 'a> {
        let first = self.first;
        self.messages
            .iter()
            .enumerate()
            .flat_map(move |(offset, message)| {
                let at = first + offset;
                let (text, blocks): (Option<Located<'r, 'a>>, &'r [Block<'a>]) =
                    match &message.content {
                        Content::Text(_) => {
                            let whole = Located {
                                message: at,
                                block: None,
                                value: None,
                            };
                            (Some(whole), &[])
                        }
                        Content::Blocks(blocks) => (None, blocks),
                    };
                text.into_iter()
                    .chain(blocks.iter().enumerate().map(move |(b, value)| Located {
                        message: at,
                        block: Some(b),
                        value: Some(value),
                    }))
            })
    }
}

/// Every violation of the rules above, in request order (per turn: id checks, then results).
/// The request's messages are numbered from `first_message` in the locations: 0 for a whole
/// request, the messages before it when the request is one part of a longer one
/// (`crate::invariants::wire::Parts`).
pub fn validate(request: &Request<'_>, first_message: usize) -> Vec<Rejection> {
    let mut violations = Vec::new();
    // Sized once for every block of the assistant messages (the tool uses are among them): a
    // set grown from empty rehashed its way up on a long transcript.
    let assistant_blocks = request
        .messages
        .iter()
        .filter(|message| message.role == Role::Assistant)
        .map(|message| match &message.content {
            Content::Blocks(blocks) => blocks.len(),
            Content::Text(_) => 1,
        })
        .sum();
    let mut seen_tool_use_ids = HashSet::with_capacity(assistant_blocks);
    let mut turns = turns(&request.messages, first_message).peekable();
    let mut previous = None;
    while let Some(turn) = turns.next() {
        match turn.role {
            Role::Assistant => {
                check_tool_uses(&turn, &mut seen_tool_use_ids, &mut violations);
                check_answered(&turn, turns.peek(), &mut violations);
            }
            Role::User => check_results(&turn, previous.as_ref(), &mut violations),
        }
        previous = Some(turn);
    }
    violations
}

/// The request's turns, in order, the first message numbered `first`.
fn turns<'r, 'a>(
    messages: &'r [Message<'a>],
    mut first: usize,
) -> impl Iterator<Item = Turn<'r, 'a>> {
    messages
        .chunk_by(|a, b| a.role == b.role)
        .map(move |messages| {
            let turn = Turn {
                role: messages[0].role,
                first,
                messages,
            };
            first += messages.len();
            turn
        })
}

/// The turn's `tool_use` blocks with their ids.
fn tool_uses<'r, 'a>(
    turn: &Turn<'r, 'a>,
) -> impl Iterator<Item = (Located<'r, 'a>, Option<&'a JsValue<'a>>)> + use<'r, 'a> {
    turn.blocks()
        .filter_map(|b| b.tool_use_id().map(|id| (b, id)))
}

/// An id as the API compares and prints it.
pub(crate) fn id_text<'a>(id: Option<&'a JsValue<'a>>) -> Option<Cow<'a, str>> {
    match id? {
        JsValue::String(id) => Some(Cow::Borrowed(id)),
        other => Some(Cow::Owned(other.to_string())),
    }
}

fn location(block: &Located<'_, '_>) -> String {
    match block.block {
        Some(b) => format!("messages.{}.content.{b}", block.message),
        None => format!("messages.{}", block.message),
    }
}

fn violation(
    rule: WireRule,
    block: &Located<'_, '_>,
    id: Option<Cow<'_, str>>,
    text: String,
) -> Rejection {
    Rejection {
        rule,
        message: block.message,
        block: block.block,
        tool_use_id: id.map(Cow::into_owned),
        text,
    }
}

fn check_tool_uses<'a>(
    turn: &Turn<'_, 'a>,
    seen: &mut HashSet<Cow<'a, str>>,
    out: &mut Vec<Rejection>,
) {
    for (block, raw) in tool_uses(turn) {
        let id = id_text(raw);
        if let Some(problem) = id_syntax_problem(raw) {
            let text = format!("{}.id: {problem}", location(&block));
            out.push(violation(
                WireRule::InvalidToolUseId,
                &block,
                id.clone(),
                text,
            ));
        }
        if let Some(id) = id.filter(|id| !seen.insert(id.clone())) {
            let text = format!("{}: tool_use ids must be unique", location(&block));
            out.push(violation(
                WireRule::DuplicateToolUseId,
                &block,
                Some(id),
                text,
            ));
        }
    }
}

/// Why the API refuses this id, if it does.
fn id_syntax_problem(id: Option<&JsValue>) -> Option<&'static str> {
    let Some(JsValue::String(id)) = id else {
        return Some("Input should be a valid string");
    };
    if !id.is_empty()
        && !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Some("String should match pattern '^[a-zA-Z0-9_-]+$'");
    }
    if id.is_empty() {
        return Some("String should have at least 1 character");
    }
    (id.len() > 64).then_some("String should have at most 64 characters")
}

/// The ids of the calls of `turn` if it is an assistant turn, of the results if it is a user
/// turn.
fn ids_of<'a>(turn: Option<&Turn<'_, 'a>>, role: Role) -> Ids<'a> {
    let Some(turn) = turn.filter(|turn| turn.role == role) else {
        return Ids(Vec::new());
    };
    let mut ids: Vec<_> = turn
        .blocks()
        .filter_map(|b| match role {
            Role::Assistant => b.tool_use_id(),
            Role::User => b.tool_result_id(),
        })
        .filter_map(id_text)
        .collect();
    ids.sort_unstable();
    Ids(ids)
}

/// A turn's ids, sorted: a turn holds a few, and a hash set for each turn was a tenth of
/// judging a long transcript.
struct Ids<'a>(Vec<Cow<'a, str>>);

impl Ids<'_> {
    fn contains(&self, id: &str) -> bool {
        self.0
            .binary_search_by(|probe| probe.as_ref().cmp(id))
            .is_ok()
    }
}

fn check_answered(turn: &Turn<'_, '_>, next: Option<&Turn<'_, '_>>, out: &mut Vec<Rejection>) {
    let answered = ids_of(next, Role::User);
    for (block, raw) in tool_uses(turn) {
        let id = id_text(raw);
        if id.as_ref().is_some_and(|id| answered.contains(id)) {
            continue;
        }
        let shown = id.as_deref().unwrap_or_default();
        let text = format!(
            "messages.{}: tool_use ids were found without tool_result blocks immediately after: {shown}. \
             Each tool_use block must have a corresponding tool_result block in the next message.",
            block.message
        );
        out.push(violation(WireRule::MissingResult, &block, id, text));
    }
}

fn check_results(turn: &Turn<'_, '_>, previous: Option<&Turn<'_, '_>>, out: &mut Vec<Rejection>) {
    let calls = ids_of(previous, Role::Assistant);
    let mut answered = HashSet::new();
    let mut other_content_seen = false;
    let mut reported_not_first = false;
    for block in turn.blocks() {
        let Some(raw) = block.tool_result_id() else {
            other_content_seen = true;
            continue;
        };
        let id = id_text(raw);
        let shown = id.clone().unwrap_or_default();
        if other_content_seen && !reported_not_first {
            reported_not_first = true;
            let text = format!(
                "{}: tool_result blocks must come first in the user message, before any other content",
                location(&block)
            );
            out.push(violation(
                WireRule::ResultsNotFirst,
                &block,
                id.clone(),
                text,
            ));
        }
        let known = id.as_ref().is_some_and(|id| calls.contains(id));
        if !known {
            let text = format!(
                "{}: unexpected tool_use_id found in tool_result blocks: {shown}. Each tool_result block \
                 must have a corresponding tool_use block in the previous message.",
                location(&block)
            );
            out.push(violation(WireRule::OrphanResult, &block, id, text));
        } else if !answered.insert(shown.clone()) {
            let text = format!(
                "{}: each tool_use must have a single result. Found multiple tool_result blocks with id: {shown}",
                location(&block)
            );
            out.push(violation(WireRule::DuplicateResult, &block, id, text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WireRule::*;
    use super::*;
    use serde_json::{Value, json};

    use crate::js::field;

    /// The typed request of a JSON body written here (roles `user` and `assistant`).
    fn typed<'a>(body: &'a JsValue<'a>) -> Request<'a> {
        Request {
            model: None,
            messages: field(body, "messages")
                .and_then(JsValue::as_array)
                .unwrap()
                .iter()
                .map(message)
                .collect(),
            system: None,
            max_tokens: None,
            stream: true,
        }
    }

    fn message<'a>(message: &'a JsValue<'a>) -> Message<'a> {
        Message {
            role: match field(message, "role").and_then(JsValue::as_str) {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                other => panic!("no role {other:?} in a request"),
            },
            content: match field(message, "content") {
                Some(JsValue::String(text)) => Content::Text(Cow::Borrowed(text)),
                blocks => Content::Blocks(
                    blocks
                        .and_then(JsValue::as_array)
                        .unwrap()
                        .iter()
                        .map(block)
                        .collect(),
                ),
            },
        }
    }

    fn block<'a>(block: &'a JsValue<'a>) -> Block<'a> {
        match field(block, "type").and_then(JsValue::as_str) {
            Some("tool_use") => Block::ToolUse {
                id: field(block, "id"),
                name: field(block, "name"),
                input: field(block, "input"),
            },
            Some("tool_result") => Block::ToolResult {
                tool_use_id: field(block, "tool_use_id"),
                content: Content::Text(Cow::Borrowed("ok")),
                is_error: field(block, "is_error"),
            },
            _ => Block::Text {
                text: Cow::Borrowed(field(block, "text").and_then(JsValue::as_str).unwrap()),
            },
        }
    }

    fn rules(request: &Value) -> Vec<(WireRule, usize, Option<usize>)> {
        validate(&typed(&JsValue::from(request)), 0)
            .iter()
            .map(|v| (v.rule, v.message, v.block))
            .collect()
    }

    fn call(id: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": "bash", "input": {}})
    }

    fn result(id: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "content": "ok", "is_error": false})
    }

    #[test]
    fn a_well_formed_exchange_passes() {
        let request = json!({"messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [call("a"), call("b")]},
            {"role": "user", "content": [result("a")]},
            {"role": "user", "content": [result("b"), {"type": "text", "text": "and"}]},
        ]});
        assert_eq!(rules(&request), vec![]);
    }

    #[test]
    fn a_late_result_after_text_is_a_duplicate_and_not_first_in_the_merged_turn() {
        let request = json!({"messages": [
            {"role": "assistant", "content": [call("x")]},
            {"role": "user", "content": [result("x")]},
            {"role": "user", "content": [{"type": "text", "text": "notice"}]},
            {"role": "user", "content": [result("x")]},
        ]});
        assert_eq!(
            rules(&request),
            vec![(ResultsNotFirst, 3, Some(0)), (DuplicateResult, 3, Some(0))]
        );
    }

    #[test]
    fn results_must_answer_the_immediately_preceding_assistant() {
        let request = json!({"messages": [
            {"role": "assistant", "content": [call("x")]},
            {"role": "user", "content": [result("x")]},
            {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
            {"role": "user", "content": [result("x"), result("ghost")]},
        ]});
        assert_eq!(
            rules(&request),
            vec![(OrphanResult, 3, Some(0)), (OrphanResult, 3, Some(1))]
        );
        let text = &validate(&typed(&JsValue::from(&request)), 0)[0].text;
        assert!(text.starts_with(
            "messages.3.content.0: unexpected tool_use_id found in tool_result blocks: x."
        ));
    }

    #[test]
    fn unanswered_calls_and_a_result_with_no_assistant_before_it() {
        let request = json!({"messages": [
            {"role": "user", "content": [result("early")]},
            {"role": "assistant", "content": [call("a"), call("b")]},
            {"role": "user", "content": [result("b")]},
        ]});
        assert_eq!(
            rules(&request),
            vec![(OrphanResult, 0, Some(0)), (MissingResult, 1, Some(0))]
        );
        let trailing = json!({"messages": [{"role": "assistant", "content": [call("a")]}]});
        assert_eq!(rules(&trailing), vec![(MissingResult, 0, Some(0))]);
    }

    #[test]
    fn tool_use_ids_are_unique_request_wide_and_well_formed() {
        let long = "z".repeat(65);
        let request = json!({"messages": [
            {"role": "assistant", "content": [call("a_b"), call("a_b")]},
            {"role": "user", "content": [result("a_b")]},
            {"role": "assistant", "content": [call("a_b"), call("bad.id"), call(&long), call("")]},
            {"role": "user", "content": [result("a_b"), result("bad.id"), result(&long), result("")]},
        ]});
        assert_eq!(
            rules(&request),
            vec![
                (DuplicateToolUseId, 0, Some(1)),
                (DuplicateToolUseId, 2, Some(0)),
                (InvalidToolUseId, 2, Some(1)),
                (InvalidToolUseId, 2, Some(2)),
                (InvalidToolUseId, 2, Some(3)),
            ]
        );
        let ok = "z".repeat(64);
        let fine = json!({"messages": [
            {"role": "assistant", "content": [call(&ok)]},
            {"role": "user", "content": [result(&ok)]},
        ]});
        assert_eq!(rules(&fine), vec![]);
    }

    #[test]
    fn consecutive_assistant_messages_merge_into_one_turn() {
        let request = json!({"messages": [
            {"role": "assistant", "content": [call("a")]},
            {"role": "assistant", "content": [call("b")]},
            {"role": "user", "content": [result("a"), result("b")]},
        ]});
        assert_eq!(rules(&request), vec![]);
    }
}
