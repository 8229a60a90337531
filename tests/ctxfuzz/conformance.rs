//! Conformance of the oracle's pi models with the real pi (docs/oracle.md, "Conformance with
//! the real pi").
//!
//! `oracles/conformance/bridge.mjs` runs the published pi packages (0.79.0, 0.81.1, 0.87.1, 1.6.0,
//! pinned by `oracles/conformance/package-lock.json`). Every input goes to both the bridge and the
//! Rust model of the matching pi version, and `llm`, `transformed`, the Anthropic request's
//! `messages` and `system`, the openai-completions body's `messages`, the openai-responses body's
//! `input`, the google-generative-ai body's `contents`, the session context, and any thrown error are compared field by field
//! (synthetic timestamps are frozen to 0 on both sides). The first mismatches are printed as unified
//! diffs with the command that replays the run.
//!
//! Inputs: (a) every reference vector (message and session mode) against all four versions, and
//! the recorded outputs against the bridge; (b) freshly generated transcripts (a new seed every run,
//! `CTXFUZZ_CONFORMANCE_SEED` to replay one) and session files, `CTXFUZZ_CONFORMANCE_CASES` per
//! pi version (default 5,000 transcripts and a quarter as many session files), and half as many
//! transcripts sent to an openai-completions model ([`openai_completions_input`]), half as many
//! to an openai-responses one ([`openai_responses_input`]) and half as many to a Gemini API one
//! ([`google_input`]). The golden vectors of the three APIs are recorded here from the real pi
//! ([`conformance_openai_completions_golden_vectors`],
//! [`conformance_openai_responses_golden_vectors`], [`conformance_google_golden_vectors`]). A third of the generated transcripts have
//! texts and ids cut inside a surrogate pair ([`with_lone_surrogates`]): the bridge's JSON lines
//! carry them as `\udXXX` escapes both ways, so the real pi holds the same lone halves.
//!
//! Never skips: without Node or without the installed packages the test fails with the command that
//! fixes it.

use std::path::Path;

use arbitrary::Unstructured;
use ctxfuzz::generators::{pi as pi_gen, seeded_bytes, session_file as session_gen};
use ctxfuzz::harness::pi_bridge;
use ctxfuzz_oracles::js_string;
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text;
use ctxfuzz_oracles::pi::{PiVersion, run_vector_input};
use google::{google_cases, google_input};
use openai_responses::{openai_responses_cases, openai_responses_input};
use serde_json::{Value, json};

use crate::common::values;

mod google;
mod openai_responses;

const VECTORS: &str = include_str!("../../oracles/tests/data/vectors.expected.jsonl");
const SHOWN_MISMATCHES: usize = 5;

/// The bridge's answers; a missing Node or package fails with the command that fixes it.
fn ask_real_pi(requests: Vec<Value>) -> Vec<Value> {
    pi_bridge::ask(requests).unwrap_or_else(|e| panic!("conformance: {e:#}"))
}

/// One input and where it came from (printed with a mismatch).
struct Case {
    origin: String,
    pi_version: PiVersion,
    input: Value,
}

/// The fields compared, in the order a reader wants them.
fn compared_fields(output: &Value) -> Vec<(&'static str, Option<&Value>)> {
    vec![
        ("error", output.get("error")),
        ("stage", output.get("stage")),
        ("session", output.get("session")),
        ("llm", output.get("llm")),
        ("transformed", output.get("transformed")),
        (
            "anthropic.messages",
            output.get("anthropic").and_then(|a| a.get("messages")),
        ),
        (
            "anthropic.system",
            output.get("anthropic").and_then(|a| a.get("system")),
        ),
        (
            "openaiCompletions.messages",
            output
                .get("openaiCompletions")
                .and_then(|a| a.get("messages")),
        ),
        (
            "openaiResponses.input",
            output.get("openaiResponses").and_then(|a| a.get("input")),
        ),
        (
            "google.contents",
            output.get("google").and_then(|a| a.get("contents")),
        ),
    ]
}

struct Mismatch {
    field: &'static str,
    diff: String,
}

fn compare(real: &Value, model: &Value) -> Vec<Mismatch> {
    let model = &without_error_name_at_provider_stage(model);
    let real = &in_the_interpreters_words(&without_error_name_at_provider_stage(real), model);
    compared_fields(real)
        .into_iter()
        .zip(compared_fields(model))
        .filter(|((_, a), (_, b))| a != b)
        .map(|((field, a), (_, b))| Mismatch {
            field,
            diff: unified_diff(a, b),
        })
        .collect()
}

/// pi's providers report a throw while building the request as an `error` event that keeps only
/// the message (`errorMessage`), so the real pi's text at that stage has no `TypeError: ` in
/// front, except for a throw before the build starts (collapsing the system messages), which
/// keeps it. Both sides are compared without it.
fn without_error_name_at_provider_stage(output: &Value) -> Value {
    let mut output = output.clone();
    if [
        "anthropic",
        "openai-completions",
        "openai-responses",
        "google-generative-ai",
    ]
    .contains(&output["stage"].as_str().unwrap_or_default())
        && let Some(Value::String(error)) = output.get_mut("error")
        && let Some((name, message)) = error.split_once(": ")
        && name.ends_with("Error")
    {
        *error = message.to_string();
    }
    output
}

