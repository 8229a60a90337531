//! The generic fuzz machinery on a toy target whose bugs are known: findings are found,
//! minimised, deduplicated, classified and regenerable from (seed, case).

use std::sync::Mutex;
use std::time::Duration;

use arbitrary::Unstructured;
use ctxfuzz::harness::findings::Finding;
use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config, RunOutcome};
use ctxfuzz::harness::{Class, Profile, Target, bytes, panics};
use ctxfuzz_oracles::invariants::{Cause, Invariant, Judgement, Violation};
use serde_json::{Value, json};

const NO_THIRTEEN: Invariant = Invariant {
    id: "no-thirteen",
    statement: "the list holds no 13",
};
const NO_SEVEN: Invariant = Invariant {
    id: "no-seven",
    statement: "the list holds no 7",
};

/// Lists of small numbers. Known defects: a 13 breaks `no-thirteen` (charged), a 7 breaks
/// `no-seven` (unpreventable), a 99 panics; an empty list cannot be judged.
struct Toy;

impl Target for Toy {
    type Input = Value;
    type Variant = String;
    type Output = Value;

    fn build(_: Option<String>, _: &Profile) -> anyhow::Result<Toy> {
        Ok(Toy)
    }

    fn name(&self) -> &'static str {
        "toy"
    }
    fn variant(&self) -> String {
        "only".to_string()
    }
    fn profile(&self) -> Profile {
        Profile::default()
    }
    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
        let len = u.int_in_range(0..=12)?;
        let items: Vec<u8> = (0..len)
            .map(|_| u.int_in_range(0..=100))
            .collect::<arbitrary::Result<_>>()?;
        Ok(json!(items))
    }
    fn judge(&self, input: &Value) -> Judgement {
        let Some(items) = input.as_array() else {
            return Judgement::CannotJudge("not a list".into());
        };
        if items.is_empty() {
            return Judgement::CannotJudge("empty".into());
        }
        assert!(!items.contains(&json!(99)), "99 is not supported");
        let mut violations = Vec::new();
        if let Some(at) = items.iter().position(|v| v == &json!(13)) {
            violations.push(Violation::charged(
                NO_THIRTEEN,
                format!("13 at {at}"),
                json!({ "index": at }),
            ));
        }
        if items.contains(&json!(7)) {
            violations.push(Violation::new(
                NO_SEVEN,
                Cause::Unpreventable("sevens come from upstream"),
                "a 7".into(),
                json!({}),
            ));
        }
        Judgement::from_violations(violations)
    }
    fn output(&self, input: &Value) -> Value {
        json!(input.as_array().map_or(0, |a| a.len()))
    }
}

fn config(seed: u64, runs: u64, jobs: usize) -> Config {
    Config {
        seed,
        first: 0,
        runs: Some(runs),
        time: None,
        jobs,
    }
}

fn run(seed: u64, runs: u64, jobs: usize) -> RunOutcome {
    runner::fuzz(
        &Toy,
        &config(seed, runs, jobs),
        &mut Progress::Hidden,
        &|_, _| {},
    )
}

fn finding<'a>(outcome: &'a RunOutcome, invariant: &str) -> &'a Finding {
    outcome
        .findings
        .iter()
        .find(|f| f.key.invariant == invariant)
        .unwrap_or_else(|| panic!("no {invariant} finding in {:?}", outcome.stats))
}

