//! Transcript formats other programs speak, read through one view so each contract rule is
//! written once: pi `AgentMessage`s, OpenAI chat completions, Anthropic messages, Gemini
//! `Content[]`, AI SDK `ModelMessage[]` (v5) and LangChain message dicts.
//!
//! Every format has a bridge from pi ([`Format::from_pi`]): generated pi transcripts go through
//! pi's own `convertToLlm` (so custom messages, summaries and bash runs become the user messages
//! pi sends) and are then written in the format. What a format cannot express (an image in an
//! OpenAI tool message, a thinking block in chat completions, a call without a string id) is a
//! typed [`CannotExpress`]: the case is skipped and counted, never altered.
//!
//! Every format has a reader ([`Format::view`]): per message its role, the calls it opens, the
//! results it carries and what is left of it without those results. The wire rules
//! ([`wire`]) and the contracts (`crate::contracts`) read only this view. The fields a format's
//! messages always carry are checked apart ([`Format::missing_field`]): what a minimised case
//! file must keep.

/// A JSON object a bridge writes: `object!{"key": value, ...}`, each value anything a
/// [`JsValue`] is made from, the fields in this order.
macro_rules! object {
    ($($key:literal: $value:expr),* $(,)?) => {
        $crate::js_value::JsValue::object([$(($key, $crate::js_value::JsValue::from($value))),*])
    };
}

mod ai_sdk;
mod anthropic;
mod gemini;
mod langchain;
mod openai;
mod pi;
mod required;
pub mod wire;

use std::borrow::{Borrow, Cow};
use std::fmt;

use crate::error::{Named, UnknownName, unknown};
use crate::js::{Json, View, as_string};
use crate::js_value::JsValue;
use crate::pi::{PiVersion, convert_to_llm};
use llm::Message;
pub use required::MissingField;
use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// A message a bridge wrote, owning its strings.
pub type Written = JsValue<'static>;

/// A transcript format, by the name `--format` takes.
#[derive(Display, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase", parse_err_ty = UnknownName, parse_err_fn = unknown::<Self>)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Pi,
    OpenAi,
    Anthropic,
    Gemini,
    #[strum(serialize = "ai-sdk")]
    AiSdk,
    LangChain,
}

impl Named for Format {
    const KIND: &'static str = "format";
}

impl Format {
    /// The transcript `pi` (pi `AgentMessage`s) written in this format. The pi format is the
    /// transcript itself; every other format is written from what pi's `convertToLlm` returns.
    pub fn from_pi<'a, M: Borrow<JsValue<'a>>>(
        self,
        messages: &'a [M],
    ) -> Result<Vec<Written>, CannotExpress> {
        if self == Format::Pi {
            return Ok(messages.iter().map(|m| m.borrow().owned_copy()).collect());
        }
        let llm = convert_to_llm(messages, PiVersion::default())
            .map_err(|thrown| CannotExpress::PiThrows(thrown.to_string()))?;
        let llm = llm::read(&llm)?;
        match self {
            Format::Pi => unreachable!("returned above"),
            Format::OpenAi => openai::write(&llm),
            Format::Anthropic => anthropic::write(&llm),
            Format::Gemini => gemini::write(&llm),
            Format::AiSdk => ai_sdk::write(&llm),
            Format::LangChain => langchain::write(&llm),
        }
    }

    /// How this format's reader sees `messages`, message by message, borrowing from them.
    pub fn view<J: Json + Clone>(self, messages: &[J]) -> Vec<Entry<'_, J>> {
        messages
            .iter()
            .map(|message| match self {
                Format::Pi => pi::entry(message),
                Format::OpenAi => openai::entry(message),
                Format::Anthropic => anthropic::entry(message),
                Format::Gemini => gemini::entry(message),
                Format::AiSdk => ai_sdk::entry(message),
                Format::LangChain => langchain::entry(message),
            })
            .collect()
    }

    /// The first field this format's messages always carry (a call's id and name, a result's
    /// id, a block's text) that `messages` lacks: `None` for every transcript the bridge writes.
    pub fn missing_field<J: Json>(self, messages: &[J]) -> Option<MissingField> {
        required::missing_field(self, messages)
    }

    /// Whether every result answering one message's calls must sit in the single message right
    /// after it (Anthropic, Gemini), rather than in consecutive result messages (chat formats).
    pub fn results_in_one_message(self) -> bool {
        matches!(self, Format::Anthropic | Format::Gemini)
    }

    /// Whether the provider merges consecutive messages of one role into one turn before it
    /// judges them (Anthropic: "Consecutive user or assistant turns in your request will be
    /// combined into a single turn"), so that the rules apply to turns, not messages.
    pub fn merges_turns(self) -> bool {
        self == Format::Anthropic
    }
}

