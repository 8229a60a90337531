//! `ctxfuzz fuzz`: the in-process fuzz loop over one target or all of them.

use ctxfuzz_oracles::error::Named;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, bail};
use ctxfuzz_oracles::contracts::ContractKind;
use ctxfuzz_oracles::formats::Format;
use ctxfuzz_oracles::pi::Provider;
use serde_json::{Map, Value, json};

use super::exit::ExitCode;
use crate::harness::findings::{self, Finding};
use crate::harness::progress::Progress;
use crate::harness::runner::{self, Config, RunOutcome};
use crate::harness::{Class, DynTarget, Profile, stop, targets};

/// Seconds per target when neither `--time` nor `--runs` is given.
pub const DEFAULT_SECONDS: f64 = 10.0;

/// Arguments of `ctxfuzz fuzz`.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct Args {
    /// The target to fuzz (default: every registered target, one after the other).
    #[arg(long, conflicts_with = "contract")]
    pub target: Option<String>,
    /// The options targets are built with, one flag per field.
    #[command(flatten)]
    pub profile: Profile,
    /// Seconds to fuzz each target [default: 10 unless --runs is given].
    #[arg(long, value_name = "SECONDS", conflicts_with = "runs")]
    pub time: Option<f64>,
    /// Number of cases to run per target.
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// Seed of the run: every case derives from (seed, case index) [default: random, printed].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run exactly one case of the seeded run (as printed by a finding's `regenerate` line).
    #[arg(long, value_name = "INDEX", conflicts_with_all = ["time", "runs"])]
    pub case: Option<u64>,
    /// The variant of the system under test: a sweep rule (`none`, `allowlist`,
    /// `all-other-roles`, `strict`), a compaction policy, a guard variant [default: the target's].
    #[arg(long, visible_alias = "rule", value_name = "VARIANT")]
    pub variant: Option<String>,
    /// Where findings are written as case files [default: findings].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads [default: every core].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print every finding in full; by default only charged findings are, and every other class
    /// is one line.
    #[arg(long, conflicts_with_all = ["quiet", "json"])]
    pub verbose: bool,
    /// Print only a line per charged finding and the verdict.
    #[arg(long, short, conflicts_with = "json")]
    pub quiet: bool,
    /// Print one JSON summary on stdout and nothing else (for CI).
    #[arg(long)]
    pub json: bool,
    /// Write a case file for every finding; by default only charged findings get one.
    #[arg(long)]
    pub keep_all: bool,
}

/// How much `ctxfuzz fuzz` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verbosity {
    Quiet,
    Normal,
    Verbose,
    Json,
}

