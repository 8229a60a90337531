//! `ctxfuzz check` and `ctxfuzz scan` read a pi session file through an index of its lines
//! (`transcript::session_file::Index`), parsing again only the entries the context keeps: on the
//! session vectors and on generated sessions, for every pi, whatever it reads this way is what the
//! whole reading (`session_file::load`) gives, and the files it does not cover are left to it; a
//! long session's findings are named where the whole reading has them. `scan`'s verdict of a file
//! (its shapes, findings, malformed lines) read in parts is its verdict read whole.

use arbitrary::Unstructured;
use ctxfuzz::cli::scan;
use ctxfuzz::generators::{pi as pi_gen, seeded_bytes, session_file};
use ctxfuzz::transcript::session_file::{Index, load};
use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::invariants::wire::findings;
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::pi::session_context::SessionRules;
use ctxfuzz_oracles::pi::{PiVersion, Provider, default_model};
use serde_json::Value;

use crate::common::{charged_places, write};

const VECTORS: &str = include_str!("../../oracles/tests/data/vectors.expected.jsonl");

/// A session input (the vectors' `{"jsonl"}` or `{"entries"}`) as the text of a file, under a
/// version 3 header when `header` and it has none.
fn file_text(input: &Value, header: bool) -> String {
    let text: String = match input.get("jsonl").and_then(Value::as_str) {
        Some(text) => text.to_string(),
        None => input["entries"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|e| e.to_string() + "\n")
            .collect(),
    };
    if header && !text.starts_with(r#"{"type":"session""#) {
        return r#"{"type":"session","version":3,"id":"s"}"#.to_string() + "\n" + &text;
    }
    text
}

/// Whether the indexed reading of `text` for pi `v` gives the whole reading's messages and
/// malformed lines (asserted); `false` when it leaves the file to the whole reading.
fn same_as_whole(text: &str, v: PiVersion, what: &str) -> bool {
    let Ok(index) = Index::read(text) else {
        return false;
    };
    let mut messages = Vec::new();
    if index
        .for_each_message(SessionRules::of(v), |m| messages.push(m.to_value()))
        .is_err()
    {
        return false;
    }
    let whole = load(text, v);
    assert_eq!(index.malformed, whole.malformed, "{what}, pi {v:?}");
    let context = match whole.context {
        Some(Ok(context)) => context,
        other => {
            panic!("{what}, pi {v:?}: read by the index, but the whole reading gives {other:?}")
        }
    };
    let expected: Vec<Value> = context.messages.iter().map(JsValue::to_value).collect();
    assert_eq!(messages, expected, "{what}, pi {v:?}");
    true
}

/// Whether `scan` reads `text` in parts for pi `v`, with the verdict of the whole reading for
/// every provider (asserted).
fn scan_same_as_whole(text: &str, v: PiVersion, what: &str) -> bool {
    let Some(in_parts) = scan::read_in_parts(text, v, Provider::all()) else {
        return false;
    };
    let whole = scan::read_whole(text, v, Provider::all());
    assert_eq!(in_parts, whole, "{what}, pi {v:?}");
    true
}

/// The session vectors' file texts, with their names.
fn session_vectors() -> impl Iterator<Item = (String, String)> {
    VECTORS.lines().filter_map(|line| {
        let vector: Value = serde_json::from_str(line).unwrap();
        let input = &vector["input"];
        if input.get("entries").is_none() && input.get("jsonl").is_none() {
            return None;
        }
        Some((file_text(input, true), vector["name"].to_string()))
    })
}

/// A generated session's file text, from `seed`.
fn generated_session(seed: u64) -> String {
    let bytes = seeded_bytes(seed, 2 * pi_gen::SEED_BYTES);
    let input = session_file::session_input(&mut Unstructured::new(&bytes)).expect("generates");
    file_text(&input, false)
}

