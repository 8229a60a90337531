use serde_json::{Value, json};

use super::*;
use crate::invariants::evidence;
use crate::js_value::{JsValue, borrow_all};

/// The round cut at 3: the summariser read the region whole, the tracker was left alone.
fn cut_at_3<'a, M>(input: &'a [M], output: &'a [M], summary: &'a str) -> Round<'a, M> {
    Round {
        input,
        input_after: input,
        output,
        boundary: 3,
        picked: 3,
        summary,
        summariser_input: &input[..3],
        tracker_calls: &[],
    }
}

/// A cut at a tool result, inside the call cycle whose arguments name the state (one as a JSON
/// string, one as an object whose falsy `path` falls through to `file_path`), behind a summary
/// without that state: the oracle says the same of the messages read either way.
#[test]
fn a_round_read_as_js_values_is_judged_as_read_as_values() {
    let input = [
        json!({"role": "user", "content": "please write the notes and list the directory"}),
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "write_file",
                "arguments": "{\"path\": \"\", \"file_path\": \"notes.md\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "edit_file",
                "arguments": {"path": {}, "file_path": "todo.md"}}},
            {"id": "c3", "type": "function", "function": {"name": "bash",
                "arguments": {"command": "ls -la"}}},
        ]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "ok"}),
        json!({"role": "tool", "tool_call_id": "c2", "content": "ok"}),
        json!({"role": "tool", "tool_call_id": "c3", "content": "notes.md todo.md"}),
        json!({"role": "user", "content": "thanks"}),
        json!({"role": "assistant", "content": "done"}),
    ];
    let summary = "### User messages (verbatim)\n- please write the notes and list the directory";
    let output: Vec<Value> =
        [json!({"sender": "system", "messageType": "context_summary", "text": summary})]
            .into_iter()
            .chain(input[3..].iter().cloned())
            .collect();
    let contract = Contract::from_json("chat", &json!({}));
    let as_values = judge(&contract, &[cut_at_3(&input, &output, summary)]);
    let (input, output) = (borrow_all(&input), borrow_all(&output));
    let as_js_values = judge::<JsValue, _>(&contract, &[cut_at_3(&input, &output, summary)]);

    let ids: Vec<&str> = as_values.iter().map(|v| v.invariant.id).collect();
    assert_eq!(
        ids,
        [
            BOUNDARY_VALID.id,
            NO_NEW_ORPHANS.id,
            SMALLER.id,
            STATE_RETAINED.id
        ]
    );
    assert_eq!(
        evidence::json(&as_values[3])["files_written"],
        json!(["notes.md", "todo.md"])
    );
    assert_eq!(evidence::json(&as_values[3])["commands"], json!(["ls -la"]));
    assert_eq!(as_js_values, as_values);
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn reply(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

/// An assistant calling `read` once per id.
fn calls(ids: &[&str]) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "type": "function", "function": {"name": "read", "arguments": "{}"}}))
        .collect();
    json!({"role": "assistant", "content": "", "tool_calls": calls})
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "ok"})
}

fn summary_message(text: &str) -> Value {
    json!({"sender": "system", "messageType": "context_summary", "text": text})
}

/// A round that compacted nothing, the boundary policy having picked `picked`.
fn untouched(input: &[Value], picked: usize) -> Round<'_, Value> {
    Round {
        input,
        input_after: input,
        output: input,
        boundary: 0,
        picked,
        summary: "",
        summariser_input: &[],
        tracker_calls: &[],
    }
}

/// A round that cut at `boundary` behind `summary`, with the tracker calls it made.
fn compacted<'a>(
    input: &'a [Value],
    output: &'a [Value],
    boundary: usize,
    summary: &'a str,
    tracker_calls: &'a [TrackerCall],
) -> Round<'a, Value> {
    Round {
        input,
        input_after: input,
        output,
        boundary,
        picked: boundary,
        summary,
        summariser_input: &[],
        tracker_calls,
    }
}

/// The output of a cut at `boundary`: the summary message, then the kept messages.
fn cut(input: &[Value], boundary: usize, summary: &str) -> Vec<Value> {
    [summary_message(summary)]
        .into_iter()
        .chain(input[boundary..].iter().cloned())
        .collect()
}

