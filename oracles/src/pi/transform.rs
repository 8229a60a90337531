//! pi-ai's `transformMessages(messages, model, normalizeToolCallId)`, per pi version, with the
//! id normaliser of the API the body is built for ([`IdNormaliser`]).
//!
//! Four steps, as in the JavaScript: (0, from 0.80.4) `null`/missing content becomes `[]`;
//! (1) images become placeholders for a model without vision; (2) assistants from another model
//! get their thinking converted or dropped and their call ids sanitised, and results are rewritten
//! through ONE global raw-id map; (3) tool-call accounting: `assistant` and `user` close the open
//! calls (synthetic "No result provided" results for the unanswered ones, in call order),
//! error/aborted assistants are dropped after closing, `system` (0.86+) is held while calls are
//! open, and every tool result passes through unchecked.
//!
//! Messages that come out unchanged stay borrowed, so judging a large transcript copies little.

use std::borrow::Cow;

use crate::js_value::{JsValue, Object};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::call_id::{already_sanitized, sanitized_id_cut};
use super::request::openai_completions::tool_call_id as completions_ids;
use super::request::openai_responses::tool_call_id as responses_ids;
use super::{Fault, PiVersion, Stage, Thrown};
use crate::js::{self, field, is_str, strict_equals, truthy};
use crate::js_string;

const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";
pub(crate) const NO_RESULT_TEXT: &str = "No result provided";

/// The output of `transformMessages`, plus the ids pi itself rewrote in tool results through its
/// global id map (the wire invariants use them to tell pi's own rewriting from a rewriter's).
pub(crate) struct Transformed<'a> {
    pub messages: Vec<Cow<'a, JsValue<'a>>>,
    pub remapped_result_ids: HashSet<String>,
}

fn throw(error: impl Into<String>) -> Thrown {
    Thrown::new(Stage::TransformMessages, error.into())
}

/// Anthropic's `normalizeToolCallId`: `id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64)`, on UTF-16
/// code units (an astral character becomes two underscores, a lone surrogate one). Borrowed when
/// the id is already its own normal form, as almost every id is: that is checked without decoding
/// or copying it.
pub fn normalize_tool_call_id(id: &str) -> Cow<'_, str> {
    if id.len() <= 64 && already_sanitized(id) {
        return Cow::Borrowed(id);
    }
    Cow::Owned(sanitized_id_cut(id, 64))
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
    /// `keeps_items`: the model's provider replays the item ids of `call|item` ids.
    OpenAiResponses {
        keeps_items: bool,
    },
    /// google-generative-ai's: `requires_id`, the model sends call ids (`requiresToolCallId`), so
    /// they are normalised as Anthropic's are; for any other model every id is returned as it is.
    Google {
        requires_id: bool,
    },
}

impl IdNormaliser {
    /// The expression the normaliser calls first on the id and its method (named by the throw on
    /// an id that is not a string); `None` when it returns every id as it is, reading none.
    pub(crate) fn first_call(self) -> Option<(&'static str, &'static str)> {
        match self {
            IdNormaliser::Anthropic | IdNormaliser::Google { requires_id: true } => {
                Some(("id", "replace"))
            }
            IdNormaliser::OpenAiCompletions { .. }
            | IdNormaliser::OpenAiResponses { keeps_items: true } => Some(("id", "includes")),
            IdNormaliser::OpenAiResponses { keeps_items: false } => Some(("part", "replace")),
            IdNormaliser::Google { requires_id: false } => None,
        }
    }

    /// The normalised `id`; `foreign`: the call's assistant came through another provider or API
    /// than the model's (only the Responses normaliser reads it).
    pub(crate) fn normalize(self, id: &str, foreign: bool) -> Cow<'_, str> {
        match self {
            IdNormaliser::Anthropic => normalize_tool_call_id(id),
            IdNormaliser::OpenAiCompletions { openai, v } => {
                completions_ids::normalize_tool_call_id(id, openai, v)
            }
            IdNormaliser::OpenAiResponses { keeps_items } => {
                responses_ids::normalize_tool_call_id(id, keeps_items, foreign)
            }
            IdNormaliser::Google { requires_id: true } => normalize_tool_call_id(id),
            IdNormaliser::Google { requires_id: false } => Cow::Borrowed(id),
        }
    }
}

