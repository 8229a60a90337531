//! A JSON value as `JSON.parse` hands it to the JavaScript, borrowed from the text it was read
//! from: what the pi pipeline models read.
//!
//! `serde_json::Value` owns every string and keeps every object in a B-tree: a transcript parsed
//! into it is about ten times its text in heap, and finding a field is a string search down the
//! tree. A [`JsValue`] borrows every string that has no escape from the text, and an object is its
//! fields in a boxed slice (a message has a handful; a linear scan beats the tree and costs one
//! allocation). Copying a value the pipeline changes (`{...message, content}`) copies no text.
//!
//! An object's keys are unique, as in JavaScript: a key repeated in the text keeps its first
//! position and takes its last value (`JSON.parse('{"a":1,"a":2}').a === 2`). The order of the
//! fields is otherwise irrelevant to the models; [`JsValue::to_value`] writes them in
//! `serde_json`'s order, so a rendered output is the same whichever value it came from.
//!
//! [`crate::json_text::parse_borrowed`] reads text into it; `From<&Value>` borrows a
//! `serde_json::Value` (the fuzz loop's cases) without copying its strings.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use foldhash::{HashMap, HashMapExt};
use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Number, Value};

/// 24 bytes: a transcript is mostly small objects, and each field costs a key and a value, so
/// the sizes of [`Str`] and of the containers (boxed slices, built at their exact size, without
/// a capacity word) are most of the tree's memory (docs/figures.md).
#[derive(Debug, Clone, Default)]
pub enum JsValue<'a> {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Str<'a>),
    Array(Box<[JsValue<'a>]>),
    Object(Object<'a>),
}

/// A string borrowed from the text, or owned when the text escapes it (or a model built it): a
/// `Cow<str>` in two words. A transcript is mostly object fields, each a key and a value, so the
/// key's size is paid nine million times for a million messages: 16 bytes here against 24 for an
/// enum of `&str` and `Box<str>` (a field 40 bytes against 48: 75 MB of a 1M-message `check`,
/// docs/figures.md). The owned flag is the length's top bit, which no length can use (an
/// allocation is at most `isize::MAX` bytes), so every length is representable; `beef::lean::Cow`
/// packs the same two words by limiting lengths to 32 bits, truncating a longer borrowed string.
pub struct Str<'a> {
    /// The first byte of the text (a `Box<str>`'s own pointer when owned).
    ptr: NonNull<u8>,
    /// The text's length in bytes, with [`OWNED`] set when `ptr` is a `Box<str>` this `Str` leaked
    /// and frees on drop.
    len: usize,
    borrow: PhantomData<&'a str>,
}

/// The bit of [`Str::len`] that marks an owned text.
const OWNED: usize = 1 << (usize::BITS - 1);

// A `Str` is a `&str` or a `Box<str>`, both of which are `Send` and `Sync`.
unsafe impl Send for Str<'_> {}
unsafe impl Sync for Str<'_> {}

impl Str<'_> {
    fn owned(text: Box<str>) -> Self {
        let len = text.len();
        Str {
            // From the `&mut str` the box leaks, so that `Drop` may take it back as a box.
            ptr: NonNull::from(Box::leak(text)).cast(),
            len: len | OWNED,
            borrow: PhantomData,
        }
    }

    fn is_owned(&self) -> bool {
        self.len & OWNED != 0
    }

    /// A copy that owns its text.
    pub fn owned_copy(&self) -> Str<'static> {
        Str::owned((**self).into())
    }
}

impl std::ops::Deref for Str<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        // SAFETY: `ptr` and the length (without the flag) are those of a `str` that lives as
        // long as `self`: borrowed for `'a`, or owned by `self` until it is dropped.
        unsafe {
            let bytes = std::slice::from_raw_parts(self.ptr.as_ptr(), self.len & !OWNED);
            std::str::from_utf8_unchecked(bytes)
        }
    }
}

impl Drop for Str<'_> {
    fn drop(&mut self) {
        if self.is_owned() {
            let text = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len & !OWNED);
            // SAFETY: an owned `Str` holds the pointer and length of the `Box<str>` it leaked,
            // given back exactly once, here.
            drop(unsafe { Box::from_raw(text as *mut str) });
        }
    }
}

