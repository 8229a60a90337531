//! What a generator builds its documents as, and the compaction its summaries and clipped copies:
//! `serde_json::Value` (what case files, the minimiser and the command line take) or the oracle's
//! `JsValue<'static>` (what the pi pipeline reads without a conversion). The same draws build the
//! same document either way (`JsValue::to_value` of one equals the other), so a target picks the
//! type its systems read.
//!
//! `JsValue` borrows the generators' constant texts (roles, keys, block types, bodies) instead
//! of copying each into its own allocation, and keeps an object as a slice of fields instead of a
//! B-tree: building, reading and dropping a generated transcript is most of a sweep case's time
//! as `Value` (docs/figures.md).

use ctxfuzz_oracles::js_value::{JsValue, Object, Str};
use serde_json::{Map, Value};

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

impl Build for Value {
    fn null() -> Self {
        Value::Null
    }

    fn bool(value: bool) -> Self {
        Value::Bool(value)
    }

    fn number(value: u64) -> Self {
        Value::from(value)
    }

    fn text(value: &'static str) -> Self {
        Value::from(value)
    }

    fn string(value: String) -> Self {
        Value::String(value)
    }

    fn array(items: Vec<Self>) -> Self {
        Value::Array(items)
    }

    fn object(fields: Vec<(&'static str, Self)>) -> Self {
        let mut object = Map::new();
        for (key, value) in fields {
            object.insert(key.into(), value);
        }
        Value::Object(object)
    }

    fn set(&mut self, key: &'static str, value: Self) {
        if let Value::Object(object) = self {
            object.insert(key.into(), value);
        }
    }

    fn member_mut(&mut self, key: &str) -> Option<&mut Self> {
        self.as_object_mut()?.get_mut(key)
    }

    fn items_mut(&mut self) -> Option<&mut [Self]> {
        self.as_array_mut().map(Vec::as_mut_slice)
    }

    fn parse_object(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok().filter(Value::is_object)
    }
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
        JsValue::Object(Object::from_fields(fields))
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
        Value::parse_object(text).map(JsValue::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_written_as_text_reads_alike_in_both_types_and_anything_else_is_none() {
        let object = json!({"path": "a.txt", "n": [1, 2.5, null]});
        let text = object.to_string();
        assert_eq!(Value::parse_object(&text), Some(object.clone()));
        assert_eq!(
            JsValue::parse_object(&text).map(|parsed| parsed.to_value()),
            Some(object)
        );
        for not_an_object in ["[1]", "\"{}\"", "{", "", "{\"a\": 1} x"] {
            assert_eq!(Value::parse_object(not_an_object), None, "{not_an_object}");
            assert!(
                JsValue::parse_object(not_an_object).is_none(),
                "{not_an_object}"
            );
        }
    }
}
