//! The harness: targets, the fuzz loop, minimisation, findings, external programs.

pub mod pi_bridge;
pub mod target;
pub mod targets;
