//! The in-process fuzz loop: stable Rust, all cores (std threads), every case derived from
//! (seed, case index) so any single case regenerates; bounded by a number of runs or a time.
//!
//! A time budget `T` is kept whatever the systems under test do: no case starts after `T`, and
//! every wait for an external program (including minimisation and reports) is cut off at
//! `T +` [`OVERTIME`]. A stop request (Ctrl-C, see [`super::stop`]) ends the loop the same way,
//! at once.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ctxfuzz_oracles::invariants::{Cause, Judgement, Violation};
use serde_json::Value;

use super::findings::{self, Finding, FindingKey, Origin};
use super::progress::{Progress, Snapshot};
use super::supervisor::FaultKind;
use super::target::{Class, DynTarget};
use super::{bytes, stop};

/// Cases a thread claims at a time: large enough that the shared counter is not contended,
/// small enough that a time budget is honoured within a few milliseconds.
const CHUNK: u64 = 64;

/// A run stops minimising after this many distinct findings (it keeps counting failures).
pub const MAX_FINDINGS: usize = 64;

/// Minimisations of one (invariant, cause) in a row that yield no new shape before the run stops
/// minimising it: the same defect found a thousand times costs a few minimisations, not a thousand.
pub const MAX_STALE_MINIMIZATIONS: u32 = 4;

/// How long after its time budget a run may still finish the cases in flight: enough for an
/// external program's answer to a request of ordinary size, and the run still ends within ten
/// seconds of its budget (a wait cut off then is "cannot judge", never charged).
pub const OVERTIME: Duration = Duration::from_secs(7);

#[derive(Debug, Clone)]
pub struct Config {
    pub seed: u64,
    /// The first case index (`--case N` runs exactly case N: `first = N`, `runs = Some(1)`).
    pub first: u64,
    pub runs: Option<u64>,
    pub time: Option<Duration>,
    pub jobs: usize,
}

/// Outcome counts of a run.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub execs: u64,
    /// Fuzz bytes the target could not turn into an input.
    pub rejected: u64,
    pub cannot_judge: u64,
    /// Execs with at least one violation.
    pub failing: u64,
    /// Execs an external program gave no answer for (a fault, a slow start): nothing was judged.
    pub unanswered: u64,
    /// Violations per (class, invariant) over every exec, duplicates included.
    pub violations: BTreeMap<(Class, &'static str), u64>,
    pub elapsed: Duration,
}

impl Stats {
    fn absorb(&mut self, other: Stats) {
        self.execs += other.execs;
        self.rejected += other.rejected;
        self.cannot_judge += other.cannot_judge;
        self.failing += other.failing;
        self.unanswered += other.unanswered;
        for (key, count) in other.violations {
            *self.violations.entry(key).or_default() += count;
        }
    }

    /// Execs whose output the oracle judged: not beyond judging, answered (rejected bytes are
    /// no exec).
    pub fn judged(&self) -> u64 {
        self.execs - self.cannot_judge - self.unanswered
    }

