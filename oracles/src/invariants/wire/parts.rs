//! A long transcript judged part by part, in the memory of one part: what `ctxfuzz check` does
//! with a file's array, so that a million-message transcript is never one tree.
//!
//! pi's pipeline carries little from one message to the next: the calls left open (closed, with
//! synthetic results, at the next `user` or `assistant` message), the global map of another
//! model's call ids, the system messages (collapsed into one prompt from 0.86), and on the wire
//! the turn a message merges into and the ids of the whole request. A part begins at a `user`
//! message, which closes the open calls, so the findings of the parts, numbered on, are exactly
//! those of the whole when:
//!
//! - no two parts share a tool call id (raw, normalised or on the wire): the id map, the
//!   request-wide uniqueness of `tool_use` ids, and every cause and shape (each worked out per
//!   id) then stay inside a part;
//! - every tool result has a `toolCallId` (whether one lacks it is a question about the whole);
//! - no message is a `system` message for a pi that keeps them (collapsed across the whole);
//! - the request of every part after the first is empty or opens with a user turn that holds no
//!   tool result: that turn may merge with the turn before it, and a turn without results
//!   answers no call and is answered by none, merged or not;
//! - pi throws on no part (which throw the whole reports depends on the order of its stages).
//!
//! When one of them does not hold, [`Parts::finish`] says so and the caller judges the whole
//! transcript with [`super::findings`] (a transcript never cut, under one part's size or without
//! a `user` message to cut at, is judged whole in the first place). Ids are compared as 64-bit
//! hashes: a collision sends the transcript to that whole judgement, and never changes a
//! finding. A transcript whose parts stand alone is held as its current part and one hash per
//! distinct id.

use std::borrow::Cow;
use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use foldhash::{HashSet, HashSetExt};

use super::{WireFinding, findings, findings_numbered};
use crate::js::{field, is_str};
use crate::js_value::JsValue;
use crate::pi::{PiVersion, Thrown, normalize_tool_call_id};
use crate::wire::anthropic::{Block, Content, Message, Request, Role, id_text};

/// The fewest messages of a part as `ctxfuzz check` judges a file: a few megabytes of tree.
pub const PART_SIZE: usize = 4096;

/// Judges the messages pushed to it one part at a time.
pub struct Parts<'t, 'm> {
    model: &'m JsValue<'m>,
    v: PiVersion,
    /// The fewest messages a part holds before it ends at the next `user` message.
    part_size: usize,
    part: Vec<JsValue<'t>>,
    /// How many messages the requests of the parts judged so far hold: the number of the next
    /// part's first request message.
    request_messages: usize,
    /// The hashed ids of every part judged so far.
    ids: HashSet<u64>,
    findings: Vec<WireFinding>,
    /// Whether every part so far stood alone; once one did not, messages are dropped unread.
    standing: bool,
    /// Whether the transcript was cut: until it is, the part in hand is the whole of it.
    cut: bool,
}

impl<'t, 'm> Parts<'t, 'm> {
    /// A judge of a transcript for pi `v` and `model`, in parts of at least `part_size`
    /// messages (a transcript without `user` messages after the first `part_size` is one part).
    pub fn new(model: &'m JsValue<'m>, v: PiVersion, part_size: usize) -> Self {
        Parts {
            model,
            v,
            part_size,
            part: Vec::new(),
            request_messages: 0,
            ids: HashSet::new(),
            findings: Vec::new(),
            standing: true,
            cut: false,
        }
    }

    /// The transcript's next message.
    pub fn push(&mut self, message: JsValue<'t>) {
        if !self.standing {
            return;
        }
        if self.part.len() >= self.part_size && is_str(field(&message, "role"), "user") {
            self.cut = true;
            self.judge_part();
        }
        self.part.push(message);
    }

