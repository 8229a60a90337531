//! `ctxfuzz explain [ID]`: what an invariant promises, what it belongs to and the docs page that
//! says more, as `rustc --explain` does for an error code; for a provider rule's id (the
//! `missing-result` of a finding's summary), what breaks it and each contract format's provider
//! error text. With no id: every invariant, by what it belongs to, then every rule. An unknown id
//! is bad input: one line naming the closest ids.

use anyhow::{Result, bail};
use ctxfuzz_oracles::formats::wire::{self, SOURCE_FORMATS};
use ctxfuzz_oracles::wire::WireRule;

use super::exit::ExitCode;
use crate::harness::invariants;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An invariant id as findings and case files name it (e.g. `no-orphan-result`), or a provider
    /// rule's (e.g. `missing-result`); none: list every invariant.
    pub id: Option<String>,
}

/// Where the provider rules are written down: those of pi's request bodies, those of the contract
/// formats.
const RULE_PAGES: &str = "docs/oracle.md#the-model (pi's request bodies), \
    docs/contracts.md#the-provider-rules-oraclessrcformatswirers (the contract formats)";

/// How many close ids an unknown id's error names at most.
const SUGGESTIONS: usize = 3;

pub fn run(args: Args) -> Result<ExitCode> {
    let Some(id) = args.id else {
        print!("{}", list());
        return Ok(ExitCode::Clean);
    };
    if let Some(rule) = WireRule::from_id(&id) {
        print!("{}", rule_text(rule));
        return Ok(ExitCode::Clean);
    }
    let Some((invariant, groups)) = invariants::find(&id) else {
        bail!("{}", unknown(&id));
    };
    println!("{}: {}", invariant.id, invariant.statement);
    for group in groups {
        println!("  belongs to {}: see {}", group.name, group.page);
    }
    Ok(ExitCode::Clean)
}

/// A provider rule: what breaks it, the error text each contract format's provider answers with
/// where it applies there, and the pages.
fn rule_text(rule: WireRule) -> String {
    let mut out = format!(
        "{rule}: {}\n  a provider rule: see {RULE_PAGES}\n",
        rule.description()
    );
    for format in SOURCE_FORMATS {
        if let Some(text) = wire::source(format, rule) {
            out.push_str(&format!("  {format}: {text}\n"));
        }
    }
    out
}

/// Every invariant, by group: the group's name and page, then one `id  statement` line each; then
/// every provider rule, one `id  description` line each.
fn list() -> String {
    let invariant_ids = invariants::groups()
        .flat_map(|group| group.invariants)
        .map(|invariant| invariant.id);
    let width = invariant_ids
        .chain(WireRule::all().map(WireRule::id))
        .map(str::len)
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
    out.push_str(&format!("the provider rules ({RULE_PAGES})\n"));
    for rule in WireRule::all() {
        out.push_str(&format!("  {:width$}  {}\n", rule.id(), rule.description()));
    }
    out
}

/// The error for an id no invariant nor rule has, naming the closest ids (by edit distance, or
/// containing what was typed).
fn unknown(id: &str) -> String {
    let mut close: Vec<(usize, &str)> = invariants::groups()
        .flat_map(|group| group.invariants)
        .map(|invariant| invariant.id)
        .chain(WireRule::all().map(WireRule::id))
        .map(|known| (strsim::levenshtein(id, known), known))
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
        format!("unknown invariant or rule `{id}` (`ctxfuzz explain` lists them all)")
    } else {
        format!(
            "unknown invariant or rule `{id}`: did you mean {}? (`ctxfuzz explain` lists them all)",
            names.join(", ")
        )
    }
}
