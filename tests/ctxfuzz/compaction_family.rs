//! How the compaction reads a transcript: which family it is, which messages count as
//! summaries whose verbatim turns are carried forward, and alike in either JSON type.

use std::borrow::Cow;

use arbitrary::Unstructured;
use ctxfuzz::compaction::clip::clipped;
use ctxfuzz::compaction::config::ClipKey;
use ctxfuzz::compaction::facts::Facts;
use ctxfuzz::compaction::preserve::{carried, preserved};
use ctxfuzz::compaction::summariser::{PromptLine, summarise};
use ctxfuzz::compaction::{CompactionConfig, Compactor, Faults, Tracker, compact};
use ctxfuzz::compaction::{Family, Scripted};
use ctxfuzz::generators::{chat, pi, seeded_bytes};
use ctxfuzz_oracles::invariants::compaction::{Contract, Round, judge};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::{Value, json};

fn messages(value: Value) -> Vec<Value> {
    value.as_array().unwrap().clone()
}

#[test]
fn an_assistant_tool_call_block_makes_a_transcript_pi() {
    let pi = messages(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "bash", "arguments": {}}]}
    ]));
    assert_eq!(Family::detect(&pi), Family::Pi);
    // The same block anywhere but in an assistant message says nothing about the family.
    let chat = messages(json!([
        {"role": "user", "content": [{"type": "toolCall", "id": "a", "name": "bash", "arguments": {}}]},
        {"role": "assistant", "content": "ok"}
    ]));
    assert_eq!(Family::detect(&chat), Family::Chat);
    // Nor does an assistant's list content without a tool-call block (chat allows text parts).
    let chat_parts = messages(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok", "id": "t"}]}
    ]));
    assert_eq!(Family::detect(&chat_parts), Family::Chat);
}

#[test]
fn a_pi_only_role_makes_a_transcript_pi_and_plain_turns_are_chat() {
    for role in ["toolResult", "bashExecution", "compactionSummary", "custom"] {
        let history = messages(json!([{"role": "user", "content": "x"}, {"role": role}]));
        assert_eq!(Family::detect(&history), Family::Pi, "{role}");
    }
    let chat = messages(json!([
        {"role": "user", "content": "x"}, {"role": "assistant", "content": "y"},
        {"role": "tool", "tool_call_id": "a", "content": "z"}
    ]));
    assert_eq!(Family::detect(&chat), Family::Chat);
}

#[test]
fn a_text_only_pi_transcript_is_pi_by_its_stop_reason() {
    let pi = messages(json!([
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop"}
    ]));
    assert_eq!(Family::detect(&pi), Family::Pi);
    let not_a_reason = messages(json!([
        {"role": "assistant", "content": "ok", "stopReason": 1},
        {"role": "user", "content": "x", "stopReason": "stop"}
    ]));
    assert_eq!(Family::detect(&not_a_reason), Family::Chat);
}

#[test]
fn only_an_earlier_summary_has_its_verbatim_turns_carried() {
    let block = "Summary.\n\n### User messages (verbatim)\n- never deploy on fridays";
    let history = messages(json!([
        {"sender": "system", "text": block, "messageType": "context_summary"},
        {"sender": "assistant", "text": block},
        {"sender": "user", "text": "ship it"}
    ]));
    assert_eq!(
        preserved(&Facts::read(&history, Family::Chat).messages, 40, true),
        ["never deploy on fridays", "ship it"],
        "an assistant quoting a summary is not a summary"
    );
}

#[test]
fn a_summary_that_opens_with_blank_lines_still_carries_its_turns() {
    let summary = "\n\n### User messages (verbatim)\n- keep the tests green";
    assert_eq!(carried(summary), ["keep the tests green"]);
}

