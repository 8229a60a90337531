//! cargo-fuzz target `pipeline`: the same code as `ctxfuzz fuzz --target pipeline`.
//! Without cargo-fuzz (`cargo run -p ctxfuzz-fuzz --bin pipeline -- FILE...`) it replays files on stable.
#![cfg_attr(fuzzing, no_main)]

libfuzzer_sys::fuzz_target!(init: ctxfuzz::harness::no_error_backtraces(), |data: &[u8]| -> libfuzzer_sys::Corpus { ctxfuzz_fuzz::run("pipeline", data) });

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    ctxfuzz::harness::replay_inputs("pipeline")
}
