//! Every way an external program can misbehave (`tests/sut/sweep.py --fault F`) is a finding with
//! its stable id: `ctxfuzz fuzz --target sweep --sut CMD --time 5` exits 1 with it within 15 s and
//! leaves no process of the program behind (a slow start is reported in its own class, not
//! charged); Ctrl-C ends a run with its summary and exit code 130, also while a slow program's
//! findings are minimised.
//! The cases run in parallel, so the suite costs about one slow case. The tests are named
//! `external_*`, like those of tests/external_sut.rs: process plumbing that mutation runs skip.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use ctxfuzz::harness::supervisor::{
    SUT_CLOSED_OUTPUT, SUT_CRASH, SUT_EXTRA_OUTPUT, SUT_HANG, SUT_MALFORMED, SUT_SLOW_START,
};
use ctxfuzz_oracles::invariants::Invariant;

/// (fault of tests/sut/sweep.py, the finding's id, words of its summary or evidence). The fault is
/// triggered by a `toolResult` message, which most generated transcripts hold: the first cases
/// find it. Each is charged (exit 1), except a slow start ([`SLOW_START`]).
const FAULTS: [(&str, Invariant, &str); 13] = [
    ("exit-at-once", SUT_CRASH, "exit status 3"),
    ("crash", SUT_CRASH, "boom"),
    ("hang", SUT_HANG, "no answer within"),
    ("half-line", SUT_HANG, "of an answer without its newline"),
    (
        "close-stdout",
        SUT_CLOSED_OUTPUT,
        "closed its stdout but is still running",
    ),
    (
        "close-stdin",
        SUT_CRASH,
        "closed its stdin but is still running",
    ),
    ("ignore-term", SUT_HANG, "no answer within"),
    ("grandchild", SUT_CRASH, "exit status 3"),
    (
        "huge",
        SUT_MALFORMED,
        "an answer of more than 16777216 bytes",
    ),
    ("not-utf8", SUT_MALFORMED, "not UTF-8"),
    ("garbage", SUT_MALFORMED, "not JSON"),
    ("wrong-shape", SUT_MALFORMED, "no `messages` array"),
    ("twice", SUT_EXTRA_OUTPUT, "nobody asked for"),
];

/// A program that takes 8 s to start, under a start-up allowance of 3 s: reported in its own
/// class, not charged, with the flag that raises the allowance; the run judged nothing, which
/// its verdict says (exit 1: a run that judged nothing must not pass).
const SLOW_START: (&str, Invariant, &str) = ("slow-start", SUT_SLOW_START, "--sut-startup-ms");

/// The promise for `--time 5`.
const WITHIN: Duration = Duration::from_secs(15);

/// A run of ctxfuzz against `sweep.py --fault FAULT`, in a directory of its own. The command
/// starts with `exec`, as docs/external-programs.md advises: the program itself is then the first
/// process of its group, and a pipe it closes is closed (`sh` would otherwise hold it open).
struct Run {
    dir: tempfile::TempDir,
    child: Child,
    started: Instant,
}

impl Run {
    fn start(fault: &str, budget: &[&str]) -> Run {
        Run::program(&format!("--fault {fault} --trigger toolResult"), budget)
    }

    /// A run against `sweep.py ARGS`.
    fn program(args: &str, budget: &[&str]) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let sut = format!(
            "exec python3 {}/tests/sut/sweep.py {args} --pids {}",
            env!("CARGO_MANIFEST_DIR"),
            dir.path().join("pids").display()
        );
        let out = dir.path().join("findings");
        let child = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
            .args(["fuzz", "--target", "sweep", "--sut", &sut, "--seed", "1"])
            .args(budget)
            .arg("--out")
            .arg(&out)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Run {
            dir,
            child,
            started: Instant::now(),
        }
    }

    /// Waits for the end of the run (killing it after a minute, to fail rather than hang).
    fn finish(mut self) -> (Output, Duration, tempfile::TempDir) {
        while self.child.try_wait().unwrap().is_none() {
            if self.started.elapsed() > Duration::from_secs(60) {
                let _ = self.child.kill();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let elapsed = self.started.elapsed();
        (self.child.wait_with_output().unwrap(), elapsed, self.dir)
    }
}

/// Processes of the groups recorded in `pids` that still run (zombies are not running).
fn survivors(pids: &Path) -> Vec<String> {
    let groups: Vec<String> = std::fs::read_to_string(pids)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_whitespace().nth(1).map(String::from))
        .collect();
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses.
        let Some((_, fields)) = stat.rsplit_once(") ") else {
            continue;
        };
        let fields: Vec<&str> = fields.split_whitespace().collect();
        if fields[0] != "Z" && groups.iter().any(|g| g == fields[2]) {
            alive.push(stat);
        }
    }
    alive
}

