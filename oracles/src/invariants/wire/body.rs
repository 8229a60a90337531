//! The rules of an API other than Anthropic's on the body pi builds for it: what `ctxfuzz check
//! --provider` reports for a provider that speaks openai-completions, openai-responses or
//! google-generative-ai. The Anthropic body has its own judgement, with each rejection's cause
//! and known shape ([`super::findings`]).

use std::borrow::Borrow;

use serde::Serialize;

use crate::js_value::JsValue;
use crate::pi::{self, Api, PiVersion, Thrown};
use crate::wire::WireRule;

/// One rule the body breaks: where in the body, and the error text the API answers with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BodyRejection {
    pub rule: WireRule,
    /// The offending entry of the body's list: `messages.N` (openai-completions), `input.N`
    /// (openai-responses), `contents.N` (google-generative-ai).
    pub location: String,
    /// The error text the API returns (a finding's evidence names it `error`).
    #[serde(rename = "error")]
    pub text: String,
}

/// Renders `messages` through pi (version `v`, target `model`, whose `api` is `api`) and returns
/// every rule the body breaks, in the body's order; `None` for the Anthropic Messages API (judged
/// by [`super::findings`]), `Err` when pi itself would throw.
pub fn body_rejections<'a, M: Borrow<JsValue<'a>>>(
    messages: &'a [M],
    model: &JsValue<'_>,
    api: Api,
    v: PiVersion,
) -> Option<Result<Vec<BodyRejection>, Thrown>> {
    if api == Api::AnthropicMessages {
        return None;
    }
    let judged = pi::render(messages, model, api, v).and_then(|rendered| {
        // The Anthropic request is judged with its causes ([`super::findings`]): not here.
        let (list, found) = rendered.body(model, v)?.violations().unwrap_or_default();
        Ok(found
            .into_iter()
            .map(|found| BodyRejection {
                rule: found.rule,
                location: format!("{list}.{}", found.index),
                text: found.message,
            })
            .collect())
    });
    Some(judged)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::js_value;
    use crate::pi::request::fixtures::user;
    use crate::pi::{Provider, Stage};

    /// The rules, and where, `provider`'s body breaks for `messages`; `Err` with pi's throw.
    fn rejected(
        messages: Value,
        provider: Provider,
    ) -> Option<Result<Vec<(WireRule, String)>, Thrown>> {
        let messages = js_value::borrow_all(messages.as_array().unwrap());
        let model = provider.model();
        let judged = body_rejections(&messages, model, provider.api(), PiVersion::default())?;
        Some(judged.map(|found| found.into_iter().map(|r| (r.rule, r.location)).collect()))
    }

    #[test]
    fn each_api_s_rules_judge_its_own_body_located_in_its_list() {
        let id = format!("call_{}", "x".repeat(40));
        let long_id = json!([user("go"),
            {"role": "assistant", "api": "google-generative-ai", "provider": "google",
             "model": "gemini-2.5-pro", "stopReason": "toolUse", "timestamp": 2,
             "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": id, "toolName": "read", "isError": false,
             "content": [{"type": "text", "text": "ok"}], "timestamp": 3}]);
        let signature = r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"e"}"#;
        let cut_off = json!([user("go"),
            {"role": "assistant", "api": "openai-responses", "provider": "openai",
             "model": "gpt-4.1", "stopReason": "length", "timestamp": 2,
             "content": [{"type": "thinking", "thinking": "hmm", "thinkingSignature": signature}]},
            user("continue")]);
        assert!(rejected(long_id.clone(), Provider::Anthropic).is_none());
        assert_eq!(
            rejected(long_id.clone(), Provider::Groq),
            Some(Ok(vec![(WireRule::ToolCallIdTooLong, "messages.1".into())]))
        );
        assert_eq!(rejected(long_id, Provider::OpenAi), Some(Ok(vec![])));
        assert_eq!(
            rejected(cut_off.clone(), Provider::OpenAi),
            Some(Ok(vec![(
                WireRule::ReasoningWithoutFollowingItem,
                "input.1".into()
            )]))
        );
        assert_eq!(rejected(cut_off, Provider::Groq), Some(Ok(vec![])));
    }

    #[test]
    fn pi_s_throw_is_the_judgement_of_every_api() {
        for provider in [Provider::OpenAi, Provider::Groq] {
            let judged = rejected(json!([null]), provider);
            assert!(matches!(judged, Some(Err(_))), "{provider}");
        }
    }

    /// pi-ai's providers other than Anthropic's run `transformMessages` inside their builder, so
    /// its throw is at the builder's stage, in the judgement as in `render` (the one path both
    /// take).
    #[test]
    fn a_throw_of_transform_messages_is_at_the_stage_of_the_api_s_builder() {
        let throws =
            json!([user("go"), {"role": "assistant", "content": "oops", "stopReason": "stop"}]);
        let messages = js_value::borrow_all(throws.as_array().unwrap());
        for (provider, stage) in [
            (Provider::Anthropic, Stage::TransformMessages),
            (Provider::Groq, Stage::OpenAiCompletions),
            (Provider::OpenAi, Stage::OpenAiResponses),
            (Provider::Google, Stage::GoogleGenerativeAi),
        ] {
            let (model, api, v) = (provider.model(), provider.api(), PiVersion::default());
            let Err(rendered) = pi::render(&messages, model, api, v) else {
                panic!("{provider}: pi throws");
            };
            assert_eq!(rendered.stage, stage, "{provider}");
            assert!(
                rendered.error.contains("assistantMsg.content.flatMap"),
                "{provider}"
            );
            if let Some(judged) = body_rejections(&messages, model, api, v) {
                assert_eq!(judged, Err(rendered), "{provider}");
            }
        }
    }
}