/// Whether `transformMessages(messages)` with `ids` gives what it gives with Anthropic's
/// normaliser, for messages on which Anthropic's did not throw (so every call id it reads is a
/// string, which no other normaliser throws on): `ids` normalises every call id as Anthropic's
/// does. Read wider than `transform` reads them: every `toolCall` block of any message, the calls
/// of the model's own assistants (which keep their ids) too, so that a "yes" is always right.
/// `foreign` is passed as `false`: only the Responses normaliser reads it, for a `call|item` id
/// whose `|` it keeps either way, where Anthropic's never keeps one.
pub(crate) fn renames_like_anthropic(messages: &[Cow<'_, JsValue<'_>>], ids: IdNormaliser) -> bool {
    messages
        .iter()
        .filter_map(|message| field(message, "content").and_then(JsValue::as_array))
        .flatten()
        .filter(|block| is_str(field(block, "type"), "toolCall"))
        .filter_map(|block| field(block, "id").and_then(JsValue::as_str))
        .all(|id| ids.normalize(id, false) == normalize_tool_call_id(id))
}

/// `assistant.provider === model.provider && assistant.api === model.api && assistant.model === model.id`.
pub(crate) fn same_model(assistant: &JsValue, model: &JsValue) -> bool {
    Origin::of(assistant, model).same
}

/// Where an assistant message came from, against the model the request is for.
#[derive(Clone, Copy)]
pub(crate) struct Origin {
    /// Of the very model ([`same_model`]): its blocks are kept as they are.
    pub(crate) same: bool,
    /// Through another provider or API (`assistant.provider !== model.provider ||
    /// assistant.api !== model.api`): the Responses normaliser hashes its item ids.
    pub(crate) foreign: bool,
}

impl Origin {
    /// Both readings, the provider and API compared once for the two.
    pub(crate) fn of(assistant: &JsValue, model: &JsValue) -> Origin {
        let same_provider_and_api =
            strict_equals(field(assistant, "provider"), field(model, "provider"))
                && strict_equals(field(assistant, "api"), field(model, "api"));
        Origin {
            same: same_provider_and_api
                && strict_equals(field(assistant, "model"), field(model, "id")),
            foreign: !same_provider_and_api,
        }
    }
}

pub(crate) fn transform<'a>(
    messages: Vec<Cow<'a, JsValue<'a>>>,
    model: &JsValue,
    v: PiVersion,
    ids: IdNormaliser,
    fault: Option<Fault>,
) -> Result<Transformed<'a>, Thrown> {
    let messages = if v.normalizes_null_content() {
        normalize_null_content(messages)?
    } else {
        messages
    };
    let messages = downgrade_images(messages, model)?;
    let mut id_map = HashMap::new();
    let mut remapped_result_ids = HashSet::new();
    let mut first_pass = Vec::with_capacity(messages.len());
    for message in messages {
        first_pass.push(first_pass_message(
            message,
            model,
            v,
            &mut id_map,
            &mut remapped_result_ids,
            ids,
            fault,
        )?);
    }
    let messages = accounting::account_tool_calls(first_pass, v, fault)?;
    Ok(Transformed {
        messages,
        remapped_result_ids,
    })
}

/// Step 0: `msg.content == null ? {...msg, content: []} : msg`.
fn normalize_null_content<'a>(
    messages: Vec<Cow<'a, JsValue<'a>>>,
) -> Result<Vec<Cow<'a, JsValue<'a>>>, Thrown> {
    messages
        .into_iter()
        .map(|message| {
            if message.is_null() {
                return Err(throw(js::cannot_read(Some(&message), "content")));
            }
            if js::is_nullish(field(&message, "content")) {
                Ok(Cow::Owned(spread_with_empty_content(&message)))
            } else {
                Ok(message)
            }
        })
        .collect()
}

