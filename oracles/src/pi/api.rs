//! Which API pi builds a request body for (`model.api`). The API picks the tool-call id
//! normaliser pi-ai's provider passes to the shared `transformMessages`, and the body builder.

use super::PiVersion;
use super::request::openai_responses::tool_call_id as responses_ids;
use super::transform::IdNormaliser;
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
    /// `openai-responses`: the OpenAI Responses API
    /// ([`super::request::openai_responses`]).
    OpenAiResponses,
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
            Api::OpenAiResponses => IdNormaliser::OpenAiResponses {
                keeps_items: responses_ids::keeps_item_ids(model),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::json;

    use super::Api;
    use crate::js_value::JsValue;
    use crate::pi::{PiVersion, transform};

    /// A call id pi cannot read throws in the normaliser's first method: Anthropic's `replace`,
    /// openai-completions' `includes`.
    #[test]
    fn a_call_id_that_is_not_a_string_throws_in_the_api_s_normaliser() {
        let model =
            json!({"id": "m", "api": "openai-completions", "provider": "groq", "input": ["text"]});
        let messages = json!([{"role": "assistant", "api": "x", "provider": "x", "model": "x",
            "content": [{"type": "toolCall", "name": "read"}, {"type": "toolCall", "id": 5}]}]);
        let model = JsValue::from(&model);
        let messages = crate::js_value::borrow_all(messages.as_array().unwrap());
        let error = |api: Api| {
            let ids = api.id_normaliser(&model, PiVersion::default());
            let borrowed = messages.iter().map(Cow::Borrowed).collect();
            transform::transform(borrowed, &model, PiVersion::default(), ids, None)
                .err()
                .expect("throws")
                .error
        };
        assert_eq!(
            error(Api::AnthropicMessages),
            "TypeError: Cannot read properties of undefined (reading 'replace')"
        );
        assert_eq!(
            error(Api::OpenAiCompletions),
            "TypeError: Cannot read properties of undefined (reading 'includes')"
        );
    }
}
