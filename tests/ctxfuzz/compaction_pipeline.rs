//! The pipeline target: what a compaction does to the provider request, judged against the same
//! pipeline without the compaction.

use arbitrary::Unstructured;
use ctxfuzz::generators::seeded_bytes;
use ctxfuzz::harness::{Profile, targets};
use ctxfuzz_oracles::invariants::Judgement;
use serde_json::{Value, json};

fn text(t: &str) -> Value {
    json!([{"type": "text", "text": t}])
}

/// `assistant(X) / bashExecution{excludeFromContext} / toolResult(X)`: pi drops the excluded
/// message, so the original is valid; autobot cuts at it and orphans the result.
fn mid_cycle() -> Value {
    let long = "a long answer that is worth summarising ".repeat(8);
    let assistant = |t: &str| json!({"role": "assistant", "content": text(t), "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 2});
    json!([
        {"role": "user", "content": text(&long), "timestamp": 1},
        assistant(&long),
        {"role": "user", "content": text("now read it"), "timestamp": 3},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.rs"}}], "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "toolUse", "timestamp": 4},
        {"role": "bashExecution", "command": "ls", "output": "a.rs", "exitCode": 0, "cancelled": false, "truncated": false, "excludeFromContext": true, "timestamp": 5},
        {"role": "toolResult", "toolCallId": "toolu_1", "toolName": "read", "content": text("fn main() {}"), "isError": false, "timestamp": 6},
        assistant("b"), assistant("c"), assistant("d"), assistant("e")
    ])
}

fn verdict(target: &str, variant: &str, profile: Value, input: &Value) -> Vec<String> {
    targets::build(
        target,
        Some(variant),
        &Profile::from_value(&profile).unwrap(),
    )
    .unwrap()
    .judge(input)
    .verdict()
}

#[test]
fn autobot_mid_cycle_cut_is_reported_by_the_wire_once_the_sweep_is_skipped() {
    let input = mid_cycle();
    let knobs = json!({"family": "pi", "knobs": {"window": 0}, "rounds": [{"append": input}]});
    assert_eq!(
        verdict("compaction", "autobot", json!({}), &knobs),
        vec!["compaction-no-new-orphans"]
    );
    assert_eq!(
        verdict("compaction", "cycle-safe", json!({}), &knobs),
        Vec::<String>::new()
    );
    let off = json!({"sweep": "off"});
    // The default window finds the user turn at 2 here; a window of 0 is what lands on index 4.
    let narrow = ctxfuzz::compaction::CompactionConfig {
        window: 0,
        ..ctxfuzz::compaction::CompactionConfig::named("autobot").unwrap()
    };
    let messages = crate::common::messages(input.clone());
    let facts = ctxfuzz::compaction::facts::Facts::read(&messages, ctxfuzz::compaction::Family::Pi);
    let cut = ctxfuzz::compaction::boundary::pick(&facts, &narrow);
    assert_eq!(cut, 4);
    assert_eq!(
        verdict("pipeline", "midpoint", off.clone(), &input),
        vec!["no-orphan-result", "wire-valid"]
    );
    assert_eq!(
        verdict("pipeline", "cycle-safe", off.clone(), &input),
        Vec::<String>::new()
    );
    // With the strict sweep the orphan is swept and the request is valid again: the sweep hides
    // the compaction's damage (and drops the real result).
    assert_eq!(
        verdict("pipeline", "midpoint", json!({"sweep": "strict"}), &input),
        Vec::<String>::new()
    );
}

#[test]
fn chat_transcripts_are_judged_by_the_openai_rules() {
    let input = json!([
        {"role": "user", "content": "x".repeat(200)}, {"role": "assistant", "content": "y".repeat(200)},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "function": {"name": "bash", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"}, {"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}
    ]);
    assert_eq!(
        verdict("pipeline", "midpoint", json!({}), &input),
        vec!["wire-valid"]
    );
    assert_eq!(
        verdict("pipeline", "cycle-safe", json!({}), &input),
        Vec::<String>::new()
    );
}

#[test]
fn the_default_pipeline_has_no_findings_on_fixed_seeds() {
    for profile in [json!({}), json!({"sweep": "off"})] {
        let target =
            targets::build("pipeline", None, &Profile::from_value(&profile).unwrap()).unwrap();
        for seed in 0..1_500 {
            let bytes = seeded_bytes(seed, 4096);
            let input = target.generate(&mut Unstructured::new(&bytes)).unwrap();
            if let Judgement::Fail(violations) = target.judge(&input) {
                panic!("{profile} seed {seed}: {violations:#?}\ninput: {input}");
            }
        }
    }
}
