//! `ctxfuzz minimize`: shrink a failing case file, or turn libFuzzer crash artifacts into case
//! files (one artifact, or every artifact of a nightly run directory, one case per finding).
//!
//! Shrinking a case file has a budget of steps and seconds (`--steps`, `--time`): when either is
//! spent, the smallest input that still keeps every verdict is written, and the command says what
//! cut it short.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::exit::ExitCode;
use crate::harness::artifacts::{self, ConversionRecord, GroupRecord, RunRecord};
use crate::harness::findings::Finding;
use crate::harness::minimize::{Budget, minimize};
use crate::harness::{Profile, targets};
use crate::transcript::case::CaseFile;
use crate::transcript::io::write_atomically;

/// Arguments of `ctxfuzz minimize`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// The case file to shrink: the result keeps every recorded verdict.
    #[arg(value_name = "CASE", required_unless_present_any = ["from_artifact", "from_run"])]
    pub case: Option<PathBuf>,
    /// Decode a libFuzzer artifact exactly as the cargo-fuzz target TARGET does, minimise it and
    /// write it as a case file.
    #[arg(long, num_args = 2, value_names = ["TARGET", "FILE"], conflicts_with = "case")]
    pub from_artifact: Option<Vec<String>>,
    /// Convert every artifact of a nightly run directory (its `run.json` names the target and
    /// variant): one minimised case per distinct finding written under OUT, and
    /// `DIR/conversion.json`. Exit 1 if there is a finding or an artifact that does not reproduce.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["case", "from_artifact", "variant"], requires = "output")]
    pub from_run: Option<PathBuf>,
    /// Only this variant's verdict must be kept (a case) or is judged (an artifact).
    #[arg(long, visible_alias = "rule", value_name = "VARIANT")]
    pub variant: Option<String>,
    /// Where to write the case file: a file, or an existing directory (or a path ending in `/`)
    /// to write `DIR/<target>-<variant>-<invariant>-<hash>.json` [default: print it].
    #[arg(short, long, visible_alias = "out", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Most judgements of a smaller case the shrinking may ask for [default: 20000].
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Most seconds the shrinking may take [default: 30]; each judgement is cut off at the end.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub time: Option<Duration>,
}

/// Seconds a case file's shrinking may take unless `--time` says otherwise.
const DEFAULT_SECONDS: u64 = 30;

/// A number of seconds (`--time`): finite and not negative.
fn seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|e| format!("{e}"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text}: not a number of seconds"))
}

