//! The options a target is built with: what `ctxfuzz fuzz` reads from its flags (one flag per
//! field) and a case file records under `profile`, so replay rebuilds the exact target.
//!
//! On disk a profile is a JSON object of the fields that are set (`{"pi": "1.6.0"}`); keys no
//! target knows are ignored, so a case file written by a newer ctxfuzz still replays. Each target
//! reads the fields it knows and records them back ([`super::Target::profile`]).
//!
//! A field with a finite set of values (a pi version, a provider, a barrier rule, a contract, a
//! format) is held as its type, parsed once where the flag or the case file is read ([`as_text`]),
//! and written back as the same text; a bad name is refused there with the names accepted.

use std::fmt;
use std::str::FromStr;

use ctxfuzz_oracles::contracts::ContractKind;
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::pi::{PiVersion, Provider};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::error::Error;
use crate::sweep::BarrierRule;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct Profile {
    /// The pi version whose behaviour the oracle models [default: the oracle's].
    #[arg(long, value_name = "VERSION")]
    #[serde(with = "as_text", skip_serializing_if = "Option::is_none")]
    pub pi: Option<PiRelease>,
    /// The provider whose request body the pi-transcript targets judge (anthropic, openai,
    /// openrouter, groq, deepseek, google) [default: each case picks one, docs/fuzzing.md]; a case
    /// file without one was judged for anthropic.
    #[arg(long, value_name = "PROVIDER")]
    #[serde(with = "as_text", skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// The second sweep rule of the `differential` target.
    #[arg(long, value_name = "RULE")]
    #[serde(with = "as_text", skip_serializing_if = "Option::is_none")]
    pub against: Option<BarrierRule>,
    /// The sweep rule the `pipeline` target applies after the compaction, or `off`
    /// [default: strict].
    #[arg(long, value_name = "RULE")]
    #[serde(with = "as_text", skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepAfter>,
    /// An external program to fuzz instead of the Rust sweep (JSON lines on stdin/stdout).
    #[arg(long, value_name = "COMMAND")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sut: Option<String>,
    /// Milliseconds the program may stay silent while answering a request, plus 10 s per MiB of
    /// request [default: 2000].
    #[arg(long, requires = "sut", value_name = "MS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sut_timeout_ms: Option<u64>,
    /// Milliseconds a fresh program has to start reading its first request; longer is a slow start,
    /// reported in its own class [default: 60000].
    #[arg(long, requires = "sut", value_name = "MS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sut_startup_ms: Option<u64>,
    /// Judge the external program (`--sut`) under a contract: `repair`, `cut`, `prune`, `trim` or `sweep`
    /// (docs/contracts.md).
    #[arg(long, requires = "sut", value_name = "CONTRACT")]
    #[serde(with = "as_text", skip_serializing_if = "Option::is_none")]
    pub contract: Option<ContractKind>,
    /// The transcript format the program speaks: pi, openai, anthropic, gemini, ai-sdk,
    /// langchain [default: pi].
    #[arg(long, requires = "contract", value_name = "FORMAT")]
    #[serde(with = "as_text", skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// Text every result the program adds contains (how its package marks a synthetic result).
    #[arg(long, requires = "contract", value_name = "TEXT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    /// The peer the program adapts (its id in peers/), recorded in case files.
    #[arg(long, requires_all = ["contract", "package"], value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    /// The published package and version the peer runs, recorded in case files.
    #[arg(long, requires = "peer", value_name = "NAME@VERSION")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
}

impl Profile {
    /// A case file's `profile` (absent or `null`: every default); the error says which field is
    /// wrong.
    pub fn from_value(value: &Value) -> Result<Profile, Error> {
        if value.is_null() {
            return Ok(Profile::default());
        }
        Profile::deserialize(value).map_err(Error::NotAProfile)
    }

    /// The JSON object a case file records (keys sorted, unset fields left out).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a profile always serialises")
    }

    /// The `ctxfuzz fuzz` flags that rebuild this profile, in field order.
    pub fn flags(&self) -> Vec<(&'static str, String)> {
        fn flag(
            name: &'static str,
            value: &Option<impl fmt::Display>,
        ) -> Option<(&'static str, String)> {
            value.as_ref().map(|v| (name, v.to_string()))
        }
        [
            flag("--contract", &self.contract),
            flag("--format", &self.format),
            flag("--marker", &self.marker),
            flag("--peer", &self.peer),
            flag("--package", &self.package),
            flag("--against", &self.against),
            flag("--sweep", &self.sweep),
            flag("--pi", &self.pi),
            flag("--provider", &self.provider),
            flag("--sut", &self.sut),
            flag("--sut-timeout-ms", &self.sut_timeout_ms),
            flag("--sut-startup-ms", &self.sut_startup_ms),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// A pi release as `--pi` names it (`1.6.0`, `v0.87.1`): the [`PiVersion`] it selects, and its
/// text, which a case file records unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiRelease {
    text: String,
    version: PiVersion,
}

impl PiRelease {
    /// The release `version`'s model is checked against ([`PiVersion::checked_against`]).
    pub fn checked_against(version: PiVersion) -> PiRelease {
        PiRelease {
            text: version.checked_against().to_string(),
            version,
        }
    }

    /// The pi version whose behaviour the oracle models for this release.
    pub fn version(&self) -> PiVersion {
        self.version
    }
}

impl FromStr for PiRelease {
    type Err = ctxfuzz_oracles::Error;

    fn from_str(text: &str) -> Result<PiRelease, Self::Err> {
        Ok(PiRelease {
            version: PiVersion::from_version(text)?,
            text: text.to_string(),
        })
    }
}

impl fmt::Display for PiRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// What the `pipeline` target sends after the compaction: the transcript as it is (`off`) or
/// swept under a barrier rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepAfter {
    Off,
    Rule(BarrierRule),
}

impl FromStr for SweepAfter {
    type Err = Error;

    fn from_str(text: &str) -> Result<SweepAfter, Error> {
        match text {
            "off" => Ok(SweepAfter::Off),
            rule => Ok(SweepAfter::Rule(rule.parse()?)),
        }
    }
}

impl fmt::Display for SweepAfter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepAfter::Off => f.write_str("off"),
            SweepAfter::Rule(rule) => rule.fmt(f),
        }
    }
}

/// Serde for a profile field held as its type and written as its text (its `Display`, read back
/// by its `FromStr`): the text the command line takes, so a case file reads and writes unchanged.
pub mod as_text {
    use super::*;

    pub fn serialize<T: fmt::Display, S: Serializer>(
        value: &Option<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value.as_ref().map(T::to_string).serialize(serializer)
    }

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr<Err: fmt::Display>,
        D: Deserializer<'de>,
    {
        Option::<String>::deserialize(deserializer)?
            .map(|text| text.parse().map_err(serde::de::Error::custom))
            .transpose()
    }

    /// A field that must be present, read from its text (a peer manifest's `contract`).
    pub fn required<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr<Err: fmt::Display>,
        D: Deserializer<'de>,
    {
        String::deserialize(deserializer)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}
