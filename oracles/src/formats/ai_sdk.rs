//! AI SDK `ModelMessage[]` (v5): `system` (string content), `user`, `assistant` with content parts
//! `text`, `reasoning` and `tool-call {toolCallId, toolName, input}`, and `tool` messages whose
//! parts are `tool-result {toolCallId, toolName, output}` (`output` `{type: "text" | "error-text",
//! value}`). One tool message per pi result.

use serde_json::{Value, json};

use crate::js::Json;

use super::llm::{Block, Content, Message};
use super::{Call, CannotExpress, Entry, ResultPart, Role, opt_str, str_field};

pub fn write(messages: &[Message]) -> Result<Vec<Value>, CannotExpress> {
    messages
        .iter()
        .map(|message| {
            Ok(match message {
                Message::System(content) => {
                    json!({"role": "system", "content": content.single_text("a system message")?})
                }
                Message::User(Content::Text(text)) => json!({"role": "user", "content": text}),
                Message::User(Content::Blocks(blocks)) => json!({
                    "role": "user",
                    "content": blocks.iter().map(part).collect::<Result<Vec<_>, _>>()?
                }),
                Message::Assistant(blocks) => json!({
                    "role": "assistant",
                    "content": blocks.iter().map(part).collect::<Result<Vec<_>, _>>()?
                }),
                Message::Result {
                    id,
                    name,
                    content,
                    is_error,
                } => json!({
                    "role": "tool",
                    "content": [{
                        "type": "tool-result", "toolCallId": id, "toolName": name,
                        "output": {
                            "type": if *is_error { "error-text" } else { "text" },
                            "value": content.single_text("a tool result")?
                        }
                    }]
                }),
            })
        })
        .collect()
}

fn part(block: &Block) -> Result<Value, CannotExpress> {
    Ok(match block {
        Block::Text(text) => json!({"type": "text", "text": text}),
        Block::Thinking { thinking, .. } => json!({"type": "reasoning", "text": thinking}),
        Block::Image { data, mime_type } => {
            json!({"type": "image", "image": data, "mediaType": mime_type})
        }
        Block::Call {
            id,
            name,
            arguments,
        } => {
            json!({"type": "tool-call", "toolCallId": id, "toolName": name, "input": arguments})
        }
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
