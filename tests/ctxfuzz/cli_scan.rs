//! `ctxfuzz scan DIR` as a user runs it: counts of risky shapes across a tree of pi session files,
//! read-only, tolerant of everything a real sessions directory holds; per provider with
//! `--provider`.

use std::path::Path;
use std::process::Output;

use crate::common::{ctxfuzz, stderr, write};

use serde_json::{Value, json};

const ASSISTANT: &str =
    r#""api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5""#;

/// A session file: the header, then one entry per line, each the child of the previous one.
fn session(entries: &[Value]) -> String {
    let mut text = json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}).to_string();
    text.push('\n');
    for (i, entry) in entries.iter().enumerate() {
        let mut entry = entry.clone();
        entry["id"] = json!(format!("e{i}"));
        entry["parentId"] = if i == 0 {
            Value::Null
        } else {
            json!(format!("e{}", i - 1))
        };
        entry["timestamp"] = json!("2026-01-01T00:00:01.000Z");
        text += &entry.to_string();
        text.push('\n');
    }
    text
}

fn message(message: &str) -> Value {
    json!({"type": "message", "message": serde_json::from_str::<Value>(message).unwrap()})
}

fn user(text: &str) -> Value {
    message(&format!(
        r#"{{"role":"user","content":"{text}","timestamp":1}}"#
    ))
}

fn call(id: &str, stop: &str) -> Value {
    message(&format!(
        r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"{id}","name":"bash","arguments":{{}}}}],{ASSISTANT},"stopReason":"{stop}","timestamp":2}}"#
    ))
}

fn result(id: &str) -> Value {
    message(&format!(
        r#"{{"role":"toolResult","toolCallId":"{id}","toolName":"bash","content":[{{"type":"text","text":"ok"}}],"isError":false,"timestamp":3}}"#
    ))
}

