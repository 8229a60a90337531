//! pi-ai's Anthropic request builder (`buildParams` / `convertMessages` of
//! `api/anthropic-messages.js`), per pi version. The API's 400 rules on the body it builds are the
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

use std::borrow::Cow;

use crate::js_value::JsValue;

use super::transform::replace_images;
use super::{Api, Fault, PiVersion, Stage, Thrown};
use crate::js::{self, field, is_str, truthy};
use crate::js_string;
use crate::wire::anthropic::{Block, Content, ImageSource, Message, Request, Role};

#[cfg(test)]
pub(crate) mod fixtures;
pub(crate) mod google;
pub(crate) mod openai_completions;
pub(crate) mod openai_responses;
mod shared;
pub(crate) mod short_hash;
mod tools;

pub(crate) use shared::{
    conversation, data_url, parsed_signature, prompt_message, read_result_content,
    transformed_blocks, transformed_for, user_parts,
};

const ERROR_IMAGE_PLACEHOLDER: &str = "(image attached after the tool results)";
const IMAGE_ONLY_TEXT: &str = "(see attached image)";

fn throw(error: impl Into<String>) -> Thrown {
    Thrown::new(Stage::Anthropic, error.into())
}

/// The request pi-ai sends for `transformed` (the output of `transformMessages`), typed and
/// borrowing from the messages ([`Request::to_json`] writes the body). `before_transform` is what
/// `transformMessages` was given: from 0.86 pi collapses the system messages before transforming,
/// so their raw content decides the prompt (and whether reading it throws).
pub(crate) fn build<'r, 'a: 'r>(
    before_transform: &[Cow<'_, JsValue<'_>>],
    transformed: &'r [Cow<'a, JsValue<'a>>],
    model: &'r JsValue<'r>,
    v: PiVersion,
    fault: Option<Fault>,
) -> Result<Request<'r>, Thrown> {
    let head = if v.has_system_role() {
        collapse_system_messages(before_transform)?
    } else {
        Head::default()
    };
    // Before 0.86 a system message in the conversation is ignored, and ends a run of results.
    let conversation: Vec<&'r JsValue<'r>> = conversation(transformed, v).collect();
    let messages = convert_messages(&conversation, model, v, fault)?;
    tools::convert(&head.tools)?;
    Ok(Request {
        model: field(model, "id"),
        messages,
        system: (!head.prompt.is_empty()).then(|| sanitized(&head.prompt).into_owned()),
        max_tokens: field(model, "maxTokens"),
        stream: true,
    })
}

/// What pi-ai collapses the system messages into (`getCurrentSystemMessage`): the prompt
/// (`getSystemMessageText` of the head message) and the tools left declared.
#[derive(Default)]
struct Head<'v> {
    prompt: String,
    tools: Vec<tools::Tool<'v>>,
}