#[test]
fn finds_minimizes_and_classifies_each_defect_once() {
    let outcome = run(1, 5_000, 2);
    assert_eq!(outcome.stats.execs + outcome.stats.rejected, 5_000);
    assert!(
        outcome.stats.cannot_judge > 0,
        "empty lists are counted as cannot-judge"
    );

    let thirteen = finding(&outcome, "no-thirteen");
    assert_eq!(thirteen.input, json!([13]));
    assert_eq!(thirteen.class, Class::Charged);
    let seven = finding(&outcome, "no-seven");
    assert_eq!(seven.input, json!([7]));
    assert_eq!(seven.class, Class::Unpreventable);
    let panic = finding(&outcome, panics::NO_PANIC.id);
    assert_eq!(panic.input, json!([99]));
    assert!(
        panic.violation.summary.contains("99 is not supported"),
        "{}",
        panic.violation.summary
    );

    // Thousands of failing execs, one finding per invariant (the toy has one shape).
    let keys: Vec<_> = outcome.findings.iter().map(|f| &f.key).collect();
    assert_eq!(outcome.findings.len(), 3, "{keys:?}");
    assert!(outcome.stats.violations[&(Class::Charged, "no-thirteen")] > 10);
    assert_eq!(outcome.charged().count(), 2);
}

#[test]
fn the_same_seed_gives_the_same_findings_whatever_the_thread_count() {
    let key = |o: &RunOutcome| {
        let mut cases: Vec<_> = o
            .findings
            .iter()
            .map(|f| (f.key.invariant, f.input.clone()))
            .collect();
        cases.sort_by(|a, b| a.0.cmp(b.0));
        (o.stats.execs, o.stats.failing, cases)
    };
    assert_eq!(key(&run(9, 2_000, 1)), key(&run(9, 2_000, 2)));
    assert_ne!(
        run(9, 2_000, 1).stats.failing,
        run(10, 2_000, 1).stats.failing
    );
}

#[test]
fn a_finding_regenerates_from_its_seed_and_case_index() {
    let outcome = run(3, 3_000, 2);
    let thirteen = finding(&outcome, "no-thirteen");
    let origin = thirteen.origin.expect("fuzzed findings know their case");
    let original = Toy
        .decode(&bytes::case_bytes(origin.seed, origin.case))
        .unwrap();
    assert!(
        original.as_array().unwrap().contains(&json!(13)),
        "{original}"
    );

    let one = Config {
        first: origin.case,
        runs: Some(1),
        ..config(origin.seed, 1, 2)
    };
    let rerun = runner::fuzz(&Toy, &one, &mut Progress::Hidden, &|_, _| {});
    assert_eq!(rerun.stats.execs, 1);
    assert_eq!(finding(&rerun, "no-thirteen").input, json!([13]));
}

#[test]
fn a_time_budget_stops_the_run() {
    let timed = Config {
        runs: None,
        time: Some(Duration::from_millis(300)),
        ..config(5, 0, 2)
    };
    let started = std::time::Instant::now();
    let outcome = runner::fuzz(&Toy, &timed, &mut Progress::Hidden, &|_, _| {});
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(outcome.stats.execs > 1_000);
}

#[test]
fn each_finding_is_handed_over_once_and_written_as_a_replayable_case() {
    let seen = Mutex::new(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let outcome = runner::fuzz(
        &Toy,
        &config(1, 3_000, 2),
        &mut Progress::Hidden,
        &|f, _| {
            seen.lock().unwrap().push(f.write(dir.path()).unwrap());
        },
    );
    let written = seen.into_inner().unwrap();
    assert_eq!(written.len(), outcome.findings.len());

    let thirteen = finding(&outcome, "no-thirteen");
    let path = dir.path().join(thirteen.file_name());
    let case = ctxfuzz::transcript::case::CaseFile::read(&path).unwrap();
    assert_eq!(case.target, "toy");
    assert_eq!(case.input, json!([13]));
    assert_eq!(case.verdicts["only"], vec!["no-thirteen".to_string()]);
    assert_eq!(
        case.replay.unwrap(),
        format!("ctxfuzz replay {}", path.display())
    );
    assert!(case.why.starts_with("no-thirteen: 13 at 0"), "{}", case.why);

    let regenerate = "ctxfuzz fuzz --target toy --seed 1 --case 4";
    let report = thirteen.report(&Toy, Some(&path), Some(regenerate));
    assert!(
        report.contains(regenerate) && report.contains("no-thirteen"),
        "{report}"
    );
}
