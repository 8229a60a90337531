//! A JSON value as `JSON.parse` hands it to the JavaScript, borrowed from the text it was read
//! from: what the pi pipeline models read.
//!
//! `serde_json::Value` owns every string and keeps every object in a B-tree: a transcript parsed
//! into it is about ten times its text in heap, and finding a field is a string search down the
//! tree. A [`JsValue`] borrows every string that has no escape from the text, and an object is its
//! fields in a boxed slice (a message has a handful; a linear scan beats the tree and costs one
//! allocation). Copying a value the pipeline changes (`{...message, content}`) copies no text.
//!
//! An object's keys are unique, as in JavaScript: a key repeated in the text keeps its first
//! position and takes its last value (`JSON.parse('{"a":1,"a":2}').a === 2`). The order of the
//! fields is otherwise irrelevant to the models; [`JsValue::to_value`] writes them in
//! `serde_json`'s order, so a rendered output is the same whichever value it came from.
//!
//! [`crate::json_text::parse_borrowed`] reads text into it; `From<&Value>` borrows a
//! `serde_json::Value` (the fuzz loop's cases) without copying its strings.

mod builder;
mod object;
mod packed_str;

use std::borrow::{Borrow, Cow};
use std::fmt;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Number, Value};

pub(crate) use builder::Reader;
pub use object::Object;
pub use packed_str::Str;

