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
use std::fmt;
use std::str::FromStr;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::Judgement;
use ctxfuzz_oracles::invariants::compaction::{self as oracle, Contract};
use ctxfuzz_oracles::js::{Json, View};
use ctxfuzz_oracles::js_value::JsValue;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use typed_arena::Arena;

use crate::compaction::config::UnknownCompactionConfig;
use crate::compaction::overflow::{Mode, Turn, check_and_protect};
use crate::compaction::{
    Compaction, CompactionConfig, Compactor, Family, Faults, Outcome, Scripted, Tracker,
    TrackerCall, compact,
};
use crate::generators;
use crate::harness::profile::Profile;
use crate::harness::target::Target;
use crate::transcript::build::Build;

use super::pi_transcript::Transcript;

pub const NAME: &str = "compaction";

/// A compaction configuration by its name ([`CompactionConfig::named`]): the variant of the
/// compaction and pipeline targets.
#[derive(Debug, Clone)]
pub struct NamedConfig {
    name: String,
    pub config: CompactionConfig,
}

impl Default for NamedConfig {
    /// `cycle-safe`, the default configuration.
    fn default() -> NamedConfig {
        NamedConfig {
            name: "cycle-safe".to_string(),
            config: CompactionConfig::default(),
        }
    }
}

impl FromStr for NamedConfig {
    type Err = UnknownCompactionConfig;

    fn from_str(name: &str) -> Result<NamedConfig, UnknownCompactionConfig> {
        Ok(NamedConfig {
            config: CompactionConfig::named(name)?,
            name: name.to_string(),
        })
    }
}

impl fmt::Display for NamedConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

pub struct CompactionTarget {
    variant: NamedConfig,
    /// The oracle's reading of the configuration, made once: a case changes only the family and
    /// the knobs, which [`CompactionTarget::contract`] sets on a copy. Serialising the configuration for the
    /// oracle to read back was 4.6% of a case (docs/figures.md, session 20).
    contract: Contract,
}

impl CompactionTarget {
    pub fn new(variant: NamedConfig) -> CompactionTarget {
        let contract = Contract::from_json(
            "",
            &serde_json::to_value(&variant.config).expect("a configuration serialises"),
        );
        CompactionTarget { variant, contract }
    }

    /// The contract a case runs under: `config` is the target's with the case's knobs applied.
    fn contract(&self, config: &CompactionConfig, family: Family) -> Contract {
        Contract {
            pi: family == Family::Pi,
            user_message_cap: config.user_message_cap,
            clip_chars: config.clip_chars,
            state_command_cap: config.state_command_cap,
            ..self.contract.clone()
        }
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
    pub append: Transcript,
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
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct ScenarioInput(pub Scenario);

impl<'de> Deserialize<'de> for ScenarioInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScenarioVisitor)
    }
}

struct ScenarioVisitor;

impl<'de> Visitor<'de> for ScenarioVisitor {
    type Value = ScenarioInput;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a compaction scenario or an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ScenarioInput, A::Error> {
        let append = Transcript::deserialize(SeqAccessDeserializer::new(seq))?;
        Ok(ScenarioInput(Scenario {
            rounds: vec![RoundSpec {
                append,
                ..RoundSpec::default()
            }],
            ..Scenario::default()
        }))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ScenarioInput, A::Error> {
        Scenario::deserialize(MapAccessDeserializer::new(map))
            .map(ScenarioInput)
            .map_err(|e| de::Error::custom(format!("not a compaction scenario: {e}")))
    }
}

/// A message as the target generates, compacts and judges it.
type Message = JsValue<'static>;

/// One round as it ran. Every message is a reference into the scenario (the messages it appends)
/// or into the arena of the run (the summary messages and clipped copies the rounds made), so a
/// message carried from one round to the next is never copied.
pub struct RoundRun<'s> {
    /// The transcript handed to the compaction, which borrows it immutably: it is also the
    /// transcript after the call.
    pub input: Vec<&'s Message>,
    /// `None` when the overflow check did not attempt a compaction.
    pub compaction: Option<Record<'s>>,
    /// Tracker calls made by the compaction (a turn's usage is counted before it, not listed).
    pub tracker_calls: Vec<TrackerCall>,
    pub overflow: Option<OverflowReport>,
}

impl<'s> RoundRun<'s> {
    /// The transcript after the round: the input when nothing was attempted.
    fn output(&self) -> &[&'s Message] {
        self.compaction.as_ref().map_or(&self.input, |c| &c.output)
    }
}

