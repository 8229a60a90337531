//! The report of a fuzzing campaign (`ctxfuzz report`): what was found, how the runs went, and
//! the peer matrix when there is one. One model, written as Markdown (a CI job summary), one
//! self-contained HTML page, and JSON (see [`render`]).
//!
//! Inputs, found by walking the given paths:
//! - `run.json` (and beside it `fuzz.log`, `conversion.json`): a libFuzzer run of the nightly
//!   script (see [`crate::harness::artifacts`]);
//! - `peers.json`: the peer matrix of `ctxfuzz peers --json`;
//! - every other `*.json`: a case file, judged again here for its cause and its diff.

pub mod libfuzzer_log;
pub mod render;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use ctxfuzz_oracles::invariants::Judgement;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::harness::artifacts::{self, ConversionRecord, GroupRecord, NotReproduced, RunRecord};
use crate::harness::target::{Class, DynTarget};
use crate::harness::{replay, targets};
use crate::transcript::case::CaseFile;
use crate::transcript::io;
use libfuzzer_log::LogStats;

/// The name of the peer matrix file a report picks up.
pub const PEERS: &str = "peers.json";

#[derive(Debug, Clone, Default, Serialize)]
pub struct NightlyReport {
    pub findings: Vec<FindingRow>,
    pub not_reproduced: Vec<NotReproduced>,
    pub runs: Vec<Run>,
    pub peers: Vec<PeerRow>,
}

/// One distinct finding: one case file.
#[derive(Debug, Clone, Serialize)]
pub struct FindingRow {
    pub target: String,
    pub variant: String,
    pub invariant: String,
    pub cause: String,
    /// The libFuzzer artifacts behind it (1 for a case the in-process loop wrote).
    pub count: usize,
    pub why: String,
    pub case_file: PathBuf,
    pub replay: String,
    /// The two sides the case is explained with, line by line.
    pub diff: SideBySide,
}

/// A side-by-side diff: what a correct system gives (left) and what this one gave (right).
#[derive(Debug, Clone, Serialize)]
pub struct SideBySide {
    pub left_label: String,
    pub right_label: String,
    pub rows: Vec<DiffRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffRow {
    /// Written `equal`, `delete` (left only), `insert` (right only).
    pub kind: ChangeTag,
    pub left: Option<String>,
    pub right: Option<String>,
}

/// One libFuzzer run of a target.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// What the run fuzzed, as its `run.json` says (its fields written in line with the others).
    #[serde(flatten)]
    pub record: RunRecord,
    pub dir: PathBuf,
    pub stats: LogStats,
    pub findings: usize,
    pub artifacts: usize,
}

/// One row of `ctxfuzz peers --json`, shown as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeerRow {
    pub peer: String,
    pub package: String,
    pub contract: String,
    pub execs: u64,
    pub charged: BTreeMap<String, u64>,
    pub unpreventable: BTreeMap<String, u64>,
    pub skipped: u64,
}

/// Builds the report from every run, case file and peer matrix under `paths`.
pub fn collect(paths: &[PathBuf]) -> Result<NightlyReport> {
    let mut report = NightlyReport::default();
    let mut groups: BTreeMap<PathBuf, GroupRecord> = BTreeMap::new();
    let mut cases = Vec::new();
    for file in files(paths)? {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        match name.as_ref() {
            artifacts::RUN_RECORD => {
                let dir = file.parent().unwrap_or(Path::new("."));
                let (run, conversion) = run(dir)?;
                for group in &conversion.groups {
                    groups.insert(file_name(&group.case), group.clone());
                }
                report.not_reproduced.extend(conversion.not_reproduced);
                report.runs.push(run);
            }
            artifacts::CONVERSION => {}
            PEERS => report.peers.extend(peers(&file)?),
            _ if name.ends_with(".json") => cases.push(file),
            _ => {}
        }
    }
    for file in cases {
        let case = CaseFile::read(&file)?;
        let group = groups.get(&file_name(&file));
        report.findings.extend(finding_rows(&file, &case, group)?);
    }
    Ok(report)
}

