//! `ctxfuzz scan DIR [--provider P|all]`: how many of a directory tree's pi sessions carry each
//! risky shape, and how many each provider's API would reject if they were sent today.
//!
//! Every `*.jsonl` file under DIR is read the way pi loads it (see [`crate::transcript::session_file`]); the agent
//! messages pi would start from are classified by shape (mid-cycle barriers by role, duplicated,
//! late and early results, error/aborted assistants with calls, id hazards, malformed content),
//! and sent through the oracle's model of pi's pipeline into the body pi builds for each provider
//! asked (`--provider`, parsed as `check` parses it, default `anthropic`), judged by that API's
//! rules; counts, rule ids and rejected files are reported per provider. A file is read as `check`
//! reads it ([`read`]): through the index of its lines, the path's messages classified and the
//! Anthropic body judged in parts as they come, whole only where `check` also reads it whole; one
//! file's text and index at a time. Another API's body is judged, as `check` judges it, on the
//! path's messages held whole: asking for one holds the path's messages of a file as a tree.
//! Read-only: nothing is written. Tolerant: an unreadable file, a file that is not a session, a
//! malformed line, a session on which pi itself throws, are each counted and listed, never fatal.
//!
//! Exit code: 0 when no session would be rejected, 1 when one would, 2 when DIR cannot be read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use ctxfuzz_oracles::invariants::wire::{KnownShape, PART_SIZE, Parts};
use ctxfuzz_oracles::invariants::write_name;
use ctxfuzz_oracles::pi::session_context::MalformedLine;
use ctxfuzz_oracles::pi::{Api, PiVersion, Provider, Thrown};
use serde::Serialize;

use super::check::{self, BodyVerdict, Providers};
use super::exit::ExitCode;
use crate::transcript::session_file;
use crate::transcript::shapes::{Shape, Shapes, shapes};

/// Arguments of `ctxfuzz scan`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory to scan (recursively) for pi session files (`*.jsonl`).
    pub dir: PathBuf,
    /// pi version whose rules apply (any version; picks one of the four pi versions modelled).
    #[arg(long = "pi", default_value = "1.6.0", value_parser = PiVersion::from_version)]
    pub pi: PiVersion,
    /// The provider whose body to judge (its catalog model picks the API): anthropic, openai,
    /// openrouter, groq, deepseek, google, or `all` of them.
    #[arg(long, default_value = "anthropic", value_parser = check::providers)]
    pub provider: Providers,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let report = scan(&args.dir, args.pi, &args.provider.0)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(ExitCode::found(report.sessions.rejected > 0))
}

