//! A pi session file read through an index of its lines, so that `check` holds the file's text, a
//! few words per entry and one part of messages, never the tree of every entry (issue 40).
//!
//! The first pass parses each line as pi's `loadEntriesFromFile` does
//! ([`session_context::parse_file`] on that line alone) and keeps of each entry what
//! `buildSessionContext` needs to find its messages: the line's span, the entry's kind, id and
//! parent, whether a message entry's message is missing (pi throws on it) or is a system message.
//! The path from the last entry to the root is walked on the index, the entries the context keeps
//! are chosen as pi chooses them (the latest compaction, the kept entries before it, everything
//! after it), and only those lines are parsed again, one at a time. Each kept entry's messages are
//! those of the oracle's [`session_context::build_context_from`] of that entry alone (with the
//! `context_edit` aimed at it as its only child), so what an entry becomes is modelled once; a
//! message entry whose message has content, and no edit, is its message.
//!
//! A file this reading does not cover is read whole ([`super::load`]) by the caller, which gives
//! the same verdict: an id or a parent that is not a string borrowed from the text (a number, an
//! escaped string), a version 1 file (its ids are made on load from every entry's position), a
//! `parentId` cycle, a message entry without a message on the path, a text that needs decoding
//! ([`js_string::from_text`]) or is 4 GiB or more, and any entry on which pi throws.

use std::borrow::Cow;
use std::ops::Range;

use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use foldhash::{HashMap, HashMapExt};
use hashbrown::HashTable;
use hashbrown::hash_table::Entry as Slot;

use ctxfuzz_oracles::js::{field, is_str, truthy};
use ctxfuzz_oracles::js_string;
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::pi::session_context::{self, MalformedLine, SessionRules};

/// What the index keeps of one entry: 28 bytes (a million-entry session's index is 28 MB, and
/// its map of ids 10 MB).
struct Entry {
    /// The entry's line.
    line: Span,
    /// `entry.id`.
    id: Span,
    /// `entry.parentId` when it is truthy ([`UNDEFINED`] otherwise: a falsy parent ends the walk).
    parent: Span,
    kind: Kind,
}

/// A part of the text (half the size of a `&str`).
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

/// The span of a field that is missing (`undefined`).
const UNDEFINED: Span = Span {
    start: 0,
    len: u32::MAX,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A `message` entry whose message is an object, not a system message.
    Message,
    /// A `message` entry with a system message (0.87 drops those before a compaction).
    SystemMessage,
    /// A `message` entry whose message is `null` or missing: pi throws reading its role.
    NoMessage,
    Compaction,
    ContextEdit,
    /// `custom_message`, `branch_summary`, or a `message` entry whose message is a primitive or
    /// an array: read again, and turned into messages by the oracle.
    Other,
    /// Any other entry, which adds no message (settings, labels, the header, primitives).
    Silent,
}

/// A session file's entries, indexed.
pub struct Index<'t> {
    text: &'t str,
    entries: Vec<Entry>,
    /// `new Map(entries.map(e => [e.id, e]))`, the positions of entries hashed by their ids: the
    /// last entry with an id wins.
    by_id: HashTable<u32>,
    /// No id is repeated, so an entry whose id matches is the one the map holds.
    unique: bool,
    /// The header, to migrate each entry read again with (version 2 files).
    header: Option<JsValue<'t>>,
    /// The lines pi skips, with their positions.
    pub malformed: Vec<MalformedLine>,
}

/// The file needs the whole reading.
#[derive(Debug, PartialEq, Eq)]
pub struct Whole;

