//! JSON text read the way `JSON.parse` reads it and written the way `JSON.stringify` writes it,
//! lone surrogates included (held as [`crate::js_string`] describes).
//!
//! serde_json refuses a lone surrogate escape (`"\ud83d"`), which `JSON.parse` accepts and
//! `JSON.stringify` writes for a string cut inside a surrogate pair. [`parse`] first scans the
//! text for the escapes serde_json cannot turn into the representation: a lone surrogate escape
//! is rewritten into the escape of a placeholder character of the same length (`\ufdd0`), so
//! serde_json's line and column in an error stay those of the original text; then a
//! deserializer that builds the value replaces each placeholder, in document order, with what
//! stood there. A text without such escapes and without reserved characters (nearly every text)
//! goes straight to serde_json. Everything else serde_json decides as before: the errors and their
//! positions, the nesting limit (128), numbers.
//!
//! The input text is in the representation too: a lone surrogate code unit written raw in a
//! JavaScript string (a `jsonl` text handed over by the conformance bridge) is its mapped
//! character; a file's text is converted with [`crate::js_string::from_text`] first.
//!
//! The writers (`write.rs`: [`to_string`], [`to_string_pretty`], [`to_writer`]) give serde_json's output
//! except that a lone surrogate is written as `JSON.stringify` writes it, a lowercase `\udXXX`
//! escape, and a marked reserved character as the character itself.

use std::fmt;
use std::marker::PhantomData;
use std::ops::ControlFlow;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Number, Value};

use crate::js::{Json, View};
use crate::js_string::{self, JsChar, LITERAL};
use crate::js_value::{JsValue, Object, Reader, Str};

/// What `JSON.parse` skips before and after a value, and between tokens.
pub const JSON_WHITESPACE: [char; 4] = [' ', '\t', '\n', '\r'];

/// A value's JSON type as error messages name it ("an array", "null").
pub fn type_name(value: &impl Json) -> &'static str {
    match value.view() {
        View::Null => "null",
        View::Bool(_) => "a boolean",
        View::Number(_) => "a number",
        View::String(_) => "a string",
        View::Array(_) => "an array",
        View::Object => "an object",
    }
}

/// Stands in for each rewritten escape while serde_json parses: a noncharacter, so rare in text;
/// its own occurrences are queued like the rewritten escapes, so it may occur too.
const PLACEHOLDER: char = '\u{FDD0}';
const PLACEHOLDER_ESCAPE: &[u8; 6] = b"\\ufdd0";
const PLACEHOLDER_UTF8: &[u8] = "\u{FDD0}".as_bytes();

/// Parses one JSON document as `JSON.parse` does (see the module documentation).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    match rewrite(text) {
        None => serde_json::from_str(text),
        Some(rewritten) => build(rewritten).map(|value| value.to_value()),
    }
}

/// Parses one JSON document as [`parse`] does into a [`JsValue`] that borrows its strings from
/// `text`; a text with escapes to rewrite (rare) is built owned.
pub fn parse_borrowed(text: &str) -> serde_json::Result<JsValue<'_>> {
    match rewrite(text) {
        None => serde_json::from_str(text),
        Some(rewritten) => build(rewritten),
    }
}

/// Reads a document that is an array item by item, each as [`parse_borrowed`] would read it,
/// handing each wanted item and its position to `item` in order and keeping none: a large array
/// is read in the memory of one item. An item whose position `wanted` refuses is passed over
/// without being built, and reading stops when `item` breaks; nothing past the stop is checked,
/// so a read that stops or passes over is for a document already read whole once. The number
/// of items passed, read or not, up to the end or the stop; `None`, with nothing read, when the
/// document does not start with `[` (after JSON's whitespace). An error is the one
/// [`parse_borrowed`] gives, met after the items before it were handed over.
pub fn for_each_item_where<'t>(
    text: &'t str,
    wanted: impl FnMut(usize) -> bool,
    item: impl FnMut(usize, JsValue<'t>) -> ControlFlow<()>,
) -> serde_json::Result<Option<usize>> {
    Searched::new(text).for_each_item_where(wanted, item)
}

/// A document's text searched once for the escapes to rewrite (see the module documentation),
/// for a caller that reads it several times: a search of a large text costs a good part of a
/// read that passes over most of it.
pub struct Searched<'t> {
    text: &'t str,
    /// What [`escapes`] found: `None` when the text is read as it lies.
    escapes: Option<Vec<Escape>>,
}

impl<'t> Searched<'t> {
    pub fn new(text: &'t str) -> Self {
        Searched {
            text,
            escapes: escapes(text),
        }
    }

