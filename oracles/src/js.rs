//! JavaScript value semantics (truthiness, `trim`, `String(x)`) used by the pi models. Strings as
//! UTF-16 (lengths, lone surrogates) are [`crate::js_string`]'s.
//!
//! A field read from an object is `Option<&JsValue>` ([`field`]): `None` is JavaScript's
//! `undefined` (missing key), `Some(JsValue::Null)` is `null`. The helpers read either
//! representation through [`Json`]: [`JsValue`] (the pipeline) and `serde_json::Value` (values
//! built in code). Everything here answers the question
//! "what would the JavaScript do with this value", including the parts that differ from Rust
//! (`trim` strips U+FEFF but not U+0085; `""` and `0` are falsy; `==null` matches both).

use serde_json::Value;

use crate::js_value::JsValue;

/// What the models read of a JSON value, for both representations: [`JsValue`] (the pi pipeline
/// and the session context, borrowed from the text) and `serde_json::Value` (values built in
/// code: the vectors' inputs, the documents `sweep` and `render` read).
pub trait Json: Sized {
    fn view(&self) -> View<'_, Self>;
    /// `self.key` when `self` is an object holding `key` (see [`field`]).
    fn member(&self, key: &str) -> Option<&Self>;
    /// Whether `self` is an object without fields (Python's truthiness tells `{}` apart;
    /// JavaScript's never does).
    fn is_empty_object(&self) -> bool;
    /// An object's fields, in its order (none when `self` is no object).
    fn members(&self) -> impl Iterator<Item = (&str, &Self)>;
    /// A copy of the object `self` with its field `key` set to the array `items` (what the
    /// format readers leave of a message that mixes results with other parts).
    fn with_array(&self, key: &'static str, items: Vec<Self>) -> Self;
    /// `self` when it is a JSON number written as a non-negative integer (`3`, not `3.0`).
    fn as_u64(&self) -> Option<u64>;
    /// `self` as the pi model reads it: a `JsValue` borrowing from a `Value`'s strings, or a
    /// copy of a `JsValue`.
    fn to_js(&self) -> JsValue<'_>;
}

/// A JSON value's kind with its contents, as [`Json::view`] shows it.
pub enum View<'v, J> {
    Null,
    Bool(bool),
    Number(f64),
    String(&'v str),
    Array(&'v [J]),
    Object,
}

impl Json for Value {
    fn member(&self, key: &str) -> Option<&Self> {
        self.as_object().and_then(|map| map.get(key))
    }

    fn is_empty_object(&self) -> bool {
        self.as_object().is_some_and(serde_json::Map::is_empty)
    }

    fn members(&self) -> impl Iterator<Item = (&str, &Self)> {
        self.as_object()
            .into_iter()
            .flatten()
            .map(|(key, value)| (key.as_str(), value))
    }

    fn as_u64(&self) -> Option<u64> {
        Value::as_u64(self)
    }

    fn to_js(&self) -> JsValue<'_> {
        JsValue::from(self)
    }

    fn with_array(&self, key: &'static str, items: Vec<Self>) -> Self {
        let mut copy = self.clone();
        if let Value::Object(fields) = &mut copy {
            fields.insert(key.into(), Value::Array(items));
        }
        copy
    }

    fn view(&self) -> View<'_, Self> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Number(n) => View::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => View::String(s),
            Value::Array(items) => View::Array(items),
            Value::Object(_) => View::Object,
        }
    }
}

impl Json for JsValue<'_> {
    fn member(&self, key: &str) -> Option<&Self> {
        self.as_object().and_then(|object| object.get(key))
    }

    fn is_empty_object(&self) -> bool {
        self.as_object().is_some_and(|object| object.len() == 0)
    }

    fn members(&self) -> impl Iterator<Item = (&str, &Self)> {
        self.as_object()
            .into_iter()
            .flat_map(|object| object.iter())
    }

    fn as_u64(&self) -> Option<u64> {
        match self {
            JsValue::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    fn to_js(&self) -> JsValue<'_> {
        self.clone()
    }

    fn with_array(&self, key: &'static str, items: Vec<Self>) -> Self {
        match self.as_object() {
            Some(object) => JsValue::Object(object.with(key, JsValue::from(items))),
            None => self.clone(),
        }
    }

    fn view(&self) -> View<'_, Self> {
        match self {
            JsValue::Null => View::Null,
            JsValue::Bool(b) => View::Bool(*b),
            JsValue::Number(n) => View::Number(n.as_f64().unwrap_or(f64::NAN)),
            JsValue::String(s) => View::String(s),
            JsValue::Array(items) => View::Array(items),
            JsValue::Object(_) => View::Object,
        }
    }
}

