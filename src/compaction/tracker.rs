//! A model of AutoBot's `SessionTokenTracker` that records every call made to it, so the order of
//! reset, refill and delivery can be judged; and the failure backoff marker.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrackerCall {
    Reset,
    Add { prompt: u64, completion: u64 },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tracker {
    pub total_tokens: u64,
    pub message_count: u64,
    /// When the last summariser failure happened (the Redis marker), in seconds.
    pub failed_at: Option<u64>,
    pub calls: Vec<TrackerCall>,
}

impl Tracker {
    pub fn with_total(total_tokens: u64) -> Tracker {
        Tracker {
            total_tokens,
            ..Tracker::default()
        }
    }

    pub fn add(&mut self, prompt: u64, completion: u64) {
        self.total_tokens += prompt + completion;
        self.message_count += 1;
        self.calls.push(TrackerCall::Add { prompt, completion });
    }

    pub fn reset(&mut self) {
        self.total_tokens = 0;
        self.message_count = 0;
        self.calls.push(TrackerCall::Reset);
    }

    pub fn mark_failed(&mut self, now: u64) {
        self.failed_at = Some(now);
    }

    /// Whether a failure marker set within `backoff_secs` before `now` still stands.
    pub fn recently_failed(&self, now: u64, backoff_secs: u64) -> bool {
        self.failed_at
            .is_some_and(|at| now < at.saturating_add(backoff_secs))
    }
}
