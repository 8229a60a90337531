//! JavaScript strings held in Rust `String`s, lone surrogates included.
//!
//! A JavaScript string is a sequence of UTF-16 code units, and nothing stops one half of a
//! surrogate pair from standing alone: a text cut inside an emoji, which `JSON.stringify` writes
//! as `"\ud83d"` and `JSON.parse` reads back. A Rust `String` (and so a `serde_json::Value`) can
//! only hold Unicode scalar values, so ctxfuzz maps each lone surrogate to one character of a
//! reserved block at the very end of Unicode (the last 2,048 code points of plane 16, private
//! use):
//!
//! - lone surrogate `0xD800 + n` is the character `U+10F800 + n`;
//! - a *real* character in the reserved block `U+10F7FF..=U+10FFFF` (the block plus the marker
//!   itself) is written as the marker [`LITERAL`] (`U+10F7FF`) followed by that character.
//!
//! The mapping is a fixed, reversible escape, so it needs no side table: every string means
//! exactly one JavaScript string wherever it travels (between documents, through the oracle's
//! models, into the conformance bridge and back), two different lone surrogates stay different,
//! and a real private-use character is never taken for a surrogate. Strings read from files are
//! canonical: a high and a low surrogate that meet form one character, and only reserved
//! characters carry the marker. Other strings (a generator's arbitrary text) are read with the
//! same rules, so any Rust string has one JavaScript meaning.
//!
//! Why not map each lone surrogate to an unused private-use character plus a side table: pi's
//! Anthropic provider removes lone surrogates from texts (`sanitizeSurrogates`), and spreading a
//! string (`{...text}`) cuts astral characters into lone halves; the models do both, and a side
//! table would have to follow every value to every place that asks "is this a surrogate". See
//! `docs/lone-surrogates.md`.
//!
//! The operations here are the ones the models need to treat such strings as JavaScript does:
//! iteration by code point ([`chars`], `for...of`) and by code unit ([`code_units`], indexing and
//! spreading), [`utf16_len`] (`length`), and [`without_lone_surrogates`] (`sanitizeSurrogates`).

use std::borrow::Cow;

/// Marks the character after it as itself: a real character of the reserved block.
pub const LITERAL: char = '\u{10F7FF}';
/// The character lone surrogate `0xD800` maps to; `0xDFFF` maps to `U+10FFFF`.
const LONE_BASE: u32 = 0x10_F800;
/// Every character encoded as a scalar value in the reserved block starts with this UTF-8 byte
/// (it starts all of `U+100000..=U+10FFFF`): a string without it needs no decoding.
const RESERVED_LEAD_BYTE: u8 = 0xF4;

/// One code point of a JavaScript string: a Unicode scalar value or a lone surrogate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsChar {
    Scalar(char),
    /// A code unit in `0xD800..=0xDFFF` without its other half.
    Lone(u16),
}

/// Whether `c` is in the block a real character must be marked in.
fn is_reserved(c: char) -> bool {
    c >= LITERAL
}

fn is_high(unit: u16) -> bool {
    (0xD800..=0xDBFF).contains(&unit)
}

fn is_low(unit: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&unit)
}

/// Whether `text` may hold a lone surrogate or a marked character (a fast, conservative test).
pub fn may_hold_reserved(text: &str) -> bool {
    // memchr's vector search: a file's text is searched once a read, 181 MB for a million
    // messages, and the slice's own search is several times slower.
    memchr::memchr(RESERVED_LEAD_BYTE, text.as_bytes()).is_some()
}

/// A string holding the single lone surrogate `unit` (`0xD800..=0xDFFF`).
pub fn lone(unit: u16) -> String {
    collect([JsChar::Lone(unit)])
}

/// Appends `c` to `out` in the representation (a surrogate unit outside `0xD800..=0xDFFF` is
/// taken as the BMP character it is).
pub fn push(out: &mut String, c: JsChar) {
    match c {
        JsChar::Scalar(c) => {
            if is_reserved(c) {
                out.push(LITERAL);
            }
            out.push(c);
        }
        JsChar::Lone(unit) => {
            let mapped = if (0xD800..=0xDFFF).contains(&unit) {
                char::from_u32(LONE_BASE + u32::from(unit - 0xD800))
            } else {
                char::from_u32(u32::from(unit))
            };
            out.extend(mapped);
        }
    }
}

/// The string of the code points `chars`, a high surrogate followed by a low one joined into
/// their character (as adjacent halves are one character in JavaScript).
pub fn collect(chars: impl IntoIterator<Item = JsChar>) -> String {
    let mut builder = Builder::default();
    for c in chars {
        builder.push(c);
    }
    builder.finish()
}

