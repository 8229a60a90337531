//! How the compaction reads a transcript: which family it is and which messages count as
//! summaries whose verbatim turns are carried forward.

use std::borrow::Cow;

use ctxfuzz::compaction::clip::clipped;
use ctxfuzz::compaction::config::ClipKey;
use ctxfuzz::compaction::facts::Facts;
use ctxfuzz::compaction::preserve::{carried, preserved};
use ctxfuzz::compaction::summariser::{PromptLine, summarise};
use ctxfuzz::compaction::{Family, Scripted};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::json;

use crate::common::messages;

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
        preserved(
            Facts::read(&history, Family::Chat).messages.iter(),
            40,
            true
        ),
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
        .map(|fact| PromptLine::of::<JsValue>(fact, None, Family::Chat))
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
                Cow::Borrowed(_) => PromptLine::of::<JsValue>(fact, None, Family::Chat),
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
