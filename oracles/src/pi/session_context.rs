//! pi session files (JSONL, version 3, a tree of entries) read with the rules of pi-coding-agent's
//! `buildSessionContext`, per release line (docs/oracle.md#pi-session-files-check-and-scan,
//! docs/pi-versions.md).
//!
//! `buildSessionContext(entries, leafId)` walks `parentId` links from the leaf to the root, keeps
//! what the latest compaction on that path did not summarise, and turns each kept entry into the
//! agent messages pi sends into `convertToLlm`. It is modelled here on the entries as
//! [`JsValue`]s borrowed from the file's text, read the way the JavaScript reads them (missing vs `null`, truthiness, ids compared with `===`), including
//! the inputs on which it throws. A `parentId` cycle, on which pi loops forever, is reported as
//! such instead of hanging ctxfuzz.

mod date;
mod jsonl;
mod key;
mod migrate;

use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use crate::js::{self, field, truthy};
use crate::js_value::{JsValue, Object};
use crate::pi::PiVersion;

pub use jsonl::{MalformedLine, SessionLines, has_session_header, parse, parse_file};
pub use key::Key;
pub use migrate::migrate;

/// Which `buildSessionContext` a pi release has. The boundaries differ from the message-pipeline
/// pi versions: sessions changed at 0.80.4 and at 0.87.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SessionRules {
    /// Before 0.80.4 (checked against 0.79.0): entries used as they are; an older compaction
    /// inside the kept range emits nothing.
    Legacy,
    /// 0.80.4 to 0.86.x (checked against 0.81.1): null content becomes `[]`; an older compaction
    /// inside the kept range emits its summary again (V30).
    Split,
    /// 0.87.0 and later (checked against 0.87.1 and 1.6.0): `context_edit`, a compaction's
    /// `systemMessage`, system messages before the compaction dropped, only the newest summary.
    Canonical,
}

impl SessionRules {
    pub const ALL: [SessionRules; 3] = [Self::Legacy, Self::Split, Self::Canonical];

    /// The session rules of a pi version, by the release it is checked against. `From086`
    /// also covers 0.86.x, which still read sessions like 0.81 (docs/pi-versions.md).
    pub fn of(v: PiVersion) -> SessionRules {
        match v {
            PiVersion::Before0804 => SessionRules::Legacy,
            PiVersion::From0804 => SessionRules::Split,
            PiVersion::From086 | PiVersion::From130 => SessionRules::Canonical,
        }
    }
}

/// What `buildSessionContext` returns. The messages pi uses as they are borrow from the entries'
/// text; the ones it builds own theirs.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext<'a> {
    pub messages: Vec<JsValue<'a>>,
    /// `None` when the last `thinking_level_change` on the path has no `thinkingLevel`
    /// (JavaScript `undefined`, absent from the JSON).
    pub thinking_level: Option<JsValue<'static>>,
    /// `null`, or `{provider, modelId}` without the fields that were `undefined`.
    pub model: JsValue<'static>,
}

impl SessionContext<'_> {
    /// The JSON pi would print for it (`JSON.stringify` drops `undefined`).
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        let messages = self.messages.iter().map(JsValue::to_value).collect();
        out.insert("messages".into(), Value::Array(messages));
        if let Some(level) = &self.thinking_level {
            out.insert("thinkingLevel".into(), level.to_value());
        }
        out.insert("model".into(), self.model.to_value());
        Value::Object(out)
    }
}

/// An input on which pi's own code fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// pi throws; the text is what Node prints (`TypeError: ...`).
    Throws(String),
    /// A `parentId` cycle: pi's walk from the leaf never ends. `entry` is the index of the first
    /// entry seen twice.
    Loops { entry: usize },
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Throws(error) => write!(f, "{error}"),
            SessionError::Loops { entry } => write!(
                f,
                "the parentId links from the leaf form a cycle through entry {entry}: pi would loop forever"
            ),
        }
    }
}

/// `buildSessionContext(entries, leafId)`. `leaf` `None` is `undefined` (the last entry is the
/// leaf); `Some(JsValue::Null)` is an explicit `null` (nothing selected).
pub fn build_context<'a>(
    entries: &[JsValue<'a>],
    leaf: Option<&JsValue>,
    rules: SessionRules,
) -> Result<SessionContext<'a>, SessionError> {
    let plan = plan(entries, leaf, rules)?;
    Ok(plan.into_context(|position| field(&entries[position], "message").cloned()))
}

