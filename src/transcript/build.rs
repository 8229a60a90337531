//! What a generator builds its documents with, and the compaction its summaries and clipped
//! copies: the oracle's `JsValue<'static>`, what the pi pipeline reads without a conversion (a
//! file or a case file that needs a `serde_json::Value` converts at its edge, `JsValue::to_value`).
//!
//! `JsValue` borrows the generators' constant texts (roles, keys, block types, bodies) instead
//! of copying each into its own allocation, and keeps an object as a slice of fields instead of a
//! B-tree: building, reading and dropping a generated transcript as `Value`s took three times as
//! long (docs/figures.md). The generators stay generic over [`Build`], so a test can build a
//! document of its own kind.

use ctxfuzz_oracles::js_value::{JsValue, Object, Str};

pub trait Build: Clone {
    fn null() -> Self;
    fn bool(value: bool) -> Self;
    fn number(value: u64) -> Self;
    /// One of the generator's constant texts.
    fn text(value: &'static str) -> Self;
    fn string(value: String) -> Self;
    fn array(items: Vec<Self>) -> Self;
    /// An object of `fields`, each key once, in this order.
    fn object(fields: Vec<(&'static str, Self)>) -> Self;
    /// `self[key] = value` when `self` is an object (replacing the field where it stands, else
    /// appending it); anything else is left as it is.
    fn set(&mut self, key: &'static str, value: Self);
    /// `self[key]`, to change in place, when `self` is an object holding `key`.
    fn member_mut(&mut self, key: &str) -> Option<&mut Self>;
    /// The items of an array, to change in place.
    fn items_mut(&mut self) -> Option<&mut [Self]>;
    /// The object `text` writes, read as serde_json reads JSON text (`None`: no JSON, or not an
    /// object): tool-call arguments given as a string, as the compaction reads them.
    fn parse_object(text: &str) -> Option<Self>;
}

impl Build for JsValue<'_> {
    fn null() -> Self {
        JsValue::Null
    }

    fn bool(value: bool) -> Self {
        JsValue::Bool(value)
    }

    fn number(value: u64) -> Self {
        JsValue::from(value)
    }

    fn text(value: &'static str) -> Self {
        JsValue::from(value)
    }

    fn string(value: String) -> Self {
        JsValue::from(value)
    }

    fn array(items: Vec<Self>) -> Self {
        JsValue::from(items)
    }

    fn object(fields: Vec<(&'static str, Self)>) -> Self {
        let fields = fields
            .into_iter()
            .map(|(key, value)| (Str::from(key), value))
            .collect();
        JsValue::Object(Object::from_distinct_fields(fields))
    }

    fn set(&mut self, key: &'static str, value: Self) {
        if let JsValue::Object(object) = self {
            object.insert(key, value);
        }
    }

    fn member_mut(&mut self, key: &str) -> Option<&mut Self> {
        match self {
            JsValue::Object(object) => object.get_mut(key),
            _ => None,
        }
    }

    fn items_mut(&mut self) -> Option<&mut [Self]> {
        match self {
            JsValue::Array(items) => Some(items),
            _ => None,
        }
    }

    fn parse_object(text: &str) -> Option<Self> {
        serde_json::from_str::<JsValue>(text)
            .ok()
            .filter(|parsed| matches!(parsed, JsValue::Object(_)))
            .map(|parsed| parsed.owned_copy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_written_as_text_is_read_and_anything_else_is_none() {
        let object = json!({"path": "a.txt", "n": [1, 2.5, null], "escaped": "a\\\"b"});
        assert_eq!(
            JsValue::parse_object(&object.to_string()).map(|parsed| parsed.to_value()),
            Some(object)
        );
        // A repeated key keeps its last value, as serde_json and `JSON.parse` read it.
        assert_eq!(
            JsValue::parse_object(r#"{"path": "a", "path": "b"}"#).map(|parsed| parsed.to_value()),
            Some(json!({"path": "b"}))
        );
        for not_an_object in ["[1]", "\"{}\"", "{", "", "{\"a\": 1} x"] {
            assert!(
                JsValue::parse_object(not_an_object).is_none(),
                "{not_an_object}"
            );
        }
    }
}
