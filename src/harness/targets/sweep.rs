//! Target `sweep`: a generated pi transcript → the orphan sweep under one barrier rule (or an
//! external program, `--sut`) → the oracle.
//!
//! The sweep's contract: no orphan result and no duplicate result on the wire (the two permanent
//! 400s, and `wire-valid` for the rules behind them), plus the four sweep invariants, with the twin
//! predicting under the contract rule (`strict`) whatever rule runs, so a rule that sweeps
//! differently (`allowlist`) is caught by `sweep-matches-twin`. A `tool_use` id repeated across the
//! request breaks `no-duplicate-tool-use-id` too, but lives in the assistants, which no sweep
//! touches: it is reported in its own section, not charged to the sweep. A finding is explained by the
//! provider's request built from the twin's prediction (expected) against the request built from the
//! sweep's output (actual): the diff shows the very `tool_result` the provider refuses.

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::sweep::{self as sweep_invariants, SweepRun, TwinRule};
use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation, wire};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::wire::WireRule;
use serde::Serialize;

use super::pi_transcript::{Boundary, Transcript, generate, shape};
use crate::harness::external::External;
use crate::harness::profile::Profile;
use crate::harness::supervisor::SUT_SLOW_START;
use crate::harness::target::{Class, Explanation, Target};
use crate::sweep::{BarrierRule, Kept, sweep, swept_ids};

/// A `tool_use` id repeated across the request: it sits in the assistants, which a sweep never
/// touches, so the sweep target reports it in its own section instead of charging the sweep.
const OUTSIDE_THE_SWEEP: WireRule = WireRule::DuplicateToolUseId;

pub(super) struct SweepTarget {
    rule: BarrierRule,
    boundary: Boundary,
    external: Option<External>,
}

/// What a case file pins for a transcript: the messages the sweep kept and the ids it swept, or
/// why an external program gave no answer.
#[derive(Serialize)]
#[serde(untagged)]
pub enum SweepOutput {
    Swept {
        messages: Vec<JsValue<'static>>,
        swept: Vec<String>,
    },
    NoAnswer {
        error: String,
    },
}

/// What one sweep did, as the invariants need it.
struct Run<'a> {
    output: Output<'a>,
    swept: Vec<String>,
    returned_input: bool,
    second_swept: Vec<String>,
}

/// The messages a sweep kept: borrowed from the input (the Rust sweep), or the program's answer.
enum Output<'a> {
    Kept(Kept<'a, JsValue<'static>>),
    Answer(Vec<JsValue<'static>>),
}

impl Output<'_> {
    fn refs(&self) -> Vec<&JsValue<'static>> {
        match self {
            Output::Kept(kept) => kept.refs(),
            Output::Answer(messages) => messages.iter().collect(),
        }
    }
}

impl SweepTarget {
    /// What the sweep did; for an external program that gave no usable answer, the judgement.
    fn run<'a>(&self, messages: &'a [JsValue<'static>]) -> Result<Run<'a>, Judgement> {
        let Some(external) = &self.external else {
            let first = sweep(messages, self.rule);
            let returned_input = first.messages.is_input(messages);
            // The Rust sweep is a function of its input: over an input it kept whole, a second
            // sweep would answer as the first did, so only an output it changed is swept again.
            let second_swept = if returned_input {
                first.swept.clone()
            } else {
                swept_ids(&first.messages.refs(), self.rule)
            };
            return Ok(Run {
                returned_input,
                second_swept,
                output: Output::Kept(first.messages),
                swept: first.swept,
            });
        };
        let (output, swept) = external.sweep(messages)?;
        let output: Vec<JsValue<'static>> = output.into_iter().map(JsValue::from).collect();
        if let Some(difference) = external.matches_rust(messages, &output, &swept, self.rule) {
            return Err(Judgement::Fail(vec![difference]));
        }
        let (_, second_swept) = external.sweep(&output)?;
        Ok(Run {
            // Identity cannot be observed through a pipe: a program is never charged for it.
            returned_input: swept.is_empty(),
            output: Output::Answer(output),
            swept,
            second_swept,
        })
    }
}

impl Target for SweepTarget {
    type Input = Transcript;
    type Variant = BarrierRule;
    type Output = SweepOutput;

