//! The `compaction` target: generated transcripts of both families, a random configuration of the
//! user's knobs, summariser faults, several rounds (each round compacts the previous round's output
//! plus new messages), judged by `ctxfuzz_oracles::invariants::compaction`.
//!
//! Its input is a scenario (a plain array of messages is one round with the defaults):
//!
//! ```json
//! {"family": "chat", "knobs": {"user_message_cap": 3}, "tracker": 0,
//!  "rounds": [{"append": [...], "summariser": "digest", "compose_fails": false,
//!              "overflow": {"context_limit": 1000, "now": 0}}]}
//! ```
//!
//! `summariser` is `"digest"`, `"empty"`, `{"fixed": TEXT}` or `{"error": CAUSE}`; with
//! `overflow` the round goes through AutoBot's `check_and_protect` (thresholds, backoff) instead of
//! compacting unconditionally. The variant names the compaction configuration
//! ([`CompactionConfig::named`]); the knobs override only the user's settings, never a variant's defect.

use std::borrow::Cow;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::Judgement;
use ctxfuzz_oracles::invariants::compaction::{self as oracle, Contract};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::compaction::overflow::{Mode, Turn, check_and_protect};
use crate::compaction::{
    Compaction, CompactionConfig, Family, Faults, Outcome, Scripted, Tracker, compact,
};
use crate::generators;
use crate::harness::profile::Profile;
use crate::harness::target::{DynTarget, Target};

pub const NAME: &str = "compaction";

pub fn build(variant: Option<&str>, _profile: &Profile) -> Result<Box<dyn DynTarget>> {
    Ok(Box::new(CompactionTarget::new(
        variant.unwrap_or("cycle-safe"),
    )?))
}

pub struct CompactionTarget {
    variant: String,
    config: CompactionConfig,
}

impl CompactionTarget {
    pub fn new(variant: &str) -> Result<CompactionTarget> {
        Ok(CompactionTarget {
            variant: variant.to_string(),
            config: CompactionConfig::named(variant)?,
        })
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    #[serde(default)]
    pub knobs: Knobs,
    /// The tracker's total before the first round.
    #[serde(default)]
    pub tracker: u64,
    pub rounds: Vec<RoundSpec>,
}

/// The user's settings a scenario may change (unset: the variant's value).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Knobs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_cap: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip_chars: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_command_cap: Option<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundSpec {
    /// Messages appended to the previous round's output (the first round: the transcript).
    #[serde(default)]
    pub append: Vec<Value>,
    #[serde(default)]
    pub summariser: Scripted,
    #[serde(default)]
    pub compose_fails: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<OverflowSpec>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverflowSpec {
    pub context_limit: u64,
    #[serde(default)]
    pub now: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<(u64, u64)>,
}

/// The target's input: a scenario, read from a scenario or from a bare array of messages (a
/// one-round scenario with the defaults); written as a scenario.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "Value")]
pub struct ScenarioInput(pub Scenario);

impl TryFrom<Value> for ScenarioInput {
    type Error = String;

    fn try_from(input: Value) -> Result<ScenarioInput, String> {
        match input {
            Value::Array(messages) => Ok(ScenarioInput(Scenario {
                rounds: vec![RoundSpec {
                    append: messages,
                    ..RoundSpec::default()
                }],
                ..Scenario::default()
            })),
            other => Scenario::deserialize(other)
                .map(ScenarioInput)
                .map_err(|e| format!("not a compaction scenario: {e}")),
        }
    }
}

/// One round as it ran.
pub struct RoundRun {
    /// The transcript handed to the compaction, which borrows it immutably: it is also the
    /// transcript after the call.
    pub input: Vec<Value>,
    /// `None` when the overflow check did not attempt a compaction.
    pub compaction: Option<Record>,
    /// Tracker calls made by the compaction (a turn's usage is counted before it, not listed).
    pub tracker_calls: Vec<Value>,
    pub overflow: Option<Value>,
}

impl RoundRun {
    /// The transcript after the round: the input when nothing was attempted.
    pub fn output(&self) -> Vec<&Value> {
        match &self.compaction {
            Some(c) => c.output(&self.input),
            None => self.input.iter().collect(),
        }
    }
}

/// What a compaction produced, kept beside the round's input it borrowed from: the summary
/// message and the clipped copies are owned, every other message is read from that input (by
/// [`Record::output`] and [`Record::summariser_input`]), so a round copies no message it keeps.
pub struct Record {
    pub summary_message: Option<Value>,
    /// The first kept index (`Compaction::kept` is `input[boundary..]`).
    pub boundary: usize,
    pub picked: usize,
    pub summary: String,
    pub outcome: Outcome,
    /// Per message the summariser received: the clipped copy, or `None` for the input's own.
    clipped: Vec<Option<Value>>,
}

impl Record {
    /// The compacted transcript of `input` (the round's input).
    pub fn output<'a>(&'a self, input: &'a [Value]) -> Vec<&'a Value> {
        self.summary_message
            .iter()
            .chain(&input[self.boundary..])
            .collect()
    }

