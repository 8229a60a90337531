//! pi-ai's google-generative-ai request builder (`convertMessages` of `google-shared.js`): the
//! `contents` of the body it sends to the Gemini API, per pi version, with the provider's own id
//! normaliser fed to `transformMessages` (the Anthropic one for a model that sends call ids,
//! [`model::requires_tool_call_id`], and none for any other: every id is kept as it is).
//!
//! What the builder does to the transformed messages:
//! - from 0.86 the system messages are collapsed before transforming and leave the conversation
//!   (the prompt goes to `config.systemInstruction`, not modelled); before 0.86 a `system` message
//!   (reachable only without `convertToLlm`) sends nothing;
//! - `user`: string content as one text part (even an empty one); array content as text and
//!   `inlineData` parts, and a message without parts is dropped;
//! - `assistant` (a `model` content): in block order, a text block as a text part, a thinking
//!   block as a `thought` part when the message is of the very provider and model (as a plain
//!   text part otherwise), a call as a `functionCall` part (its `id` only for a model that
//!   requires one); blank texts and thinking are dropped, from 0.86 only when they carry no
//!   signature; a `thoughtSignature` is kept only from the very provider and model and when it is
//!   base64 ([`thought_signature`]); an assistant left without parts is dropped;
//! - a `toolResult` becomes a `functionResponse` part (`output`, or `error` for an error result,
//!   holding its texts joined, else `(see attached image)` when it has images, else nothing),
//!   added to the previous content when that is a user turn of function responses; its images
//!   go inside the response for Gemini 3 and any non-Gemini model, and in a user turn of their
//!   own after it for Gemini 1 and 2.
//!
//! Not modelled: the rest of the body (`model`, and `config`: the system instruction, tools,
//! tool config, thinking and sampling options).

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::{
    collapse_system_messages, object, read_result_content, sanitized, sanitized_text,
    transformed_blocks, transformed_for, trimmable, user_parts,
};
use crate::js::{self, field, is_str, truthy};
use crate::js_value::JsValue;
use crate::pi::api::Api;
use crate::pi::{PiVersion, Stage, Thrown};

pub(crate) mod model;

use model::{multimodal_function_response, requires_tool_call_id};

/// A throw of the shared helpers, at this builder's stage.
fn restage(thrown: Thrown) -> Thrown {
    Thrown::new(Stage::GoogleGenerativeAi, thrown.error)
}

/// `resolveThoughtSignature`: a signature of the very provider and model that is base64
/// (`/^[A-Za-z0-9+/]+={0,2}$/`, a length a multiple of 4); any other is left out.
fn thought_signature<'v>(same: bool, signature: Option<&'v JsValue>) -> Option<&'v str> {
    let signature = signature.and_then(JsValue::as_str).filter(|_| same)?;
    let body = signature.trim_end_matches('=');
    let padding = signature.len() - body.len();
    let base64 = !body.is_empty()
        && padding <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
    (base64 && signature.len() % 4 == 0).then_some(signature)
}

/// The `contents` of the body pi-ai sends for `llm` (the output of `convertToLlm`) to `model`.
pub(crate) fn build<'a>(
    llm: &[Cow<'a, JsValue<'a>>],
    transformed: Option<&[Cow<'a, JsValue<'a>>]>,
    model: &JsValue,
    v: PiVersion,
) -> Result<Value, Thrown> {
    if v.has_system_role() {
        // Only its throws: the prompt it makes is the system instruction, outside `contents`.
        collapse_system_messages(llm).map_err(restage)?;
    }
    let transformed =
        transformed_for(transformed, llm, model, Api::GoogleGenerativeAi, v).map_err(restage)?;
    let requires_id = requires_tool_call_id(model, v);
    let mut contents = Vec::new();
    // Whether the last content is a user turn of function responses, which the next joins.
    let mut responses_open = false;
    for message in transformed.iter().map(|m| &**m) {
        let role = field(message, "role");
        if is_str(role, "user") {
            let content = field(message, "content");
            let text = |text: &str| json!({"text": text});
            let Some(parts) = user_parts(content, text, inline_data).map_err(restage)? else {
                continue;
            };
            contents.push(object([("role", "user".into()), ("parts", parts.into())]));
            responses_open = false;
        } else if is_str(role, "assistant") {
            let parts = model_parts(message, model, v, requires_id)?;
            if parts.is_empty() {
                continue;
            }
            contents.push(object([("role", "model".into()), ("parts", parts.into())]));
            responses_open = false;
        } else if is_str(role, "toolResult") {
            let (response, images) = function_response(message, model, v, requires_id)?;
            match contents.last_mut() {
                Some(Value::Object(last)) if responses_open => {
                    if let Some(Value::Array(parts)) = last.get_mut("parts") {
                        parts.push(response);
                    }
                }
                _ => contents.push(object([
                    ("role", "user".into()),
                    ("parts", vec![response].into()),
                ])),
            }
            responses_open = true;
            if let Some(images) = images {
                let mut parts = vec![json!({"text": "Tool result image:"})];
                parts.extend(images);
                contents.push(object([("role", "user".into()), ("parts", parts.into())]));
                responses_open = false;
            }
        }
    }
    Ok(Value::Array(contents))
}

