//! The known-defect catalog: every historical or seeded defect variant in the project, and the
//! proof that the harness catches each one within a fixed budget.
//!
//! A defect the harness cannot tell apart from the fix is a hole in the harness, not in the
//! system: this is the first layer of the mutation checks (the second is cargo-mutants over our
//! own source, `ci/mutants.sh`). Adding an entry is one line in [`CATALOG`] plus its variant.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use ctxfuzz_oracles::pi::{Fault, PiVersion};
use serde::Serialize;
use serde_json::Value;

use crate::harness::findings::Finding;
use crate::harness::progress::Progress;
use crate::harness::runner::{self, Config};
use crate::harness::{Class, Profile, targets};

/// One known defect and how the harness is expected to meet it.
#[derive(Debug, Clone, Copy)]
pub struct Defect {
    /// How the table names it.
    pub name: &'static str,
    pub probe: Probe,
}

/// How a defect is looked for.
#[derive(Debug, Clone, Copy)]
pub enum Probe {
    /// Fuzz `target` built with `variant` (and its default profile) from a fixed seed until a
    /// finding is charged to the system under test.
    Fuzz {
        target: &'static str,
        variant: &'static str,
    },
    /// Replay the golden vectors (real pi output) through the oracle with a seeded fault until one
    /// of them differs.
    Oracle(Fault),
}

const fn fuzz(name: &'static str, target: &'static str, variant: &'static str) -> Defect {
    Defect {
        name,
        probe: Probe::Fuzz { target, variant },
    }
}

const fn oracle(name: &'static str, fault: Fault) -> Defect {
    Defect {
        name,
        probe: Probe::Oracle(fault),
    }
}

/// Every known defect. Each must be caught; `ctxfuzz mutants` fails if one survives. A table,
/// one defect a line (rustfmt would spread the longer entries over five).
#[rustfmt::skip]
pub const CATALOG: &[Defect] = &[
    fuzz("sweep: barrier rule none (before gh-11)", "sweep", "none"),
    fuzz("sweep: barrier rule allowlist", "sweep", "allowlist"),
    fuzz("compaction: midpoint boundary", "compaction", "midpoint"),
    fuzz("compaction: boundary floor 0", "compaction", "floor-0"),
    // Observable only when composition fails: the compaction target injects summariser faults.
    fuzz("compaction: composition after the reset", "compaction", "compose-after-reset"),
    fuzz("compaction: old clip key", "compaction", "old-clip-key"),
    fuzz("compaction: user-turn preservation off", "compaction", "no-preserve"),
    fuzz("compaction: state block off", "compaction", "no-state"),
    fuzz("guard: hooked on agent_settled", "guard", "settled"),
    fuzz("guard: agent_end without the settle release", "guard", "end-no-release"),
    oracle("oracle: no synthetic result at a user boundary", Fault::NoSyntheticAtUser),
    oracle("oracle: error/aborted assistants kept", Fault::KeepErroredAssistants),
    oracle("oracle: ids compared before the remap", Fault::CompareRawIds),
    oracle("oracle: tool-result runs not merged", Fault::UnmergedResultRuns),
];

/// How much each probe may spend before its defect counts as surviving.
#[derive(Debug, Clone, Copy)]
pub struct CatalogBudget {
    pub seed: u64,
    /// Fuzz cases per defect.
    pub runs: u64,
}

impl Default for CatalogBudget {
    fn default() -> Self {
        CatalogBudget {
            seed: 1,
            runs: 200_000,
        }
    }
}

/// What one probe found.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub defect: &'static str,
    /// The invariant (or golden vector) that caught it; `None`: the defect survived.
    pub caught_by: Option<String>,
    /// Cases (or vectors) run up to and including the first catch, or the whole budget.
    pub runs: u64,
    pub seconds: f64,
    /// The minimised case, in one line.
    pub case: Option<Value>,
    /// Where the minimised case file was written.
    pub case_file: Option<PathBuf>,
}

/// Runs every probe of the catalog; case files of the catches go under `out`.
pub fn run_catalog(budget: CatalogBudget, out: &Path) -> Result<Vec<Verdict>> {
    CATALOG
        .iter()
        .map(|defect| probe(defect, budget, out))
        .collect()
}

