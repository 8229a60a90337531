//! Contracts for external programs: what any implementation of a kind of transcript rewriter must
//! never do, judged in the program's own format through [`crate::formats::Entry`] views.
//!
//! - [`repair`]: may drop tool results, add synthetic ones and move results next to their calls.
//! - [`cut`]: returns the first kept index of a compaction.
//! - [`prune`]: removes content parts and emptied messages, adds nothing, repairs nothing.
//!
//! (The sweep contract, removal only, is `crate::invariants::sweep`.) Every check returns
//! `Vec<Violation>` (empty = holds); the ids are stable and listed in each module's `INVARIANTS`.

pub mod cut;
pub mod prune;
pub mod repair;

use std::str::FromStr;

/// A contract, by the name `--contract` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Contract {
    Sweep,
    Repair,
    Cut,
    Prune,
}

impl Contract {
    pub fn name(self) -> &'static str {
        match self {
            Contract::Sweep => "sweep",
            Contract::Repair => "repair",
            Contract::Cut => "cut",
            Contract::Prune => "prune",
        }
    }
}

impl FromStr for Contract {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "sweep" => Ok(Contract::Sweep),
            "repair" => Ok(Contract::Repair),
            "cut" => Ok(Contract::Cut),
            "prune" => Ok(Contract::Prune),
            _ => Err(format!(
                "unknown contract `{name}` (known: sweep, repair, cut, prune)"
            )),
        }
    }
}
