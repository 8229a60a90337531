//! The repair contract: `{"messages": [...]}` in, `{"messages": [...]}` out, in the program's
//! format. A repair may drop tool results, add synthetic results and move results next to their
//! calls; nothing else.
//!
//! Each invariant's promise is its constant's statement (what `ctxfuzz explain` and the docs show);
//! here is how each is judged.
//!
//! - [`WIRE_VALID`]: the rules are [`crate::formats::wire`]'s. A rule broken by damage no repair
//!   may touch is unpreventable, and only that rule on that id: a call id the input repeats among
//!   its calls (the repeated-id rule itself, on that id), an id one input message calls more than
//!   once (a missing or a second result for it: no result can say which of those calls it
//!   answers), a call without an id (its missing result: none can name it), a message of a role
//!   the provider refuses, an empty `tool_calls` list on a message the input has as it is (OpenAI
//!   refuses it; a repair may leave the list out, [`KEEPS_OTHER_MESSAGES`], but need not touch a
//!   message that is not a result), a Gemini turn of calls with no user turn before it where the
//!   input has no user's message right before it either (stray results there must go, and a
//!   repair adds only results; for an id the input repeats, before any of its turns). A missing result for a call whose id another message repeats
//!   is charged: a synthetic result right after it answers it.
//! - [`KEEPS_OTHER_MESSAGES`]: a message is kept with its blank text filled in or left out, its
//!   string content written as the one text part it stands for, or its empty `tool_calls` left
//!   out (see `keeps`); entries that are not JSON objects are no
//!   messages; in pi transcripts an assistant message that stopped on an error or an abort is
//!   none either (pi never sends it, so dropping it changes no request), and its calls are no
//!   calls (a result for one is an orphan on the wire: a repair may drop it).
//! - [`KEEPS_REAL_RESULTS`], [`NO_EXTRA_RESULT`]: a result answers its call in place when it
//!   follows the call with nothing but results between them. A result placed before its call, or
//!   after another message (a user's steering message, another assistant turn), answers nothing
//!   on the wire: a repair may move it, or drop it and add a synthetic one.
//! - [`IDEMPOTENT`]: unpreventable when the second repair changes only results of a call id the
//!   input repeats among its calls (which call those answer is ambiguous); any other change is
//!   charged.
//!
//! A result is real when the input holds the same result (same id, same JSON); every other result
//! in the output was added. Ids that several input calls share are ambiguous and left out of the
//! result rules.

use std::borrow::Cow;

use foldhash::{HashMap, HashMapExt, HashSet};
use serde::Serialize;

use super::{MessageAt, carries_marker};
use crate::formats::{Entry, Format, Role, wire};
use crate::invariants::{Cause, Invariant, Violation, wire as pi_wire};
use crate::js::{Json, View, as_string, is_str};
use crate::js_value::JsValue;
use crate::pi::{PiVersion, default_model, normalize_tool_call_id};
use crate::wire::WireRule;

pub const WIRE_VALID: Invariant = Invariant {
    id: "repair-wire-valid",
    statement: "the output breaks none of the provider rules of its format; a pi transcript gets no \
                permanent 400 after pi's own pipeline and pi does not throw on it",
};
pub const KEEPS_OTHER_MESSAGES: Invariant = Invariant {
    id: "repair-keeps-other-messages",
    statement: "every message that is not a tool result (and what is left of a message that also \
                carries results) is kept, unchanged, in order",
};
pub const KEEPS_REAL_RESULTS: Invariant = Invariant {
    id: "repair-keeps-real-results",
    statement: "a real result that answers its call in place is not dropped while its call is in \
                the output and no real result answers it",
};
pub const NO_EXTRA_RESULT: Invariant = Invariant {
    id: "repair-no-extra-result",
    statement: "no result is added for a call the input already answers in place",
};
pub const SYNTHETIC_RECOGNISABLE: Invariant = Invariant {
    id: "repair-synthetic-recognisable",
    statement: "every added result contains the marker (only with `--marker`)",
};
pub const IDEMPOTENT: Invariant = Invariant {
    id: "repair-idempotent",
    statement: "repairing the output again changes nothing",
};

