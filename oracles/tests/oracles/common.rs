//! The pi messages the tests build transcripts from.

use serde_json::{Value, json};

/// A `bash` call block.
pub fn call(id: &str) -> Value {
    json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {}})
}

/// An assistant message of `model` making `calls` (`gpt-5` speaks OpenAI Responses, any other
/// model Anthropic Messages).
pub fn assistant(calls: Vec<Value>, model: &str) -> Value {
    let (api, provider) = match model {
        "gpt-5" => ("openai-responses", "openai"),
        _ => ("anthropic-messages", "anthropic"),
    };
    json!({"role": "assistant", "content": calls, "api": api, "provider": provider,
           "model": model, "stopReason": "toolUse"})
}

/// An assistant message of the default model calling `ids`.
pub fn calling(ids: &[&str]) -> Value {
    assistant(ids.iter().map(|id| call(id)).collect(), "claude-sonnet-4-5")
}

/// The result of call `id`.
pub fn result(id: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
           "content": [{"type": "text", "text": "ok"}], "isError": false})
}

pub fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}
