//! `ctxfuzz peers`: fuzzes each installed peer (a published package's function behind an adapter,
//! `peers/<id>/peer.toml`) under its contract and prints the matrix; `--json` prints the rows.
//!
//! Exit 2 when a peer is not installed (its row carries the error), else 1 when a peer is charged
//! a finding its `peers/<id>/baseline.json` does not know, else 0. Run from the repository root:
//! the manifests' commands and the baselines' case files are relative to it.
//!
//! A baseline knows findings by their fingerprint: the invariant and the shape of the minimised
//! input ([`Fingerprint`]). It lists case files, not fingerprints: each is replayed through the
//! peer at the start of the run, and the fingerprints of what it is charged are the known ones. So
//! a known defect is known by the shapes it has been seen in, a new shape under a known invariant
//! is new, and an entry whose case the peer is no longer charged for is reported as stale (the
//! run regenerated its shape and found nothing). A shape is as fine as the target's
//! [`DynTarget::shape`] draws it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use ctxfuzz_oracles::contracts::ContractKind;
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::invariants::Judgement;
use serde::{Deserialize, Serialize};

use super::exit::ExitCode;
use crate::harness::findings::{self, Finding};
use crate::harness::profile::as_text;
use crate::harness::progress::Progress;
use crate::harness::runner::{self, Config};
use crate::harness::targets::contract::ContractTarget;
use crate::harness::{Class, DynTarget, Profile, stop};
use crate::transcript::case::CaseFile;

/// Seconds per peer when `--time` is not given.
pub const DEFAULT_SECONDS: f64 = 60.0;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The peers to fuzz, by id [default: every folder of --peers with a peer.toml].
    pub ids: Vec<String>,
    /// Seconds to fuzz each peer.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_SECONDS)]
    pub time: f64,
    /// Seed of the run [default: random, printed].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where findings are written, one folder per peer [default: findings/peers].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the matrix as a JSON array of rows.
    #[arg(long)]
    pub json: bool,
    /// The folder of peer manifests.
    #[arg(long, value_name = "DIR", default_value = "peers")]
    pub peers: PathBuf,
    /// Worker threads per peer [default: every core].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Cases per peer instead of a time budget: with `--seed` and `--jobs 1`, the same cases in
    /// every run.
    #[arg(long, value_name = "N", conflicts_with = "time")]
    pub runs: Option<u64>,
}

/// A peer's first answer may take this long: importing a Python package such as langchain or
/// litellm takes seconds on a busy machine, and is not a hang.
const STARTUP_MS: u64 = 60_000;

/// `peers/<id>/peer.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub id: String,
    pub package: String,
    pub version: String,
    pub registry: String,
    pub license: String,
    #[serde(deserialize_with = "as_text::required")]
    pub contract: ContractKind,
    #[serde(deserialize_with = "as_text::required")]
    pub format: Format,
    /// Run from the repository root by `sh -c`.
    pub command: String,
    /// How the package marks a result it adds (absent: it adds none).
    pub synthetic: Option<Synthetic>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Synthetic {
    pub text_contains: String,
}

impl Manifest {
    pub fn read(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        toml::from_str(&text).with_context(|| format!("{}: not a peer manifest", path.display()))
    }

    /// The contract target's profile for this peer.
    pub fn profile(&self) -> Profile {
        Profile {
            contract: Some(self.contract),
            format: Some(self.format),
            sut: Some(self.command.clone()),
            peer: Some(self.id.clone()),
            package: Some(format!("{}@{}", self.package, self.version)),
            sut_startup_ms: Some(STARTUP_MS),
            marker: self.synthetic.as_ref().map(|s| s.text_contains.clone()),
            ..Profile::default()
        }
    }

    /// Why the peer cannot run, if its program (the command's first word, a path) is missing.
    fn not_installed(&self) -> Option<String> {
        let program = self.command.split_whitespace().next().unwrap_or_default();
        (program.contains('/') && !Path::new(program).exists())
            .then(|| format!("not installed: {program} is missing (run ci/peers-install.sh)"))
    }
}

