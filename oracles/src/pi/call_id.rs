//! The characters every provider's `normalizeToolCallId` keeps in a call id (`[a-zA-Z0-9_-]`),
//! and an id sanitised to them: what Anthropic's normaliser
//! ([`super::transform::normalize_tool_call_id`]) and openai-completions' and openai-responses'
//! (`request::*::tool_call_id`) share.

use crate::js_string::{self, JsChar};

/// Whether [`sanitized_id`] leaves `id` as it is: read byte by byte, since a byte of a non-ASCII
/// character is never kept either.
pub(crate) fn already_sanitized(id: &str) -> bool {
    id.bytes().all(|byte| kept_in_ids(char::from(byte)))
}

/// Whether every provider's normaliser keeps `c` in a call id: `[a-zA-Z0-9_-]`.
fn kept_in_ids(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `text.replace(/[^a-zA-Z0-9_-]/g, "_")`, per UTF-16 unit (an astral character becomes two
/// underscores, a lone surrogate one): how every provider's normaliser sanitises an id.
pub(crate) fn sanitized_id(text: &str) -> impl Iterator<Item = char> + '_ {
    js_string::code_units(text).map(|unit| match unit {
        JsChar::Scalar(c) if kept_in_ids(c) => c,
        _ => '_',
    })
}

/// The first `units` characters of [`sanitized_id`], in a text sized for them (each is ASCII, one
/// byte): the normal form of the normalisers that cut an id.
pub(crate) fn sanitized_id_cut(text: &str, units: usize) -> String {
    let mut out = String::with_capacity(units);
    out.extend(sanitized_id(text).take(units));
    out
}