impl Args {
    fn verbosity(&self) -> Verbosity {
        match (self.json, self.quiet, self.verbose) {
            (true, _, _) => Verbosity::Json,
            (_, true, _) => Verbosity::Quiet,
            (_, _, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        }
    }

    /// The command that regenerates case `case` of this run of `target`.
    pub fn regenerate_command(&self, target: &str, seed: u64, case: u64) -> String {
        let mut command = match &self.profile.contract {
            Some(_) => "ctxfuzz fuzz".to_string(),
            None => format!("ctxfuzz fuzz --target {target}"),
        };
        let variant = self.variant.clone().map(|v| ("--variant", v));
        for (flag, value) in variant.into_iter().chain(self.profile.flags()) {
            let _ = write!(command, " {flag} {}", shell_quote(&value));
        }
        let _ = write!(command, " --seed {seed} --case {case}");
        command
    }
}

fn shell_quote(word: &str) -> String {
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./=:".contains(c));
    if plain && !word.is_empty() {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let names: Vec<String> = match (&args.target, args.profile.contract) {
        (_, Some(ContractKind::Sweep)) => match args.profile.format {
            None | Some(Format::Pi) => vec!["sweep".to_string()],
            Some(other) => bail!("the sweep contract speaks pi messages, not `{other}`"),
        },
        (_, Some(_)) => return run_contract(&args),
        (Some(name), None) => vec![name.clone()],
        (None, None) if args.variant.is_some() => {
            bail!("--variant/--rule names a variant of one target: add --target")
        }
        // `--provider` alone runs the targets that judge a provider's body.
        (None, None) => targets::default_names()
            .into_iter()
            .filter(|name| args.profile.provider.is_none() || targets::judges_a_provider(name))
            .map(String::from)
            .collect(),
    };
    if names.is_empty() {
        bail!("no targets are registered");
    }
    let config = config(&args);
    let built: Vec<Vec<Box<dyn DynTarget>>> = names
        .iter()
        .map(|name| targets::rotation(name, args.variant.as_deref(), &args.profile))
        .collect::<Result<_>>()?;
    let out = out_dir(&args);
    let mut runs = Vec::new();
    for rotation in &built {
        let rotation: Vec<&dyn DynTarget> = rotation.iter().map(AsRef::as_ref).collect();
        let outcome = announce_and_fuzz(&rotation, &config, &args, &out)?;
        runs.push((rotation[0], outcome));
        if stop::requested().is_some() {
            break;
        }
    }
    Ok(finish(&runs, config.seed, &args, &out))
}

/// `--contract repair|cut`: the external program under its contract, in its format; the
/// transcripts the format cannot express are counted by reason.
fn run_contract(args: &Args) -> Result<ExitCode> {
    let target = targets::contract::ContractTarget::from_profile(&args.profile)?;
    let config = config(args);
    let out = out_dir(args);
    let outcome = announce_and_fuzz(&[&target], &config, args, &out)?;
    let skipped = target.cannot_express();
    let total: u64 = skipped.values().sum();
    let reasons: Vec<String> = skipped
        .iter()
        .map(|(reason, n)| format!("{reason} {n}"))
        .collect();
    if args.verbosity() != Verbosity::Json {
        println!(
            "  cannot express in {}: {total} generated transcript(s) skipped{}",
            target.variant(),
            if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            }
        );
    }
    Ok(finish(&[(&target, outcome)], config.seed, args, &out))
}

/// Prints the verdict line (or the `--json` document) and returns the exit code: 1 when anything
/// was charged or a target judged none of its cases (a green run must have judged something),
/// 128 + the signal when a signal stopped the run (the summary is the run so far).
fn finish(runs: &[(&dyn DynTarget, RunOutcome)], seed: u64, args: &Args, out: &Path) -> ExitCode {
    let charged: usize = runs.iter().map(|(_, o)| o.charged().count()).sum();
    let unjudged = unjudged(runs);
    if args.verbosity() == Verbosity::Json {
        let report = json_summary(seed, runs, &unjudged, args, out);
        println!(
            "{}",
            serde_json::to_string(&report).expect("a JSON value always serialises")
        );
    } else {
        println!("{}", verdict(runs, &unjudged, out));
    }
    match stop::requested() {
        Some(signal) => {
            eprintln!("ctxfuzz: stopped by signal {signal}: the summary is the run so far");
            ExitCode::Stopped(signal)
        }
        None => ExitCode::found(charged > 0 || !unjudged.is_empty()),
    }
}

fn out_dir(args: &Args) -> PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| PathBuf::from("findings"))
}

/// Fuzzes one target, in a rotation of one per provider or alone ([`targets::rotation`]), with
/// its header line and its summary as `--quiet`/`--verbose` say; the first of the rotation names
/// the run.
fn announce_and_fuzz(
    rotation: &[&dyn DynTarget],
    config: &Config,
    args: &Args,
    out: &Path,
) -> Result<RunOutcome> {
    let target = rotation[0];
    let verbosity = args.verbosity();
    if matches!(verbosity, Verbosity::Normal | Verbosity::Verbose) {
        println!(
            "fuzzing {} [{}] seed {} on {} thread(s){}",
            target.name(),
            target.variant(),
            config.seed,
            config.jobs,
            budget_text(config)
        );
    }
    let outcome = fuzz_target(rotation, config, args, out)?;
    match verbosity {
        Verbosity::Verbose => print!("{}", summary(target, &outcome)),
        Verbosity::Normal => print!("{}", brief_summary(target, &outcome, args, out)),
        Verbosity::Quiet | Verbosity::Json => {}
    }
    Ok(outcome)
}

