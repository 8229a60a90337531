//! How the compaction invariants read a message of either family (pi's or AutoBot's): roles,
//! texts, tool calls and results, call cycles, the user turns a summary must carry.

use std::borrow::{Borrow, Cow};

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::summary::{items, verbatim_block};
use crate::js::{Json, View, is_str};
use crate::js_value::JsValue;

fn python_truthy(value: &impl Json) -> bool {
    match value.view() {
        View::Null => false,
        View::Bool(b) => b,
        View::Number(n) => n != 0.0,
        View::String(s) => !s.is_empty(),
        View::Array(a) => !a.is_empty(),
        View::Object => !value.is_empty_object(),
    }
}

/// `value[key]` when it is a string.
fn string<'v>(value: &'v impl Json, key: &str) -> Option<&'v str> {
    match value.member(key).map(Json::view) {
        Some(View::String(s)) => Some(s),
        _ => None,
    }
}

/// What `state_retained` reads of one tool call: its name, the path it writes (`path`, or
/// `file_path` where Python finds `path` falsy) and the command it runs, each only when a string.
/// Borrowed from the message, unless its arguments were a JSON string parsed here.
pub(super) struct ToolCall<'m> {
    pub(super) name: &'m str,
    pub(super) path: Option<Cow<'m, str>>,
    pub(super) command: Option<Cow<'m, str>>,
}

/// The written path and the command of a call's arguments (neither unless they are an object).
fn path_and_command(args: &impl Json) -> (Option<&str>, Option<&str>) {
    let path = match args.member("path") {
        Some(p) if python_truthy(p) => Some(p),
        _ => args.member("file_path"),
    };
    let path = match path.map(Json::view) {
        Some(View::String(p)) => Some(p),
        _ => None,
    };
    (path, string(args, "command"))
}

/// How the oracle reads a message of either family.
pub(super) struct Reader {
    pub(super) pi: bool,
}

