//! cargo-fuzz target `oracle-json`: the same code as `ctxfuzz fuzz --target oracle-json`.
//! Without cargo-fuzz (`cargo run -p ctxfuzz-fuzz --bin oracle_json -- FILE...`) it replays files on stable.
#![cfg_attr(fuzzing, no_main)]

libfuzzer_sys::fuzz_target!(init: ctxfuzz::harness::no_error_backtraces(), |data: &[u8]| -> libfuzzer_sys::Corpus { ctxfuzz_fuzz::run("oracle-json", data) });

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    ctxfuzz::harness::replay_inputs("oracle-json")
}