fn of(violations: &[Violation], invariant: Invariant) -> Vec<&Violation> {
    violations
        .iter()
        .filter(|v| v.invariant.id == invariant.id)
        .collect()
}

fn chat() -> Contract {
    Contract::from_json("chat", &json!({}))
}

#[test]
fn a_contract_reads_the_family_the_policy_and_the_knobs_with_the_reference_s_defaults() {
    let pi = Contract::from_json(
        "pi",
        &json!({"policy": "midpoint", "user_message_cap": 3, "shell_tools": ["Bash", 7]}),
    );
    assert!(pi.pi && !pi.cycle_safe);
    assert_eq!(
        (pi.user_message_cap, pi.clip_chars, pi.state_command_cap),
        (3, 400, 10)
    );
    assert_eq!(pi.shell_tools, ["bash"]);
    assert_eq!(pi.file_write_tools.len(), 5);
    let chat = Contract::from_json("chat", &json!({"policy": "cycle-safe", "clip_chars": 9}));
    assert!(!chat.pi && chat.cycle_safe);
    assert_eq!(chat.clip_chars, 9);
    assert!(Contract::from_json("chat", &json!({})).cycle_safe);
}

/// Boundary 0 is charged with the latest valid cut in the first half of the transcript.
#[test]
fn a_boundary_of_0_is_charged_with_the_latest_valid_cut_of_the_first_half() {
    let input = [user("a"), reply("b"), user("c"), reply("d"), user("e")];
    let found = judge(&chat(), &[untouched(&input, 0)]);
    let charged = of(&found, BOUNDARY_VALID);
    assert_eq!(charged.len(), 1, "{found:?}");
    assert_eq!(
        charged[0].summary,
        "boundary 0 although index 2 is a valid cut"
    );
    assert_eq!(
        evidence::json(charged[0]),
        json!({"valid_cut": 2, "round": 0})
    );
    // Nothing to cut in a transcript of one message.
    assert!(judge(&chat(), &[untouched(&input[..1], 0)]).is_empty());
}

/// A picked boundary is charged at a tool result, inside an open call cycle (what lies between
/// the call and its result does not close it), and past the end; a cut before the call is valid.
#[test]
fn a_picked_boundary_is_charged_at_a_result_inside_a_cycle_and_past_the_end() {
    let input = [
        user("a"),
        calls(&["c1"]),
        user("wait"),
        result("c1"),
        user("b"),
        reply("c"),
    ];
    let summaries = |picked: usize| -> Vec<String> {
        of(
            &judge(&chat(), &[untouched(&input, picked)]),
            BOUNDARY_VALID,
        )
        .iter()
        .map(|v| v.summary.clone())
        .collect()
    };
    assert_eq!(summaries(3), ["boundary 3 is at a tool result"]);
    assert_eq!(summaries(2), ["boundary 2 is inside an open call cycle"]);
    assert_eq!(summaries(6), ["boundary 6 is past the end"]);
    assert!(summaries(1).is_empty());
    assert!(summaries(4).is_empty());
    // Without the cycle-safe policy a cut inside a cycle is not the boundary's fault.
    let midpoint = Contract::from_json("chat", &json!({"policy": "midpoint"}));
    assert!(of(&judge(&midpoint, &[untouched(&input, 2)]), BOUNDARY_VALID).is_empty());
}

/// A kept result whose call went into the summary is reported at its own index in the input,
/// not at the first kept message's.
#[test]
fn a_kept_result_cut_from_its_call_is_reported_at_its_own_index() {
    let input = [
        user("q"),
        calls(&["c1", "c2"]),
        result("c1"),
        user("mid"),
        result("c2"),
        reply("end"),
    ];
    let output = cut(&input, 3, "S");
    let found = judge(&chat(), &[compacted(&input, &output, 3, "S", &[])]);
    let orphans = of(&found, NO_NEW_ORPHANS);
    assert_eq!(orphans.len(), 1, "{found:?}");
    assert_eq!(
        evidence::json(orphans[0]),
        json!({"boundary": 3, "orphaned_input_indices": [4], "round": 0})
    );
    // A result that was an orphan already is not a new one.
    let mut input = input;
    input[1] = calls(&["c1"]);
    let output = cut(&input, 3, "S");
    let found = judge(&chat(), &[compacted(&input, &output, 3, "S", &[])]);
    assert!(of(&found, NO_NEW_ORPHANS).is_empty(), "{found:?}");
}