/// The head message of the system messages among `messages`: every one's content text (non-empty ones joined
/// with a blank line), then the surviving sections, then the tools they leave declared. No head
/// message (and so no prompt) when no system message carries a timestamp and no tool is left.
fn collapse_system_messages<'v>(messages: &'v [Cow<'_, JsValue<'_>>]) -> Result<Head<'v>, Thrown> {
    let mut contents = Vec::new();
    let mut sections: Vec<(&str, &JsValue)> = Vec::new();
    let mut timestamp: Option<&JsValue> = None;
    let system: Vec<&JsValue> = messages
        .iter()
        .map(|m| &**m)
        .filter(|m| is_str(field(m, "role"), "system"))
        .collect();
    for &message in &system {
        if js::is_nullish(timestamp) {
            timestamp = field(message, "timestamp");
        }
        let text = content_text(field(message, "content"))?;
        if !text.is_empty() {
            contents.push(text);
        }
        if let Some(JsValue::Object(changes)) = field(message, "sections") {
            for (name, value) in changes.iter() {
                sections.retain(|(existing, _)| *existing != name || !value.is_null());
                if !value.is_null() {
                    match sections.iter_mut().find(|(existing, _)| *existing == name) {
                        Some(slot) => slot.1 = value,
                        None => sections.push((name, value)),
                    }
                }
            }
        }
    }
    let tools = tools::current(&system)?;
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
            JsValue::String(text) if !text.is_empty() => parts.push(text.to_string()),
            JsValue::Array(items) if !items.is_empty() => {
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
fn content_text(content: Option<&JsValue>) -> Result<String, Thrown> {
    if let Some(JsValue::String(text)) = content {
        return Ok(text.to_string());
    }
    let mut texts = Vec::new();
    for block in js::array_items(content, "content", "filter").map_err(throw)? {
        if block.is_null() {
            return Err(throw(js::cannot_read(Some(block), "type")));
        }
        if is_str(field(block, "type"), "text") {
            texts.push(field(block, "text"));
        }
    }
    Ok(js::join(texts, "\n"))
}

/// `convertMessages`: the wire messages.
fn convert_messages<'a>(
    transformed: &[&'a JsValue<'a>],
    model: &JsValue,
    v: PiVersion,
    fault: Option<Fault>,
) -> Result<Vec<Message<'a>>, Thrown> {
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
                results.push(tool_result(result, v, &mut error_images)?);
            }
            results.append(&mut error_images);
            out.push(Message {
                role: Role::User,
                content: Content::Blocks(results),
            });
            rest = after_run;
            continue;
        }
        if is_str(role, "user") {
            if let Some(content) = user_content(field(message, "content"))? {
                out.push(Message {
                    role: Role::User,
                    content,
                });
            }
        } else if is_str(role, "assistant") {
            let blocks = assistant_blocks(message, allow_empty_signature, v)?;
            if !blocks.is_empty() {
                out.push(Message {
                    role: Role::Assistant,
                    content: Content::Blocks(blocks),
                });
            }
        }
        rest = after;
    }
    Ok(out)
}

/// A user message's wire content, or `None` when nothing is left to send: blank texts are left
/// out (a string content is judged blank before its lone surrogates go).
fn user_content<'a>(content: Option<&'a JsValue<'a>>) -> Result<Option<Content<'a>>, Thrown> {
    if let Some(JsValue::String(text)) = content {
        return Ok((!js::is_blank(text)).then(|| Content::Text(sanitized(text))));
    }
    let text = |text: Cow<'a, str>| (!js::is_blank(&text)).then_some(Block::Text { text });
    Ok(user_parts(content, text, image_block)?.map(Content::Blocks))
}

/// `sanitizeSurrogates(text)`: the text without its lone surrogates.
fn sanitized(text: &str) -> Cow<'_, str> {
    js_string::without_lone_surrogates(text)
}

