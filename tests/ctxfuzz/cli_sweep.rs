//! `ctxfuzz sweep` as a user runs it.

use ctxfuzz::generators::pi;
use ctxfuzz::sweep::{BarrierRule, streamed};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text;
use serde_json::{Value, json};

use crate::common::{ctxfuzz, stderr, write};

fn brick() -> Value {
    json!([
        {"role": "assistant", "content": [{"type": "toolCall", "id": "X", "name": "bash", "arguments": {}}],
         "stopReason": "toolUse"},
        {"role": "custom", "customType": "notice", "content": "steer", "display": true},
        {"role": "toolResult", "toolCallId": "X", "toolName": "bash", "content": [], "isError": false}
    ])
}

#[test]
fn json_output_is_exactly_the_protocol_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "t.json", brick().to_string())
        .display()
        .to_string();
    let out = ctxfuzz(&["sweep", &file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let expected = json!({"messages": brick().as_array().unwrap()[..2], "swept": ["X"]});
    assert_eq!(
        stdout,
        format!("{}\n", serde_json::to_string(&expected).unwrap())
    );
}

#[test]
fn default_output_is_the_kept_messages_and_a_report_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "t.json", brick().to_string())
        .display()
        .to_string();
    let out = ctxfuzz(&["sweep", &file]);
    assert_eq!(out.status.code(), Some(0));
    let kept: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(kept, json!(brick().as_array().unwrap()[..2]));
    let report = stderr(&out);
    assert!(
        report.contains("rule strict: swept 1 orphan tool result(s): \"X\""),
        "{report}"
    );
}

#[test]
fn the_rule_is_chosen_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "t.json", brick().to_string())
        .display()
        .to_string();
    let out = ctxfuzz(&["sweep", &file, "--rule", "none", "--json"]);
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line, json!({"messages": brick(), "swept": []}));
    let out = ctxfuzz(&["sweep", &file, "--rule", "pi-condense"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("all-other-roles"), "{}", stderr(&out));
}

#[test]
fn a_protocol_request_is_accepted_as_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "req.json",
        json!({"messages": brick()}).to_string(),
    )
    .display()
    .to_string();
    let out = ctxfuzz(&["sweep", &file, "--rule", "all-other-roles", "--json"]);
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["swept"], json!(["X"]));
}

#[test]
fn output_file_is_written_and_the_input_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let text = serde_json::to_string_pretty(&brick()).unwrap();
    let file = write(dir.path(), "t.json", &text).display().to_string();
    let target = dir.path().join("out").join("swept.json");
    let out = ctxfuzz(&["sweep", &file, "--json", "-o", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(written["swept"], json!(["X"]));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // The output file has the mode a new file gets here (the umask's), not a temporary file's.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &std::path::Path| path.metadata().unwrap().permissions().mode();
        let plain = write(dir.path(), "plain.json", "[]");
        assert_eq!(mode(&target), mode(&plain));
    }
}