/// V8 words a `for...of` over a value that is not iterable by the tier running the loop: the
/// interpreter says `number 5 is not iterable (cannot read property Symbol(Symbol.iterator))`,
/// optimised code `undefined is not a function`, and a long run optimises pi's loops. The model
/// gives the interpreter's words (what a fresh process prints), so the optimised words count as
/// the same throw where the model reports a value that is not iterable.
fn in_the_interpreters_words(real: &Value, model: &Value) -> Value {
    let mut real = real.clone();
    if let (Some(Value::String(error)), Some(Value::String(expected))) =
        (real.get_mut("error"), model.get("error"))
        && error == "undefined is not a function"
        && expected.ends_with(" is not iterable (cannot read property Symbol(Symbol.iterator))")
    {
        *error = expected.clone();
    }
    real
}

/// A unified diff of the two values. Arrays are cut to the neighbourhood of their first
/// difference, so a mismatch deep in a 10k-message transcript stays readable (and cheap).
fn unified_diff(real: Option<&Value>, model: Option<&Value>) -> String {
    let (real, model, from) = match (real, model) {
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            let first = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            let window = |items: &[Value]| {
                let start = first.saturating_sub(1);
                Value::Array(items[start.min(items.len())..(first + 3).min(items.len())].to_vec())
            };
            (Some(window(a)), Some(window(b)), first.saturating_sub(1))
        }
        (a, b) => (a.cloned(), b.cloned(), 0),
    };
    let pretty = |v: &Option<Value>| match v {
        Some(v) => serde_json::to_string_pretty(v).expect("pretty JSON") + "\n",
        None => "(absent)\n".to_string(),
    };
    let (real, model) = (pretty(&real), pretty(&model));
    let header = |side: &str| format!("{side} (from index {from})");
    similar::TextDiff::configure()
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(&real, &model)
        .unified_diff()
        .context_radius(4)
        .header(&header("real pi"), &header("ctxfuzz oracle"))
        .to_string()
}

/// Runs `cases` through the bridge and the model; panics with the first diffs if any differ.
fn check(name: &str, cases: Vec<Case>, replay: &str) {
    let requests: Vec<Value> = cases
        .iter()
        .map(|c| json!({"pi": c.pi_version.checked_against(), "input": c.input}))
        .collect();
    let responses = ask_real_pi(requests.clone());
    let mut report = String::new();
    let mut mismatched = 0;
    for (index, (case, real)) in cases.iter().zip(&responses).enumerate() {
        let model = run_vector_input(&case.input, case.pi_version);
        let mismatches = compare(real, &model);
        if mismatches.is_empty() {
            continue;
        }
        mismatched += 1;
        if mismatched <= SHOWN_MISMATCHES {
            let fields: Vec<&str> = mismatches.iter().map(|m| m.field).collect();
            let input = abbreviated(&case.input).to_string();
            report += &format!(
                "\n--- {} (pi {}): {} differ\ninput: {}\nfull request: {}\n",
                case.origin,
                case.pi_version.checked_against(),
                fields.join(", "),
                truncate(&input, 2000),
                save_request(name, mismatched, &requests[index]),
            );
            for mismatch in mismatches {
                report += &format!("[{}]\n{}", mismatch.field, mismatch.diff);
            }
        }
    }
    assert!(
        mismatched == 0,
        "{name}: {mismatched} of {} inputs differ between the real pi and the oracle.{report}\n\
         replay: {replay}",
        cases.len()
    );
    eprintln!("{name}: {} inputs, 0 mismatches", cases.len());
}

/// Writes one bridge request line under `target/conformance/` and returns its path, so a
/// mismatch can be replayed on either side: `node oracles/conformance/bridge.mjs < FILE`, and
/// `ctxfuzz render --batch --pi VERSION` on its `input`.
fn save_request(test: &str, n: usize, request: &Value) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance");
    let slug: String = test
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let path = dir.join(format!("{slug}-{n}.jsonl"));
    let written =
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, format!("{request}\n")));
    match written {
        Ok(()) => path.display().to_string(),
        Err(e) => format!("(not saved: {e})"),
    }
}

