//! Which shapes (docs/fuzzing.md#shapes) a pi transcript has, read from the transcript itself (not
//! from how it was generated), so the same classifier serves the generator's frequency test and the
//! harness's de-duplication of findings by shape.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use ctxfuzz_oracles::js::{field, truthy};
use ctxfuzz_oracles::js_value::JsValue;

/// An assistant's `api`/`provider`/`model`; pi sanitises the call ids of every assistant that is
/// not from the model it is sending to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    pub api: &'static str,
    pub provider: &'static str,
    pub model: &'static str,
}

/// The model the generated transcripts are sent to (the reference vectors' target).
pub const TARGET_MODEL: Model = Model {
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
};

/// A message that is neither an assistant nor a tool result, by what pi makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BarrierKind {
    User,
    Custom,
    BranchSummary,
    CompactionSummary,
    BashExecution,
    /// `bashExecution` with a truthy `excludeFromContext`: pi drops it.
    BashExecutionExcluded,
    System,
    /// A role string pi does not know: pi drops it.
    UnknownRole,
    /// Not an object, or no string `role`.
    NoRole,
}

impl BarrierKind {
    pub const ALL: [BarrierKind; 9] = [
        BarrierKind::User,
        BarrierKind::Custom,
        BarrierKind::BranchSummary,
        BarrierKind::CompactionSummary,
        BarrierKind::BashExecution,
        BarrierKind::BashExecutionExcluded,
        BarrierKind::System,
        BarrierKind::UnknownRole,
        BarrierKind::NoRole,
    ];

    /// The kind of `message`, or `None` for an assistant or a tool result.
    pub fn of(message: &JsValue) -> Option<BarrierKind> {
        let kind = match field(message, "role").and_then(JsValue::as_str) {
            Some("assistant" | "toolResult") => return None,
            Some("user") => BarrierKind::User,
            Some("custom") => BarrierKind::Custom,
            Some("branchSummary") => BarrierKind::BranchSummary,
            Some("compactionSummary") => BarrierKind::CompactionSummary,
            Some("bashExecution") if truthy(field(message, "excludeFromContext")) => {
                BarrierKind::BashExecutionExcluded
            }
            Some("bashExecution") => BarrierKind::BashExecution,
            Some("system") => BarrierKind::System,
            Some(_) => BarrierKind::UnknownRole,
            None => BarrierKind::NoRole,
        };
        Some(kind)
    }

    pub fn name(self) -> &'static str {
        match self {
            BarrierKind::User => "user",
            BarrierKind::Custom => "custom",
            BarrierKind::BranchSummary => "branch-summary",
            BarrierKind::CompactionSummary => "compaction-summary",
            BarrierKind::BashExecution => "bash-execution",
            BarrierKind::BashExecutionExcluded => "bash-execution-excluded",
            BarrierKind::System => "system",
            BarrierKind::UnknownRole => "unknown-role",
            BarrierKind::NoRole => "no-role",
        }
    }
}

/// The `stopReason`s of an assistant with tool calls that pi treats specially or that are rare.
pub const NOTABLE_STOPS: [&str; 5] = ["error", "aborted", "length", "pending", "deferred"];

/// One shape of docs/fuzzing.md#shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// An assistant with two or more tool calls.
    MultiCallTurn,
    /// A call with no result before the next assistant.
    ResultMissing,
    /// Two results for one call of the latest assistant.
    ResultDuplicated,
    /// Results of one assistant in a different order than its calls.
    ResultsReordered,
    /// A result for a call of an earlier assistant (not the latest one).
    ResultLate,
    /// A result before the first assistant that calls its id.
    ResultBeforeCall,
    /// A message of this kind between a call and its result (no assistant in between).
    BarrierBetweenCallAndResult(BarrierKind),
    /// An assistant with tool calls and this `stopReason` (an entry of [`NOTABLE_STOPS`]).
    StopWithCalls(&'static str),
    /// One call id in two assistants.
    IdReusedAcrossTurns,
    /// Two different call ids of other-model assistants that pi's sanitising maps to one id.
    SanitisedIdCollision,
    /// A call id of an other-model assistant longer than 64 UTF-16 code units.
    IdOver64Units,
    /// A call or result id with a non-ASCII character of the Basic Multilingual Plane.
    NonAsciiId,
    /// A call or result id with a character outside the BMP (two UTF-16 code units).
    AstralId,
    /// A user, assistant or tool result with `content: null`.
    NullContent,
    /// A user, assistant or tool result without `content`.
    MissingContent,
    /// An assistant or tool result whose `content` is a string (pi throws on the assistant).
    StringContent,
    /// A tool result with an image block.
    MultimodalToolResult,
    /// A text body of at least [`HUGE_BODY`] bytes.
    HugeBody,
    /// At least [`LONG_TRANSCRIPT`] messages.
    LongTranscript,
    /// An entry that is not a JSON object.
    NonObjectEntry,
}

