//! Duplicate results that pi makes itself (one synthetic result per occurrence of a call id an
//! assistant repeats) are not charged to the system under test; a real result kept after a barrier
//! still is. So are the unpaired call and result of a call without an id (pi answers it with a
//! result without an id); a real result without an id, which a sweep removes, still is.

use ctxfuzz_oracles::invariants::wire::{self, RejectionEvidence};
use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation};
use ctxfuzz_oracles::js_value;
use ctxfuzz_oracles::pi::{PiVersion, default_model};
use ctxfuzz_oracles::wire::WireRule;
use ctxfuzz_oracles::wire::anthropic::Rejection;
use serde_json::{Value, json};

use crate::common::{assistant, call, result, user};

/// The causes of the findings of wire rule `rule` on `input`.
fn causes(input: &[Value], rule: &str) -> Vec<Cause> {
    let Judgement::Fail(violations) = wire::judge(
        &js_value::borrow_all(input),
        default_model(),
        PiVersion::default(),
    ) else {
        return Vec::new();
    };
    violations
        .into_iter()
        .filter(|v| rejection(v).rule.id() == rule)
        .map(|v| v.cause)
        .collect()
}

/// What a violation of the Anthropic body shows.
fn rejection(violation: &Violation) -> &Rejection {
    let evidence: &RejectionEvidence = violation.evidence.of().expect("a rejection's evidence");
    &evidence.rejection
}

/// Every duplicate result of `input` is found and each has a cause `expected` accepts.
fn assert_duplicates_charged(input: &[Value], expected: impl Fn(&Cause) -> bool) {
    let causes = causes(input, "duplicate-result");
    assert!(!causes.is_empty());
    assert!(causes.iter().all(expected), "{causes:?}");
}

#[test]
fn a_repeated_call_id_answered_by_two_synthetics_is_unpreventable() {
    let input = [
        user("go on"),
        assistant(vec![call("t1"), call("t1")], "claude-sonnet-4-5"),
        user("go on"),
    ];
    assert_duplicates_charged(
        &input,
        |c| matches!(c, Cause::Unpreventable(r) if r.contains("reuses")),
    );
}

#[test]
fn ids_sanitised_to_one_inside_one_assistant_are_a_collision() {
    let input = [
        user("go on"),
        assistant(vec![call("cx|0"), call("cx 0")], "gpt-5"),
        user("go on"),
    ];
    assert_duplicates_charged(
        &input,
        |c| matches!(c, Cause::Unpreventable(r) if r.contains("sanitising")),
    );
}

#[test]
fn a_duplicate_call_id_is_a_collision_when_two_raw_ids_meet_and_a_reuse_otherwise() {
    let collision = [
        user("go on"),
        assistant(vec![call("cx|0"), call("cx 0")], "gpt-5"),
        user("go on"),
    ];
    let reuse = [
        user("go on"),
        assistant(vec![call("t1")], "claude-sonnet-4-5"),
        result("t1"),
        user("go on"),
        assistant(vec![call("t1")], "claude-sonnet-4-5"),
        result("t1"),
    ];
    for (input, reason) in [(&collision[..], "sanitising"), (&reuse[..], "reuses")] {
        let found = causes(input, "duplicate-tool-use-id");
        assert!(!found.is_empty(), "{reason}");
        assert!(
            found
                .iter()
                .all(|c| matches!(c, Cause::Unpreventable(r) if r.contains(reason))),
            "{reason}: {found:?}"
        );
    }
}

#[test]
fn a_real_result_kept_after_a_barrier_is_still_charged() {
    let brick = [
        user("go on"),
        assistant(vec![call("t1")], "claude-sonnet-4-5"),
        json!({"role": "custom", "content": "x"}),
        result("t1"),
    ];
    assert_duplicates_charged(&brick, |c| *c == Cause::SystemUnderTest);
    let twice = [
        user("go on"),
        assistant(vec![call("t1"), call("t1")], "claude-sonnet-4-5"),
        result("t1"),
        user("go on"),
        result("t1"),
    ];
    assert_duplicates_charged(&twice, |c| *c == Cause::SystemUnderTest);
    // The turn of the repeated call runs up to the next assistant: the result just before it is
    // one of the turn's two real results.
    let twice_then_on = [
        user("go on"),
        assistant(vec![call("t1"), call("t1")], "claude-sonnet-4-5"),
        result("t1"),
        result("t1"),
        assistant(vec![call("t2")], "claude-sonnet-4-5"),
        result("t2"),
    ];
    assert_duplicates_charged(&twice_then_on, |c| *c == Cause::SystemUnderTest);
}

#[test]
fn only_real_results_of_the_same_turn_make_a_duplicate_the_sweeps_fault() {
    // Two real results for the id elsewhere in the transcript do not matter: in the turn with the
    // repeated call there is none, so the duplicates are pi's two synthetics.
    let input = [
        user("go on"),
        assistant(vec![call("t1"), call("t1")], "claude-sonnet-4-5"),
        user("go on"),
        assistant(vec![call("t1")], "claude-sonnet-4-5"),
        result("t1"),
        result("t1"),
    ];
    let Judgement::Fail(violations) = wire::judge(
        &js_value::borrow_all(&input),
        default_model(),
        PiVersion::default(),
    ) else {
        panic!("expected violations");
    };
    let first_turn: Vec<&Cause> = violations
        .iter()
        .filter(|v| rejection(v).rule == WireRule::DuplicateResult && rejection(v).message == 2)
        .map(|v| &v.cause)
        .collect();
    assert!(!first_turn.is_empty(), "{violations:#?}");
    assert!(
        first_turn
            .iter()
            .all(|c| matches!(c, Cause::Unpreventable(_))),
        "{first_turn:?}"
    );
}

/// An assistant whose one call has no `id` field.
fn idless_call_assistant() -> Value {
    let mut assistant = assistant(vec![call("t1")], "claude-sonnet-4-5");
    assistant["content"][0]
        .as_object_mut()
        .unwrap()
        .remove("id");
    assistant
}

/// A result without a `toolCallId` field.
fn idless_result() -> Value {
    let mut result = result("t1");
    result.as_object_mut().unwrap().remove("toolCallId");
    result
}

#[test]
fn a_call_without_an_id_and_pis_result_for_it_are_unpreventable() {
    // The shape a nightly run once charged to the fixed sweep: pi's synthetic result for the call
    // has no id either, so the API pairs neither; no sweep can prevent that.
    let input = [user("go on"), idless_call_assistant(), user("go on")];
    for rule in ["missing-result", "orphan-result"] {
        let causes = causes(&input, rule);
        assert!(!causes.is_empty(), "no {rule}");
        assert!(
            causes
                .iter()
                .all(|c| matches!(c, Cause::Unpreventable(r) if r.contains("no id"))),
            "{rule}: {causes:?}"
        );
    }
}

#[test]
fn a_real_result_without_an_id_is_the_sweeps_fault() {
    for input in [
        [
            user("go on"),
            assistant(vec![call("t1")], "claude-sonnet-4-5"),
            idless_result(),
            user("go on"),
        ],
        [
            user("go on"),
            idless_call_assistant(),
            idless_result(),
            user("go on"),
        ],
    ] {
        let causes = causes(&input, "orphan-result");
        assert!(!causes.is_empty());
        assert!(causes.contains(&Cause::SystemUnderTest), "{causes:?}");
    }
}