/// `obj.key` in JavaScript: `None` (undefined) when `obj` is not an object or lacks the key.
/// Arrays and strings have no named fields the models read, so they also give `undefined`.
/// (The pipeline's values only: a `&Cow<JsValue>` or `&&JsValue` argument coerces to this.)
pub fn field<'v, 'a>(obj: &'v JsValue<'a>, key: &str) -> Option<&'v JsValue<'a>> {
    obj.member(key)
}

/// `value` when it is a string (`typeof value === "string"`).
pub fn as_string<J: Json>(value: Option<&J>) -> Option<&str> {
    match value?.view() {
        View::String(text) => Some(text),
        _ => None,
    }
}

/// JavaScript truthiness: `undefined`, `null`, `false`, `0`, `NaN` and `""` are falsy; every
/// object and array (even empty) is truthy.
pub fn truthy<J: Json>(value: Option<&J>) -> bool {
    match value.map(Json::view) {
        None | Some(View::Null) => false,
        Some(View::Bool(b)) => b,
        Some(View::Number(n)) => !n.is_nan() && n != 0.0,
        Some(View::String(s)) => !s.is_empty(),
        Some(View::Array(_) | View::Object) => true,
    }
}

/// `value == null`: true for both `undefined` and `null`.
pub fn is_nullish<J: Json>(value: Option<&J>) -> bool {
    matches!(value.map(Json::view), None | Some(View::Null))
}

/// `a === b` for values read from JSON. Objects and arrays are compared by reference in
/// JavaScript, and two parsed JSON values are never the same reference, so they are never equal.
pub fn strict_equals<J: Json, K: Json>(a: Option<&J>, b: Option<&K>) -> bool {
    match (a.map(Json::view), b.map(Json::view)) {
        (None, None) => true,
        (Some(View::Null), Some(View::Null)) => true,
        (Some(View::Bool(x)), Some(View::Bool(y))) => x == y,
        (Some(View::Number(x)), Some(View::Number(y))) => x == y,
        (Some(View::String(x)), Some(View::String(y))) => x == y,
        _ => false,
    }
}

/// `a === "literal"`.
pub fn is_str<J: Json>(value: Option<&J>, literal: &str) -> bool {
    matches!(value.map(Json::view), Some(View::String(s)) if s == literal)
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
pub fn to_js_string<J: Json>(value: Option<&J>) -> String {
    match value.map(Json::view) {
        None => "undefined".to_string(),
        Some(View::Null) => "null".to_string(),
        Some(View::Bool(b)) => b.to_string(),
        Some(View::Number(n)) => number_to_js_string(n),
        Some(View::String(s)) => s.to_owned(),
        Some(View::Array(items)) => join(items.iter().map(Some), ","),
        Some(View::Object) => "[object Object]".to_string(),
    }
}

/// `array.join(separator)`: `null` and `undefined` (`None`) elements become empty strings.
pub fn join<'a, J: Json + 'a>(
    items: impl IntoIterator<Item = Option<&'a J>>,
    separator: &str,
) -> String {
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        match item.map(Json::view) {
            None | Some(View::Null) => {}
            Some(View::String(s)) => out.push_str(s),
            Some(_) => out.push_str(&to_js_string(item)),
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

/// `expression.method(...)` of an array method (`map`, `filter`, `some`, ...) on `value`: the
/// array's items, or the `TypeError` the call throws (reading the method off `null` or
/// `undefined`, or calling what any other value holds under that name: nothing).
pub fn array_items<'v, J: Json>(
    value: Option<&'v J>,
    expression: &str,
    method: &str,
) -> Result<&'v [J], TypeError> {
    match value.map(Json::view) {
        Some(View::Array(items)) => Ok(items),
        None | Some(View::Null) => Err(TypeError(cannot_read(value, method))),
        Some(_) => Err(TypeError(format!(
            "TypeError: {expression}.{method} is not a function"
        ))),
    }
}

/// A `TypeError` the JavaScript throws, by the text it prints (`TypeError: ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeError(pub String);

impl From<TypeError> for String {
    fn from(TypeError(text): TypeError) -> String {
        text
    }
}

/// How V8 names a value in "Cannot read properties of X" messages.
pub fn nullish_name<J>(value: Option<&J>) -> &'static str {
    if value.is_none() { "undefined" } else { "null" }
}

