//! pi-ai's Anthropic request builder (`buildParams` / `convertMessages` of
//! `api/anthropic-messages.js`), per variant. The API's 400 rules on the body it builds are the
//! provider's, in [`crate::wire::anthropic`].
//!
//! What the builder does to the transformed messages:
//! - from 0.86, every `system` message is collapsed into the request's `system` prompt (the
//!   default model does not take mid-conversation system messages); before 0.86 a `system`
//!   message (only reachable without `convertToLlm`) is ignored;
//! - `user`: string content is sent only if it is not blank; array content keeps non-blank text
//!   and images (anything that is not text is sent as an image), and a message left empty is
//!   dropped;
//! - `assistant`: blank text is dropped, thinking becomes `thinking` / `redacted_thinking` /
//!   plain text by its signature, calls become `tool_use`; an assistant left empty is dropped;
//! - a maximal run of `toolResult` messages becomes ONE user message of `tool_result` blocks
//!   (text-only content joined with `\n`, otherwise blocks); from 1.3.0 an error result's images
//!   are replaced by a note and sent, captioned, after all the results of the run.
//!
//! From 0.86 the tools the system messages declare decide whether there is a prompt, and pi
//! throws on ones it cannot read or convert (`request/tools.rs`).
//!
//! Not modelled (the request body differs, the tool pairing does not): cache control (the
//! vectors use `cacheRetention: "none"`), OAuth tool-name casing, the tool definitions and
//! thinking options, and models whose `compat.supportsMidConvoSystemMessages` is set (rendered
//! as if collapsed).

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use super::transform::replace_images;
use super::{Fault, PiVersion, Stage, Thrown};
use crate::js::{self, field, is_str, truthy};
use crate::js_string;

mod tools;

const ERROR_IMAGE_PLACEHOLDER: &str = "(image attached after the tool results)";
const IMAGE_ONLY_TEXT: &str = "(see attached image)";

fn throw(error: String) -> Thrown {
    Thrown::new(Stage::Anthropic, error)
}

/// How much of the request to build. The validator reads only roles, block types and ids, so
/// judging builds the same messages with every text and payload left out (`null`): the same code
/// decides what is sent, dropped, merged and thrown on, without copying the transcript's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Payload {
    Full,
    IdsOnly,
}

impl Payload {
    fn text(self, text: &str) -> Value {
        match self {
            Payload::Full => Value::from(sanitized(text)),
            Payload::IdsOnly => Value::Null,
        }
    }

    fn value(self, value: &Value) -> Value {
        match self {
            Payload::Full => value.clone(),
            Payload::IdsOnly => Value::Null,
        }
    }

    /// A content block that carries no id (text, image, thinking): built in full, or `null`
    /// (which the validator counts as "other content", as it would the real block).
    fn block(self, build: impl FnOnce() -> Value) -> Value {
        match self {
            Payload::Full => build(),
            Payload::IdsOnly => Value::Null,
        }
    }
}

/// The request body pi-ai sends for `transformed` (the output of `transformMessages`):
/// `{"model", "messages", "system"?, "max_tokens", "stream": true}`. `before_transform` is what `transformMessages` was given: from 0.86 pi
/// collapses the system messages before transforming, so their raw content decides the prompt
/// (and whether reading it throws).
pub(crate) fn build<M: Borrow<Value>, N: Borrow<Value>>(
    before_transform: &[M],
    transformed: &[N],
    model: &Value,
    v: PiVersion,
    payload: Payload,
    fault: Option<Fault>,
) -> Result<Value, Thrown> {
    let head = if v.has_system_role() {
        let system_messages: Vec<&Value> = before_transform
            .iter()
            .map(Borrow::borrow)
            .filter(|m| is_str(field(m, "role"), "system"))
            .collect();
        collapse_system_messages(&system_messages)?
    } else {
        Head::default()
    };
    // From 0.86 the system messages were collapsed away before `transformMessages` ran, so
    // tool results they separated form one run; before 0.86 one (reachable only without
    // `convertToLlm`) stays in place, ignored, and ends a run.
    let conversation: Vec<&Value> = transformed
        .iter()
        .map(Borrow::borrow)
        .filter(|m| !(v.has_system_role() && is_str(field(m, "role"), "system")))
        .collect();
    let messages = convert_messages(&conversation, model, v, payload, fault)?;
    tools::convert(&head.tools)?;
    let mut body = Map::new();
    if let Some(id) = field(model, "id") {
        body.insert("model".into(), id.clone());
    }
    body.insert("messages".into(), Value::Array(messages));
    if !head.prompt.is_empty() {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": sanitized(&head.prompt)}]),
        );
    }
    if let Some(max_tokens) = field(model, "maxTokens") {
        body.insert("max_tokens".into(), max_tokens.clone());
    }
    body.insert("stream".into(), Value::Bool(true));
    Ok(Value::Object(body))
}