fn config(args: &Args) -> Config {
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    Config {
        seed,
        first: args.case.unwrap_or(0),
        runs: args.case.map(|_| 1).or(args.runs),
        time: match (args.time, args.runs, args.case) {
            (Some(seconds), _, _) => Some(Duration::from_secs_f64(seconds.max(0.0))),
            (None, None, None) => Some(Duration::from_secs_f64(DEFAULT_SECONDS)),
            _ => None,
        },
        jobs: args.jobs.unwrap_or_else(default_jobs),
    }
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn budget_text(config: &Config) -> String {
    match (config.time, config.runs) {
        (Some(time), _) => format!(" for {}s", time.as_secs_f64()),
        (None, Some(1)) => format!(", case {}", config.first),
        (None, Some(runs)) => format!(" for {runs} runs"),
        (None, None) => String::new(),
    }
}

fn fuzz_target(
    rotation: &[&dyn DynTarget],
    config: &Config,
    args: &Args,
    out: &std::path::Path,
) -> Result<RunOutcome> {
    let verbosity = args.verbosity();
    let write_errors = std::sync::Mutex::new(Vec::new());
    // (invariant, change) of the charged findings printed in full: a later finding with the same
    // change is the same defect in another shape, and gets one line.
    let changes = std::sync::Mutex::new(Vec::new());
    let on_finding = |finding: &Finding, target: &dyn DynTarget, progress: &Progress| {
        let charged = finding.class == Class::Charged;
        let path = if charged || args.keep_all {
            match finding.write(out) {
                Ok(path) => Some(path),
                Err(error) => {
                    let mut errors = write_errors.lock().expect("error list lock");
                    errors.push(format!("{error:#}"));
                    None
                }
            }
        } else {
            None
        };
        let regenerate = finding
            .origin
            .map(|o| args.regenerate_command(finding.target, o.seed, o.case));
        match verbosity {
            Verbosity::Verbose => {
                progress.println(&finding.report(target, path.as_deref(), regenerate.as_deref()))
            }
            Verbosity::Normal if charged => {
                let change = finding.explanation(target).map(|e| findings::change(&e));
                let mut changes = changes.lock().expect("change list lock");
                let seen = (finding.key.invariant, change);
                if changes.contains(&seen) {
                    progress.println(&format!(
                        "finding: {} [{}] {}: the same change as a finding above, in another shape ({}){}\n",
                        finding.target,
                        finding.variant,
                        finding.key.invariant,
                        finding.key.shape,
                        path.map(|p| format!("; case file {}", p.display()))
                            .unwrap_or_default()
                    ));
                } else {
                    changes.push(seen);
                    progress.println(&finding.report(
                        target,
                        path.as_deref(),
                        regenerate.as_deref(),
                    ));
                }
            }
            Verbosity::Quiet if charged => println!(
                "charged: {} [{}] {}: {}{}",
                finding.target,
                finding.variant,
                finding.key.invariant,
                finding.violation.summary.lines().next().unwrap_or_default(),
                path.map(|p| format!(" (case file {})", p.display()))
                    .unwrap_or_default()
            ),
            _ => {}
        }
    };
    let mut progress = match verbosity {
        Verbosity::Normal | Verbosity::Verbose => Progress::for_stdout(&format!(
            "{} [{}]",
            rotation[0].name(),
            rotation[0].variant()
        )),
        Verbosity::Quiet | Verbosity::Json => Progress::Hidden,
    };
    let outcome = runner::fuzz_rotation(rotation, config, &mut progress, &on_finding);
    if let Some(error) = write_errors.into_inner().expect("error list lock").first() {
        bail!("{error}");
    }
    Ok(outcome)
}

/// The classes that are not charged, in the order they are summarised, with their names.
const UNCHARGED: [(Class, &str); 2] = [
    (Class::Informational, "reported in their own class"),
    (Class::Unpreventable, "unpreventable"),
];

/// The default end of a target's run: the statistics, the charged findings' count (they were
/// printed in full as they were found), and one line per class that is not charged: how many
/// violations of which invariants, and one example to look at.
fn brief_summary(target: &dyn DynTarget, outcome: &RunOutcome, args: &Args, out: &Path) -> String {
    let mut text = stats_line(target, outcome);
    let charged = outcome.charged().count();
    if charged == 0 {
        text.push_str("  charged: none\n");
    } else {
        let _ = writeln!(
            text,
            "  charged: {charged} finding(s), shown above (a finding with the same change as an earlier one is one line)"
        );
    }
    for (class, title) in UNCHARGED {
        let counts: Vec<String> = outcome
            .stats
            .violations
            .iter()
            .filter(|((c, _), _)| *c == class)
            .map(|((_, invariant), count)| format!("{invariant} {count}"))
            .collect();
        if counts.is_empty() {
            continue;
        }
        let example = outcome
            .findings
            .iter()
            .find(|f| f.class == class)
            .and_then(|f| example(f, args, out))
            .map(|e| format!("; e.g. {e}"))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "  {title}: {}{example} (--verbose shows them)",
            counts.join(", ")
        );
    }
    text
}