/// The long session with an orphan result far past the first part, and the call it should
/// answer left open.
fn long_session_with_a_stray_result() -> String {
    let mut text = Vec::new();
    session_file::write_long(&mut text, 20_000, 1).unwrap();
    String::from_utf8(text).unwrap().replacen(
        r#""toolCallId":"toolu_0004000_0""#,
        r#""toolCallId":"stray""#,
        1,
    )
}

#[test]
fn the_session_vectors_read_through_the_index_as_whole() {
    let mut read = 0;
    for (text, name) in session_vectors() {
        for v in PiVersion::ALL {
            read += usize::from(same_as_whole(&text, v, &name));
        }
    }
    assert_eq!(
        read, 40,
        "every session vector, for each of the four pi versions"
    );
}

#[test]
fn generated_sessions_read_through_the_index_as_whole() {
    let (mut cases, mut read) = (0, 0);
    for seed in 0..3_000u64 {
        let text = generated_session(seed);
        for v in PiVersion::ALL {
            cases += 1;
            read += usize::from(same_as_whole(&text, v, &format!("seed {seed}")));
        }
    }
    // Not vacuous: most generated sessions are read this way (the rest have no header, are
    // version 1 files, or make pi throw, as the generator means them to).
    assert!(read * 2 > cases, "{read} of {cases} read through the index");
}

#[test]
fn check_names_the_findings_of_a_long_session_where_the_whole_reading_has_them() {
    let text = long_session_with_a_stray_result();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "long.jsonl", &text);
    let places = charged_places(&path);
    let v = PiVersion::default();
    let context = load(&text, v).context.unwrap().unwrap();
    let whole = findings(&context.messages, default_model(), v).unwrap();
    let expected: Vec<(u64, Option<u64>)> = whole
        .iter()
        .map(|f| (f.wire.message as u64, f.wire.block.map(|b| b as u64)))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(places, expected);
    assert!(same_as_whole(&text, v, "the long session"));
}

#[test]
fn scan_of_the_session_vectors_in_parts_is_scan_of_them_whole() {
    let mut read = 0;
    for (text, name) in session_vectors() {
        for v in PiVersion::ALL {
            read += usize::from(scan_same_as_whole(&text, v, &name));
        }
    }
    assert_eq!(
        read, 40,
        "every session vector, for each of the four pi versions"
    );
}

#[test]
fn scan_of_generated_sessions_in_parts_is_scan_of_them_whole() {
    let (mut cases, mut read) = (0, 0);
    for seed in 0..3_000u64 {
        let text = generated_session(seed);
        for v in PiVersion::ALL {
            cases += 1;
            read += usize::from(scan_same_as_whole(&text, v, &format!("seed {seed}")));
        }
    }
    assert!(read * 2 > cases, "{read} of {cases} read in parts");
}

/// Cut into parts, with a finding far past the first and the long-transcript shape.
#[test]
fn scan_of_a_long_session_in_parts_is_scan_of_it_whole() {
    let text = long_session_with_a_stray_result();
    for v in PiVersion::ALL {
        assert!(scan_same_as_whole(&text, v, "the long session"));
    }
}

#[test]
fn a_repeated_id_names_the_last_entry_with_it_as_in_pi() {
    // `c`'s parent is `a`: the entry just before `c` has that id, but pi's map gives the later one.
    let entry = |id: &str, parent: Value, text: &str| {
        serde_json::json!({"type": "message", "id": id, "parentId": parent,
            "message": {"role": "user", "content": text, "timestamp": 1}})
        .to_string()
    };
    let text = [
        r#"{"type":"session","version":3,"id":"s"}"#.to_string(),
        entry("a", Value::Null, "first a"),
        entry("c", "a".into(), "c"),
        entry("a", Value::Null, "second a"),
        entry("d", "c".into(), "d"),
    ]
    .join("\n");
    for v in PiVersion::ALL {
        assert!(same_as_whole(&text, v, "a repeated id"));
    }
    let index = Index::read(&text).unwrap();
    let mut first = None;
    index
        .for_each_message(SessionRules::Canonical, |m| {
            first.get_or_insert(m.to_value());
        })
        .unwrap();
    assert_eq!(first.unwrap()["content"], "second a");
}