/// `{...value, content: []}` for a value without content: an object keeps its fields, an array
/// or a string spreads its indices, any other primitive spreads nothing. (A string is spread per
/// character here; JavaScript spreads per UTF-16 unit, which only differs for astral characters,
/// whose lone halves JSON cannot hold anyway.)
fn spread_with_empty_content<'a>(value: &JsValue<'a>) -> JsValue<'a> {
    let mut map = match value {
        JsValue::Object(map) => map.clone(),
        JsValue::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| (i.to_string(), item.clone()))
            .collect(),
        JsValue::String(text) => js_string::code_units(text)
            .enumerate()
            .map(|(i, unit)| (i.to_string(), JsValue::from(js_string::to_string(unit))))
            .collect(),
        _ => Object::new(),
    };
    map.insert("content", JsValue::Array(Box::default()));
    JsValue::Object(map)
}

/// Whether the target model takes images: `model.input.includes("image")`.
fn model_takes_images(model: &JsValue) -> Result<bool, Thrown> {
    let input = field(model, "input");
    if let Some(JsValue::String(text)) = input {
        return Ok(text.contains("image"));
    }
    let items = js::array_items(input, "model.input", "includes").map_err(throw)?;
    Ok(items.iter().any(|item| item == "image"))
}

/// Step 1: for a model without vision, every run of images in a user message's array content or a
/// tool result's content becomes one placeholder text.
///
/// A `null` message throws here, where pi reads its `role` (from 0.80.4 the content normalisation
/// threw on it already): before a later message of the same step can throw something else (a
/// tool result whose content is `null` is not iterable).
fn downgrade_images<'a>(
    messages: Vec<Cow<'a, JsValue<'a>>>,
    model: &JsValue,
) -> Result<Vec<Cow<'a, JsValue<'a>>>, Thrown> {
    if model_takes_images(model)? {
        return Ok(messages);
    }
    messages
        .into_iter()
        .map(|message| {
            if message.is_null() {
                return Err(throw(js::cannot_read(Some(&*message), "role")));
            }
            let role = field(&message, "role");
            let content = field(&message, "content");
            let placeholder = if is_str(role, "user") && content.is_some_and(JsValue::is_array) {
                USER_IMAGE_PLACEHOLDER
            } else if is_str(role, "toolResult") {
                TOOL_IMAGE_PLACEHOLDER
            } else {
                return Ok(message);
            };
            // An array without images comes out as it went in: kept, not copied (a `null` block
            // still throws, below).
            let unchanged = |blocks: &[JsValue]| {
                !blocks
                    .iter()
                    .any(|block| block.is_null() || is_str(field(block, "type"), "image"))
            };
            if content.and_then(JsValue::as_array).is_some_and(unchanged) {
                return Ok(message);
            }
            let blocks = iterate_content(content)?;
            let replaced = replace_images(&blocks, placeholder)?;
            Ok(with_field(&message, "content", JsValue::from(replaced)))
        })
        .collect()
}

/// `for (const block of content)`: arrays yield their items, strings their characters, and
/// anything else throws.
fn iterate_content<'a>(content: Option<&JsValue<'a>>) -> Result<Vec<JsValue<'a>>, Thrown> {
    match content {
        Some(JsValue::Array(items)) => Ok(items.to_vec()),
        Some(JsValue::String(text)) => Ok(js_string::chars(text)
            .map(|c| JsValue::from(js_string::to_string(c)))
            .collect()),
        _ => Err(throw("TypeError: content is not iterable")),
    }
}

