//! AutoBot's `check_and_protect`: count the turn's usage, warn at 80 % fill, compact at 90 %,
//! and back off for `backoff_secs` after a summariser failure instead of hammering the provider.

use std::borrow::Borrow;

use serde::Serialize;

use super::{Compaction, Compactor, Message, Outcome, Tracker, compact};

/// `AUTOBOT_CONTEXT_OVERFLOW_MODE`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    #[default]
    Auto,
    WarnOnly,
    Disabled,
}

/// The error text while the backoff marker stands.
pub const BACKING_OFF: &str = "summarization recently failed; backing off";

/// Fill fractions at which AutoBot warns and compacts (its constructor defaults).
const WARN_FILL: f64 = 0.80;
const COMPRESS_FILL: f64 = 0.90;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct Protection<'a, J: Clone, M = J> {
    pub warning_triggered: bool,
    pub summary_created: bool,
    pub summary_text: String,
    pub summary_error: String,
    pub current_fill: f64,
    pub total_tokens: u64,
    pub context_limit: u64,
    #[serde(skip)]
    pub compaction: Option<Compaction<'a, J, M>>,
}

/// The inputs of one overflow check besides the transcript.
#[derive(Debug, Clone, Copy)]
pub struct Turn {
    /// `(prompt_tokens, completion_tokens)` of the response just received, if reported.
    pub usage: Option<(u64, u64)>,
    pub context_limit: u64,
    pub mode: Mode,
    /// Seconds, for the backoff marker.
    pub now: u64,
}

pub fn check_and_protect<'a, J: Message, M: Borrow<J>>(
    messages: &'a [M],
    compactor: &Compactor,
    tracker: &mut Tracker,
    turn: Turn,
) -> Protection<'a, J, M> {
    if let Some((prompt, completion)) = turn.usage {
        tracker.add(prompt, completion);
    }
    let total = tracker.total_tokens;
    let fill = if turn.context_limit > 0 {
        total as f64 / turn.context_limit as f64
    } else {
        0.0
    };
    let mut result = Protection {
        warning_triggered: false,
        summary_created: false,
        summary_text: String::new(),
        summary_error: String::new(),
        current_fill: fill,
        total_tokens: total,
        context_limit: turn.context_limit,
        compaction: None,
    };
    if turn.mode == Mode::Disabled {
        return result;
    }
    result.warning_triggered = fill >= WARN_FILL;
    if turn.mode != Mode::Auto || fill < COMPRESS_FILL || messages.is_empty() {
        return result;
    }
    if tracker.recently_failed(turn.now, compactor.config.backoff_secs) {
        result.summary_error = BACKING_OFF.to_string();
        return result;
    }
    let compaction = compact(messages, compactor, tracker);
    match &compaction.decision.outcome {
        Outcome::Compacted => {
            result.summary_created = true;
            result.summary_text = compaction.decision.summary.clone();
        }
        Outcome::Failed { error } => {
            result.summary_error = error.clone();
            tracker.mark_failed(turn.now);
        }
        Outcome::NoCut | Outcome::NotSmaller { .. } => {}
    }
    result.compaction = Some(compaction);
    result
}
