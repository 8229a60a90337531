use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::json;

use super::packed_str::same_bytes;
use super::*;

thread_local! {
    /// Bytes allocated and not yet freed by this thread.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

/// The system allocator, counting what each thread holds, so that a test can see that what
/// it made was freed (a `Str` that forgot its text would pass every other test).
struct Counting;

fn count(bytes: isize) {
    // `try_with`: a thread being torn down still frees memory.
    let _ = LIVE.try_with(|live| live.set(live.get() + bytes));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn parse(text: &str) -> JsValue<'_> {
    serde_json::from_str(text).expect("valid JSON")
}

#[test]
fn a_key_borrowed_or_owned_is_found_in_a_map_by_its_text() {
    let mut map = std::collections::HashMap::new();
    map.insert(Str::from("borrowed"), 1);
    map.insert(Str::from(String::from("owned")), 2);
    assert_eq!(
        (map.get("borrowed"), map.get("owned")),
        (Some(&1), Some(&2))
    );
    assert_eq!(map.get("other"), None);
}

/// `{...object, [key]: value}` replaces a field in its place and appends a new one, leaving the
/// object it was made from as it was.
#[test]
fn an_object_with_a_field_replaces_it_in_place_or_appends_it() {
    let message = parse(r#"{"role": "user", "content": [1, 2], "timestamp": 3}"#);
    let object = message.as_object().unwrap();
    let keys = |object: &Object| -> Vec<String> { object.iter().map(|(k, _)| k.into()).collect() };
    let replaced = object.with("content", JsValue::from("x"));
    assert_eq!(keys(&replaced), ["role", "content", "timestamp"]);
    assert_eq!(
        JsValue::Object(replaced).to_value(),
        json!({"role": "user", "content": "x", "timestamp": 3})
    );
    let appended = object.with("id", JsValue::from("a"));
    assert_eq!(keys(&appended), ["role", "content", "timestamp", "id"]);
    assert_eq!(
        appended.get("content").map(JsValue::to_value),
        Some(json!([1, 2]))
    );
    assert_eq!(message.to_value()["content"], json!([1, 2]));
}

#[test]
fn a_spread_object_takes_the_later_values_in_the_earlier_places() {
    let base = parse(r#"{"id": "a", "api": "x", "input": ["text"]}"#);
    let over = parse(r#"{"input": [], "provider": "p", "id": "b"}"#);
    let spread = base.as_object().unwrap().spread(over.as_object().unwrap());
    let keys: Vec<&str> = spread.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["id", "api", "input", "provider"]);
    assert_eq!(
        JsValue::Object(spread).to_value(),
        json!({"id": "b", "api": "x", "input": [], "provider": "p"})
    );
}

#[test]
fn a_repeated_key_keeps_its_first_place_and_its_last_value() {
    let pair = parse(r#"{"a": 1, "a": 2}"#);
    assert_eq!(pair.as_object().unwrap().len(), 1, "every key the same");
    assert_eq!(pair.to_value(), json!({"a": 2}));
    let small = parse(r#"{"a": 1, "b": 2, "a": 3}"#);
    let fields: Vec<_> = small.as_object().unwrap().iter().map(|(k, _)| k).collect();
    assert_eq!(fields, ["a", "b"]);
    assert_eq!(small.to_value(), json!({"a": 3, "b": 2}));
    let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
    let large = format!("{{{}, \"k7\": \"last\"}}", keys.join(", "));
    let large = parse(&large);
    let object = large.as_object().unwrap();
    assert_eq!(object.len(), 40);
    assert_eq!(object.get("k7").and_then(JsValue::as_str), Some("last"));
    assert_eq!(object.iter().nth(7).map(|(k, _)| k), Some("k7"));
}

#[test]
fn strings_without_escapes_are_borrowed_from_the_text() {
    let text = r#"{"plain": "text", "escaped": "a\nb"}"#;
    let value = parse(text);
    let object = value.as_object().unwrap();
    let in_text = |s: &Str| text.as_bytes().as_ptr_range().contains(&s.as_ptr());
    assert!(matches!(
        object.get("plain"),
        Some(JsValue::String(s)) if !s.is_owned() && in_text(s) && &**s == "text"
    ));
    assert!(matches!(
        object.get("escaped"),
        Some(JsValue::String(s)) if s.is_owned() && !in_text(s) && &**s == "a\nb"
    ));
}

#[test]
fn a_field_is_a_two_word_key_and_a_three_word_value() {
    assert_eq!(std::mem::size_of::<Str>(), 16);
    assert_eq!(std::mem::size_of::<JsValue>(), 24);
    assert_eq!(std::mem::size_of::<(Str, JsValue)>(), 40);
}

#[test]
fn every_owned_string_is_freed_once() {
    let live = || LIVE.with(Cell::get);
    let before = live();
    let original = Str::from("x".repeat(100));
    let copy = original.clone();
    let parsed = parse(r#"{"escaped\n": "a\nb", "plain": "text"}"#);
    let copied = parsed.owned_copy();
    drop((original, copy, parsed, copied));
    assert_eq!(live(), before);
}

#[test]
fn an_owned_string_is_copied_by_clone_and_freed_by_each_copy() {
    let original = Str::from(String::from("owned text"));
    let copy = original.clone();
    assert!(copy.is_owned() && &*copy == "owned text");
    assert_eq!(format!("{copy:?}"), r#""owned text""#);
    assert_ne!(copy.as_ptr(), original.as_ptr());
    drop(original);
    assert_eq!(&*copy, "owned text");
    let empty = Str::from(String::new());
    assert!(empty.is_owned() && empty.is_empty() && empty.clone().is_empty());
    let borrowed = Str::from("borrowed");
    assert_eq!(borrowed.clone().as_ptr(), borrowed.as_ptr());
    assert_eq!(Str::from("borrowed").owned_copy(), borrowed);
    assert!(borrowed.owned_copy().is_owned());
}

#[test]
fn a_large_object_without_a_repeated_key_keeps_every_field_in_order() {
    let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
    let text = format!("{{{}}}", keys.join(", "));
    let value = parse(&text);
    let fields: Vec<_> = value.as_object().unwrap().iter().map(|(k, _)| k).collect();
    let expected: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
    assert_eq!(fields, expected);
}

#[test]
fn the_parse_reads_what_serde_json_reads() {
    let text = r#"[1, -2, 1.5, 1e300, null, true, false, "a\"b", [], {}, {"k": [{"n": {}}]}]"#;
    let expected: Value = serde_json::from_str(text).unwrap();
    assert_eq!(parse(text).to_value(), expected);
    let owned = parse(text).owned_copy();
    assert_eq!(owned.to_value(), expected);
    assert!(matches!(&owned, JsValue::Array(items)
        if matches!(&items[7], JsValue::String(s) if s.is_owned() && &**s == "a\"b")));
}

#[test]
fn equality_is_jsons_and_ignores_the_order_of_fields() {
    assert_eq!(
        parse(r#"{"a": 1, "b": [2]}"#),
        parse(r#"{"b": [2], "a": 1}"#)
    );
    assert_ne!(parse(r#"{"a": 1}"#), parse(r#"{"a": 1, "b": 2}"#));
    assert_ne!(parse(r#"{"a": 1, "b": 2}"#), parse(r#"{"a": 1}"#));
    assert_ne!(parse(r#"{"a": 1}"#), parse(r#"{"a": 2}"#));
    assert_ne!(parse(r#"[1]"#), parse(r#"[1, 1]"#));
    assert_ne!(parse(r#""1""#), parse("1"));
    assert_ne!(parse("true"), parse("false"));
    assert_eq!(parse("null"), JsValue::Null);
    assert!(parse(r#""image""#) == *"image");
    assert!(parse(r#"["image"]"#) != *"image");
}

#[test]
fn the_accessors_answer_for_their_own_kind_only() {
    let (array, text, number) = (parse("[1]"), parse(r#""a""#), parse("2.5"));
    assert!(array.is_array() && !text.is_array());
    assert_eq!(text.as_str(), Some("a"));
    assert_eq!(array.as_str(), None);
    assert_eq!(array.as_array().map(<[_]>::len), Some(1));
    assert!(text.as_array().is_none());
    assert_eq!(number.as_f64(), Some(2.5));
    assert_eq!(text.as_f64(), None);
    assert!(parse("null").is_null() && !parse("0").is_null());
    assert!(parse("{}").as_object().is_some() && array.as_object().is_none());
}

#[test]
fn a_value_prints_as_compact_json() {
    assert_eq!(parse(r#"{"a" : [1, "x"]}"#).to_string(), r#"{"a":[1,"x"]}"#);
}

#[test]
fn texts_are_equal_exactly_when_every_byte_is() {
    // Every length the short-text comparison splits at, with one byte changed at each place.
    for n in 0..=20 {
        let text: String = ('a'..='z').take(n).collect();
        assert!(
            same_bytes(text.as_bytes(), text.clone().as_bytes()),
            "{text}"
        );
        assert!(!same_bytes(text.as_bytes(), format!("{text}a").as_bytes()));
        for at in 0..n {
            let mut other = text.clone().into_bytes();
            other[at] = b'_';
            assert!(!same_bytes(text.as_bytes(), &other), "{text} at {at}");
        }
    }
}

#[test]
fn insert_replaces_in_place_and_remove_deletes() {
    let mut object = Object::new();
    object.insert("a", JsValue::from(1u64));
    object.insert("b", JsValue::from("two"));
    object.insert("a", JsValue::from("one"));
    let fields: Vec<_> = object.iter().map(|(k, v)| (k, v.as_str())).collect();
    assert_eq!(fields, [("a", Some("one")), ("b", Some("two"))]);
    object.remove("a");
    assert!(object.get("a").is_none());
    assert_eq!(object.len(), 1);
}

#[test]
fn a_value_round_trips_through_serde_json() {
    let original = json!({"n": [1, -2, 1.5, null, true], "s": "x", "o": {"k": {}}});
    assert_eq!(JsValue::from(&original).to_value(), original);
    assert_eq!(JsValue::from(original.clone()).to_value(), original);
    let written = serde_json::to_value(JsValue::from(&original)).unwrap();
    assert_eq!(written, original);
}