    pub fn execs_per_second(&self) -> f64 {
        self.execs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

#[derive(Debug, Default)]
pub struct RunOutcome {
    pub stats: Stats,
    /// Distinct findings, ordered by class then key.
    pub findings: Vec<Finding>,
}

impl RunOutcome {
    pub fn charged(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.class == Class::Charged)
    }
}

#[derive(Default)]
struct Found {
    /// (invariant, cause) → minimisations in a row that found no new shape.
    stale: HashMap<Coarse, u32>,
    seen: HashSet<FindingKey>,
    findings: Vec<Finding>,
}

/// A violation's invariant and cause: what [`MAX_STALE_MINIMIZATIONS`] counts by.
type Coarse = (&'static str, Cause);

fn coarse(violation: &Violation) -> Coarse {
    (violation.invariant.id, violation.cause.clone())
}

impl Found {
    /// Whether minimising a violation of `coarse` may still find something new.
    fn still_minimising(&self, coarse: &Coarse) -> bool {
        self.seen.len() < MAX_FINDINGS
            && self.stale.get(coarse).copied().unwrap_or(0) < MAX_STALE_MINIMIZATIONS
    }

    /// Whether a case judged `judgement` is worth its input as JSON (see [`record`]).
    fn wants(&self, judgement: &Judgement) -> bool {
        match judgement {
            Judgement::Fail(violations) => violations
                .iter()
                .any(|violation| self.still_minimising(&coarse(violation))),
            _ => false,
        }
    }
}

/// Fuzzes `target`. `on_finding` sees each distinct finding as soon as it is minimised (to
/// write and print it while the run goes on).
pub fn fuzz(
    target: &dyn DynTarget,
    config: &Config,
    progress: &mut Progress,
    on_finding: &(dyn Fn(&Finding, &Progress) + Sync),
) -> RunOutcome {
    fuzz_rotation(&[target], config, progress, &|finding, _, progress| {
        on_finding(finding, progress)
    })
}

/// Fuzzes a rotation of one target (one per provider, [`super::targets::rotation`]): each case
/// judged, minimised and recorded by the one its bytes pick ([`bytes::pick`]), which `on_finding`
/// is handed with the finding (its explanation is that target's).
pub fn fuzz_rotation(
    rotation: &[&dyn DynTarget],
    config: &Config,
    progress: &mut Progress,
    on_finding: &(dyn Fn(&Finding, &dyn DynTarget, &Progress) + Sync),
) -> RunOutcome {
    let start = Instant::now();
    let deadline = config.time.map(|t| start + t);
    let end = config
        .runs
        .map_or(u64::MAX, |r| config.first.saturating_add(r));
    let next = AtomicU64::new(config.first);
    let execs = AtomicU64::new(0);
    let charged = AtomicU64::new(0);
    let other = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let found = Mutex::new(Found::default());
    let shared_progress = Mutex::new(std::mem::replace(progress, Progress::Hidden));

    let _honouring = stop::honour();
    let time_is_up = || {
        done.load(Ordering::Relaxed)
            || stop::requested().is_some()
            || deadline.is_some_and(|d| Instant::now() >= d)
    };
    let stats = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..config.jobs.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let ending = EndOnPanic {
                        done: &done,
                        seed: config.seed,
                        case: Cell::new(None),
                    };
                    let work = || {
                        let mut stats = Stats::default();
                        let mut buffer = Vec::new();
                        while !time_is_up() {
                            let first = next.fetch_add(CHUNK, Ordering::Relaxed);
                            if first >= end {
                                break;
                            }
                            let before = stats.execs;
                            for index in first..(first + CHUNK).min(end) {
                                if time_is_up() {
                                    break;
                                }
                                ending.case.set(Some(index));
                                bytes::fill(config.seed, index, &mut buffer);
                                let target = *bytes::pick(rotation, &buffer);
                                let wanted = |judgement: &Judgement| {
                                    found.lock().expect("findings lock").wants(judgement)
                                };
                                let Ok((judgement, failed)) = target.fuzz_case(&buffer, &wanted)
                                else {
                                    stats.rejected += 1;
                                    continue;
                                };
                                stats.execs += 1;
                                let origin = Origin {
                                    seed: config.seed,
                                    case: index,
                                };
                                let new = record(
                                    target,
                                    failed.as_ref(),
                                    &judgement,
                                    origin,
                                    &mut stats,
                                    &found,
                                );
                                for finding in new {
                                    let counter = if finding.class == Class::Charged {
                                        &charged
                                    } else {
                                        &other
                                    };
                                    counter.fetch_add(1, Ordering::Relaxed);
                                    on_finding(
                                        &finding,
                                        target,
                                        &shared_progress.lock().expect("progress lock"),
                                    );
                                    found.lock().expect("findings lock").findings.push(finding);
                                }
                            }
                            execs.fetch_add(stats.execs - before, Ordering::Relaxed);
                        }
                        stats
                    };
                    match deadline {
                        Some(d) => stop::within(d + OVERTIME, work),
                        None => work(),
                    }
                })
            })
            .collect();
        let monitor = scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                shared_progress
                    .lock()
                    .expect("progress lock")
                    .update(Snapshot {
                        execs: execs.load(Ordering::Relaxed),
                        elapsed: start.elapsed(),
                        findings: charged.load(Ordering::Relaxed),
                        other: other.load(Ordering::Relaxed),
                    });
            }
        });
        let joined: Vec<_> = workers.into_iter().map(|worker| worker.join()).collect();
        done.store(true, Ordering::Relaxed);
        monitor.join().expect("the progress monitor does not panic");
        let mut total = Stats::default();
        for stats in joined {
            match stats {
                Ok(stats) => total.absorb(stats),
                // The worker's panic, as it was raised (its hook printed where).
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        total
    });

    *progress = shared_progress.into_inner().expect("progress lock");
    progress.finish();
    let mut findings = found.into_inner().expect("findings lock").findings;
    findings.sort_by(|a, b| (a.class, &a.key).cmp(&(b.class, &b.key)));
    RunOutcome {
        stats: Stats {
            elapsed: start.elapsed(),
            ..stats
        },
        findings,
    }
}

/// Ends the run when a fuzz worker panics. Judging catches the panics of the code under judgement
/// ([`super::panics`]), so a panic that reaches a worker is ctxfuzz's own (a generator's, the
/// minimiser's): the other workers and the progress monitor stop, and the run ends with that
/// panic, instead of going on without the worker or waiting for it forever. Which case it was is
/// printed, so the bug can be replayed (`--seed S --case N`).
struct EndOnPanic<'a> {
    done: &'a AtomicBool,
    seed: u64,
    /// The case the worker is on.
    case: Cell<Option<u64>>,
}

impl Drop for EndOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.done.store(true, Ordering::Relaxed);
            if let Some(case) = self.case.get() {
                eprintln!(
                    "ctxfuzz: a bug of ctxfuzz itself: case {case} of seed {} panicked outside \
                     judging (generating or minimising it); `--seed {} --case {case}` replays it",
                    self.seed, self.seed
                );
            }
        }
    }
}

