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

use super::{
    collapse_system_messages, read_result_content, restaged, sanitized_kept, sanitized_text,
    transformed_blocks, trimmable, user_parts,
};
use crate::js::{self, field, is_str, truthy};
use crate::js_value::JsValue;
use crate::pi::api::Api;
use crate::pi::{BuilderInput, PiVersion, Thrown};
use crate::wire::google::body::{GeminiContent, GeminiPart};

pub(crate) mod model;

use model::{multimodal_function_response, requires_tool_call_id};

const API: Api = Api::GoogleGenerativeAi;

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

/// What every message's parts depend on besides the message: the model, the pi version, and
/// whether the model's calls and responses carry their ids (`requiresToolCallId`).
#[derive(Clone, Copy)]
struct Recipient<'m> {
    model: &'m JsValue<'m>,
    v: PiVersion,
    requires_id: bool,
}

/// The `contents` of the body pi-ai sends for `llm` (the output of `convertToLlm`) to `model`,
/// `transformed` being `transformMessages`' output with this API's id normaliser; borrowing
/// from it.
pub(crate) fn build<'r>(input: BuilderInput<'r, '_, '_>) -> Result<Vec<GeminiContent<'r>>, Thrown> {
    if input.v.has_system_role() {
        // Only its throws: the prompt it makes is the system instruction, outside `contents`.
        collapse_system_messages(input.llm).map_err(restaged(API))?;
    }
    let to = Recipient {
        model: input.model,
        v: input.v,
        requires_id: requires_tool_call_id(input.model, input.v),
    };
    let mut contents: Vec<GeminiContent> = Vec::with_capacity(input.transformed.len());
    // Whether the last content is a user turn of function responses, which the next joins.
    let mut responses_open = false;
    for message in input.transformed.iter().map(|m| &**m) {
        let role = field(message, "role");
        if is_str(role, "user") {
            let content = field(message, "content");
            let text = |text| Some(plain_text(text));
            let parts = user_parts(content, text, GeminiPart::InlineData).map_err(restaged(API))?;
            let Some(parts) = parts else {
                continue;
            };
            contents.push(GeminiContent {
                role: "user",
                parts,
            });
            responses_open = false;
        } else if is_str(role, "assistant") {
            let parts = model_parts(message, to)?;
            if parts.is_empty() {
                continue;
            }
            contents.push(GeminiContent {
                role: "model",
                parts,
            });
            responses_open = false;
        } else if is_str(role, "toolResult") {
            let (response, images) = function_response(message, to)?;
            match contents.last_mut() {
                Some(last) if responses_open => last.parts.push(response),
                _ => contents.push(GeminiContent {
                    role: "user",
                    parts: vec![response],
                }),
            }
            responses_open = true;
            if let Some(images) = images {
                let mut parts = vec![plain_text("Tool result image:".into())];
                parts.extend(images);
                contents.push(GeminiContent {
                    role: "user",
                    parts,
                });
                responses_open = false;
            }
        }
    }
    Ok(contents)
}

/// `{text}`.
fn plain_text(text: Cow<'_, str>) -> GeminiPart<'_> {
    GeminiPart::Text {
        text,
        thought: false,
        signature: None,
    }
}

/// `!value || value.trim() === ""`, throwing where `trim` does not exist.
fn blank(value: Option<&JsValue>, expression: &str) -> Result<bool, Thrown> {
    if !truthy(value) {
        return Ok(true);
    }
    Ok(js::is_blank(
        trimmable(value, expression).map_err(restaged(API))?,
    ))
}

/// A text part, with its signature when it has one; `thought` marks a thinking block's.
fn text_part<'r>(
    text: Option<&'r JsValue<'_>>,
    signature: Option<&'r str>,
    thought: bool,
) -> Result<GeminiPart<'r>, Thrown> {
    Ok(GeminiPart::Text {
        text: sanitized_text(text).map_err(restaged(API))?,
        thought,
        signature,
    })
}

