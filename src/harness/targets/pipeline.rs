//! The `pipeline` target, in the order pi and its extensions apply them: compaction → sweep → pi's
//! `convertToLlm` and `transformMessages` → the provider's request → its API's rules, for pi
//! transcripts; for chat transcripts, compaction → the OpenAI chat validator.
//!
//! Generated transcripts are damaged on purpose, so the provider may refuse the original too. The
//! judgement is therefore differential: the compaction is charged only when the compacted request
//! breaks the provider's rules more often than the original, over a tool the original was fine
//! with (see `new_violations`). The
//! profile picks the pi version (`{"pi": "1.6.0"}`) and the sweep rule (`{"sweep": "strict"}`, or
//! `"off"` to see what a compaction does when nothing cleans up after it).

use std::borrow::Borrow;
use std::collections::HashSet;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation, wire};
use ctxfuzz_oracles::js_value::JsValue;

use super::compaction::{NamedConfig, generate_transcript};
use super::pi_transcript::{BodyEvidence, Boundary, Transcript};
use crate::compaction::{Compaction, Compactor, Family, Faults, Scripted, Tracker, compact};
use crate::harness::profile::{PiRelease, Profile, SweepAfter};
use crate::harness::target::Target;
use crate::sweep::{BarrierRule, Message as Swept, sweep};

pub const NAME: &str = "pipeline";

pub(super) struct PipelineTarget {
    variant: NamedConfig,
    boundary: Boundary,
    sweep: SweepAfter,
}

/// A message of a generated transcript: the oracle's own type, which the compaction, the sweep and
/// the validators all read (docs/decisions.md).
type Message = JsValue<'static>;

impl PipelineTarget {
    /// The compacted transcript: the summary message, then the kept messages, borrowed.
    fn compacted<'m>(&self, messages: &'m [Message]) -> (Family, Compaction<'m, Message>) {
        let family = Family::detect(messages);
        let compactor = Compactor {
            family,
            config: &self.variant.config,
            summariser: &Scripted::Digest,
            faults: Faults::default(),
        };
        let result = compact(messages, &compactor, &mut Tracker::default());
        (family, result)
    }

    /// What is sent after the sweep (if any), borrowed from `messages`.
    fn swept<'m, M: Swept<Json = Message>>(&self, messages: &'m [M]) -> Vec<&'m Message> {
        match self.sweep {
            SweepAfter::Rule(rule) => sweep(messages, rule).messages.refs(),
            SweepAfter::Off => messages.iter().map(Swept::json).collect(),
        }
    }

    /// The provider's verdict on `messages` after the rest of the pipeline.
    fn provider<M: Borrow<Message> + Swept<Json = Message>>(
        &self,
        family: Family,
        messages: &[M],
    ) -> Judgement {
        match family {
            Family::Pi => self.boundary.judge(&self.swept(messages)),
            Family::Chat => Judgement::from_violations(wire::judge_chat::<Message, M>(messages)),
        }
    }
}

impl Target for PipelineTarget {
    type Input = Transcript;
    type Variant = NamedConfig;
    type Output = Vec<JsValue<'static>>;

    fn build(variant: Option<NamedConfig>, profile: &Profile) -> Result<PipelineTarget> {
        Ok(PipelineTarget {
            variant: variant.unwrap_or_default(),
            boundary: Boundary::from_profile(profile),
            sweep: profile
                .sweep
                .unwrap_or(SweepAfter::Rule(BarrierRule::Strict)),
        })
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn variant(&self) -> NamedConfig {
        self.variant.clone()
    }

    fn profile(&self) -> Profile {
        // The pi release is recorded even when it is the default, as it always was here.
        let pi = self.boundary.release.clone();
        let pi = pi.unwrap_or_else(|| PiRelease::checked_against(self.boundary.pi));
        Profile {
            pi: Some(pi),
            sweep: Some(self.sweep),
            ..self.boundary.profile()
        }
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Transcript> {
        let family = if u.arbitrary::<bool>()? {
            Family::Pi
        } else {
            Family::Chat
        };
        generate_transcript(u, family).map(Transcript)
    }

    fn judge(&self, Transcript(messages): &Transcript) -> Judgement {
        let (family, compaction) = self.compacted(messages);
        let compacted: Vec<&Message> = compaction.messages().collect();
        let before = match self.provider(family, messages) {
            Judgement::CannotJudge(why) => return Judgement::CannotJudge(why),
            Judgement::Pass => Vec::new(),
            Judgement::Fail(violations) => violations,
        };
        match self.provider(family, &compacted) {
            Judgement::Fail(after) => Judgement::from_violations(new_violations(&before, after)),
            other => other,
        }
    }

    /// The request's messages after the compaction (and, for pi, the sweep).
    fn output(&self, Transcript(messages): &Transcript) -> Self::Output {
        let (family, compaction) = self.compacted(messages);
        let compacted: Vec<&Message> = compaction.messages().collect();
        let sent = match family {
            Family::Pi => self.swept(&compacted),
            Family::Chat => compacted,
        };
        sent.into_iter().cloned().collect()
    }
}

/// The charged violations of `after` when the compacted request breaks the provider's rules more
/// often (`wire-valid`, one per broken rule instance) than the original request does, and some of
/// them concern a tool id (for chat, an error) the original request had no problem with.
///
/// Matching violations one by one would charge the compaction with damage that was there before:
/// indices move when messages are summarised, and so do pi's tool ids and rule names (a result
/// whose cross-model call was summarised keeps its raw id instead of the sanitised one; a late
/// result that duplicated pi's synthetic becomes an orphan once the synthetic's call is gone; a
/// summary merged into the user turn of already orphaned results puts text before them). The
/// exact per-result check is the compaction target's `compaction-no-new-orphans`.
fn new_violations(before: &[Violation], after: Vec<Violation>) -> Vec<Violation> {
    let broken = |vs: &[Violation]| {
        vs.iter()
            .filter(|v| v.invariant == wire::WIRE_VALID)
            .count()
    };
    let known: HashSet<String> = before.iter().map(subject).collect();
    let fresh = after
        .iter()
        .any(|v| v.cause == Cause::SystemUnderTest && !known.contains(&subject(v)));
    if broken(&after) <= broken(before) || !fresh {
        return Vec::new();
    }
    after
        .into_iter()
        .filter(|v| v.cause == Cause::SystemUnderTest)
        .collect()
}

/// What a violation is about: the tool id it names (pi's Anthropic body; a result without an id is
/// about "no id", whichever rule and index name it), or the error text without message indices
/// (chat, whose errors name the ids, and the body of another API, whose texts name its ids where
/// the API's do).
fn subject(v: &Violation) -> String {
    let evidence = &v.evidence;
    if let Some(anthropic) = evidence.of::<wire::RejectionEvidence>() {
        return (anthropic.rejection.tool_use_id.as_deref())
            .unwrap_or("(no id)")
            .to_string();
    }
    let error = (evidence.of::<wire::ChatEvidence>().map(|chat| &chat.error)).or_else(|| {
        evidence
            .of::<BodyEvidence>()
            .map(|body| &body.rejection.text)
    });
    match error {
        Some(text) if !text.starts_with("Invalid type for 'messages[") => text.clone(),
        _ => String::new(),
    }
}
