//! Token estimates (`estimate_fast`): `len // 4` in code points. A message's estimate is that of
//! its `Family::text` (`Fact::tokens`), so both chat schemas count (the defect where API-schema
//! messages counted 0).

pub fn estimate(text: &str) -> u64 {
    from_chars(text.chars().count())
}

/// The estimate of a text of `chars` code points.
pub fn from_chars(chars: usize) -> u64 {
    (chars / 4) as u64
}
