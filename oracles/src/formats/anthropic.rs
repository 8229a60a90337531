//! Anthropic messages: `user` and `assistant` only (the system prompt is a request field, not a
//! message); calls are `tool_use` blocks `{id, name, input}`; results are `tool_result` blocks
//! `{tool_use_id, content, is_error?}` in a user message, and the results of consecutive pi
//! results share one user message (as pi-ai's Anthropic request builder writes them).

use crate::js::Json;
use crate::js_value::JsValue;

use super::llm::{Block, Message};
use super::{
    Call, CannotExpress, Entry, ResultPart, Role, Written, opt_str, str_field,
    write_grouping_results,
};

pub fn write(messages: &[Message]) -> Result<Vec<Written>, CannotExpress> {
    write_grouping_results(messages, "content", result, |message| {
        Ok(match message {
            Message::System(_) => return Err(CannotExpress::Role("system".into())),
            Message::User(content) => object! {"role": "user", "content": content.write(block)?},
            Message::Assistant(blocks) => object! {
                "role": "assistant",
                "content": blocks.iter().map(block).collect::<Result<Vec<_>, _>>()?,
            },
            Message::Result(_) => unreachable!("written by `result`"),
        })
    })
}

/// The `tool_result` block of a result message (`None` for every other message).
fn result(message: &Message) -> Result<Option<Written>, CannotExpress> {
    let Message::Result(result) = message else {
        return Ok(None);
    };
    let mut fields = vec![
        ("type", JsValue::from("tool_result")),
        ("tool_use_id", JsValue::from(result.id.clone())),
        ("content", result.content.write(block)?),
    ];
    if result.is_error {
        fields.push(("is_error", JsValue::from(true)));
    }
    Ok(Some(JsValue::object(fields)))
}

fn block(block: &Block) -> Result<Written, CannotExpress> {
    Ok(match block {
        Block::Text(text) => object! {"type": "text", "text": text.clone()},
        Block::Thinking {
            thinking,
            signature,
        } => object! {
            "type": "thinking",
            "thinking": thinking.clone(),
            "signature": signature.clone().unwrap_or_default(),
        },
        Block::Image { data, mime_type } => object! {
            "type": "image",
            "source": object! {"type": "base64", "media_type": mime_type.clone(), "data": data.clone()},
        },
        Block::Call(call) => object! {
            "type": "tool_use",
            "id": call.id.clone(),
            "name": call.name.clone(),
            "input": call.arguments.clone(),
        },
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
