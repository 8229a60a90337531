//! pi-ai's openai-responses request builder (`convertResponsesMessages` of
//! `openai-responses-shared.js`): the `input` items of the body it sends to the OpenAI Responses
//! API, per pi version, with the provider's own id normaliser ([`tool_call_id`]) fed to
//! `transformMessages`.
//!
//! What the builder does to the transformed messages, counting the messages it sends (`msgIndex`,
//! which numbers the message items without an id):
//! - from 0.86 the system messages are collapsed before transforming, and the prompt leads as a
//!   `developer` message (a reasoning model whose compat does not turn the role off) or a `system`
//!   one; before 0.86 only `context.systemPrompt` would, and the transcript has none, while a
//!   `system` message (reachable only without `convertToLlm`) sends nothing and is counted;
//! - `user`: string content as one `input_text`; array content as `input_text` / `input_image`
//!   parts, and a message without parts is dropped (not counted);
//! - `assistant`: in block order, a thinking block's signature as the reasoning item it holds
//!   ([`reasoning`]), every text block as a `message` item with its id and phase ([`message_id`]),
//!   every call as a `function_call` with the call id and item id of its `call|item` id; an
//!   assistant left without items is dropped (not counted);
//! - every `toolResult` becomes a `function_call_output` of its call id, its output a string or
//!   `input_text` / `input_image` parts when it has images.
//!
//! Not modelled: the rest of the body (tools, reasoning options, cache and store options), models
//! that take mid-conversation system messages (`additional_tools`, tool search and the section
//! updates they bring), grammar tools (`custom_tool_call`), the deferred tools of 0.81
//! (`addedToolNames`), and the `configuration_update` items of 1.x's mid-conversation effort.

use super::{
    collapse_system_messages, conversation, data_url, prompt_message, read_result_content,
    restaged, sanitized_kept, sanitized_text, transformed_blocks, user_parts,
};
use crate::js::{self, field, is_str, truthy};
use crate::js_value::JsValue;
use crate::pi::api::Api;
use crate::pi::transform::Origin;
use crate::pi::{BuilderInput, PiVersion, Thrown};
use crate::wire::openai_responses::body::{InputItem, InputPart, ItemContent};

mod message_id;
mod reasoning;
pub(crate) mod tool_call_id;

const API: Api = Api::OpenAiResponses;

fn throw(error: impl Into<String>) -> Thrown {
    Thrown::new(API.stage(), error.into())
}

/// The `input` of the body pi-ai sends for `llm` (the output of `convertToLlm`) to `model`,
/// `transformed` being `transformMessages`' output with this API's id normaliser; borrowing
/// from it.
pub(crate) fn build<'r>(input: BuilderInput<'r, '_, '_>) -> Result<Vec<InputItem<'r>>, Thrown> {
    let mut out = Vec::with_capacity(input.transformed.len());
    if input.v.has_system_role() {
        let head = collapse_system_messages(input.llm).map_err(restaged(API))?;
        let prompt = prompt_message(head.prompt, developer_role(input.model));
        out.extend(prompt.map(|(role, content)| InputItem::Message {
            role,
            content: ItemContent::Text(content),
        }));
    }
    // `msgIndex`: the messages converted so far, but for the dropped ones.
    let mut sent = 0;
    for message in conversation(input.transformed, input.v) {
        let role = field(message, "role");
        if is_str(role, "user") {
            let content = field(message, "content");
            let parts = user_parts(content, |text| Some(InputPart::Text(text)), image_part)
                .map_err(restaged(API))?;
            let Some(parts) = parts else {
                continue;
            };
            out.push(InputItem::Message {
                role: "user",
                content: ItemContent::Parts(parts),
            });
        } else if is_str(role, "assistant") {
            let items = assistant_items(message, input.model, input.v, sent)?;
            if items.is_empty() {
                continue;
            }
            out.extend(items);
        } else if is_str(role, "toolResult") {
            out.push(result_item(message, input.v)?);
        }
        sent += 1;
    }
    Ok(out)
}

/// `model.reasoning && model.compat?.supportsDeveloperRole !== false`.
fn developer_role(model: &JsValue) -> bool {
    let turned_off = field(model, "compat")
        .and_then(|compat| field(compat, "supportsDeveloperRole"))
        .is_some_and(|flag| matches!(flag, JsValue::Bool(false)));
    truthy(field(model, "reasoning")) && !turned_off
}

/// `{type: "input_image", detail: "auto", image_url: "data:${mimeType};base64,${data}"}`.
fn image_part<'r>(image: &JsValue) -> InputPart<'r> {
    InputPart::Image(data_url(image))
}

