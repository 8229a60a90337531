//! The `normalizeToolCallId` pi-ai's openai-completions provider passes to `transformMessages`.
//!
//! An id holding `|` comes from the OpenAI Responses API (`{call_id}|{item_id}`): before 0.80.4
//! its call id is kept, sanitised and cut to 40 characters; from then on both parts are kept
//! (joined with `_`) while they fit in 40, else the call id's head and a hash of the whole id.
//! Any other id is cut to 40 UTF-16 units for the `openai` provider and kept for every other one.

use std::borrow::Cow;

use crate::js_string;
use crate::pi::PiVersion;
use crate::pi::call_id::sanitized_id;
use crate::pi::request::short_hash::short_hash;

/// OpenAI's limit on a tool call id.
const MAX_ID: usize = 40;

pub(crate) fn normalize_tool_call_id(id: &str, openai: bool, v: PiVersion) -> Cow<'_, str> {
    if let Some((call, item)) = id.split_once('|') {
        let call = sanitized(call);
        if v < PiVersion::From0804 {
            return Cow::Owned(call.chars().take(MAX_ID).collect());
        }
        let item = sanitized(item);
        let combined = if item.is_empty() {
            call.clone()
        } else {
            format!("{call}_{item}")
        };
        // Sanitised ids are ASCII: bytes are UTF-16 units.
        if combined.len() <= MAX_ID {
            return Cow::Owned(combined);
        }
        let hash: String = short_hash(id).chars().take(8).collect();
        let prefix: String = call.chars().take(MAX_ID - hash.len() - 1).collect();
        return Cow::Owned(format!("{prefix}_{hash}"));
    }
    if openai && js_string::utf16_len(id) > MAX_ID {
        return Cow::Owned(js_string::collect(js_string::code_units(id).take(MAX_ID)));
    }
    Cow::Borrowed(id)
}

/// `text.replace(/[^a-zA-Z0-9_-]/g, "_")`, per UTF-16 unit.
fn sanitized(text: &str) -> String {
    sanitized_id(text).collect()
}