/// [`build_context`] on entries the caller no longer needs: each message pi uses as it is is
/// moved out of its entry instead of copied, so a large session is held once, not twice.
pub fn build_context_from<'a>(
    mut entries: Vec<JsValue<'a>>,
    leaf: Option<&JsValue>,
    rules: SessionRules,
) -> Result<SessionContext<'a>, SessionError> {
    let plan = plan(&entries, leaf, rules)?;
    Ok(plan.into_context(|position| match &mut entries[position] {
        JsValue::Object(entry) => entry.get_mut("message").map(std::mem::take),
        _ => None,
    }))
}

/// One message of the context: a `message` entry's message as it is (by the entry's position),
/// or one pi builds (owning its strings, so the plan holds no borrow of the entries it may move
/// the messages out of).
enum Piece {
    Message(usize),
    Built(JsValue<'static>),
}

/// What `buildSessionContext` decides, before its messages are copied or moved out.
struct Plan {
    pieces: Vec<Piece>,
    thinking_level: Option<JsValue<'static>>,
    model: JsValue<'static>,
}

impl Plan {
    /// The context, with `message(position)` giving the message of a `message` entry (every
    /// one the plan refers to has one, so `None` never occurs).
    fn into_context<'a>(
        self,
        mut message: impl FnMut(usize) -> Option<JsValue<'a>>,
    ) -> SessionContext<'a> {
        SessionContext {
            messages: self
                .pieces
                .into_iter()
                .filter_map(|piece| match piece {
                    Piece::Message(position) => message(position),
                    Piece::Built(message) => Some(message),
                })
                .collect(),
            thinking_level: self.thinking_level,
            model: self.model,
        }
    }
}

fn plan(
    entries: &[JsValue<'_>],
    leaf: Option<&JsValue>,
    rules: SessionRules,
) -> Result<Plan, SessionError> {
    let entries: Vec<Entry<'_>> = entries.iter().enumerate().map(Entry::read).collect();
    let index = Index::new(&entries)?;
    let path = path_to_root(&entries, &index, leaf, rules)?;
    let (thinking_level, model) = settings(&path)?;
    let pieces = match rules {
        SessionRules::Legacy => legacy_messages(&path),
        SessionRules::Split | SessionRules::Canonical => {
            project(&context_entries(&path, rules), rules)?
        }
    };
    Ok(Plan {
        pieces,
        thinking_level,
        model,
    })
}

/// An entry's `type`, where it is one `buildSessionContext` acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    CustomMessage,
    BranchSummary,
    Compaction,
    ContextEdit,
    ThinkingLevelChange,
    ModelChange,
    /// Any other `type`, a non-string one or none.
    Other,
}

impl Kind {
    fn of(kind: &JsValue) -> Kind {
        match kind.as_str() {
            Some("message") => Kind::Message,
            Some("custom_message") => Kind::CustomMessage,
            Some("branch_summary") => Kind::BranchSummary,
            Some("compaction") => Kind::Compaction,
            Some("context_edit") => Kind::ContextEdit,
            Some("thinking_level_change") => Kind::ThinkingLevelChange,
            Some("model_change") => Kind::ModelChange,
            _ => Kind::Other,
        }
    }
}

/// What `buildSessionContext` reads of every entry, read in one visit of the entry's object. The
/// plan's passes (the index, the walk to the root, the settings, the projection) read these
/// instead of searching every entry's object again on each pass, which was a quarter of the time
/// of checking a large session (docs/figures.md).
#[derive(Debug, Clone, Copy)]
struct Entry<'a> {
    /// Where it is in the file's entries.
    position: usize,
    value: &'a JsValue<'a>,
    kind: Kind,
    id: Key<'a>,
    parent_id: Option<&'a JsValue<'a>>,
    message: Option<&'a JsValue<'a>>,
    /// `entry.message.role`, when it is a string.
    role: Option<&'a str>,
}

impl<'a> Entry<'a> {
    fn read((position, value): (usize, &'a JsValue<'a>)) -> Self {
        let mut entry = Entry {
            position,
            value,
            kind: Kind::Other,
            id: Key::Undefined,
            parent_id: None,
            message: None,
            role: None,
        };
        for (name, field) in value.as_object().into_iter().flat_map(Object::iter) {
            match name {
                "type" => entry.kind = Kind::of(field),
                "id" => entry.id = Key::of(Some(field)),
                "parentId" => entry.parent_id = Some(field),
                "message" => {
                    entry.message = Some(field);
                    entry.role = role(field);
                }
                _ => {}
            }
        }
        entry
    }

    /// Any other field.
    fn get(&self, name: &str) -> Option<&'a JsValue<'a>> {
        field(self.value, name)
    }

