//! Token estimates (`estimate_fast`): `len // 4` in code points, read through the family's text
//! accessor so both chat schemas count (the defect where API-schema messages counted 0).

use serde_json::Value;

use super::family::Family;

pub fn estimate(text: &str) -> u64 {
    (text.chars().count() / 4) as u64
}

pub fn message_tokens(family: Family, message: &Value) -> u64 {
    estimate(&family.text(message))
}

pub fn total_tokens(family: Family, messages: &[Value]) -> u64 {
    messages.iter().map(|m| message_tokens(family, m)).sum()
}