/// Everything `scan` found.
#[derive(Debug, Default, Serialize)]
pub struct ScanReport {
    pub root: String,
    pub pi: String,
    pub files: FileCounts,
    /// Over every provider asked: judged by all, pi fails on (building the context, or a body),
    /// rejected by at least one API.
    pub sessions: SessionCounts,
    /// Sessions per shape among those judged, for every shape ctxfuzz knows (zeros included).
    pub shapes: BTreeMap<String, usize>,
    /// One report per provider asked, in the order asked.
    pub providers: Vec<ProviderReport>,
    pub malformed_lines: Vec<SkippedLine>,
    /// Files that could not be judged, and why.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Default, Serialize)]
pub struct FileCounts {
    /// `*.jsonl` files found.
    pub found: usize,
    pub unreadable: usize,
    /// Files whose first entry is not a session header (pi reads them as empty sessions).
    pub not_sessions: usize,
    pub with_malformed_lines: usize,
}

#[derive(Debug, Default, Serialize)]
pub struct SessionCounts {
    /// Session files whose context pi can build, and its body.
    pub judged: usize,
    /// Sessions on which pi itself throws (or loops) building or converting the context.
    pub pi_fails: usize,
    /// Sessions the API would reject with a 400.
    pub rejected: usize,
}

/// What one provider's API makes of the sessions.
#[derive(Debug, Serialize)]
pub struct ProviderReport {
    #[serde(serialize_with = "write_name")]
    pub provider: Provider,
    pub api: Api,
    /// Of the sessions whose context pi builds: those it builds this body of, those on which it
    /// throws building it, those the API rejects.
    pub sessions: SessionCounts,
    /// Per rule id: sessions with at least one violation, and violations in all.
    pub wire_rules: BTreeMap<&'static str, RuleCount>,
    /// Per known failure shape (`1` ... `5`, docs/oracle.md#known-failure-shapes): sessions that
    /// show it (the Anthropic body's findings name them; other APIs' do not).
    pub known_failures: BTreeMap<String, usize>,
    /// The sessions the API would reject, with their first violation.
    pub rejected: Vec<Rejected>,
}

#[derive(Debug, Default, Serialize)]
pub struct RuleCount {
    pub sessions: usize,
    pub violations: usize,
}

#[derive(Debug, Serialize)]
pub struct Rejected {
    pub file: String,
    pub violations: usize,
    pub first: String,
}

/// A line pi skips, and the file it is in.
#[derive(Debug, Serialize)]
pub struct SkippedLine {
    pub file: String,
    #[serde(flatten)]
    pub line: MalformedLine,
}

#[derive(Debug, Serialize)]
pub struct Problem {
    pub file: String,
    pub problem: String,
}

/// Scans `dir` with the rules of `pi_version`, judging the body of each of `providers`.
pub fn scan(dir: &Path, pi_version: PiVersion, providers: &[Provider]) -> Result<ScanReport> {
    if !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    let mut report = ScanReport {
        root: dir.display().to_string(),
        pi: pi_version.checked_against().to_string(),
        shapes: Shape::all().iter().map(|s| (s.to_string(), 0)).collect(),
        providers: providers.iter().map(|&p| ProviderReport::new(p)).collect(),
        ..ScanReport::default()
    };
    let mut files = Vec::new();
    collect(dir, &mut files, &mut report.problems)?;
    files.sort();
    for path in files {
        report.files.found += 1;
        report.add(&path, pi_version, providers);
    }
    Ok(report)
}

/// Every `*.jsonl` file under `dir`. Symbolic links to directories are not followed (no cycles);
/// an unreadable subdirectory is a problem, not an error.
fn collect(dir: &Path, files: &mut Vec<PathBuf>, problems: &mut Vec<Problem>) -> Result<()> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot read directory", dir.display()))?;
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if let Err(error) = collect(&path, files, problems) {
                problems.push(Problem {
                    file: path.display().to_string(),
                    problem: format!("{error:#}"),
                });
            }
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
            files.push(path);
        }
    }
    Ok(())
}

/// What `scan` makes of one session file, however it was read.
#[derive(Debug, PartialEq)]
pub enum Reading {
    /// The first entry is not a session header (pi reads the file as an empty session).
    NotSession,
    /// pi cannot build the context: why.
    NoContext(String),
    /// The context's shapes, and per provider asked (in order) the rules its body breaks, or
    /// what pi throws building it.
    Judged {
        shapes: BTreeSet<Shape>,
        verdicts: Vec<Result<BodyVerdict, Thrown>>,
    },
}

/// Reads a session file's text as `check` does, for each of `providers`: the messages of the
/// path, through the index of its lines, classified and judged as they come (the Anthropic body in
/// parts); whole ([`read_whole`]) where `check` reads it whole. Either way, the lines pi skips.
pub fn read(text: &str, v: PiVersion, providers: &[Provider]) -> (Vec<MalformedLine>, Reading) {
    read_in_parts(text, v, providers).unwrap_or_else(|| read_whole(text, v, providers))
}

/// The reading in parts: `None` when the file needs the whole reading.
pub fn read_in_parts(
    text: &str,
    v: PiVersion,
    providers: &[Provider],
) -> Option<(Vec<MalformedLine>, Reading)> {
    // The first Anthropic provider is judged in parts; every other one on the path's messages,
    // kept (as `check` judges them) only when one is asked for.
    let anthropic = providers
        .iter()
        .position(|p| p.api() == Api::AnthropicMessages);
    let model = anthropic.map(|at| providers[at].model());
    let mut parts = model.map(|model| Parts::new(model, v, PART_SIZE));
    let mut kept = (0..providers.len())
        .any(|at| Some(at) != anthropic)
        .then(Vec::new);
    let mut shapes = Shapes::default();
    let malformed = session_file::for_each_message(text, v, |message| {
        // The classifier reads `serde_json::Value`s: a copy of one message at a time.
        shapes.push(&message);
        match (&mut parts, &mut kept) {
            (Some(parts), Some(kept)) => {
                kept.push(message.clone());
                parts.push(message);
            }
            (Some(parts), None) => parts.push(message),
            (None, Some(kept)) => kept.push(message),
            (None, None) => {}
        }
    })?;
    let mut in_parts = parts.map(Parts::finish);
    let messages = kept.as_deref().unwrap_or_default();
    let mut verdicts = Vec::with_capacity(providers.len());
    for (at, &provider) in providers.iter().enumerate() {
        let judged_in_parts = if Some(at) == anthropic {
            in_parts.take()
        } else {
            None
        };
        verdicts.push(match judged_in_parts {
            // Parts that do not stand alone: the file is read whole.
            Some(judged) => judged?.map(BodyVerdict::Rejected),
            None => check::verdict_of_whole(messages, provider, v),
        });
    }
    let shapes = shapes.finish();
    Some((malformed, Reading::Judged { shapes, verdicts }))
}

