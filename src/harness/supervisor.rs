//! A supervisor for external programs: one request line in, one answer line out, and every way a
//! program can misbehave a typed [`Fault`] with a stable id, never a hang, a signal that kills
//! ctxfuzz, or a process left behind.
//!
//! It knows nothing of what the lines mean: [`Supervisor::ask`] sends one line (a newline is
//! added) and returns the next line the program prints (without its newline) as UTF-8 text. What
//! the answer must say is the caller's business (the sweep protocol lives in
//! [`super::external`]); a caller turns a [`Fault`] into a finding with [`Fault::violation`].
//!
//! Life of a program: `sh -c COMMAND`, in a process group of its own, with stdin, stdout and
//! stderr piped. A program that answers goes back to an idle pool and serves the next request (one
//! program per calling thread at a time). On any fault the whole process group gets SIGTERM, then
//! SIGKILL after [`Limits::kill_grace`]; every process of it is reaped, and the next request
//! starts a fresh program. Dropping the supervisor retires its idle programs the same way.
//!
//! Limits ([`Limits`], defaults in brackets): an answer must be complete within
//! [`Limits::answer`] [2 s] of the request, counted from the first byte written, also while a
//! line is half-written; a fresh program's first answer gets [`Limits::startup_grace`] [5 s] on
//! top. An answer line holds at most [`Limits::max_answer_bytes`] [16 MiB]. The last
//! [`Limits::stderr_tail_bytes`] [4 KiB] of stderr are kept as evidence.
//!
//! Faults (the ids are stable: they name findings and case files):
//! - `sut-crash`: the program (its first process) exited, or closed its stdin, instead of
//!   answering; also when it exited between two requests, or could not be started.
//! - `sut-closed-output`: the program closed its stdout but is still running.
//! - `sut-hang`: no complete answer line within the deadline (the evidence shows any half line).
//! - `sut-malformed-output`: an answer over the size limit, or not UTF-8.
//! - `sut-extra-output`: output nobody asked for (two answers to one request): bytes that arrived
//!   with an answer line after its newline, or since the last answer when the next request is
//!   sent. A second answer printed later than that is read as the answer to the next request.
//!
//! A wait the caller cuts short ([`super::stop`]: a signal, the end of the run, a minimisation's
//! budget) is [`Failure::Stopped`], not a fault: the program is killed, nothing is charged.
//!
//! Process-wide effects, set up before the first program starts: SIGPIPE is ignored (a write to a
//! program that died is `EPIPE`, a `sut-crash`, never a signal that ends ctxfuzz), and on Linux
//! ctxfuzz becomes a child subreaper, so a program's orphaned grandchildren are reaped here rather
//! than left as zombies. A process that leaves its process group (`setsid`) escapes the
//! supervisor: it is the one thing this cannot clean up.

use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::process::{ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use ctxfuzz_oracles::invariants::{Cause, Invariant, Violation};
use rustix::event::{PollFd, PollFlags, poll};
use rustix::process::{Pid, Signal, WaitOptions, WaitStatus};
use serde_json::{Map, Value, json};

use super::profile::Profile;
use super::stop;

pub const SUT_CRASH: Invariant = Invariant {
    id: "sut-crash",
    statement: "the program answers every request instead of exiting or closing its stdin",
};
pub const SUT_CLOSED_OUTPUT: Invariant = Invariant {
    id: "sut-closed-output",
    statement: "the program keeps its stdout open while it runs",
};
pub const SUT_HANG: Invariant = Invariant {
    id: "sut-hang",
    statement: "the program answers each request with a complete line within the deadline",
};
pub const SUT_MALFORMED: Invariant = Invariant {
    id: "sut-malformed-output",
    statement: "each answer is UTF-8 within the size limit, and JSON of the protocol's shape",
};
pub const SUT_EXTRA_OUTPUT: Invariant = Invariant {
    id: "sut-extra-output",
    statement: "the program prints one answer per request and nothing nobody asked for",
};

/// How often a wait looks at the program's exit and at stop requests.
const SLICE: Duration = Duration::from_millis(50);

/// How long a program that closed a pipe has to exit before it counts as still running.
const SETTLE: Duration = Duration::from_millis(200);

/// How long SIGKILLed processes have to disappear (they cannot refuse; this only bounds the wait).
const KILL_WAIT: Duration = Duration::from_secs(2);

/// Bytes read from a pipe at a time.
const CHUNK: usize = 64 * 1024;

/// How much of a half-written or unwanted answer is shown in the evidence.
const SHOWN_BYTES: usize = 200;

/// What a program may take and print; see the module doc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub answer: Duration,
    pub startup_grace: Duration,
    pub max_answer_bytes: usize,
    pub stderr_tail_bytes: usize,
    pub kill_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            answer: Duration::from_secs(2),
            startup_grace: Duration::from_secs(5),
            max_answer_bytes: 16 << 20,
            stderr_tail_bytes: 4 << 10,
            kill_grace: Duration::from_millis(500),
        }
    }
}

