//! Reading inputs with errors that name the file and the position, and writing outputs atomically.
//!
//! Inputs are never modified. Every error is one line: `FILE:LINE:COLUMN: what is wrong`.
//!
//! JSON is read the way `JSON.parse` reads it: a lone surrogate escape (`"\ud83d"`, what
//! `JSON.stringify` writes for a string cut inside an emoji) is accepted and kept as described in
//! `ctxfuzz_oracles::js_string` (docs/lone-surrogates.md); write such values back with
//! `ctxfuzz_oracles::json_text` so they come out as the same escapes.

use std::borrow::Cow;
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use ctxfuzz_oracles::formats::{self, Format};
use ctxfuzz_oracles::js::{Json, View};
use ctxfuzz_oracles::js_value::{JsValue, Str};
use ctxfuzz_oracles::json_text::{ItemStarts, ItemsFrom, NotedStarts, RawText};
use ctxfuzz_oracles::{js_string, json_text};
use serde::de::DeserializeOwned;
use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// Reads a whole file as UTF-8 text. A directory, an unreadable file or invalid UTF-8 is an error
/// naming the file (and, for UTF-8, the line and column of the first bad byte).
pub fn read_text(path: &Path) -> Result<String> {
    if path.is_dir() {
        bail!("{}: is a directory, expected a file", path.display());
    }
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    text_of(path, bytes)
}

/// The bytes of the file `path` as UTF-8 text; invalid UTF-8 is an error naming the line and
/// column of the first bad byte.
pub fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let (line, column) = line_column(valid);
        anyhow!(
            "{}:{line}:{column}: invalid UTF-8 (byte offset {})",
            path.display(),
            valid.len()
        )
    })
}

/// Parses one JSON document the way `JSON.parse` does (lone surrogate escapes allowed); the
/// error gives `FILE:LINE:COLUMN`, and a byte-order mark, which `JSON.parse` rejects too, is named.
pub fn parse_json(path: &Path, text: &str) -> Result<Value> {
    refuse_byte_order_mark(path, text)?;
    json_text::parse(&js_string::from_text(text)).map_err(|e| json_error(path, &e))
}

/// [`parse_json`] into a [`JsValue`] that borrows its strings from `text` (what the oracle reads).
pub fn parse_json_borrowed<'t>(path: &Path, text: &'t str) -> Result<JsValue<'t>> {
    refuse_byte_order_mark(path, text)?;
    match js_string::from_text(text) {
        Cow::Borrowed(text) => json_text::parse_borrowed(text),
        Cow::Owned(decoded) => json_text::parse_borrowed(&decoded).map(|value| value.owned_copy()),
    }
    .map_err(|e| json_error(path, &e))
}

/// The items of a document that is an array, read one at a time as [`parse_json_borrowed`]
/// reads them and handed to `item` in order, none kept: a large transcript is read in the memory
/// of one message. `Ok(false)`, with nothing read, when the document is not an array.
pub fn for_each_item<'t>(
    path: &Path,
    text: &'t str,
    item: impl FnMut(JsValue<'t>),
) -> Result<bool> {
    Document::new(path, text)?.for_each_item(item)
}

/// A file's text to be read item by item several times ([`for_each_item`]), checked and
/// searched once for what each read looks for (a byte-order mark, reserved characters, escapes
/// to rewrite): on a large file, those searches cost a good part of a read that passes over most
/// of the text.
pub struct Document<'p, 't> {
    path: &'p Path,
    text: Decoded<'t>,
}

/// A file's text in the representation [`js_string::from_text`] gives.
enum Decoded<'t> {
    /// The text itself (nearly every file): its items borrow from it.
    Lies(json_text::Searched<'t>),
    /// A copy, with each reserved character marked: its items are copied out of it.
    Converted(String),
}

impl<'p, 't> Document<'p, 't> {
    pub fn new(path: &'p Path, text: &'t str) -> Result<Self> {
        refuse_byte_order_mark(path, text)?;
        let text = match js_string::from_text(text) {
            Cow::Borrowed(text) => Decoded::Lies(json_text::Searched::new(text)),
            Cow::Owned(converted) => Decoded::Converted(converted),
        };
        Ok(Document { path, text })
    }

