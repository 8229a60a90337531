//! Invariants: each is one [`Invariant`] constant (a stable id and a one-line statement) that its
//! check puts in the [`Violation`]s it returns (so an id cannot be misspelt), and that [`ALL`]
//! lists for `ctxfuzz explain` and the docs test.
//!
//! One module per system under test. Every check returns `Vec<Violation>` (empty = holds).

pub mod compaction;
pub(crate) mod evidence;
pub mod guard;
pub mod sweep;
pub mod wire;

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};

pub use evidence::{Evidence, write_name};

/// One invariant: the id case files, findings and `ctxfuzz explain` use, and what it promises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Invariant {
    /// Stable id, e.g. `no-orphan-result`.
    pub id: &'static str,
    /// One line: what holds when the invariant does.
    pub statement: &'static str,
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

/// Serialised as its id, the form case files and reports have always carried.
impl Serialize for Invariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id)
    }
}

/// The invariants of one system under test or contract, and the page that explains them.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    /// What they belong to, as a reader names it: "the orphan sweep".
    pub name: &'static str,
    /// The docs page (from the repository root) that states them.
    pub page: &'static str,
    pub invariants: &'static [Invariant],
}

/// The invariants of the systems under test, by system. (The contracts list theirs in
/// `crate::contracts::ALL`; the root package adds the faults of external programs and its own
/// targets' checks and reads them all as one registry.)
pub const ALL: &[Group] = &[
    Group {
        name: "the provider boundary after pi's pipeline",
        page: "docs/oracle.md#the-model",
        invariants: wire::INVARIANTS,
    },
    Group {
        name: "the orphan sweep",
        page: "docs/sweep.md#invariants",
        invariants: sweep::INVARIANTS,
    },
    Group {
        name: "the compaction",
        page: "docs/compaction.md#invariants",
        invariants: compaction::INVARIANTS,
    },
    Group {
        name: "the turn-end guard",
        page: "docs/guard.md#invariants",
        invariants: guard::INVARIANTS,
    },
];

/// Who is to blame for a violation. Printed as a finding's cause: `system under test` or
/// `unpreventable: REASON`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "reason")]
pub enum Cause {
    /// The system under test produced it: a finding charged to that system.
    SystemUnderTest,
    /// No system under test could have prevented it (pi's own cross-model id sanitising, ids the
    /// API refuses, call ids reused across turns). Still worth showing, in its own section.
    Unpreventable(&'static str),
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::SystemUnderTest => f.write_str("system under test"),
            Cause::Unpreventable(reason) => write!(f, "unpreventable: {reason}"),
        }
    }
}

/// One broken invariant, with the evidence a reader needs to see why.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub invariant: Invariant,
    pub cause: Cause,
    /// One line a person reads first.
    pub summary: String,
    /// Indices, ids, sizes: whatever locates the problem, typed by the check that found it.
    pub evidence: Arc<dyn Evidence>,
}

impl Violation {
    /// A violation with its cause ([`Violation::charged`] for one charged to the system under test).
    pub fn new(
        invariant: Invariant,
        cause: Cause,
        summary: String,
        evidence: impl Evidence,
    ) -> Violation {
        Violation {
            invariant,
            cause,
            summary,
            evidence: Arc::new(evidence),
        }
    }

    /// A violation the system under test could have prevented.
    pub fn charged(invariant: Invariant, summary: String, evidence: impl Evidence) -> Violation {
        Violation::new(invariant, Cause::SystemUnderTest, summary, evidence)
    }
}

/// Equal when they break the same invariant for the same cause, say the same and show the same
/// evidence.
impl PartialEq for Violation {
    fn eq(&self, other: &Violation) -> bool {
        self.invariant == other.invariant
            && self.cause == other.cause
            && self.summary == other.summary
            && self.evidence.same(&*other.evidence)
    }
}

/// What an oracle says about one input (after wasmtime's explicit oracle outcomes).
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    Pass,
    /// The input cannot be judged (for instance pi itself would throw on it); not a pass, not a
    /// finding.
    CannotJudge(String),
    Fail(Vec<Violation>),
}

