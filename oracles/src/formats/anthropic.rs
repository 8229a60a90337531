//! Anthropic messages: `user` and `assistant` only (the system prompt is a request field, not a
//! message); calls are `tool_use` blocks `{id, name, input}`; results are `tool_result` blocks
//! `{tool_use_id, content, is_error?}` in a user message, and the results of consecutive pi
//! results share one user message (as pi-ai's Anthropic request builder writes them).

use serde_json::{Value, json};

use crate::js::Json;

use super::llm::{Block, Message};
use super::{
    Call, CannotExpress, Entry, ResultPart, Role, opt_str, str_field, write_grouping_results,
};

pub fn write(messages: &[Message]) -> Result<Vec<Value>, CannotExpress> {
    write_grouping_results(messages, "content", result, |message| {
        Ok(match message {
            Message::System(_) => return Err(CannotExpress::Role("system".into())),
            Message::User(content) => json!({"role": "user", "content": content.write(block)?}),
            Message::Assistant(blocks) => json!({
                "role": "assistant",
                "content": blocks.iter().map(block).collect::<Result<Vec<_>, _>>()?
            }),
            Message::Result { .. } => unreachable!("written by `result`"),
        })
    })
}

/// The `tool_result` block of a result message (`None` for every other message).
fn result(message: &Message) -> Result<Option<Value>, CannotExpress> {
    let Message::Result {
        id,
        content,
        is_error,
        ..
    } = message
    else {
        return Ok(None);
    };
    let mut result =
        json!({"type": "tool_result", "tool_use_id": id, "content": content.write(block)?});
    if *is_error {
        result["is_error"] = json!(true);
    }
    Ok(Some(result))
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

pub fn entry<J: Json + Clone>(message: &J) -> Entry<'_, J> {
    match str_field(message, "role") {
        "user" => Entry::with_result_parts(Role::User, message, "content", |part| {
            (str_field(part, "type") == "tool_result").then(|| ResultPart {
                id: opt_str(part, "tool_use_id"),
                name: String::new(),
                value: part,
            })
        }),
        "assistant" => Entry::assistant(message, message.member("content"), |part| {
            Call::typed(part, "tool_use", "id", "name")
        }),
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
