//! Step 3 of `transformMessages`: the tool-call accounting pass. `assistant` and `user` close the
//! open calls with synthetic "No result provided" results for the unanswered ones, in call order;
//! error/aborted assistants are dropped after closing; `system` (0.86+) is held while calls are
//! open; tool results pass through unchecked.

use std::borrow::Cow;

use super::{NO_RESULT_TEXT, text_block, throw};
use crate::js::{self, field, is_str};
use crate::js_value::JsValue;
use crate::pi::{Fault, PiVersion, Thrown};

/// A tool call id as `Set.has` compares it (SameValueZero): primitives by value; an object or
/// array id is a distinct reference that nothing else equals (`None`).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum IdKey<'k> {
    Undefined,
    Null,
    Bool(bool),
    /// The bits of the number as an `f64`, with `-0` read as `0`.
    Number(u64),
    Str(&'k str),
}

impl<'k> IdKey<'k> {
    fn of(id: Option<&'k JsValue>) -> Option<Self> {
        match id {
            None => Some(IdKey::Undefined),
            Some(JsValue::Null) => Some(IdKey::Null),
            Some(JsValue::Bool(b)) => Some(IdKey::Bool(*b)),
            Some(JsValue::Number(n)) => Some(IdKey::Number((n.as_f64()? + 0.0).to_bits())),
            Some(JsValue::String(s)) => Some(IdKey::Str(s)),
            Some(JsValue::Array(_) | JsValue::Object(_)) => None,
        }
    }
}

/// Step 3: the tool-call accounting pass.
pub(super) fn account_tool_calls<'a>(
    messages: Vec<Cow<'a, JsValue<'a>>>,
    v: PiVersion,
    fault: Option<Fault>,
) -> Result<Vec<Cow<'a, JsValue<'a>>>, Thrown> {
    let mut ledger = Ledger {
        out: Vec::with_capacity(messages.len() + 4),
        pending: None,
        held: Vec::new(),
    };
    for message in messages {
        let role = field(&message, "role").and_then(JsValue::as_str);
        match role {
            Some("assistant") => {
                ledger.close();
                let stop = field(&message, "stopReason").and_then(JsValue::as_str);
                if matches!(stop, Some("error" | "aborted"))
                    && fault != Some(Fault::KeepErroredAssistants)
                {
                    continue;
                }
                if has_tool_calls(&message)? {
                    ledger.pending = Some(ledger.out.len());
                }
                ledger.out.push(message);
            }
            Some("system") if v.has_system_role() && ledger.pending.is_some() => {
                ledger.held.push(message);
            }
            Some("user") => {
                if fault != Some(Fault::NoSyntheticAtUser) {
                    ledger.close();
                }
                ledger.out.push(message);
            }
            // Results are never checked here: their ids are read when the calls are closed.
            _ => ledger.out.push(message),
        }
    }
    ledger.close();
    Ok(ledger.out)
}

/// The `toolCall` blocks of an assistant's (already transformed, so array) content.
fn calls_of<'v, 'a>(assistant: &'v JsValue<'a>) -> impl Iterator<Item = &'v JsValue<'a>> {
    field(assistant, "content")
        .and_then(JsValue::as_array)
        .into_iter()
        .flatten()
        .filter(|block| is_str(field(block, "type"), "toolCall"))
}

/// `assistant.content.filter(b => b.type === "toolCall").length > 0`, throwing where a block is
/// `null` (only possible for arrays `flatMap` spliced in).
fn has_tool_calls(assistant: &JsValue) -> Result<bool, Thrown> {
    let Some(JsValue::Array(blocks)) = field(assistant, "content") else {
        return Ok(false);
    };
    if let Some(null) = blocks.iter().find(|block| block.is_null()) {
        return Err(throw(js::cannot_read(Some(null), "type")));
    }
    Ok(calls_of(assistant).next().is_some())
}

struct Ledger<'a> {
    out: Vec<Cow<'a, JsValue<'a>>>,
    /// Index in `out` of the assistant whose calls are open.
    pending: Option<usize>,
    held: Vec<Cow<'a, JsValue<'a>>>,
}

impl<'a> Ledger<'a> {
    /// `closePendingToolCalls`: a synthetic result for every call of the open assistant that no
    /// result since it answers (in call order, duplicates included), then the held system
    /// messages.
    fn close(&mut self) {
        if let Some(assistant) = self.pending.take() {
            let (before, after) = self.out.split_at(assistant + 1);
            // Sorted rather than hashed: an assistant has a few calls and a few answers, and a
            // hash set per assistant was the most of closing one.
            let mut answered: Vec<IdKey<'_>> = after
                .iter()
                .filter(|m| is_str(field(m, "role"), "toolResult"))
                .filter_map(|m| IdKey::of(field(m, "toolCallId")))
                .collect();
            answered.sort_unstable();
            let synthetic: Vec<JsValue<'a>> = calls_of(&before[assistant])
                .filter(|call| {
                    IdKey::of(field(call, "id"))
                        .is_none_or(|key| answered.binary_search(&key).is_err())
                })
                .map(synthetic_result)
                .collect();
            self.out.extend(synthetic.into_iter().map(Cow::Owned));
        }
        self.out.append(&mut self.held);
    }
}

/// The result pi invents for an unanswered call. The timestamp is wall-clock time in pi; the
/// model freezes it to 0, as the reference vectors do.
fn synthetic_result<'a>(call: &JsValue<'a>) -> JsValue<'a> {
    let id = field(call, "id").map(|id| ("toolCallId", id.clone()));
    let name = field(call, "name").map(|name| ("toolName", name.clone()));
    let content = JsValue::from(vec![text_block(JsValue::from(NO_RESULT_TEXT))]);
    JsValue::object(
        [("role", JsValue::from("toolResult"))]
            .into_iter()
            .chain(id)
            .chain(name)
            .chain([
                ("content", content),
                ("isError", JsValue::Bool(true)),
                ("timestamp", JsValue::from(0u64)),
            ]),
    )
}
