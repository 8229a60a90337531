//! The summariser: its prompt (one `role: text` line per message of the clipped region, as
//! AutoBot's `_summarize_messages` formats it), a trait, the deterministic offline default (a
//! fixed-size digest of the prompt), and scripted behaviours for examples and fault injection.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::Message;
use super::facts::Fact;
use super::family::Family;

/// Why no summary came back (AutoBot's `SummarizationFailed`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    #[error("summarization call failed: {0}")]
    Call(String),
    #[error("LLM returned empty summary")]
    Empty,
}

/// One line of the prompt: a message's role and text (`Family::role`, `Family::text`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptLine<'a> {
    pub role: &'a str,
    pub text: Cow<'a, str>,
}

impl<'f> PromptLine<'f> {
    /// The line of a message of the region whose fact is `fact` (read before clipping); `clipped`
    /// is its clipped copy, if it was clipped ([`super::clip::clipped`]). A clipped copy is read
    /// again (its text is short, and copied, so the line outlives the copy); every other line
    /// comes from the fact.
    pub fn of<J: Message>(fact: &'f Fact<'_>, clipped: Option<&J>, family: Family) -> Self {
        PromptLine {
            role: &fact.role_name,
            text: match clipped {
                None => Cow::Borrowed(&fact.text),
                Some(copy) => Cow::Owned(family.text(family.role(copy), copy).into_owned()),
            },
        }
    }
}

pub trait Summariser {
    /// The raw summary of the region whose prompt is `prompt`. Surrounding whitespace is trimmed
    /// by the caller and an empty result counts as a failure.
    fn summarise(&self, prompt: &[PromptLine<'_>], family: Family) -> Result<String, SummaryError>;
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
    fn summarise(&self, prompt: &[PromptLine<'_>], family: Family) -> Result<String, SummaryError> {
        match self {
            Scripted::Digest => Ok(digest(prompt, family)),
            Scripted::Fixed(text) => Ok(text.clone()),
            Scripted::Error(cause) => Err(SummaryError::Call(cause.clone())),
            Scripted::Empty => Ok(String::new()),
        }
    }
}

/// Calls `summariser` and applies AutoBot's post-processing: trim, and empty is a failure.
pub fn summarise(
    summariser: &dyn Summariser,
    prompt: &[PromptLine<'_>],
    family: Family,
) -> Result<String, SummaryError> {
    let text = summariser.summarise(prompt, family)?;
    match text.trim() {
        "" => Err(SummaryError::Empty),
        trimmed => Ok(trimmed.to_string()),
    }
}

fn digest(prompt: &[PromptLine<'_>], family: Family) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let (mut users, mut tools) = (0, 0);
    for line in prompt {
        users += usize::from(line.role == "user");
        tools += usize::from(line.role == family.tool_role());
        // The line `role: text`, hashed without building it.
        for part in [line.role, ": ", &line.text, "\n"] {
            for byte in part.bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    format!(
        "Summary of {} earlier message(s): {users} user turn(s), {tools} tool result(s). Digest {hash:016x}.",
        prompt.len()
    )
}