/// The items of one assistant message; `sent` is `msgIndex`.
fn assistant_items<'r>(
    message: &'r JsValue<'_>,
    model: &JsValue,
    v: PiVersion,
    sent: usize,
) -> Result<Vec<InputItem<'r>>, Thrown> {
    let blocks = transformed_blocks(message);
    let origin = Origin::of(message, model);
    let same_model = origin.same;
    // Another model of the same provider and API: its item ids were paired with its own reasoning.
    let sibling = !origin.foreign && !same_model;
    let mut items = Vec::with_capacity(blocks.len());
    let mut texts = 0;
    for block in blocks {
        let kind = field(block, "type");
        if is_str(kind, "thinking") {
            let signature = field(block, "thinkingSignature");
            if let Some(item) = reasoning::item(signature)? {
                items.push(InputItem::Reasoning(item));
            }
        } else if is_str(kind, "text") {
            let signature = field(block, "textSignature");
            let id = message_id::message_id(signature, sent, texts)?;
            texts += 1;
            let text = sanitized_text(field(block, "text")).map_err(restaged(API))?;
            items.push(InputItem::AssistantText {
                text,
                id: id.id,
                phase: id.phase.map(<&str>::from),
            });
        } else if is_str(kind, "toolCall") {
            items.push(function_call(block, same_model, sibling, v)?);
        }
    }
    Ok(items)
}

/// `{type: "function_call", id, call_id, name, arguments: JSON.stringify(arguments)}`, an
/// `undefined` field left out as the JSON of the body leaves it.
fn function_call<'r>(
    call: &'r JsValue<'_>,
    same_model: bool,
    sibling: bool,
    v: PiVersion,
) -> Result<InputItem<'r>, Thrown> {
    let (call_id, item_id) = split_id(field(call, "id"), "toolCall.id")?;
    // Before 0.86 only a sibling model's `fc_` item id is dropped; from then on any item id that
    // is not `fc_` (the only kind a function_call takes) is dropped too.
    let fc = item_id.is_some_and(|id| id.starts_with("fc_"));
    let dropped = if v >= PiVersion::From086 {
        sibling || !fc
    } else {
        sibling && fc
    };
    Ok(InputItem::FunctionCall {
        id: item_id.filter(|_| !dropped),
        call_id,
        name: field(call, "name"),
        arguments: field(call, "arguments"),
        namespace: field(call, "namespace").filter(|_| v >= PiVersion::From086 && same_model),
    })
}

/// `const [callId, itemId] = id.split("|")`: the call id and, in a `call|item` id, the item id (up
/// to a second `|`).
fn split_id<'v>(
    id: Option<&'v JsValue>,
    expression: &str,
) -> Result<(&'v str, Option<&'v str>), Thrown> {
    match id {
        Some(JsValue::String(id)) => {
            let mut parts = id.split('|');
            let call = parts.next().unwrap_or_default();
            Ok((call, parts.next()))
        }
        None | Some(JsValue::Null) => Err(throw(js::cannot_read(id, "split"))),
        // The destructuring names both ways the call could fail.
        Some(_) => Err(throw(format!(
            "TypeError: {expression}.split is not a function or its return value is not iterable"
        ))),
    }
}

/// `{type: "function_call_output", call_id, output}`.
fn result_item<'r>(result: &'r JsValue<'_>, v: PiVersion) -> Result<InputItem<'r>, Thrown> {
    let id = field(result, "toolCallId");
    let content = field(result, "content");
    // From 0.86 the call id is split before the content is read; before, after.
    let (call_id, output) = if v >= PiVersion::From086 {
        let (call_id, _) = split_id(id, "msg.toolCallId")?;
        (call_id, result_output(content, "content", v)?)
    } else {
        let output = result_output(content, "msg.content", v)?;
        (split_id(id, "msg.toolCallId")?.0, output)
    };
    Ok(InputItem::FunctionCallOutput { call_id, output })
}

