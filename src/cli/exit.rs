//! How every command ends: one exit code per outcome, the same in every command.

/// The outcome of a command, as its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// 0: nothing found (a clean run, check, scan or replay; a command that printed its answer).
    Clean,
    /// 1: findings or violations (a replay that no longer matches, pi throwing on the input).
    Findings,
    /// 2: bad input or usage, told in one line on stderr (never a panic).
    BadInput,
    /// 128 + the signal: a signal stopped the run, and the summary is the run so far.
    Stopped(i32),
}

impl ExitCode {
    /// `Findings` when anything was found, `Clean` otherwise.
    pub fn found(anything: bool) -> ExitCode {
        if anything {
            ExitCode::Findings
        } else {
            ExitCode::Clean
        }
    }

    /// The number the process exits with.
    pub fn code(self) -> u8 {
        match self {
            ExitCode::Clean => 0,
            ExitCode::Findings => 1,
            ExitCode::BadInput => 2,
            ExitCode::Stopped(signal) => 128u8.saturating_add(signal as u8),
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(exit: ExitCode) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}
