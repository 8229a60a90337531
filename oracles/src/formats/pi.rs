//! pi `AgentMessage`s: calls are an assistant's `toolCall` blocks, results are `toolResult`
//! messages (`toolCallId`, `toolName`); every other role is a message a repair must keep.

use crate::js::Json;

use super::{Call, Entry, Role, opt_str, str_field};

pub fn entry<J: Json + Clone>(message: &J) -> Entry<'_, J> {
    match str_field(message, "role") {
        "system" => Entry::plain(Role::System, message),
        "user" => Entry::plain(Role::User, message),
        "assistant" => Entry::assistant(message, message.member("content"), |block| {
            Call::typed(block, "toolCall", "id", "name")
        }),
        "toolResult" => Entry::lone_result(
            message,
            opt_str(message, "toolCallId"),
            str_field(message, "toolName"),
        ),
        other => Entry::plain(Role::Other(other.to_string()), message),
    }
}
