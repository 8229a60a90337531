//! The chat generator reaches every shape it promises, with meaningful probability.

use arbitrary::Unstructured;
use ctxfuzz::generators::{chat, seeded_bytes};
use serde_json::Value;

use crate::common::values;

#[test]
fn chat_transcripts_reach_every_promised_shape() {
    let cases: Vec<Vec<Value>> = (0..500)
        .map(|seed| {
            let bytes = seeded_bytes(seed, 4096);
            values(&chat::transcript(&mut Unstructured::new(&bytes)).unwrap())
        })
        .collect();
    let messages = || cases.iter().flatten();
    let calls = || {
        messages()
            .filter_map(|m| m.get("tool_calls")?.as_array())
            .flatten()
    };
    let shapes: [(&str, usize); 9] = [
        (
            "api schema",
            messages().filter(|m| m.get("role").is_some()).count(),
        ),
        (
            "stored schema",
            messages().filter(|m| m.get("sender").is_some()).count(),
        ),
        (
            "non-object entry",
            messages().filter(|m| !m.is_object()).count(),
        ),
        (
            "earlier summary",
            messages()
                .filter(|m| m.get("messageType").and_then(Value::as_str) == Some("context_summary"))
                .count(),
        ),
        (
            "list content",
            messages()
                .filter(|m| m.get("content").is_some_and(Value::is_array))
                .count(),
        ),
        (
            "non-object call",
            calls().filter(|c| !c.is_object()).count(),
        ),
        (
            "arguments not JSON",
            calls()
                .filter(|c| {
                    c.pointer("/function/arguments").and_then(Value::as_str) == Some("{not json")
                })
                .count(),
        ),
        (
            "flat name/args call",
            calls().filter(|c| c.get("args").is_some()).count(),
        ),
        (
            "long text",
            messages()
                .filter(|m| {
                    m.get("content")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.len() > 400)
                })
                .count(),
        ),
    ];
    let total = messages().count();
    for (shape, count) in shapes {
        assert!(
            count * 1000 >= total,
            "{shape}: {count} of {total} messages"
        );
    }
}
