//! AutoBot's worked examples (docs/compaction.md#corpus), exact strings and tracker calls,
//! plus the behaviours that go beyond AutoBot (cycle-safe, carry-forward, skip when not smaller).

use std::borrow::Cow;

use ctxfuzz::compaction::boundary;
use ctxfuzz::compaction::clip::clipped;
use ctxfuzz::compaction::config::{ClipKey, CompactionConfig};
use ctxfuzz::compaction::facts::Facts;
use ctxfuzz::compaction::overflow::{BACKING_OFF, Mode, Turn, check_and_protect};
use ctxfuzz::compaction::state::{Extraction, State, render};
use ctxfuzz::compaction::{
    Compaction, Compactor, Family, Faults, Outcome, Scripted, Tracker, TrackerCall, compact,
};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::{Value, json};

use crate::common::messages;

/// A message as the compaction reads it.
type Message = JsValue<'static>;

fn pick(messages: &[Message], family: Family, config: &CompactionConfig) -> usize {
    boundary::pick(&Facts::read(messages, family), config)
}

/// Chat tool results clipped at the default 400 characters, and whether each was copied.
fn clip_chat(messages: &[Value], key: ClipKey) -> Vec<(Value, bool)> {
    let messages = crate::common::messages(Value::from(messages));
    let facts = Facts::read(&messages, Family::Chat);
    messages
        .iter()
        .zip(&facts.messages)
        .map(|(message, fact)| match clipped(message, fact, 400, key) {
            Cow::Borrowed(same) => (same.to_value(), false),
            Cow::Owned(copy) => (copy.to_value(), true),
        })
        .collect()
}

fn chat_state(messages: &[Value]) -> State {
    let messages = crate::common::messages(Value::from(messages));
    let facts = Facts::read(&messages, Family::Chat);
    let mut extraction = Extraction::default();
    for (message, fact) in messages.iter().zip(&facts.messages) {
        extraction.read(message, fact, Family::Chat, &CompactionConfig::default());
    }
    extraction.finish()
}

fn chat(array: Value) -> Vec<Message> {
    messages(array)
}

/// `compact` on a chat transcript, without injected faults.
fn compact_chat<'a>(
    history: &'a [Message],
    config: &CompactionConfig,
    summariser: &Scripted,
    tracker: &mut Tracker,
) -> Compaction<'a, Message> {
    compact(
        history,
        &Compactor {
            family: Family::Chat,
            config,
            summariser,
            faults: Faults::default(),
        },
        tracker,
    )
}

fn autobot() -> CompactionConfig {
    CompactionConfig::named("autobot").unwrap()
}

fn refills(tracker: &Tracker) -> Vec<u64> {
    assert_eq!(
        tracker.calls.first(),
        Some(&TrackerCall::Reset),
        "the tracker must be reset first"
    );
    tracker.calls[1..]
        .iter()
        .map(|c| match c {
            TrackerCall::Add {
                prompt,
                completion: 0,
            } => *prompt,
            other => panic!("unexpected tracker call {other:?}"),
        })
        .collect()
}

fn example_1() -> Vec<Message> {
    chat(json!([
        {"role": "user", "content": "first ask"}, {"role": "assistant", "content": "sure"},
        {"role": "user", "content": "second ask"}, {"role": "assistant", "content": "working"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "r1", "function": {"name": "read_file", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "r1", "content": "a"}, {"role": "tool", "tool_call_id": "r1", "content": "b"},
        {"role": "assistant", "content": "done"}, {"role": "user", "content": "third ask"}, {"role": "assistant", "content": "ok"}
    ]))
}

#[test]
fn example_1_prefers_the_user_turn_below_the_midpoint() {
    for variant in ["autobot", "cycle-safe"] {
        assert_eq!(
            pick(
                &example_1(),
                Family::Chat,
                &CompactionConfig::named(variant).unwrap()
            ),
            2,
            "{variant}"
        );
    }
}

#[test]
fn example_2_falls_back_to_the_nearest_non_tool_index() {
    let history = chat(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "f"}}]},
        {"role": "tool", "tool_call_id": "x", "content": "body"}, {"role": "assistant", "content": "ok"}
    ]));
    assert_eq!(pick(&history, Family::Chat, &autobot()), 1);
    assert_eq!(
        pick(&history, Family::Chat, &CompactionConfig::default()),
        1
    );
}

