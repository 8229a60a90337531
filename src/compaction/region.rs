//! The summarised region, read once, in order, one message at a time: each message's clipped view
//! and its line of the summariser's prompt, the state its tool calls add, and the last message's
//! timestamp. [`Region::conclude`] then runs AutoBot's steps after the cut into a [`Decision`].
//! [`super::compact`] reads the region from a slice; `ctxfuzz compact` reads it from a file and
//! drops each message once read (docs/compaction.md#a-file-read-in-three-passes).

use std::borrow::Cow;

use super::config::{CompactionConfig, ComposeOrder};
use super::facts::Facts;
use super::family::Family;
use super::state::Extraction;
use super::summariser::{PromptLine, Summariser};
use super::{
    Decision, Faults, Message, Outcome, Tracker, boundary, clip, compose, family, preserve, state,
    summariser, tokens,
};

/// The region of one compaction, and what has been read of it; `J` is the messages' JSON type.
pub struct Region<'f, 'a, J> {
    facts: &'f Facts<'a>,
    family: Family,
    config: &'f CompactionConfig,
    picked: usize,
    prompt: Vec<PromptLine<'f>>,
    extraction: Extraction,
    timestamp: Option<J>,
}

impl<'f, 'a, J: Message> Region<'f, 'a, J> {
    /// The region `config.policy` picks in the transcript whose facts are `facts`.
    pub fn pick(facts: &'f Facts<'a>, family: Family, config: &'f CompactionConfig) -> Self {
        let picked = boundary::pick(facts, config);
        Region {
            facts,
            family,
            config,
            picked,
            prompt: Vec::with_capacity(picked),
            extraction: Extraction::default(),
            timestamp: None,
        }
    }

    /// The boundary the policy picked: the region is the transcript's first `picked` messages
    /// (none when there is no cut), and the caller reads exactly these, in order.
    pub fn picked(&self) -> usize {
        self.picked
    }

    /// Whether the region's message `at` has to be read: it may be clipped, it carries tool
    /// calls, or it is the last (whose timestamp the summary takes). Any other message's part is
    /// in its facts.
    pub fn needs(&self, at: usize) -> bool {
        let fact = &self.facts.messages[at];
        at + 1 == self.picked || fact.tool_calls || clip::applies(fact, self.config.clip_chars)
    }

    /// Reads the region's next message; returns its clipped view, as the summariser reads it.
    pub fn read<'m>(&mut self, message: &'m J) -> Cow<'m, J> {
        self.read_at(self.prompt.len(), message)
    }

    /// Reads the region's message `at`: the messages between the last one read and it, none of
    /// which [`Region::needs`] reading, are taken from their facts.
    pub fn read_at<'m>(&mut self, at: usize, message: &'m J) -> Cow<'m, J> {
        let facts = self.facts;
        for unread in facts.messages.range(self.prompt.len()..at) {
            self.prompt
                .push(PromptLine::of::<J>(unread, None, self.family));
        }
        let fact = &facts.messages[at];
        let clipped = clip::clipped(message, fact, self.config.clip_chars, self.config.clip_key);
        let copy = match &clipped {
            Cow::Borrowed(_) => None,
            Cow::Owned(copy) => Some(copy),
        };
        self.prompt.push(PromptLine::of(fact, copy, self.family));
        self.extraction
            .read(message, fact, self.family, self.config);
        if at + 1 == self.picked {
            self.timestamp = family::timestamp(message);
        }
        clipped
    }

    /// The order of steps is AutoBot's `_create_summary` after #14322: summarise the clipped
    /// region (a failure leaves the tracker untouched); estimate the kept messages; compose; only
    /// then reset the tracker and refill it, one call per kept message.
    pub fn conclude(
        self,
        summariser: &dyn Summariser,
        faults: Faults,
        tracker: &mut Tracker,
    ) -> Decision<J> {
        let Region {
            facts,
            family,
            config,
            picked,
            prompt,
            extraction,
            timestamp,
        } = self;
        let mut decision = Decision {
            family,
            summary_message: None,
            boundary: 0,
            picked,
            summary: String::new(),
            outcome: Outcome::NoCut,
            state: state::State::default(),
            preserved: Vec::new(),
            region_tokens: 0,
            summary_tokens: 0,
        };
        if picked == 0 {
            return decision;
        }
        debug_assert_eq!(
            prompt.len(),
            picked,
            "the whole region is read before the end"
        );
        let summary = match summariser::summarise(summariser, &prompt, family) {
            Ok(summary) => summary,
            Err(error) => {
                decision.outcome = Outcome::Failed {
                    error: error.to_string(),
                };
                return decision;
            }
        };
        let refill = |tracker: &mut Tracker| {
            tracker.reset();
            facts
                .messages
                .range(picked..facts.messages.len())
                .for_each(|fact| tracker.add(fact.tokens(), 0));
        };
        if config.compose_order == ComposeOrder::AfterReset {
            refill(tracker);
        }
        if faults.compose_fails {
            decision.outcome = Outcome::Failed {
                error: "composition failed: injected fault".to_string(),
            };
            return decision;
        }
        decision.state = extraction.finish();
        if config.preserve_user_turns {
            decision.preserved = preserve::preserved(
                facts.messages.range(0..picked),
                config.user_message_cap,
                config.carry_verbatim,
            );
        }
        let state_block = match config.state_block {
            true => state::render(&decision.state, config.state_command_cap),
            false => String::new(),
        };
        let composed = compose::compose(
            &summary,
            &state_block,
            &preserve::render(&decision.preserved),
        );
        decision.region_tokens = facts.tokens(0..picked);
        decision.summary_tokens = tokens::estimate(&composed);
        if config.skip_unless_smaller && decision.summary_tokens >= decision.region_tokens {
            decision.outcome = Outcome::NotSmaller {
                summary_tokens: decision.summary_tokens,
                region_tokens: decision.region_tokens,
            };
            return decision;
        }
        if config.compose_order == ComposeOrder::BeforeReset {
            refill(tracker);
        }
        let tokens_before = facts.tokens(0..facts.messages.len());
        decision.summary_message =
            Some(family.summary_message(&composed, tokens_before, timestamp));
        decision.boundary = picked;
        decision.summary = composed;
        decision.outcome = Outcome::Compacted;
        decision
    }
}
