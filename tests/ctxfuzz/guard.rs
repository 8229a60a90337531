//! The turn-end guard model against the reference's traces, seed 004's measured orders, and pi's
//! run-loop rules (retry limit, overflow once, queue modes, ESC, print mode, load order).

use ctxfuzz::guard::{self, GuardWiring, Schedule};
use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::invariants::{Cause, Judgement, guard::judge};
use serde_json::{Value, json};

fn schedule(value: Value) -> Schedule {
    Schedule::from_value(&value).expect("a valid schedule")
}

fn events(variant: GuardWiring, value: Value) -> Vec<Value> {
    let trace = guard::run(variant, &schedule(value)).to_value();
    trace.as_array().expect("a trace is an array").clone()
}

fn count(events: &[Value], name: &str) -> usize {
    events.iter().filter(|e| e["event"] == name).count()
}

fn delivered(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["event"] == "llm_request")
        .map(|e| e["delivered"].clone())
        .collect()
}

fn order(variant: GuardWiring, value: Value) -> String {
    guard::run(variant, &schedule(value)).probe_order()
}

/// (invariant, charged to the guard) for every violation.
fn verdict(variant: GuardWiring, value: Value) -> Vec<(String, bool)> {
    match judge(guard::run(variant, &schedule(value)).to_value()) {
        Judgement::Fail(violations) => violations
            .into_iter()
            .map(|v| (v.invariant.to_string(), v.cause == Cause::SystemUnderTest))
            .collect(),
        _ => Vec::new(),
    }
}

