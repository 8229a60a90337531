//! pi-ai's openai-completions request builder (`convertMessages` of `openai-completions.js`):
//! the `messages` of the body it sends to OpenAI Chat Completions and the providers that speak it,
//! per pi version, with the model's compat flags ([`compat`]) and the provider's own id
//! normaliser ([`tool_call_id`]) fed to `transformMessages`.
//!
//! What the builder does to the transformed messages:
//! - from 0.86 the system messages are collapsed before transforming (as for Anthropic), and the
//!   prompt leads as a `developer` message (a reasoning model with the developer role) or a
//!   `system` one; before 0.86 only `context.systemPrompt` would, and the transcript has none;
//! - `user`: string content as is; array content as `text` / `image_url` parts (from 0.86 empty
//!   texts left out), and a message left without parts is dropped;
//! - `assistant`: non-blank texts joined into one string; thinking becomes text parts
//!   (`requiresThinkingAsText`) or a reasoning field named by its signature; calls become
//!   `tool_calls` with their arguments as JSON text; an assistant left without content and calls
//!   is dropped;
//! - every `toolResult` becomes a `tool` message; the images of a run of results follow it in one
//!   `user` message;
//! - `requiresAssistantAfterToolResult` puts "I have processed the tool results." between results
//!   and a user message.
//!
//! Not modelled: the rest of the body (tools, sampling and cache options), models that take
//! mid-conversation system messages (rendered as if collapsed), grammar tools, the `kimi`
//! deferred tools of 0.81, and the `opencode-go` reasoning field.

use std::borrow::Cow;

use super::{
    collapse_system_messages, conversation, data_url, prompt_message, read_result_content,
    restaged, sanitized, sanitized_kept, sanitized_text, transformed_blocks, trimmable,
};
use crate::js::{self, field, is_str, truthy};
use crate::js_value::JsValue;
use crate::pi::api::Api;
use crate::pi::{BuilderInput, PiVersion, Thrown};
use crate::wire::openai::body::{ChatField, ChatMessage, ChatPart, ToolCall};

mod compat;
mod reasoning;
pub(crate) mod tool_call_id;

use compat::Compat;

const API: Api = Api::OpenAiCompletions;
const BRIDGE_TEXT: &str = "I have processed the tool results.";
const RESULT_IMAGES_TEXT: &str = "Attached image(s) from tool result:";

fn throw(error: impl Into<String>) -> Thrown {
    Thrown::new(API.stage(), error.into())
}

/// The `messages` of the body pi-ai sends for `llm` (the output of `convertToLlm`) to `model`,
/// `transformed` being `transformMessages`' output with this API's id normaliser; borrowing
/// from it.
pub(crate) fn build<'r>(input: BuilderInput<'r, '_, '_>) -> Result<Vec<ChatMessage<'r>>, Thrown> {
    let compat = Compat::of(input.model, input.v);
    let mut out = Vec::with_capacity(input.transformed.len());
    let mut declares_tools = false;
    if input.v.has_system_role() {
        let head = collapse_system_messages(input.llm).map_err(restaged(API))?;
        let developer = truthy(field(input.model, "reasoning")) && compat.developer_role;
        out.extend(
            prompt_message(head.prompt, developer).map(|(role, content)| {
                ChatMessage(vec![
                    text("role", role),
                    ("content", ChatField::Text(content)),
                ])
            }),
        );
        declares_tools = !head.tools.is_empty();
    }
    let conversation: Vec<&JsValue> = conversation(input.transformed, input.v).collect();
    convert(&conversation, input.model, compat, input.v, &mut out)?;
    // A body without tools gets `tools: []` when the transcript has tool history (from 1.3 only
    // for `requiresToolsWithToolHistory`); reading that history throws on an assistant whose
    // content has no `some`.
    if !declares_tools && compat.tools_with_tool_history {
        read_tool_history(input.llm)?;
    }
    Ok(out)
}

