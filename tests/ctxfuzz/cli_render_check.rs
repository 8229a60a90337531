//! `ctxfuzz render` and `ctxfuzz check` as a user runs them: the known failure shapes
//! (docs/oracle.md#known-failure-shapes, corpus/check/), the stages, the batch protocol, and every
//! kind of bad input (one line naming the file and the position, exit 2, no panic, the input
//! untouched).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{ctxfuzz, stdout, write};

use serde_json::{Value, json};

fn corpus(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/check")
        .join(name)
        .display()
        .to_string()
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// `(rule, known failure number, cause kind)` of every violation `check --json` reports.
fn check_json(file: &str) -> (i32, Vec<(String, Option<u64>, String)>) {
    let output = ctxfuzz(&["check", "--json", file]);
    let report = stdout_json(&output);
    let violations = report["files"][0]["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            (
                v["rule"].as_str().unwrap_or_default().to_string(),
                v["known_failure"]["number"].as_u64(),
                v["cause"]["kind"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (output.status.code().unwrap_or(-1), violations)
}

fn has(violations: &[(String, Option<u64>, String)], rule: &str, shape: u64, cause: &str) -> bool {
    violations
        .iter()
        .any(|(r, s, c)| r == rule && *s == Some(shape) && c == cause)
}

#[test]
fn check_passes_a_clean_transcript() {
    let (code, violations) = check_json(&corpus("clean.json"));
    assert_eq!((code, violations), (0, vec![]));
    let text = ctxfuzz(&["check", &corpus("clean.json")]);
    assert!(String::from_utf8_lossy(&text.stdout).contains(": ok"));
}

#[test]
fn check_flags_each_known_failure_shape_with_its_rule() {
    let sut = "system-under-test";
    let pi = "unpreventable";
    for (file, rule, shape, cause) in [
        (
            "shape1-foreign-message-between-call-and-result.json",
            "duplicate-result",
            1,
            sut,
        ),
        (
            "shape1-foreign-message-between-call-and-result.json",
            "results-not-first",
            1,
            sut,
        ),
        (
            "shape2-error-assistant-result-orphaned.json",
            "orphan-result",
            2,
            sut,
        ),
        (
            "shape3-compaction-cut-inside-call-cycle.json",
            "orphan-result",
            3,
            sut,
        ),
        (
            "shape4-sanitised-ids-collide.json",
            "duplicate-tool-use-id",
            4,
            pi,
        ),
        (
            "shape4-sanitised-ids-collide.json",
            "duplicate-result",
            4,
            pi,
        ),
        (
            "shape4-id-reused-across-turns.json",
            "duplicate-tool-use-id",
            4,
            pi,
        ),
        (
            "shape4-id-the-api-refuses.json",
            "invalid-tool-use-id",
            4,
            pi,
        ),
        (
            "shape5-summary-between-call-and-result.json",
            "duplicate-result",
            5,
            sut,
        ),
    ] {
        let (code, violations) = check_json(&corpus(file));
        assert_eq!(code, 1, "{file}");
        assert!(
            has(&violations, rule, shape, cause),
            "{file}: {rule} shape {shape}: {violations:?}"
        );
    }
}

/// A rejection as `check --json` prints it: rule, location, the API's error text.
type Rejection = (String, String, String);

/// `check --provider all` on `file`: each provider that rejects the body, with its API and the
/// rules, locations and texts of its rejections; every other provider's verdict is `clean`.
fn rejected_by_provider(file: &str) -> Vec<(String, String, Vec<Rejection>)> {
    let output = ctxfuzz(&["check", "--provider", "all", "--json", file]);
    let report = stdout_json(&output);
    let verdicts = report["files"].as_array().expect("files");
    let providers: Vec<&str> = verdicts
        .iter()
        .map(|v| v["provider"].as_str().unwrap())
        .collect();
    assert_eq!(
        providers,
        [
            "anthropic",
            "openai",
            "openrouter",
            "groq",
            "deepseek",
            "google"
        ]
    );
    let rejected: Vec<_> = verdicts
        .iter()
        .filter(|v| v["verdict"] != "clean")
        .map(|v| {
            let violations = v["violations"].as_array().unwrap().iter();
            let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
            (
                text(&v["provider"]),
                text(&v["api"]),
                violations
                    .map(|found| {
                        (
                            text(&found["rule"]),
                            text(&found["location"]),
                            text(&found["error"]),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let expected_code = if rejected.is_empty() { 0 } else { 1 };
    assert_eq!(output.status.code(), Some(expected_code), "{report}");
    rejected
}

/// A call id reused across turns bricks the Anthropic body alone: the OpenAI APIs pair a result
/// with the call before it, whatever the ids of earlier turns.
#[test]
fn check_all_providers_charges_an_id_reused_across_turns_to_anthropic_alone() {
    let rejected = rejected_by_provider(&corpus("shape4-id-reused-across-turns.json"));
    let rule = (
        "duplicate-tool-use-id".to_string(),
        "messages.4.content.0".to_string(),
        "messages.4.content.0: tool_use ids must be unique".to_string(),
    );
    assert_eq!(
        rejected,
        [("anthropic".into(), "anthropic-messages".into(), vec![rule])]
    );
}

/// Another provider's 45-character call id: pi cuts it to 40 only for the `openai` provider, so
/// the body every other openai-completions provider gets breaks OpenAI's limit; Anthropic's 64 and
/// the Responses body take it.
#[test]
fn check_all_providers_charges_a_long_call_id_to_openai_completions_alone() {
    let file = corpus("openai-completions-long-call-id-kept-for-openrouter.json");
    let rule = (
        "tool-call-id-too-long".to_string(),
        "messages.1".to_string(),
        "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a string with length 45 instead.".to_string(),
    );
    let expected: Vec<_> = ["openrouter", "groq", "deepseek"]
        .into_iter()
        .map(|provider| {
            (
                provider.into(),
                "openai-completions".into(),
                vec![rule.clone()],
            )
        })
        .collect();
    assert_eq!(rejected_by_provider(&file), expected);
}

/// A reply of the very model cut off while reasoning: pi sends its reasoning item alone, which the
/// Responses API refuses; the other bodies carry no reasoning item.
#[test]
fn check_all_providers_charges_a_reply_cut_off_while_reasoning_to_openai_responses_alone() {
    let file = corpus("openai-responses-reply-cut-off-while-reasoning.json");
    let rule = (
        "reasoning-without-following-item".to_string(),
        "input.1".to_string(),
        "Item 'rs_1' of type 'reasoning' was provided without its required following item."
            .to_string(),
    );
    assert_eq!(
        rejected_by_provider(&file),
        [("openai".into(), "openai-responses".into(), vec![rule])]
    );
    let text = stdout(&ctxfuzz(&["check", "--provider", "openai", &file]));
    assert!(
        text.contains("provider openai, API openai-responses")
            && text.contains("input.1  reasoning-without-following-item"),
        "{text}"
    );
}

/// For Gemini 2 pi sends a result's image in a user turn of its own, right after its response: a
/// second result of the same call turn then splits the responses in two, which Gemini refuses;
/// every other body keeps the results together.
#[test]
fn check_all_providers_charges_a_result_image_before_another_result_to_google_alone() {
    let file = corpus("google-result-image-splits-the-responses.json");
    let rules = vec![
        (
            "function-response-count-mismatch".to_string(),
            "contents.2".to_string(),
            "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.".to_string(),
        ),
        (
            "function-response-not-after-call".to_string(),
            "contents.4".to_string(),
            "Please ensure that function response turn comes immediately after a function call turn.".to_string(),
        ),
    ];
    assert_eq!(
        rejected_by_provider(&file),
        [("google".into(), "google-generative-ai".into(), rules)]
    );
}

#[test]
fn check_prints_rule_location_and_the_api_error() {
    let output = ctxfuzz(&[
        "check",
        &corpus("shape2-error-assistant-result-orphaned.json"),
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text.contains("messages.1.content.0  orphan-result"),
        "{text}"
    );
    assert!(
        text.contains(
            "known failure 2: a result of an assistant that ended with error/aborted, which pi drops"
        ),
        "{text}"
    );
    assert!(
        text.contains("unexpected tool_use_id found in tool_result blocks: toolu_E1"),
        "{text}"
    );
}

#[test]
fn check_reports_every_file_and_fails_if_any_is_rejected() {
    let output = ctxfuzz(&[
        "check",
        "--json",
        &corpus("clean.json"),
        &corpus("shape3-compaction-cut-inside-call-cycle.json"),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report = stdout_json(&output);
    let verdicts: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["clean", "violations"]);
    assert_eq!(report["pi"], "1.3.0+");
}

#[test]
fn render_prints_each_stage() {
    let file = corpus("shape1-foreign-message-between-call-and-result.json");
    let llm = stdout_json(&ctxfuzz(&["render", &file, "--stage", "llm"]));
    assert_eq!(llm[2]["role"], "user", "custom becomes a user message");
    let transformed = stdout_json(&ctxfuzz(&["render", &file, "--stage", "transformed"]));
    assert_eq!(transformed[2]["content"][0]["text"], "No result provided");
    assert_eq!(transformed[2]["timestamp"], 0);
    let anthropic = stdout_json(&ctxfuzz(&["render", &file]));
    assert_eq!(
        anthropic["messages"][2]["content"][0]["type"],
        "tool_result"
    );
    assert_eq!(anthropic["model"], "claude-sonnet-4-5");
}

#[test]
fn render_prints_the_body_pi_builds_for_the_provider_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gemini-call.json");
    let id = format!("call.{}", "g".repeat(40));
    std::fs::write(
        &path,
        json!([{"role": "user", "content": "go", "timestamp": 1},
               {"role": "assistant", "api": "google-generative-ai", "provider": "google",
                "model": "gemini-2.5-pro", "stopReason": "toolUse", "timestamp": 2,
                "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}]},
               {"role": "toolResult", "toolCallId": id, "toolName": "read", "isError": false,
                "content": [{"type": "text", "text": "ok"}], "timestamp": 3}])
        .to_string(),
    )
    .unwrap();
    let path = path.display().to_string();
    let groq = stdout_json(&ctxfuzz(&["render", &path, "--provider", "groq"]));
    let calls = &groq["messages"][1]["tool_calls"];
    assert_eq!(calls[0]["id"], id, "pi keeps a foreign id for Groq: {groq}");
    assert_eq!(groq["messages"][2]["role"], "tool");
    assert_eq!(groq["messages"][2]["tool_call_id"], id);
    let openai = stdout_json(&ctxfuzz(&["render", &path, "--provider", "openai"]));
    let kinds: Vec<&Value> = openai["input"]
        .as_array()
        .unwrap_or_else(|| panic!("a Responses input: {openai}"))
        .iter()
        .map(|item| &item["type"])
        .collect();
    assert!(kinds.contains(&&json!("function_call_output")), "{openai}");
    // Gemini 2.5 takes no call ids: the call and its response are paired by name and order.
    let google = stdout_json(&ctxfuzz(&["render", &path, "--provider", "google"]));
    let call = &google["contents"][1]["parts"][0]["functionCall"];
    assert_eq!(call["name"], "read", "{google}");
    assert_eq!(call.get("id"), None, "{google}");
    let response = &google["contents"][2]["parts"][0]["functionResponse"];
    assert_eq!(response["response"], json!({"output": "ok"}), "{google}");
    let transformed = stdout_json(&ctxfuzz(&[
        "render",
        &path,
        "--provider",
        "groq",
        "--stage",
        "transformed",
    ]));
    assert_eq!(transformed[1]["content"][0]["id"], id);
    let anthropic = stdout_json(&ctxfuzz(&["render", &path, "--stage", "anthropic"]));
    assert_eq!(
        anthropic["model"], "claude-sonnet-4-5",
        "the old stage name"
    );
    let sanitised = anthropic["messages"][1]["content"][0]["id"]
        .as_str()
        .unwrap();
    assert_ne!(
        sanitised, id,
        "Anthropic's normaliser rewrites what it does not accept"
    );
    let unknown = ctxfuzz(&["render", &path, "--provider", "bedrock"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains(
            "unknown provider `bedrock` (known: anthropic, openai, openrouter, groq, deepseek, google)"
        ),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
}

#[test]
fn render_models_the_version_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("system.json");
    std::fs::write(
        &path,
        json!([{"role": "system", "content": "be brief", "timestamp": 1},
               {"role": "user", "content": "hi", "timestamp": 2}])
        .to_string(),
    )
    .unwrap();
    let path = path.display().to_string();
    let current = stdout_json(&ctxfuzz(&["render", &path, "--stage", "llm"]));
    let old = stdout_json(&ctxfuzz(&[
        "render", &path, "--stage", "llm", "--pi", "v0.81.1",
    ]));
    assert_eq!(current.as_array().unwrap().len(), 2);
    assert_eq!(
        old.as_array().unwrap().len(),
        1,
        "before 0.86 convertToLlm drops system"
    );
    let wire = stdout_json(&ctxfuzz(&["render", &path]));
    assert_eq!(
        wire["system"],
        json!([{"type": "text", "text": "be brief"}])
    );
}

#[test]
fn when_pi_itself_throws_render_and_check_say_so_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("throws.json");
    std::fs::write(
        &path,
        json!([{"role": "user", "content": "go"},
               {"role": "assistant", "content": "oops", "stopReason": "stop"}])
        .to_string(),
    )
    .unwrap();
    let path = path.display().to_string();
    let render = ctxfuzz(&["render", &path]);
    assert_eq!(render.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&render.stderr);
    assert!(
        stderr.contains("pi itself would throw at stage transformMessages"),
        "{stderr}"
    );
    assert!(stderr.contains("TypeError: assistantMsg.content.flatMap is not a function"));
    // Groq's provider runs transformMessages inside its builder: the throw is at that stage.
    let groq = ctxfuzz(&["render", &path, "--provider", "groq"]);
    assert_eq!(groq.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&groq.stderr);
    assert!(
        stderr.contains("pi itself would throw at stage openai-completions: TypeError"),
        "{stderr}"
    );
    let llm = ctxfuzz(&["render", &path, "--stage", "llm"]);
    assert_eq!(
        llm.status.code(),
        Some(0),
        "convertToLlm alone does not throw"
    );
    let check = ctxfuzz(&["check", "--json", &path]);
    assert_eq!(check.status.code(), Some(1));
    let report = stdout_json(&check);
    assert_eq!(report["files"][0]["verdict"], "pi-throws");
    assert_eq!(report["files"][0]["thrown"]["stage"], "transformMessages");
}

fn batch(input: &[u8], args: &[&str]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(["render", "--batch"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("ctxfuzz runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each answer is one JSON line"))
        .collect()
}

#[test]
fn batch_answers_every_line_in_the_vectors_shape_and_survives_bad_lines() {
    let vectors = include_str!("../../oracles/tests/data/vectors.expected.jsonl");
    let v21: Value = vectors
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["variant"] == "0.81.1" && v["name"].as_str().unwrap().starts_with("V21"))
        .unwrap();
    let mut input = Vec::new();
    input.extend(v21["input"].to_string().as_bytes());
    input.extend(b"\n{\"messages\": [\n");
    input.extend(b"\xff\xfe\n");
    input.extend(b"{\"no\": \"messages\"}\n");
    input.extend(v21["input"].to_string().as_bytes());
    input.push(b'\n');
    let answers = batch(&input, &["--pi", "0.81.1"]);
    assert_eq!(answers.len(), 5, "one answer per input line");
    assert_eq!(answers[0], v21["output"]);
    for bad in &answers[1..4] {
        assert_eq!(bad["stage"], "input", "{bad}");
    }
    assert!(
        answers[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("line 2: invalid JSON")
    );
    assert!(
        answers[2]["error"]
            .as_str()
            .unwrap()
            .contains("invalid UTF-8")
    );
    assert_eq!(answers[4], v21["output"]);
}

/// A bad input: exit 2, exactly one line on stderr naming the file (and `expect` in it), nothing
/// on stdout, no panic, and the file unchanged.
fn assert_rejected(path: &Path, expect: &str) {
    let before = std::fs::read(path).ok();
    let shown = path.display().to_string();
    for args in [
        vec!["check", shown.as_str()],
        vec!["render", shown.as_str()],
    ] {
        let output = ctxfuzz(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: one line: {stderr}");
        assert!(stderr.contains(&shown), "{args:?} names the file: {stderr}");
        assert!(
            stderr.contains(expect),
            "{args:?} says {expect:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
    assert_eq!(
        std::fs::read(path).ok(),
        before,
        "the input is not modified"
    );
}

#[test]
fn malformed_and_truncated_json_name_the_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let malformed = write(dir.path(), "malformed.json", b"[\n  {\"role\": }\n]");
    assert_rejected(&malformed, "malformed.json:2:12: invalid JSON");
    let truncated = write(
        dir.path(),
        "truncated.json",
        b"[{\"role\": \"user\", \"content\": \"hi\"",
    );
    assert_rejected(
        &truncated,
        "truncated.json:1:33: invalid JSON: EOF while parsing",
    );
    let empty = write(dir.path(), "empty.json", b"");
    // Columns count from 1 (an empty file was reported at column 0; found by `oracle-json`).
    assert_rejected(&empty, "empty.json:1:1: invalid JSON");
}

#[test]
fn wrong_types_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let number = write(dir.path(), "number.json", b"42");
    assert_rejected(&number, "expected a JSON array of messages, found a number");
    let object = write(dir.path(), "object.json", b"{\"role\": \"user\"}");
    assert_rejected(
        &object,
        "expected a JSON array of messages or {\"messages\": [...]}",
    );
    let not_array = write(dir.path(), "messages.json", b"{\"messages\": \"hi\"}");
    assert_rejected(&not_array, "`messages` is not a JSON array");
}

/// A transcript another program wrote is no pi transcript: pi would pass over its calls and
/// results and the request would be judged clean. It is refused, naming the first message that
/// tells its format, where it stands.
#[test]
fn a_transcript_in_another_format_is_refused_not_judged_clean() {
    let dir = tempfile::tempdir().unwrap();
    let anthropic = write(
        dir.path(),
        "anthropic.json",
        "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"a\", \"name\": \"f\", \"input\": {}}]},\n  {\"role\": \"user\", \"content\": \"thanks\"}\n]",
    );
    assert_rejected(
        &anthropic,
        "anthropic.json:3:3: message 1 is written in the anthropic format (a `tool_use` or `tool_result` block), not as a pi message",
    );
    let openai = write(
        dir.path(),
        "openai.json",
        json!({"messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "b", "content": "x"}
        ]})
        .to_string(),
    );
    assert_rejected(
        &openai,
        "openai.json:1:1: message 1 is written in the openai format",
    );
}

/// `check --format F`: another program's transcript judged as it stands by its provider's rules
/// (Anthropic's on merged turns), each violation with the provider's answer; a transcript in yet
/// another format, or `--provider` beside it, is bad input.
#[test]
fn check_judges_a_transcript_in_another_format_by_its_provider_s_rules() {
    let dir = tempfile::tempdir().unwrap();
    let call = |id: &str| json!({"type": "tool_use", "id": id, "name": "f", "input": {}});
    let result = |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "x"});
    let anthropic = write(
        dir.path(),
        "split.json",
        json!([
            {"role": "assistant", "content": [call("a"), call("b")]},
            {"role": "user", "content": [result("a")]},
            {"role": "user", "content": [result("b")]}
        ])
        .to_string(),
    );
    let clean = ctxfuzz(&[
        "check",
        "--format",
        "anthropic",
        anthropic.to_str().unwrap(),
    ]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    assert!(stdout(&clean).contains("split.json: ok (format anthropic"));

    let openai = write(
        dir.path(),
        "openai.json",
        json!({"messages": [
            {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "user", "content": "wait"},
            {"role": "tool", "tool_call_id": "a", "content": "x"}
        ]})
        .to_string(),
    );
    let rejected = ctxfuzz(&[
        "check",
        "--format",
        "openai",
        "--json",
        openai.to_str().unwrap(),
    ]);
    assert_eq!(rejected.status.code(), Some(1));
    let report = stdout_json(&rejected);
    assert_eq!(report["format"], "openai");
    assert_eq!(report["files"][0]["verdict"], "violations");
    let rules: Vec<(&str, u64)> = report["files"][0]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["rule"].as_str().unwrap(), v["message"].as_u64().unwrap()))
        .collect();
    assert_eq!(rules, [("missing-result", 0), ("result-without-call", 2)]);
    assert!(
        report["files"][0]["violations"][0]["refusal"]
            .as_str()
            .unwrap()
            .contains("must be followed by tool messages")
    );

    let elsewhere = ctxfuzz(&["check", "--format", "gemini", openai.to_str().unwrap()]);
    assert_eq!(elsewhere.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&elsewhere.stderr).contains(
            "message 0 is written in the openai format (a `tool` message or `tool_calls`), not in the gemini format: read as one, its calls and results would be none (`ctxfuzz check --format openai`"
        ),
        "{}",
        String::from_utf8_lossy(&elsewhere.stderr)
    );
    let provider = ctxfuzz(&[
        "check",
        "--format",
        "openai",
        "--provider",
        "groq",
        openai.to_str().unwrap(),
    ]);
    assert_eq!(provider.status.code(), Some(2));
}

#[test]
fn invalid_utf8_names_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "latin1.json",
        b"[\n{\"role\": \"user\", \"content\": \"caf\xe9\"}]",
    );
    assert_rejected(&path, "latin1.json:2:33: invalid UTF-8");
}

#[test]
fn nesting_deeper_than_serde_allows_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "deep.json", "[".repeat(100_000).as_bytes());
    assert_rejected(
        &path,
        "deep.json:1:128: invalid JSON: recursion limit exceeded",
    );
}

#[test]
fn a_directory_or_a_missing_file_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    assert_rejected(dir.path(), "is a directory");
    assert_rejected(&dir.path().join("absent.json"), "cannot read");
}

#[test]
fn a_100_mb_string_is_judged_and_an_unterminated_one_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let body = "a".repeat(100 * 1024 * 1024);
    let mut valid = String::from("[{\"role\": \"user\", \"content\": \"");
    valid.push_str(&body);
    valid.push_str("\"}]");
    let path = write(dir.path(), "huge.json", valid.as_bytes());
    let output = ctxfuzz(&["check", &path.display().to_string()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let unterminated = write(
        dir.path(),
        "huge-open.json",
        &valid.as_bytes()[..valid.len() - 3],
    );
    let column = valid.len() - 3;
    assert_rejected(
        &unterminated,
        &format!("huge-open.json:1:{column}: invalid JSON: EOF while parsing a string"),
    );
}

#[test]
fn a_garbage_version_is_a_usage_error() {
    let output = ctxfuzz(&["check", "--pi", "latest", &corpus("clean.json")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid pi version \"latest\""));
}
