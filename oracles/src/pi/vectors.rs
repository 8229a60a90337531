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
    // The bodies of the other APIs, each built from `llm` with its own id normaliser.
    for (key, api) in JSON_BODIES {
        let Some((body_key, build)) = json_body(api).filter(|_| truthy(input.get(key))) else {
            continue;
        };
        match build(&llm, &model, v) {
            Ok(items) => {
                output.insert(key.into(), json!({ body_key: items }));
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

    use super::run_vector_input;
    use crate::pi::PiVersion;

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
