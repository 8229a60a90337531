//! The `messages` of the Chat Completions body pi's openai-completions provider sends, typed:
//! what [`crate::pi::request`]'s builder makes, [`super::validate_body`] judges and `render`
//! writes. Every text and value is borrowed from the transformed messages, and a call's arguments
//! are written as JSON text only when the body is written (no rule reads them), where the
//! `JsValue` body stringified each call's arguments to judge it.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::ChatEntry;
use crate::js_value::{JsValue, SortedKeys};
use crate::json_text;

/// `{"messages": [...]}`.
#[derive(Serialize)]
pub struct ChatBody<'r> {
    pub messages: Vec<ChatMessage<'r>>,
}

/// One message of the body: its fields in the order pi sets them, each name once (pi's
/// assignment of a name already set keeps its place).
pub struct ChatMessage<'r>(pub(crate) Vec<(&'r str, ChatField<'r>)>);

/// The value of a message's field.
pub enum ChatField<'r> {
    Null,
    Text(Cow<'r, str>),
    Parts(Vec<ChatPart<'r>>),
    Calls(Vec<ToolCall<'r>>),
    /// A value of the transcript as it stands there (a result's `toolCallId` or `toolName`).
    Value(&'r JsValue<'r>),
    /// `reasoning_details`, parsed from signatures.
    Details(Vec<JsValue<'r>>),
}

/// A part of a `content` array.
pub enum ChatPart<'r> {
    /// `{type: "text", text}`.
    Text(Cow<'r, str>),
    /// `{type: "image_url", image_url: {url}}`, the URL a `data:` URL.
    ImageUrl(String),
}

/// `{id, type: "function", function: {name, arguments: JSON.stringify(arguments)}}`, an
/// `undefined` field left out as the JSON of the body leaves it.
pub struct ToolCall<'r> {
    pub(crate) id: Option<&'r JsValue<'r>>,
    pub(crate) name: Option<&'r JsValue<'r>>,
    pub(crate) arguments: Option<&'r JsValue<'r>>,
}

/// `JSON.stringify(call.arguments)` of the OpenAI bodies, its keys in the order a
/// `serde_json::Value` writes them (sorted). pi writes an object's keys in their own order
/// (integer-like ones first): the texts differ for arguments whose keys are not sorted, which
/// the generated transcripts never have (their calls take one argument).
pub(crate) fn arguments_text(arguments: &JsValue) -> String {
    json_text::to_string(&SortedKeys(arguments)).expect("JSON of a JSON value")
}

impl<'r> ChatMessage<'r> {
    /// The field named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&ChatField<'r>> {
        self.0
            .iter()
            .find(|(field, _)| *field == name)
            .map(|(_, value)| value)
    }
}

impl ChatEntry for ChatMessage<'_> {
    fn not_an_object(&self) -> Option<&'static str> {
        None
    }

    fn str_member(&self, key: &str) -> &str {
        match self.get(key) {
            Some(ChatField::Text(text)) => text,
            Some(ChatField::Value(value)) => value.as_str().unwrap_or_default(),
            _ => "",
        }
    }

    fn call_ids(&self) -> Vec<&str> {
        match self.get("tool_calls") {
            Some(ChatField::Calls(calls)) => calls
                .iter()
                .map(|call| call.id.and_then(JsValue::as_str).unwrap_or_default())
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Serialize for ChatMessage<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        out.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

impl Serialize for ChatField<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self {
            ChatField::Null => out.serialize_unit(),
            ChatField::Text(text) => out.serialize_str(text),
            ChatField::Parts(parts) => parts.serialize(out),
            ChatField::Calls(calls) => calls.serialize(out),
            ChatField::Value(value) => value.serialize(out),
            ChatField::Details(details) => details.serialize(out),
        }
    }
}

impl Serialize for ChatPart<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        let mut map = out.serialize_map(Some(2))?;
        match self {
            ChatPart::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            ChatPart::ImageUrl(url) => {
                #[derive(Serialize)]
                struct Url<'u> {
                    url: &'u str,
                }
                map.serialize_entry("type", "image_url")?;
                map.serialize_entry("image_url", &Url { url })?;
            }
        }
        map.end()
    }
}

impl Serialize for ToolCall<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        /// `{name, arguments}`.
        struct Function<'f, 'r>(&'f ToolCall<'r>);
        impl Serialize for Function<'_, '_> {
            fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
                let mut map = out.serialize_map(None)?;
                if let Some(name) = self.0.name {
                    map.serialize_entry("name", name)?;
                }
                if let Some(arguments) = self.0.arguments {
                    map.serialize_entry("arguments", &arguments_text(arguments))?;
                }
                map.end()
            }
        }
        let mut map = out.serialize_map(None)?;
        if let Some(id) = self.id {
            map.serialize_entry("id", id)?;
        }
        map.serialize_entry("type", "function")?;
        map.serialize_entry("function", &Function(self))?;
        map.end()
    }
}
