//! The vectors / `render --batch` protocol: one input object in, one output object out, in the
//! exact shapes of `vectors.expected.jsonl`. The golden test, `ctxfuzz render --batch` and the
//! conformance test all go through [`run_vector_input`]. Session mode (`entries` / `jsonl`) first
//! builds the session context (`run_session_input`), then continues here.

use std::borrow::Cow;

use std::io;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::transform::IdNormaliser;
use super::{
    Api, Body, BuilderInput, Fault, PiVersion, Thrown, build_body, convert, default_model, request,
    session_context, transform,
};
use crate::js::{field, truthy};
use crate::js_value::{self, JsValue};
use crate::json_text;
use crate::wire::anthropic::Request;

/// The input keys that ask for the body of an API other than Anthropic's, and that API.
const JSON_BODIES: [(&str, Api); 3] = [
    ("openaiCompletions", Api::OpenAiCompletions),
    ("openaiResponses", Api::OpenAiResponses),
    ("google", Api::GoogleGenerativeAi),
];

/// Runs one protocol input, in session mode when it has `entries` or `jsonl`, else in message
/// mode (`answer_messages`).
pub fn run_vector_input(input: &Value, v: PiVersion) -> Value {
    if input.get("entries").is_some() || input.get("jsonl").is_some() {
        return run_session_input(input, v);
    }
    answer_messages(&JsValue::from(input), v, None, to_value)
}

/// [`run_vector_input`] on an input read from its text, its answer written to `out` as it is
/// built rather than first made a `serde_json::Value` (`render --batch`): the same answer, each
/// object's keys in the order pi writes them where a `Value` sorts them.
pub fn write_vector_answer(
    input: &JsValue,
    v: PiVersion,
    out: &mut impl io::Write,
) -> serde_json::Result<()> {
    if field(input, "entries").is_some() || field(input, "jsonl").is_some() {
        return json_text::to_writer(out, &run_session_input(&input.to_value(), v));
    }
    answer_messages(input, v, None, |answer| json_text::to_writer(out, answer))
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
    let messages_input = Value::Object(messages_input);
    let mut output = answer_messages(&JsValue::from(&messages_input), v, None, to_value);
    if let Value::Object(fields) = &mut output {
        fields.insert("session".into(), session);
    }
    output
}

/// [`run_vector_input`] in message mode with a seeded fault in the model (for the known-defect
/// catalog: each fault must make some golden vector differ).
pub fn run_vector_input_with_fault(input: &Value, v: PiVersion, fault: Option<Fault>) -> Value {
    answer_messages(&JsValue::from(input), v, fault, to_value)
}

/// One message-mode answer, borrowing every message and body it shows; its fields in the order
/// of their names, the order a `serde_json::Value` map writes them in.
#[derive(Default, Serialize)]
pub(crate) struct Answer<'r, 'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    anthropic: Option<Request<'r>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'r str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    google: Option<Body<'r>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    llm: Option<&'r [Cow<'a, JsValue<'a>>]>,
    #[serde(rename = "openaiCompletions", skip_serializing_if = "Option::is_none")]
    openai_completions: Option<Body<'r>>,
    #[serde(rename = "openaiResponses", skip_serializing_if = "Option::is_none")]
    openai_responses: Option<Body<'r>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stage: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transformed: Option<&'r [Cow<'a, JsValue<'a>>]>,
}

/// Runs one message-mode input: `{"messages": [...], "model"?: {...} (shallow-merged over
/// [`default_model`]), "skipConvert"?: bool, "anthropic"?: bool, "openaiCompletions"?: bool,
/// "openaiResponses"?: bool, "google"?: bool}`, and hands its answer to `emit`.
///
/// The answer: `{"llm", "transformed"}` plus `"anthropic"` (the request body),
/// `"openaiCompletions": {"messages"}`, `"openaiResponses": {"input"}` and `"google":
/// {"contents"}` (the list of that body) when asked; or, when the
/// JavaScript would throw, `{"error", "stage"}` plus the stages that completed before it
/// (`"llm"` when `transformMessages` throws, as the vectors show). An input that is not an object
/// with a `messages` array gives `{"error", "stage": "input"}`.
pub(crate) fn answer_messages<R>(
    input: &JsValue,
    v: PiVersion,
    fault: Option<Fault>,
    emit: impl FnOnce(&Answer) -> R,
) -> R {
    let Some(JsValue::Array(messages)) = field(input, "messages") else {
        return emit(&Answer {
            error: Some("expected an object with a \"messages\" array"),
            stage: Some("input".into()),
            ..Answer::default()
        });
    };
    let model = merged_model(field(input, "model"));
    let llm = if truthy(field(input, "skipConvert")) {
        messages.iter().map(Cow::Borrowed).collect()
    } else {
        match convert::convert(messages, v) {
            Ok(llm) => llm,
            Err(thrown) => return emit(&failure(&thrown, None, None)),
        }
    };
    let transformed =
        match transform::transform(llm.clone(), &model, v, IdNormaliser::Anthropic, fault) {
            Ok(transformed) => transformed.messages,
            Err(thrown) => return emit(&failure(&thrown, Some(&llm), None)),
        };
    // Declared before the answer, which borrows from them.
    let mut own_runs: [Option<Vec<Cow<JsValue>>>; JSON_BODIES.len()] = Default::default();
    let mut answer = Answer {
        llm: Some(&llm),
        transformed: Some(&transformed),
        ..Answer::default()
    };
    if truthy(field(input, "anthropic")) {
        match request::build(&llm, &transformed, &model, v, fault) {
            Ok(request) => answer.anthropic = Some(request),
            Err(thrown) => return emit(&failure(&thrown, Some(&llm), Some(&transformed))),
        }
    }
    // The bodies of the other APIs, each built from `llm` through `transformMessages` with its own
    // id normaliser: the Anthropic run above whenever that normaliser renames every call id alike
    // (as it does most ids), run again only when not. A seeded fault stays in the Anthropic
    // stages, as before, so no other body takes their `transformed`. Each body borrows from the
    // run it was built from: a run of its own is kept in its slot of `own_runs`.
    let mut bodies: [Option<Body>; JSON_BODIES.len()] = Default::default();
    let asked = JSON_BODIES.into_iter().zip(&mut own_runs).zip(&mut bodies);
    for (((key, api), own_run), body) in asked {
        if !truthy(field(input, key)) {
            continue;
        }
        let ids = api.id_normaliser(&model, v);
        let messages: &[Cow<JsValue>] =
            if fault.is_none() && transform::renames_like_anthropic(&llm, ids) {
                &transformed
            } else {
                match request::transformed_for(&llm, &model, api, v) {
                    Ok(run) => own_run.insert(run.messages),
                    Err(thrown) => return emit(&failure(&thrown, Some(&llm), Some(&transformed))),
                }
            };
        let input = BuilderInput {
            llm: &llm,
            transformed: messages,
            model: &model,
            v,
        };
        match build_body(api, input) {
            Ok(built) => *body = Some(built),
            Err(thrown) => return emit(&failure(&thrown, Some(&llm), Some(&transformed))),
        }
    }
    // In the order of `JSON_BODIES`.
    let [openai_completions, openai_responses, google] = bodies;
    emit(&Answer {
        openai_completions,
        openai_responses,
        google,
        ..answer
    })
}