impl Args {
    fn budget(&self) -> Budget {
        Budget {
            steps: self.steps.unwrap_or(Budget::default().steps),
            time: self.time.unwrap_or(Duration::from_secs(DEFAULT_SECONDS)),
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let (Some(dir), Some(out)) = (&args.from_run, &args.output) {
        return from_run(dir, out);
    }
    let (case, file_name) = match (&args.from_artifact, &args.case) {
        (Some(artifact), _) => from_artifact(&artifact[0], Path::new(&artifact[1]), &args)?,
        (None, Some(path)) => {
            let name = path.file_name().map(|n| n.to_string_lossy().to_string());
            (
                shrink_case(path, &args)?,
                name.unwrap_or_else(|| "case.json".into()),
            )
        }
        (None, None) => bail!("give a CASE file or --from-artifact TARGET FILE"),
    };
    let Some(out) = &args.output else {
        print!("{}", case.to_pretty());
        return Ok(ExitCode::Clean);
    };
    let path = if out.is_dir() || out.as_os_str().to_string_lossy().ends_with('/') {
        out.join(file_name)
    } else {
        out.clone()
    };
    let case = CaseFile {
        replay: Some(format!("ctxfuzz replay {}", path.display())),
        ..case
    };
    case.write(&path)?;
    eprintln!(
        "written: {} (replay: ctxfuzz replay {})",
        path.display(),
        path.display()
    );
    Ok(ExitCode::Clean)
}

/// Shrinks the case's input while every selected variant keeps its recorded verdict.
fn shrink_case(path: &Path, args: &Args) -> Result<CaseFile> {
    let case = CaseFile::read(path)?;
    let mut selected = Vec::new();
    for (variant, verdict) in &case.verdicts {
        if args.variant.as_ref().is_none_or(|v| v == variant) {
            let target = targets::for_case(&case, Some(variant))
                .with_context(|| format!("{}: variant `{variant}`", path.display()))?;
            selected.push((target, verdict.clone()));
        }
    }
    if selected.is_empty() {
        bail!(
            "{}: no variant `{}` in its verdicts",
            path.display(),
            args.variant.as_deref().unwrap_or("")
        );
    }
    if selected.iter().all(|(_, verdict)| verdict.is_empty()) {
        bail!(
            "{}: nothing to minimise: every selected verdict is a pass",
            path.display()
        );
    }
    let keeps_verdicts = |input: &Value| {
        selected
            .iter()
            .all(|(target, verdict)| &target.judge_caught(input).verdict() == verdict)
    };
    if !keeps_verdicts(&case.input) {
        bail!(
            "{}: does not replay as recorded (see `ctxfuzz replay {}`)",
            path.display(),
            path.display()
        );
    }
    let in_domain = |input: &Value| selected.iter().all(|(target, _)| target.in_domain(input));
    let minimised = minimize(&case.input, in_domain, keeps_verdicts, args.budget());
    eprintln!("{}: {}", path.display(), minimised.cost);
    Ok(CaseFile {
        input: minimised.input,
        ..case
    })
}

/// Decodes an artifact and minimises it for its first violation charged to the variant.
fn from_artifact(target_name: &str, file: &Path, args: &Args) -> Result<(CaseFile, String)> {
    let rotation = targets::rotation(target_name, args.variant.as_deref(), &Profile::default())?;
    let conversion = artifacts::convert(&rotation, &[file.to_path_buf()]);
    if let Some(failed) = conversion.not_reproduced.first() {
        bail!("{}: {}", failed.artifact.display(), failed.reason);
    }
    let finding = &conversion.groups[0].finding;
    eprintln!("{}: {}", file.display(), headline(finding));
    let name = finding.file_name();
    Ok((finding.case_file(Path::new(&name)), name))
}

/// Converts every artifact of the run in `dir` and writes one case per group under `out`.
fn from_run(dir: &Path, out: &Path) -> Result<ExitCode> {
    let run = RunRecord::read(dir)?;
    let rotation = targets::rotation(&run.target, run.variant.as_deref(), &Profile::default())
        .with_context(|| {
            format!(
                "{}: the run's target",
                dir.join(artifacts::RUN_RECORD).display()
            )
        })?;
    let files = artifacts::artifact_files(&dir.join(artifacts::ARTIFACTS))?;
    let conversion = artifacts::convert(&rotation, &files);
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut record = ConversionRecord::default();
    for group in &conversion.groups {
        let finding = &group.finding;
        let path = finding.write(out)?;
        println!(
            "{} artifact(s): {}\n  case file: {}",
            group.artifacts.len(),
            headline(finding),
            path.display()
        );
        record.groups.push(GroupRecord {
            case: path,
            target: finding.target.to_string(),
            variant: finding.variant.clone(),
            invariant: finding.key.invariant.to_string(),
            cause: finding.key.cause.to_string(),
            shape: finding.key.shape.clone(),
            artifacts: group.artifacts.len(),
        });
    }
    for failed in &conversion.not_reproduced {
        println!(
            "DOES NOT REPRODUCE {}: {}",
            failed.artifact.display(),
            failed.reason
        );
    }
    record.not_reproduced = conversion.not_reproduced;
    let text = serde_json::to_string_pretty(&record).expect("a conversion record serialises");
    write_atomically(
        &dir.join(artifacts::CONVERSION),
        format!("{text}\n").as_bytes(),
    )?;
    println!(
        "{}: {} artifact(s), {} distinct finding(s), {} not reproduced",
        dir.display(),
        files.len(),
        record.groups.len(),
        record.not_reproduced.len()
    );
    Ok(ExitCode::found(
        !record.groups.is_empty() || !record.not_reproduced.is_empty(),
    ))
}

fn headline(finding: &Finding) -> String {
    format!(
        "{} [{}] {} ({}): {}",
        finding.target,
        finding.variant,
        finding.key.invariant,
        finding.violation.cause,
        finding.violation.summary.lines().next().unwrap_or_default()
    )
}
