//! JavaScript identity of JSON values: the keys of a `Map` (SameValueZero) and `===`.
//!
//! pi indexes session entries by `entry.id` in a `Map` and compares ids with `===`. For strings,
//! numbers, booleans, `null` and `undefined` both compare by value; an object or array used as an
//! id is only ever equal to itself (the very same parsed object), which the pointer models.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key<'a> {
    Undefined,
    Null,
    Bool(bool),
    /// The bits of the `f64`, with `-0` folded into `0` (SameValueZero; NaN cannot come from JSON).
    Number(u64),
    Str(&'a str),
    Object(*const Value),
}

impl<'a> Key<'a> {
    /// The key of a property read: `None` is `undefined`.
    pub fn of(value: Option<&'a Value>) -> Self {
        match value {
            None => Key::Undefined,
            Some(Value::Null) => Key::Null,
            Some(Value::Bool(b)) => Key::Bool(*b),
            Some(Value::Number(n)) => Key::Number((n.as_f64().unwrap_or(f64::NAN) + 0.0).to_bits()),
            Some(Value::String(s)) => Key::Str(s),
            Some(other) => Key::Object(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn primitives_compare_by_value_and_objects_by_identity() {
        let a = json!({"id": "x", "n": 1, "m": 1.0, "z": -0.0, "o": {}, "p": {}});
        assert_eq!(Key::of(a.get("id")), Key::of(Some(&json!("x"))));
        assert_eq!(Key::of(a.get("n")), Key::of(a.get("m")));
        assert_eq!(Key::of(a.get("z")), Key::of(Some(&json!(0))));
        assert_eq!(Key::of(a.get("missing")), Key::Undefined);
        assert_ne!(Key::of(a.get("missing")), Key::of(Some(&Value::Null)));
        assert_ne!(Key::of(a.get("o")), Key::of(a.get("p")));
        assert_eq!(Key::of(a.get("o")), Key::of(a.get("o")));
        assert_ne!(Key::of(Some(&json!("1"))), Key::of(Some(&json!(1))));
    }
}