/// What pi-ai collapses the system messages into (`getCurrentSystemMessage`): the prompt
/// (`getSystemMessageText` of the head message) and the tools left declared.
#[derive(Default)]
struct Head<'v> {
    prompt: String,
    tools: Vec<tools::Tool<'v>>,
}

/// The head message of the system messages: every one's content text (non-empty ones joined
/// with a blank line), then the surviving sections, then the tools they leave declared. No head
/// message (and so no prompt) when no system message carries a timestamp and no tool is left.
fn collapse_system_messages<'v>(messages: &[&'v Value]) -> Result<Head<'v>, Thrown> {
    let mut contents = Vec::new();
    let mut sections: Vec<(&str, &Value)> = Vec::new();
    let mut timestamp: Option<&Value> = None;
    for &message in messages {
        if js::is_nullish(timestamp) {
            timestamp = field(message, "timestamp");
        }
        let text = content_text(field(message, "content"))?;
        if !text.is_empty() {
            contents.push(text);
        }
        if let Some(Value::Object(changes)) = field(message, "sections") {
            for (name, value) in changes {
                sections.retain(|(existing, _)| *existing != name.as_str() || !value.is_null());
                if !value.is_null() {
                    match sections
                        .iter_mut()
                        .find(|(existing, _)| *existing == name.as_str())
                    {
                        Some(slot) => slot.1 = value,
                        None => sections.push((name, value)),
                    }
                }
            }
        }
    }
    let tools = tools::current(messages)?;
    if timestamp.is_none() && tools.is_empty() {
        return Ok(Head::default());
    }
    // `[content, ...sections].filter(part => part.length > 0).join("\n\n")`: strings and arrays
    // have a length, and an array is kept by its length even when it joins to "" (`[""]`).
    let content = contents.join("\n\n");
    let mut parts = Vec::new();
    if !content.is_empty() {
        parts.push(content);
    }
    for (_, value) in sections {
        match value {
            Value::String(text) if !text.is_empty() => parts.push(text.clone()),
            Value::Array(items) if !items.is_empty() => {
                parts.push(js::join(items.iter().map(Some), ","));
            }
            _ => {}
        }
    }
    Ok(Head {
        prompt: parts.join("\n\n"),
        tools,
    })
}

/// `contentText(content)`: a string as is; the text blocks of an array joined with `\n`.
fn content_text(content: Option<&Value>) -> Result<String, Thrown> {
    match content {
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(blocks)) => {
            let mut texts = Vec::new();
            for block in blocks {
                if block.is_null() {
                    return Err(throw(js::cannot_read(Some(block), "type")));
                }
                if is_str(field(block, "type"), "text") {
                    texts.push(field(block, "text"));
                }
            }
            Ok(js::join(texts, "\n"))
        }
        None | Some(Value::Null) => Err(throw(js::cannot_read(content, "filter"))),
        Some(_) => Err(throw("TypeError: content.filter is not a function".into())),
    }
}

/// `convertMessages`: the wire messages.
fn convert_messages(
    transformed: &[&Value],
    model: &Value,
    v: PiVersion,
    payload: Payload,
    fault: Option<Fault>,
) -> Result<Vec<Value>, Thrown> {
    let allow_empty_signature =
        truthy(field(model, "compat").and_then(|c| field(c, "allowEmptySignature")));
    let mut out = Vec::with_capacity(transformed.len());
    // The messages left to convert. Each step consumes at least one (no index arithmetic that a
    // mutation could turn into an endless loop).
    let mut rest = transformed;
    while let Some((&message, after)) = rest.split_first() {
        let role = field(message, "role");
        if is_str(role, "toolResult") {
            // A run of results becomes one user message (the fault splits every run into ones).
            let run = if fault == Some(Fault::UnmergedResultRuns) {
                1
            } else {
                rest.iter()
                    .take_while(|m| is_str(field(m, "role"), "toolResult"))
                    .count()
            };
            let (results_of_run, after_run) = rest.split_at(run);
            let mut results = Vec::with_capacity(run);
            let mut error_images = Vec::new();
            for result in results_of_run {
                results.push(tool_result(result, v, payload, &mut error_images)?);
            }
            results.append(&mut error_images);
            out.push(json!({"role": "user", "content": results}));
            rest = after_run;
            continue;
        }
        if is_str(role, "user") {
            if let Some(content) = user_content(field(message, "content"), payload)? {
                out.push(json!({"role": "user", "content": content}));
            }
        } else if is_str(role, "assistant") {
            let blocks = assistant_blocks(message, allow_empty_signature, v, payload)?;
            if !blocks.is_empty() {
                out.push(json!({"role": "assistant", "content": blocks}));
            }
        }
        rest = after;
    }
    Ok(out)
}