/// One row of the matrix.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Row {
    pub peer: String,
    pub package: String,
    pub contract: String,
    pub format: String,
    pub execs: u64,
    pub execs_per_second: f64,
    pub charged: BTreeMap<String, u64>,
    /// Charged findings the baseline does not know: their fingerprint and case file.
    pub new: Vec<NewFinding>,
    /// Baseline case files the peer is no longer charged for.
    pub stale: Vec<String>,
    pub informational: BTreeMap<String, u64>,
    pub unpreventable: BTreeMap<String, u64>,
    /// Generated transcripts the peer's format cannot express.
    pub skipped: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a finding is known by: `INVARIANT @ SHAPE` (the shape of its minimised input).
pub type Fingerprint = String;

fn fingerprint(invariant: &str, shape: &str) -> Fingerprint {
    format!("{invariant} @ {shape}")
}

/// A charged finding the baseline does not know.
#[derive(Debug, Clone, Serialize)]
pub struct NewFinding {
    pub fingerprint: Fingerprint,
    /// Where its case file was written: add it to the baseline to know it.
    pub case: String,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let ids = if args.ids.is_empty() {
        every_peer(&args.peers)?
    } else {
        args.ids.clone()
    };
    if ids.is_empty() {
        bail!(
            "{}: no peer manifests (peers/<id>/peer.toml)",
            args.peers.display()
        );
    }
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("findings/peers"));
    let mut rows = Vec::new();
    for id in &ids {
        if !args.json {
            let budget = args
                .runs
                .map_or_else(|| format!("{}s", args.time), |runs| format!("{runs} runs"));
            println!("fuzzing peer {id} for {budget}, seed {seed}");
        }
        let row = match fuzz_peer(&args, id, seed, &out.join(id)) {
            Ok(row) => row,
            Err(error) => Row {
                peer: id.clone(),
                error: Some(format!("{error:#}")),
                ..Row::default()
            },
        };
        rows.push(row);
        if stop::requested().is_some() {
            break;
        }
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("rows serialise")
        );
    } else {
        print!("{}", matrix(&rows));
    }
    Ok(if rows.iter().any(|r| r.error.is_some()) {
        ExitCode::BadInput
    } else {
        ExitCode::found(rows.iter().any(|r| !r.new.is_empty()))
    })
}

fn every_peer(root: &Path) -> Result<Vec<String>> {
    let entries =
        std::fs::read_dir(root).with_context(|| format!("{}: cannot list", root.display()))?;
    let mut ids: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("peer.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    Ok(ids)
}

fn fuzz_peer(args: &Args, id: &str, seed: u64, out: &Path) -> Result<Row> {
    let dir = args.peers.join(id);
    let manifest = Manifest::read(&dir.join("peer.toml"))?;
    let mut row = Row {
        peer: manifest.id.clone(),
        package: format!("{}@{}", manifest.package, manifest.version),
        contract: manifest.contract.to_string(),
        format: manifest.format.to_string(),
        ..Row::default()
    };
    if let Some(error) = manifest.not_installed() {
        row.error = Some(error);
        return Ok(row);
    }
    let target = ContractTarget::from_profile(&manifest.profile())?;
    let baseline = Baseline::read(&dir.join("baseline.json"), &target)?;
    let config = Config {
        seed,
        first: 0,
        runs: args.runs,
        time: match args.runs {
            Some(_) => None,
            None => Some(Duration::from_secs_f64(args.time.max(0.0))),
        },
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
    };
    let write_error = std::sync::Mutex::new(None);
    let new = std::sync::Mutex::new(Vec::new());
    // As `ctxfuzz fuzz` does by default: a case file for each charged finding only.
    let on_finding = |finding: &Finding, _: &Progress| {
        if finding.class != Class::Charged {
            return;
        }
        let written = std::fs::create_dir_all(out)
            .map_err(anyhow::Error::from)
            .and_then(|()| finding.write(out));
        let fingerprint = fingerprint(finding.key.invariant, &finding.key.shape);
        match written {
            Ok(path) if !baseline.known.contains(&fingerprint) => {
                new.lock().expect("new lock").push(NewFinding {
                    fingerprint,
                    case: path.display().to_string(),
                });
            }
            Ok(_) => {}
            Err(error) => *write_error.lock().expect("error lock") = Some(error),
        }
    };
    let outcome = runner::fuzz(&target, &config, &mut Progress::Hidden, &on_finding);
    if let Some(error) = write_error.into_inner().expect("error lock") {
        return Err(error);
    }
    row.new = new.into_inner().expect("new lock");
    row.new.sort_by(|a, b| a.fingerprint.cmp(&b.fingerprint));
    row.stale = baseline.stale;
    row.execs = outcome.stats.execs;
    row.execs_per_second = (outcome.stats.execs_per_second() * 10.0).round() / 10.0;
    for ((class, invariant), count) in &outcome.stats.violations {
        let column = match class {
            Class::Charged => &mut row.charged,
            Class::Informational => &mut row.informational,
            Class::Unpreventable => &mut row.unpreventable,
        };
        column.insert(invariant.to_string(), *count);
    }
    row.skipped = target.cannot_express().values().sum();
    Ok(row)
}

/// `peers/<id>/baseline.json`: `{"known": [{"case": PATH, "why": TEXT}, ...]}`, each case file
/// a charged finding of this peer kept in `corpus/peers/<id>/`; absent: nothing known.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    known: Vec<KnownFinding>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownFinding {
    case: PathBuf,
    /// Why it is known: the defect, read in the package's code (docs/peers.md).
    why: String,
}

