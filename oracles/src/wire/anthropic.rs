//! The Anthropic Messages API's 400 rules on tool use, checked on a request body.
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

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use super::WireRule;
use crate::js::{field, is_str};

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireViolation {
    /// One of `OrphanResult`, `MissingResult`, `DuplicateToolUseId`, `DuplicateResult`,
    /// `ResultsNotFirst`, `InvalidToolUseId`.
    pub rule: WireRule,
    /// Index of the request message holding the offending block.
    pub message: usize,
    /// Index of the block in that message's content (`None` for string content).
    pub block: Option<usize>,
    pub tool_use_id: Option<String>,
    /// The error text the API returns.
    pub text: String,
}

/// Where a block sits in the request.
struct Located<'a> {
    message: usize,
    block: Option<usize>,
    value: Option<&'a Value>,
}

struct Turn<'a> {
    role: Option<&'a str>,
    blocks: Vec<Located<'a>>,
}

/// Every violation of the rules above, in request order (per turn: id checks, then results).
pub fn validate(request: &Value) -> Vec<WireViolation> {
    let Some(Value::Array(messages)) = field(request, "messages") else {
        return Vec::new();
    };
    let turns = merge_turns(messages);
    let mut violations = Vec::new();
    let mut seen_tool_use_ids = HashSet::new();
    for (t, turn) in turns.iter().enumerate() {
        match turn.role {
            Some("assistant") => {
                check_tool_uses(turn, &mut seen_tool_use_ids, &mut violations);
                check_answered(turn, turns.get(t + 1), &mut violations);
            }
            Some("user") => {
                let previous = t.checked_sub(1).map(|p| &turns[p]);
                check_results(turn, previous, &mut violations);
            }
            _ => {}
        }
    }
    violations
}

/// Consecutive messages with the same role form one turn, as the API merges them.
fn merge_turns(messages: &[Value]) -> Vec<Turn<'_>> {
    let mut turns: Vec<Turn<'_>> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let role = field(message, "role").and_then(Value::as_str);
        let blocks: Vec<Located<'_>> = match field(message, "content") {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .enumerate()
                .map(|(b, value)| Located {
                    message: index,
                    block: Some(b),
                    value: Some(value),
                })
                .collect(),
            _ => vec![Located {
                message: index,
                block: None,
                value: None,
            }],
        };
        match turns.last_mut() {
            Some(last) if last.role == role => last.blocks.extend(blocks),
            _ => turns.push(Turn { role, blocks }),
        }
    }
    turns
}

fn blocks_of_type<'t, 'a>(
    turn: &'t Turn<'a>,
    kind: &'t str,
) -> impl Iterator<Item = &'t Located<'a>> + 't {
    turn.blocks
        .iter()
        .filter(move |b| b.value.is_some_and(|v| is_str(field(v, "type"), kind)))
}

/// An id as the API compares and prints it.
fn id_text(id: Option<&Value>) -> Option<String> {
    match id? {
        Value::String(id) => Some(id.clone()),
        other => Some(other.to_string()),
    }
}

fn location(block: &Located<'_>) -> String {
    match block.block {
        Some(b) => format!("messages.{}.content.{b}", block.message),
        None => format!("messages.{}", block.message),
    }
}

fn violation(
    rule: WireRule,
    block: &Located<'_>,
    id: Option<String>,
    text: String,
) -> WireViolation {
    WireViolation {
        rule,
        message: block.message,
        block: block.block,
        tool_use_id: id,
        text,
    }
}

fn check_tool_uses(turn: &Turn<'_>, seen: &mut HashSet<String>, out: &mut Vec<WireViolation>) {
    for block in blocks_of_type(turn, "tool_use") {
        let raw = block.value.and_then(|v| field(v, "id"));
        let id = id_text(raw);
        if let Some(problem) = id_syntax_problem(raw) {
            let text = format!("{}.id: {problem}", location(block));
            out.push(violation(
                WireRule::InvalidToolUseId,
                block,
                id.clone(),
                text,
            ));
        }
        if let Some(id) = id.filter(|id| !seen.insert(id.clone())) {
            let text = format!("{}: tool_use ids must be unique", location(block));
            out.push(violation(
                WireRule::DuplicateToolUseId,
                block,
                Some(id),
                text,
            ));
        }
    }
}