/// The format another program wrote `message` in, and what tells it, when it is surely no pi
/// message: a key or a part no pi message has and that format's messages carry (an OpenAI
/// `tool` message, an Anthropic `tool_use` block, a Gemini `parts`, ...). pi passes over what it
/// does not know, so a transcript of them judged as pi's would be judged empty; `None` for every
/// message pi writes, and for any other shape (pi's own unknown roles among them).
pub fn written_in<J: Json>(message: &J) -> Option<(Format, &'static str)> {
    let role = as_string(message.member("role"));
    let part_of_type = |kinds: &[&str]| {
        items(message.member("content"))
            .iter()
            .any(|part| kinds.contains(&str_field(part, "type")))
    };
    if role.is_none()
        && matches!(
            as_string(message.member("type")),
            Some("human" | "ai" | "tool")
        )
    {
        Some((
            Format::LangChain,
            "a `type` of human, ai or tool instead of a `role`",
        ))
    } else if message.member("parts").is_some() || role == Some("model") {
        Some((Format::Gemini, "`parts`, or the role `model`"))
    } else if part_of_type(&["tool_use", "tool_result"]) {
        Some((Format::Anthropic, "a `tool_use` or `tool_result` block"))
    } else if part_of_type(&["tool-call", "tool-result"]) {
        Some((Format::AiSdk, "a `tool-call` or `tool-result` part"))
    } else if role == Some("tool") || message.member("tool_calls").is_some() {
        Some((Format::OpenAi, "a `tool` message or `tool_calls`"))
    } else {
        None
    }
}

/// Why a pi transcript has no faithful rendering in a format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CannotExpress {
    /// pi's `convertToLlm` itself throws on the transcript.
    PiThrows(String),
    /// A message whose role the bridge has no rendering for (`system` where the format keeps the
    /// system prompt outside the messages, an unknown role).
    Role(String),
    /// A content block of this type in this place (an image in a tool result, thinking in chat).
    Block(String),
    /// Content that is neither text nor a list of blocks (null, a number, missing).
    Content,
    /// A tool call or result without a string id, or a call without a string name.
    Id,
}

impl CannotExpress {
    /// A short stable key for counting skipped cases by reason.
    pub fn key(&self) -> String {
        match self {
            CannotExpress::PiThrows(_) => "pi-throws".into(),
            CannotExpress::Role(role) => format!("role:{role}"),
            CannotExpress::Block(block) => format!("block:{block}"),
            CannotExpress::Content => "content".into(),
            CannotExpress::Id => "id".into(),
        }
    }
}

impl fmt::Display for CannotExpress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CannotExpress::PiThrows(error) => write!(f, "pi's convertToLlm throws: {error}"),
            CannotExpress::Role(role) => write!(f, "no rendering for a `{role}` message"),
            CannotExpress::Block(block) => write!(f, "no rendering for {block}"),
            CannotExpress::Content => f.write_str("content that is neither text nor blocks"),
            CannotExpress::Id => f.write_str("a call or result without a string id or name"),
        }
    }
}

/// The role of a message as the contracts need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    /// A message that only carries results (`tool`, pi's `toolResult`).
    Tool,
    /// Anything else, by its name as written (`""` when there is none or the entry is no object).
    Other(String),
}

/// A tool call a message opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// `None`: no string id (Gemini's `functionCall.id` is optional).
    pub id: Option<String>,
    pub name: String,
}

/// A tool result a message carries.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultPart<'a, J> {
    /// The call id it answers (`None`: none written; Gemini then pairs by order and name).
    pub id: Option<String>,
    pub name: String,
    /// The result as written (the whole message where a message is one result, else the part).
    pub value: &'a J,
}

/// One message as the contracts read it, borrowing from the message.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<'a, J: Clone> {
    pub role: Role,
    pub calls: Vec<Call>,
    pub results: Vec<ResultPart<'a, J>>,
    /// The message without its result parts (`None` when nothing is left: a message that is only
    /// results). Everything here is what a repair must keep as it is. Borrowed, but for a
    /// message that mixes results with other parts: its copy with only the other parts.
    pub rest: Option<Cow<'a, J>>,
    /// The first of its results that comes after a part that is no result, by its index in
    /// `results` (Anthropic wants a turn's results first).
    pub first_result_behind_other: Option<usize>,
}

impl<'a, J: Json + Clone> Entry<'a, J> {
    /// A message that is neither a call nor a result carrier, kept whole.
    fn plain(role: Role, message: &'a J) -> Self {
        Entry {
            role,
            calls: Vec::new(),
            results: Vec::new(),
            rest: Some(Cow::Borrowed(message)),
            first_result_behind_other: None,
        }
    }