/// `{inlineData: {mimeType, data}}`, an `undefined` field left out as the JSON of the body
/// leaves it.
fn inline_data(image: &JsValue) -> Value {
    let mut data = Map::new();
    for key in ["mimeType", "data"] {
        if let Some(value) = field(image, key) {
            data.insert(key.into(), value.to_value());
        }
    }
    json!({"inlineData": data})
}

/// `!value || value.trim() === ""`, throwing where `trim` does not exist.
fn blank(value: Option<&JsValue>, expression: &str) -> Result<bool, Thrown> {
    if !truthy(value) {
        return Ok(true);
    }
    Ok(js::is_blank(trimmable(value, expression).map_err(restage)?))
}

/// A text part, with its signature when it has one.
fn text_part(text: Option<&JsValue>, signature: Option<&str>) -> Result<Value, Thrown> {
    let mut part = json!({"text": sanitized_text(text).map_err(restage)?});
    if let Some(signature) = signature {
        part["thoughtSignature"] = json!(signature);
    }
    Ok(part)
}

/// The parts of one assistant message.
fn model_parts(
    message: &JsValue,
    model: &JsValue,
    v: PiVersion,
    requires_id: bool,
) -> Result<Vec<Value>, Thrown> {
    let blocks = transformed_blocks(message);
    // Unlike transformMessages, the builder does not compare the API.
    let same = js::strict_equals(field(message, "provider"), field(model, "provider"))
        && js::strict_equals(field(message, "model"), field(model, "id"));
    // From 0.86 a blank block is sent when it carries a signature.
    let dropped = |empty: bool, signature: Option<&str>| {
        empty && (v < PiVersion::From086 || signature.is_none())
    };
    let mut parts = Vec::new();
    for block in blocks {
        let kind = field(block, "type");
        if is_str(kind, "text") {
            let signature = thought_signature(same, field(block, "textSignature"));
            let text = field(block, "text");
            if dropped(blank(text, "block.text")?, signature) {
                continue;
            }
            parts.push(text_part(text, signature)?);
        } else if is_str(kind, "thinking") {
            let signature = thought_signature(same, field(block, "thinkingSignature"));
            let thinking = field(block, "thinking");
            if dropped(blank(thinking, "block.thinking")?, signature) {
                continue;
            }
            // Another provider's or model's thinking is plain text, without its signature.
            let mut part = text_part(thinking, signature)?;
            if same {
                part["thought"] = json!(true);
            }
            parts.push(part);
        } else if is_str(kind, "toolCall") {
            let signature = thought_signature(same, field(block, "thoughtSignature"));
            parts.push(function_call(block, signature, requires_id));
        }
    }
    Ok(parts)
}

/// `{functionCall: {name, args: arguments ?? {}, id?}, thoughtSignature?}`.
fn function_call(call: &JsValue, signature: Option<&str>, requires_id: bool) -> Value {
    let mut function = Map::new();
    if let Some(name) = field(call, "name") {
        function.insert("name".into(), name.to_value());
    }
    let args = field(call, "arguments")
        .filter(|a| !js::is_nullish(Some(*a)))
        .map_or_else(|| json!({}), JsValue::to_value);
    function.insert("args".into(), args);
    if requires_id && let Some(id) = field(call, "id") {
        function.insert("id".into(), id.to_value());
    }
    let mut part = object([("functionCall", function.into())]);
    if let Some(signature) = signature {
        part["thoughtSignature"] = json!(signature);
    }
    part
}