/// A user message's wire content, or `None` when nothing is left to send.
fn user_content(content: Option<&Value>, payload: Payload) -> Result<Option<Value>, Thrown> {
    let items = match content {
        Some(Value::String(text)) => return Ok((!js::is_blank(text)).then(|| payload.text(text))),
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => return Err(throw(js::cannot_read(content, "map"))),
        Some(_) => return Err(throw("TypeError: msg.content.map is not a function".into())),
    };
    let mut blocks = Vec::with_capacity(items.len());
    for item in items {
        if item.is_null() {
            return Err(throw(js::cannot_read(Some(item), "type")));
        }
        if is_str(field(item, "type"), "text") {
            let text = sanitized_text(field(item, "text"))?;
            if !js::is_blank(&text) {
                blocks.push(payload.block(|| json!({"type": "text", "text": text})));
            }
        } else {
            blocks.push(payload.block(|| image_block(item)));
        }
    }
    Ok((!blocks.is_empty()).then_some(Value::Array(blocks)))
}

/// `sanitizeSurrogates(text)`: the text without its lone surrogates.
fn sanitized(text: &str) -> String {
    js_string::without_lone_surrogates(text).into_owned()
}

/// `sanitizeSurrogates(text)` on a value: `text.replace(...)` throws on a non-string.
fn sanitized_text(text: Option<&Value>) -> Result<String, Thrown> {
    match text {
        Some(Value::String(text)) => Ok(sanitized(text)),
        None | Some(Value::Null) => Err(throw(js::cannot_read(text, "replace"))),
        Some(_) => Err(throw("TypeError: text.replace is not a function".into())),
    }
}

/// `{type: "image", source: {type: "base64", media_type: mimeType, data}}`.
fn image_block(image: &Value) -> Value {
    let mut source = Map::new();
    source.insert("type".into(), Value::from("base64"));
    if let Some(mime) = field(image, "mimeType") {
        source.insert("media_type".into(), mime.clone());
    }
    if let Some(data) = field(image, "data") {
        source.insert("data".into(), data.clone());
    }
    json!({"type": "image", "source": source})
}

/// `block.<key>.trim()` on a value that must be a string.
fn trimmable<'a>(value: Option<&'a Value>, expression: &str) -> Result<&'a str, Thrown> {
    match value {
        Some(Value::String(text)) => Ok(text),
        None | Some(Value::Null) => Err(throw(js::cannot_read(value, "trim"))),
        Some(_) => Err(throw(format!(
            "TypeError: {expression}.trim is not a function"
        ))),
    }
}

/// `!!signature && signature.trim().length > 0`.
fn is_signed(signature: Option<&Value>) -> Result<bool, Thrown> {
    Ok(truthy(signature) && !js::is_blank(trimmable(signature, "thinkingSignature")?))
}

fn assistant_blocks(
    message: &Value,
    allow_empty_signature: bool,
    v: PiVersion,
    payload: Payload,
) -> Result<Vec<Value>, Thrown> {
    let Some(Value::Array(content)) = field(message, "content") else {
        // transformMessages always leaves an array here; anything else was thrown on earlier.
        return Ok(Vec::new());
    };
    let mut blocks = Vec::with_capacity(content.len());
    for block in content {
        let kind = field(block, "type");
        if is_str(kind, "text") {
            let text = trimmable(field(block, "text"), "block.text")?;
            if !js::is_blank(text) {
                blocks.push(payload.block(|| json!({"type": "text", "text": sanitized(text)})));
            }
        } else if is_str(kind, "thinking") {
            let signature = field(block, "thinkingSignature");
            if truthy(field(block, "redacted")) {
                blocks.push(payload.block(|| {
                    let mut redacted = Map::new();
                    redacted.insert("type".into(), Value::from("redacted_thinking"));
                    if let Some(signature) = signature {
                        redacted.insert("data".into(), signature.clone());
                    }
                    Value::Object(redacted)
                }));
                continue;
            }
            // Before 0.80.4 a blank thinking block is dropped even when signed (and its text is
            // read first); from then on a signature keeps it.
            let (signed, thinking) = if v.keeps_signed_blank_thinking() {
                let signed = is_signed(signature)?;
                (
                    signed,
                    trimmable(field(block, "thinking"), "block.thinking")?,
                )
            } else {
                let thinking = trimmable(field(block, "thinking"), "block.thinking")?;
                if js::is_blank(thinking) {
                    continue;
                }
                (is_signed(signature)?, thinking)
            };
            if js::is_blank(thinking) && !signed {
                continue;
            }
            blocks.push(payload.block(|| {
                let thinking = sanitized(thinking);
                if signed {
                    json!({"type": "thinking", "thinking": thinking, "signature": signature})
                } else if allow_empty_signature {
                    json!({"type": "thinking", "thinking": thinking, "signature": ""})
                } else {
                    json!({"type": "text", "text": thinking})
                }
            }));
        } else if is_str(kind, "toolCall") {
            let mut tool_use = Map::new();
            tool_use.insert("type".into(), Value::from("tool_use"));
            if let Some(id) = field(block, "id") {
                tool_use.insert("id".into(), id.clone());
            }
            if let Some(name) = field(block, "name") {
                tool_use.insert("name".into(), name.clone());
            }
            let input = field(block, "arguments").filter(|a| !a.is_null());
            tool_use.insert(
                "input".into(),
                input.map_or_else(|| json!({}), |a| payload.value(a)),
            );
            blocks.push(Value::Object(tool_use));
        }
    }
    Ok(blocks)
}

