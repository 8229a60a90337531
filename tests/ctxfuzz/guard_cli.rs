//! `ctxfuzz guard`: prints a schedule's trace, judges it, and refuses bad input with exit 2.

use std::path::Path;

use crate::common::{ctxfuzz, stderr, stdout, write};

#[test]
fn prints_the_fix_trace_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = write(dir.path(), "s.json", r#"{"unhealthy": true}"#)
        .display()
        .to_string();
    let output = ctxfuzz(&["guard", "--schedule", &schedule]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("order: LLM_REQUEST GUARD AGENT_END LLM_REQUEST AGENT_END SETTLED\n"),
        "{text}"
    );
    assert!(text.contains("    LLM #2 ← guard\n"), "{text}");
}

#[test]
fn the_original_wiring_exits_1_and_names_the_broken_invariants() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = write(dir.path(), "s.json", r#"{"unhealthy": true}"#)
        .display()
        .to_string();
    let output = ctxfuzz(&["guard", "--variant", "settled", "--schedule", &schedule]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("one-idle-signal-per-prompt: "),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).contains("run 2 ← guard"));
}

#[test]
fn reads_the_input_of_a_case_file() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/guard/seed004-print-mode.json");
    let output = ctxfuzz(&[
        "guard",
        "--variant",
        "settled",
        "--schedule",
        case.to_str().unwrap(),
    ]);
    assert!(stdout(&output).starts_with("order: LLM_REQUEST AGENT_END GUARD SETTLED SETTLED\n"));
}

#[test]
fn json_prints_what_the_oracle_judges() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = write(dir.path(), "s.json", "{}").display().to_string();
    let output = ctxfuzz(&["guard", "--json", "--schedule", &schedule]);
    let trace: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        trace[0],
        serde_json::json!({"event": "supervision", "healthy": true})
    );
}

#[test]
fn against_prints_a_diff_of_two_variants() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = write(dir.path(), "s.json", r#"{"unhealthy": true}"#)
        .display()
        .to_string();
    let output = ctxfuzz(&[
        "guard",
        "--variant",
        "settled",
        "--against",
        "end-release",
        "--schedule",
        &schedule,
    ]);
    let text = stdout(&output);
    assert!(text.contains("--- settled\n+++ end-release\n"), "{text}");
    assert!(
        text.contains("order settled: LLM_REQUEST AGENT_END GUARD SETTLED LLM_REQUEST"),
        "{text}"
    );
    assert!(text.contains("\n-run 2 ← guard\n"), "{text}");
}

#[test]
fn bad_input_is_one_line_with_file_line_and_column_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("syntax.json", "{\n  \"prompts\": 1,,\n}", ":2:"),
        ("field.json", "{\n  \"promts\": 1\n}", ":2:"),
        (
            "kind.json",
            "{\"responses\": [{\"kind\": \"teapot\"}]}",
            ":1:",
        ),
    ];
    for (name, text, position) in cases {
        let path = write(dir.path(), name, text).display().to_string();
        let output = ctxfuzz(&["guard", "--schedule", &path]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        let error = stderr(&output);
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.contains(&format!("{name}{position}")), "{error}");
        assert!(
            !error.contains(" at line "),
            "the position said twice: {error}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            text
        );
    }
    let missing = ctxfuzz(&["guard", "--schedule", "/nonexistent/schedule.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("/nonexistent/schedule.json"));
    let variant = ctxfuzz(&["guard", "--variant", "agent_end", "--schedule", "x.json"]);
    assert_eq!(variant.status.code(), Some(2));
    assert!(stderr(&variant).contains("unknown guard variant"));
}
