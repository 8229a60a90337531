//! The integration tests of the `ctxfuzz` package: one test binary (each extra binary links the
//! whole crate again), one module per topic, helpers shared through [`common`]. The slow modules
//! (the real-pi conformance runs, the fuzz loops, soaks, the known-defect catalog) are listed in
//! `.config/nextest.toml` so they start last under nextest.

mod action;
mod bridges;
mod check_in_parts;
mod cli_check_session;
mod cli_compact;
mod cli_render_check;
mod cli_scan;
mod cli_sweep;
mod common;
mod compaction_corpus;
mod compaction_examples;
mod compaction_family;
mod compaction_generators;
mod compaction_oracle;
mod compaction_overflow;
mod compaction_pipeline;
mod compaction_streamed;
mod compaction_variants;
mod conformance;
mod contracts;
mod corpus_replay;
mod docs;
mod explain;
mod external_sut;
mod fuzz_cli;
mod fuzz_loop;
mod generators;
mod guard;
mod guard_cli;
mod guard_properties;
mod guard_shrink;
mod harness;
mod layers;
mod lone_surrogates;
mod memory;
mod minimize;
mod mutants;
mod mutants_verdict;
mod mutation_gate;
mod names;
mod nightly;
mod package_npm;
mod package_python;
mod peers;
mod planted;
mod profile;
mod report;
mod session_generator;
mod session_in_parts;
mod soak;
mod sut_faults;
mod typed_bodies;
