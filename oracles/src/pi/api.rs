//! Which API pi builds a request body for (`model.api`). The API picks the tool-call id
//! normaliser pi-ai's provider passes to the shared `transformMessages`, and the body builder.

use std::borrow::Cow;

use super::PiVersion;
use super::request::openai_completions;
use super::transform::normalize_tool_call_id;
use crate::js::{field, is_str};
use crate::js_value::JsValue;

/// An API of pi-ai whose request body the oracle models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Api {
    /// `anthropic-messages` ([`super::request`]).
    #[default]
    AnthropicMessages,
    /// `openai-completions`: OpenAI Chat Completions and the providers that speak it
    /// ([`super::request::openai_completions`]).
    OpenAiCompletions,
}

impl Api {
    /// The `normalizeToolCallId` this API's provider passes to `transformMessages` for `model`.
    pub(crate) fn id_normaliser(self, model: &JsValue, v: PiVersion) -> IdNormaliser {
        match self {
            Api::AnthropicMessages => IdNormaliser::Anthropic,
            Api::OpenAiCompletions => IdNormaliser::OpenAiCompletions {
                openai: is_str(field(model, "provider"), "openai"),
                v,
            },
        }
    }
}

/// A provider's `normalizeToolCallId`, as `transformMessages` calls it on the call ids of another
/// model's assistant messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdNormaliser {
    Anthropic,
    /// `openai`: the model's provider is `openai` (its ids are cut to 40 units).
    OpenAiCompletions {
        openai: bool,
        v: PiVersion,
    },
}

impl IdNormaliser {
    /// The method the normaliser calls first on the id (named by the throw on a non-string).
    pub(crate) fn first_method(self) -> &'static str {
        match self {
            IdNormaliser::Anthropic => "replace",
            IdNormaliser::OpenAiCompletions { .. } => "includes",
        }
    }

    pub(crate) fn normalize(self, id: &str) -> Cow<'_, str> {
        match self {
            IdNormaliser::Anthropic => normalize_tool_call_id(id),
            IdNormaliser::OpenAiCompletions { openai, v } => {
                openai_completions::normalize_tool_call_id(id, openai, v)
            }
        }
    }
}
