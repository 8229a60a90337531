//! The OpenAI chat-completions rules for chat-schema output (docs/compaction.md#invariants): every
//! `tool` message answers a call of the assistant message before it, with only tool messages
//! between; every call is answered before the next other message. Each violation carries the
//! message index, a stable rule id and the error text the API returns.
//!
//! Messages are read as AutoBot sends them: the role is `role`, else `sender`; a stored message's
//! `text` stands in for `content`. A non-object entry is itself a violation.

use serde::Serialize;
use serde_json::Value;

use crate::json_text;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatViolation {
    /// Stable rule id, e.g. `tool-without-call`.
    pub rule: &'static str,
    /// Index of the offending message.
    pub index: usize,
    /// The error text the API returns.
    pub message: String,
}

pub const NOT_AN_OBJECT: &str = "not-an-object";
pub const INVALID_ROLE: &str = "invalid-role";
pub const TOOL_WITHOUT_CALL: &str = "tool-without-call";
pub const UNKNOWN_TOOL_CALL_ID: &str = "unknown-tool-call-id";
pub const MISSING_TOOL_RESPONSE: &str = "missing-tool-response";

/// Every rule id this validator reports, with a one-line statement.
pub const RULES: &[(&str, &str)] = &[
    (NOT_AN_OBJECT, "every entry of `messages` is an object"),
    (
        INVALID_ROLE,
        "every message has one of the roles the API accepts",
    ),
    (
        TOOL_WITHOUT_CALL,
        "a tool message follows an assistant message with tool_calls, with only tool messages between",
    ),
    (
        UNKNOWN_TOOL_CALL_ID,
        "a tool message's tool_call_id is one of the calls of that assistant message",
    ),
    (
        MISSING_TOOL_RESPONSE,
        "every tool call is answered before the next non-tool message",
    ),
];

const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

/// The calls of the assistant message whose responses are being read.
struct OpenBatch<'a> {
    index: usize,
    ids: Vec<&'a str>,
    answered: Vec<bool>,
}

pub fn validate(messages: &[Value]) -> Vec<ChatViolation> {
    let mut found = Vec::new();
    let mut batch: Option<OpenBatch> = None;
    for (index, message) in messages.iter().enumerate() {
        let Some(object) = message.as_object() else {
            close(batch.take(), &mut found);
            found.push(violation(
                NOT_AN_OBJECT,
                index,
                format!(
                    "Invalid type for 'messages[{index}]': expected an object, but got {} instead.",
                    json_text::type_name(message)
                ),
            ));
            continue;
        };
        let role = role_of(object);
        if role == "tool" {
            let id = object
                .get("tool_call_id")
                .and_then(Value::as_str)
                .unwrap_or("");
            match batch.as_mut() {
                None => found.push(violation(TOOL_WITHOUT_CALL, index,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".to_string())),
                Some(open) => match open.ids.iter().position(|&c| c == id) {
                    Some(at) => open.answered[at] = true,
                    None => found.push(violation(UNKNOWN_TOOL_CALL_ID, index, format!(
                        "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."
                    ))),
                },
            }
            continue;
        }
        close(batch.take(), &mut found);
        if !ROLES.contains(&role) {
            found.push(violation(INVALID_ROLE, index, format!(
                "Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."
            )));
        }
        if role == "assistant" {
            let ids: Vec<&str> = object
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|call| call.get("id").and_then(Value::as_str).unwrap_or(""))
                .collect();
            if !ids.is_empty() {
                let answered = vec![false; ids.len()];
                batch = Some(OpenBatch {
                    index,
                    ids,
                    answered,
                });
            }
        }
    }
    close(batch, &mut found);
    found
}

/// Reports the unanswered calls of a batch that has just ended.
fn close(batch: Option<OpenBatch>, found: &mut Vec<ChatViolation>) {
    let Some(batch) = batch else { return };
    let missing: Vec<&str> = batch
        .ids
        .iter()
        .zip(&batch.answered)
        .filter(|(_, answered)| !**answered)
        .map(|(id, _)| *id)
        .collect();
    if !missing.is_empty() {
        found.push(violation(MISSING_TOOL_RESPONSE, batch.index, format!(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
            missing.join(", ")
        )));
    }
}

fn role_of(object: &serde_json::Map<String, Value>) -> &str {
    let read = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or("");
    match read("role") {
        "" => read("sender"),
        role => role,
    }
}

fn violation(rule: &'static str, index: usize, message: String) -> ChatViolation {
    ChatViolation {
        rule,
        index,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(messages: Value) -> Vec<(&'static str, usize)> {
        validate(messages.as_array().unwrap())
            .iter()
            .map(|v| (v.rule, v.index))
            .collect()
    }

    #[test]
    fn a_complete_batch_is_valid() {
        let ok = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "b"}]},
            {"role": "tool", "tool_call_id": "b", "content": "1"},
            {"role": "tool", "tool_call_id": "a", "content": "2"},
            {"sender": "assistant", "text": "done"}
        ]);
        assert_eq!(rules(ok), vec![]);
    }

    #[test]
    fn a_message_between_call_and_result_breaks_both_rules() {
        let split = json!([
            {"role": "assistant", "tool_calls": [{"id": "a"}]},
            {"sender": "system", "text": "summary", "messageType": "context_summary"},
            {"role": "tool", "tool_call_id": "a"}
        ]);
        assert_eq!(
            rules(split),
            vec![(MISSING_TOOL_RESPONSE, 0), (TOOL_WITHOUT_CALL, 2)]
        );
    }

    #[test]
    fn a_message_that_is_not_an_object_is_named_by_its_json_type() {
        let values = json!([null, true, 1.5, "text", [], 0]);
        let messages: Vec<_> = validate(values.as_array().unwrap())
            .into_iter()
            .map(|v| v.message)
            .collect();
        let got = |index: usize, kind: &str| {
            format!(
                "Invalid type for 'messages[{index}]': expected an object, but got {kind} instead."
            )
        };
        assert_eq!(
            messages,
            vec![
                got(0, "null"),
                got(1, "a boolean"),
                got(2, "a number"),
                got(3, "a string"),
                got(4, "an array"),
                got(5, "a number"),
            ]
        );
    }

    #[test]
    fn unknown_ids_roles_and_non_objects_are_named() {
        let bad = json!([
            "not a dict",
            {"role": "assistant", "tool_calls": [{"id": "a"}]},
            {"role": "tool", "tool_call_id": "z"},
            {"role": "robot"}
        ]);
        let found = validate(bad.as_array().unwrap());
        let ids: Vec<_> = found.iter().map(|v| (v.rule, v.index)).collect();
        assert_eq!(
            ids,
            vec![
                (NOT_AN_OBJECT, 0),
                (UNKNOWN_TOOL_CALL_ID, 2),
                (MISSING_TOOL_RESPONSE, 1),
                (INVALID_ROLE, 3)
            ]
        );
        assert!(found[1].message.contains("'z' not found"));
        assert!(
            found[2]
                .message
                .ends_with("did not have response messages: a")
        );
    }
}