/// Where to look at a finding: its case file when one was written, else the command that
/// regenerates it.
fn example(finding: &Finding, args: &Args, out: &Path) -> Option<String> {
    let written = finding.class == Class::Charged || args.keep_all;
    if written {
        return Some(out.join(finding.file_name()).display().to_string());
    }
    finding
        .origin
        .map(|o| args.regenerate_command(finding.target, o.seed, o.case))
}

/// The last line of every run.
/// `unjudged`: the targets that judged none of their cases ([`unjudged`]).
fn verdict(runs: &[(&dyn DynTarget, RunOutcome)], unjudged: &[String], out: &Path) -> String {
    let execs: u64 = runs.iter().map(|(_, o)| o.stats.execs).sum();
    let uncharged: u64 = runs
        .iter()
        .flat_map(|(_, o)| &o.stats.violations)
        .filter(|((class, _), _)| *class != Class::Charged)
        .map(|(_, count)| count)
        .sum();
    let charged: Vec<String> = runs
        .iter()
        .filter(|(_, o)| o.charged().next().is_some())
        .map(|(t, o)| format!("{} [{}] {}", t.name(), t.variant(), o.charged().count()))
        .collect();
    if charged.is_empty() && !unjudged.is_empty() {
        format!(
            "verdict: NOTHING JUDGED in {}: every case ended without an answer to judge or beyond judging (see the classes above); nothing was charged, nothing was shown to hold",
            unjudged.join(", ")
        )
    } else if charged.is_empty() {
        format!(
            "verdict: clean: nothing charged in {} target(s), {execs} execs ({uncharged} violation(s) not charged)",
            runs.len()
        )
    } else {
        format!(
            "verdict: FAILED: charged findings in {}; case files in {}",
            charged.join(", "),
            out.display()
        )
    }
}

/// The targets that ran cases and judged none of them: `TARGET [VARIANT] (N cases)`.
fn unjudged(runs: &[(&dyn DynTarget, RunOutcome)]) -> Vec<String> {
    runs.iter()
        .filter(|(_, o)| o.stats.execs > 0 && o.stats.judged() == 0)
        .map(|(t, o)| format!("{} [{}] ({} cases)", t.name(), t.variant(), o.stats.execs))
        .collect()
}