#[test]
fn example_3_no_valid_cut_is_boundary_zero_and_nothing_happens() {
    let all_tools =
        chat(json!([{"role": "tool"}, {"role": "tool"}, {"role": "tool"}, {"role": "tool"}]));
    for history in [
        all_tools,
        vec![],
        chat(json!([{"role": "user", "content": "x"}])),
    ] {
        let mut tracker = Tracker::with_total(7);
        let result = compact_chat(
            &history,
            &autobot(),
            &Scripted::Error("never called".into()),
            &mut tracker,
        );
        assert_eq!(
            (
                result.decision.boundary,
                &result.decision.outcome,
                result.decision.summary.as_str()
            ),
            (0, &Outcome::NoCut, "")
        );
        assert_eq!(result.messages().cloned().collect::<Vec<_>>(), history);
        assert_eq!(
            tracker,
            Tracker::with_total(7),
            "the tracker must stay untouched"
        );
    }
}

#[test]
fn example_4_stored_schema_and_non_objects() {
    let history = chat(json!([
        {"sender": "user", "text": "m0"}, {"sender": "user", "text": "m1"}, {"sender": "user", "text": "m2"},
        {"sender": "user", "text": "m3"}, "not a dict", {"sender": "user", "text": null},
        {"sender": "user", "text": 12345}, {"sender": "user", "text": "fine"}
    ]));
    let mut tracker = Tracker::default();
    let result = compact_chat(
        &history,
        &autobot(),
        &Scripted::Fixed("Summary.".into()),
        &mut tracker,
    );
    assert_eq!(result.decision.boundary, 3);
    assert_eq!(
        result.decision.summary,
        "Summary.\n\n### User messages (verbatim)\n- m0\n- m1\n- m2"
    );
    assert_eq!(refills(&tracker), vec![0, 0, 0, 0, 1]);
    assert_eq!(
        result.messages().next().map(JsValue::to_value).unwrap(),
        json!({"sender": "system", "text": result.decision.summary, "messageType": "context_summary", "metadata": {"reason": "context_overflow_protection"}})
    );
    assert_eq!(
        result.messages().cloned().collect::<Vec<_>>()[1..],
        history[3..]
    );
}

