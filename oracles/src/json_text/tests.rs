use std::collections::BTreeMap;
use std::io::{self, Write as _};

use serde_json::json;

use super::reindent::Stacks;
use super::write::Shifted;
use super::*;
use crate::js_string::{from_text, lone};

/// A text ending in a backslash is an error, never a panic (found by the `oracle-json`
/// target: the scan stepped past the end).
#[test]
fn a_trailing_backslash_is_an_error() {
    for text in ["\\", "[\"\\", "\"\\ud83d\\"] {
        assert!(parse(text).is_err(), "{text}");
    }
}

#[test]
fn a_lone_surrogate_escape_is_read_and_written_back() {
    let value = parse(r#"{"id": "a\ud83d", "\udc00": ["\uDFFF x"]}"#).unwrap();
    let key = lone(0xDC00);
    assert_eq!(
        value,
        json!({"id": format!("a{}", lone(0xD83D)), key.clone(): [format!("{} x", lone(0xDFFF))]})
    );
    assert_eq!(
        to_string(&value).unwrap(),
        r#"{"id":"a\ud83d","\udc00":["\udfff x"]}"#
    );
}

#[test]
fn without_lone_surrogates_serde_json_parses_alone() {
    assert!(rewrite(r#"{"a": "\ud83d\ude00 \u00e9 \\ud800 \ufdd0"}"#).is_none());
    assert_eq!(
        parse(r#"["\ud83d\ude00", "\\ud800"]"#).unwrap(),
        json!(["😀", "\\ud800"])
    );
}

/// An escape other than `\u` is passed over by its two characters only: a lone half right
/// after it is still read.
#[test]
fn a_lone_half_right_after_another_escape_is_read() {
    assert_eq!(
        parse(r#""xyz\n\ud800""#).unwrap(),
        json!(format!("xyz\n{}", lone(0xD800)))
    );
    assert_eq!(
        parse(r#""wxyz\\\udc00""#).unwrap(),
        json!(format!("wxyz\\{}", lone(0xDC00)))
    );
}

/// Only a backslash followed by `u` starts a `\u` escape: `\n` before four hex digits is a
/// newline and the digits.
#[test]
fn hex_digits_after_another_escape_are_text() {
    assert_eq!(parse(r#""\nd800""#).unwrap(), json!("\nd800"));
    assert_eq!(
        parse(r#"["\ud800", "\nd800"]"#).unwrap(),
        json!([lone(0xD800), "\nd800"])
    );
}

#[test]
fn pairs_stay_characters_and_halves_out_of_order_stay_lone() {
    let value = parse(r#"["\ud83d\ud83d\ude00", "\ude00\ud83d", "\ud83d\u0041"]"#).unwrap();
    assert_eq!(
        value,
        json!([
            format!("{}😀", lone(0xD83D)),
            format!("{}{}", lone(0xDE00), lone(0xD83D)),
            format!("{}A", lone(0xD83D))
        ])
    );
}

#[test]
fn the_placeholder_and_reserved_characters_in_the_text_keep_their_meaning() {
    let text = from_text("[\"\u{FDD0}\\ud800\\ufdd0\", \"\u{10FFFF}\\udbff\\udfff\u{10F7FF}\"]");
    let value = parse(&text).unwrap();
    let real_max = from_text("\u{10FFFF}");
    let real_marker = from_text("\u{10F7FF}");
    assert_eq!(
        value,
        json!([
            format!("\u{FDD0}{}\u{FDD0}", lone(0xD800)),
            format!("{real_max}{real_max}{real_marker}")
        ])
    );
    assert_eq!(
        to_string(&value).unwrap(),
        "[\"\u{FDD0}\\ud800\u{FDD0}\",\"\u{10FFFF}\u{10FFFF}\u{10F7FF}\"]"
    );
}

#[test]
fn a_raw_lone_unit_in_a_javascript_text_meets_an_escaped_half() {
    let text = format!("[\"{}\\ude00\"]", lone(0xD83D));
    assert_eq!(parse(&text).unwrap(), json!(["😀"]));
    // Two raw halves join too, in a string with no escape of its own.
    let text = format!("[\"{}{}\", \"\\ud800\"]", lone(0xD83D), lone(0xDE00));
    assert_eq!(parse(&text).unwrap(), json!(["😀", lone(0xD800)]));
}

#[test]
fn errors_keep_their_positions_after_a_rewrite() {
    let error = parse("[\"\\ud800\",\n  \"\\ud800\" x]").unwrap_err();
    assert_eq!((error.line(), error.column()), (2, 12));
    assert!(
        error.to_string().starts_with("expected `,` or `]`"),
        "{error}"
    );
}

#[test]
fn duplicate_keys_keep_the_last_value_in_the_first_place() {
    let value = parse(r#"{"a": "\ud800", "b": "\ud801", "a": "\ud802"}"#).unwrap();
    assert_eq!(to_string(&value).unwrap(), r#"{"a":"\ud802","b":"\ud801"}"#);
    let text = r#"{"b": "\ud801", "a": "\ud800", "b": "\ud802"}"#;
    let value = parse_borrowed(text).unwrap();
    assert_eq!(to_string(&value).unwrap(), r#"{"b":"\ud802","a":"\ud800"}"#);
}

/// A text with a lone surrogate escape is read with its fields in the text's order, as every
/// other text is (`JSON.parse` keeps them so; `JSON.stringify` writes them so), and every kind
/// of value as serde_json reads it.
#[test]
fn a_rewritten_text_keeps_its_field_order() {
    let text = r#"[{"role": "user", "content": "cut \ud83d", "timestamp": 1,
                    "n": [-2, 2.5, true, false, null, {}]}]"#;
    let written =
        r#"[{"role":"user","content":"cut \ud83d","timestamp":1,"n":[-2,2.5,true,false,null,{}]}]"#;
    assert_eq!(to_string(&parse_borrowed(text).unwrap()).unwrap(), written);
    let sorted =
        r#"[{"content":"cut \ud83d","n":[-2,2.5,true,false,null,{}],"role":"user","timestamp":1}]"#;
    assert_eq!(to_string(&parse(text).unwrap()).unwrap(), sorted);
}

/// Each item of a text read as it lies is built at its start as a read from the first item
/// builds it; in a text with escapes to rewrite, none is (only a read from the first takes their
/// placeholders in order); no item starts past the text.
#[test]
fn an_item_is_built_at_its_start_where_the_text_lies_as_read() {
    let lies = r#"[{"role": "user", "content": "go"}, 7, [1, {"a": "b\n"}]]"#;
    let rewritten = r#"[{"content": "cut \ud83d"}, {"b": 1}]"#;
    for (text, at_starts) in [(lies, true), (rewritten, false)] {
        let document = Searched::new(text);
        let mut items = Vec::new();
        document
            .for_each_item_where(
                |_| true,
                |_, item| {
                    items.push(item);
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
        let starts = item_starts(text).unwrap().unwrap();
        for (at, item) in items.iter().enumerate() {
            let built = document.item_at(starts.at(at).unwrap().offset);
            assert_eq!(built.is_some(), at_starts, "{text}: item {at}");
            if let Some(built) = built {
                assert_eq!(&built.unwrap(), item, "{text}");
            }
        }
        if at_starts {
            assert!(document.item_at(text.len() + 1).unwrap().is_err());
        }
    }
}

/// An array read item by item gives the items `parse_borrowed` gives, with and without a
/// rewrite; a document that is not an array is not read; an error is `parse_borrowed`'s.
#[test]
fn an_array_read_item_by_item_gives_the_items_of_a_whole_read() {
    for text in [
        r#" [{"role": "user", "content": "go"}, 7, null, [1, {"a": "b"}]]"#,
        r#"[{"role": "user", "content": "cut \ud83d"}, "\ufdd0", {"k": "\ud800\udc00"}]"#,
        "[]",
    ] {
        let mut items = Vec::new();
        let read = for_each_item_where(
            text,
            |_| true,
            |_, item| {
                items.push(item);
                ControlFlow::Continue(())
            },
        );
        assert_eq!(read.unwrap(), Some(items.len()));
        let whole = parse_borrowed(text).unwrap();
        assert_eq!(
            to_string(&items).unwrap(),
            to_string(&whole).unwrap(),
            "{text}"
        );
        // A document searched once reads the same items every time it is read, and lends the
        // text it was searched in (whose offsets `item_starts` notes).
        let document = Searched::new(text);
        assert_eq!(document.text(), text);
        for _ in 0..2 {
            let mut again = Vec::new();
            let read = document.for_each_item_where(
                |_| true,
                |_, item| {
                    again.push(item);
                    ControlFlow::Continue(())
                },
            );
            assert_eq!(read.unwrap(), Some(items.len()));
            assert_eq!(again, items, "{text}");
        }
    }
    for text in [r#"{"messages": []}"#, "7", ""] {
        let mut read = 0;
        let items = for_each_item_where(
            text,
            |_| true,
            |_, _| {
                read += 1;
                ControlFlow::Continue(())
            },
        );
        assert_eq!(items.unwrap(), None);
        assert_eq!(read, 0);
    }
    let broken = "[1,\n 2,\n oops]";
    let mut read = 0;
    let error = for_each_item_where(
        broken,
        |_| true,
        |_, _| {
            read += 1;
            ControlFlow::Continue(())
        },
    )
    .unwrap_err();
    assert_eq!(read, 2);
    assert_eq!(
        error.to_string(),
        parse_borrowed(broken).unwrap_err().to_string()
    );
}

/// Items `wanted` refuses are passed over (and counted), and a break stops the read there,
/// with and without a rewrite; the count is of the items passed.
#[test]
fn items_not_wanted_are_passed_over_and_a_break_stops_the_read() {
    use std::ops::ControlFlow::{Break, Continue};
    for text in [
        r#"[0, {"a": 1}, "two", [3], null, 5]"#,
        r#"["\ud83d", {"a": "\ud800"}, "two", [3], null, 5]"#,
    ] {
        let whole = parse_borrowed(text).unwrap();
        let all = whole.as_array().unwrap();
        let mut read = Vec::new();
        let passed = for_each_item_where(
            text,
            |at| at % 2 == 1,
            |at, item| {
                read.push((at, to_string(&item).unwrap()));
                Continue(())
            },
        );
        assert_eq!(passed.unwrap(), Some(6), "{text}");
        let odd: Vec<_> = [1, 3, 5]
            .map(|at| (at, to_string(&all[at]).unwrap()))
            .into();
        assert_eq!(read, odd, "{text}");
        // The last item passed over is counted too.
        let even = for_each_item_where(text, |at| at % 2 == 0, |_, _| Continue(()));
        assert_eq!(even.unwrap(), Some(6), "{text}");
        let mut read = Vec::new();
        let passed = for_each_item_where(
            text,
            |at| at >= 2,
            |at, _| {
                read.push(at);
                if at == 3 { Break(()) } else { Continue(()) }
            },
        );
        assert_eq!(passed.unwrap(), Some(4), "{text}");
        assert_eq!(read, [2, 3], "{text}");
    }
    let not_an_array = for_each_item_where("{}", |_| true, |_, _| Continue(()));
    assert_eq!(not_an_array.unwrap(), None);
    // A break ends the read before an error past it; without one, the error is met.
    let broken = "[1, 2, oops]";
    let stop_at_two = |at, _| if at == 1 { Break(()) } else { Continue(()) };
    assert_eq!(
        for_each_item_where(broken, |_| true, stop_at_two).unwrap(),
        Some(2)
    );
    assert!(for_each_item_where(broken, |_| false, |_, _| Continue(())).is_err());
}

#[test]
fn the_pretty_layout_is_serde_jsons() {
    // An array ending in a number closes on its own line as one ending in an object does.
    let value = json!({"a": [1, {"b": lone(0xDBFF)}], "c": [2]});
    assert_eq!(
        to_string_pretty(&value).unwrap(),
        serde_json::to_string_pretty(&json!({"a": [1, {"b": "X"}], "c": [2]}))
            .unwrap()
            .replace('X', "\\udbff")
    );
}

/// `text` (one JSON value) written by the writers from its text, in each layout and after an
/// array and an object that closed (`[[{"k":[0]}],{"r":text}]`), and as they write the value
/// read from it; and whether its tokens were moved as they stand rather than built.
fn laid_out(text: &str) -> ([String; 2], [String; 2], bool) {
    let raw: &RawValue = serde_json::from_str(text).unwrap();
    let closed = vec![BTreeMap::from([("k", vec![0])])];
    let around = (closed, BTreeMap::from([("r", raw)]));
    let around_text = format!(r#"[[{{"k":[0]}}],{{"r":{text}}}]"#);
    let read = parse_borrowed(&around_text).unwrap();
    let moved = reindent::write(raw.get(), Some(0), &mut Vec::new(), &mut Stacks::default());
    (
        [
            to_string(&around).unwrap(),
            to_string_pretty(&around).unwrap(),
        ],
        [to_string(&read).unwrap(), to_string_pretty(&read).unwrap()],
        moved,
    )
}

#[test]
fn a_value_written_from_its_text_is_laid_out_as_the_value_read_from_it() {
    let moved = [
        "{\"a\" :1,\r\n\t\"b\": [true , false,null],\"c\":{ },\"d\":[ ],\"e\":\"x\\\"y\\\\z\\n\\t\\b\\f\\r\"}",
        r#"[-12, 0, 123456789012345678, -123456789012345678, "é ☃ 😀"]"#,
        r#"{"a": {"a": [1, {"a": {}}]}, "b": {"a": 2}, "c": "a"}"#,
        r#"{"x": {"y": 1}, "y": {"x": [{"x": 0}]}, "z": 2}"#,
        r#"[[], [{}], [[[]]], {"": ""}]"#,
        "\"s\"",
        "0",
        "null",
    ];
    for text in moved {
        let (written, expected, was_moved) = laid_out(text);
        assert_eq!(written, expected, "{text}");
        assert!(was_moved, "{text} is written as its tokens stand");
    }
    // Each of these holds a token the writers write otherwise (a decoded escape, a float, a
    // repeated key's value in its first place, a lone surrogate), built and written as a value.
    let built = [
        r#"["\u0041\u00e9"]"#,
        r#"{"a": "x\/y"}"#,
        r#"[1.0, 2.50]"#,
        "[1e5]",
        "[1E5]",
        "-0",
        "[1234567890123456789, 2]",
        r#"{"a": 1, "a": 2}"#,
        r#"{"a": 1, "b": {"c": {}}, "a": [2]}"#,
        r#"[{"k": 1}, "\ud83d cut"]"#,
        r#"{"x": {"y": ["\udc00"]}}"#,
    ];
    for text in built {
        let (written, expected, was_moved) = laid_out(text);
        assert_eq!(written, expected, "{text}");
        assert!(!was_moved, "{text} is built");
    }
    // A reserved character (the representation of a lone surrogate) is decoded when written.
    let lone_in_text = format!("[\"{}\"]", lone(0xD83D));
    assert!(!reindent::write(
        &lone_in_text,
        None,
        &mut Vec::new(),
        &mut Stacks::default()
    ));
}

/// The stacks a walk leaves (here, one that stopped inside two objects at a repeated key) are
/// not read by the next: each value is laid out as with stacks of its own.
#[test]
fn a_value_laid_out_after_one_that_stopped_is_laid_out_afresh() {
    let mut stacks = Stacks::default();
    let stopped = r#"{"a": {"k": 1, "k": 2}}"#;
    assert!(!reindent::write(
        stopped,
        Some(0),
        &mut Vec::new(),
        &mut stacks
    ));
    for text in [r#"{"k": 3}"#, "[1, 2]", r#"{"a": [{"k": {}}], "k": 0}"#] {
        let (mut reused, mut fresh) = (Vec::new(), Vec::new());
        assert!(
            reindent::write(text, Some(1), &mut reused, &mut stacks),
            "{text}"
        );
        assert!(reindent::write(
            text,
            Some(1),
            &mut fresh,
            &mut Stacks::default()
        ));
        assert_eq!(reused, fresh, "{text}");
    }
}

#[test]
fn text_that_is_not_json_is_never_a_panic() {
    // The writers' texts are values serde_json read; these stop where they stop being JSON.
    for text in ["tru", "]", "[1] 2]", "\"abc", "\"ab\\", "-", "01", "x"] {
        let mut out = Vec::new();
        let moved = reindent::write(text, Some(0), &mut out, &mut Stacks::default());
        assert!(!moved, "{text:?}: {}", String::from_utf8_lossy(&out));
    }
}

#[test]
fn a_value_too_long_to_lay_out_is_built() {
    let quoted = |len: usize| format!("\"{}\"", "x".repeat(len - 2));
    let mut out = Vec::new();
    assert!(reindent::write(
        &quoted(reindent::LAID_OUT_MAX),
        None,
        &mut out,
        &mut Stacks::default()
    ));
    assert_eq!(out.len(), reindent::LAID_OUT_MAX);
    assert!(!reindent::write(
        &quoted(reindent::LAID_OUT_MAX + 1),
        None,
        &mut Vec::new(),
        &mut Stacks::default()
    ));
    // The limit is on the whole value laid out, a token inside it counted where it lies.
    let inside = |len: usize| format!("[{}]", quoted(len));
    let max = reindent::LAID_OUT_MAX;
    assert!(reindent::write(
        &inside(max - 2),
        None,
        &mut Vec::new(),
        &mut Stacks::default()
    ));
    assert!(!reindent::write(
        &inside(max - 1),
        None,
        &mut Vec::new(),
        &mut Stacks::default()
    ));
    // Written all the same, in one piece.
    let long = quoted(reindent::LAID_OUT_MAX + 1);
    let raw: &RawValue = serde_json::from_str(&long).unwrap();
    assert_eq!(to_string_pretty(&[raw]).unwrap(), format!("[\n  {long}\n]"));
}

#[test]
fn a_value_built_is_moved_in_line_by_line_and_flushed_through() {
    let mut out = io::BufWriter::new(Vec::new());
    let mut shifted = Shifted {
        out: &mut out,
        depth: 2,
    };
    shifted.write_all(b"[\n  1,").unwrap();
    shifted.write_all(b"\n  \"a\"\n]").unwrap();
    shifted.flush().unwrap();
    assert_eq!(out.buffer(), b"", "flushed");
    assert_eq!(out.get_ref(), b"[\n      1,\n      \"a\"\n    ]");
}

#[test]
fn an_array_read_item_by_item_hands_over_each_wanted_items_text() {
    let text = "[1, {\"a\": \"\\ud83d\"} ,\n[true], \"x\"]";
    let mut read = Vec::new();
    let passed = for_each_raw_item_where(
        text,
        |at| at != 2,
        |at, item| {
            read.push((at, item.get()));
            ControlFlow::Continue(())
        },
    );
    assert_eq!(passed.unwrap(), Some(4));
    assert_eq!(read, [(0, "1"), (1, "{\"a\": \"\\ud83d\"}"), (3, "\"x\"")]);
    assert_eq!(
        for_each_raw_item_where("{}", |_| true, |_, _| ControlFlow::Continue(())).unwrap(),
        None
    );
}

/// From where an item starts, the items' texts are that one's and those after it, as a read
/// from the first hands them over, each found by the next one's start without reading it; a
/// text where no comma or closing bracket lies before a start is an error, never a panic.
#[test]
fn the_items_from_an_items_start_are_those_a_read_from_the_first_hands_over() {
    let text = "[1, {\"a\": \"\\ud83d\"} ,\n[true]\t,\"x\" ] \n";
    let mut items = Vec::new();
    for_each_raw_item_where(
        text,
        |_| true,
        |at, item| {
            items.push((at, item.get()));
            ControlFlow::Continue(())
        },
    )
    .unwrap();
    let starts = item_starts(text).unwrap().unwrap();
    for first in 0..items.len() {
        let from = starts.from(first).unwrap();
        let read: Vec<(usize, &str)> = from
            .texts(text)
            .map(|item| item.map(|(at, item)| (at, item.get())))
            .collect::<serde_json::Result<_>>()
            .unwrap();
        assert_eq!((from.at(), &read[..]), (first, &items[first..]));
    }
    assert!(starts.from(items.len()).is_none());
    // The same starts in texts they were not noted in.
    for text in ["[1 {\"a\": 2} [true]  \"x\"]", "[1, {}", "[1]"] {
        let read: serde_json::Result<Vec<_>> = starts.from(0).unwrap().texts(text).collect();
        assert!(read.is_err(), "{text}");
    }
}

/// An item's text written as a `RawValue` of it is, through serde_json's writer and value
/// builder and through these writers (laid out as the value it holds).
#[test]
fn an_items_text_is_written_as_a_raw_value_of_it() {
    let text = "{\"a\" : [1,\n 2], \"b\": \"\\u00e9\"}";
    let raw = RawValue::from_string(text.to_owned()).unwrap();
    let ours = RawText::from(&*raw);
    assert_eq!(ours.get(), text);
    assert_eq!(serde_json::to_string(&ours).unwrap(), text);
    assert_eq!(
        serde_json::to_value(ours).unwrap(),
        serde_json::to_value(&raw).unwrap()
    );
    assert_eq!(to_string(&[ours]).unwrap(), to_string(&[&raw]).unwrap());
    assert_eq!(
        to_string_pretty(&[ours]).unwrap(),
        to_string_pretty(&[&raw]).unwrap()
    );
}
