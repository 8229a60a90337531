//! What an external program may take and print: the start-up allowance, the answer's allowance
//! in proportion to the request, the size of an answer, the stderr kept, the kill grace (the
//! module doc of [`super`] says how each is applied).

use std::time::Duration;

use crate::harness::profile::Profile;

/// What a program may take and print; see the module doc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The silence allowed to an answer, for the smallest request.
    pub answer: Duration,
    /// What a request's allowance grows by per MiB of request.
    pub per_mib: Duration,
    /// How long a fresh program may take to read its first request.
    pub startup: Duration,
    pub max_answer_bytes: usize,
    pub stderr_tail_bytes: usize,
    pub kill_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            answer: Duration::from_secs(2),
            per_mib: Duration::from_secs(10),
            startup: Duration::from_secs(60),
            max_answer_bytes: 16 << 20,
            stderr_tail_bytes: 4 << 10,
            kill_grace: Duration::from_millis(500),
        }
    }
}

impl Limits {
    /// The defaults, with the answer allowance of `profile.sut_timeout_ms` and the start-up
    /// allowance of `profile.sut_startup_ms` where a case file or the command line sets them.
    pub fn from_profile(profile: &Profile) -> Limits {
        let defaults = Limits::default();
        Limits {
            answer: profile
                .sut_timeout_ms
                .map_or(defaults.answer, Duration::from_millis),
            startup: profile
                .sut_startup_ms
                .map_or(defaults.startup, Duration::from_millis),
            ..defaults
        }
    }

    /// Adds the limits [`Limits::from_profile`] reads to a case file's profile.
    pub fn record_in(&self, profile: &mut Profile) {
        profile.sut_timeout_ms = Some(self.answer.as_millis() as u64);
        profile.sut_startup_ms = Some(self.startup.as_millis() as u64);
    }

    /// The silence allowed to the answer to a request of `request_bytes` bytes.
    pub fn allowance(&self, request_bytes: usize) -> Duration {
        self.answer
            + self
                .per_mib
                .mul_f64(request_bytes as f64 / (1u64 << 20) as f64)
    }
}
