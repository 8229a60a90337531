//! The compaction oracle on rounds tampered by hand. The default compaction's real round is judged
//! clean; each tampering is then reported under its invariant and with its own words, so a check
//! that is weakened, widened or pointed at the wrong rule turns a test red. (The fuzz tests reach
//! the oracle only through whole variants, which exercise few of its branches each.)

use ctxfuzz::compaction::{
    CompactionConfig, Compactor, Family, Faults, Scripted, Tracker, compact,
};
use ctxfuzz::harness::targets::observed_tracker_calls;
use ctxfuzz_oracles::invariants::Invariant;
use ctxfuzz_oracles::invariants::compaction::{
    BOUNDARY_VALID, CAPS, CLIP_BOUNDED, Contract, INPUT_NOT_MUTATED, KEPT_SUFFIX, NO_NEW_ORPHANS,
    RESET_DELIVERED, Round, SMALLER, STATE_RETAINED, TrackerCall, USER_TURNS, judge,
};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::{Value, json};

use crate::common::messages;

/// One compaction as the oracle sees it, owned so that a test can tamper with any part.
#[derive(Clone)]
struct Observed {
    family: Family,
    input: Vec<Value>,
    input_after: Vec<Value>,
    output: Vec<Value>,
    boundary: usize,
    picked: usize,
    summary: String,
    summariser_input: Vec<Value>,
    tracker_calls: Vec<TrackerCall>,
}

impl Observed {
    fn of(input: Vec<Value>) -> Observed {
        Observed::of_family(input, Family::Chat)
    }

    fn of_family(input: Vec<Value>, family: Family) -> Observed {
        let mut tracker = Tracker::with_total(0);
        let messages = messages(Value::from(input.clone()));
        let c = compact(
            &messages,
            &Compactor {
                family,
                config: &CompactionConfig::default(),
                summariser: &Scripted::Digest,
                faults: Faults::default(),
            },
            &mut tracker,
        );
        Observed {
            family,
            output: c.messages().map(JsValue::to_value).collect(),
            boundary: c.decision.boundary,
            picked: c.decision.picked,
            summary: c.decision.summary.clone(),
            summariser_input: c.summariser_input.iter().map(|v| v.to_value()).collect(),
            tracker_calls: observed_tracker_calls(&tracker.calls),
            input_after: input.clone(),
            input,
        }
    }

    fn round(&self) -> Round<'_, Value> {
        Round {
            input: &self.input,
            input_after: &self.input_after,
            output: &self.output,
            boundary: self.boundary,
            picked: self.picked,
            summary: &self.summary,
            summariser_input: &self.summariser_input,
            tracker_calls: &self.tracker_calls,
        }
    }

    /// Replaces the composed summary, in the summary message as well.
    fn set_summary(&mut self, summary: String) {
        let field = match self.family {
            Family::Pi => "summary",
            Family::Chat => "text",
        };
        self.output[0][field] = json!(summary);
        self.summary = summary;
    }
}

fn contract(family: Family) -> Contract {
    let name = match family {
        Family::Pi => "pi",
        Family::Chat => "chat",
    };
    Contract::from_json(
        name,
        &serde_json::to_value(CompactionConfig::default()).expect("serialisable"),
    )
}

/// `(invariant, summary)` of every violation of `rounds` (of one family), in the order reported.
fn verdict(rounds: &[&Observed]) -> Vec<(Invariant, String)> {
    let contract = contract(rounds[0].family);
    let rounds: Vec<Round<'_, Value>> = rounds.iter().map(|o| o.round()).collect();
    judge(&contract, &rounds)
        .into_iter()
        .map(|v| (v.invariant, v.summary))
        .collect()
}

/// A long enough body for the summary to be smaller than the region it replaces.
fn padded(text: &str) -> String {
    format!("{text} {}", "and some detail ".repeat(40))
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": padded(text)})
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": padded(text)})
}

/// An assistant message making one call of `tool` with `arguments`.
fn tool_call(id: &str, tool: &str, arguments: Value) -> Value {
    json!({"role": "assistant", "content": "", "tool_calls": [
        {"id": id, "function": {"name": tool, "arguments": arguments.to_string()}}]})
}

fn call(id: &str) -> Value {
    tool_call(id, "bash", json!({"command": "ls"}))
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "a.rs b.rs"})
}

