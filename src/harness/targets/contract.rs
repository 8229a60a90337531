//! Target `contract`: an external program (`--sut`) judged under a contract (`repair`, `cut`,
//! `prune`) in its own format (`--format`). Generated pi transcripts are written in the format by the oracle's
//! bridges; a transcript the format cannot express is skipped and counted by reason
//! ([`ContractTarget::skipped`]), never altered. Inputs, findings and case files are in the
//! program's format: a repair or prune input is the message array, a cut input `{"messages",
//! "target"}`.
//!
//! The profile names everything replay needs: `contract`, `format`, `sut` (the command), `marker`
//! (how the package marks a result it adds, or a pruner its notice), and the [`Limits`] of the [`Supervisor`] that runs
//! the program (docs/contracts.md has the protocol).

use std::collections::BTreeMap;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use arbitrary::Unstructured;
use ctxfuzz_oracles::contracts::{Contract, cut, prune, repair};
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::invariants::{Cause, Invariant, Judgement, Violation};
use serde_json::{Value, json};

use crate::generators::pi as pi_generator;
use crate::harness::profile::Profile;
use crate::harness::supervisor::{Failure, Limits, SUT_MALFORMED, Supervisor};
use crate::harness::target::{Class, DynTarget, Target};

/// The program answered `{"error": "..."}`: it refused or threw. Reported in its own class: no
/// contract promises that a package never refuses.
pub const SUT_THREW: Invariant = Invariant {
    id: "sut-threw",
    statement: "the program answers instead of refusing with `{\"error\": ...}` (informational)",
};

pub fn build(variant: Option<&str>, profile: &Profile) -> Result<Box<dyn DynTarget>> {
    let target = ContractTarget::from_profile(profile)?;
    if let Some(variant) = variant
        && variant != Target::variant(&target)
    {
        bail!(
            "the contract target's variant is `{}` (from the profile), not `{variant}`",
            Target::variant(&target)
        );
    }
    Ok(Box::new(target))
}

pub struct ContractTarget {
    contract: Contract,
    format: Format,
    marker: Option<String>,
    /// The published package this program adapts (`peer` and `package` of the profile), if any:
    /// recorded so a case file names the peer and its version.
    peer: Option<(String, String)>,
    supervisor: Supervisor,
    /// Generated transcripts the format cannot express, by reason.
    skipped: Mutex<BTreeMap<String, u64>>,
}

impl ContractTarget {
    /// The target the profile describes (`contract`, `format`, `sut`, optional `marker`).
    pub fn from_profile(profile: &Profile) -> Result<ContractTarget> {
        let contract: Contract = profile
            .contract
            .as_deref()
            .context("the contract target needs a contract (--contract repair|cut)")?
            .parse()
            .map_err(anyhow::Error::msg)?;
        if contract == Contract::Sweep {
            bail!(
                "the sweep contract is the `sweep` target (ctxfuzz fuzz --target sweep --sut CMD)"
            );
        }
        let format: Format = profile
            .format
            .as_deref()
            .unwrap_or("pi")
            .parse()
            .map_err(anyhow::Error::msg)?;
        let command = profile
            .sut
            .as_deref()
            .context("the contract target fuzzes an external program: add --sut CMD")?;
        Ok(ContractTarget {
            contract,
            format,
            marker: profile.marker.clone(),
            peer: profile.peer.clone().zip(profile.package.clone()),
            supervisor: Supervisor::new(command, Limits::from_profile(profile)),
            skipped: Mutex::default(),
        })
    }

    /// One request, one JSON object back; otherwise the judgement of the case: the program's
    /// fault, `sut-threw` for an `{"error": ...}` answer, `sut-malformed-output` for a line that is
    /// not a JSON object, or "cannot judge" when the wait was cut short.
    fn request(&self, request: &Value) -> Result<Value, Judgement> {
        let fail = |violation| Judgement::Fail(vec![violation]);
        let line = match self.supervisor.ask(&request.to_string()) {
            Ok(line) => line,
            Err(Failure::Fault(fault)) => return Err(fail(fault.violation())),
            Err(Failure::Stopped(why)) => return Err(Judgement::CannotJudge(why)),
        };
        let answer: Value = serde_json::from_str(&line).map_err(|e| {
            fail(malformed(
                &format!("not JSON ({e})"),
                &Value::String(line.clone()),
            ))
        })?;
        match answer.get("error") {
            _ if !answer.is_object() => Err(fail(malformed("not a JSON object", &answer))),
            Some(error) => Err(fail(Violation {
                invariant: SUT_THREW,
                cause: Cause::SystemUnderTest,
                summary: format!(
                    "the program refused: {}",
                    error
                        .as_str()
                        .map_or_else(|| error.to_string(), String::from)
                ),
                evidence: json!({"error": error}),
            })),
            None => Ok(answer),
        }
    }

