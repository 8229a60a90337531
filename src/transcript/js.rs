//! JavaScript value semantics the systems under test need to read pi messages as pi does.

use serde_json::Value;

/// JavaScript truthiness of a field (`if (m.excludeFromContext)`): a missing field is `undefined`.
pub fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::truthy;

    #[test]
    fn truthiness_follows_javascript() {
        assert!(!truthy(None));
        for falsy in [json!(null), json!(false), json!(0), json!(-0.0), json!("")] {
            assert!(!truthy(Some(&falsy)), "{falsy}");
        }
        for truthy_value in [
            json!(true),
            json!(1),
            json!(-2.5),
            json!("0"),
            json!([]),
            json!({}),
        ] {
            assert!(truthy(Some(&truthy_value)), "{truthy_value}");
        }
    }
}