/// Eight messages with a call cycle in the middle: the default compaction cuts at 4 (`user`).
fn transcript() -> Vec<Value> {
    vec![
        user("never deploy on fridays"),
        assistant("noted"),
        call("c1"),
        result("c1"),
        user("now add the endpoint"),
        call("c2"),
        result("c2"),
        assistant("added"),
    ]
}

#[test]
fn the_default_compaction_is_judged_clean() {
    let observed = Observed::of(transcript());
    assert_eq!(observed.boundary, 4, "the fixture must compact");
    assert_eq!(verdict(&[&observed]), []);
}

#[test]
fn no_cut_despite_a_valid_one_is_reported_and_so_is_a_touched_transcript() {
    let observed = Observed::of(transcript());
    let mut skipped = observed.clone();
    skipped.boundary = 0;
    skipped.picked = 0;
    skipped.summary.clear();
    skipped.summariser_input.clear();
    skipped.tracker_calls.clear();
    skipped.output = skipped.input.clone();
    assert_eq!(
        verdict(&[&skipped]),
        [(
            BOUNDARY_VALID,
            "boundary 0 although index 4 is a valid cut".into()
        )]
    );
    // The transcript changed although the tracker was not touched: reported on its own.
    skipped.output.pop();
    assert_eq!(
        verdict(&[&skipped]),
        [
            (
                BOUNDARY_VALID,
                "boundary 0 although index 4 is a valid cut".into()
            ),
            (
                BOUNDARY_VALID,
                "boundary 0 but the transcript or the tracker was touched".into()
            ),
            (
                KEPT_SUFFIX,
                "nothing was compacted but the transcript changed".into()
            ),
        ]
    );
}

#[test]
fn a_picked_boundary_is_named_by_what_is_wrong_with_it() {
    let observed = Observed::of(transcript());
    // (The other rules read the region off `picked` as well; only this rule's words matter here.)
    let picked_at = |observed: &Observed, picked: usize| {
        let mut tampered = observed.clone();
        tampered.picked = picked;
        let mut found = verdict(&[&tampered]);
        found.retain(|(invariant, _)| *invariant == BOUNDARY_VALID);
        found
    };
    assert_eq!(
        picked_at(&observed, 3),
        [(BOUNDARY_VALID, "boundary 3 is at a tool result".into())]
    );
    assert_eq!(
        picked_at(&observed, 8),
        [(BOUNDARY_VALID, "boundary 8 is past the end".into())]
    );
    // A message between a call and its result is inside the open cycle.
    let interrupted = Observed::of(vec![
        user("never deploy on fridays"),
        call("c1"),
        assistant("still running"),
        result("c1"),
        user("now add the endpoint"),
        assistant("added"),
    ]);
    assert_eq!(
        picked_at(&interrupted, 2),
        [(
            BOUNDARY_VALID,
            "boundary 2 is inside an open call cycle".into()
        )]
    );
}

#[test]
fn a_first_round_that_alters_a_user_turn_breaks_only_that_rounds_rule() {
    let observed = Observed::of(transcript());
    let mut altered = observed.clone();
    altered.summary = altered
        .summary
        .replace("- never deploy on fridays", "- deploy on fridays");
    altered.output[0]["text"] = json!(altered.summary);
    let found: Vec<Invariant> = verdict(&[&altered]).into_iter().map(|(i, _)| i).collect();
    assert_eq!(found, [USER_TURNS]);
}

fn pi_user(text: &str) -> Value {
    json!({"role": "user", "content": padded(text), "timestamp": 1})
}

fn pi_assistant(content: Value) -> Value {
    json!({"role": "assistant", "content": content, "stopReason": "stop", "timestamp": 2})
}

/// Eight pi messages: the default compaction cuts at 4 (`user`).
fn pi_transcript() -> Vec<Value> {
    let says = |text: &str| pi_assistant(json!([{"type": "text", "text": padded(text)}]));
    vec![
        pi_user("never deploy on fridays"),
        says("noted"),
        pi_user("and keep the tests green"),
        says("sure"),
        pi_user("now add the endpoint"),
        says("on it"),
        pi_user("and the docs"),
        says("added"),
    ]
}

