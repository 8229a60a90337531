//! The Gemini API's rules on a request body's `contents` (what pi's google-generative-ai provider
//! sends, [`crate::pi::request::google`]), each with the error text the API returns (a 400
//! `INVALID_ARGUMENT`), as users reported it:
//!
//! - `function-call-not-after-user`: a `model` content with `functionCall` parts (a function call
//!   turn) that does not come right after a `user` content (a user turn or a function response
//!   turn; the first content included): "Please ensure that function call turn comes immediately
//!   after a user turn or after a function response turn.", reported in
//!   <https://github.com/google-gemini/gemini-cli/issues/11814> (a history that starts with a
//!   call) and <https://github.com/google-gemini/gemini-cli/issues/26486>;
//! - `function-response-not-after-call`: a `user` content with `functionResponse` parts (a function
//!   response turn) that does not come right after a function call turn: "Please ensure that
//!   function response turn comes immediately after a function call turn.", reported in
//!   <https://github.com/langchain-ai/langchain/issues/27799> and
//!   <https://github.com/GoogleCloudPlatform/generative-ai/pull/368>;
//! - `function-response-count-mismatch`: a function response turn right after a function call
//!   turn, with another number of `functionResponse` parts than that turn has `functionCall` parts:
//!   "Please ensure that the number of function response parts is equal to the number of function
//!   call parts of the function call turn.", reported in
//!   <https://github.com/google-gemini/gemini-cli/issues/4217> (gemini-2.5-pro) and
//!   <https://github.com/google-gemini/gemini-cli/issues/5443> (gemini-2.5-flash);
//! - `empty-text-part`: a part whose `text` is the empty string, without a `thoughtSignature`
//!   (Gemini attaches signatures to empty text parts and wants them back, pi-ai's `google-shared`
//!   notes): "Unable to submit request because it has an empty text parameter. Add a value to the
//!   parameter and try again. Learn more:
//!   https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini", reported in
//!   <https://github.com/zuisong/gemini-openai-proxy/issues/83>,
//!   <https://github.com/glowingjade/obsidian-smart-composer/issues/218> (the Gemini API's
//!   endpoint) and <https://github.com/chatboxai/chatbox/issues/1846>.
//!
//! Which response answers which call (by name and order, or by `id` where pi sends ids) is not
//! judged: the reports name only the turns and their counts. Contents are read as the API reads
//! them: `role` when it is a string, `parts` when it is an array.

use std::borrow::Borrow;

use super::EntryViolation;
use super::WireRule::*;
use super::str_field;
use crate::js::{Json, View};

pub mod body;

/// What the rules read of a content, in any JSON value or the typed contents pi builds
/// ([`body`]): its `role` when it is a string, its `parts` when they are an array.
pub trait ContentEntry {
    type Part: PartEntry;
    fn role(&self) -> Option<&str>;
    fn parts(&self) -> &[Self::Part];
}

/// What the rules read of a part.
pub trait PartEntry {
    /// Whether it has a `functionCall`.
    fn is_call(&self) -> bool;
    /// Whether it has a `functionResponse`.
    fn is_response(&self) -> bool;
    /// Whether its `text` is the empty string and it has no `thoughtSignature`.
    fn is_empty_unsigned_text(&self) -> bool;
}

impl<J: Json> ContentEntry for J {
    type Part = J;

    fn role(&self) -> Option<&str> {
        str_field(self, "role")
    }

    fn parts(&self) -> &[J] {
        match self.member("parts").map(Json::view) {
            Some(View::Array(parts)) => parts,
            _ => &[],
        }
    }
}

impl<J: Json> PartEntry for J {
    fn is_call(&self) -> bool {
        self.member("functionCall").is_some()
    }

    fn is_response(&self) -> bool {
        self.member("functionResponse").is_some()
    }

    fn is_empty_unsigned_text(&self) -> bool {
        str_field(self, "text") == Some("") && self.member("thoughtSignature").is_none()
    }
}

/// What the rules read of one content.
#[derive(Clone, Copy)]
struct Turn {
    user: bool,
    /// Its `functionCall` parts (a `model` content's).
    calls: usize,
    /// Its `functionResponse` parts (a `user` content's).
    responses: usize,
    /// Whether a part's `text` is empty and unsigned.
    empty_text: bool,
}

impl Turn {
    fn of(content: &impl ContentEntry) -> Self {
        let role = content.role();
        let parts = content.parts();
        Turn {
            user: role == Some("user"),
            calls: if role == Some("model") {
                parts.iter().filter(|part| part.is_call()).count()
            } else {
                0
            },
            responses: if role == Some("user") {
                parts.iter().filter(|part| part.is_response()).count()
            } else {
                0
            },
            empty_text: parts.iter().any(PartEntry::is_empty_unsigned_text),
        }
    }
}

