//! Seeded faults: deliberately wrong versions of the model, each a plausible misreading of pi.
//!
//! They exist for the known-defect catalog (`ctxfuzz mutants`): an oracle that cannot be told
//! apart from a wrong oracle proves nothing, so each fault must make some golden vector (real pi
//! output) differ. The correct model is always the one without a fault.

/// One deliberate misreading of pi's behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `user` messages do not flush open calls (synthetic results only at assistants and the end).
    NoSyntheticAtUser,
    /// `error` / `aborted` assistants are kept instead of dropped after the flush.
    KeepErroredAssistants,
    /// Results are matched on their raw ids: the cross-model id map is not applied to them.
    CompareRawIds,
    /// Each tool result becomes its own user message instead of one per run of results.
    UnmergedResultRuns,
}
