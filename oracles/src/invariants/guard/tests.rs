use serde_json::{Value, json};

use super::*;

fn ids(trace: Value) -> Vec<(String, bool)> {
    match judge(&trace) {
        Judgement::Fail(violations) => violations
            .into_iter()
            .map(|v| (v.invariant.to_string(), v.cause == Cause::SystemUnderTest))
            .collect(),
        Judgement::Pass => Vec::new(),
        Judgement::CannotJudge(why) => vec![(format!("cannot-judge: {why}"), false)],
    }
}

fn guard(action: &str, latch: bool) -> Value {
    json!({ "ext": "guard", "did": { "action": action, "predicate": 2 }, "latch": latch })
}

fn request(delivered: &[&str]) -> Value {
    json!({ "event": "llm_request", "delivered": delivered })
}

fn end(handlers: Vec<Value>) -> Value {
    json!({ "event": "agent_end", "handlers": handlers })
}

fn settled(run: u32, handlers: Vec<Value>) -> Value {
    json!({ "event": "agent_settled", "run": run, "handlers": handlers })
}

fn start(run: u32, trigger: &str) -> Value {
    json!({ "event": "run_start", "run": run, "trigger": trigger })
}

fn unhealthy() -> Value {
    json!({ "event": "supervision", "healthy": false })
}

/// Reference trace 2 with the fix: blocked, delivered, consumed, released.
fn fixed_trace() -> Vec<Value> {
    vec![
        unhealthy(),
        start(1, "user"),
        request(&["user"]),
        end(vec![guard("blocked", true)]),
        request(&["guard"]),
        end(vec![guard("consumed", false)]),
        settled(1, vec![guard("released", false)]),
    ]
}

#[test]
fn a_guard_acting_at_turn_end_is_judged_as_one_acting_at_agent_end() {
    let blocked_at = |hook: &str| {
        let (turn_end, agent_end) = match hook {
            "turn_end" => (vec![guard("blocked", true)], vec![]),
            _ => (vec![], vec![guard("blocked", true)]),
        };
        json!([
            unhealthy(),
            start(1, "user"),
            request(&["user"]),
            { "event": "turn_end", "handlers": turn_end },
            end(agent_end),
            settled(1, vec![]),
        ])
    };
    let at_agent_end = ids(blocked_at("agent_end"));
    assert!(!at_agent_end.is_empty(), "an undelivered block is charged");
    assert_eq!(ids(blocked_at("turn_end")), at_agent_end);
}

#[test]
fn a_violation_names_its_run_and_trigger() {
    let mut trace = fixed_trace();
    trace.remove(4);
    let Judgement::Fail(violations) = judge(Value::Array(trace)) else {
        panic!("the undelivered recovery is charged");
    };
    for v in &violations {
        let Some(GuardEvidence::Run { run, trigger, .. }) = v.evidence.of() else {
            panic!("a run's evidence: {v:?}");
        };
        assert_eq!((*run, trigger.as_str()), (Some(1), "user"), "{}", v.summary);
        assert!(v.summary.contains("run 1 "), "{}", v.summary);
    }
}

#[test]
fn the_fixed_trace_passes() {
    assert_eq!(ids(Value::Array(fixed_trace())), vec![]);
}

#[test]
fn a_trace_that_is_not_an_array_of_events_cannot_be_judged() {
    assert!(matches!(judge(json!({})), Judgement::CannotJudge(_)));
    assert!(matches!(
        judge(json!([{"run": 1}])),
        Judgement::CannotJudge(_)
    ));
    assert!(matches!(
        judge_text("[{\"event\": 3}]"),
        Judgement::CannotJudge(_)
    ));
}

#[test]
fn text_and_value_are_judged_alike() {
    let mut trace = fixed_trace();
    trace.remove(4);
    let value = Value::Array(trace);
    let expected = ids(value.clone());
    let both = [NO_BLIND_TURN_END, RECOVERY_LANDS_IN_RUN].map(|id| (id.to_string(), true));
    assert_eq!(expected, both.to_vec());
    assert_eq!(judge_text(&value.to_string()), judge(&value));
}

#[test]
fn the_original_wiring_breaks_four_promises() {
    let trace = json!([
        unhealthy(),
        start(1, "user"),
        request(&["user"]),
        end(vec![]),
        settled(1, vec![guard("blocked", true)]),
        start(2, "guard"),
        request(&["guard"]),
        end(vec![]),
        settled(2, vec![guard("consumed", false)]),
    ]);
    let found = ids(trace);
    for id in [
        ONE_IDLE_SIGNAL_PER_PROMPT,
        NO_BLIND_TURN_END,
        LATCH_RELEASED,
        RECOVERY_LANDS_IN_RUN,
    ] {
        assert!(
            found.contains(&(id.to_string(), true)),
            "{id} missing from {found:?}"
        );
    }
    assert_eq!(found.len(), 4, "{found:?}");
}

