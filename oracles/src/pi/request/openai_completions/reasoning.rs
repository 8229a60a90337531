//! Where an assistant's reasoning goes in an openai-completions body: the field its first
//! thinking block's signature names, and the `reasoning_details` parsed from signatures.
//!
//! Before 0.86 any non-empty signature names the field, and every tool call's `thoughtSignature`
//! that parses as JSON (to a truthy value) is a detail. From 0.86 only `reasoning`,
//! `reasoning_content` and `reasoning_text` name it, and the details are the first thinking
//! signature that parses as an array of OpenRouter reasoning details, else the tool calls' legacy
//! `reasoning.encrypted` details.

use crate::js::{field, is_str, truthy};
use crate::js_value::JsValue;
use crate::pi::PiVersion;
use crate::pi::request::parsed_signature;

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
pub(super) fn preserved_details<'r>(
    thinking: &[&'r JsValue<'_>],
    calls: &[&'r JsValue<'_>],
    v: PiVersion,
) -> Option<Vec<JsValue<'r>>> {
    if v < PiVersion::From086 {
        let details: Vec<JsValue> = calls
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
                JsValue::Array(details) if !details.is_empty() && details.iter().all(is_detail) => {
                    Some(details.into_vec())
                }
                _ => None,
            });
    let legacy: Vec<JsValue> = calls
        .iter()
        .filter_map(|call| parsed(field(call, "thoughtSignature")))
        .filter(is_legacy_detail)
        .collect();
    signed.or((!legacy.is_empty()).then_some(legacy))
}

/// `JSON.parse(signature)` for a truthy signature that parses.
fn parsed<'r>(signature: Option<&'r JsValue<'_>>) -> Option<JsValue<'r>> {
    parsed_signature(signature)?.ok()
}

/// `isOpenAIReasoningDetail`.
fn is_detail(detail: &JsValue) -> bool {
    let JsValue::Object(fields) = detail else {
        return false;
    };
    let absent_or = |key: &str, kind: fn(&JsValue) -> bool| fields.get(key).is_none_or(kind);
    let is_string = |value: &JsValue| matches!(value, JsValue::String(_));
    let common = absent_or("id", |id| matches!(id, JsValue::Null | JsValue::String(_)))
        && absent_or("format", |format| matches!(format, JsValue::String(_)))
        && absent_or("index", |index| matches!(index, JsValue::Number(_)));
    let has_string = |key: &str| fields.get(key).is_some_and(is_string);
    common
        && match fields.get("type").and_then(JsValue::as_str) {
            Some("reasoning.summary") => has_string("summary"),
            Some("reasoning.encrypted") => has_string("data"),
            Some("reasoning.text") => {
                has_string("text")
                    && absent_or("signature", |s| {
                        matches!(s, JsValue::Null | JsValue::String(_))
                    })
            }
            _ => false,
        }
}

/// `parseLegacyEncryptedReasoningDetail`: an encrypted detail with a non-empty id and data.
fn is_legacy_detail(detail: &JsValue) -> bool {
    let non_empty = |key: &str| {
        field(detail, key)
            .and_then(JsValue::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    is_detail(detail)
        && is_str(field(detail, "type"), "reasoning.encrypted")
        && non_empty("id")
        && non_empty("data")
}
