//! AutoBot context-overflow compaction over pi and chat transcripts: boundary policies, the
//! summariser, preserved user turns, extracted state, clipping, composition, token estimates, the
//! tracker and the overflow check, each in its own module and each configurable (`CompactionConfig`),
//! including the historical variants (`CompactionConfig::named`).
//!
//! The order of steps is AutoBot's `_create_summary` after #14322: pick the boundary; summarise
//! the clipped region (a failure leaves the tracker untouched); estimate the kept messages;
//! compose; only then reset the tracker and refill it, one call per kept message.

pub mod boundary;
pub mod clip;
pub mod compose;
pub mod config;
pub mod facts;
pub mod family;
pub mod overflow;
pub mod preserve;
pub mod state;
pub mod summariser;
pub mod tokens;
pub mod tracker;

use std::borrow::{Borrow, Cow};

use ctxfuzz_oracles::js::Json;
use serde::Serialize;
use serde_json::Value;

use crate::transcript::build::Build;

pub use config::{CompactionConfig, Policy};
pub use family::Family;
pub use summariser::{Scripted, Summariser, SummaryError};
pub use tracker::{Tracker, TrackerCall};

/// What the compaction reads and writes messages as: `serde_json::Value` (the command line, the
/// pipeline target, case files) or the oracle's `JsValue<'static>` (the compaction target, where
/// building, searching and dropping `Value`'s B-trees were a third of a case). Tool-call
/// arguments given as a JSON string are parsed into a `Value` and converted.
pub trait Message: Json + Build + From<Value> + Serialize {}

impl<J: Json + Build + From<Value> + Serialize> Message for J {}

/// Fault injection beyond the summariser's own failures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// Composition raises (in AutoBot a formatting bug raises its own `TypeError`): observable
    /// only through what the tracker saw before it.
    pub compose_fails: bool,
}

/// What happened, in one word plus its details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Outcome {
    Compacted,
    /// The policy found no valid cut: nothing summarised, the tracker untouched.
    NoCut,
    /// The composed summary was not smaller than the region it would replace.
    NotSmaller {
        summary_tokens: u64,
        region_tokens: u64,
    },
    /// The summariser or the composition failed; the error is surfaced, nothing replaced.
    Failed {
        error: String,
    },
}

/// The result of one compaction: the new transcript and everything a report or an oracle needs.
/// The kept messages are borrowed from the input, so a compaction copies nothing it keeps. The
/// input holds messages `J`, or references to messages that live elsewhere (`M = &J`: a caller
/// that chains compactions keeps every message once).
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction<'a, J: Clone = Value, M = J> {
    pub family: Family,
    /// The message that replaces the summarised region (none when nothing was compacted).
    pub summary_message: Option<J>,
    /// The kept messages (the whole input when nothing was compacted).
    pub kept: &'a [M],
    /// The first kept index when compacted, 0 otherwise.
    pub boundary: usize,
    /// What the policy picked (the boundary, even when the compaction was then skipped or failed).
    pub picked: usize,
    /// The composed summary ("" when not compacted).
    pub summary: String,
    pub outcome: Outcome,
    /// The clipped region exactly as the summariser received it.
    pub summariser_input: Vec<Cow<'a, J>>,
    pub state: state::State,
    pub preserved: Vec<String>,
    pub region_tokens: u64,
    pub summary_tokens: u64,
}