/// The default model with the input's fields laid over it (`{...defaultModel, ...input.model}`),
/// borrowing the strings of both: the default model is built once.
fn merged_model<'a>(overrides: Option<&JsValue<'a>>) -> JsValue<'a> {
    match (default_model(), overrides) {
        (JsValue::Object(base), Some(JsValue::Object(overrides))) => {
            JsValue::Object(base.spread(overrides))
        }
        (model, _) => model.clone(),
    }
}

fn to_value(answer: &Answer) -> Value {
    serde_json::to_value(answer).expect("an answer is plain JSON")
}

/// The answer to a throw, with the stages that completed before it.
fn failure<'r, 'a>(
    thrown: &'r Thrown,
    llm: Option<&'r [Cow<'a, JsValue<'a>>]>,
    transformed: Option<&'r [Cow<'a, JsValue<'a>>]>,
) -> Answer<'r, 'a> {
    Answer {
        error: Some(&thrown.error),
        stage: Some(thrown.stage.to_string()),
        llm,
        transformed,
        ..Answer::default()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{run_vector_input, run_vector_input_with_fault, write_vector_answer};
    use crate::js_value::{self, JsValue};
    use crate::json_text;
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
                Provider::OpenAi.model().to_value(),
            ),
            (
                "google",
                "contents",
                Api::GoogleGenerativeAi,
                Provider::Google.model().to_value(),
            ),
        ];
        let long = "z".repeat(41);
        for id in ["call_1", "call_1|fc_2", &long] {
            let messages = call_and_result(id);
            for (key, list, api, model) in &bodies {
                let input = json!({*key: true, "model": model, "messages": messages});
                let output = run_vector_input(&input, PiVersion::default());
                let messages = js_value::borrow_all(messages.as_array().unwrap());
                let model = JsValue::from(model);
                let rendered = render(&messages, &model, *api, PiVersion::default()).unwrap();
                let body = json!(rendered.body(&model, PiVersion::default()).unwrap());
                assert_eq!(output[key][list], body[list], "{key} {id}");
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

    /// An input without a `messages` array is answered with the input stage's error, whichever
    /// bodies it asks for.
    #[test]
    fn an_input_without_messages_is_an_input_error() {
        for input in [
            json!({"anthropic": true}),
            json!({"messages": "go"}),
            json!([]),
        ] {
            assert_eq!(
                run_vector_input(&input, PiVersion::default()),
                json!({"error": "expected an object with a \"messages\" array", "stage": "input"}),
                "{input}"
            );
        }
    }

    /// `render --batch`'s answer, written as it is built, is the protocol's answer: in message
    /// mode, in session mode (`entries`, `jsonl`) and for an input without messages.
    #[test]
    fn an_answer_written_as_built_is_the_protocol_s_answer() {
        let entries = json!([
            {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"},
            {"type": "message", "id": "a", "parentId": null, "timestamp": "2026-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": "go", "timestamp": 1}}
        ]);
        let jsonl: String = entries
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| format!("{entry}\n"))
            .collect();
        let messages = json!([
            {"role": "user", "content": "go", "timestamp": 1},
            {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
             "model": "claude-sonnet-4-5", "stopReason": "toolUse", "timestamp": 2,
             "content": [{"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]}
        ]);
        for input in [
            json!({"anthropic": true, "google": true, "messages": messages}),
            json!({"anthropic": true, "entries": entries}),
            json!({"openaiResponses": true, "jsonl": jsonl}),
            json!({"anthropic": true}),
        ] {
            let mut text = Vec::new();
            write_vector_answer(&JsValue::from(&input), PiVersion::default(), &mut text).unwrap();
            let written = json_text::parse(std::str::from_utf8(&text).unwrap()).unwrap();
            assert_eq!(
                written,
                run_vector_input(&input, PiVersion::default()),
                "{input}"
            );
        }
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
