//! cargo-fuzz target `guard`: the same code as `ctxfuzz fuzz --target guard`.
//! Without cargo-fuzz (`cargo run -p ctxfuzz-fuzz --bin guard -- FILE...`) it replays files on stable.
#![cfg_attr(fuzzing, no_main)]

use libfuzzer_sys::{Corpus, fuzz_target};

fuzz_target!(init: ctxfuzz::harness::no_error_backtraces(), |data: &[u8]| -> Corpus {
    if ctxfuzz::harness::fuzz_one("guard", data) { Corpus::Keep } else { Corpus::Reject }
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    ctxfuzz::harness::replay_inputs("guard")
}
