//! pi `AgentMessage`s: calls are an assistant's `toolCall` blocks, results are `toolResult`
//! messages (`toolCallId`, `toolName`); every other role is a message a repair must keep.

use serde_json::Value;

use super::{Call, Entry, ResultPart, Role, opt_str, str_field};

pub fn entry(message: &Value) -> Entry {
    match str_field(message, "role") {
        "system" => Entry::plain(Role::System, message),
        "user" => Entry::plain(Role::User, message),
        "assistant" => Entry {
            calls: message
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|block| str_field(block, "type") == "toolCall")
                .map(|block| Call {
                    id: opt_str(block, "id"),
                    name: str_field(block, "name").to_string(),
                })
                .collect(),
            ..Entry::plain(Role::Assistant, message)
        },
        "toolResult" => Entry {
            role: Role::Tool,
            calls: Vec::new(),
            results: vec![ResultPart {
                id: opt_str(message, "toolCallId"),
                name: str_field(message, "toolName").to_string(),
                value: message.clone(),
            }],
            rest: None,
        },
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