/// [`sanitized`] of a text borrowed or owned, the text itself when nothing changes.
fn sanitized_kept(text: Cow<'_, str>) -> Cow<'_, str> {
    match sanitized(&text) {
        Cow::Owned(clean) => Cow::Owned(clean),
        Cow::Borrowed(_) => text,
    }
}

/// A throw of the shared readers (at the Anthropic stage) restaged at `api`'s builder's.
fn restaged(api: Api) -> impl Fn(Thrown) -> Thrown {
    move |thrown| Thrown::new(api.stage(), thrown.error)
}

/// `sanitizeSurrogates(text)` on a value: `text.replace(...)` throws on a non-string.
fn sanitized_text<'a>(text: Option<&'a JsValue<'a>>) -> Result<Cow<'a, str>, Thrown> {
    match text {
        Some(JsValue::String(text)) => Ok(sanitized(text)),
        None | Some(JsValue::Null) => Err(throw(js::cannot_read(text, "replace"))),
        Some(_) => Err(throw("TypeError: text.replace is not a function")),
    }
}

/// `{type: "image", source: {type: "base64", media_type: mimeType, data}}`.
fn image_block<'a>(image: &'a JsValue<'a>) -> Block<'a> {
    Block::Image {
        source: ImageSource {
            media_type: field(image, "mimeType"),
            data: field(image, "data"),
        },
    }
}

/// `block.<key>.trim()` on a value that must be a string.
fn trimmable<'a>(value: Option<&'a JsValue<'a>>, expression: &str) -> Result<&'a str, Thrown> {
    match value {
        Some(JsValue::String(text)) => Ok(text),
        None | Some(JsValue::Null) => Err(throw(js::cannot_read(value, "trim"))),
        Some(_) => Err(throw(format!(
            "TypeError: {expression}.trim is not a function"
        ))),
    }
}

/// The signature when `!!signature && signature.trim().length > 0`.
fn nonblank_signature<'a>(signature: Option<&'a JsValue<'a>>) -> Result<Option<&'a str>, Thrown> {
    if !truthy(signature) {
        return Ok(None);
    }
    let text = trimmable(signature, "thinkingSignature")?;
    Ok((!js::is_blank(text)).then_some(text))
}

fn assistant_blocks<'a>(
    message: &'a JsValue<'a>,
    allow_empty_signature: bool,
    v: PiVersion,
) -> Result<Vec<Block<'a>>, Thrown> {
    let Some(JsValue::Array(content)) = field(message, "content") else {
        // transformMessages always leaves an array here; anything else was thrown on earlier.
        return Ok(Vec::new());
    };
    let mut blocks = Vec::with_capacity(content.len());
    for block in content {
        let kind = field(block, "type");
        if is_str(kind, "text") {
            let text = trimmable(field(block, "text"), "block.text")?;
            if !js::is_blank(text) {
                blocks.push(Block::Text {
                    text: sanitized(text),
                });
            }
        } else if is_str(kind, "thinking") {
            if truthy(field(block, "redacted")) {
                blocks.push(Block::RedactedThinking {
                    data: field(block, "thinkingSignature"),
                });
                continue;
            }
            // Before 0.80.4 a blank thinking block is dropped even when signed (and its text is
            // read first); from then on a signature keeps it.
            let (signature, thinking) = if v.keeps_signed_blank_thinking() {
                let signature = nonblank_signature(field(block, "thinkingSignature"))?;
                (
                    signature,
                    trimmable(field(block, "thinking"), "block.thinking")?,
                )
            } else {
                let thinking = trimmable(field(block, "thinking"), "block.thinking")?;
                if js::is_blank(thinking) {
                    continue;
                }
                (
                    nonblank_signature(field(block, "thinkingSignature"))?,
                    thinking,
                )
            };
            if js::is_blank(thinking) && signature.is_none() {
                continue;
            }
            let thinking = sanitized(thinking);
            blocks.push(match signature {
                Some(signature) => Block::Thinking {
                    thinking,
                    signature,
                },
                None if allow_empty_signature => Block::Thinking {
                    thinking,
                    signature: "",
                },
                None => Block::Text { text: thinking },
            });
        } else if is_str(kind, "toolCall") {
            blocks.push(Block::ToolUse {
                id: field(block, "id"),
                name: field(block, "name"),
                input: field(block, "arguments").filter(|a| !a.is_null()),
            });
        }
    }
    Ok(blocks)
}

/// One `tool_result` block; from 1.3.0 an error result's images go to `error_images` (caption
/// first) and a note takes their place.
fn tool_result<'a>(
    message: &'a JsValue<'a>,
    v: PiVersion,
    error_images: &mut Vec<Block<'a>>,
) -> Result<Block<'a>, Thrown> {
    let content = field(message, "content");
    let mut split_content = None;
    if v.splits_error_result_images() && truthy(field(message, "isError")) {
        let blocks = js::array_items(content, "msg.content", "filter").map_err(throw)?;
        let images: Vec<&JsValue> = blocks
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
            // The images replaced by a note leave text only, so the content is one string.
            let replaced =
                replace_images(blocks, ERROR_IMAGE_PLACEHOLDER).map_err(|t| throw(t.error))?;
            split_content = Some(Content::Text(Cow::Owned(
                joined_text(&replaced).into_owned(),
            )));
            let caption = format!(
                "Images from the error result of tool call {} ({}):",
                js::to_js_string(field(message, "toolCallId")),
                js::to_js_string(field(message, "toolName"))
            );
            error_images.push(Block::Text {
                text: Cow::Owned(caption),
            });
            error_images.extend(images.into_iter().map(image_block));
        }
    }
    let content = match split_content {
        Some(content) => content,
        None => result_content(js::array_items(content, "content", "some").map_err(throw)?)?,
    };
    Ok(Block::ToolResult {
        tool_use_id: field(message, "toolCallId"),
        content,
        is_error: field(message, "isError"),
    })
}