/// Counts the judgement and minimises each violation not seen before; returns the new findings.
/// `failed` is the input of a failure the run still minimises ([`DynTarget::fuzz_case`],
/// [`Found::wants`]); without it the failure is only counted.
fn record(
    target: &dyn DynTarget,
    failed: Option<&Value>,
    judgement: &Judgement,
    origin: Origin,
    stats: &mut Stats,
    found: &Mutex<Found>,
) -> Vec<Finding> {
    let violations = match judgement {
        Judgement::Fail(violations) => violations,
        Judgement::CannotJudge(_) => {
            stats.cannot_judge += 1;
            return Vec::new();
        }
        Judgement::Pass => return Vec::new(),
    };
    stats.failing += 1;
    if violations.iter().any(|v| FaultKind::of(v).is_some()) {
        stats.unanswered += 1;
    }
    let mut new = Vec::new();
    for violation in violations {
        *stats
            .violations
            .entry((target.class(violation), violation.invariant.id))
            .or_default() += 1;
        let coarse = coarse(violation);
        let Some(input) = failed else {
            continue;
        };
        if !found
            .lock()
            .expect("findings lock")
            .still_minimising(&coarse)
        {
            continue;
        }
        // Deduplicated by the shape of the minimised input: the raw input's shape says more
        // about the generator than about the defect.
        let finding = findings::minimize(target, input, judgement, violation, Some(origin));
        let mut found = found.lock().expect("findings lock");
        // One minimised input is reported once per class, however many invariants it breaks
        // (its case file's verdict lists them all).
        let is_new = found.seen.insert(finding.key.clone())
            && !found
                .findings
                .iter()
                .chain(&new)
                .any(|f| f.input == finding.input && f.class == finding.class);
        let stale = found.stale.entry(coarse).or_default();
        *stale = if is_new { 0 } else { *stale + 1 };
        if is_new {
            new.push(finding);
        }
    }
    new
}

#[cfg(test)]
mod tests {
    use std::panic::AssertUnwindSafe;
    use std::sync::mpsc;

    use arbitrary::Unstructured;

    use super::*;
    use crate::harness::profile::Profile;
    use crate::harness::target::Target;

    /// A target whose generator panics on one case's bytes, as a generator with a bug would, and
    /// passes every other case.
    struct PanicsOnOneCase {
        bytes: Vec<u8>,
    }

    const THE_BUG: &str = "the generator's own bug";

    impl Target for PanicsOnOneCase {
        type Input = ();
        type Variant = String;
        type Output = ();

        fn build(_: Option<String>, _: &Profile) -> anyhow::Result<Self> {
            unreachable!("the test builds it")
        }

        fn name(&self) -> &'static str {
            "panics-on-one-case"
        }

        fn variant(&self) -> String {
            String::new()
        }

        fn profile(&self) -> Profile {
            Profile::default()
        }

        fn generate(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
            if u.peek_bytes(u.len()) == Some(&self.bytes[..]) {
                panic!("{THE_BUG}");
            }
            Ok(())
        }

        fn judge(&self, _: &()) -> Judgement {
            Judgement::Pass
        }

        fn output(&self, _: &()) {}
    }

    /// A run without an end (no `--runs`, no `--time`) on two workers: the one panic ends it,
    /// with that panic, where it used to leave the other worker fuzzing and the progress monitor
    /// waiting for the dead one forever.
    #[test]
    fn a_panic_outside_judging_ends_the_run_with_that_panic() {
        let seed = 7;
        let mut bytes = Vec::new();
        bytes::fill(seed, 5, &mut bytes);
        assert!(!bytes.starts_with(b"[") && !bytes.starts_with(b"{"));
        let target = PanicsOnOneCase { bytes };
        let (ended, end) = mpsc::channel();
        std::thread::spawn(move || {
            let config = Config {
                seed,
                first: 0,
                runs: None,
                time: None,
                jobs: 2,
            };
            let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                fuzz(&target, &config, &mut Progress::Hidden, &|_, _| {});
            }));
            ended.send(run).ok();
        });
        let run = end
            .recv_timeout(Duration::from_secs(30))
            .expect("the run ends on the panic");
        let panic = run.expect_err("the run ends with the panic");
        assert_eq!(
            panic.downcast_ref::<String>().map(String::as_str),
            Some(THE_BUG)
        );
    }

    #[test]
    fn the_judged_execs_are_those_answered_and_judgeable_and_rejected_bytes_are_no_exec() {
        let stats = Stats {
            execs: 10,
            rejected: 20,
            cannot_judge: 3,
            unanswered: 2,
            ..Stats::default()
        };
        assert_eq!(stats.judged(), 5);
        let nothing = Stats {
            execs: 4,
            cannot_judge: 1,
            unanswered: 3,
            ..Stats::default()
        };
        assert_eq!(nothing.judged(), 0);
    }
}
