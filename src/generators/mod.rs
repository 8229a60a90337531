//! One description of transcript shapes (docs/fuzzing.md#shapes), with its faces:
//! - from `arbitrary` bytes ([`pi::transcript`]), for libFuzzer and the in-process fuzz loop;
//! - from a seed ([`seeded_bytes`]), so every generated case reproduces from one number;
//! - as a proptest strategy ([`pi::strategy`]): the same turn decoder over one chunk of bytes per
//!   turn, so proptest's shrinking drops turns and moves each toward an ordinary turn.
//!
//! [`crate::transcript::shapes`] says which shapes a transcript has.

pub mod chat;
pub mod long_session;
pub mod pi;
pub mod session_file;

/// `len` bytes from `seed` (fastrand's wyrand): the same seed gives the same bytes everywhere.
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut bytes = vec![0; len];
    rng.fill(&mut bytes);
    bytes
}

/// `text` `times` times, separated by spaces (a long text from a short one). Written by doubling
/// (`str::repeat`) instead of joining a vector of `times` copies: joining was 6% of a compaction
/// case's instructions, and this takes a quarter of that off (the copying stays).
pub fn repeated(text: &str, times: usize) -> String {
    let mut joined = [text, " "].concat().repeat(times);
    joined.pop();
    joined
}