/// `convertContentBlocks`: text-only content joined into one string; otherwise blocks, with a
/// "(see attached image)" text first when there is no text at all.
fn result_content<'a>(blocks: &'a [JsValue<'a>]) -> Result<Content<'a>, Thrown> {
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
        return Ok(Content::Text(joined_text(blocks)));
    }
    let mut out = Vec::with_capacity(blocks.len() + 1);
    for block in blocks {
        if block.is_null() {
            return Err(throw(js::cannot_read(Some(block), "type")));
        }
        out.push(if is_str(field(block, "type"), "text") {
            Block::Text {
                text: sanitized_text(field(block, "text"))?,
            }
        } else {
            image_block(block)
        });
    }
    if !out.iter().any(|b| matches!(b, Block::Text { .. })) {
        out.insert(
            0,
            Block::Text {
                text: Cow::Borrowed(IMAGE_ONLY_TEXT),
            },
        );
    }
    Ok(Content::Blocks(out))
}

/// The blocks' `text`s joined with `\n`, without lone surrogates. One string is the common case
/// and is borrowed.
fn joined_text<'a>(blocks: &'a [JsValue<'a>]) -> Cow<'a, str> {
    if let [block] = blocks
        && let Some(JsValue::String(text)) = field(block, "text")
    {
        return sanitized(text);
    }
    let joined = js::join(blocks.iter().map(|b| field(b, "text")), "\n");
    Cow::Owned(sanitized(&joined).into_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::js_value::{self, JsValue};
    use crate::pi::{Api, PiVersion, default_model, render};

    /// The first block of the assistant's request message, for `model`.
    fn first_assistant_block(messages: &[Value], model: &Value) -> Value {
        let messages = js_value::borrow_all(messages);
        let model = JsValue::from(model);
        let v = PiVersion::default();
        let rendered = render(&messages, &model, Api::AnthropicMessages, v).expect("renders");
        let body = json!(rendered.body(&model, v).expect("renders"));
        body["messages"][1]["content"][0].clone()
    }

    /// An unsigned thinking block is sent as text, unless the model takes an empty signature.
    #[test]
    fn unsigned_thinking_is_text_unless_the_model_allows_an_empty_signature() {
        let messages = [
            json!({"role": "user", "content": "go", "timestamp": 1}),
            json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}],
                   "api": "anthropic-messages", "provider": "anthropic",
                   "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 2}),
        ];
        let mut model = default_model().to_value();
        assert_eq!(
            first_assistant_block(&messages, &model),
            json!({"type": "text", "text": "hmm"})
        );
        model["compat"]["allowEmptySignature"] = json!(true);
        assert_eq!(
            first_assistant_block(&messages, &model),
            json!({"type": "thinking", "thinking": "hmm", "signature": ""})
        );
    }

    /// A call's arguments are written with every object's keys sorted, at any depth, as a
    /// `serde_json::Value` writes them.
    #[test]
    fn arguments_are_written_with_their_keys_sorted() {
        let text = r#"{"b": 1, "a": {"d": [{"f": 1, "e": "x"}], "c": null}}"#;
        let arguments = crate::json_text::parse_borrowed(text).unwrap();
        assert_eq!(
            crate::wire::openai::body::arguments_text(&arguments),
            r#"{"a":{"c":null,"d":[{"e":"x","f":1}]},"b":1}"#
        );
    }
}
