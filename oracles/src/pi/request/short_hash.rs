//! pi-ai's `shortHash` (`utils/hash.js`): the short, stable ids its providers make from ids
//! another provider would refuse (an over-long `call|item` id, a message item id over 64
//! characters).

use crate::js_string::{self, JsChar};

/// pi-ai's `shortHash` (`utils/hash.js`): two 32-bit multiplicative hashes over the UTF-16 units,
/// mixed, written in base 36.
pub(crate) fn short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in js_string::code_units(text) {
        let unit = match unit {
            JsChar::Scalar(c) => c as u32,
            JsChar::Lone(unit) => u32::from(unit),
        };
        h1 = (h1 ^ unit).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ unit).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    base36(h2) + &base36(h1)
}

/// `n.toString(36)`.
fn base36(mut n: u32) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit(n % 36, 36).expect("a base-36 digit"));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}
