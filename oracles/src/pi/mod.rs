//! Models of pi's `convertToLlm` and `transformMessages`, per pi version, and the whole
//! render pipeline up to the Anthropic request body.
//!
//! The models read [`JsValue`]s the way the JavaScript reads objects, and report the inputs on
//! which the JavaScript throws as [`Thrown`] (an outcome, never a crash of ctxfuzz). The pipeline
//! borrows every message it does not change; the entry points that take `serde_json::Value`s
//! borrow them into `JsValue`s and write their output back as `serde_json::Value`s.

use std::borrow::{Borrow, Cow};

use serde_json::{Value, json};

use crate::js_value::{self, JsValue};
use crate::wire::anthropic::Request;
use transform::IdNormaliser;

mod api;
pub mod convert;
mod fault;
mod provider;
pub mod request;
pub mod session_context;
mod thrown;
pub mod transform;
mod vectors;
mod version;

pub use api::Api;
pub use fault::Fault;
pub use provider::Provider;
pub use thrown::{Stage, Thrown};
pub use transform::normalize_tool_call_id;
pub use vectors::{run_vector_input, run_vector_input_with_fault, write_vector_answer};
pub use version::PiVersion;

/// The model the reference vectors were made with: the catalog entry of claude-sonnet-4-5.
pub fn default_model() -> Value {
    json!({
        "id": "claude-sonnet-4-5",
        "api": "anthropic-messages",
        "provider": "anthropic",
        "input": ["text", "image"],
        "reasoning": true,
        "contextWindow": 200000,
        "maxTokens": 64000,
        "compat": {"supportsStrictTools": true}
    })
}

/// `convertToLlm(messages)`.
pub fn convert_to_llm(messages: &[Value], v: PiVersion) -> Result<Vec<Value>, Thrown> {
    let messages = js_value::borrow_all(messages);
    Ok(to_values(&convert::convert(&messages, v)?))
}

/// `transformMessages(messages, model, normalizeToolCallId)` with the id normaliser of `api`'s
/// provider. Synthetic results carry `"timestamp": 0`.
pub fn transform_messages(
    messages: &[Value],
    model: &Value,
    api: Api,
    v: PiVersion,
) -> Result<Vec<Value>, Thrown> {
    let messages = js_value::borrow_all(messages);
    let borrowed = messages.iter().map(Cow::Borrowed).collect();
    let model = JsValue::from(model);
    let ids = api.id_normaliser(&model, v);
    Ok(to_values(
        &transform::transform(borrowed, &model, v, ids, None)?.messages,
    ))
}

/// `transformMessages(convertToLlm(messages), model, anthropicNormalizeToolCallId)`, with every
/// message neither step changes borrowed from `messages` (pi's own functions copy only what they
/// change too). The hot path for callers that only read the result, such as the benchmark against
/// the real pi.
pub fn convert_and_transform<'a>(
    messages: &'a [JsValue<'a>],
    model: &JsValue<'_>,
    v: PiVersion,
) -> Result<Vec<Cow<'a, JsValue<'a>>>, Thrown> {
    Ok(transform::transform(
        convert::convert(messages, v)?,
        model,
        v,
        IdNormaliser::Anthropic,
        None,
    )?
    .messages)
}

/// Every stage of the pipeline for one transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// After `convertToLlm`.
    pub llm: Vec<Value>,
    /// After `transformMessages`, with the id normaliser of the API the body is for.
    pub transformed: Vec<Value>,
    /// The request body pi builds for the API: Anthropic's `{"model", "messages", "system"?,
    /// "max_tokens", "stream"}`; openai-completions' `{"messages"}`, openai-responses' `{"input"}`,
    /// google-generative-ai's `{"contents"}`
    /// (the rest of those bodies is not modelled, docs/oracle.md).
    pub body: Value,
}

/// `convertToLlm`, then `transformMessages`, then the body builder of `api` for `model`.
pub fn render<M: Borrow<Value>>(
    messages: &[M],
    model: &Value,
    api: Api,
    v: PiVersion,
) -> Result<Rendered, Thrown> {
    let messages = js_value::borrow_all(messages);
    let model = JsValue::from(model);
    let Some((list, build)) = json_body(api) else {
        let rendered = render_borrowed(&messages, &model, v)?;
        let body = rendered.request(&model, v)?.to_json();
        return Ok(Rendered {
            llm: to_values(&rendered.llm),
            transformed: to_values(&rendered.transformed.messages),
            body,
        });
    };
    let llm = convert::convert(&messages, v)?;
    let ids = api.id_normaliser(&model, v);
    let transformed = transform::transform(llm.clone(), &model, v, ids, None)?;
    let items = build(&llm, &transformed.messages, &model, v)?;
    let body = JsValue::object([(list, JsValue::from(items))]).to_value();
    Ok(Rendered {
        llm: to_values(&llm),
        transformed: to_values(&transformed.messages),
        body,
    })
}

/// The pipeline up to the request builder with every unchanged message borrowed, for the
/// invariants' hot path (which reads the typed request, [`RenderedBorrowed::request`], and never
/// writes its JSON).
pub(crate) struct RenderedBorrowed<'a> {
    pub llm: Vec<Cow<'a, JsValue<'a>>>,
    pub transformed: transform::Transformed<'a>,
}

impl RenderedBorrowed<'_> {
    /// The Anthropic request, borrowing from the transformed messages.
    pub fn request<'r>(
        &'r self,
        model: &'r JsValue<'r>,
        v: PiVersion,
    ) -> Result<Request<'r>, Thrown> {
        request::build(&self.llm, &self.transformed.messages, model, v, None)
    }
}

pub(crate) fn render_borrowed<'a, M: Borrow<JsValue<'a>>>(
    messages: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
) -> Result<RenderedBorrowed<'a>, Thrown> {
    let llm = convert::convert(messages, v)?;
    let transformed = transform::transform(llm.clone(), model, v, IdNormaliser::Anthropic, None)?;
    Ok(RenderedBorrowed { llm, transformed })
}

/// A body builder of an API other than Anthropic's: the body's list from `convertToLlm`'s output
/// and `transformMessages`' output with the API's id normaliser, borrowing from the latter.
pub(crate) type Builder = for<'r> fn(
    &[Cow<'_, JsValue<'_>>],
    &'r [Cow<'_, JsValue<'_>>],
    &JsValue,
    PiVersion,
) -> Result<Vec<JsValue<'r>>, Thrown>;

/// The body of an API other than Anthropic's (whose typed request is [`request::build`]'s): the
/// body's field that holds its list, and the builder of that list from `convertToLlm`'s output.
/// Here, above both, so that neither the API nor the builders import the other.
pub(crate) fn json_body(api: Api) -> Option<(&'static str, Builder)> {
    match api {
        Api::AnthropicMessages => None,
        Api::OpenAiCompletions => Some(("messages", request::openai_completions::build)),
        Api::OpenAiResponses => Some(("input", request::openai_responses::build)),
        Api::GoogleGenerativeAi => Some(("contents", request::google::build)),
    }
}

fn to_values(messages: &[Cow<'_, JsValue<'_>>]) -> Vec<Value> {
    messages.iter().map(|message| message.to_value()).collect()
}
