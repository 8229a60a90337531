use serde_json::{Value, json};

use super::*;
use crate::invariants::{Cause, evidence};

fn a(ids: &[&str]) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}}))
        .collect();
    json!({"role": "assistant", "content": calls, "stopReason": "toolUse"})
}

fn r(id: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [], "isError": false})
}

fn c() -> Value {
    json!({"role": "custom", "customType": "x", "content": "note", "display": false})
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn only(violations: Vec<Violation>) -> Invariant {
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].cause, Cause::SystemUnderTest);
    violations[0].invariant
}

#[test]
fn only_removes_accepts_a_correct_sweep_and_a_no_op() {
    let input = [a(&["x"]), c(), r("x"), r("y")];
    assert!(only_removes(&input, &input[..2], &ids(&["x", "y"])).is_empty());
    assert!(only_removes(&input, &input, &[]).is_empty());
}

#[test]
fn only_removes_rejects_a_removed_non_result() {
    let input = [a(&["x"]), c(), r("x")];
    let out = [a(&["x"]), r("x")];
    let v = only_removes(&input, &out, &[]);
    assert_eq!(only(v.clone()), ONLY_REMOVES);
    assert_eq!(evidence::json(&v[0])["input_index"], 1);
    assert!(v[0].summary.contains("(role custom)"), "{}", v[0].summary);
    let v = only_removes(&[json!(3)], &[] as &[Value], &[]);
    assert!(v[0].summary.contains("(role none)"), "{}", v[0].summary);
}

#[test]
fn only_removes_rejects_a_changed_message() {
    let input = [a(&["x"]), r("x")];
    let mut changed = r("x");
    changed["isError"] = json!(true);
    let out = [a(&["x"]), changed];
    // The changed result reads as "removed", and then the output has a message the input lacks.
    assert_eq!(only(only_removes(&input, &out, &ids(&["x"]))), ONLY_REMOVES);
}

#[test]
fn only_removes_rejects_reordering_and_additions() {
    let input = [a(&["x", "y"]), r("x"), r("y")];
    let reordered = [a(&["x", "y"]), r("y"), r("x")];
    assert_eq!(
        only(only_removes(&input, &reordered, &ids(&["x"]))),
        ONLY_REMOVES
    );
    let added = [a(&["x", "y"]), r("x"), r("y"), r("y")];
    let v = only_removes(&input, &added, &[]);
    assert_eq!(only(v.clone()), ONLY_REMOVES);
    assert_eq!(evidence::json(&v[0])["output_index"], 3);
}

#[test]
fn only_removes_rejects_a_report_that_does_not_match_the_removal() {
    let input = [a(&["x"]), r("x"), r("y"), r("z")];
    let out = &input[..2];
    for wrong in [
        ids(&[]),
        ids(&["z", "y"]),
        ids(&["y"]),
        ids(&["y", "z", "z"]),
    ] {
        let v = only_removes(&input, out, &wrong);
        assert_eq!(only(v.clone()), ONLY_REMOVES, "{wrong:?}");
        assert_eq!(evidence::json(&v[0])["removed_ids"], json!(["y", "z"]));
    }
}

#[test]
fn noop_identity_needs_the_input_back_exactly_when_nothing_was_swept() {
    assert!(noop_identity(&[], true).is_empty());
    assert!(noop_identity(&ids(&["x"]), false).is_empty());
    assert_eq!(only(noop_identity(&[], false)), NOOP_IDENTITY);
    assert_eq!(only(noop_identity(&ids(&["x"]), true)), NOOP_IDENTITY);
}

#[test]
fn idempotent_fails_when_a_second_sweep_finds_more() {
    assert!(idempotent(&[]).is_empty());
    let v = idempotent(&ids(&["x"]));
    assert_eq!(only(v.clone()), IDEMPOTENT);
    assert_eq!(evidence::json(&v[0])["second_swept"], json!(["x"]));
}

#[test]
fn twin_states_each_rule() {
    let excluded = json!({"role": "bashExecution", "excludeFromContext": true});
    let mut failed = a(&["x"]);
    failed["stopReason"] = json!("aborted");
    let cases: [(Vec<Value>, [&[usize]; 4]); 6] = [
        // none, allowlist, all-other-roles, strict
        (vec![a(&["x"]), c(), r("x")], [&[], &[2], &[2], &[2]]),
        (
            vec![a(&["x"]), excluded.clone(), r("x")],
            [&[], &[], &[2], &[2]],
        ),
        (
            vec![a(&["x"]), json!({"role": "system"}), r("x")],
            [&[], &[], &[2], &[2]],
        ),
        (vec![failed, r("x")], [&[], &[], &[], &[1]]),
        (vec![r("x"), a(&["x", "x"]), r("x"), r("x")], [&[0, 3]; 4]),
        (vec![a(&["x"]), a(&[]), r("x"), json!(null)], [&[2]; 4]),
    ];
    for (input, expected) in cases {
        for (rule, want) in TwinRule::all().iter().copied().zip(expected) {
            assert_eq!(twin_sweep(&input, rule), want, "{rule} on {input:?}");
        }
    }
}

