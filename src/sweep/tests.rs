//! pi-condense's worked examples 1–12 (docs/sweep.md) and the gh-11 acceptance criteria.

use ctxfuzz_oracles::js_value;
use serde_json::{Value, json};

use super::*;

fn assistant(ids: &[&str]) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {}}))
        .collect();
    json!({"role": "assistant", "content": calls, "stopReason": "toolUse"})
}

fn result(id: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
           "content": [{"type": "text", "text": "ok"}], "isError": false})
}

fn user() -> Value {
    json!({"role": "user", "content": "go on"})
}

fn custom() -> Value {
    json!({"role": "custom", "customType": "notice", "content": "steer", "display": true})
}

/// Runs `rule` and checks the no-op identity on the way: the input itself exactly when nothing
/// was swept, and otherwise messages borrowed from it.
fn run(input: &[Value], rule: BarrierRule) -> (Vec<Value>, Vec<String>) {
    let input = &js_value::borrow_all(input)[..];
    let out = sweep(input, rule);
    match &out.messages {
        Kept::Input(kept) => {
            assert!(
                out.swept.is_empty(),
                "the input returned although {:?} swept",
                out.swept
            );
            assert!(std::ptr::eq(*kept, input), "returned a different slice");
        }
        Kept::Subset(kept) => {
            assert!(!out.swept.is_empty(), "a subset although nothing swept");
            assert!(
                kept.iter()
                    .all(|k| input.iter().any(|m| std::ptr::eq(*k, m))),
                "a kept message is not borrowed from the input"
            );
        }
    }
    (
        out.messages
            .refs()
            .into_iter()
            .map(JsValue::to_value)
            .collect(),
        out.swept,
    )
}

/// Asserts `rule` removes exactly the messages at `removed` and reports `ids`.
fn expect(input: &[Value], rule: BarrierRule, removed: &[usize], ids: &[&str]) {
    let (kept, swept) = run(input, rule);
    let expected: Vec<Value> = input
        .iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(i))
        .map(|(_, m)| m.clone())
        .collect();
    assert_eq!(kept, expected, "rule {rule}");
    assert_eq!(swept, ids, "rule {rule}");
}

fn identity(input: &[Value], rule: BarrierRule) {
    let input = &js_value::borrow_all(input)[..];
    let out = sweep(input, rule);
    assert!(
        out.messages.is_input(input),
        "rule {rule}: expected the input itself back"
    );
    assert!(out.swept.is_empty());
}

const FIXED: [BarrierRule; 2] = [BarrierRule::AllOtherRoles, BarrierRule::Strict];

#[test]
fn example_01_custom_between_call_and_result() {
    let input = [assistant(&["a"]), custom(), result("a")];
    for rule in FIXED {
        expect(&input, rule, &[2], &["a"]);
    }
    identity(&input, BarrierRule::None);
}

#[test]
fn example_02_user_between_call_and_result() {
    let input = [assistant(&["a"]), user(), result("a")];
    for rule in FIXED.into_iter().chain([BarrierRule::Allowlist]) {
        expect(&input, rule, &[2], &["a"]);
    }
    identity(&input, BarrierRule::None);
}

#[test]
fn example_03_barrier_inside_a_multi_call_turn() {
    let input = [assistant(&["a", "b"]), result("a"), custom(), result("b")];
    for rule in FIXED {
        expect(&input, rule, &[3], &["b"]);
    }
    identity(&input, BarrierRule::None);
}

#[test]
fn example_04_barrier_after_a_completed_cycle() {
    let input = [assistant(&["a"]), result("a"), custom()];
    for &rule in BarrierRule::all() {
        identity(&input, rule);
    }
}

#[test]
fn example_05_result_of_an_earlier_turn() {
    let input = [
        user(),
        assistant(&["a"]),
        result("a"),
        assistant(&["b"]),
        result("b"),
        result("a"),
    ];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[5], &["a"]);
    }
}

#[test]
fn example_06_id_reused_across_turns() {
    let input = [
        assistant(&["a"]),
        result("a"),
        assistant(&["a"]),
        result("a"),
    ];
    for &rule in BarrierRule::all() {
        identity(&input, rule);
    }
}

