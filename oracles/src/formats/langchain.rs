//! LangChain message dicts: `{"type": "human" | "ai" | "tool" | "system", "content", ...}` with
//! an AI message's `tool_calls: [{"id", "name", "args", "type": "tool_call"}]` (absent when it
//! calls none; its content `""` when it only calls tools) and a tool
//! message's `tool_call_id`, `name` and `status` (`"error"` for an error result). This is the flat
//! dict `langchain_core.messages.convert_to_messages` accepts; the reader also reads the nested
//! shape `messages_to_dict` writes (`{"type", "data": {...}}`).

use crate::js::{Json, View};

use super::llm::{Block, Message};
use super::{Call, CannotExpress, Entry, Role, Written, opt_str, str_field};
use crate::js_value::JsValue;

pub fn write(messages: &[Message]) -> Result<Vec<Written>, CannotExpress> {
    messages.iter().map(message).collect()
}

/// One LangChain message dict.
fn message(message: &Message) -> Result<Written, CannotExpress> {
    Ok(match message {
        Message::System(content) => {
            object! {"type": "system", "content": content.write(part)?}
        }
        Message::User(content) => {
            object! {"type": "human", "content": content.write(part)?}
        }
        Message::Assistant(blocks) => {
            let mut parts = Vec::new();
            let mut calls = Vec::new();
            for block in blocks {
                match block {
                    Block::Call(call) => calls.push(object! {
                        "id": call.id.clone(),
                        "name": call.name.clone(),
                        "args": call.arguments.clone(),
                        "type": "tool_call",
                    }),
                    other => parts.push(part(other)?),
                }
            }
            ai_message(parts, calls)
        }
        Message::Result(result) => object! {
            "type": "tool",
            "tool_call_id": result.id.clone(),
            "name": result.name.clone(),
            "content": result.content.write(part)?,
            "status": if result.is_error { "error" } else { "success" },
        },
    })
}

/// An AI message as LangChain writes one: `content: ""` when the message only calls tools (the
/// `AIMessage` a chat model returns for a tool call), and no `tool_calls` when it calls none
/// (the field is optional in the dict `convert_to_messages` reads).
fn ai_message(parts: Vec<Written>, calls: Vec<Written>) -> Written {
    let content = if parts.is_empty() {
        JsValue::from("")
    } else {
        JsValue::from(parts)
    };
    let mut fields = vec![("type", JsValue::from("ai")), ("content", content)];
    if !calls.is_empty() {
        fields.push(("tool_calls", JsValue::from(calls)));
    }
    JsValue::object(fields)
}

fn part(block: &Block) -> Result<Written, CannotExpress> {
    Ok(match block {
        Block::Text(text) => object! {"type": "text", "text": text.clone()},
        Block::Thinking { thinking, .. } => {
            object! {"type": "thinking", "thinking": thinking.clone()}
        }
        Block::Image { data, mime_type } => object! {
            "type": "image_url",
            "image_url": object! {"url": format!("data:{mime_type};base64,{data}")},
        },
        Block::Call(_) => {
            return Err(CannotExpress::Block(
                "a tool call outside an AI message".into(),
            ));
        }
    })
}

pub fn entry<J: Json + Clone>(message: &J) -> Entry<'_, J> {
    let fields = match message.member("data") {
        Some(data) if matches!(data.view(), View::Object) => data,
        _ => message,
    };
    let kind = match str_field(message, "type") {
        "" => str_field(message, "role"),
        kind => kind,
    };
    match kind {
        "system" => Entry::plain(Role::System, message),
        "human" | "user" => Entry::plain(Role::User, message),
        "ai" | "assistant" => Entry::assistant(message, fields.member("tool_calls"), |call| {
            Some(Call {
                id: opt_str(call, "id"),
                name: str_field(call, "name").to_string(),
            })
        }),
        "tool" => Entry::lone_result(
            message,
            opt_str(fields, "tool_call_id"),
            str_field(fields, "name"),
        ),
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