    pub fn text(&self) -> &'t str {
        self.text
    }

    /// [`for_each_item_where`] of the text, not searched again.
    pub fn for_each_item_where(
        &self,
        wanted: impl FnMut(usize) -> bool,
        mut item: impl FnMut(usize, JsValue<'t>) -> ControlFlow<()>,
    ) -> serde_json::Result<Option<usize>> {
        let Some(escapes) = &self.escapes else {
            return for_each_borrowed_item_where(self.text, Reader::default(), wanted, item);
        };
        let rewritten = rewritten(self.text, escapes);
        read_items(&rewritten.text, |progress, deserializer| {
            let mut queue = rewritten.queue.into_iter();
            deserializer.deserialize_seq(Rebuilt {
                wanted,
                item: |at, value: JsValue<'static>| item(at, value),
                progress,
                queue: &mut queue,
            })
        })
    }

    /// The item starting at `offset` (a start [`item_starts`] or [`NotedStarts`] noted), built as
    /// [`Searched::for_each_item_where`] builds it; `None` when the text has escapes to rewrite,
    /// whose placeholders only a read from the first item takes in their order.
    pub fn item_at(&self, offset: usize) -> Option<serde_json::Result<JsValue<'t>>> {
        if self.escapes.is_some() {
            return None;
        }
        let Some(rest) = self.text.get(offset..) else {
            return Some(Err(serde::de::Error::custom("no item starts there")));
        };
        Some(JsValue::deserialize(
            &mut serde_json::Deserializer::from_str(rest),
        ))
    }
}

/// [`for_each_item_where`] handing over each wanted item's text as it lies in `text` (which is
/// in the representation, see the module documentation), its escapes unread: what the writers
/// write in their layout without building the item ([`reindent`]).
pub fn for_each_raw_item_where<'t>(
    text: &'t str,
    wanted: impl FnMut(usize) -> bool,
    item: impl FnMut(usize, &'t RawValue) -> ControlFlow<()>,
) -> serde_json::Result<Option<usize>> {
    for_each_borrowed_item_where(text, Plain(PhantomData), wanted, item)
}

/// The items of the array in `text`, each read as a `T` borrowing from `text` by `reader`: a
/// `&mut` of it is the seed of one item ([`Reader`] for `JsValue`s, [`Plain`] for
/// any other type).
fn for_each_borrowed_item_where<'t, T, R>(
    text: &'t str,
    reader: R,
    wanted: impl FnMut(usize) -> bool,
    mut item: impl FnMut(usize, T) -> ControlFlow<()>,
) -> serde_json::Result<Option<usize>>
where
    for<'r> &'r mut R: DeserializeSeed<'t, Value = T>,
{
    read_items(text, |progress, deserializer| {
        deserializer.deserialize_seq(Items {
            wanted,
            item: &mut item,
            progress,
            reader,
            items: PhantomData,
        })
    })
}

/// The seed of a type read as its `Deserialize` reads it.
struct Plain<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for &mut Plain<T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

/// Reads the array in `text` with `read` (see [`for_each_item_where`]): `None` when the document
/// does not start with `[`, the number of items passed otherwise.
fn read_items<'t>(
    text: &'t str,
    read: impl FnOnce(
        &mut Progress,
        &mut serde_json::Deserializer<serde_json::de::StrRead<'t>>,
    ) -> serde_json::Result<()>,
) -> serde_json::Result<Option<usize>> {
    if !text.trim_start_matches(JSON_WHITESPACE).starts_with('[') {
        return Ok(None);
    }
    let mut progress = Progress::default();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    match read(&mut progress, &mut deserializer).and_then(|()| deserializer.end()) {
        // serde_json refuses an array left before its end.
        Err(_) if progress.stopped => Ok(Some(progress.items)),
        read => read.map(|()| Some(progress.items)),
    }
}

/// How far [`for_each_item_where`] went: kept outside its visitor, since serde_json gives back
/// an error, not the visitor's value, when the visitor stops before the end of the array.
#[derive(Default)]
struct Progress {
    items: usize,
    stopped: bool,
}

/// The items of an array, borrowed from the text (see [`for_each_item_where`]), each a `T` read
/// by `reader`.
struct Items<'s, W, F, R, T> {
    wanted: W,
    item: F,
    progress: &'s mut Progress,
    reader: R,
    items: PhantomData<T>,
}

