//! OpenAI chat completions: `system`/`developer`, `user`, `assistant` with `tool_calls[]`
//! (`{id, type: "function", function: {name, arguments}}`, arguments a JSON string), and one
//! `tool` message per result (`tool_call_id`). A result's error flag has no field here; an
//! assistant's thinking is its `reasoning_content` (the OpenAI-compatible field DeepSeek, vLLM and
//! LiteLLM use), so an assistant with more than one thinking block cannot be expressed.

use super::llm::{Block, Content, Message};
use super::{Call, CannotExpress, Entry, Role, Written, opt_str, str_field};
use crate::js::Json;
use crate::js_value::{JsValue, SortedKeys};

pub fn write(messages: &[Message]) -> Result<Vec<Written>, CannotExpress> {
    messages.iter().map(message).collect()
}

/// One chat message.
fn message(message: &Message) -> Result<Written, CannotExpress> {
    Ok(match message {
        Message::System(content) => {
            object! {"role": "system", "content": text(content, "a system message")?}
        }
        Message::User(content) => {
            object! {"role": "user", "content": user_content(content)?}
        }
        Message::Assistant(blocks) => assistant(blocks)?,
        Message::Result(result) => object! {
            "role": "tool",
            "tool_call_id": result.id.clone(),
            "content": text(&result.content, "a tool message")?,
        },
    })
}

/// A bare string stays a string; blocks become text parts (anything else is refused).
fn text(content: &Content, place: &str) -> Result<Written, CannotExpress> {
    content.write(|block| match block {
        Block::Text(text) => Ok(text_part(text)),
        _ => Err(CannotExpress::Block(format!("non-text content in {place}"))),
    })
}

/// As [`text`], and an image becomes an `image_url` part with a data URL.
fn user_content(content: &Content) -> Result<Written, CannotExpress> {
    content.write(|block| match block {
        Block::Text(text) => Ok(text_part(text)),
        Block::Image { data, mime_type } => Ok(object! {
            "type": "image_url",
            "image_url": object! {"url": format!("data:{mime_type};base64,{data}")},
        }),
        _ => Err(CannotExpress::Block(
            "a thinking or call block in a user message".into(),
        )),
    })
}

fn text_part(text: &str) -> Written {
    object! {"type": "text", "text": text.to_string()}
}

fn assistant(blocks: &[Block]) -> Result<Written, CannotExpress> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    let mut reasoning: Option<&String> = None;
    for block in blocks {
        match block {
            Block::Text(text) => parts.push(text_part(text)),
            Block::Call(call) => calls.push(object! {
                "id": call.id.clone(),
                "type": "function",
                // Keys sorted, as the bridge has always written them.
                "function": object! {
                    "name": call.name.clone(),
                    "arguments": serde_json::to_string(&SortedKeys(&call.arguments)).expect("JSON"),
                },
            }),
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
    let content = if parts.is_empty() {
        JsValue::Null
    } else {
        JsValue::from(parts)
    };
    let mut fields = vec![("role", JsValue::from("assistant")), ("content", content)];
    if !calls.is_empty() {
        fields.push(("tool_calls", JsValue::from(calls)));
    }
    if let Some(reasoning) = reasoning {
        fields.push(("reasoning_content", JsValue::from(reasoning.clone())));
    }
    Ok(JsValue::object(fields))
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