pub const HUGE_BODY: usize = 64 * 1024;
pub const LONG_TRANSCRIPT: usize = 10_000;

impl Shape {
    /// Every shape, in a stable order.
    pub fn all() -> Vec<Shape> {
        let mut all = vec![
            Shape::MultiCallTurn,
            Shape::ResultMissing,
            Shape::ResultDuplicated,
            Shape::ResultsReordered,
            Shape::ResultLate,
            Shape::ResultBeforeCall,
        ];
        all.extend(BarrierKind::ALL.map(Shape::BarrierBetweenCallAndResult));
        all.extend(NOTABLE_STOPS.map(Shape::StopWithCalls));
        all.extend([
            Shape::IdReusedAcrossTurns,
            Shape::SanitisedIdCollision,
            Shape::IdOver64Units,
            Shape::NonAsciiId,
            Shape::AstralId,
            Shape::NullContent,
            Shape::MissingContent,
            Shape::StringContent,
            Shape::MultimodalToolResult,
            Shape::HugeBody,
            Shape::LongTranscript,
            Shape::NonObjectEntry,
        ]);
        all
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Shape::MultiCallTurn => "multi-call-turn",
            Shape::ResultMissing => "result-missing",
            Shape::ResultDuplicated => "result-duplicated",
            Shape::ResultsReordered => "results-reordered",
            Shape::ResultLate => "result-late",
            Shape::ResultBeforeCall => "result-before-call",
            Shape::BarrierBetweenCallAndResult(kind) => {
                return write!(f, "barrier-between-call-and-result:{}", kind.name());
            }
            Shape::StopWithCalls(stop) => return write!(f, "stop-with-calls:{stop}"),
            Shape::IdReusedAcrossTurns => "id-reused-across-turns",
            Shape::SanitisedIdCollision => "sanitised-id-collision",
            Shape::IdOver64Units => "id-over-64-units",
            Shape::NonAsciiId => "non-ascii-id",
            Shape::AstralId => "astral-id",
            Shape::NullContent => "null-content",
            Shape::MissingContent => "missing-content",
            Shape::StringContent => "string-content",
            Shape::MultimodalToolResult => "multimodal-tool-result",
            Shape::HugeBody => "huge-body",
            Shape::LongTranscript => "long-transcript",
            Shape::NonObjectEntry => "non-object-entry",
        };
        f.write_str(name)
    }
}

/// The shapes `messages` has.
pub fn shapes(messages: &[JsValue]) -> BTreeSet<Shape> {
    let mut reader = Shapes::default();
    messages.iter().for_each(|message| reader.push(message));
    reader.finish()
}

/// The shapes of a transcript read one message at a time (`ctxfuzz scan` of a session file read
/// in parts, where the messages are never all held): what it keeps is its findings, the current
/// assistant's span, and the call ids so far (owned, as the messages are dropped once read).
#[derive(Default)]
pub struct Shapes {
    found: BTreeSet<Shape>,
    messages: usize,
    /// Every call id of an assistant so far.
    called: HashSet<Box<str>>,
    /// The ids of results no assistant had called yet: a later call of one makes it
    /// [`Shape::ResultBeforeCall`].
    answered_early: HashSet<Box<str>>,
    /// Other-model call ids by their sanitised form, for [`Shape::SanitisedIdCollision`].
    sanitised: HashMap<Vec<u16>, Box<str>>,
    span: Span,
}

impl Shapes {
    /// The transcript's next message.
    pub fn push(&mut self, message: &JsValue) {
        let found = &mut self.found;
        self.messages += 1;
        if message.as_object().is_none() {
            found.insert(Shape::NonObjectEntry);
        }
        content_shapes(message, found);
        match field(message, "role").and_then(JsValue::as_str) {
            Some("assistant") => {
                self.span.close(found);
                let calls = call_ids(message);
                assistant_shapes(message, &calls, found);
                for &id in &calls {
                    // Two calls of one id, in one assistant or two.
                    if !self.called.insert(id.into()) {
                        found.insert(Shape::IdReusedAcrossTurns);
                    }
                    if self.answered_early.contains(id) {
                        found.insert(Shape::ResultBeforeCall);
                    }
                    id_shapes(id, found);
                    if !is_target_model(message) {
                        if id.encode_utf16().count() > 64 {
                            found.insert(Shape::IdOver64Units);
                        }
                        if let Some(other) = self.sanitised.insert(sanitised(id), id.into())
                            && &*other != id
                        {
                            found.insert(Shape::SanitisedIdCollision);
                        }
                    }
                }
                self.span = Span {
                    calls: calls.into_iter().map(Box::from).collect(),
                    ..Span::default()
                };
            }
            Some("toolResult") => {
                let Some(id) = field(message, "toolCallId").and_then(JsValue::as_str) else {
                    return;
                };
                id_shapes(id, found);
                if self.span.calls.iter().any(|call| &**call == id) {
                    self.span.answer(id, found);
                } else if self.called.contains(id) {
                    found.insert(Shape::ResultLate);
                } else {
                    self.answered_early.insert(id.into());
                }
            }
            _ => self.span.barriers.extend(BarrierKind::of(message)),
        }
    }

