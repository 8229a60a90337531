//! JavaScript value semantics (truthiness, `trim`, `String(x)`) used by the pi models. Strings as
//! UTF-16 (lengths, lone surrogates) are [`crate::js_string`]'s.
//!
//! A field read from a `serde_json::Value` object is `Option<&Value>`: `None` is JavaScript's
//! `undefined` (missing key), `Some(Value::Null)` is `null`. Everything here answers the question
//! "what would the JavaScript do with this value", including the parts that differ from Rust
//! (`trim` strips U+FEFF but not U+0085; `""` and `0` are falsy; `==null` matches both).

use serde_json::Value;

/// `obj.key` in JavaScript: `None` (undefined) when `obj` is not an object or lacks the key.
/// Arrays and strings have no named fields the models read, so they also give `undefined`.
pub fn field<'a>(obj: &'a Value, key: &str) -> Option<&'a Value> {
    obj.as_object().and_then(|map| map.get(key))
}

/// JavaScript truthiness: `undefined`, `null`, `false`, `0`, `NaN` and `""` are falsy; every
/// object and array (even empty) is truthy.
pub fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `value == null`: true for both `undefined` and `null`.
pub fn is_nullish(value: Option<&Value>) -> bool {
    matches!(value, None | Some(Value::Null))
}

/// `a === b` for values read from JSON. Objects and arrays are compared by reference in
/// JavaScript, and two parsed JSON values are never the same reference, so they are never equal.
pub fn strict_equals(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Value::Null), Some(Value::Null)) => true,
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x == y,
        (Some(Value::Number(x)), Some(Value::Number(y))) => x.as_f64() == y.as_f64(),
        (Some(Value::String(x)), Some(Value::String(y))) => x == y,
        _ => false,
    }
}

/// `a === "literal"`.
pub fn is_str(value: Option<&Value>, literal: &str) -> bool {
    value.and_then(Value::as_str) == Some(literal)
}

/// ECMAScript WhiteSpace and LineTerminator: the set `String.prototype.trim` strips.
/// Unlike Rust's `char::is_whitespace` it includes U+FEFF and excludes U+0085.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `s.trim()` with JavaScript's whitespace set.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `s.trim().length === 0`.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(is_js_whitespace)
}

/// `String(value)` / template-literal conversion of a JSON value: `undefined`, `null`, numbers as
/// JavaScript prints them, arrays joined with `,`, objects as `[object Object]`.
pub fn to_js_string(value: Option<&Value>) -> String {
    match value {
        None => "undefined".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => number_to_js_string(n.as_f64().unwrap_or(f64::NAN)),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => join(items.iter().map(Some), ","),
        Some(Value::Object(_)) => "[object Object]".to_string(),
    }
}

/// `array.join(separator)`: `null` and `undefined` (`None`) elements become empty strings.
pub fn join<'a>(items: impl IntoIterator<Item = Option<&'a Value>>, separator: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        match item {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => out.push_str(s),
            Some(other) => out.push_str(&to_js_string(Some(other))),
        }
    }
    out
}

/// `Number.prototype.toString()` (radix 10): the shortest digits that round-trip, laid out in
/// plain notation for exponents in [-7, 21) and in `1.5e+21` notation otherwise.
pub fn number_to_js_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    // Zero (of either sign) and NaN returned above: the sign bit is the sign.
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}Infinity");
    }
    // Rust's `{:e}` prints the shortest round-tripping digits, e.g. `1.2345e-7`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let k = digits.len() as i64;
    let n = exponent + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if (1..=21).contains(&n) {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if (-5..=0).contains(&n) {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let exp = n - 1;
        let exp_sign = if exp.is_negative() { "-" } else { "+" };
        let rest = if k > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        format!("{}{rest}e{exp_sign}{}", &digits[..1], exp.abs())
    };
    format!("{sign}{body}")
}

/// How V8 names a value in "Cannot read properties of X" messages.
pub fn nullish_name(value: Option<&Value>) -> &'static str {
    if value.is_none() { "undefined" } else { "null" }
}

/// The text of the `TypeError` V8 throws when reading `.{property}` of `null`/`undefined`.
pub fn cannot_read(value: Option<&Value>, property: &str) -> String {
    format!(
        "TypeError: Cannot read properties of {} (reading '{property}')",
        nullish_name(value)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_equality_compares_primitives_by_value_and_containers_never() {
        let null = json!(null);
        let (yes, no) = (json!(true), json!(false));
        assert!(strict_equals(None, None));
        assert!(strict_equals(Some(&null), Some(&null)));
        assert!(!strict_equals(Some(&null), None), "null !== undefined");
        assert!(strict_equals(Some(&yes), Some(&yes)));
        assert!(!strict_equals(Some(&yes), Some(&no)));
        assert!(strict_equals(Some(&json!(1)), Some(&json!(1.0))));
        assert!(!strict_equals(Some(&json!(1)), Some(&json!("1"))));
        assert!(strict_equals(Some(&json!("a")), Some(&json!("a"))));
        assert!(!strict_equals(Some(&json!([])), Some(&json!([]))));
    }

    #[test]
    fn trim_uses_the_javascript_whitespace_set() {
        assert_eq!(trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(trim("\u{0085}a"), "\u{0085}a");
        assert!(is_blank(" \t\n\u{2028}\u{FEFF}"));
        assert!(!is_blank("\u{0085}"));
        assert!(is_blank(""));
    }

    #[test]
    fn truthiness_matches_javascript() {
        assert!(!truthy(None));
        assert!(!truthy(Some(&json!(null))));
        assert!(!truthy(Some(&json!(""))));
        assert!(!truthy(Some(&json!(0))));
        assert!(!truthy(Some(&json!(-0.0))));
        assert!(!truthy(Some(&json!(false))));
        assert!(truthy(Some(&json!("0"))));
        assert!(truthy(Some(&json!([]))));
        assert!(truthy(Some(&json!({}))));
        assert!(truthy(Some(&json!(0.5))));
    }

    #[test]
    fn strict_equality_never_equates_objects_or_undefined_with_null() {
        assert!(strict_equals(None, None));
        assert!(!strict_equals(None, Some(&json!(null))));
        assert!(strict_equals(Some(&json!(1)), Some(&json!(1.0))));
        assert!(!strict_equals(Some(&json!({})), Some(&json!({}))));
        assert!(!strict_equals(Some(&json!("1")), Some(&json!(1))));
    }

    #[test]
    fn strings_are_converted_as_javascript_does() {
        assert_eq!(to_js_string(None), "undefined");
        assert_eq!(to_js_string(Some(&json!(null))), "null");
        assert_eq!(
            to_js_string(Some(&json!([1, null, "a", [2, 3]]))),
            "1,,a,2,3"
        );
        assert_eq!(to_js_string(Some(&json!({"a": 1}))), "[object Object]");
        assert_eq!(to_js_string(Some(&json!(true))), "true");
    }

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (x, s) in [
            (1.0, "1"),
            (-2.0, "-2"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.000001, "0.000001"),
            (1.1e-7, "1.1e-7"),
            (1e-7, "1e-7"),
            (9007199254740994.0, "9007199254740994"),
            (0.1, "0.1"),
            (2.5e25, "2.5e+25"),
            (-0.0, "0"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
            (-1.5e-9, "-1.5e-9"),
        ] {
            assert_eq!(number_to_js_string(x), s, "{x}");
        }
    }
}
