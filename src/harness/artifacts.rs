//! libFuzzer runs and their crash artifacts: the record a nightly run leaves next to its
//! artifacts (`run.json`: which target and variant crashed), and the conversion of every
//! artifact into one minimised case per distinct finding (`conversion.json`).
//!
//! An artifact counts only for a violation charged to the variant the run fuzzed, the one
//! [`super::fuzz_one`] crashed on; an artifact with none "does not reproduce", with the reason,
//! and is never replaced by another violation it happens to show.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use ctxfuzz_oracles::invariants::{Judgement, Violation};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::findings::{self, Finding};
use super::target::{Class, DynTarget};
use crate::error::Error;
use crate::transcript::io;

/// The file a nightly run writes into its run directory before fuzzing.
pub const RUN_RECORD: &str = "run.json";
/// The file `ctxfuzz minimize --from-run` writes into the run directory.
pub const CONVERSION: &str = "conversion.json";
/// The libFuzzer log of the run, inside the run directory.
pub const LOG: &str = "fuzz.log";
/// Where libFuzzer writes the run's artifacts, inside the run directory.
pub const ARTIFACTS: &str = "artifacts";

/// What a cargo-fuzz run fuzzed (`run.json`): converting its artifacts rebuilds this target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// The cargo-fuzz target (`sweep`, `oracle_json`, ...).
    pub target: String,
    /// `CTXFUZZ_VARIANT` of the run; `null`: the target's default variant.
    pub variant: Option<String>,
    /// The time budget given to libFuzzer, in seconds.
    pub seconds: u64,
    /// The sanitizer the target was built with (cargo-fuzz's `-s`: `address`, `none`); `None`
    /// in a record written before it was recorded.
    pub sanitizer: Option<String>,
    /// `ASAN_OPTIONS` as libFuzzer got them (read only under `address`): the nightly's own, then
    /// the caller's, which win (docs/nightly.md#asan-options).
    pub asan_options: Option<String>,
}

impl RunRecord {
    /// Reads `DIR/run.json`; the error names the file and what is wrong.
    pub fn read(dir: &Path) -> Result<RunRecord> {
        let path = dir.join(RUN_RECORD);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: cannot read the run record", path.display()))?;
        io::parse_as(&path, &text, "run record")
    }
}

/// One distinct finding of a run: the minimised case and every artifact behind it.
#[derive(Debug, Clone)]
pub struct ArtifactGroup {
    pub finding: Finding,
    pub artifacts: Vec<PathBuf>,
}

/// An artifact that does not crash the run's variant when judged again, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotReproduced {
    pub artifact: PathBuf,
    pub reason: String,
}

/// Every artifact of a run, sorted into distinct findings and artifacts that do not reproduce.
#[derive(Debug, Default)]
pub struct Conversion {
    pub groups: Vec<ArtifactGroup>,
    pub not_reproduced: Vec<NotReproduced>,
}

