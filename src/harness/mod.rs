//! The harness: targets, the fuzz loop, minimisation, findings, external programs.

pub mod target;