impl Clone for Str<'_> {
    fn clone(&self) -> Self {
        if self.is_owned() {
            Str::owned((**self).into())
        } else {
            Str {
                ptr: self.ptr,
                len: self.len,
                borrow: PhantomData,
            }
        }
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_bytes(self.as_bytes(), other.as_bytes())
    }
}

impl Eq for Str<'_> {}

impl std::hash::Hash for Str<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl Borrow<str> for Str<'_> {
    fn borrow(&self) -> &str {
        self
    }
}

impl PartialEq<str> for Str<'_> {
    fn eq(&self, other: &str) -> bool {
        same_bytes(self.as_bytes(), other.as_bytes())
    }
}

/// `a == b`, without a call to `memcmp` for texts of up to 16 bytes. Every field look-up compares
/// a key with the keys of its object, which are short and often of the same length (`role`,
/// `type`, `text`, `name`): the call and its set-up cost more than the comparison, and were 5% of
/// a fuzz case (docs/figures.md, session 20). Two overlapping loads from each end cover every
/// length from 4 to 16.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
    let half = |bytes: &[u8], at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap());
    match n {
        0..4 => a.iter().zip(b).all(|(x, y)| x == y),
        4..8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

impl<'a> From<&'a str> for Str<'a> {
    fn from(text: &'a str) -> Self {
        Str {
            ptr: NonNull::from(text.as_bytes()).cast(),
            len: text.len(),
            borrow: PhantomData,
        }
    }
}

impl From<String> for Str<'_> {
    fn from(text: String) -> Self {
        Str::owned(text.into_boxed_str())
    }
}

/// An object's fields, each key once, in the order they first appeared.
#[derive(Debug, Clone, Default)]
pub struct Object<'a>(Box<[(Str<'a>, JsValue<'a>)]>);

/// Objects up to this many fields are checked for a repeated key pair by pair; larger ones
/// through a hash map, so a hostile object of a million keys is read in linear time.
const PAIRWISE_LIMIT: usize = 16;

impl<'a> Object<'a> {
    pub fn new() -> Self {
        Object(Box::default())
    }

    /// The fields as read, a repeated key keeping its first position and its last value.
    pub fn from_fields(mut fields: Vec<(Str<'a>, JsValue<'a>)>) -> Self {
        if fields.len() <= PAIRWISE_LIMIT {
            let repeated = (1..fields.len()).any(|i| {
                fields[..i]
                    .iter()
                    .any(|(earlier, _)| *earlier == fields[i].0)
            });
            if !repeated {
                return Object(fields.into_boxed_slice());
            }
        }
        // Where each key first appears; `None` when every key is unique.
        let mut first_at: HashMap<&str, usize> = HashMap::with_capacity(fields.len());
        let firsts: Vec<usize> = fields
            .iter()
            .enumerate()
            .map(|(i, (key, _))| *first_at.entry(&**key).or_insert(i))
            .collect();
        drop(first_at);
        if firsts.iter().enumerate().all(|(i, &first)| first == i) {
            return Object(fields.into_boxed_slice());
        }
        // Each field's position in the deduplicated vector, by its index in `fields`.
        let mut position = vec![0; fields.len()];
        let mut unique: Vec<(Str<'a>, JsValue<'a>)> = Vec::with_capacity(fields.len());
        for (i, (key, value)) in fields.drain(..).enumerate() {
            if firsts[i] == i {
                position[i] = unique.len();
                unique.push((key, value));
            } else {
                unique[position[firsts[i]]].1 = value;
            }
        }
        Object(unique.into_boxed_slice())
    }