/// `replaceImagesWithPlaceholder`: a run of images becomes one placeholder, and a literal
/// placeholder text also absorbs the images that follow it.
pub(crate) fn replace_images<'a>(
    blocks: &[JsValue<'a>],
    placeholder: &'static str,
) -> Result<Vec<JsValue<'a>>, Thrown> {
    let mut out = Vec::with_capacity(blocks.len());
    let mut previous_was_placeholder = false;
    for block in blocks {
        if block.is_null() {
            return Err(throw(js::cannot_read(Some(block), "type")));
        }
        if is_str(field(block, "type"), "image") {
            if !previous_was_placeholder {
                out.push(text_block(JsValue::from(placeholder)));
            }
            previous_was_placeholder = true;
            continue;
        }
        out.push(block.clone());
        previous_was_placeholder = is_str(field(block, "text"), placeholder);
    }
    Ok(out)
}

/// `{type: "text", text}`.
fn text_block(text: JsValue<'_>) -> JsValue<'_> {
    JsValue::object([("type", JsValue::from("text")), ("text", text)])
}

/// `{...message, key: value}`.
fn with_field<'a>(
    message: &JsValue<'a>,
    key: &'static str,
    value: JsValue<'a>,
) -> Cow<'a, JsValue<'a>> {
    Cow::Owned(match message {
        JsValue::Object(map) => JsValue::Object(map.with(key, value)),
        other => other.clone(),
    })
}

/// Step 2 for one message: remap a result's id through the global map, or rewrite an
/// assistant's blocks.
fn first_pass_message<'a>(
    message: Cow<'a, JsValue<'a>>,
    model: &JsValue,
    v: PiVersion,
    id_map: &mut HashMap<String, String>,
    remapped_result_ids: &mut HashSet<String>,
    ids: IdNormaliser,
    fault: Option<Fault>,
) -> Result<Cow<'a, JsValue<'a>>, Thrown> {
    if message.is_null() {
        return Err(throw(js::cannot_read(Some(&message), "role")));
    }
    let role = field(&message, "role");
    if is_str(role, "toolResult") && fault != Some(Fault::CompareRawIds) {
        let remapped = field(&message, "toolCallId")
            .and_then(JsValue::as_str)
            .and_then(|id| id_map.get(id).filter(|n| n.as_str() != id));
        return Ok(match remapped {
            Some(normalized) => {
                remapped_result_ids.insert(normalized.clone());
                with_field(&message, "toolCallId", JsValue::from(normalized.clone()))
            }
            None => message,
        });
    }
    if !is_str(role, "assistant") {
        return Ok(message);
    }
    let origin = Origin::of(&message, model);
    let content = field(&message, "content");
    let blocks = js::array_items(content, "assistantMsg.content", "flatMap").map_err(throw)?;
    // The new content, begun at the first block that changes: an assistant whose blocks all stay
    // is neither copied nor rebuilt.
    let mut content: Option<Vec<JsValue<'a>>> = None;
    for (i, block) in blocks.iter().enumerate() {
        let outcome = transform_block(block, origin, v, id_map, ids)?;
        if content.is_none() && matches!(outcome, BlockOutcome::Keep) {
            continue;
        }
        let content = content.get_or_insert_with(|| blocks[..i].to_vec());
        match outcome {
            BlockOutcome::Keep => content.push(block.clone()),
            BlockOutcome::Drop => {}
            BlockOutcome::Replace(new) => content.push(new),
            BlockOutcome::Flatten(items) => content.extend(items.iter().cloned()),
        }
    }
    Ok(match content {
        Some(content) => with_field(&message, "content", JsValue::from(content)),
        None => message,
    })
}

enum BlockOutcome<'b, 'a> {
    Keep,
    Drop,
    Replace(JsValue<'a>),
    /// `flatMap` flattens a returned array one level: an array "block" is spliced in.
    Flatten(&'b [JsValue<'a>]),
}