fn charged(variant: GuardWiring, value: Value) -> Vec<String> {
    let mut ids: Vec<String> = verdict(variant, value)
        .into_iter()
        .filter(|(_, charged)| *charged)
        .map(|(id, _)| id)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[test]
fn seed_004_measured_orders_are_reproduced() {
    let measured = json!({"unhealthy": true, "settings": {"print_mode": true}});
    assert_eq!(
        order(GuardWiring::EndRelease, measured.clone()),
        "LLM_REQUEST GUARD AGENT_END LLM_REQUEST AGENT_END SETTLED"
    );
    assert_eq!(
        order(GuardWiring::Settled, measured),
        "LLM_REQUEST AGENT_END GUARD SETTLED SETTLED"
    );
}

#[test]
fn a_finding_on_the_fix_is_compared_with_the_original_and_any_other_with_the_fix() {
    use ctxfuzz::guard::compare::counterpart;
    assert_eq!(counterpart(GuardWiring::EndRelease), GuardWiring::Settled);
    assert_eq!(counterpart(GuardWiring::Settled), GuardWiring::EndRelease);
    assert_eq!(
        counterpart(GuardWiring::EndNoRelease),
        GuardWiring::EndRelease
    );
}

#[test]
fn the_side_by_side_diff_shows_both_whole_traces() {
    use ctxfuzz::guard::compare::side_by_side;
    let unhealthy = schedule(json!({"unhealthy": true}));
    let shown = side_by_side(&unhealthy, GuardWiring::Settled, GuardWiring::EndRelease);
    for (variant, sign) in [(GuardWiring::Settled, '-'), (GuardWiring::EndRelease, '+')] {
        for line in guard::run(variant, &unhealthy).text().lines() {
            assert!(
                shown.contains(&format!("\n {line}\n"))
                    || shown.contains(&format!("\n{sign}{line}\n")),
                "{variant:?} line {line:?} is missing from\n{shown}"
            );
        }
    }
}

#[test]
fn trace_1_healthy_runs_the_predicate_once_and_settles_once() {
    let trace = events(GuardWiring::EndRelease, json!({}));
    assert_eq!(count(&trace, "llm_request"), 1);
    assert_eq!(count(&trace, "agent_settled"), 1);
    assert_eq!(verdict(GuardWiring::EndRelease, json!({})), vec![]);
    assert_eq!(
        order(GuardWiring::EndRelease, json!({})),
        "LLM_REQUEST GUARD AGENT_END SETTLED"
    );
}

#[test]
fn trace_2_the_fix_blocks_before_the_idle_signal() {
    let trace = events(GuardWiring::EndRelease, json!({"unhealthy": true}));
    assert_eq!(delivered(&trace), vec![json!(["user"]), json!(["guard"])]);
    assert_eq!(count(&trace, "agent_end"), 2);
    assert_eq!(count(&trace, "agent_settled"), 1);
    let decisions: Vec<&Value> = trace
        .iter()
        .filter(|e| e["event"] == "post_run")
        .map(|e| &e["decision"])
        .collect();
    assert_eq!(decisions, vec!["queued", "stop"]);
}

#[test]
fn trace_3_the_original_wiring_gives_two_idle_signals_and_a_blind_turn_end() {
    let unhealthy = json!({"unhealthy": true});
    let found = charged(GuardWiring::Settled, unhealthy.clone());
    assert!(
        found.contains(&"one-idle-signal-per-prompt".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"no-blind-turn-end".to_string()),
        "{found:?}"
    );
    let trace = events(GuardWiring::Settled, unhealthy);
    let runs: Vec<&Value> = trace
        .iter()
        .filter(|e| e["event"] == "run_start")
        .map(|e| &e["trigger"])
        .collect();
    assert_eq!(runs, vec!["user", "guard"]);
}

#[test]
fn trace_4_a_follow_up_spent_at_a_retry_boundary_lands_when_the_retried_run_would_stop() {
    let retry_first = json!({"unhealthy": true, "responses": [{"kind": "transient-error"}]});
    let trace = events(GuardWiring::EndRelease, retry_first.clone());
    assert_eq!(count(&trace, "auto_retry_start"), 1);
    assert_eq!(
        delivered(&trace),
        vec![json!(["user"]), json!([]), json!(["guard"])]
    );
    assert_eq!(count(&trace, "agent_settled"), 1);
    assert_eq!(verdict(GuardWiring::EndRelease, retry_first), vec![]);
}

#[test]
fn trace_5_only_the_settle_release_keeps_the_next_run_guarded() {
    let discarded = json!({
        "unhealthy": true, "prompts": 2,
        "responses": [{"kind": "transient-error", "esc": "boundary"}]
    });
    assert_eq!(
        charged(GuardWiring::EndRelease, discarded.clone()),
        Vec::<String>::new()
    );
    assert_eq!(
        charged(GuardWiring::EndNoRelease, discarded.clone()),
        vec!["latch-released", "no-blind-turn-end"]
    );
    let trace = events(GuardWiring::EndRelease, discarded);
    let esc = trace
        .iter()
        .find(|e| e["event"] == "esc")
        .expect("ESC struck");
    assert_eq!(esc["moved"], json!(["guard"]));
    // Second prompt (requests 2 and 3): the predicate runs again and the recovery lands.
    assert_eq!(
        delivered(&trace),
        vec![json!(["user"]), json!(["user"]), json!(["guard"])]
    );
}

#[test]
fn trace_6_a_failed_delivery_is_unpreventable_and_the_next_run_is_guarded() {
    let failing = json!({"unhealthy": true, "prompts": 2, "delivery_failures": [1]});
    assert_eq!(
        verdict(GuardWiring::EndRelease, failing.clone()),
        vec![("no-blind-turn-end".to_string(), false)]
    );
    let trace = events(GuardWiring::EndRelease, failing);
    assert_eq!(
        delivered(&trace),
        vec![json!(["user"]), json!(["user"]), json!(["guard"])]
    );
}

#[test]
fn trace_7_third_party_follow_ups_make_the_guard_block_on_alternating_boundaries() {
    let probe: Vec<Value> = (1..=5)
        .map(|nth| json!({"by": "probe", "at": "agent_end", "nth": nth, "deliver": "followUp"}))
        .collect();
    let value = json!({"unhealthy": true, "load_order": ["guard", "probe"], "queues": probe});
    let trace = events(GuardWiring::EndRelease, value.clone());
    let guard_actions: Vec<String> = trace
        .iter()
        .filter(|e| e["event"] == "agent_end")
        .flat_map(|e| e["handlers"].as_array().unwrap().clone())
        .filter(|h| h["ext"] == "guard")
        .map(|h| h["did"]["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        guard_actions,
        vec![
            "blocked", "consumed", "blocked", "consumed", "blocked", "consumed"
        ]
    );
    assert_eq!(verdict(GuardWiring::EndRelease, value), vec![]);
}

#[test]
fn trace_8_threshold_compaction_continues_because_the_follow_up_is_queued() {
    let value = json!({"unhealthy": true, "responses": [{"kind": "stop", "over_threshold": true}]});
    let trace = events(GuardWiring::EndRelease, value);
    let compaction = trace.iter().find(|e| e["event"] == "compaction").unwrap();
    assert_eq!(compaction["reason"], "threshold");
    assert_eq!(delivered(&trace), vec![json!(["user"]), json!(["guard"])]);
    // Healthy: compaction happens, nothing is queued, the run stops.
    let healthy = events(
        GuardWiring::EndRelease,
        json!({"responses": [{"kind": "stop", "over_threshold": true}]}),
    );
    assert_eq!(count(&healthy, "compaction"), 1);
    assert_eq!(count(&healthy, "llm_request"), 1);
}

#[test]
fn auto_retry_stops_at_its_attempt_limit_and_only_when_enabled() {
    let errors = |settings: Value| json!({"responses": vec![json!({"kind": "transient-error"}); 6], "settings": settings});
    let limited = events(GuardWiring::EndRelease, errors(json!({"max_retries": 2})));
    assert_eq!(count(&limited, "auto_retry_start"), 2);
    assert_eq!(count(&limited, "llm_request"), 3);
    let ended: Vec<&Value> = limited
        .iter()
        .filter(|e| e["event"] == "auto_retry_end")
        .map(|e| &e["success"])
        .collect();
    assert_eq!(ended, vec![false]);
    let disabled = events(GuardWiring::EndRelease, errors(json!({"retry": false})));
    assert_eq!(count(&disabled, "auto_retry_start"), 0);
    assert_eq!(count(&disabled, "llm_request"), 1);
    let recovered = events(
        GuardWiring::EndRelease,
        json!({"responses": [{"kind": "transient-error"}, {"kind": "stop"}]}),
    );
    let success: Vec<&Value> = recovered
        .iter()
        .filter(|e| e["event"] == "auto_retry_end")
        .map(|e| &e["success"])
        .collect();
    assert_eq!(success, vec![true]);
}

#[test]
fn overflow_recovery_is_attempted_once_and_only_with_compaction_enabled() {
    let twice = json!({"responses": [{"kind": "overflow"}, {"kind": "overflow"}]});
    let trace = events(GuardWiring::EndRelease, twice);
    assert_eq!(count(&trace, "compaction"), 1);
    assert_eq!(count(&trace, "llm_request"), 2);
    let disabled = events(
        GuardWiring::EndRelease,
        json!({"responses": [{"kind": "overflow"}], "settings": {"compaction": false}}),
    );
    assert_eq!(count(&disabled, "compaction"), 0);
    assert_eq!(count(&disabled, "llm_request"), 1);
    // A success in between re-arms the recovery.
    let rearmed = events(
        GuardWiring::EndRelease,
        json!({"responses": [{"kind": "overflow"}, {"kind": "tool-use"}, {"kind": "overflow"}]}),
    );
    assert_eq!(count(&rearmed, "compaction"), 2);
}

#[test]
fn an_aborted_response_is_never_compacted_or_retried() {
    let trace = events(
        GuardWiring::EndRelease,
        json!({"responses": [{"kind": "aborted", "over_threshold": true}]}),
    );
    assert_eq!(count(&trace, "compaction"), 0);
    assert_eq!(count(&trace, "llm_request"), 1);
}

#[test]
fn queue_modes_drain_one_message_or_all_of_them() {
    let two_follow_ups = |mode: &str| {
        json!({
            "queues": [
                {"by": "user", "at": "turn_end", "nth": 1, "deliver": "followUp"},
                {"by": "user", "at": "turn_end", "nth": 1, "deliver": "followUp"}
            ],
            "settings": {"queue_mode": mode}
        })
    };
    let one = events(GuardWiring::EndRelease, two_follow_ups("one-at-a-time"));
    assert_eq!(
        delivered(&one),
        vec![json!(["user"]), json!(["user"]), json!(["user"])]
    );
    let all = events(GuardWiring::EndRelease, two_follow_ups("all"));
    assert_eq!(
        delivered(&all),
        vec![json!(["user"]), json!(["user", "user"])]
    );
}

#[test]
fn steering_reaches_the_model_before_follow_ups() {
    let value = json!({
        "load_order": ["guard", "ext1"],
        "responses": [{"kind": "tool-use"}],
        "queues": [
            {"by": "ext1", "at": "turn_end", "nth": 1, "deliver": "followUp"},
            {"by": "user", "at": "turn_end", "nth": 1, "deliver": "steer"}
        ]
    });
    let trace = events(GuardWiring::EndRelease, value);
    assert_eq!(
        delivered(&trace),
        vec![json!(["user"]), json!(["user"]), json!(["ext1"])]
    );
}

#[test]
fn a_continuation_delivers_queued_steering_before_follow_ups() {
    let value = json!({
        "unhealthy": true,
        "queues": [{"by": "user", "at": "agent_end", "nth": 1, "deliver": "steer"}]
    });
    let trace = events(GuardWiring::EndRelease, value);
    assert_eq!(
        delivered(&trace),
        vec![json!(["user"]), json!(["user"]), json!(["guard"])]
    );
}

#[test]
fn extensions_earlier_in_load_order_are_delivered_first() {
    let queue = json!([{"by": "probe", "at": "agent_end", "nth": 1, "deliver": "followUp"}]);
    let before = events(
        GuardWiring::EndRelease,
        json!({"unhealthy": true, "load_order": ["probe", "guard"], "queues": queue}),
    );
    assert_eq!(delivered(&before)[1], json!(["probe"]));
    let after = events(
        GuardWiring::EndRelease,
        json!({"unhealthy": true, "load_order": ["guard", "probe"], "queues": queue}),
    );
    assert_eq!(delivered(&after)[1], json!(["guard"]));
}

#[test]
fn esc_while_streaming_aborts_the_response_and_moves_the_queue_to_the_editor() {
    let value = json!({
        "responses": [{"kind": "tool-use"}, {"kind": "tool-use", "esc": "streaming"}],
        "queues": [{"by": "user", "at": "turn_end", "nth": 1, "deliver": "followUp"}]
    });
    let trace = events(GuardWiring::EndRelease, value);
    let esc = trace.iter().find(|e| e["event"] == "esc").unwrap();
    assert_eq!(esc["moved"], json!(["user"]));
    let response = trace
        .iter()
        .filter(|e| e["event"] == "response")
        .nth(1)
        .unwrap();
    assert_eq!(response["stop_reason"], "aborted");
    assert_eq!(count(&trace, "llm_request"), 2);
}

#[test]
fn an_error_or_aborted_response_ends_the_low_level_run_without_draining_the_queue() {
    for kind in ["error", "aborted", "transient-error", "overflow"] {
        let value = json!({
            "responses": [{"kind": kind}],
            "queues": [{"by": "user", "at": "turn_end", "nth": 1, "deliver": "steer"}],
            "settings": {"retry": false, "compaction": false}
        });
        let trace = events(GuardWiring::EndRelease, value);
        let turn_end = trace.iter().position(|e| e["event"] == "turn_end").unwrap();
        assert_eq!(
            trace[turn_end + 1]["event"],
            "agent_end",
            "{kind}: {trace:#?}"
        );
    }
}

#[test]
fn a_schedule_shape_names_the_mechanisms_it_exercises() {
    let shape = |value: Value| schedule(value).shape();
    assert_eq!(shape(json!({})), "plain");
    assert_eq!(shape(json!({"responses": [{"kind": "stop"}]})), "plain");
    assert_eq!(
        shape(
            json!({"prompts": 2, "responses": [{"kind": "transient-error"}, {"kind": "overflow"}]})
        ),
        "prompts+retry+overflow"
    );
    assert_eq!(
        shape(
            json!({"responses": [{"kind": "stop", "esc": "boundary", "fatal": true, "over_threshold": true}],
                     "delivery_failures": [1], "settings": {"print_mode": true},
                     "queues": [{"by": "user", "at": "turn_end", "nth": 1, "deliver": "steer"}]})
        ),
        "threshold+esc+fatal+delivery-failure+queues+print"
    );
}

#[test]
fn extensions_load_in_order_with_the_guard_exactly_once() {
    let queue = |by: &str| json!({"by": by, "at": "turn_end", "nth": 1, "deliver": "steer"});
    let listed = schedule(json!({"load_order": ["ext1", "guard", "ext2"],
                                 "queues": [queue("ext3"), queue("user"), queue("ext1")]}));
    assert_eq!(listed.extensions(), ["ext1", "guard", "ext2", "ext3"]);
    let unlisted = schedule(json!({"load_order": ["ext1"], "queues": [queue("ext2")]}));
    assert_eq!(unlisted.extensions(), ["guard", "ext1", "ext2"]);
}

#[test]
fn a_default_schedule_serialises_without_its_defaults() {
    let value = Schedule::default().to_value();
    assert!(value.get("settings").is_none(), "{value}");
    assert!(value.get("unhealthy").is_none(), "{value}");
    let changed = schedule(json!({"settings": {"retry": false}})).to_value();
    assert_eq!(changed["settings"]["retry"], false);
}

#[test]
fn a_fatal_session_error_ends_the_run_at_its_next_boundary() {
    let value = json!({"unhealthy": true, "responses": [{"kind": "stop", "fatal": true}]});
    let trace = events(GuardWiring::EndRelease, value.clone());
    assert_eq!(count(&trace, "session_error"), 1);
    assert_eq!(count(&trace, "llm_request"), 1);
    assert_eq!(count(&trace, "agent_settled"), 1);
    // The run died: charged to nobody.
    assert_eq!(
        charged(GuardWiring::EndRelease, value),
        Vec::<String>::new()
    );
}

#[test]
fn supervision_changes_are_seen_by_the_next_predicate_run() {
    let value = json!({"responses": [{"kind": "stop", "supervision": "unhealthy"}]});
    let trace = events(GuardWiring::EndRelease, value);
    assert_eq!(delivered(&trace), vec![json!(["user"]), json!(["guard"])]);
    let recovered =
        json!({"unhealthy": true, "responses": [{"kind": "stop", "supervision": "healthy"}]});
    assert_eq!(
        count(&events(GuardWiring::EndRelease, recovered), "llm_request"),
        1
    );
}

#[test]
fn print_mode_only_kills_runs_started_after_the_last_prompt() {
    let value = json!({"unhealthy": true, "prompts": 2, "settings": {"print_mode": true}});
    let trace = events(GuardWiring::Settled, value);
    assert_eq!(count(&trace, "run_failed"), 1);
    assert_eq!(count(&trace, "run_start"), 4);
    assert_eq!(count(&trace, "llm_request"), 3);
}

#[test]
fn an_extension_sending_while_idle_starts_a_prompt_of_its_own() {
    let value =
        json!({"queues": [{"by": "ext1", "at": "agent_settled", "nth": 1, "deliver": "followUp"}]});
    let trace = events(GuardWiring::EndRelease, value.clone());
    assert_eq!(count(&trace, "agent_settled"), 2);
    assert_eq!(verdict(GuardWiring::EndRelease, value), vec![]);
}

#[test]
fn a_session_that_never_settles_is_cut_at_the_request_budget() {
    let forever: Vec<Value> = (1..=200)
        .map(|nth| json!({"by": "probe", "at": "agent_end", "nth": nth, "deliver": "followUp"}))
        .collect();
    let trace = events(GuardWiring::EndRelease, json!({"queues": forever}));
    assert_eq!(
        count(&trace, "llm_request"),
        guard::run_loop::MAX_REQUESTS as usize
    );
    assert_eq!(trace.last().unwrap()["event"], "truncated");
    assert_eq!(count(&trace, "agent_settled"), 0);
}

#[test]
fn variants_parse_by_name_and_unknown_names_are_refused() {
    for &variant in GuardWiring::all() {
        assert_eq!(variant.name().parse::<GuardWiring>().unwrap(), variant);
        assert_eq!(variant.to_string(), variant.name());
    }
    assert_eq!(GuardWiring::default(), GuardWiring::EndRelease);
    let error = "agent_end".parse::<GuardWiring>().unwrap_err().to_string();
    assert!(
        error.contains("agent_end") && error.contains("end-release"),
        "{error}"
    );
}

#[test]
fn trace_lines_use_the_reference_notation() {
    let lines = guard::run(
        GuardWiring::EndRelease,
        &schedule(json!({"unhealthy": true})),
    )
    .lines();
    assert_eq!(lines[1], "run 1 ← user");
    assert!(lines.contains(
        &"  E#1 | guard: predicate→2, recovery sent as follow-up, latch=true".to_string()
    ));
    assert!(
        lines.contains(&"  E#2 | guard: latch consumed, no predicate, latch=false".to_string())
    );
    assert_eq!(
        lines.last().unwrap(),
        "S run 1 | guard: release (was false), latch=false"
    );
}

#[test]
fn esc_in_a_retry_backoff_cancels_the_retry_sequence() {
    let value = json!({"responses": [
        {"kind": "transient-error"},
        {"kind": "transient-error", "esc": "boundary"}
    ]});
    let trace = events(GuardWiring::EndRelease, value);
    assert_eq!(count(&trace, "auto_retry_start"), 1);
    let ended: Vec<&Value> = trace
        .iter()
        .filter(|e| e["event"] == "auto_retry_end")
        .map(|e| &e["success"])
        .collect();
    assert_eq!(ended, vec![false]);
    let decisions: Vec<&Value> = trace
        .iter()
        .filter(|e| e["event"] == "post_run")
        .map(|e| &e["decision"])
        .collect();
    assert_eq!(decisions, vec!["retry", "esc"]);
}

#[test]
fn shapes_name_the_mechanisms_a_schedule_exercises() {
    assert_eq!(schedule(json!({})).shape(), "plain");
    let busy = schedule(json!({
        "prompts": 2,
        "responses": [{"kind": "transient-error", "esc": "streaming"}, {"kind": "overflow", "over_threshold": true, "fatal": true}],
        "queues": [{"by": "user", "at": "turn_end", "nth": 1, "deliver": "steer"}],
        "delivery_failures": [1],
        "settings": {"print_mode": true}
    }));
    assert_eq!(
        busy.shape(),
        "prompts+retry+overflow+threshold+esc+fatal+delivery-failure+queues+print"
    );
}

/// The `arbitrary` face reaches every response kind, ESC point, hook, queue mode and failure the
/// schedules can express, from a few thousand seeded byte strings.
#[test]
fn generated_schedules_reach_every_mechanism() {
    let mut rng = fastrand::Rng::with_seed(6);
    let mut shapes = std::collections::BTreeSet::new();
    let mut kinds = std::collections::BTreeSet::new();
    let mut hooks = std::collections::BTreeSet::new();
    let mut all_mode = false;
    let mut guard_not_first = false;
    let mut bytes = vec![0u8; 512];
    for _ in 0..4000 {
        rng.fill(&mut bytes);
        let generated =
            guard::generate::schedule(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
        assert!((1..=3).contains(&generated.prompts));
        let value = generated.to_value();
        for response in value["responses"].as_array().into_iter().flatten() {
            kinds.insert(response["kind"].as_str().unwrap().to_string());
        }
        for action in value["queues"].as_array().into_iter().flatten() {
            hooks.insert(action["at"].as_str().unwrap().to_string());
        }
        all_mode |= value["settings"]["queue_mode"] == "all";
        guard_not_first |= generated.extensions()[0] != "guard";
        for feature in generated.shape().split('+') {
            shapes.insert(feature.to_string());
        }
    }
    assert_eq!(kinds.len(), 6, "{kinds:?}");
    assert_eq!(hooks.len(), 3, "{hooks:?}");
    assert_eq!(shapes.len(), 10, "{shapes:?}");
    assert!(all_mode && guard_not_first);
}

#[test]
fn every_turn_of_a_low_level_run_starts_once_before_its_request() {
    let trace = events(
        GuardWiring::EndRelease,
        json!({"responses": [{"kind": "tool-use"}, {"kind": "tool-use"}, {"kind": "stop"}]}),
    );
    let turns: Vec<&str> = trace
        .iter()
        .map(|e| e["event"].as_str().expect("every event is named"))
        .filter(|name| matches!(*name, "turn_start" | "llm_request" | "turn_end"))
        .collect();
    assert_eq!(
        turns,
        ["turn_start", "llm_request", "turn_end"].repeat(3),
        "{trace:#?}"
    );
}

#[test]
fn a_message_an_extension_sends_is_marked_idle_only_when_nothing_streams() {
    let sent = |at: &str| {
        let trace = events(
            GuardWiring::EndRelease,
            json!({"queues": [{"by": "probe", "at": at, "nth": 1, "deliver": "followUp"}]}),
        );
        let handled = trace
            .iter()
            .flat_map(|e| e["handlers"].as_array().into_iter().flatten())
            .find(|h| h["ext"] == "probe")
            .expect("the probe's handler is in the trace")
            .clone();
        handled["did"]["idle"].clone()
    };
    assert_eq!(
        sent("turn_end"),
        json!(false),
        "the agent still streams at turn_end"
    );
    assert_eq!(
        sent("agent_settled"),
        json!(true),
        "nothing streams once settled"
    );
}

#[test]
fn a_run_without_a_retry_ends_no_retry_sequence() {
    for schedule in [
        json!({}),
        json!({"responses": [{"kind": "error"}]}),
        json!({"responses": [{"kind": "transient-error"}], "settings": {"retry": false}}),
    ] {
        let trace = events(GuardWiring::EndRelease, schedule.clone());
        assert_eq!(count(&trace, "auto_retry_end"), 0, "{schedule}: {trace:#?}");
    }
}
