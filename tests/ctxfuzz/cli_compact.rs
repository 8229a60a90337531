//! `ctxfuzz compact` as a user runs it: the `--json` object, the text report, `--output`, and a
//! closed pipe.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::ctxfuzz;

use serde_json::{Value, json};

/// Two user turns of 10 tokens and two assistant replies of 20: the cycle-safe boundary is the
/// second user turn (index 2), so 30 tokens are summarised and 30 kept.
fn transcript(dir: &Path) -> String {
    let messages = json!([
        {"role": "user", "content": "a".repeat(40), "timestamp": 1},
        {"role": "assistant", "content": [{"type": "text", "text": "b".repeat(80)}],
         "stopReason": "stop", "timestamp": 2},
        {"role": "user", "content": "c".repeat(40), "timestamp": 3},
        {"role": "assistant", "content": [{"type": "text", "text": "d".repeat(80)}],
         "stopReason": "stop", "timestamp": 4},
    ]);
    let path = dir.join("t.json");
    std::fs::write(&path, messages.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

fn compact_json(file: &str) -> Value {
    let out = ctxfuzz(&[
        "compact",
        file,
        "--format",
        "pi",
        "--summary",
        "Summary.",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_output_carries_the_new_transcript_boundary_summary_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = compact_json(&transcript(dir.path()));
    let summary = format!(
        "Summary.\n\n### User messages (verbatim)\n- {}",
        "a".repeat(40)
    );
    assert_eq!(out["boundary"], 2);
    assert_eq!(out["summary"], summary);
    assert_eq!(
        out["messages"][0],
        json!({"role": "compactionSummary", "summary": summary, "tokensBefore": 60, "timestamp": 2})
    );
    assert_eq!(out["messages"][1]["content"], "c".repeat(40));
    assert_eq!(out["messages"].as_array().unwrap().len(), 3);
    let report = &out["report"];
    assert_eq!(report["family"], "pi");
    assert_eq!(report["outcome"], json!({"kind": "compacted"}));
    assert_eq!(report["picked_boundary"], 2);
    assert_eq!(report["summarised"], 2);
    assert_eq!(report["kept"], 2);
    assert_eq!(report["region_tokens"], 30);
    assert_eq!(report["summary_tokens"], 20);
    assert_eq!(report["preserved_user_turns"], 1);
    assert_eq!(
        report["tracker"],
        json!({"calls": ["reset", {"add": {"prompt": 10, "completion": 0}},
                         {"add": {"prompt": 20, "completion": 0}}],
               "failed_at": null, "message_count": 2, "total_tokens": 30})
    );
}

#[test]
fn text_output_reports_the_compaction_then_prints_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript(dir.path());
    let out = ctxfuzz(&["compact", &file, "--format", "pi", "--summary", "Summary."]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "policy cycle-safe on a pi transcript of 4 message(s): boundary picked at 2\n\
             compacted: messages[..2] (30 tokens) replaced by one summary (20 tokens); 2 kept untouched\n"
        ),
        "{text}"
    );
    let json_start = text.find("\n[").unwrap();
    let messages: Value = serde_json::from_str(&text[json_start..]).unwrap();
    assert_eq!(messages[0]["role"], "compactionSummary");
}

#[test]
fn output_file_holds_the_new_transcript_and_the_input_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript(dir.path());
    let before = std::fs::read(&file).unwrap();
    let written = dir.path().join("out.json");
    let out = ctxfuzz(&[
        "compact",
        &file,
        "--format",
        "pi",
        "--summary",
        "Summary.",
        "--json",
        "--output",
        written.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let saved: Value = serde_json::from_slice(&std::fs::read(&written).unwrap()).unwrap();
    assert_eq!(saved, printed["messages"]);
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

/// `{"messages": [...]}`, the request the other commands take too, compacts as its array does:
/// the same report and transcript, the family detected or given.
#[test]
fn a_protocol_request_compacts_as_its_array_does() {
    let dir = tempfile::tempdir().unwrap();
    let array = transcript(dir.path());
    let messages: Value = serde_json::from_str(&std::fs::read_to_string(&array).unwrap()).unwrap();
    let request = dir.path().join("request.json");
    std::fs::write(&request, json!({"messages": messages}).to_string()).unwrap();
    let request = request.to_str().unwrap();
    assert_eq!(compact_json(request), compact_json(&array));
    let text = |file: &str| {
        let out = ctxfuzz(&["compact", file]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        out.stdout
    };
    assert_eq!(text(request), text(&array));
}

/// A document that holds no transcript is an error naming the file and what it holds instead, in
/// the words every command that reads a transcript uses.
#[test]
fn a_document_that_is_no_transcript_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    for (document, error) in [
        (
            "{}",
            "expected a JSON array of messages or {\"messages\": [...]}",
        ),
        ("{\"messages\": 5}", "`messages` is not a JSON array"),
        ("null", "expected a JSON array of messages, found null"),
    ] {
        let path = dir.path().join("doc.json");
        std::fs::write(&path, document).unwrap();
        let out = ctxfuzz(&["compact", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{document}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains(&format!("doc.json:1:1: {error}")),
            "{stderr}"
        );
    }
}

/// Another program's transcript read as pi's or AutoBot's chat would have no calls and no
/// results, and the boundary could fall between them: it is refused, nothing written, naming the
/// first message that tells its format.
#[test]
fn a_transcript_in_another_format_is_refused_not_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let user = json!({"role": "user", "content": "hi"});
    let anthropic = json!([
        user,
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "x"}]}
    ]);
    let pi_with_a_tool_message = json!([
        user,
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f", "arguments": {}}],
         "stopReason": "toolUse"},
        {"role": "tool", "tool_call_id": "a", "content": "x"},
        {"role": "tool", "tool_call_id": "a", "content": "y"}
    ]);
    let chat = "message 1 is written in the anthropic format (a `tool_use` or `tool_result` block), not in the openai format";
    let pi = "message 2 is written in the openai format (a `tool` message or `tool_calls`), not as a pi message";
    for (name, document, error) in [
        (
            "anthropic.json",
            serde_json::to_string_pretty(&anthropic).unwrap(),
            format!("anthropic.json:6:3: {chat}"),
        ),
        (
            "request.json",
            json!({"messages": anthropic}).to_string(),
            format!("request.json:1:1: {chat}"),
        ),
        (
            "pi.json",
            serde_json::to_string_pretty(&pi_with_a_tool_message).unwrap(),
            format!("pi.json:18:3: {pi}"),
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &document).unwrap();
        let written = dir.path().join("out.json");
        let out = ctxfuzz(&[
            "compact",
            path.to_str().unwrap(),
            "-o",
            written.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(&error), "{stderr}");
        assert!(out.stdout.is_empty() && !written.exists(), "{name}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), document);
    }
}

#[test]
fn an_unknown_variant_is_refused_with_the_known_ones_before_the_file_is_read() {
    let out = ctxfuzz(&["compact", "no-such-file.json", "--variant", "cycle-unsafe"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("unknown compaction variant `cycle-unsafe` (known: cycle-safe, autobot,"),
        "{stderr}"
    );
    assert!(!stderr.contains("no-such-file.json"), "{stderr}");
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(["compact", &file, "--format", "pi"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the first byte is read, as `| head -0` does.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The kept messages come back as the file has them, each message's fields in the file's order
/// (as `ctxfuzz sweep` writes them), behind a summary message in pi's own order: in the file
/// `--output` writes and in the `--json` object alike.
#[test]
fn kept_messages_keep_the_files_field_order() {
    let dir = tempfile::tempdir().unwrap();
    let user =
        |text: &str, at: u32| format!(r#"{{"role":"user","content":"{text}","timestamp":{at}}}"#);
    let assistant = |text: &str, at: u32| {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"stopReason":"stop","timestamp":{at}}}"#
        )
    };
    let kept = [user(&"c".repeat(40), 3), assistant(&"d".repeat(80), 4)];
    let messages = [user(&"a".repeat(40), 1), assistant(&"b".repeat(80), 2)];
    let file = dir.path().join("t.json");
    std::fs::write(
        &file,
        format!("[{}]", [&messages[..], &kept[..]].concat().join(",")),
    )
    .unwrap();
    let written = dir.path().join("out.json");
    let out = ctxfuzz(&[
        "compact",
        file.to_str().unwrap(),
        "--summary",
        "Summary.",
        "--json",
        "--output",
        written.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let without_spaces = |text: &str| text.split_whitespace().collect::<String>();
    let saved = without_spaces(&std::fs::read_to_string(&written).unwrap());
    let printed = without_spaces(&String::from_utf8(out.stdout).unwrap());
    let transcript = |text: &str| {
        let start = text.find(r#"[{"role":"compactionSummary","summary":"Summary."#)?;
        let end = text[start..].find(&format!("{}]", kept.join(",")))?;
        Some(start..start + end)
    };
    assert!(transcript(&saved).is_some_and(|t| t.start == 0), "{saved}");
    assert!(transcript(&printed).is_some(), "{printed}");
}

/// An output named without a directory goes to the working directory, and when that cannot take a
/// new file the error names it as `.`, not as an empty path. (A working directory that was removed
/// refuses new files even to root, who may write in a read-only one.)
#[test]
fn an_output_without_a_directory_that_cannot_be_written_names_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = transcript(dir.path());
    let gone = dir.path().join("gone");
    std::fs::create_dir(&gone).unwrap();
    let out = Command::new("sh")
        .args([
            "-c",
            r#"cd "$1" && rmdir "$1" && exec "$2" compact "$3" --output out.json"#,
        ])
        .arg("sh")
        .arg(&gone)
        .arg(env!("CARGO_BIN_EXE_ctxfuzz"))
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(".: cannot create a temporary file"),
        "{stderr}"
    );
}
