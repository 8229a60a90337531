//! The providers a transcript can be rendered for: each is a model of pi-ai 1.6.0's catalog
//! (`models.generated.js`), which says the API pi speaks to it ([`Api`]) and carries the fields
//! that API's conversion reads (`provider`, `baseUrl`, `compat`, `input`, `reasoning`). One value
//! the command line takes (`render --provider`) and the pipeline reads.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use super::Api;
use crate::error::{UnknownName, by_name};
use crate::js_value::JsValue;

/// A provider pi sends to, by the catalog model that stands for it.
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

impl Provider {
    pub const ALL: [Provider; 6] = [
        Provider::Anthropic,
        Provider::OpenAi,
        Provider::OpenRouter,
        Provider::Groq,
        Provider::DeepSeek,
        Provider::Google,
    ];

    /// The provider's name in pi's catalog.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::OpenRouter => "openrouter",
            Provider::Groq => "groq",
            Provider::DeepSeek => "deepseek",
            Provider::Google => "google",
        }
    }

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
        // Built once: the pipeline reads a model for every transcript. `ALL` lists the providers
        // in their declaration order, so a provider's discriminant is its place there.
        static CATALOG: LazyLock<[JsValue<'static>; Provider::ALL.len()]> =
            LazyLock::new(|| Provider::ALL.map(Provider::catalog_entry));
        &CATALOG[self as usize]
    }

    /// The provider's catalog entry, as [`Provider::model`] keeps it.
    fn catalog_entry(self) -> JsValue<'static> {
        let entry = match self {
            Provider::Anthropic => {
                r#"{
                "id": "claude-sonnet-4-5",
                "api": "anthropic-messages",
                "provider": "anthropic",
                "input": ["text", "image"],
                "reasoning": true,
                "contextWindow": 200000,
                "maxTokens": 64000,
                "compat": {"supportsStrictTools": true}
            }"#
            }
            Provider::OpenAi => {
                r#"{
                "id": "gpt-4.1", "api": "openai-responses", "provider": "openai",
                "baseUrl": "https://api.openai.com/v1", "reasoning": false,
                "input": ["text", "image"], "contextWindow": 1047576, "maxTokens": 32768,
                "compat": {"supportsStrictMode": true}
            }"#
            }
            Provider::OpenRouter => {
                r#"{
                "id": "openai/gpt-4o", "api": "openai-completions", "provider": "openrouter",
                "baseUrl": "https://openrouter.ai/api/v1", "reasoning": false,
                "input": ["text", "image"], "contextWindow": 128000, "maxTokens": 16384,
                "compat": {"thinkingFormat": "openrouter", "supportsStrictMode": true,
                    "sendSessionAffinityHeaders": true}
            }"#
            }
            Provider::Groq => {
                r#"{
                "id": "llama-3.3-70b-versatile", "api": "openai-completions", "provider": "groq",
                "baseUrl": "https://api.groq.com/openai/v1", "reasoning": false,
                "input": ["text"], "contextWindow": 131072, "maxTokens": 32768,
                "compat": {"supportsStrictMode": true}
            }"#
            }
            Provider::DeepSeek => {
                r#"{
                "id": "deepseek-v4-pro", "api": "openai-completions", "provider": "deepseek",
                "baseUrl": "https://api.deepseek.com", "reasoning": true, "input": ["text"],
                "contextWindow": 1000000, "maxTokens": 384000,
                "compat": {"supportsStore": false, "maxTokensField": "max_tokens",
                    "requiresReasoningContentOnAssistantMessages": true,
                    "thinkingFormat": "deepseek", "supportsStrictMode": true}
            }"#
            }
            Provider::Google => {
                r#"{
                "id": "gemini-2.5-flash", "api": "google-generative-ai", "provider": "google",
                "baseUrl": "https://generativelanguage.googleapis.com/v1beta", "reasoning": true,
                "input": ["text", "image"], "contextWindow": 1048576, "maxTokens": 65536
            }"#
            }
        };
        serde_json::from_str(entry).expect("a catalog entry is JSON")
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        by_name("provider", name, &Provider::ALL, Provider::name)
    }
}

#[cfg(test)]
mod tests {
    use super::Provider;
    use crate::js::{field, is_str};

    #[test]
    fn a_provider_reads_back_from_its_name_and_its_model_names_its_api_and_itself() {
        for provider in Provider::ALL {
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
