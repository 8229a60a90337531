//! Soak runs: each reads its duration in seconds from `CTXFUZZ_SOAK_SECS` (default 2, so the test
//! command stays fast; `ci/soak.sh` and the nightly job run them for 300).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::charged_summaries;
use ctxfuzz::guard::{self, GuardWiring, Schedule, generate::schedule_strategy};
use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config as FuzzConfig};
use ctxfuzz::harness::{Profile, targets};
use ctxfuzz_oracles::invariants::guard::judge_text;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use serde_json::json;

fn soak_duration() -> Duration {
    let secs = std::env::var("CTXFUZZ_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    Duration::from_secs(secs)
}

/// The violations charged to the guard on `schedule`.
fn charged(variant: GuardWiring, schedule: &Schedule) -> Vec<String> {
    let trace = serde_json::to_string(&guard::run(variant, schedule)).expect("a trace serialises");
    charged_summaries(judge_text(&trace))
}

/// The turn-end guard fix, on generated schedules for the soak duration: nothing is ever charged
/// to it. Batches of 4096 schedules, batch N searched from seed N, so a failure reproduces and is
/// shrunk by proptest before it is printed.
#[test]
fn soak_guard_fix() {
    let start = Instant::now();
    let mut schedules = 0u64;
    let mut batch = 0u64;
    while start.elapsed() < soak_duration() {
        let config = Config {
            cases: 4096,
            failure_persistence: None,
            ..Config::default()
        };
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&batch.to_le_bytes());
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        let result = runner.run(&schedule_strategy(), |schedule| {
            let found = charged(GuardWiring::EndRelease, &schedule);
            proptest::prop_assert!(found.is_empty(), "{found:?}");
            Ok(())
        });
        if let Err(TestError::Fail(why, schedule)) = result {
            panic!(
                "batch {batch}: {why}\nschedule: {}\nreplay: ctxfuzz guard --variant end-release --schedule FILE (the schedule above)",
                serde_json::to_string(&schedule.to_value()).unwrap()
            );
        }
        schedules += 4096;
        batch += 1;
    }
    eprintln!(
        "soak_guard_fix: {schedules} schedules in {:.0?}, 0 charged",
        start.elapsed()
    );
}

/// The `strict` sweep under the in-process fuzz loop for the soak duration, on every core: no
/// finding is charged to the sweep (unpreventable violations are pi's own and not counted).
#[test]
fn soak_sweep_strict() {
    let target = targets::build("sweep", Some("strict"), &Profile::default()).unwrap();
    let config = FuzzConfig {
        seed: 0x50a4,
        first: 0,
        runs: None,
        time: Some(soak_duration()),
        jobs: std::thread::available_parallelism().map_or(1, usize::from),
    };
    let outcome = runner::fuzz(target.as_ref(), &config, &mut Progress::Hidden, &|_, _| {});
    let charged: Vec<_> = outcome.charged().map(|f| (&f.key, &f.input)).collect();
    assert!(charged.is_empty(), "{charged:#?}");
    eprintln!(
        "soak_sweep_strict: {} execs in {:.0?}, {} cannot judge, 0 findings charged to the sweep",
        outcome.stats.execs, outcome.stats.elapsed, outcome.stats.cannot_judge
    );
}

/// `cycle-safe` with the default configuration across the compaction's targets (`compaction`, and
/// `pipeline` with the strict sweep and with the sweep skipped), each under the harness runner for
/// a third of the soak duration: no finding at all. A finding is written as a case file under
/// `target/tmp/soak-findings/` and printed with its `ctxfuzz replay` command.
#[test]
fn soak_compaction_cycle_safe() {
    let soaked = [
        targets::build("compaction", Some("cycle-safe"), &Profile::default()).unwrap(),
        targets::build("pipeline", Some("cycle-safe"), &Profile::default()).unwrap(),
        targets::build(
            "pipeline",
            Some("cycle-safe"),
            &Profile::from_value(&json!({"sweep": "off"})).unwrap(),
        )
        .unwrap(),
    ];
    let findings_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("soak-findings");
    for target in &soaked {
        let config = FuzzConfig {
            seed: 0xc0de,
            first: 0,
            runs: None,
            time: Some(soak_duration() / soaked.len() as u32),
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
        };
        let outcome = runner::fuzz(target.as_ref(), &config, &mut Progress::Hidden, &|_, _| {});
        let reports: Vec<String> = outcome
            .findings
            .iter()
            .map(|finding| {
                let path = finding.write(&findings_dir).ok();
                finding.report(target.as_ref(), path.as_deref(), None)
            })
            .collect();
        assert!(reports.is_empty(), "{}", reports.join("\n"));
        eprintln!(
            "soak_compaction_cycle_safe: {} [{}] profile {}: {} execs in {:.0?}, 0 findings",
            target.name(),
            target.variant(),
            target.profile().to_value(),
            outcome.stats.execs,
            outcome.stats.elapsed
        );
    }
}
