//! Reading a session file's text the way pi's `parseSessionEntries` does, plus the line numbers.
//!
//! pi trims the whole text (JavaScript `trim`), splits it at `\n`, skips lines that are blank after
//! `trim`, and `JSON.parse`s the rest, silently dropping every line that does not parse. ctxfuzz
//! keeps exactly the same entries but also reports each dropped line with its position in the
//! original file, so a truncated write or a corrupted line is visible instead of silently lost.
//!
//! Known gap: serde_json refuses a few documents `JSON.parse` accepts (lone surrogate escapes
//! such as `"\ud800"`, nesting deeper than 128, numbers beyond `f64`); such a line is reported as
//! malformed here while pi would keep it.

use serde::Serialize;
use serde_json::Value;

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
pub struct SessionLines {
    pub entries: Vec<Value>,
    /// `lines[i]` is the 1-based file line of `entries[i]`.
    pub lines: Vec<usize>,
    pub malformed: Vec<MalformedLine>,
}

/// Parses the text of a session file (JSONL).
pub fn parse(text: &str) -> SessionLines {
    let trimmed = js_trim(text);
    let start = trimmed.as_ptr() as usize - text.as_ptr() as usize;
    let mut out = SessionLines::default();
    let mut offset = start;
    for line in trimmed.split('\n') {
        let line_start = offset;
        offset += line.len() + 1;
        if js_trim(line).is_empty() {
            continue;
        }
        let number = text[..line_start].matches('\n').count() + 1;
        match serde_json::from_str::<Value>(line) {
            Ok(entry) => {
                out.entries.push(entry);
                out.lines.push(number);
            }
            Err(error) => {
                let line_begin = text[..line_start].rfind('\n').map_or(0, |i| i + 1);
                out.malformed.push(MalformedLine {
                    line: number,
                    column: line_start - line_begin + error.column().max(1),
                    message: describe(&error),
                });
            }
        }
    }
    out
}

/// serde_json's message without its trailing position (reported separately).
fn describe(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// JavaScript's `String.prototype.trim`: ECMAScript WhiteSpace and LineTerminator, which include
/// U+FEFF but not U+0085 (Rust's `str::trim` is the other way round).
fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_entries_with_their_lines_and_reports_malformed_ones() {
        let text = "\n{\"a\":1}\n\nnot json\n  \n{\"b\":2}\n{\"c\":\n";
        let parsed = parse(text);
        assert_eq!(parsed.entries, vec![json!({"a": 1}), json!({"b": 2})]);
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
        assert_eq!(parsed.entries, vec![json!({"a": 1})]);
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
    fn primitives_are_entries_too() {
        let parsed = parse("5\n\"s\"\nnull");
        assert_eq!(parsed.entries, vec![json!(5), json!("s"), Value::Null]);
    }
}
