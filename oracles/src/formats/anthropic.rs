//! Anthropic messages: `user` and `assistant` only (the system prompt is a request field, not a
//! message); calls are `tool_use` blocks `{id, name, input}`; results are `tool_result` blocks
//! `{tool_use_id, content, is_error?}` in a user message, and the results of consecutive pi
//! results share one user message (as pi-ai's Anthropic request builder writes them).

use serde_json::{Value, json};

use super::llm::{Block, Content, Message};
use super::{Call, CannotExpress, Entry, ResultPart, Role, opt_str, split_parts, str_field};

pub fn write(messages: &[Message]) -> Result<Vec<Value>, CannotExpress> {
    let mut out: Vec<Value> = Vec::new();
    let mut previous_was_result = false;
    for message in messages {
        let is_result = matches!(message, Message::Result { .. });
        match message {
            Message::System(_) => return Err(CannotExpress::Role("system".into())),
            Message::User(content) => {
                out.push(json!({"role": "user", "content": content_value(content)?}))
            }
            Message::Assistant(blocks) => out.push(json!({
                "role": "assistant",
                "content": blocks.iter().map(block).collect::<Result<Vec<_>, _>>()?
            })),
            Message::Result {
                id,
                content,
                is_error,
                ..
            } => {
                let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": content_value(content)?});
                if *is_error {
                    result["is_error"] = json!(true);
                }
                match out.last_mut() {
                    Some(last) if previous_was_result => last["content"]
                        .as_array_mut()
                        .expect("written above")
                        .push(result),
                    _ => out.push(json!({"role": "user", "content": [result]})),
                }
            }
        }
        previous_was_result = is_result;
    }
    Ok(out)
}

fn content_value(content: &Content) -> Result<Value, CannotExpress> {
    match content {
        Content::Text(text) => Ok(json!(text)),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(block)
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
    }
}

fn block(block: &Block) -> Result<Value, CannotExpress> {
    Ok(match block {
        Block::Text(text) => json!({"type": "text", "text": text}),
        Block::Thinking {
            thinking,
            signature,
        } => {
            json!({"type": "thinking", "thinking": thinking, "signature": signature.clone().unwrap_or_default()})
        }
        Block::Image { data, mime_type } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}})
        }
        Block::Call {
            id,
            name,
            arguments,
        } => json!({"type": "tool_use", "id": id, "name": name, "input": arguments}),
    })
}

pub fn entry(message: &Value) -> Entry {
    match str_field(message, "role") {
        "user" => {
            let (results, rest) = split_parts(message, "content", |part| {
                (str_field(part, "type") == "tool_result").then(|| ResultPart {
                    id: opt_str(part, "tool_use_id"),
                    name: String::new(),
                    value: part.clone(),
                })
            });
            Entry {
                role: Role::User,
                calls: Vec::new(),
                results,
                rest,
            }
        }
        "assistant" => Entry {
            calls: message
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|part| str_field(part, "type") == "tool_use")
                .map(|part| Call {
                    id: opt_str(part, "id"),
                    name: str_field(part, "name").to_string(),
                })
                .collect(),
            ..Entry::plain(Role::Assistant, message)
        },
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
