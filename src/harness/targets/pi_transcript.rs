//! What every target over a pi transcript shares: the provider boundary it judges against (the pi
//! version and the provider), how an input is read as a transcript, how one is generated, and the
//! key of its shapes (for de-duplicating findings).
//!
//! The Anthropic body is judged by the wire invariants, with each rejection's cause and known
//! shape; the body of any other provider by its API's rules (`body_rejections`), each rule it
//! breaks one `wire-valid` violation. pi builds that body after its own repairs, so every
//! rejection is one each retry draws again: all of them count as permanent 400s. Which rewriter
//! could have prevented one is not modelled for those APIs (docs/fuzzing.md#providers).

use std::borrow::Borrow;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::wire::{self, BodyRejection};
use ctxfuzz_oracles::invariants::{Judgement, Violation, write_name};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::pi::{self, Api, Body, PiVersion, Provider, Thrown};
use serde::{Deserialize, Deserializer, Serialize};

use crate::generators::pi as pi_generator;
use crate::harness::profile::{PiRelease, Profile};
use crate::harness::target::Explanation;
use crate::transcript::build::Build;
use crate::transcript::shapes;

/// The provider boundary a target judges against: the pi version and the provider.
pub(super) struct Boundary {
    pub pi: PiVersion,
    /// The release `--pi` named, recorded back (`None`: the oracle's default).
    pub release: Option<PiRelease>,
    /// The provider `--provider` named, recorded back (`None`: Anthropic, as a case file written
    /// before providers were recorded was judged).
    named: Option<Provider>,
    provider: Provider,
    /// The provider's model, which the oracle takes for every case.
    model: &'static JsValue<'static>,
}

impl Boundary {
    pub fn from_profile(profile: &Profile) -> Self {
        let provider = profile.provider.unwrap_or_default();
        Boundary {
            pi: profile
                .pi
                .as_ref()
                .map_or_else(PiVersion::default, PiRelease::version),
            release: profile.pi.clone(),
            named: profile.provider,
            provider,
            model: provider.model(),
        }
    }

    /// The rules the body of a provider other than Anthropic breaks, one `wire-valid` violation
    /// each; `None` for the Anthropic body, `Err` when pi itself would throw.
    fn body_violations<'a, M: Borrow<JsValue<'a>>>(
        &self,
        messages: &'a [M],
    ) -> Option<Result<Vec<Violation>, Thrown>> {
        let judged = wire::body_rejections(messages, self.model, self.provider.api(), self.pi)?;
        Some(judged.map(|found| found.iter().map(|r| self.violation(r)).collect()))
    }

    /// One rejection as a violation: charged to the system under test unless its target says
    /// otherwise (the sweep shows it in its own class, [`Boundary::another_api`]).
    fn violation(&self, rejection: &BodyRejection) -> Violation {
        let BodyRejection {
            rule,
            location,
            text,
        } = rejection;
        let summary = format!("{}: {location} breaks {rule}: {text}", self.provider);
        let evidence = BodyEvidence {
            provider: self.provider,
            rejection: rejection.clone(),
        };
        Violation::charged(wire::WIRE_VALID, summary, evidence)
    }

    /// The verdict on the body pi builds for `messages`, as `ctxfuzz check --provider` gives it.
    pub fn judge<'a, M: Borrow<JsValue<'a>>>(&self, messages: &'a [M]) -> Judgement {
        match self.body_violations(messages) {
            None => wire::judge(messages, self.model, self.pi),
            Some(Ok(violations)) => Judgement::from_violations(violations),
            Some(Err(thrown)) => Judgement::CannotJudge(thrown.to_string()),
        }
    }

    /// The violations of `messages` behind the permanent 400s (a missing result, say, is pi's to
    /// repair in the Anthropic body); `Err` when pi itself would throw.
    pub fn contract_violations<'a, M: Borrow<JsValue<'a>>>(
        &self,
        messages: &'a [M],
    ) -> Result<Vec<Violation>, Thrown> {
        self.body_violations(messages)
            .unwrap_or_else(|| wire::permanent(messages, self.model, self.pi))
    }

    /// How many permanent 400s `messages` draw, read as [`JsValue`]s (or references to them):
    /// for a target that compares several subsets of one transcript.
    pub fn permanent_400s<'a, M: Borrow<JsValue<'a>>>(
        &self,
        messages: &'a [M],
    ) -> Result<usize, Thrown> {
        match wire::body_rejections(messages, self.model, self.provider.api(), self.pi) {
            Some(judged) => judged.map(|found| found.len()),
            None => wire::permanent_count(messages, self.model, self.pi),
        }
    }

    /// The request pi would send for `messages`, pretty-printed (or why pi throws): the
    /// Anthropic body's messages, or the whole body of any other API (its one list).
    pub fn request_text<'a, M: Borrow<JsValue<'a>>>(&self, messages: &'a [M]) -> String {
        let body =
            pi::render(messages, self.model, self.provider.api(), self.pi).and_then(|rendered| {
                match rendered.body(self.model, self.pi)? {
                    Body::Anthropic(request) => Ok(Explanation::json_text(&request.messages)),
                    Body::OpenAiCompletions(body) => Ok(Explanation::json_text(&body)),
                    Body::OpenAiResponses(body) => Ok(Explanation::json_text(&body)),
                    Body::Google(body) => Ok(Explanation::json_text(&body)),
                }
            });
        body.unwrap_or_else(|thrown| format!("{thrown}\n"))
    }

    /// Whether `violation` is a rule of another API's body than Anthropic's, whose cause (which
    /// rewriter could have prevented it) is not modelled.
    pub fn another_api(&self, violation: &Violation) -> bool {
        self.provider.api() != Api::AnthropicMessages && violation.invariant == wire::WIRE_VALID
    }

    pub fn profile(&self) -> Profile {
        Profile {
            pi: self.release.clone(),
            provider: self.named,
            ..Profile::default()
        }
    }
}

/// What a rule broken in the body of an API other than Anthropic's shows: the provider, the
/// rule, where in the body, and the API's error text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BodyEvidence {
    #[serde(serialize_with = "write_name")]
    pub provider: Provider,
    #[serde(flatten)]
    pub rejection: BodyRejection,
}

pub(super) fn generate<B: Build>(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<B>> {
    pi_generator::transcript(u)
}

/// A transcript in the oracle's representation, generated as such ([`Build`]): what the sweep
/// target judges, and the compaction target compacts, without a conversion. A case file's
/// `input` (JSON) is read into it at the edge.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(transparent)]
pub(super) struct Transcript(pub Vec<JsValue<'static>>);

impl<'de> Deserialize<'de> for Transcript {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let messages = Vec::<JsValue>::deserialize(deserializer)?;
        Ok(Transcript(
            messages.iter().map(JsValue::owned_copy).collect(),
        ))
    }
}

/// The shapes (docs/fuzzing.md#shapes) of a (minimised) transcript, as one key.
pub(super) fn shape(messages: &[JsValue]) -> String {
    let names: Vec<String> = shapes::shapes(messages)
        .iter()
        .map(ToString::to_string)
        .collect();
    names.join(",")
}
