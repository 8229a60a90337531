//! A supervisor for external programs: one JSON object per line each way, and every way a program
//! can misbehave a typed [`Fault`] with a stable id, never a hang, a signal that kills ctxfuzz, or
//! a process left behind.
//!
//! [`Supervisor::ask`] sends one request object (on one line) and reads the next line the program
//! prints. The supervisor owns the line protocol: an answer is one JSON object, and the caller's
//! `shape` (what its protocol needs in that object: the sweep protocol lives in
//! [`super::external`], the contracts' in [`super::targets::contract`]) accepts it or says what is
//! wrong. Anything else (a line that is not JSON, not an object, or not of the shape) is
//! `sut-malformed-output`, a fault like any other: the program is retired, so its next line can
//! never be read as the answer to a later request. A caller turns a [`Fault`] into a finding with
//! [`Fault::violation`].
//!
//! The parts, one concept each: [`fault`] (the kinds of misbehaviour and their ids), [`limits`]
//! (what a program may take and print), [`answer`] (reading answer lines and the object each must
//! hold); this file runs the programs (the pool, the exchange of one request, retiring).
//!
//! Life of a program: `sh -c COMMAND`, in a process group of its own, with stdin, stdout and
//! stderr piped. A program that answers goes back to an idle pool and serves the next request (one
//! program per calling thread at a time). On any fault the whole process group gets SIGTERM, then
//! SIGKILL after [`Limits::kill_grace`]; every process of it is reaped, and the next request
//! starts a fresh program. Dropping the supervisor retires its idle programs the same way.
//!
//! Limits ([`Limits`], defaults in brackets):
//! - Start-up: a fresh program must start reading its first request within [`Limits::startup`]
//!   [60 s, what importing a heavy package takes on a loaded machine]. Whether it has read is seen
//!   in the request pipe (the bytes still unread in it), so a slow start is told apart from a hang
//!   on the input: a program that never read its request is `sut-slow-start`, which the targets
//!   report in its own class (informational, not charged to the input).
//! - Answer: once the program reads the request, it may stay silent for at most the request's
//!   allowance, [`Limits::answer`] [2 s] plus [`Limits::per_mib`] [10 s] per MiB of request (a
//!   request of 10,000 messages, about 1-2 MiB, gets 12-22 s: a program linear in its input is not
//!   a hang). Every byte of the answer that arrives restarts that clock: a half line followed by
//!   silence is a hang, an answer still arriving is not.
//! - Size: an answer line holds at most [`Limits::max_answer_bytes`] [16 MiB], counted as the
//!   bytes arrive: an answer that grows past the limit is `sut-malformed-output` however slowly it
//!   is written, never a race against the clock.
//! - The last [`Limits::stderr_tail_bytes`] [4 KiB] of stderr are kept as evidence.
//!
//! Faults (the ids are stable: they name findings and case files):
//! - `sut-crash`: the program (its first process) exited, or closed its stdin, instead of
//!   answering; also when it exited between two requests, or could not be started.
//! - `sut-closed-output`: the program closed its stdout but is still running.
//! - `sut-hang`: the program read the request but printed no complete answer line, staying silent
//!   for longer than the allowance (the evidence shows any half line).
//! - `sut-slow-start`: a fresh program did not read its first request within the start-up
//!   allowance (not the input's fault; informational).
//! - `sut-malformed-output`: an answer over the size limit, not UTF-8, not one JSON object, or not
//!   of the caller's shape.
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

use rustix::event::{PollFd, PollFlags, poll};
use rustix::process::{Pid, Signal, WaitOptions, WaitStatus};
use serde_json::{Map, Value, json};

use super::stop;
use crate::error::Error;

mod answer;
mod fault;
mod limits;

