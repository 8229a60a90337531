//! The turn-end guard system under test: a deterministic model of pi 0.81.1's agent run loop
//! ([`session`]), the Firstmate guard extension in its three wirings ([`turnend`]), the schedules
//! that drive them ([`schedule`], [`generate`]), and the trace they produce ([`trace`]).
//!
//! Never calls the oracles: the `guard` fuzz target hands the trace to
//! `ctxfuzz_oracles::invariants::guard`, which judges it from the trace alone.

pub mod compare;
pub mod generate;
pub mod run_loop;
pub mod schedule;
pub mod trace;
pub mod turnend;

pub use run_loop::run;
pub use schedule::Schedule;
pub use trace::Trace;
pub use turnend::GuardWiring;
