//! What pi-ai's google-shared code reads from a Gemini API model's id: whether the model sends
//! call ids (`requiresToolCallId`, which also picks the provider's id normaliser) and whether it
//! takes images inside a function response (`supportsMultimodalFunctionResponse`), both from its
//! Gemini major version.

use crate::js::field;
use crate::js_value::JsValue;
use crate::pi::PiVersion;

/// The model's id as the builder reads it (the catalog's ids are strings).
fn model_id<'m>(model: &'m JsValue) -> &'m str {
    field(model, "id")
        .and_then(JsValue::as_str)
        .unwrap_or_default()
}

/// `getGeminiMajorVersion`: the major version of a `gemini-N…` or `gemini-live-N…` model id
/// (lower-cased), read as `parseInt` reads its digits.
fn gemini_major_version(model_id: &str) -> Option<u64> {
    let id = model_id.to_lowercase();
    let rest = id.strip_prefix("gemini-")?;
    let rest = rest.strip_prefix("live-").unwrap_or(rest);
    let digits: &str = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    // More digits than a u64 holds is a version far above any threshold read here.
    (!digits.is_empty()).then(|| digits.parse().unwrap_or(u64::MAX))
}

/// `requiresToolCallId(model.id)`: Claude and gpt-oss models behind Google's APIs, and from 0.86
/// Gemini 3 and later, send call ids in function calls and responses.
pub(crate) fn requires_tool_call_id(model: &JsValue, v: PiVersion) -> bool {
    let id = model_id(model);
    id.starts_with("claude-")
        || id.starts_with("gpt-oss-")
        || (v >= PiVersion::From086 && gemini_major_version(id).is_some_and(|major| major >= 3))
}

/// `supportsMultimodalFunctionResponse`: images go inside a function response for Gemini 3 and
/// later, and for any model that is not Gemini.
pub(super) fn multimodal_function_response(model: &JsValue) -> bool {
    gemini_major_version(model_id(model)).is_none_or(|major| major >= 3)
}

#[cfg(test)]
mod tests {
    use super::gemini_major_version;

    #[test]
    fn the_gemini_major_version_is_read_from_the_lower_cased_id() {
        assert_eq!(gemini_major_version("gemini-2.5-flash"), Some(2));
        assert_eq!(gemini_major_version("GEMINI-3-pro-preview"), Some(3));
        assert_eq!(gemini_major_version("gemini-live-10"), Some(10));
        assert_eq!(gemini_major_version("gemini-03"), Some(3));
        assert_eq!(gemini_major_version("gemini-flash-latest"), None);
        assert_eq!(gemini_major_version("models/gemini-3"), None);
        assert_eq!(gemini_major_version("claude-sonnet-4-5"), None);
    }
}