/// pi reads a call's `name` and `arguments` from its `toolCall` block: a `function` object or an
/// `args` field in the block is not read (those are the chat family's shapes).
#[test]
fn a_pi_tool_call_is_read_from_its_block_alone() {
    for odd in [
        json!({"arguments": {"command": "make"},
               "function": {"name": "other", "arguments": {"command": "rm -rf"}}}),
        json!({"args": {"command": "rm -rf"}}),
    ] {
        let mut block = json!({"type": "toolCall", "id": "c1", "name": "bash"});
        block
            .as_object_mut()
            .unwrap()
            .extend(odd.as_object().unwrap().clone());
        let mut input = pi_transcript();
        input.splice(
            2..2,
            [
                pi_assistant(json!([block])),
                json!({"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                       "content": [{"type": "text", "text": "ok"}], "isError": false,
                       "timestamp": 3}),
            ],
        );
        let observed = Observed::of_family(input, Family::Pi);
        assert!(
            observed.summary.contains("**Tools used:** bash\n"),
            "{}",
            observed.summary
        );
        assert!(!observed.summary.contains("rm -rf"), "{}", observed.summary);
        assert_eq!(verdict(&[&observed]), [], "{odd}");
    }
}

/// pi messages have a `role` and nothing else names one: a message with only a chat `sender`
/// is no user turn. And pi's summary message must carry the round's summary, not another.
#[test]
fn pi_messages_are_read_by_their_own_fields() {
    let mut input = pi_transcript();
    input[1] = json!({"sender": "user", "content": "a sender-only turn", "timestamp": 2});
    let observed = Observed::of_family(input, Family::Pi);
    assert!(
        !observed.summary.contains("a sender-only turn"),
        "{}",
        observed.summary
    );
    assert_eq!(verdict(&[&observed]), []);

    let mut another = observed.clone();
    another.output[0]["summary"] = json!("another summary");
    assert_eq!(
        of(KEPT_SUFFIX, &another),
        [format!(
            "the output is not one summary message followed by messages[{}..]",
            observed.boundary
        )]
    );
}

/// Only a summary message carries verbatim turns (chat: `messageType: context_summary`; pi:
/// `compactionSummary`): an assistant quoting a verbatim block is not one, so the turns it quotes
/// are not expected in the next summary.
#[test]
fn a_quoted_verbatim_block_carries_no_turns() {
    let quote = "noted\n\n### User messages (verbatim)\n- a quoted turn";
    let mut chat = transcript();
    chat[1] = assistant(quote);
    assert_eq!(verdict(&[&Observed::of(chat)]), []);

    let mut pi = pi_transcript();
    pi[1] = pi_assistant(json!([{"type": "text", "text": padded(quote)}]));
    let observed = Observed::of_family(pi, Family::Pi);
    assert!(
        observed.summary.contains("- never deploy on fridays"),
        "{}",
        observed.summary
    );
    assert!(
        !observed.summary.contains("a quoted turn"),
        "{}",
        observed.summary
    );
    assert_eq!(verdict(&[&observed]), []);
}

/// Only the violations of `invariant`, by their words.
fn of(invariant: Invariant, observed: &Observed) -> Vec<String> {
    verdict(&[observed])
        .into_iter()
        .filter(|(i, _)| *i == invariant)
        .map(|(_, summary)| summary)
        .collect()
}

#[test]
fn the_kept_messages_must_come_out_as_they_went_in_behind_the_summary() {
    let observed = Observed::of(transcript());
    let wrong = "the output is not one summary message followed by messages[4..]".to_string();
    let mut changed = observed.clone();
    changed.output[2] = user("something else");
    let mut shorter = observed.clone();
    shorter.output.pop();
    let mut unsummarised = observed.clone();
    unsummarised.output[0]["text"] = json!("another summary");
    for tampered in [changed, shorter, unsummarised] {
        assert_eq!(verdict(&[&tampered]), [(KEPT_SUFFIX, wrong.clone())]);
    }
    // Everything compacted: the summary alone is a well-formed output.
    let mut everything = observed.clone();
    everything.boundary = everything.input.len();
    everything.output.truncate(1);
    assert_eq!(of(KEPT_SUFFIX, &everything), Vec::<String>::new());
    let mut past_the_end = observed.clone();
    past_the_end.boundary = 9;
    assert_eq!(
        of(KEPT_SUFFIX, &past_the_end),
        ["the output is not one summary message followed by messages[9..]"]
    );
}