impl<'de, W, F, R, T> Visitor<'de> for Items<'_, W, F, R, T>
where
    W: FnMut(usize) -> bool,
    F: FnMut(usize, T) -> ControlFlow<()>,
    for<'r> &'r mut R: DeserializeSeed<'de, Value = T>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        for at in 0.. {
            if !(self.wanted)(at) {
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => {
                        self.progress.items = at + 1;
                        continue;
                    }
                    None => break,
                }
            }
            let Some(value) = seq.next_element_seed(&mut self.reader)? else {
                break;
            };
            self.progress.items = at + 1;
            if (self.item)(at, value).is_break() {
                self.progress.stopped = true;
                break;
            }
        }
        Ok(())
    }
}

/// The items of an array of a rewritten text, built as [`Build`] builds them: an item not wanted
/// is built too, so that it takes its placeholders from the queue.
struct Rebuilt<'q, W, F> {
    wanted: W,
    item: F,
    progress: &'q mut Progress,
    queue: &'q mut std::vec::IntoIter<Stood>,
}

impl<'de, W, F> Visitor<'de> for Rebuilt<'_, W, F>
where
    W: FnMut(usize) -> bool,
    F: FnMut(usize, JsValue<'static>) -> ControlFlow<()>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        for at in 0.. {
            let Some(value) = seq.next_element_seed(Build { queue: self.queue })? else {
                break;
            };
            self.progress.items = at + 1;
            if (self.wanted)(at) && (self.item)(at, value).is_break() {
                self.progress.stopped = true;
                break;
            }
        }
        Ok(())
    }
}

fn build(rewritten: Rewritten) -> serde_json::Result<JsValue<'static>> {
    let mut deserializer = serde_json::Deserializer::from_str(&rewritten.text);
    let mut queue = rewritten.queue.into_iter();
    let value = Build { queue: &mut queue }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// What a placeholder in the rewritten text stands for.
#[derive(Debug, Clone, Copy)]
enum Stood {
    /// This code point.
    Char(JsChar),
    /// Nothing: the second half of an escape pair rewritten as two placeholders.
    Nothing,
}

struct Rewritten {
    text: String,
    /// One item per placeholder in the rewritten text, in order.
    queue: Vec<Stood>,
}

/// The text with every escape serde_json cannot represent replaced by placeholders, or `None`
/// when there is nothing to replace and no reserved character to decode.
fn rewrite(text: &str) -> Option<Rewritten> {
    escapes(text).map(|found| rewritten(text, &found))
}

/// An escape or a character [`rewritten`] queues: its offset, what stood there, and the length
/// of the escape replaced (0 when nothing is replaced).
type Escape = (usize, Stood, usize);

/// What [`rewrite`] replaces and queues in `text`, or `None` when there is nothing to replace
/// and no reserved character to decode.
fn escapes(text: &str) -> Option<Vec<Escape>> {
    let bytes = text.as_bytes();
    let mut needed = false;
    let mut found: Vec<Escape> = Vec::new();
    // Where reading resumes: past the escape just read. The iterator itself always moves on, so
    // no arithmetic here can make the loop stall.
    let mut resume = 0;
    for i in memchr::memchr3_iter(b'\\', 0xEF, 0xF4, bytes) {
        if i < resume {
            continue;
        }
        match bytes[i] {
            b'\\' => {
                let Some(unit) = escape_at(bytes, i) else {
                    // Past the escaped character: `\\` must not start an escape.
                    resume = i + 2;
                    continue;
                };
                resume = i + 6;
                let paired_low =
                    escape_at(bytes, i + 6).filter(|low| (0xDC00..=0xDFFF).contains(low));
                match unit {
                    0xD800..=0xDBFF if paired_low.is_some() => {
                        let low = paired_low.unwrap_or_default();
                        resume = i + 12;
                        let code = 0x10000
                            + ((u32::from(unit) - 0xD800) << 10)
                            + (u32::from(low) - 0xDC00);
                        if let Some(c) = char::from_u32(code).filter(|&c| c >= LITERAL) {
                            needed = true;
                            found.push((i, Stood::Char(JsChar::Scalar(c)), 6));
                            found.push((i + 6, Stood::Nothing, 6));
                        }
                    }
                    0xD800..=0xDFFF => {
                        needed = true;
                        found.push((i, Stood::Char(JsChar::Lone(unit)), 6));
                    }
                    0xFDD0 => found.push((i, Stood::Char(JsChar::Scalar(PLACEHOLDER)), 0)),
                    _ => {}
                }
            }
            0xEF => {
                if bytes[i..].starts_with(PLACEHOLDER_UTF8) {
                    found.push((i, Stood::Char(JsChar::Scalar(PLACEHOLDER)), 0));
                }
            }
            _ => needed = true,
        }
    }
    needed.then_some(found)
}

