//! The options a target is built with: what `ctxfuzz fuzz` reads from its flags (one flag per
//! field) and a case file records under `profile`, so replay rebuilds the exact target.
//!
//! On disk a profile is a JSON object of the fields that are set (`{"pi": "1.6.0"}`); keys no
//! target knows are ignored, so a case file written by a newer ctxfuzz still replays. Each target
//! reads the fields it knows and records them back ([`super::Target::profile`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct Profile {
    /// The pi version whose behaviour the oracle models [default: the oracle's].
    #[arg(long, value_name = "VERSION")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pi: Option<String>,
    /// The second sweep rule of the `differential` target.
    #[arg(long, value_name = "RULE")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<String>,
    /// The sweep rule the `pipeline` target applies after the compaction, or `off`
    /// [default: strict].
    #[arg(long, value_name = "RULE")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
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
    /// Judge the external program (`--sut`) under a contract: `repair`, `cut`, `prune` or `sweep`
    /// (docs/contracts.md).
    #[arg(long, requires = "sut", value_name = "CONTRACT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// The transcript format the program speaks: pi, openai, anthropic, gemini, ai-sdk,
    /// langchain [default: pi].
    #[arg(long, requires = "contract", value_name = "FORMAT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
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
        let text = |flag, value: &Option<String>| value.clone().map(|v| (flag, v));
        let number = |flag, value: Option<u64>| value.map(|v| (flag, v.to_string()));
        [
            text("--contract", &self.contract),
            text("--format", &self.format),
            text("--marker", &self.marker),
            text("--peer", &self.peer),
            text("--package", &self.package),
            text("--against", &self.against),
            text("--sweep", &self.sweep),
            text("--pi", &self.pi),
            text("--sut", &self.sut),
            number("--sut-timeout-ms", self.sut_timeout_ms),
            number("--sut-startup-ms", self.sut_startup_ms),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}
