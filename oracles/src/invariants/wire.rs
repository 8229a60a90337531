//! Wire invariants: what the provider receives after pi's pipeline must not be rejected.
//!
//! - `wire-valid`: the Anthropic request breaks none of the rules of
//!   [`crate::wire::anthropic::validate`].
//! - `no-duplicate-tool-use-id`: no id repeats among the calls, nor among the results of one turn
//!   (the permanent 400 of known failure 1 and of id collisions).
//! - `no-orphan-result`: every result answers a call of the assistant turn just before it (the
//!   permanent 400 of known failures 2, 3 and 5).
//!
//! Each violation carries a [`Cause`]: `Unpreventable` when no transcript rewriter could have
//! prevented it (pi's own cross-model id sanitising and its global id map, ids the API refuses
//! that pi passes through, call ids reused in the input), `SystemUnderTest` otherwise.

use std::borrow::{Borrow, Cow};

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde::Serialize;

use super::{Cause, Invariant, Judgement, Violation};
use crate::js::{Json, field, is_str};
use crate::js_value::JsValue;
use crate::pi::{self, Api, PiVersion, Thrown};
use crate::wire::WireRule;
use crate::wire::anthropic::{Rejection, Request, validate};

mod body;
mod parts;

pub use body::{BodyRejection, body_rejections};
pub use parts::{PART_SIZE, Parts};

pub const WIRE_VALID: Invariant = Invariant {
    id: "wire-valid",
    statement: "the request the provider receives after pi's pipeline breaks none of the provider's rules",
};
pub const NO_DUPLICATE_TOOL_USE_ID: Invariant = Invariant {
    id: "no-duplicate-tool-use-id",
    statement: "no id repeats among the calls, nor among the results of one turn (a permanent 400)",
};
pub const NO_ORPHAN_RESULT: Invariant = Invariant {
    id: "no-orphan-result",
    statement: "every result answers a call of the assistant turn just before it (a permanent 400)",
};

/// Every wire invariant.
pub const INVARIANTS: &[Invariant] = &[WIRE_VALID, NO_DUPLICATE_TOOL_USE_ID, NO_ORPHAN_RESULT];

const COLLISION: &str = "pi's cross-model id sanitising maps two different call ids to one";
const IDLESS_CALL: &str = "the call has no id: pi sends it without one and answers it with a synthetic result without one, which the API cannot pair";
const ID_MAP: &str = "pi's global id map rewrote this result to another call's sanitised id";
const REFUSED_ID: &str = "the API refuses this call id and pi passes it through unchanged";
const REUSED_ID: &str = "the input reuses this call id";

/// The known failure shapes (docs/oracle.md#known-failure-shapes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KnownShape {
    /// 1. A foreign message between a call and its result: pi's synthetic result, then the real one.
    ForeignMessageBetweenCallAndResult,
    /// 2. A result whose assistant ended with `error`/`aborted`: pi drops the assistant.
    ResultOfDroppedAssistant,
    /// 3. The call was cut away (a compaction boundary inside a call cycle): the result is alone.
    CallCutAway,
    /// 4. Ids: sanitising collisions, ids reused across turns, ids the API refuses.
    IdCollisionOrRefusedId,
    /// 5. A compaction summary rendered between a call and its result.
    SummaryBetweenCallAndResult,
}

impl KnownShape {
    /// The number of the shape in docs/oracle.md#known-failure-shapes.
    pub fn number(self) -> u8 {
        match self {
            KnownShape::ForeignMessageBetweenCallAndResult => 1,
            KnownShape::ResultOfDroppedAssistant => 2,
            KnownShape::CallCutAway => 3,
            KnownShape::IdCollisionOrRefusedId => 4,
            KnownShape::SummaryBetweenCallAndResult => 5,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            KnownShape::ForeignMessageBetweenCallAndResult => {
                "a message between a call and its result: pi's synthetic result, then the real one"
            }
            KnownShape::ResultOfDroppedAssistant => {
                "a result of an assistant that ended with error/aborted, which pi drops"
            }
            KnownShape::CallCutAway => {
                "the result's call is gone (a compaction cut inside a call cycle)"
            }
            KnownShape::IdCollisionOrRefusedId => {
                "call ids: a sanitising collision, a reused id or an id the API refuses"
            }
            KnownShape::SummaryBetweenCallAndResult => {
                "a compaction summary between a call and its result"
            }
        }
    }
}

