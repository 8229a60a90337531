//! pi session files as `check` and `scan` read them: the way pi loads a file from disk
//! (`loadEntriesFromFile`, header check, migrations), then `buildSessionContext` from the last
//! entry. Malformed lines are kept with their positions so the commands can report them.

use std::path::Path;

use ctxfuzz_oracles::pi::Variant;
use ctxfuzz_oracles::pi::session::{
    self, SessionContext, SessionError, SessionLines, SessionRules,
};

/// What pi makes of one session file.
#[derive(Debug)]
pub struct SessionFile {
    pub lines: SessionLines,
    /// The agent messages pi would start from, or why pi cannot build them. `None` when the file
    /// is not a session (no header on its first entry: pi reads it as an empty session).
    pub context: Option<Result<SessionContext, SessionError>>,
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
    serde_json::from_str::<serde_json::Value>(first)
        .is_ok_and(|entry| session::has_session_header(std::slice::from_ref(&entry)))
}

/// Reads a session file's text with the rules of pi variant `v`.
pub fn load(text: &str, v: Variant) -> SessionFile {
    let lines = session::parse_file(text);
    if !session::has_session_header(&lines.entries) {
        return SessionFile {
            lines,
            context: None,
        };
    }
    let mut entries = lines.entries.clone();
    let context = session::migrate(&mut entries)
        .and_then(|_| session::build_context(&entries, None, SessionRules::of(v)));
    SessionFile {
        lines,
        context: Some(context),
    }
}
