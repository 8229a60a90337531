//! The supervisor against tiny `sh` programs, one per way of misbehaving, and the answer reader
//! against every way a pipe can split its bytes.

use super::*;
use crate::harness::profile::Profile;
use ctxfuzz_oracles::invariants::{Cause, Violation};
use std::time::Duration;

fn quick() -> Limits {
    Limits {
        answer: Duration::from_millis(300),
        per_mib: Duration::ZERO,
        startup: Duration::from_secs(5),
        kill_grace: Duration::from_millis(200),
        ..Limits::default()
    }
}

/// Asks `{"r": TEXT}` and accepts any object, given back as its JSON text.
fn ask(supervisor: &Supervisor, text: &str) -> Result<String, Failure> {
    supervisor.ask(&json!({ "r": text }), |object| {
        Ok(Value::Object(object).to_string())
    })
}

fn fault<T: std::fmt::Debug>(result: Result<T, Failure>) -> ProgramFault {
    match result {
        Err(Failure::Fault(fault)) => fault,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// A file the program writes pids to, and the pids it holds.
struct PidFile(tempfile::TempDir);

impl PidFile {
    fn new() -> PidFile {
        PidFile(tempfile::tempdir().unwrap())
    }

    fn path(&self) -> String {
        self.0.path().join("pids").display().to_string()
    }

    fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.path())
            .unwrap()
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect()
    }

    /// Every pid written is gone (not even a zombie: the supervisor reaps what it orphans).
    fn assert_all_gone(&self) {
        let pids = self.pids();
        assert!(!pids.is_empty());
        for pid in pids {
            assert!(
                !std::path::Path::new(&format!("/proc/{pid}")).exists(),
                "process {pid} is still there"
            );
        }
    }
}