/// What a compaction produced.
pub struct Record<'s> {
    pub output: Vec<&'s Message>,
    pub boundary: usize,
    pub picked: usize,
    pub summary: String,
    pub outcome: Outcome,
    pub summariser_input: Vec<&'s Message>,
}

impl<'s> Record<'s> {
    /// The record of `c`, a compaction of `input`; what it made goes to `made`.
    fn new(
        c: Compaction<'_, Message, &'s Message>,
        input: &[&'s Message],
        made: &'s Arena<Message>,
    ) -> Self {
        let summary_message = c
            .decision
            .summary_message
            .map(|message| &*made.alloc(message));
        Record {
            output: summary_message
                .into_iter()
                .chain(c.kept.iter().copied())
                .collect(),
            boundary: c.decision.boundary,
            picked: c.decision.picked,
            summary: c.decision.summary,
            outcome: c.decision.outcome,
            // The summariser reads the region, `input[..picked]`, message for message: a message
            // it borrowed from there is that reference again; anything else is kept as it was.
            summariser_input: c
                .summariser_input
                .into_iter()
                .enumerate()
                .map(|(i, seen)| match (seen, input.get(i)) {
                    (Cow::Borrowed(seen), Some(&own)) if std::ptr::eq(seen, own) => own,
                    (seen, _) => &*made.alloc(seen.into_owned()),
                })
                .collect(),
        }
    }
}

/// Runs every round of `scenario` under `config` (after applying the scenario's knobs); the
/// messages the rounds make go to `made`.
pub fn run<'s>(
    config: &CompactionConfig,
    scenario: &'s Scenario,
    made: &'s Arena<Message>,
) -> (CompactionConfig, Family, Vec<RoundRun<'s>>) {
    let mut config = config.clone();
    let knobs = &scenario.knobs;
    config.window = knobs.window.unwrap_or(config.window);
    config.user_message_cap = knobs.user_message_cap.unwrap_or(config.user_message_cap);
    config.clip_chars = knobs.clip_chars.unwrap_or(config.clip_chars);
    config.state_command_cap = knobs.state_command_cap.unwrap_or(config.state_command_cap);
    let family = scenario
        .family
        .unwrap_or_else(|| Family::detect(scenario.rounds.iter().flat_map(|r| &r.append.0)));
    let mut tracker = Tracker::with_total(scenario.tracker);
    let mut runs: Vec<RoundRun> = Vec::with_capacity(scenario.rounds.len());
    for spec in &scenario.rounds {
        let carried = runs.last().map_or(&[][..], RoundRun::output);
        let transcript: Vec<&Message> = carried.iter().copied().chain(&spec.append.0).collect();
        let compactor = Compactor {
            family,
            config: &config,
            summariser: &spec.summariser,
            faults: Faults {
                compose_fails: spec.compose_fails,
            },
        };
        let (compaction, overflow) = match spec.overflow {
            None => {
                let c = compact(&transcript, &compactor, &mut tracker);
                (Some(Record::new(c, &transcript, made)), None)
            }
            Some(o) => {
                let turn = Turn {
                    usage: o.usage,
                    context_limit: o.context_limit,
                    mode: Mode::Auto,
                    now: o.now,
                };
                let p = check_and_protect(&transcript, &compactor, &mut tracker, turn);
                if o.usage.is_some() {
                    tracker.calls.remove(0);
                }
                let report = OverflowReport {
                    warning_triggered: p.warning_triggered,
                    summary_created: p.summary_created,
                    summary_error: p.summary_error,
                    total_tokens: p.total_tokens,
                };
                let record = p.compaction.map(|c| Record::new(c, &transcript, made));
                (record, Some(report))
            }
        };
        runs.push(RoundRun {
            input: transcript,
            compaction,
            tracker_calls: std::mem::take(&mut tracker.calls),
            overflow,
        });
    }
    (config, family, runs)
}

impl Target for CompactionTarget {
    type Input = ScenarioInput;
    type Variant = NamedConfig;
    type Output = ScenarioOutput;

