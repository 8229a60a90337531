//! `ctxfuzz fuzz`: the in-process fuzz loop over one target or all of them.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::{Map, Value};

use crate::harness::findings::{Finding, cause_label};
use crate::harness::progress::Progress;
use crate::harness::runner::{self, Config, Outcome};
use crate::harness::{Class, Target, stop, targets};

/// Seconds per target when neither `--time` nor `--runs` is given.
pub const DEFAULT_SECONDS: f64 = 10.0;

/// Arguments of `ctxfuzz fuzz`.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct Args {
    /// The target to fuzz (default: every registered target, one after the other).
    #[arg(long, conflicts_with = "contract")]
    pub target: Option<String>,
    /// Judge the external program (`--sut`) under a contract: `repair`, `cut` or `sweep`
    /// (docs/contracts.md).
    #[arg(long, requires = "sut", value_name = "CONTRACT")]
    pub contract: Option<String>,
    /// The transcript format the program speaks: pi, openai, anthropic, gemini, ai-sdk,
    /// langchain [default: pi].
    #[arg(long, requires = "contract", value_name = "FORMAT")]
    pub format: Option<String>,
    /// Text every result the program adds contains (how its package marks a synthetic result).
    #[arg(long, requires = "contract", value_name = "TEXT")]
    pub marker: Option<String>,
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
    /// The second sweep rule of the `differential` target.
    #[arg(long, value_name = "RULE")]
    pub against: Option<String>,
    /// The pi version whose behaviour the oracle models [default: the oracle's].
    #[arg(long, value_name = "VERSION")]
    pub pi: Option<String>,
    /// An external program to fuzz instead of the Rust sweep (JSON lines on stdin/stdout).
    #[arg(long, value_name = "COMMAND")]
    pub sut: Option<String>,
    /// Where findings are written as case files [default: findings].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads [default: every core].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

impl Args {
    /// The profile targets are built with: the options that are set, by name.
    pub fn profile(&self) -> Value {
        let mut profile = Map::new();
        for (key, value) in [
            ("pi", &self.pi),
            ("against", &self.against),
            ("sut", &self.sut),
            ("contract", &self.contract),
            ("format", &self.format),
            ("marker", &self.marker),
        ] {
            if let Some(value) = value {
                profile.insert(key.to_string(), Value::from(value.as_str()));
            }
        }
        Value::Object(profile)
    }

    /// The command that regenerates case `case` of this run of `target`.
    pub fn regenerate_command(&self, target: &str, seed: u64, case: u64) -> String {
        let mut command = match &self.contract {
            Some(_) => "ctxfuzz fuzz".to_string(),
            None => format!("ctxfuzz fuzz --target {target}"),
        };
        let options = [
            ("--contract", &self.contract),
            ("--format", &self.format),
            ("--marker", &self.marker),
            ("--variant", &self.variant),
            ("--against", &self.against),
            ("--pi", &self.pi),
            ("--sut", &self.sut),
        ];
        for (flag, value) in options {
            if let Some(value) = value {
                let _ = write!(command, " {flag} {}", shell_quote(value));
            }
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

pub fn run(args: Args) -> Result<u8> {
    let names: Vec<String> = match (&args.target, args.contract.as_deref()) {
        (_, Some("sweep")) => match args.format.as_deref() {
            None | Some("pi") => vec!["sweep".to_string()],
            Some(other) => bail!("the sweep contract speaks pi messages, not `{other}`"),
        },
        (_, Some(_)) => return run_contract(&args),
        (Some(name), None) => vec![name.clone()],
        (None, None) if args.variant.is_some() => {
            bail!("--variant/--rule names a variant of one target: add --target")
        }
        (None, None) => targets::default_names()
            .into_iter()
            .map(String::from)
            .collect(),
    };
    if names.is_empty() {
        bail!("no targets are registered");
    }
    let profile = args.profile();
    let config = config(&args);
    let built: Vec<Box<dyn Target>> = names
        .iter()
        .map(|name| targets::build(name, args.variant.as_deref(), &profile))
        .collect::<Result<_>>()?;
    let out = out_dir(&args);
    let mut charged = 0;
    for target in &built {
        let outcome = announce_and_fuzz(target.as_ref(), &config, &args, &out)?;
        charged += outcome.charged().count();
        if let Some(signal) = stopped_by() {
            return Ok(signal);
        }
    }
    Ok(u8::from(charged > 0))
}

/// `--contract repair|cut`: the external program under its contract, in its format; the
/// transcripts the format cannot express are counted by reason.
fn run_contract(args: &Args) -> Result<u8> {
    let target = targets::contract::ContractTarget::from_profile(&args.profile())?;
    let outcome = announce_and_fuzz(&target, &config(args), args, &out_dir(args))?;
    let skipped = target.skipped();
    let total: u64 = skipped.values().sum();
    let reasons: Vec<String> = skipped
        .iter()
        .map(|(reason, n)| format!("{reason} {n}"))
        .collect();
    println!(
        "  cannot express in {}: {total} generated transcript(s) skipped{}",
        target.variant(),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        }
    );
    Ok(u8::from(outcome.charged().next().is_some()))
}

/// The exit code of a run a signal stopped (after saying so), if one did.
fn stopped_by() -> Option<u8> {
    let signal = stop::requested()?;
    println!("stopped by signal {signal}: the summary above is the run so far");
    Some(128 + signal as u8)
}

fn out_dir(args: &Args) -> PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| PathBuf::from("findings"))
}

fn announce_and_fuzz(
    target: &dyn Target,
    config: &Config,
    args: &Args,
    out: &std::path::Path,
) -> Result<Outcome> {
    println!(
        "fuzzing {} [{}] seed {} on {} thread(s){}",
        target.name(),
        target.variant(),
        config.seed,
        config.jobs,
        budget_text(config)
    );
    let outcome = fuzz_target(target, config, args, out)?;
    print!("{}", summary(target, &outcome));
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
    target: &dyn Target,
    config: &Config,
    args: &Args,
    out: &std::path::Path,
) -> Result<Outcome> {
    let write_errors = std::sync::Mutex::new(Vec::new());
    let on_finding = |finding: &Finding, progress: &Progress| {
        let path = match finding.write(out) {
            Ok(path) => Some(path),
            Err(error) => {
                write_errors
                    .lock()
                    .expect("error list lock")
                    .push(format!("{error:#}"));
                None
            }
        };
        let regenerate = finding
            .origin
            .map(|o| args.regenerate_command(finding.target, o.seed, o.case));
        progress.println(&finding.report(target, path.as_deref(), regenerate.as_deref()));
    };
    let mut progress = Progress::for_stdout(&format!("{} [{}]", target.name(), target.variant()));
    let outcome = runner::fuzz(target, config, &mut progress, &on_finding);
    if let Some(error) = write_errors.into_inner().expect("error list lock").first() {
        bail!("{error}");
    }
    Ok(outcome)
}

/// The end-of-run statistics and the findings by section.
pub fn summary(target: &dyn Target, outcome: &Outcome) -> String {
    let stats = &outcome.stats;
    let mut text = format!(
        "{} [{}]: {} execs in {:.1}s ({:.0}/s), {} cannot judge, {} rejected by the generator, {} failing\n",
        target.name(),
        target.variant(),
        stats.execs,
        stats.elapsed.as_secs_f64(),
        stats.execs_per_second(),
        stats.cannot_judge,
        stats.rejected,
        stats.failing
    );
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
                    .map(|f| format!(" ({})", cause_label(&f.violation.cause)))
                    .unwrap_or_default()
            );
        }
    }
    text
}