/// The whole reading: every entry parsed, the context built from them ([`session_file::load`]).
pub fn read_whole(
    text: &str,
    v: PiVersion,
    providers: &[Provider],
) -> (Vec<MalformedLine>, Reading) {
    let loaded = session_file::load(text, v);
    let reading = match loaded.context {
        None => Reading::NotSession,
        Some(Err(error)) => Reading::NoContext(error.to_string()),
        Some(Ok(context)) => Reading::Judged {
            shapes: shapes(&context.messages),
            verdicts: providers
                .iter()
                .map(|&provider| check::verdict_of_whole(&context.messages, provider, v))
                .collect(),
        },
    };
    (loaded.malformed, reading)
}

impl ScanReport {
    fn add(&mut self, path: &Path, pi_version: PiVersion, providers: &[Provider]) {
        let file = path.display().to_string();
        let text = match std::fs::read(path) {
            // pi decodes with a StringDecoder, which replaces invalid UTF-8 the same way; valid
            // text is taken as it is read, not copied.
            Ok(bytes) => String::from_utf8(bytes)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()),
            Err(error) => {
                self.files.unreadable += 1;
                self.problem(&file, format!("cannot read: {error}"));
                return;
            }
        };
        let (malformed, reading) = read(&text, pi_version, providers);
        if !malformed.is_empty() {
            self.files.with_malformed_lines += 1;
        }
        self.malformed_lines
            .extend(malformed.into_iter().map(|line| SkippedLine {
                file: file.clone(),
                line,
            }));
        match reading {
            Reading::NotSession => {
                self.files.not_sessions += 1;
                self.problem(
                    &file,
                    "not a pi session: the first entry is not a session header".into(),
                );
            }
            Reading::NoContext(error) => {
                self.sessions.pi_fails += 1;
                self.problem(&file, format!("pi cannot build the context: {error}"));
            }
            Reading::Judged { shapes, verdicts } => {
                let throws = verdicts.iter().any(Result::is_err);
                if throws {
                    self.sessions.pi_fails += 1;
                } else {
                    self.sessions.judged += 1;
                    for shape in shapes {
                        *self.shapes.entry(shape.to_string()).or_default() += 1;
                    }
                }
                let rejected = verdicts
                    .iter()
                    .any(|verdict| verdict.as_ref().is_ok_and(|v| v.violations() > 0));
                self.sessions.rejected += usize::from(rejected);
                for (report, verdict) in self.providers.iter_mut().zip(verdicts) {
                    if let Err(thrown) = &verdict {
                        let problem = format!("{thrown} (provider {})", report.provider);
                        self.problems.push(Problem {
                            file: file.clone(),
                            problem,
                        });
                    }
                    report.add(&file, verdict);
                }
            }
        }
    }

    fn problem(&mut self, file: &str, problem: String) {
        self.problems.push(Problem {
            file: file.to_string(),
            problem,
        });
    }

    /// The report as aligned text for a terminal.
    pub fn table(&self) -> String {
        let mut rows: Vec<(String, String)> = vec![
            (
                "session files (*.jsonl)".into(),
                self.files.found.to_string(),
            ),
            ("  unreadable".into(), self.files.unreadable.to_string()),
            (
                "  not a session (no header)".into(),
                self.files.not_sessions.to_string(),
            ),
            (
                "  with malformed lines".into(),
                self.files.with_malformed_lines.to_string(),
            ),
            (
                "malformed lines (skipped by pi)".into(),
                self.malformed_lines.len().to_string(),
            ),
            ("sessions judged".into(), self.sessions.judged.to_string()),
            (
                "sessions pi itself fails on".into(),
                self.sessions.pi_fails.to_string(),
            ),
            (
                "sessions rejected by an API today".into(),
                self.sessions.rejected.to_string(),
            ),
        ];
        rows.push((String::new(), String::new()));
        rows.push(("shape".into(), "sessions".into()));
        for shape in Shape::all() {
            let name = shape.to_string();
            let count = self.shapes.get(&name).copied().unwrap_or(0);
            rows.push((format!("  {name}"), count.to_string()));
        }
        for report in &self.providers {
            report.rows(&mut rows);
        }
        let width = rows
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = format!("ctxfuzz scan {} (pi {} rules)\n", self.root, self.pi);
        for (key, value) in rows {
            out += format!("{key:<width$}  {value}").trim_end();
            out.push('\n');
        }
        for report in &self.providers {
            if !report.known_failures.is_empty() {
                let provider = report.provider;
                out += &format!("\nknown failure shapes (docs/oracle.md), {provider}, sessions:\n");
                for (shape, count) in &report.known_failures {
                    out += &format!("  {count:>6}  {shape}\n");
                }
            }
        }
        out += &self.listing();
        out
    }

    /// The files behind the counts, so a user can open them.
    fn listing(&self) -> String {
        let mut out = String::new();
        for report in self.providers.iter().filter(|r| !r.rejected.is_empty()) {
            out += &format!("\nrejected sessions, {}:\n", report.provider);
            for r in &report.rejected {
                out += &format!("  {} ({} violations): {}\n", r.file, r.violations, r.first);
            }
        }
        if !self.malformed_lines.is_empty() {
            out += "\nmalformed lines:\n";
            for m in &self.malformed_lines {
                let l = &m.line;
                out += &format!("  {}:{}:{}: {}\n", m.file, l.line, l.column, l.message);
            }
        }
        if !self.problems.is_empty() {
            out += "\nnot judged:\n";
            for p in &self.problems {
                out += &format!("  {}: {}\n", p.file, p.problem);
            }
        }
        out
    }
}