/// Compacts `messages` (never modified). `tracker` receives AutoBot's calls in AutoBot's order.
pub fn compact<'a, J: Message, M: Borrow<J>>(
    messages: &'a [M],
    family: Family,
    config: &CompactionConfig,
    summariser: &dyn Summariser,
    faults: Faults,
    tracker: &mut Tracker,
) -> Compaction<'a, J, M> {
    let facts = facts::Facts::read(messages, family);
    let picked = boundary::pick(&facts, config);
    let mut result = Compaction {
        family,
        summary_message: None,
        kept: messages,
        boundary: 0,
        picked,
        summary: String::new(),
        outcome: Outcome::NoCut,
        summariser_input: Vec::new(),
        state: state::State::default(),
        preserved: Vec::new(),
        region_tokens: 0,
        summary_tokens: 0,
    };
    if picked == 0 {
        return result;
    }
    let (region, kept) = messages.split_at(picked);
    let region_facts = &facts.messages[..picked];
    result.summariser_input =
        clip::clip_tool_results(region, region_facts, config.clip_chars, config.clip_key);
    let prompt = summariser::prompt(&result.summariser_input, region_facts, family);
    let summary = match summariser::summarise(summariser, &prompt, family) {
        Ok(summary) => summary,
        Err(error) => {
            result.outcome = Outcome::Failed {
                error: error.to_string(),
            };
            return result;
        }
    };
    let refill = |tracker: &mut Tracker| {
        tracker.reset();
        facts.messages[picked..]
            .iter()
            .for_each(|fact| tracker.add(fact.tokens(), 0));
    };
    if config.compose_order == config::ComposeOrder::AfterReset {
        refill(tracker);
    }
    if faults.compose_fails {
        result.outcome = Outcome::Failed {
            error: "composition failed: injected fault".to_string(),
        };
        return result;
    }
    result.state = state::extract(region, region_facts, family, config);
    if config.preserve_user_turns {
        result.preserved =
            preserve::preserved(region_facts, config.user_message_cap, config.carry_verbatim);
    }
    let state_block = match config.state_block {
        true => state::render(&result.state, config.state_command_cap),
        false => String::new(),
    };
    let composed = compose::compose(&summary, &state_block, &preserve::render(&result.preserved));
    result.region_tokens = facts.tokens(0..picked);
    result.summary_tokens = tokens::estimate(&composed);
    if config.skip_unless_smaller && result.summary_tokens >= result.region_tokens {
        result.outcome = Outcome::NotSmaller {
            summary_tokens: result.summary_tokens,
            region_tokens: result.region_tokens,
        };
        return result;
    }
    if config.compose_order == config::ComposeOrder::BeforeReset {
        refill(tracker);
    }
    let tokens_before = facts.tokens(0..messages.len());
    result.summary_message =
        Some(family.summary_message(&composed, tokens_before, region[region.len() - 1].borrow()));
    result.kept = kept;
    result.boundary = picked;
    result.summary = composed;
    result.outcome = Outcome::Compacted;
    result
}

impl<J: Message, M: Borrow<J>> Compaction<'_, J, M> {
    /// The new transcript: the summary message, then the kept messages (borrowed: writing it
    /// copies nothing; `.cloned()` for an owned transcript).
    pub fn messages(&self) -> impl Iterator<Item = &J> {
        self.summary_message
            .iter()
            .chain(self.kept.iter().map(Borrow::borrow))
    }

    /// The report `ctxfuzz compact` prints (without the transcript).
    pub fn report<'r>(&'r self, tracker: &'r Tracker) -> Report<'r> {
        Report {
            family: self.family,
            kept: self.kept.len(),
            outcome: &self.outcome,
            picked_boundary: self.picked,
            preserved_user_turns: self.preserved.len(),
            region_tokens: self.region_tokens,
            state: &self.state,
            summarised: self.boundary,
            summary_tokens: self.summary_tokens,
            tracker,
        }
    }

    /// `{"messages", "boundary", "summary", "report"}`: the `--json` output of `ctxfuzz compact`.
    pub fn to_json<'r>(&'r self, tracker: &'r Tracker) -> JsonOutput<'r, J> {
        JsonOutput {
            boundary: self.boundary,
            messages: self.messages().collect(),
            report: self.report(tracker),
            summary: &self.summary,
        }
    }
}

/// [`Compaction::to_json`], and [`Report`] in it, are serialised as they are written: as a
/// `serde_json::Value`, a million-message compaction copied its kept messages (1.3 GB) and the
/// tracker's refill, one call per kept message (0.5 GB). The fields of both are in the order
/// `Value` sorts an object's keys, as this output always had them; the objects inside the report
/// (`outcome`, `state`, `tracker`) now keep their declaration order, as the messages keep the
/// file's.
#[derive(Debug, Serialize)]
pub struct JsonOutput<'r, J> {
    pub boundary: usize,
    pub messages: Vec<&'r J>,
    pub report: Report<'r>,
    pub summary: &'r str,
}

/// [`Compaction::report`].
#[derive(Debug, Serialize)]
pub struct Report<'r> {
    pub family: Family,
    pub kept: usize,
    pub outcome: &'r Outcome,
    pub picked_boundary: usize,
    pub preserved_user_turns: usize,
    pub region_tokens: u64,
    pub state: &'r state::State,
    pub summarised: usize,
    pub summary_tokens: u64,
    pub tracker: &'r Tracker,
}
