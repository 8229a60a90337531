//! Target `contract`: an external program (`--sut`) judged under a contract (`repair`, `cut`,
//! `prune`, `trim`) in its own format (`--format`). Generated pi transcripts are written in the format by the oracle's
//! bridges; a transcript the format cannot express is skipped and counted by reason
//! ([`ContractTarget::skipped`]), never altered. Inputs, findings and case files are in the
//! program's format: a repair, prune or trim input is the message array, a cut input `{"messages",
//! "target"}`.
//!
//! The profile names everything replay needs: `contract`, `format`, `sut` (the command), `marker`
//! (how the package marks a result it adds, or a pruner or trimmer its notice), and the [`Limits`] of the [`Supervisor`] that runs
//! the program (docs/contracts.md has the protocol).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use arbitrary::Unstructured;
use ctxfuzz_oracles::contracts::{ContractKind, cut, prune, repair, trim};
use ctxfuzz_oracles::formats::{Format, Role};
use ctxfuzz_oracles::invariants::{Cause, Invariant, Judgement, Violation};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::generators::pi as pi_generator;
use crate::harness::profile::Profile;
use crate::harness::supervisor::{Failure, Limits, SUT_SLOW_START, Supervisor};
use crate::harness::target::{Class, Explanation, NO_ANSWER, Target};

/// The program answered `{"error": "..."}`: it refused or threw. Reported in its own class: no
/// contract promises that a package never refuses.
pub const SUT_THREW: Invariant = Invariant {
    id: "sut-threw",
    statement: "the program answers instead of refusing with `{\"error\": ...}` (informational)",
};

/// The contract target's variant, `CONTRACT:FORMAT` (`cut:openai`): what the profile sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContractFormat {
    pub contract: ContractKind,
    pub format: Format,
}

impl FromStr for ContractFormat {
    type Err = Error;

    fn from_str(text: &str) -> Result<ContractFormat, Error> {
        let (contract, format) = text
            .split_once(':')
            .ok_or_else(|| Error::NotContractFormat(text.to_string()))?;
        Ok(ContractFormat {
            contract: contract.parse()?,
            format: format.parse()?,
        })
    }
}

impl fmt::Display for ContractFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.contract, self.format)
    }
}

pub struct ContractTarget {
    contract: ContractKind,
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
        let contract = profile
            .contract
            .context("the contract target needs a contract (--contract repair|cut)")?;
        if contract == ContractKind::Sweep {
            bail!(
                "the sweep contract is the `sweep` target (ctxfuzz fuzz --target sweep --sut CMD)"
            );
        }
        let format = profile.format.unwrap_or(Format::Pi);
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

    /// One request; the answer's `field` (`messages`, an array, or `boundary`), or the judgement
    /// of the case: the program's fault (the supervisor's, `sut-malformed-output` included for an
    /// answer with neither `field` nor `error`), `sut-threw` for an `{"error": ...}` answer, or
    /// "cannot judge" when the wait was cut short.
    fn request(&self, request: &Value, field: &'static str) -> Result<Value, Judgement> {
        let shape = |mut answer: Map<String, Value>| {
            if let Some(error) = answer.remove("error") {
                return Ok(Err(error));
            }
            match answer.remove(field) {
                Some(value) if value.is_array() || field == "boundary" => Ok(Ok(value)),
                _ => Err(Error::AnswerLacks {
                    field,
                    array: field == "messages",
                }),
            }
        };
        let fail = |violation| Judgement::Fail(vec![violation]);
        match self.supervisor.ask(request, shape) {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(fail(Violation::charged(
                SUT_THREW,
                format!(
                    "the program refused: {}",
                    error
                        .as_str()
                        .map_or_else(|| error.to_string(), String::from)
                ),
                json!({"error": error}),
            ))),
            Err(Failure::Fault(fault)) => Err(fail(fault.violation())),
            Err(Failure::Stopped(why)) => Err(Judgement::CannotJudge(why)),
        }
    }

    /// The program's repaired messages.
    fn repaired(&self, messages: &[Value]) -> Result<Vec<Value>, Judgement> {
        match self.request(&json!({ "messages": messages }), "messages")? {
            Value::Array(messages) => Ok(messages),
            _ => unreachable!("the answer's shape is checked: `messages` is an array"),
        }
    }

