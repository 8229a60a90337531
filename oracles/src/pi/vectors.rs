//! The vectors / `render --batch` protocol: one input object in, one output object out, in the
//! exact shapes of `vectors.expected.jsonl`. The golden test, `ctxfuzz render --batch` and the
//! conformance test all go through [`run_vector_input`]. Session mode (`entries` / `jsonl`) first
//! builds the session context (`run_session_input`), then continues here.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::transform::IdNormaliser;
use super::{
    Api, Fault, PiVersion, Thrown, convert, default_model, json_body, request, session_context,
    transform,
};
use crate::js::truthy;
use crate::js_value::{self, JsValue};

/// The input keys that ask for the body of an API other than Anthropic's, and that API.
const JSON_BODIES: [(&str, Api); 3] = [
    ("openaiCompletions", Api::OpenAiCompletions),
    ("openaiResponses", Api::OpenAiResponses),
    ("google", Api::GoogleGenerativeAi),
];

/// Runs one protocol input, in session mode when it has `entries` or `jsonl`, else in message
/// mode (`run_messages`).
pub fn run_vector_input(input: &Value, v: PiVersion) -> Value {
    if input.get("entries").is_some() || input.get("jsonl").is_some() {
        return run_session_input(input, v);
    }
    run_messages(input, v, None)
}

/// The vectors protocol in session mode: `{"entries": [...] | "jsonl": "...", "leafId"?, "model"?,
/// "anthropic"?, "openaiCompletions"?, "openaiResponses"?, "google"?}`. The context's messages then go through the message-mode pipeline; the output
/// adds `"session": {messages, thinkingLevel, model}`, or is `{"error", "stage":
/// "buildSessionContext"}` when pi fails building it.
fn run_session_input(input: &Value, v: PiVersion) -> Value {
    let mut entries = match (input.get("jsonl"), input.get("entries")) {
        (Some(Value::String(text)), _) => session_context::parse(text).entries,
        (_, Some(Value::Array(entries))) => js_value::borrow_all(entries),
        _ => {
            return json!({"error": "expected \"jsonl\" text or an \"entries\" array", "stage": "input"});
        }
    };
    let leaf = input.get("leafId").map(JsValue::from);
    let context = session_context::migrate(&mut entries).and_then(|_| {
        session_context::build_context(
            &entries,
            leaf.as_ref(),
            session_context::SessionRules::of(v),
        )
    });
    let context = match context {
        Ok(context) => context,
        Err(error) => return json!({"error": error.to_string(), "stage": "buildSessionContext"}),
    };
    let mut messages_input = Map::new();
    let bodies = JSON_BODIES.iter().map(|(key, _)| *key);
    for key in ["model", "anthropic", "skipConvert"]
        .into_iter()
        .chain(bodies)
    {
        if let Some(value) = input.get(key) {
            messages_input.insert(key.into(), value.clone());
        }
    }
    let session = context.to_json();
    messages_input.insert("messages".into(), session["messages"].clone());
    let mut output = run_messages(&Value::Object(messages_input), v, None);
    if let Value::Object(fields) = &mut output {
        fields.insert("session".into(), session);
    }
    output
}

/// [`run_vector_input`] in message mode with a seeded fault in the model (for the known-defect
/// catalog: each fault must make some golden vector differ).
pub fn run_vector_input_with_fault(input: &Value, v: PiVersion, fault: Option<Fault>) -> Value {
    run_messages(input, v, fault)
}