/// The input with long strings cut, for display (the replay command reproduces it exactly).
fn abbreviated(value: &Value) -> Value {
    match value {
        Value::String(s) if s.len() > 120 => {
            Value::String(format!("{}…({} bytes)", truncate(s, 40), s.len()))
        }
        Value::Array(items) => Value::Array(items.iter().map(abbreviated).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), abbreviated(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

fn vectors() -> Vec<Value> {
    VECTORS
        .lines()
        .map(|line| serde_json::from_str(line).expect("a vector line"))
        .collect()
}

/// The bridge reproduces the recorded outputs (so a mismatch below is the model's, not the
/// bridge's), and the model agrees with the real pi on every vector in all four versions.
#[test]
fn conformance_reference_vectors_all_versions() {
    let vectors = vectors();
    let recorded: Vec<Case> = vectors
        .iter()
        .map(|v| Case {
            origin: v["name"].as_str().unwrap_or("?").to_string(),
            pi_version: PiVersion::of_vector(v["variant"].as_str().unwrap()).unwrap(),
            input: v["input"].clone(),
        })
        .collect();
    let requests = recorded
        .iter()
        .map(|c| json!({"pi": c.pi_version.checked_against(), "input": c.input}))
        .collect();
    let responses = ask_real_pi(requests);
    for ((case, vector), real) in recorded.iter().zip(&vectors).zip(&responses) {
        assert_eq!(
            real, &vector["output"],
            "the bridge no longer reproduces {}",
            case.origin
        );
    }
    let mut cases = Vec::new();
    for pi_version in PiVersion::ALL {
        for v in vectors.iter().filter(|v| v["variant"] == "current") {
            cases.push(Case {
                origin: v["name"].as_str().unwrap_or("?").to_string(),
                pi_version,
                input: v["input"].clone(),
            });
        }
    }
    check(
        "reference vectors",
        cases,
        "cargo test --release --test ctxfuzz conformance::conformance_reference_vectors_all_versions",
    );
}

/// The seed of this run: fresh each time unless `CTXFUZZ_CONFORMANCE_SEED` replays one.
fn run_seed() -> u64 {
    match std::env::var("CTXFUZZ_CONFORMANCE_SEED") {
        Ok(seed) => seed
            .parse()
            .expect("CTXFUZZ_CONFORMANCE_SEED must be a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    }
}

fn cases_per_pi_version() -> usize {
    std::env::var("CTXFUZZ_CONFORMANCE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5_000)
}

/// A message-mode input: a generated transcript, sometimes sent to a model without vision or
/// straight to `transformMessages`, with block forms the transcript generator leaves out
/// (whitespace-only text, every thinking form, signatures, images in user messages).
fn message_input(seed: u64) -> Value {
    let bytes = seeded_bytes(seed, pi_gen::SEED_BYTES);
    let mut messages =
        values(&pi_gen::transcript::<JsValue>(&mut Unstructured::new(&bytes)).expect("generates"));
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x9e37_79b9_7f4a_7c15);
    for message in &mut messages {
        enrich(message, &mut rng);
    }
    let mut input = json!({"messages": messages, "anthropic": true});
    if rng.u8(..3) == 0 {
        with_lone_surrogates(&mut input, &mut rng);
    }
    if rng.u8(..100) < 15 {
        input["model"] = json!({"input": ["text"]});
    }
    if rng.u8(..100) < 5 {
        input["skipConvert"] = json!(true);
    }
    input
}

const ODD_TEXTS: [&str; 6] = ["", "   ", "\n\t", "\u{feff}", "\u{85}", "ok\u{a0}"];

/// A `toolsAdded` / `toolsRemoved` value of one of the shapes pi reads differently: a proper
/// tool, one without parameters, a primitive, a string (iterated by character), a number (not
/// iterable), a `null` tool, none.
fn odd_tools(rng: &mut fastrand::Rng) -> Value {
    match rng.u8(..8) {
        0 => json!([{"name": "grep", "parameters": {"type": "object", "properties": {}}}]),
        1 => json!([{"name": "grep"}]),
        2 => json!(["grep"]),
        3 => json!("ab"),
        4 => json!(5),
        5 => json!([null]),
        6 => json!([]),
        _ => Value::Null,
    }
}

fn enrich(message: &mut Value, rng: &mut fastrand::Rng) {
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if role == "system" && rng.u8(..100) < 30 {
        message["toolsAdded"] = odd_tools(rng);
        if rng.bool() {
            message["toolsRemoved"] = odd_tools(rng);
        }
        if let Some(fields) = message.as_object_mut().filter(|_| rng.bool()) {
            fields.remove("timestamp");
        }
    }
    let Some(Value::Array(blocks)) = message.get_mut("content") else {
        if role == "user" && rng.u8(..100) < 5 {
            message["content"] = json!(ODD_TEXTS[rng.usize(..ODD_TEXTS.len())]);
        }
        return;
    };
    for block in blocks.iter_mut() {
        if rng.u8(..100) >= 12 {
            continue;
        }
        match block.get("type").and_then(Value::as_str) {
            Some("text") => match rng.u8(..3) {
                0 => block["text"] = json!(ODD_TEXTS[rng.usize(..ODD_TEXTS.len())]),
                1 => block["textSignature"] = json!("{\"id\":\"msg_1\"}"),
                _ => block["extra"] = json!(true),
            },
            Some("thinking") => {
                *block = match rng.u8(..5) {
                    0 => json!({"type": "thinking", "thinking": ""}),
                    1 => json!({"type": "thinking", "thinking": "   ", "thinkingSignature": "sig"}),
                    2 => {
                        json!({"type": "thinking", "thinking": "", "thinkingSignature": "enc", "redacted": true})
                    }
                    3 => json!({"type": "thinking", "thinking": "plain unsigned"}),
                    _ => {
                        json!({"type": "thinking", "thinking": "\u{feff}", "thinkingSignature": ""})
                    }
                }
            }
            Some("toolCall") => match rng.u8(..3) {
                0 => block["thoughtSignature"] = json!("ts"),
                1 => block["arguments"] = Value::Null,
                _ => {}
            },
            _ => {}
        }
    }
    if rng.u8(..100) < 8 {
        let extra = match role.as_str() {
            "user" | "toolResult" => {
                json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
            }
            "assistant" => {
                json!({"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"})
            }
            _ => return,
        };
        blocks.insert(rng.usize(..=blocks.len()), extra);
    }
}

/// The providers the openai-completions body is checked for, as their catalog entries read (the
/// compat flags are then varied per case).
const OPENAI_COMPLETIONS_MODELS: [(&str, &str, &str); 5] = [
    ("openai", "gpt-4o", "https://api.openai.com/v1"),
    (
        "openrouter",
        "deepseek/deepseek-r1",
        "https://openrouter.ai/api/v1",
    ),
    ("openrouter", "openai/gpt-5", "https://openrouter.ai/api/v1"),
    (
        "groq",
        "openai/gpt-oss-120b",
        "https://api.groq.com/openai/v1",
    ),
    ("deepseek", "deepseek-reasoner", "https://api.deepseek.com"),
];

/// The compat flags of `getCompat` that shape the messages (`supportsMidConvoSystemMessages` is
/// not modelled, so never set).
const OPENAI_COMPLETIONS_FLAGS: [&str; 7] = [
    "requiresToolsWithToolHistory",
    "requiresAssistantAfterToolResult",
    "requiresNonNullAssistantContent",
    "requiresThinkingAsText",
    "requiresToolResultName",
    "requiresReasoningContentOnAssistantMessages",
    "supportsDeveloperRole",
];

/// Signatures that name a reasoning field or parse as reasoning details (pi-ai reads both).
const REASONING_SIGNATURES: [&str; 6] = [
    "reasoning_content",
    "reasoning",
    "reasoning_text",
    "content",
    r#"[{"type":"reasoning.text","text":"t","format":"x"}]"#,
    r#"[{"type":"reasoning.summary","summary":5}]"#,
];
const THOUGHT_SIGNATURES: [&str; 4] = [
    r#"{"type":"reasoning.encrypted","id":"rs_1","data":"enc"}"#,
    r#"{"type":"reasoning.encrypted","id":"","data":"enc"}"#,
    "5",
    "{}",
];

/// A message-mode input for the openai-completions body: a generated transcript (as
/// [`message_input`] makes it) sent to one of [`OPENAI_COMPLETIONS_MODELS`] with varied compat
/// flags, some assistants from that very model (so their thinking reaches the builder), some
/// signatures pi reads as reasoning, and some call ids in the Responses API's `call|item` form or
/// over 40 characters.
fn openai_completions_input(seed: u64) -> Value {
    let mut input = message_input(seed);
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x2545_f491_4f6c_dd1d);
    let (provider, id, base_url) =
        OPENAI_COMPLETIONS_MODELS[rng.usize(..OPENAI_COMPLETIONS_MODELS.len())];
    let mut model = json!({"id": id, "api": "openai-completions", "provider": provider,
        "baseUrl": base_url, "reasoning": rng.bool(),
        "input": if rng.u8(..5) == 0 { json!(["text"]) } else { json!(["text", "image"]) }});
    if rng.u8(..4) > 0 {
        let mut compat = serde_json::Map::new();
        for flag in OPENAI_COMPLETIONS_FLAGS {
            match rng.u8(..4) {
                0 => compat.insert(flag.into(), json!(true)),
                1 => compat.insert(flag.into(), json!(false)),
                _ => None,
            };
        }
        model["compat"] = Value::Object(compat);
    }
    if let Some(Value::Array(messages)) = input.get_mut("messages") {
        for message in messages.iter_mut() {
            if message["role"] == "assistant" && rng.bool() {
                message["provider"] = json!(provider);
                message["api"] = json!("openai-completions");
                message["model"] = json!(id);
            }
            if let Some(Value::Array(blocks)) = message.get_mut("content") {
                for block in blocks.iter_mut() {
                    if rng.u8(..100) >= 20 {
                        continue;
                    }
                    if block["type"] == "thinking" {
                        block["thinkingSignature"] =
                            json!(REASONING_SIGNATURES[rng.usize(..REASONING_SIGNATURES.len())]);
                    } else if block["type"] == "toolCall" {
                        block["thoughtSignature"] =
                            json!(THOUGHT_SIGNATURES[rng.usize(..THOUGHT_SIGNATURES.len())]);
                    }
                }
            }
        }
    }
    odd_call_ids(&mut input["messages"], &mut rng);
    input
        .as_object_mut()
        .expect("an object")
        .remove("anthropic");
    input["openaiCompletions"] = json!(true);
    input["model"] = model;
    input
}

/// Turns some call ids (the same way wherever they occur) into the Responses API's `call|item`
/// form, long or short, or into ids over OpenAI's 40 characters.
fn odd_call_ids(value: &mut Value, rng: &mut fastrand::Rng) {
    renamed_ids(
        value,
        &mut std::collections::HashMap::new(),
        &mut |id| match rng.u8(..4) {
            0 => format!("{id}|fc_{}", "Ab+/=".repeat(rng.usize(..12))),
            1 => format!("{id}|"),
            2 => format!("{id}{}", "x".repeat(rng.usize(30..50))),
            _ => id.to_string(),
        },
    );
}

/// Every call id of `value` (`id`, `toolCallId`) replaced by what `rename` makes of it the first
/// time it is seen, so calls keep their results.
fn renamed_ids(
    value: &mut Value,
    ids: &mut std::collections::HashMap<String, String>,
    rename: &mut dyn FnMut(&str) -> String,
) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                match field {
                    Value::String(id) if name == "id" || name == "toolCallId" => {
                        let changed = ids.entry(id.clone()).or_insert_with(|| rename(id));
                        *id = changed.clone();
                    }
                    _ => renamed_ids(field, ids, rename),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                renamed_ids(item, ids, rename);
            }
        }
        _ => {}
    }
}

fn session_input(seed: u64) -> Value {
    let bytes = seeded_bytes(seed, 2 * pi_gen::SEED_BYTES);
    let mut input = session_gen::session_input(&mut Unstructured::new(&bytes)).expect("generates");
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5851_f42d_4c95_7f2d);
    if rng.u8(..3) == 0 {
        with_lone_surrogates(&mut input, &mut rng);
    }
    input["anthropic"] = json!(true);
    input
}