/// The parts of one assistant message.
fn model_parts<'r>(message: &'r JsValue<'_>, to: Recipient) -> Result<Vec<GeminiPart<'r>>, Thrown> {
    let blocks = transformed_blocks(message);
    // Unlike transformMessages, the builder does not compare the API.
    let same = js::strict_equals(field(message, "provider"), field(to.model, "provider"))
        && js::strict_equals(field(message, "model"), field(to.model, "id"));
    // From 0.86 a blank block is sent when it carries a signature.
    let dropped = |empty: bool, signature: Option<&str>| {
        empty && (to.v < PiVersion::From086 || signature.is_none())
    };
    let mut parts = Vec::with_capacity(blocks.len());
    for block in blocks {
        let kind = field(block, "type");
        if is_str(kind, "text") {
            let signature = thought_signature(same, field(block, "textSignature"));
            let text = field(block, "text");
            if dropped(blank(text, "block.text")?, signature) {
                continue;
            }
            parts.push(text_part(text, signature, false)?);
        } else if is_str(kind, "thinking") {
            let signature = thought_signature(same, field(block, "thinkingSignature"));
            let thinking = field(block, "thinking");
            if dropped(blank(thinking, "block.thinking")?, signature) {
                continue;
            }
            // Another provider's or model's thinking is plain text, without its signature.
            parts.push(text_part(thinking, signature, same)?);
        } else if is_str(kind, "toolCall") {
            let signature = thought_signature(same, field(block, "thoughtSignature"));
            parts.push(function_call(block, signature, to.requires_id));
        }
    }
    Ok(parts)
}

/// `{functionCall: {name, args: arguments ?? {}, id?}, thoughtSignature?}`.
fn function_call<'r>(
    call: &'r JsValue<'_>,
    signature: Option<&'r str>,
    requires_id: bool,
) -> GeminiPart<'r> {
    GeminiPart::FunctionCall {
        name: field(call, "name"),
        arguments: field(call, "arguments"),
        id: field(call, "id").filter(|_| requires_id),
        signature,
    }
}

/// A result's `functionResponse` part, and the parts of the user turn its images take after it
/// when the model cannot take them inside the response.
fn function_response<'r>(
    result: &'r JsValue<'_>,
    to: Recipient,
) -> Result<(GeminiPart<'r>, Option<Vec<GeminiPart<'r>>>), Thrown> {
    let read = read_result_content(field(result, "content"), "msg.content", to.v)
        .map_err(restaged(API))?;
    let value = if read.has_text {
        sanitized_kept(read.text)
    } else if read.images.is_empty() {
        "".into()
    } else {
        "(see attached image)".into()
    };
    let key = if truthy(field(result, "isError")) {
        "error"
    } else {
        "output"
    };
    // transformMessages replaced the images by a note for a model without vision, so the ones
    // left are always sent.
    let images: Vec<GeminiPart> = read
        .images
        .into_iter()
        .map(GeminiPart::InlineData)
        .collect();
    let (inside, separate) = if !images.is_empty() && !multimodal_function_response(to.model) {
        (Vec::new(), Some(images))
    } else {
        (images, None)
    };
    let part = GeminiPart::FunctionResponse {
        name: field(result, "toolName"),
        key,
        value,
        images: inside,
        id: field(result, "toolCallId").filter(|_| to.requires_id),
    };
    Ok((part, separate))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::thought_signature;
    use crate::js_value::JsValue;
    use crate::pi::request::fixtures::{assistant_of, body, judged_typed, result, text, user};
    use crate::pi::{Api, PiVersion};
    use crate::wire::WireRule::{self, *};
    use crate::wire::google::validate_contents;

    const FLASH: &str = "gemini-2.5-flash";

    fn google(id: &str) -> Value {
        json!({"id": id, "api": "google-generative-ai", "provider": "google",
               "baseUrl": "https://generativelanguage.googleapis.com/v1beta",
               "reasoning": true, "input": ["text", "image"]})
    }

    /// The rules the Gemini API applies to the body pi builds for `messages` to Google's model
    /// `model`, with where they are broken (the typed body judged the same).
    fn refused(messages: &Value, model: &str, v: PiVersion) -> Vec<(WireRule, usize)> {
        let model = google(model);
        let contents = body(messages, &model, ("google", "contents"), v);
        let found = validate_contents::<Value, _>(&contents);
        let typed = judged_typed(messages, &model, Api::GoogleGenerativeAi, v);
        assert_eq!(typed, found, "the typed body, pi {v:?}");
        found.into_iter().map(|v| (v.rule, v.index)).collect()
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

    /// A text beside an assistant's calls is a part of the call turn, not a call: the turn's
    /// responses answer its calls alone.
    #[test]
    fn a_text_beside_the_calls_is_not_counted_as_a_call() {
        let messages = json!([
            user("go"),
            assistant("toolUse", json!([text("let me look"), call("c1")])),
            result("c1", json!([text("ok")])),
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
