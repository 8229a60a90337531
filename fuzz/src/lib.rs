//! What the cargo-fuzz targets of this package share: a libFuzzer input through a registered
//! target, answered the way libFuzzer reads it.

use libfuzzer_sys::Corpus;

/// [`ctxfuzz::harness::fuzz_one`] as libFuzzer's answer: `Corpus::Reject` for an input it says
/// not to keep (outsized, or no input at all), so libFuzzer runs it but never breeds on it.
pub fn run(target: &str, data: &[u8]) -> Corpus {
    if ctxfuzz::harness::fuzz_one(target, data) {
        Corpus::Keep
    } else {
        Corpus::Reject
    }
}