    /// The program's repaired messages.
    fn repaired(&self, messages: &[Value]) -> Result<Vec<Value>, Judgement> {
        let answer = self.request(&json!({ "messages": messages }))?;
        match answer.get("messages") {
            Some(Value::Array(messages)) => Ok(messages.clone()),
            _ => Err(Judgement::Fail(vec![malformed(
                "no `messages` array",
                &answer,
            )])),
        }
    }

    fn boundary(&self, input: &Value) -> Result<Value, Judgement> {
        let answer = self.request(input)?;
        answer
            .get("boundary")
            .cloned()
            .ok_or_else(|| Judgement::Fail(vec![malformed("no `boundary`", &answer)]))
    }

    fn judge_repair(&self, messages: &[Value]) -> Result<Vec<Violation>, Judgement> {
        let output = self.repaired(messages)?;
        let again = self.repaired(&output)?;
        Ok(repair::check(&repair::RepairRun {
            format: self.format,
            input: messages,
            output: &output,
            again: &again,
            marker: self.marker.as_deref(),
        }))
    }
}

fn malformed(why: &str, answer: &Value) -> Violation {
    let shown: String = answer.to_string().chars().take(200).collect();
    Violation {
        invariant: SUT_MALFORMED,
        cause: Cause::SystemUnderTest,
        summary: format!("malformed answer: {why}"),
        evidence: json!({"answer": shown}),
    }
}

/// The messages of a cut input `{"messages": [...], "target": T}`.
fn cut_messages(input: &Value) -> Option<&[Value]> {
    input.get("messages")?.as_array().map(Vec::as_slice)
}

/// The `target` of a cut input, if it is a non-negative integer.
fn cut_target(input: &Value) -> Option<u64> {
    input.get("target")?.as_u64()
}

impl Target for ContractTarget {
    /// The program's own format: a repair input is the message array, a cut input
    /// `{"messages", "target"}` (which is which depends on the contract).
    type Input = Value;

    fn name(&self) -> &'static str {
        "contract"
    }

    fn variant(&self) -> String {
        format!("{}:{}", self.contract.name(), self.format)
    }

    fn profile(&self) -> Profile {
        let mut profile = Profile {
            contract: Some(self.contract.name().to_string()),
            format: Some(self.format.name().to_string()),
            marker: self.marker.clone(),
            peer: self.peer.as_ref().map(|(peer, _)| peer.clone()),
            package: self.peer.as_ref().map(|(_, package)| package.clone()),
            sut: Some(self.supervisor.command().to_string()),
            ..Profile::default()
        };
        self.supervisor.limits().record_in(&mut profile);
        profile
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
        let pi = pi_generator::transcript(u)?;
        let messages = match self.format.from_pi(&pi) {
            Ok(messages) => messages,
            Err(reason) => {
                *self
                    .skipped
                    .lock()
                    .expect("skip counter lock")
                    .entry(reason.key())
                    .or_default() += 1;
                return Err(arbitrary::Error::IncorrectFormat);
            }
        };
        Ok(match self.contract {
            Contract::Cut => {
                let target = u.int_in_range(0..=messages.len())?;
                json!({"messages": messages, "target": target})
            }
            _ => Value::Array(messages),
        })
    }

    fn judge(&self, input: &Value) -> Judgement {
        let judged = match self.contract {
            Contract::Cut => match cut_messages(input) {
                Some(messages) => self
                    .boundary(input)
                    .map(|n| cut::check(self.format, messages, cut_target(input), &n)),
                None => {
                    return Judgement::CannotJudge(
                        "a cut input is {\"messages\": [...], \"target\": T}".into(),
                    );
                }
            },
            contract => match input.as_array() {
                Some(messages) if contract == Contract::Prune => {
                    self.repaired(messages).map(|output| {
                        prune::check(self.format, messages, &output, self.marker.as_deref())
                    })
                }
                Some(messages) => self.judge_repair(messages),
                None => {
                    return Judgement::CannotJudge(
                        "a repair or prune input is a JSON array of messages".into(),
                    );
                }
            },
        };
        judged.map_or_else(|judgement| judgement, Judgement::from_violations)
    }

    fn output(&self, input: &Value) -> Value {
        let answer = match self.contract {
            Contract::Cut => self.boundary(input).map(|n| json!({"boundary": n})),
            _ => match input.as_array() {
                Some(messages) => self.repaired(messages).map(|m| json!({"messages": m})),
                None => return Value::Null,
            },
        };
        answer.unwrap_or_else(|judgement| match judgement {
            Judgement::Fail(violations) => json!({"error": violations[0].summary}),
            Judgement::CannotJudge(why) => json!({"error": why}),
            Judgement::Pass => Value::Null,
        })
    }

    fn class(&self, violation: &Violation) -> Class {
        match violation.cause {
            Cause::Unpreventable(_) => Class::Unpreventable,
            Cause::SystemUnderTest if violation.invariant == SUT_THREW => Class::Informational,
            Cause::SystemUnderTest => Class::Charged,
        }
    }

    fn cannot_express(&self) -> BTreeMap<String, u64> {
        self.skipped.lock().expect("skip counter lock").clone()
    }
}
