//! External programs (`--sut`): a correct one is judged like the Rust sweep and agrees with it;
//! a crash, a hang or a malformed answer is a finding, and the child is restarted after it.

use ctxfuzz::harness::external::SUT_MATCHES_RUST;
use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config, Outcome};
use ctxfuzz::harness::supervisor::{SUT_CRASH, SUT_HANG, SUT_MALFORMED};
use ctxfuzz::harness::{Class, Profile, targets};
use serde_json::json;

fn program(args: &str) -> String {
    format!(
        "python3 {}/tests/sut/sweep.py {args}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn fuzz(rule: &str, sut: &str, runs: u64) -> Outcome {
    fuzz_with_profile(rule, runs, json!({"sut": sut, "sut_timeout_ms": 5_000}))
}

fn fuzz_with_profile(rule: &str, runs: u64, profile: serde_json::Value) -> Outcome {
    let target =
        targets::build("sweep", Some(rule), &Profile::from_value(&profile).unwrap()).unwrap();
    let config = Config {
        seed: 11,
        first: 0,
        runs: Some(runs),
        time: None,
        jobs: 2,
    };
    runner::fuzz(target.as_ref(), &config, &mut Progress::Hidden, &|_, _| {})
}

fn violations(outcome: &Outcome, invariant: &str) -> u64 {
    outcome
        .stats
        .violations
        .get(&(Class::Charged, invariant))
        .copied()
        .unwrap_or(0)
}

#[test]
fn external_a_correct_program_agrees_with_the_rust_sweep() {
    let outcome = fuzz("strict", &program("--rule strict"), 400);
    let charged: Vec<_> = outcome
        .charged()
        .map(|f| (&f.key, &f.violation.summary))
        .collect();
    assert!(charged.is_empty(), "{charged:#?}");
    assert_eq!(outcome.stats.execs, 400);
}

#[test]
fn external_a_program_with_another_rule_differs_from_the_rust_sweep() {
    let outcome = fuzz("strict", &program("--rule none"), 400);
    assert!(
        violations(&outcome, SUT_MATCHES_RUST.id) > 0,
        "{:#?}",
        outcome.stats
    );
}

#[test]
fn external_a_crash_is_a_finding_and_the_program_is_restarted() {
    let outcome = fuzz("strict", &program("--fault crash"), 300);
    let crashes = violations(&outcome, SUT_CRASH.id);
    assert!(crashes > 0, "{:#?}", outcome.stats);
    // Cases after a crash are answered by a fresh child: most cases still pass.
    assert!(
        outcome.stats.execs - outcome.stats.failing > 100,
        "{:#?}",
        outcome.stats
    );
    let finding = outcome
        .findings
        .iter()
        .find(|f| f.key.invariant == SUT_CRASH.id)
        .unwrap();
    assert!(
        finding.violation.evidence["stderr"]
            .as_str()
            .is_some_and(|s| s.contains("boom")),
        "{}",
        finding.violation.evidence
    );
}

#[test]
fn external_malformed_output_is_a_finding() {
    let outcome = fuzz("strict", &program("--fault garbage"), 200);
    assert!(
        violations(&outcome, SUT_MALFORMED.id) > 0,
        "{:#?}",
        outcome.stats
    );
}

#[test]
fn external_a_hang_is_a_finding_within_the_timeout() {
    let started = std::time::Instant::now();
    // A python3 child starts well within the 2 s grace here; the default (10 s) is for slower
    // interpreters.
    let profile =
        json!({"sut": program("--fault hang"), "sut_timeout_ms": 200, "sut_startup_ms": 2_000});
    let outcome = fuzz_with_profile("strict", 30, profile);
    assert!(
        violations(&outcome, SUT_HANG.id) > 0,
        "{:#?}",
        outcome.stats
    );
    assert!(started.elapsed().as_secs() < 120);
}
