//! Gemini `Content[]`: `role` `user` or `model`, `parts`. Calls are `functionCall {name, args,
//! id?}` parts of a model turn; results are `functionResponse {name, response, id?}` parts of the
//! user turn right after it. The results of consecutive pi results share one user turn, and a
//! response is written `{"output": text}` (`{"error": text}` for an error result), as gemini-cli
//! writes tool responses. There is no system role in `contents` (it is `systemInstruction`).

use crate::js::Json;
use crate::js_value::JsValue;

use super::llm::{Block, Content, Message};
use super::{
    Call, CannotExpress, Entry, ResultPart, Role, Written, opt_str, str_field,
    write_grouping_results,
};

pub fn write(messages: &[Message]) -> Result<Vec<Written>, CannotExpress> {
    write_grouping_results(messages, "parts", response, |message| {
        Ok(match message {
            Message::System(_) => return Err(CannotExpress::Role("system".into())),
            Message::User(content) => object! {"role": "user", "parts": parts(content)?},
            Message::Assistant(blocks) => object! {
                "role": "model",
                "parts": blocks.iter().map(part).collect::<Result<Vec<_>, _>>()?,
            },
            Message::Result(_) => unreachable!("written by `response`"),
        })
    })
}

/// The `functionResponse` part of a result message (`None` for every other message).
fn response(message: &Message) -> Result<Option<Written>, CannotExpress> {
    let Message::Result(result) = message else {
        return Ok(None);
    };
    let key = if result.is_error { "error" } else { "output" };
    let text = result.content.single_text("a function response")?;
    Ok(Some(object! {
        "functionResponse": object! {
            "id": result.id.clone(),
            "name": result.name.clone(),
            "response": JsValue::object([(key, JsValue::from(text))]),
        },
    }))
}

fn parts(content: &Content) -> Result<Vec<Written>, CannotExpress> {
    content.blocks().iter().map(part).collect()
}

fn part(block: &Block) -> Result<Written, CannotExpress> {
    Ok(match block {
        Block::Text(text) => object! {"text": text.clone()},
        Block::Thinking { thinking, .. } => object! {"text": thinking.clone(), "thought": true},
        Block::Image { data, mime_type } => object! {
            "inlineData": object! {"mimeType": mime_type.clone(), "data": data.clone()},
        },
        Block::Call(call) => object! {
            "functionCall": object! {
                "id": call.id.clone(),
                "name": call.name.clone(),
                "args": call.arguments.clone(),
            },
        },
    })
}

pub fn entry<J: Json + Clone>(message: &J) -> Entry<'_, J> {
    match str_field(message, "role") {
        "user" => Entry::with_result_parts(Role::User, message, "parts", |part| {
            let response = part.member("functionResponse")?;
            Some(ResultPart {
                id: opt_str(response, "id"),
                name: str_field(response, "name").to_string(),
                value: part,
            })
        }),
        "model" => Entry::assistant(message, message.member("parts"), |part| {
            let call = part.member("functionCall")?;
            Some(Call {
                id: opt_str(call, "id"),
                name: str_field(call, "name").to_string(),
            })
        }),
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
