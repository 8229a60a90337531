//! pi-ai's `getCompat(model)` for the openai-completions provider, reduced to the flags that shape
//! the messages of the body: each is `model.compat.<flag> ?? detected`, and the detection
//! (`detectCompat`) reads the provider and the base URL.
//!
//! Detected here for the providers the oracle is checked on (`openai`, `openrouter`, `groq`,
//! `deepseek`): every `requires*` flag is off except `requiresReasoningContentOnAssistantMessages`
//! (DeepSeek), and the developer role is, before 1.3, every host's but OpenRouter's (unless the
//! model is `anthropic/` or `openai/`) and DeepSeek's; from 1.3, OpenAI's alone. The other hosts
//! pi-ai counts as non-standard before 1.3 (xAI, Cerebras, Together, ...) are read as standard.

use crate::js::{field, is_str, truthy};
use crate::js_value::JsValue;
use crate::pi::PiVersion;

/// The compat flags the message conversion reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Compat {
    pub assistant_after_tool_result: bool,
    /// `requiresNonNullAssistantContent` (read from 1.3).
    pub non_null_assistant_content: bool,
    pub thinking_as_text: bool,
    pub tool_result_name: bool,
    pub reasoning_content_on_assistants: bool,
    pub developer_role: bool,
    /// `requiresToolsWithToolHistory` (read from 1.3; always on before).
    pub tools_with_tool_history: bool,
}

impl Compat {
    pub(super) fn of(model: &JsValue, v: PiVersion) -> Compat {
        let explicit = field(model, "compat").filter(|c| truthy(Some(*c)));
        let flag = |key: &str, detected: bool| match explicit.and_then(|c| field(c, key)) {
            None | Some(JsValue::Null) => detected,
            set => truthy(set),
        };
        let provider = field(model, "provider");
        let base_url = field(model, "baseUrl")
            .and_then(JsValue::as_str)
            .unwrap_or("");
        let id = field(model, "id").and_then(JsValue::as_str).unwrap_or("");
        // From 0.86 the base URL is lowercased before the DeepSeek test.
        let deepseek = is_str(provider, "deepseek")
            || if v >= PiVersion::From086 {
                base_url.to_lowercase().contains("deepseek.com")
            } else {
                base_url.contains("deepseek.com")
            };
        let developer_role = if v >= PiVersion::From130 {
            is_str(provider, "openai") || base_url.contains("api.openai.com")
        } else if is_str(provider, "openrouter") || base_url.contains("openrouter.ai") {
            id.starts_with("anthropic/") || id.starts_with("openai/")
        } else {
            !deepseek
        };
        Compat {
            assistant_after_tool_result: flag("requiresAssistantAfterToolResult", false),
            non_null_assistant_content: v >= PiVersion::From130
                && flag("requiresNonNullAssistantContent", false),
            thinking_as_text: flag("requiresThinkingAsText", false),
            tool_result_name: flag("requiresToolResultName", false),
            reasoning_content_on_assistants: flag(
                "requiresReasoningContentOnAssistantMessages",
                deepseek,
            ),
            developer_role: flag("supportsDeveloperRole", developer_role),
            tools_with_tool_history: v < PiVersion::From130
                || flag("requiresToolsWithToolHistory", false),
        }
    }
}