fn findings(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("findings"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// What is wrong with the run against `fault` (nothing: `Ok`): a charged finding `id` (or, for a
/// fault that is not charged, a finding reported in its own class) whose text holds `words`, and
/// every flag a hint asks to raise is a flag of `ctxfuzz fuzz`.
fn check_fault(fault: &str, id: &str, words: &str, charged: bool) -> Result<(), String> {
    let budget = if charged {
        ["--time", "5", "--jobs", "1"].as_slice()
    } else {
        &[
            "--time",
            "5",
            "--jobs",
            "1",
            "--sut-startup-ms",
            "3000",
            "--verbose",
        ]
    };
    let (output, elapsed, dir) = Run::start(fault, budget).finish();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let context = || format!("{fault}: after {elapsed:?}\n{stdout}\nstderr:\n{stderr}");
    let code = 1;
    if output.status.code() != Some(code) {
        return Err(format!(
            "exit {:?}, not {code}: {}",
            output.status,
            context()
        ));
    }
    if elapsed > WITHIN {
        return Err(format!("ran longer than {WITHIN:?}: {}", context()));
    }
    if !charged && !stdout.contains("verdict: NOTHING JUDGED in sweep [strict]") {
        return Err(format!("no verdict that nothing was judged: {}", context()));
    }
    let heading = format!("finding: sweep [strict] {id} (system under test)");
    if !stdout.contains(&heading) || !stdout.contains(words) {
        return Err(format!("no `{heading}` with `{words}`: {}", context()));
    }
    let help = ctxfuzz_help();
    for hint in stdout.split("raise ").skip(1) {
        let flag = hint.split_whitespace().next().unwrap_or_default();
        if !flag.starts_with("--") || !help.contains(flag) {
            return Err(format!("a hint names `{flag}`, not a flag: {}", context()));
        }
    }
    let left = survivors(&dir.path().join("pids"));
    if !left.is_empty() {
        return Err(format!("processes left behind: {left:?}: {}", context()));
    }
    for file in findings(dir.path()) {
        let text = std::fs::read_to_string(&file).unwrap();
        if serde_json::from_str::<serde_json::Value>(&text).is_err() {
            return Err(format!("{} is not a complete case file", file.display()));
        }
    }
    Ok(())
}

fn ctxfuzz_help() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(["fuzz", "--help"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn external_every_fault_class_is_its_finding_on_time_and_leaves_no_process() {
    let charged = FAULTS.iter().map(|&fault| (fault, true));
    let threads: Vec<_> = charged
        .chain([(SLOW_START, false)])
        .map(|((fault, id, words), charged)| {
            std::thread::spawn(move || check_fault(fault, id.id, words, charged))
        })
        .collect();
    let failures: Vec<String> = threads
        .into_iter()
        .filter_map(|t| t.join().unwrap().err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Sends SIGINT to `run` once its first program has run for a while, and checks that the run
/// stops: exit 130 well within `STOPS_WITHIN` (not a speed test: a run that does not end
/// fails), its summary, the notice that the cases in flight are abandoned, no process left.
fn interrupt(run: Run) {
    const STOPS_WITHIN: Duration = Duration::from_secs(20);
    let pids = run.dir.path().join("pids");
    while std::fs::read_to_string(&pids)
        .unwrap_or_default()
        .is_empty()
    {
        assert!(
            run.started.elapsed() < Duration::from_secs(20),
            "no program started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1500));
    let interrupted = Instant::now();
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    assert_eq!(
        unsafe { libc::kill(run.child.id() as i32, libc::SIGINT) },
        0
    );
    let (output, _, dir) = run.finish();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(
        interrupted.elapsed() < STOPS_WITHIN,
        "{:?}",
        interrupted.elapsed()
    );
    assert!(stdout.contains("verdict: "), "no summary: {stdout}");
    assert!(
        stderr.contains("abandoning the cases in flight"),
        "{stderr}"
    );
    assert!(stderr.contains("stopped by signal 2"), "{stderr}");
    assert_eq!(survivors(&dir.path().join("pids")), Vec::<String>::new());
}

#[test]
fn external_ctrl_c_stops_the_run_with_its_summary_exit_130_and_no_process_left() {
    // A program that ignores SIGTERM and hangs: the hardest to stop.
    interrupt(Run::start("ignore-term", &["--time", "60", "--jobs", "1"]));
}

#[test]
fn external_ctrl_c_stops_a_run_of_a_slow_program_while_its_findings_are_minimised() {
    // A program that takes 20 ms per message and sweeps differently from the Rust sweep: two
    // workers, each in a case or in the minimisation of a finding when the signal comes.
    interrupt(Run::program(
        "--rule none --delay-per-message 0.02",
        &["--time", "60", "--jobs", "2"],
    ));
}
