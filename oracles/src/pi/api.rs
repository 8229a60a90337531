//! Which API pi builds a request body for (`model.api`). The API picks the tool-call id
//! normaliser pi-ai's provider passes to the shared `transformMessages`, and the body builder.

use super::request::google::model as google_model;
use super::request::openai_responses::tool_call_id as responses_ids;
use super::transform::IdNormaliser;
use super::{PiVersion, Stage};
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
    /// `google-generative-ai`: the Gemini API ([`super::request::google`]).
    GoogleGenerativeAi,
}

/// Serialised as its name, as a model's `api` writes it.
impl serde::Serialize for Api {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl Api {
    /// The API's name in pi-ai (a model's `api`).
    pub fn name(self) -> &'static str {
        match self {
            Api::AnthropicMessages => "anthropic-messages",
            Api::OpenAiCompletions => "openai-completions",
            Api::OpenAiResponses => "openai-responses",
            Api::GoogleGenerativeAi => "google-generative-ai",
        }
    }

    /// The stage of this API's body builder: where what it throws, `transformMessages` run for it
    /// included, is thrown.
    pub(crate) fn stage(self) -> Stage {
        match self {
            Api::AnthropicMessages => Stage::Anthropic,
            Api::OpenAiCompletions => Stage::OpenAiCompletions,
            Api::OpenAiResponses => Stage::OpenAiResponses,
            Api::GoogleGenerativeAi => Stage::GoogleGenerativeAi,
        }
    }

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
            Api::GoogleGenerativeAi => IdNormaliser::Google {
                requires_id: google_model::requires_tool_call_id(model, v),
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

    /// An API is written by its name, as a model's `api` holds it.
    #[test]
    fn an_api_serialises_as_its_name() {
        assert_eq!(
            serde_json::to_value(Api::OpenAiResponses).unwrap(),
            json!("openai-responses")
        );
    }

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

    /// A call id that is a number throws where the normaliser first calls a method on it, named
    /// as V8 names the expression: Anthropic's `id.replace`, openai-completions' `id.includes`,
    /// openai-responses' `id.includes` for a provider that replays item ids and `part.replace`
    /// (`normalizeIdPart`) for any other, as pi-ai 1.6.0's `convertResponsesMessages` throws them
    /// when called directly; google-generative-ai's `id.replace` for a model that sends call ids,
    /// and no throw for one that does not (its normaliser returns the id untouched), as pi-ai
    /// 1.6.0's `convertMessages` of `google-shared.js` does called directly. (The vectors protocol
    /// never shows these words: its `transformed` stage runs Anthropic's normaliser first.)
    #[test]
    fn a_call_id_that_is_a_number_throws_in_the_normaliser_s_own_words() {
        let messages = json!([{"role": "assistant", "api": "x", "provider": "x", "model": "x",
            "content": [{"type": "toolCall", "id": 5, "name": "read"}]}]);
        let messages = crate::js_value::borrow_all(messages.as_array().unwrap());
        let outcome = |api: Api, provider: &str, id: &str| {
            let model = json!({"id": id, "api": api.name(), "provider": provider,
                "input": ["text"]});
            let model = JsValue::from(&model);
            let ids = api.id_normaliser(&model, PiVersion::default());
            let borrowed = messages.iter().map(Cow::Borrowed).collect();
            transform::transform(borrowed, &model, PiVersion::default(), ids, None)
                .map(|transformed| transformed.messages.len())
                .map_err(|thrown| thrown.error)
        };
        let error = |api: Api, provider: &str| outcome(api, provider, "m").expect_err("throws");
        let not_a_function =
            |expression: &str| format!("TypeError: {expression} is not a function");
        for (api, provider, expression) in [
            (Api::AnthropicMessages, "openai", "id.replace"),
            (Api::OpenAiCompletions, "openai", "id.includes"),
            (Api::OpenAiResponses, "openai", "id.includes"),
            (Api::OpenAiResponses, "opencode", "id.includes"),
            (Api::OpenAiResponses, "openrouter", "part.replace"),
        ] {
            assert_eq!(
                error(api, provider),
                not_a_function(expression),
                "{} through {provider}",
                api.name()
            );
        }
        assert_eq!(
            outcome(Api::GoogleGenerativeAi, "google", "gemini-3-pro-preview"),
            Err(not_a_function("id.replace"))
        );
        // The assistant and pi's synthetic result for its call, which keeps the id `5`.
        assert_eq!(
            outcome(Api::GoogleGenerativeAi, "google", "gemini-2.5-flash"),
            Ok(2)
        );
    }
}
