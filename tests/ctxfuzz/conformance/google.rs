//! The google-generative-ai body in the conformance run: generated transcripts sent to a Gemini
//! API model ([`google_input`]), and the transcripts of its golden vectors ([`google_cases`]),
//! each aimed at a branch of pi's `convertMessages` of `google-shared.js`.

use serde_json::{Value, json};

use super::{assistant, call, message_input, renamed_ids, result};

/// Models behind the Gemini API: Gemini 2.5 (no call ids, result images in a turn of their own),
/// Gemini 3 (call ids from 0.86, images inside the response), and a Claude model, which pi sends
/// call ids in every version.
const MODELS: [&str; 3] = [
    "gemini-2.5-flash",
    "gemini-3-pro-preview",
    "claude-sonnet-4-5",
];

/// Thought signatures: base64 that pi keeps (with and without padding), and forms it drops (not
/// a multiple of 4, too much padding, a character outside base64, another API's JSON).
const SIGNATURES: [&str; 7] = [
    "QUJD",
    "c2lnbmF0dXJlcw==",
    "ab+/",
    "QUJ",
    "Q===",
    "sig-nature==",
    r#"{"type":"reasoning","id":"rs_1"}"#,
];

/// The Gemini API model `id`, as pi's catalog lists Google's models.
fn google_model(id: &str) -> Value {
    json!({"id": id, "api": "google-generative-ai", "provider": "google",
           "baseUrl": "https://generativelanguage.googleapis.com/v1beta", "reasoning": true,
           "input": ["text", "image"]})
}

/// A message-mode input for the google-generative-ai body: a generated transcript (as
/// [`message_input`] makes it) sent to one of [`MODELS`], with assistants of that very model (so
/// their signatures reach the builder), of another Google model, and of the same provider and
/// model through another API (which `transformMessages` treats as foreign and the builder does
/// not); signatures on text, thinking and calls, and call ids the normaliser rewrites.
pub(super) fn google_input(seed: u64) -> Value {
    let mut input = message_input(seed);
    let mut rng = fastrand::Rng::with_seed(seed ^ 0xbf58_476d_1ce4_e5b9);
    let mut model = google_model(MODELS[rng.usize(..MODELS.len())]);
    if rng.u8(..5) == 0 {
        model["input"] = json!(["text"]);
    }
    let signature = |rng: &mut fastrand::Rng| json!(SIGNATURES[rng.usize(..SIGNATURES.len())]);
    if let Some(Value::Array(messages)) = input.get_mut("messages") {
        for message in messages.iter_mut() {
            if message["role"] == "assistant" {
                let (api, id) = match rng.u8(..6) {
                    0..=2 => ("google-generative-ai", model["id"].clone()),
                    3 => ("google-generative-ai", json!("gemini-2.0-flash")),
                    4 => ("google-vertex", model["id"].clone()),
                    _ => continue,
                };
                message["provider"] = json!("google");
                message["api"] = json!(api);
                message["model"] = id;
            }
            let assistant = message["role"] == "assistant";
            let Some(Value::Array(blocks)) = message.get_mut("content") else {
                continue;
            };
            for block in blocks.iter_mut().filter(|_| assistant) {
                if rng.u8(..100) >= 40 {
                    continue;
                }
                let key = match block["type"].as_str() {
                    Some("text") => "textSignature",
                    Some("thinking") => "thinkingSignature",
                    Some("toolCall") => "thoughtSignature",
                    _ => continue,
                };
                block[key] = signature(&mut rng);
            }
        }
    }
    renamed_ids(
        &mut input["messages"],
        &mut std::collections::HashMap::new(),
        &mut |id| match rng.u8(..4) {
            0 => format!("{id}.{}", "y".repeat(rng.usize(50..70))),
            1 => format!("{id}|fc_1"),
            _ => id.to_string(),
        },
    );
    let fields = input.as_object_mut().expect("an object");
    fields.remove("anthropic");
    fields.insert("google".into(), json!(true));
    fields.insert("model".into(), model);
    input
}

/// An assistant message of `provider`, through `api`, of model `id`.
fn assistant_of(provider: &str, api: &str, id: &str, content: Value) -> Value {
    json!({"role": "assistant", "content": content, "api": api, "provider": provider,
           "model": id, "stopReason": "toolUse", "timestamp": 2})
}

