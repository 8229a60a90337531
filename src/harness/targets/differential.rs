//! Target `differential`: two sweep rules side by side on the same generated transcripts
//! (`--rule A --against B`; defaults `strict` against `allowlist`).
//!
//! Every result one rule sweeps and the other keeps is classified by asking the provider model
//! whether that result, put back into the sweeping rule's output, is accepted:
//! - accepted: the sweeping rule discarded a tool output the provider would have taken
//!   (`over-sweep`: a lost tool output, a cost, not a 400);
//! - rejected: the keeping rule keeps a result the provider refuses (`keeps-rejected`: a 400).
//!
//! Ids name the rule at fault: `over-sweep` / `keeps-rejected` for the rule under test (`--rule`),
//! `against-over-sweep` / `against-keeps-rejected` for the rule it is compared with. Only the rule
//! under test keeping a rejected result is charged (it fails the run); the other three classes are
//! reported in sections of their own: the documented over-sweep of `strict` is a design decision,
//! and the faults of the comparison rule are evidence for choosing a rule, not defects of this one.

use ctxfuzz_oracles::error::Named;
use std::collections::BTreeMap;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::{Invariant, Judgement, Violation, write_name};
use ctxfuzz_oracles::js::Json;
use ctxfuzz_oracles::js_value::{JsValue, SortedKeys};
use ctxfuzz_oracles::pi::Thrown;
use serde::Serialize;

use super::pi_transcript::{Boundary, Transcript, generate, shape};
use crate::harness::profile::Profile;
use crate::harness::target::{Class, Explanation, Target};
use crate::sweep::{BarrierRule, swept_positions};

pub const OVER_SWEEP: Invariant = Invariant {
    id: "over-sweep",
    statement: "the rule under test sweeps no result the provider would accept back (a lost tool output)",
};
pub const KEEPS_REJECTED: Invariant = Invariant {
    id: "keeps-rejected",
    statement: "the rule under test keeps no result the provider rejects (a 400)",
};
pub const AGAINST_OVER_SWEEP: Invariant = Invariant {
    id: "against-over-sweep",
    statement: "the rule compared with sweeps no result the provider would accept back",
};
pub const AGAINST_KEEPS_REJECTED: Invariant = Invariant {
    id: "against-keeps-rejected",
    statement: "the rule compared with keeps no result the provider rejects",
};

/// The rule compared with when `--against` is not given: the design the gh-11 fix rejected.
pub const DEFAULT_AGAINST: BarrierRule = BarrierRule::Allowlist;

pub(super) struct Differential {
    rule: BarrierRule,
    against: BarrierRule,
    boundary: Boundary,
}

/// `messages` but those at `dropped`, borrowed.
fn without<'m, T>(messages: &'m [T], dropped: &[usize]) -> Vec<&'m T> {
    messages
        .iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, m)| m)
        .collect()
}

