//! JavaScript identity of JSON values: the keys of a `Map` (SameValueZero) and `===`.
//!
//! pi indexes session entries by `entry.id` in a `Map` and compares ids with `===`. For strings,
//! numbers, booleans, `null` and `undefined` both compare by value; an object or array used as an
//! id is only ever equal to itself (the very same parsed object), which the pointer models.

use crate::js_value::JsValue;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key<'a> {
    Undefined,
    Null,
    Bool(bool),
    /// The bits of the `f64`, with `-0` folded into `0` (SameValueZero; NaN cannot come from JSON).
    Number(u64),
    Str(&'a str),
    /// The address of the object or array.
    Object(*const ()),
}

impl<'a> Key<'a> {
    /// The key of a property read: `None` is `undefined`.
    pub fn of(value: Option<&'a JsValue<'_>>) -> Self {
        match value {
            None => Key::Undefined,
            Some(JsValue::Null) => Key::Null,
            Some(JsValue::Bool(b)) => Key::Bool(*b),
            Some(JsValue::Number(n)) => {
                Key::Number((n.as_f64().unwrap_or(f64::NAN) + 0.0).to_bits())
            }
            Some(JsValue::String(s)) => Key::Str(s),
            Some(other) => Key::Object(std::ptr::from_ref(other).cast()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::field;
    use serde_json::json;

    #[test]
    fn primitives_compare_by_value_and_objects_by_identity() {
        let a = json!({"id": "x", "n": 1, "m": 1.0, "z": -0.0, "o": {}, "p": {}});
        let a = JsValue::from(&a);
        assert_eq!(Key::of(field(&a, "id")), Key::of(Some(&JsValue::from("x"))));
        assert_eq!(Key::of(field(&a, "n")), Key::of(field(&a, "m")));
        assert_eq!(Key::of(field(&a, "z")), Key::of(Some(&JsValue::from(0u64))));
        assert_eq!(Key::of(field(&a, "missing")), Key::Undefined);
        assert_ne!(Key::of(field(&a, "missing")), Key::of(Some(&JsValue::Null)));
        assert_ne!(Key::of(field(&a, "o")), Key::of(field(&a, "p")));
        assert_eq!(Key::of(field(&a, "o")), Key::of(field(&a, "o")));
        assert_ne!(
            Key::of(Some(&JsValue::from("1"))),
            Key::of(Some(&JsValue::from(1u64)))
        );
    }
}
