//! `ctxfuzz check` and `render` on transcripts whose texts and ids hold lone surrogate escapes
//! (`"\ud83d"`, what `JSON.stringify` writes for a string cut inside an emoji): read as
//! `JSON.parse` reads them and judged as the real pi would send them (the recorded real pi
//! requests are pinned in `oracles/tests/lone_surrogate_findings.rs`), not refused as bad input.
//! A byte-order mark, which `JSON.parse` rejects too, is named.

use std::process::Output;

use ctxfuzz_oracles::{js_string, json_text};
use serde_json::Value;

use crate::common::{ctxfuzz, stderr, write};

/// A call from the target model whose id holds a lone half: pi sends it unchanged, and the API's
/// id pattern refuses it.
const UNCHANGED_ID: [&str; 4] = [
    r#"{"role":"user","content":"cut \ud83d here","timestamp":1}"#,
    r#"{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":2,"content":[{"type":"text","text":"\ude00 ok"},{"type":"toolCall","id":"call\ud83d","name":"bash","arguments":{"cmd":"\udfff"}}]}"#,
    r#"{"role":"toolResult","toolCallId":"call\ud83d","toolName":"bash","isError":false,"content":[{"type":"text","text":"out \udbff"}],"timestamp":3}"#,
    r#"{"role":"user","content":"\ud800","timestamp":4}"#,
];

/// The same from another provider: pi normalises the id (the lone half becomes `_`).
const NORMALISED_ID: [&str; 3] = [
    r#"{"role":"user","content":"go \udc00","timestamp":1}"#,
    r#"{"role":"assistant","api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"toolUse","timestamp":2,"content":[{"type":"toolCall","id":"call\ud83d","name":"bash","arguments":{}}]}"#,
    r#"{"role":"toolResult","toolCallId":"call\ud83d","toolName":"bash","isError":false,"content":[{"type":"text","text":"\ud83d"}],"timestamp":3}"#,
];

fn array(messages: &[&str]) -> String {
    format!("[\n{}\n]\n", messages.join(",\n"))
}

/// A pi session file (version 3) holding `messages` in a chain whose entry ids hold lone halves.
fn session(messages: &[&str]) -> String {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"s\ud83d","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
    );
    text.push('\n');
    for (i, message) in messages.iter().enumerate() {
        let parent = match i {
            0 => "null".to_string(),
            _ => format!(r#""e{}\udc00""#, i - 1),
        };
        text += &format!(
            r#"{{"type":"message","id":"e{i}\udc00","parentId":{parent},"timestamp":"2026-01-01T00:00:0{}Z","message":{message}}}"#,
            i + 1
        );
        text.push('\n');
    }
    text
}

/// The rule and call id of each violation in a `check --json` report. The report names the call
/// id as pi sends it, so it holds a lone surrogate escape too: it is read as `JSON.parse` would.
fn violations(output: &Output) -> Vec<(String, Value)> {
    let report =
        json_text::parse(std::str::from_utf8(&output.stdout).unwrap()).expect("a JSON report");
    report["files"][0]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["rule"].as_str().unwrap().to_string(),
                v["tool_use_id"].clone(),
            )
        })
        .collect()
}

fn refused_call() -> Vec<(String, Value)> {
    let id = format!("call{}", js_string::lone(0xD83D));
    vec![("invalid-tool-use-id".to_string(), Value::String(id))]
}

#[test]
fn check_judges_an_array_with_lone_surrogates_as_pi_sends_it() {
    let dir = tempfile::tempdir().unwrap();
    let unchanged = write(dir.path(), "unchanged.json", array(&UNCHANGED_ID));
    let output = ctxfuzz(&["check", "--json", unchanged.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(violations(&output), refused_call());
    let normalised = write(dir.path(), "normalised.json", array(&NORMALISED_ID));
    let output = ctxfuzz(&["check", normalised.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn check_judges_a_session_file_with_lone_surrogates_as_pi_loads_it() {
    let dir = tempfile::tempdir().unwrap();
    let unchanged = write(dir.path(), "unchanged.jsonl", session(&UNCHANGED_ID));
    let output = ctxfuzz(&["check", "--json", unchanged.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).is_empty(),
        "no line skipped: {}",
        stderr(&output)
    );
    assert_eq!(violations(&output), refused_call());
    let normalised = write(dir.path(), "normalised.jsonl", session(&NORMALISED_ID));
    let output = ctxfuzz(&["check", normalised.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn render_writes_lone_surrogates_back_as_json_stringify_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "unchanged.json", array(&UNCHANGED_ID));
    let output = ctxfuzz(&["render", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let body = String::from_utf8(output.stdout).unwrap();
    assert!(body.contains(r#""id": "call\ud83d""#), "{body}");
    assert!(body.contains(r#""cmd": "\udfff""#), "{body}");
    assert!(
        body.contains(r#""content": "cut  here""#),
        "sanitised: {body}"
    );
}

#[test]
fn a_real_character_at_the_end_of_unicode_is_not_taken_for_a_surrogate() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "[{\"role\":\"user\",\"content\":\"\u{10FFFF}\u{10F7FF}\\udbff\\udfff\",\"timestamp\":1}]";
    let path = write(dir.path(), "private.json", text);
    let output = ctxfuzz(&["render", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let body = String::from_utf8(output.stdout).unwrap();
    assert!(
        body.contains("\"content\": \"\u{10FFFF}\u{10F7FF}\u{10FFFF}\""),
        "kept, not sanitised away: {body}"
    );
}

#[test]
fn a_byte_order_mark_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let json = write(
        dir.path(),
        "bom.json",
        format!("\u{feff}{}", array(&NORMALISED_ID)),
    );
    let output = ctxfuzz(&["check", json.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "bom.json:1:1: invalid JSON: the file starts with a UTF-8 byte-order mark (U+FEFF)"
        ),
        "{}",
        stderr(&output)
    );
    let jsonl = write(
        dir.path(),
        "bom.jsonl",
        format!("\u{feff}{}", session(&NORMALISED_ID)),
    );
    let output = ctxfuzz(&["check", jsonl.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("bom.jsonl:1:1: malformed line skipped (pi skips it too): the line starts with a UTF-8 byte-order mark"),
        "{message}"
    );
    assert!(
        message.contains("bom.jsonl:1:1: not a pi session file: the first line starts with a UTF-8 byte-order mark"),
        "{message}"
    );
}

#[test]
fn other_bad_escapes_keep_their_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bad.json", "[\"\\ud83d\",\n \"\\uZZZZ\"]");
    let output = ctxfuzz(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("bad.json:2:"), "{message}");
    assert!(message.contains("invalid escape"), "{message}");
    assert_eq!(message.trim().lines().count(), 1, "{message}");
}
