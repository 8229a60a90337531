//! One read of every message into a compact array: its role, its text and the text's length, the
//! call ids an assistant opens, the id a tool result answers (ids interned as numbers, so pairing
//! them never reads the strings again), whether it is a summary and whether it carries tool calls.
//! The boundary search, the token counts, the tracker refill, the preserved turns and the
//! summariser's prompt read only this array; clipping and state extraction use it to visit only
//! the messages they change or read. Each walk of a transcript too large for the cache is a read
//! from memory, so the number of walks, not only their length, decides whether a long transcript
//! costs more per message than a short one (docs/figures.md#compaction).

use std::borrow::{Borrow, Cow};
use std::ops::{Index, Range};

use ctxfuzz_oracles::js_value::Str;
use foldhash::{HashMap, HashMapExt};

use super::Message;
use super::family::Family;
use super::tokens;

/// The roles the compaction tells apart: a user turn is the preferred cut and a preserved turn, a
/// tool result is never a cut and is what the clip shortens. Everything else (assistants, pi's
/// custom roles) is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    ToolResult,
    Other,
}

/// A call id, interned: equal ids, equal numbers.
pub type Id = u32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact<'a> {
    pub role: Role,
    /// `Family::role`, as written.
    pub role_name: Str<'a>,
    /// `Family::text`: what the token estimate, the clip and the summariser read.
    pub text: Str<'a>,
    /// Code points of `text`.
    pub chars: usize,
    /// The interned id a tool result answers (`Family::result_id`), if an earlier assistant
    /// opened a call with that id (no other result can be paired).
    pub result_id: Option<Id>,
    /// `Family::is_summary`.
    pub summary: bool,
    /// Whether `Family::tool_calls` is non-empty (of any role: state extraction reads them all).
    pub tool_calls: bool,
    /// This message's span of `Facts::call_ids`.
    calls: Range<usize>,
}

impl Fact<'_> {
    pub fn tokens(&self) -> u64 {
        tokens::from_chars(self.chars)
    }
}

/// How many facts a [`FactList`] chunk holds (a power of two, so that a chunk grown by doubling
/// stops at exactly this many).
pub const CHUNK: usize = 4096;

/// The facts of a transcript's messages, in order, held in chunks of [`CHUNK`]. `ctxfuzz compact`
/// reads them from a file whose messages it has not counted: they grow without moving what was
/// read, within a chunk of their size, where a vector grown by doubling holds its old and new
/// buffers at once at each growth, three times its facts at the last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactList<'a> {
    chunks: Vec<Vec<Fact<'a>>>,
}

impl<'a> FactList<'a> {
    /// An empty list whose first chunk has room for `len` facts (a chunk's at most).
    fn with_capacity(len: usize) -> Self {
        FactList {
            chunks: vec![Vec::with_capacity(len.min(CHUNK))],
        }
    }

    pub fn len(&self) -> usize {
        self.chunks
            .last()
            .map_or(0, |last| (self.chunks.len() - 1) * CHUNK + last.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every fact, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Fact<'a>> {
        self.into_iter()
    }

    /// The facts of `range`, in order; panics, as a slice does, when it ends past the last.
    pub fn range(&self, range: Range<usize>) -> impl DoubleEndedIterator<Item = &Fact<'a>> {
        assert!(range.end <= self.len(), "facts {range:?} of {}", self.len());
        range.map(|at| &self[at])
    }

    fn push(&mut self, fact: Fact<'a>) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(fact),
            _ => self.chunks.push(vec![fact]),
        }
    }
}

impl<'a> Index<usize> for FactList<'a> {
    type Output = Fact<'a>;

    fn index(&self, at: usize) -> &Fact<'a> {
        &self.chunks[at / CHUNK][at % CHUNK]
    }
}

impl<'f, 'a> IntoIterator for &'f FactList<'a> {
    type Item = &'f Fact<'a>;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'f, Vec<Fact<'a>>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter().flatten()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts<'a> {
    /// One per message, in transcript order.
    pub messages: FactList<'a>,
    /// Every assistant's call ids (`Family::call_ids`), in transcript order.
    call_ids: Vec<Id>,
}

impl<'a> Facts<'a> {
    pub fn read<J: Message + 'a, M: Borrow<J>>(messages: &'a [M], family: Family) -> Facts<'a> {
        let mut reader = Reader::with_capacity(family, messages.len());
        for message in messages {
            reader.read(message.borrow(), Str::from);
        }
        reader.finish()
    }

    /// The ids of the calls `fact` opens (empty unless it is an assistant).
    pub fn call_ids(&self, fact: &Fact) -> &[Id] {
        &self.call_ids[fact.calls.clone()]
    }

    /// The sum of the token estimates of `range`.
    pub fn tokens(&self, range: Range<usize>) -> u64 {
        self.messages.range(range).map(Fact::tokens).sum()
    }
}

/// [`Facts`] read one message at a time, from messages that need not outlive the read: a message
/// parsed from a file and dropped after it ([`crate::compaction::streamed`]) lends its strings
/// through `keep`, which borrows them from the file's text.
pub struct Reader<'a> {
    family: Family,
    facts: Facts<'a>,
    /// Call ids, interned as they are first opened.
    interned: HashMap<Str<'a>, Id>,
}

impl<'a> Reader<'a> {
    /// A reader of about `len` messages (more may be read).
    pub fn with_capacity(family: Family, len: usize) -> Reader<'a> {
        Reader {
            family,
            facts: Facts {
                messages: FactList::with_capacity(len),
                call_ids: Vec::new(),
            },
            interned: HashMap::new(),
        }
    }

    /// Reads the next message; `keep` makes a string borrowed from it live for `'a`.
    pub fn read<'m, J: Message>(&mut self, message: &'m J, keep: impl Fn(&'m str) -> Str<'a>) {
        let family = self.family;
        let role_name = family.role(message);
        let start = self.facts.call_ids.len();
        for id in family.call_ids(role_name, message) {
            let next = self.interned.len() as Id;
            let id = match self.interned.get(id) {
                Some(&known) => known,
                None => *self.interned.entry(keep(id)).or_insert(next),
            };
            self.facts.call_ids.push(id);
        }
        let text = match family.text(role_name, message) {
            Cow::Borrowed(text) => keep(text),
            Cow::Owned(text) => Str::from(text),
        };
        self.facts.messages.push(Fact {
            role: match role_name {
                "user" => Role::User,
                role if role == family.tool_role() => Role::ToolResult,
                _ => Role::Other,
            },
            role_name: keep(role_name),
            chars: text.chars().count(),
            text,
            result_id: family
                .result_id(role_name, message)
                .and_then(|id| self.interned.get(id).copied()),
            summary: family.is_summary(role_name, message),
            tool_calls: family.has_tool_calls(message),
            calls: start..self.facts.call_ids.len(),
        });
    }

    pub fn finish(self) -> Facts<'a> {
        self.facts
    }
}
