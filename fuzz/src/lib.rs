//! What the cargo-fuzz targets of this package share: a libFuzzer input through a registered
//! target, answered the way libFuzzer reads it.

use libfuzzer_sys::Corpus;

/// mimalloc, as in the `ctxfuzz` binary, unless a sanitizer must see every allocation
/// (`build.rs`): a fixed corpus replays with 4 to 5% fewer instructions than with glibc's
/// `malloc` (docs/figures.md, session 21).
#[cfg(not(sanitized))]
#[global_allocator]
static ALLOCATOR: ctxfuzz::allocator::Mimalloc = ctxfuzz::allocator::Mimalloc;

/// [`ctxfuzz::harness::fuzz_one`] as libFuzzer's answer: `Corpus::Reject` for an input it says
/// not to keep (outsized, or no input at all), so libFuzzer runs it but never breeds on it.
pub fn run(target: &str, data: &[u8]) -> Corpus {
    if ctxfuzz::harness::fuzz_one(target, data) {
        Corpus::Keep
    } else {
        Corpus::Reject
    }
}