/// The whole run as one JSON document (`--json`).
fn json_summary(
    seed: u64,
    runs: &[(&dyn DynTarget, RunOutcome)],
    unjudged: &[String],
    args: &Args,
    out: &Path,
) -> Value {
    let targets: Vec<Value> = runs
        .iter()
        .map(|(target, outcome)| {
            let stats = &outcome.stats;
            let mut violations = Map::new();
            for ((class, invariant), count) in &stats.violations {
                let by_class = violations
                    .entry(class_name(*class))
                    .or_insert_with(|| json!({}));
                by_class[*invariant] = json!(count);
            }
            let findings: Vec<Value> = outcome
                .findings
                .iter()
                .map(|f| {
                    let written = f.class == Class::Charged || args.keep_all;
                    json!({
                        "class": class_name(f.class),
                        "invariant": f.key.invariant,
                        "cause": f.violation.cause.to_string(),
                        "summary": f.violation.summary,
                        "provider": f.profile.provider.map(Provider::name),
                        "case_file": written.then(|| out.join(f.file_name()).display().to_string()),
                        "regenerate": f.origin.map(|o| args.regenerate_command(f.target, o.seed, o.case)),
                    })
                })
                .collect();
            json!({
                "target": target.name(),
                "variant": target.variant(),
                "execs": stats.execs,
                "seconds": stats.elapsed.as_secs_f64(),
                "execs_per_second": stats.execs_per_second(),
                "cannot_judge": stats.cannot_judge,
                "unanswered": stats.unanswered,
                "judged": stats.judged(),
                "rejected": stats.rejected,
                "failing": stats.failing,
                "cannot_express": target.cannot_express(),
                "violations": violations,
                "findings": findings,
            })
        })
        .collect();
    let charged: usize = runs.iter().map(|(_, o)| o.charged().count()).sum();
    json!({
        "seed": seed,
        "verdict": match (charged, unjudged.is_empty()) {
            (0, true) => "clean",
            (0, false) => "nothing-judged",
            _ => "failed",
        },
        "charged": charged,
        "targets": targets,
    })
}

fn class_name(class: Class) -> &'static str {
    match class {
        Class::Charged => "charged",
        Class::Informational => "informational",
        Class::Unpreventable => "unpreventable",
    }
}

fn stats_line(target: &dyn DynTarget, outcome: &RunOutcome) -> String {
    let stats = &outcome.stats;
    format!(
        "{} [{}]: {} execs in {:.1}s ({:.0}/s), {} cannot judge, {} rejected by the generator, {} failing\n",
        target.name(),
        target.variant(),
        stats.execs,
        stats.elapsed.as_secs_f64(),
        stats.execs_per_second(),
        stats.cannot_judge,
        stats.rejected,
        stats.failing
    )
}

/// The end-of-run statistics and the findings by section.
pub fn summary(target: &dyn DynTarget, outcome: &RunOutcome) -> String {
    let stats = &outcome.stats;
    let mut text = stats_line(target, outcome);
    let sections = [
        (Class::Charged, "charged to the system under test"),
        (
            Class::Informational,
            "reported in their own class (not charged)",
        ),
        (
            Class::Unpreventable,
            "unpreventable (no system under test could avoid them)",
        ),
    ];
    for (class, title) in sections {
        let counts: Vec<_> = stats
            .violations
            .iter()
            .filter(|((c, _), _)| *c == class)
            .collect();
        if counts.is_empty() {
            if class == Class::Charged {
                let _ = writeln!(text, "  {title}: no findings");
            }
            continue;
        }
        let _ = writeln!(text, "  {title}:");
        for ((_, invariant), count) in counts {
            let kept: Vec<&Finding> = outcome
                .findings
                .iter()
                .filter(|f| f.class == class && f.key.invariant == *invariant)
                .collect();
            let _ = writeln!(
                text,
                "    {invariant}: {count} violation(s), {} distinct finding(s){}",
                kept.len(),
                kept.first()
                    .map(|f| format!(" ({})", f.violation.cause))
                    .unwrap_or_default()
            );
        }
    }
    text
}
