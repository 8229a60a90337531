//! The tools the system messages declare (pi-ai's `getCurrentTools`), and the one thing about
//! them the model judges: whether pi can turn them into the request's tool definitions
//! (`convertTools`) or throws instead. The definitions themselves are not modelled: they take no
//! part in the tool pairing the oracle judges. Neither is JSON-schema constrained sampling
//! (`constrainedSampling: {"type": "json_schema"}`), which pi may reject with its own error: such
//! a tool is judged by its `parameters` like any other.

use crate::js_value::JsValue;

use super::throw;
use crate::js::{self, field};
use crate::pi::Thrown;

/// A declared tool as pi's `Map` holds it: by its `name`, with the `parameters` read later.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tool<'v> {
    name: Option<&'v JsValue<'v>>,
    parameters: Option<&'v JsValue<'v>>,
}

/// `getCurrentTools(messages)` over the system messages: each one's `toolsRemoved` deletes by
/// name, then its `toolsAdded` sets by name (a same-named tool is replaced in place, a new one
/// appended), which is the order of pi's `Map`. Names compare by SameValueZero, which for JSON
/// values is `===`.
pub(super) fn current<'v>(system_messages: &[&'v JsValue<'v>]) -> Result<Vec<Tool<'v>>, Thrown> {
    let mut tools: Vec<Tool<'v>> = Vec::new();
    for message in system_messages {
        for removed in iterate(field(message, "toolsRemoved"))? {
            tools.retain(|tool| !js::strict_equals(tool.name, removed.name));
        }
        for added in iterate(field(message, "toolsAdded"))? {
            match tools
                .iter_mut()
                .find(|tool| js::strict_equals(tool.name, added.name))
            {
                Some(slot) => *slot = added,
                None => tools.push(added),
            }
        }
    }
    Ok(tools)
}

/// `for (const tool of value ?? [])` reading each `tool.name`: an array gives its elements (a
/// `null` one throws), a string its code points (primitives, so no name and no parameters);
/// anything else is not iterable.
fn iterate<'a>(value: Option<&'a JsValue<'a>>) -> Result<Vec<Tool<'a>>, Thrown> {
    let not_iterable = |shown: String| {
        throw(format!(
            "TypeError: {shown} is not iterable (cannot read property Symbol(Symbol.iterator))"
        ))
    };
    match value {
        None | Some(JsValue::Null) => Ok(Vec::new()),
        Some(JsValue::Array(items)) => items
            .iter()
            .map(|item| match item {
                JsValue::Null => Err(throw(js::cannot_read(Some(item), "name"))),
                _ => Ok(Tool {
                    name: field(item, "name"),
                    parameters: field(item, "parameters"),
                }),
            })
            .collect(),
        Some(JsValue::String(text)) => Ok(crate::js_string::chars(text)
            .map(|_| Tool {
                name: None,
                parameters: None,
            })
            .collect()),
        Some(JsValue::Number(n)) => Err(not_iterable(format!(
            "number {}",
            js::number_to_js_string(n.as_f64().unwrap_or(f64::NAN))
        ))),
        Some(JsValue::Bool(b)) => Err(not_iterable(format!("boolean {b}"))),
        Some(JsValue::Object(_)) => Err(not_iterable("object".to_string())),
    }
}

/// `convertTools`: every tool's `parameters` is read as a schema (`schema.properties`), so a
/// tool without any (a primitive tool has none) makes pi throw while building the request.
pub(super) fn convert(tools: &[Tool<'_>]) -> Result<(), Thrown> {
    match tools.iter().find(|tool| js::is_nullish(tool.parameters)) {
        Some(tool) => Err(throw(js::cannot_read(tool.parameters, "properties"))),
        None => Ok(()),
    }
}