/// Every repair invariant.
pub const INVARIANTS: &[Invariant] = &[
    WIRE_VALID,
    KEEPS_OTHER_MESSAGES,
    KEEPS_REAL_RESULTS,
    NO_EXTRA_RESULT,
    SYNTHETIC_RECOGNISABLE,
    IDEMPOTENT,
];

/// One repair by a program, as the contract needs it.
pub struct RepairRun<'a, J> {
    pub format: Format,
    pub input: &'a [J],
    pub output: &'a [J],
    /// The program's repair of `output`.
    pub again: &'a [J],
    /// The text every added result contains, if the package marks them.
    pub marker: Option<&'a str>,
}

pub fn check<J: Json + Clone + PartialEq + Serialize>(run: &RepairRun<J>) -> Vec<Violation> {
    let input = as_sent(run.format, run.format.view(run.input));
    let output = as_sent(run.format, run.format.view(run.output));
    let mut found = wire_violations(run, &input);
    found.extend(other_messages(run.format, &input, &output));
    found.extend(results(run, &input, &output));
    if let Some(at) = first_difference(run.output, run.again) {
        let repeated: HashSet<&str> = call_counts(&input)
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(id, _)| id)
            .collect();
        let again = run.format.view(run.again);
        let cause = if !repeated.is_empty()
            && without_results_of(&output, &repeated) == without_results_of(&again, &repeated)
        {
            Cause::Unpreventable(
                "the second repair changes only results of a call id the input repeats among its calls",
            )
        } else {
            Cause::SystemUnderTest
        };
        found.push(Violation::new(
            IDEMPOTENT,
            cause,
            format!("repairing the output again changes it (first at message {at})"),
            RepairEvidence::ChangedAgain {
                message: at,
                output_len: run.output.len(),
                again_len: run.again.len(),
            },
        ));
    }
    found
}

/// `view` with the calls of a pi assistant message pi never sends taken out: pi drops that
/// message whole, so its calls open nothing on the wire and a result for one of them is an
/// orphan, which a repair may drop (and must not answer).
fn as_sent<J: Json + Clone>(format: Format, mut view: Vec<Entry<'_, J>>) -> Vec<Entry<'_, J>> {
    if format == Format::Pi {
        for entry in &mut view {
            if entry.rest.as_deref().is_some_and(pi_never_sends) {
                entry.calls.clear();
            }
        }
    }
    view
}

/// What is left of `view` without the results that answer one of `ids`: every message's rest and
/// its other results, in order.
fn without_results_of<'a, J: Json + Clone>(
    view: &'a [Entry<J>],
    ids: &HashSet<&str>,
) -> Vec<&'a J> {
    view.iter()
        .flat_map(|entry| {
            let results = entry
                .results
                .iter()
                .filter(|result| !result.id.as_deref().is_some_and(|id| ids.contains(id)))
                .map(|result| result.value);
            entry.rest.as_deref().into_iter().chain(results)
        })
        .collect()
}

/// The call ids some message of `view` calls more than once (pi transcripts: as `sent` writes
/// them).
fn called_twice_in_one_message<'a, J: Json + Clone>(
    view: &'a [Entry<J>],
    sent: impl Fn(&'a str) -> Cow<'a, str>,
) -> HashSet<Cow<'a, str>> {
    let mut twice = HashSet::default();
    for entry in view {
        let mut seen = HashSet::default();
        for id in entry.calls.iter().filter_map(|c| c.id.as_deref()) {
            if !seen.insert(sent(id)) {
                twice.insert(sent(id));
            }
        }
    }
    twice
}

/// How many calls of `view` carry each id.
fn call_counts<'a, J: Json + Clone>(view: &'a [Entry<J>]) -> HashMap<&'a str, usize> {
    let mut counts = HashMap::new();
    for call in view.iter().flat_map(|e| &e.calls) {
        if let Some(id) = &call.id {
            *counts.entry(id.as_str()).or_insert(0) += 1;
        }
    }
    counts
}