/// A result's output: its texts joined, or a note when it has none; with images, `input_text`
/// and `input_image` parts. Images are left only for a model that takes them (transformMessages
/// replaced them by a note for any other), so the check on the model's `input` always passes.
fn result_output<'r>(
    content: Option<&'r JsValue<'_>>,
    expression: &str,
    v: PiVersion,
) -> Result<ItemContent<'r>, Thrown> {
    let read = read_result_content(content, expression, v).map_err(restaged(API))?;
    if read.images.is_empty() {
        // Before 0.80.4 a result without text says it has an image even when it has none.
        let note = if v >= PiVersion::From0804 {
            "(no tool output)"
        } else {
            "(see attached image)"
        };
        return Ok(ItemContent::Text(if read.has_text {
            sanitized_kept(read.text)
        } else {
            note.into()
        }));
    }
    let mut parts = Vec::with_capacity(read.images.len() + 1);
    if read.has_text {
        parts.push(InputPart::Text(sanitized_kept(read.text)));
    }
    parts.extend(read.images.into_iter().map(image_part));
    Ok(ItemContent::Parts(parts))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::pi::request::fixtures::{assistant_of, body, judged_typed, result, text, user};
    use crate::pi::{Api, PiVersion};
    use crate::wire::WireRule;
    use crate::wire::openai_responses::validate_input;

    /// OpenAI's gpt-5.
    fn gpt_5() -> Value {
        json!({"id": "gpt-5", "api": "openai-responses", "provider": "openai",
               "baseUrl": "https://api.openai.com/v1", "reasoning": true,
               "input": ["text", "image"]})
    }

    /// The rules the Responses API applies to the body pi builds for `messages` (to OpenAI's
    /// gpt-5), with the error texts (the typed body judged the same).
    fn refused(messages: Value, v: PiVersion) -> Vec<(WireRule, String)> {
        let items = body(&messages, &gpt_5(), ("openaiResponses", "input"), v);
        let found = validate_input::<Value, _>(&items);
        let typed = judged_typed(&messages, &gpt_5(), Api::OpenAiResponses, v);
        assert_eq!(typed, found, "the typed body, pi {v:?}");
        found.into_iter().map(|v| (v.rule, v.message)).collect()
    }

    /// What the API refuses of `messages`, the same on every pi version.
    fn refused_on_every_version(messages: &Value) -> Vec<(WireRule, String)> {
        let [first, rest @ ..] = PiVersion::ALL;
        let refusal = refused(messages.clone(), first);
        for v in rest {
            assert_eq!(refused(messages.clone(), v), refusal, "pi {v:?}");
        }
        refusal
    }

    fn assistant(stop_reason: &str, content: Value) -> Value {
        assistant_of(&gpt_5(), stop_reason, content)
    }

    fn ok(id: &str) -> Value {
        result(id, json!([text("ok")]))
    }

    fn call(id: &str) -> Value {
        json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}})
    }

    /// Known shape 2 on this API: pi drops an assistant that ended in error and keeps its result,
    /// which the API refuses as an output without its call.
    #[test]
    fn the_result_of_an_assistant_that_ended_in_error_is_refused() {
        let messages = json!([
            user("go"),
            assistant("error", json!([call("call_1|fc_1")])),
            ok("call_1|fc_1")
        ]);
        assert_eq!(
            refused_on_every_version(&messages),
            vec![(
                WireRule::FunctionCallOutputWithoutCall,
                "No tool call found for function call output with call_id call_1.".to_string()
            )]
        );
    }

    /// Before 0.86 pi replays a call's item id whatever it begins with (a proxy's `item_…`), which
    /// the API refuses on every later turn; from 0.86 pi leaves such an id out.
    #[test]
    fn pi_before_0_86_replays_an_item_id_the_api_refuses() {
        let messages = json!([
            user("go"),
            assistant("toolUse", json!([call("call_1|item_1")])),
            ok("call_1|item_1"),
            user("more")
        ]);
        let refusal = vec![(
            WireRule::InvalidFunctionCallId,
            "Invalid 'input[1].id': 'item_1'. Expected an ID that begins with 'fc'.".to_string(),
        )];
        assert_eq!(refused(messages.clone(), PiVersion::Before0804), refusal);
        assert_eq!(refused(messages.clone(), PiVersion::From0804), refusal);
        assert_eq!(refused(messages.clone(), PiVersion::From086), vec![]);
        assert_eq!(refused(messages, PiVersion::From130), vec![]);
    }

    /// An assistant of the very model that stopped while reasoning (`length`) holds a signed
    /// thinking block and nothing else: pi sends its reasoning item followed by the next user
    /// message, which the API refuses, on every version.
    #[test]
    fn a_reply_cut_off_while_reasoning_leaves_a_reasoning_item_alone() {
        let thinking = json!({"type": "thinking", "thinking": "hmm",
            "thinkingSignature": r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"e"}"#});
        let messages = json!([
            user("go"),
            assistant("length", json!([thinking])),
            user("continue")
        ]);
        assert_eq!(
            refused_on_every_version(&messages),
            vec![(
                WireRule::ReasoningWithoutFollowingItem,
                "Item 'rs_1' of type 'reasoning' was provided without its required following item."
                    .to_string()
            )]
        );
    }

    /// A complete exchange of the very model (reasoning, call, result, answer) breaks no rule.
    #[test]
    fn a_complete_exchange_of_the_model_is_accepted() {
        let thinking = json!({"type": "thinking", "thinking": "hmm",
            "thinkingSignature": r#"{"type":"reasoning","id":"rs_1","summary":[]}"#});
        let messages = json!([
            user("go"),
            assistant("toolUse", json!([thinking, call("call_1|fc_1")])),
            ok("call_1|fc_1"),
            assistant("stop", json!([{"type": "text", "text": "done"}])),
            user("thanks")
        ]);
        assert_eq!(refused_on_every_version(&messages), vec![]);
    }

    /// Reasoning followed by the answer it was made with is accepted; an answer whose message id
    /// an earlier answer carried is sent under that id again, which the API refuses.
    #[test]
    fn reasoning_before_its_answer_is_accepted_and_a_repeated_message_id_refused() {
        let thinking = json!({"type": "thinking", "thinking": "hmm",
            "thinkingSignature": r#"{"type":"reasoning","id":"rs_1","summary":[]}"#});
        let answer = |text: &str| json!({"type": "text", "text": text, "textSignature": "msg_1"});
        let messages = json!([
            user("go"),
            assistant("stop", json!([thinking, answer("a")])),
            user("more"),
            assistant("stop", json!([answer("b")])),
            user("thanks")
        ]);
        assert_eq!(
            refused_on_every_version(&messages),
            vec![(
                WireRule::DuplicateItemId,
                "Duplicate item found with id msg_1. Remove duplicate items from your input and try again."
                    .to_string()
            )]
        );
    }
}