    /// [`for_each_item`] of this text.
    pub fn for_each_item(&self, mut item: impl FnMut(JsValue<'t>)) -> Result<bool> {
        let items = self.for_each_item_where(
            |_| true,
            |_, value| {
                item(value);
                ControlFlow::Continue(())
            },
        )?;
        Ok(items.is_some())
    }

    /// [`Document::for_each_item`] for a file read whole once before: an item whose position
    /// `wanted` refuses is passed over without being built, and reading stops when `item` (given
    /// each wanted item and its position) breaks. The number of items passed; `None` when the
    /// document is not an array ([`json_text::for_each_item_where`], which says what is checked).
    pub fn for_each_item_where(
        &self,
        wanted: impl FnMut(usize) -> bool,
        mut item: impl FnMut(usize, JsValue<'t>) -> ControlFlow<()>,
    ) -> Result<Option<usize>> {
        match &self.text {
            Decoded::Lies(document) => document.for_each_item_where(wanted, item),
            Decoded::Converted(converted) => {
                json_text::for_each_item_where(converted, wanted, |at, value| {
                    item(at, value.owned_copy())
                })
            }
        }
        .map_err(|e| json_error(self.path, &e))
    }

    /// Every item's start noted, each item passed over unbuilt ([`json_text::item_starts`]), for
    /// [`Document::item_at`] to read and [`Items`] to write from; `None` when the document is not
    /// an array.
    pub fn item_starts(&self) -> Result<Option<ItemStarts>> {
        json_text::item_starts(self.read_text()).map_err(|e| json_error(self.path, &e))
    }

    /// [`Document::item_starts`] noted by a reader of every item, from the items it is given
    /// ([`NotedStarts`]), where it can.
    pub fn noted_starts(&self) -> NotedStarts<'_> {
        NotedStarts::new(self.read_text())
    }

    /// The item starting at `offset` (a start [`Document::item_starts`] or
    /// [`Document::noted_starts`] noted), as [`Document::for_each_item`] reads it, none before it
    /// passed over; `None` when the items are read only from the first: a text whose escapes are
    /// rewritten in their order ([`json_text::Searched::item_at`]), or a converted copy.
    pub fn item_at(&self, offset: usize) -> Result<Option<JsValue<'t>>> {
        let Decoded::Lies(document) = &self.text else {
            return Ok(None);
        };
        document
            .item_at(offset)
            .transpose()
            .map_err(|e| json_error(self.path, &e))
    }

    /// The text [`Items`] reads, whose offsets the starts are.
    fn read_text(&self) -> &str {
        match &self.text {
            Decoded::Lies(document) => document.text(),
            Decoded::Converted(converted) => converted,
        }
    }
}

/// A string read from an item [`for_each_item`] parsed out of `text`, borrowed from `text` itself
/// when it lies there (it has no escape), so that it outlives the item; copied otherwise.
pub fn lent_by<'t>(text: &'t str, part: &str) -> Str<'t> {
    match json_text::offset_in(text, part) {
        Some(at) => Str::from(&text[at..at + part.len()]),
        None => Str::from(part.to_owned()),
    }
}

/// Items of the array in `text`, serialised as [`for_each_item`] reads them, never held whole:
/// `first` if any, then each item whose position `keep` accepts (the text was read whole once
/// before: see [`Document::for_each_item_where`]). The kept items go out as their text in the file,
/// which only `ctxfuzz_oracles::json_text`'s writers lay out as the items they hold (serde_json's
/// own copy that text as it stands).
pub struct Items<'a, K> {
    pub path: &'a Path,
    pub text: &'a str,
    pub first: Option<&'a JsValue<'a>>,
    pub keep: K,
    /// The items from one on by their starts ([`Document::item_starts`]), from which the items
    /// are written instead of read from the first, when no item before them is kept.
    pub from: Option<ItemsFrom<'a>>,
}

impl<K: Fn(usize) -> bool> Serialize for Items<'_, K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        if let Some(first) = self.first {
            seq.serialize_element(first)?;
        }
        let mut failed = None;
        // Each kept item is written from its text, never built: re-laid out, not parsed again.
        let mut write = |at, item: RawText| {
            if !(self.keep)(at) {
                return ControlFlow::Continue(());
            }
            failed = seq.serialize_element(&item).err();
            match failed {
                Some(_) => ControlFlow::Break(()),
                None => ControlFlow::Continue(()),
            }
        };
        refuse_byte_order_mark(self.path, self.text)
            .and_then(|()| {
                let text = js_string::from_text(self.text);
                match self.from {
                    None => json_text::for_each_raw_item_where(&text, &self.keep, |at, item| {
                        write(at, item.into())
                    })
                    .map(drop),
                    Some(from) => 'written: {
                        for item in from.texts(&text) {
                            let (at, item) = match item {
                                Ok(item) => item,
                                Err(e) => break 'written Err(e),
                            };
                            if write(at, item).is_break() {
                                break;
                            }
                        }
                        Ok(())
                    }
                }
                .map_err(|e| json_error(self.path, &e))
            })
            .map_err(|e| S::Error::custom(format!("{e:#}")))?;
        match failed {
            Some(error) => Err(error),
            None => seq.end(),
        }
    }
}