/// Builds a string code point by code point, in the canonical representation: a high surrogate
/// directly followed by a low one becomes their character.
#[derive(Debug, Default)]
pub struct Builder {
    out: String,
    pending_high: Option<u16>,
}

impl Builder {
    pub fn with_capacity(bytes: usize) -> Self {
        Builder {
            out: String::with_capacity(bytes),
            pending_high: None,
        }
    }

    pub fn push(&mut self, c: JsChar) {
        if let Some(high) = self.pending_high.take() {
            if let JsChar::Lone(low) = c
                && is_low(low)
            {
                let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                push(
                    &mut self.out,
                    char::from_u32(code).map_or(c, JsChar::Scalar),
                );
                return;
            }
            push(&mut self.out, JsChar::Lone(high));
        }
        match c {
            JsChar::Lone(high) if is_high(high) => self.pending_high = Some(high),
            other => push(&mut self.out, other),
        }
    }

    /// Pushes every code point of `text` (in the representation).
    pub fn push_str(&mut self, text: &str) {
        if may_hold_reserved(text) {
            chars(text).for_each(|c| self.push(c));
            return;
        }
        // No lone half in `text`: only a pending one before it needs a look.
        if let Some(high) = self.pending_high.take() {
            push(&mut self.out, JsChar::Lone(high));
        }
        self.out.push_str(text);
    }

    pub fn finish(mut self) -> String {
        if let Some(high) = self.pending_high.take() {
            push(&mut self.out, JsChar::Lone(high));
        }
        self.out
    }
}

/// Decodes the representation one stored character at a time, without pairing halves.
struct Stored<'a> {
    rest: std::str::Chars<'a>,
}

impl Iterator for Stored<'_> {
    type Item = JsChar;

    fn next(&mut self) -> Option<JsChar> {
        let c = self.rest.next()?;
        if c == LITERAL {
            let mut ahead = self.rest.clone();
            if let Some(marked) = ahead.next().filter(|&n| is_reserved(n)) {
                self.rest = ahead;
                return Some(JsChar::Scalar(marked));
            }
            return Some(JsChar::Scalar(c));
        }
        Some(match u32::from(c).checked_sub(LONE_BASE) {
            Some(offset) => JsChar::Lone(0xD800 + offset as u16),
            None => JsChar::Scalar(c),
        })
    }
}

/// Joins a high surrogate directly followed by a low one into their character.
pub struct Paired<I: Iterator<Item = JsChar>> {
    inner: I,
    pending: Option<JsChar>,
}

impl<I: Iterator<Item = JsChar>> Paired<I> {
    fn new(inner: I) -> Self {
        Paired {
            inner,
            pending: None,
        }
    }

    fn raw(&mut self) -> Option<JsChar> {
        self.pending.take().or_else(|| self.inner.next())
    }
}

impl<I: Iterator<Item = JsChar>> Iterator for Paired<I> {
    type Item = JsChar;

    fn next(&mut self) -> Option<JsChar> {
        let c = self.raw()?;
        if let JsChar::Lone(high) = c
            && is_high(high)
        {
            match self.raw() {
                Some(JsChar::Lone(low)) if is_low(low) => {
                    let code =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    return char::from_u32(code).map(JsChar::Scalar);
                }
                other => self.pending = other,
            }
        }
        Some(c)
    }
}

/// The code points of `text` in order, as `for (const c of text)` yields them.
pub fn chars(text: &str) -> Paired<impl Iterator<Item = JsChar> + '_> {
    Paired::new(Stored { rest: text.chars() })
}

/// The UTF-16 code units of `text`, one item each: BMP characters as themselves, astral ones as
/// their two halves (what `text[i]` and `{...text}` see).
pub fn code_units(text: &str) -> impl Iterator<Item = JsChar> + '_ {
    chars(text).flat_map(|c| {
        let (first, second) = match c {
            JsChar::Scalar(c) if c.len_utf16() == 2 => {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units);
                (JsChar::Lone(units[0]), Some(JsChar::Lone(units[1])))
            }
            other => (other, None),
        };
        std::iter::once(first).chain(second)
    })
}

/// `text.length`: UTF-16 code units.
pub fn utf16_len(text: &str) -> usize {
    if !may_hold_reserved(text) {
        return text.chars().map(char::len_utf16).sum();
    }
    chars(text)
        .map(|c| match c {
            JsChar::Scalar(c) => c.len_utf16(),
            JsChar::Lone(_) => 1,
        })
        .sum()
}

/// The representation of a file's text (real characters only): reserved characters marked.
pub fn from_text(text: &str) -> Cow<'_, str> {
    if !may_hold_reserved(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(collect(text.chars().map(JsChar::Scalar)))
}