fn example_5() -> Vec<Message> {
    chat(json!([
        {"role": "user", "content": "never deploy straight to prod"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "write_file", "arguments": "{\"path\": \"deploy/release.yaml\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "written"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "function": {"name": "execute_command", "arguments": {"command": "make release"}}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
        {"role": "user", "content": "now ship it"}, {"role": "assistant", "content": "shipping"},
        {"role": "user", "content": "status?"}, {"role": "assistant", "content": "green"},
        {"role": "user", "content": "thanks"}, {"role": "assistant", "content": "welcome"},
        {"role": "user", "content": "bye"}
    ]))
}

#[test]
fn example_5_state_and_verbatim_turns_are_composed() {
    let example_5 = example_5();
    let mut tracker = Tracker::default();
    let result = compact_chat(
        &example_5,
        &autobot(),
        &Scripted::Fixed("The user asked for a release.".into()),
        &mut tracker,
    );
    assert_eq!(result.decision.boundary, 5);
    assert_eq!(
        result.decision.summary,
        "The user asked for a release.\n\n### Retained state (extracted, not inferred)\n**Files written:** deploy/release.yaml\n**Commands run:** make release\n**Tools used:** write_file, execute_command\n\n### User messages (verbatim)\n- never deploy straight to prod"
    );
    assert_eq!(refills(&tracker).len(), 7);
}

#[test]
fn example_6_production_persistence_loses_the_instruction_in_autobot_only() {
    let round_1 = chat(json!([
        {"role": "user", "content": "never touch the prod database"}, {"role": "assistant", "content": "understood"},
        {"role": "user", "content": "add the endpoint"}, {"role": "assistant", "content": "added"}
    ]));
    let summariser = Scripted::Fixed("MODEL SUMMARY".into());
    let first = compact_chat(&round_1, &autobot(), &summariser, &mut Tracker::default());
    assert_eq!(first.decision.boundary, 2);
    let first_messages = first.messages().cloned().collect::<Vec<_>>();
    assert_eq!(
        first.decision.summary,
        "MODEL SUMMARY\n\n### User messages (verbatim)\n- never touch the prod database"
    );
    // Round 2 sees the summary as production persists it (sender "system"): AutoBot drops it.
    let second = compact_chat(
        &first_messages,
        &autobot(),
        &summariser,
        &mut Tracker::default(),
    );
    assert_eq!(
        (second.decision.boundary, second.decision.summary.as_str()),
        (1, "MODEL SUMMARY")
    );
    // The default carries the verbatim turns of an earlier summary forward.
    let carry = CompactionConfig {
        skip_unless_smaller: false,
        ..CompactionConfig::default()
    };
    let second = compact_chat(
        &first_messages,
        &carry,
        &summariser,
        &mut Tracker::default(),
    );
    assert_eq!(
        second.decision.summary,
        "MODEL SUMMARY\n\n### User messages (verbatim)\n- never touch the prod database"
    );
}

#[test]
fn a_tool_result_of_exactly_the_clip_size_is_neither_clipped_nor_copied() {
    let at_limit = json!({"role": "tool", "content": "é".repeat(400)});
    let over = json!({"role": "tool", "content": "é".repeat(401)});
    let input = vec![at_limit.clone(), over];
    let clipped = clip_chat(&input, ClipKey::Read);
    assert_eq!(clipped[0], (at_limit, false));
    assert_eq!(
        clipped[1].0["content"],
        json!(format!("{}\u{2026} [clipped]", "é".repeat(400)))
    );
}

#[test]
fn example_7_clipping_writes_where_the_summariser_reads() {
    let long_tool = json!({"role": "tool", "content": "x".repeat(900)});
    let list_tool =
        json!({"role": "tool", "content": [{"type": "image"}], "text": "w".repeat(900)});
    let text_list_tool =
        json!({"role": "tool", "content": [{"type": "text", "text": "v".repeat(900)}]});
    let user = json!({"role": "user", "content": "y".repeat(900)});
    let input = vec![long_tool, list_tool, text_list_tool.clone(), user.clone()];
    let clipped = clip_chat(&input, ClipKey::Read);
    let expected = format!("{}\u{2026} [clipped]", "x".repeat(400));
    assert_eq!(clipped[0].0["content"], json!(expected));
    assert_eq!(
        clipped[0].0["content"].as_str().unwrap().chars().count(),
        411
    );
    assert_eq!(
        clipped[1].0["text"],
        json!(format!("{}\u{2026} [clipped]", "w".repeat(400)))
    );
    assert_eq!(clipped[1].0["content"], json!([{"type": "image"}]));
    assert_eq!(
        clipped[2].0["content"],
        json!(format!("{}\u{2026} [clipped]", "v".repeat(400)))
    );
    assert_eq!(
        clipped[3],
        (user, false),
        "user text is never clipped (nor copied)"
    );
    // The old key wrote list content's clip to `text`, which nobody reads.
    let legacy = clip_chat(&input, ClipKey::Legacy);
    assert_eq!(legacy[2].0["content"], text_list_tool["content"]);
    assert_eq!(legacy[2].0["text"].as_str().unwrap().chars().count(), 411);
    // String content was clipped in place under the old key too: only list content was lost.
    assert_eq!(legacy[0].0["content"], json!(expected));
    assert!(legacy[0].0.get("text").is_none(), "{}", legacy[0].0);
}

#[test]
fn example_8_state_from_malformed_and_mixed_calls() {
    let message = json!({"role": "assistant", "tool_calls": [
        {"function": {"name": "Write_File_v2", "arguments": {"file_path": "a.py"}}},
        {"name": "bash", "args": {"command": "ls"}},
        {"function": {"name": "bash", "arguments": "{bad"}},
        "not a call"
    ]});
    let state = chat_state(&[
        message,
        json!("not a dict"),
        json!({"role": "assistant", "tool_calls": "nope"}),
    ]);
    assert_eq!(state.files_written, vec!["a.py"]);
    assert_eq!(state.commands, vec!["ls"]);
    assert_eq!(state.tools_used, vec!["Write_File_v2", "bash"]);
}

/// AutoBot's `_call_name_and_args` reads `function` only when it is a dict: a call whose
/// `function` is anything else is read flat, its own `name` and `args`.
#[test]
fn a_call_whose_function_is_not_an_object_is_read_flat() {
    let message = json!({"role": "assistant", "tool_calls": [
        {"function": "bash", "name": "shell_exec", "args": {"command": "pwd"}}
    ]});
    let state = chat_state(&[message]);
    assert_eq!(state.tools_used, vec!["shell_exec"]);
    assert_eq!(state.commands, vec!["pwd"]);
}

#[test]
fn a_falsy_path_falls_through_to_file_path_and_a_truthy_non_string_does_not() {
    let write = |args: Value| json!({"function": {"name": "write_file", "arguments": args}});
    let message = json!({"role": "assistant", "tool_calls": [
        write(json!({"path": 0, "file_path": "zero.py"})),
        write(json!({"path": "", "file_path": "empty.py"})),
        write(json!({"path": [], "file_path": "list.py"})),
        write(json!({"path": {}, "file_path": "map.py"})),
        write(json!({"path": false, "file_path": "false.py"})),
        write(json!({"path": null, "file_path": "null.py"})),
        write(json!({"path": 5, "file_path": "never.py"})),
        write(json!({"path": ["x"], "file_path": "never.py"})),
        write(json!({"path": {"k": 1}, "file_path": "never.py"})),
        write(json!({"path": true, "file_path": "never.py"})),
    ]});
    let state = chat_state(&[message]);
    assert_eq!(
        state.files_written,
        vec![
            "zero.py", "empty.py", "list.py", "map.py", "false.py", "null.py"
        ]
    );
}

#[test]
fn example_9_only_the_last_ten_commands_are_rendered() {
    let calls: Vec<Value> = (0..12)
        .map(|i| json!({"function": {"name": "bash", "arguments": {"command": format!("c{i}")}}}))
        .collect();
    let state = chat_state(&[json!({"role": "assistant", "tool_calls": calls})]);
    assert_eq!(
        render(&state, 10),
        "### Retained state (extracted, not inferred)\n**Commands run:** c2; c3; c4; c5; c6; c7; c8; c9; c10; c11\n**Tools used:** bash"
    );
    assert_eq!(
        render(&state, 0).matches("; ").count(),
        11,
        "a cap of 0 renders every command"
    );
}

#[test]
fn example_10_a_failure_surfaces_leaves_the_tracker_and_backs_off() {
    let example_5 = example_5();
    let mut tracker = Tracker::with_total(920);
    let turn = Turn {
        usage: None,
        context_limit: 1000,
        mode: Mode::Auto,
        now: 1_000,
    };
    let failing = Scripted::Error("provider 429".into());
    let first = check_and_protect(
        &example_5,
        &Compactor {
            family: Family::Chat,
            config: &autobot(),
            summariser: &failing,
            faults: Faults::default(),
        },
        &mut tracker,
        turn,
    );
    assert!(first.warning_triggered && !first.summary_created);
    assert_eq!(first.summary_text, "");
    assert!(
        first.summary_error.contains("provider 429"),
        "{}",
        first.summary_error
    );
    assert!(tracker.calls.is_empty(), "no reset after a failure");
    let again = check_and_protect(
        &example_5,
        &Compactor {
            family: Family::Chat,
            config: &autobot(),
            summariser: &Scripted::Fixed("S".into()),
            faults: Faults::default(),
        },
        &mut tracker,
        Turn { now: 1_299, ..turn },
    );
    assert_eq!(again.summary_error, BACKING_OFF);
    assert!(
        again.compaction.is_none(),
        "the summariser is not called while backing off"
    );
    let later = check_and_protect(
        &example_5,
        &Compactor {
            family: Family::Chat,
            config: &autobot(),
            summariser: &Scripted::Fixed("S".into()),
            faults: Faults::default(),
        },
        &mut tracker,
        Turn { now: 1_300, ..turn },
    );
    assert!(later.summary_created && later.summary_error.is_empty());
}

#[test]
fn an_empty_summary_is_a_failure_and_leaves_the_tracker_alone() {
    let example_5 = example_5();
    let mut tracker = Tracker::with_total(5);
    let result = compact_chat(
        &example_5,
        &autobot(),
        &Scripted::Fixed("  \n".into()),
        &mut tracker,
    );
    assert_eq!(
        result.decision.outcome,
        Outcome::Failed {
            error: "LLM returned empty summary".into()
        }
    );
    assert_eq!(
        (result.decision.boundary, tracker),
        (0, Tracker::with_total(5))
    );
}

#[test]
fn composition_after_the_reset_resets_without_delivering_when_composition_fails() {
    let example_5 = example_5();
    let faults = Faults {
        compose_fails: true,
    };
    let after = CompactionConfig::named("compose-after-reset").unwrap();
    let mut tracker = Tracker::default();
    let result = compact(
        &example_5,
        &Compactor {
            family: Family::Chat,
            config: &after,
            summariser: &Scripted::Digest,
            faults,
        },
        &mut tracker,
    );
    assert!(matches!(result.decision.outcome, Outcome::Failed { .. }));
    assert_eq!(
        tracker.calls.first(),
        Some(&TrackerCall::Reset),
        "the defect: reset, then nothing delivered"
    );
    let mut tracker = Tracker::default();
    compact(
        &example_5,
        &Compactor {
            family: Family::Chat,
            config: &CompactionConfig::default(),
            summariser: &Scripted::Digest,
            faults,
        },
        &mut tracker,
    );
    assert!(
        tracker.calls.is_empty(),
        "composing first leaves the tracker alone"
    );
}

#[test]
fn a_summary_larger_than_its_region_is_skipped_by_default() {
    let example_5 = example_5();
    let mut tracker = Tracker::default();
    let result = compact_chat(
        &example_5,
        &CompactionConfig::default(),
        &Scripted::Digest,
        &mut tracker,
    );
    assert!(
        matches!(result.decision.outcome, Outcome::NotSmaller { .. }),
        "{:?}",
        result.decision.outcome
    );
    assert_eq!(
        (
            result.decision.boundary,
            result.messages().cloned().collect::<Vec<_>>()
        ),
        (0, example_5.clone())
    );
    assert!(tracker.calls.is_empty());
}

/// Reference V28's shape: a message between a call and its result is a legal autobot cut.
fn mid_cycle_pi() -> Vec<Message> {
    chat(json!([
        {"role": "user", "content": "one", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}], "stopReason": "stop", "timestamp": 2},
        {"role": "user", "content": "two", "timestamp": 3},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "X", "name": "read", "arguments": {}}], "stopReason": "toolUse", "timestamp": 4},
        {"role": "custom", "customType": "note", "content": "between", "display": false, "timestamp": 5},
        {"role": "toolResult", "toolCallId": "X", "toolName": "read", "content": [{"type": "text", "text": "r"}], "isError": false, "timestamp": 6},
        {"role": "assistant", "content": [{"type": "text", "text": "b"}], "stopReason": "stop", "timestamp": 7},
        {"role": "assistant", "content": [{"type": "text", "text": "c"}], "stopReason": "stop", "timestamp": 8},
        {"role": "assistant", "content": [{"type": "text", "text": "d"}], "stopReason": "stop", "timestamp": 9},
        {"role": "assistant", "content": [{"type": "text", "text": "e"}], "stopReason": "stop", "timestamp": 10}
    ]))
}

