//! `ctxfuzz explain [ID]`: what an invariant promises, what it belongs to and the docs page that
//! says more, as `rustc --explain` does for an error code. With no id: every invariant, by what it
//! belongs to. An unknown id is bad input: one line naming the closest ids.

use anyhow::{Result, bail};

use super::exit::ExitCode;
use crate::harness::invariants;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An invariant id as findings and case files name it (e.g. `no-orphan-result`); none: list
    /// every invariant.
    pub id: Option<String>,
}

/// How many close ids an unknown id's error names at most.
const SUGGESTIONS: usize = 3;

pub fn run(args: Args) -> Result<ExitCode> {
    let Some(id) = args.id else {
        print!("{}", list());
        return Ok(ExitCode::Clean);
    };
    let Some((invariant, groups)) = invariants::find(&id) else {
        bail!("{}", unknown(&id));
    };
    println!("{}: {}", invariant.id, invariant.statement);
    for group in groups {
        println!("  belongs to {}: see {}", group.name, group.page);
    }
    Ok(ExitCode::Clean)
}

/// Every invariant, by group: the group's name and page, then one `id  statement` line each.
fn list() -> String {
    let width = invariants::groups()
        .flat_map(|group| group.invariants)
        .map(|invariant| invariant.id.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for group in invariants::groups() {
        out.push_str(&format!("{} ({})\n", group.name, group.page));
        for invariant in group.invariants {
            out.push_str(&format!(
                "  {:width$}  {}\n",
                invariant.id, invariant.statement
            ));
        }
    }
    out
}

/// The error for an id no invariant has, naming the closest ids (by edit distance, or containing
/// what was typed).
fn unknown(id: &str) -> String {
    let mut close: Vec<(usize, &str)> = invariants::groups()
        .flat_map(|group| group.invariants)
        .map(|invariant| (strsim::levenshtein(id, invariant.id), invariant.id))
        .filter(|&(distance, known)| {
            distance <= (id.len() / 3).max(2) || (id.len() >= 4 && known.contains(id))
        })
        .collect();
    close.sort();
    close.dedup();
    let names: Vec<String> = close
        .iter()
        .take(SUGGESTIONS)
        .map(|(_, known)| format!("`{known}`"))
        .collect();
    if names.is_empty() {
        format!("unknown invariant `{id}` (`ctxfuzz explain` lists them all)")
    } else {
        format!(
            "unknown invariant `{id}`: did you mean {}? (`ctxfuzz explain` lists them all)",
            names.join(", ")
        )
    }
}