impl Limits {
    /// The defaults, with the deadline of `profile.sut_timeout_ms` and the start-up grace of
    /// `profile.sut_startup_ms` where a case file or the command line sets them.
    pub fn from_profile(profile: &Profile) -> Limits {
        let defaults = Limits::default();
        Limits {
            answer: profile
                .sut_timeout_ms
                .map_or(defaults.answer, Duration::from_millis),
            startup_grace: profile
                .sut_startup_ms
                .map_or(defaults.startup_grace, Duration::from_millis),
            ..defaults
        }
    }

    /// Adds the limits [`Limits::from_profile`] reads to a case file's profile.
    pub fn record_in(&self, profile: &mut Profile) {
        profile.sut_timeout_ms = Some(self.answer.as_millis() as u64);
        profile.sut_startup_ms = Some(self.startup_grace.as_millis() as u64);
    }
}

/// The kinds of misbehaviour, each with its stable id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    Crash,
    ClosedOutput,
    Hang,
    Malformed,
    ExtraOutput,
}

impl FaultKind {
    pub fn invariant(self) -> Invariant {
        match self {
            FaultKind::Crash => SUT_CRASH,
            FaultKind::ClosedOutput => SUT_CLOSED_OUTPUT,
            FaultKind::Hang => SUT_HANG,
            FaultKind::Malformed => SUT_MALFORMED,
            FaultKind::ExtraOutput => SUT_EXTRA_OUTPUT,
        }
    }
}

/// A program's misbehaviour: what happened, for people, and the evidence (always `command`,
/// `elapsed_ms` and `stderr`; `status` once the program exited; more per kind).
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    pub summary: String,
    pub evidence: Value,
}

impl Fault {
    /// The fault as a violation charged to the system under test, named by its id.
    pub fn violation(&self) -> Violation {
        Violation {
            invariant: self.kind.invariant(),
            cause: Cause::SystemUnderTest,
            summary: self.summary.clone(),
            evidence: self.evidence.clone(),
        }
    }
}

/// Why [`Supervisor::ask`] returned no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The program misbehaved: a finding.
    Fault(Fault),
    /// The wait was cut short by the caller (a signal, the run's end, a budget): not a finding.
    Stopped(String),
}

/// Runs one external program (as many copies as threads ask at once); see the module doc.
pub struct Supervisor {
    command: String,
    limits: Limits,
    idle: Mutex<Vec<Program>>,
}

impl Supervisor {
    /// Supervises `command` (run by `sh -c`). Nothing starts before the first request.
    pub fn new(command: &str, limits: Limits) -> Supervisor {
        Supervisor {
            command: command.to_string(),
            limits,
            idle: Mutex::new(Vec::new()),
        }
    }

