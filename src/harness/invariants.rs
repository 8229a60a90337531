//! The registry of every invariant ctxfuzz judges by: the oracle crate's (systems under test and
//! contracts) and the harness's own (faults of external programs, its targets' checks), each with
//! what it belongs to and the docs page that states it. `ctxfuzz explain` reads it, and a test
//! checks that every invariant a check can report is registered and documented.

use ctxfuzz_oracles::contracts;
use ctxfuzz_oracles::invariants::{self, Group, Invariant};

use super::external::SUT_MATCHES_RUST;
use super::panics::NO_PANIC;
use super::supervisor::{
    SUT_CLOSED_OUTPUT, SUT_CRASH, SUT_EXTRA_OUTPUT, SUT_HANG, SUT_MALFORMED, SUT_SLOW_START,
};
use super::targets::contract::SUT_THREW;
use super::targets::differential::{
    AGAINST_KEEPS_REJECTED, AGAINST_OVER_SWEEP, KEEPS_REJECTED, OVER_SWEEP,
};
use super::targets::oracle_json::ERROR_NAMES_POSITION;

/// The harness's own invariants.
const HARNESS: &[Group] = &[
    Group {
        name: "external programs (the supervisor)",
        page: "docs/external-programs.md#faults",
        invariants: &[
            SUT_CRASH,
            SUT_CLOSED_OUTPUT,
            SUT_HANG,
            SUT_SLOW_START,
            SUT_MALFORMED,
            SUT_EXTRA_OUTPUT,
            SUT_MATCHES_RUST,
        ],
    },
    Group {
        name: "the contract target",
        page: "docs/contracts.md#the-protocol",
        invariants: &[SUT_THREW],
    },
    Group {
        name: "the fuzz targets",
        page: "docs/fuzzing.md#targets",
        invariants: &[
            NO_PANIC,
            ERROR_NAMES_POSITION,
            OVER_SWEEP,
            KEEPS_REJECTED,
            AGAINST_OVER_SWEEP,
            AGAINST_KEEPS_REJECTED,
        ],
    },
];

/// Every group, the oracle crate's first.
pub fn groups() -> impl Iterator<Item = &'static Group> {
    invariants::ALL.iter().chain(contracts::ALL).chain(HARNESS)
}

/// The invariant with this id and every group it belongs to (none: not an invariant).
pub fn find(id: &str) -> Option<(Invariant, Vec<&'static Group>)> {
    let owners: Vec<&Group> = groups()
        .filter(|group| group.invariants.iter().any(|i| i.id == id))
        .collect();
    let invariant = *owners.first()?.invariants.iter().find(|i| i.id == id)?;
    Some((invariant, owners))
}

/// The marker a docs page puts before the table of `group`'s invariants; the table ends at
/// [`TABLE_END`]. The statements are written once, in code: the page shows them as rendered here
/// (`tests/ctxfuzz/explain.rs` checks every page; `CTXFUZZ_BLESS=1` rewrites the tables).
pub fn table_start(group: &Group) -> String {
    format!(
        "<!-- invariants of {}: generated from the code -->",
        group.name
    )
}

/// The line after a generated table.
pub const TABLE_END: &str = "<!-- end of the generated table -->";

/// `group`'s invariants as a Markdown table: id and statement, one row each.
pub fn table(group: &Group) -> String {
    let mut table = String::from("| invariant | what it promises |\n|---|---|\n");
    for invariant in group.invariants {
        table.push_str(&format!(
            "| `{}` | {} |\n",
            invariant.id,
            invariant.statement.replace('|', "\\|")
        ));
    }
    table
}