/// Runs one probe.
pub fn probe(defect: &Defect, budget: CatalogBudget, out: &Path) -> Result<Verdict> {
    let start = Instant::now();
    let mut verdict = match defect.probe {
        Probe::Fuzz { target, variant } => {
            let target = targets::build(target, Some(variant), &Profile::default())
                .with_context(|| format!("{}: cannot build its target", defect.name))?;
            match first_charged_finding(target.as_ref(), budget) {
                Some((finding, runs)) => Verdict {
                    defect: defect.name,
                    caught_by: Some(finding.key.invariant.to_string()),
                    runs,
                    seconds: 0.0,
                    case: Some(finding.input.clone()),
                    case_file: Some(finding.write(out)?),
                },
                None => survived(defect, budget.runs),
            }
        }
        Probe::Oracle(fault) => match first_differing_vector(fault) {
            Some((name, runs)) => Verdict {
                defect: defect.name,
                caught_by: Some(format!("golden vector {name}")),
                runs,
                seconds: 0.0,
                case: None,
                case_file: None,
            },
            None => survived(defect, golden_vectors().len() as u64),
        },
    };
    verdict.seconds = start.elapsed().as_secs_f64();
    Ok(verdict)
}

fn survived(defect: &Defect, runs: u64) -> Verdict {
    Verdict {
        defect: defect.name,
        caught_by: None,
        runs,
        seconds: 0.0,
        case: None,
        case_file: None,
    }
}

/// Fuzzes in growing windows on one thread (so the count is reproducible) and stops at the first
/// window with a finding charged to the system under test. Returns it and the runs spent up to
/// and including the case it came from.
fn first_charged_finding(
    target: &dyn crate::harness::DynTarget,
    budget: CatalogBudget,
) -> Option<(Finding, u64)> {
    let mut first = 0;
    let mut window = 256;
    while first < budget.runs {
        let runs = window.min(budget.runs - first);
        let config = Config {
            seed: budget.seed,
            first,
            runs: Some(runs),
            time: None,
            jobs: 1,
        };
        let outcome = runner::fuzz(target, &config, &mut Progress::Hidden, &|_, _| {});
        let earliest = outcome
            .findings
            .into_iter()
            .filter(|f| f.class == Class::Charged)
            .min_by_key(|f| f.origin.map_or(u64::MAX, |o| o.case));
        if let Some(finding) = earliest {
            let runs = finding.origin.map_or(first + runs, |o| o.case + 1);
            return Some((finding, runs));
        }
        first += runs;
        window *= 4;
    }
    None
}

/// The golden vectors, verified against the real pi packages: (pi version, name, input, output).
fn golden_vectors() -> Vec<(PiVersion, String, Value, Value)> {
    include_str!("../oracles/tests/data/vectors.expected.jsonl")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let vector: Value =
                serde_json::from_str(line).expect("the embedded vectors file is valid JSON");
            let pi_version = PiVersion::of_vector(vector["variant"].as_str().unwrap_or_default())
                .expect("every embedded vector names its pi version");
            (
                pi_version,
                vector["name"].as_str().unwrap_or_default().to_string(),
                vector["input"].clone(),
                vector["output"].clone(),
            )
        })
        .filter(|(_, _, input, _)| input.get("messages").is_some())
        .collect()
}

/// The first golden vector whose output differs under `fault`, and how many were run.
fn first_differing_vector(fault: Fault) -> Option<(String, u64)> {
    golden_vectors()
        .into_iter()
        .enumerate()
        .find(|(_, (variant, _, input, output))| {
            &ctxfuzz_oracles::pi::run_vector_input_with_fault(input, *variant, Some(fault))
                != output
        })
        .map(|(index, (_, name, _, _))| {
            let short = name.split_whitespace().next().unwrap_or(&name).to_string();
            (short, index as u64 + 1)
        })
}

/// The table `ctxfuzz mutants` prints (the layout of seed 002's table).
pub fn table(verdicts: &[Verdict]) -> String {
    let mut rows = vec![[
        "variant".to_string(),
        "caught by".to_string(),
        "runs".to_string(),
        "seconds".to_string(),
        "minimised case".to_string(),
    ]];
    for v in verdicts {
        rows.push([
            v.defect.to_string(),
            v.caught_by
                .clone()
                .unwrap_or_else(|| "SURVIVED".to_string()),
            v.runs.to_string(),
            format!("{:.2}", v.seconds),
            v.case_file
                .as_ref()
                .map_or_else(|| "-".to_string(), |p| p.display().to_string()),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut table = String::new();
    for (index, row) in rows.iter().enumerate() {
        table += &line(
            row.iter()
                .zip(&widths)
                .map(|(cell, width)| format!("{cell:<width$}"))
                .collect(),
        );
        if index == 0 {
            table += &line(widths.iter().map(|w| "-".repeat(*w)).collect());
        }
    }
    table
}
