//! Models of pi's `convertToLlm` and `transformMessages`, per pi version, and the whole
//! render pipeline up to the request body of each API.
//!
//! The models read [`JsValue`]s the way the JavaScript reads objects, and report the inputs on
//! which the JavaScript throws as [`Thrown`] (an outcome, never a crash of ctxfuzz). The pipeline
//! borrows every message it does not change; a caller that reads or writes JSON elsewhere (a file,
//! a case file) borrows its `serde_json::Value`s into `JsValue`s ([`crate::js_value::borrow_all`])
//! and writes the output back itself.

use std::borrow::{Borrow, Cow};

use serde::Serialize;

use crate::js_value::JsValue;
use crate::wire::anthropic::Request;
use crate::wire::google::body::{GeminiBody, GeminiContent};
use crate::wire::openai::body::{ChatBody, ChatMessage};
use crate::wire::openai_responses::body::{InputItem, ResponsesBody};
use crate::wire::{EntryViolation, google, openai, openai_responses};
use transform::IdNormaliser;

mod api;
mod call_id;
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
pub use convert::convert as convert_to_llm;
pub use fault::Fault;
pub use provider::Provider;
pub use thrown::{Stage, Thrown};
pub use transform::normalize_tool_call_id;
pub use vectors::{run_vector_input, run_vector_input_with_fault, write_vector_answer};
pub use version::PiVersion;

/// The model the reference vectors were made with: the catalog entry of claude-sonnet-4-5, the
/// default provider's.
pub fn default_model() -> &'static JsValue<'static> {
    Provider::default().model()
}

/// `transformMessages(messages, model, normalizeToolCallId)` with the id normaliser of `api`'s
/// provider, borrowing every message it does not change. Synthetic results carry
/// `"timestamp": 0`.
pub fn transform_messages<'a, 'm: 'a, M: Borrow<JsValue<'m>>>(
    messages: &'a [M],
    model: &JsValue,
    api: Api,
    v: PiVersion,
) -> Result<Vec<Cow<'a, JsValue<'a>>>, Thrown> {
    let borrowed = messages.iter().map(|m| Cow::Borrowed(m.borrow())).collect();
    let ids = api.id_normaliser(model, v);
    Ok(transform::transform(borrowed, model, v, ids, None)?.messages)
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

/// The request body pi builds for an API: Anthropic's `{"model", "messages", "system"?,
/// "max_tokens", "stream"}` (typed); openai-completions' `{"messages"}`, openai-responses'
/// `{"input"}`, google-generative-ai's `{"contents"}` (the rest of those bodies is not modelled,
/// docs/oracle.md). Written as JSON by its `Serialize`, each in its own shape.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Body<'r> {
    Anthropic(Request<'r>),
    OpenAiCompletions(ChatBody<'r>),
    OpenAiResponses(ResponsesBody<'r>),
    Google(GeminiBody<'r>),
}

impl Body<'_> {
    /// What the API's rules find in this body, read typed, with the name of the list they index:
    /// `messages` (openai-completions), `input` (openai-responses), `contents`
    /// (google-generative-ai); `None` for the Anthropic request, judged with its causes
    /// (`invariants::wire`).
    pub fn violations(&self) -> Option<(&'static str, Vec<EntryViolation>)> {
        Some(match self {
            Body::OpenAiCompletions(body) => (
                "messages",
                openai::validate_body::<ChatMessage, _>(&body.messages),
            ),
            Body::OpenAiResponses(body) => (
                "input",
                openai_responses::validate_input::<InputItem, _>(&body.input),
            ),
            Body::Google(body) => (
                "contents",
                google::validate_contents::<GeminiContent, _>(&body.contents),
            ),
            Body::Anthropic(_) => return None,
        })
    }
}

/// The pipeline up to the body builder of one API, with every unchanged message borrowed: what
/// the invariants' hot path reads (the typed request, [`Rendered::request`], never its JSON), and
/// what `ctxfuzz render` prints ([`Rendered::body`]).
pub struct Rendered<'a> {
    /// After `convertToLlm`.
    pub(crate) llm: Vec<Cow<'a, JsValue<'a>>>,
    /// After `transformMessages`, with the id normaliser of the API the body is for.
    pub(crate) transformed: transform::Transformed<'a>,
    api: Api,
}

impl Rendered<'_> {
    /// The Anthropic request, borrowing from the transformed messages.
    pub(crate) fn request<'r>(
        &'r self,
        model: &'r JsValue<'r>,
        v: PiVersion,
    ) -> Result<Request<'r>, Thrown> {
        request::build(&self.llm, &self.transformed.messages, model, v, None)
    }

    /// The body of the API rendered for, borrowing from the transformed messages.
    pub fn body<'r>(&'r self, model: &'r JsValue<'r>, v: PiVersion) -> Result<Body<'r>, Thrown> {
        let input = BuilderInput {
            llm: &self.llm,
            transformed: &self.transformed.messages,
            model,
            v,
        };
        build_body(self.api, input)
    }
}

/// `convertToLlm`, then `transformMessages` with the id normaliser of `api` for `model`: the
/// messages the body builder of `api` reads ([`Rendered::body`]). A throw of `transformMessages`
/// is at the stage of the builder of any other API than Anthropic's, whose provider runs it.
pub fn render<'a, M: Borrow<JsValue<'a>>>(
    messages: &'a [M],
    model: &JsValue<'_>,
    api: Api,
    v: PiVersion,
) -> Result<Rendered<'a>, Thrown> {
    let llm = convert::convert(messages, v)?;
    let transformed = request::transformed_for(&llm, model, api, v)?;
    Ok(Rendered {
        llm,
        transformed,
        api,
    })
}

/// What a body builder reads: `convertToLlm`'s output (`llm`), `transformMessages`' output with
/// the API's id normaliser (`transformed`, which the body borrows from), the model and the pi
/// version.
pub(crate) struct BuilderInput<'r, 'l, 't> {
    pub(crate) llm: &'r [Cow<'l, JsValue<'l>>],
    pub(crate) transformed: &'r [Cow<'t, JsValue<'t>>],
    pub(crate) model: &'r JsValue<'r>,
    pub(crate) v: PiVersion,
}

/// The body pi builds for `api` from `input`, typed, borrowing from the transformed messages.
/// Here, above the builders, so that neither the API nor the builders import the other.
pub(crate) fn build_body<'r>(
    api: Api,
    input: BuilderInput<'r, '_, '_>,
) -> Result<Body<'r>, Thrown> {
    match api {
        Api::AnthropicMessages => {
            request::build(input.llm, input.transformed, input.model, input.v, None)
                .map(Body::Anthropic)
        }
        Api::OpenAiCompletions => request::openai_completions::build(input)
            .map(|messages| Body::OpenAiCompletions(ChatBody { messages })),
        Api::OpenAiResponses => request::openai_responses::build(input)
            .map(|input| Body::OpenAiResponses(ResponsesBody { input })),
        Api::GoogleGenerativeAi => {
            request::google::build(input).map(|contents| Body::Google(GeminiBody { contents }))
        }
    }
}