impl Judgement {
    /// `Pass` when `violations` is empty, `Fail` otherwise.
    pub fn from_violations(violations: Vec<Violation>) -> Self {
        if violations.is_empty() {
            Judgement::Pass
        } else {
            Judgement::Fail(violations)
        }
    }

    /// The sorted, de-duplicated invariant ids this judgement reports (`cannot-judge` for an input
    /// that cannot be judged). This is the verdict recorded in case files.
    pub fn verdict(&self) -> Vec<String> {
        match self {
            Judgement::Pass => Vec::new(),
            Judgement::CannotJudge(_) => vec!["cannot-judge".to_string()],
            Judgement::Fail(violations) => {
                let mut ids: Vec<String> = violations
                    .iter()
                    .map(|v| v.invariant.id.to_string())
                    .collect();
                ids.sort();
                ids.dedup();
                ids
            }
        }
    }
}

/// Whether two messages are equal; a message borrowed from the other side (the same address)
/// passes without being read, which is what a system that copies nothing it keeps hands back.
pub fn same_message<J: PartialEq>(a: &J, b: &J) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// [`same_message`], element by element.
pub fn same_messages<J: PartialEq, A: Borrow<J>, B: Borrow<J>>(a: &[A], b: &[B]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(a, b)| same_message(a.borrow(), b.borrow()))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Reports, case files and the findings table print a cause in these words.
    #[test]
    fn a_cause_prints_as_a_finding_shows_it() {
        assert_eq!(Cause::SystemUnderTest.to_string(), "system under test");
        assert_eq!(
            Cause::Unpreventable("pi renames the ids").to_string(),
            "unpreventable: pi renames the ids"
        );
    }

    /// A case file records a judgement as its invariant ids, sorted and each once.
    #[test]
    fn a_verdict_is_the_sorted_distinct_ids_of_what_broke() {
        let broken = |invariant| Violation::charged(invariant, String::new(), ());
        let judgement = Judgement::from_violations(vec![
            broken(wire::WIRE_VALID),
            broken(sweep::IDEMPOTENT),
            broken(wire::WIRE_VALID),
        ]);
        assert_eq!(judgement.verdict(), ["sweep-idempotent", "wire-valid"]);
        assert_eq!(
            Judgement::from_violations(vec![]).verdict(),
            Vec::<String>::new()
        );
        assert_eq!(
            Judgement::CannotJudge("pi throws".into()).verdict(),
            ["cannot-judge"]
        );
    }

    /// Two lists are the same messages only with as many messages, each equal to its counterpart.
    #[test]
    fn same_messages_need_the_same_length_and_each_message_equal() {
        let (a, b) = (json!({"role": "user"}), json!({"role": "assistant"}));
        assert!(same_messages::<Value, _, _>(
            &[&a, &b],
            &[a.clone(), b.clone()]
        ));
        assert!(!same_messages::<Value, _, _>(
            &[&a],
            &[a.clone(), b.clone()]
        ));
        assert!(!same_messages::<Value, _, _>(
            &[&a, &b],
            &[a.clone(), a.clone()]
        ));
    }

    /// Two violations are equal only with the same invariant, cause, summary and evidence.
    #[test]
    fn violations_differing_in_any_part_are_not_equal() {
        let one = Violation::charged(sweep::IDEMPOTENT, "swept again".into(), json!({"n": 1}));
        assert_eq!(one, one.clone());
        let others = [
            Violation::charged(sweep::ONLY_REMOVES, "swept again".into(), json!({"n": 1})),
            Violation::new(
                sweep::IDEMPOTENT,
                Cause::Unpreventable("upstream"),
                "swept again".into(),
                json!({"n": 1}),
            ),
            Violation::charged(sweep::IDEMPOTENT, "swept twice".into(), json!({"n": 1})),
            Violation::charged(sweep::IDEMPOTENT, "swept again".into(), json!({"n": 2})),
        ];
        for other in others {
            assert_ne!(one, other);
        }
    }

    #[test]
    fn an_invariant_reads_and_serialises_as_its_id() {
        assert_eq!(sweep::IDEMPOTENT.to_string(), "sweep-idempotent");
        let violation = Violation::charged(sweep::IDEMPOTENT, String::new(), ());
        assert_eq!(
            serde_json::to_value(&violation).unwrap()["invariant"],
            json!("sweep-idempotent")
        );
    }
}
