//! The session-file generator: it always ends, never makes a `parentId` cycle (pi would loop
//! forever), and reaches the session shapes the conformance test needs.

use arbitrary::Unstructured;
use ctxfuzz::generators::{pi as pi_gen, seeded_bytes, session_file::session_input};
use ctxfuzz_oracles::js_value::{self, JsValue};
use ctxfuzz_oracles::pi::session_context::{self, SessionError, SessionRules};
use serde_json::Value;

fn entries_of(input: &Value) -> Vec<Value> {
    match input.get("jsonl").and_then(Value::as_str) {
        Some(text) => session_context::parse(text)
            .entries
            .iter()
            .map(JsValue::to_value)
            .collect(),
        None => input["entries"].as_array().cloned().unwrap_or_default(),
    }
}

#[test]
fn an_exhausted_input_gives_an_ordinary_session() {
    let input = session_input(&mut Unstructured::new(&[])).expect("never fails");
    let entries = entries_of(&input);
    assert!(
        entries
            .iter()
            .all(|e| e["type"] != "compaction" && e["type"] != "context_edit")
    );
    assert!(input.get("jsonl").is_none());
}

#[test]
fn sessions_never_loop_and_reach_every_session_shape() {
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for seed in 0..2_000u64 {
        let bytes = seeded_bytes(seed, 2 * pi_gen::SEED_BYTES);
        let input = session_input(&mut Unstructured::new(&bytes)).expect("generates");
        let entries = entries_of(&input);
        let types: Vec<&str> = entries.iter().filter_map(|e| e["type"].as_str()).collect();
        for (shape, present) in [
            ("compaction", types.contains(&"compaction")),
            (
                "nested compaction",
                types.iter().filter(|t| **t == "compaction").count() > 1,
            ),
            ("context_edit", types.contains(&"context_edit")),
            ("custom_message", types.contains(&"custom_message")),
            ("branch_summary", types.contains(&"branch_summary")),
            (
                "version 1",
                entries.first().is_some_and(|h| h["version"] == 1),
            ),
            (
                "no header",
                entries.first().is_some_and(|h| h["type"] != "session"),
            ),
            ("leafId", input.get("leafId").is_some()),
            ("jsonl", input.get("jsonl").is_some()),
            (
                "malformed line",
                input.get("jsonl").is_some_and(|t| {
                    !session_context::parse(t.as_str().unwrap_or_default())
                        .malformed
                        .is_empty()
                }),
            ),
        ] {
            *seen.entry(shape).or_default() += usize::from(present);
        }
        let mut entries = js_value::borrow_all(&entries);
        let leaf = input.get("leafId").map(JsValue::from);
        session_context::migrate(&mut entries).ok();
        for rules in SessionRules::ALL {
            let built = session_context::build_context(&entries, leaf.as_ref(), rules);
            assert!(
                !matches!(built, Err(SessionError::Loops { .. })),
                "seed {seed}: {input}"
            );
        }
    }
    for (shape, count) in &seen {
        assert!(*count >= 20, "{shape}: only {count} of 2,000 sessions");
    }
}