#[test]
fn the_offline_digest_counts_user_turns_and_tool_results() {
    let region = messages(json!([
        {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
        {"role": "tool", "tool_call_id": "x", "content": "c"}, {"role": "user", "content": "d"},
        {"role": "tool", "tool_call_id": "y", "content": "e"}, {"role": "tool", "tool_call_id": "z", "content": "f"}
    ]));
    let facts = Facts::read(&region, Family::Chat);
    let lines: Vec<PromptLine> = (facts.messages.iter())
        .map(|fact| PromptLine::of::<Value>(fact, None, Family::Chat))
        .collect();
    let digest = summarise(&Scripted::Digest, &lines, Family::Chat).unwrap();
    assert!(
        digest.starts_with(
            "Summary of 6 earlier message(s): 2 user turn(s), 3 tool result(s). Digest "
        ),
        "{digest}"
    );
}

#[test]
fn the_prompt_reads_the_clipped_copy_of_a_long_tool_result() {
    let region = messages(json!([
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "x", "content": "z".repeat(900)}
    ]));
    let facts = Facts::read(&region, Family::Chat);
    let lines: Vec<PromptLine> = (region.iter().zip(&facts.messages))
        .map(
            |(message, fact)| match clipped(message, fact, 400, ClipKey::Read) {
                Cow::Borrowed(_) => PromptLine::of::<Value>(fact, None, Family::Chat),
                Cow::Owned(copy) => PromptLine::of(fact, Some(&copy), Family::Chat),
            },
        )
        .collect();
    let expected = [
        PromptLine {
            role: "user",
            text: "go".into(),
        },
        PromptLine {
            role: "tool",
            text: format!("{}\u{2026} [clipped]", "z".repeat(400)).into(),
        },
    ];
    assert_eq!(lines, expected);
}

/// One compaction of `messages` (in either JSON type), as JSON: the new transcript, the report,
/// what the summariser read and the oracle's verdict on the round.
fn compacted_as_json<J>(messages: &[J], family: Family, config: &CompactionConfig) -> Value
where
    J: ctxfuzz::compaction::Message + PartialEq,
{
    let mut tracker = Tracker::with_total(0);
    let c = compact(
        messages,
        &Compactor {
            family,
            config,
            summariser: &Scripted::Digest,
            faults: Faults::default(),
        },
        &mut tracker,
    );
    let output: Vec<&J> = c.messages().collect();
    let summariser_input: Vec<&J> = c.summariser_input.iter().map(|m| &**m).collect();
    let tracker_calls = ctxfuzz::harness::targets::observed_tracker_calls(&tracker.calls);
    let input: Vec<&J> = messages.iter().collect();
    let round = Round {
        input: &input,
        input_after: &input,
        output: &output,
        boundary: c.decision.boundary,
        picked: c.decision.picked,
        summary: &c.decision.summary,
        summariser_input: &summariser_input,
        tracker_calls: &tracker_calls,
    };
    let contract = Contract::from_json(
        json!(family).as_str().unwrap(),
        &serde_json::to_value(config).unwrap(),
    );
    let verdict: Vec<String> = judge::<J, _>(&contract, &[round])
        .iter()
        .map(|v| format!("{}: {}", v.invariant, v.summary))
        .collect();
    json!({
        "compaction": c.to_json(&tracker),
        "summariser_input": summariser_input,
        "verdict": verdict,
    })
}

/// The fuzz target compacts and judges the oracle's `JsValue`s; the command line and case files
/// `serde_json::Value`s. Every variant gives the same compaction and the same verdict in both, on
/// transcripts of both families with knobs small enough that cuts, clips and caps happen.
#[test]
fn a_transcript_compacts_and_is_judged_alike_as_value_and_as_js_value() {
    let mut compacted = 0;
    for variant in [
        "cycle-safe",
        "autobot",
        "old-clip-key",
        "no-preserve",
        "midpoint",
    ] {
        let config = CompactionConfig {
            window: 1,
            clip_chars: 4,
            user_message_cap: 2,
            ..CompactionConfig::named(variant).unwrap()
        };
        for seed in 0..150 {
            let bytes = seeded_bytes(seed, 2048);
            for family in [Family::Pi, Family::Chat] {
                let (as_value, as_js): (Vec<Value>, Vec<JsValue<'static>>) = match family {
                    Family::Pi => (
                        pi::transcript(&mut Unstructured::new(&bytes)).unwrap(),
                        pi::transcript(&mut Unstructured::new(&bytes)).unwrap(),
                    ),
                    Family::Chat => (
                        chat::transcript(&mut Unstructured::new(&bytes)).unwrap(),
                        chat::transcript(&mut Unstructured::new(&bytes)).unwrap(),
                    ),
                };
                let expected = compacted_as_json(&as_value, family, &config);
                assert_eq!(
                    compacted_as_json(&as_js, family, &config),
                    expected,
                    "{variant}, {family:?}, seed {seed}"
                );
                compacted += usize::from(expected["compaction"]["boundary"] != 0);
            }
        }
    }
    assert!(
        compacted > 500,
        "only {compacted} transcripts were compacted"
    );
}
