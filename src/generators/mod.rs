//! One description of transcript shapes (SPEC §6), with its faces:
//! - from `arbitrary` bytes ([`pi::transcript`]), for libFuzzer and the in-process fuzz loop;
//! - from a seed ([`seeded_bytes`]), so every generated case reproduces from one number;
//! - as a proptest strategy ([`strategy`]): bytes fed to the same decoder, so proptest's shrinking
//!   of the bytes shrinks the transcript (toward ordinary turns, see [`pi`]).
//!
//! [`shapes`] says which shapes a transcript has.

use arbitrary::Unstructured;
use proptest::prelude::*;

pub mod chat;
pub mod pi;
pub mod shapes;

/// `len` bytes from `seed` (fastrand's wyrand): the same seed gives the same bytes everywhere.
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut bytes = vec![0; len];
    rng.fill(&mut bytes);
    bytes
}

/// The proptest face of a byte decoder: up to `max_len` bytes, decoded by `decode`.
pub fn strategy<T: std::fmt::Debug>(
    decode: fn(&mut Unstructured<'_>) -> arbitrary::Result<T>,
    max_len: usize,
) -> impl Strategy<Value = T> {
    proptest::collection::vec(any::<u8>(), 0..=max_len)
        .prop_filter_map("the decoder rejected the bytes", move |bytes| {
            decode(&mut Unstructured::new(&bytes)).ok()
        })
}