/// pi's `sanitizeSurrogates(text)`: the lone surrogates removed, pairs kept.
pub fn without_lone_surrogates(text: &str) -> Cow<'_, str> {
    if !may_hold_reserved(text) || !chars(text).any(|c| matches!(c, JsChar::Lone(_))) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(collect(
        chars(text).filter(|c| matches!(c, JsChar::Scalar(_))),
    ))
}

/// The text of one code point or code unit, in the representation.
pub fn to_string(c: JsChar) -> String {
    collect([c])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_are_one_unit_each_and_stay_distinct() {
        let high = lone(0xD83D);
        let low = lone(0xDE00);
        assert_ne!(high, low);
        assert_eq!(utf16_len(&high), 1);
        assert_eq!(utf16_len(&format!("a{high}b")), 3);
        assert_eq!(chars(&high).collect::<Vec<_>>(), [JsChar::Lone(0xD83D)]);
        assert_eq!(lone(0xD800), "\u{10F800}");
        assert_eq!(lone(0xDFFF), "\u{10FFFF}");
    }

    #[test]
    fn a_real_reserved_character_is_marked_and_keeps_its_meaning() {
        let real = from_text("x\u{10FFFF}\u{10F7FF}\u{E000}");
        assert_eq!(real, "x\u{10F7FF}\u{10FFFF}\u{10F7FF}\u{10F7FF}\u{E000}");
        assert_eq!(
            chars(&real).collect::<Vec<_>>(),
            [
                JsChar::Scalar('x'),
                JsChar::Scalar('\u{10FFFF}'),
                JsChar::Scalar('\u{10F7FF}'),
                JsChar::Scalar('\u{E000}')
            ]
        );
        assert_eq!(
            utf16_len(&real),
            6,
            "three astral characters are two units each"
        );
        assert_ne!(real, format!("x{}", lone(0xDFFF)));
        assert_eq!(from_text("plain é😀"), "plain é😀");
        assert_eq!(
            chars("\u{10F7FF}a").collect::<Vec<_>>(),
            [JsChar::Scalar('\u{10F7FF}'), JsChar::Scalar('a')],
            "an unmarked marker is the character itself"
        );
    }

    #[test]
    fn two_halves_of_the_same_kind_never_join() {
        let lows = [JsChar::Lone(0xDE00), JsChar::Lone(0xDE01)];
        assert_eq!(collect(lows), format!("{}{}", lone(0xDE00), lone(0xDE01)));
        let highs = [JsChar::Lone(0xD83D), JsChar::Lone(0xD83E)];
        assert_eq!(collect(highs), format!("{}{}", lone(0xD83D), lone(0xD83E)));
        let two_highs = format!("{}{}", lone(0xD83D), lone(0xD83E));
        assert_eq!(
            chars(&two_highs).collect::<Vec<_>>(),
            [JsChar::Lone(0xD83D), JsChar::Lone(0xD83E)]
        );
        let mut builder = Builder::default();
        builder.push(JsChar::Lone(0xDE00));
        builder.push(JsChar::Scalar('a'));
        assert_eq!(builder.finish(), format!("{}a", lone(0xDE00)));
    }

    #[test]
    fn halves_that_meet_are_one_character() {
        let joined = format!("{}{}", lone(0xD83D), lone(0xDE00));
        assert_eq!(chars(&joined).collect::<Vec<_>>(), [JsChar::Scalar('😀')]);
        assert_eq!(collect(chars(&joined)), "😀");
        let reversed = format!("{}{}", lone(0xDE00), lone(0xD83D));
        assert_eq!(chars(&reversed).count(), 2);
    }

    #[test]
    fn code_units_cut_astral_characters_in_halves() {
        let units: Vec<JsChar> = code_units("a😀").collect();
        assert_eq!(
            units,
            [
                JsChar::Scalar('a'),
                JsChar::Lone(0xD83D),
                JsChar::Lone(0xDE00)
            ]
        );
        assert_eq!(to_string(units[1]), lone(0xD83D));
    }

    #[test]
    fn sanitising_removes_lone_halves_and_keeps_pairs() {
        let text = format!("a{}b😀{}", lone(0xD83D), lone(0xDC00));
        assert_eq!(without_lone_surrogates(&text), "ab😀");
        assert!(matches!(without_lone_surrogates("ab😀"), Cow::Borrowed(_)));
        let real = from_text("\u{10FFFD}");
        assert_eq!(without_lone_surrogates(&real), real);
    }

    #[test]
    fn lengths_are_utf16_code_units() {
        assert_eq!(utf16_len("a😀b"), 4);
        assert_eq!(utf16_len("é"), 1);
    }
}