    /// The judgement of the transcript, as [`super::findings`] gives it; `None` when it was cut
    /// into parts and one did not stand alone, or pi throws on one: the transcript is then to
    /// be judged whole. A transcript never cut is one part, judged as the whole it is.
    pub fn finish(mut self) -> Option<Result<Vec<WireFinding>, Thrown>> {
        if !self.cut {
            return Some(findings(&self.part, self.model, self.v));
        }
        self.judge_part();
        self.standing.then_some(Ok(self.findings))
    }

    fn judge_part(&mut self) {
        if !self.standing {
            return;
        }
        // Nothing on the wire before this part that its first turn could merge into.
        let nothing_before = self.request_messages == 0;
        let mut edges = None;
        let judged = findings_numbered(
            &self.part,
            self.model,
            self.v,
            self.request_messages,
            |llm, request| edges = Some(Edges::of(llm, request, self.v)),
        );
        self.part.clear();
        let (Ok(found), Some(edges)) = (judged, edges) else {
            self.standing = false;
            return;
        };
        // A part's own ids are distinct, so an id already in the set is an earlier part's.
        let shares_an_id = !edges.ids.into_iter().all(|id| self.ids.insert(id));
        if !edges.alone || !(nothing_before || edges.opens_without_results) || shares_an_id {
            self.standing = false;
            return;
        }
        self.findings.extend(found);
        self.request_messages += edges.request_messages;
    }
}

/// What one part's converted messages and request say about whether it stands alone.
struct Edges {
    /// The part's tool call ids, hashed: the calls' raw and normalised ids and the results'
    /// `toolCallId`s as pi converted them, and the calls' ids on the wire.
    ids: HashSet<u64>,
    /// Neither a result without a `toolCallId` nor a system message that pi keeps.
    alone: bool,
    /// The request is empty, or its first turn is a user turn without a tool result.
    opens_without_results: bool,
    request_messages: usize,
}

impl Edges {
    fn of(llm: &[Cow<'_, JsValue<'_>>], request: &Request<'_>, v: PiVersion) -> Self {
        let hasher = FixedState::with_seed(0);
        let mut ids = HashSet::new();
        let mut alone = true;
        let mut add = |id: &str| {
            ids.insert(hasher.hash_one(id));
        };
        for message in llm {
            let role = field(message, "role");
            if is_str(role, "assistant") {
                let calls = field(message, "content")
                    .and_then(JsValue::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|block| is_str(field(block, "type"), "toolCall"));
                for raw in calls.filter_map(|call| field(call, "id").and_then(JsValue::as_str)) {
                    add(raw);
                    add(&normalize_tool_call_id(raw));
                }
            } else if is_str(role, "toolResult") {
                match field(message, "toolCallId") {
                    None => alone = false,
                    Some(id) => id.as_str().into_iter().for_each(&mut add),
                }
            } else if is_str(role, "system") && v.has_system_role() {
                alone = false;
            }
        }
        // The calls as the wire has them: an id that is not a string is sent as its text, and
        // a block inside an array block is spliced in unread. A result's id needs no second
        // look: on the wire it is its own `toolCallId` or the normalised id of a call with that
        // raw id, both counted above.
        let wire_calls = request
            .messages
            .iter()
            .filter_map(|message| match &message.content {
                Content::Blocks(blocks) => Some(blocks),
                Content::Text(_) => None,
            })
            .flatten();
        for block in wire_calls {
            if let Block::ToolUse { id, .. } = block {
                id_text(*id).into_iter().for_each(|id| add(&id));
            }
        }
        let opens_without_results = request
            .messages
            .iter()
            .take_while(|message| message.role == Role::User)
            .all(|message| !holds_a_result(message));
        Edges {
            ids,
            alone,
            opens_without_results,
            request_messages: request.messages.len(),
        }
    }
}

fn holds_a_result(message: &Message<'_>) -> bool {
    matches!(&message.content, Content::Blocks(blocks)
        if blocks.iter().any(|block| matches!(block, Block::ToolResult { .. })))
}