/// The halves of surrogate pairs a cut text or id ends up holding alone.
const LONE_UNITS: [u16; 6] = [0xD83D, 0xDE00, 0xD800, 0xDBFF, 0xDC00, 0xDFFF];

/// Keys whose string values are ids: an id is changed the same way wherever it occurs, so calls
/// keep their results and entries their parents.
const ID_KEYS: [&str; 7] = [
    "id",
    "toolCallId",
    "parentId",
    "targetId",
    "firstKeptEntryId",
    "fromId",
    "leafId",
];

/// Cuts some texts and ids of `input` inside a surrogate pair, as a JavaScript string sliced in
/// the middle of an emoji is: a lone half appended, inserted or standing alone. A session file's
/// lines (`jsonl`) get the same treatment, written back with the halves either as `\udXXX`
/// escapes or raw in the JavaScript text (both are what `JSON.parse` reads).
fn with_lone_surrogates(input: &mut Value, rng: &mut fastrand::Rng) {
    let mut ids = std::collections::HashMap::new();
    if let Some(Value::String(jsonl)) = input.get("jsonl") {
        let escaped = rng.bool();
        let lines: Vec<String> = jsonl
            .split('\n')
            .map(|line| match json_text::parse(line) {
                Ok(mut entry) => {
                    cut(&mut entry, None, rng, &mut ids);
                    if escaped {
                        json_text::to_string(&entry).expect("JSON")
                    } else {
                        entry.to_string()
                    }
                }
                Err(_) => line.to_string(),
            })
            .collect();
        input["jsonl"] = Value::String(lines.join("\n"));
    }
    cut(input, None, rng, &mut ids);
}

