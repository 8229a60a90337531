//! `ctxfuzz minimize`: shrink a failing case file, or turn a libFuzzer crash artifact into one.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::harness::findings::{self, cause_label};
use crate::harness::minimize::{Budget, minimise};
use crate::harness::target::Class;
use crate::harness::{panics, targets};
use crate::transcript::case::CaseFile;
use ctxfuzz_oracles::invariants::Judgement;

/// Arguments of `ctxfuzz minimize`.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// The case file to shrink: the result keeps every recorded verdict.
    #[arg(value_name = "CASE", required_unless_present = "from_artifact")]
    pub case: Option<PathBuf>,
    /// Decode a libFuzzer artifact exactly as the cargo-fuzz target TARGET does, minimise it and
    /// write it as a case file.
    #[arg(long, num_args = 2, value_names = ["TARGET", "FILE"], conflicts_with = "case")]
    pub from_artifact: Option<Vec<String>>,
    /// Only this variant's verdict must be kept (a case) or is judged (an artifact).
    #[arg(long, visible_alias = "rule", value_name = "VARIANT")]
    pub variant: Option<String>,
    /// Where to write the case file: a file, or an existing directory (or a path ending in `/`)
    /// to write `DIR/<target>-<variant>-<invariant>-<hash>.json` [default: print it].
    #[arg(short, long, visible_alias = "out", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
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
        return Ok(0);
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
    Ok(0)
}

/// Shrinks the case's input while every selected variant keeps its recorded verdict.
fn shrink_case(path: &Path, args: &Args) -> Result<CaseFile> {
    let case = CaseFile::read(path)?;
    let mut selected = Vec::new();
    for (variant, verdict) in &case.verdicts {
        if args.variant.as_ref().is_none_or(|v| v == variant) {
            let target = targets::build(&case.target, Some(variant), &case.profile)
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
            .all(|(target, verdict)| &panics::judge(target.as_ref(), input).verdict() == verdict)
    };
    if !keeps_verdicts(&case.input) {
        bail!(
            "{}: does not replay as recorded (see `ctxfuzz replay {}`)",
            path.display(),
            path.display()
        );
    }
    let input = minimise(&case.input, keeps_verdicts, Budget::default());
    Ok(CaseFile { input, ..case })
}

/// Decodes an artifact, picks its first violation (charged ones first) and minimises for it.
fn from_artifact(target_name: &str, file: &Path, args: &Args) -> Result<(CaseFile, String)> {
    let bytes = std::fs::read(file).with_context(|| format!("{}: cannot read", file.display()))?;
    let target = targets::build(target_name, args.variant.as_deref(), &Value::Null)?;
    let input = target.decode(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: target `{target_name}` cannot decode it: {e}",
            file.display()
        )
    })?;
    let violations = match panics::judge(target.as_ref(), &input) {
        Judgement::Fail(violations) => violations,
        other => bail!(
            "{}: does not fail target {} [{}] (verdict: {:?})",
            file.display(),
            target.name(),
            target.variant(),
            other.verdict()
        ),
    };
    let violation = violations
        .iter()
        .min_by_key(|v| target.class(v) != Class::Charged)
        .expect("a failing judgement has a violation");
    eprintln!(
        "{}: {} ({}): {}",
        file.display(),
        violation.invariant,
        cause_label(&violation.cause),
        violation.summary
    );
    let finding = findings::minimise(target.as_ref(), &input, violation, None);
    let name = finding.file_name();
    Ok((finding.case_file(Path::new(&name)), name))
}