/// Why the wire rule `rule` (its id) broken on a call id is no repair's doing, if it is not:
/// the repeated-id rule on an id the input's calls carry `calls` times, or a missing or second
/// result for an id one input message calls more than once (`twice`). Every other rule on such an
/// id is charged.
fn repeated_id_excuse(rule: WireRule, calls: usize, twice: bool) -> Option<&'static str> {
    use WireRule::{DuplicateCallId, DuplicateResult, DuplicateToolUseId, MissingResult};
    if matches!(rule, DuplicateCallId | DuplicateToolUseId) && calls > 1 {
        Some("the input repeats this call id among its calls, and a repair may not change calls")
    } else if matches!(rule, MissingResult | DuplicateResult) && twice {
        Some("one input message calls this id more than once: no result can say which it answers")
    } else {
        None
    }
}

/// Why an empty `tool_calls` list on a message the input has as it is, is no repair's doing.
const CARRIED_EMPTY_CALL_LIST: &str = "the input has this message with its empty `tool_calls`: a \
    repair may leave the list out, but need not change a message that is not a result";

/// Why an empty message (Anthropic refuses it) the input has as it is, is no repair's doing.
const CARRIED_EMPTY_MESSAGE: &str = "the input has this message empty: a repair may fill in its \
    blank text, but need not change a message that is not a result";

/// Why a turn of calls with no user turn before it (Gemini refuses it) is no repair's doing when
/// the input has no user's message right before it either: only results, which a repair may have
/// to drop, or another model turn, or nothing.
const CALL_TURN_WITHOUT_A_USER_S_MESSAGE: &str = "the input has no user's message right before \
    this turn of calls (results at most, which a repair may drop), and a repair adds only results";

fn wire_violations<J: Json + Clone + PartialEq>(
    run: &RepairRun<J>,
    input: &[Entry<J>],
) -> Vec<Violation> {
    if run.format == Format::Pi {
        // pi sends a call id as Anthropic's `normalizeToolCallId` writes it, and its rules name
        // it so: ids are compared as pi sends them.
        let mut sent: HashMap<String, usize> = HashMap::new();
        for id in input
            .iter()
            .flat_map(|e| &e.calls)
            .filter_map(|c| c.id.as_deref())
        {
            *sent
                .entry(normalize_tool_call_id(id).into_owned())
                .or_insert(0) += 1;
        }
        let twice = called_twice_in_one_message(input, normalize_tool_call_id);
        let excuse = |v: &Violation| {
            let rejection = &v.evidence.of::<pi_wire::RejectionEvidence>()?.rejection;
            let id = normalize_tool_call_id(rejection.tool_use_id.as_deref()?);
            repeated_id_excuse(
                rejection.rule,
                sent.get(&*id).copied().unwrap_or(0),
                twice.contains(&*id),
            )
        };
        let model = default_model();
        let output: Vec<_> = run.output.iter().map(Json::to_js).collect();
        return match pi_wire::permanent(&output, model, PiVersion::default()) {
            Ok(found) => found
                .into_iter()
                .map(|v| Violation {
                    invariant: WIRE_VALID,
                    cause: excuse(&v).map_or(v.cause.clone(), Cause::Unpreventable),
                    ..v
                })
                .collect(),
            Err(thrown) => {
                let input: Vec<_> = run.input.iter().map(Json::to_js).collect();
                let cause = match pi_wire::permanent(&input, model, PiVersion::default()) {
                    Err(_) => Cause::Unpreventable("pi itself throws on the input"),
                    Ok(_) => Cause::SystemUnderTest,
                };
                vec![Violation::new(
                    WIRE_VALID,
                    cause,
                    format!("pi throws on the output: {thrown}"),
                    RepairEvidence::Thrown {
                        thrown: thrown.to_string(),
                    },
                )]
            }
        };
    }
    let calls = call_counts(input);
    let twice = called_twice_in_one_message(input, Cow::Borrowed);
    let id_less_call = input.iter().flat_map(|e| &e.calls).any(|c| c.id.is_none());
    // Whether the input has a user's message (more than results) right before every turn that
    // calls `id`: then the repair had no reason to take one away.
    let said_before = |id: &str| {
        input
            .iter()
            .enumerate()
            .filter(|(_, e)| e.calls.iter().any(|c| c.id.as_deref() == Some(id)))
            .all(|(at, _)| {
                at.checked_sub(1)
                    .and_then(|before| input.get(before))
                    .is_some_and(|before| before.role == Role::User && before.rest.is_some())
            })
    };
    wire::validate(run.format, &run.format.view(run.output))
        .into_iter()
        .map(|v| {
            let excuse = v.id.as_deref().and_then(|id| {
                repeated_id_excuse(
                    v.rule,
                    calls.get(id).copied().unwrap_or(0),
                    twice.contains(id),
                )
            });
            let cause = if v.rule == WireRule::InvalidRole {
                Cause::Unpreventable("a repair may not change a message that is not a result")
            } else if v.rule == WireRule::EmptyToolCalls
                && run.input.contains(&run.output[v.message])
            {
                Cause::Unpreventable(CARRIED_EMPTY_CALL_LIST)
            } else if v.rule == WireRule::EmptyContent && run.input.contains(&run.output[v.message])
            {
                Cause::Unpreventable(CARRIED_EMPTY_MESSAGE)
            } else if v.rule == WireRule::FunctionCallNotAfterUser
                && v.id.as_deref().is_some_and(|id| !said_before(id))
            {
                Cause::Unpreventable(CALL_TURN_WITHOUT_A_USER_S_MESSAGE)
            } else if let Some(excuse) = excuse {
                Cause::Unpreventable(excuse)
            } else if v.rule == WireRule::MissingResult
                && v.id.is_none()
                && id_less_call
                && run.format != Format::Gemini
            {
                Cause::Unpreventable(
                    "the input has a call without an id, which no result can answer",
                )
            } else {
                Cause::SystemUnderTest
            };
            Violation::new(WIRE_VALID, cause, v.summary(), v.evidence())
        })
        .collect()
}