/// The tracker is reset once, first, and refilled with each kept message's estimate (`len / 4`).
#[test]
fn the_tracker_is_reset_once_first_and_refilled_with_each_kept_message() {
    let input = [
        user(&"a".repeat(40)),
        reply(&"b".repeat(80)),
        user(&"c".repeat(40)),
        reply(&"d".repeat(81)),
    ];
    let output = cut(&input, 2, "S");
    let judged = |calls: &[TrackerCall]| -> Vec<String> {
        of(
            &judge(&chat(), &[compacted(&input, &output, 2, "S", calls)]),
            RESET_DELIVERED,
        )
        .iter()
        .map(|v| v.summary.clone())
        .collect()
    };
    use TrackerCall::{Add, Reset};
    assert!(judged(&[Reset, Add { prompt: 10 }, Add { prompt: 20 }]).is_empty());
    assert!(judged(&[]).is_empty());
    assert_eq!(
        judged(&[Reset, Add { prompt: 10 }]),
        ["refilled 1 message(s) for 2 kept"]
    );
    assert_eq!(
        judged(&[Reset, Add { prompt: 10 }, Add { prompt: 21 }]),
        ["refilled 2 message(s) for 2 kept"]
    );
    assert_eq!(
        judged(&[Add { prompt: 10 }, Reset, Add { prompt: 20 }]),
        ["the tracker was reset 1 time(s) without a delivered summary"]
    );
    assert_eq!(
        judged(&[Reset, Reset, Add { prompt: 10 }, Add { prompt: 20 }]),
        ["the tracker was reset 2 time(s) without a delivered summary"]
    );
    // A reset in a round that compacted nothing.
    let found = judge(
        &chat(),
        &[Round {
            tracker_calls: &[Reset],
            ..untouched(&input, 2)
        }],
    );
    assert_eq!(of(&found, RESET_DELIVERED).len(), 1, "{found:?}");
}

/// Two compactions: the first cuts `user("first turn"), reply, user("second"), reply` at 2 behind
/// `first_summary`; the second cuts that output plus `user("third"), reply` at 3 behind
/// `second_summary`.
fn two_rounds(first_summary: &str, second_summary: &str) -> Vec<Violation> {
    let first_input = [
        user("first turn"),
        reply(&"x".repeat(200)),
        user("second"),
        reply(&"y".repeat(200)),
    ];
    let first_output = cut(&first_input, 2, first_summary);
    let second_input: Vec<Value> = first_output
        .iter()
        .cloned()
        .chain([user("third"), reply("z")])
        .collect();
    let second_output = cut(&second_input, 3, second_summary);
    judge(
        &chat(),
        &[
            compacted(&first_input, &first_output, 2, first_summary, &[]),
            compacted(&second_input, &second_output, 3, second_summary, &[]),
        ],
    )
}

/// A user turn summarised in the first round must still be in the second round's summary; the
/// second round's violations carry its number.
#[test]
fn a_turn_summarised_in_an_earlier_round_must_survive_the_next() {
    let first_summary = "### User messages (verbatim)\n- first turn";
    let kept = two_rounds(
        first_summary,
        "### User messages (verbatim)\n- first turn\n- second",
    );
    assert!(of(&kept, ACROSS_ROUNDS).is_empty(), "{kept:?}");
    let lost = two_rounds(first_summary, "### User messages (verbatim)\n- second");
    let across = of(&lost, ACROSS_ROUNDS);
    assert_eq!(across.len(), 1, "{lost:?}");
    assert_eq!(evidence::json(across[0])["round"], json!(1));
    assert_eq!(
        evidence::json(across[0])["expected"],
        json!("- first turn\n- second")
    );
}

