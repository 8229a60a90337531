//! `ctxfuzz mutants`: the known-defect catalog (the first layer of the mutation checks).

use std::path::PathBuf;

use super::exit::ExitCode;
use crate::mutants::{self, CatalogBudget};

/// Arguments of `ctxfuzz mutants`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The fixed seed every probe fuzzes from.
    #[arg(long, default_value_t = CatalogBudget::default().seed)]
    seed: u64,
    /// Fuzz cases each defect may take before it counts as surviving.
    #[arg(long, default_value_t = CatalogBudget::default().runs)]
    runs: u64,
    /// Where the minimised case of each catch is written.
    #[arg(long, default_value = "target/mutants-catalog")]
    out: PathBuf,
    /// Print the verdicts as JSON instead of the table.
    #[arg(long)]
    json: bool,
}

/// Exit 0 when every defect is caught, 1 when one survives.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let budget = CatalogBudget {
        seed: args.seed,
        runs: args.runs,
    };
    let verdicts = mutants::run_catalog(budget, &args.out)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&verdicts)?);
    } else {
        print!("{}", mutants::table(&verdicts));
    }
    let survivors: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.caught_by.is_none())
        .map(|v| v.defect)
        .collect();
    if survivors.is_empty() {
        Ok(ExitCode::Clean)
    } else {
        eprintln!("ctxfuzz mutants: not caught: {}", survivors.join("; "));
        Ok(ExitCode::Findings)
    }
}
