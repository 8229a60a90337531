//! The `normalizeToolCallId` pi-ai's openai-responses provider passes to `transformMessages` (the
//! same in every pinned version), for the call ids of another model's assistant messages.
//!
//! An id is sanitised (`[^a-zA-Z0-9_-]` becomes `_`, per UTF-16 unit), cut to 64 characters and
//! stripped of its trailing underscores. A Responses API `call|item` id keeps its two parts, each
//! normalised so, only for a model of a provider that replays item ids (`openai`, `openai-codex`,
//! `opencode`): the item id of a call made through another provider or API becomes `fc_` and a
//! hash of it, and an item id that does not start with `fc_` gets that prefix (the API requires
//! it). For every other provider the whole id, `|` included, is normalised as one.

use std::borrow::Cow;

use crate::js::{field, is_str};
use crate::js_value::JsValue;
use crate::pi::call_id::{already_sanitized, sanitized_id_cut};
use crate::pi::request::short_hash::short_hash;

/// `OPENAI_TOOL_CALL_PROVIDERS`.
const ITEM_ID_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// OpenAI's limit on an item or call id.
const MAX_ID: usize = 64;

/// `allowedToolCallProviders.has(model.provider)`.
pub(crate) fn keeps_item_ids(model: &JsValue) -> bool {
    let provider = field(model, "provider");
    ITEM_ID_PROVIDERS.iter().any(|p| is_str(provider, p))
}

/// The normalised id. `foreign`: the call's assistant came through another provider or API than
/// the model's (`source.provider !== model.provider || source.api !== model.api`).
pub(crate) fn normalize_tool_call_id(id: &str, keeps_items: bool, foreign: bool) -> Cow<'_, str> {
    let Some((call, rest)) = id.split_once('|').filter(|_| keeps_items) else {
        return normalized_part(id);
    };
    // `id.split("|")`: the item id ends at a second `|`, if any.
    let item = rest.split('|').next().unwrap_or_default();
    // A hash is at most 14 characters: `fc_` and it never reach the 64 pi would cut it to.
    let item = if foreign {
        format!("fc_{}", short_hash(item))
    } else {
        normalized_part(item).into_owned()
    };
    let item = if item.starts_with("fc_") {
        item
    } else {
        normalized_part(&format!("fc_{item}")).into_owned()
    };
    Cow::Owned(format!("{}|{item}", normalized_part(call)))
}

/// `normalizeIdPart`: sanitised, cut to 64, trailing underscores stripped. Lent back when the
/// part is already its own normal form, as almost every call id is.
fn normalized_part(part: &str) -> Cow<'_, str> {
    if part.len() <= MAX_ID && !part.ends_with('_') && already_sanitized(part) {
        return Cow::Borrowed(part);
    }
    let mut sanitized = sanitized_id_cut(part, MAX_ID);
    sanitized.truncate(sanitized.trim_end_matches('_').len());
    Cow::Owned(sanitized)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::normalize_tool_call_id as normalized;

    #[test]
    fn an_id_is_sanitised_cut_to_64_and_stripped_of_trailing_underscores() {
        assert_eq!(normalized("call.1!", false, false), "call_1");
        // Letters, digits, `_` and `-` are kept.
        assert_eq!(normalized("call-1_a|B", false, false), "call-1_a_B");
        assert_eq!(normalized(&"a".repeat(70), false, false), "a".repeat(64));
        assert_eq!(
            normalized(&format!("{}_b", "a".repeat(63)), true, false),
            "a".repeat(63)
        );
        // One underscore per UTF-16 unit: an astral character is two, then stripped at the end.
        assert_eq!(normalized("x\u{1F600}y", false, false), "x__y");
    }

    /// An id already in normal form is lent back, up to the cut's length and not past it, and
    /// not with a trailing underscore.
    #[test]
    fn an_id_in_normal_form_is_lent_back() {
        let borrowed = |id: &str| matches!(normalized(id, false, false), Cow::Borrowed(_));
        assert!(borrowed(&"z".repeat(64)));
        assert!(borrowed("call_1-a"));
        assert!(!borrowed(&"z".repeat(65)));
        assert!(!borrowed("call_1_"));
        assert!(!borrowed("call.1"));
        assert!(!borrowed("call|1"));
    }

    #[test]
    fn a_call_item_id_keeps_its_parts_only_for_a_provider_that_replays_item_ids() {
        assert_eq!(normalized("call_1|fc_2", false, false), "call_1_fc_2");
        assert_eq!(normalized("call_1|fc_2", true, false), "call_1|fc_2");
        assert_eq!(normalized("call.1|fc.2|rest", true, false), "call_1|fc_2");
    }

    #[test]
    fn an_item_id_without_the_fc_prefix_gets_it() {
        assert_eq!(normalized("c|item", true, false), "c|fc_item");
        assert_eq!(normalized("c|", true, false), "c|fc");
        // `fc_` itself loses its underscore, so is prefixed again.
        assert_eq!(normalized("c|fc_", true, false), "c|fc_fc");
    }

    /// Another provider's item id is replaced by `fc_` and pi-ai's `shortHash` of it, as the real
    /// pi writes it (recorded through the conformance bridge).
    #[test]
    fn a_foreign_item_id_becomes_a_hash() {
        assert_eq!(
            normalized("call_1|fc_2", true, true),
            "call_1|fc_x08lfqt1kfj7"
        );
    }
}