/// `hasToolHistory(messages)` for its throws: it stops at the first tool result or call.
fn read_tool_history(messages: &[Cow<'_, JsValue<'_>>]) -> Result<(), Thrown> {
    for message in messages {
        let role = field(message, "role");
        if is_str(role, "toolResult") {
            return Ok(());
        }
        if !is_str(role, "assistant") {
            continue;
        }
        let content = field(message, "content");
        let blocks = js::array_items(content, "msg.content", "some").map_err(throw)?;
        for block in blocks {
            if block.is_null() {
                return Err(throw(js::cannot_read(Some(block), "type")));
            }
            if is_str(field(block, "type"), "toolCall") {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// A field of a fixed text.
fn text<'r>(name: &'r str, text: &'static str) -> (&'r str, ChatField<'r>) {
    (name, ChatField::Text(text.into()))
}

/// `{role: "assistant", content: "I have processed the tool results."}`.
fn bridge<'r>() -> ChatMessage<'r> {
    ChatMessage(vec![
        text("role", "assistant"),
        text("content", BRIDGE_TEXT),
    ])
}

/// The loop of `convertMessages` over the transformed conversation.
fn convert<'r>(
    conversation: &[&'r JsValue<'_>],
    model: &JsValue,
    compat: Compat,
    v: PiVersion,
    out: &mut Vec<ChatMessage<'r>>,
) -> Result<(), Thrown> {
    // `lastRole === "toolResult"`.
    let mut after_results = false;
    let mut rest = conversation;
    while let Some((&message, after)) = rest.split_first() {
        let role = field(message, "role");
        if compat.assistant_after_tool_result && after_results && is_str(role, "user") {
            out.push(bridge());
        }
        if is_str(role, "toolResult") {
            let run = rest
                .iter()
                .take_while(|m| is_str(field(m, "role"), "toolResult"))
                .count();
            let (results, after_run) = rest.split_at(run);
            let mut images = Vec::new();
            for result in results {
                out.push(tool_message(result, compat, v, &mut images)?);
            }
            after_results = images.is_empty();
            if !after_results {
                if compat.assistant_after_tool_result {
                    out.push(bridge());
                }
                let content =
                    std::iter::once(ChatPart::Text(RESULT_IMAGES_TEXT.into())).chain(images);
                out.push(ChatMessage(vec![
                    text("role", "user"),
                    ("content", ChatField::Parts(content.collect())),
                ]));
            }
            rest = after_run;
            continue;
        }
        rest = after;
        let converted = if is_str(role, "user") {
            user_message(field(message, "content"), v)?
        } else if is_str(role, "assistant") {
            assistant_message(message, model, compat, v)?
        } else {
            // A system message (before 0.86, reachable only without `convertToLlm`) sends
            // nothing but is the last role.
            after_results = false;
            continue;
        };
        // A dropped message leaves `lastRole` as it was.
        if let Some(converted) = converted {
            out.push(converted);
            after_results = false;
        }
    }
    Ok(())
}

/// `{type: "image_url", image_url: {url: "data:${mimeType};base64,${data}"}}`.
fn image_part<'r>(image: &JsValue) -> ChatPart<'r> {
    ChatPart::ImageUrl(data_url(image))
}

/// `{role: "user", content}`.
fn user<'r>(content: ChatField<'r>) -> ChatMessage<'r> {
    ChatMessage(vec![text("role", "user"), ("content", content)])
}

fn user_message<'r>(
    content: Option<&'r JsValue<'_>>,
    v: PiVersion,
) -> Result<Option<ChatMessage<'r>>, Thrown> {
    let method = if v >= PiVersion::From086 {
        "filter"
    } else {
        "map"
    };
    if let Some(JsValue::String(text)) = content {
        return Ok(Some(user(ChatField::Text(sanitized(text)))));
    }
    let items = js::array_items(content, "msg.content", method).map_err(throw)?;
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        if item.is_null() {
            return Err(throw(js::cannot_read(Some(item), "type")));
        }
        if !is_str(field(item, "type"), "text") {
            parts.push(image_part(item));
            continue;
        }
        let text = field(item, "text");
        // From 0.86: `.filter((item) => item.type !== "text" || item.text.length > 0)`.
        if v >= PiVersion::From086 {
            match text {
                None | Some(JsValue::Null) => return Err(throw(js::cannot_read(text, "length"))),
                Some(JsValue::String(s)) if s.is_empty() => continue,
                Some(JsValue::Array(a)) if a.is_empty() => continue,
                Some(JsValue::Number(_) | JsValue::Bool(_) | JsValue::Object(_)) => continue,
                _ => {}
            }
        }
        parts.push(ChatPart::Text(sanitized_text(text).map_err(restaged(API))?));
    }
    Ok((!parts.is_empty()).then(|| user(ChatField::Parts(parts))))
}