/// Transcripts that each reach a branch of pi's google-generative-ai conversion.
pub(super) fn google_cases() -> Vec<(&'static str, Value)> {
    let user = |content: Value| json!({"role": "user", "content": content, "timestamp": 1});
    let text = |t: &str| json!({"type": "text", "text": t});
    let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
    let flash = google_model("gemini-2.5-flash");
    let pro = google_model("gemini-3-pro-preview");
    let claude = google_model("claude-sonnet-4-5");
    let same =
        |id: &str, content: Value| assistant_of("google", "google-generative-ai", id, content);
    let input = |messages: Vec<Value>, model: &Value| json!({"messages": messages, "model": model, "google": true});
    let raw = |messages: Vec<Value>, model: &Value| json!({"messages": messages, "model": model, "google": true, "skipConvert": true});
    let system = |content: &str| json!({"role": "system", "content": content, "timestamp": 0});
    let signed = |kind: &str, key: &str, value: Value, signature: &str| json!({"type": kind, kind: value, key: signature});
    // A thinking block, a text and a call, each with a signature pi keeps from the very model.
    let signed_blocks = json!([
        signed("thinking", "thinkingSignature", json!("t"), "QUJD"),
        signed("text", "textSignature", json!("a"), "QUJD"),
        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}, "thoughtSignature": "QUJD"}
    ]);
    let signed_exchange = |assistant: Value| {
        vec![
            user(json!("go")),
            assistant,
            result("c1", json!([text("one")])),
        ]
    };
    let exchange = |model: &Value, result_content: Value| {
        let id = model["id"].as_str().expect("an id");
        vec![
            user(json!("go")),
            same(id, json!([call("c1")])),
            result("c1", result_content),
        ]
    };
    vec![
        (
            "user content forms",
            raw(
                vec![
                    user(json!("plain")),
                    user(json!("")),
                    user(json!([text(""), image.clone(), text("x\u{1F600}y")])),
                    user(json!([])),
                    user(json!([{"type": "image"}])),
                ],
                &flash,
            ),
        ),
        (
            "user text that is not a string",
            raw(vec![user(json!([{"type": "text", "text": 7}]))], &flash),
        ),
        (
            "user content that is not an array",
            raw(vec![user(json!(5))], &flash),
        ),
        (
            "a system message leaves the contents",
            input(
                vec![system("be brief"), user(json!("go")), system("later")],
                &flash,
            ),
        ),
        (
            "a system message without convertToLlm",
            raw(vec![system("s"), user(json!("go"))], &flash),
        ),
        (
            "the very model's texts and thinking, signed and blank",
            input(
                vec![
                    user(json!("go")),
                    same(
                        "gemini-2.5-flash",
                        json!([
                            signed("thinking", "thinkingSignature", json!("t"), "QUJD"),
                            signed("thinking", "thinkingSignature", json!(""), "QUJD"),
                            signed("thinking", "thinkingSignature", json!("  "), "QUJ"),
                            {"type": "thinking", "thinking": "unsigned"},
                            signed("text", "textSignature", json!("a"), "c2lnbmF0dXJlcw=="),
                            signed("text", "textSignature", json!(""), "ab+/"),
                            signed("text", "textSignature", json!(" "), "Q==="),
                            text("b")
                        ]),
                    ),
                ],
                &flash,
            ),
        ),
        (
            "a signed blank text that is missing",
            input(
                vec![
                    user(json!("go")),
                    same(
                        "gemini-2.5-flash",
                        json!([{"type": "text", "textSignature": "QUJD"}]),
                    ),
                ],
                &flash,
            ),
        ),
        (
            "a text that is not a string",
            input(
                vec![
                    user(json!("go")),
                    same("gemini-2.5-flash", json!([{"type": "text", "text": 5}])),
                ],
                &flash,
            ),
        ),
        (
            "another Google model's thinking is text, without signatures",
            input(
                signed_exchange(same("gemini-2.0-flash", signed_blocks.clone())),
                &flash,
            ),
        ),
        (
            "the same model through another API keeps what transformMessages leaves",
            input(
                signed_exchange(assistant_of(
                    "google",
                    "google-vertex",
                    "gemini-2.5-flash",
                    signed_blocks.clone(),
                )),
                &flash,
            ),
        ),
        (
            "calls: signatures, arguments null and missing, no name",
            input(
                vec![
                    user(json!("go")),
                    same(
                        "gemini-2.5-flash",
                        json!([
                            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"p": 1}, "thoughtSignature": "QUJD"},
                            {"type": "toolCall", "id": "c2", "name": "read", "arguments": null, "thoughtSignature": "QUJ"},
                            {"type": "toolCall", "id": "c3", "name": "read"},
                            {"type": "toolCall", "id": "c4", "arguments": "text"}
                        ]),
                    ),
                    result("c1", json!([text("one")])),
                    result("c2", json!([text("two")])),
                    result("c3", json!([text("three")])),
                    result("c4", json!([text("four")])),
                ],
                &flash,
            ),
        ),
        (
            "call ids for Gemini 3: kept, and another provider's normalised",
            input(
                vec![
                    user(json!("go")),
                    same("gemini-3-pro-preview", json!([call("call.1")])),
                    result("call.1", json!([text("one")])),
                    assistant(json!([call(&format!("toolu_{}.", "x".repeat(70)))]), None),
                    result(&format!("toolu_{}.", "x".repeat(70)), json!([text("two")])),
                ],
                &pro,
            ),
        ),
        (
            "call ids for a Claude model behind the Gemini API",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([call("call|1")]), None),
                    result("call|1", json!([text("one")])),
                ],
                &claude,
            ),
        ),
        (
            "a call id that is not a string throws in transformMessages first, for a model without call ids",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([{"type": "toolCall", "id": 5, "name": "read"}]), None),
                    json!({"role": "toolResult", "toolCallId": 5, "toolName": "read", "content": [text("x")], "isError": false, "timestamp": 3}),
                ],
                &flash,
            ),
        ),
        (
            "a call id that is not a string throws in transformMessages first, for Gemini 3",
            input(
                vec![
                    user(json!("go")),
                    assistant(json!([{"type": "toolCall", "id": 5, "name": "read"}]), None),
                ],
                &pro,
            ),
        ),
        (
            "result responses: texts, none, images, blank, errors, for Gemini 2.5",
            input(
                vec![
                    user(json!("go")),
                    same(
                        "gemini-2.5-flash",
                        json!([call("c1"), call("c2"), call("c3"), call("c4"), call("c5")]),
                    ),
                    result("c1", json!([text("a"), text("b")])),
                    result("c2", json!([])),
                    result("c3", json!([image.clone()])),
                    {
                        let mut r = result("c4", json!([text("see"), image.clone()]));
                        r["isError"] = json!(true);
                        r
                    },
                    result("c5", json!([text("  "), image.clone()])),
                ],
                &flash,
            ),
        ),
        (
            "result images inside the response for Gemini 3",
            input(
                {
                    let mut messages = exchange(&pro, json!([text("see"), image.clone()]));
                    messages.push(user(json!("next")));
                    messages
                },
                &pro,
            ),
        ),
        (
            "a blank result text",
            input(exchange(&flash, json!([text(" ")])), &flash),
        ),
        (
            "result images for a model without vision",
            input(exchange(&flash, json!([image.clone()])), &{
                let mut m = flash.clone();
                m["input"] = json!(["text"]);
                m
            }),
        ),
        (
            "a result without a name or an id",
            raw(
                vec![
                    user(json!("go")),
                    json!({"role": "toolResult", "content": [text("x")], "isError": 1, "timestamp": 3}),
                ],
                &pro,
            ),
        ),
        (
            "a result whose content is not an array",
            raw(
                vec![
                    user(json!("go")),
                    json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": "x", "isError": false, "timestamp": 3}),
                ],
                &flash,
            ),
        ),
        (
            "a result with a null block",
            raw(
                vec![
                    user(json!("go")),
                    json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [null], "isError": false, "timestamp": 3}),
                ],
                &flash,
            ),
        ),
        // The bodies the Gemini API's rules refuse (oracles/src/pi/request/google.rs tests them),
        // as the real pi builds them.
        (
            "the result of an assistant that ended in error",
            input(
                vec![
                    user(json!("go")),
                    {
                        let mut a = same("gemini-2.5-flash", json!([call("c1")]));
                        a["stopReason"] = json!("error");
                        a
                    },
                    result("c1", json!([text("ok")])),
                ],
                &flash,
            ),
        ),
        (
            "an empty user text",
            input(
                vec![user(json!("")), user(json!([text(""), image.clone()]))],
                &flash,
            ),
        ),
        (
            "an orphaned result and a synthetic one",
            input(
                vec![
                    user(json!("go")),
                    same("gemini-2.5-flash", json!([call("c1")])),
                    user(json!("interrupt")),
                    result("c9", json!([text("late")])),
                ],
                &flash,
            ),
        ),
        (
            "a result after another's image turn starts a turn of its own",
            input(
                vec![
                    user(json!("go")),
                    same("gemini-2.5-flash", json!([call("c1"), call("c2")])),
                    result("c1", json!([text("one"), image.clone()])),
                    result("c2", json!([text("two")])),
                ],
                &flash,
            ),
        ),
    ]
}
