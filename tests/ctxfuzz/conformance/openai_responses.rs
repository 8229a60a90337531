//! The openai-responses body in the conformance run: generated transcripts sent to a Responses
//! model ([`openai_responses_input`]), and the transcripts of its golden vectors
//! ([`openai_responses_cases`]), each aimed at a branch of pi's `convertResponsesMessages`.

use serde_json::{Value, json};

use super::{call, message_input, renamed_ids, result};

/// Responses models: two of providers pi lets replay `call|item` ids, one of a provider it does
/// not (`openrouter`), as their catalog entries read.
const MODELS: [(&str, &str, &str); 3] = [
    ("openai", "gpt-5", "https://api.openai.com/v1"),
    ("opencode", "gpt-5", "https://opencode.ai/zen/v1"),
    ("openrouter", "openai/gpt-5", "https://openrouter.ai/api/v1"),
];

/// Thinking signatures that hold reasoning items as pi stores them (and one that parses to a
/// number).
const REASONING_ITEMS: [&str; 3] = [
    r#"{"type":"reasoning","id":"rs_1","summary":[]}"#,
    r#"{"type":"reasoning","id":"rs_2","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"enc"}"#,
    "5",
];

/// Thinking signatures that are not JSON: another API's signature, an encrypted blob over 20
/// characters, blanks alone, a text V8 names whole.
const NOT_JSON: [&str; 4] = [
    "EqQBCkgIARABGAIiQJ",
    "gAAAAABoZ7xKq3v9Lr0F_Q2mW8NnT5cXyZ",
    "  \t",
    "NaN",
];

/// Text signatures: pi's `{"v":1,...}` form with and without a phase, an id over 64 characters,
/// a plain id, and an empty id.
const TEXT_SIGNATURES: [&str; 5] = [
    r#"{"v":1,"id":"msg_1","phase":"commentary"}"#,
    r#"{"v":1,"id":"msg_2","phase":"final_answer"}"#,
    r#"{"v":1,"id":"msg_0123456789012345678901234567890123456789012345678901234567890123456789"}"#,
    "msg_plain",
    r#"{"v":1,"id":""}"#,
];

/// The model of `provider` in [`MODELS`].
fn responses_model(provider: &str, reasoning: bool) -> Value {
    let (_, id, base_url) = MODELS
        .iter()
        .find(|(p, _, _)| *p == provider)
        .expect("a listed provider");
    json!({"id": id, "api": "openai-responses", "provider": provider, "baseUrl": base_url,
           "reasoning": reasoning, "input": ["text", "image"]})
}

/// A message-mode input for the openai-responses body: a generated transcript (as
/// [`message_input`] makes it) sent to one of [`MODELS`] (developer role on, off or by default),
/// with assistants of that very model (so their signatures reach the builder), of a sibling model
/// of the same provider and API, and of the same provider through another API; some signatures
/// and call ids in the forms pi reads.
pub(super) fn openai_responses_input(seed: u64) -> Value {
    let mut input = message_input(seed);
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x94d0_49bb_1331_11eb);
    let (provider, _, _) = MODELS[rng.usize(..MODELS.len())];
    let mut model = responses_model(provider, rng.bool());
    if rng.u8(..5) == 0 {
        model["input"] = json!(["text"]);
    }
    match rng.u8(..4) {
        0 => model["compat"] = json!({"supportsDeveloperRole": false}),
        1 => model["compat"] = json!({"supportsDeveloperRole": true}),
        _ => {}
    }
    if let Some(Value::Array(messages)) = input.get_mut("messages") {
        for message in messages.iter_mut() {
            if message["role"] == "assistant" {
                let (api, id) = match rng.u8(..6) {
                    0..=2 => ("openai-responses", model["id"].clone()),
                    3 => ("openai-responses", json!("gpt-4.1")),
                    4 => ("openai-completions", model["id"].clone()),
                    _ => continue,
                };
                message["provider"] = json!(provider);
                message["api"] = json!(api);
                message["model"] = id;
            }
            let assistant = message["role"] == "assistant";
            let Some(Value::Array(blocks)) = message.get_mut("content") else {
                continue;
            };
            for block in blocks.iter_mut() {
                // Every thinking block but a few gets a signature of a Responses model: the
                // generated `sig` would throw on most transcripts.
                if block["type"] == "thinking" && rng.u8(..10) > 0 {
                    block["thinkingSignature"] = json!(match rng.u8(..10) {
                        0 => NOT_JSON[rng.usize(..NOT_JSON.len())],
                        _ => REASONING_ITEMS[rng.usize(..REASONING_ITEMS.len())],
                    });
                }
                if rng.u8(..100) >= 30 {
                    continue;
                }
                if block["type"] == "text" && assistant {
                    block["textSignature"] =
                        json!(TEXT_SIGNATURES[rng.usize(..TEXT_SIGNATURES.len())]);
                } else if block["type"] == "toolCall" {
                    block["namespace"] = json!("functions");
                }
            }
        }
    }
    renamed_ids(
        &mut input["messages"],
        &mut std::collections::HashMap::new(),
        &mut |id| match rng.u8(..6) {
            0 => format!("{id}|fc_{}", "Ab+/=".repeat(rng.usize(..4))),
            1 => format!("{id}|"),
            2 => format!("{id}|rs.{}|x", rng.u8(..)),
            3 => format!("{id}_.{}", "y".repeat(rng.usize(50..70))),
            _ => id.to_string(),
        },
    );
    let fields = input.as_object_mut().expect("an object");
    fields.remove("anthropic");
    fields.insert("openaiResponses".into(), json!(true));
    fields.insert("model".into(), model);
    input
}

