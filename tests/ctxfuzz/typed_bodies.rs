//! The body of every API other than Anthropic's is typed, and its rules read it through the
//! traits they read any JSON value through (`ChatEntry`, `InputEntry`, `ContentEntry`): on
//! generated transcripts, for every such provider and pi version, the typed body is judged
//! exactly as its JSON is (the rules, where, and the API's words).

use ctxfuzz::generators::pi;
use ctxfuzz_oracles::error::Named;
use ctxfuzz_oracles::invariants::wire::body_rejections;
use ctxfuzz_oracles::js_value::{self, JsValue};
use ctxfuzz_oracles::pi::{self as model, Api, PiVersion, Provider};
use ctxfuzz_oracles::wire::{EntryViolation, google, openai, openai_responses};
use serde_json::{Value, json};

const SEEDS: u64 = 500;

/// An API's rules on its body's list, read as `Value`s.
type Validate = fn(&[Value]) -> Vec<EntryViolation>;

/// The rejections of the body's JSON, read as `Value`s: `(rule, location, text)`.
fn judged_as_json(body: &Value, api: Api) -> Vec<(String, String, String)> {
    let (list, validate): (&str, Validate) = match api {
        Api::OpenAiCompletions => ("messages", |items| openai::validate_body::<Value, _>(items)),
        Api::OpenAiResponses => ("input", |items| {
            openai_responses::validate_input::<Value, _>(items)
        }),
        Api::GoogleGenerativeAi => ("contents", |items| {
            google::validate_contents::<Value, _>(items)
        }),
        Api::AnthropicMessages => unreachable!("judged with its causes"),
    };
    let items = body[list].as_array().expect("the body's list");
    validate(items)
        .into_iter()
        .map(|found| {
            let location = format!("{list}.{}", found.index);
            (found.rule.to_string(), location, found.message)
        })
        .collect()
}

/// Shapes the generator does not write, of OpenAI's own model (whose signatures and item ids pi
/// sends back): two texts that carry the same Responses message id (`duplicate-item-id` on two
/// `message` items); reasoning followed by a text; calls whose ids carry item ids, one that is not
/// a function call's and two alike.
fn written_by_hand() -> Vec<Value> {
    let openai = |stop: &str, content: Value| {
        json!({"role": "assistant", "api": "openai-responses", "provider": "openai",
               "model": "gpt-4.1", "stopReason": stop, "timestamp": 2, "content": content})
    };
    let text = |text: &str| json!({"type": "text", "text": text, "textSignature": "msg_same"});
    let reasoning = r#"{"type":"reasoning","id":"rs_1","summary":[]}"#;
    let thinking = json!({"type": "thinking", "thinking": "hmm", "thinkingSignature": reasoning});
    let call = |id: &str| json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}});
    let result = |id: &str| {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "isError": false,
               "content": [{"type": "text", "text": "ok"}], "timestamp": 3})
    };
    let user = json!({"role": "user", "content": "go", "timestamp": 1});
    vec![
        json!([
            user,
            openai("stop", json!([text("a")])),
            user,
            openai("stop", json!([text("b")])),
            user
        ]),
        json!([user, openai("stop", json!([thinking, text("a")])), user]),
        json!([
            user,
            openai(
                "toolUse",
                json!([call("c1|item_1"), call("c2|fc_1"), call("c3|fc_1")])
            ),
            result("c1|item_1"),
            result("c2|fc_1"),
            result("c3|fc_1"),
            user
        ]),
    ]
}

#[test]
fn every_typed_body_is_judged_as_its_json_is() {
    let mut judged = 0;
    let mut rejected = 0;
    let by_hand = written_by_hand();
    let generated = (0..SEEDS).map(|seed| (format!("seed {seed}"), pi::from_seed(seed)));
    let by_hand = by_hand.iter().enumerate().map(|(at, transcript)| {
        let messages = transcript.as_array().expect("a transcript");
        (
            format!("written by hand {at}"),
            js_value::borrow_all(messages),
        )
    });
    for (case, messages) in generated.chain(by_hand) {
        let messages: Vec<JsValue> = messages;
        for &provider in Provider::all() {
            let (api, model) = (provider.api(), provider.model());
            if api == Api::AnthropicMessages {
                continue;
            }
            for v in PiVersion::ALL {
                let Some(Ok(typed)) = body_rejections(&messages, model, api, v) else {
                    continue;
                };
                let rendered = model::render(&messages, model, api, v).expect("pi renders it");
                let body = serde_json::to_value(rendered.body(model, v).expect("pi builds it"))
                    .expect("a body is JSON");
                let typed: Vec<_> = typed
                    .into_iter()
                    .map(|found| (found.rule.to_string(), found.location, found.text))
                    .collect();
                assert_eq!(
                    typed,
                    judged_as_json(&body, api),
                    "{case}, {provider}, pi {v}"
                );
                judged += 1;
                rejected += usize::from(!typed.is_empty());
            }
        }
    }
    // Most cases judged, and enough of them rejected for the comparison to mean something.
    assert!(judged > 8_000, "{judged} judged");
    assert!(rejected > 500, "{rejected} rejected");
}