    pub fn command(&self) -> &str {
        &self.command
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Sends `request` (one line, without its newline) and returns the program's answer line.
    pub fn ask(&self, request: &str) -> Result<String, Failure> {
        debug_assert!(!request.contains('\n'), "a request is one line");
        if stop::over() {
            return Err(Failure::Stopped(
                "stopped before the request was sent".into(),
            ));
        }
        let started = Instant::now();
        let pooled = self.idle.lock().expect("pool lock").pop();
        let mut program = match pooled {
            Some(program) => program,
            None => Program::start(&self.command, &self.limits).map_err(|error| {
                Failure::Fault(Fault {
                    kind: FaultKind::Crash,
                    summary: format!("cannot start `{}`: {error}", self.command),
                    evidence: json!({"command": self.command, "elapsed_ms": 0, "stderr": ""}),
                })
            })?,
        };
        match program.exchange(request, &self.limits) {
            Ok(answer) => {
                self.idle.lock().expect("pool lock").push(program);
                Ok(answer)
            }
            Err(trouble) => {
                let elapsed = started.elapsed();
                retire(vec![&mut program], self.limits.kill_grace);
                Err(trouble.into_failure(&program, &self.command, elapsed))
            }
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        let mut idle = std::mem::take(self.idle.get_mut().expect("pool lock"));
        retire(idle.iter_mut().collect(), self.limits.kill_grace);
    }
}

/// Process groups of running programs, killed at once by [`kill_every_group`].
static GROUPS: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

/// SIGKILLs every program still running (the hook of a hard exit: a second Ctrl-C).
pub fn kill_every_group() {
    let groups = GROUPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for &group in groups.iter() {
        let _ = rustix::process::kill_process_group(group, Signal::KILL);
    }
}

/// The process-wide set-up (see the module doc), once.
fn prepare_process() {
    static PREPARE: Once = Once::new();
    PREPARE.call_once(|| {
        // SAFETY: SIG_IGN is a valid disposition; setting it has no other effect on this process.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        #[cfg(target_os = "linux")]
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    });
}

/// One running program.
struct Program {
    group: Pid,
    /// Whether the group may still have processes (false once retired).
    registered: bool,
    kill_grace: Duration,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// `None` after end of file.
    stderr: Option<ChildStderr>,
    answers: AnswerReader,
    stdout_closed: bool,
    stderr_tail: Vec<u8>,
    stderr_limit: usize,
    answered: bool,
    /// The exit of the group's first process, once reaped.
    status: Option<WaitStatus>,
}

/// What went wrong in one exchange, before the evidence is gathered.
struct Trouble {
    kind: Option<FaultKind>,
    summary: String,
    evidence: Map<String, Value>,
}

impl Trouble {
    fn fault(kind: FaultKind, summary: String) -> Trouble {
        Trouble {
            kind: Some(kind),
            summary,
            evidence: Map::new(),
        }
    }

    fn with(mut self, key: &str, value: Value) -> Trouble {
        self.evidence.insert(key.into(), value);
        self
    }

    fn into_failure(self, program: &Program, command: &str, elapsed: Duration) -> Failure {
        let Some(kind) = self.kind else {
            return Failure::Stopped(self.summary);
        };
        let mut evidence = self.evidence;
        evidence.insert("command".into(), json!(command));
        evidence.insert("elapsed_ms".into(), json!(elapsed.as_millis() as u64));
        if let Some(status) = program.status {
            evidence.insert("status".into(), json!(describe(status)));
        }
        evidence.insert(
            "stderr".into(),
            json!(String::from_utf8_lossy(&program.stderr_tail)),
        );
        Failure::Fault(Fault {
            kind,
            summary: self.summary,
            evidence: Value::Object(evidence),
        })
    }
}

impl Program {
    fn start(command: &str, limits: &Limits) -> std::io::Result<Program> {
        prepare_process();
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let group = Pid::from_child(&child);
        GROUPS.lock().expect("groups lock").push(group);
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut program = Program {
            group,
            registered: true,
            kill_grace: limits.kill_grace,
            stdin,
            stdout,
            stderr: Some(stderr),
            answers: AnswerReader::new(limits.max_answer_bytes),
            stdout_closed: false,
            stderr_tail: Vec::new(),
            stderr_limit: limits.stderr_tail_bytes,
            answered: false,
            status: None,
        };
        let nonblocking = rustix::io::ioctl_fionbio(program.stdin.as_fd(), true)
            .and_then(|()| rustix::io::ioctl_fionbio(program.stdout.as_fd(), true))
            .and_then(|()| {
                program
                    .stderr
                    .as_ref()
                    .map_or(Ok(()), |e| rustix::io::ioctl_fionbio(e.as_fd(), true))
            });
        if let Err(error) = nonblocking {
            retire(vec![&mut program], limits.kill_grace);
            return Err(error.into());
        }
        Ok(program)
    }

    /// Writes `request` and reads one answer line, within the deadline.
    fn exchange(&mut self, request: &str, limits: &Limits) -> Result<String, Trouble> {
        let started = Instant::now();
        let first = !self.answered;
        let allowed = limits.answer
            + if first {
                limits.startup_grace
            } else {
                Duration::ZERO
            };
        let deadline = started + allowed;
        self.check_idle_output()?;
        let mut line = request.as_bytes().to_vec();
        line.push(b'\n');
        let mut written = 0;
        loop {
            if written == line.len()
                && let Some(answer) = self.answers.next_answer()
            {
                let answer = answer.map_err(|malformed| malformed.trouble(limits))?;
                self.answered = true;
                self.refuse_extra_output()?;
                return Ok(answer);
            }
            if self.answers.is_over_limit() {
                return Err(malformed_size(self.answers.pending().len(), limits));
            }
            if self.stdout_closed {
                return Err(self.closed_output());
            }
            self.reap();
            if self.status.is_some() {
                // Whatever it printed before exiting is in the pipe already.
                self.read_stdout();
                if written == line.len() && self.answers.has_line() {
                    continue;
                }
                return Err(Trouble::fault(
                    FaultKind::Crash,
                    format!(
                        "the program exited ({}) instead of answering",
                        self.exit_text()
                    ),
                )
                .with("received_bytes", json!(self.answers.pending().len())));
            }
            let now = Instant::now();
            if let Some(signal) = stop::requested() {
                return Err(stopped(format!("stopped by signal {signal}")));
            }
            if now >= deadline {
                return Err(self.hang(allowed, first, limits));
            }
            let cut_off = stop::cut_off();
            if cut_off.is_some_and(|c| now >= c) {
                return Err(stopped(
                    "the time allowed to this run or budget ran out".into(),
                ));
            }
            let wake = cut_off
                .map_or(deadline, |c| c.min(deadline))
                .min(now + SLICE);
            let writable = self.wait(written < line.len(), wake - now);
            if writable {
                match self.stdin.write(&line[written..]) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(error) => return Err(self.closed_input(&error)),
                }
            }
        }
    }

    /// Polls the pipes until one is ready or `timeout` passes, reading whatever arrived; returns
    /// whether stdin can take more bytes.
    fn wait(&mut self, writing: bool, timeout: Duration) -> bool {
        let readable = PollFlags::IN | PollFlags::HUP | PollFlags::ERR;
        let mut fds = vec![PollFd::new(&self.stdout, readable)];
        if let Some(stderr) = &self.stderr {
            fds.push(PollFd::new(stderr, readable));
        }
        if writing {
            fds.push(PollFd::new(&self.stdin, PollFlags::OUT));
        }
        let timeout = rustix::event::Timespec::try_from(timeout).unwrap_or_default();
        // An error is EINTR: the caller's loop looks again.
        let polled = poll(&mut fds, Some(&timeout)).is_ok();
        let ready: Vec<bool> = fds
            .iter()
            .map(|fd| polled && !fd.revents().is_empty())
            .collect();
        drop(fds);
        if ready[0] {
            self.read_stdout();
        }
        if self.stderr.is_some() && ready[1] {
            self.read_stderr();
        }
        writing && ready[ready.len() - 1]
    }

    /// Reads what stdout holds now (without blocking), up to just past the answer limit.
    fn read_stdout(&mut self) {
        let mut chunk = vec![0u8; CHUNK];
        while !self.stdout_closed && !self.answers.is_over_limit() {
            match self.stdout.read(&mut chunk) {
                Ok(0) => self.stdout_closed = true,
                Ok(n) => self.answers.push(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    }

    /// Reads what stderr holds now (without blocking), keeping the tail.
    fn read_stderr(&mut self) {
        let mut chunk = [0u8; 4096];
        while let Some(stderr) = &mut self.stderr {
            match stderr.read(&mut chunk) {
                Ok(0) => self.stderr = None,
                Ok(n) => {
                    self.stderr_tail.extend_from_slice(&chunk[..n]);
                    let excess = self.stderr_tail.len().saturating_sub(self.stderr_limit);
                    self.stderr_tail.drain(..excess);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    }

    /// Before a request: the program must still run, and must not have printed anything since
    /// its last answer.
    fn check_idle_output(&mut self) -> Result<(), Trouble> {
        self.read_stdout();
        self.read_stderr();
        self.refuse_extra_output()?;
        if self.stdout_closed {
            return Err(self.closed_output());
        }
        self.reap();
        if self.status.is_some() {
            return Err(Trouble::fault(
                FaultKind::Crash,
                format!(
                    "the program exited ({}) between two requests",
                    self.exit_text()
                ),
            ));
        }
        Ok(())
    }

    /// Bytes after an answer line, before the next request, are output nobody asked for.
    fn refuse_extra_output(&self) -> Result<(), Trouble> {
        let pending = self.answers.pending();
        if pending.is_empty() {
            return Ok(());
        }
        Err(Trouble::fault(
            FaultKind::ExtraOutput,
            format!(
                "the program printed {} byte(s) nobody asked for after its answer \
                 (a second answer to one request?)",
                pending.len()
            ),
        )
        .with("extra", json!(shown(pending))))
    }

    fn hang(&self, allowed: Duration, first: bool, limits: &Limits) -> Trouble {
        let pending = self.answers.pending();
        let what = if pending.is_empty() {
            "no answer".to_string()
        } else {
            format!("{} byte(s) of an answer without its newline", pending.len())
        };
        let grace = if first {
            format!(
                " (a new program's first answer: {} ms of start-up grace included; \
                 raise sut_startup_ms if it starts slowly)",
                limits.startup_grace.as_millis()
            )
        } else {
            String::new()
        };
        Trouble::fault(
            FaultKind::Hang,
            format!("{what} within {} ms{grace}", allowed.as_millis()),
        )
        .with("deadline_ms", json!(allowed.as_millis() as u64))
        .with("first_answer", json!(first))
        .with("partial", json!(shown(pending)))
    }

    /// Stdout reached its end: an exit in progress (a crash) or a program that lives on without
    /// a way to answer.
    fn closed_output(&mut self) -> Trouble {
        if self.settle() {
            return Trouble::fault(
                FaultKind::Crash,
                format!(
                    "the program exited ({}) instead of answering",
                    self.exit_text()
                ),
            );
        }
        Trouble::fault(
            FaultKind::ClosedOutput,
            "the program closed its stdout but is still running".into(),
        )
    }

    /// A write failed (EPIPE: nobody reads the program's stdin any more).
    fn closed_input(&mut self, error: &std::io::Error) -> Trouble {
        let summary = if self.settle() {
            format!(
                "the program exited ({}) before reading the request",
                self.exit_text()
            )
        } else {
            "the program closed its stdin but is still running".to_string()
        };
        Trouble::fault(FaultKind::Crash, summary).with("write_error", json!(error.to_string()))
    }

    /// Waits briefly for the first process to exit; whether it did.
    fn settle(&mut self) -> bool {
        let until = Instant::now() + SETTLE;
        loop {
            self.reap();
            self.read_stderr();
            if self.status.is_some() {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Reaps every finished process of the group that is a child of ctxfuzz (the first process,
    /// and orphaned grandchildren thanks to the subreaper).
    fn reap(&mut self) {
        while let Ok(Some((pid, status))) =
            rustix::process::waitpgid(self.group, WaitOptions::NOHANG)
        {
            if pid == self.group {
                self.status = Some(status);
            }
        }
    }

    fn exit_text(&self) -> String {
        self.status.map_or_else(|| "still running".into(), describe)
    }

    /// Whether no process of the group is left (zombies included: they are reaped first).
    fn group_gone(&mut self) -> bool {
        self.reap();
        self.read_stderr();
        matches!(
            rustix::process::test_kill_process_group(self.group),
            Err(rustix::io::Errno::SRCH)
        )
    }

    fn signal(&self, signal: Signal) {
        let _ = rustix::process::kill_process_group(self.group, signal);
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let grace = self.kill_grace;
        retire(vec![self], grace);
    }
}

/// Ends programs: SIGTERM to every group, SIGKILL to those still there after `grace`, every
/// process reaped.
fn retire(mut programs: Vec<&mut Program>, grace: Duration) {
    programs.retain(|p| p.registered);
    for program in &programs {
        program.signal(Signal::TERM);
    }
    let patient_until = Instant::now() + grace;
    for program in &mut programs {
        if !wait_until_gone(program, patient_until) {
            program.signal(Signal::KILL);
            wait_until_gone(program, Instant::now() + KILL_WAIT);
        }
        GROUPS
            .lock()
            .expect("groups lock")
            .retain(|&g| g != program.group);
        program.registered = false;
    }
}

fn wait_until_gone(program: &mut Program, until: Instant) -> bool {
    loop {
        if program.group_gone() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn stopped(summary: String) -> Trouble {
    Trouble {
        kind: None,
        summary,
        evidence: Map::new(),
    }
}

fn malformed_size(bytes: usize, limits: &Limits) -> Trouble {
    Trouble::fault(
        FaultKind::Malformed,
        format!(
            "an answer of more than {} bytes (at least {bytes} bytes without a newline)",
            limits.max_answer_bytes
        ),
    )
    .with("answer_bytes", json!(bytes))
    .with("limit_bytes", json!(limits.max_answer_bytes))
}

/// `exit status 3`, `killed by signal 9`.
fn describe(status: WaitStatus) -> String {
    match (status.exit_status(), status.terminating_signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => format!("wait status {:#x}", status.as_raw()),
    }
}

/// The first bytes of `bytes`, as text (invalid UTF-8 replaced), for evidence.
fn shown(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN_BYTES)]).into_owned()
}

/// Why an answer line was refused before its meaning is looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// More than the limit (a line of `bytes` bytes, or that many bytes without a newline yet).
    TooLarge { bytes: usize },
    /// The line is not UTF-8 from byte `valid_up_to` on.
    NotUtf8 { valid_up_to: usize },
}

impl Malformed {
    fn trouble(&self, limits: &Limits) -> Trouble {
        match *self {
            Malformed::TooLarge { bytes } => malformed_size(bytes, limits),
            Malformed::NotUtf8 { valid_up_to } => Trouble::fault(
                FaultKind::Malformed,
                format!("an answer that is not UTF-8 (from byte {valid_up_to} on)"),
            )
            .with("valid_up_to", json!(valid_up_to)),
        }
    }
}

/// Assembles answer lines from the bytes a program prints, however the pipe splits them.
#[derive(Debug)]
pub struct AnswerReader {
    buffer: Vec<u8>,
    /// Bytes of `buffer` known to hold no newline.
    scanned: usize,
    limit: usize,
}

impl AnswerReader {
    /// A reader refusing lines of more than `limit` bytes.
    pub fn new(limit: usize) -> AnswerReader {
        AnswerReader {
            buffer: Vec::new(),
            scanned: 0,
            limit,
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next complete line (without its newline), a refusal, or `None` while incomplete.
    pub fn next_answer(&mut self) -> Option<Result<String, Malformed>> {
        let Some(end) = self.find_newline() else {
            return self.is_over_limit().then_some(Err(Malformed::TooLarge {
                bytes: self.buffer.len(),
            }));
        };
        let line: Vec<u8> = self.buffer.drain(..=end).take(end).collect();
        self.scanned = 0;
        if line.len() > self.limit {
            return Some(Err(Malformed::TooLarge { bytes: line.len() }));
        }
        Some(String::from_utf8(line).map_err(|e| Malformed::NotUtf8 {
            valid_up_to: e.utf8_error().valid_up_to(),
        }))
    }

    /// Whether a complete line is waiting.
    pub fn has_line(&mut self) -> bool {
        self.find_newline().is_some()
    }

    /// Bytes received and not yet returned as a line.
    pub fn pending(&self) -> &[u8] {
        &self.buffer
    }

    /// Whether the pending bytes already hold more than a line may (reading more is pointless).
    pub fn is_over_limit(&mut self) -> bool {
        self.buffer.len() > self.limit && self.find_newline().is_none_or(|end| end > self.limit)
    }

    fn find_newline(&mut self) -> Option<usize> {
        let found = self.buffer[self.scanned..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| self.scanned + i);
        if found.is_none() {
            self.scanned = self.buffer.len();
        }
        found
    }
}

#[cfg(test)]
mod tests;