/// A sessions directory with one file per situation.
fn sessions_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "clean.jsonl",
        session(&[user("go"), call("A", "toolUse"), result("A"), user("next")]),
    );
    // Known failure 1: a custom message between a call and its result (pi-condense gh-11).
    let custom = json!({"type": "custom_message", "customType": "notice", "content": "steer", "display": true});
    write(
        root,
        "p1/barrier.jsonl",
        session(&[
            user("go"),
            call("B", "toolUse"),
            custom.clone(),
            result("B"),
        ]),
    );
    // Known failure 2: the result of an aborted assistant.
    write(
        root,
        "p1/aborted.jsonl",
        session(&[user("go"), call("C", "aborted"), result("C"), user("retry")]),
    );
    // Known failure 3 (V28): a compaction kept from a mid-cycle custom message.
    let mut v28 = session(&[user("go"), call("D", "toolUse"), custom, result("D")]);
    v28 += &json!({"type": "compaction", "id": "c", "parentId": "e3", "timestamp": "2026-01-01T00:00:05.000Z",
                   "summary": "S", "firstKeptEntryId": "e2", "tokensBefore": 10}).to_string();
    v28.push('\n');
    write(root, "p2/deep/v28.jsonl", &v28);
    // A truncated last line (a crash while writing), in an otherwise clean session.
    let mut truncated = session(&[user("go"), call("E", "toolUse"), result("E")]);
    truncated += "{\"type\":\"message\",\"id\":\"e9\",\"mess";
    write(root, "p2/truncated.jsonl", &truncated);
    // Not sessions, or not judged.
    write(
        root,
        "p2/notes.jsonl",
        "{\"type\":\"message\",\"id\":\"x\"}\n",
    );
    write(root, "p2/README.md", "not a session file, ignored\n");
    write(
        root,
        "p3/throws.jsonl",
        session(&[json!({"type": "message"})]),
    );
    write(root, "p3/binary.jsonl", "");
    std::fs::write(root.join("p3/bad-utf8.jsonl"), b"\xff\xfe garbage\n").unwrap();
    std::os::unix::fs::symlink(
        root.join("p3/missing-target.jsonl"),
        root.join("p3/dangling.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root, root.join("p3/loop")).unwrap();
    dir
}

fn scan_json(dir: &Path) -> (Value, Output) {
    let out = ctxfuzz(&["scan", dir.to_str().unwrap(), "--json"]);
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (report, out)
}

#[test]
fn counts_every_risky_shape_and_every_file_that_could_not_be_judged() {
    let dir = sessions_dir();
    let (report, out) = scan_json(dir.path());
    assert_eq!(
        out.status.code(),
        Some(1),
        "sessions would be rejected: {}",
        stderr(&out)
    );
    assert_eq!(
        report["files"],
        json!({"found": 10, "unreadable": 1, "not_sessions": 3, "with_malformed_lines": 2})
    );
    assert_eq!(
        report["sessions"],
        json!({"judged": 5, "pi_fails": 1, "rejected": 3})
    );
    assert_eq!(
        report["shapes"]["barrier-between-call-and-result:custom"],
        1
    );
    assert_eq!(report["shapes"]["stop-with-calls:aborted"], 1);
    assert_eq!(report["shapes"]["result-duplicated"], 0);
    let anthropic = &report["providers"][0];
    assert_eq!(anthropic["provider"], "anthropic");
    assert_eq!(report["providers"].as_array().unwrap().len(), 1);
    assert_eq!(
        anthropic["sessions"],
        json!({"judged": 5, "pi_fails": 0, "rejected": 3})
    );
    assert_eq!(anthropic["wire_rules"]["orphan-result"]["sessions"], 2);
    assert_eq!(anthropic["wire_rules"]["duplicate-result"]["sessions"], 1);
    let known: Vec<&str> = anthropic["known_failures"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(known.iter().any(|k| k.starts_with("1:")), "{known:?}");
    assert!(known.iter().any(|k| k.starts_with("2:")), "{known:?}");
    assert!(known.iter().any(|k| k.starts_with("3:")), "{known:?}");
    let rejected: Vec<&str> = anthropic["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert!(
        rejected.iter().any(|f| f.ends_with("p2/deep/v28.jsonl")),
        "{rejected:?}"
    );
    assert!(
        !rejected.iter().any(|f| f.ends_with("clean.jsonl")),
        "{rejected:?}"
    );
    let malformed = &report["malformed_lines"];
    assert!(
        malformed.as_array().unwrap().iter().any(|m| {
            m["file"].as_str().unwrap().ends_with("truncated.jsonl") && m["line"] == 5
        }),
        "{malformed}"
    );
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("dangling.jsonl") && problems.contains("cannot read"),
        "{problems}"
    );
    assert!(
        problems.contains("throws.jsonl") && problems.contains("TypeError"),
        "{problems}"
    );
}

#[test]
fn the_table_names_the_counts_and_the_files() {
    let dir = sessions_dir();
    let out = ctxfuzz(&["scan", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "sessions rejected by an API today",
        "provider anthropic (API anthropic-messages)",
        "barrier-between-call-and-result:custom",
        "orphan-result",
        "known failure shapes",
        "truncated.jsonl:5:",
        "rejected sessions, anthropic:",
        "v28.jsonl (",
    ] {
        assert!(
            table.contains(expected),
            "missing {expected:?} in:\n{table}"
        );
    }
}

#[test]
fn a_clean_tree_exits_0_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let text = session(&[user("go"), call("A", "toolUse"), result("A")]);
    write(dir.path(), "only.jsonl", &text);
    let before: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let (report, out) = scan_json(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(report["sessions"]["judged"], 1);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("only.jsonl")).unwrap(),
        text
    );
    let after: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after, "scan wrote into the scanned tree");
}

#[test]
fn the_rules_follow_the_pi_version() {
    // A system message between a call and its result: dropped by 0.81's convertToLlm (so the
    // result answers its call), held and re-emitted by 1.6.0 (also fine): clean either way, but
    // an older compaction re-emitted inside the kept range only breaks 0.81 (V30's rule).
    let dir = tempfile::tempdir().unwrap();
    let mut text = session(&[user("go"), call("A", "toolUse")]);
    text += &json!({"type": "compaction", "id": "c1", "parentId": "e1", "timestamp": "2026-01-01T00:00:03.000Z",
                    "summary": "old", "firstKeptEntryId": "e0", "tokensBefore": 1}).to_string();
    text += "\n";
    text += &json!({"type": "message", "id": "r", "parentId": "c1", "timestamp": "2026-01-01T00:00:04.000Z",
                    "message": {"role": "toolResult", "toolCallId": "A", "toolName": "bash", "content": [], "isError": false, "timestamp": 4}}).to_string();
    text += "\n";
    text += &json!({"type": "compaction", "id": "c2", "parentId": "r", "timestamp": "2026-01-01T00:00:05.000Z",
                    "summary": "new", "firstKeptEntryId": "e0", "tokensBefore": 2}).to_string();
    text += "\n";
    write(dir.path(), "s.jsonl", &text);
    let path = dir.path().to_str().unwrap();
    let current = ctxfuzz(&["scan", path, "--json", "--pi", "1.6.0"]);
    assert_eq!(
        current.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&current.stdout)
    );
    let old = ctxfuzz(&["scan", path, "--json", "--pi", "0.81.1"]);
    assert_eq!(
        old.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&old.stdout)
    );
}

