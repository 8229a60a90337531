//! Properties of the turn-end guard model over generated schedules (proptest, shrinking).

use crate::common::charged_summaries;
use ctxfuzz::guard::{self, GuardWiring, generate::schedule_strategy};
use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::invariants::guard::judge;
use proptest::prelude::*;
use serde_json::Value;

/// The violations charged to the guard (unpreventable ones are the environment's).
fn charged(variant: GuardWiring, schedule: &guard::Schedule) -> Vec<String> {
    charged_summaries(judge(guard::run(variant, schedule).to_value()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The fix keeps every promise on every schedule.
    #[test]
    fn the_fix_is_never_charged(schedule in schedule_strategy()) {
        let charged = charged(GuardWiring::EndRelease, &schedule);
        prop_assert!(charged.is_empty(), "{charged:?}\n{}", guard::run(GuardWiring::EndRelease, &schedule).text());
    }

    /// Queuers are the user or extensions `ext1..extN`, and the load order lists each once.
    #[test]
    fn queuers_are_the_user_or_named_extensions(schedule in schedule_strategy()) {
        prop_assert!(names_are_sound(&schedule), "{}", schedule.to_value());
    }

    /// Schedules survive their JSON form unchanged (case files and the minimiser rely on it).
    #[test]
    fn schedules_round_trip_through_json(schedule in schedule_strategy()) {
        let value = schedule.to_value();
        prop_assert_eq!(guard::Schedule::from_value(&value).unwrap(), schedule);
    }

    /// pi's event discipline: every logical run settles exactly once, and every low-level run has
    /// exactly one agent_start and one agent_end (unless the request budget cut the trace).
    #[test]
    fn every_run_settles_once_and_every_low_level_run_ends_once(
        schedule in schedule_strategy(),
        variant in prop::sample::select(GuardWiring::all().to_vec()),
    ) {
        let trace = guard::run(variant, &schedule).to_value();
        let events = trace.as_array().unwrap();
        prop_assume!(!events.iter().any(|e| e["event"] == "truncated"));
        let count = |name: &str| events.iter().filter(|e| e["event"] == name).count();
        prop_assert_eq!(count("run_start"), count("agent_settled"));
        prop_assert_eq!(count("agent_start"), count("agent_end"));
        let starts: Vec<&Value> = events.iter().filter(|e| e["event"] == "run_start").collect();
        prop_assert!(starts.len() >= usize::from(schedule.prompts.max(1)));
    }
}

fn is_extension(name: &str) -> bool {
    name.strip_prefix("ext")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Every queuer is the user or an extension, and the load order is the guard plus distinct
/// extensions.
fn names_are_sound(schedule: &guard::Schedule) -> bool {
    let mut listed = schedule.load_order.clone();
    listed.sort();
    listed.dedup();
    schedule
        .queues
        .iter()
        .all(|q| q.by == "user" || is_extension(&q.by))
        && listed.len() == schedule.load_order.len()
        && schedule
            .load_order
            .iter()
            .all(|n| n == "guard" || is_extension(n))
}

/// The fuzz-bytes generator names queuers like the proptest one.
#[test]
fn fuzz_bytes_schedules_name_their_queuers_soundly() {
    let mut queued = 0;
    for seed in 0..500 {
        let bytes = ctxfuzz::generators::seeded_bytes(seed, 512);
        let schedule =
            guard::generate::schedule(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
        assert!(names_are_sound(&schedule), "{}", schedule.to_value());
        queued += schedule.queues.iter().filter(|q| q.by != "user").count();
    }
    assert!(queued > 0, "no extension ever queued");
}

/// Share of `schedules` whose settings satisfy `keep`.
fn share(schedules: &[guard::Schedule], keep: impl Fn(&guard::schedule::Settings) -> bool) -> f64 {
    schedules.iter().filter(|s| keep(&s.settings)).count() as f64 / schedules.len() as f64
}

/// Both generators mostly keep pi's defaults (retry and compaction on, one at a time) and
/// sometimes turn each off: a generator stuck on either side would never test the other.
#[test]
fn generated_settings_mostly_keep_pi_defaults() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let fuzzed: Vec<guard::Schedule> = (0..2000)
        .map(|seed| {
            let bytes = ctxfuzz::generators::seeded_bytes(seed, 4096);
            guard::generate::schedule(&mut arbitrary::Unstructured::new(&bytes)).unwrap()
        })
        .collect();
    let mut runner = TestRunner::deterministic();
    let sampled: Vec<guard::Schedule> = (0..2000)
        .map(|_| schedule_strategy().new_tree(&mut runner).unwrap().current())
        .collect();
    for (name, schedules) in [("fuzz bytes", &fuzzed), ("proptest", &sampled)] {
        for (setting, on) in [
            ("retry", share(schedules, |s| s.retry)),
            ("compaction", share(schedules, |s| s.compaction)),
        ] {
            assert!(
                (0.75..0.97).contains(&on),
                "{name}: {setting} on in {on:.2} of schedules"
            );
        }
    }
}