/// Runs one message-mode input: `{"messages": [...], "model"?: {...} (shallow-merged over
/// [`default_model`]), "skipConvert"?: bool, "anthropic"?: bool, "openaiCompletions"?: bool,
/// "openaiResponses"?: bool, "google"?: bool}`.
///
/// Output: `{"llm", "transformed"}` plus `"anthropic"` (the request body),
/// `"openaiCompletions": {"messages"}`, `"openaiResponses": {"input"}` and `"google":
/// {"contents"}` (the list of that body) when asked; or, when the
/// JavaScript would throw, `{"error", "stage"}` plus the stages that completed before it
/// (`"llm"` when `transformMessages` throws, as the vectors show). An input that is not an object
/// with a `messages` array gives `{"error", "stage": "input"}`.
pub(crate) fn run_messages(input: &Value, v: PiVersion, fault: Option<Fault>) -> Value {
    let Some(Value::Array(messages)) = input.get("messages") else {
        return json!({"error": "expected an object with a \"messages\" array", "stage": "input"});
    };
    let model = merged_model(input.get("model"));
    let model = JsValue::from(&model);
    let messages = js_value::borrow_all(messages);
    let llm = if truthy(input.get("skipConvert")) {
        messages.iter().map(Cow::Borrowed).collect()
    } else {
        match convert::convert(&messages, v) {
            Ok(llm) => llm,
            Err(thrown) => return failure(&thrown, []),
        }
    };
    let transformed =
        match transform::transform(llm.clone(), &model, v, IdNormaliser::Anthropic, fault) {
            Ok(transformed) => transformed.messages,
            Err(thrown) => return failure(&thrown, [("llm", to_array(&llm))]),
        };
    let mut output = Map::new();
    if truthy(input.get("anthropic")) {
        match request::build(&llm, &transformed, &model, v, fault) {
            Ok(request) => {
                output.insert("anthropic".into(), request.to_json());
            }
            Err(thrown) => {
                return failure(
                    &thrown,
                    [
                        ("llm", to_array(&llm)),
                        ("transformed", to_array(&transformed)),
                    ],
                );
            }
        }
    }
    // The bodies of the other APIs, each built from `llm` through `transformMessages` with its own
    // id normaliser: the Anthropic run above whenever that normaliser renames every call id alike
    // (as it does most ids), run again only when not. A seeded fault stays in the Anthropic
    // stages, as before, so no other body takes their `transformed`.
    for (key, api) in JSON_BODIES {
        let Some((body_key, build)) = json_body(api).filter(|_| truthy(input.get(key))) else {
            continue;
        };
        let ids = api.id_normaliser(&model, v);
        let alike = fault.is_none() && transform::renames_like_anthropic(&llm, ids);
        match build(&llm, alike.then_some(&transformed[..]), &model, v) {
            Ok(items) => {
                output.insert(key.into(), request::object([(body_key, items)]));
            }
            Err(thrown) => {
                return failure(
                    &thrown,
                    [
                        ("llm", to_array(&llm)),
                        ("transformed", to_array(&transformed)),
                    ],
                );
            }
        }
    }
    output.insert("llm".into(), to_array(&llm));
    output.insert("transformed".into(), to_array(&transformed));
    Value::Object(output)
}

/// The default model with the input's fields laid over it (`{...defaultModel, ...input.model}`).
fn merged_model(overrides: Option<&Value>) -> Value {
    let mut model = default_model();
    if let (Value::Object(base), Some(Value::Object(overrides))) = (&mut model, overrides) {
        for (key, value) in overrides {
            base.insert(key.clone(), value.clone());
        }
    }
    model
}

fn to_array(messages: &[Cow<'_, JsValue<'_>>]) -> Value {
    Value::Array(messages.iter().map(|m| m.to_value()).collect())
}

