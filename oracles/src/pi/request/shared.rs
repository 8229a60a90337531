//! The reading of pi's messages that the openai-completions, openai-responses and
//! google-generative-ai body builders share: a user's parts and the transformed messages a
//! builder converts (both the Anthropic builder's too), a tool result's content, and the message
//! the OpenAI bodies lead with and their images' URL. What the readers throw is thrown at the
//! Anthropic stage, and each other builder restages it as its own.

use std::borrow::Cow;

use super::{restaged, sanitized, sanitized_kept, sanitized_text, throw};
use crate::js::{self, field, is_str};
use crate::js_value::JsValue;
use crate::json_text;
use crate::pi::transform;
use crate::pi::{Api, PiVersion, Thrown};

/// A user message's content as the Anthropic, OpenAI Responses and Google builders map it
/// (`msg.content.map(...)`, a string being one text): `text` makes a text's part from its text
/// without lone surrogates (or none, to leave the text out), `image` any other item's; `None`
/// when there is no part.
pub(crate) fn user_parts<'r, 'a, P>(
    content: Option<&'r JsValue<'a>>,
    text: impl Fn(Cow<'r, str>) -> Option<P>,
    image: impl Fn(&'r JsValue<'a>) -> P,
) -> Result<Option<Vec<P>>, Thrown> {
    if let Some(JsValue::String(content)) = content {
        return Ok(text(sanitized(content)).map(|p| vec![p]));
    }
    let items = js::array_items(content, "msg.content", "map").map_err(throw)?;
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        if item.is_null() {
            return Err(throw(js::cannot_read(Some(item), "type")));
        }
        if is_str(field(item, "type"), "text") {
            parts.extend(text(sanitized_text(field(item, "text"))?));
        } else {
            parts.push(image(item));
        }
    }
    Ok((!parts.is_empty()).then_some(parts))
}

/// `transformMessages(llm)` with `api`'s id normaliser, as pi-ai's provider runs it before its
/// builder: what it throws for another API than Anthropic's is thrown at that builder's stage
/// (pi's Anthropic stages name `transformMessages` itself, which they run apart).
pub(crate) fn transformed_for<'a>(
    llm: &[Cow<'a, JsValue<'a>>],
    model: &JsValue,
    api: Api,
    v: PiVersion,
) -> Result<transform::Transformed<'a>, Thrown> {
    let ids = api.id_normaliser(model, v);
    let transformed = transform::transform(llm.to_vec(), model, v, ids, None);
    match api {
        Api::AnthropicMessages => transformed,
        _ => transformed.map_err(restaged(api)),
    }
}

/// The transformed messages a builder converts. From 0.86 the system messages were collapsed
/// away before `transformMessages` ran (so tool results they separated form one run); before
/// 0.86 one (reachable only without `convertToLlm`) stays in place for the builder to read.
pub(crate) fn conversation<'r>(
    transformed: &'r [Cow<'_, JsValue<'_>>],
    v: PiVersion,
) -> impl Iterator<Item = &'r JsValue<'r>> {
    transformed
        .iter()
        .map(|m| -> &'r JsValue<'r> { m })
        .filter(move |m| !(v.has_system_role() && is_str(field(m, "role"), "system")))
}

/// The message the collapsed system prompt leads the OpenAI bodies with (from 0.86):
/// `{role: "developer" | "system", content}` of the prompt without lone surrogates, as its role and
/// its content; none for an empty prompt.
pub(crate) fn prompt_message<'r>(
    prompt: String,
    developer: bool,
) -> Option<(&'static str, Cow<'r, str>)> {
    if prompt.is_empty() {
        return None;
    }
    let role = if developer { "developer" } else { "system" };
    Some((role, sanitized_kept(prompt.into())))
}

/// `data:${mimeType};base64,${data}`, the URL the OpenAI bodies send an image as.
pub(crate) fn data_url(image: &JsValue) -> String {
    format!(
        "data:{};base64,{}",
        js::to_js_string(field(image, "mimeType")),
        js::to_js_string(field(image, "data"))
    )
}

/// `JSON.parse(signature)` of a truthy signature (a non-string parsed as its string form);
/// `None` for a falsy one. The error comes with the text parsed.
pub(crate) fn parsed_signature(
    signature: Option<&JsValue>,
) -> Option<Result<JsValue<'static>, (String, serde_json::Error)>> {
    if !js::truthy(signature) {
        return None;
    }
    let text = js::to_js_string(signature);
    let parsed = json_text::parse_borrowed(&text).map(|parsed| parsed.owned_copy());
    Some(parsed.map_err(|error| (text, error)))
}

/// An assistant's blocks after `transformMessages`, which leaves every assistant's content an
/// array (it throws on anything else).
pub(crate) fn transformed_blocks<'v, 'a>(message: &'v JsValue<'a>) -> &'v [JsValue<'a>] {
    field(message, "content")
        .and_then(JsValue::as_array)
        .unwrap_or_default()
}

/// A tool result's content as pi-ai's OpenAI and Google builders read it
/// (`msg.content.filter(...)`): its texts joined with `\n` (the one text borrowed), whether they
/// count as text, and its images.
pub(crate) struct ResultContent<'v, 'a> {
    pub text: Cow<'v, str>,
    /// Before 1.3 any text counts; from 1.3 a blank one does not.
    pub has_text: bool,
    pub images: Vec<&'v JsValue<'a>>,
}

/// Reads a result's `content`; the error is what the JavaScript throws (at the Anthropic stage,
/// as every reader here: each builder restages it), `expression` naming the content in the
/// builder's words (`toolMsg.content`, `msg.content`, ...).
pub(crate) fn read_result_content<'v, 'a>(
    content: Option<&'v JsValue<'a>>,
    expression: &str,
    v: PiVersion,
) -> Result<ResultContent<'v, 'a>, Thrown> {
    let blocks = js::array_items(content, expression, "filter").map_err(throw)?;
    if let Some(block) = blocks.iter().find(|b| b.is_null()) {
        return Err(throw(js::cannot_read(Some(block), "type")));
    }
    let texts = || {
        blocks
            .iter()
            .filter(|b| is_str(field(b, "type"), "text"))
            .map(|b| field(b, "text"))
    };
    let mut first_two = texts();
    let text = match (first_two.next(), first_two.next()) {
        (Some(Some(JsValue::String(text))), None) => Cow::Borrowed(&**text),
        _ => Cow::Owned(js::join(texts(), "\n")),
    };
    let has_text = if v >= PiVersion::From130 {
        !js::is_blank(&text)
    } else {
        !text.is_empty()
    };
    let images = blocks
        .iter()
        .filter(|b| is_str(field(b, "type"), "image"))
        .collect();
    Ok(ResultContent {
        text,
        has_text,
        images,
    })
}
