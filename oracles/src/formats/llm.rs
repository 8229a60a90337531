//! The bridges' common source: pi's LLM messages (what `convertToLlm` returns) read into types,
//! so each format's writer is a plain match and a transcript a writer cannot express is refused
//! in one place per case.

use std::borrow::Borrow;

use crate::js::{Json, View};
use crate::js_value::{JsValue, Object};

use super::{CannotExpress, Written, opt_str, str_field};

/// Text as pi wrote it: a bare string, or a list of blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    Blocks(Vec<Block>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    Thinking {
        thinking: String,
        signature: Option<String>,
    },
    Image {
        data: String,
        mime_type: String,
    },
    Call(CallBlock),
}

/// A `toolCall` block: the call's id, the tool's name and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct CallBlock {
    pub id: String,
    pub name: String,
    /// Always an object.
    pub arguments: Written,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    System(Content),
    User(Content),
    Assistant(Vec<Block>),
    Result(ToolResult),
}

/// A `toolResult` message: which call it answers, and what the tool returned.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub id: String,
    pub name: String,
    pub content: Content,
    pub is_error: bool,
}

/// Reads pi LLM messages; every shape the writers do not handle is refused here.
pub fn read<'a, M: Borrow<JsValue<'a>>>(messages: &[M]) -> Result<Vec<Message>, CannotExpress> {
    messages
        .iter()
        .map(|value| message(value.borrow()))
        .collect()
}

fn message(value: &JsValue) -> Result<Message, CannotExpress> {
    let role = str_field(value, "role");
    Ok(match role {
        "system" => Message::System(content(value.member("content"))?),
        "user" => Message::User(content(value.member("content"))?),
        "assistant" => Message::Assistant(match content(value.member("content"))? {
            Content::Text(text) => vec![Block::Text(text)],
            Content::Blocks(blocks) => blocks,
        }),
        "toolResult" => Message::Result(ToolResult {
            id: opt_str(value, "toolCallId").ok_or(CannotExpress::Id)?,
            name: str_field(value, "toolName").to_string(),
            content: content(value.member("content"))?,
            is_error: matches!(
                value.member("isError").map(Json::view),
                Some(View::Bool(true))
            ),
        }),
        other => return Err(CannotExpress::Role(other.to_string())),
    })
}

fn content(value: Option<&JsValue>) -> Result<Content, CannotExpress> {
    match value.map(Json::view) {
        Some(View::String(text)) => Ok(Content::Text(text.to_string())),
        Some(View::Array(blocks)) => blocks
            .iter()
            .map(block)
            .collect::<Result<_, _>>()
            .map(Content::Blocks),
        _ => Err(CannotExpress::Content),
    }
}

fn block(value: &JsValue) -> Result<Block, CannotExpress> {
    let text = |key: &str| opt_str(value, key).ok_or(CannotExpress::Content);
    Ok(match str_field(value, "type") {
        "text" => Block::Text(text("text")?),
        "thinking" => Block::Thinking {
            thinking: text("thinking")?,
            signature: opt_str(value, "thinkingSignature"),
        },
        "image" => Block::Image {
            data: text("data")?,
            mime_type: text("mimeType")?,
        },
        "toolCall" => Block::Call(CallBlock {
            id: opt_str(value, "id").ok_or(CannotExpress::Id)?,
            name: opt_str(value, "name").ok_or(CannotExpress::Id)?,
            arguments: match value.member("arguments") {
                Some(arguments @ JsValue::Object(_)) => arguments.owned_copy(),
                None | Some(JsValue::Null) => JsValue::Object(Object::new()),
                Some(_) => return Err(CannotExpress::Block("non-object tool arguments".into())),
            },
        }),
        other => return Err(CannotExpress::Block(format!("a `{other}` block"))),
    })
}

impl Content {
    /// A bare string as it is; the blocks as a list, each written by `part`.
    pub fn write(
        &self,
        part: impl FnMut(&Block) -> Result<Written, CannotExpress>,
    ) -> Result<Written, CannotExpress> {
        match self {
            Content::Text(text) => Ok(JsValue::from(text.clone())),
            Content::Blocks(blocks) => blocks
                .iter()
                .map(part)
                .collect::<Result<Vec<_>, _>>()
                .map(JsValue::from),
        }
    }

    /// The blocks (a bare string is one text block).
    pub fn blocks(&self) -> Vec<Block> {
        match self {
            Content::Text(text) => vec![Block::Text(text.clone())],
            Content::Blocks(blocks) => blocks.clone(),
        }
    }

    /// The one text this content is, refusing anything else (for places a format holds one
    /// string: a Gemini function response, an AI SDK system message).
    pub fn single_text(&self, place: &str) -> Result<String, CannotExpress> {
        match self.blocks().as_slice() {
            [Block::Text(text)] => Ok(text.clone()),
            _ => Err(CannotExpress::Block(format!(
                "content other than one text in {place}"
            ))),
        }
    }
}
