//! A fuzz target: generates inputs, runs the system(s) under test on them, and asks the oracles
//! for a judgement. Every input is a `serde_json::Value` (a transcript, a schedule, ...), so the
//! same minimiser, case files and replay serve every target.

use arbitrary::Unstructured;
use ctxfuzz_oracles::invariants::Judgement;
use serde_json::Value;

pub trait Target: Send + Sync {
    /// The target's name as given to `ctxfuzz fuzz --target`.
    fn name(&self) -> &'static str;

    /// The variant of the system under test this instance runs (a sweep rule, a compaction
    /// policy, a guard variant): the key of a case file's `verdicts`.
    fn variant(&self) -> String;

    /// The configuration a case file records so replay rebuilds this exact target.
    fn profile(&self) -> Value;

    /// One input from fuzz bytes (structure-aware).
    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Value>;

    /// Runs the system(s) under test on `input` and judges the result.
    fn judge(&self, input: &Value) -> Judgement;

    /// What the system under test produced for `input` (for diffs, and for case files that pin an
    /// exact output).
    fn output(&self, input: &Value) -> Value;
}
