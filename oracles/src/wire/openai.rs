//! The OpenAI chat-completions rules for chat-schema output (docs/compaction.md#invariants): every
//! `tool` message answers a call of the assistant message before it, with only tool messages
//! between; every call is answered before the next other message. Each violation carries the
//! message index, a stable rule id and the error text the API returns.
//!
//! Messages are read as AutoBot sends them: the role is `role`, else `sender`; a stored message's
//! `text` stands in for `content`. A non-object entry is itself a violation. The rules read a
//! message through [`ChatEntry`]: any JSON value, or the typed body pi builds ([`body`]).

use std::borrow::Borrow;

use super::EntryViolation;
use super::WireRule::{self, *};
use crate::js::{Json, View};
use crate::json_text;

pub mod body;

/// What the chat rules read of a message.
pub trait ChatEntry {
    /// `None` for an object, else the name of its JSON type (for the error text).
    fn not_an_object(&self) -> Option<&'static str>;
    /// `message[key]` when it is a string, else `""`.
    fn str_member(&self, key: &str) -> &str;
    /// The `id` of each of `message.tool_calls` (`""` where it is not a string); none when
    /// `tool_calls` is not an array.
    fn call_ids(&self) -> Vec<&str>;
}

impl<J: Json> ChatEntry for J {
    fn not_an_object(&self) -> Option<&'static str> {
        match self.view() {
            View::Object => None,
            _ => Some(json_text::type_name(self)),
        }
    }

    fn str_member(&self, key: &str) -> &str {
        str_field(self, key)
    }

    fn call_ids(&self) -> Vec<&str> {
        match self.member("tool_calls").map(Json::view) {
            Some(View::Array(calls)) => calls.iter().map(|call| str_field(call, "id")).collect(),
            _ => Vec::new(),
        }
    }
}

/// OpenAI's limit on a tool call id, in characters.
const MAX_TOOL_CALL_ID: usize = 40;

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