#[test]
fn a_program_that_answers_is_kept_for_the_next_request() {
    let supervisor = Supervisor::new(
        r#"while read -r line; do echo "{\"pid\": $$}"; done"#,
        quick(),
    );
    let first = ask(&supervisor, "one").unwrap();
    assert!(first.starts_with(r#"{"pid":"#), "{first}");
    assert_eq!(ask(&supervisor, "two").unwrap(), first);
}

#[test]
fn an_answer_that_is_not_one_object_of_the_shape_retires_the_program() {
    // A warning line before each answer: the warning is the answer, and is malformed; the real
    // answer after it is never read as the answer to the next request (a fresh program answers).
    let warns = Supervisor::new(
        r#"while read -r line; do echo "warning from $$"; echo "{\"pid\": $$}"; done"#,
        quick(),
    );
    let first = fault(ask(&warns, "one"));
    assert_eq!(first.kind, FaultKind::Malformed, "{first:?}");
    assert!(first.summary.contains("not JSON"), "{}", first.summary);
    let second = fault(ask(&warns, "two"));
    assert_eq!(second.kind, FaultKind::Malformed, "{second:?}");
    assert_ne!(first.evidence["answer"], second.evidence["answer"]);
    // JSON that is not an object, and an object the caller's shape refuses: the same.
    let array = Supervisor::new("while read -r l; do echo '[1]'; done", quick());
    assert!(
        fault(ask(&array, "x"))
            .summary
            .contains("not a JSON object but an array")
    );
    let pids = PidFile::new();
    let command = format!(
        r#"echo $$ >> {}; while read -r l; do echo '{{"other": 1}}'; done"#,
        pids.path()
    );
    let other = Supervisor::new(&command, quick());
    let shape = |object: Map<String, Value>| {
        object.get("wanted").cloned().ok_or(Error::AnswerLacks {
            field: "wanted",
            array: false,
        })
    };
    for _ in 0..2 {
        let refused = fault(other.ask(&json!({}), shape));
        assert_eq!(refused.kind, FaultKind::Malformed, "{refused:?}");
        assert_eq!(refused.summary, "malformed answer: no `wanted`");
        assert_eq!(refused.evidence["answer"], r#"{"other": 1}"#);
    }
    assert_eq!(
        pids.pids().len(),
        2,
        "each refused answer retires its program"
    );
    pids.assert_all_gone();
}

#[test]
fn a_program_that_exits_at_once_is_a_crash_with_its_status_and_stderr() {
    let supervisor = Supervisor::new("echo last words >&2; exit 3", quick());
    let fault = fault(ask(&supervisor, "hello"));
    assert_eq!(fault.kind, FaultKind::Crash, "{fault:?}");
    assert_eq!(fault.evidence["status"], "exit status 3", "{fault:?}");
    assert_eq!(fault.evidence["stderr"], "last words\n", "{fault:?}");
    // The next request starts a fresh program, which fails the same way.
    assert_eq!(fault_kind(&supervisor, "again"), FaultKind::Crash);
}

fn fault_kind(supervisor: &Supervisor, request: &str) -> FaultKind {
    fault(ask(supervisor, request)).kind
}

#[test]
fn a_write_to_a_program_that_is_gone_is_a_crash_not_a_signal() {
    let supervisor = Supervisor::new("exec 0<&-; sleep 0.05; exit 4", quick());
    // More than a pipe holds, so the write meets the closed end.
    let fault = fault(ask(&supervisor, &"x".repeat(1 << 20)));
    assert_eq!(fault.kind, FaultKind::Crash, "{fault:?}");
    assert!(fault.summary.contains("exit status 4"), "{}", fault.summary);
}

#[test]
fn a_program_that_exits_after_answering_is_a_crash_at_the_next_request() {
    let supervisor = Supervisor::new("read -r line; echo '{}'; exit 5", quick());
    assert_eq!(ask(&supervisor, "one").unwrap(), "{}");
    std::thread::sleep(Duration::from_millis(50));
    let fault = fault(ask(&supervisor, "two"));
    assert_eq!(fault.kind, FaultKind::Crash);
    assert!(fault.summary.contains("exit status 5"), "{}", fault.summary);
}

#[test]
fn no_answer_within_the_deadline_is_a_hang_and_costs_no_more_than_the_deadline() {
    let supervisor = Supervisor::new("cat >/dev/null", quick());
    let started = Instant::now();
    let fault = fault(ask(&supervisor, "hello"));
    assert_eq!(fault.kind, FaultKind::Hang);
    assert_eq!(fault.evidence["deadline_ms"], 300);
    // The deadline, then SIGTERM (cat obeys at once).
    assert!(
        started.elapsed() < Duration::from_millis(300 + 400),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_slow_start_is_not_a_hang_and_a_fresh_program_that_read_its_request_can_hang() {
    let limits = Limits {
        startup: Duration::from_secs(3),
        ..quick()
    };
    // Starting takes longer than the answer allowance, not than the start-up allowance.
    let supervisor = Supervisor::new("sleep 0.6; read -r l; echo '{}'; cat >/dev/null", limits);
    assert_eq!(ask(&supervisor, "one").unwrap(), "{}");
    assert_eq!(fault_kind(&supervisor, "two"), FaultKind::Hang);
    // Never reading its first request within the start-up allowance is a slow start.
    let slow = Supervisor::new(
        "sleep 60; read -r l; echo '{}'",
        Limits {
            startup: Duration::from_millis(700),
            ..quick()
        },
    );
    let first = fault(ask(&slow, "one"));
    assert_eq!(first.kind, FaultKind::SlowStart, "{first:?}");
    assert_eq!(first.violation().invariant, SUT_SLOW_START);
    assert_eq!(first.evidence["startup_ms"], 700);
    assert!(
        first.summary.contains("--sut-startup-ms"),
        "{}",
        first.summary
    );
    // A fresh program that read its request and then says nothing hangs on that request.
    let reads_then_hangs = Supervisor::new("read -r l; sleep 60", limits);
    let hang = fault(ask(&reads_then_hangs, "one"));
    assert_eq!(hang.kind, FaultKind::Hang, "{hang:?}");
    assert!(
        hang.summary.contains("--sut-timeout-ms"),
        "{}",
        hang.summary
    );
}

#[test]
fn the_allowance_grows_with_the_request() {
    let limits = Limits::default();
    assert_eq!(limits.allowance(0), Duration::from_secs(2));
    assert_eq!(limits.allowance(1 << 20), Duration::from_secs(12));
    assert_eq!(limits.allowance(3 << 19), Duration::from_secs(17));
}

#[test]
fn a_request_gets_the_allowance_of_its_size() {
    // 1 MiB of request at 2 s per MiB: 2.3 s; the program takes 1 s, past the 300 ms base.
    let limits = Limits {
        per_mib: Duration::from_secs(2),
        ..quick()
    };
    let supervisor = Supervisor::new("head -c 1048500 >/dev/null; sleep 1; echo '{}'", limits);
    assert_eq!(ask(&supervisor, &"x".repeat(1 << 20)).unwrap(), "{}");
}

#[test]
fn an_answer_growing_past_the_limit_is_too_large_however_slowly_it_arrives() {
    // 60 bytes every 0.1 s: the limit of 1000 bytes is passed after 1.7 s, long past the 1 s
    // allowance, but the answer was never silent for that long.
    let limits = Limits {
        answer: Duration::from_secs(1),
        max_answer_bytes: 1000,
        ..quick()
    };
    let supervisor = Supervisor::new(
        "read -r l; for i in $(seq 30); do printf '%060d' 0; sleep 0.1; done; echo",
        limits,
    );
    let fault = fault(ask(&supervisor, "hello"));
    assert_eq!(fault.kind, FaultKind::Malformed, "{fault:?}");
    assert!(
        fault.evidence["answer_bytes"].as_u64().unwrap() > 1000,
        "{fault:?}"
    );
}

#[test]
fn half_a_line_then_silence_is_a_hang_that_shows_the_half_line() {
    let supervisor = Supervisor::new(r#"read -r l; printf '{"half'; sleep 60"#, quick());
    let fault = fault(ask(&supervisor, "hello"));
    assert_eq!(fault.kind, FaultKind::Hang);
    assert_eq!(fault.evidence["partial"], r#"{"half"#);
}

#[test]
fn a_program_that_closes_stdout_and_lives_on_is_closed_output() {
    let supervisor = Supervisor::new("exec 1>&-; cat >/dev/null", quick());
    assert_eq!(fault_kind(&supervisor, "hello"), FaultKind::ClosedOutput);
}

#[test]
fn a_program_that_ignores_sigterm_is_killed_and_nothing_is_left() {
    let pids = PidFile::new();
    let command = format!("trap '' TERM; echo $$ > {}; cat >/dev/null", pids.path());
    let supervisor = Supervisor::new(&command, quick());
    let started = Instant::now();
    assert_eq!(fault_kind(&supervisor, "hello"), FaultKind::Hang);
    // The deadline, then the whole kill grace before SIGKILL.
    assert!(started.elapsed() >= Duration::from_millis(500));
    pids.assert_all_gone();
}

#[test]
fn a_grandchild_holding_the_pipes_does_not_hide_the_exit_and_is_killed() {
    let pids = PidFile::new();
    let command = format!("sleep 60 & echo $! > {}; exit 3", pids.path());
    let supervisor = Supervisor::new(&command, quick());
    let fault = fault(ask(&supervisor, "hello"));
    assert_eq!(fault.kind, FaultKind::Crash, "{fault:?}");
    assert_eq!(fault.evidence["status"], "exit status 3");
    pids.assert_all_gone();
}

#[test]
fn an_answer_over_the_limit_is_malformed_with_its_size() {
    let limits = Limits {
        max_answer_bytes: 1000,
        ..quick()
    };
    let supervisor = Supervisor::new(
        "read -r l; head -c 5000 /dev/zero | tr '\\0' x; echo",
        limits,
    );
    let fault = fault(ask(&supervisor, "hello"));
    assert_eq!(fault.kind, FaultKind::Malformed);
    assert_eq!(fault.evidence["limit_bytes"], 1000);
    assert!(
        fault.evidence["answer_bytes"].as_u64().unwrap() > 1000,
        "{fault:?}"
    );
    // `{"x":"` and `"}` around 992 bytes: a line of exactly the limit.
    let exact = Supervisor::new(
        r#"read -r l; printf '{"x":"'; head -c 992 /dev/zero | tr '\0' x; printf '"}\n'"#,
        limits,
    );
    assert_eq!(ask(&exact, "hello").unwrap().len(), 1000);
}

#[test]
fn an_answer_that_is_not_utf8_is_malformed() {
    let supervisor = Supervisor::new(r"read -r l; printf 'ok\377\n'", quick());
    let fault = fault(ask(&supervisor, "hello"));
    assert_eq!(fault.kind, FaultKind::Malformed);
    assert_eq!(fault.evidence["valid_up_to"], 2);
}

#[test]
fn two_answers_to_one_request_are_extra_output() {
    // Both lines in one write: seen with the answer.
    let supervisor = Supervisor::new(r"read -r l; printf '{}\n{}\n'; cat >/dev/null", quick());
    let with_the_answer = fault(ask(&supervisor, "one"));
    assert_eq!(with_the_answer.kind, FaultKind::ExtraOutput);
    assert_eq!(with_the_answer.evidence["extra"], "{}\n");
    // The second line after the answer was read: seen when the next request is sent.
    let supervisor = Supervisor::new(
        r"while read -r l; do echo '{}'; sleep 0.1; echo '{}'; done",
        quick(),
    );
    assert_eq!(ask(&supervisor, "one").unwrap(), "{}");
    std::thread::sleep(Duration::from_millis(300));
    let fault = fault(ask(&supervisor, "two"));
    assert_eq!(fault.kind, FaultKind::ExtraOutput);
    assert_eq!(fault.evidence["extra"], "{}\n");
}

#[test]
fn stderr_keeps_a_bounded_tail() {
    let limits = Limits {
        stderr_tail_bytes: 100,
        ..quick()
    };
    let supervisor = Supervisor::new(
        "head -c 10000 /dev/zero | tr '\\0' e >&2; echo end >&2; exit 1",
        limits,
    );
    let fault = fault(ask(&supervisor, "hello"));
    let stderr = fault.evidence["stderr"].as_str().unwrap();
    assert_eq!(stderr.len(), 100);
    assert!(stderr.ends_with("eeeend\n"), "{stderr}");
}

#[test]
fn a_cut_off_stops_the_wait_without_a_fault_and_kills_the_program() {
    let pids = PidFile::new();
    let command = format!("echo $$ > {}; cat >/dev/null", pids.path());
    let supervisor = Supervisor::new(&command, Limits::default());
    let started = Instant::now();
    let result = stop::within(started + Duration::from_millis(200), || {
        ask(&supervisor, "hello")
    });
    assert!(matches!(result, Err(Failure::Stopped(_))), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
    pids.assert_all_gone();
    // Once the cut-off has passed, no program is started at all.
    let result = stop::within(started, || ask(&supervisor, "again"));
    assert!(matches!(result, Err(Failure::Stopped(_))), "{result:?}");
}

#[test]
fn dropping_the_supervisor_retires_its_idle_programs() {
    let pids = PidFile::new();
    let command = format!(
        "trap '' TERM; echo $$ > {}; while read -r l; do echo '{{}}'; done",
        pids.path()
    );
    let supervisor = Supervisor::new(&command, quick());
    assert_eq!(ask(&supervisor, "hello").unwrap(), "{}");
    drop(supervisor);
    pids.assert_all_gone();
}

#[test]
fn a_fault_becomes_a_violation_named_by_its_id() {
    let supervisor = Supervisor::new("exit 1", quick());
    let violation = fault(ask(&supervisor, "x")).violation();
    assert_eq!(violation.invariant, SUT_CRASH);
    assert_eq!(violation.cause, Cause::SystemUnderTest);
}

#[test]
fn limits_come_from_the_profile_and_go_back_into_it() {
    let profile = Profile::from_value(&json!({"sut_timeout_ms": 900, "sut_startup_ms": 50}));
    let limits = Limits::from_profile(&profile.expect("a profile"));
    assert_eq!(limits.answer, Duration::from_millis(900));
    assert_eq!(limits.startup, Duration::from_millis(50));
    let mut profile = Profile::default();
    limits.record_in(&mut profile);
    assert_eq!(Limits::from_profile(&profile), limits);
    assert_eq!(Limits::from_profile(&Profile::default()), Limits::default());
}

#[test]
fn the_reader_assembles_lines_however_the_pipe_splits_them() {
    let printed = b"{\"a\":1}\nsecond line\nhalf";
    for split in 1..printed.len() {
        let mut reader = AnswerReader::new(64);
        let mut lines = Vec::new();
        for chunk in printed.chunks(split) {
            reader.push(chunk);
            while let Some(line) = reader.next_answer() {
                lines.push(line.unwrap());
            }
        }
        assert_eq!(lines, ["{\"a\":1}", "second line"], "split {split}");
        assert_eq!(reader.pending(), b"half");
    }
}

#[test]
fn the_reader_refuses_a_line_one_byte_over_the_limit() {
    let mut reader = AnswerReader::new(4);
    reader.push(b"1234\n12345\n");
    assert_eq!(reader.next_answer(), Some(Ok("1234".into())));
    assert_eq!(
        reader.next_answer(),
        Some(Err(Malformed::TooLarge { bytes: 5 }))
    );
    let mut reader = AnswerReader::new(4);
    reader.push(b"1234");
    assert_eq!(reader.next_answer(), None);
    assert!(!reader.is_over_limit());
    reader.push(b"5");
    assert!(reader.is_over_limit());
    assert_eq!(
        reader.next_answer(),
        Some(Err(Malformed::TooLarge { bytes: 5 }))
    );
}

#[test]
fn the_reader_refuses_bytes_that_are_not_utf8() {
    let mut reader = AnswerReader::new(64);
    reader.push(b"ab\xffc\nok\n");
    assert_eq!(
        reader.next_answer(),
        Some(Err(Malformed::NotUtf8 { valid_up_to: 2 }))
    );
    assert_eq!(reader.next_answer(), Some(Ok("ok".into())));
}

#[test]
fn every_fault_is_known_by_its_invariant_and_nothing_else_is_a_fault() {
    for kind in FaultKind::ALL {
        let fault = ProgramFault {
            kind,
            summary: String::new(),
            evidence: Value::Null,
        };
        assert_eq!(FaultKind::of(&fault.violation()), Some(kind));
    }
    let judged = Violation::charged(
        ctxfuzz_oracles::contracts::prune::ONLY_REMOVES,
        String::new(),
        (),
    );
    assert_eq!(FaultKind::of(&judged), None, "a judged answer is no fault");
}