/// With nothing compacted, the transcript and the tracker stay as they were.
#[test]
fn nothing_compacted_leaves_the_transcript_and_the_tracker_alone() {
    let input = [user("a")];
    let changed = [user("b")];
    let found = judge(
        &chat(),
        &[Round {
            output: &changed,
            ..untouched(&input, 0)
        }],
    );
    let summaries: Vec<&str> = found.iter().map(|v| v.summary.as_str()).collect();
    assert_eq!(
        summaries,
        [
            "boundary 0 but the transcript or the tracker was touched",
            "nothing was compacted but the transcript changed"
        ]
    );
    let found = judge(
        &chat(),
        &[Round {
            tracker_calls: &[TrackerCall::Add { prompt: 0 }],
            ..untouched(&input, 0)
        }],
    );
    assert_eq!(of(&found, BOUNDARY_VALID).len(), 1, "{found:?}");
    assert!(of(&found, KEPT_SUFFIX).is_empty(), "{found:?}");
    // An orphan the transcript already had is no new one when nothing was compacted.
    let orphaned = [user("a"), result("gone")];
    let found = judge(&chat(), &[untouched(&orphaned, 0)]);
    assert!(of(&found, NO_NEW_ORPHANS).is_empty(), "{found:?}");
}

/// The output is one message carrying the summary, then the kept messages as they were: each
/// way of breaking that is charged; a summary of the whole transcript is not.
#[test]
fn the_output_is_the_summary_then_the_kept_messages_as_they_were() {
    let input = [user("a"), reply("b"), user("c"), reply("d")];
    let kept_suffix = |output: &[Value], boundary: usize, summary: &str| -> usize {
        let round = compacted(&input, output, boundary, summary, &[]);
        of(&judge(&chat(), &[round]), KEPT_SUFFIX).len()
    };
    assert_eq!(kept_suffix(&cut(&input, 2, "S"), 2, "S"), 0);
    assert_eq!(kept_suffix(&cut(&input, 4, "S"), 4, "S"), 0);
    assert_eq!(kept_suffix(&cut(&input, 2, "S"), 2, "T"), 1);
    assert_eq!(kept_suffix(&cut(&input, 2, "S")[..2], 2, "S"), 1);
    let mut edited = cut(&input, 2, "S");
    edited[2] = reply("edited");
    assert_eq!(kept_suffix(&edited, 2, "S"), 1);
    assert_eq!(kept_suffix(&cut(&input, 4, "S"), 5, "S"), 1);
}

/// A first compaction that loses its region's latest turn breaks user-turns-preserved alone,
/// even after a round that compacted nothing: there is no earlier summary for it to lose a turn of.
#[test]
fn a_first_compaction_losing_a_turn_is_not_charged_across_rounds() {
    let first_input = [user("a")];
    let input = [user("A"), reply(&"x".repeat(200)), user("B"), reply("y")];
    let summary = "### User messages (verbatim)\n- A";
    let output = cut(&input, 3, summary);
    for rounds in [
        vec![compacted(&input, &output, 3, summary, &[])],
        vec![
            untouched(&first_input, 0),
            compacted(&input, &output, 3, summary, &[]),
        ],
    ] {
        let found = judge(&chat(), &rounds);
        assert_eq!(of(&found, USER_TURNS).len(), 1, "{found:?}");
        assert!(of(&found, ACROSS_ROUNDS).is_empty(), "{found:?}");
    }
}

/// A turn the first summary already lost is charged again when the second one lacks it: the
/// turns are counted from the first round's region, not read back from its summary.
#[test]
fn a_turn_an_earlier_summary_lost_is_counted_from_its_region() {
    let found = two_rounds(
        "a summary without its turns",
        "### User messages (verbatim)\n- second",
    );
    let across = of(&found, ACROSS_ROUNDS);
    assert_eq!(across.len(), 1, "{found:?}");
    assert_eq!(
        evidence::json(across[0])["expected"],
        json!("- first turn\n- second")
    );
}

/// A tool result the summariser reads unclipped breaks clip-bounded.
#[test]
fn a_result_the_summariser_reads_unclipped_breaks_clip_bounded() {
    let long = json!({"role": "tool", "tool_call_id": "c1", "content": "x".repeat(50)});
    let input = [user("a"), calls(&["c1"]), long, user("b"), reply("c")];
    let output = cut(&input, 3, "S");
    let contract = Contract::from_json("chat", &json!({"clip_chars": 5}));
    let found = judge(
        &contract,
        &[Round {
            summariser_input: &input[..3],
            ..compacted(&input, &output, 3, "S", &[])
        }],
    );
    let clipped = of(&found, CLIP_BOUNDED);
    assert_eq!(clipped.len(), 1, "{found:?}");
}

