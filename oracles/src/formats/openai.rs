//! OpenAI chat completions: `system`/`developer`, `user`, `assistant` with `tool_calls[]`
//! (`{id, type: "function", function: {name, arguments}}`, arguments a JSON string), and one
//! `tool` message per result (`tool_call_id`). A result's error flag has no field here; an
//! assistant's thinking is its `reasoning_content` (the OpenAI-compatible field DeepSeek, vLLM and
//! LiteLLM use), so an assistant with more than one thinking block cannot be expressed.

use serde_json::{Value, json};

use super::llm::{Block, Content, Message};
use crate::js::Json;

use super::{Call, CannotExpress, Entry, Role, opt_str, str_field};

pub fn write(messages: &[Message]) -> Result<Vec<Value>, CannotExpress> {
    messages
        .iter()
        .map(|message| {
            Ok(match message {
                Message::System(content) => json!({"role": "system", "content": text(content, "a system message")?}),
                Message::User(content) => json!({"role": "user", "content": user_content(content)?}),
                Message::Assistant(blocks) => assistant(blocks)?,
                Message::Result { id, content, .. } => {
                    json!({"role": "tool", "tool_call_id": id, "content": text(content, "a tool message")?})
                }
            })
        })
        .collect()
}

/// A bare string stays a string; blocks become text parts (anything else is refused).
fn text(content: &Content, place: &str) -> Result<Value, CannotExpress> {
    content.write(|block| match block {
        Block::Text(text) => Ok(text_part(text)),
        _ => Err(CannotExpress::Block(format!("non-text content in {place}"))),
    })
}

/// As [`text`], and an image becomes an `image_url` part with a data URL.
fn user_content(content: &Content) -> Result<Value, CannotExpress> {
    content.write(|block| match block {
        Block::Text(text) => Ok(text_part(text)),
        Block::Image { data, mime_type } => Ok(
            json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{data}")}}),
        ),
        _ => Err(CannotExpress::Block("a thinking or call block in a user message".into())),
    })
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn assistant(blocks: &[Block]) -> Result<Value, CannotExpress> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    let mut reasoning: Option<&String> = None;
    for block in blocks {
        match block {
            Block::Text(text) => parts.push(text_part(text)),
            Block::Call {
                id,
                name,
                arguments,
            } => calls.push(json!({
                "id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}
            })),
            Block::Thinking { thinking, .. } if reasoning.is_none() => reasoning = Some(thinking),
            Block::Thinking { .. } => {
                return Err(CannotExpress::Block(
                    "several thinking blocks in chat completions".into(),
                ));
            }
            Block::Image { .. } => {
                return Err(CannotExpress::Block(
                    "an image in an assistant message".into(),
                ));
            }
        }
    }
    let mut message = json!({"role": "assistant", "content": if parts.is_empty() { Value::Null } else { Value::Array(parts) }});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    if let Some(reasoning) = reasoning {
        message["reasoning_content"] = json!(reasoning);
    }
    Ok(message)
}

pub fn entry<J: Json + Clone>(message: &J) -> Entry<'_, J> {
    match str_field(message, "role") {
        "system" | "developer" => Entry::plain(Role::System, message),
        "user" => Entry::plain(Role::User, message),
        "assistant" => Entry::assistant(message, message.member("tool_calls"), |call| {
            Some(Call {
                id: opt_str(call, "id"),
                name: call
                    .member("function")
                    .map_or("", |function| str_field(function, "name"))
                    .to_string(),
            })
        }),
        "tool" => Entry::lone_result(
            message,
            opt_str(message, "tool_call_id"),
            str_field(message, "name"),
        ),
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