#[test]
fn bad_input_is_one_line_naming_the_file_and_position_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "broken.json",
            "[\n  {\"role\": \"user\",\n  oops\n]",
            ":3:3: invalid JSON",
        ),
        (
            "object.json",
            "{\"role\": \"user\"}",
            ":1:1: expected a JSON array of messages or",
        ),
        (
            "number.json",
            "12",
            ":1:1: expected a JSON array of messages, found a number",
        ),
        (
            "field.json",
            "{\"messages\": 3}",
            ":1:1: `messages` is not a JSON array",
        ),
        // Another program's transcript: pi passes over its results, so "nothing swept" would
        // be a clean bill for a file never judged.
        (
            "openai.json",
            "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"tool\", \"tool_call_id\": \"b\", \"content\": \"x\"},\n  {\"role\": \"tool\", \"tool_call_id\": \"c\", \"content\": \"y\"}\n]",
            ":3:3: message 1 is written in the openai format (a `tool` message or `tool_calls`), not as a pi message",
        ),
        (
            "anthropic.json",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"b\"}]}]}",
            ":1:1: message 0 is written in the anthropic format",
        ),
    ];
    for (name, text, expected) in cases {
        let file = write(dir.path(), name, text).display().to_string();
        let out = ctxfuzz(&["sweep", &file]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let message = stderr(&out);
        assert_eq!(message.lines().count(), 1, "{message}");
        assert!(
            message.contains(&format!("{file}{expected}")),
            "{name}: {message}"
        );
        assert!(out.stdout.is_empty());
    }
    let missing = dir.path().join("missing.json");
    let out = ctxfuzz(&["sweep", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.json: cannot read"));
}

/// What `ctxfuzz sweep FILE --json` prints for a file holding `text`.
fn swept_json(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "t.json", text).display().to_string();
    let out = ctxfuzz(&["sweep", &file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// The kept messages come back as the file has them, each message's fields in the file's order
/// (read into `serde_json::Value`, they came back sorted by name), less the swept results.
#[test]
fn kept_messages_keep_the_files_field_order() {
    let text = r#"[{"role":"user","content":"go","timestamp":1},
                   {"role":"toolResult","toolCallId":"X","content":[]}]"#;
    assert_eq!(
        swept_json(text),
        "{\"messages\":[{\"role\":\"user\",\"content\":\"go\",\"timestamp\":1}],\"swept\":[\"X\"]}\n"
    );
}

/// A string cut inside an emoji (`JSON.stringify` writes its lone surrogate as an escape) goes
/// through the sweep and comes back as the same escape, its fields in the file's order.
#[test]
fn a_lone_surrogate_escape_comes_back_as_itself() {
    assert_eq!(
        swept_json(r#"[{"role":"user","content":"cut \ud83d"}]"#),
        "{\"messages\":[{\"role\":\"user\",\"content\":\"cut \\ud83d\"}],\"swept\":[]}\n"
    );
}

/// An array is read one message at a time and a protocol request whole: both print the same
/// bytes, on stdout and stderr, for the same messages (generated, in the generator's field order,
/// and with a lone surrogate escape and a reserved character, which are read through a rewrite).
#[test]
fn an_array_read_message_by_message_prints_what_a_whole_request_prints() {
    let mut arrays: Vec<String> = (0..12)
        .map(|seed| json_text::to_string(&pi::from_seed::<JsValue>(seed)).unwrap())
        .collect();
    // Laid out on many lines, as an editor writes it (each kept message found by its start and
    // the next one's across the whitespace and comma between them).
    arrays.extend((0..4).map(|seed| {
        let pretty = json_text::to_string_pretty(&pi::from_seed::<JsValue>(seed)).unwrap();
        format!("{}\r\n", pretty.replace('\n', "\r\n"))
    }));
    arrays.push(r#"[{"role":"user","content":"cut \ud83d \ufdd0"}, 7, null]"#.to_string());
    arrays.push("[]".to_string());
    let dir = tempfile::tempdir().unwrap();
    let mut swept = 0;
    for (i, array) in arrays.iter().enumerate() {
        let streamed = write(dir.path(), &format!("{i}.json"), array);
        let request = write(
            dir.path(),
            &format!("{i}-request.json"),
            format!("{{\"messages\": {array}}}"),
        );
        for flags in [&[][..], &["--json"], &["--rule", "none"]] {
            let run = |file: &std::path::Path| {
                let mut args = vec!["sweep", file.to_str().unwrap()];
                args.extend_from_slice(flags);
                let out = ctxfuzz(&args);
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                (stderr(&out), out.stdout)
            };
            let (by_message, whole) = (run(&streamed), run(&request));
            assert_eq!(
                String::from_utf8_lossy(&by_message.1),
                String::from_utf8_lossy(&whole.1),
                "{i} {flags:?}"
            );
            assert_eq!(by_message.0, whole.0, "{i} {flags:?}");
            swept += usize::from(by_message.0.contains("orphan tool result"));
        }
    }
    assert!(swept > 5, "only {swept} runs swept anything");
}

/// The kept messages are written from the starts the sweep's read noted, not read again, where
/// the read could note them (the messages read as their text lies); from a text whose escapes
/// are rewritten, or whose items are not all objects, they are read again from the first.
#[test]
fn the_kept_messages_are_written_from_the_starts_the_sweep_noted() {
    let path = std::path::Path::new("t.json");
    let plain = json_text::to_string_pretty(&pi::from_seed::<JsValue>(3)).unwrap();
    let escaped = r#"[{"role":"user","content":"cut \ud83d"}]"#;
    let not_objects = r#"[{"role":"user","content":"go"}, 7]"#;
    for (text, noted) in [(&plain[..], true), (escaped, false), (not_objects, false)] {
        let decided = streamed::decide(path, text, BarrierRule::Strict, |_, _| {})
            .unwrap()
            .unwrap();
        assert_eq!(decided.kept(path, text).from.is_some(), noted, "{text}");
    }
}
