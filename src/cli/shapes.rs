//! `ctxfuzz shapes`: the shape-coverage count of one contract format ([`coverage`]): how many
//! generated transcripts contain each shape real programs write. Exit 1 when a listed shape was
//! never generated.

use anyhow::Result;
use ctxfuzz_oracles::formats::Format;

use super::exit::ExitCode;
use crate::harness::coverage;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The format the transcripts are written in: pi, openai, anthropic, gemini, ai-sdk, langchain.
    #[arg(long, value_parser = |name: &str| name.parse::<Format>())]
    pub format: Format,
    /// How many cases to generate.
    #[arg(long, value_name = "N", default_value_t = 3_000)]
    pub cases: u64,
    /// The seed of the run whose cases are counted (as `ctxfuzz fuzz --seed`).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let coverage = coverage::count(args.format, args.seed, args.cases);
    print!("{coverage}");
    let missing = coverage.missing();
    for shape in &missing {
        println!("NOT GENERATED: {shape}");
    }
    Ok(ExitCode::found(!missing.is_empty()))
}
