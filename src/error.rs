//! The root package's errors, one enum, so a caller can tell the kinds apart and every message
//! stays the one a user reads: an unknown name lists the accepted ones, a case file's profile or
//! input that is not one says which field is wrong, an external program's answer that is not of
//! the protocol's shape says what is missing. The command line adds context with `anyhow`.

use ctxfuzz_oracles::error::UnknownName;

/// What the root package refuses.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name that is none of those accepted (a barrier rule, a guard wiring).
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
    /// A format, contract or pi version the oracle crate does not know.
    #[error(transparent)]
    Oracle(#[from] ctxfuzz_oracles::Error),
    /// A contract target's variant that is not `CONTRACT:FORMAT`.
    #[error("`{0}` is not CONTRACT:FORMAT (such as cut:openai)")]
    NotContractFormat(String),
    /// A case file's `profile` that is not one (the reason names the field).
    #[error("not a profile: {0}")]
    NotAProfile(serde_json::Error),
    /// A JSON document that is not the named target's input.
    #[error("not a {target} input: {source}")]
    NotAnInput {
        target: &'static str,
        source: serde_json::Error,
    },
    /// An external program's answer line that is not JSON.
    #[error("not JSON ({0})")]
    AnswerNotJson(serde_json::Error),
    /// An external program's answer line that is JSON but not an object: what it is instead
    /// (`an array`: the messages alone, where the protocol wants them in `{"messages": [...]}`).
    #[error("not a JSON object but {0}")]
    AnswerNotAnObject(&'static str),
    /// An external program's answer without a field the protocol requires (`array`: an array).
    #[error("no `{field}`{}", if *array { " array" } else { "" })]
    AnswerLacks { field: &'static str, array: bool },
    /// An external program's answer whose field should hold strings only.
    #[error("`{0}` holds a non-string")]
    AnswerNotStrings(&'static str),
    /// A fuzz artifact that cannot be read.
    #[error("cannot read: {0}")]
    CannotRead(std::io::Error),
    /// A fuzz artifact the target's decoder refuses.
    #[error("target `{target}` cannot decode it: {source}")]
    CannotDecode {
        target: &'static str,
        source: arbitrary::Error,
    },
}