#[test]
fn example_07_duplicate_result() {
    let input = [assistant(&["a"]), result("a"), result("a")];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[2], &["a"]);
    }
}

#[test]
fn example_08_result_before_its_call() {
    let input = [result("x"), assistant(&["x"]), result("x")];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[0], &["x"]);
    }
}

#[test]
fn example_09_text_only_assistant_closes_the_turn() {
    let input = [assistant(&["a"]), assistant(&[]), result("a")];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[2], &["a"]);
    }
}

#[test]
fn example_10_swept_ids_in_encounter_order() {
    let input = [
        result("z"),
        assistant(&["b"]),
        result("y"),
        result("b"),
        result("a"),
    ];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[0, 2, 4], &["z", "y", "a"]);
    }
}

#[test]
fn example_11_excluded_bash_execution_is_a_barrier() {
    let excluded = json!({"role": "bashExecution", "command": "ls", "output": "",
                          "excludeFromContext": true});
    let input = [assistant(&["a"]), excluded, result("a")];
    for rule in FIXED {
        expect(&input, rule, &[2], &["a"]);
    }
    // convertToLlm drops it, so the allowlist lets the result through.
    identity(&input, BarrierRule::Allowlist);
    identity(&input, BarrierRule::None);
}

#[test]
fn example_12_empty_transcript() {
    for &rule in BarrierRule::all() {
        identity(&[], rule);
    }
}

#[test]
fn ac1_every_other_role_is_a_barrier() {
    let barriers = [
        custom(),
        user(),
        json!({"role": "branchSummary", "summary": "s", "fromId": null}),
        json!({"role": "compactionSummary", "summary": "s", "tokensBefore": 1}),
        json!({"role": "bashExecution", "command": "ls", "output": "x"}),
        json!({"role": "future-role", "content": "?"}),
        json!({"role": "system", "content": "be brief"}),
        json!({"content": "no role"}),
        json!(42),
    ];
    for barrier in barriers {
        let input = [assistant(&["a"]), barrier.clone(), result("a")];
        for rule in FIXED {
            let (kept, swept) = run(&input, rule);
            assert_eq!(swept, ["a"], "{barrier} under {rule}");
            assert_eq!(kept, input[..2], "{barrier} under {rule}");
        }
        identity(&input, BarrierRule::None);
    }
}

#[test]
fn ac1_allowlist_closes_only_on_roles_pi_maps_to_user() {
    let cases = [
        (custom(), true),
        (user(), true),
        (json!({"role": "branchSummary", "summary": "s"}), true),
        (json!({"role": "compactionSummary", "summary": "s"}), true),
        (
            json!({"role": "bashExecution", "excludeFromContext": false}),
            true,
        ),
        (
            json!({"role": "bashExecution", "excludeFromContext": 0}),
            true,
        ),
        (
            json!({"role": "bashExecution", "excludeFromContext": "yes"}),
            false,
        ),
        (json!({"role": "future-role"}), false),
        (json!({"role": "system", "content": "x"}), false),
        (json!(null), false),
    ];
    for (message, barrier) in cases {
        let input = [assistant(&["a"]), message.clone(), result("a")];
        let (_, swept) = run(&input, BarrierRule::Allowlist);
        assert_eq!(swept.len(), usize::from(barrier), "{message}");
    }
}

#[test]
fn ac2_multi_call_partial_answer() {
    let input = [assistant(&["x", "y"]), result("x"), custom(), result("y")];
    for rule in FIXED {
        expect(&input, rule, &[3], &["y"]);
    }
    // A toolResult is never a barrier: consecutive results of one turn all stay.
    let answered = [assistant(&["x", "y"]), result("y"), result("x")];
    for &rule in BarrierRule::all() {
        identity(&answered, rule);
    }
}

#[test]
fn ac3_barrier_after_a_completed_cycle_returns_the_input_itself() {
    let input = vec![assistant(&["x"]), result("x"), custom()];
    let input = js_value::borrow_all(&input);
    let out = sweep(&input, BarrierRule::default());
    let Kept::Input(kept) = out.messages else {
        panic!("nothing swept, yet the sweep returned a copy");
    };
    assert_eq!(kept.as_ptr(), input.as_ptr());
    assert_eq!(kept.len(), input.len());
    assert_eq!(
        out.swept.capacity(),
        0,
        "the no-op path allocated a swept list"
    );
}