/// The violations of a Gemini request body's `contents`, read in any [`ContentEntry`] type (`M` is
/// `E` or a reference to one), in content order.
pub fn validate_contents<E: ContentEntry, M: Borrow<E>>(contents: &[M]) -> Vec<EntryViolation> {
    let mut found = Vec::new();
    let mut previous: Option<Turn> = None;
    for (index, content) in contents.iter().enumerate() {
        let turn = Turn::of(content.borrow());
        let violation = |rule, message: &str| EntryViolation {
            rule,
            index,
            message: message.to_string(),
        };
        if turn.calls > 0 && !previous.is_some_and(|p| p.user) {
            found.push(violation(
                FunctionCallNotAfterUser,
                "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
            ));
        }
        if turn.responses > 0 {
            match previous.filter(|p| p.calls > 0) {
                None => found.push(violation(
                    FunctionResponseNotAfterCall,
                    "Please ensure that function response turn comes immediately after a function call turn.",
                )),
                Some(call_turn) if call_turn.calls != turn.responses => found.push(violation(
                    FunctionResponseCountMismatch,
                    "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
                )),
                Some(_) => {}
            }
        }
        if turn.empty_text {
            found.push(violation(
                EmptyTextPart,
                "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini",
            ));
        }
        previous = Some(turn);
    }
    found
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::js_value::{self, JsValue};
    use crate::wire::WireRule;

    fn rules(contents: Value) -> Vec<(WireRule, usize)> {
        let contents = contents.as_array().unwrap();
        let borrowed = js_value::borrow_all(contents);
        let by_value = validate_contents::<Value, _>(contents);
        assert_eq!(validate_contents::<JsValue, _>(&borrowed), by_value);
        by_value.into_iter().map(|v| (v.rule, v.index)).collect()
    }

    fn user() -> Value {
        json!({"role": "user", "parts": [{"text": "go"}]})
    }

    fn calls(n: usize) -> Value {
        let parts: Vec<Value> = (0..n)
            .map(|_| json!({"functionCall": {"name": "read", "args": {}}}))
            .collect();
        json!({"role": "model", "parts": parts})
    }

    fn responses(n: usize) -> Value {
        let parts: Vec<Value> = (0..n)
            .map(|_| json!({"functionResponse": {"name": "read", "response": {"output": "ok"}}}))
            .collect();
        json!({"role": "user", "parts": parts})
    }

    #[test]
    fn a_complete_exchange_is_valid() {
        let text = json!({"role": "model", "parts": [{"text": "done"}]});
        assert_eq!(
            rules(json!([
                user(),
                calls(2),
                responses(2),
                calls(1),
                responses(1),
                text
            ])),
            vec![]
        );
    }

    #[test]
    fn a_call_turn_comes_after_a_user_turn() {
        let text = json!({"role": "model", "parts": [{"text": "thinking aloud"}]});
        assert_eq!(
            rules(json!([calls(1), responses(1)])),
            vec![(FunctionCallNotAfterUser, 0)]
        );
        assert_eq!(
            rules(json!([user(), text, calls(1), responses(1)])),
            vec![(FunctionCallNotAfterUser, 2)]
        );
    }

    #[test]
    fn a_response_turn_comes_right_after_a_call_turn() {
        assert_eq!(
            rules(json!([user(), responses(1)])),
            vec![(FunctionResponseNotAfterCall, 1)]
        );
        assert_eq!(
            rules(json!([user(), calls(1), responses(1), responses(1)])),
            vec![(FunctionResponseNotAfterCall, 3)]
        );
        // A model content without calls is no call turn.
        let text = json!({"role": "model", "parts": [{"text": "a"}]});
        assert_eq!(
            rules(json!([user(), text, responses(1)])),
            vec![(FunctionResponseNotAfterCall, 2)]
        );
    }

    #[test]
    fn a_response_turn_answers_every_call_of_its_turn() {
        let found = |contents: Value| {
            let contents = contents.as_array().unwrap().clone();
            validate_contents::<Value, _>(&contents)
        };
        let violations = found(json!([user(), calls(2), responses(1)]));
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].rule, FunctionResponseCountMismatch);
        assert_eq!(violations[0].index, 2);
        assert_eq!(
            violations[0].message,
            "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
        );
        assert_eq!(
            rules(json!([user(), calls(1), responses(2)])),
            vec![(FunctionResponseCountMismatch, 2)]
        );
    }

    /// An empty text is refused unless it carries a thought signature (which Gemini attaches to
    /// empty parts and wants back); a text of blanks is not judged.
    #[test]
    fn a_text_part_may_be_empty_only_with_a_signature() {
        let parts = |parts: Value| json!({"role": "user", "parts": parts});
        assert_eq!(
            rules(json!([parts(json!([{"text": ""}, {"inlineData": {}}]))])),
            vec![(EmptyTextPart, 0)]
        );
        let signed = json!({"role": "model", "parts": [{"text": "", "thoughtSignature": "QUJD"}]});
        assert_eq!(
            rules(json!([user(), signed, parts(json!([{"text": " "}]))])),
            vec![]
        );
    }

    /// A role or parts of another type count as nothing: `parts` that is not an array holds no
    /// call, a `function` role is no user turn.
    #[test]
    fn contents_are_read_as_the_api_reads_them() {
        let odd_calls = json!({"role": "model", "parts": {"functionCall": {}}});
        assert_eq!(rules(json!([user(), odd_calls, user()])), vec![]);
        let function_role = json!({"role": "function", "parts": [{"text": "x"}]});
        assert_eq!(
            rules(json!([function_role, calls(1), responses(1)])),
            vec![(FunctionCallNotAfterUser, 1)]
        );
    }
}