impl<'t> Index<'t> {
    /// The index of a session file's text: `Err(Whole)` when it is not a session (no header),
    /// or one of the files the module's doc lists.
    pub fn read(text: &'t str) -> Result<Self, Whole> {
        if u32::try_from(text.len()).is_err() || matches!(js_string::from_text(text), Cow::Owned(_))
        {
            return Err(Whole);
        }
        // Sized for every line to be an entry: the index is never copied into a larger one.
        let lines = text.bytes().filter(|&byte| byte == b'\n').count() + 1;
        let mut index = Index {
            text,
            entries: Vec::with_capacity(lines),
            by_id: HashTable::with_capacity(lines),
            unique: true,
            header: None,
            malformed: Vec::new(),
        };
        let mut start = 0;
        for (number, line) in (1..).zip(text.split('\n')) {
            let span = start..start + line.len();
            start = span.end + 1;
            let mut parsed = session_context::parse_file(line);
            for mut malformed in parsed.malformed {
                malformed.line = number;
                index.malformed.push(malformed);
            }
            if let Some(entry) = parsed.entries.pop() {
                index.push(&entry, span)?;
                if index.entries.len() == 1 {
                    // Known at the first entry: a file that is not a session, or a version 1
                    // one, is not read further here.
                    index.header = migrated_from(entry)?;
                }
            }
        }
        if index.entries.is_empty() {
            return Err(Whole);
        }
        Ok(index)
    }

    fn push(&mut self, entry: &JsValue<'_>, span: Range<usize>) -> Result<(), Whole> {
        let line = &self.text[span.clone()];
        let id = match field(entry, "id") {
            None => UNDEFINED,
            Some(id) => borrowed(self.text, line, id).ok_or(Whole)?,
        };
        let parent = match field(entry, "parentId") {
            Some(parent) if truthy(Some(parent)) => {
                borrowed(self.text, line, parent).ok_or(Whole)?
            }
            _ => UNDEFINED,
        };
        let kind = match field(entry, "type").and_then(JsValue::as_str) {
            Some("message") => match field(entry, "message") {
                None | Some(JsValue::Null) => Kind::NoMessage,
                Some(message @ JsValue::Object(_)) if is_str(field(message, "role"), "system") => {
                    Kind::SystemMessage
                }
                Some(JsValue::Object(_)) => Kind::Message,
                Some(_) => Kind::Other,
            },
            Some("compaction") => Kind::Compaction,
            Some("context_edit") => Kind::ContextEdit,
            Some("custom_message" | "branch_summary") => Kind::Other,
            _ => Kind::Silent,
        };
        let position = u32::try_from(self.entries.len()).map_err(|_| Whole)?;
        self.entries.push(Entry {
            // The text is under 4 GiB (checked first).
            line: Span {
                start: span.start as u32,
                len: line.len() as u32,
            },
            id,
            parent,
            kind,
        });
        if let Some(id) = self.str(id) {
            let (text, entries) = (self.text, &self.entries);
            let id_of = |p: &u32| str_of(text, entries[*p as usize].id);
            match self.by_id.entry(
                hash(id),
                |p| id_of(p) == Some(id),
                |p| hash(id_of(p).unwrap_or_default()),
            ) {
                Slot::Occupied(mut slot) => {
                    *slot.get_mut() = position;
                    self.unique = false;
                }
                Slot::Vacant(slot) => drop(slot.insert(position)),
            }
        }
        Ok(())
    }