#[test]
fn twin_allowlist_reads_exclude_from_context_as_javascript_does() {
    for (flag, barrier) in [
        (json!(false), true),
        (json!(0), true),
        (json!(""), true),
        (json!(null), true),
        (json!(1), false),
        (json!("no"), false),
        (json!([]), false),
    ] {
        let bash = json!({"role": "bashExecution", "excludeFromContext": flag});
        let input = [a(&["x"]), bash, r("x")];
        assert_eq!(
            twin_sweep(&input, TwinRule::Allowlist).len(),
            usize::from(barrier),
            "{flag}"
        );
    }
}

#[test]
fn ac5_twin_flags_a_result_kept_after_a_barrier() {
    let input = [a(&["x"]), c(), r("x")];
    // What the sweep did before the gh-11 fix: nothing.
    let v = matches_twin(&input, &[], TwinRule::CONTRACT);
    assert_eq!(only(v.clone()), MATCHES_TWIN);
    assert_eq!(evidence::json(&v[0])["predicted"], json!(["x"]));
    assert_eq!(evidence::json(&v[0])["predicted_indices"], json!([2]));
    assert_eq!(evidence::json(&v[0])["first_difference"], 0);
    assert!(
        v[0].summary.contains("the `strict` rule sweeps"),
        "{}",
        v[0].summary
    );
    // A completed cycle before the barrier passes.
    assert!(matches_twin(&[a(&["x"]), r("x"), c()], &[], TwinRule::CONTRACT).is_empty());
}

#[test]
fn matches_twin_compares_order_and_multiplicity() {
    let input = [r("z"), a(&["b"]), r("y"), r("b"), r("a"), r("a")];
    assert!(matches_twin(&input, &ids(&["z", "y", "a", "a"]), TwinRule::Strict).is_empty());
    for wrong in [
        ids(&["z", "y", "a"]),
        ids(&["a", "a", "y", "z"]),
        ids(&["z", "y", "b", "a", "a"]),
    ] {
        assert_eq!(
            only(matches_twin(&input, &wrong, TwinRule::Strict)),
            MATCHES_TWIN
        );
    }
}

#[test]
fn twin_reports_results_without_a_string_id_by_their_json_text() {
    let input = [
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": 7}, {"type": "toolCall"}]}),
        json!({"role": "toolResult", "toolCallId": 7}),
        json!({"role": "toolResult"}),
    ];
    for &rule in TwinRule::all() {
        assert!(
            matches_twin(&input, &ids(&["7", "null"]), rule).is_empty(),
            "{rule}"
        );
    }
    assert!(only_removes(&input, &input[..1], &ids(&["7", "null"])).is_empty());
}

#[test]
fn check_runs_all_four() {
    let input = [a(&["x"]), c(), r("x")];
    let all: Vec<&Value> = input.iter().collect();
    let run = SweepRun {
        input: &input,
        output: &all,
        swept: &[],
        returned_input: false,
        second_swept: &ids(&["x"]),
        twin: TwinRule::Strict,
    };
    let found: Vec<Invariant> = check(&run).iter().map(|v| v.invariant).collect();
    assert_eq!(found, [NOOP_IDENTITY, IDEMPOTENT, MATCHES_TWIN]);
    let good = SweepRun {
        output: &all[..2],
        swept: &ids(&["x"]),
        returned_input: false,
        second_swept: &[],
        ..run
    };
    assert!(check(&good).is_empty());
}

#[test]
fn rules_round_trip_by_name() {
    for &rule in TwinRule::all() {
        assert_eq!(rule.name().parse::<TwinRule>(), Ok(rule));
    }
    assert!("All-Other-Roles".parse::<TwinRule>().is_err());
}

#[test]
fn matches_twin_points_at_the_first_difference() {
    // The twin sweeps both orphans, `b` then `z`; the sweep under test swept `b` then `y`.
    let input = [a(&["x"]), r("x"), r("b"), r("z")];
    let v = matches_twin(&input, &ids(&["b", "y"]), TwinRule::CONTRACT);
    assert_eq!(only(v.clone()), MATCHES_TWIN);
    assert_eq!(evidence::json(&v[0])["first_difference"], json!(1));
}

#[test]
fn only_tool_call_blocks_open_calls() {
    // A text block that happens to carry an `id` opens nothing: its "result" is an orphan.
    let text_with_id = json!({"role": "assistant", "stopReason": "stop",
        "content": [{"type": "text", "text": "x", "id": "t"}]});
    assert_eq!(twin_sweep(&[text_with_id, r("t")], TwinRule::CONTRACT), [1]);
}
