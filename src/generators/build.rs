//! What a generator builds its documents as: `serde_json::Value` (what case files, the minimiser
//! and the systems that read `Value` take) or the oracle's `JsValue<'static>` (what the pi
//! pipeline reads without a conversion). The same draws build the same document either way
//! (`JsValue::to_value` of one equals the other), so a target picks the type its systems read.
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
}

impl Build for JsValue<'static> {
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
}
