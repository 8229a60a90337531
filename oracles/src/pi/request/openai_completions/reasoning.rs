//! Where an assistant's reasoning goes in an openai-completions body: the field its first
//! thinking block's signature names, and the `reasoning_details` parsed from signatures.
//!
//! Before 0.86 any non-empty signature names the field, and every tool call's `thoughtSignature`
//! that parses as JSON (to a truthy value) is a detail. From 0.86 only `reasoning`,
//! `reasoning_content` and `reasoning_text` name it, and the details are the first thinking
//! signature that parses as an array of OpenRouter reasoning details, else the tool calls' legacy
//! `reasoning.encrypted` details.

use serde_json::Value;

use crate::js::{self, field, truthy};
use crate::js_value::JsValue;
use crate::json_text;
use crate::pi::PiVersion;

const REASONING_FIELDS: [&str; 3] = ["reasoning", "reasoning_content", "reasoning_text"];

/// The field named by the first non-blank thinking block's `thinkingSignature`.
pub(super) fn field_name<'a>(signature: Option<&'a JsValue<'a>>, v: PiVersion) -> Option<&'a str> {
    let name = signature.and_then(JsValue::as_str)?;
    let named = if v >= PiVersion::From086 {
        REASONING_FIELDS.contains(&name)
    } else {
        !name.is_empty()
    };
    named.then_some(name)
}

/// The `reasoning_details` of the message, if any.
pub(super) fn preserved_details(
    thinking: &[&JsValue],
    calls: &[&JsValue],
    v: PiVersion,
) -> Option<Vec<Value>> {
    if v < PiVersion::From086 {
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|call| parsed(field(call, "thoughtSignature")))
            .filter(|detail| truthy(Some(detail)))
            .collect();
        return (!details.is_empty()).then_some(details);
    }
    let signed =
        thinking
            .iter()
            .find_map(|block| match parsed(field(block, "thinkingSignature"))? {
                Value::Array(details) if !details.is_empty() && details.iter().all(is_detail) => {
                    Some(details)
                }
                _ => None,
            });
    let legacy: Vec<Value> = calls
        .iter()
        .filter_map(|call| parsed(field(call, "thoughtSignature")))
        .filter(is_legacy_detail)
        .collect();
    signed.or((!legacy.is_empty()).then_some(legacy))
}

/// `JSON.parse(signature)` for a truthy signature (a non-string is parsed as its string form).
fn parsed(signature: Option<&JsValue>) -> Option<Value> {
    if !truthy(signature) {
        return None;
    }
    json_text::parse(&js::to_js_string(signature)).ok()
}

/// `isOpenAIReasoningDetail`.
fn is_detail(detail: &Value) -> bool {
    let Value::Object(fields) = detail else {
        return false;
    };
    let absent_or = |key: &str, kind: fn(&Value) -> bool| fields.get(key).is_none_or(kind);
    let common = absent_or("id", |id| id.is_null() || id.is_string())
        && absent_or("format", Value::is_string)
        && absent_or("index", Value::is_number);
    let is_string = |key: &str| fields.get(key).is_some_and(Value::is_string);
    common
        && match fields.get("type").and_then(Value::as_str) {
            Some("reasoning.summary") => is_string("summary"),
            Some("reasoning.encrypted") => is_string("data"),
            Some("reasoning.text") => {
                is_string("text") && absent_or("signature", |s| s.is_null() || s.is_string())
            }
            _ => false,
        }
}

/// `parseLegacyEncryptedReasoningDetail`: an encrypted detail with a non-empty id and data.
fn is_legacy_detail(detail: &Value) -> bool {
    let non_empty = |key: &str| detail[key].as_str().is_some_and(|s| !s.is_empty());
    is_detail(detail)
        && detail["type"] == "reasoning.encrypted"
        && non_empty("id")
        && non_empty("data")
}
