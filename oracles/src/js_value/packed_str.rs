//! [`Str`]: a string borrowed from the text or owned, packed in two words.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

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
    pub(super) fn owned(text: Box<str>) -> Self {
        let len = text.len();
        Str {
            // From the `&mut str` the box leaks, so that `Drop` may take it back as a box.
            ptr: NonNull::from(Box::leak(text)).cast(),
            len: len | OWNED,
            borrow: PhantomData,
        }
    }

    pub(super) fn is_owned(&self) -> bool {
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
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
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