#[test]
fn a_missing_directory_is_bad_input() {
    let out = ctxfuzz(&["scan", "/nonexistent/sessions"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("/nonexistent/sessions") && err.lines().count() == 1,
        "{err}"
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    let out = ctxfuzz(&["scan", file.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a file is not a directory");
    let out = ctxfuzz(&["scan", "/tmp", "--pi", "banana"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A corpus transcript that bricks one API alone, as a session file of its messages.
fn session_of_corpus(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/check")
        .join(name);
    let messages: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let entries: Vec<Value> = messages
        .into_iter()
        .map(|m| json!({"type": "message", "message": m}))
        .collect();
    session(&entries)
}

/// Per provider: the rejected files (by name) and the rule ids.
fn rejected_per_provider(report: &Value) -> Vec<(String, Vec<String>, Vec<String>)> {
    let names = |v: &Value| -> Vec<String> {
        let mut names: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let file = r["file"].as_str().unwrap();
                Path::new(file)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into()
            })
            .collect();
        names.sort();
        names
    };
    report["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let rules = p["wire_rules"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            (
                p["provider"].as_str().unwrap().to_string(),
                names(&p["rejected"]),
                rules,
            )
        })
        .collect()
}

/// Sessions that brick one API each are rejected by that API's providers alone, with its rule ids;
/// the default, Anthropic, rejects none of them.
#[test]
fn per_provider_a_session_that_bricks_one_api_is_rejected_for_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    for (file, corpus) in [
        (
            "long-id.jsonl",
            "openai-completions-long-call-id-kept-for-openrouter.json",
        ),
        (
            "cut-off.jsonl",
            "openai-responses-reply-cut-off-while-reasoning.json",
        ),
        (
            "image.jsonl",
            "google-result-image-splits-the-responses.json",
        ),
    ] {
        write(dir.path(), file, session_of_corpus(corpus));
    }
    write(
        dir.path(),
        "clean.jsonl",
        session(&[user("go"), call("A", "toolUse"), result("A")]),
    );
    let path = dir.path().to_str().unwrap();
    let out = ctxfuzz(&["scan", path, "--json", "--provider", "all"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["sessions"],
        json!({"judged": 4, "pi_fails": 0, "rejected": 3})
    );
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let long_id = (
        strings(&["long-id.jsonl"]),
        strings(&["tool-call-id-too-long"]),
    );
    let expected: Vec<(String, Vec<String>, Vec<String>)> = [
        ("anthropic", (vec![], vec![])),
        (
            "openai",
            (
                strings(&["cut-off.jsonl"]),
                strings(&["reasoning-without-following-item"]),
            ),
        ),
        ("openrouter", long_id.clone()),
        ("groq", long_id.clone()),
        ("deepseek", long_id),
        (
            "google",
            (
                strings(&["image.jsonl"]),
                strings(&[
                    "function-response-count-mismatch",
                    "function-response-not-after-call",
                ]),
            ),
        ),
    ]
    .into_iter()
    .map(|(provider, (files, rules))| (provider.to_string(), files, rules))
    .collect();
    assert_eq!(rejected_per_provider(&report), expected);

    let table = String::from_utf8(ctxfuzz(&["scan", path, "--provider", "google"]).stdout).unwrap();
    assert!(
        table.contains("provider google (API google-generative-ai)")
            && table.contains("rejected sessions, google:")
            && table.contains("image.jsonl (2 violations): function-response-count-mismatch"),
        "{table}"
    );
    let (report, out) = scan_json(dir.path());
    assert_eq!(out.status.code(), Some(0), "Anthropic takes all four");
    assert_eq!(
        rejected_per_provider(&report),
        [("anthropic".to_string(), vec![], vec![])]
    );
}