/// Why the API refuses this id, if it does.
fn id_syntax_problem(id: Option<&Value>) -> Option<&'static str> {
    let Some(Value::String(id)) = id else {
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

fn result_ids(turn: Option<&Turn<'_>>, role: &str, kind: &str, key: &str) -> HashSet<String> {
    match turn {
        Some(turn) if turn.role == Some(role) => blocks_of_type(turn, kind)
            .filter_map(|b| id_text(b.value.and_then(|v| field(v, key))))
            .collect(),
        _ => HashSet::new(),
    }
}

fn check_answered(turn: &Turn<'_>, next: Option<&Turn<'_>>, out: &mut Vec<WireViolation>) {
    let answered = result_ids(next, "user", "tool_result", "tool_use_id");
    for block in blocks_of_type(turn, "tool_use") {
        let id = id_text(block.value.and_then(|v| field(v, "id")));
        if id.as_ref().is_some_and(|id| answered.contains(id)) {
            continue;
        }
        let shown = id.clone().unwrap_or_default();
        let text = format!(
            "messages.{}: tool_use ids were found without tool_result blocks immediately after: {shown}. \
             Each tool_use block must have a corresponding tool_result block in the next message.",
            block.message
        );
        out.push(violation(WireRule::MissingResult, block, id, text));
    }
}

fn check_results(turn: &Turn<'_>, previous: Option<&Turn<'_>>, out: &mut Vec<WireViolation>) {
    let calls = result_ids(previous, "assistant", "tool_use", "id");
    let mut answered = HashSet::new();
    let mut other_content_seen = false;
    let mut reported_not_first = false;
    for block in &turn.blocks {
        let is_result = block
            .value
            .is_some_and(|v| is_str(field(v, "type"), "tool_result"));
        if !is_result {
            other_content_seen = true;
            continue;
        }
        let id = id_text(block.value.and_then(|v| field(v, "tool_use_id")));
        let shown = id.clone().unwrap_or_default();
        if other_content_seen && !reported_not_first {
            reported_not_first = true;
            let text = format!(
                "{}: tool_result blocks must come first in the user message, before any other content",
                location(block)
            );
            out.push(violation(
                WireRule::ResultsNotFirst,
                block,
                id.clone(),
                text,
            ));
        }
        let known = id.as_ref().is_some_and(|id| calls.contains(id));
        if !known {
            let text = format!(
                "{}: unexpected tool_use_id found in tool_result blocks: {shown}. Each tool_result block \
                 must have a corresponding tool_use block in the previous message.",
                location(block)
            );
            out.push(violation(WireRule::OrphanResult, block, id.clone(), text));
        } else if !answered.insert(shown.clone()) {
            let text = format!(
                "{}: each tool_use must have a single result. Found multiple tool_result blocks with id: {shown}",
                location(block)
            );
            out.push(violation(WireRule::DuplicateResult, block, id, text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WireRule::*;
    use super::*;
    use serde_json::json;

    fn rules(request: &Value) -> Vec<(WireRule, usize, Option<usize>)> {
        validate(request)
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
        let text = &validate(&request)[0].text;
        assert!(text.starts_with(
            "messages.3.content.0: unexpected tool_use_id found in tool_result blocks: x."
        ));
    }

    /// A result answers only a call in the assistant turn before it, and a call is answered only
    /// by a result in the user turn after it: blocks in a turn of another role (a mid-conversation
    /// `system` message) count for neither.
    #[test]
    fn calls_and_results_count_only_in_their_own_roles_turns() {
        let request = json!({"messages": [
            {"role": "system", "content": [call("s")]},
            {"role": "user", "content": [result("s")]},
            {"role": "assistant", "content": [call("a")]},
            {"role": "system", "content": [result("a")]},
            {"role": "user", "content": "go on"},
        ]});
        assert_eq!(
            rules(&request),
            vec![(OrphanResult, 1, Some(0)), (MissingResult, 2, Some(0))]
        );
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