/// What is left of each message without its results, with the message's index. An entry that is
/// not a JSON object is no message (pi's `convertToLlm` drops it too), and neither is a pi
/// assistant message that stopped on an error or an abort (pi's `transformMessages` skips it):
/// dropping either is not charged.
fn others<'a, J: Json + Clone>(format: Format, view: &'a [Entry<J>]) -> Vec<(usize, &'a J)> {
    view.iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let rest = e.rest.as_deref()?;
            matches!(rest.view(), View::Object).then_some((i, rest))
        })
        .filter(|(_, rest)| !(format == Format::Pi && pi_never_sends(*rest)))
        .collect()
}

/// A pi assistant message that stopped on an error or an abort: pi's `transformMessages` leaves
/// it out of every request.
fn pi_never_sends<J: Json>(message: &J) -> bool {
    is_str(message.member("role"), "assistant")
        && matches!(
            as_string(message.member("stopReason")),
            Some("error" | "aborted")
        )
}

/// Whether `output` is the message `input` kept: the same, or with its blank text filled in or
/// left out (`content` or Gemini's `parts`; every other field as it was). Providers refuse empty
/// text (Anthropic: "all messages must have non-empty content except for the optional final
/// assistant message", "text content blocks must be non-empty"), so writing a notice into it or
/// dropping it is a repair, not a loss: litellm writes "[System: Empty message content sanitised
/// to satisfy protocol]" into an empty message and drops an empty text part beside tool calls.
///
/// An empty `tool_calls` list left out is kept too: it holds no call, and OpenAI refuses it
/// (`empty_array`), so leaving it out is a repair, not a change of the calls.
fn keeps<J: Json + PartialEq>(input: &J, output: &J) -> bool {
    if input == output {
        return true;
    }
    let (View::Object, View::Object) = (input.view(), output.view()) else {
        return false;
    };
    let empty_calls_left_out =
        wire::has_empty_call_list(input) && output.member("tool_calls").is_none();
    input.members().count() == output.members().count() + usize::from(empty_calls_left_out)
        && input
            .members()
            .all(|(key, value)| match output.member(key) {
                Some(kept) if key == "content" || key == "parts" => {
                    kept == value || fills(value, kept)
                }
                None if key == "tool_calls" => empty_calls_left_out,
                kept => kept == Some(value),
            })
}