fn cut(
    value: &mut Value,
    key: Option<&str>,
    rng: &mut fastrand::Rng,
    ids: &mut std::collections::HashMap<String, String>,
) {
    match value {
        Value::String(text) if key.is_some_and(|k| ID_KEYS.contains(&k)) => {
            let changed = ids.entry(text.clone()).or_insert_with(|| {
                if rng.u8(..3) == 0 {
                    format!("{text}{}", lone_half(rng))
                } else {
                    text.clone()
                }
            });
            *text = changed.clone();
        }
        Value::String(text)
            if matches!(key, Some("text" | "thinking" | "content" | "summary"))
                && rng.u8(..100) < 15 =>
        {
            let half = lone_half(rng);
            *text = match rng.u8(..3) {
                0 => half,
                1 => format!("{text}{half}"),
                _ => {
                    let at = text
                        .char_indices()
                        .map(|(i, _)| i)
                        .nth(rng.usize(..=text.chars().count().min(8)));
                    let at = at.unwrap_or(text.len());
                    format!("{}{half}{}", &text[..at], &text[at..])
                }
            };
        }
        Value::Array(items) => {
            for item in items {
                cut(item, key, rng, ids);
            }
        }
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                if name != "jsonl" {
                    cut(field, Some(name), rng, ids);
                }
            }
        }
        _ => {}
    }
}

fn lone_half(rng: &mut fastrand::Rng) -> String {
    js_string::lone(LONE_UNITS[rng.usize(..LONE_UNITS.len())])
}

/// A generator of message-mode inputs, from a seed.
type InputOf = fn(u64) -> Value;

fn generated(pi_version: PiVersion) {
    let seed = run_seed();
    let count = cases_per_pi_version();
    let mut cases = Vec::with_capacity(count + count / 4);
    for i in 0..count as u64 {
        let case_seed = seed.wrapping_add(i);
        cases.push(Case {
            origin: format!("transcript of seed {case_seed}"),
            pi_version,
            input: message_input(case_seed),
        });
    }
    for i in 0..(count / 4) as u64 {
        let case_seed = seed.wrapping_add(i);
        cases.push(Case {
            origin: format!("session of seed {case_seed}"),
            pi_version,
            input: session_input(case_seed),
        });
    }
    // Half as many transcripts again for each API with a body of its own.
    let apis: [(&str, InputOf); 3] = [
        ("openai-completions", openai_completions_input),
        ("openai-responses", openai_responses_input),
        ("google-generative-ai", google_input),
    ];
    for (api, input) in apis {
        for i in 0..(count / 2) as u64 {
            let case_seed = seed.wrapping_add(i);
            cases.push(Case {
                origin: format!("{api} transcript of seed {case_seed}"),
                pi_version,
                input: input(case_seed),
            });
        }
    }
    let test = format!("conformance_generated_{}", test_suffix(pi_version));
    check(
        &format!(
            "generated, pi {} (seed {seed})",
            pi_version.checked_against()
        ),
        cases,
        &format!(
            "CTXFUZZ_CONFORMANCE_SEED={seed} cargo test --release --test ctxfuzz conformance::{test}"
        ),
    );
}

fn test_suffix(pi_version: PiVersion) -> &'static str {
    match pi_version {
        PiVersion::Before0804 => "0_79",
        PiVersion::From0804 => "0_81",
        PiVersion::From086 => "0_87",
        PiVersion::From130 => "1_6",
    }
}

#[test]
fn conformance_generated_0_79() {
    generated(PiVersion::Before0804);
}

#[test]
fn conformance_generated_0_81() {
    generated(PiVersion::From0804);
}

#[test]
fn conformance_generated_0_87() {
    generated(PiVersion::From086);
}

#[test]
fn conformance_generated_1_6() {
    generated(PiVersion::From130);
}

const OPENAI_COMPLETIONS_VECTORS: &str = "oracles/tests/data/openai_completions.expected.jsonl";
const OPENAI_RESPONSES_VECTORS: &str = "oracles/tests/data/openai_responses.expected.jsonl";
const GOOGLE_VECTORS: &str = "oracles/tests/data/google.expected.jsonl";
/// Generated transcripts among each API's golden vectors, per pi version.
const GENERATED_GOLDEN_VECTORS: u64 = 3;

/// An openai-completions model of `provider` (its catalog's id and base URL) with `compat`.
fn openai_model(provider: &str, reasoning: bool, compat: Value) -> Value {
    let (_, id, base_url) = OPENAI_COMPLETIONS_MODELS
        .iter()
        .find(|(p, _, _)| *p == provider)
        .expect("a listed provider");
    json!({"id": id, "api": "openai-completions", "provider": provider, "baseUrl": base_url,
           "reasoning": reasoning, "input": ["text", "image"], "compat": compat})
}

