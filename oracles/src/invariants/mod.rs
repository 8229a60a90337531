//! Invariants: each has a stable id, a one-line statement, and a check that returns evidence.
//!
//! One module per system under test. Every check returns `Vec<Violation>` (empty = holds).

pub mod guard;
pub mod sweep;
pub mod wire;

use serde::Serialize;
use serde_json::Value;

/// Who is to blame for a violation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "reason")]
pub enum Cause {
    /// The system under test produced it: a finding charged to that system.
    SystemUnderTest,
    /// No system under test could have prevented it (pi's own cross-model id sanitising, ids the
    /// API refuses, call ids reused across turns). Still worth showing, in its own section.
    Unpreventable(&'static str),
}

/// One broken invariant, with the evidence a reader needs to see why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    /// Stable id, e.g. `no-orphan-result`.
    pub invariant: &'static str,
    pub cause: Cause,
    /// One line a person reads first.
    pub summary: String,
    /// Indices, ids, sizes: whatever locates the problem.
    pub evidence: Value,
}

/// What an oracle says about one input (after wasmtime's explicit oracle outcomes).
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    Pass,
    /// The input cannot be judged (for instance pi itself would throw on it); not a pass, not a
    /// finding.
    CannotJudge(String),
    Fail(Vec<Violation>),
}

impl Judgement {
    /// `Pass` when `violations` is empty, `Fail` otherwise.
    pub fn from_violations(violations: Vec<Violation>) -> Self {
        if violations.is_empty() {
            Judgement::Pass
        } else {
            Judgement::Fail(violations)
        }
    }

    /// The sorted, de-duplicated invariant ids this judgement reports (`cannot-judge` for an input
    /// that cannot be judged). This is the verdict recorded in case files.
    pub fn verdict(&self) -> Vec<String> {
        match self {
            Judgement::Pass => Vec::new(),
            Judgement::CannotJudge(_) => vec!["cannot-judge".to_string()],
            Judgement::Fail(violations) => {
                let mut ids: Vec<String> =
                    violations.iter().map(|v| v.invariant.to_string()).collect();
                ids.sort();
                ids.dedup();
                ids
            }
        }
    }
}

pub mod compaction;
