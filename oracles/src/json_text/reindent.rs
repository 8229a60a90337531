//! A value's JSON text written in serde_json's layout by moving its whitespace, without building
//! the value: what the writers do with a [`serde_json::value::RawValue`] read from a document
//! (a large transcript's kept messages, written as they lie in the file).
//!
//! Only a text whose every token the writers would write as it stands is moved
//! ([`write`]): strings without `\u` and `\/` escapes (which the writers decode) and without a
//! reserved character ([`crate::js_string`]), integers of at most 18 digits other than `-0`
//! (which reads as the float `-0.0`), objects without a repeated key (whose first place keeps the
//! last value). Any other text is built and written as a value is.

use memchr::memchr2_iter;

use crate::js_string;

/// The most bytes a value laid out may take (with at most one line break more); a larger one is
/// built and written as it is built, without being held laid out whole.
pub(super) const LAID_OUT_MAX: usize = 1 << 20;

/// Where a value's members go: `None` on one line (the compact layout), `Some(depth)` in the
/// pretty layout for a value inside `depth` open arrays and objects.
pub(super) type Indent = Option<usize>;

/// Appends `raw` (one JSON value) to `out` in the layout `indent` asks for, when every token of
/// it is written as it stands (see the module documentation) and it takes at most
/// [`LAID_OUT_MAX`] bytes; `false` otherwise, having appended part of it.
pub(super) fn write(raw: &str, indent: Indent, out: &mut Vec<u8>, stacks: &mut Stacks) -> bool {
    !js_string::may_hold_reserved(raw) && walk(raw.as_bytes(), indent, out, stacks)
}

/// What [`walk`] keeps of the arrays and objects it is in, reused from one value to the next so
/// that the items of a long array cost no allocation of their own.
#[derive(Default)]
pub(super) struct Stacks {
    open: Vec<Open>,
    /// The keys met so far in the objects open, as where they lie in the value.
    keys: Vec<(usize, usize)>,
}

/// An array or object open in [`walk`].
struct Open {
    object: bool,
    /// No member was met yet (its closing bracket follows its opening one).
    empty: bool,
    /// Where its keys start in the keys met so far.
    keys: usize,
}

/// Reads `raw` token by token, appending each to `out` with the layout's whitespace; `false` at
/// the first token that is not written as it stands. `raw` is a value serde_json read: other
/// text is never a panic, but may be moved as if it were JSON.
fn walk(raw: &[u8], indent: Indent, out: &mut Vec<u8>, stacks: &mut Stacks) -> bool {
    let Stacks { open, keys } = stacks;
    open.clear();
    keys.clear();
    // Whether the next string is a key.
    let mut key_next = false;
    let mut bytes = raw.iter().enumerate();
    while let Some((at, &byte)) = bytes.next() {
        let end = match byte {
            b' ' | b'\t' | b'\n' | b'\r' => continue,
            b',' => {
                key_next = open.last().is_some_and(|o| o.object);
                out.push(b',');
                new_line(out, indent, open.len());
                continue;
            }
            b':' => {
                out.extend_from_slice(if indent.is_some() { b": " } else { b":" });
                continue;
            }
            b']' | b'}' => {
                let Some(closed) = open.pop() else {
                    return false;
                };
                keys.truncate(closed.keys);
                key_next = false;
                if !closed.empty {
                    new_line(out, indent, open.len());
                }
                at + 1
            }
            _ => {
                // A value opens a member of an array, a key one of an object.
                let depth = open.len();
                let opens = open
                    .last_mut()
                    .filter(|o| (key_next || !o.object) && o.empty);
                if let Some(innermost) = opens {
                    innermost.empty = false;
                    new_line(out, indent, depth);
                }
                match value_end(raw, at, &mut key_next, open, keys) {
                    Some(end) => end,
                    None => return false,
                }
            }
        };
        if out.len() + (end - at) > LAID_OUT_MAX {
            return false;
        }
        out.extend_from_slice(&raw[at..end]);
        // Past the token. Each turn of the loop takes the next byte, so no arithmetic here can
        // make it stall.
        if end > at + 1 {
            bytes.nth(end - at - 2);
        }
    }
    true
}

/// Just past the token starting a value (or a key) at `at`, when it is written as it stands;
/// an opening bracket is recorded in `open`, a key in `keys`.
fn value_end(
    raw: &[u8],
    at: usize,
    key_next: &mut bool,
    open: &mut Vec<Open>,
    keys: &mut Vec<(usize, usize)>,
) -> Option<usize> {
    let byte = raw[at];
    match byte {
        b'[' | b'{' => {
            open.push(Open {
                object: byte == b'{',
                empty: true,
                keys: keys.len(),
            });
            *key_next = byte == b'{';
            Some(at + 1)
        }
        b'"' => {
            let end = string_end(raw, at)?;
            if *key_next {
                let key = &raw[at..end];
                let first = open.last().map_or(0, |o| o.keys);
                if keys[first..]
                    .iter()
                    .any(|&(from, to)| &raw[from..to] == key)
                {
                    return None;
                }
                keys.push((at, end));
                *key_next = false;
            }
            Some(end)
        }
        b'-' | b'0'..=b'9' => integer_end(raw, at),
        b't' | b'f' | b'n' => {
            let word: &[u8] = match byte {
                b't' => b"true",
                b'f' => b"false",
                _ => b"null",
            };
            raw[at..].starts_with(word).then_some(at + word.len())
        }
        _ => None,
    }
}

/// A line break and the indentation of a member `depth` levels into the value.
fn new_line(out: &mut Vec<u8>, indent: Indent, depth: usize) {
    if let Some(outer) = indent {
        out.push(b'\n');
        out.resize(out.len() + 2 * (outer + depth), b' ');
    }
}

/// Just past the closing quote of the string opening at `start`, when its escapes are all
/// written as they stand (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`).
fn string_end(raw: &[u8], start: usize) -> Option<usize> {
    let body = start + 1;
    // Past the character a backslash escapes. The search itself always moves on, so no
    // arithmetic here can make the loop stall.
    let mut resume = body;
    for found in memchr2_iter(b'"', b'\\', &raw[body..]) {
        let at = body + found;
        if at < resume {
            continue;
        }
        if raw[at] == b'"' {
            return Some(at + 1);
        }
        if !matches!(
            raw.get(at + 1)?,
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't'
        ) {
            return None;
        }
        resume = at + 2;
    }
    None
}

/// Just past the integer starting at `start`, when it is written as it stands: at most 18
/// digits (within `i64` and `u64` whatever they are), not `-0`, no fraction or exponent.
fn integer_end(raw: &[u8], start: usize) -> Option<usize> {
    let digits = start + usize::from(raw[start] == b'-');
    let end = digits
        + raw[digits..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    let number = &raw[digits..end];
    let whole = !number.is_empty() && number.len() <= 18 && (number == b"0" || number[0] != b'0');
    let negative_zero = digits > start && number == b"0";
    let fraction = matches!(raw.get(end), Some(b'.' | b'e' | b'E'));
    (whole && !negative_zero && !fraction).then_some(end)
}