    /// The text of `span` (`None` for [`UNDEFINED`]).
    fn str(&self, span: Span) -> Option<&'t str> {
        str_of(self.text, span)
    }

    /// The position of the parent `id` of the entry at `child`. pi writes a session parent first,
    /// so the entry before is tried first: a look-up in a million-entry table misses the cache
    /// every time (the walk took 9% of `check`'s time).
    fn parent(&self, child: usize, id: &str) -> Option<usize> {
        match child.checked_sub(1) {
            Some(before) if self.unique && self.str(self.entries[before].id) == Some(id) => {
                Some(before)
            }
            _ => self.entry_with_id(id),
        }
    }

    /// The position of the entry pi's map gives for `id`.
    fn entry_with_id(&self, id: &str) -> Option<usize> {
        let found = self.by_id.find(hash(id), |p| {
            self.str(self.entries[*p as usize].id) == Some(id)
        });
        found.map(|&p| p as usize)
    }

    /// Hands `message` every message of the context pi `rules` builds from the last entry, in
    /// order; `Err(Whole)` (perhaps after some messages) when the file needs the whole reading.
    pub fn for_each_message(
        &self,
        rules: SessionRules,
        mut message: impl FnMut(JsValue<'t>),
    ) -> Result<(), Whole> {
        let path = self.path()?;
        let selected = self.selected(&path, rules)?;
        let edits = self.edits(&selected, rules)?;
        for (i, &position) in selected.iter().enumerate() {
            let entry = &self.entries[position as usize];
            let skipped = match entry.kind {
                Kind::Silent | Kind::ContextEdit | Kind::NoMessage => true,
                // Only the newest compaction (first) speaks, except in 0.81 (V30).
                Kind::Compaction => i > 0 && rules != SessionRules::Split,
                _ => false,
            };
            if skipped {
                continue;
            }
            let edit = edits.get(&self.str(entry.id).map(Cow::Borrowed)).copied();
            self.messages_of(position, edit, rules, &mut message)?;
        }
        Ok(())
    }

    /// The positions of the entries from the root to the last entry.
    fn path(&self) -> Result<Vec<u32>, Whole> {
        let mut path = Vec::new();
        let mut seen = vec![false; self.entries.len()];
        let mut current = self.entries.len().checked_sub(1);
        while let Some(position) = current {
            if std::mem::replace(&mut seen[position], true) {
                return Err(Whole);
            }
            let entry = &self.entries[position];
            if entry.kind == Kind::NoMessage {
                return Err(Whole);
            }
            path.push(position as u32);
            current = self
                .str(entry.parent)
                .and_then(|parent| self.parent(position, parent));
        }
        path.reverse();
        Ok(path)
    }

    /// The entries whose messages make the context, as `buildSessionContext` picks them: the
    /// latest compaction on the path, the entries before it from its `firstKeptEntryId` on
    /// (0.87 without system messages), then every entry after it.
    fn selected(&self, path: &[u32], rules: SessionRules) -> Result<Vec<u32>, Whole> {
        let entry = |p: &u32| &self.entries[*p as usize];
        // Ids on the path are distinct (pi's map gives one entry an id: a repeat is a cycle) and
        // only the leaf may have none, so the first entry with the latest compaction's id, where
        // pi 0.81 on cuts the path, is that compaction, which is where 0.79 cuts it.
        let Some(at) = path.iter().rposition(|p| entry(p).kind == Kind::Compaction) else {
            return Ok(path.to_vec());
        };
        let compaction = path[at];
        let parsed = self.parse(compaction)?;
        let first_kept = field(&parsed, "firstKeptEntryId");
        let mut selected = vec![compaction];
        let mut found = false;
        for p in &path[..at] {
            // Only the leaf may lack an id: an entry before the compaction has a string one.
            found |= first_kept
                .and_then(JsValue::as_str)
                .is_some_and(|kept| self.str(entry(p).id) == Some(kept));
            let system = rules == SessionRules::Canonical && entry(p).kind == Kind::SystemMessage;
            if found && !system {
                selected.push(*p);
            }
        }
        selected.extend_from_slice(&path[at + 1..]);
        Ok(selected)
    }

    /// The `context_edit`s among the selected entries (0.87 on), by the id they aim at: the last
    /// one wins. An aim that is not a string or `undefined` matches no entry here.
    fn edits(
        &self,
        selected: &[u32],
        rules: SessionRules,
    ) -> Result<HashMap<Option<Cow<'t, str>>, u32>, Whole> {
        let mut edits = HashMap::new();
        if rules != SessionRules::Canonical {
            return Ok(edits);
        }
        for &position in selected {
            if self.entries[position as usize].kind != Kind::ContextEdit {
                continue;
            }
            match field(&self.parse(position)?, "targetId") {
                None => edits.insert(None, position),
                Some(JsValue::String(target)) => {
                    edits.insert(Some(Cow::Owned(target.to_string())), position)
                }
                Some(_) => None,
            };
        }
        Ok(edits)
    }

    /// The entry at `position`, parsed again from its line and migrated as pi migrates it.
    fn parse(&self, position: u32) -> Result<JsValue<'t>, Whole> {
        let line = self
            .str(self.entries[position as usize].line)
            .unwrap_or_default();
        let mut parsed = session_context::parse_file(line)
            .entries
            .pop()
            .ok_or(Whole)?;
        if let Some(header) = &self.header {
            let mut pair = [header.clone(), parsed];
            session_context::migrate(&mut pair).map_err(|_| Whole)?;
            parsed = std::mem::take(&mut pair[1]);
        }
        Ok(parsed)
    }

    /// The messages of the kept entry at `position`, with the edit at `edit` applied.
    fn messages_of(
        &self,
        position: u32,
        edit: Option<u32>,
        rules: SessionRules,
        message: &mut impl FnMut(JsValue<'t>),
    ) -> Result<(), Whole> {
        let mut entry = self.parse(position)?;
        let JsValue::Object(object) = &mut entry else {
            return Err(Whole);
        };
        // The common case: a message with content, as it is in every release.
        let plain = edit.is_none()
            && self.entries[position as usize].kind == Kind::Message
            && object
                .get("message")
                .and_then(|m| field(m, "content"))
                .is_some_and(|content| !content.is_null());
        if let Some(plain) = object.get_mut("message").filter(|_| plain) {
            message(std::mem::take(plain));
            return Ok(());
        }
        // The entry alone (and its edit as its child): the oracle's context of it is its messages.
        object.insert("id", JsValue::from("entry"));
        object.remove("parentId");
        let mut entries = vec![entry];
        if let Some(edit) = edit {
            let mut edit = self.parse(edit)?;
            let JsValue::Object(object) = &mut edit else {
                return Err(Whole);
            };
            object.insert("id", JsValue::from("edit"));
            object.insert("parentId", JsValue::from("entry"));
            object.insert("targetId", JsValue::from("entry"));
            entries.push(edit);
        }
        let context =
            session_context::build_context_from(entries, None, rules).map_err(|_| Whole)?;
        context.messages.into_iter().for_each(message);
        Ok(())
    }
}

