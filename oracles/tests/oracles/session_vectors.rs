//! Golden test: the session-mode reference vectors (V27–V31), recorded from the real pi 1.6.0 and
//! 0.81.1, reproduced by the session model.

use ctxfuzz_oracles::js_value::{self, JsValue};
use ctxfuzz_oracles::pi::PiVersion;
use ctxfuzz_oracles::pi::session_context::{self, SessionRules};
use serde_json::Value;

const VECTORS: &str = include_str!("../data/vectors.expected.jsonl");

fn session_vectors() -> Vec<(SessionRules, String, Value, Value)> {
    VECTORS
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("vector line"))
        .filter(|v| v["input"].get("entries").is_some() || v["input"].get("jsonl").is_some())
        .map(|v| {
            let pi_version = PiVersion::of_vector(v["variant"].as_str().unwrap_or_default())
                .expect("a vector names its pi version");
            let rules = SessionRules::of(pi_version);
            let name = v["name"].as_str().unwrap_or_default().to_string();
            (
                rules,
                name,
                v["input"].clone(),
                v["output"]["session"].clone(),
            )
        })
        .collect()
}

#[test]
fn session_vectors_reproduce_for_both_variants() {
    let vectors = session_vectors();
    assert_eq!(vectors.len(), 10, "V27–V31 for 1.6.0 and 0.81.1");
    for (rules, name, input, expected) in vectors {
        let mut entries = match input.get("jsonl").and_then(Value::as_str) {
            Some(text) => session_context::parse(text).entries,
            None => js_value::borrow_all(input["entries"].as_array().map_or(&[], Vec::as_slice)),
        };
        let leaf = input.get("leafId").map(JsValue::from);
        session_context::migrate(&mut entries).expect("migrates");
        let context = session_context::build_context(&entries, leaf.as_ref(), rules)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(context.to_json(), expected, "{rules:?} {name}");
        let moved = session_context::build_context_from(entries, leaf.as_ref(), rules)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            moved, context,
            "{rules:?} {name}: moving the messages out changes nothing"
        );
    }
}

#[test]
fn v27_reports_its_malformed_line() {
    let (_, _, input, _) = session_vectors().into_iter().next().expect("V27");
    let parsed = session_context::parse(input["jsonl"].as_str().expect("jsonl"));
    assert_eq!(parsed.entries.len(), 12);
    assert_eq!(parsed.malformed.len(), 1);
    assert_eq!(parsed.malformed[0].line, 13);
}
