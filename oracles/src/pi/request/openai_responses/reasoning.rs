//! A thinking block's signature in an openai-responses body: pi keeps the Responses API's
//! reasoning item (`rs_…`) as its JSON text and sends `JSON.parse(thinkingSignature)` back as an
//! input item, whatever it holds, for every thinking block of the very model with a truthy
//! signature.
//!
//! A signature that is not JSON throws V8's `SyntaxError`, whose words are modelled for the texts a
//! signature of another API is (an Anthropic signature, an encrypted blob): one whose first
//! non-blank character cannot begin a JSON value (`Unexpected token 'c', "<text>" is not valid
//! JSON`, a text over 20 units shown as the ten units either side of that character), one of JSON
//! blanks alone (`Unexpected end of JSON input`), and the four texts V8 names whole (`"NaN" is not
//! valid JSON`). A text that begins like a JSON value and breaks later is reported with this
//! crate's parser's words, not V8's (docs/oracle.md says so).

use super::throw;
use crate::js_string::{self, JsChar};
use crate::js_value::JsValue;
use crate::pi::Thrown;
use crate::pi::request::parsed_signature;

/// The texts V8 quotes whole when they fail to parse (`IsSpecialString`).
const NAMED_WHOLE: [&str; 4] = ["NaN", "Infinity", "undefined", "[object Object]"];

/// How many units V8 shows on either side of an unexpected token in a long text.
const CONTEXT: usize = 10;

/// The reasoning item of a thinking block's `thinkingSignature`, if it has one; `Err` is what
/// `JSON.parse` throws.
pub(super) fn item<'r>(signature: Option<&'r JsValue<'_>>) -> Result<Option<JsValue<'r>>, Thrown> {
    parsed_signature(signature)
        .transpose()
        .map_err(|(text, error)| throw(syntax_error(&text, &error.to_string())))
}

/// V8's message for `JSON.parse(text)` failing; `parser_words` where it is not modelled.
fn syntax_error(text: &str, parser_words: &str) -> String {
    if NAMED_WHOLE.contains(&text) {
        return format!("SyntaxError: \"{text}\" is not valid JSON");
    }
    let units: Vec<JsChar> = js_string::code_units(text).collect();
    let blank = |unit: &JsChar| matches!(unit, JsChar::Scalar(' ' | '\t' | '\n' | '\r'));
    let Some(at) = units.iter().position(|unit| !blank(unit)) else {
        return "SyntaxError: Unexpected end of JSON input".into();
    };
    let token = units[at];
    if matches!(token, JsChar::Scalar(c) if "{[\"-0123456789tfn".contains(c)) {
        return format!("SyntaxError: {parser_words}");
    }
    let shown = |units: &[JsChar]| js_string::collect(units.iter().copied());
    let token = shown(&[token]);
    if units.len() <= 2 * CONTEXT {
        return format!("SyntaxError: Unexpected token '{token}', \"{text}\" is not valid JSON");
    }
    let start = at.saturating_sub(CONTEXT);
    let end = units.len().min(at + CONTEXT);
    let before = if start > 0 { "..." } else { "" };
    let after = if end < units.len() { "..." } else { "" };
    format!(
        "SyntaxError: Unexpected token '{token}', {before}\"{}\"{after} is not valid JSON",
        shown(&units[start..end])
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::item;
    use crate::js_value::JsValue;
    use crate::pi::Thrown;

    fn parsed(signature: serde_json::Value) -> Result<Option<serde_json::Value>, Thrown> {
        item(Some(&JsValue::from(&signature))).map(|item| item.map(|item| item.to_value()))
    }

    #[test]
    fn a_falsy_signature_is_no_item_and_any_json_is_sent_as_it_parses() {
        assert_eq!(item(None), Ok(None));
        assert_eq!(parsed(json!("")), Ok(None));
        assert_eq!(parsed(json!(0)), Ok(None));
        assert_eq!(
            parsed(json!(r#"{"type":"reasoning","id":"rs_1"}"#)),
            Ok(Some(json!({"type": "reasoning", "id": "rs_1"})))
        );
        // A number is parsed as its text.
        assert_eq!(parsed(json!(5)), Ok(Some(json!(5))));
    }

    /// Each expected text is what Node 20's `JSON.parse` throws for the same input.
    #[test]
    fn a_signature_that_is_not_json_throws_v8_s_words() {
        let error = |s: &str| parsed(json!(s)).unwrap_err().error;
        assert_eq!(
            error("sig"),
            r#"SyntaxError: Unexpected token 's', "sig" is not valid JSON"#
        );
        assert_eq!(
            error("\t\r\n x"),
            "SyntaxError: Unexpected token 'x', \"\t\r\n x\" is not valid JSON"
        );
        // A non-breaking space is no JSON blank: it is the token.
        assert_eq!(
            error("\u{a0}x"),
            "SyntaxError: Unexpected token '\u{a0}', \"\u{a0}x\" is not valid JSON"
        );
        assert_eq!(
            error(&"y".repeat(20)),
            format!(
                "SyntaxError: Unexpected token 'y', \"{}\" is not valid JSON",
                "y".repeat(20)
            )
        );
        assert_eq!(
            error(&"y".repeat(21)),
            format!(
                "SyntaxError: Unexpected token 'y', \"{}\"... is not valid JSON",
                "y".repeat(10)
            )
        );
        let late = format!("{}{}", " ".repeat(15), "z".repeat(30));
        assert_eq!(
            error(&late),
            format!(
                "SyntaxError: Unexpected token 'z', ...\"{}{}\"... is not valid JSON",
                " ".repeat(10),
                "z".repeat(10)
            )
        );
        let near_end = format!("{}z", " ".repeat(25));
        assert_eq!(
            error(&near_end),
            format!(
                "SyntaxError: Unexpected token 'z', ...\"{}z\" is not valid JSON",
                " ".repeat(10)
            )
        );
        assert_eq!(error("   "), "SyntaxError: Unexpected end of JSON input");
        assert_eq!(error("NaN"), r#"SyntaxError: "NaN" is not valid JSON"#);
        assert_eq!(
            error(" NaN"),
            r#"SyntaxError: Unexpected token 'N', " NaN" is not valid JSON"#
        );
        assert_eq!(
            parsed(json!({})).unwrap_err().error,
            r#"SyntaxError: "[object Object]" is not valid JSON"#
        );
    }

    /// The token of an astral character is its first UTF-16 unit, alone, and the context is cut
    /// by units too.
    #[test]
    fn v8_counts_the_text_in_utf16_units() {
        let error = parsed(json!("\u{1F600}".repeat(12))).unwrap_err().error;
        let high = crate::js_string::lone(0xD83D);
        assert_eq!(
            error,
            format!(
                "SyntaxError: Unexpected token '{high}', \"{}\"... is not valid JSON",
                "\u{1F600}".repeat(5)
            )
        );
        let error = parsed(json!(format!(
            "{}\u{1F600}{}",
            "x".repeat(9),
            "y".repeat(20)
        )))
        .unwrap_err()
        .error;
        assert_eq!(
            error,
            format!(
                "SyntaxError: Unexpected token 'x', \"{}{high}\"... is not valid JSON",
                "x".repeat(9)
            )
        );
    }

    /// Malformed JSON that begins like a value is not worded as V8 words it.
    #[test]
    fn a_text_that_begins_like_json_keeps_the_parser_s_words() {
        let error = parsed(json!("{a}")).unwrap_err().error;
        assert!(
            error.starts_with("SyntaxError: ") && !error.contains("is not valid JSON"),
            "{error}"
        );
    }
}
