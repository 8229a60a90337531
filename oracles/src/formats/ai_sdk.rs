//! AI SDK `ModelMessage[]` (v5): `system` (string content), `user`, `assistant` with content parts
//! `text`, `reasoning` and `tool-call {toolCallId, toolName, input}`, and `tool` messages whose
//! parts are `tool-result {toolCallId, toolName, output}` (`output` `{type: "text" | "error-text",
//! value}`). One tool message per pi result.

use crate::js::Json;

use super::llm::{Block, Content, Message};
use super::{Call, CannotExpress, Entry, ResultPart, Role, Written, opt_str, str_field};

pub fn write(messages: &[Message]) -> Result<Vec<Written>, CannotExpress> {
    messages.iter().map(message).collect()
}

/// One AI SDK `ModelMessage`.
fn message(message: &Message) -> Result<Written, CannotExpress> {
    Ok(match message {
        Message::System(content) => object! {
            "role": "system",
            "content": content.single_text("a system message")?,
        },
        Message::User(Content::Text(text)) => {
            object! {"role": "user", "content": text.clone()}
        }
        Message::User(Content::Blocks(blocks)) => object! {
            "role": "user",
            "content": blocks.iter().map(part).collect::<Result<Vec<_>, _>>()?,
        },
        Message::Assistant(blocks) => object! {
            "role": "assistant",
            "content": blocks.iter().map(part).collect::<Result<Vec<_>, _>>()?,
        },
        Message::Result(result) => object! {
            "role": "tool",
            "content": vec![object! {
                "type": "tool-result",
                "toolCallId": result.id.clone(),
                "toolName": result.name.clone(),
                "output": object! {
                    "type": if result.is_error { "error-text" } else { "text" },
                    "value": result.content.single_text("a tool result")?,
                },
            }],
        },
    })
}

fn part(block: &Block) -> Result<Written, CannotExpress> {
    Ok(match block {
        Block::Text(text) => object! {"type": "text", "text": text.clone()},
        Block::Thinking { thinking, .. } => object! {"type": "reasoning", "text": thinking.clone()},
        Block::Image { data, mime_type } => {
            object! {"type": "image", "image": data.clone(), "mediaType": mime_type.clone()}
        }
        Block::Call(call) => object! {
            "type": "tool-call",
            "toolCallId": call.id.clone(),
            "toolName": call.name.clone(),
            "input": call.arguments.clone(),
        },
    })
}

pub fn entry<J: Json + Clone>(message: &J) -> Entry<'_, J> {
    match str_field(message, "role") {
        "system" => Entry::plain(Role::System, message),
        "user" => Entry::plain(Role::User, message),
        "assistant" => Entry::assistant(message, message.member("content"), |part| {
            Call::typed(part, "tool-call", "toolCallId", "toolName")
        }),
        "tool" => Entry::with_result_parts(Role::Tool, message, "content", |part| {
            (str_field(part, "type") == "tool-result").then(|| ResultPart {
                id: opt_str(part, "toolCallId"),
                name: str_field(part, "toolName").to_string(),
                value: part,
            })
        }),
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