impl Differential {
    /// Classifies result `index`, swept by `sweeper` (whose sweep is `swept`) and kept by `keeper`.
    fn classify(
        &self,
        messages: &[JsValue<'_>],
        swept: &[usize],
        index: usize,
        sweeper: BarrierRule,
        keeper: BarrierRule,
    ) -> Result<Violation, Thrown> {
        let after_sweep = without(messages, swept);
        let put_back: Vec<usize> = swept.iter().copied().filter(|&i| i != index).collect();
        let with_result = without(messages, &put_back);
        let baseline = self.boundary.permanent_400s(&after_sweep)?;
        let accepted = self.boundary.permanent_400s(&with_result)? <= baseline;
        let under_test = if accepted { sweeper } else { keeper } == self.rule;
        let invariant = match (accepted, under_test) {
            (true, true) => OVER_SWEEP,
            (true, false) => AGAINST_OVER_SWEEP,
            (false, true) => KEEPS_REJECTED,
            (false, false) => AGAINST_KEEPS_REJECTED,
        };
        let call_id = messages[index]
            .member("toolCallId")
            .unwrap_or(&JsValue::Null);
        // Keys sorted, as the summaries have always shown an id that is an object.
        let id =
            serde_json::to_string(&SortedKeys(call_id)).expect("a JSON value always serialises");
        let summary = if accepted {
            format!(
                "`{sweeper}` sweeps result {index} ({id}) that the provider accepts (`{keeper}` keeps it)"
            )
        } else {
            format!(
                "`{keeper}` keeps result {index} ({id}) that the provider rejects (`{sweeper}` sweeps it)"
            )
        };
        let evidence = DifferenceEvidence {
            index,
            tool_call_id: call_id.owned_copy(),
            sweeps: sweeper,
            keeps: keeper,
            provider_accepts: accepted,
        };
        Ok(Violation::charged(invariant, summary, evidence))
    }
}

/// What a difference between two sweeps shows: the result one sweeps and the other keeps, and
/// whether the provider accepts it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DifferenceEvidence {
    pub index: usize,
    pub tool_call_id: JsValue<'static>,
    #[serde(serialize_with = "write_name")]
    pub sweeps: BarrierRule,
    #[serde(serialize_with = "write_name")]
    pub keeps: BarrierRule,
    pub provider_accepts: bool,
}

impl Target for Differential {
    type Input = Transcript;
    type Variant = BarrierRule;
    type Output = BTreeMap<String, Vec<usize>>;

    fn build(rule: Option<BarrierRule>, profile: &Profile) -> Result<Differential> {
        Ok(Differential {
            rule: rule.unwrap_or_default(),
            against: profile.against.unwrap_or(DEFAULT_AGAINST),
            boundary: Boundary::from_profile(profile),
        })
    }

    fn name(&self) -> &'static str {
        "differential"
    }

    fn variant(&self) -> BarrierRule {
        self.rule
    }

    fn profile(&self) -> Profile {
        Profile {
            against: Some(self.against),
            ..self.boundary.profile()
        }
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Transcript> {
        generate(u).map(Transcript)
    }

    fn judge(&self, Transcript(messages): &Transcript) -> Judgement {
        let first = swept_positions(messages, self.rule);
        let second = swept_positions(messages, self.against);
        let differences = first
            .iter()
            .filter(|i| !second.contains(i))
            .map(|&i| (i, &first, self.rule, self.against))
            .chain(
                second
                    .iter()
                    .filter(|i| !first.contains(i))
                    .map(|&i| (i, &second, self.against, self.rule)),
            );
        let mut violations = Vec::new();
        for (index, swept, sweeper, keeper) in differences {
            match self.classify(messages, swept, index, sweeper, keeper) {
                Ok(violation) => violations.push(violation),
                Err(thrown) => return Judgement::CannotJudge(thrown.to_string()),
            }
        }
        Judgement::from_violations(violations)
    }

    /// The positions each rule sweeps, under the rule's name and `against` the other's.
    fn output(&self, Transcript(messages): &Transcript) -> Self::Output {
        BTreeMap::from([
            (
                self.rule.name().to_string(),
                swept_positions(messages, self.rule),
            ),
            (
                format!("against {}", self.against),
                swept_positions(messages, self.against),
            ),
        ])
    }

    fn shape(&self, transcript: &Transcript) -> String {
        shape(&transcript.0)
    }

    fn class(&self, violation: &Violation) -> Class {
        if violation.invariant == KEEPS_REJECTED {
            Class::Charged
        } else {
            Class::Informational
        }
    }

    fn explain(&self, transcript: &Transcript) -> Option<Explanation> {
        let request = |rule| {
            let messages = without(&transcript.0, &swept_positions(&transcript.0, rule));
            self.boundary.request_text(&messages)
        };
        Some(Explanation {
            expected_label: format!("request after `{}`", self.rule),
            expected: request(self.rule),
            actual_label: format!("request after `{}`", self.against),
            actual: request(self.against),
        })
    }
}