/// `text` with the escapes [`escapes`] found in it replaced by placeholders, and their queue.
fn rewritten(text: &str, found: &[Escape]) -> Rewritten {
    let mut rewritten = text.as_bytes().to_vec();
    let mut queue = Vec::with_capacity(found.len());
    for &(offset, stood, replaced) in found {
        if replaced > 0 {
            rewritten[offset..offset + replaced].copy_from_slice(PLACEHOLDER_ESCAPE);
        }
        queue.push(stood);
    }
    // Only ASCII escapes were replaced by ASCII escapes of the same length.
    let text = String::from_utf8(rewritten).expect("the rewritten text is UTF-8");
    Rewritten { text, queue }
}

/// The code unit of the `\uXXXX` escape at `i`, if there is one.
fn escape_at(bytes: &[u8], i: usize) -> Option<u16> {
    let escape = bytes.get(i..i + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(hex, 16)
        .ok()
        .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Builds a `JsValue` as its own deserializer does (fields in the text's order, a repeated key
/// keeping its first place and its last value), decoding every string it meets. (Built as a
/// `serde_json::Value`, such a text's fields came out sorted by name.)
struct Build<'q> {
    queue: &'q mut std::vec::IntoIter<Stood>,
}

impl Build<'_> {
    fn string(&mut self, parsed: &str) -> String {
        if !parsed.contains(PLACEHOLDER) && !js_string::may_hold_reserved(parsed) {
            return parsed.to_owned();
        }
        // Decoded slice by slice into one builder: memory stays one copy of the string.
        let mut builder = js_string::Builder::with_capacity(parsed.len());
        // Split, not searched by index: no arithmetic here can make the loop stall.
        let mut pieces = parsed.split(PLACEHOLDER);
        // `split` yields at least one piece, the text before the first placeholder.
        builder.push_str(pieces.next().unwrap_or_default());
        for piece in pieces {
            match self.queue.next() {
                Some(Stood::Char(stood)) => builder.push(stood),
                Some(Stood::Nothing) => {}
                None => builder.push(JsChar::Scalar(PLACEHOLDER)),
            }
            builder.push_str(piece);
        }
        builder.finish()
    }
}

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = JsValue<'static>;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<JsValue<'static>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = JsValue<'static>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<JsValue<'static>, E> {
        Ok(JsValue::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<JsValue<'static>, E> {
        Ok(JsValue::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<JsValue<'static>, E> {
        Ok(JsValue::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<JsValue<'static>, E> {
        Ok(Number::from_f64(value).map_or(JsValue::Null, JsValue::Number))
    }

    fn visit_str<E>(mut self, value: &str) -> Result<JsValue<'static>, E> {
        Ok(JsValue::from(self.string(value)))
    }

    fn visit_unit<E>(self) -> Result<JsValue<'static>, E> {
        Ok(JsValue::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsValue<'static>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Build { queue: self.queue })? {
            items.push(item);
        }
        Ok(JsValue::from(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsValue<'static>, A::Error> {
        let mut fields = Vec::new();
        while let Some(key) = map.next_key_seed(Key { queue: self.queue })? {
            let value = map.next_value_seed(Build { queue: self.queue })?;
            fields.push((Str::from(key), value));
        }
        Ok(JsValue::Object(Object::from_fields(fields)))
    }
}

/// An object key, decoded like any string.
struct Key<'q> {
    queue: &'q mut std::vec::IntoIter<Stood>,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = String;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a string key")
    }

    fn visit_str<E>(self, value: &str) -> Result<String, E> {
        Ok(Build { queue: self.queue }.string(value))
    }
}

/// Where `part` starts in `text`, when it is a slice of `text` itself (a string read from the
/// text without an escape), rather than a copy: a string borrowed from the text outlives the
/// value it was read into.
pub fn offset_in(text: &str, part: &str) -> Option<usize> {
    let at = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    // That range of `text` exists only when `part` lies in it (two live allocations never
    // overlap), and then it is `part` itself.
    text.get(at..at.wrapping_add(part.len())).map(|_| at)
}

mod reindent;
mod starts;
#[cfg(test)]
mod tests;
mod write;

pub use starts::{ItemStart, ItemStarts, ItemsFrom, NotedStarts, item_starts};
pub use write::{RawText, to_string, to_string_pretty, to_writer, to_writer_pretty};