/// At most `user_message_cap` verbatim turns are rendered.
#[test]
fn at_most_the_cap_of_verbatim_turns_is_rendered() {
    let input = [user("a"), reply(&"x".repeat(200)), user("b"), reply("y")];
    let contract = Contract::from_json("chat", &json!({"user_message_cap": 1}));
    let caps = |summary: &str| -> Vec<String> {
        let output = cut(&input, 2, summary);
        of(
            &judge(&contract, &[compacted(&input, &output, 2, summary, &[])]),
            CAPS,
        )
        .iter()
        .map(|v| v.summary.clone())
        .collect()
    };
    assert!(caps("### User messages (verbatim)\n- a").is_empty());
    assert_eq!(
        caps("### User messages (verbatim)\n- b\n- a"),
        ["2 verbatim turns rendered, cap 1"]
    );
}

/// A summary is delivered only when the round cut somewhere and the summary says something.
#[test]
fn a_reset_needs_a_cut_and_a_summary_that_says_something() {
    use TrackerCall::{Add, Reset};
    let input = [user("a"), reply("b"), user("c"), reply("d")];
    let reset_delivered = |round: Round<'_, Value>| -> Vec<String> {
        of(&judge(&chat(), &[round]), RESET_DELIVERED)
            .iter()
            .map(|v| v.summary.clone())
            .collect()
    };
    let undelivered = ["the tracker was reset 1 time(s) without a delivered summary"];
    let output = cut(&input, 2, "");
    let calls = [Reset, Add { prompt: 0 }, Add { prompt: 0 }];
    assert_eq!(
        reset_delivered(compacted(&input, &output, 2, "", &calls)),
        undelivered
    );
    assert_eq!(
        reset_delivered(Round {
            summary: "S",
            tracker_calls: &[Reset],
            ..untouched(&input, 0)
        }),
        undelivered
    );
}

/// A pi transcript: text parts joined, `toolCall` blocks read for the state (a falsy `path`
/// falls through to `file_path`), `toolResult` messages, a `compactionSummary` carrying the
/// summary. The right summary breaks nothing; each piece it lacks is named.
#[test]
fn a_pi_round_is_read_in_pi_s_own_shapes() {
    let call = |id: &str, name: &str, arguments: Value| json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments});
    let done = |id: &str| json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": "ok"}]});
    let input = [
        json!({"role": "user", "content": [{"type": "text", "text": "write"}, {"type": "image"},
                                           {"type": "text", "text": "it"}]}),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "o".repeat(2000)},
            call("t1", "Write_File", json!({"path": "", "file_path": "a.md"})),
            call("t2", "bash", json!({"command": "ls"})),
            call("t3", "bash", json!({"command": "pwd"})),
        ]}),
        done("t1"),
        done("t2"),
        done("t3"),
        json!({"role": "user", "content": "next"}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]}),
    ];
    let state = "### Retained state (extracted, not inferred)\n**Files written:** a.md\n**Tools used:** Write_File, bash\n";
    let turns = "\n### User messages (verbatim)\n- write it";
    let judged = |contract: &Contract, summary: &str, boundary: usize| -> Vec<String> {
        let output: Vec<Value> = [json!({"role": "compactionSummary", "summary": summary})]
            .into_iter()
            .chain(input[boundary..].iter().cloned())
            .collect();
        judge(
            contract,
            &[compacted(&input, &output, boundary, summary, &[])],
        )
        .iter()
        .map(|v| v.summary.clone())
        .collect()
    };
    let pi = Contract::from_json("pi", &json!({}));
    let right = format!("{state}**Commands run:** ls; pwd\n{turns}");
    assert!(judged(&pi, &right, 5).is_empty());
    assert_eq!(
        judged(&pi, &right, 3),
        [
            "boundary 3 is at a tool result",
            "2 kept tool result(s) lost their call to the summary"
        ]
    );
    let without_files = right.replace("**Files written:** a.md\n", "");
    assert_eq!(
        judged(&pi, &without_files, 5),
        ["the summary lacks the extracted state: Files written"]
    );
    let capped = Contract::from_json("pi", &json!({"state_command_cap": 1}));
    assert_eq!(
        judged(&capped, &right, 5),
        ["all 2 commands rendered, cap 1"]
    );
    assert!(
        judged(
            &capped,
            &format!("{state}**Commands run:** pwd\n{turns}"),
            5
        )
        .is_empty()
    );
}
