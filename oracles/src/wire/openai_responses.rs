//! The OpenAI Responses API's rules on a request body's `input` items (what pi's openai-responses
//! provider sends, [`crate::pi::request::openai_responses`]), each with the error text the API
//! returns, as users reported it:
//!
//! - `missing-function-call-output`: a `function_call` whose `call_id` no `function_call_output`
//!   of the input answers: "No tool output found for function call call_….", reported in
//!   <https://github.com/tjardoo/openai-client/pull/124>;
//! - `function-call-output-without-call`: a `function_call_output` whose `call_id` no
//!   `function_call` of the input has: "No tool call found for function call output with call_id
//!   call_….", reported in <https://github.com/continuedev/continue/issues/10092> and
//!   <https://github.com/leookun/cursor-byok/issues/307>;
//! - `reasoning-without-following-item`: a `reasoning` item not followed by the output item it was
//!   made with (an assistant `message` or a `function_call`; a reasoning item followed by another
//!   one is not judged): "Item 'rs_…' of type 'reasoning' was provided without its required
//!   following item.", reported in <https://github.com/continuedev/continue/issues/8933> and
//!   <https://github.com/openai/openai-node/issues/1567>;
//! - `duplicate-item-id`: an item `id` that an earlier item has: "Duplicate item found with id
//!   rs_…. Remove duplicate items from your input and try again.", reported in
//!   <https://github.com/OpenRouterTeam/ai-sdk-provider/issues/254> (a reasoning id) and
//!   <https://github.com/github/app/issues/540> (a function call's);
//! - `invalid-function-call-id`: a `function_call` item `id` that does not begin with `fc`:
//!   "Invalid 'input[N].id': 'item_…'. Expected an ID that begins with 'fc'.", reported in
//!   <https://github.com/Wei-Shaw/sub2api/issues/3785> and
//!   <https://github.com/gethnet/litellm-connector-copilot/issues/54>; an empty one is refused
//!   with "Expected an ID that contains letters, numbers, underscores, or dashes, but this value
//!   contained additional characters." (<https://github.com/langchain-ai/langchainjs/issues/11044>).
//!
//! Where in the input a call and its output stand is not judged: the reports name only their
//! pairing. Items are read as the API reads them: `type`, `call_id` and `id` when they are strings.

use std::borrow::Borrow;
use std::iter;

use foldhash::{HashSet, HashSetExt};

use super::EntryViolation;
use super::WireRule::*;
use super::str_field;
use crate::js::Json;

pub mod body;

/// What the rules read of an item, in any JSON value or the typed input pi builds ([`body`]).
pub trait InputEntry {
    /// `item[key]` when it is a string, for the keys the rules read: `type`, `call_id`, `id`,
    /// and `role` of a `message` item.
    fn str_member(&self, key: &str) -> Option<&str>;
}

impl<J: Json> InputEntry for J {
    fn str_member(&self, key: &str) -> Option<&str> {
        str_field(self, key)
    }
}

/// The violations of a Responses request body's `input`, read in any [`InputEntry`] type (`M` is
/// `E` or a reference to one), in item order.
pub fn validate_input<E: InputEntry, M: Borrow<E>>(input: &[M]) -> Vec<EntryViolation> {
    let items: Vec<&E> = input.iter().map(Borrow::borrow).collect();
    let call_ids_of = |kind: &str| -> HashSet<&str> {
        items
            .iter()
            .filter(|item| item.str_member("type") == Some(kind))
            .filter_map(|item| item.str_member("call_id"))
            .collect()
    };
    let calls = call_ids_of("function_call");
    let outputs = call_ids_of("function_call_output");
    let mut ids = HashSet::with_capacity(items.len());
    let mut found = Vec::new();
    let next_items = items.iter().skip(1).map(Some).chain(iter::once(None));
    for (index, (&item, next)) in items.iter().zip(next_items).enumerate() {
        let call_id = item.str_member("call_id").unwrap_or_default();
        let id = item.str_member("id");
        let violation = |rule, message| EntryViolation {
            rule,
            index,
            message,
        };
        match item.str_member("type") {
            Some("function_call") => {
                if !outputs.contains(call_id) {
                    found.push(violation(
                        MissingFunctionCallOutput,
                        format!("No tool output found for function call {call_id}."),
                    ));
                }
                if let Some(message) = id.and_then(|id| invalid_function_call_id(index, id)) {
                    found.push(violation(InvalidFunctionCallId, message));
                }
            }
            Some("function_call_output") if !calls.contains(call_id) => {
                found.push(violation(
                    FunctionCallOutputWithoutCall,
                    format!("No tool call found for function call output with call_id {call_id}."),
                ));
            }
            Some("reasoning") if !next.is_some_and(|next| follows_reasoning(*next)) => {
                found.push(violation(
                    ReasoningWithoutFollowingItem,
                    format!(
                        "Item '{}' of type 'reasoning' was provided without its required following item.",
                        id.unwrap_or_default()
                    ),
                ));
            }
            _ => {}
        }
        if let Some(id) = id
            && !ids.insert(id)
        {
            found.push(violation(
                DuplicateItemId,
                format!(
                    "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
                ),
            ));
        }
    }
    found
}

/// The API's refusal of a `function_call` item's `id`, if it refuses it.
fn invalid_function_call_id(index: usize, id: &str) -> Option<String> {
    let expected = if id.is_empty() {
        "Expected an ID that contains letters, numbers, underscores, or dashes, but this value contained additional characters."
    } else if !id.starts_with("fc") {
        "Expected an ID that begins with 'fc'."
    } else {
        return None;
    };
    Some(format!("Invalid 'input[{index}].id': '{id}'. {expected}"))
}

