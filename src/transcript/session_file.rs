//! pi session files as `check` and `scan` read them: the way pi loads a file from disk
//! (`loadEntriesFromFile`, header check, migrations), then `buildSessionContext` from the last
//! entry. Malformed lines are kept with their positions so the commands can report them.

mod indexed;

use std::borrow::Cow;
use std::path::Path;

use anyhow::{Result, bail};

use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::pi::PiVersion;
use ctxfuzz_oracles::pi::session_context::{
    self, MalformedLine, SessionContext, SessionError, SessionLines, SessionRules,
};
use ctxfuzz_oracles::{js_string, json_text};

pub use indexed::{Index, Whole};

/// What pi makes of one session file, borrowing from its text.
#[derive(Debug)]
pub struct SessionFile<'t> {
    /// The lines pi skips (not JSON), with their positions.
    pub malformed: Vec<MalformedLine>,
    /// The agent messages pi would start from, or why pi cannot build them. `None` when the file
    /// is not a session (no header on its first entry: pi reads it as an empty session).
    pub context: Option<Result<SessionContext<'t>, SessionError>>,
}

/// Whether `path`/`text` is a session file rather than a JSON document: a `.jsonl` name, or a
/// first line that is a session header.
pub fn is_session_file(path: &Path, text: &str) -> bool {
    if path.extension().is_some_and(|ext| ext == "jsonl") {
        return true;
    }
    let first = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    // A header is a JSON object: a first line that starts otherwise (a transcript's `[`, perhaps
    // the whole 100 MB document on one line) is not parsed twice to learn that.
    if !first
        .trim_start_matches(json_text::JSON_WHITESPACE)
        .starts_with('{')
    {
        return false;
    }
    let first = js_string::from_text(first);
    json_text::parse_borrowed(&first)
        .is_ok_and(|entry| session_context::has_session_header(std::slice::from_ref(&entry)))
}

/// Reads a session file's text with the rules of pi version `v` (lines as `JSON.parse` reads
/// them: lone surrogate escapes are kept).
pub fn load(text: &str, v: PiVersion) -> SessionFile<'_> {
    // A text holding characters the string representation reserves (rare) is decoded into a
    // copy, and its entries then own their strings.
    let SessionLines {
        mut entries,
        malformed,
        ..
    } = match js_string::from_text(text) {
        Cow::Borrowed(text) => session_context::parse_file(text),
        Cow::Owned(decoded) => {
            let lines = session_context::parse_file(&decoded);
            SessionLines {
                entries: lines.entries.iter().map(JsValue::owned_copy).collect(),
                lines: lines.lines,
                malformed: lines.malformed,
            }
        }
    };
    if !session_context::has_session_header(&entries) {
        return SessionFile {
            malformed,
            context: None,
        };
    }
    let context = session_context::migrate(&mut entries)
        .and_then(|_| session_context::build_context_from(entries, None, SessionRules::of(v)));
    SessionFile {
        malformed,
        context: Some(context),
    }
}

/// Hands `message` every message of the context pi `v` builds from a session file's text, read
/// through the index of its lines ([`Index`]), and gives the lines pi skips: `None` (perhaps after
/// some messages) when the file needs the whole reading ([`load`]). Only the index lives past a
/// message: `check` and `scan` judge them as they come.
pub fn for_each_message<'t>(
    text: &'t str,
    v: PiVersion,
    message: impl FnMut(JsValue<'t>),
) -> Option<Vec<MalformedLine>> {
    let index = Index::read(text).ok()?;
    index.for_each_message(SessionRules::of(v), message).ok()?;
    Some(index.malformed)
}

/// The agent messages of a session file, as `check` judges them. Malformed lines are reported on
/// stderr, one `FILE:LINE:COLUMN` warning each; a file that is not a session, or on which pi
/// cannot build the context, is an error.
pub fn read_messages<'t>(path: &Path, text: &'t str, v: PiVersion) -> Result<Vec<JsValue<'t>>> {
    let loaded = load(text, v);
    warn_malformed(path, &loaded.malformed);
    match loaded.context {
        None if text.starts_with('\u{feff}') => bail!(
            "{}:1:1: not a pi session file: the first line starts with a UTF-8 byte-order mark (U+FEFF), so pi reads it as an empty session",
            path.display()
        ),
        None => bail!(
            "{}:1:1: not a pi session file: the first entry is not a session header (pi would read it as an empty session)",
            path.display()
        ),
        Some(Err(error)) => bail!(
            "{}: pi cannot build the session context: {error}",
            path.display()
        ),
        Some(Ok(context)) => Ok(context.messages),
    }
}

/// The lines pi skips, one `FILE:LINE:COLUMN` warning each on stderr.
pub fn warn_malformed(path: &Path, malformed: &[MalformedLine]) {
    for m in malformed {
        eprintln!(
            "ctxfuzz: warning: {}:{}:{}: malformed line skipped (pi skips it too): {}",
            path.display(),
            m.line,
            m.column,
            m.message
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_a_jsonl_name_or_a_first_line_that_is_a_header() {
        let json = Path::new("t.json");
        let header = r#"{"type":"session","id":"s1"}"#;
        assert!(is_session_file(Path::new("t.jsonl"), "[]"));
        assert!(is_session_file(json, &format!("\n \t{header}\n{{}}")));
        assert!(!is_session_file(json, r#"{"type":"session"}"#));
        assert!(!is_session_file(json, &format!("[{header}]")));
        assert!(!is_session_file(json, &format!("\u{feff}{header}")));
        assert!(!is_session_file(json, ""));
    }
}
