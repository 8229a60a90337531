//! The `ctxfuzz` command line: one file per subcommand.
//!
//! Exit codes: [`exit::ExitCode`] (0 clean, 1 findings or violations, 2 bad input or usage, never
//! a panic; 128 + the signal when a signal stopped a run).

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use clap::{Parser, Subcommand};
use serde::Serialize;

use crate::transcript::io;
use exit::ExitCode;

pub mod check;
pub mod compact;
pub mod exit;
pub mod explain;
pub mod fuzz;
pub mod guard;
pub mod minimize;
pub mod mutants;
pub mod peers;
pub mod render;
pub mod replay;
pub mod report;
pub mod scan;
pub mod shapes;
pub mod sweep;

#[derive(Debug, Parser)]
#[command(
    name = "ctxfuzz",
    version,
    about = "Fuzz and judge the code that rewrites an LLM agent's transcript before the provider sees it"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate transcripts, run the systems under test, judge them, minimise and save findings.
    Fuzz(Box<fuzz::Args>),
    /// Judge transcripts or session files against the provider's rules.
    Check(check::Args),
    /// Print what the provider would see at one stage of pi's pipeline.
    Render(render::Args),
    /// Apply the orphan sweep and print the result and the swept ids.
    Sweep(sweep::Args),
    /// Apply the compaction and print the new transcript and its report.
    Compact(compact::Args),
    /// Report risky shapes across a directory tree of pi session files (read-only).
    Scan(scan::Args),
    /// Replay case files (default: the regression corpus).
    Replay(replay::Args),
    /// Shrink a failing case file, or turn libFuzzer crash artifacts into case files.
    Minimize(minimize::Args),
    /// Write the report of a fuzzing campaign: findings, runs, peers (Markdown, HTML, JSON).
    Report(report::Args),
    /// Run the known-defect catalog: every historical or seeded defect must be caught.
    Mutants(mutants::Args),
    /// Print the event trace of one turn-end guard schedule.
    Guard(guard::Args),
    /// Explain an invariant id (what it promises, what it belongs to, the docs page); none: list all.
    Explain(explain::Args),
    /// Count which shapes real programs write the generated transcripts of one format contain.
    Shapes(shapes::Args),
    /// Fuzz the installed peers (published packages, peers/<id>/peer.toml) under their contracts.
    Peers(peers::Args),
}

/// Parses the command line, runs the subcommand, and maps errors to exit code 2 with one clear
/// line on stderr.
pub fn main() -> std::process::ExitCode {
    crate::harness::no_error_backtraces();
    restore_default_sigpipe();
    // Ctrl-C stops a fuzz run cleanly and never leaves an external program behind.
    if let Err(error) =
        crate::harness::stop::install_signal_handlers(crate::harness::supervisor::kill_every_group)
    {
        eprintln!("ctxfuzz: warning: cannot handle Ctrl-C ({error})");
    }
    let cli = Cli::parse();
    let result = match cli.command {
        None => fuzz::run(fuzz::Args::default()),
        Some(Command::Fuzz(args)) => fuzz::run(*args),
        Some(Command::Check(args)) => check::run(args),
        Some(Command::Render(args)) => render::run(args),
        Some(Command::Sweep(args)) => sweep::run(args),
        Some(Command::Compact(args)) => compact::run(args),
        Some(Command::Scan(args)) => scan::run(args),
        Some(Command::Replay(args)) => replay::run(args),
        Some(Command::Minimize(args)) => minimize::run(args),
        Some(Command::Shapes(args)) => shapes::run(args),
        Some(Command::Report(args)) => report::run(args),
        Some(Command::Guard(args)) => guard::run(args),
        Some(Command::Mutants(args)) => mutants::run(args),
        Some(Command::Peers(args)) => peers::run(args),
        Some(Command::Explain(args)) => explain::run(args),
    };
    match result {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprintln!("ctxfuzz: error: {error:#}");
            ExitCode::BadInput.into()
        }
    }
}

/// Leaves a command's last parsed document to the operating system instead of freeing it: the
/// process ends right after, and freeing a million-message tree node by node took 0.75 s of
/// `check`'s 5.9 s (docs/figures.md). Only for the last document, so a command that reads several
/// files still holds one at a time.
fn free_at_exit<T>(document: T) {
    std::mem::forget(document);
}

/// Writes a command's output to `path` atomically, or to stdout, through a buffer: a large
/// transcript goes out as it is serialised, never held whole as text.
fn write_output(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    match path {
        Some(path) => io::write_atomically_with(path, write),
        None => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            write(&mut out)
                .and_then(|()| out.flush())
                .context("stdout: cannot write")
        }
    }
}

/// `value` in serde_json's pretty layout, then a newline.
fn pretty_line(out: &mut dyn Write, value: &impl Serialize) -> std::io::Result<()> {
    ctxfuzz_oracles::json_text::to_writer_pretty(&mut *out, value)?;
    out.write_all(b"\n")
}

/// A reader that goes away (`ctxfuzz compact FILE | head`) ends the process quietly, as it does
/// for other Unix tools; Rust's default (SIGPIPE ignored) makes `println!` panic instead. A run
/// that starts an external program ignores SIGPIPE from then on (see `harness::supervisor`).
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