    /// `entry.message`, which pi reads `.role` from: throws when it is `null` or missing.
    fn message(&self) -> Result<&'a JsValue<'a>, SessionError> {
        match self.message {
            message @ (None | Some(JsValue::Null)) => Err(cannot_read(message, "role")),
            Some(message) => Ok(message),
        }
    }
}

/// `new Map(entries.map(e => [e.id, e]))`: the last entry with an id wins.
struct Index<'a> {
    by_id: HashMap<Key<'a>, usize>,
    /// No id is repeated, so an entry whose id matches is the one the map holds.
    unique: bool,
}

impl<'a> Index<'a> {
    fn new(entries: &[Entry<'a>]) -> Result<Self, SessionError> {
        let mut by_id = HashMap::with_capacity(entries.len());
        let mut unique = true;
        for entry in entries {
            if entry.value.is_null() {
                return Err(cannot_read(Some(entry.value), "id"));
            }
            unique &= by_id.insert(entry.id, entry.position).is_none();
        }
        Ok(Index { by_id, unique })
    }

    fn get(&self, id: Key<'_>) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// The parent `id` of the entry at `child`. pi writes a session parent first, so the entry
    /// before is tried first: a look-up in a million-entry map misses the cache every time.
    fn parent(&self, entries: &[Entry<'_>], child: usize, id: Key<'_>) -> Option<usize> {
        match child.checked_sub(1) {
            Some(before) if self.unique && entries[before].id == id => Some(before),
            _ => self.get(id),
        }
    }
}

/// The entries from the root to the leaf.
fn path_to_root<'e, 'a>(
    entries: &'e [Entry<'a>],
    index: &Index<'_>,
    leaf: Option<&JsValue>,
    rules: SessionRules,
) -> Result<Vec<&'e Entry<'a>>, SessionError> {
    if leaf.is_some_and(JsValue::is_null) {
        return Ok(Vec::new());
    }
    let named = leaf
        .filter(|id| truthy(Some(*id)))
        .and_then(|id| index.get(Key::of(Some(id))));
    // 0.79 falls back to the last entry when the named one is falsy too; later releases only
    // when no entry has that id (`??=`).
    let named = match rules {
        SessionRules::Legacy => named.filter(|&i| truthy(Some(entries[i].value))),
        SessionRules::Split | SessionRules::Canonical => named,
    };
    let Some(start) = named.or(entries.len().checked_sub(1)) else {
        return Ok(Vec::new());
    };
    let mut path = Vec::new();
    // By position: every entry is visited at most once.
    let mut seen = vec![false; entries.len()];
    let mut current = Some(start);
    while let Some(position) = current.filter(|&i| truthy(Some(entries[i].value))) {
        if std::mem::replace(&mut seen[position], true) {
            return Err(SessionError::Loops { entry: position });
        }
        let entry = &entries[position];
        path.push(entry);
        current = entry
            .parent_id
            .filter(|parent| truthy(Some(*parent)))
            .and_then(|parent| index.parent(entries, position, Key::of(Some(parent))));
    }
    path.reverse();
    Ok(path)
}

fn role<'v>(message: &'v JsValue) -> Option<&'v str> {
    field(message, "role").and_then(JsValue::as_str)
}

/// The thinking level and the model: the last change of each on the path.
fn settings(
    path: &[&Entry<'_>],
) -> Result<(Option<JsValue<'static>>, JsValue<'static>), SessionError> {
    // Only the last change of each counts: it is copied once, after the walk.
    let mut thinking_level = None;
    let mut model = None;
    for entry in path {
        match entry.kind {
            Kind::ThinkingLevelChange => thinking_level = Some(entry),
            Kind::ModelChange => model = Some((entry.value, "modelId")),
            Kind::Message => {
                let message = entry.message()?;
                if entry.role == Some("assistant") {
                    model = Some((message, "model"));
                }
            }
            _ => {}
        }
    }
    let thinking_level = match thinking_level {
        Some(change) => owned(change.get("thinkingLevel")),
        None => Some(JsValue::from("off")),
    };
    let model = model.map_or(JsValue::Null, |(source, id)| model_of(source, id));
    Ok((thinking_level, model))
}

/// `{provider, modelId}` of a model change (`modelId`) or an assistant message (`model`).
fn model_of(source: &JsValue, id: &str) -> JsValue<'static> {
    object([
        ("provider", owned(field(source, "provider"))),
        ("modelId", owned(field(source, id))),
    ])
}

