//! Target `oracle-json`: arbitrary bytes as an input file, read and judged by the code `ctxfuzz check`
//! reads and judges a transcript file with. It must never panic (`no-panic`, caught by the harness) and
//! every rejection must be one line naming the file and `LINE:COLUMN` (`error-names-position`).
//!
//! Inputs are mostly damaged transcripts (a real generated transcript as JSON text, then
//! truncated, with a byte changed or inserted, or nested deeply) and sometimes raw bytes, so the
//! parser and the oracle both see hostile input that is close to real. A case file holds the file
//! as `{"file": TEXT}`, or `{"file_bytes": [..]}` when it is not UTF-8.

use std::path::Path;

use anyhow::Result;
use arbitrary::Unstructured;
use ctxfuzz_oracles::error::{Named, UnknownName, unknown};
use ctxfuzz_oracles::invariants::{Invariant, Judgement, Violation};
use ctxfuzz_oracles::js_value::{JsValue, SortedKeys};
use serde::{Deserialize, Serialize};
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

use super::pi_transcript::{Boundary, generate as generate_transcript};
use crate::harness::profile::Profile;
use crate::harness::target::Target;
use crate::transcript::io;

pub const ERROR_NAMES_POSITION: Invariant = Invariant {
    id: "error-names-position",
    statement: "every rejection of an input file is one line naming the file and LINE:COLUMN",
};

/// The name the input file is judged under (what error messages must start with).
const FILE_NAME: &str = "input.json";

/// The target's one variant: `check`, the oracle as `ctxfuzz check` runs it.
#[derive(Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
#[derive(Debug, Clone, Copy)]
pub enum Judging {
    Check,
}

impl Named for Judging {
    const KIND: &'static str = "oracle-json variant";
}

pub(super) struct OracleJson {
    boundary: Boundary,
}

/// The file judged: its text, or its bytes when they are not UTF-8.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "{\"file\": TEXT} or {\"file_bytes\": [BYTE, ...]}"
)]
pub enum InputFile {
    Text { file: String },
    Bytes { file_bytes: Vec<u8> },
}

impl InputFile {
    fn of(bytes: Vec<u8>) -> InputFile {
        match String::from_utf8(bytes) {
            Ok(file) => InputFile::Text { file },
            Err(e) => InputFile::Bytes {
                file_bytes: e.into_bytes(),
            },
        }
    }

    fn bytes(&self) -> Vec<u8> {
        match self {
            InputFile::Text { file } => file.as_bytes().to_vec(),
            InputFile::Bytes { file_bytes } => file_bytes.clone(),
        }
    }
}

impl OracleJson {
    /// Reads and judges the file as `check --provider` does (`parse_json_borrowed`, `messages_of`,
    /// the provider's body judged), from bytes instead of from disk: the verdict, or the one-line
    /// error.
    fn check(&self, bytes: Vec<u8>) -> Result<Judgement> {
        let path = Path::new(FILE_NAME);
        let text = io::text_of(path, bytes)?;
        let document = io::parse_json_borrowed(path, &text)?;
        let messages = io::messages_of(path, &document)?;
        Ok(self.boundary.judge(messages))
    }
}

impl Target for OracleJson {
    type Input = InputFile;
    type Variant = Judging;
    type Output = CheckOutput;

    fn build(_check: Option<Judging>, profile: &Profile) -> anyhow::Result<OracleJson> {
        Ok(OracleJson {
            boundary: Boundary::from_profile(profile),
        })
    }

    fn name(&self) -> &'static str {
        "oracle-json"
    }

    fn variant(&self) -> Judging {
        Judging::Check
    }

    fn profile(&self) -> Profile {
        self.boundary.profile()
    }

    fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<InputFile> {
        let mut file = match u.int_in_range(0..=9)? {
            0 => return Ok(InputFile::of(u.bytes(u.len())?.to_vec())),
            1 => {
                let depth = u.int_in_range(1..=2000)?;
                format!(
                    "{}{}",
                    "[".repeat(depth),
                    "]".repeat(u.int_in_range(0..=depth)?)
                )
                .into_bytes()
            }
            _ => {
                let transcript = generate_transcript::<JsValue>(u)?;
                serde_json::to_vec(&SortedKeys(&JsValue::Array(transcript.into()))).expect("JSON")
            }
        };
        for _ in 0..u.int_in_range(0..=3)? {
            let at = u.choose_index(file.len() + 1)?;
            match u.int_in_range(0..=3)? {
                0 => file.truncate(at),
                1 => file.insert(at, u.arbitrary()?),
                2 if at < file.len() => file[at] = u.arbitrary()?,
                _ => file.insert(at, *u.choose(b"[]{}\",:\\0-e.\n\xff")?),
            }
        }
        Ok(InputFile::of(file))
    }

    /// Bytes that start like a JSON document are the file itself (libFuzzer mutates files);
    /// anything else drives the generator.
    fn decode(&self, bytes: &[u8]) -> arbitrary::Result<InputFile> {
        if matches!(bytes.first(), Some(b'[' | b'{')) {
            return Ok(InputFile::of(bytes.to_vec()));
        }
        Target::generate(self, &mut Unstructured::new(bytes))
    }

    fn seed_bytes(&self, input: &InputFile) -> Vec<u8> {
        input.bytes()
    }

    fn judge(&self, input: &InputFile) -> Judgement {
        let error = match self.check(input.bytes()) {
            // Any verdict of the oracle is fine here: this target judges the reading, not the file.
            Ok(_) => return Judgement::Pass,
            Err(error) => format!("{error:#}"),
        };
        let prefix_ok = error
            .strip_prefix(FILE_NAME)
            .and_then(|rest| rest.strip_prefix(':'))
            .and_then(|rest| {
                let mut parts = rest.splitn(3, ':');
                let line = parts.next()?.parse::<u64>().ok()?;
                let column = parts.next()?.parse::<u64>().ok()?;
                Some(line > 0 && column > 0 && parts.next().is_some())
            })
            .unwrap_or(false);
        if prefix_ok && !error.contains('\n') {
            return Judgement::Pass;
        }
        let summary = format!("the error is not one line naming {FILE_NAME}:LINE:COLUMN: {error}");
        let evidence = ErrorEvidence {
            error: error.to_string(),
        };
        Judgement::Fail(vec![Violation::charged(
            ERROR_NAMES_POSITION,
            summary,
            evidence,
        )])
    }

    fn output(&self, input: &InputFile) -> CheckOutput {
        match self.check(input.bytes()) {
            Ok(judgement) => CheckOutput::Verdict(judgement.verdict()),
            Err(error) => CheckOutput::Error(format!("{error:#}")),
        }
    }
}

/// What an error that names no position shows: the error as the command printed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorEvidence {
    pub error: String,
}

/// What a case file pins for an input file: the verdict `ctxfuzz check` gives, or its error.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckOutput {
    Verdict(Vec<String>),
    Error(String),
}