/// What a reasoning item may be followed by: the output it was made with (an assistant message,
/// a function call), or another reasoning item of that output.
fn follows_reasoning(next: &impl InputEntry) -> bool {
    match next.str_member("type") {
        Some("message") => next.str_member("role") == Some("assistant"),
        Some("function_call" | "reasoning") => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::js_value::{self, JsValue};
    use crate::wire::WireRule;

    fn found(input: Value) -> Vec<(WireRule, usize, String)> {
        let items = input.as_array().unwrap();
        let borrowed = js_value::borrow_all(items);
        let by_value = validate_input::<Value, _>(items);
        assert_eq!(validate_input::<JsValue, _>(&borrowed), by_value);
        by_value
            .into_iter()
            .map(|v| (v.rule, v.index, v.message))
            .collect()
    }

    fn rules(input: Value) -> Vec<(WireRule, usize)> {
        found(input).into_iter().map(|(r, i, _)| (r, i)).collect()
    }

    fn user() -> Value {
        json!({"role": "user", "content": [{"type": "input_text", "text": "go"}]})
    }

    fn call(call_id: &str) -> Value {
        json!({"type": "function_call", "call_id": call_id, "name": "read", "arguments": "{}"})
    }

    fn output(call_id: &str) -> Value {
        json!({"type": "function_call_output", "call_id": call_id, "output": "ok"})
    }

    fn reasoning(id: &str) -> Value {
        json!({"type": "reasoning", "id": id, "summary": []})
    }

    fn message(id: &str) -> Value {
        json!({"type": "message", "role": "assistant", "id": id, "status": "completed",
               "content": [{"type": "output_text", "text": "a", "annotations": []}]})
    }

    #[test]
    fn a_complete_exchange_is_valid() {
        let input = json!([
            {"role": "developer", "content": "be brief"},
            user(),
            reasoning("rs_1"),
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": "{}"},
            reasoning("rs_2"),
            reasoning("rs_3"),
            call("call_2"),
            output("call_2"),
            output("call_1"),
            reasoning("rs_4"),
            message("msg_1"),
            user()
        ]);
        assert_eq!(rules(input), vec![]);
    }

    #[test]
    fn a_call_without_its_output_is_refused_with_openai_s_text() {
        assert_eq!(
            found(json!([
                user(),
                call("call_1"),
                call("call_2"),
                output("call_2")
            ])),
            vec![(
                MissingFunctionCallOutput,
                1,
                "No tool output found for function call call_1.".to_string()
            )]
        );
    }

    /// Pairing is by `call_id` across the whole input: an output before its call still answers it.
    #[test]
    fn an_output_without_its_call_is_refused_with_openai_s_text() {
        assert_eq!(
            found(json!([
                user(),
                output("call_1"),
                output("call_2"),
                call("call_2")
            ])),
            vec![(
                FunctionCallOutputWithoutCall,
                1,
                "No tool call found for function call output with call_id call_1.".to_string()
            )]
        );
    }

    #[test]
    fn a_reasoning_item_needs_its_following_item() {
        let text = |id: &str| {
            format!(
                "Item '{id}' of type 'reasoning' was provided without its required following item."
            )
        };
        assert_eq!(
            found(json!([
                user(),
                reasoning("rs_1"),
                user(),
                reasoning("rs_2")
            ])),
            vec![
                (ReasoningWithoutFollowingItem, 1, text("rs_1")),
                (ReasoningWithoutFollowingItem, 3, text("rs_2")),
            ]
        );
        // Followed by a tool output, a user's message item or a reasoning item without an id.
        let user_message = json!({"type": "message", "role": "user", "content": []});
        assert_eq!(
            rules(json!([
                call("c"),
                reasoning("rs_1"),
                output("c"),
                reasoning("rs_2"),
                user_message
            ])),
            vec![
                (ReasoningWithoutFollowingItem, 1),
                (ReasoningWithoutFollowingItem, 3)
            ]
        );
        assert_eq!(
            found(json!([{"type": "reasoning"}])),
            vec![(ReasoningWithoutFollowingItem, 0, text(""))]
        );
    }

    #[test]
    fn an_item_id_may_not_repeat() {
        assert_eq!(
            found(json!([reasoning("rs_1"), message("msg_1"), reasoning("rs_1"), message("msg_2")])),
            vec![(
                DuplicateItemId,
                2,
                "Duplicate item found with id rs_1. Remove duplicate items from your input and try again."
                    .to_string()
            )]
        );
        // Only string ids count.
        assert_eq!(
            rules(json!([{"type": "x", "id": 1}, {"type": "x", "id": 1}])),
            vec![]
        );
    }

    #[test]
    fn a_function_call_id_must_begin_with_fc() {
        let with_id = |id: &str| json!({"type": "function_call", "id": id, "call_id": "c", "name": "read", "arguments": "{}"});
        assert_eq!(
            found(json!([user(), with_id("item_1"), output("c")])),
            vec![(
                InvalidFunctionCallId,
                1,
                "Invalid 'input[1].id': 'item_1'. Expected an ID that begins with 'fc'."
                    .to_string()
            )]
        );
        assert_eq!(
            found(json!([with_id(""), output("c")])),
            vec![(
                InvalidFunctionCallId,
                0,
                "Invalid 'input[0].id': ''. Expected an ID that contains letters, numbers, underscores, or dashes, but this value contained additional characters."
                    .to_string()
            )]
        );
        assert_eq!(rules(json!([with_id("fc1"), output("c")])), vec![]);
        // Another item's id is not held to it.
        assert_eq!(rules(json!([message("item_2")])), vec![]);
    }
}
