//! cargo-fuzz target `answer_reader`: any bytes an external program could print, through the
//! supervisor's answer reader and the sweep answer parser (`harness::external::fuzz_answer_reader`).
//! Without cargo-fuzz (`cargo run -p ctxfuzz-fuzz --bin answer_reader -- FILE...`) it replays files.
#![cfg_attr(fuzzing, no_main)]

// Linked for its allocator (`fuzz/src/lib.rs`): this target calls nothing else of the package.
use ctxfuzz_fuzz as _;

libfuzzer_sys::fuzz_target!(init: ctxfuzz::harness::no_error_backtraces(), |data: &[u8]| ctxfuzz::harness::external::fuzz_answer_reader(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    ctxfuzz::harness::replay_files(
        "answer_reader",
        ctxfuzz::harness::external::fuzz_answer_reader,
    )
}
