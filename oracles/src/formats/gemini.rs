//! Gemini `Content[]`: `role` `user` or `model`, `parts`. Calls are `functionCall {name, args,
//! id?}` parts of a model turn; results are `functionResponse {name, response, id?}` parts of the
//! user turn right after it. The results of consecutive pi results share one user turn, and a
//! response is written `{"output": text}` (`{"error": text}` for an error result), as gemini-cli
//! writes tool responses. There is no system role in `contents` (it is `systemInstruction`).

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
            Message::User(content) => out.push(json!({"role": "user", "parts": parts(content)?})),
            Message::Assistant(blocks) => out.push(json!({
                "role": "model",
                "parts": blocks.iter().map(part).collect::<Result<Vec<_>, _>>()?
            })),
            Message::Result {
                id,
                name,
                content,
                is_error,
            } => {
                let key = if *is_error { "error" } else { "output" };
                let text = content.single_text("a function response")?;
                let response =
                    json!({"functionResponse": {"id": id, "name": name, "response": {key: text}}});
                match out.last_mut() {
                    Some(last) if previous_was_result => last["parts"]
                        .as_array_mut()
                        .expect("written above")
                        .push(response),
                    _ => out.push(json!({"role": "user", "parts": [response]})),
                }
            }
        }
        previous_was_result = is_result;
    }
    Ok(out)
}

fn parts(content: &Content) -> Result<Vec<Value>, CannotExpress> {
    content.blocks().iter().map(part).collect()
}

fn part(block: &Block) -> Result<Value, CannotExpress> {
    Ok(match block {
        Block::Text(text) => json!({"text": text}),
        Block::Thinking { thinking, .. } => json!({"text": thinking, "thought": true}),
        Block::Image { data, mime_type } => {
            json!({"inlineData": {"mimeType": mime_type, "data": data}})
        }
        Block::Call {
            id,
            name,
            arguments,
        } => json!({"functionCall": {"id": id, "name": name, "args": arguments}}),
    })
}

pub fn entry(message: &Value) -> Entry {
    match str_field(message, "role") {
        "user" => {
            let (results, rest) = split_parts(message, "parts", |part| {
                let response = part.get("functionResponse")?;
                Some(ResultPart {
                    id: opt_str(response, "id"),
                    name: str_field(response, "name").to_string(),
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
        "model" => Entry {
            calls: message
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|part| part.get("functionCall"))
                .map(|call| Call {
                    id: opt_str(call, "id"),
                    name: str_field(call, "name").to_string(),
                })
                .collect(),
            ..Entry::plain(Role::Assistant, message)
        },
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
