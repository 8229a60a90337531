//! ctxfuzz: differential testing and fuzzing of the code that rewrites an LLM agent's transcript
//! before a model provider sees it.
//!
//! The systems under test (`sweep`, `compaction`, `guard`) never call the oracles
//! (`ctxfuzz_oracles`); the harness is the only place where the two meet.

pub mod allocator;
pub mod cli;
pub mod compaction;
pub mod error;
pub mod generators;
pub mod guard;
pub mod harness;
pub mod mutants;
pub mod sweep;
pub mod transcript;
