//! The oracle crate's errors, one enum: a caller tells a name that is not accepted from a version
//! that is not one, and every message names the input and what is accepted. [`Named`] and
//! [`UnknownName`] also serve the root package's names (a barrier rule, a guard wiring), so an
//! unknown name reads the same everywhere. (pi throwing is an outcome the models report,
//! [`crate::pi::Thrown`], not an error of the caller's.)

use strum::VariantArray;

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

/// An enum each of whose values has a stable name: what the command line, case files and
/// evidence call it. strum derives the names (`IntoStaticStr` writes one, `Display` prints it,
/// `VariantArray` lists the values, `EnumString` reads one back and reports a name it does not
/// know through [`unknown`]); this trait adds what they name.
pub trait Named: Copy + VariantArray + Into<&'static str> + 'static {
    /// What the names name, for an unknown one (`contract`, `barrier rule`).
    const KIND: &'static str;

    fn name(self) -> &'static str {
        self.into()
    }

    /// Every value, in declaration order.
    fn all() -> &'static [Self] {
        Self::VARIANTS
    }
}

/// `name` read as a `T` it does not name (strum's `parse_err_fn`): the error lists every name of
/// `T`.
pub fn unknown<T: Named>(name: &str) -> UnknownName {
    UnknownName {
        kind: T::KIND,
        name: name.to_string(),
        known: T::VARIANTS.iter().map(|&t| t.name()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(strum::EnumString, strum::IntoStaticStr, strum::VariantArray)]
    #[strum(serialize_all = "lowercase", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Number {
        One,
        Two,
        Three,
    }

    impl Named for Number {
        const KIND: &'static str = "number";
    }

    #[test]
    fn a_name_picks_its_value_and_an_unknown_one_lists_them_all() {
        assert_eq!("two".parse(), Ok(Number::Two));
        assert_eq!(Number::Three.name(), "three");
        let unknown = "four".parse::<Number>().unwrap_err();
        assert_eq!(
            Error::from(unknown).to_string(),
            "unknown number `four` (known: one, two, three)"
        );
    }
}