/// An assistant message of `model` (`None`: of Anthropic's model) with `content`.
fn assistant(content: Value, model: Option<&Value>) -> Value {
    let (api, provider, id) = match model {
        Some(m) => (m["api"].clone(), m["provider"].clone(), m["id"].clone()),
        None => (
            json!("anthropic-messages"),
            json!("anthropic"),
            json!("claude-sonnet-4-5"),
        ),
    };
    json!({"role": "assistant", "content": content, "api": api, "provider": provider,
           "model": id, "stopReason": "toolUse", "timestamp": 2})
}

fn result(id: &str, content: Value) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": content,
           "isError": false, "timestamp": 3})
}

fn call(id: &str) -> Value {
    json!({"type": "toolCall", "id": id, "name": "read", "arguments": {"path": "a"}})
}

/// Transcripts that each reach one branch of pi's openai-completions conversion.
fn openai_completions_cases() -> Vec<(&'static str, Value)> {
    let user = |content: Value| json!({"role": "user", "content": content, "timestamp": 1});
    let text = |t: &str| json!({"type": "text", "text": t});
    let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
    let long_id = "call_".to_string() + &"x".repeat(45);
    let input = |messages: Vec<Value>, model: Value| json!({"messages": messages, "model": model, "openaiCompletions": true});
    let plain = openai_model("groq", false, json!({}));
    let flags = openai_model(
        "openrouter",
        true,
        json!({"requiresAssistantAfterToolResult": true, "requiresToolResultName": true,
               "requiresReasoningContentOnAssistantMessages": true}),
    );
    let thinking_as_text = openai_model("deepseek", true, json!({"requiresThinkingAsText": true}));
    let non_null = openai_model(
        "groq",
        false,
        json!({"requiresNonNullAssistantContent": true}),
    );
    let deepseek = openai_model("deepseek", true, Value::Null);
    let openai = openai_model("openai", true, Value::Null);
    let no_vision = {
        let mut m = openai_model("groq", false, json!({}));
        m["input"] = json!(["text"]);
        m
    };
    let system = |content: &str| json!({"role": "system", "content": content, "timestamp": 0});
    let conversation = |model: &Value| {
        vec![
            system("be brief"),
            user(json!("go")),
            assistant(
                json!([text("  "), text("calling"), call("c1")]),
                Some(model),
            ),
            result("c1", json!([text("done")])),
            user(json!("next")),
        ]
    };
    let signed = |signature: Value| {
        assistant(
            json!([{"type": "thinking", "thinking": "plan", "thinkingSignature": signature},
                   {"type": "thinking", "thinking": "more"}, text("answer")]),
            Some(&plain),
        )
    };
    vec![
        (
            "user content forms",
            input(
                vec![
                    user(json!("plain")),
                    user(
                        json!([text(""), image.clone(), text("x\u{10F800}y"), {"type": "text", "text": 7}]),
                    ),
                    user(json!([text("")])),
                    user(json!([])),
                ],
                plain.clone(),
            ),
        ),
        (
            "a user part of null text",
            input(
                vec![user(json!([{"type": "text", "text": null}]))],
                plain.clone(),
            ),
        ),
        (
            "user content null",
            json!({"messages": [user(Value::Null)], "model": plain.clone(),
            "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "user content a number",
            json!({"messages": [user(json!(5))], "model": plain.clone(),
            "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "a null user part",
            input(vec![user(json!([null]))], plain.clone()),
        ),
        ("ids: a long call id with dashes and an item", {
            let id = format!("call-{}|fc-{}", "a".repeat(35), "b".repeat(10));
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([call(&id)]), None),
                    result(&id, json!([text("1")])),
                ],
                openai_model("groq", false, Value::Null),
            )
        }),
        (
            "user texts that are arrays",
            input(
                vec![user(json!([{"type": "text", "text": []}, text("a")]))],
                plain.clone(),
            ),
        ),
        (
            "a user text that is a non-empty array",
            input(
                vec![user(json!([{"type": "text", "text": ["a"]}]))],
                plain.clone(),
            ),
        ),
        ("deepseek by its base URL", {
            let mut m = openai_model("deepseek", true, Value::Null);
            m["provider"] = json!("proxy");
            m["baseUrl"] = json!("https://API.DeepSeek.com/v1");
            input(conversation(&m), m)
        }),
        ("deepseek by its provider", {
            let mut m = openai_model("deepseek", true, Value::Null);
            m["baseUrl"] = json!("https://example.com/v1");
            input(conversation(&m), m)
        }),
        ("openai by its base URL", {
            let mut m = openai_model("openai", true, Value::Null);
            m["provider"] = json!("proxy");
            input(conversation(&m), m)
        }),
        ("openrouter by its base URL", {
            let mut m = openai_model("openrouter", true, Value::Null);
            m["provider"] = json!("proxy");
            m["id"] = json!("meta/llama");
            input(conversation(&m), m)
        }),
        (
            "compat flags: bridge, names, reasoning_content",
            input(conversation(&flags), flags.clone()),
        ),
        (
            "no compat: null content, no name",
            input(conversation(&plain), plain.clone()),
        ),
        (
            "deepseek detected",
            input(conversation(&deepseek), deepseek.clone()),
        ),
        (
            "openai: developer role",
            input(conversation(&openai), openai.clone()),
        ),
        (
            "openrouter openai/ model: developer role before 1.3",
            input(
                conversation(&openai_model("openrouter", true, Value::Null)),
                {
                    let mut m = openai_model("openrouter", true, Value::Null);
                    m["id"] = json!("openai/gpt-5");
                    m
                },
            ),
        ),
        (
            "non-null assistant content",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([call("c1")]), Some(&non_null)),
                    result("c1", json!([])),
                    assistant(json!([text(" ")]), Some(&non_null)),
                ],
                non_null.clone(),
            ),
        ),
        (
            "thinking as text",
            input(
                vec![
                    user(json!("go")),
                    signed(json!("reasoning")),
                    assistant(
                        json!([{"type": "thinking", "thinking": " "}, text("t")]),
                        Some(&thinking_as_text),
                    ),
                ],
                thinking_as_text.clone(),
            ),
        ),
        (
            "thinking as text of the model",
            input(
                vec![
                    user(json!("go")),
                    assistant(
                        json!([{"type": "thinking", "thinking": "a"}, {"type": "thinking", "thinking": "b\u{10F800}"}, text("t")]),
                        Some(&thinking_as_text),
                    ),
                ],
                thinking_as_text.clone(),
            ),
        ),
        (
            "reasoning field names",
            input(
                vec![
                    user(json!("go")),
                    signed(json!("reasoning_content")),
                    signed(json!("reasoning")),
                    signed(json!("reasoning_text")),
                    signed(json!("sig")),
                    signed(json!("")),
                    signed(json!(5)),
                ],
                plain.clone(),
            ),
        ),
        (
            "reasoning details",
            input(
                vec![
                    user(json!("go")),
                    signed(json!(
                        r#"[{"type":"reasoning.text","text":"t","signature":null,"id":null,"index":0}]"#
                    )),
                    signed(json!(
                        r#"[{"type":"reasoning.summary","summary":"s","format":"f"},{"type":"reasoning.encrypted","data":"d"}]"#
                    )),
                    signed(json!(
                        r#"[{"type":"reasoning.text","text":"t","signature":1}]"#
                    )),
                    signed(json!(r#"[{"type":"reasoning.text","text":"t","id":1}]"#)),
                    signed(json!(
                        r#"[{"type":"reasoning.text","text":"t","format":1}]"#
                    )),
                    signed(json!(
                        r#"[{"type":"reasoning.text","text":"t","index":"0"}]"#
                    )),
                    signed(json!(r#"[{"type":"reasoning.encrypted","data":1}]"#)),
                    signed(json!(r#"[{"type":"reasoning.summary","summary":1}]"#)),
                    signed(json!(r#"[{"type":"other"}]"#)),
                    signed(json!(r#"[5]"#)),
                    signed(json!(r#"[]"#)),
                    signed(json!(r#"{"type":"reasoning.text","text":"t"}"#)),
                ],
                plain.clone(),
            ),
        ),
        (
            "legacy reasoning details on calls",
            input(
                vec![
                    user(json!("go")),
                    assistant(
                        json!([
                            {"type": "thinking", "thinking": "plan", "thinkingSignature": "reasoning"},
                            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {},
                             "thoughtSignature": r#"{"type":"reasoning.encrypted","id":"rs_1","data":"enc"}"#},
                            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {},
                             "thoughtSignature": r#"{"type":"reasoning.encrypted","id":"","data":"enc"}"#},
                            {"type": "toolCall", "id": "c3", "name": "read", "arguments": {},
                             "thoughtSignature": r#"{"type":"reasoning.encrypted","id":"rs_3","data":""}"#},
                            {"type": "toolCall", "id": "c4", "name": "read", "arguments": {},
                             "thoughtSignature": r#"{"type":"reasoning.summary","id":"rs_4","summary":"s"}"#},
                            {"type": "toolCall", "id": "c5", "name": "read", "thoughtSignature": "0"},
                            {"type": "toolCall", "id": "c6", "name": "read", "thoughtSignature": 5},
                            {"type": "toolCall", "name": "read", "arguments": null},
                        ]),
                        Some(&plain),
                    ),
                ],
                plain.clone(),
            ),
        ),
        (
            "tool results: texts, blanks, images",
            input(
                vec![
                    user(json!("go")),
                    assistant(
                        json!([call("c1"), call("c2"), call("c3"), call("c4")]),
                        None,
                    ),
                    result("c1", json!([text("a"), text("b\u{10F800}")])),
                    result("c2", json!([text(" ")])),
                    result("c3", json!([image.clone()])),
                    result("c4", json!([])),
                    user(json!("next")),
                ],
                flags.clone(),
            ),
        ),
        (
            "tool result images to a model without vision",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([call("c1")]), None),
                    result("c1", json!([image.clone(), text("seen")])),
                ],
                no_vision,
            ),
        ),
        (
            "tool result images, no bridge",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([call("c1")]), None),
                    result("c1", json!([text("seen"), image.clone()])),
                    user(json!("next")),
                ],
                plain.clone(),
            ),
        ),
        (
            "a null tool result part",
            json!({"messages": [user(json!("go")),
            assistant(json!([call("c1")]), Some(&plain)), result("c1", json!([null]))],
            "model": plain.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "tool result content a string",
            json!({"messages": [user(json!("go")),
            assistant(json!([call("c1")]), Some(&plain)), result("c1", json!("text"))],
            "model": plain.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "ids: call|item, long, openai's 40",
            input(
                vec![
                    user(json!("go")),
                    assistant(
                        json!([
                            call("c1|fc_1"),
                            call("c2|"),
                            call(&format!("c3|{}", "I+/=".repeat(12))),
                            call(&long_id),
                            call("c4|a|b")
                        ]),
                        None,
                    ),
                    result("c1|fc_1", json!([text("1")])),
                    result("c2|", json!([text("2")])),
                    result(&format!("c3|{}", "I+/=".repeat(12)), json!([text("3")])),
                    result(&long_id, json!([text("4")])),
                    result("c4|a|b", json!([text("5")])),
                ],
                openai_model("openai", false, Value::Null),
            ),
        ),
        (
            "ids kept for another provider",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([call(&long_id)]), None),
                    result(&long_id, json!([text("4")])),
                ],
                plain.clone(),
            ),
        ),
        (
            "a long id cut inside a surrogate pair",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([call(&format!("{}😀", "z".repeat(39)))]), None),
                    result(&format!("{}😀", "z".repeat(39)), json!([text("4")])),
                ],
                openai_model("openai", false, Value::Null),
            ),
        ),
        (
            "a system message without convertToLlm",
            json!({"messages": [
            user(json!("go")), assistant(json!([call("c1")]), Some(&flags)), result("c1", json!([text("r")])),
            system("note"), user(json!("next"))],
            "model": flags.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "an assistant without content in the tool history",
            json!({"messages": [
            user(json!("go")), assistant(Value::Null, None)],
            "model": plain.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "an assistant with string content in the tool history",
            json!({"messages": [
            user(json!("go")), assistant(json!("text"), Some(&plain))],
            "model": plain.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "tool history: a null block",
            json!({"messages": [
            user(json!("go")), assistant(json!([null]), Some(&plain))],
            "model": plain.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "tool history ends at a result",
            json!({"messages": [
            user(json!("go")), result("c9", json!([text("r")])), assistant(Value::Null, None)],
            "model": plain.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "tool history ends at a call",
            json!({"messages": [
            user(json!("go")), assistant(json!([text("a"), call("c1")]), Some(&plain)),
            result("c1", json!([text("r")])), assistant(Value::Null, None)],
            "model": plain.clone(), "openaiCompletions": true, "skipConvert": true}),
        ),
        (
            "a system prompt whose tools the body declares",
            input(
                vec![
                    json!({"role": "system", "content": "sys", "timestamp": 0,
                   "toolsAdded": [{"name": "read", "parameters": {"type": "object", "properties": {}}}]}),
                    user(json!("go")),
                    assistant(Value::Null, None),
                ],
                plain.clone(),
            ),
        ),
        (
            "blank texts of an assistant",
            input(
                vec![
                    user(json!("go")),
                    assistant(
                        json!([text(" "), {"type": "text", "text": null}]),
                        Some(&plain),
                    ),
                ],
                plain.clone(),
            ),
        ),
        (
            "a blank thinking of a non-string",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([{"type": "thinking", "thinking": 5}]), Some(&plain)),
                ],
                plain.clone(),
            ),
        ),
    ]
}

/// The openai-completions golden vectors: [`openai_completions_cases`] and a few generated
/// transcripts of fixed seeds, in every pi version, as the real pi answers them. The committed file
/// must be what the real pi answers now (`CTXFUZZ_BLESS=1` rewrites it); the oracle package's
/// test checks its model against the same file.
#[test]
fn conformance_openai_completions_golden_vectors() {
    golden_vectors(
        OPENAI_COMPLETIONS_VECTORS,
        openai_completions_cases,
        openai_completions_input,
        "conformance_openai_completions_golden_vectors",
    );
}

/// The openai-responses golden vectors, as [`conformance_openai_completions_golden_vectors`] keeps
/// the openai-completions ones.
#[test]
fn conformance_openai_responses_golden_vectors() {
    golden_vectors(
        OPENAI_RESPONSES_VECTORS,
        openai_responses_cases,
        openai_responses_input,
        "conformance_openai_responses_golden_vectors",
    );
}

/// The google-generative-ai golden vectors, as [`conformance_openai_completions_golden_vectors`]
/// keeps the openai-completions ones.
#[test]
fn conformance_google_golden_vectors() {
    golden_vectors(
        GOOGLE_VECTORS,
        google_cases,
        google_input,
        "conformance_google_golden_vectors",
    );
}

/// Golden vectors of one API recorded from the real pi: `cases` and
/// [`GENERATED_GOLDEN_VECTORS`] inputs of `generated` (seeds 0, 1, ...), in every pi
/// version. The file at `path` must be what the real pi answers now; `CTXFUZZ_BLESS=1` rewrites it.
fn golden_vectors(
    path: &str,
    cases: fn() -> Vec<(&'static str, Value)>,
    generated: fn(u64) -> Value,
    test: &str,
) {
    let mut vectors = Vec::new();
    for pi_version in PiVersion::ALL {
        let generated = (0..GENERATED_GOLDEN_VECTORS)
            .map(|seed| (format!("generated seed {seed}"), generated(seed)));
        let cases = cases()
            .into_iter()
            .map(|(name, input)| (name.to_string(), input))
            .chain(generated);
        for (name, input) in cases {
            vectors.push(
                json!({"name": name, "variant": pi_version.checked_against(), "input": input}),
            );
        }
    }
    let requests = vectors
        .iter()
        .map(|v| json!({"pi": v["variant"], "input": v["input"]}))
        .collect();
    for (vector, output) in vectors.iter_mut().zip(ask_real_pi(requests)) {
        vector["output"] = output;
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text: String = vectors
        .iter()
        .map(|v| json_text::to_string(v).expect("JSON") + "\n")
        .collect();
    if std::env::var_os("CTXFUZZ_BLESS").is_some() {
        std::fs::write(&file, &text).expect("writes the vectors");
    }
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    let recorded: Vec<Value> = committed
        .lines()
        .map(|line| json_text::parse(line).expect("a vector line"))
        .collect();
    assert!(
        recorded == vectors,
        "{path} is not what the real pi answers now: \
         CTXFUZZ_BLESS=1 cargo test --release --test ctxfuzz conformance::{test} rewrites it"
    );
}
