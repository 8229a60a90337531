//! The `guard` target: schedules through pi's run-loop model with the turn-end guard wired as one
//! of its three variants, judged by `ctxfuzz_oracles::invariants::guard` from the trace alone.
//!
//! Its output is every variant's trace (event order and one line per event), so a case file pins
//! all three at once and replay compares the same output whichever variant it builds. A finding
//! is explained by a diff of the variant's trace against its counterpart's (the fix, or for the fix
//! the original wiring).

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::{self, Judgement};
use serde_json::Value;

use crate::guard::{self, GuardWiring, Schedule, compare, generate};
use crate::harness::profile::Profile;
use crate::harness::target::{DynTarget, Explanation, Target};

pub struct GuardTarget {
    variant: GuardWiring,
}

/// Registry builder: `variant` is `settled`, `end-no-release` or `end-release` (default); the
/// profile has no options (everything lives in the schedule).
pub fn build(variant: Option<&str>, _profile: &Profile) -> Result<Box<dyn DynTarget>> {
    let variant = match variant {
        Some(name) => name.parse()?,
        None => GuardWiring::default(),
    };
    Ok(Box::new(GuardTarget { variant }))
}

impl Target for GuardTarget {
    type Input = Schedule;

    fn name(&self) -> &'static str {
        "guard"
    }

    fn variant(&self) -> String {
        self.variant.name().to_string()
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

    fn output(&self, schedule: &Schedule) -> Value {
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
