//! cargo-fuzz target `guard`: the same code as `ctxfuzz fuzz --target guard`.
//! Without cargo-fuzz (`cargo run -p ctxfuzz-fuzz --bin guard -- FILE...`) it replays files on stable.
#![cfg_attr(fuzzing, no_main)]

libfuzzer_sys::fuzz_target!(init: ctxfuzz::harness::no_error_backtraces(), |data: &[u8]| -> libfuzzer_sys::Corpus { ctxfuzz_fuzz::run("guard", data) });

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    ctxfuzz::harness::replay_inputs("guard")
}