    pub fn get(&self, key: &str) -> Option<&JsValue<'a>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut JsValue<'a>> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `object[key] = value`: replaces the value in place, or appends the field.
    pub fn insert(&mut self, key: impl Into<Str<'a>>, value: JsValue<'a>) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.edit(|fields| fields.push((key, value))),
        }
    }

    /// `delete object[key]`.
    pub fn remove(&mut self, key: &str) {
        if let Some(at) = self.0.iter().position(|(k, _)| k == key) {
            self.edit(|fields| drop(fields.remove(at)));
        }
    }

    /// Changes the fields as a vector (a boxed slice cannot grow or shrink in place).
    fn edit(&mut self, change: impl FnOnce(&mut Vec<(Str<'a>, JsValue<'a>)>)) {
        let mut fields = std::mem::take(&mut self.0).into_vec();
        change(&mut fields);
        self.0 = fields.into_boxed_slice();
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &JsValue<'a>)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

impl<'a, K: Into<Str<'a>>> FromIterator<(K, JsValue<'a>)> for Object<'a> {
    fn from_iter<I: IntoIterator<Item = (K, JsValue<'a>)>>(fields: I) -> Self {
        Object::from_fields(fields.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

/// Each of `values` borrowed (see `From<&Value>`).
pub fn borrow_all<M: Borrow<Value>>(values: &[M]) -> Vec<JsValue<'_>> {
    values
        .iter()
        .map(|value| JsValue::from(value.borrow()))
        .collect()
}

impl<'a> JsValue<'a> {
    /// An object of these fields (a repeated key takes its last value).
    pub fn object<K: Into<Str<'a>>>(fields: impl IntoIterator<Item = (K, JsValue<'a>)>) -> Self {
        JsValue::Object(fields.into_iter().collect())
    }

    pub fn is_null(&self) -> bool {
        matches!(self, JsValue::Null)
    }

    pub fn is_array(&self) -> bool {
        matches!(self, JsValue::Array(_))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsValue::String(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[JsValue<'a>]> {
        match self {
            JsValue::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            JsValue::Object(object) => Some(object),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            JsValue::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value` (for output: case files, `render`).
    pub fn to_value(&self) -> Value {
        match self {
            JsValue::Null => Value::Null,
            JsValue::Bool(b) => Value::Bool(*b),
            JsValue::Number(n) => Value::Number(n.clone()),
            JsValue::String(text) => Value::String(text.to_string()),
            JsValue::Array(items) => Value::Array(items.iter().map(JsValue::to_value).collect()),
            JsValue::Object(object) => Value::Object(
                object
                    .iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// A copy that owns its strings: what outlives the text it was read from.
    pub fn owned_copy(&self) -> JsValue<'static> {
        match self {
            JsValue::Null => JsValue::Null,
            JsValue::Bool(b) => JsValue::Bool(*b),
            JsValue::Number(n) => JsValue::Number(n.clone()),
            JsValue::String(text) => JsValue::String(text.owned_copy()),
            JsValue::Array(items) => {
                JsValue::Array(items.iter().map(JsValue::owned_copy).collect())
            }
            JsValue::Object(Object(fields)) => JsValue::Object(Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.owned_copy(), v.owned_copy()))
                    .collect(),
            )),
        }
    }
}

/// The compact JSON text, as `serde_json::Value` prints it.
impl fmt::Display for JsValue<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

/// JSON equality: an object equals another with the same fields, in any order.
impl PartialEq for JsValue<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (JsValue::Null, JsValue::Null) => true,
            (JsValue::Bool(a), JsValue::Bool(b)) => a == b,
            (JsValue::Number(a), JsValue::Number(b)) => a == b,
            (JsValue::String(a), JsValue::String(b)) => a == b,
            (JsValue::Array(a), JsValue::Array(b)) => a == b,
            (JsValue::Object(a), JsValue::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(key, value)| b.get(key) == Some(value))
            }
            _ => false,
        }
    }
}

impl PartialEq<str> for JsValue<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl<'a> From<&'a str> for JsValue<'a> {
    fn from(text: &'a str) -> Self {
        JsValue::String(Str::from(text))
    }
}

impl From<String> for JsValue<'_> {
    fn from(text: String) -> Self {
        JsValue::String(text.into())
    }
}

impl<'a> From<Vec<JsValue<'a>>> for JsValue<'a> {
    fn from(items: Vec<JsValue<'a>>) -> Self {
        JsValue::Array(items.into_boxed_slice())
    }
}

impl From<u64> for JsValue<'_> {
    fn from(n: u64) -> Self {
        JsValue::Number(n.into())
    }
}

/// Borrows every string of `value`.
impl<'a> From<&'a Value> for JsValue<'a> {
    fn from(value: &'a Value) -> Self {
        match value {
            Value::Null => JsValue::Null,
            Value::Bool(b) => JsValue::Bool(*b),
            Value::Number(n) => JsValue::Number(n.clone()),
            Value::String(text) => JsValue::String(Str::from(text.as_str())),
            Value::Array(items) => JsValue::Array(items.iter().map(JsValue::from).collect()),
            // A `Map`'s keys are unique already.
            Value::Object(map) => JsValue::Object(Object(
                map.iter()
                    .map(|(k, v)| (Str::from(k.as_str()), JsValue::from(v)))
                    .collect(),
            )),
        }
    }
}

/// Takes over the strings of `value`.
impl From<Value> for JsValue<'_> {
    fn from(value: Value) -> Self {
        match value {
            Value::Null => JsValue::Null,
            Value::Bool(b) => JsValue::Bool(b),
            Value::Number(n) => JsValue::Number(n),
            Value::String(text) => JsValue::String(text.into()),
            Value::Array(items) => JsValue::Array(items.into_iter().map(JsValue::from).collect()),
            Value::Object(map) => JsValue::Object(Object(
                map.into_iter()
                    .map(|(k, v)| (Str::from(k), JsValue::from(v)))
                    .collect(),
            )),
        }
    }
}

impl Serialize for JsValue<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self {
            JsValue::Null => out.serialize_unit(),
            JsValue::Bool(b) => out.serialize_bool(*b),
            JsValue::Number(n) => n.serialize(out),
            JsValue::String(text) => out.serialize_str(text),
            JsValue::Array(items) => items.serialize(out),
            JsValue::Object(object) => {
                let mut map = out.serialize_map(Some(object.len()))?;
                for (key, value) in object.iter() {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for JsValue<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Builder {
            scratch: &mut Scratch::default(),
        }
        .deserialize(deserializer)
    }
}

/// The items and fields of the arrays and objects being read, innermost last: each container is
/// moved out of here into a boxed slice of exactly its size, so a document costs one allocation
/// per container and no growth (a growing vector per object was a fifth of the parse).
#[derive(Default)]
struct Scratch<'de> {
    items: Vec<JsValue<'de>>,
    fields: Vec<(Str<'de>, JsValue<'de>)>,
}

struct Builder<'s, 'de> {
    scratch: &'s mut Scratch<'de>,
}

impl<'de> DeserializeSeed<'de> for Builder<'_, 'de> {
    type Value = JsValue<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Builder<'_, 'de> {
    type Value = JsValue<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(JsValue::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(JsValue::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(JsValue::Number(n.into()))
    }

    fn visit_f64<E>(self, x: f64) -> Result<Self::Value, E> {
        Ok(Number::from_f64(x).map_or(JsValue::Null, JsValue::Number))
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(JsValue::String(Str::from(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(JsValue::String(Str::owned(text.into())))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(JsValue::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let start = self.scratch.items.len();
        while let Some(item) = seq.next_element_seed(Builder {
            scratch: self.scratch,
        })? {
            self.scratch.items.push(item);
        }
        Ok(JsValue::Array(self.scratch.items.drain(start..).collect()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let start = self.scratch.fields.len();
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value_seed(Builder {
                scratch: self.scratch,
            })?;
            self.scratch.fields.push((key, value));
        }
        let fields = self.scratch.fields.drain(start..).collect();
        Ok(JsValue::Object(Object::from_fields(fields)))
    }
}

/// A key, borrowed when the text holds it without escapes.
struct Key<'de>(Str<'de>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string key")
            }

            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Str::from(key)))
            }

            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Str::owned(key.into())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    use serde_json::json;

    use super::*;

    thread_local! {
        /// Bytes allocated and not yet freed by this thread.
        static LIVE: Cell<isize> = const { Cell::new(0) };
    }

    /// The system allocator, counting what each thread holds, so that a test can see that what
    /// it made was freed (a `Str` that forgot its text would pass every other test).
    struct Counting;

    fn count(bytes: isize) {
        // `try_with`: a thread being torn down still frees memory.
        let _ = LIVE.try_with(|live| live.set(live.get() + bytes));
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            count(layout.size() as isize);
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            count(-(layout.size() as isize));
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;

    fn parse(text: &str) -> JsValue<'_> {
        serde_json::from_str(text).expect("valid JSON")
    }

    #[test]
    fn a_key_borrowed_or_owned_is_found_in_a_map_by_its_text() {
        let mut map = std::collections::HashMap::new();
        map.insert(Str::from("borrowed"), 1);
        map.insert(Str::from(String::from("owned")), 2);
        assert_eq!(
            (map.get("borrowed"), map.get("owned")),
            (Some(&1), Some(&2))
        );
        assert_eq!(map.get("other"), None);
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_its_last_value() {
        let pair = parse(r#"{"a": 1, "a": 2}"#);
        assert_eq!(pair.as_object().unwrap().len(), 1, "every key the same");
        assert_eq!(pair.to_value(), json!({"a": 2}));
        let small = parse(r#"{"a": 1, "b": 2, "a": 3}"#);
        let fields: Vec<_> = small.as_object().unwrap().iter().map(|(k, _)| k).collect();
        assert_eq!(fields, ["a", "b"]);
        assert_eq!(small.to_value(), json!({"a": 3, "b": 2}));
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        let large = format!("{{{}, \"k7\": \"last\"}}", keys.join(", "));
        let large = parse(&large);
        let object = large.as_object().unwrap();
        assert_eq!(object.len(), 40);
        assert_eq!(object.get("k7").and_then(JsValue::as_str), Some("last"));
        assert_eq!(object.iter().nth(7).map(|(k, _)| k), Some("k7"));
    }

    #[test]
    fn strings_without_escapes_are_borrowed_from_the_text() {
        let text = r#"{"plain": "text", "escaped": "a\nb"}"#;
        let value = parse(text);
        let object = value.as_object().unwrap();
        let in_text = |s: &Str| text.as_bytes().as_ptr_range().contains(&s.as_ptr());
        assert!(matches!(
            object.get("plain"),
            Some(JsValue::String(s)) if !s.is_owned() && in_text(s) && &**s == "text"
        ));
        assert!(matches!(
            object.get("escaped"),
            Some(JsValue::String(s)) if s.is_owned() && !in_text(s) && &**s == "a\nb"
        ));
    }

    #[test]
    fn a_field_is_a_two_word_key_and_a_three_word_value() {
        assert_eq!(std::mem::size_of::<Str>(), 16);
        assert_eq!(std::mem::size_of::<JsValue>(), 24);
        assert_eq!(std::mem::size_of::<(Str, JsValue)>(), 40);
    }

    #[test]
    fn every_owned_string_is_freed_once() {
        let live = || LIVE.with(Cell::get);
        let before = live();
        let original = Str::from("x".repeat(100));
        let copy = original.clone();
        let parsed = parse(r#"{"escaped\n": "a\nb", "plain": "text"}"#);
        let copied = parsed.owned_copy();
        drop((original, copy, parsed, copied));
        assert_eq!(live(), before);
    }

    #[test]
    fn an_owned_string_is_copied_by_clone_and_freed_by_each_copy() {
        let original = Str::from(String::from("owned text"));
        let copy = original.clone();
        assert!(copy.is_owned() && &*copy == "owned text");
        assert_eq!(format!("{copy:?}"), r#""owned text""#);
        assert_ne!(copy.as_ptr(), original.as_ptr());
        drop(original);
        assert_eq!(&*copy, "owned text");
        let empty = Str::from(String::new());
        assert!(empty.is_owned() && empty.is_empty() && empty.clone().is_empty());
        let borrowed = Str::from("borrowed");
        assert_eq!(borrowed.clone().as_ptr(), borrowed.as_ptr());
        assert_eq!(Str::from("borrowed").owned_copy(), borrowed);
        assert!(borrowed.owned_copy().is_owned());
    }

    #[test]
    fn a_large_object_without_a_repeated_key_keeps_every_field_in_order() {
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        let text = format!("{{{}}}", keys.join(", "));
        let value = parse(&text);
        let fields: Vec<_> = value.as_object().unwrap().iter().map(|(k, _)| k).collect();
        let expected: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
        assert_eq!(fields, expected);
    }

    #[test]
    fn the_parse_reads_what_serde_json_reads() {
        let text = r#"[1, -2, 1.5, 1e300, null, true, false, "a\"b", [], {}, {"k": [{"n": {}}]}]"#;
        let expected: Value = serde_json::from_str(text).unwrap();
        assert_eq!(parse(text).to_value(), expected);
        let owned = parse(text).owned_copy();
        assert_eq!(owned.to_value(), expected);
        assert!(matches!(&owned, JsValue::Array(items)
            if matches!(&items[7], JsValue::String(s) if s.is_owned() && &**s == "a\"b")));
    }

    #[test]
    fn equality_is_jsons_and_ignores_the_order_of_fields() {
        assert_eq!(
            parse(r#"{"a": 1, "b": [2]}"#),
            parse(r#"{"b": [2], "a": 1}"#)
        );
        assert_ne!(parse(r#"{"a": 1}"#), parse(r#"{"a": 1, "b": 2}"#));
        assert_ne!(parse(r#"{"a": 1, "b": 2}"#), parse(r#"{"a": 1}"#));
        assert_ne!(parse(r#"{"a": 1}"#), parse(r#"{"a": 2}"#));
        assert_ne!(parse(r#"[1]"#), parse(r#"[1, 1]"#));
        assert_ne!(parse(r#""1""#), parse("1"));
        assert_ne!(parse("true"), parse("false"));
        assert_eq!(parse("null"), JsValue::Null);
        assert!(parse(r#""image""#) == *"image");
        assert!(parse(r#"["image"]"#) != *"image");
    }

    #[test]
    fn the_accessors_answer_for_their_own_kind_only() {
        let (array, text, number) = (parse("[1]"), parse(r#""a""#), parse("2.5"));
        assert!(array.is_array() && !text.is_array());
        assert_eq!(text.as_str(), Some("a"));
        assert_eq!(array.as_str(), None);
        assert_eq!(array.as_array().map(<[_]>::len), Some(1));
        assert!(text.as_array().is_none());
        assert_eq!(number.as_f64(), Some(2.5));
        assert_eq!(text.as_f64(), None);
        assert!(parse("null").is_null() && !parse("0").is_null());
        assert!(parse("{}").as_object().is_some() && array.as_object().is_none());
    }

    #[test]
    fn a_value_prints_as_compact_json() {
        assert_eq!(parse(r#"{"a" : [1, "x"]}"#).to_string(), r#"{"a":[1,"x"]}"#);
    }

    #[test]
    fn texts_are_equal_exactly_when_every_byte_is() {
        // Every length the short-text comparison splits at, with one byte changed at each place.
        for n in 0..=20 {
            let text: String = ('a'..='z').take(n).collect();
            assert!(
                same_bytes(text.as_bytes(), text.clone().as_bytes()),
                "{text}"
            );
            assert!(!same_bytes(text.as_bytes(), format!("{text}a").as_bytes()));
            for at in 0..n {
                let mut other = text.clone().into_bytes();
                other[at] = b'_';
                assert!(!same_bytes(text.as_bytes(), &other), "{text} at {at}");
            }
        }
    }

    #[test]
    fn insert_replaces_in_place_and_remove_deletes() {
        let mut object = Object::new();
        object.insert("a", JsValue::from(1u64));
        object.insert("b", JsValue::from("two"));
        object.insert("a", JsValue::from("one"));
        let fields: Vec<_> = object.iter().map(|(k, v)| (k, v.as_str())).collect();
        assert_eq!(fields, [("a", Some("one")), ("b", Some("two"))]);
        object.remove("a");
        assert!(object.get("a").is_none());
        assert_eq!(object.len(), 1);
    }

    #[test]
    fn a_value_round_trips_through_serde_json() {
        let original = json!({"n": [1, -2, 1.5, null, true], "s": "x", "o": {"k": {}}});
        assert_eq!(JsValue::from(&original).to_value(), original);
        assert_eq!(JsValue::from(original.clone()).to_value(), original);
        let written = serde_json::to_value(JsValue::from(&original)).unwrap();
        assert_eq!(written, original);
    }
}