    fn build(variant: Option<NamedConfig>, _profile: &Profile) -> Result<CompactionTarget> {
        Ok(CompactionTarget::new(variant.unwrap_or_default()))
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn variant(&self) -> NamedConfig {
        self.variant.clone()
    }

    fn profile(&self) -> Profile {
        Profile::default()
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<ScenarioInput> {
        generate(u).map(ScenarioInput)
    }

    fn judge(&self, ScenarioInput(scenario): &ScenarioInput) -> Judgement {
        let made = Arena::new();
        let (config, family, runs) = run(&self.variant.config, scenario, &made);
        Judgement::from_violations(judge_runs(&self.contract(&config, family), &runs))
    }

    fn output(&self, ScenarioInput(scenario): &ScenarioInput) -> ScenarioOutput {
        let made = Arena::new();
        let (_, _, runs) = run(&self.variant.config, scenario, &made);
        ScenarioOutput {
            rounds: runs.iter().map(RoundOutput::of).collect(),
        }
    }
}

/// What a case file pins for a scenario: each round's compaction and overflow check.
#[derive(Serialize)]
pub struct ScenarioOutput {
    rounds: Vec<RoundOutput>,
}

/// What a case file pins for one round.
#[derive(Serialize)]
#[serde(untagged)]
enum RoundOutput {
    /// `attempted` is always `false`: the overflow check decided against a compaction.
    NotAttempted {
        attempted: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        overflow: Option<OverflowReport>,
    },
    Attempted {
        boundary: usize,
        picked: usize,
        outcome: Outcome,
        summary: String,
        summariser_input: Vec<Message>,
        tracker: Vec<TrackerCall>,
        #[serde(skip_serializing_if = "Option::is_none")]
        overflow: Option<OverflowReport>,
    },
}

impl RoundOutput {
    fn of(run: &RoundRun) -> RoundOutput {
        let overflow = run.overflow.clone();
        match &run.compaction {
            None => RoundOutput::NotAttempted {
                attempted: false,
                overflow,
            },
            Some(c) => RoundOutput::Attempted {
                boundary: c.boundary,
                picked: c.picked,
                outcome: c.outcome.clone(),
                summary: c.summary.clone(),
                summariser_input: c.summariser_input.iter().map(|&m| m.clone()).collect(),
                tracker: run.tracker_calls.clone(),
                overflow,
            },
        }
    }
}

/// What AutoBot's overflow check reported for a round that went through it.
#[derive(Debug, Clone, Serialize)]
pub struct OverflowReport {
    warning_triggered: bool,
    summary_created: bool,
    summary_error: String,
    total_tokens: u64,
}

/// The oracle's judgement of the rounds that attempted a compaction.
fn judge_runs(
    contract: &Contract,
    runs: &[RoundRun],
) -> Vec<ctxfuzz_oracles::invariants::Violation> {
    let attempted: Vec<(&RoundRun, &Record, Vec<oracle::TrackerCall>)> = runs
        .iter()
        .filter_map(|run| {
            let c = run.compaction.as_ref()?;
            Some((run, c, observed_tracker_calls(&run.tracker_calls)))
        })
        .collect();
    let rounds: Vec<oracle::Round<&Message>> = attempted
        .iter()
        .map(|(run, c, calls)| {
            oracle::Round {
                input: &run.input,
                // `compact` takes `&[&Message]`, so the borrow checker already proves it changed
                // nothing; a snapshot taken before the call cost a deep copy of every round.
                input_after: &run.input,
                output: &c.output,
                boundary: c.boundary,
                picked: c.picked,
                summary: &c.summary,
                summariser_input: &c.summariser_input,
                tracker_calls: calls,
            }
        })
        .collect();
    oracle::judge::<Message, _>(contract, &rounds)
}

/// The tracker calls as the oracle reads them.
pub fn observed_tracker_calls(calls: &[TrackerCall]) -> Vec<oracle::TrackerCall> {
    calls
        .iter()
        .map(|&call| match call {
            TrackerCall::Reset => oracle::TrackerCall::Reset,
            TrackerCall::Add { prompt, .. } => oracle::TrackerCall::Add { prompt },
        })
        .collect()
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
            append: Transcript(append),
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
pub fn generate_transcript<B: Build + Json + Serialize>(
    u: &mut Unstructured<'_>,
    family: Family,
) -> arbitrary::Result<Vec<B>> {
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
fn lengthen<B: Build + Json>(
    u: &mut Unstructured<'_>,
    mut messages: Vec<B>,
) -> arbitrary::Result<Vec<B>> {
    for message in &mut messages {
        let times = *u.choose(&[1usize, 1, 8, 40])?;
        if times == 1 {
            continue;
        }
        let Some(content) = message.member_mut("content") else {
            continue;
        };
        match content.items_mut() {
            Some(blocks) => {
                for text in blocks.iter_mut().filter_map(|b| b.member_mut("text")) {
                    repeat(text, times);
                }
            }
            None => repeat(content, times),
        }
    }
    Ok(messages)
}

/// A string `times` times, joined by spaces; anything else as it is.
fn repeat<B: Build + Json>(value: &mut B, times: usize) {
    if let View::String(text) = value.view() {
        *value = B::string(generators::repeated(text, times));
    }
}