/// Whether `filled` is `blank` (a `content` or `parts`) with each blank text filled in or left
/// out, and everything else as it was, in order. A string is one text part: every format whose
/// content may be a string has it as shorthand for `[{"type": "text", "text": ...}]` (Anthropic,
/// OpenAI chat, the AI SDK, LangChain, pi's user messages), so an Anthropic repair that writes
/// its synthetic results into the user message after the call, first as the API asks, may
/// write that message's text as a part.
fn fills<J: Json + PartialEq>(blank: &J, filled: &J) -> bool {
    let (Some(blank), Some(filled)) = (Part::all(blank), Part::all(filled)) else {
        return blank == filled;
    };
    // fills_from[j]: the parts of `blank` from the current one on become `filled[j..]`.
    let mut fills_from: Vec<bool> = (0..=filled.len()).map(|j| j == filled.len()).collect();
    for part in blank.iter().rev() {
        let left_out = part.text().is_some_and(|text| text.trim().is_empty());
        fills_from = (0..=filled.len())
            .map(|j| {
                let kept = filled
                    .get(j)
                    .is_some_and(|next| next.is(part) || left_out && next.text().is_some());
                kept && fills_from[j + 1] || left_out && fills_from[j]
            })
            .collect();
    }
    fills_from[0]
}

/// A part of a message's content: one of its array's, or the text a string content stands for.
enum Part<'a, J> {
    Of(&'a J),
    Text(&'a str),
}

impl<'a, J: Json + PartialEq> Part<'a, J> {
    /// The parts of a content that is a string or an array, or `null`: no text, as a blank one
    /// is (OpenAI's assistant that only calls tools has `null` where LangChain's has `""`, and a
    /// normaliser may write either for the other); `None` for anything else.
    fn all(content: &'a J) -> Option<Vec<Self>> {
        match content.view() {
            View::Null => Some(vec![Part::Text("")]),
            View::String(text) => Some(vec![Part::Text(text)]),
            View::Array(parts) => Some(parts.iter().map(Part::Of).collect()),
            _ => None,
        }
    }

    fn text(&self) -> Option<&'a str> {
        match self {
            Part::Of(part) => text_of(*part),
            Part::Text(text) => Some(text),
        }
    }

    /// The same part: equal JSON, or a string's text and a part that is that text and nothing
    /// else (no `cache_control`, no citations).
    fn is(&self, other: &Self) -> bool {
        match (self, other) {
            (Part::Of(a), Part::Of(b)) => a == b,
            (Part::Text(a), Part::Text(b)) => a == b,
            (Part::Text(text), Part::Of(part)) | (Part::Of(part), Part::Text(text)) => {
                is_str(part.member("type"), "text")
                    && part.members().count() == 2
                    && text_of(*part) == Some(*text)
            }
        }
    }
}

/// The text of a text part (`{"type": "text", "text"}`, or Gemini's `{"text"}`).
fn text_of<J: Json>(part: &J) -> Option<&str> {
    let typed = part
        .member("type")
        .is_none_or(|kind| is_str(Some(kind), "text"));
    as_string(part.member("text")).filter(|_| typed)
}

