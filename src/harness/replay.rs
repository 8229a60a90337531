//! Replaying case files: each case is judged, through the registry, against every variant in its
//! `verdicts`; a different verdict (or a different pinned output) is a mismatch with a diff.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;
use similar::TextDiff;

use ctxfuzz_oracles::invariants::Judgement;

use super::target::DynTarget;
use super::{findings, targets};
use crate::transcript::case::CaseFile;

/// One variant whose judgement differs from what the case file says.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub variant: String,
    /// A readable explanation with a unified diff (expected, then actual).
    pub diff: String,
}

/// A case replayed: its mismatches, and (when asked) what each variant made of it.
#[derive(Debug, Default)]
pub struct Replayed {
    pub mismatches: Vec<Mismatch>,
    /// Per variant, its verdict, each violation with its evidence, and the diff that explains
    /// them (the fuzz run's report of the finding): what `replay --show` prints.
    pub shown: String,
}

/// Judges `case` against each variant of its verdicts (and its pinned output, if any); with
/// `show`, also says what each variant made of it, mismatched or not.
pub fn replay(case: &CaseFile, show: bool) -> Result<Replayed> {
    let mut replayed = Replayed::default();
    for (variant, expected) in &case.verdicts {
        let target = targets::for_case(case, Some(variant))
            .with_context(|| format!("variant `{variant}`"))?;
        let actual = target.judge_caught(&case.input);
        let mismatched = &actual.verdict() != expected;
        if mismatched || show {
            let detail = judgement(&*target, &case.input, &actual);
            if show {
                let verdict = actual.verdict();
                let verdict = if verdict.is_empty() {
                    "passes".to_string()
                } else {
                    verdict.join(", ")
                };
                replayed
                    .shown
                    .push_str(&format!("[{variant}] {verdict}\n{detail}"));
            }
            if mismatched {
                let verdicts = diff(
                    "expected verdict",
                    &lines(expected),
                    "actual verdict",
                    &lines(&actual.verdict()),
                );
                replayed.mismatches.push(Mismatch {
                    variant: variant.clone(),
                    diff: verdicts + &detail,
                });
            }
        }
        if let Some(pinned) = &case.output {
            let output = target.output(&case.input);
            if &output != pinned {
                replayed.mismatches.push(Mismatch {
                    variant: variant.clone(),
                    diff: diff(
                        "expected output",
                        &pretty(pinned),
                        "actual output",
                        &pretty(&output),
                    ),
                });
            }
        }
    }
    Ok(replayed)
}

/// Each violation of `actual` with its evidence (a program that crashed shows its stderr's tail
/// there: "can't open file" when it moved since the case was written), then the diff that
/// explains the judgement, or the output where the target has none.
fn judgement(target: &dyn DynTarget, input: &Value, actual: &Judgement) -> String {
    let mut detail = String::new();
    if let Judgement::Fail(violations) = actual {
        for v in violations {
            detail.push_str(&format!(
                "  {}: {}\n    evidence: {}\n",
                v.invariant,
                v.summary,
                findings::evidence_json(v)
            ));
        }
    }
    let (label, shown) = match target.explain(input) {
        Some(e) => ("diff", e.diff()),
        None => ("output", pretty(&target.output(input))),
    };
    detail.push_str(&format!("  {label}:\n"));
    for line in shown.lines() {
        detail.push_str(&format!("    {line}\n"));
    }
    detail
}

/// The subdirectories of a corpus root named after a registered target (sorted), and the names
/// of the others (data for other tests, or a target not registered yet: not replayed).
pub fn target_dirs(root: &Path) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let names = targets::names();
    let (mut registered, mut others) = (Vec::new(), Vec::new());
    let entries = std::fs::read_dir(root)
        .with_context(|| format!("{}: cannot read directory", root.display()))?;
    for entry in entries {
        let dir = entry
            .with_context(|| format!("{}: cannot read directory", root.display()))?
            .path();
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if !dir.is_dir() {
            continue;
        }
        if names.contains(&name.as_str()) {
            registered.push(dir);
        } else {
            others.push(name);
        }
    }
    registered.sort();
    others.sort();
    Ok((registered, others))
}

/// Every `*.json` file under `paths` (files as given, directories recursively), sorted.
pub fn case_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        collect(path, &mut files)?;
    }
    files.sort();
    Ok(files)
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(path)
        .with_context(|| format!("{}: cannot read directory", path.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot read directory", path.display()))?;
        let child = entry.path();
        if child.is_dir() {
            collect(&child, files)?;
        } else if child.extension().is_some_and(|e| e == "json") {
            files.push(child);
        }
    }
    Ok(())
}

fn lines(ids: &[String]) -> String {
    ids.iter().map(|id| format!("{id}\n")).collect()
}

pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value always serialises") + "\n"
}

/// A unified diff of two texts under their labels.
pub fn diff(old_label: &str, old: &str, new_label: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_label, new_label)
        .to_string()
}
