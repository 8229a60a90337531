//! `ctxfuzz guard --variant V --schedule FILE`: the event trace of one turn-end guard schedule.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{Result, anyhow};
use ctxfuzz_oracles::invariants::{self, Judgement};

use super::exit::ExitCode;
use crate::guard::{self, GuardWiring, Schedule, compare};
use crate::transcript::io;

/// Arguments of `ctxfuzz guard`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// The guard wiring: settled (the original), end-no-release, end-release (the fix).
    #[arg(long, default_value = "end-release", value_parser = GuardWiring::from_str)]
    pub variant: GuardWiring,
    /// A schedule (JSON), or a `guard` case file (its `input` is the schedule).
    #[arg(long)]
    pub schedule: PathBuf,
    /// Print the trace as JSON (what the oracle judges) instead of one line per event.
    #[arg(long, conflicts_with = "against")]
    pub json: bool,
    /// Also run this variant and print a diff of the two traces.
    #[arg(long, value_parser = GuardWiring::from_str)]
    pub against: Option<GuardWiring>,
}

/// Prints the trace and the invariants it breaks; exit 1 when it breaks any.
pub fn run(args: Args) -> Result<ExitCode> {
    let schedule = read_schedule(&args.schedule)?;
    let trace = guard::run(args.variant, &schedule);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&trace.to_value())?);
    } else if let Some(other) = args.against {
        print!("{}", compare::side_by_side(&schedule, args.variant, other));
    } else {
        println!("order: {}", trace.probe_order());
        for line in trace.lines() {
            println!("{line}");
        }
    }
    let judgement = invariants::guard::judge(trace.to_value());
    if let Judgement::Fail(violations) = &judgement {
        for violation in violations {
            eprintln!("{}: {}", violation.invariant, violation.summary);
        }
    }
    Ok(ExitCode::found(matches!(judgement, Judgement::Fail(_))))
}

/// A schedule file, or the `input` of a case file. Errors name the file (and, for a plain
/// schedule, the line and column).
fn read_schedule(path: &Path) -> Result<Schedule> {
    let text = io::read_text(path)?;
    let value = io::parse_json(path, &text)?;
    let is_case = value.get("target").is_some() && value.get("input").is_some();
    match is_case {
        true => Schedule::from_value(&value["input"])
            .map_err(|e| anyhow!("{}: `input` is not a guard schedule: {e}", path.display())),
        false => io::parse_as(path, &text, "guard schedule"),
    }
}
