//! External programs under test (`--sut CMD`): long-lived children answering one JSON line with
//! one JSON line (docs/contracts.md). The sweep protocol: `{"messages": [...]}` in,
//! `{"messages": [...], "swept": [...]}` out (exactly what `ctxfuzz sweep --json` prints); the
//! repair and cut contracts send their own requests through [`External::request`].
//!
//! A crash, a hang (no answer within the per-case timeout) or a malformed answer is a violation
//! charged to the program (`sut-crash`, `sut-hang`, `sut-malformed-output`), never a harness
//! failure; the child is discarded and the next case starts a fresh one. One child per worker
//! thread at a time: idle children wait in a pool.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use ctxfuzz_oracles::invariants::{Cause, Violation};
use serde_json::{Value, json};

use crate::sweep::{BarrierRule, sweep};

pub const SUT_CRASH: &str = "sut-crash";
pub const SUT_HANG: &str = "sut-hang";
pub const SUT_MALFORMED: &str = "sut-malformed-output";
pub const SUT_MATCHES_RUST: &str = "sut-matches-rust";
/// The program answered `{"error": "..."}`: it refused or threw (its own class, not charged).
pub const SUT_THREW: &str = "sut-threw";

/// How long a child may take to answer one case when the profile does not say.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// Extra time a freshly started child has for its first answer when the profile does not say
/// (an interpreter's start-up is not a hang).
pub const DEFAULT_STARTUP_GRACE: Duration = Duration::from_secs(10);

/// How much of a child's stderr is kept as evidence.
const STDERR_TAIL: usize = 2048;

pub struct External {
    command: String,
    timeout: Duration,
    startup_grace: Duration,
    idle: Mutex<Vec<Running>>,
}