fn other_messages<J: Json + Clone + PartialEq + Serialize>(
    format: Format,
    input: &[Entry<J>],
    output: &[Entry<J>],
) -> Option<Violation> {
    let before = others(format, input);
    let after = others(format, output);
    let at = (0..before.len().max(after.len())).find(|&k| match (before.get(k), after.get(k)) {
        (Some((_, b)), Some((_, a))) => !keeps(*b, *a),
        (b, a) => b.is_some() != a.is_some(),
    })?;
    // The others of one side kept, in order, among those of the other: what the other side has
    // beyond them is lost, or added, even where a copy of it follows (a lossy repairer that
    // dropped the first of two equal messages was once charged with reordering them).
    if let Some(lost) = left_out(&before, &after, |b, a| keeps(b.1, a.1)) {
        let (i, message) = before[lost];
        return Some(moved(Moved::Lost, lost, MessageAt::input(i, message)));
    }
    if let Some(added) = left_out(&after, &before, |a, b| keeps(b.1, a.1)) {
        let (o, message) = after[added];
        return Some(moved(
            Moved::ChangedOrAdded,
            added,
            MessageAt::output(o, message),
        ));
    }
    // Lost when no message from the first difference on keeps it, added when none from there
    // on is kept in it: the messages before it are paired one to one, so a copy of it there is
    // another message (a message past the other side's end is lost or added, whatever comes
    // before).
    let (what, message) = match (before.get(at), after.get(at)) {
        (Some((i, lost)), _)
            if !after[at.min(after.len())..]
                .iter()
                .any(|(_, a)| keeps(*lost, *a)) =>
        {
            (Moved::Lost, MessageAt::input(*i, *lost))
        }
        (_, Some((o, added)))
            if !before[at.min(before.len())..]
                .iter()
                .any(|(_, b)| keeps(*b, *added)) =>
        {
            (Moved::ChangedOrAdded, MessageAt::output(*o, *added))
        }
        (Some((i, moved)), _) => (Moved::Reordered, MessageAt::input(*i, *moved)),
        (None, _) => unreachable!("past the input's end, the output's message is added"),
    };
    Some(moved(what, at, message))
}

/// The first of `longer` left out when `shorter` is `longer` with some left out and the rest
/// kept in order (`kept(from_longer, from_shorter)`); `None` when it is not.
fn left_out<T: Copy>(longer: &[T], shorter: &[T], kept: impl Fn(T, T) -> bool) -> Option<usize> {
    // Each of `shorter` is paired with the first of `longer` that keeps it, after the one paired
    // before: if any pairing keeps all of `shorter` in order, this one does.
    let mut unpaired = shorter.iter().peekable();
    let mut first_left_out = None;
    for (at, &item) in longer.iter().enumerate() {
        match unpaired.peek() {
            Some(&&next) if kept(item, next) => {
                unpaired.next();
            }
            _ => {
                first_left_out.get_or_insert(at);
            }
        }
    }
    first_left_out.filter(|_| unpaired.peek().is_none())
}

/// The violation of a message not kept in its place: `kind`, at `position` among the others.
fn moved(kind: Moved, position: usize, message: MessageAt) -> Violation {
    Violation::charged(
        KEEPS_OTHER_MESSAGES,
        format!(
            "a message that is not a tool result was {kind} (number {} of them)",
            position + 1
        ),
        RepairEvidence::Moved {
            kind,
            position,
            message,
        },
    )
}