impl Reader {
    fn field<'a>(m: &'a impl Json, key: &str) -> &'a str {
        string(m, key).unwrap_or("")
    }

    pub(super) fn role<'a>(&self, m: &'a impl Json) -> &'a str {
        match Self::field(m, "role") {
            "" if !self.pi => Self::field(m, "sender"),
            role => role,
        }
    }

    fn tool_role(&self) -> &'static str {
        if self.pi { "toolResult" } else { "tool" }
    }

    pub(super) fn is_tool_result(&self, m: &impl Json) -> bool {
        self.role(m) == self.tool_role()
    }

    /// The text that is counted, summarised and preserved: list content's text parts joined by a
    /// space, else a non-empty string content, else `text`; a pi summary's `summary`.
    pub(super) fn text<'a>(&self, m: &'a impl Json) -> Cow<'a, str> {
        if self.pi && matches!(self.role(m), "compactionSummary" | "branchSummary") {
            return Cow::Borrowed(Self::field(m, "summary"));
        }
        self.body(m)
    }

    /// Borrowed unless text parts are joined: the oracle reads the text of every message of a
    /// round, and a copy of each was a tenth of judging one.
    pub(super) fn body<'a>(&self, m: &'a impl Json) -> Cow<'a, str> {
        match m.member("content").map(Json::view) {
            Some(View::Array(parts)) => {
                let texts: Vec<&str> = parts
                    .iter()
                    .filter(|p| is_str(p.member("type"), "text"))
                    .filter_map(|p| string(p, "text"))
                    .collect();
                let joined = match texts.as_slice() {
                    [only] => Cow::Borrowed(*only),
                    _ => Cow::Owned(texts.join(" ")),
                };
                if !joined.is_empty() {
                    return joined;
                }
            }
            Some(View::String(s)) if !s.is_empty() => return Cow::Borrowed(s),
            _ => {}
        }
        Cow::Borrowed(Self::field(m, "text"))
    }

    /// The user turns a region holds, oldest first: every non-empty user text, and the verbatim
    /// turns an earlier summary in the region carries, where it sits.
    pub(super) fn turns<J: Json>(&self, region: &[impl Borrow<J>]) -> Vec<String> {
        let mut turns = Vec::new();
        for m in region {
            let m = m.borrow();
            if self.role(m) == "user" {
                turns.extend(
                    Some(self.text(m))
                        .filter(|t| !t.is_empty())
                        .map(Cow::into_owned),
                );
            } else if self.is_summary(m) {
                turns.extend(verbatim_block(&self.text(m)).map(items).unwrap_or_default());
            }
        }
        turns
    }

    fn is_summary(&self, m: &impl Json) -> bool {
        if self.pi {
            Self::field(m, "role") == "compactionSummary"
        } else {
            Self::field(m, "messageType") == "context_summary"
        }
    }

    pub(super) fn is_summary_carrying(&self, m: &impl Json, summary: &str) -> bool {
        if self.pi {
            Self::field(m, "role") == "compactionSummary" && Self::field(m, "summary") == summary
        } else {
            Self::field(m, "sender") == "system"
                && Self::field(m, "messageType") == "context_summary"
                && Self::field(m, "text") == summary
        }
    }

    fn calls<'a, J: Json>(&self, m: &'a J) -> impl Iterator<Item = &'a J> {
        let list = if self.pi {
            m.member("content")
        } else {
            m.member("tool_calls")
        };
        let list = match list.map(Json::view) {
            Some(View::Array(items)) => items,
            _ => &[],
        };
        list.iter().filter(|c| {
            if self.pi {
                is_str(c.member("type"), "toolCall")
            } else {
                matches!(c.view(), View::Object)
            }
        })
    }

    /// A string of arguments is parsed (into a throwaway value: what is read of it is copied out);
    /// an object is read where it lies.
    pub(super) fn tool_calls<'a>(&self, m: &'a impl Json) -> Vec<ToolCall<'a>> {
        self.calls(m)
            .map(|call| {
                let function = match call.member("function") {
                    Some(f) if !self.pi && matches!(f.view(), View::Object) => f,
                    _ => call,
                };
                let raw = match function.member("arguments") {
                    Some(a) => Some(a),
                    None if !self.pi => function.member("args"),
                    None => None,
                };
                let (path, command) = match raw.map(Json::view) {
                    Some(View::String(text)) => match serde_json::from_str::<JsValue>(text) {
                        Ok(parsed) => {
                            let (path, command) = path_and_command(&parsed);
                            let owned = |s: &str| Cow::Owned(s.to_owned());
                            (path.map(owned), command.map(owned))
                        }
                        Err(_) => (None, None),
                    },
                    _ => {
                        let (path, command) = raw.map_or((None, None), path_and_command);
                        (path.map(Cow::Borrowed), command.map(Cow::Borrowed))
                    }
                };
                ToolCall {
                    name: Self::field(function, "name"),
                    path,
                    command,
                }
            })
            .collect()
    }

    /// For each message, whether it is a tool result that answers no open call: an assistant
    /// replaces the open ids with its own, a result consumes its id if open; no other role
    /// matters (call cycles, not the sweep's barriers, which exist to clean up after the damage
    /// a compaction must not do).
    pub(super) fn orphans<J: Json>(&self, messages: &[impl Borrow<J>]) -> Vec<bool> {
        let mut open: HashSet<&str> = HashSet::new();
        messages
            .iter()
            .map(|m| {
                let m = m.borrow();
                let role = self.role(m);
                if role == "assistant" {
                    open = self.call_ids(m).collect();
                    false
                } else if role == self.tool_role() {
                    !self.answered_id(m).is_some_and(|id| open.remove(id))
                } else {
                    false
                }
            })
            .collect()
    }

    fn call_ids<'m>(&self, assistant: &'m impl Json) -> impl Iterator<Item = &'m str> {
        self.calls(assistant).filter_map(|c| string(c, "id"))
    }

    /// The id a tool result names (`toolCallId`, chat `tool_call_id`), if a string.
    fn answered_id<'m>(&self, result: &'m impl Json) -> Option<&'m str> {
        let key = if self.pi {
            "toolCallId"
        } else {
            "tool_call_id"
        };
        string(result, key)
    }

    /// `inside[b]`: cutting at `b` would separate a kept result from the latest earlier call of
    /// its id. Whatever lies between does not matter: an assistant the provider never sees (no
    /// content, failed) closes no call on the wire, where the result still answers it.
    pub(super) fn open_cycles<J: Json>(&self, messages: &[impl Borrow<J>]) -> Vec<bool> {
        let mut inside = vec![false; messages.len() + 1];
        let mut latest_call: HashMap<&str, usize> = HashMap::new();
        for (i, m) in messages.iter().enumerate() {
            let m = m.borrow();
            let role = self.role(m);
            if role == "assistant" {
                latest_call.extend(self.call_ids(m).map(|id| (id, i)));
            } else if role == self.tool_role()
                && let Some(&call) = self.answered_id(m).and_then(|id| latest_call.get(id))
            {
                inside[call + 1..=i].fill(true);
            }
        }
        inside
    }
}
