//! Reading a session file's text the way pi's `parseSessionEntries` does, plus the line numbers.
//!
//! pi trims the whole text (JavaScript `trim`), splits it at `\n`, skips lines that are blank after
//! `trim`, and `JSON.parse`s the rest, silently dropping every line that does not parse. ctxfuzz
//! keeps exactly the same entries but also reports each dropped line with its position in the
//! original file, so a truncated write or a corrupted line is visible instead of silently lost.
//!
//! Lines are read with [`json_text::parse_borrowed`] (each entry borrows its strings from the
//! text), so lone surrogate escapes (`"\ud800"`) are kept as
//! pi keeps them. Known gap: serde_json still refuses nesting deeper than 128 and numbers beyond
//! `f64`, which `JSON.parse` accepts; such a line is reported as malformed here while pi would keep
//! it.
//!
//! The text is a JavaScript string in [`crate::js_string`]'s representation: a file's text goes
//! through [`crate::js_string::from_text`] first.

use serde::Serialize;

use crate::js::{self, field};
use crate::js_value::JsValue;
use crate::json_text;

/// A line pi skips because it is not JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MalformedLine {
    /// 1-based line number in the file.
    pub line: usize,
    /// 1-based column (in bytes) where parsing failed.
    pub column: usize,
    pub message: String,
}

/// The entries of a session file in file order, with where each came from and what was skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionLines<'t> {
    pub entries: Vec<JsValue<'t>>,
    /// `lines[i]` is the 1-based file line of `entries[i]`.
    pub lines: Vec<usize>,
    pub malformed: Vec<MalformedLine>,
}

/// `parseSessionEntries(text)` (the vectors' `jsonl` input): the whole text is trimmed first.
pub fn parse(text: &str) -> SessionLines<'_> {
    let trimmed = js::trim(text);
    let start = trimmed.as_ptr() as usize - text.as_ptr() as usize;
    read_lines(text, start, trimmed, |_| true)
}

/// `loadEntriesFromFile(path)` (what pi does with a file on disk): lines are not trimmed as a
/// whole, and a line whose JSON is falsy (`null`, `0`, `false`, `""`) is dropped like a blank one.
/// Whether the result is a session at all is [`has_session_header`]'s question.
pub fn parse_file(text: &str) -> SessionLines<'_> {
    read_lines(text, 0, text, truthy_json)
}

/// pi's header check on load: the first entry is `{"type": "session", "id": <string>}`. pi reads
/// a file that fails it as an empty session.
pub fn has_session_header(entries: &[JsValue<'_>]) -> bool {
    entries.first().is_some_and(|header| {
        js::is_str(field(header, "type"), "session")
            && field(header, "id").is_some_and(|id| id.as_str().is_some())
    })
}

/// Parses the lines of `body`, which starts `start` bytes into `text`, keeping the entries `keep`
/// accepts. Positions are reported in `text`.
fn read_lines<'t>(
    text: &str,
    start: usize,
    body: &'t str,
    keep: fn(&JsValue) -> bool,
) -> SessionLines<'t> {
    let mut out = SessionLines::default();
    let mut offset = start;
    let first_line = text[..start].matches('\n').count() + 1;
    for (line_number, line) in (first_line..).zip(body.split('\n')) {
        let line_start = offset;
        offset += line.len() + 1;
        if js::is_blank(line) {
            continue;
        }
        match json_text::parse_borrowed(line) {
            Ok(entry) if keep(&entry) => {
                out.entries.push(entry);
                out.lines.push(line_number);
            }
            Ok(_) => {}
            Err(error) => {
                let line_begin = text[..line_start].rfind('\n').map_or(0, |i| i + 1);
                out.malformed.push(MalformedLine {
                    line: line_number,
                    column: line_start - line_begin + error.column().max(1),
                    message: if line.starts_with('\u{feff}') {
                        BYTE_ORDER_MARK.to_string()
                    } else {
                        describe(&error)
                    },
                });
            }
        }
    }
    out
}

/// What a line that starts with a byte-order mark is told (serde_json would say "expected value").
pub const BYTE_ORDER_MARK: &str =
    "the line starts with a UTF-8 byte-order mark (U+FEFF), which JSON.parse rejects";