/// A copy of `value` that owns its strings.
fn owned(value: Option<&JsValue>) -> Option<JsValue<'static>> {
    value.map(JsValue::owned_copy)
}

/// The entries whose messages make the context: the latest compaction, the kept entries before it
/// (from `firstKeptEntryId`; none if that id is not on the path, V31), then everything after it.
fn context_entries<'e, 'a>(path: &[&'e Entry<'a>], rules: SessionRules) -> Vec<&'e Entry<'a>> {
    let Some(compaction) = path.iter().rev().find(|e| e.kind == Kind::Compaction) else {
        return path.to_vec();
    };
    let Some(at) = path.iter().position(|e| e.id == compaction.id) else {
        return path.to_vec();
    };
    let first_kept = Key::of(compaction.get("firstKeptEntryId"));
    let mut selected = vec![*compaction];
    let mut found = false;
    for &entry in &path[..at] {
        found |= entry.id == first_kept;
        let system_message = rules == SessionRules::Canonical
            && entry.kind == Kind::Message
            && entry.role == Some("system");
        if found && !system_message {
            selected.push(entry);
        }
    }
    selected.extend_from_slice(&path[at + 1..]);
    selected
}

/// The messages of the selected entries, with `context_edit`s applied (0.87+).
fn project(selected: &[&Entry<'_>], rules: SessionRules) -> Result<Vec<Piece>, SessionError> {
    let mut edits: HashMap<Key<'_>, &JsValue> = HashMap::new();
    if rules == SessionRules::Canonical {
        for entry in selected {
            if entry.kind == Kind::ContextEdit {
                edits.insert(Key::of(entry.get("targetId")), entry.value);
            }
        }
    }
    let mut pieces = Vec::new();
    for (i, entry) in selected.iter().enumerate() {
        // Only the newest compaction (first) speaks in 0.87+; 0.81 re-emits older ones (V30).
        if rules == SessionRules::Canonical && i > 0 && entry.kind == Kind::Compaction {
            continue;
        }
        let own = entry_messages(entry, rules)?;
        match edits.get(&entry.id) {
            None => pieces.extend(own),
            Some(edit) => pieces.extend(apply_edit(own, entry, edit)?),
        }
    }
    Ok(pieces)
}

/// `sessionEntryToContextMessages` (0.81+).
fn entry_messages(entry: &Entry<'_>, rules: SessionRules) -> Result<Vec<Piece>, SessionError> {
    let canonical = rules == SessionRules::Canonical;
    Ok(match entry.kind {
        Kind::Message => {
            let message = entry.message()?;
            let content_missing = field(message, "content").is_none_or(JsValue::is_null);
            let empty = match entry.role {
                Some("system") if canonical => Some(JsValue::from("")),
                Some("user" | "assistant" | "toolResult") => Some(JsValue::Array(Box::default())),
                _ => None,
            };
            match empty.filter(|_| content_missing) {
                Some(content) => vec![Piece::Built(with_field(message, "content", Some(content)))],
                None => vec![Piece::Message(entry.position)],
            }
        }
        Kind::CustomMessage => {
            let content = match entry.get("content") {
                None | Some(JsValue::Null) => Some(JsValue::Array(Box::default())),
                content => owned(content),
            };
            vec![Piece::Built(custom_message(entry.value, content))]
        }
        Kind::BranchSummary if truthy(entry.get("summary")) => {
            vec![Piece::Built(branch_summary(entry.value))]
        }
        Kind::Compaction => {
            let summary = Piece::Built(compaction_summary(entry.value));
            match entry
                .get("systemMessage")
                .filter(|m| canonical && truthy(Some(*m)))
            {
                Some(system) => vec![Piece::Built(system.owned_copy()), summary],
                None => vec![summary],
            }
        }
        _ => Vec::new(),
    })
}

/// `projectContextEntry` with an edit: `replacement: null` omits the entry; otherwise the content
/// of its user/assistant/toolResult/custom messages is replaced (a string becomes one text block
/// for assistant and toolResult). `entry` is the entry the pieces came from.
fn apply_edit(
    pieces: Vec<Piece>,
    entry: &Entry<'_>,
    edit: &JsValue,
) -> Result<Vec<Piece>, SessionError> {
    let replacement = field(edit, "replacement");
    if replacement.is_some_and(JsValue::is_null) {
        return Ok(Vec::new());
    }
    pieces
        .into_iter()
        .map(|piece| {
            let message = match &piece {
                Piece::Message(_) => entry.message()?,
                Piece::Built(message) => message,
            };
            let role = role(message);
            if !matches!(role, Some("user" | "assistant" | "toolResult" | "custom")) {
                return Ok(piece);
            }
            let Some(replacement) = replacement else {
                return Err(cannot_read(None, "content"));
            };
            let content = match field(replacement, "content") {
                Some(JsValue::String(text)) if matches!(role, Some("assistant" | "toolResult")) => {
                    Some(JsValue::from(vec![JsValue::object([
                        ("type", JsValue::from("text")),
                        ("text", JsValue::from(text.to_string())),
                    ])]))
                }
                content => owned(content),
            };
            Ok(Piece::Built(with_field(message, "content", content)))
        })
        .collect()
}

/// pi 0.79's `buildSessionContext`: one pass, message entries used as they are, compaction
/// entries other than the latest ignored.
fn legacy_messages(path: &[&Entry<'_>]) -> Vec<Piece> {
    let append = |entry: &Entry<'_>, out: &mut Vec<Piece>| {
        out.push(match entry.kind {
            // Every message entry on the path has a message: `settings` threw otherwise.
            Kind::Message => Piece::Message(entry.position),
            Kind::CustomMessage => {
                Piece::Built(custom_message(entry.value, owned(entry.get("content"))))
            }
            Kind::BranchSummary if truthy(entry.get("summary")) => {
                Piece::Built(branch_summary(entry.value))
            }
            _ => return,
        });
    };
    let mut out = Vec::new();
    let latest = path.iter().rev().find(|e| e.kind == Kind::Compaction);
    let Some(compaction) = latest else {
        path.iter().for_each(|e| append(e, &mut out));
        return out;
    };
    out.push(Piece::Built(compaction_summary(compaction.value)));
    let at = path
        .iter()
        .position(|e| e.kind == Kind::Compaction && e.id == compaction.id);
    let first_kept = Key::of(compaction.get("firstKeptEntryId"));
    let before = at.map_or(&path[..0], |at| &path[..at]);
    let mut found = false;
    for kept in before {
        found |= kept.id == first_kept;
        if found {
            append(kept, &mut out);
        }
    }
    let after = at.map_or(0, |at| at + 1);
    path[after..].iter().for_each(|e| append(e, &mut out));
    out
}

fn custom_message(entry: &JsValue, content: Option<JsValue<'static>>) -> JsValue<'static> {
    object([
        ("role", Some(JsValue::from("custom"))),
        ("customType", owned(field(entry, "customType"))),
        ("content", content),
        ("display", owned(field(entry, "display"))),
        ("details", owned(field(entry, "details"))),
        ("timestamp", Some(timestamp(entry))),
    ])
}

fn branch_summary(entry: &JsValue) -> JsValue<'static> {
    object([
        ("role", Some(JsValue::from("branchSummary"))),
        ("summary", owned(field(entry, "summary"))),
        ("fromId", owned(field(entry, "fromId"))),
        ("timestamp", Some(timestamp(entry))),
    ])
}

fn compaction_summary(entry: &JsValue) -> JsValue<'static> {
    object([
        ("role", Some(JsValue::from("compactionSummary"))),
        ("summary", owned(field(entry, "summary"))),
        ("tokensBefore", owned(field(entry, "tokensBefore"))),
        ("timestamp", Some(timestamp(entry))),
    ])
}

