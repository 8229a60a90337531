//! Evidence: what locates a broken invariant (indices, ids, sizes, the messages concerned).
//!
//! Each check states its evidence as a type of its own, next to the check, so whoever reads it
//! names fields the compiler knows ([`Evidence::of`]) instead of looking up keys that may be
//! misspelt. A [`Violation`](super::Violation) holds it behind `dyn Evidence`, because the
//! violations of every system, contract and external program travel together through the harness,
//! and the root package adds evidence of its own (an external program's fault, a panic). A case
//! file and a report show it as the JSON its `Serialize` writes.

use std::any::Any;
use std::fmt;

use serde::{Serialize, Serializer};

/// The evidence of one violation. Every `Serialize + Debug + PartialEq` type that owns its data
/// is evidence.
pub trait Evidence: erased_serde::Serialize + fmt::Debug + Any + Send + Sync {
    /// Whether `other` is the same evidence: of this type, and equal.
    fn same(&self, other: &dyn Evidence) -> bool;
}

impl<T: Serialize + fmt::Debug + PartialEq + Any + Send + Sync> Evidence for T {
    fn same(&self, other: &dyn Evidence) -> bool {
        (other as &dyn Any).downcast_ref::<T>() == Some(self)
    }
}

erased_serde::serialize_trait_object!(Evidence);

impl dyn Evidence {
    /// The evidence as a `T`, when that is what it is.
    pub fn of<T: Evidence>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

/// Writes a value of evidence as its name (its `Display`): a rule, a provider, as the command
/// line names them. For `#[serde(serialize_with = "write_name")]`.
pub fn write_name<S: Serializer>(
    value: &impl fmt::Display,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// A violation's evidence as the JSON a finding shows, for a test that reads it by key.
#[cfg(test)]
pub(crate) fn json(violation: &super::Violation) -> serde_json::Value {
    serde_json::to_value(&violation.evidence).expect("evidence serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize)]
    struct Cut {
        boundary: usize,
    }

    #[derive(Debug, PartialEq, Serialize)]
    struct Other {
        boundary: usize,
    }

    #[derive(Debug, PartialEq, Serialize)]
    struct Named {
        #[serde(serialize_with = "write_name")]
        rule: crate::invariants::sweep::TwinRule,
    }

    /// A value written by its name is the text its `Display` prints.
    #[test]
    fn a_value_written_by_name_is_its_display() {
        let rule = crate::invariants::sweep::TwinRule::CONTRACT;
        assert_eq!(
            serde_json::to_value(Named { rule }).unwrap(),
            serde_json::json!({"rule": rule.to_string()})
        );
    }

    /// Evidence is the same only of the same type with equal fields, and reads back as its type.
    #[test]
    fn evidence_is_the_same_only_of_one_type_and_reads_back_as_it() {
        let cut: &dyn Evidence = &Cut { boundary: 2 };
        assert!(cut.same(&Cut { boundary: 2 }));
        assert!(!cut.same(&Cut { boundary: 3 }));
        assert!(!cut.same(&Other { boundary: 2 }), "same JSON, another type");
        assert_eq!(cut.of::<Cut>(), Some(&Cut { boundary: 2 }));
        assert_eq!(cut.of::<Other>(), None);
        assert_eq!(
            serde_json::to_string(cut).unwrap(),
            r#"{"boundary":2}"#,
            "written as its own JSON"
        );
    }
}