fn failure<const N: usize>(thrown: &Thrown, completed: [(&str, Value); N]) -> Value {
    let mut output = Map::new();
    output.insert("error".into(), Value::from(thrown.error.clone()));
    output.insert("stage".into(), Value::from(thrown.stage.to_string()));
    for (key, value) in completed {
        output.insert(key.into(), value);
    }
    Value::Object(output)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{run_vector_input, run_vector_input_with_fault};
    use crate::pi::{Api, Fault, PiVersion, Provider, render};

    /// A user's turn, another model's call `id` and its result.
    fn call_and_result(id: &str) -> serde_json::Value {
        json!([
            {"role": "user", "content": "go", "timestamp": 1},
            {"role": "assistant", "api": "x", "provider": "x", "model": "x",
             "stopReason": "toolUse", "timestamp": 2,
             "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": id, "toolName": "read",
             "content": [{"type": "text", "text": "ok"}], "isError": false, "timestamp": 3}
        ])
    }

    /// Each API's body is the one built through its own normaliser's `transformMessages`
    /// (`render`'s), whether that renames the call id as Anthropic's does (then the `transformed`
    /// answer is reused) or not: a `call|item` id the Responses normaliser keeps both parts of
    /// for OpenAI, an id longer than the 40 units openai-completions cuts OpenAI's to.
    #[test]
    fn each_body_is_built_through_its_own_normaliser() {
        let completions = json!({"id": "gpt-4o", "api": "openai-completions",
            "provider": "openai", "input": ["text"]});
        let bodies = [
            (
                "openaiCompletions",
                "messages",
                Api::OpenAiCompletions,
                completions,
            ),
            (
                "openaiResponses",
                "input",
                Api::OpenAiResponses,
                Provider::OpenAi.model(),
            ),
            (
                "google",
                "contents",
                Api::GoogleGenerativeAi,
                Provider::Google.model(),
            ),
        ];
        let long = "z".repeat(41);
        for id in ["call_1", "call_1|fc_2", &long] {
            let messages = call_and_result(id);
            for (key, list, api, model) in &bodies {
                let input = json!({*key: true, "model": model, "messages": messages});
                let output = run_vector_input(&input, PiVersion::default());
                let rendered = render(
                    messages.as_array().unwrap(),
                    model,
                    *api,
                    PiVersion::default(),
                )
                .unwrap();
                assert_eq!(output[key][list], rendered.body[list], "{key} {id}");
            }
        }
        // The two ids that come out otherwise than Anthropic's do, as the bodies show them.
        let sent = |id: &str, key: &str, model: &serde_json::Value| {
            let input = json!({key: true, "model": model, "messages": call_and_result(id)});
            run_vector_input(&input, PiVersion::default())
        };
        assert_eq!(
            sent("call_1|fc_2", "openaiResponses", &bodies[1].3)["openaiResponses"]["input"][1]["call_id"],
            "call_1"
        );
        assert_eq!(
            sent(&long, "openaiCompletions", &bodies[0].3)["openaiCompletions"]["messages"][1]["tool_calls"]
                [0]["id"],
            "z".repeat(40)
        );
    }

    /// A seeded fault stays in the Anthropic stages: the other bodies are built as without it,
    /// not from the faulty `transformed` (here, a call left open at a user's turn).
    #[test]
    fn a_seeded_fault_leaves_the_other_bodies_alone() {
        let mut messages = call_and_result("call_1");
        messages.as_array_mut().unwrap().remove(2);
        messages
            .as_array_mut()
            .unwrap()
            .push(json!({"role": "user", "content": "again", "timestamp": 4}));
        let input = json!({"openaiCompletions": true, "model": Provider::Groq.model(),
            "messages": messages});
        let clean = run_vector_input(&input, PiVersion::default());
        let faulty = run_vector_input_with_fault(
            &input,
            PiVersion::default(),
            Some(Fault::NoSyntheticAtUser),
        );
        assert_ne!(faulty["transformed"], clean["transformed"]);
        assert_eq!(faulty["openaiCompletions"], clean["openaiCompletions"]);
    }

    /// A session-mode input asks for any API's body as a message-mode one does.
    #[test]
    fn a_session_asks_for_every_api_s_body() {
        let input = json!({"openaiCompletions": true, "openaiResponses": true, "google": true,
        "model": {"id": "m", "api": "x", "provider": "x", "input": ["text"]},
        "entries": [
            {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"},
            {"type": "message", "id": "a", "parentId": null, "timestamp": "2026-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": "go", "timestamp": 1}}
        ]});
        let output = run_vector_input(&input, PiVersion::default());
        assert_eq!(
            output["openaiCompletions"]["messages"][0]["content"], "go",
            "{output}"
        );
        assert_eq!(
            output["openaiResponses"]["input"][0]["role"], "user",
            "{output}"
        );
        assert_eq!(
            output["google"]["contents"],
            json!([{"role": "user", "parts": [{"text": "go"}]}]),
            "{output}"
        );
    }
}