/// What the index keeps of the first entry, `header`: `None` when pi does not migrate the file,
/// the header itself when pi migrates it from version 2 (each entry read again is migrated with
/// it); `Err(Whole)` when it is not a session header or the file is a version 1 one.
fn migrated_from(header: JsValue<'_>) -> Result<Option<JsValue<'_>>, Whole> {
    if !session_context::has_session_header(std::slice::from_ref(&header)) {
        return Err(Whole);
    }
    // A probe entry after the header gets an id only from version 1.
    let mut probe = [
        header.clone(),
        JsValue::object([("type", JsValue::from("x"))]),
    ];
    match session_context::migrate(&mut probe) {
        Ok(false) => Ok(None),
        Ok(true) if field(&probe[1], "id").is_none() => Ok(Some(header)),
        _ => Err(Whole),
    }
}

/// The span in `text` of `value` when it is a string that borrows from `line`, a part of `text`
/// (not one with escapes, decoded into a copy).
fn borrowed(text: &str, line: &str, value: &JsValue<'_>) -> Option<Span> {
    let value = value.as_str()?;
    let at = (value.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    line.get(at..at + value.len())
        .filter(|slice| slice.as_ptr() == value.as_ptr())?;
    // `line` is in `text`, which is under 4 GiB.
    Some(Span {
        start: (line.as_ptr() as usize - text.as_ptr() as usize + at) as u32,
        len: value.len() as u32,
    })
}

fn str_of(text: &str, span: Span) -> Option<&str> {
    let start = span.start as usize;
    (span.len != UNDEFINED.len).then(|| &text[start..start + span.len as usize])
}

fn hash(id: &str) -> u64 {
    FixedState::default().hash_one(id)
}
