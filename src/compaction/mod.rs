//! AutoBot context-overflow compaction over pi and chat transcripts: boundary policies, the
//! summariser, preserved user turns, extracted state, clipping, composition, token estimates, the
//! tracker and the overflow check, each in its own module and each configurable (`CompactionConfig`),
//! including the historical variants (`CompactionConfig::named`).
//!
//! A compaction reads the transcript twice: every message's facts first (`facts`), from which the
//! policy picks the boundary, then the region before it, one message at a time (`region`), which
//! concludes in a [`Decision`].

pub mod boundary;
pub mod clip;
pub mod compose;
pub mod config;
pub mod facts;
pub mod family;
pub mod overflow;
pub mod preserve;
pub mod region;
pub mod state;
pub mod streamed;
pub mod summariser;
pub mod tokens;
pub mod tracker;

use std::borrow::{Borrow, Cow};

use ctxfuzz_oracles::js::Json;
use serde::Serialize;

use crate::transcript::build::Build;

pub use config::{CompactionConfig, Policy};
pub use family::Family;
pub use region::Region;
pub use summariser::{Scripted, Summariser, SummaryError};
pub use tracker::{Tracker, TrackerCall};

/// What the compaction reads and writes messages as: the oracle's `JsValue`, borrowing from the
/// text it was read from (`ctxfuzz compact`) or owning its strings (the targets, whose cases are
/// generated or read from case files). `serde_json::Value`, which it also took until the targets
/// left it, spent a third of a case building, searching and dropping B-trees. Tool-call arguments
/// given as a JSON string are read by [`Build::parse_object`].
pub trait Message: Json + Build + Serialize {}

impl<J: Json + Build + Serialize> Message for J {}

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

/// What one compaction decided and wrote, whatever holds the messages it keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision<J> {
    pub family: Family,
    /// The message that replaces the summarised region (none when nothing was compacted).
    pub summary_message: Option<J>,
    /// The first kept index when compacted, 0 otherwise.
    pub boundary: usize,
    /// What the policy picked (the boundary, even when the compaction was then skipped or failed).
    pub picked: usize,
    /// The composed summary ("" when not compacted).
    pub summary: String,
    pub outcome: Outcome,
    pub state: state::State,
    pub preserved: Vec<String>,
    pub region_tokens: u64,
    pub summary_tokens: u64,
}

/// The result of one compaction of messages in memory: the decision, and what a report or an
/// oracle needs besides. The kept messages are borrowed from the input, so a compaction copies
/// nothing it keeps. The input holds messages `J`, or references to messages that live elsewhere
/// (`M = &J`: a caller that chains compactions keeps every message once).
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction<'a, J: Clone, M = J> {
    pub decision: Decision<J>,
    /// The kept messages (the whole input when nothing was compacted).
    pub kept: &'a [M],
    /// The clipped region exactly as the summariser received it.
    pub summariser_input: Vec<Cow<'a, J>>,
}

/// What a compaction runs with besides the transcript and the tracker: the transcript's family,
/// the user's configuration, the summariser, and the faults a defective variant injects.
#[derive(Clone, Copy)]
pub struct Compactor<'s> {
    pub family: Family,
    pub config: &'s CompactionConfig,
    pub summariser: &'s dyn Summariser,
    pub faults: Faults,
}

/// Compacts `messages` (never modified). `tracker` receives AutoBot's calls in AutoBot's order.
pub fn compact<'a, J: Message, M: Borrow<J>>(
    messages: &'a [M],
    compactor: &Compactor,
    tracker: &mut Tracker,
) -> Compaction<'a, J, M> {
    let facts = facts::Facts::read(messages, compactor.family);
    let mut region = Region::pick(&facts, compactor.family, compactor.config);
    let summariser_input = messages[..region.picked()]
        .iter()
        .map(|message| region.read(message.borrow()))
        .collect();
    let decision = region.conclude(compactor.summariser, compactor.faults, tracker);
    Compaction {
        kept: &messages[decision.boundary..],
        summariser_input,
        decision,
    }
}

impl<J: Message, M: Borrow<J>> Compaction<'_, J, M> {
    /// The new transcript: the summary message, then the kept messages (borrowed: writing it
    /// copies nothing; `.cloned()` for an owned transcript).
    pub fn messages(&self) -> impl Iterator<Item = &J> {
        self.decision
            .summary_message
            .iter()
            .chain(self.kept.iter().map(Borrow::borrow))
    }

    /// `{"messages", "boundary", "summary", "report"}`: the `--json` output of `ctxfuzz compact`.
    pub fn to_json<'r>(&'r self, tracker: &'r Tracker) -> JsonOutput<'r, Vec<&'r J>> {
        self.decision
            .to_json(self.messages().collect(), self.kept.len(), tracker)
    }
}

impl<J> Decision<J> {
    /// The report `ctxfuzz compact` prints (without the transcript), `kept` messages kept.
    pub fn report<'r>(&'r self, kept: usize, tracker: &'r Tracker) -> Report<'r> {
        Report {
            family: self.family,
            kept,
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

    /// The `--json` output with `messages` (the new transcript), `kept` of them kept.
    pub fn to_json<'r, Ms>(
        &'r self,
        messages: Ms,
        kept: usize,
        tracker: &'r Tracker,
    ) -> JsonOutput<'r, Ms> {
        JsonOutput {
            boundary: self.boundary,
            messages,
            report: self.report(kept, tracker),
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
pub struct JsonOutput<'r, Ms> {
    pub boundary: usize,
    pub messages: Ms,
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
