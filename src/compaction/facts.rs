//! One read of every message into a compact array: its role, its text and the text's length, the
//! call ids an assistant opens, the id a tool result answers (ids interned as numbers, so pairing
//! them never reads the strings again), whether it is a summary and whether it carries tool calls.
//! The boundary search, the token counts, the tracker refill, the preserved turns and the
//! summariser's prompt read only this array; clipping and state extraction use it to visit only
//! the messages they change or read. Each walk of a transcript too large for the cache is a read
//! from memory, so the number of walks, not only their length, decides whether a long transcript
//! costs more per message than a short one (docs/figures.md#compaction).

use std::borrow::{Borrow, Cow};
use std::ops::Range;

use foldhash::{HashMap, HashMapExt};

use super::Message;
use super::family::Family;
use super::tokens;

/// The roles the compaction tells apart: a user turn is the preferred cut and a preserved turn, a
/// tool result is never a cut and is what the clip shortens. Everything else (assistants, pi's
/// custom roles) is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    ToolResult,
    Other,
}

/// A call id, interned: equal ids, equal numbers.
pub type Id = u32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact<'a> {
    pub role: Role,
    /// `Family::role`, as written.
    pub role_name: &'a str,
    /// `Family::text`: what the token estimate, the clip and the summariser read.
    pub text: Cow<'a, str>,
    /// Code points of `text`.
    pub chars: usize,
    /// The interned id a tool result answers (`Family::result_id`), if an earlier assistant
    /// opened a call with that id (no other result can be paired).
    pub result_id: Option<Id>,
    /// `Family::is_summary`.
    pub summary: bool,
    /// Whether `Family::tool_calls` is non-empty (of any role: state extraction reads them all).
    pub tool_calls: bool,
    /// This message's span of `Facts::call_ids`.
    calls: Range<usize>,
}

impl Fact<'_> {
    pub fn tokens(&self) -> u64 {
        tokens::from_chars(self.chars)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts<'a> {
    /// One per message, in transcript order.
    pub messages: Vec<Fact<'a>>,
    /// Every assistant's call ids (`Family::call_ids`), in transcript order.
    call_ids: Vec<Id>,
}

impl<'a> Facts<'a> {
    pub fn read<J: Message + 'a, M: Borrow<J>>(messages: &'a [M], family: Family) -> Facts<'a> {
        let mut interned: HashMap<&str, Id> = HashMap::new();
        let mut call_ids = Vec::new();
        let facts = messages
            .iter()
            .map(|message| {
                let message: &'a J = message.borrow();
                let role_name = family.role(message);
                let start = call_ids.len();
                for id in family.call_ids(role_name, message) {
                    let next = interned.len() as Id;
                    call_ids.push(*interned.entry(id).or_insert(next));
                }
                let text = family.text(role_name, message);
                Fact {
                    role: match role_name {
                        "user" => Role::User,
                        role if role == family.tool_role() => Role::ToolResult,
                        _ => Role::Other,
                    },
                    role_name,
                    chars: text.chars().count(),
                    text,
                    result_id: family
                        .result_id(role_name, message)
                        .and_then(|id| interned.get(id).copied()),
                    summary: family.is_summary(role_name, message),
                    tool_calls: family.has_tool_calls(message),
                    calls: start..call_ids.len(),
                }
            })
            .collect();
        Facts {
            messages: facts,
            call_ids,
        }
    }

    /// The ids of the calls `fact` opens (empty unless it is an assistant).
    pub fn call_ids(&self, fact: &Fact) -> &[Id] {
        &self.call_ids[fact.calls.clone()]
    }

    /// The sum of the token estimates of `range`.
    pub fn tokens(&self, range: Range<usize>) -> u64 {
        self.messages[range].iter().map(Fact::tokens).sum()
    }
}