#[test]
fn strict_error_and_aborted_assistants_open_no_calls() {
    for stop in ["error", "aborted"] {
        let mut failed = assistant(&["a"]);
        failed["stopReason"] = json!(stop);
        let input = [failed, result("a")];
        expect(&input, BarrierRule::Strict, &[1], &["a"]);
        for rule in [
            BarrierRule::None,
            BarrierRule::Allowlist,
            BarrierRule::AllOtherRoles,
        ] {
            identity(&input, rule);
        }
    }
    for stop in ["stop", "length", "toolUse", "pending", "deferred", "weird"] {
        let mut kept = assistant(&["a"]);
        kept["stopReason"] = json!(stop);
        identity(&[kept, result("a")], BarrierRule::Strict);
    }
}

#[test]
fn calls_are_open_whatever_their_order() {
    let input = [
        assistant(&["zeta", "alpha", "mid"]),
        result("mid"),
        result("zeta"),
        result("alpha"),
        result("zeta"),
    ];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[4], &["zeta"]);
    }
}

#[test]
fn an_id_repeated_inside_one_assistant_is_answered_once() {
    let input = [assistant(&["a", "a"]), result("a"), result("a")];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[2], &["a"]);
    }
}

#[test]
fn malformed_messages_never_panic_and_are_reported() {
    let input = [
        json!({"role": "assistant", "content": "text"}),
        json!({"role": "assistant", "content": null}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": 7}, "junk", {"type": "toolCall"}]}),
        json!({"role": "toolResult", "toolCallId": 7}),
        json!({"role": "toolResult"}),
        json!({"role": "toolResult", "toolCallId": {"a": 1}}),
    ];
    for &rule in BarrierRule::all() {
        expect(&input, rule, &[3, 4, 5], &["7", "null", r#"{"a":1}"#]);
    }
}

#[test]
fn the_input_is_never_mutated() {
    let input = vec![assistant(&["a"]), custom(), result("a"), result("b")];
    let before = input.clone();
    for &rule in BarrierRule::all() {
        let _ = sweep(&js_value::borrow_all(&input), rule);
    }
    assert_eq!(input, before);
}

#[test]
fn rules_parse_and_print_by_name() {
    for &rule in BarrierRule::all() {
        assert_eq!(rule.to_string().parse::<BarrierRule>().unwrap(), rule);
    }
    assert_eq!(BarrierRule::default(), BarrierRule::Strict);
    assert!("pi-condense".parse::<BarrierRule>().is_err());
}

#[test]
fn the_protocol_line_is_one_line_in_the_external_program_shape() {
    let input = [assistant(&["a"]), custom(), result("a")];
    let messages = js_value::borrow_all(&input);
    let out = sweep(&messages, BarrierRule::Strict);
    let mut line = Vec::new();
    write_protocol_line(&mut line, &out.messages, &out.swept).unwrap();
    let line = String::from_utf8(line).unwrap();
    assert!(!line.contains('\n'));
    assert!(line.starts_with(r#"{"messages":["#), "{line}");
    let parsed: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(parsed, json!({"messages": input[..2], "swept": ["a"]}));
}

#[test]
fn swept_ids_are_what_the_sweep_reports_on_values_and_on_borrowed_messages() {
    // The sweep targets check idempotence with `swept_ids` on the kept messages, which a correct
    // sweep never sweeps again: this pins that it reports what `sweep` does.
    let input = [assistant(&["a"]), result("b"), result("a"), result("a")];
    let input = js_value::borrow_all(&input);
    let refs: Vec<&JsValue> = input.iter().collect();
    for &rule in BarrierRule::all() {
        let expected = sweep(&input, rule).swept;
        assert_eq!(expected, ["b", "a"], "rule {rule}");
        assert_eq!(swept_ids(&input, rule), expected, "rule {rule}");
        assert_eq!(swept_ids(&refs, rule), expected, "rule {rule}");
    }
}