/// An assistant message of `model`'s provider, through `api`, of model `id`.
fn assistant_of(model: &Value, api: &str, id: &str, content: Value) -> Value {
    json!({"role": "assistant", "content": content, "api": api, "provider": model["provider"],
           "model": id, "stopReason": "toolUse", "timestamp": 2})
}

/// Transcripts that each reach a branch of pi's openai-responses conversion.
pub(super) fn openai_responses_cases() -> Vec<(&'static str, Value)> {
    let user = |content: Value| json!({"role": "user", "content": content, "timestamp": 1});
    let text = |t: &str| json!({"type": "text", "text": t});
    let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
    let openai = responses_model("openai", true);
    let openrouter = responses_model("openrouter", false);
    let same = |content: Value| assistant_of(&openai, "openai-responses", "gpt-5", content);
    let input = |messages: Vec<Value>, model: &Value| json!({"messages": messages, "model": model, "openaiResponses": true});
    let raw = |messages: Vec<Value>, model: &Value| json!({"messages": messages, "model": model, "openaiResponses": true, "skipConvert": true});
    let thinking = |signature: Value| json!({"type": "thinking", "thinking": "t", "thinkingSignature": signature});
    let signed_text =
        |t: &str, signature: &str| json!({"type": "text", "text": t, "textSignature": signature});
    let system = |content: &str| json!({"role": "system", "content": content, "timestamp": 0});
    vec![
        (
            "user content forms",
            raw(
                vec![
                    user(json!("plain")),
                    user(json!([text(""), image.clone(), text("x\u{1F600}y")])),
                    user(json!([])),
                    user(json!("after an empty one")),
                ],
                &openai,
            ),
        ),
        (
            "user text that is not a string",
            raw(vec![user(json!([{"type": "text", "text": 7}]))], &openai),
        ),
        (
            "user content that is not an array",
            raw(vec![user(json!(5))], &openai),
        ),
        (
            "system prompt: developer, system, compat off",
            input(vec![system("be brief"), user(json!("go"))], &openai),
        ),
        (
            "system prompt to a model without reasoning",
            input(vec![system("be brief"), user(json!("go"))], &openrouter),
        ),
        (
            "system prompt with the developer role turned off",
            input(vec![system("be brief"), user(json!("go"))], &{
                let mut m = openai.clone();
                m["compat"] = json!({"supportsDeveloperRole": false});
                m
            }),
        ),
        (
            "a system message without convertToLlm is counted before 0.86",
            raw(
                vec![system("s"), user(json!("go")), same(json!([text("a")]))],
                &openai,
            ),
        ),
        (
            "reasoning items: JSON signatures, falsy and unsigned thinking",
            input(
                vec![
                    user(json!("go")),
                    same(json!([
                        thinking(json!(r#"{"type":"reasoning","id":"rs_1","summary":[]}"#)),
                        thinking(json!("")),
                        {"type": "thinking", "thinking": "unsigned"},
                        thinking(json!("5")),
                        text("done")
                    ])),
                ],
                &openai,
            ),
        ),
        (
            "a signature that is not JSON throws",
            input(
                vec![
                    user(json!("go")),
                    same(json!([thinking(json!("EqQBCkgIARABGAIiQJxyzxyz"))])),
                ],
                &openai,
            ),
        ),
        (
            "a signature of blanks throws",
            input(
                vec![user(json!("go")), same(json!([thinking(json!("  "))]))],
                &openai,
            ),
        ),
        (
            "another model's thinking is not a reasoning item",
            input(
                vec![
                    user(json!("go")),
                    assistant_of(
                        &openai,
                        "openai-responses",
                        "gpt-4.1",
                        json!([
                            thinking(json!(r#"{"type":"reasoning","id":"rs_1","summary":[]}"#)),
                            text("a")
                        ]),
                    ),
                ],
                &openai,
            ),
        ),
        (
            "message ids: numbered, signed, phased, long, plain",
            input(
                vec![
                    user(json!("go")),
                    same(json!([text("a"), text("   "), text("b")])),
                    user(json!("more")),
                    same(json!([
                        signed_text("c", r#"{"v":1,"id":"msg_7","phase":"commentary"}"#),
                        signed_text("d", r#"{"v":1,"id":"msg_8","phase":"other"}"#),
                        signed_text("e", &format!("msg_{}", "z".repeat(70))),
                        signed_text("f", "msg_plain"),
                        signed_text("g", r#"{"v":1,"id":""}"#)
                    ])),
                ],
                &openai,
            ),
        ),
        (
            "a text signature that is not a string throws",
            input(
                vec![
                    user(json!("go")),
                    same(json!([{"type": "text", "text": "a", "textSignature": 5}])),
                ],
                &openai,
            ),
        ),
        (
            "an assistant without items is dropped and not counted",
            input(
                vec![
                    user(json!("go")),
                    same(json!([{"type": "thinking", "thinking": "t"}])),
                    user(json!("again")),
                    same(json!([text("a")])),
                ],
                &openai,
            ),
        ),
        (
            "calls of the very model keep their item ids",
            input(
                vec![
                    user(json!("go")),
                    same(json!([
                        {"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {"p": 1}, "namespace": "functions"},
                        {"type": "toolCall", "id": "call_2|rs_2", "name": "read", "arguments": null},
                        {"type": "toolCall", "id": "call_3", "name": "read"},
                        {"type": "toolCall", "id": "call_4|", "arguments": {}}
                    ])),
                    result("call_1|fc_1", json!([text("one")])),
                    result("call_2|rs_2", json!([text("two")])),
                    result("call_3", json!([text("three")])),
                    result("call_4|", json!([text("four")])),
                ],
                &openai,
            ),
        ),
        (
            "calls of a sibling model lose their fc_ item ids",
            input(
                vec![
                    user(json!("go")),
                    assistant_of(
                        &openai,
                        "openai-responses",
                        "gpt-4.1",
                        json!([
                            {"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {}, "namespace": "functions"},
                            {"type": "toolCall", "id": "call_2|item_2", "name": "read", "arguments": {}}
                        ]),
                    ),
                    result("call_1|fc_1", json!([text("one")])),
                    result("call_2|item_2", json!([text("two")])),
                ],
                &openai,
            ),
        ),
        (
            "calls through another API get hashed item ids",
            input(
                vec![
                    user(json!("go")),
                    assistant_of(
                        &openai,
                        "openai-completions",
                        "gpt-5",
                        json!([
                            {"type": "toolCall", "id": "call.1|fc_1", "name": "read", "arguments": {}},
                            {"type": "toolCall", "id": "call_2", "name": "read", "arguments": {}}
                        ]),
                    ),
                    result("call.1|fc_1", json!([text("one")])),
                    result("call_2", json!([text("two")])),
                ],
                &openai,
            ),
        ),
        (
            "another provider's call|item ids for a provider that does not replay them",
            input(
                vec![
                    user(json!("go")),
                    assistant_of(
                        &openai,
                        "openai-responses",
                        "gpt-5",
                        json!([
                            call("call_1|fc_1"),
                            call(&format!("toolu_{}.", "x".repeat(70)))
                        ]),
                    ),
                    result("call_1|fc_1", json!([text("one")])),
                    result(&format!("toolu_{}.", "x".repeat(70)), json!([text("two")])),
                ],
                &openrouter,
            ),
        ),
        (
            "a call id that is not a string",
            input(
                vec![
                    user(json!("go")),
                    same(json!([{"type": "toolCall", "id": 5, "name": "read"}])),
                ],
                &openai,
            ),
        ),
        (
            "another model's call id that is not a string throws in transformMessages first",
            input(
                vec![
                    user(json!("go")),
                    assistant_of(
                        &openrouter,
                        "openai-completions",
                        "x",
                        json!([{"type": "toolCall", "id": 5, "name": "read"}]),
                    ),
                ],
                &openrouter,
            ),
        ),
        (
            "result outputs: texts, none, images, blank",
            input(
                vec![
                    user(json!("go")),
                    same(json!([
                        call("c1"),
                        call("c2"),
                        call("c3"),
                        call("c4"),
                        call("c5")
                    ])),
                    result("c1", json!([text("a"), text("b")])),
                    result("c2", json!([])),
                    result("c3", json!([image.clone()])),
                    result("c4", json!([text("see"), image.clone()])),
                    result("c5", json!([text("  "), image.clone()])),
                ],
                &openai,
            ),
        ),
        (
            "a blank result text",
            input(
                vec![
                    user(json!("go")),
                    same(json!([call("c1")])),
                    result("c1", json!([text(" ")])),
                ],
                &openai,
            ),
        ),
        (
            "result images for a model without vision",
            input(
                vec![
                    user(json!("go")),
                    same(json!([call("c1")])),
                    result("c1", json!([image.clone()])),
                ],
                &{
                    let mut m = openai.clone();
                    m["input"] = json!(["text"]);
                    m
                },
            ),
        ),
        (
            "a result id that is not a string",
            raw(
                vec![
                    user(json!("go")),
                    json!({"role": "toolResult", "toolCallId": 5, "toolName": "read", "content": "x", "isError": false, "timestamp": 3}),
                ],
                &openai,
            ),
        ),
        (
            "a result whose content is not an array",
            raw(
                vec![
                    user(json!("go")),
                    json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": "x", "isError": false, "timestamp": 3}),
                ],
                &openai,
            ),
        ),
        (
            "a result with a null block",
            raw(
                vec![
                    user(json!("go")),
                    json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [null], "isError": false, "timestamp": 3}),
                ],
                &openai,
            ),
        ),
        // The bodies the API's rules refuse (oracles/src/pi/request/openai_responses.rs tests
        // them), as the real pi builds them.
        (
            "the result of an assistant that ended in error",
            input(
                vec![
                    user(json!("go")),
                    {
                        let mut a = same(json!([call("call_1|fc_1")]));
                        a["stopReason"] = json!("error");
                        a
                    },
                    result("call_1|fc_1", json!([text("ok")])),
                ],
                &openai,
            ),
        ),
        (
            "a proxy's item id replayed",
            input(
                vec![
                    user(json!("go")),
                    same(json!([call("call_1|item_1")])),
                    result("call_1|item_1", json!([text("ok")])),
                    user(json!("more")),
                ],
                &openai,
            ),
        ),
        (
            "a reply cut off while reasoning",
            input(
                vec![
                    user(json!("go")),
                    {
                        let mut a = same(json!([thinking(json!(
                            r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"e"}"#
                        ))]));
                        a["stopReason"] = json!("length");
                        a
                    },
                    user(json!("continue")),
                ],
                &openai,
            ),
        ),
        (
            "an orphaned result and a synthetic one",
            input(
                vec![
                    user(json!("go")),
                    same(json!([call("c1")])),
                    user(json!("interrupt")),
                    result("c9", json!([text("late")])),
                ],
                &openai,
            ),
        ),
    ]
}
