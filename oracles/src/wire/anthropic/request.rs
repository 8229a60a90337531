//! A Messages API request body, typed: what [`super::validate`] reads, and what the JSON body is
//! written from ([`Request::to_json`]) only when someone wants to see it.
//!
//! Every field borrows from the messages it was built from; a text is owned only when building
//! it made a new one (a join, a caption, a text without its lone surrogates). Judging a
//! transcript therefore copies none of its text and allocates one small vector per message.

use std::borrow::Cow;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::js_value::JsValue;

/// `{"model", "messages", "system"?, "max_tokens", "stream": true}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a JsValue<'a>>,
    pub messages: Vec<Message<'a>>,
    /// The system prompt, written as one text block.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "one_text_block"
    )]
    pub system: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<&'a JsValue<'a>>,
    pub stream: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message<'a> {
    pub role: Role,
    pub content: Content<'a>,
}

/// The roles the API takes in `messages` (a system prompt is [`Request::system`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// A message's or a tool result's content: a plain string, or blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block<'a> {
    Text {
        text: Cow<'a, str>,
    },
    /// A base64 image; `media_type` and `data` are whatever the message held.
    Image {
        #[serde(serialize_with = "base64_source")]
        source: ImageSource<'a>,
    },
    Thinking {
        thinking: Cow<'a, str>,
        signature: &'a str,
    },
    RedactedThinking {
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<&'a JsValue<'a>>,
    },
    ToolUse {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'a JsValue<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'a JsValue<'a>>,
        /// `None` is written `{}`.
        #[serde(serialize_with = "empty_object_if_none")]
        input: Option<&'a JsValue<'a>>,
    },
    ToolResult {
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<&'a JsValue<'a>>,
        content: Content<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        is_error: Option<&'a JsValue<'a>>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageSource<'a> {
    pub media_type: Option<&'a JsValue<'a>>,
    pub data: Option<&'a JsValue<'a>>,
}

impl Request<'_> {
    /// The JSON body as sent.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a request body is plain JSON")
    }
}

fn one_text_block<S: Serializer>(prompt: &Option<String>, out: S) -> Result<S::Ok, S::Error> {
    let text = prompt.as_deref().map(Cow::Borrowed).unwrap_or_default();
    [Block::Text { text }].serialize(out)
}

fn base64_source<S: Serializer>(source: &ImageSource<'_>, out: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Base64<'a> {
        r#type: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        media_type: Option<&'a JsValue<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<&'a JsValue<'a>>,
    }
    Base64 {
        r#type: "base64",
        media_type: source.media_type,
        data: source.data,
    }
    .serialize(out)
}

fn empty_object_if_none<S: Serializer>(
    input: &Option<&JsValue<'_>>,
    out: S,
) -> Result<S::Ok, S::Error> {
    match input {
        Some(input) => input.serialize(out),
        None => serde_json::Map::new().serialize(out),
    }
}