/// One wire violation with its cause and, where it is one, the known failure shape.
#[derive(Debug, Clone, PartialEq)]
pub struct WireFinding {
    pub wire: Rejection,
    pub cause: Cause,
    pub shape: Option<KnownShape>,
}

/// Renders `input` through pi (variant `v`, target `model`) and returns every wire violation.
/// `input` holds the messages or references to them (`M = &JsValue`).
pub fn findings<'a, M: Borrow<JsValue<'a>>>(
    input: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
) -> Result<Vec<WireFinding>, Thrown> {
    findings_numbered(input, model, v, 0, |_, _| {})
}

/// [`findings`] with the request's messages numbered from `first_message` (a part of a longer
/// transcript, [`Parts`]); `inspect` reads pi's converted messages and the request before they
/// are dropped.
fn findings_numbered<'a, M: Borrow<JsValue<'a>>>(
    input: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
    first_message: usize,
    inspect: impl FnOnce(&[Cow<'a, JsValue<'a>>], &Request<'_>),
) -> Result<Vec<WireFinding>, Thrown> {
    let (rendered, wire) = render_and_validate(input, model, v, first_message, inspect)?;
    Ok(attributed(&rendered, wire, model))
}

/// Each rejection of `rendered`'s request with its cause and known shape. Where the ids came
/// from is worked out only when there is a rejection to attribute.
fn attributed(rendered: &pi::Rendered, wire: Vec<Rejection>, model: &JsValue) -> Vec<WireFinding> {
    if wire.is_empty() {
        return Vec::new();
    }
    let ids = IdProvenance::new(&rendered.llm, model);
    let remapped = &rendered.transformed.remapped_result_ids;
    wire.into_iter()
        .map(|wire| {
            let cause = ids.cause(&wire, remapped);
            let shape = ids.shape(&wire, &cause);
            WireFinding { wire, cause, shape }
        })
        .collect()
}

/// `wire-valid` for every violation, plus `no-duplicate-tool-use-id` / `no-orphan-result` for the
/// permanent 400s; `CannotJudge` when pi itself would throw. The messages are the oracle's own
/// type, such as `check` reads from a file (borrowed from its text) and the targets generate; `M`
/// is a message or a reference to one.
pub fn judge<'a, M: Borrow<JsValue<'a>>>(
    input: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
) -> Judgement {
    match findings(input, model, v) {
        Ok(findings) => Judgement::from_violations(findings.iter().flat_map(violations).collect()),
        Err(thrown) => Judgement::CannotJudge(thrown.to_string()),
    }
}

/// The invariant a wire rule's violation also breaks when it is a permanent 400 (a missing
/// result, say, is pi's to repair).
fn permanent_invariant(rule: WireRule) -> Option<Invariant> {
    match rule {
        WireRule::DuplicateToolUseId | WireRule::DuplicateResult => Some(NO_DUPLICATE_TOOL_USE_ID),
        WireRule::OrphanResult => Some(NO_ORPHAN_RESULT),
        _ => None,
    }
}

/// The violations of `input` behind the permanent 400s (each as `wire-valid` and its permanent
/// invariant); `Err` when pi itself would throw. The other rejections are dropped before their
/// causes are worked out: a request that breaks only rules pi repairs costs no attribution.
pub fn permanent<'a, M: Borrow<JsValue<'a>>>(
    input: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
) -> Result<Vec<Violation>, Thrown> {
    let (rendered, wire) = permanent_rejections(input, model, v)?;
    let findings = attributed(&rendered, wire, model);
    Ok(findings.iter().flat_map(violations).collect())
}

/// How many permanent 400s `input` draws (one per broken rule instance), without the causes and
/// evidence [`permanent`] works out: what a caller comparing subsets of one transcript needs. The
/// messages are [`JsValue`]s or references to them, so the transcript is read once for all the
/// subsets; `Err` when pi itself would throw.
pub fn permanent_count<'a, M: Borrow<JsValue<'a>>>(
    input: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
) -> Result<usize, Thrown> {
    Ok(permanent_rejections(input, model, v)?.1.len())
}

/// pi's pipeline over `input`, and the rejections of the request it builds that are permanent
/// 400s.
fn permanent_rejections<'a, M: Borrow<JsValue<'a>>>(
    input: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
) -> Result<(pi::Rendered<'a>, Vec<Rejection>), Thrown> {
    let (rendered, mut wire) = render_and_validate(input, model, v, 0, |_, _| {})?;
    wire.retain(|wire| permanent_invariant(wire.rule).is_some());
    Ok((rendered, wire))
}

/// pi's pipeline over `input`, and the provider's rules the request it builds breaks (its
/// messages numbered from `first_message`); `inspect` reads the converted messages and the
/// request.
fn render_and_validate<'a, M: Borrow<JsValue<'a>>>(
    input: &'a [M],
    model: &JsValue<'_>,
    v: PiVersion,
    first_message: usize,
    inspect: impl FnOnce(&[Cow<'a, JsValue<'a>>], &Request<'_>),
) -> Result<(pi::Rendered<'a>, Vec<Rejection>), Thrown> {
    let rendered = pi::render(input, model, Api::AnthropicMessages, v)?;
    let request = rendered.request(model, v)?;
    inspect(&rendered.llm, &request);
    let wire = validate(&request, first_message);
    // The request borrows `rendered`, which is returned.
    drop(request);
    Ok((rendered, wire))
}

/// What a violation of the Anthropic body shows: the rejection, and the known failure shape it
/// is, if any.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RejectionEvidence {
    #[serde(flatten)]
    pub rejection: Rejection,
    /// Its number in docs/oracle.md#known-failure-shapes.
    pub known_shape: Option<u8>,
}

/// The invariants one finding breaks.
fn violations(finding: &WireFinding) -> Vec<Violation> {
    let wire = &finding.wire;
    let evidence = RejectionEvidence {
        rejection: wire.clone(),
        known_shape: finding.shape.map(KnownShape::number),
    };
    let summary = format!("{}: {}", wire.rule, wire.text);
    let cause = &finding.cause;
    let mut out = vec![Violation::new(
        WIRE_VALID,
        cause.clone(),
        summary.clone(),
        evidence.clone(),
    )];
    if let Some(invariant) = permanent_invariant(wire.rule) {
        out.push(Violation::new(invariant, cause.clone(), summary, evidence));
    }
    out
}

/// Where the wire ids come from: for each id on the wire, the raw ids of the calls and results
/// that became it, and where they sit in the transcript pi converted.
struct IdProvenance<'r, 'm> {
    messages: &'r [Cow<'m, JsValue<'m>>],
    /// wire id → (message index, raw id) of every call of a kept assistant.
    calls: HashMap<String, Vec<(usize, String)>>,
    /// wire id → raw ids of calls of assistants pi drops (error/aborted).
    dropped_calls: HashSet<String>,
    /// wire id → (message index, raw id) of every result.
    results: HashMap<String, Vec<(usize, String)>>,
    /// Whether a real result has no `toolCallId` (which a sweep could remove); every other
    /// result without an id on the wire is one pi made for a call without an id.
    idless_results: bool,
}

impl<'r, 'm> IdProvenance<'r, 'm> {
    fn new(llm: &'r [Cow<'m, JsValue<'m>>], model: &JsValue) -> Self {
        let mut ids = IdProvenance {
            messages: llm,
            calls: HashMap::new(),
            dropped_calls: HashSet::new(),
            results: HashMap::new(),
            idless_results: false,
        };
        // pi's id map is global and sequential: a result is rewritten only by an earlier call.
        let mut id_map: HashMap<&str, String> = HashMap::new();
        for (index, message) in llm.iter().enumerate() {
            let role = field(message, "role");
            if is_str(role, "assistant") {
                let same = pi::transform::same_model(message, model);
                let stop = field(message, "stopReason");
                let dropped = is_str(stop, "error") || is_str(stop, "aborted");
                let Some(JsValue::Array(blocks)) = field(message, "content") else {
                    continue;
                };
                for block in blocks
                    .iter()
                    .filter(|b| is_str(field(b, "type"), "toolCall"))
                {
                    let Some(raw) = field(block, "id").and_then(JsValue::as_str) else {
                        continue;
                    };
                    let wire = if same {
                        raw.to_string()
                    } else {
                        pi::normalize_tool_call_id(raw).into_owned()
                    };
                    if !same && wire != raw {
                        id_map.insert(raw, wire.clone());
                    }
                    if dropped {
                        ids.dropped_calls.insert(wire);
                    } else {
                        ids.calls
                            .entry(wire)
                            .or_default()
                            .push((index, raw.to_string()));
                    }
                }
            } else if is_str(role, "toolResult") {
                let id = field(message, "toolCallId");
                ids.idless_results |= id.is_none();
                let Some(raw) = id.and_then(JsValue::as_str) else {
                    continue;
                };
                let wire = id_map.get(raw).cloned().unwrap_or_else(|| raw.to_string());
                ids.results
                    .entry(wire)
                    .or_default()
                    .push((index, raw.to_string()));
            }
        }
        ids
    }

    fn distinct_raw_ids(entries: Option<&Vec<(usize, String)>>) -> usize {
        entries.map_or(0, |e| {
            e.iter().map(|(_, raw)| raw).collect::<HashSet<_>>().len()
        })
    }

    fn cause(&self, wire: &Rejection, remapped: &HashSet<String>) -> Cause {
        let id = wire.tool_use_id.as_deref().unwrap_or_default();
        match wire.rule {
            WireRule::InvalidToolUseId => Cause::Unpreventable(REFUSED_ID),
            WireRule::DuplicateToolUseId if Self::distinct_raw_ids(self.calls.get(id)) > 1 => {
                Cause::Unpreventable(COLLISION)
            }
            WireRule::DuplicateToolUseId => Cause::Unpreventable(REUSED_ID),
            WireRule::DuplicateResult if Self::distinct_raw_ids(self.results.get(id)) > 1 => {
                Cause::Unpreventable(COLLISION)
            }
            WireRule::DuplicateResult => self
                .synthetic_duplicates(id)
                .map_or(Cause::SystemUnderTest, Cause::Unpreventable),
            WireRule::OrphanResult if remapped.contains(id) => Cause::Unpreventable(ID_MAP),
            WireRule::MissingResult if wire.tool_use_id.is_none() => {
                Cause::Unpreventable(IDLESS_CALL)
            }
            WireRule::OrphanResult if wire.tool_use_id.is_none() && !self.idless_results => {
                Cause::Unpreventable(IDLESS_CALL)
            }
            _ => Cause::SystemUnderTest,
        }
    }

    /// Why pi itself sends several results for `id`: one assistant calls it twice (the raw id
    /// repeated, or two raw ids sanitised to one) and, with at most one real result in its turn,
    /// pi answers each occurrence with its own synthetic result. Removing results cannot prevent
    /// that.
    fn synthetic_duplicates(&self, id: &str) -> Option<&'static str> {
        let calls = self.calls.get(id)?;
        let results = self.results.get(id).map(Vec::as_slice).unwrap_or_default();
        calls.iter().enumerate().find_map(|(i, (at, raw))| {
            let (_, other_raw) = calls[i + 1..].iter().find(|(other, _)| other == at)?;
            let turn = *at..self.next_assistant(*at);
            let answers = results.iter().filter(|(r, _)| turn.contains(r)).count();
            (answers < 2).then_some(if other_raw == raw {
                REUSED_ID
            } else {
                COLLISION
            })
        })
    }

    /// The index of the first assistant after `index` (the end of the list if none).
    fn next_assistant(&self, index: usize) -> usize {
        self.messages[index + 1..]
            .iter()
            .position(|m| is_str(field(m, "role"), "assistant"))
            .map_or(self.messages.len(), |offset| index + 1 + offset)
    }

    fn shape(&self, wire: &Rejection, cause: &Cause) -> Option<KnownShape> {
        if matches!(cause, Cause::Unpreventable(_)) {
            return Some(KnownShape::IdCollisionOrRefusedId);
        }
        let id = wire.tool_use_id.as_deref().unwrap_or_default();
        let about_a_result = matches!(
            wire.rule,
            WireRule::OrphanResult | WireRule::ResultsNotFirst
        );
        match wire.rule {
            _ if about_a_result && self.dropped_calls.contains(id) => {
                Some(KnownShape::ResultOfDroppedAssistant)
            }
            _ if about_a_result && !self.calls.contains_key(id) => Some(KnownShape::CallCutAway),
            WireRule::DuplicateResult | WireRule::ResultsNotFirst => Some(self.barrier_shape(id)),
            _ => None,
        }
    }

    /// Shape 5 when a compaction summary sits between a call with this id and a later result
    /// for it; shape 1 otherwise.
    fn barrier_shape(&self, id: &str) -> KnownShape {
        let calls = self.calls.get(id).map(Vec::as_slice).unwrap_or_default();
        let results = self.results.get(id).map(Vec::as_slice).unwrap_or_default();
        for (result, _) in results {
            let Some((call, _)) = calls.iter().rev().find(|(call, _)| call < result) else {
                continue;
            };
            // From the call's own message on: an assistant, never a summary.
            if self.messages[*call..*result]
                .iter()
                .any(|m| is_compaction_summary(m))
            {
                return KnownShape::SummaryBetweenCallAndResult;
            }
        }
        KnownShape::ForeignMessageBetweenCallAndResult
    }
}

