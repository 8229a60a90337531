//! What every target over a pi transcript shares: the provider boundary it judges against (the pi
//! version and the model), how an input is read as a transcript, how one is generated, and the
//! key of its shapes (for de-duplicating findings).

use std::borrow::Borrow;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::Violation;
use ctxfuzz_oracles::invariants::wire;
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::pi::{self, Api, PiVersion, Thrown};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::generators::pi as pi_generator;
use crate::harness::profile::{PiRelease, Profile};
use crate::transcript::build::Build;
use crate::transcript::shapes;

/// The provider boundary a target judges against: the pi version and the model.
pub(super) struct Boundary {
    pub pi: PiVersion,
    /// The release `--pi` named, recorded back (`None`: the oracle's default).
    pub release: Option<PiRelease>,
    /// Read once for the oracle, which takes it for every case.
    pub model: JsValue<'static>,
}

impl Boundary {
    pub fn from_profile(profile: &Profile) -> Self {
        Boundary {
            pi: profile
                .pi
                .as_ref()
                .map_or_else(PiVersion::default, PiRelease::version),
            release: profile.pi.clone(),
            model: JsValue::from(pi::default_model()),
        }
    }

    /// The violations of `messages` behind the permanent 400s (a missing result, say, is pi's to
    /// repair); `Err` when pi itself would throw.
    pub fn contract_violations<'a, M: Borrow<JsValue<'a>>>(
        &self,
        messages: &'a [M],
    ) -> Result<Vec<Violation>, Thrown> {
        wire::permanent(messages, &self.model, self.pi)
    }

    /// How many permanent 400s `messages` draw, read as [`JsValue`]s (or references to them):
    /// for a target that compares several subsets of one transcript.
    pub fn permanent_400s<'a, M: Borrow<JsValue<'a>>>(
        &self,
        messages: &'a [M],
    ) -> Result<usize, Thrown> {
        wire::permanent_count(messages, &self.model, self.pi)
    }

    /// The Anthropic request pi would send for `messages`, pretty-printed (or why pi throws).
    pub fn request_text<M: Borrow<Value>>(&self, messages: &[M]) -> String {
        match pi::render(
            messages,
            &self.model.to_value(),
            Api::AnthropicMessages,
            self.pi,
        ) {
            Ok(rendered) => {
                serde_json::to_string_pretty(&rendered.body["messages"]).expect("JSON") + "\n"
            }
            Err(thrown) => format!("{thrown}\n"),
        }
    }

    pub fn profile(&self) -> Profile {
        Profile {
            pi: self.release.clone(),
            ..Profile::default()
        }
    }
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
        let messages = Vec::<Value>::deserialize(deserializer)?;
        Ok(Transcript(
            messages.into_iter().map(JsValue::from).collect(),
        ))
    }
}

impl Transcript {
    /// The messages as `Value`s, for the readers that take them (shapes, `render`).
    pub fn to_values(&self) -> Vec<Value> {
        self.0.iter().map(JsValue::to_value).collect()
    }
}

/// The shapes (docs/fuzzing.md#shapes) of a (minimised) transcript, as one key.
pub(super) fn shape(messages: &[Value]) -> String {
    let names: Vec<String> = shapes::shapes(messages)
        .iter()
        .map(ToString::to_string)
        .collect();
    names.join(",")
}
