//! The oracle crate's errors, one enum: a caller tells a name that is not accepted from a version
//! that is not one, and every message names the input and what is accepted. [`by_name`] and
//! [`UnknownName`] also serve the root package's names (a barrier rule, a guard wiring), so an
//! unknown name reads the same everywhere. (pi throwing is an outcome the models report,
//! [`crate::pi::Thrown`], not an error of the caller's.)

/// What the oracle crate refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A name that is none of those accepted (a format, a contract, a barrier rule).
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
    /// Text that is not a pi version.
    #[error(
        "invalid pi version {0:?}: expected MAJOR.MINOR.PATCH such as 1.6.0 \
         (a leading `v` and a -prerelease or +build suffix are allowed)"
    )]
    InvalidPiVersion(String),
}

/// A name that is none of those accepted; the message lists them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} `{name}` (known: {})", known.join(", "))]
pub struct UnknownName {
    /// What the names name (`format`, `barrier rule`).
    pub kind: &'static str,
    pub name: String,
    pub known: Vec<&'static str>,
}

/// The one of `all` that `name_of` calls `name`, or [`UnknownName`] listing every name of `all`
/// (`kind` says what they name).
pub fn by_name<T: Copy>(
    kind: &'static str,
    name: &str,
    all: &[T],
    name_of: impl Fn(T) -> &'static str,
) -> Result<T, UnknownName> {
    all.iter()
        .copied()
        .find(|&t| name_of(t) == name)
        .ok_or_else(|| UnknownName {
            kind,
            name: name.to_string(),
            known: all.iter().map(|&t| name_of(t)).collect(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 3] = ["one", "two", "three"];

    #[test]
    fn a_name_picks_its_value_and_an_unknown_one_lists_them_all() {
        assert_eq!(by_name("number", "two", &[0, 1, 2], |i| NAMES[i]), Ok(1));
        let unknown = by_name("number", "four", &[0, 1, 2], |i| NAMES[i]).unwrap_err();
        assert_eq!(
            Error::from(unknown).to_string(),
            "unknown number `four` (known: one, two, three)"
        );
    }
}
