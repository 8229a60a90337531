//! External programs (`--sut`): a correct one is judged like the Rust sweep and agrees with it;
//! a crash, a hang or a malformed answer is a finding, and the child is restarted after it.

use crate::common::{charged_summaries, ctxfuzz, long_transcript_bytes, stderr, stdout};
use ctxfuzz::harness::external::SUT_MATCHES_RUST;
use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config, RunOutcome};
use ctxfuzz::harness::supervisor::{Limits, SUT_CRASH, SUT_HANG, SUT_MALFORMED};
use ctxfuzz::harness::target::NO_ANSWER;
use ctxfuzz::harness::{Class, Profile, targets};
use ctxfuzz_oracles::invariants::Judgement;
use serde_json::json;
use std::time::Duration;

fn program(args: &str) -> String {
    format!(
        "python3 {}/tests/sut/sweep.py {args}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn fuzz(rule: &str, sut: &str, runs: u64) -> RunOutcome {
    fuzz_with_profile(rule, runs, json!({"sut": sut, "sut_timeout_ms": 5_000}))
}

fn fuzz_with_profile(rule: &str, runs: u64, profile: serde_json::Value) -> RunOutcome {
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

fn violations(outcome: &RunOutcome, invariant: &str) -> u64 {
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
    let evidence = crate::common::evidence(&finding.violation);
    assert!(
        evidence["stderr"]
            .as_str()
            .is_some_and(|s| s.contains("boom")),
        "{evidence}"
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
    // A python3 child reads its first request well within 2 s; the default start-up allowance
    // (60 s) is for heavy imports.
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

#[test]
fn external_a_fault_is_explained_by_its_evidence_not_by_asking_the_program_again() {
    // `prune.py --hang-first FILE` never answers the first request it reads; every program after
    // it answers. Asked again for the finding's shape or diff, it would answer: a hang finding
    // must not show, nor be grouped by, an answer it never had.
    let dir = tempfile::tempdir().unwrap();
    let sut = format!(
        "exec python3 {}/tests/sut/prune.py --hang-first {}",
        env!("CARGO_MANIFEST_DIR"),
        dir.path().join("hung").display()
    );
    let profile =
        json!({"contract": "prune", "format": "ai-sdk", "sut": sut, "sut_timeout_ms": 1_000});
    let target = targets::build("contract", None, &Profile::from_value(&profile).unwrap()).unwrap();
    let config = Config {
        seed: 1,
        first: 0,
        runs: Some(20),
        time: None,
        jobs: 1,
    };
    let outcome = runner::fuzz(target.as_ref(), &config, &mut Progress::Hidden, &|_, _| {});
    let hang = outcome
        .charged()
        .find(|f| f.key.invariant == SUT_HANG.id)
        .unwrap_or_else(|| panic!("{:#?}", outcome.stats));
    assert_eq!(hang.key.shape, NO_ANSWER);
    let report = hang.report(target.as_ref(), None, None);
    assert!(report.contains("output: no answer"), "{report}");
    assert!(!report.contains("the program's answer"), "{report}");
}

#[test]
fn external_a_stray_line_before_some_answers_is_only_a_protocol_fault_and_every_case_replays() {
    // `repair.py --warn` is a correct repairer that prints a warning line on stdout before its
    // answer to a transcript of an odd number of messages. The warning is its answer: malformed,
    // so the program is retired and its real answer is never read as the next request's.
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().display().to_string();
    let sut = format!(
        "exec python3 {}/tests/sut/repair.py --warn",
        env!("CARGO_MANIFEST_DIR")
    );
    let output = ctxfuzz(&[
        "fuzz",
        "--contract",
        "repair",
        "--format",
        "openai",
        "--marker",
        "[ctxfuzz-synthetic]",
        "--sut",
        &sut,
        "--runs",
        "300",
        "--seed",
        "5",
        "--jobs",
        "2",
        "--json",
        "--out",
        &out_dir,
    ]);
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON document");
    let charged = &report["targets"][0]["violations"]["charged"];
    let ids: Vec<&String> = charged
        .as_object()
        .expect("charged violations")
        .keys()
        .collect();
    assert_eq!(ids, [SUT_MALFORMED.id], "{report:#}");
    let cases: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .collect();
    assert!(!cases.is_empty(), "{report:#}");
    for case in cases {
        let replay = ctxfuzz(&["replay", &case]);
        assert!(
            replay.status.success(),
            "{case}: {}{}",
            stdout(&replay),
            stderr(&replay)
        );
    }
}

#[test]
fn external_a_long_request_gets_time_in_proportion_to_its_size() {
    // A transcript of 10,000+ messages to a program that takes 0.4 ms per message: 4 s or more,
    // past the 2 s base allowance, well within the allowance of its size (10 s per MiB more).
    let sut = program("--delay-per-message 0.0004");
    let target = targets::build(
        "sweep",
        Some("strict"),
        &Profile::from_value(&json!({ "sut": sut })).unwrap(),
    )
    .unwrap();
    let long = target.decode(&long_transcript_bytes()).unwrap();
    let messages = long.as_array().unwrap().len();
    assert!(messages >= 10_000, "{messages}");
    let request_bytes = json!({ "messages": long }).to_string().len();
    let takes = Duration::from_secs_f64(0.0004 * messages as f64);
    let allowance = Limits::default().allowance(request_bytes);
    eprintln!("{messages} messages, {request_bytes} bytes: takes {takes:?}, allowed {allowance:?}");
    assert!(takes > Limits::default().answer && allowance > takes * 2);
    // A small request first: the long one goes to a program that has started.
    assert_eq!(target.judge_caught(&json!([])), Judgement::Pass);
    let judgement = target.judge_caught(&long);
    assert!(
        !charged_summaries(judgement.clone())
            .iter()
            .any(|s| s.starts_with(SUT_HANG.id)),
        "{judgement:?}"
    );
}