    /// The region as the summariser received it.
    pub fn summariser_input<'a>(&'a self, input: &'a [Value]) -> Vec<&'a Value> {
        self.clipped
            .iter()
            .zip(input)
            .map(|(copy, own)| copy.as_ref().unwrap_or(own))
            .collect()
    }
}

impl From<Compaction<'_>> for Record {
    fn from(c: Compaction<'_>) -> Record {
        Record {
            summary_message: c.summary_message,
            boundary: c.boundary,
            picked: c.picked,
            summary: c.summary,
            outcome: c.outcome,
            clipped: c
                .summariser_input
                .into_iter()
                .map(|message| match message {
                    Cow::Owned(copy) => Some(copy),
                    Cow::Borrowed(_) => None,
                })
                .collect(),
        }
    }
}

/// Runs every round of `scenario` under `config` (after applying the scenario's knobs).
pub fn run(
    config: &CompactionConfig,
    scenario: &Scenario,
) -> (CompactionConfig, Family, Vec<RoundRun>) {
    let mut config = config.clone();
    let knobs = &scenario.knobs;
    config.window = knobs.window.unwrap_or(config.window);
    config.user_message_cap = knobs.user_message_cap.unwrap_or(config.user_message_cap);
    config.clip_chars = knobs.clip_chars.unwrap_or(config.clip_chars);
    config.state_command_cap = knobs.state_command_cap.unwrap_or(config.state_command_cap);
    let family = scenario
        .family
        .unwrap_or_else(|| Family::detect(scenario.rounds.iter().flat_map(|r| &r.append)));
    let mut tracker = Tracker::with_total(scenario.tracker);
    let mut runs: Vec<RoundRun> = Vec::with_capacity(scenario.rounds.len());
    for spec in &scenario.rounds {
        let mut transcript: Vec<Value> = runs
            .last()
            .map(|previous| previous.output().into_iter().cloned().collect())
            .unwrap_or_default();
        transcript.extend(spec.append.iter().cloned());
        let faults = Faults {
            compose_fails: spec.compose_fails,
        };
        tracker.calls.clear();
        let (compaction, overflow) = match spec.overflow {
            None => {
                let c = compact(
                    &transcript,
                    family,
                    &config,
                    &spec.summariser,
                    faults,
                    &mut tracker,
                );
                (Some(Record::from(c)), None)
            }
            Some(o) => {
                let turn = Turn {
                    usage: o.usage,
                    context_limit: o.context_limit,
                    mode: Mode::Auto,
                    now: o.now,
                };
                let p = check_and_protect(
                    &transcript,
                    family,
                    &config,
                    &spec.summariser,
                    faults,
                    &mut tracker,
                    turn,
                );
                if o.usage.is_some() {
                    tracker.calls.remove(0);
                }
                let report = json!({
                    "warning_triggered": p.warning_triggered,
                    "summary_created": p.summary_created,
                    "summary_error": p.summary_error,
                    "total_tokens": p.total_tokens,
                });
                (p.compaction.map(Record::from), Some(report))
            }
        };
        let tracker_calls = tracker
            .calls
            .iter()
            .map(|c| serde_json::to_value(c).expect("serialisable"))
            .collect();
        runs.push(RoundRun {
            input: transcript,
            compaction,
            tracker_calls,
            overflow,
        });
    }
    (config, family, runs)
}

impl Target for CompactionTarget {
    type Input = ScenarioInput;

    fn name(&self) -> &'static str {
        NAME
    }

    fn variant(&self) -> String {
        self.variant.clone()
    }

    fn profile(&self) -> Profile {
        Profile::default()
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<ScenarioInput> {
        generate(u).map(ScenarioInput)
    }

    fn judge(&self, ScenarioInput(scenario): &ScenarioInput) -> Judgement {
        let (config, family, runs) = run(&self.config, scenario);
        Judgement::from_violations(judge_runs(&config, family, &runs))
    }

    fn output(&self, ScenarioInput(scenario): &ScenarioInput) -> Value {
        let (_, _, runs) = run(&self.config, scenario);
        let rounds: Vec<Value> = runs.iter().map(round_output).collect();
        json!({"rounds": rounds})
    }
}