/// A `compactionSummary` after `convertToLlm`: a user message whose text starts with pi's prefix.
fn is_compaction_summary(message: &JsValue) -> bool {
    field(message, "content")
        .and_then(JsValue::as_array)
        .and_then(|blocks| blocks.first())
        .and_then(|block| field(block, "text"))
        .and_then(JsValue::as_str)
        .is_some_and(|text| text.starts_with(pi::convert::COMPACTION_PREFIX))
}

/// `wire-valid` for each violation of the chat rules (a compaction or sweep that produced it is
/// to blame: nothing in pi rewrites chat transcripts on the way).
pub fn judge_chat<J: Json, M: Borrow<J>>(messages: &[M]) -> Vec<Violation> {
    crate::wire::openai::validate::<J, M>(messages)
        .into_iter()
        .map(|v| {
            let summary = format!("{}: {}", v.rule, v.message);
            let evidence = ChatEvidence {
                rule: v.rule,
                message: v.index,
                error: v.message,
            };
            Violation::charged(WIRE_VALID, summary, evidence)
        })
        .collect()
}

/// What a violation of the chat rules shows: the rule, the message, the API's error text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatEvidence {
    pub rule: WireRule,
    /// Index of the offending message.
    pub message: usize,
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(rule: WireRule, tool_use_id: Option<&str>) -> Rejection {
        Rejection {
            rule,
            message: 1,
            block: Some(0),
            tool_use_id: tool_use_id.map(str::to_string),
            text: String::new(),
        }
    }

    #[test]
    fn only_an_unpaired_call_or_result_without_an_id_is_the_idless_calls_doing() {
        // pi answers every call it sends, so a missing result for a call with an id has not been
        // seen from pi (wire_causes.rs covers the id-less shapes end to end); it stays charged.
        let ids = IdProvenance::new(&[], pi::default_model());
        let remapped = HashSet::new();
        for rule in [WireRule::MissingResult, WireRule::OrphanResult] {
            assert_eq!(
                ids.cause(&violation(rule, Some("t1")), &remapped),
                Cause::SystemUnderTest,
                "{rule:?}"
            );
            assert_eq!(
                ids.cause(&violation(rule, None), &remapped),
                Cause::Unpreventable(IDLESS_CALL),
                "{rule:?}"
            );
        }
    }

    /// pi sends the very model's call ids as they are and normalises any other model's: the ids
    /// a rejection names are looked up as the wire has them.
    #[test]
    fn a_call_id_is_known_by_its_wire_form_raw_for_the_very_model_normalised_for_another() {
        let model = pi::default_model();
        let from = |key| field(model, key).cloned().unwrap_or(JsValue::Null);
        let call = |id: &str| {
            JsValue::object([
                ("type", JsValue::from("toolCall")),
                ("id", JsValue::from(id.to_string())),
            ])
        };
        let own = JsValue::object([
            ("role", JsValue::from("assistant")),
            ("provider", from("provider")),
            ("api", from("api")),
            ("model", from("id")),
            ("content", JsValue::from(vec![call("a.1")])),
        ]);
        let mut other = own.clone();
        if let JsValue::Object(fields) = &mut other {
            fields.insert("model", JsValue::from("another-model"));
            fields.insert("content", JsValue::from(vec![call("b.1")]));
        }
        let llm = [Cow::Owned(own), Cow::Owned(other)];
        let ids = IdProvenance::new(&llm, model);
        let mut known: Vec<&str> = ids.calls.keys().map(String::as_str).collect();
        known.sort_unstable();
        assert_eq!(known, ["a.1", "b_1"]);
    }

    /// Each chat rule broken is one charged `wire-valid`, showing the rule, the message and
    /// OpenAI's text.
    #[test]
    fn a_chat_rule_broken_is_charged_with_its_rule_message_and_text() {
        let chat = [
            serde_json::json!({"role": "user", "content": "go"}),
            serde_json::json!({"role": "tool", "tool_call_id": "a", "content": "1"}),
        ];
        let found = judge_chat::<serde_json::Value, _>(&chat);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].invariant, WIRE_VALID);
        assert_eq!(found[0].cause, Cause::SystemUnderTest);
        let evidence: &ChatEvidence = found[0].evidence.of().expect("chat evidence");
        assert_eq!(
            (evidence.rule, evidence.message),
            (WireRule::ToolWithoutCall, 1)
        );
        assert!(
            evidence
                .error
                .starts_with("Invalid parameter: messages with role 'tool'")
        );
        assert_eq!(
            found[0].summary,
            format!("{}: {}", evidence.rule, evidence.error)
        );
        assert!(judge_chat::<serde_json::Value, _>(&chat[..1]).is_empty());
    }

    #[test]
    fn the_count_of_permanent_400s_is_one_per_broken_rule_instance() {
        let model = pi::default_model();
        let values = [
            serde_json::json!({"role": "user", "content": "go"}),
            serde_json::json!({"role": "toolResult", "toolCallId": "x", "toolName": "f", "content": []}),
            serde_json::json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "a", "name": "f", "arguments": {}}
            ]}),
            serde_json::json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": []}),
            serde_json::json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": []}),
        ];
        let messages: Vec<JsValue<'_>> = values.iter().map(JsValue::from).collect();
        let v = PiVersion::default();
        let count = permanent_count(&messages, model, v).unwrap();
        let permanent_findings = findings(&messages, model, v)
            .unwrap()
            .iter()
            .filter(|f| permanent_invariant(f.wire.rule).is_some())
            .count();
        assert_eq!(count, permanent_findings);
        assert_eq!(count, 2, "the orphan result and the second result of `a`");
        assert_eq!(permanent_count(&messages[..1], model, v).unwrap(), 0);
    }
}
