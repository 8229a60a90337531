//! What an external program can do wrong, each kind with its stable id (the module doc of
//! [`super`] lists them), and why [`super::Supervisor::ask`] returned no answer.

use ctxfuzz_oracles::invariants::{Invariant, Violation};
use serde_json::Value;

pub const SUT_CRASH: Invariant = Invariant {
    id: "sut-crash",
    statement: "the program answers every request instead of exiting or closing its stdin",
};
pub const SUT_CLOSED_OUTPUT: Invariant = Invariant {
    id: "sut-closed-output",
    statement: "the program keeps its stdout open while it runs",
};
pub const SUT_HANG: Invariant = Invariant {
    id: "sut-hang",
    statement: "the program answers each request it read with a complete line, never silent for longer than the request's allowance",
};
pub const SUT_SLOW_START: Invariant = Invariant {
    id: "sut-slow-start",
    statement: "a fresh program reads its first request within the start-up allowance (informational: a slow start is no input's fault)",
};
pub const SUT_MALFORMED: Invariant = Invariant {
    id: "sut-malformed-output",
    statement: "each answer is one line of UTF-8 within the size limit holding one JSON object of the protocol's shape",
};
pub const SUT_EXTRA_OUTPUT: Invariant = Invariant {
    id: "sut-extra-output",
    statement: "the program prints one answer per request and nothing nobody asked for",
};

/// The kinds of misbehaviour, each with its stable id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    Crash,
    ClosedOutput,
    Hang,
    SlowStart,
    Malformed,
    ExtraOutput,
}

impl FaultKind {
    pub(super) const ALL: [FaultKind; 6] = [
        FaultKind::Crash,
        FaultKind::ClosedOutput,
        FaultKind::Hang,
        FaultKind::SlowStart,
        FaultKind::Malformed,
        FaultKind::ExtraOutput,
    ];

    /// The kind of fault `violation` is, if it is one: the program gave no answer to judge.
    pub fn of(violation: &Violation) -> Option<FaultKind> {
        FaultKind::ALL
            .into_iter()
            .find(|kind| kind.invariant().id == violation.invariant.id)
    }

    pub fn invariant(self) -> Invariant {
        match self {
            FaultKind::Crash => SUT_CRASH,
            FaultKind::ClosedOutput => SUT_CLOSED_OUTPUT,
            FaultKind::Hang => SUT_HANG,
            FaultKind::SlowStart => SUT_SLOW_START,
            FaultKind::Malformed => SUT_MALFORMED,
            FaultKind::ExtraOutput => SUT_EXTRA_OUTPUT,
        }
    }
}

/// A program's misbehaviour: what happened, for people, and the evidence (always `command`,
/// `elapsed_ms` and `stderr`; `status` once the program exited; more per kind).
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramFault {
    pub kind: FaultKind,
    pub summary: String,
    pub evidence: Value,
}

impl ProgramFault {
    /// The fault as a violation charged to the system under test, named by its id.
    pub fn violation(&self) -> Violation {
        Violation::charged(
            self.kind.invariant(),
            self.summary.clone(),
            self.evidence.clone(),
        )
    }
}

/// Why [`Supervisor::ask`] returned no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The program misbehaved: a finding.
    Fault(ProgramFault),
    /// The wait was cut short by the caller (a signal, the run's end, a budget): not a finding.
    Stopped(String),
}