/// What a case file pins for one round.
fn round_output(run: &RoundRun) -> Value {
    let mut out = match &run.compaction {
        None => json!({"attempted": false}),
        Some(c) => json!({
            "boundary": c.boundary,
            "picked": c.picked,
            "outcome": c.outcome,
            "summary": c.summary,
            "summariser_input": c.summariser_input(&run.input),
            "tracker": run.tracker_calls,
        }),
    };
    if let Some(overflow) = &run.overflow {
        out["overflow"] = overflow.clone();
    }
    out
}

/// The oracle's judgement of the rounds that attempted a compaction.
pub fn judge_runs(
    config: &CompactionConfig,
    family: Family,
    runs: &[RoundRun],
) -> Vec<ctxfuzz_oracles::invariants::Violation> {
    let family_name = serde_json::to_value(family).expect("serialisable");
    let contract = Contract::from_json(
        family_name.as_str().unwrap_or(""),
        &serde_json::to_value(config).expect("serialisable"),
    );
    let attempted: Vec<(&RoundRun, &Record, Vec<&Value>, Vec<&Value>)> = runs
        .iter()
        .filter_map(|run| {
            let c = run.compaction.as_ref()?;
            Some((run, c, c.output(&run.input), c.summariser_input(&run.input)))
        })
        .collect();
    let rounds: Vec<oracle::Round<&Value>> = attempted
        .iter()
        .map(|(run, c, output, summariser_input)| oracle::Round {
            input: &run.input,
            // `compact` takes `&[Value]`, so the borrow checker already proves it changed
            // nothing; a snapshot taken before the call cost a deep copy of every round.
            input_after: &run.input,
            output,
            boundary: c.boundary,
            picked: c.picked,
            summary: &c.summary,
            summariser_input,
            tracker_calls: &run.tracker_calls,
        })
        .collect();
    oracle::judge(&contract, &rounds)
}

/// A scenario from fuzz bytes: either family, small knobs (so caps and clipping bite), one to
/// three rounds, and now and then a failing summariser or composition.
pub fn generate(u: &mut Unstructured<'_>) -> arbitrary::Result<Scenario> {
    let family = if u.arbitrary::<bool>()? {
        Family::Pi
    } else {
        Family::Chat
    };
    let knobs = Knobs {
        window: Some(*u.choose(&[10, 0, 1, 3])?),
        user_message_cap: Some(*u.choose(&[40, 1, 2, 3])?),
        clip_chars: Some(*u.choose(&[400, 4, 16, 64])?),
        state_command_cap: Some(*u.choose(&[10, 0, 1, 2])?),
    };
    let rounds = u.int_in_range(1..=3)?;
    let mut specs = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let append = generate_transcript(u, family)?;
        let summariser = match u.int_in_range(0..=19u8)? {
            0..=15 => Scripted::Digest,
            16 => Scripted::Error("provider 429".into()),
            17 => Scripted::Empty,
            18 => Scripted::Fixed("  \n ".into()),
            _ => Scripted::Fixed("A summary much longer than it should be. ".repeat(40)),
        };
        let compose_fails = u.int_in_range(0..=19u8)? == 0;
        specs.push(RoundSpec {
            append,
            summariser,
            compose_fails,
            overflow: None,
        });
    }
    Ok(Scenario {
        family: Some(family),
        knobs,
        tracker: 0,
        rounds: specs,
    })
}

/// One transcript of `family` from the shared generators.
pub fn generate_transcript(
    u: &mut Unstructured<'_>,
    family: Family,
) -> arbitrary::Result<Vec<Value>> {
    match family {
        Family::Pi => {
            let messages = generators::pi::transcript(u)?;
            lengthen(u, messages)
        }
        Family::Chat => generators::chat::transcript(u),
    }
}

/// Repeats some text blocks of a pi transcript so regions are large enough for a summary to be
/// worth it (the pi generator's texts are a few characters long).
fn lengthen(u: &mut Unstructured<'_>, mut messages: Vec<Value>) -> arbitrary::Result<Vec<Value>> {
    for message in &mut messages {
        let times = *u.choose(&[1usize, 1, 8, 40])?;
        if times == 1 {
            continue;
        }
        match message.get_mut("content") {
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    if let Some(Value::String(text)) = block.get_mut("text") {
                        *text = vec![text.as_str(); times].join(" ");
                    }
                }
            }
            Some(Value::String(text)) => *text = vec![text.as_str(); times].join(" "),
            _ => {}
        }
    }
    Ok(messages)
}
