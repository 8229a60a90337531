//! `ctxfuzz report`: the report of a fuzzing campaign as Markdown, HTML and JSON.

use std::path::PathBuf;

use anyhow::Result;

use super::exit::ExitCode;
use crate::harness::report::{self, render};
use crate::transcript::io::write_atomically;

/// Arguments of `ctxfuzz report`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// Case files, nightly run directories (with `run.json`, `fuzz.log`, `conversion.json`) and
    /// peer matrices (`peers.json`), or directories holding them [default: target/nightly].
    #[arg(value_name = "DIR")]
    pub paths: Vec<PathBuf>,
    /// Write one self-contained HTML page (plots inline, nothing fetched at view time).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write Markdown fit for a CI job summary [default: print it].
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write the report as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("target/nightly")]
    } else {
        args.paths
    };
    let report = report::collect(&paths)?;
    if let Some(path) = &args.html {
        write_atomically(path, render::html(&report)?.as_bytes())?;
    }
    if let Some(path) = &args.json {
        write_atomically(path, render::json(&report).as_bytes())?;
    }
    let markdown = render::markdown(&report)?;
    match &args.markdown {
        Some(path) => write_atomically(path, markdown.as_bytes())?,
        None if args.html.is_none() && args.json.is_none() => print!("{markdown}"),
        None => {}
    }
    eprintln!(
        "report: {} finding(s), {} artifact(s) not reproduced, {} run(s), {} peer row(s)",
        report.findings.len(),
        report.not_reproduced.len(),
        report.runs.len(),
        report.peers.len()
    );
    Ok(ExitCode::Clean)
}
