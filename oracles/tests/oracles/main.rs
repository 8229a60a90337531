//! The integration tests of the `ctxfuzz-oracles` package: one test binary, one module per topic.

mod api_vectors;
mod common;
mod conformance_findings;
mod golden_vectors;
mod lone_surrogate_findings;
mod session_vectors;
mod wire_causes;
mod wire_parts;
