//! Case files: one readable JSON object per regression case (`corpus/`, `findings/`).
//!
//! ```json
//! {
//!   "target": "sweep",
//!   "why": "assistant(X) / custom / toolResult(X): the gh-11 duplicate tool_use_id brick",
//!   "profile": { "pi": "1.6.0" },
//!   "input": [ ... ],
//!   "verdicts": { "none": ["no-duplicate-tool-use-id", "wire-valid"], "strict": [] },
//!   "output": null,
//!   "replay": "ctxfuzz replay corpus/sweep/gh11-custom.json"
//! }
//! ```
//!
//! `verdicts` maps each variant of the system under test (a sweep rule, a compaction policy, a
//! guard variant) to the sorted invariant ids it must violate on `input` (empty: it must pass).
//! `output`, when present, is the exact output the target must produce (target-defined).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use ctxfuzz_oracles::json_text;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::io;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    pub target: String,
    pub why: String,
    #[serde(default)]
    pub profile: Value,
    pub input: Value,
    pub verdicts: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

impl CaseFile {
    /// Reads a case file; the error names the file and, for a file that is not JSON (or not
    /// UTF-8), the line and column of what is wrong.
    pub fn read(path: &Path) -> Result<CaseFile> {
        let text = io::read_text(path)?;
        // Read as JSON.parse reads it: a case's input may hold lone surrogates.
        let value = io::parse_json(path, &text)?;
        CaseFile::deserialize(value)
            .map_err(|e| anyhow::anyhow!("{}: not a case file: {e}", path.display()))
    }

    /// Pretty-printed with stable key order, ending in a newline, so a reviewer can read its diff.
    pub fn to_pretty(&self) -> String {
        let mut text = json_text::to_string_pretty(self).expect("a case file always serialises");
        text.push('\n');
        text
    }

    /// Writes the case atomically (a temporary file in the same directory, then a rename).
    pub fn write(&self, path: &Path) -> Result<()> {
        super::io::write_atomically(path, self.to_pretty().as_bytes())
    }
}
