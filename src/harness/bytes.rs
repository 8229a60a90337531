//! The fuzz bytes of one case, derived from (seed, case index) alone, so any single case of any
//! run can be regenerated without replaying the cases before it.

/// Upper bound on the bytes one case draws from: enough for a transcript of a few dozen
/// messages, small enough that filling the buffer stays a small part of an exec.
pub const MAX_CASE_BYTES: usize = 2048;

/// The one of `rotation` that judges the case `bytes` (a rotation of targets, one per provider):
/// chosen by the bytes' length, so a case picks the same one again from its bytes alone (a seed
/// and an index, or a libFuzzer input, whose first byte says how to decode it). `rotation` is
/// never empty.
pub fn pick<'r, T>(rotation: &'r [T], bytes: &[u8]) -> &'r T {
    &rotation[bytes.len() % rotation.len()]
}

/// Fills `buffer` with the bytes of case `index` of the run seeded with `seed`. The length varies
/// from case to case (short inputs find the small counterexamples, long ones reach deep shapes).
pub fn fill(seed: u64, index: u64, buffer: &mut Vec<u8>) {
    let mut rng = fastrand::Rng::with_seed(mix(seed, index));
    let len = rng.usize(..=MAX_CASE_BYTES);
    buffer.clear();
    buffer.resize(len, 0);
    rng.fill(buffer);
}

/// The bytes of case `index` of the run seeded with `seed`.
pub fn case_bytes(seed: u64, index: u64) -> Vec<u8> {
    let mut buffer = Vec::new();
    fill(seed, index, &mut buffer);
    buffer
}

/// SplitMix64 of the pair: neighbouring indices and seeds give unrelated streams.
fn mix(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a: a hash that is the same on every machine and every Rust version (file names).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_depends_on_seed_and_index_only() {
        assert_eq!(case_bytes(7, 1000), case_bytes(7, 1000));
        assert_ne!(case_bytes(7, 1000), case_bytes(7, 1001));
        assert_ne!(case_bytes(7, 1000), case_bytes(8, 1000));
    }

    #[test]
    fn lengths_vary_up_to_the_bound() {
        let lengths: Vec<usize> = (0..200).map(|i| case_bytes(1, i).len()).collect();
        assert!(lengths.iter().all(|&l| l <= MAX_CASE_BYTES));
        assert!(lengths.iter().any(|&l| l < MAX_CASE_BYTES / 4));
        assert!(lengths.iter().any(|&l| l > MAX_CASE_BYTES * 3 / 4));
    }
}
