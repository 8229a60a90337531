//! The `normalizeToolCallId` pi-ai's openai-completions provider passes to `transformMessages`.
//!
//! An id holding `|` comes from the OpenAI Responses API (`{call_id}|{item_id}`): before 0.80.4
//! its call id is kept, sanitised and cut to 40 characters; from then on both parts are kept
//! (joined with `_`) while they fit in 40, else the call id's head and a hash of the whole id.
//! Any other id is cut to 40 UTF-16 units for the `openai` provider and kept for every other one.

use std::borrow::Cow;

use crate::js_string::{self, JsChar};
use crate::pi::PiVersion;

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
    js_string::code_units(text)
        .map(|unit| match unit {
            JsChar::Scalar(c) if c.is_ascii_alphanumeric() || c == '_' || c == '-' => c,
            _ => '_',
        })
        .collect()
}

/// pi-ai's `shortHash` (`utils/hash.js`): two 32-bit multiplicative hashes over the UTF-16 units,
/// mixed, written in base 36.
fn short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in js_string::code_units(text) {
        let unit = match unit {
            JsChar::Scalar(c) => c as u32,
            JsChar::Lone(unit) => u32::from(unit),
        };
        h1 = (h1 ^ unit).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ unit).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    base36(h2) + &base36(h1)
}

/// `n.toString(36)`.
fn base36(mut n: u32) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit(n % 36, 36).expect("a base-36 digit"));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}