/// `new Date(entry.timestamp).getTime()`, as JSON.
fn timestamp(entry: &JsValue) -> JsValue<'static> {
    date::to_json(date::epoch_millis(field(entry, "timestamp")))
}

/// An object literal whose `undefined` (`None`) fields are left out, as `JSON.stringify` does.
fn object<const N: usize>(
    fields: [(&'static str, Option<JsValue<'static>>); N],
) -> JsValue<'static> {
    JsValue::object(fields.into_iter().filter_map(|(k, v)| Some((k, v?))))
}

/// `{...value, [field]: content}` (a non-object spreads to nothing), owning its strings.
fn with_field(
    value: &JsValue,
    name: &'static str,
    content: Option<JsValue<'static>>,
) -> JsValue<'static> {
    let mut copy = match value.owned_copy() {
        JsValue::Object(object) => object,
        _ => Object::new(),
    };
    match content {
        Some(content) => copy.insert(name, content),
        None => copy.remove(name),
    };
    JsValue::Object(copy)
}

/// The error V8 throws for `value.property` when `value` is `null` or `undefined` (`None`).
pub(crate) fn cannot_read(value: Option<&JsValue>, property: &str) -> SessionError {
    SessionError::Throws(js::cannot_read(value, property))
}

#[cfg(test)]
mod tests;
