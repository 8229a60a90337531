//! The providers a transcript can be rendered for: each is a model of pi-ai 1.6.0's catalog
//! (`models.generated.js`), which says the API pi speaks to it ([`Api`]) and carries the fields
//! that API's conversion reads (`provider`, `baseUrl`, `compat`, `input`, `reasoning`). One value
//! the command line takes (`render --provider`) and the pipeline reads.

use std::sync::LazyLock;

use super::Api;
use crate::error::{Named, UnknownName, unknown};
use crate::js::Json;
use crate::js_value::JsValue;
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// Each provider's model by the provider's name, as pi-ai 1.6.0's catalog
/// (`models.generated.ts`) lists it, cut as [`Provider::model`] says.
const CATALOG: &str = include_str!("catalog.json");

/// A provider pi sends to, by the catalog model that stands for it.
#[derive(Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Provider {
    /// `anthropic`: claude-sonnet-4-5, the reference vectors' model (anthropic-messages).
    #[default]
    Anthropic,
    /// `openai`: `gpt-4.1` (openai-responses: pi's catalog sends every OpenAI model there).
    OpenAi,
    /// `openrouter`: `openai/gpt-4o` (openai-completions, OpenRouter's compat).
    OpenRouter,
    /// `groq`: `llama-3.3-70b-versatile` (openai-completions).
    Groq,
    /// `deepseek`: `deepseek-v4-pro` (openai-completions, reasoning content on assistants).
    DeepSeek,
    /// `google`: `gemini-2.5-flash` (google-generative-ai).
    Google,
}

/// Each provider by its name in pi's catalog.
impl Named for Provider {
    const KIND: &'static str = "provider";
}

impl Provider {
    /// The API pi speaks to the provider's model (its catalog entry's `api`).
    pub fn api(self) -> Api {
        match self {
            Provider::Anthropic => Api::AnthropicMessages,
            Provider::OpenAi => Api::OpenAiResponses,
            Provider::OpenRouter | Provider::Groq | Provider::DeepSeek => Api::OpenAiCompletions,
            Provider::Google => Api::GoogleGenerativeAi,
        }
    }

    /// The provider's model as pi-ai 1.6.0's catalog lists it, without the fields no conversion
    /// reads (cost, input limits, thinking levels) and without DeepSeek's
    /// `supportsMidConvoSystemMessages`, which the oracle does not model (docs/oracle.md): its
    /// system messages are rendered collapsed, as for every other provider.
    pub fn model(self) -> &'static JsValue<'static> {
        // Built once: the pipeline reads a model for every transcript. `all()` lists the
        // providers in their declaration order, so a provider's discriminant is its place there.
        static MODELS: LazyLock<Vec<JsValue<'static>>> = LazyLock::new(|| {
            let catalog: JsValue = serde_json::from_str(CATALOG).expect("the catalog is JSON");
            let model = |provider: &Provider| {
                let entry = catalog.member(provider.name());
                entry.expect("every provider has a catalog entry").clone()
            };
            Provider::all().iter().map(model).collect()
        });
        &MODELS[self as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::Provider;
    use crate::error::Named;
    use crate::js::{field, is_str};

    #[test]
    fn a_provider_reads_back_from_its_name_and_its_model_names_its_api_and_itself() {
        for &provider in Provider::all() {
            assert_eq!(provider.name().parse(), Ok(provider));
            assert_eq!(provider.to_string(), provider.name());
            let model = provider.model();
            assert!(is_str(field(model, "provider"), provider.name()));
            assert!(is_str(field(model, "api"), provider.api().name()));
        }
        let unknown = "bedrock".parse::<Provider>().unwrap_err().to_string();
        assert_eq!(
            unknown,
            "unknown provider `bedrock` (known: anthropic, openai, openrouter, groq, deepseek, google)"
        );
    }
}