fn file_name(path: &Path) -> PathBuf {
    PathBuf::from(path.file_name().unwrap_or_default())
}

/// Every file under `paths` (files as given, directories recursively), sorted.
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending: Vec<PathBuf> = paths.to_vec();
    while let Some(path) = pending.pop() {
        if !path.is_dir() {
            if !path.exists() {
                anyhow::bail!("{}: no such file or directory", path.display());
            }
            files.push(path);
            continue;
        }
        let entries = std::fs::read_dir(&path)
            .with_context(|| format!("{}: cannot read directory", path.display()))?;
        for entry in entries {
            let entry =
                entry.with_context(|| format!("{}: cannot read directory", path.display()))?;
            pending.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

fn run(dir: &Path) -> Result<(Run, ConversionRecord)> {
    let record = RunRecord::read(dir)?;
    let log = dir.join(artifacts::LOG);
    let stats = match std::fs::read(&log) {
        Ok(bytes) => libfuzzer_log::parse(&String::from_utf8_lossy(&bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => LogStats::default(),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", log.display())),
    };
    let conversion = ConversionRecord::read(dir)?.unwrap_or_default();
    let run = Run {
        record,
        dir: dir.to_path_buf(),
        stats,
        findings: conversion.groups.len(),
        artifacts: artifacts::artifact_files(&dir.join(artifacts::ARTIFACTS))?.len(),
    };
    Ok((run, conversion))
}

fn peers(path: &Path) -> Result<Vec<PeerRow>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    io::parse_as(path, &text, "peer matrix (`ctxfuzz peers --json`)")
}

/// A row per failing variant of the case: the violation it was minimised for (its group's
/// invariant, else the first one charged to the variant, else the first one) as judged now, and
/// the diff that explains it.
fn finding_rows(
    file: &Path,
    case: &CaseFile,
    group: Option<&GroupRecord>,
) -> Result<Vec<FindingRow>> {
    let mut rows = Vec::new();
    for (variant, verdict) in &case.verdicts {
        if verdict.is_empty() {
            continue;
        }
        let target = targets::for_case(case, Some(variant))
            .with_context(|| format!("{}: variant `{variant}`", file.display()))?;
        let (invariant, cause) = match target.judge_caught(&case.input) {
            Judgement::Fail(violations) => {
                let first = violations
                    .iter()
                    .find(|v| group.is_some_and(|g| g.invariant == v.invariant.id))
                    .or_else(|| {
                        violations
                            .iter()
                            .find(|v| target.class(v) == Class::Charged)
                    })
                    .unwrap_or(&violations[0]);
                (first.invariant.to_string(), first.cause.to_string())
            }
            other => (
                verdict[0].clone(),
                format!("does not fail now (verdict {:?})", other.verdict()),
            ),
        };
        rows.push(FindingRow {
            target: case.target.clone(),
            variant: variant.clone(),
            invariant,
            cause,
            count: group.map_or(1, |g| g.artifacts),
            why: case.why.clone(),
            case_file: file.to_path_buf(),
            replay: case
                .replay
                .clone()
                .unwrap_or_else(|| format!("ctxfuzz replay {}", file.display())),
            diff: side_by_side(target.as_ref(), &case.input),
        });
    }
    Ok(rows)
}

fn side_by_side(target: &dyn DynTarget, input: &Value) -> SideBySide {
    let (left_label, left, right_label, right) = match target.explain(input) {
        Some(e) => (e.expected_label, e.expected, e.actual_label, e.actual),
        None => (
            "input".to_string(),
            replay::pretty(input),
            "output".to_string(),
            replay::pretty(&target.output(input)),
        ),
    };
    let rows = TextDiff::from_lines(&left, &right)
        .iter_all_changes()
        .map(|change| {
            let line = Some(change.value().trim_end_matches('\n').to_string());
            let kind = change.tag();
            let (left, right) = match kind {
                ChangeTag::Equal => (line.clone(), line),
                ChangeTag::Delete => (line, None),
                ChangeTag::Insert => (None, line),
            };
            DiffRow { kind, left, right }
        })
        .collect();
    SideBySide {
        left_label,
        right_label,
        rows,
    }
}