/// One `tool_result` block; from 1.3.0 an error result's images go to `error_images` (caption
/// first) and a note takes their place.
fn tool_result(
    message: &Value,
    v: PiVersion,
    payload: Payload,
    error_images: &mut Vec<Value>,
) -> Result<Value, Thrown> {
    let content = field(message, "content");
    let mut split_content = None;
    if v.splits_error_result_images() && truthy(field(message, "isError")) {
        let blocks = match content {
            Some(Value::Array(blocks)) => blocks,
            None | Some(Value::Null) => return Err(throw(js::cannot_read(content, "filter"))),
            Some(_) => {
                return Err(throw(
                    "TypeError: msg.content.filter is not a function".into(),
                ));
            }
        };
        let images: Vec<&Value> = blocks
            .iter()
            .map(|block| {
                if block.is_null() {
                    Err(throw(js::cannot_read(Some(block), "type")))
                } else {
                    Ok(block)
                }
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|block| is_str(field(block, "type"), "image"))
            .collect();
        if !images.is_empty() {
            split_content = Some(Value::Array(
                replace_images(blocks, ERROR_IMAGE_PLACEHOLDER).map_err(|t| throw(t.error))?,
            ));
            let caption = format!(
                "Images from the error result of tool call {} ({}):",
                js::to_js_string(field(message, "toolCallId")),
                js::to_js_string(field(message, "toolName"))
            );
            error_images.push(payload.block(|| json!({"type": "text", "text": caption})));
            error_images.extend(
                images
                    .into_iter()
                    .map(|image| payload.block(|| image_block(image))),
            );
        }
    }
    let mut result = Map::new();
    result.insert("type".into(), Value::from("tool_result"));
    if let Some(id) = field(message, "toolCallId") {
        result.insert("tool_use_id".into(), id.clone());
    }
    result.insert(
        "content".into(),
        result_content(split_content.as_ref().or(content), payload)?,
    );
    if let Some(is_error) = field(message, "isError") {
        result.insert("is_error".into(), is_error.clone());
    }
    Ok(Value::Object(result))
}

/// `convertContentBlocks`: text-only content joined into one string; otherwise blocks, with a
/// "(see attached image)" text first when there is no text at all.
fn result_content(content: Option<&Value>, payload: Payload) -> Result<Value, Thrown> {
    let blocks = match content {
        Some(Value::Array(blocks)) => blocks,
        None | Some(Value::Null) => return Err(throw(js::cannot_read(content, "some"))),
        Some(_) => return Err(throw("TypeError: content.some is not a function".into())),
    };
    let mut has_images = false;
    for block in blocks {
        if block.is_null() {
            return Err(throw(js::cannot_read(Some(block), "type")));
        }
        if is_str(field(block, "type"), "image") {
            has_images = true;
            break;
        }
    }
    if !has_images {
        return Ok(match payload {
            Payload::Full => Value::from(sanitized(&js::join(
                blocks.iter().map(|b| field(b, "text")),
                "\n",
            ))),
            Payload::IdsOnly => Value::Null,
        });
    }
    // Every text is read (it may throw) even when only the ids are wanted.
    let mut out = Vec::with_capacity(blocks.len() + 1);
    for block in blocks {
        if block.is_null() {
            return Err(throw(js::cannot_read(Some(block), "type")));
        }
        let converted = if is_str(field(block, "type"), "text") {
            let text = sanitized_text(field(block, "text"))?;
            payload.block(|| json!({"type": "text", "text": text}))
        } else {
            payload.block(|| image_block(block))
        };
        out.push(converted);
    }
    if payload == Payload::IdsOnly {
        return Ok(Value::Null);
    }
    if !out.iter().any(|b| is_str(field(b, "type"), "text")) {
        out.insert(0, json!({"type": "text", "text": IMAGE_ONLY_TEXT}));
    }
    Ok(Value::Array(out))
}