fn assistant_message<'r>(
    message: &'r JsValue<'_>,
    model: &JsValue,
    compat: Compat,
    v: PiVersion,
) -> Result<Option<ChatMessage<'r>>, Thrown> {
    let (mut text_blocks, mut calls, mut thinking) = (Vec::new(), Vec::new(), Vec::new());
    for block in transformed_blocks(message) {
        let kind = field(block, "type");
        if is_str(kind, "text") {
            text_blocks.push(block);
        } else if is_str(kind, "toolCall") {
            calls.push(block);
        } else if is_str(kind, "thinking") {
            thinking.push(block);
        }
    }
    let mut texts = Vec::with_capacity(text_blocks.len());
    for block in text_blocks {
        let text = trimmable(field(block, "text"), "block.text").map_err(restaged(API))?;
        if !js::is_blank(text) {
            texts.push(sanitized(text));
        }
    }
    let preserved = reasoning::preserved_details(&thinking, &calls, v);
    let mut thoughts = Vec::new();
    for block in thinking {
        let thought =
            trimmable(field(block, "thinking"), "block.thinking").map_err(restaged(API))?;
        if !js::is_blank(thought) {
            thoughts.push((block, thought));
        }
    }
    let empty = compat.assistant_after_tool_result || compat.non_null_assistant_content;
    // The fields in the order pi sets them; a later one of the same name (a reasoning field named
    // `content` before 0.86) takes the earlier one's place.
    let mut out: Vec<(&str, ChatField)> = Vec::with_capacity(5);
    out.push(text("role", "assistant"));
    out.push(if empty {
        text("content", "")
    } else {
        ("content", ChatField::Null)
    });
    let mut set = |name, value| match out.iter_mut().find(|(field, _)| *field == name) {
        Some(slot) => slot.1 = value,
        None => out.push((name, value)),
    };
    if !thoughts.is_empty() && compat.thinking_as_text {
        let joined: Vec<Cow<str>> = thoughts.iter().map(|(_, t)| sanitized(t)).collect();
        let mut parts = vec![ChatPart::Text(joined.join("\n\n").into())];
        parts.extend(texts.into_iter().map(ChatPart::Text));
        set("content", ChatField::Parts(parts));
    } else {
        let text = texts.concat();
        if !text.is_empty() {
            set("content", ChatField::Text(text.into()));
        }
        // From 0.86 preserved reasoning details replace the reasoning field.
        let replaced = v >= PiVersion::From086 && preserved.is_some();
        if let Some(&(first, _)) = thoughts.first().filter(|_| !replaced)
            && let Some(name) = reasoning::field_name(field(first, "thinkingSignature"), v)
        {
            let joined: Vec<&str> = thoughts.iter().map(|(_, t)| *t).collect();
            set(name, ChatField::Text(joined.join("\n").into()));
        }
    }
    if !calls.is_empty() {
        let tool_calls = calls.iter().map(|call| tool_call(call)).collect();
        set("tool_calls", ChatField::Calls(tool_calls));
    }
    if let Some(details) = preserved {
        set("reasoning_details", ChatField::Details(details));
    }
    if compat.reasoning_content_on_assistants
        && truthy(field(model, "reasoning"))
        && !out.iter().any(|(name, _)| *name == "reasoning_content")
    {
        out.push(text("reasoning_content", ""));
    }
    let message = ChatMessage(out);
    let has_content = match message.get("content") {
        Some(ChatField::Text(text)) => !text.is_empty(),
        Some(ChatField::Parts(parts)) => !parts.is_empty(),
        _ => false,
    };
    Ok((has_content || !calls.is_empty()).then_some(message))
}

/// A call as the body sends it ([`ToolCall`]).
fn tool_call<'r>(call: &'r JsValue<'_>) -> ToolCall<'r> {
    ToolCall {
        id: field(call, "id"),
        name: field(call, "name"),
        arguments: field(call, "arguments"),
    }
}

