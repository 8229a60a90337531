//! Soak runs: minutes of fuzzing in CI (`CTXFUZZ_SOAK_SECS=300`), a few seconds in a plain
//! `cargo test` (default 5).

use std::time::Duration;

use ctxfuzz::harness::progress::Progress;
use ctxfuzz::harness::runner::{self, Config};
use ctxfuzz::harness::targets;
use serde_json::json;

fn soak_seconds() -> u64 {
    std::env::var("CTXFUZZ_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
}

#[test]
fn soak_sweep_strict() {
    let target = targets::build("sweep", Some("strict"), &json!({})).unwrap();
    let config = Config {
        seed: 0x50a4,
        first: 0,
        runs: None,
        time: Some(Duration::from_secs(soak_seconds())),
        jobs: std::thread::available_parallelism().map_or(1, usize::from),
    };
    let outcome = runner::fuzz(target.as_ref(), &config, &mut Progress::Hidden, &|_, _| {});
    let charged: Vec<_> = outcome.charged().map(|f| (&f.key, &f.input)).collect();
    assert!(charged.is_empty(), "{charged:#?}");
    eprintln!(
        "soak_sweep_strict: {} execs in {:.0}s, {} cannot judge, 0 findings charged to the sweep",
        outcome.stats.execs,
        outcome.stats.elapsed.as_secs_f64(),
        outcome.stats.cannot_judge
    );
}
