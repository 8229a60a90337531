//! Two variants on one schedule, side by side: how a finding of the `guard` target is shown.

use similar::TextDiff;

use super::schedule::Schedule;
use super::session::run;
use super::turnend::Variant;

/// The variant a finding on `variant` is best compared with: the fix, or (for the fix itself) the
/// original wiring.
pub fn counterpart(variant: Variant) -> Variant {
    match variant {
        Variant::EndRelease => Variant::Settled,
        _ => Variant::EndRelease,
    }
}

/// The schedule, both variants' event orders, and a `similar` diff of their traces (full
/// context: the traces are short, and a reader needs the whole run to see why they differ).
pub fn side_by_side(schedule: &Schedule, left: Variant, right: Variant) -> String {
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
