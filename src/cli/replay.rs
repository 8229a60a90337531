//! `ctxfuzz replay`: judge case files against every variant in their verdicts; derive the
//! libFuzzer seed corpus from them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::exit::ExitCode;
use crate::harness::bytes::fnv1a;
use crate::harness::{replay, targets};
use crate::transcript::case::CaseFile;
use crate::transcript::io::write_atomically;

/// Arguments of `ctxfuzz replay`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// Case files or directories of case files [default: every corpus/<target> directory of a
    /// registered target].
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Instead of judging, write each case's input as a libFuzzer seed to
    /// DIR/<fuzz target>/<hash> (e.g. `--export-seeds fuzz/corpus`).
    #[arg(long, value_name = "DIR")]
    pub export_seeds: Option<PathBuf>,
    /// Print what each case shows, as the fuzz run reported it: its verdict, each violation
    /// with its evidence, and the diff of what the system under test made of the input.
    #[arg(long, conflicts_with = "export_seeds")]
    pub show: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let paths = if args.paths.is_empty() {
        // The default corpus holds one directory per target; others hold data for other tests.
        let (dirs, others) = replay::target_dirs(Path::new("corpus"))?;
        for other in others {
            eprintln!("corpus/{other}: not a registered target, skipped");
        }
        dirs
    } else {
        args.paths
    };
    let files = replay::case_files(&paths)?;
    let cases: Vec<(PathBuf, CaseFile)> = files
        .into_iter()
        .map(|file| CaseFile::read(&file).map(|case| (file, case)))
        .collect::<Result<_>>()?;
    match args.export_seeds {
        Some(dir) => export_seeds(&cases, &dir),
        None => judge(&cases, args.show),
    }
}

fn judge(cases: &[(PathBuf, CaseFile)], show: bool) -> Result<ExitCode> {
    let (mut judged, mut mismatched) = (0, 0);
    for (file, case) in cases {
        let replayed = replay::replay(case, show).with_context(|| file.display().to_string())?;
        judged += case.verdicts.len();
        if show {
            println!("{}: {}", file.display(), case.why);
            print!("{}", replayed.shown);
        }
        for mismatch in &replayed.mismatches {
            mismatched += 1;
            println!(
                "MISMATCH {} [{}]: {}",
                file.display(),
                mismatch.variant,
                case.why
            );
            print!("{}", mismatch.diff);
        }
    }
    println!(
        "{} case file(s), {judged} verdict(s) judged, {mismatched} mismatch(es)",
        cases.len()
    );
    Ok(ExitCode::found(mismatched > 0))
}

fn export_seeds(cases: &[(PathBuf, CaseFile)], dir: &std::path::Path) -> Result<ExitCode> {
    let mut written = 0;
    for (file, case) in cases {
        let variant = case.verdicts.keys().next().map(String::as_str);
        let target =
            targets::for_case(case, variant).with_context(|| file.display().to_string())?;
        let seed = target.seed_bytes(&case.input);
        let path = dir
            .join(target.name().replace('-', "_"))
            .join(format!("{:016x}", fnv1a(&seed)));
        write_atomically(&path, &seed)?;
        written += 1;
    }
    println!("{written} seed(s) written under {}", dir.display());
    Ok(ExitCode::Clean)
}
