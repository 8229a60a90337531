//! cargo-fuzz target `differential`: the same code as `ctxfuzz fuzz --target differential`.
//! Without cargo-fuzz (`cargo run -p ctxfuzz-fuzz --bin differential -- FILE...`) it replays files on stable.
#![cfg_attr(fuzzing, no_main)]

libfuzzer_sys::fuzz_target!(init: ctxfuzz::harness::no_error_backtraces(), |data: &[u8]| -> libfuzzer_sys::Corpus { ctxfuzz_fuzz::run("differential", data) });

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    ctxfuzz::harness::replay_inputs("differential")
}