pub use answer::{AnswerReader, Malformed, read_object};
pub use fault::{
    Failure, Fault, FaultKind, SUT_CLOSED_OUTPUT, SUT_CRASH, SUT_EXTRA_OUTPUT, SUT_HANG,
    SUT_MALFORMED, SUT_SLOW_START,
};
pub use limits::Limits;

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

    /// Sends `request` (on one line) and returns what `shape` makes of the program's answer, one
    /// JSON object; `shape` says what is missing from an object that is not of the protocol's
    /// shape. Any answer that is not one such object is a fault, and the program is retired.
    pub fn ask<T>(
        &self,
        request: &Value,
        shape: impl FnOnce(Map<String, Value>) -> Result<T, Error>,
    ) -> Result<T, Failure> {
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
        let request = serde_json::to_string(request).expect("a JSON value always serialises");
        let answer = program.exchange(&request, &self.limits).and_then(|line| {
            let object = read_object(&line).map_err(|why| malformed_answer(&why, &line))?;
            program.refuse_extra_output()?;
            shape(object).map_err(|why| malformed_answer(&why, &line))
        });
        match answer {
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

fn malformed_answer(why: &Error, line: &str) -> Trouble {
    Trouble::fault(FaultKind::Malformed, format!("malformed answer: {why}")).with(
        "answer",
        json!(line.chars().take(SHOWN_BYTES).collect::<String>()),
    )
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
    /// Whether the program printed a line yet (it has started).
    answered: bool,
    /// When stdout last brought bytes.
    last_output: Option<Instant>,
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
            last_output: None,
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

    /// Writes `request` and reads one answer line, within the start-up and answer allowances.
    fn exchange(&mut self, request: &str, limits: &Limits) -> Result<String, Trouble> {
        let sent = Instant::now();
        let allowance = limits.allowance(request.len());
        // When the program was seen reading the request: a program that answered before is back
        // in its loop; a fresh one is still starting until the request pipe shows a read.
        let mut reading = self.answered.then_some(sent);
        self.check_idle_output()?;
        let mut line = request.as_bytes().to_vec();
        line.push(b'\n');
        let mut written = 0;
        loop {
            if written == line.len()
                && let Some(answer) = self.answers.next_answer()
            {
                self.answered = true;
                return answer.map_err(|malformed| malformed.trouble(limits));
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
            if reading.is_none() && self.has_read(written) {
                reading = Some(now);
            }
            let deadline = match reading {
                // Silence is counted from the read, or from the last byte of the answer.
                Some(read) => self.last_output.map_or(read, |last| last.max(read)) + allowance,
                None => sent + limits.startup,
            };
            if now >= deadline {
                return Err(match reading {
                    Some(_) => self.hang(allowance, request.len()),
                    None => slow_start(limits),
                });
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

    /// Whether the program has read any of the `written` bytes of its request: fewer are left
    /// in the pipe. (Where the pipe cannot say, it is taken to have read them.)
    fn has_read(&self, written: usize) -> bool {
        written > 0
            && rustix::io::ioctl_fionread(self.stdin.as_fd())
                .map_or(true, |unread| unread < written as u64)
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
                Ok(n) => {
                    self.answers.push(&chunk[..n]);
                    self.last_output = Some(Instant::now());
                }
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

    fn hang(&self, allowance: Duration, request_bytes: usize) -> Trouble {
        let pending = self.answers.pending();
        let what = if pending.is_empty() {
            "no answer".to_string()
        } else {
            format!(
                "{} byte(s) of an answer without its newline, then nothing",
                pending.len()
            )
        };
        Trouble::fault(
            FaultKind::Hang,
            format!(
                "{what} within {} ms of reading the request (the allowance of a request of \
                 {request_bytes} bytes; raise --sut-timeout-ms if answers take longer)",
                allowance.as_millis()
            ),
        )
        .with("deadline_ms", json!(allowance.as_millis() as u64))
        .with("request_bytes", json!(request_bytes))
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

fn slow_start(limits: &Limits) -> Trouble {
    let startup = limits.startup.as_millis();
    Trouble::fault(
        FaultKind::SlowStart,
        format!(
            "a slow start: the program had not read its first request {startup} ms after it \
             started (not a fault of this input; raise --sut-startup-ms if it needs longer)"
        ),
    )
    .with("startup_ms", json!(startup as u64))
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

#[cfg(test)]
mod tests;
