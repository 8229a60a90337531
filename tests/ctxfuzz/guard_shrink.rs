//! Both defect wirings are caught from a fixed seed and shrink (proptest) to a short schedule; the
//! fix survives the same search.

use ctxfuzz::guard::{self, GuardWiring, Schedule, generate::schedule_strategy};
use ctxfuzz_oracles::invariants::guard::{
    BOUNDED_FOLLOW_UPS, LATCH_RELEASED, NO_BLIND_TURN_END, ONE_IDLE_SIGNAL_PER_PROMPT,
    RECOVERY_LANDS_IN_RUN, judge,
};
use ctxfuzz_oracles::invariants::{Cause, Invariant, Judgement};
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

fn charged_with(variant: GuardWiring, schedule: &Schedule, invariant: Invariant) -> bool {
    match judge(guard::run(variant, schedule).to_value()) {
        Judgement::Fail(violations) => violations
            .iter()
            .any(|v| v.invariant == invariant && v.cause == Cause::SystemUnderTest),
        _ => false,
    }
}

/// The shrunk counterexample of `variant` breaking `invariant`, searched from a fixed seed; `None`
/// when the search finds none.
fn shrunk(variant: GuardWiring, invariant: Invariant) -> Option<Schedule> {
    let config = Config {
        cases: 4096,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[6; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    match runner.run(&schedule_strategy(), |schedule| {
        proptest::prop_assert!(!charged_with(variant, &schedule, invariant));
        Ok(())
    }) {
        Ok(()) => None,
        Err(TestError::Fail(_, schedule)) => Some(schedule),
        Err(TestError::Abort(why)) => panic!("search aborted: {why}"),
    }
}

fn describe(schedule: &Schedule) -> String {
    serde_json::to_string(&schedule.to_value()).unwrap()
}

#[test]
fn the_original_wiring_shrinks_to_one_unhealthy_prompt() {
    for invariant in [ONE_IDLE_SIGNAL_PER_PROMPT, NO_BLIND_TURN_END] {
        let schedule =
            shrunk(GuardWiring::Settled, invariant).expect("the original wiring is caught");
        let turned_unhealthy = schedule.responses.iter().any(|r| r.supervision.is_some());
        assert!(
            schedule.unhealthy || turned_unhealthy,
            "{}",
            describe(&schedule)
        );
        assert_eq!(schedule.prompts, 1, "{}", describe(&schedule));
        assert!(
            schedule.responses.len() <= 1 && schedule.queues.is_empty(),
            "{}",
            describe(&schedule)
        );
    }
}

#[test]
fn the_no_release_wiring_shrinks_to_a_run_that_dies_after_queueing() {
    let schedule =
        shrunk(GuardWiring::EndNoRelease, LATCH_RELEASED).expect("the no-release wiring is caught");
    let text = describe(&schedule);
    assert!(
        schedule.responses.len() <= 2 && schedule.queues.len() <= 1,
        "{text}"
    );
    // The run died after the guard queued: ESC or a fatal session error is in the schedule.
    assert!(
        schedule
            .responses
            .iter()
            .any(|r| r.esc.is_some() || r.fatal),
        "{text}"
    );
    let blind =
        shrunk(GuardWiring::EndNoRelease, NO_BLIND_TURN_END).expect("the next run is blind");
    let text = describe(&blind);
    assert!(blind.prompts >= 2 && blind.responses.len() <= 3, "{text}");
}

#[test]
fn the_fix_survives_the_same_search() {
    for invariant in [
        ONE_IDLE_SIGNAL_PER_PROMPT,
        NO_BLIND_TURN_END,
        LATCH_RELEASED,
        BOUNDED_FOLLOW_UPS,
        RECOVERY_LANDS_IN_RUN,
    ] {
        if let Some(schedule) = shrunk(GuardWiring::EndRelease, invariant) {
            panic!("{invariant}: {}", describe(&schedule));
        }
    }
}