    /// The shapes of the messages pushed.
    pub fn finish(mut self) -> BTreeSet<Shape> {
        self.span.close(&mut self.found);
        if self.messages >= LONG_TRANSCRIPT {
            self.found.insert(Shape::LongTranscript);
        }
        self.found
    }
}

/// One assistant and what followed it up to the next assistant.
#[derive(Default)]
struct Span {
    calls: Vec<Box<str>>,
    /// Ids answered so far, in answer order (first answer of each).
    answered: Vec<Box<str>>,
    barriers: BTreeSet<BarrierKind>,
}

impl Span {
    fn answer(&mut self, id: &str, found: &mut BTreeSet<Shape>) {
        if self.answered.iter().any(|answered| &**answered == id) {
            found.insert(Shape::ResultDuplicated);
        } else {
            self.answered.push(id.into());
        }
        for &kind in &self.barriers {
            found.insert(Shape::BarrierBetweenCallAndResult(kind));
        }
    }

    fn close(&mut self, found: &mut BTreeSet<Shape>) {
        let mut distinct_calls: Vec<&str> = Vec::new();
        for id in &self.calls {
            if !distinct_calls.contains(&&**id) {
                distinct_calls.push(id);
            }
        }
        if self.answered.len() < distinct_calls.len() {
            found.insert(Shape::ResultMissing);
        }
        let call_order = distinct_calls
            .into_iter()
            .filter(|id| self.answered.iter().any(|answered| &**answered == *id));
        if !call_order.eq(self.answered.iter().map(|id| &**id)) {
            found.insert(Shape::ResultsReordered);
        }
    }
}

fn assistant_shapes(message: &JsValue, calls: &[&str], found: &mut BTreeSet<Shape>) {
    if calls.len() >= 2 {
        found.insert(Shape::MultiCallTurn);
    }
    let stop = field(message, "stopReason").and_then(JsValue::as_str);
    if let Some(&stop) = NOTABLE_STOPS.iter().find(|&&s| Some(s) == stop)
        && !calls.is_empty()
    {
        found.insert(Shape::StopWithCalls(stop));
    }
}

fn content_shapes(message: &JsValue, found: &mut BTreeSet<Shape>) {
    let role = field(message, "role").and_then(JsValue::as_str);
    if !matches!(role, Some("user" | "assistant" | "toolResult")) {
        return;
    }
    match field(message, "content") {
        None => {
            found.insert(Shape::MissingContent);
        }
        Some(JsValue::Null) => {
            found.insert(Shape::NullContent);
        }
        Some(JsValue::String(text)) => {
            if role != Some("user") {
                found.insert(Shape::StringContent);
            }
            if text.len() >= HUGE_BODY {
                found.insert(Shape::HugeBody);
            }
        }
        Some(JsValue::Array(blocks)) => {
            for block in blocks {
                match field(block, "type").and_then(JsValue::as_str) {
                    Some("image") if role == Some("toolResult") => {
                        found.insert(Shape::MultimodalToolResult);
                    }
                    Some("text")
                        if field(block, "text")
                            .and_then(JsValue::as_str)
                            .is_some_and(|t| t.len() >= HUGE_BODY) =>
                    {
                        found.insert(Shape::HugeBody);
                    }
                    _ => {}
                }
            }
        }
        Some(_) => {}
    }
}

fn id_shapes(id: &str, found: &mut BTreeSet<Shape>) {
    if id.chars().any(|c| u32::from(c) > 0xFFFF) {
        found.insert(Shape::AstralId);
    }
    if id.chars().any(|c| !c.is_ascii() && u32::from(c) <= 0xFFFF) {
        found.insert(Shape::NonAsciiId);
    }
}

fn call_ids<'v>(assistant: &'v JsValue) -> Vec<&'v str> {
    let Some(blocks) = field(assistant, "content").and_then(JsValue::as_array) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| field(b, "type").and_then(JsValue::as_str) == Some("toolCall"))
        .filter_map(|b| field(b, "id").and_then(JsValue::as_str))
        .collect()
}

fn is_target_model(assistant: &JsValue) -> bool {
    let text = |name| field(assistant, name).and_then(JsValue::as_str);
    text("api") == Some(TARGET_MODEL.api)
        && text("provider") == Some(TARGET_MODEL.provider)
        && text("model") == Some(TARGET_MODEL.model)
}

/// An id as the Anthropic provider's id normaliser makes it (`[^a-zA-Z0-9_-]` → `_` per UTF-16
/// code unit, then the first 64 units): two different ids made one are a collision.
fn sanitised(id: &str) -> Vec<u16> {
    id.encode_utf16()
        .map(|unit| match u8::try_from(unit) {
            Ok(b) if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' => unit,
            _ => u16::from(b'_'),
        })
        .take(64)
        .collect()
}

#[cfg(test)]
mod tests;