/// The text of the `TypeError` V8 throws when reading `.{property}` of `null`/`undefined`.
pub fn cannot_read<J>(value: Option<&J>, property: &str) -> String {
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
    fn an_array_method_reads_an_array_and_throws_v8_s_words_on_anything_else() {
        let items = json!([1, 2]);
        assert_eq!(
            array_items(Some(&items), "msg.content", "map").map(<[Value]>::len),
            Ok(2)
        );
        assert_eq!(
            array_items::<Value>(None, "msg.content", "map"),
            Err(TypeError(
                "TypeError: Cannot read properties of undefined (reading 'map')".into()
            ))
        );
        assert_eq!(
            array_items(Some(&json!(null)), "content", "some"),
            Err(TypeError(
                "TypeError: Cannot read properties of null (reading 'some')".into()
            ))
        );
        assert_eq!(
            array_items(Some(&json!("text")), "toolMsg.content", "filter"),
            Err(TypeError(
                "TypeError: toolMsg.content.filter is not a function".into()
            ))
        );
    }

    #[test]
    fn strict_equality_compares_primitives_by_value_and_containers_never() {
        let null = json!(null);
        let (yes, no) = (json!(true), json!(false));
        assert!(strict_equals::<Value, Value>(None, None));
        assert!(strict_equals(Some(&null), Some(&null)));
        assert!(
            !strict_equals::<Value, Value>(Some(&null), None),
            "null !== undefined"
        );
        assert!(strict_equals(Some(&yes), Some(&yes)));
        assert!(!strict_equals(Some(&yes), Some(&no)));
        assert!(strict_equals(Some(&json!(1)), Some(&json!(1.0))));
        assert!(!strict_equals(Some(&json!(1)), Some(&json!("1"))));
        assert!(strict_equals(Some(&json!("a")), Some(&json!("a"))));
        assert!(!strict_equals(Some(&json!([])), Some(&json!([]))));
    }

    /// Only `{}` is an empty object, in either representation: an object with fields, an empty
    /// array, an empty string and `null` are not.
    #[test]
    fn an_empty_object_is_told_apart_in_both_representations() {
        for (value, empty) in [
            (json!({}), true),
            (json!({"a": 1}), false),
            (json!([]), false),
            (json!(""), false),
            (json!(null), false),
        ] {
            assert_eq!(value.is_empty_object(), empty, "{value}");
            assert_eq!(JsValue::from(&value).is_empty_object(), empty, "{value}");
        }
    }

    #[test]
    fn members_and_a_copy_with_an_array_read_alike_in_both_representations() {
        fn fields<J: Json + std::fmt::Display>(value: &J) -> Vec<(String, String)> {
            let mut fields: Vec<_> = value
                .members()
                .map(|(key, value)| (key.to_string(), value.to_string()))
                .collect();
            fields.sort();
            fields
        }
        let message = json!({"role": "user", "content": [1, 2], "id": "a"});
        let borrowed = JsValue::from(&message);
        let expected = [("content", "[1,2]"), ("id", "\"a\""), ("role", "\"user\"")]
            .map(|(key, value)| (key.to_string(), value.to_string()));
        assert_eq!(fields(&message), expected);
        assert_eq!(fields(&borrowed), expected);
        assert_eq!(json!([1]).members().count(), 0);
        assert_eq!(JsValue::from(&json!("a")).members().count(), 0);

        let kept = json!({"role": "user", "content": [2], "id": "a"});
        assert_eq!(message.with_array("content", vec![json!(2)]), kept);
        assert_eq!(
            borrowed.with_array("content", vec![JsValue::from(2u64)]),
            JsValue::from(&kept)
        );
        assert_eq!(fields(&message), expected, "the original is left as it was");
    }

    #[test]
    fn an_index_is_a_number_written_as_a_non_negative_integer_in_both_representations() {
        for (value, index) in [
            (json!(3), Some(3)),
            (json!(0), Some(0)),
            (json!(3.0), None),
            (json!(-1), None),
            (json!("3"), None),
            (json!(null), None),
        ] {
            assert_eq!(Json::as_u64(&value), index, "{value}");
            assert_eq!(Json::as_u64(&JsValue::from(&value)), index, "{value}");
        }
    }

    #[test]
    fn either_representation_reads_as_the_same_js_value() {
        let message = json!({"role": "user", "content": [{"type": "text", "text": "hi"}], "n": 1});
        let borrowed = JsValue::from(&message);
        assert_eq!(message.to_js(), borrowed);
        assert_eq!(borrowed.to_js(), borrowed);
        assert_ne!(json!({"role": "user"}).to_js(), borrowed);
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
        assert!(!truthy::<Value>(None));
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
        assert!(strict_equals::<Value, Value>(None, None));
        assert!(!strict_equals::<Value, Value>(None, Some(&json!(null))));
        assert!(strict_equals(Some(&json!(1)), Some(&json!(1.0))));
        assert!(!strict_equals(Some(&json!({})), Some(&json!({}))));
        assert!(!strict_equals(Some(&json!("1")), Some(&json!(1))));
    }

    #[test]
    fn strings_are_converted_as_javascript_does() {
        assert_eq!(to_js_string::<Value>(None), "undefined");
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
