//! A fuzz target: generates inputs, runs the system(s) under test on them, and asks the oracles
//! for a judgement. Every input is a `serde_json::Value` (a transcript, a schedule, ...), so the
//! same minimiser, case files and replay serve every target.
//!
//! The required methods are the target's logic; the provided ones have defaults that suit a target
//! whose input is a JSON document, and are overridden where a target knows better (how its
//! findings are grouped, what diff explains them, how libFuzzer bytes become an input).

use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation};
use serde_json::Value;

use super::profile::Profile;

pub trait Target: Send + Sync {
    /// The target's name as given to `ctxfuzz fuzz --target`.
    fn name(&self) -> &'static str;

    /// The variant of the system under test this instance runs (a sweep rule, a compaction
    /// policy, a guard variant): the key of a case file's `verdicts`.
    fn variant(&self) -> String;

    /// The configuration a case file records so replay rebuilds this exact target.
    fn profile(&self) -> Profile;

    /// One input from fuzz bytes (structure-aware).
    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Value>;

    /// Runs the system(s) under test on `input` and judges the result.
    fn judge(&self, input: &Value) -> Judgement;

    /// What the system under test produced for `input` (for diffs, and for case files that pin an
    /// exact output).
    fn output(&self, input: &Value) -> Value;

    /// Turns raw fuzz bytes (a libFuzzer input, or the in-process loop's seeded bytes) into an
    /// input. The default takes bytes that are a JSON array or object literally, so the libFuzzer
    /// seed corpus can be derived from readable case files (see [`Target::seed_bytes`]), and
    /// hands every other byte string to [`Target::generate`].
    fn decode(&self, bytes: &[u8]) -> arbitrary::Result<Value> {
        if matches!(bytes.first(), Some(b'[' | b'{'))
            && let Ok(value) = serde_json::from_slice::<Value>(bytes)
        {
            return Ok(value);
        }
        self.generate(&mut Unstructured::new(bytes))
    }

    /// The fuzz bytes that [`Target::decode`] turns back into `input`: how a case file becomes a
    /// libFuzzer seed.
    fn seed_bytes(&self, input: &Value) -> Vec<u8> {
        serde_json::to_vec(input).expect("a JSON value always serialises")
    }

    /// A short description of the input's shape, so findings that break the same invariant on
    /// differently shaped inputs are kept apart and the same bug found a thousand times is kept
    /// once. The default groups every failure of one invariant together.
    fn shape(&self, _input: &Value) -> String {
        String::new()
    }

    /// How a violation is reported: charged to the system under test (a finding that fails the
    /// run), in a section of its own that does not fail the run, or as unpreventable.
    fn class(&self, violation: &Violation) -> Class {
        match violation.cause {
            Cause::SystemUnderTest => Class::Charged,
            Cause::Unpreventable(_) => Class::Unpreventable,
        }
    }

    /// The two sides a finding is explained with, as text for a line diff: what a correct system
    /// would have produced and what this one did. `None` prints the output alone.
    fn explain(&self, _input: &Value) -> Option<Explanation> {
        None
    }
}

/// Where a violation is reported (see [`Target::class`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A finding against the system under test: `ctxfuzz fuzz` exits 1.
    Charged,
    /// A real difference worth showing in its own section that is not a defect of the system
    /// under test (for instance the documented over-sweep of the strict sweep rule).
    Informational,
    /// No system under test could have prevented it (the violation's cause says why).
    Unpreventable,
}

/// Two renderings a finding is explained with (see [`Target::explain`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub expected_label: String,
    pub expected: String,
    pub actual_label: String,
    pub actual: String,
}