struct Running {
    /// Whether the child has answered before (its first answer gets the start-up grace).
    answered: bool,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<String>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl External {
    /// The program `command` (run by `sh -c`), with the timeout of `profile.sut_timeout_ms` and
    /// the start-up grace of `profile.sut_startup_ms`.
    pub fn from_profile(command: &str, profile: &Value) -> Result<External> {
        let millis = |key: &str, default: Duration| {
            profile
                .get(key)
                .and_then(Value::as_u64)
                .map_or(default, Duration::from_millis)
        };
        Ok(External {
            command: command.to_string(),
            timeout: millis("sut_timeout_ms", DEFAULT_TIMEOUT),
            startup_grace: millis("sut_startup_ms", DEFAULT_STARTUP_GRACE),
            idle: Mutex::new(Vec::new()),
        })
    }

    /// Adds what rebuilds this program to a case file's profile.
    pub fn record_in(&self, profile: &mut Value) {
        if let Value::Object(map) = profile {
            map.insert("sut".into(), json!(self.command));
            map.insert(
                "sut_timeout_ms".into(),
                json!(self.timeout.as_millis() as u64),
            );
            map.insert(
                "sut_startup_ms".into(),
                json!(self.startup_grace.as_millis() as u64),
            );
        }
    }

    /// One sweep by the program: its kept messages and swept ids, or the violation it committed.
    pub fn sweep(&self, messages: &[Value]) -> Result<(Vec<Value>, Vec<String>), Violation> {
        parse_answer(&self.line(&json!({ "messages": messages }))?)
    }

    /// One request, one JSON object back: `sut-threw` for an `{"error": ...}` answer,
    /// `sut-malformed-output` for a line that is not a JSON object.
    pub fn request(&self, request: &Value) -> Result<Value, Violation> {
        let line = self.line(request)?;
        let shown = || line.chars().take(200).collect::<String>();
        match serde_json::from_str::<Value>(&line) {
            Ok(answer @ Value::Object(_)) => match answer.get("error") {
                Some(error) => Err(violation(
                    SUT_THREW,
                    format!(
                        "the program refused: {}",
                        error
                            .as_str()
                            .map_or_else(|| error.to_string(), String::from)
                    ),
                    json!({"error": error}),
                )),
                None => Ok(answer),
            },
            Ok(_) => Err(violation(
                SUT_MALFORMED,
                "malformed answer: not a JSON object".into(),
                json!({"answer": shown()}),
            )),
            Err(e) => Err(violation(
                SUT_MALFORMED,
                format!("malformed answer: not JSON ({e})"),
                json!({"answer": shown()}),
            )),
        }
    }

    /// Sends `request` to an idle child (or a fresh one) and returns its answer line.
    fn line(&self, request: &Value) -> Result<String, Violation> {
        let pooled = self.idle.lock().expect("pool lock").pop();
        let mut running = match pooled {
            Some(running) => running,
            None => self.spawn()?,
        };
        let answer = self.ask(&mut running, request)?;
        self.idle.lock().expect("pool lock").push(running);
        Ok(answer)
    }

    /// `sut-matches-rust`: the program's answer equals the Rust sweep's under `rule`.
    pub fn matches_rust(
        &self,
        input: &[Value],
        output: &[Value],
        swept: &[String],
        rule: BarrierRule,
    ) -> Option<Violation> {
        let rust = sweep(input, rule);
        if rust.messages.as_ref() == output && rust.swept == swept {
            return None;
        }
        Some(violation(
            SUT_MATCHES_RUST,
            format!(
                "the program swept {swept:?} but the Rust `{rule}` sweep sweeps {:?}",
                rust.swept
            ),
            json!({"rule": rule.name(), "program_swept": swept, "rust_swept": rust.swept,
                   "program_kept": output.len(), "rust_kept": rust.messages.len()}),
        ))
    }

    fn spawn(&self) -> Result<Running, Violation> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                violation(
                    SUT_CRASH,
                    format!("cannot start `{}`: {e}", self.command),
                    json!({"command": self.command}),
                )
            })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let failed = line.is_err();
                if send.send(line).is_err() || failed {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let tail = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 512];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut chunk) {
                let mut tail = tail.lock().expect("stderr lock");
                tail.push_str(&String::from_utf8_lossy(&chunk[..n]));
                if tail.len() > STDERR_TAIL {
                    let cut = tail.len() - STDERR_TAIL;
                    let cut = (cut..tail.len())
                        .find(|&i| tail.is_char_boundary(i))
                        .unwrap_or(0);
                    tail.drain(..cut);
                }
            }
        });
        Ok(Running {
            answered: false,
            child,
            stdin,
            lines,
            stderr,
        })
    }

    /// Sends one request and waits for one line. On failure the child is dropped (killed).
    fn ask(&self, running: &mut Running, request: &Value) -> Result<String, Violation> {
        let mut request = serde_json::to_vec(request).expect("JSON");
        request.push(b'\n');
        let sent = running
            .stdin
            .write_all(&request)
            .and_then(|()| running.stdin.flush());
        let timeout = if running.answered {
            self.timeout
        } else {
            self.timeout + self.startup_grace
        };
        let received = match sent {
            Ok(()) => running.lines.recv_timeout(timeout),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        match received {
            Ok(Ok(line)) => {
                running.answered = true;
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(violation(
                SUT_HANG,
                format!("no answer within {} ms", self.timeout.as_millis()),
                json!({"command": self.command, "timeout_ms": self.timeout.as_millis() as u64}),
            )),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                // Give the exit status and the last words on stderr a moment to arrive.
                let status = wait_briefly(&mut running.child);
                std::thread::sleep(Duration::from_millis(20));
                let stderr = running.stderr.lock().expect("stderr lock").clone();
                Err(violation(
                    SUT_CRASH,
                    format!("the program exited ({status}) instead of answering"),
                    json!({"command": self.command, "status": status, "stderr": stderr}),
                ))
            }
        }
    }
}

fn wait_briefly(child: &mut Child) -> String {
    for _ in 0..50 {
        if let Ok(Some(status)) = child.try_wait() {
            return status.to_string();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    "still running, stdout closed".to_string()
}

/// `{"messages": [...], "swept": [strings]}`, or a `sut-malformed-output` violation.
fn parse_answer(line: &str) -> Result<(Vec<Value>, Vec<String>), Violation> {
    let malformed = |why: &str| {
        let shown: String = line.chars().take(200).collect();
        violation(
            SUT_MALFORMED,
            format!("malformed answer: {why}"),
            json!({"answer": shown}),
        )
    };
    let mut answer: Value =
        serde_json::from_str(line).map_err(|e| malformed(&format!("not JSON ({e})")))?;
    let Some(Value::Array(messages)) = answer.get_mut("messages").map(Value::take) else {
        return Err(malformed("no `messages` array"));
    };
    let swept = match answer.get("swept") {
        Some(Value::Array(ids)) => ids
            .iter()
            .map(|id| id.as_str().map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| malformed("`swept` holds a non-string"))?,
        _ => return Err(malformed("no `swept` array")),
    };
    Ok((messages, swept))
}

fn violation(invariant: &'static str, summary: String, evidence: Value) -> Violation {
    Violation {
        invariant,
        cause: Cause::SystemUnderTest,
        summary,
        evidence,
    }
}