    /// An assistant message whose calls are the items of `list` (a JSON array, or absent) that
    /// `call` reads as a call.
    fn assistant(
        message: &'a J,
        list: Option<&'a J>,
        call: impl FnMut(&'a J) -> Option<Call>,
    ) -> Self {
        Entry {
            calls: items(list).iter().filter_map(call).collect(),
            ..Entry::plain(Role::Assistant, message)
        }
    }

    /// A message that is one result and nothing else (pi's `toolResult`, a chat `tool` message).
    fn lone_result(message: &'a J, id: Option<String>, name: &str) -> Self {
        Entry {
            role: Role::Tool,
            calls: Vec::new(),
            results: vec![ResultPart {
                id,
                name: name.to_string(),
                value: message,
            }],
            rest: None,
            first_result_behind_other: None,
        }
    }

    /// A message whose list `content_key` mixes result parts (those `result` reads as one) with
    /// other parts.
    fn with_result_parts(
        role: Role,
        message: &'a J,
        content_key: &'static str,
        result: impl FnMut(&'a J) -> Option<ResultPart<'a, J>>,
    ) -> Self {
        let (results, rest, first_result_behind_other) = split_parts(message, content_key, result);
        Entry {
            role,
            calls: Vec::new(),
            results,
            rest,
            first_result_behind_other,
        }
    }
}

impl Call {
    /// The call `part` is when its `type` is `kind`, with its id and name under these keys.
    fn typed<J: Json>(part: &J, kind: &str, id_key: &str, name_key: &str) -> Option<Call> {
        (str_field(part, "type") == kind).then(|| Call {
            id: opt_str(part, id_key),
            name: str_field(part, name_key).to_string(),
        })
    }
}

/// Writes `messages` for a format whose results sit in user messages (Anthropic, Gemini): the
/// results of consecutive results share one `{"role": "user", list_key: [...]}` message.
/// `result` writes one result part, `other` every other message.
fn write_grouping_results(
    messages: &[Message],
    list_key: &'static str,
    mut result: impl FnMut(&Message) -> Result<Option<Written>, CannotExpress>,
    mut other: impl FnMut(&Message) -> Result<Written, CannotExpress>,
) -> Result<Vec<Written>, CannotExpress> {
    let mut out = Vec::new();
    let mut results = Vec::new();
    let flush = |out: &mut Vec<Written>, results: &mut Vec<Written>| {
        if !results.is_empty() {
            let parts = JsValue::from(std::mem::take(results));
            out.push(JsValue::object([
                ("role", JsValue::from("user")),
                (list_key, parts),
            ]));
        }
    };
    for message in messages {
        match result(message)? {
            Some(part) => results.push(part),
            None => {
                flush(&mut out, &mut results);
                out.push(other(message)?);
            }
        }
    }
    flush(&mut out, &mut results);
    Ok(out)
}

/// The string field `key` of `value` (`""` when absent or not a string).
fn str_field<'a, J: Json>(value: &'a J, key: &str) -> &'a str {
    as_string(value.member(key)).unwrap_or("")
}

/// The string field `key` of `value`, if it is a string.
fn opt_str<J: Json>(value: &J, key: &str) -> Option<String> {
    as_string(value.member(key)).map(String::from)
}

/// The items of `list` when it is an array (none when absent or anything else).
fn items<J: Json>(list: Option<&J>) -> &[J] {
    match list.map(Json::view) {
        Some(View::Array(items)) => items,
        _ => &[],
    }
}

/// Splits `content` (a list of parts) of `message` into the result parts `is_result` picks and
/// the message with only the other parts (`None` when none are left), and the first result that
/// comes after one of those others.
fn split_parts<'a, J: Json + Clone>(
    message: &'a J,
    content_key: &'static str,
    mut result: impl FnMut(&'a J) -> Option<ResultPart<'a, J>>,
) -> (Vec<ResultPart<'a, J>>, Option<Cow<'a, J>>, Option<usize>) {
    let Some(View::Array(parts)) = message.member(content_key).map(Json::view) else {
        return (Vec::new(), Some(Cow::Borrowed(message)), None);
    };
    let mut results = Vec::new();
    let mut others = Vec::new();
    let mut behind_other = None;
    for part in parts {
        match result(part) {
            Some(found) => {
                if behind_other.is_none() && !others.is_empty() {
                    behind_other = Some(results.len());
                }
                results.push(found);
            }
            None => others.push(part.clone()),
        }
    }
    if results.is_empty() {
        return (results, Some(Cow::Borrowed(message)), None);
    }
    let rest = (!others.is_empty()).then(|| Cow::Owned(message.with_array(content_key, others)));
    (results, rest, behind_other)
}

/// One element of a transcript as the contracts judge it (see [`skeleton`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A message, or what is left of one besides its results, of this role.
    Message(Role),
    Call(Option<String>),
    Result(Option<String>),
}

/// What the contracts judge of a transcript, independent of how a format groups results into
/// messages: the roles of the messages, and the calls and results in order. Bridges keep it.
pub fn skeleton<J: Json + Clone>(view: &[Entry<J>]) -> Vec<Item> {
    let mut items = Vec::new();
    for entry in view {
        if entry.rest.is_some() {
            items.push(Item::Message(entry.role.clone()));
        }
        items.extend(entry.calls.iter().map(|c| Item::Call(c.id.clone())));
        items.extend(entry.results.iter().map(|r| Item::Result(r.id.clone())));
    }
    items
}

pub(crate) mod llm;

#[cfg(test)]
mod tests;