/// One `tool` message; the result's images go to `images`.
fn tool_message<'r>(
    result: &'r JsValue<'_>,
    compat: Compat,
    v: PiVersion,
    images: &mut Vec<ChatPart<'r>>,
) -> Result<ChatMessage<'r>, Thrown> {
    let read = read_result_content(field(result, "content"), "toolMsg.content", v)
        .map_err(restaged(API))?;
    // Before 0.80.4 a result without text says it has an image even when it has none.
    let sent = if read.has_text {
        sanitized_kept(read.text)
    } else if read.images.is_empty() && v >= PiVersion::From0804 {
        "(no tool output)".into()
    } else {
        "(see attached image)".into()
    };
    let mut out = Vec::with_capacity(4);
    out.push(text("role", "tool"));
    out.push(("content", ChatField::Text(sent)));
    if let Some(id) = field(result, "toolCallId") {
        out.push(("tool_call_id", ChatField::Value(id)));
    }
    if compat.tool_result_name
        && let Some(name) = field(result, "toolName").filter(|name| truthy(Some(*name)))
    {
        out.push(("name", ChatField::Value(name)));
    }
    // pi sends them when `model.input.includes("image")`: for a model without, transformMessages
    // already replaced them by a note, so the images left are always sent.
    images.extend(read.images.into_iter().map(image_part));
    Ok(ChatMessage(out))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::pi::{PiVersion, run_vector_input};
    use crate::wire::WireRule;
    use crate::wire::openai::validate_body;

    /// The rules OpenAI's API applies to the body pi builds for `provider`, over a transcript whose
    /// call id (45 characters) came from another provider.
    fn rules_on_pi_s_body(provider: &str) -> Vec<WireRule> {
        let id = format!("call_{}", "x".repeat(40));
        let input = json!({"openaiCompletions": true,
            "model": {"id": "openai/gpt-5", "api": "openai-completions", "provider": provider,
                      "baseUrl": "https://openrouter.ai/api/v1", "input": ["text"]},
            "messages": [
                {"role": "user", "content": "go", "timestamp": 1},
                {"role": "assistant", "api": "google-generative-ai", "provider": "google",
                 "model": "gemini-2.5-pro", "stopReason": "toolUse", "timestamp": 2,
                 "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}]},
                {"role": "toolResult", "toolCallId": id, "toolName": "read", "isError": false,
                 "content": [{"type": "text", "text": "ok"}], "timestamp": 3}]});
        let output = run_vector_input(&input, PiVersion::default());
        let Value::Array(messages) = &output["openaiCompletions"]["messages"] else {
            panic!("no body: {output}");
        };
        validate_body::<Value, _>(messages)
            .into_iter()
            .map(|v| v.rule)
            .collect()
    }

    /// Known shape 2 on this API: pi drops an assistant that ended in error and keeps its result,
    /// which OpenAI refuses as a tool message without a preceding `tool_calls` message.
    #[test]
    fn the_result_of_an_assistant_that_ended_in_error_is_refused_by_openai() {
        let input = json!({"openaiCompletions": true,
            "model": {"id": "gpt-4o", "api": "openai-completions", "provider": "openai",
                      "baseUrl": "https://api.openai.com/v1", "input": ["text"]},
            "messages": [
                {"role": "user", "content": "go", "timestamp": 1},
                {"role": "assistant", "api": "openai-completions", "provider": "openai",
                 "model": "gpt-4o", "stopReason": "error", "timestamp": 2,
                 "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]},
                {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": false,
                 "content": [{"type": "text", "text": "ok"}], "timestamp": 3}]});
        let output = run_vector_input(&input, PiVersion::default());
        let messages = output["openaiCompletions"]["messages"]
            .as_array()
            .expect("a body");
        let found = validate_body::<Value, _>(messages);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, WireRule::ToolWithoutCall);
        assert!(found[0].message.starts_with(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"
        ));
    }

    /// pi cuts another provider's call ids to 40 characters for the `openai` provider only: the
    /// same transcript sent through OpenRouter to an OpenAI model keeps its 45-character id, which
    /// OpenAI refuses (an unpreventable shape: pi itself sends it).
    #[test]
    fn pi_cuts_long_call_ids_for_openai_but_sends_them_through_openrouter() {
        assert_eq!(rules_on_pi_s_body("openai"), vec![]);
        assert_eq!(
            rules_on_pi_s_body("openrouter"),
            vec![WireRule::ToolCallIdTooLong]
        );
    }
}
