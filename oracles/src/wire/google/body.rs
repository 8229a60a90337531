//! The `contents` of the Gemini body pi's google-generative-ai provider sends, typed: what
//! [`crate::pi::request`]'s builder makes, [`super::validate_contents`] judges and `render`
//! writes. Every text and value is borrowed from the transformed messages (a call's arguments
//! too, where the `JsValue` body copied them). Each part writes its fields in the order pi sets
//! them.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::{ContentEntry, PartEntry};
use crate::js::{field, is_nullish};
use crate::js_value::JsValue;

/// `{"contents": [...]}`.
#[derive(Serialize)]
pub struct GeminiBody<'r> {
    pub contents: Vec<GeminiContent<'r>>,
}

/// A content of the body: a turn's role (`user` or `model`) and its parts.
#[derive(Serialize)]
pub struct GeminiContent<'r> {
    pub role: &'static str,
    pub parts: Vec<GeminiPart<'r>>,
}

/// A part of a content.
pub enum GeminiPart<'r> {
    /// `{text, thought?: true, thoughtSignature?}`.
    Text {
        text: Cow<'r, str>,
        thought: bool,
        signature: Option<&'r str>,
    },
    /// `{inlineData: {mimeType, data}}` of an image, an `undefined` field left out.
    InlineData(&'r JsValue<'r>),
    /// `{functionCall: {name, args: arguments ?? {}, id?}, thoughtSignature?}`.
    FunctionCall {
        name: Option<&'r JsValue<'r>>,
        arguments: Option<&'r JsValue<'r>>,
        id: Option<&'r JsValue<'r>>,
        signature: Option<&'r str>,
    },
    /// `{functionResponse: {name, response: {output | error: value}, parts?, id?}}`, `parts` the
    /// result's images where the model takes them inside the response.
    FunctionResponse {
        name: Option<&'r JsValue<'r>>,
        key: &'static str,
        value: Cow<'r, str>,
        images: Vec<GeminiPart<'r>>,
        id: Option<&'r JsValue<'r>>,
    },
}

impl<'r> ContentEntry for GeminiContent<'r> {
    type Part = GeminiPart<'r>;

    fn role(&self) -> Option<&str> {
        Some(self.role)
    }

    fn parts(&self) -> &[GeminiPart<'r>] {
        &self.parts
    }
}

impl PartEntry for GeminiPart<'_> {
    fn is_call(&self) -> bool {
        matches!(self, GeminiPart::FunctionCall { .. })
    }

    fn is_response(&self) -> bool {
        matches!(self, GeminiPart::FunctionResponse { .. })
    }

    fn is_empty_unsigned_text(&self) -> bool {
        matches!(self, GeminiPart::Text { text, signature: None, .. } if text.is_empty())
    }
}

impl Serialize for GeminiPart<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        let mut map = out.serialize_map(None)?;
        match self {
            GeminiPart::Text {
                text,
                thought,
                signature,
            } => {
                map.serialize_entry("text", text)?;
                if *thought {
                    map.serialize_entry("thought", &true)?;
                }
                if let Some(signature) = signature {
                    map.serialize_entry("thoughtSignature", signature)?;
                }
            }
            GeminiPart::InlineData(image) => {
                map.serialize_entry("inlineData", &InlineData(image))?
            }
            GeminiPart::FunctionCall {
                name,
                arguments,
                id,
                signature,
            } => {
                let call = FunctionCall {
                    name: *name,
                    arguments: *arguments,
                    id: *id,
                };
                map.serialize_entry("functionCall", &call)?;
                if let Some(signature) = signature {
                    map.serialize_entry("thoughtSignature", signature)?;
                }
            }
            GeminiPart::FunctionResponse {
                name,
                key,
                value,
                images,
                id,
            } => {
                let response = FunctionResponse {
                    name: *name,
                    key,
                    value,
                    images,
                    id: *id,
                };
                map.serialize_entry("functionResponse", &response)?;
            }
        }
        map.end()
    }
}

/// `{mimeType, data}` of an image, an `undefined` field left out.
struct InlineData<'v, 'r>(&'v JsValue<'r>);

impl Serialize for InlineData<'_, '_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        out.collect_map(
            ["mimeType", "data"]
                .into_iter()
                .filter_map(|key| Some((key, field(self.0, key)?))),
        )
    }
}

/// `{name, args: arguments ?? {}, id?}`.
struct FunctionCall<'r> {
    name: Option<&'r JsValue<'r>>,
    arguments: Option<&'r JsValue<'r>>,
    id: Option<&'r JsValue<'r>>,
}

impl Serialize for FunctionCall<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        let mut map = out.serialize_map(None)?;
        if let Some(name) = self.name {
            map.serialize_entry("name", name)?;
        }
        match self.arguments.filter(|a| !is_nullish(Some(*a))) {
            Some(arguments) => map.serialize_entry("args", arguments)?,
            None => map.serialize_entry("args", &JsValue::object::<&str>([]))?,
        }
        if let Some(id) = self.id {
            map.serialize_entry("id", id)?;
        }
        map.end()
    }
}

/// `{name, response: {key: value}, parts?, id?}`.
struct FunctionResponse<'v, 'r> {
    name: Option<&'r JsValue<'r>>,
    key: &'static str,
    value: &'v str,
    images: &'v [GeminiPart<'r>],
    id: Option<&'r JsValue<'r>>,
}

impl Serialize for FunctionResponse<'_, '_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        let mut map = out.serialize_map(None)?;
        if let Some(name) = self.name {
            map.serialize_entry("name", name)?;
        }
        map.serialize_entry("response", &Response(self.key, self.value))?;
        if !self.images.is_empty() {
            map.serialize_entry("parts", self.images)?;
        }
        if let Some(id) = self.id {
            map.serialize_entry("id", id)?;
        }
        map.end()
    }
}

/// `{output: value}` or `{error: value}`.
struct Response<'v>(&'static str, &'v str);

impl Serialize for Response<'_> {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        out.collect_map([(self.0, self.1)])
    }
}