/// The crash, timeout and out-of-memory artifacts in `dir`, sorted.
pub fn artifact_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", dir.display())),
    };
    for entry in entries {
        let path = entry
            .with_context(|| format!("{}: cannot read", dir.display()))?
            .path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if ["crash-", "timeout-", "oom-"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Judges every artifact with the target of `rotation` (the run's variant, one per provider where
/// the target judges one) its bytes pick, as libFuzzer's run did, and groups its charged violations as
/// the in-process loop groups findings: by target, variant, invariant, cause and the shape of the
/// minimised input. A minimised input is filed once: an artifact's charged violation is not
/// minimised again when an input already minimised from that artifact shows it, and a minimised
/// input equal to an earlier group's joins that group, whatever it was minimised for (its case
/// file's verdict lists every invariant it breaks). Artifacts whose minimised input lands in an
/// existing group only add to its count.
pub fn convert(rotation: &[Box<dyn DynTarget>], artifacts: &[PathBuf]) -> Conversion {
    let mut groups: Vec<ArtifactGroup> = Vec::new();
    let mut conversion = Conversion::default();
    for artifact in artifacts {
        let (target, input) = match decode(rotation, artifact) {
            Ok(decoded) => decoded,
            Err(reason) => {
                conversion.not_reproduced.push(NotReproduced {
                    artifact: artifact.clone(),
                    reason: reason.to_string(),
                });
                continue;
            }
        };
        let judgement = target.judge_caught(&input);
        let charged: Vec<&Violation> = match &judgement {
            Judgement::Fail(violations) => violations
                .iter()
                .filter(|v| target.class(v) == Class::Charged)
                .collect(),
            _ => Vec::new(),
        };
        if charged.is_empty() {
            conversion.not_reproduced.push(NotReproduced {
                artifact: artifact.clone(),
                reason: no_charged_violation(target, &judgement),
            });
            continue;
        }
        // The judgements of the inputs minimised from this artifact so far.
        let mut minimised: Vec<Judgement> = Vec::new();
        for violation in charged {
            if minimised.iter().any(|j| findings::shows(j, violation)) {
                continue;
            }
            let finding = findings::minimize(target, &input, &judgement, violation, None);
            minimised.push(target.judge_caught(&finding.input));
            let same = groups
                .iter()
                .position(|g| g.finding.key == finding.key || g.finding.input == finding.input);
            let group = match same {
                Some(i) => &mut groups[i],
                None => {
                    groups.push(ArtifactGroup {
                        finding,
                        artifacts: Vec::new(),
                    });
                    groups.last_mut().expect("just pushed")
                }
            };
            if !group.artifacts.contains(artifact) {
                group.artifacts.push(artifact.clone());
            }
        }
    }
    groups.sort_by(|a, b| a.finding.key.cmp(&b.finding.key));
    conversion.groups = groups;
    conversion
}

/// The artifact's input, and the target of `rotation` its bytes pick, as [`super::fuzz_one`] picked it.
fn decode<'r>(
    rotation: &'r [Box<dyn DynTarget>],
    artifact: &Path,
) -> Result<(&'r dyn DynTarget, Value), Error> {
    let bytes = std::fs::read(artifact).map_err(Error::CannotRead)?;
    let target = super::bytes::pick(rotation, &bytes).as_ref();
    let input = target
        .decode(&bytes)
        .map_err(|source| Error::CannotDecode {
            target: target.name(),
            source,
        })?;
    Ok((target, input))
}

/// Why a judgement is not a crash of `target`'s variant.
fn no_charged_violation(target: &dyn DynTarget, judgement: &Judgement) -> String {
    let head = format!(
        "does not crash target {} [{}]",
        target.name(),
        target.variant()
    );
    match judgement {
        Judgement::Pass => format!("{head}: it passes"),
        Judgement::CannotJudge(reason) => format!("{head}: cannot judge it: {reason}"),
        Judgement::Fail(violations) => {
            let others: Vec<String> = violations
                .iter()
                .map(|v| format!("{} ({:?}, {})", v.invariant, target.class(v), v.cause))
                .collect();
            format!(
                "{head}: no violation charged to it, only {}",
                others.join(", ")
            )
        }
    }
}

/// One line of `conversion.json`: a case file and how many artifacts it stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRecord {
    pub case: PathBuf,
    pub target: String,
    pub variant: String,
    pub invariant: String,
    pub cause: String,
    pub shape: String,
    pub artifacts: usize,
}

/// `conversion.json`: what `ctxfuzz minimize --from-run` made of a run's artifacts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ConversionRecord {
    pub groups: Vec<GroupRecord>,
    pub not_reproduced: Vec<NotReproduced>,
}

impl ConversionRecord {
    /// Reads `DIR/conversion.json` if the run has one.
    pub fn read(dir: &Path) -> Result<Option<ConversionRecord>> {
        let path = dir.join(CONVERSION);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("{}: cannot read", path.display())),
        };
        io::parse_as(&path, &text, "conversion record").map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::profile::Profile;
    use crate::harness::targets;
    use serde_json::json;

    /// The gh-11 brick: a result duplicated across a custom message, which the `none` sweep
    /// keeps. It breaks three invariants at once, each charged to the sweep.
    fn brick(before: &[Value]) -> Value {
        let mut messages = before.to_vec();
        messages.extend([
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "b"}]}),
            json!({"role": "custom", "content": ""}),
            json!({"role": "toolResult", "toolCallId": "b", "content": []}),
        ]);
        Value::Array(messages)
    }

    #[test]
    fn an_input_that_breaks_several_invariants_is_filed_once_however_it_was_reached() {
        let target = targets::build("sweep", Some("none"), &Profile::default()).unwrap();
        let rotation = [targets::build("sweep", Some("none"), &Profile::default()).unwrap()];
        let dir = tempfile::tempdir().unwrap();
        let padded = brick(&[json!({"role": "user", "content": "hi"})]);
        let files: Vec<PathBuf> = [brick(&[]), padded]
            .iter()
            .enumerate()
            .map(|(i, input)| {
                let path = dir.path().join(format!("crash-{i}"));
                std::fs::write(&path, serde_json::to_vec(input).unwrap()).unwrap();
                path
            })
            .collect();
        let judged = target.judge_caught(&brick(&[]));
        assert!(judged.verdict().len() >= 3, "{:?}", judged.verdict());

        let conversion = convert(&rotation, &files);
        assert!(conversion.not_reproduced.is_empty());
        let filed: Vec<(&str, usize)> = conversion
            .groups
            .iter()
            .map(|g| (g.finding.key.invariant, g.artifacts.len()))
            .collect();
        assert_eq!(
            filed.len(),
            1,
            "one case for one minimised input: {filed:?}"
        );
        assert_eq!(filed[0].1, 2, "both artifacts behind it: {filed:?}");
        assert_eq!(conversion.groups[0].finding.input, brick(&[]));
        assert_eq!(conversion.groups[0].finding.verdict, judged.verdict());
    }
}