    fn boundary(&self, input: &Value) -> Result<Value, Judgement> {
        self.request(input, "boundary")
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

impl ContractTarget {
    /// Each message as the format's reader sees it, one word: its role's initial, then `c`N for
    /// N calls and `r`N for N results (`a:c2`, `t:r1`, `u`).
    fn words(&self, messages: &[Value]) -> Vec<String> {
        self.format
            .view(messages)
            .iter()
            .map(|entry| {
                let mut word = match &entry.role {
                    Role::System => "s".to_string(),
                    Role::User => "u".to_string(),
                    Role::Assistant => "a".to_string(),
                    Role::Tool => "t".to_string(),
                    Role::Other(name) => format!("<{name}>"),
                };
                if !entry.calls.is_empty() {
                    word += &format!(":c{}", entry.calls.len());
                }
                if !entry.results.is_empty() {
                    word += &format!(":r{}", entry.results.len());
                }
                word
            })
            .collect()
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
    type Variant = ContractFormat;
    type Output = Value;

    /// The target the profile describes; a variant, if given, must be the profile's.
    fn build(variant: Option<ContractFormat>, profile: &Profile) -> Result<ContractTarget> {
        let target = ContractTarget::from_profile(profile)?;
        if let Some(variant) = variant
            && variant != target.variant()
        {
            bail!(
                "the contract target's variant is `{}` (from the profile), not `{variant}`",
                target.variant()
            );
        }
        Ok(target)
    }

    fn name(&self) -> &'static str {
        "contract"
    }

    fn variant(&self) -> ContractFormat {
        ContractFormat {
            contract: self.contract,
            format: self.format,
        }
    }

    fn profile(&self) -> Profile {
        let mut profile = Profile {
            contract: Some(self.contract),
            format: Some(self.format),
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
        let pi: Vec<JsValue> = pi_generator::transcript(u)?;
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
            ContractKind::Cut => {
                let target = u.int_in_range(0..=messages.len())?;
                json!({"messages": messages, "target": target})
            }
            _ => Value::Array(messages.iter().map(JsValue::to_value).collect()),
        })
    }

    /// A request the bridges could have written: no field the format's messages always carry is
    /// missing, and a cut request's target is an index into its messages.
    fn in_domain(&self, input: &Value) -> bool {
        let (messages, target_fits) = match self.contract {
            ContractKind::Cut => {
                let messages = cut_messages(input);
                let target = input.get("target").and_then(Value::as_u64);
                let fits = messages
                    .zip(target)
                    .is_some_and(|(messages, target)| target <= messages.len() as u64);
                (messages, fits)
            }
            _ => (input.as_array().map(Vec::as_slice), true),
        };
        target_fits && messages.is_some_and(|m| self.format.missing_field(m).is_none())
    }

    fn judge(&self, input: &Value) -> Judgement {
        let judged = match self.contract {
            ContractKind::Cut => match cut_messages(input) {
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
                Some(messages) if matches!(contract, ContractKind::Prune | ContractKind::Trim) => {
                    let removal = match contract {
                        ContractKind::Prune => &prune::PRUNE,
                        _ => &trim::TRIM,
                    };
                    self.repaired(messages).map(|output| {
                        removal.check(self.format, messages, &output, self.marker.as_deref())
                    })
                }
                Some(messages) => self.judge_repair(messages),
                None => {
                    return Judgement::CannotJudge(
                        "a repair, prune or trim input is a JSON array of messages".into(),
                    );
                }
            },
        };
        judged.map_or_else(|judgement| judgement, Judgement::from_violations)
    }

    fn output(&self, input: &Value) -> Value {
        let answer = match self.contract {
            ContractKind::Cut => self.boundary(input).map(|n| json!({"boundary": n})),
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

    /// The program's answer beside what it was given, one message a line, so the diff shows
    /// what it dropped, added or changed; for a cut, the messages with the requested target and
    /// the program's boundary marked.
    fn explain(&self, input: &Value) -> Option<Explanation> {
        let listing = |messages: &[Value], mark: Option<(usize, String)>| {
            let mut text = String::new();
            for (at, message) in messages.iter().enumerate() {
                if let Some((_, label)) = mark.as_ref().filter(|(m, _)| *m == at) {
                    text += &format!("── {label} ──\n");
                }
                text += &format!("{message}\n");
            }
            if let Some((_, label)) = mark.filter(|(m, _)| *m >= messages.len()) {
                text += &format!("── {label} ──\n");
            }
            text
        };
        let refused =
            |judgement: Judgement| format!("(no answer: {})\n", judgement.verdict().join(", "));
        if self.contract == ContractKind::Cut {
            let messages = cut_messages(input)?;
            let target = input.get("target").cloned().unwrap_or(Value::Null);
            let mark = |at: &Value, label: String| at.as_u64().map(|at| (at as usize, label));
            let actual = match self.boundary(input) {
                Ok(boundary) => {
                    match mark(&boundary, format!("boundary {boundary}: kept from here")) {
                        Some(mark) => listing(messages, Some(mark)),
                        None => format!("(boundary {boundary}: not an index)\n"),
                    }
                }
                Err(judgement) => refused(judgement),
            };
            return Some(Explanation {
                expected_label: format!("the request, target {target}"),
                expected: listing(messages, mark(&target, format!("target {target}"))),
                actual_label: "the program's cut".to_string(),
                actual,
            });
        }
        let messages = input.as_array()?;
        Some(Explanation {
            expected_label: "the input, one message a line".to_string(),
            expected: listing(messages, None),
            actual_label: "the program's answer".to_string(),
            actual: self
                .repaired(messages)
                .map_or_else(refused, |output| listing(&output, None)),
        })
    }

    /// What the program did, in the words of [`ContractTarget::words`]: for a repair or a prune,
    /// the messages it removed (`-u`) and added (`+t:r1`), each kind once, sorted (`=` when it
    /// changed nothing); for a cut, the messages on either side of its boundary (`a:c1 | t:r1`),
    /// or `no cut` (0) and `all summarised` (the end). Two minimised findings of one invariant
    /// with the same change are one defect however long their transcripts; a different change is
    /// a different shape of it.
    fn shape(&self, input: &Value) -> String {
        if self.contract == ContractKind::Cut {
            let words = self.words(cut_messages(input).unwrap_or_default());
            return match self.boundary(input) {
                Ok(boundary) => match boundary.as_u64().map(|n| n as usize) {
                    Some(0) => "no cut".to_string(),
                    Some(n) if n == words.len() => "all summarised".to_string(),
                    Some(n) if n < words.len() => format!(
                        "{} | {}",
                        n.checked_sub(1)
                            .map_or("^", |before| words[before].as_str()),
                        words.get(n).map_or("$", String::as_str)
                    ),
                    _ => format!("boundary {boundary}"),
                },
                Err(_) => NO_ANSWER.to_string(),
            };
        }
        let messages = input.as_array().map(Vec::as_slice).unwrap_or_default();
        let Ok(output) = self.repaired(messages) else {
            return NO_ANSWER.to_string();
        };
        let (before, after) = (self.words(messages), self.words(&output));
        let mut change = std::collections::BTreeSet::new();
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &before, &after) {
            let (old, new) = (op.old_range(), op.new_range());
            if op.tag() != similar::DiffTag::Equal {
                change.extend(before[old].iter().map(|word| format!("-{word}")));
                change.extend(after[new].iter().map(|word| format!("+{word}")));
            }
        }
        if change.is_empty() {
            return "=".to_string();
        }
        change.into_iter().collect::<Vec<_>>().join(" ")
    }

    fn class(&self, violation: &Violation) -> Class {
        match violation.cause {
            Cause::Unpreventable(_) => Class::Unpreventable,
            Cause::SystemUnderTest
                if violation.invariant == SUT_THREW || violation.invariant == SUT_SLOW_START =>
            {
                Class::Informational
            }
            Cause::SystemUnderTest => Class::Charged,
        }
    }

    fn cannot_express(&self) -> BTreeMap<String, u64> {
        self.skipped.lock().expect("skip counter lock").clone()
    }
}