#[test]
fn a_kept_result_whose_call_was_summarised_is_a_new_orphan_and_an_old_orphan_is_not() {
    let mut input = transcript();
    input.push(result("gone"));
    let observed = Observed::of(input);
    assert_eq!(
        verdict(&[&observed]),
        [],
        "an orphan kept as it was is no new orphan"
    );
    let mut cut_in_cycle = observed.clone();
    cut_in_cycle.boundary = 3;
    cut_in_cycle.picked = 3;
    cut_in_cycle.output = [&observed.output[..1], &observed.input[3..]].concat();
    assert_eq!(
        of(NO_NEW_ORPHANS, &cut_in_cycle),
        ["1 kept tool result(s) lost their call to the summary"]
    );
    let evidence: Vec<Value> = judge(&contract(Family::Chat), &[cut_in_cycle.round()])
        .into_iter()
        .filter(|v| v.invariant == NO_NEW_ORPHANS)
        .map(|v| crate::common::evidence(&v)["orphaned_input_indices"].clone())
        .collect();
    assert_eq!(evidence, [json!([3])]);
}

#[test]
fn the_summariser_reads_the_region_with_only_long_tool_results_clipped() {
    let observed = Observed::of(transcript());
    let mut changed = observed.clone();
    changed.summariser_input[1] = assistant("something else");
    assert_eq!(
        verdict(&[&changed]),
        [(
            CLIP_BOUNDED,
            "message 1 is not a tool result but was changed".into()
        )]
    );
    let mut unclipped = observed.clone();
    unclipped.summariser_input[3]["content"] = json!("x".repeat(500));
    let mut long = observed.clone();
    long.input[3]["content"] = json!("x".repeat(500));
    long.input_after = long.input.clone();
    assert_eq!(
        of(CLIP_BOUNDED, &unclipped),
        ["the summariser reads 500 chars of tool result 3 (limit 411)"]
    );
    assert_eq!(
        of(CLIP_BOUNDED, &long),
        ["the summariser reads 9 chars of tool result 3 (limit 411)"]
    );
    let mut fewer = observed.clone();
    fewer.summariser_input.pop();
    assert_eq!(
        verdict(&[&fewer]),
        [(
            CLIP_BOUNDED,
            "the summariser received 3 messages for a region of 4".into()
        )]
    );
}

#[test]
fn a_summary_no_smaller_than_its_region_is_reported() {
    let mut observed = Observed::of(transcript());
    let longer = format!("{}\n\n{}", "padding ".repeat(400), observed.summary);
    observed.set_summary(longer);
    let found = of(SMALLER, &observed);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(verdict(&[&observed]).len(), 1);
    // At the bound: a summary of as many tokens as the region is not smaller; one fewer is.
    let region: u64 = found[0]
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("the region's tokens");
    for (tokens, reported) in [(region, true), (region - 1, false)] {
        let mut sized = observed.clone();
        sized.set_summary("x".repeat(4 * tokens as usize));
        assert_eq!(
            !of(SMALLER, &sized).is_empty(),
            reported,
            "{tokens} of {region}"
        );
    }
}

#[test]
fn more_verbatim_turns_than_the_cap_are_reported() {
    let observed = Observed::of(transcript());
    let with_earlier = |count: usize| {
        let extra: String = (0..count).map(|i| format!("- {i}\n")).collect();
        let heading = "### User messages (verbatim)\n";
        let mut tampered = observed.clone();
        tampered.set_summary(
            observed
                .summary
                .replace(heading, &format!("{heading}{extra}")),
        );
        verdict(&[&tampered])
    };
    assert_eq!(with_earlier(39), []);
    assert_eq!(
        with_earlier(40),
        [(CAPS, "41 verbatim turns rendered, cap 40".into())]
    );
}

/// The written file is `path` when it is truthy (Python's `or`: not `""`, `0`, `[]` or `{}`),
/// else `file_path`; only a string names a file.
#[test]
fn the_state_block_must_name_the_files_written_in_the_region() {
    let paths = [
        json!({"path": 0, "file_path": "lib.rs"}),
        json!({"path": ""}),
        json!({"path": "src/api.rs"}),
        json!({"path": 5, "file_path": "x.rs"}),
        json!({"path": [], "file_path": "a.md"}),
        json!({"path": {}, "file_path": "b.md"}),
        // Last, so that a file dropped before it leaves no prefix of the line to match.
        json!({"path": "z.rs"}),
    ];
    // One assistant writing them all, then the results; the cut is near the middle message, so
    // four more turns at the end keep it after them.
    let calls: Vec<Value> = paths
        .iter()
        .enumerate()
        .map(|(i, args)| {
            json!({"id": format!("w{i}"),
                   "function": {"name": "write_file", "arguments": args.to_string()}})
        })
        .collect();
    let mut input = transcript();
    let results = (0..paths.len()).map(|i| result(&format!("w{i}")));
    input.splice(
        2..2,
        std::iter::once(json!({"role": "assistant", "content": "", "tool_calls": calls}))
            .chain(results),
    );
    for turn in [
        "and the docs",
        "and the changelog",
        "and a test",
        "and ship it",
    ] {
        input.extend([user(turn), assistant("done")]);
    }
    let observed = Observed::of(input);
    assert_eq!(verdict(&[&observed]), []);
    assert_eq!(
        without_line(
            &observed,
            "**Files written:** lib.rs, src/api.rs, a.md, b.md, z.rs\n"
        ),
        [(
            STATE_RETAINED,
            "the summary lacks the extracted state: Files written".into()
        )]
    );
}

