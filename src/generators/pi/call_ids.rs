//! The call ids a generated transcript draws: fresh ones, numbered per transcript; ids pi's
//! sanitising collapses (`cx.0` and `cx|0`) or truncates alike (over 64 UTF-16 units); non-ASCII
//! and astral ones; each drawn by style, more of the hostile ones for another model's assistant.

use std::borrow::Cow;
use std::sync::LazyLock;

use crate::transcript::build::Build;

/// How a call's id is drawn.
#[derive(Clone, Copy)]
pub(super) enum IdStyle {
    Fresh,
    Reused,
    /// `cx.N`, `cx|N`, `cx/N`, `cx N` for a small N: sanitise to `cx_N`.
    Collapsing,
    /// Over 64 UTF-16 units; ids sharing the first 64 units collapse when truncated.
    Long,
    NonAscii,
    Astral,
}

/// Ids a same-model assistant keeps as they are: reused, non-ASCII and over-long ones are rejected
/// by the API whatever a sweep does, so they are rare here and common in other-model assistants.
pub(super) const SAME_MODEL_IDS: [(IdStyle, u16); 6] = [
    (IdStyle::Fresh, 970),
    (IdStyle::Reused, 15),
    (IdStyle::Collapsing, 3),
    (IdStyle::Long, 3),
    (IdStyle::NonAscii, 5),
    (IdStyle::Astral, 4),
];

pub(super) const OTHER_MODEL_IDS: [(IdStyle, u16); 6] = [
    (IdStyle::Fresh, 600),
    (IdStyle::Reused, 50),
    (IdStyle::Collapsing, 150),
    (IdStyle::Long, 100),
    (IdStyle::NonAscii, 50),
    (IdStyle::Astral, 50),
];

/// A call id: one of the ids made once per process ([`INTERNED_IDS`], [`COLLAPSING_IDS`],
/// [`LONG_IDS`]), or one made for its transcript (a fresh id past the interned ones). Interned,
/// the ids of a case cost no allocation to make, copy into its calls and results, or drop.
pub(super) type CallId = Cow<'static, str>;

/// What a fresh id starts with, before its number.
#[derive(Clone, Copy)]
pub(super) enum IdPrefix {
    Tool,
    NonAscii,
    Astral,
}

impl IdPrefix {
    const ALL: [IdPrefix; 3] = [IdPrefix::Tool, IdPrefix::NonAscii, IdPrefix::Astral];

    fn text(self) -> &'static str {
        match self {
            IdPrefix::Tool => "toolu_",
            IdPrefix::NonAscii => "outil_é",
            IdPrefix::Astral => "tool_😀",
        }
    }

    /// The fresh id numbered `n` (from 1): interned for every transcript but the longest.
    pub(super) fn id(self, n: u32) -> CallId {
        match INTERNED_IDS[self as usize].get(n as usize - 1) {
            Some(id) => Cow::Borrowed(id),
            None => Cow::Owned(self.numbered(n)),
        }
    }

    /// The fresh id numbered `n`, made.
    fn numbered(self, n: u32) -> String {
        let mut id = String::with_capacity(self.text().len() + 10);
        id.push_str(self.text());
        push_decimal(&mut id, n);
        id
    }
}

/// The fresh ids numbered 1 to 1,024 of each prefix, in [`IdPrefix::ALL`]'s order: every id of
/// all but the longest transcripts.
static INTERNED_IDS: LazyLock<[Vec<String>; 3]> =
    LazyLock::new(|| IdPrefix::ALL.map(|prefix| (1..=1024).map(|n| prefix.numbered(n)).collect()));

/// `cx{separator}{n}`, by separator (`.`, `|`, `/`, space) and n: ids that sanitise alike.
pub(super) const COLLAPSING_IDS: [[&str; 2]; 4] = [
    ["cx.0", "cx.1"],
    ["cx|0", "cx|1"],
    ["cx/0", "cx/1"],
    ["cx 0", "cx 1"],
];

/// Ids over 64 UTF-16 units that share their first 64 (`toolu_long_` six times, then 0, 1 or 2).
pub(super) static LONG_IDS: LazyLock<[String; 3]> =
    LazyLock::new(|| [0, 1, 2].map(|tail| format!("{}{tail}", "toolu_long_".repeat(6))));

/// A call id as a value: one made once per process is borrowed, the value owns any other.
pub(super) fn id_value<B: Build>(id: &CallId) -> B {
    match id {
        Cow::Borrowed(id) => B::text(id),
        Cow::Owned(id) => B::string(id.clone()),
    }
}

/// Appends the decimal digits of `n` without going through `fmt` (ids are made in the hot path).
fn push_decimal(out: &mut String, n: u32) {
    if n >= 10 {
        push_decimal(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}