/// The violations of `messages`, read in any [`ChatEntry`] type (`M` is `E` or a reference to
/// one).
pub fn validate<E: ChatEntry, M: Borrow<E>>(messages: &[M]) -> Vec<EntryViolation> {
    let mut found = Vec::new();
    let mut batch: Option<OpenBatch> = None;
    for (index, message) in messages.iter().enumerate() {
        let message: &E = message.borrow();
        if let Some(type_name) = message.not_an_object() {
            close(batch.take(), &mut found);
            found.push(violation(
                NotAnObject,
                index,
                format!(
                    "Invalid type for 'messages[{index}]': expected an object, but got {type_name} instead.",
                ),
            ));
            continue;
        }
        let role = role_of(message);
        if role == "tool" {
            let id = message.str_member("tool_call_id");
            match batch.as_mut() {
                None => found.push(violation(ToolWithoutCall, index,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".to_string())),
                Some(open) => match open.ids.iter().position(|&c| c == id) {
                    Some(at) => open.answered[at] = true,
                    None => found.push(violation(UnknownToolCallId, index, format!(
                        "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."
                    ))),
                },
            }
            continue;
        }
        close(batch.take(), &mut found);
        if !ROLES.contains(&role) {
            found.push(violation(InvalidRole, index, format!(
                "Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."
            )));
        }
        if role == "assistant" {
            let ids = message.call_ids();
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

/// The violations of a Chat Completions request body's `messages` (what pi's openai-completions
/// provider sends): the chat rules of [`validate`], and every `tool_calls[].id` over 40
/// characters, which OpenAI refuses with `string_above_max_length` (reported:
/// <https://github.com/agno-agi/agno/issues/5382>, and through OpenRouter
/// <https://github.com/openclaw/openclaw/pull/875>).
pub fn validate_body<E: ChatEntry, M: Borrow<E>>(messages: &[M]) -> Vec<EntryViolation> {
    let mut found = validate::<E, M>(messages);
    for (index, message) in messages.iter().enumerate() {
        for (at, id) in message.borrow().call_ids().into_iter().enumerate() {
            let length = id.chars().count();
            if length > MAX_TOOL_CALL_ID {
                found.push(violation(ToolCallIdTooLong, index, format!(
                    "Invalid 'messages[{index}].tool_calls[{at}].id': string too long. Expected a string with maximum length 40, but got a string with length {length} instead."
                )));
            }
        }
    }
    found
}

/// Reports the unanswered calls of a batch that has just ended.
fn close(batch: Option<OpenBatch>, found: &mut Vec<EntryViolation>) {
    let Some(batch) = batch else { return };
    let missing: Vec<&str> = batch
        .ids
        .iter()
        .zip(&batch.answered)
        .filter(|(_, answered)| !**answered)
        .map(|(id, _)| *id)
        .collect();
    if !missing.is_empty() {
        found.push(violation(MissingToolResponse, batch.index, format!(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
            missing.join(", ")
        )));
    }
}

fn role_of(message: &impl ChatEntry) -> &str {
    match message.str_member("role") {
        "" => message.str_member("sender"),
        role => role,
    }
}

/// `object[key]` when it is a string, else `""`.
fn str_field<'j>(object: &'j impl Json, key: &str) -> &'j str {
    match object.member(key).map(Json::view) {
        Some(View::String(text)) => text,
        _ => "",
    }
}

fn violation(rule: WireRule, index: usize, message: String) -> EntryViolation {
    EntryViolation {
        rule,
        index,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js_value::JsValue;
    use serde_json::{Value, json};

    fn rules(messages: Value) -> Vec<(WireRule, usize)> {
        validate::<Value, _>(messages.as_array().unwrap())
            .iter()
            .map(|v| (v.rule, v.index))
            .collect()
    }

    fn body_rules(messages: Value) -> Vec<(WireRule, usize, String)> {
        validate_body::<Value, _>(messages.as_array().unwrap())
            .into_iter()
            .map(|v| (v.rule, v.index, v.message))
            .collect()
    }

    /// A call id of 41 characters is refused, one of 40 is not; only `tool_calls` ids count.
    #[test]
    fn a_body_s_call_id_over_40_characters_is_refused() {
        let id = |n: usize| "é".repeat(n);
        let body = json!([
            {"role": "assistant", "tool_calls": [{"id": id(40)}, {"id": id(41)}]},
            {"role": "tool", "tool_call_id": id(40)},
            {"role": "tool", "tool_call_id": id(41)},
            {"role": "user", "content": "go", "tool_calls": 5}
        ]);
        assert_eq!(
            body_rules(body),
            vec![(ToolCallIdTooLong, 0, "Invalid 'messages[0].tool_calls[1].id': string too long. Expected a string with maximum length 40, but got a string with length 41 instead.".to_string())]
        );
    }

    /// The chat rules hold on a body too, with OpenAI's texts.
    #[test]
    fn a_body_keeps_the_chat_rules() {
        let body = json!([
            {"role": "tool", "tool_call_id": "a"},
            {"role": "assistant", "tool_calls": [{"id": "b"}]},
            {"role": "user", "content": "go"}
        ]);
        let found = body_rules(body);
        assert_eq!(
            found.iter().map(|(r, i, _)| (*r, *i)).collect::<Vec<_>>(),
            vec![(ToolWithoutCall, 0), (MissingToolResponse, 1)]
        );
        assert!(found[0].2.starts_with("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"));
        assert!(found[1].2.starts_with("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"));
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
            vec![(MissingToolResponse, 0), (ToolWithoutCall, 2)]
        );
    }

    #[test]
    fn a_message_that_is_not_an_object_is_named_by_its_json_type() {
        let values = json!([null, true, 1.5, "text", [], 0]);
        let messages: Vec<_> = validate::<Value, _>(values.as_array().unwrap())
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
        let found = validate::<Value, _>(bad.as_array().unwrap());
        let borrowed = crate::js_value::borrow_all(bad.as_array().unwrap());
        assert_eq!(validate::<JsValue, _>(&borrowed), found);
        let ids: Vec<_> = found.iter().map(|v| (v.rule, v.index)).collect();
        assert_eq!(
            ids,
            vec![
                (NotAnObject, 0),
                (UnknownToolCallId, 2),
                (MissingToolResponse, 1),
                (InvalidRole, 3)
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
