//! Two variants on one schedule, side by side: how a finding of the `guard` target is shown.

use ctxfuzz_oracles::error::Named;
use std::collections::BTreeMap;

use serde::Serialize;
use similar::TextDiff;

use super::run_loop::run;
use super::schedule::Schedule;
use super::turnend::GuardWiring;

/// The variant a finding on `variant` is best compared with: the fix, or (for the fix itself) the
/// original wiring.
pub fn counterpart(variant: GuardWiring) -> GuardWiring {
    match variant {
        GuardWiring::EndRelease => GuardWiring::Settled,
        _ => GuardWiring::EndRelease,
    }
}

/// The schedule, both variants' event orders, and a `similar` diff of their traces (full
/// context: the traces are short, and a reader needs the whole run to see why they differ).
pub fn side_by_side(schedule: &Schedule, left: GuardWiring, right: GuardWiring) -> String {
    let (a, b) = (run(left, schedule), run(right, schedule));
    let (a_text, b_text) = (a.text(), b.text());
    let diff = TextDiff::from_lines(&a_text, &b_text)
        .unified_diff()
        .context_radius(usize::MAX / 2)
        .header(left.name(), right.name())
        .to_string();
    format!(
        "schedule: {}\norder {left}: {}\norder {right}: {}\n{diff}",
        serde_json::to_string(&schedule.to_value()).expect("a schedule serialises"),
        a.probe_order(),
        b.probe_order(),
    )
}

/// Every variant's event order and trace lines on `schedule`, keyed by variant name: the `guard`
/// target's output, so a case file pins all three wirings at once.
pub fn every_variant(schedule: &Schedule) -> BTreeMap<&'static str, WiringRun> {
    GuardWiring::all()
        .iter()
        .map(|&variant| {
            let trace = run(variant, schedule);
            let wiring_run = WiringRun {
                order: trace.probe_order(),
                trace: trace.lines(),
            };
            (variant.name(), wiring_run)
        })
        .collect()
}

/// One wiring's run of a schedule as the `guard` target's output shows it.
#[derive(Debug, Serialize)]
pub struct WiringRun {
    /// The order of the probes' events ([`super::trace::Trace::probe_order`]).
    pub order: String,
    pub trace: Vec<String>,
}
