//! JavaScript value semantics the systems under test need to read pi messages as pi does.

use ctxfuzz_oracles::js::{Json, View};

/// JavaScript truthiness of a field (`if (m.excludeFromContext)`): a missing field is `undefined`.
pub fn truthy<J: Json>(value: Option<&J>) -> bool {
    match value.map(Json::view) {
        None | Some(View::Null) => false,
        Some(View::Bool(b)) => b,
        Some(View::Number(n)) => n != 0.0 && !n.is_nan(),
        Some(View::String(s)) => !s.is_empty(),
        Some(View::Array(_) | View::Object) => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::truthy;

    #[test]
    fn truthiness_follows_javascript() {
        assert!(!truthy::<serde_json::Value>(None));
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