/// 24 bytes: a transcript is mostly small objects, and each field costs a key and a value, so
/// the sizes of [`Str`] and of the containers (boxed slices, built at their exact size, without
/// a capacity word) are most of the tree's memory (docs/figures.md).
#[derive(Debug, Clone, Default)]
pub enum JsValue<'a> {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Str<'a>),
    Array(Box<[JsValue<'a>]>),
    Object(Object<'a>),
}

/// Each of `values` borrowed (see `From<&Value>`).
pub fn borrow_all<M: Borrow<Value>>(values: &[M]) -> Vec<JsValue<'_>> {
    values
        .iter()
        .map(|value| JsValue::from(value.borrow()))
        .collect()
}

impl<'a> JsValue<'a> {
    /// An object of these fields (a repeated key takes its last value).
    pub fn object<K: Into<Str<'a>>>(fields: impl IntoIterator<Item = (K, JsValue<'a>)>) -> Self {
        JsValue::Object(fields.into_iter().collect())
    }

    pub fn is_null(&self) -> bool {
        matches!(self, JsValue::Null)
    }

    pub fn is_array(&self) -> bool {
        matches!(self, JsValue::Array(_))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsValue::String(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[JsValue<'a>]> {
        match self {
            JsValue::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            JsValue::Object(object) => Some(object),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            JsValue::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value` (for output: case files, `render`).
    pub fn to_value(&self) -> Value {
        match self {
            JsValue::Null => Value::Null,
            JsValue::Bool(b) => Value::Bool(*b),
            JsValue::Number(n) => Value::Number(n.clone()),
            JsValue::String(text) => Value::String(text.to_string()),
            JsValue::Array(items) => Value::Array(items.iter().map(JsValue::to_value).collect()),
            JsValue::Object(object) => Value::Object(
                object
                    .iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// A copy that owns its strings: what outlives the text it was read from.
    pub fn owned_copy(&self) -> JsValue<'static> {
        match self {
            JsValue::Null => JsValue::Null,
            JsValue::Bool(b) => JsValue::Bool(*b),
            JsValue::Number(n) => JsValue::Number(n.clone()),
            JsValue::String(text) => JsValue::String(text.owned_copy()),
            JsValue::Array(items) => {
                JsValue::Array(items.iter().map(JsValue::owned_copy).collect())
            }
            JsValue::Object(Object(fields)) => JsValue::Object(Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.owned_copy(), v.owned_copy()))
                    .collect(),
            )),
        }
    }
}

/// The compact JSON text, as `serde_json::Value` prints it.
impl fmt::Display for JsValue<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

/// JSON equality: an object equals another with the same fields, in any order.
impl PartialEq for JsValue<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (JsValue::Null, JsValue::Null) => true,
            (JsValue::Bool(a), JsValue::Bool(b)) => a == b,
            (JsValue::Number(a), JsValue::Number(b)) => a == b,
            (JsValue::String(a), JsValue::String(b)) => a == b,
            (JsValue::Array(a), JsValue::Array(b)) => a == b,
            (JsValue::Object(a), JsValue::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(key, value)| b.get(key) == Some(value))
            }
            _ => false,
        }
    }
}

impl PartialEq<str> for JsValue<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl<'a> From<&'a str> for JsValue<'a> {
    fn from(text: &'a str) -> Self {
        JsValue::String(Str::from(text))
    }
}

impl From<String> for JsValue<'_> {
    fn from(text: String) -> Self {
        JsValue::String(text.into())
    }
}

/// Borrowed or owned as the `Cow` is (a sanitised text is borrowed unless it had to change).
impl<'a> From<Cow<'a, str>> for JsValue<'a> {
    fn from(text: Cow<'a, str>) -> Self {
        match text {
            Cow::Borrowed(text) => text.into(),
            Cow::Owned(text) => text.into(),
        }
    }
}

impl From<bool> for JsValue<'_> {
    fn from(b: bool) -> Self {
        JsValue::Bool(b)
    }
}

impl<'a> From<Vec<JsValue<'a>>> for JsValue<'a> {
    fn from(items: Vec<JsValue<'a>>) -> Self {
        JsValue::Array(items.into_boxed_slice())
    }
}

impl From<u64> for JsValue<'_> {
    fn from(n: u64) -> Self {
        JsValue::Number(n.into())
    }
}

/// Borrows every string of `value`.
impl<'a> From<&'a Value> for JsValue<'a> {
    fn from(value: &'a Value) -> Self {
        match value {
            Value::Null => JsValue::Null,
            Value::Bool(b) => JsValue::Bool(*b),
            Value::Number(n) => JsValue::Number(n.clone()),
            Value::String(text) => JsValue::String(Str::from(text.as_str())),
            Value::Array(items) => JsValue::Array(items.iter().map(JsValue::from).collect()),
            // A `Map`'s keys are unique already.
            Value::Object(map) => JsValue::Object(Object(
                map.iter()
                    .map(|(k, v)| (Str::from(k.as_str()), JsValue::from(v)))
                    .collect(),
            )),
        }
    }
}

/// Takes over the strings of `value`.
impl From<Value> for JsValue<'_> {
    fn from(value: Value) -> Self {
        match value {
            Value::Null => JsValue::Null,
            Value::Bool(b) => JsValue::Bool(b),
            Value::Number(n) => JsValue::Number(n),
            Value::String(text) => JsValue::String(text.into()),
            Value::Array(items) => JsValue::Array(items.into_iter().map(JsValue::from).collect()),
            Value::Object(map) => JsValue::Object(Object(
                map.into_iter()
                    .map(|(k, v)| (Str::from(k), JsValue::from(v)))
                    .collect(),
            )),
        }
    }
}

impl Serialize for JsValue<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self {
            JsValue::Null => out.serialize_unit(),
            JsValue::Bool(b) => out.serialize_bool(*b),
            JsValue::Number(n) => n.serialize(out),
            JsValue::String(text) => out.serialize_str(text),
            JsValue::Array(items) => items.serialize(out),
            JsValue::Object(object) => {
                let mut map = out.serialize_map(Some(object.len()))?;
                for (key, value) in object.iter() {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests;

/// A value written with every object's keys sorted by their bytes, as a `serde_json::Value`'s
/// map writes them, without first being copied into one: for texts that must stay what they
/// were when they were written from `Value`s (a seed's file, a call's stringified arguments).
pub struct SortedKeys<'v>(pub &'v JsValue<'v>);

impl Serialize for SortedKeys<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            JsValue::Array(items) => out.collect_seq(items.iter().map(SortedKeys)),
            // The usual arguments object (one key, or keys already in order) without a copy.
            JsValue::Object(object) if object.iter().is_sorted_by_key(|(key, _)| key) => {
                out.collect_map(object.iter().map(|(key, value)| (key, SortedKeys(value))))
            }
            JsValue::Object(object) => {
                let mut fields: Vec<(&str, &JsValue)> = object.iter().collect();
                fields.sort_unstable_by_key(|(key, _)| *key);
                out.collect_map(
                    fields
                        .into_iter()
                        .map(|(key, value)| (key, SortedKeys(value))),
                )
            }
            scalar => scalar.serialize(out),
        }
    }
}