/// A result's `functionResponse` part, and the parts of the user turn its images take after it
/// when the model cannot take them inside the response.
fn function_response(
    result: &JsValue,
    model: &JsValue,
    v: PiVersion,
    requires_id: bool,
) -> Result<(Value, Option<Vec<Value>>), Thrown> {
    let read = read_result_content(field(result, "content"), "msg.content", v).map_err(restage)?;
    let value = if read.has_text {
        sanitized(&read.text).into_owned()
    } else if read.images.is_empty() {
        String::new()
    } else {
        "(see attached image)".into()
    };
    let key = if truthy(field(result, "isError")) {
        "error"
    } else {
        "output"
    };
    let mut response = Map::new();
    if let Some(name) = field(result, "toolName") {
        response.insert("name".into(), name.to_value());
    }
    response.insert("response".into(), object([(key, value.into())]));
    // transformMessages replaced the images by a note for a model without vision, so the ones
    // left are always sent.
    let images: Vec<Value> = read.images.into_iter().map(inline_data).collect();
    let separate = !images.is_empty() && !multimodal_function_response(model);
    let separate = if separate {
        Some(images)
    } else {
        if !images.is_empty() {
            response.insert("parts".into(), Value::Array(images));
        }
        None
    };
    if requires_id && let Some(id) = field(result, "toolCallId") {
        response.insert("id".into(), id.to_value());
    }
    Ok((object([("functionResponse", response.into())]), separate))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::thought_signature;
    use crate::js_value::JsValue;
    use crate::pi::PiVersion;
    use crate::pi::request::fixtures::{assistant_of, body, result, text, user};
    use crate::wire::WireRule::{self, *};
    use crate::wire::google::validate_contents;

    const FLASH: &str = "gemini-2.5-flash";

    fn google(id: &str) -> Value {
        json!({"id": id, "api": "google-generative-ai", "provider": "google",
               "baseUrl": "https://generativelanguage.googleapis.com/v1beta",
               "reasoning": true, "input": ["text", "image"]})
    }

    /// The rules the Gemini API applies to the body pi builds for `messages` to Google's model
    /// `model`, with where they are broken.
    fn refused(messages: &Value, model: &str, v: PiVersion) -> Vec<(WireRule, usize)> {
        let contents = body(messages, &google(model), ("google", "contents"), v);
        validate_contents::<Value, _>(&contents)
            .into_iter()
            .map(|v| (v.rule, v.index))
            .collect()
    }

    fn assistant(stop_reason: &str, content: Value) -> Value {
        assistant_of(&google(FLASH), stop_reason, content)
    }

    fn call(id: &str) -> Value {
        json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}})
    }

    fn image() -> Value {
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
    }

    /// Known shape 2 on this API: pi drops an assistant that ended in error and keeps its result,
    /// a function response turn right after the user's.
    #[test]
    fn the_result_of_an_assistant_that_ended_in_error_is_refused() {
        let messages = json!([
            user("go"),
            assistant("error", json!([call("c1")])),
            result("c1", json!([text("ok")]))
        ]);
        for v in PiVersion::ALL {
            assert_eq!(
                refused(&messages, FLASH, v),
                vec![(FunctionResponseNotAfterCall, 1)],
                "pi {v:?}"
            );
        }
    }

    /// For Gemini 1 and 2 pi sends a result's images in a user turn of their own right after its
    /// response: a later result of the same call turn opens a second response turn, so the first
    /// has too few responses and the second follows no call turn. Gemini 3 takes the images inside
    /// the response, and the same transcript is accepted.
    #[test]
    fn a_result_image_before_another_result_splits_the_responses_for_gemini_2() {
        let messages = json!([
            user("go"),
            assistant("toolUse", json!([call("c1"), call("c2")])),
            result("c1", json!([text("see"), image()])),
            result("c2", json!([text("ok")])),
            user("thanks")
        ]);
        for v in PiVersion::ALL {
            assert_eq!(
                refused(&messages, FLASH, v),
                vec![
                    (FunctionResponseCountMismatch, 2),
                    (FunctionResponseNotAfterCall, 4)
                ],
                "pi {v:?}"
            );
            assert_eq!(refused(&messages, "gemini-3-pro-preview", v), vec![]);
        }
    }

    /// An empty user message (an image sent without words, or nothing at all) is sent as an empty
    /// text part, in every version.
    #[test]
    fn an_empty_user_text_is_sent_and_refused() {
        let pasted = json!({"role": "user", "content": [text(""), image()], "timestamp": 1});
        let messages = json!([user(""), pasted]);
        for v in PiVersion::ALL {
            assert_eq!(
                refused(&messages, FLASH, v),
                vec![(EmptyTextPart, 0), (EmptyTextPart, 1)],
                "pi {v:?}"
            );
        }
    }

    /// A complete exchange of the very model (a signed call, its result, an answer) breaks no
    /// rule, with images in the result.
    #[test]
    fn a_complete_exchange_of_the_model_is_accepted() {
        let mut signed = call("c1");
        signed["thoughtSignature"] = json!("QUJD");
        let messages = json!([
            user("go"),
            assistant("toolUse", json!([signed, call("c2")])),
            result("c1", json!([text("one")])),
            result("c2", json!([text("two"), image()])),
            assistant("stop", json!([text("done")])),
            user("thanks")
        ]);
        for v in PiVersion::ALL {
            assert_eq!(refused(&messages, FLASH, v), vec![], "pi {v:?}");
        }
    }

    #[test]
    fn a_thought_signature_is_kept_only_from_the_same_model_and_when_base64() {
        let kept = |signature: &str, same: bool| {
            let signature = JsValue::from(signature);
            thought_signature(same, Some(&signature)).is_some()
        };
        assert!(kept("QUJD", true));
        assert!(kept("QUI=", true));
        assert!(kept("Q+/=", true));
        assert!(kept("ab+/", true));
        assert!(!kept("QUJD", false));
        assert!(!kept("QUJ", true));
        assert!(!kept("Q===", true));
        assert!(!kept("====", true));
        assert!(!kept("QU-D", true));
        assert!(!kept("", true));
        assert!(thought_signature(true, Some(&JsValue::from(4))).is_none());
    }
}