fn refuse_byte_order_mark(path: &Path, text: &str) -> Result<()> {
    if text.starts_with('\u{feff}') {
        bail!(
            "{}:1:1: invalid JSON: the file starts with a UTF-8 byte-order mark (U+FEFF), which JSON.parse rejects; remove it",
            path.display()
        );
    }
    Ok(())
}

fn json_error(path: &Path, error: &serde_json::Error) -> anyhow::Error {
    located(path, error, "invalid JSON")
}

/// `FILE:LINE:COLUMN: what: serde's message`.
fn located(path: &Path, error: &serde_json::Error, what: &str) -> anyhow::Error {
    anyhow!(
        "{}:{}:{}: {what}: {}",
        path.display(),
        error.line(),
        // serde_json says column 0 for an error before the first character of a line (an
        // empty file); editors count from 1.
        error.column().max(1),
        describe_json_error(error)
    )
}

/// `text`, the file at `path`, read as a record this program wrote (a run record, a peer matrix,
/// a guard schedule: serde's JSON, not `JSON.parse`'s); the error names the file, the position
/// and `what` the file should have been.
pub fn parse_as<T: DeserializeOwned>(path: &Path, text: &str, what: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| located(path, &e, &format!("not a {what}")))
}

/// The message of a serde_json error without its trailing "at line L column C" (we print the
/// position in front, in the `FILE:LINE:COLUMN` form editors understand).
fn describe_json_error(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// 1-based line and column (in characters) just after `prefix`.
fn line_column(prefix: &[u8]) -> (usize, usize) {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = prefix
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&prefix[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Writes `bytes` to `path` atomically (see [`write_atomically_with`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

/// Writes to `path` atomically: `write` fills a temporary file in the same directory through a
/// buffer, then it is renamed. Readers never see a half-written file, a failure leaves any
/// previous file intact, and a large output is never held in memory whole.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let mut builder = tempfile::Builder::new();
    // The file gets the mode any other tool would give a new file (0o666 less the umask), not
    // the temporary file's owner-only 0o600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut file = builder
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))?;
    let mut out = BufWriter::new(&mut file);
    write(&mut out)
        .and_then(|()| out.flush())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    drop(out);
    file.persist(path)
        .map_err(|e| anyhow!("{}: cannot write: {}", path.display(), e.error))?;
    Ok(())
}

/// An error when a message of `messages` (the items of the file at `path`, whose text is `text`)
/// was written in another format than `format` ([`formats::written_in`]): read as pi's, pi would
/// pass over it as nothing it knows; read as another format's, its calls and results would be
/// none. Either way nothing of it would be judged.
pub fn refuse_other_formats<J: Json>(
    path: &Path,
    text: &str,
    messages: &[J],
    format: Format,
) -> Result<()> {
    let other = messages.iter().enumerate().find_map(|(at, message)| {
        let written = formats::written_in(message).filter(|&(other, _)| other != format)?;
        Some((at, written))
    });
    match other {
        Some((at, written)) => Err(other_format(path, text, at, written, format)),
        None => Ok(()),
    }
}

/// [`refuse_other_formats`]' error for message `at`, written in `written`'s format (told by its
/// mark), named by its line and column where the document is the array of messages itself (else
/// by its number alone).
pub fn other_format(
    path: &Path,
    text: &str,
    at: usize,
    (written, mark): (Format, &str),
    format: Format,
) -> anyhow::Error {
    let (line, column) = json_text::item_starts(text)
        .ok()
        .flatten()
        .and_then(|starts| starts.at(at))
        .map_or((1, 1), |start| {
            line_column(&text.as_bytes()[..start.offset])
        });
    let expected = match format {
        Format::Pi => "as a pi message".to_string(),
        other => format!("in the {other} format"),
    };
    anyhow!(
        "{}:{line}:{column}: message {at} is written in the {written} format ({mark}), not \
         {expected}: read as one, its calls and results would be none (`ctxfuzz check --format \
         {written}` judges it by that provider's rules)",
        path.display()
    )
}

/// The pi messages inside a document: the array itself, or the `messages` of a protocol request
/// (`{"messages": [...]}`). Anything else is an error naming the file.
pub fn messages_of<'v, J: Json>(path: &Path, document: &'v J) -> Result<&'v [J]> {
    match document.view() {
        View::Array(messages) => Ok(messages),
        View::Object => match document.member("messages").map(Json::view) {
            Some(View::Array(messages)) => Ok(messages),
            Some(_) => bail!("{}:1:1: `messages` is not a JSON array", path.display()),
            None => bail!(
                "{}:1:1: expected a JSON array of messages or {{\"messages\": [...]}}",
                path.display()
            ),
        },
        _ => bail!(
            "{}:1:1: expected a JSON array of messages, found {}",
            path.display(),
            json_text::type_name(document)
        ),
    }
}
