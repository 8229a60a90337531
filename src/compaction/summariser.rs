//! The summariser: a trait, the deterministic offline default (a fixed-size digest of the
//! region), and scripted behaviours for examples and fault injection.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::family::Family;

/// Why no summary came back (AutoBot's `SummarizationFailed`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    #[error("summarization call failed: {0}")]
    Call(String),
    #[error("LLM returned empty summary")]
    Empty,
}

pub trait Summariser {
    /// The raw summary of `region` (already clipped). Surrounding whitespace is trimmed by the
    /// caller and an empty result counts as a failure.
    fn summarise(&self, region: &[Cow<'_, Value>], family: Family) -> Result<String, SummaryError>;
}

/// The summariser behaviours a case file or the fuzzer can ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scripted {
    /// Offline and deterministic: counts and a 64-bit FNV-1a digest of the formatted region, so
    /// its size does not grow with the region.
    #[default]
    Digest,
    /// Always this text (the reference's worked examples use `"Summary."`).
    Fixed(String),
    /// The call fails with this cause.
    Error(String),
    /// The call returns an empty completion.
    Empty,
}

impl Summariser for Scripted {
    fn summarise(&self, region: &[Cow<'_, Value>], family: Family) -> Result<String, SummaryError> {
        match self {
            Scripted::Digest => Ok(digest(region, family)),
            Scripted::Fixed(text) => Ok(text.clone()),
            Scripted::Error(cause) => Err(SummaryError::Call(cause.clone())),
            Scripted::Empty => Ok(String::new()),
        }
    }
}

/// Calls `summariser` and applies AutoBot's post-processing: trim, and empty is a failure.
pub fn summarise(
    summariser: &dyn Summariser,
    region: &[Cow<'_, Value>],
    family: Family,
) -> Result<String, SummaryError> {
    let text = summariser.summarise(region, family)?;
    match text.trim() {
        "" => Err(SummaryError::Empty),
        trimmed => Ok(trimmed.to_string()),
    }
}

fn digest(region: &[Cow<'_, Value>], family: Family) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let (mut users, mut tools) = (0, 0);
    for message in region {
        users += usize::from(family.is_user(message));
        tools += usize::from(family.is_tool_result(message));
        // The line `role: text` of the summariser's prompt, hashed without building it.
        let text = family.text(message);
        for part in [family.role(message), ": ", &text, "\n"] {
            for byte in part.bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    format!(
        "Summary of {} earlier message(s): {users} user turn(s), {tools} tool result(s). Digest {hash:016x}.",
        region.len()
    )
}