fn transform_block<'b, 'a>(
    block: &'b JsValue<'a>,
    origin: Origin,
    v: PiVersion,
    id_map: &mut HashMap<String, String>,
    ids: IdNormaliser,
) -> Result<BlockOutcome<'b, 'a>, Thrown> {
    if block.is_null() {
        return Err(throw(js::cannot_read(Some(block), "type")));
    }
    let kind = field(block, "type");
    let same = origin.same;
    if is_str(kind, "thinking") {
        return thinking_block(block, same, v);
    }
    if is_str(kind, "text") {
        // `{type: "text", text: block.text}`: a block without other fields is that already.
        let plain = |map: &Object| map.iter().all(|(key, _)| key == "type" || key == "text");
        if same || block.as_object().is_some_and(plain) {
            return Ok(BlockOutcome::Keep);
        }
        let mut map = Object::new();
        map.insert("type", JsValue::from("text"));
        if let Some(text) = field(block, "text") {
            map.insert("text", text.clone());
        }
        return Ok(BlockOutcome::Replace(JsValue::Object(map)));
    }
    if is_str(kind, "toolCall") {
        if same {
            return Ok(BlockOutcome::Keep);
        }
        let signed = truthy(field(block, "thoughtSignature"));
        let id = match (field(block, "id"), ids.first_call()) {
            (Some(JsValue::String(id)), _) => Some(&**id),
            // A normaliser that returns every id as it is reads none, whatever it is.
            (_, None) => None,
            (id @ (None | Some(JsValue::Null)), Some((_, method))) => {
                return Err(throw(js::cannot_read(id, method)));
            }
            (Some(_), Some((receiver, method))) => {
                return Err(throw(format!(
                    "TypeError: {receiver}.{method} is not a function"
                )));
            }
        };
        let renamed = id.and_then(|id| match ids.normalize(id, origin.foreign) {
            Cow::Owned(normalized) => Some((id, normalized)),
            Cow::Borrowed(_) => None,
        });
        if !signed && renamed.is_none() {
            // Copied only when changed: most calls of another model's assistant are not.
            return Ok(BlockOutcome::Keep);
        }
        let mut call = block.clone();
        if let JsValue::Object(map) = &mut call {
            if signed {
                map.remove("thoughtSignature");
            }
            if let Some((_, normalized)) = &renamed {
                map.insert("id", JsValue::from(normalized.clone()));
            }
        }
        if let Some((id, normalized)) = renamed {
            id_map.insert(id.to_string(), normalized);
        }
        return Ok(BlockOutcome::Replace(call));
    }
    Ok(match block {
        JsValue::Array(items) => BlockOutcome::Flatten(items),
        _ => BlockOutcome::Keep,
    })
}

/// A thinking block: kept, dropped, or (another model, before 1.3.0) turned into plain text.
fn thinking_block<'b, 'a>(
    block: &'b JsValue<'a>,
    same: bool,
    v: PiVersion,
) -> Result<BlockOutcome<'b, 'a>, Thrown> {
    let redacted = truthy(field(block, "redacted"));
    let signed = truthy(field(block, "thinkingSignature"));
    if v.drops_cross_model_thinking() {
        if !same {
            return Ok(BlockOutcome::Drop);
        }
        if redacted || signed {
            return Ok(BlockOutcome::Keep);
        }
        return Ok(if has_thinking_text(block)? {
            BlockOutcome::Keep
        } else {
            BlockOutcome::Drop
        });
    }
    if redacted {
        return Ok(if same {
            BlockOutcome::Keep
        } else {
            BlockOutcome::Drop
        });
    }
    if same && signed {
        return Ok(BlockOutcome::Keep);
    }
    if !has_thinking_text(block)? {
        return Ok(BlockOutcome::Drop);
    }
    if same {
        return Ok(BlockOutcome::Keep);
    }
    let text = field(block, "thinking").cloned().unwrap_or(JsValue::Null);
    Ok(BlockOutcome::Replace(text_block(text)))
}

/// `!(!block.thinking || block.thinking.trim() === "")`, throwing where `trim` does not exist.
fn has_thinking_text(block: &JsValue) -> Result<bool, Thrown> {
    let thinking = field(block, "thinking");
    if !truthy(thinking) {
        return Ok(false);
    }
    match thinking {
        Some(JsValue::String(text)) => Ok(!js::is_blank(text)),
        _ => Err(throw("TypeError: block.thinking.trim is not a function")),
    }
}

mod accounting;
#[cfg(test)]
mod tests;
