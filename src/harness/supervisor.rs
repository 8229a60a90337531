//! A supervisor for external programs: one JSON object per line each way, and every way a program
//! can misbehave a typed [`ProgramFault`] with a stable id, never a hang, a signal that kills ctxfuzz, or
//! a process left behind.
//!
//! [`Supervisor::ask`] sends one request object (on one line) and reads the next line the program
//! prints. The supervisor owns the line protocol: an answer is one JSON object, and the caller's
//! `shape` (what its protocol needs in that object: the sweep protocol lives in
//! [`super::external`], the contracts' in [`super::targets::contract`]) accepts it or says what is
//! wrong. Anything else (a line that is not JSON, not an object, or not of the shape) is
//! `sut-malformed-output`, a fault like any other: the program is retired, so its next line can
//! never be read as the answer to a later request. A caller turns a [`ProgramFault`] into a finding with
//! [`ProgramFault::violation`].
//!
//! The parts, one concept each: [`fault`] (the kinds of misbehaviour and their ids), [`limits`]
//! (what a program may take and print), [`answer`] (reading answer lines and the object each must
//! hold), [`program`] (one running program: its start, one exchange, retiring it); this file is
//! the pool and the protocol.
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

use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::stop;
use crate::error::Error;

mod answer;
mod fault;
mod limits;
mod program;

pub use answer::{AnswerReader, Malformed, read_object};
pub use fault::{
    Failure, FaultKind, ProgramFault, SUT_CLOSED_OUTPUT, SUT_CRASH, SUT_EXTRA_OUTPUT, SUT_HANG,
    SUT_MALFORMED, SUT_SLOW_START,
};
pub use limits::Limits;
pub use program::kill_every_group;
use program::{Program, SHOWN_BYTES, Trouble, retire};

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
                Failure::Fault(ProgramFault {
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

#[cfg(test)]
mod tests;