    fn build(rule: Option<BarrierRule>, profile: &Profile) -> Result<SweepTarget> {
        Ok(SweepTarget {
            rule: rule.unwrap_or_default(),
            boundary: Boundary::from_profile(profile),
            external: profile
                .sut
                .as_deref()
                .map(|command| External::from_profile(command, profile)),
        })
    }

    fn name(&self) -> &'static str {
        "sweep"
    }

    fn variant(&self) -> BarrierRule {
        self.rule
    }

    fn profile(&self) -> Profile {
        let mut profile = self.boundary.profile();
        if let Some(external) = &self.external {
            external.record_in(&mut profile);
        }
        profile
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Transcript> {
        generate(u).map(Transcript)
    }

    fn judge(&self, Transcript(messages): &Transcript) -> Judgement {
        let run = match self.run(messages) {
            Ok(run) => run,
            Err(judgement) => return judgement,
        };
        let output = run.output.refs();
        let mut violations = sweep_invariants::check(&SweepRun {
            input: messages,
            output: &output,
            swept: &run.swept,
            returned_input: run.returned_input,
            second_swept: &run.second_swept,
            twin: TwinRule::CONTRACT,
        });
        match self.boundary.contract_violations(&output) {
            Ok(wire) => violations.extend(wire),
            Err(thrown) if violations.is_empty() => {
                return Judgement::CannotJudge(thrown.to_string());
            }
            Err(_) => {}
        }
        Judgement::from_violations(violations)
    }

    fn output(&self, Transcript(messages): &Transcript) -> Self::Output {
        match self.run(messages) {
            Ok(run) => SweepOutput::Swept {
                messages: run.output.refs().into_iter().cloned().collect(),
                swept: run.swept,
            },
            Err(judgement) => SweepOutput::NoAnswer {
                error: no_answer(&judgement),
            },
        }
    }

    fn shape(&self, transcript: &Transcript) -> String {
        shape(&transcript.0)
    }

    fn class(&self, violation: &Violation) -> Class {
        match violation.cause {
            Cause::Unpreventable(_) => Class::Unpreventable,
            // The sweep's contract is the Anthropic body's (docs/sweep.md): another API's rule is
            // shown, not charged (docs/fuzzing.md#providers).
            Cause::SystemUnderTest
                if violation
                    .evidence
                    .of::<wire::RejectionEvidence>()
                    .is_some_and(|evidence| evidence.rejection.rule == OUTSIDE_THE_SWEEP)
                    || violation.invariant == SUT_SLOW_START
                    || self.boundary.another_api(violation) =>
            {
                Class::Informational
            }
            Cause::SystemUnderTest => Class::Charged,
        }
    }

    fn explain(&self, Transcript(messages): &Transcript) -> Option<Explanation> {
        let predicted = sweep_invariants::twin_sweep(messages, TwinRule::CONTRACT);
        let expected: Vec<&JsValue> = messages
            .iter()
            .enumerate()
            .filter(|(i, _)| !predicted.contains(i))
            .map(|(_, m)| m)
            .collect();
        // An external program's answer is shown even when it broke an invariant of its own
        // (`sut-matches-rust`): that answer is the defect.
        let output: Result<Vec<JsValue>, Judgement> = match &self.external {
            Some(external) => external
                .sweep(messages)
                .map(|(output, _)| output.into_iter().map(JsValue::from).collect()),
            None => self
                .run(messages)
                .map(|run| run.output.refs().into_iter().cloned().collect()),
        };
        let actual = match output {
            Ok(output) => self.boundary.request_text(&output),
            Err(judgement) => format!("{}\n", no_answer(&judgement)),
        };
        Some(Explanation {
            expected_label: format!("request after the `{}` twin's sweep", TwinRule::CONTRACT),
            expected: self.boundary.request_text(&expected),
            actual_label: format!("request after the `{}` sweep", self.rule),
            actual,
        })
    }
}

/// Why an external program's run produced no output, in one line.
fn no_answer(judgement: &Judgement) -> String {
    match judgement {
        Judgement::Fail(violations) => violations
            .iter()
            .map(|v| v.summary.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        Judgement::CannotJudge(reason) => reason.clone(),
        Judgement::Pass => String::new(),
    }
}
