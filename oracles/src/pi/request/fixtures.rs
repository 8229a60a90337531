//! Messages and bodies the builders' and the body rules' tests share: a transcript written in a
//! few words, and the list of the body pi builds for it (through the vectors protocol, as
//! `render --batch` runs it), judged as its JSON and as the typed body.

use serde_json::{Value, json};

use crate::js_value::{self, JsValue};
use crate::pi::{Api, PiVersion, render, run_vector_input};
use crate::wire::EntryViolation;

pub(crate) fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": 1})
}

pub(crate) fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// An assistant message of `model` (its `api`, `provider` and `id`).
pub(crate) fn assistant_of(model: &Value, stop_reason: &str, content: Value) -> Value {
    json!({"role": "assistant", "api": model["api"], "provider": model["provider"],
           "model": model["id"], "stopReason": stop_reason, "timestamp": 2, "content": content})
}

/// The result of the `read` call `id`.
pub(crate) fn result(id: &str, content: Value) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "isError": false,
           "content": content, "timestamp": 3})
}

/// The list `list` of the body the input key `key` asks for, as pi builds it for `messages` to
/// `model`.
pub(crate) fn body(
    messages: &Value,
    model: &Value,
    (key, list): (&str, &str),
    v: PiVersion,
) -> Vec<Value> {
    let input = json!({key: true, "messages": messages, "model": model});
    let output = run_vector_input(&input, v);
    match &output[key][list] {
        Value::Array(items) => items.clone(),
        _ => panic!("no body: {output}"),
    }
}

/// What the rules of `api` find in the typed body pi builds for `messages` to `model`, the body
/// `check` and the fuzz targets judge. The builders' tests judge the body's JSON (what pi sends)
/// and check that the typed body is judged the same.
pub(crate) fn judged_typed(
    messages: &Value,
    model: &Value,
    api: Api,
    v: PiVersion,
) -> Vec<EntryViolation> {
    let messages = js_value::borrow_all(messages.as_array().expect("messages"));
    let model = JsValue::from(model);
    let rendered = render(&messages, &model, api, v).expect("pi's pipeline");
    let body = rendered.body(&model, v).expect("a body pi builds");
    let (_, found) = body.violations().expect("an API other than Anthropic's");
    found
}