impl ProviderReport {
    fn new(provider: Provider) -> Self {
        ProviderReport {
            provider,
            api: provider.api(),
            sessions: SessionCounts::default(),
            wire_rules: BTreeMap::new(),
            known_failures: BTreeMap::new(),
            rejected: Vec::new(),
        }
    }

    /// One session's verdict for this provider.
    fn add(&mut self, file: &str, verdict: Result<BodyVerdict, Thrown>) {
        let verdict = match verdict {
            Ok(verdict) => verdict,
            Err(_) => {
                self.sessions.pi_fails += 1;
                return;
            }
        };
        self.sessions.judged += 1;
        // Each violation's rule id and known failure shape, and the first one's words.
        let (first, found): (Option<String>, Vec<(&'static str, Option<KnownShape>)>) =
            match &verdict {
                BodyVerdict::Rejected(found) => (
                    found
                        .first()
                        .map(|f| format!("{}: {}", f.wire.rule, f.wire.text)),
                    found.iter().map(|f| (f.wire.rule.id(), f.shape)).collect(),
                ),
                BodyVerdict::BodyRejected(found) => (
                    found.first().map(|r| format!("{}: {}", r.rule, r.text)),
                    found.iter().map(|r| (r.rule.id(), None)).collect(),
                ),
            };
        let Some(first) = first else {
            return;
        };
        self.sessions.rejected += 1;
        self.rejected.push(Rejected {
            file: file.to_string(),
            violations: found.len(),
            first,
        });
        let mut rules: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut known = BTreeSet::new();
        for (rule, shape) in found {
            *rules.entry(rule).or_default() += 1;
            known.extend(shape.map(|s| (s.number(), s.describe())));
        }
        for (rule, violations) in rules {
            let count = self.wire_rules.entry(rule).or_default();
            count.sessions += 1;
            count.violations += violations;
        }
        for (number, description) in known {
            let key = format!("{number}: {description}");
            *self.known_failures.entry(key).or_default() += 1;
        }
    }

    /// The provider's rows of the table.
    fn rows(&self, rows: &mut Vec<(String, String)>) {
        let counts = &self.sessions;
        rows.push((String::new(), String::new()));
        rows.push((
            format!("provider {} (API {})", self.provider, self.api.name()),
            String::new(),
        ));
        rows.push(("  sessions judged".into(), counts.judged.to_string()));
        rows.push((
            "  sessions pi itself fails on".into(),
            counts.pi_fails.to_string(),
        ));
        rows.push((
            "  sessions rejected by the API today".into(),
            counts.rejected.to_string(),
        ));
        rows.push(("  wire rule (400)".into(), "sessions / violations".into()));
        if self.wire_rules.is_empty() {
            rows.push(("    (none)".into(), String::new()));
        }
        for (rule, count) in &self.wire_rules {
            rows.push((
                format!("    {rule}"),
                format!("{} / {}", count.sessions, count.violations),
            ));
        }
    }
}