fn truthy_json(value: &JsValue) -> bool {
    js::truthy(Some(value))
}

/// serde_json's message without its trailing position (reported separately).
fn describe(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn values(entries: &[JsValue<'_>]) -> Vec<Value> {
        entries.iter().map(JsValue::to_value).collect()
    }

    #[test]
    fn keeps_entries_with_their_lines_and_reports_malformed_ones() {
        let text = "\n{\"a\":1}\n\nnot json\n  \n{\"b\":2}\n{\"c\":\n";
        let parsed = parse(text);
        assert_eq!(
            values(&parsed.entries),
            vec![json!({"a": 1}), json!({"b": 2})]
        );
        assert_eq!(parsed.lines, vec![2, 6]);
        let lines: Vec<usize> = parsed.malformed.iter().map(|m| m.line).collect();
        assert_eq!(lines, vec![4, 7]);
        assert_eq!(
            parsed.malformed[0].column, 2,
            "serde_json stops at the second byte of `not`"
        );
        assert!(
            parsed.malformed[1].message.contains("EOF"),
            "{:?}",
            parsed.malformed[1]
        );
    }

    #[test]
    fn a_byte_order_mark_is_trimmed_like_javascript_does() {
        let parsed = parse("\u{feff}{\"a\":1}\r\n{\"b\":2}\u{85}");
        assert_eq!(values(&parsed.entries), vec![json!({"a": 1})]);
        assert_eq!(
            parsed.malformed.len(),
            1,
            "U+0085 is not JavaScript whitespace"
        );
        assert_eq!(parsed.malformed[0].line, 2);
    }

    #[test]
    fn a_line_of_javascript_whitespace_is_blank() {
        let parsed = parse("{\"a\":1}\n\u{a0}\u{3000}\n{\"b\":2}");
        assert_eq!(parsed.entries.len(), 2);
        assert!(parsed.malformed.is_empty());
    }

    #[test]
    fn primitives_are_entries_too_but_a_file_drops_falsy_ones() {
        let text = "5\n\"s\"\nnull\n0\n\"\"\nfalse";
        assert_eq!(
            values(&parse(text).entries),
            vec![
                json!(5),
                json!("s"),
                Value::Null,
                json!(0),
                json!(""),
                json!(false)
            ]
        );
        let file = parse_file(text);
        assert_eq!(values(&file.entries), vec![json!(5), json!("s")]);
        assert_eq!(file.lines, vec![1, 2]);
    }

    #[test]
    fn a_file_is_not_trimmed_as_a_whole() {
        let file = parse_file("\u{feff}{\"type\":\"session\",\"id\":\"s\"}\n{\"id\":\"a\"}");
        assert_eq!(
            file.malformed.len(),
            1,
            "the byte order mark breaks the first line"
        );
        assert_eq!(file.malformed[0].message, BYTE_ORDER_MARK);
        assert!(!has_session_header(&file.entries));
        let file = parse_file("\n{\"type\":\"session\",\"id\":\"s\"}\n{\"id\":\"a\"}");
        assert!(has_session_header(&file.entries));
        assert_eq!(file.lines, vec![2, 3]);
    }

    #[test]
    fn lone_surrogate_escapes_are_kept_as_pi_keeps_them() {
        let file = parse_file(
            r#"{"type":"session","id":"s\ud83d"}
{"id":"\udc00"}"#,
        );
        assert!(file.malformed.is_empty(), "{:?}", file.malformed);
        assert_eq!(
            values(&file.entries),
            vec![
                json!({"type": "session", "id": format!("s{}", crate::js_string::lone(0xD83D))}),
                json!({"id": crate::js_string::lone(0xDC00)})
            ]
        );
    }

    #[test]
    fn the_header_needs_a_string_id() {
        let numbered = json!({"type": "session", "id": 5});
        assert!(!has_session_header(&[JsValue::from(&numbered)]));
        let message = json!({"type": "message", "id": "a"});
        assert!(!has_session_header(&[JsValue::from(&message)]));
        assert!(!has_session_header(&[]));
    }
}
