//! Independent models of what the provider boundary does to a transcript, and the invariants
//! ctxfuzz judges systems by.
//!
//! This crate never depends on the systems under test (the root `ctxfuzz` package): an oracle that
//! called the sweep or the compaction it judges would pass every test tautologically. Where a rule
//! has to be stated twice (the sweep's barrier rule, for instance), the copy here is a deliberate,
//! independent twin.
//!
//! The models read JSON values the way the JavaScript reads objects (missing field, wrong type,
//! `null`, truthiness), so they stay faithful to pi even on malformed input; the values borrow
//! their strings from the text they were read from (`js_value`).

pub mod contracts;
pub mod error;
pub mod formats;
pub mod invariants;
pub mod js;
pub mod js_string;
pub mod js_value;
pub mod json_text;
pub mod pi;
pub mod wire;

pub use error::Error;