#[test]
fn autobot_cuts_inside_a_call_cycle_and_cycle_safe_does_not() {
    let history = mid_cycle_pi();
    assert_eq!(Family::detect(&history), Family::Pi);
    let autobot = CompactionConfig {
        window: 0,
        ..autobot()
    };
    assert_eq!(
        pick(&history, Family::Pi, &autobot),
        4,
        "the custom message between call and result"
    );
    let safe = CompactionConfig {
        window: 0,
        ..CompactionConfig::default()
    };
    assert_eq!(
        pick(&history, Family::Pi, &safe),
        3,
        "the assistant that makes the call"
    );
}

#[test]
fn cycle_safe_pairs_a_result_with_the_latest_call_of_its_id_across_any_assistant() {
    // The middle assistant has no content: pi never sends it, so on the wire the result answers
    // the call two messages up, although by the sweep's pairing it is an orphan.
    let history = chat(json!([
        {"role": "assistant", "content": [{"type": "toolCall", "id": "t1", "name": "read"}]},
        {"role": "assistant"},
        {"role": "toolResult", "toolCallId": "t1"},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
    ]));
    let window_0 = |config: CompactionConfig| CompactionConfig {
        window: 0,
        ..config
    };
    assert_eq!(pick(&history, Family::Pi, &window_0(autobot())), 1);
    assert_eq!(
        pick(&history, Family::Pi, &window_0(CompactionConfig::default())),
        0
    );
}
