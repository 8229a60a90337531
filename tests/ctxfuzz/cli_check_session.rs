//! `ctxfuzz check` on pi session files: judged by the messages pi would start from, malformed
//! lines reported with their position, non-sessions refused.

use crate::common::ctxfuzz;

use serde_json::Value;

const VECTORS: &str = include_str!("../../oracles/tests/data/vectors.expected.jsonl");

/// The session input of reference vector `name` (1.6.0) as the text of a session file.
fn vector_session(name: &str) -> String {
    let vector: Value = VECTORS
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["variant"] == "current" && v["name"].as_str().unwrap().starts_with(name))
        .unwrap();
    match vector["input"].get("jsonl") {
        Some(text) => text.as_str().unwrap().to_string(),
        None => vector["input"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.to_string() + "\n")
            .collect(),
    }
}

fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_mid_cycle_compaction_session_is_flagged_as_known_failure_3() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "v28.jsonl", &vector_session("V28"));
    let out = ctxfuzz(&["check", &path, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let violations = report["files"][0]["violations"].as_array().unwrap();
    assert!(
        violations
            .iter()
            .any(|v| v["rule"] == "orphan-result" && v["known_failure"]["number"] == 3),
        "{report}"
    );
}

#[test]
fn malformed_lines_are_reported_with_their_position_and_the_rest_is_judged() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "v27.jsonl", &vector_session("V27"));
    let out = ctxfuzz(&["check", &path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{path}:13:")) && stderr.contains("malformed line"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_session_header_on_the_first_line_makes_any_file_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "v28.json", &vector_session("V28"));
    assert_eq!(ctxfuzz(&["check", &path]).status.code(), Some(1));
}

#[test]
fn a_jsonl_file_without_a_header_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "x.jsonl", "{\"type\":\"message\",\"id\":\"a\"}\n");
    let out = ctxfuzz(&["check", &path]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{path}:1:1: not a pi session file")),
        "{stderr}"
    );
}

#[test]
fn a_session_pi_cannot_load_is_bad_input_naming_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n";
    let path = file(&dir, "x.jsonl", text);
    let out = ctxfuzz(&["check", &path]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("Cannot read properties of undefined (reading 'role')"),
        "{stderr}"
    );
}
