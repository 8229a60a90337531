//! The `input` of the Responses body pi's openai-responses provider sends, typed: what
//! [`crate::pi::request`]'s builder makes, [`super::validate_input`] judges and `render` writes.
//! Every text and value is borrowed from the transformed messages but a reasoning item (parsed
//! from its signature, any JSON value), and a call's arguments are written as JSON text only
//! when the body is written (no rule reads them). Each item writes its fields in the order pi
//! sets them.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::InputEntry;
use crate::js_value::JsValue;
use crate::wire::openai::body::arguments_text;

/// `{"input": [...]}`.
#[derive(Serialize)]
pub struct ResponsesBody<'r> {
    pub input: Vec<InputItem<'r>>,
}

/// One item of the input.
pub enum InputItem<'r> {
    /// `{role, content}`: the collapsed prompt (`developer` or `system`, a text) or a user's
    /// message (`user`, its parts).
    Message {
        role: &'static str,
        content: ItemContent<'r>,
    },
    /// A reasoning item pi sends back as its signature parses, whatever it holds.
    Reasoning(JsValue<'r>),
    /// `{type: "message", role: "assistant", content: [{type: "output_text", text,
    /// annotations: []}], status: "completed", id, phase?}`.
    AssistantText {
        text: Cow<'r, str>,
        id: String,
        phase: Option<&'static str>,
    },
    /// `{type: "function_call", id?, call_id, name?, arguments?, namespace?}`, an `undefined`
    /// field left out as the JSON of the body leaves it.
    FunctionCall {
        id: Option<&'r str>,
        call_id: &'r str,
        name: Option<&'r JsValue<'r>>,
        arguments: Option<&'r JsValue<'r>>,
        namespace: Option<&'r JsValue<'r>>,
    },
    /// `{type: "function_call_output", call_id, output}`.
    FunctionCallOutput {
        call_id: &'r str,
        output: ItemContent<'r>,
    },
}

/// A text, or parts.
pub enum ItemContent<'r> {
    Text(Cow<'r, str>),
    Parts(Vec<InputPart<'r>>),
}

/// A part of a user's message or of a result's output.
pub enum InputPart<'r> {
    /// `{type: "input_text", text}`.
    Text(Cow<'r, str>),
    /// `{type: "input_image", detail: "auto", image_url}`, the URL a `data:` URL.
    Image(String),
}

impl InputEntry for InputItem<'_> {
    fn str_member(&self, key: &str) -> Option<&str> {
        match (self, key) {
            (InputItem::Reasoning(item), _) => item.str_member(key),
            (InputItem::AssistantText { .. }, "type") => Some("message"),
            (InputItem::AssistantText { .. }, "role") => Some("assistant"),
            (InputItem::AssistantText { id, .. }, "id") => Some(id),
            (InputItem::FunctionCall { .. }, "type") => Some("function_call"),
            (InputItem::FunctionCall { id, .. }, "id") => *id,
            (InputItem::FunctionCall { call_id, .. }, "call_id") => Some(call_id),
            (InputItem::FunctionCallOutput { .. }, "type") => Some("function_call_output"),
            (InputItem::FunctionCallOutput { call_id, .. }, "call_id") => Some(call_id),
            _ => None,
        }
    }
}

impl Serialize for InputItem<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        if let InputItem::Reasoning(item) = self {
            return item.serialize(out);
        }
        let mut map = out.serialize_map(None)?;
        match self {
            InputItem::Reasoning(_) => {}
            InputItem::Message { role, content } => {
                map.serialize_entry("role", role)?;
                map.serialize_entry("content", content)?;
            }
            InputItem::AssistantText { text, id, phase } => {
                #[derive(Serialize)]
                struct OutputText<'t> {
                    r#type: &'static str,
                    text: &'t str,
                    annotations: [(); 0],
                }
                map.serialize_entry("type", "message")?;
                map.serialize_entry("role", "assistant")?;
                let content = [OutputText {
                    r#type: "output_text",
                    text,
                    annotations: [],
                }];
                map.serialize_entry("content", &content)?;
                map.serialize_entry("status", "completed")?;
                map.serialize_entry("id", id)?;
                if let Some(phase) = phase {
                    map.serialize_entry("phase", phase)?;
                }
            }
            InputItem::FunctionCall {
                id,
                call_id,
                name,
                arguments,
                namespace,
            } => {
                map.serialize_entry("type", "function_call")?;
                if let Some(id) = id {
                    map.serialize_entry("id", id)?;
                }
                map.serialize_entry("call_id", call_id)?;
                if let Some(name) = name {
                    map.serialize_entry("name", name)?;
                }
                if let Some(arguments) = arguments {
                    map.serialize_entry("arguments", &arguments_text(arguments))?;
                }
                if let Some(namespace) = namespace {
                    map.serialize_entry("namespace", namespace)?;
                }
            }
            InputItem::FunctionCallOutput { call_id, output } => {
                map.serialize_entry("type", "function_call_output")?;
                map.serialize_entry("call_id", call_id)?;
                map.serialize_entry("output", output)?;
            }
        }
        map.end()
    }
}

impl Serialize for ItemContent<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self {
            ItemContent::Text(text) => out.serialize_str(text),
            ItemContent::Parts(parts) => parts.serialize(out),
        }
    }
}

impl Serialize for InputPart<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        let mut map = out.serialize_map(None)?;
        match self {
            InputPart::Text(text) => {
                map.serialize_entry("type", "input_text")?;
                map.serialize_entry("text", text)?;
            }
            InputPart::Image(url) => {
                map.serialize_entry("type", "input_image")?;
                map.serialize_entry("detail", "auto")?;
                map.serialize_entry("image_url", url)?;
            }
        }
        map.end()
    }
}
