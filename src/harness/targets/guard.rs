//! The `guard` target: schedules through pi's run-loop model with the turn-end guard wired as one
//! of its three variants, judged by `ctxfuzz_oracles::invariants::guard` from the trace alone.
//!
//! Its output is every variant's trace (event order and one line per event), so a case file pins
//! all three at once and replay compares the same output whichever variant it builds. A finding
//! is explained by a diff of the variant's trace against its counterpart's (the fix, or for the fix
//! the original wiring).

use ctxfuzz_oracles::error::Named;
use std::collections::BTreeMap;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::{self, Judgement};

use crate::guard::compare::{self, WiringRun};
use crate::guard::{self, GuardWiring, Schedule, generate};
use crate::harness::profile::Profile;
use crate::harness::target::{Explanation, Target};

pub struct GuardTarget {
    variant: GuardWiring,
}

impl Target for GuardTarget {
    type Input = Schedule;
    type Variant = GuardWiring;
    type Output = BTreeMap<&'static str, WiringRun>;

    /// The profile has no options (everything lives in the schedule).
    fn build(variant: Option<GuardWiring>, _profile: &Profile) -> Result<GuardTarget> {
        Ok(GuardTarget {
            variant: variant.unwrap_or_default(),
        })
    }

    fn name(&self) -> &'static str {
        "guard"
    }

    fn variant(&self) -> GuardWiring {
        self.variant
    }

    fn profile(&self) -> Profile {
        Profile::default()
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Schedule> {
        generate::schedule(u)
    }

    fn judge(&self, schedule: &Schedule) -> Judgement {
        let trace = guard::run(self.variant, schedule);
        invariants::guard::judge_text(&serde_json::to_string(&trace).expect("a trace serialises"))
    }

    fn output(&self, schedule: &Schedule) -> Self::Output {
        compare::every_variant(schedule)
    }

    fn shape(&self, schedule: &Schedule) -> String {
        schedule.shape()
    }

    fn explain(&self, schedule: &Schedule) -> Option<Explanation> {
        let other = compare::counterpart(self.variant);
        Some(Explanation {
            expected_label: other.name().to_string(),
            expected: guard::run(other, schedule).text(),
            actual_label: self.variant.name().to_string(),
            actual: guard::run(self.variant, schedule).text(),
        })
    }
}