/// A baseline replayed: the fingerprints its case files are charged with today, and the case
/// files charged with nothing.
struct Baseline {
    known: std::collections::BTreeSet<Fingerprint>,
    stale: Vec<String>,
}

impl Baseline {
    fn read(path: &Path, target: &ContractTarget) -> Result<Baseline> {
        let file = match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| {
                format!(
                    "{}: not a baseline ({{\"known\": [{{\"case\", \"why\"}}]}})",
                    path.display()
                )
            })?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => BaselineFile::default(),
            Err(error) => {
                return Err(error).with_context(|| format!("{}: cannot read", path.display()));
            }
        };
        let mut baseline = Baseline {
            known: Default::default(),
            stale: Vec::new(),
        };
        for entry in &file.known {
            let case = CaseFile::read(&entry.case)
                .with_context(|| format!("{}: a known finding", path.display()))?;
            let violations = match target.judge_caught(&case.input) {
                Judgement::Fail(violations) => violations,
                Judgement::Pass | Judgement::CannotJudge(_) => Vec::new(),
            };
            let charged: Vec<Fingerprint> = violations
                .iter()
                .filter(|v| target.class(v) == Class::Charged)
                .map(|v| {
                    let key = findings::key(target, &case.input, v);
                    fingerprint(key.invariant, &key.shape)
                })
                .collect();
            if charged.is_empty() {
                baseline
                    .stale
                    .push(format!("{} ({})", entry.case.display(), entry.why));
            }
            baseline.known.extend(charged);
        }
        Ok(baseline)
    }
}

fn counts(map: &BTreeMap<String, u64>) -> String {
    if map.is_empty() {
        return "-".into();
    }
    map.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn matrix(rows: &[Row]) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:<18} {:<32} {:<9} {:>8} {:>8}  {:<40} {:<30} {:>7}",
        "peer", "package", "contract", "execs", "execs/s", "charged", "other", "skipped"
    );
    for row in rows {
        if let Some(error) = &row.error {
            let _ = writeln!(
                text,
                "{:<18} {:<32} {:<9} error: {error}",
                row.peer, row.package, row.contract
            );
            continue;
        }
        let mut other = row.informational.clone();
        other.extend(
            row.unpreventable
                .iter()
                .map(|(k, v)| (format!("{k} (unpreventable)"), *v)),
        );
        let mut notes = String::new();
        for new in &row.new {
            let _ = write!(notes, "\n  NEW: {} ({})", new.fingerprint, new.case);
        }
        for stale in &row.stale {
            let _ = write!(notes, "\n  STALE (no longer charged): {stale}");
        }
        let _ = writeln!(
            text,
            "{:<18} {:<32} {:<9} {:>8} {:>8.1}  {:<40} {:<30} {:>7}{notes}",
            row.peer,
            row.package,
            row.contract,
            row.execs,
            row.execs_per_second,
            counts(&row.charged),
            counts(&other),
            row.skipped
        );
    }
    text
}