/// The verdict on `observed` with `line` (which its summary must hold) taken out of the summary.
fn without_line(observed: &Observed, line: &str) -> Vec<(Invariant, String)> {
    assert!(observed.summary.contains(line), "{}", observed.summary);
    let mut tampered = observed.clone();
    tampered.set_summary(observed.summary.replace(line, ""));
    verdict(&[&tampered])
}

#[test]
fn the_state_block_must_name_the_commands_and_tools_of_the_region() {
    let observed = Observed::of(transcript());
    for (line, missing) in [
        ("**Commands run:** ls\n", "Commands run"),
        ("**Tools used:** bash\n", "Tools used"),
    ] {
        assert_eq!(
            without_line(&observed, line),
            [(
                STATE_RETAINED,
                format!("the summary lacks the extracted state: {missing}")
            )]
        );
    }
}

#[test]
fn a_changed_input_is_reported() {
    let mut observed = Observed::of(transcript());
    observed.input_after[0] = user("rewritten");
    assert_eq!(
        verdict(&[&observed]),
        [(
            INPUT_NOT_MUTATED,
            "the compaction modified the caller's transcript".into()
        )]
    );
}

#[test]
fn the_tracker_is_reset_once_with_a_delivered_summary_then_refilled_per_kept_message() {
    let observed = Observed::of(transcript());
    assert_eq!(observed.tracker_calls[0], TrackerCall::Reset);
    let mut twice = observed.clone();
    twice.tracker_calls.push(TrackerCall::Reset);
    assert_eq!(
        verdict(&[&twice]),
        [(
            RESET_DELIVERED,
            "the tracker was reset 2 time(s) without a delivered summary".into()
        )]
    );
    let mut short = observed.clone();
    short.tracker_calls.pop();
    assert_eq!(
        verdict(&[&short]),
        [(RESET_DELIVERED, "refilled 3 message(s) for 4 kept".into())]
    );
    // Delivered means a cut AND a summary: a reset with either missing is reported.
    let once = "the tracker was reset 1 time(s) without a delivered summary".to_string();
    let mut no_cut = observed.clone();
    no_cut.boundary = 0;
    let mut no_summary = observed.clone();
    no_summary.set_summary(String::new());
    for undelivered in [no_cut, no_summary] {
        assert_eq!(
            of(RESET_DELIVERED, &undelivered),
            std::slice::from_ref(&once)
        );
    }
}

#[test]
fn rendering_every_command_past_the_cap_is_a_caps_violation() {
    let bash = |id: &str, command: &str| tool_call(id, "bash", json!({"command": command}));
    let mut input = vec![user("run everything")];
    for i in 0..11 {
        input.push(bash(&format!("c{i}"), &format!("step{i}")));
        input.push(
            json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": padded("ok")}),
        );
    }
    input.push(user("now summarise"));
    input.extend((0..23).map(|i| assistant(&format!("reply {i}"))));
    let observed = Observed::of(input);
    let all: Vec<String> = (0..11).map(|i| format!("step{i}")).collect();
    let last_ten = format!("**Commands run:** {}", all[1..].join("; "));
    assert!(observed.summary.contains(&last_ten), "{}", observed.summary);
    assert_eq!(verdict(&[&observed]), []);
    let mut every = observed.clone();
    every.set_summary(
        observed
            .summary
            .replace(&last_ten, &format!("**Commands run:** {}", all.join("; "))),
    );
    assert_eq!(
        verdict(&[&every]),
        [(CAPS, "all 11 commands rendered, cap 10".into())]
    );
    assert_eq!(
        without_line(&observed, &format!("{last_ten}\n")),
        [(
            STATE_RETAINED,
            "the summary lacks the extracted state: Commands run".into()
        )]
    );
}