fn results<J: Json + Clone + PartialEq + Serialize>(
    run: &RepairRun<J>,
    input: &[Entry<J>],
    output: &[Entry<J>],
) -> Vec<Violation> {
    let calls_in = call_counts(input);
    let calls_out = call_counts(output);
    // Every input result by the id it names (`None`: it names none).
    let mut real: HashMap<Option<&str>, Vec<(usize, &J)>> = HashMap::new();
    for (i, entry) in input.iter().enumerate() {
        for result in &entry.results {
            real.entry(result.id.as_deref())
                .or_default()
                .push((i, result.value));
        }
    }
    let unambiguous = |id: &str| calls_in.get(id) == Some(&1);
    // The first real result that answers each unambiguous call in place: after the call's
    // message, with only results between them.
    let mut call_at: HashMap<&str, usize> = HashMap::new();
    for (i, entry) in input.iter().enumerate() {
        for id in entry.calls.iter().filter_map(|c| c.id.as_deref()) {
            call_at.insert(id, i);
        }
    }
    let answer_at = |id: &str| -> Option<usize> {
        let call = *call_at.get(id)?;
        real.get(&Some(id))?
            .iter()
            .map(|&(at, _)| at)
            .find(|&at| at > call && input[call + 1..at].iter().all(|e| e.rest.is_none()))
    };
    let mut kept_real: HashMap<&str, bool> = HashMap::new();
    let mut found = Vec::new();
    for (o, entry) in output.iter().enumerate() {
        for result in &entry.results {
            let id = result.id.as_deref();
            let is_real = real
                .get(&id)
                .is_some_and(|values| values.iter().any(|(_, v)| *v == result.value));
            if is_real {
                if let Some(id) = id {
                    kept_real.insert(id, true);
                }
                continue;
            }
            if let Some(marker) = run.marker
                && !carries_marker(result.value, marker)
            {
                found.push(Violation::charged(
                    SYNTHETIC_RECOGNISABLE,
                    format!("the result at {o} is not in the input and does not carry the marker {marker:?}"),
                    RepairEvidence::Unmarked {
                        output_message: o,
                        call_id: id.map(str::to_string),
                        result: result.value.to_js().owned_copy(),
                        marker: marker.to_string(),
                    },
                ));
            }
            if let Some(id) = id
                && unambiguous(id)
                && let Some(answer) = answer_at(id)
            {
                found.push(Violation::charged(
                    NO_EXTRA_RESULT,
                    format!("a result for call {id} was added at {o} although the input answers it at {answer}"),
                    RepairEvidence::Added {
                        output_message: o,
                        call_id: id.to_string(),
                        input_result_message: answer,
                        added: result.value.to_js().owned_copy(),
                    },
                ));
            }
        }
    }
    let mut dropped: Vec<(&str, usize)> = real
        .keys()
        .filter_map(|id| *id)
        .filter(|id| unambiguous(id) && calls_out.contains_key(id) && !kept_real.contains_key(id))
        .filter_map(|id| Some((id, answer_at(id)?)))
        .collect();
    dropped.sort_by_key(|&(_, at)| at);
    found.extend(dropped.into_iter().map(|(id, at)| {
        Violation::charged(
            KEEPS_REAL_RESULTS,
            format!("the real result at {at} was dropped although call {id} is still there and no real result answers it"),
            RepairEvidence::Dropped {
                call_id: id.to_string(),
                input_result_message: at,
            },
        )
    }));
    found
}

/// How a message that is not a tool result moved, as a summary and its evidence name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::Display)]
pub enum Moved {
    #[serde(rename = "lost")]
    #[strum(serialize = "lost")]
    Lost,
    #[serde(rename = "changed or added")]
    #[strum(serialize = "changed or added")]
    ChangedOrAdded,
    #[serde(rename = "reordered")]
    #[strum(serialize = "reordered")]
    Reordered,
}

/// What a violation of the repair contract shows, one variant per way to break it (a broken wire
/// rule shows [`wire::WireEvidence`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RepairEvidence {
    /// Repairing the output again changes it, first at `message`.
    ChangedAgain {
        message: usize,
        output_len: usize,
        again_len: usize,
    },
    /// What pi throws on the output.
    Thrown { thrown: String },
    /// A message that is not a tool result, `kind` "lost", "changed or added" or "reordered":
    /// the `position`-th of them, and where it was.
    Moved {
        kind: Moved,
        position: usize,
        message: MessageAt,
    },
    /// A result not in the input that lacks the marker.
    Unmarked {
        output_message: usize,
        call_id: Option<String>,
        result: JsValue<'static>,
        marker: String,
    },
    /// A result added for a call the input answers in place.
    Added {
        output_message: usize,
        call_id: String,
        input_result_message: usize,
        added: JsValue<'static>,
    },
    /// A real result dropped although its call is still there.
    Dropped {
        call_id: String,
        input_result_message: usize,
    },
}

/// The first index where two transcripts differ, if they do.
fn first_difference<J: PartialEq>(a: &[J], b: &[J]) -> Option<usize> {
    (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))
}

#[cfg(test)]
mod tests;