#[test]
fn a_second_prompt_starts_a_new_count_of_idle_signals() {
    let mut trace = vec![json!({ "event": "supervision", "healthy": true })];
    for run in 1..=3 {
        trace.extend([
            start(run, if run == 2 { "ext1" } else { "user" }),
            request(&["user"]),
            end(vec![]),
            settled(run, vec![]),
        ]);
    }
    assert_eq!(ids(Value::Array(trace)), vec![]);
}

#[test]
fn a_blind_settle_is_charged_unless_the_run_died_or_delivery_failed_or_esc_struck() {
    let blind = |extra: Value, handlers: Vec<Value>| {
        json!([
            unhealthy(),
            start(1, "user"),
            request(&["user"]),
            extra,
            end(handlers),
            settled(1, vec![])
        ])
    };
    let plain = ids(blind(json!({ "event": "turn_start" }), vec![]));
    assert_eq!(plain, vec![(NO_BLIND_TURN_END.to_string(), true)]);
    let died = ids(blind(
        json!({ "event": "session_error", "reason": "x" }),
        vec![],
    ));
    assert_eq!(died, vec![(NO_BLIND_TURN_END.to_string(), false)]);
    let failed = ids(blind(
        json!({ "event": "turn_start" }),
        vec![guard("delivery-failed", false)],
    ));
    assert_eq!(failed, vec![(NO_BLIND_TURN_END.to_string(), false)]);
    let esc = ids(blind(json!({ "event": "esc", "moved": [] }), vec![]));
    assert_eq!(esc, vec![]);
}

#[test]
fn a_healthy_settle_is_never_blind() {
    let trace = json!([
        start(1, "user"),
        request(&["user"]),
        end(vec![]),
        settled(1, vec![])
    ]);
    assert_eq!(ids(trace), vec![]);
}

#[test]
fn a_latch_left_set_after_settle_is_reported() {
    let mut trace = fixed_trace();
    trace[6] = settled(1, vec![]);
    trace[5] = end(vec![]);
    let found = ids(Value::Array(trace));
    assert_eq!(found, vec![(LATCH_RELEASED.to_string(), true)]);
}

#[test]
fn a_recovery_moved_to_the_editor_or_lost_with_a_dead_run_is_not_charged() {
    let queued_then = |event: Value| {
        json!([
            json!({ "event": "supervision", "healthy": true }),
            start(1, "user"),
            request(&["user"]),
            end(vec![guard("blocked", true)]),
            event,
            settled(1, vec![guard("released", false)]),
        ])
    };
    let lost = ids(queued_then(json!({ "event": "turn_start" })));
    assert_eq!(lost, vec![(RECOVERY_LANDS_IN_RUN.to_string(), true)]);
    let moved = ids(queued_then(json!({ "event": "esc", "moved": ["guard"] })));
    assert_eq!(moved, vec![]);
    let died = ids(queued_then(
        json!({ "event": "session_error", "reason": "x" }),
    ));
    assert_eq!(died, vec![(RECOVERY_LANDS_IN_RUN.to_string(), false)]);
}

#[test]
fn follow_ups_are_bounded_by_every_other_boundary() {
    let blocking_run = |ends: usize, blocks: usize| {
        let mut trace = vec![start(1, "user")];
        for end_index in 0..ends {
            let handlers = match end_index < blocks {
                true => vec![guard("blocked", false)],
                false => vec![],
            };
            trace.extend([request(&["guard"]), end(handlers)]);
        }
        trace
    };
    // Two follow-ups over three boundaries: the latch alternates (bound 2).
    let mut within = blocking_run(3, 2);
    within.push(settled(1, vec![]));
    assert_eq!(ids(Value::Array(within)), vec![]);
    let mut beyond = blocking_run(2, 2);
    beyond.push(settled(1, vec![]));
    assert!(ids(Value::Array(beyond)).contains(&(BOUNDED_FOLLOW_UPS.to_string(), true)));
    // A run cut by the request budget is judged on what it did so far.
    assert_eq!(
        ids(Value::Array(blocking_run(4, 4))),
        vec![(BOUNDED_FOLLOW_UPS.to_string(), true)]
    );
    assert_eq!(ids(Value::Array(blocking_run(4, 2))), vec![]);
}
