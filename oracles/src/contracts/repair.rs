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
//!   the provider refuses. A missing result for a call whose id another message repeats is
//!   charged: a synthetic result right after it answers it.
//! - [`KEEPS_OTHER_MESSAGES`]: entries that are not JSON objects are no messages; in pi
//!   transcripts an assistant message that stopped on an error or an abort is none either (pi
//!   never sends it, so dropping it changes no request).
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
use serde_json::{Value, json};

use super::carries_marker;
use crate::formats::{Entry, Format, wire};
use crate::invariants::{Cause, Invariant, Violation, wire as pi_wire};
use crate::js_value::{self, JsValue};
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
pub struct RepairRun<'a> {
    pub format: Format,
    pub input: &'a [Value],
    pub output: &'a [Value],
    /// The program's repair of `output`.
    pub again: &'a [Value],
    /// The text every added result contains, if the package marks them.
    pub marker: Option<&'a str>,
}

pub fn check(run: &RepairRun) -> Vec<Violation> {
    let input = run.format.view(run.input);
    let output = run.format.view(run.output);
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
        found.push(Violation {
            invariant: IDEMPOTENT,
            cause,
            summary: format!("repairing the output again changes it (first at message {at})"),
            evidence: json!({"message": at, "output_len": run.output.len(), "again_len": run.again.len()}),
        });
    }
    found
}

fn charged(invariant: Invariant, summary: String, evidence: Value) -> Violation {
    Violation {
        invariant,
        cause: Cause::SystemUnderTest,
        summary,
        evidence,
    }
}

/// What is left of `view` without the results that answer one of `ids`: every message's rest and
/// its other results, in order.
fn without_results_of<'a>(view: &'a [Entry], ids: &HashSet<&str>) -> Vec<&'a Value> {
    view.iter()
        .flat_map(|entry| {
            let results = entry
                .results
                .iter()
                .filter(|result| !result.id.as_deref().is_some_and(|id| ids.contains(id)))
                .map(|result| &result.value);
            entry.rest.iter().chain(results)
        })
        .collect()
}

/// The call ids some message of `view` calls more than once (pi transcripts: as `sent` writes
/// them).
fn called_twice_in_one_message<'a>(
    view: &'a [Entry],
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
fn call_counts(view: &[Entry]) -> HashMap<&str, usize> {
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
fn repeated_id_excuse(rule: &str, calls: usize, twice: bool) -> Option<&'static str> {
    let is = |one: WireRule| rule == one.id();
    if (is(WireRule::DuplicateCallId) || is(WireRule::DuplicateToolUseId)) && calls > 1 {
        Some("the input repeats this call id among its calls, and a repair may not change calls")
    } else if (is(WireRule::MissingResult) || is(WireRule::DuplicateResult)) && twice {
        Some("one input message calls this id more than once: no result can say which it answers")
    } else {
        None
    }
}

fn wire_violations(run: &RepairRun, input: &[Entry]) -> Vec<Violation> {
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
            let id = normalize_tool_call_id(v.evidence["tool_use_id"].as_str()?);
            let rule = v.evidence["rule"].as_str()?;
            repeated_id_excuse(
                rule,
                sent.get(&*id).copied().unwrap_or(0),
                twice.contains(&*id),
            )
        };
        let model = JsValue::from(default_model());
        return match pi_wire::permanent(
            &js_value::borrow_all(run.output),
            &model,
            PiVersion::default(),
        ) {
            Ok(found) => found
                .into_iter()
                .map(|v| Violation {
                    invariant: WIRE_VALID,
                    cause: excuse(&v).map_or(v.cause.clone(), Cause::Unpreventable),
                    ..v
                })
                .collect(),
            Err(thrown) => {
                let cause = match pi_wire::permanent(
                    &js_value::borrow_all(run.input),
                    &model,
                    PiVersion::default(),
                ) {
                    Err(_) => Cause::Unpreventable("pi itself throws on the input"),
                    Ok(_) => Cause::SystemUnderTest,
                };
                vec![Violation {
                    invariant: WIRE_VALID,
                    cause,
                    summary: format!("pi throws on the output: {thrown}"),
                    evidence: json!({"thrown": thrown.to_string()}),
                }]
            }
        };
    }
    let calls = call_counts(input);
    let twice = called_twice_in_one_message(input, Cow::Borrowed);
    let id_less_call = input.iter().flat_map(|e| &e.calls).any(|c| c.id.is_none());
    wire::validate(run.format, &run.format.view(run.output))
        .into_iter()
        .map(|v| {
            let excuse = v.id.as_deref().and_then(|id| {
                repeated_id_excuse(
                    v.rule.id(),
                    calls.get(id).copied().unwrap_or(0),
                    twice.contains(id),
                )
            });
            let cause = if v.rule == WireRule::InvalidRole {
                Cause::Unpreventable("a repair may not change a message that is not a result")
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
            Violation {
                invariant: WIRE_VALID,
                cause,
                summary: format!(
                    "{}: message {} (call {})",
                    v.rule,
                    v.message,
                    v.id.as_deref().unwrap_or("-")
                ),
                evidence: json!({"rule": v.rule, "message": v.message, "call_id": v.id}),
            }
        })
        .collect()
}

/// What is left of each message without its results, with the message's index. An entry that is
/// not a JSON object is no message (pi's `convertToLlm` drops it too), and neither is a pi
/// assistant message that stopped on an error or an abort (pi's `transformMessages` skips it):
/// dropping either is not charged.
fn others(format: Format, view: &[Entry]) -> Vec<(usize, &Value)> {
    view.iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e.rest.as_ref().filter(|rest| rest.is_object())?)))
        .filter(|(_, rest)| !(format == Format::Pi && pi_never_sends(rest)))
        .collect()
}

/// A pi assistant message that stopped on an error or an abort: pi's `transformMessages` leaves
/// it out of every request.
fn pi_never_sends(message: &Value) -> bool {
    message.get("role") == Some(&json!("assistant"))
        && matches!(
            message.get("stopReason").and_then(Value::as_str),
            Some("error" | "aborted")
        )
}

/// Whether `output` is the message `input` kept: the same, or with its blank text filled in or
/// left out (`content` or Gemini's `parts`; every other field as it was). Providers refuse empty
/// text (Anthropic: "all messages must have non-empty content except for the optional final
/// assistant message", "text content blocks must be non-empty"), so writing a notice into it or
/// dropping it is a repair, not a loss: litellm writes "[System: Empty message content sanitised
/// to satisfy protocol]" into an empty message and drops an empty text part beside tool calls.
fn keeps(input: &Value, output: &Value) -> bool {
    if input == output {
        return true;
    }
    let (Some(input), Some(output)) = (input.as_object(), output.as_object()) else {
        return false;
    };
    input.len() == output.len()
        && input.iter().all(|(key, value)| match output.get(key) {
            Some(kept) if key == "content" || key == "parts" => fills(value, kept),
            kept => kept == Some(value),
        })
}

/// Whether `filled` is `blank` (a `content` or `parts`) with each blank text filled in or left
/// out, and everything else as it was, in order.
fn fills(blank: &Value, filled: &Value) -> bool {
    let blank_text = |part: &Value| text_of(part).is_some_and(|text| text.trim().is_empty());
    match (blank, filled) {
        (Value::String(blank), Value::String(_) | Value::Null) => blank.trim().is_empty(),
        (Value::Array(blank), Value::Array(filled)) => {
            // fills_from[j]: the parts of `blank` from the current one on become `filled[j..]`.
            let mut fills_from: Vec<bool> = (0..=filled.len()).map(|j| j == filled.len()).collect();
            for part in blank.iter().rev() {
                let left_out = blank_text(part);
                fills_from = (0..=filled.len())
                    .map(|j| {
                        let kept = filled.get(j).is_some_and(|next| {
                            next == part || left_out && text_of(next).is_some()
                        });
                        kept && fills_from[j + 1] || left_out && fills_from[j]
                    })
                    .collect();
            }
            fills_from[0]
        }
        (blank, filled) => blank == filled,
    }
}

/// The text of a text part (`{"type": "text", "text"}`, or Gemini's `{"text"}`).
fn text_of(part: &Value) -> Option<&str> {
    let typed = part.get("type").is_none_or(|kind| kind == "text");
    part.get("text").and_then(Value::as_str).filter(|_| typed)
}

fn other_messages(format: Format, input: &[Entry], output: &[Entry]) -> Option<Violation> {
    let before = others(format, input);
    let after = others(format, output);
    let at = (0..before.len().max(after.len())).find(|&k| match (before.get(k), after.get(k)) {
        (Some((_, b)), Some((_, a))) => !keeps(b, a),
        (b, a) => b.is_some() != a.is_some(),
    })?;
    // A message past the other side's end is lost or added even when a copy of it is elsewhere.
    let (what, message) = match (before.get(at), after.get(at)) {
        (Some((i, lost)), _) if after.len() <= at || !after.iter().any(|(_, a)| keeps(lost, a)) => {
            ("lost", json!({"input_message": i, "value": lost}))
        }
        (_, Some((o, added)))
            if before.len() <= at || !before.iter().any(|(_, b)| keeps(b, added)) =>
        {
            (
                "changed or added",
                json!({"output_message": o, "value": added}),
            )
        }
        (Some((i, moved)), _) => ("reordered", json!({"input_message": i, "value": moved})),
        (None, _) => unreachable!("past the input's end, the output's message is added"),
    };
    Some(charged(
        KEEPS_OTHER_MESSAGES,
        format!(
            "a message that is not a tool result was {what} (number {} of them)",
            at + 1
        ),
        json!({"kind": what, "position": at, "message": message}),
    ))
}

fn results(run: &RepairRun, input: &[Entry], output: &[Entry]) -> Vec<Violation> {
    let calls_in = call_counts(input);
    let calls_out = call_counts(output);
    // Every input result by the id it names (`None`: it names none).
    let mut real: HashMap<Option<&str>, Vec<(usize, &Value)>> = HashMap::new();
    for (i, entry) in input.iter().enumerate() {
        for result in &entry.results {
            real.entry(result.id.as_deref())
                .or_default()
                .push((i, &result.value));
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
                .is_some_and(|values| values.iter().any(|(_, v)| *v == &result.value));
            if is_real {
                if let Some(id) = id {
                    kept_real.insert(id, true);
                }
                continue;
            }
            if let Some(marker) = run.marker
                && !carries_marker(&result.value, marker)
            {
                found.push(charged(
                    SYNTHETIC_RECOGNISABLE,
                    format!("the result at {o} is not in the input and does not carry the marker {marker:?}"),
                    json!({"output_message": o, "call_id": id, "result": result.value, "marker": marker}),
                ));
            }
            if let Some(id) = id
                && unambiguous(id)
                && let Some(answer) = answer_at(id)
            {
                found.push(charged(
                    NO_EXTRA_RESULT,
                    format!("a result for call {id} was added at {o} although the input answers it at {answer}"),
                    json!({"output_message": o, "call_id": id, "input_result_message": answer, "added": result.value}),
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
        charged(
            KEEPS_REAL_RESULTS,
            format!("the real result at {at} was dropped although call {id} is still there and no real result answers it"),
            json!({"call_id": id, "input_result_message": at}),
        )
    }));
    found
}

/// The first index where two transcripts differ, if they do.
fn first_difference(a: &[Value], b: &[Value]) -> Option<usize> {
    (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(format: Format, input: Value, output: Value) -> Vec<(Invariant, bool)> {
        let (input, output) = (
            input.as_array().unwrap().clone(),
            output.as_array().unwrap().clone(),
        );
        let run = RepairRun {
            format,
            input: &input,
            output: &output,
            again: &output,
            marker: Some("[syn]"),
        };
        check(&run)
            .into_iter()
            .map(|v| (v.invariant, v.cause == Cause::SystemUnderTest))
            .collect()
    }

    /// Whether each `repair-wire-valid` violation of `ids` is charged.
    fn wire_charges(format: Format, input: Value, output: Value) -> Vec<bool> {
        ids(format, input, output)
            .into_iter()
            .filter(|&(invariant, _)| invariant == WIRE_VALID)
            .map(|(_, charged)| charged)
            .collect()
    }

    #[test]
    fn blank_text_filled_in_is_kept_and_any_other_change_is_not() {
        let kept = |input: Value, output: Value| {
            ids(Format::OpenAi, json!([input]), json!([output]))
                .iter()
                .all(|&(invariant, _)| invariant != KEEPS_OTHER_MESSAGES)
        };
        let user = |content: Value| json!({"role": "user", "content": content});
        let part = |text: &str| json!({"type": "text", "text": text});
        assert!(kept(user(json!("")), user(json!("[filled]"))));
        assert!(kept(user(json!(" \n")), user(json!("[filled]"))));
        assert!(
            !kept(user(json!("x")), user(json!("[filled]"))),
            "text is never replaced"
        );
        assert!(!kept(
            user(json!("")),
            json!({"role": "assistant", "content": "[filled]"})
        ));
        assert!(!kept(user(json!("")), user(json!([part("[filled]")]))));
        assert!(!kept(
            user(json!("")),
            json!({"role": "user", "content": "[filled]", "name": "n"})
        ));
        assert!(kept(
            user(json!([part(""), part("x")])),
            user(json!([part("[filled]"), part("x")]))
        ));
        assert!(!kept(
            user(json!([part("y"), part("x")])),
            user(json!([part("[filled]"), part("x")]))
        ));
        assert!(!kept(
            user(json!([part(""), part("x")])),
            user(json!([part("[filled]"), part("z")]))
        ));
        assert!(!kept(
            user(json!([part("")])),
            user(json!([part("a"), part("b")]))
        ));
        assert!(
            kept(
                user(json!([part(" "), part("x")])),
                user(json!([part("x")]))
            ),
            "left out"
        );
        assert!(kept(user(json!([part("")])), user(json!([]))));
        assert!(!kept(
            user(json!([part("y"), part("x")])),
            user(json!([part("x")]))
        ));
        assert!(kept(user(json!("")), user(Value::Null)));
        assert!(!kept(user(json!("x")), user(Value::Null)));
        assert!(!kept(user(json!([part("")])), user(Value::Null)));
        assert!(!kept(user(json!(1)), user(json!(2))));
        assert!(!kept(
            user(json!([part("")])),
            user(json!([{"type": "image", "text": "a"}]))
        ));
        assert!(!kept(
            user(json!([{"type": "image", "text": ""}])),
            user(json!([part("a")]))
        ));
        let gemini = |parts: Value| json!([{"role": "user", "parts": parts}]);
        assert_eq!(
            ids(
                Format::Gemini,
                gemini(json!([{"text": ""}])),
                gemini(json!([{"text": "[filled]"}]))
            ),
            vec![]
        );
        assert_eq!(
            ids(
                Format::Gemini,
                gemini(json!([{"text": "x"}])),
                gemini(json!([{"text": "[filled]"}]))
            ),
            vec![(KEEPS_OTHER_MESSAGES, true)]
        );
    }

    #[test]
    fn dropping_an_entry_that_is_no_object_is_not_charged() {
        assert_eq!(
            ids(
                Format::OpenAi,
                json!([0, {"role": "user", "content": "x"}]),
                json!([{"role": "user", "content": "x"}])
            ),
            vec![]
        );
        assert_eq!(
            ids(
                Format::OpenAi,
                json!([{"role": "user", "content": "x"}]),
                json!([])
            ),
            vec![(KEEPS_OTHER_MESSAGES, true)]
        );
    }

    #[test]
    fn a_message_lost_added_or_moved_is_charged_as_such_copies_too() {
        let kind = |input: Value, output: Value| {
            check(&RepairRun {
                format: Format::OpenAi,
                input: input.as_array().unwrap(),
                output: output.as_array().unwrap(),
                again: output.as_array().unwrap(),
                marker: None,
            })[0]
                .evidence["kind"]
                .clone()
        };
        let (x, y) = (
            json!({"role": "user", "content": "x"}),
            json!({"role": "user", "content": "y"}),
        );
        assert_eq!(kind(json!([x]), json!([x, x])), "changed or added");
        assert_eq!(kind(json!([x, x]), json!([x])), "lost");
        assert_eq!(kind(json!([x, y]), json!([y, x])), "reordered");
        assert_eq!(kind(json!([x, y]), json!([y])), "lost");
        assert_eq!(kind(json!([x]), json!([y, x])), "changed or added");
    }

    #[test]
    fn a_role_the_provider_refuses_is_no_repair_s_fault() {
        assert_eq!(
            ids(
                Format::AiSdk,
                json!([{"role": "robot"}]),
                json!([{"role": "robot"}])
            ),
            vec![(WIRE_VALID, false)]
        );
    }

    #[test]
    fn pi_throwing_on_the_input_too_is_unpreventable() {
        let broken = json!([{"role": "assistant", "content": [{"type": "toolCall"}]}]);
        assert_eq!(
            ids(Format::Pi, broken.clone(), broken.clone()),
            vec![(WIRE_VALID, false)]
        );
        assert_eq!(
            ids(Format::Pi, json!([]), broken),
            vec![(WIRE_VALID, true), (KEEPS_OTHER_MESSAGES, true)]
        );
    }

    #[test]
    fn a_result_before_its_call_answers_nothing_so_replacing_it_is_allowed() {
        let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}]});
        let early = json!({"role": "tool", "tool_call_id": "a", "content": "early"});
        let synthetic = json!({"role": "tool", "tool_call_id": "a", "content": "[syn]"});
        assert_eq!(
            ids(
                Format::OpenAi,
                json!([early, call]),
                json!([call, synthetic])
            ),
            vec![]
        );
        let late = json!({"role": "tool", "tool_call_id": "a", "content": "late"});
        let steering = json!({"role": "user", "content": "wait"});
        assert_eq!(
            ids(
                Format::OpenAi,
                json!([call, steering, late]),
                json!([call, synthetic, steering])
            ),
            vec![],
            "a result after a user message answers nothing in place"
        );
        assert_eq!(
            ids(
                Format::OpenAi,
                json!([early, call, late]),
                json!([call, synthetic])
            ),
            vec![(NO_EXTRA_RESULT, true), (KEEPS_REAL_RESULTS, true)],
            "a result right after the call answers it"
        );
    }

    #[test]
    fn a_result_without_an_id_kept_as_it_was_is_not_an_added_one() {
        let idless = json!([{"role": "user", "content": "x"}, {"role": "tool", "content": "r"}]);
        assert_eq!(
            ids(Format::OpenAi, idless.clone(), idless),
            vec![(WIRE_VALID, true)]
        );
    }

    #[test]
    fn wire_damage_to_a_call_the_input_has_once_is_charged() {
        let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}]});
        let result = json!({"role": "tool", "tool_call_id": "a", "content": "1"});
        assert_eq!(
            ids(Format::OpenAi, json!([call, result]), json!([call])),
            vec![(WIRE_VALID, true), (KEEPS_REAL_RESULTS, true)]
        );
        let orphan = json!({"role": "tool", "tool_call_id": "z", "content": "[syn]"});
        assert_eq!(
            ids(
                Format::OpenAi,
                json!([call, result]),
                json!([call, result, orphan])
            ),
            vec![(WIRE_VALID, true)],
            "a call the input lacks"
        );
        let call = json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f", "arguments": {}}], "stopReason": "toolUse"});
        let result = json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": [], "isError": false});
        let charged = wire_charges(
            Format::Pi,
            json!([call, result]),
            json!([call, result, result]),
        );
        assert!(
            !charged.is_empty() && charged.iter().all(|&c| c),
            "{charged:?}"
        );
        let orphan = json!({"role": "toolResult", "toolCallId": "z", "toolName": "f", "content": [], "isError": false});
        let charged = wire_charges(
            Format::Pi,
            json!([call, result]),
            json!([call, result, orphan]),
        );
        assert!(
            !charged.is_empty() && charged.iter().all(|&c| c),
            "a call the input lacks: {charged:?}"
        );
    }

    #[test]
    fn only_a_missing_result_is_excused_by_a_call_without_an_id() {
        let idless_call = json!({"role": "assistant", "content": null, "tool_calls": [{"function": {"name": "f"}}]});
        let idless_result = json!({"role": "tool", "content": "r"});
        let user = json!({"role": "user", "content": "x"});
        let transcript = json!([user, idless_result, idless_call]);
        assert_eq!(
            ids(Format::OpenAi, transcript.clone(), transcript),
            vec![(WIRE_VALID, true), (WIRE_VALID, false)],
            "the result without a call is charged, the call's missing result is not"
        );
    }

    #[test]
    fn a_pi_call_id_the_input_repeats_is_no_repair_s_fault() {
        let call = json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f", "arguments": {}}], "stopReason": "toolUse"});
        let twice = json!([call, call]);
        assert_eq!(
            ids(Format::Pi, twice.clone(), twice),
            vec![(WIRE_VALID, false), (WIRE_VALID, false)]
        );
        let piped = json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": "c|0", "name": "f", "arguments": {}},
            {"type": "toolCall", "id": "c_0", "name": "f", "arguments": {}}
        ], "stopReason": "toolUse"});
        let result = json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": [], "isError": false});
        let wire = wire_charges(
            Format::Pi,
            json!([call, result, call, result]),
            json!([call, result, result, call, result]),
        );
        assert_eq!(
            wire,
            vec![true, true, false, false],
            "a second result for the first of two calls of one id is charged (the rule and its \
             permanent invariant), the repeated id is not"
        );
        let two = json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": "a", "name": "f", "arguments": {}},
            {"type": "toolCall", "id": "a", "name": "f", "arguments": {}}
        ], "stopReason": "toolUse"});
        let both = json!([two, result, result]);
        assert_eq!(
            wire_charges(Format::Pi, both.clone(), both),
            vec![false; 4],
            "one message calls a twice: its second result (which pi's rules charge) is no repair's doing"
        );
        let found = ids(Format::Pi, json!([piped]), json!([piped]));
        assert!(
            !found.is_empty() && found.iter().all(|&(_, charged)| !charged),
            "ids pi sends as one: {found:?}"
        );
    }

    #[test]
    fn dropping_a_pi_assistant_turn_that_pi_never_sends_loses_nothing() {
        let user = json!({"role": "user", "content": "go", "timestamp": 1});
        let failed = json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f", "arguments": {}}], "stopReason": "error"});
        let result = json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": [], "isError": false});
        assert_eq!(
            ids(Format::Pi, json!([user, failed, result]), json!([user])),
            vec![]
        );
        let done = json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop"});
        assert_eq!(
            ids(Format::Pi, json!([user, done]), json!([user])),
            vec![(KEEPS_OTHER_MESSAGES, true)]
        );
    }

    /// Whether each `repair-idempotent` violation is charged, `again` being the repair of
    /// `output`, itself the repair of `input` (OpenAI chat).
    fn idempotence(input: &Value, output: &Value, again: &Value) -> Vec<bool> {
        let run = RepairRun {
            format: Format::OpenAi,
            input: input.as_array().unwrap(),
            output: output.as_array().unwrap(),
            again: again.as_array().unwrap(),
            marker: None,
        };
        check(&run)
            .into_iter()
            .filter(|v| v.invariant == IDEMPOTENT)
            .map(|v| v.cause == Cause::SystemUnderTest)
            .collect()
    }

    #[test]
    fn only_a_second_repair_that_changes_results_of_a_repeated_call_id_is_excused() {
        let call = |id: &str| json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "function": {"name": "f"}}]});
        let result =
            |id: &str, text: &str| json!({"role": "tool", "tool_call_id": id, "content": text});
        let twice = json!([call("a"), result("a", "1"), call("a"), result("a", "2")]);
        let moved = json!([call("a"), result("a", "2"), call("a"), result("a", "1")]);
        assert_eq!(idempotence(&twice, &twice, &moved), vec![false]);
        let user = json!({"role": "user", "content": "x"});
        let lost = json!([
            call("a"),
            result("a", "1"),
            call("a"),
            result("a", "2"),
            user
        ]);
        assert_eq!(
            idempotence(&lost, &lost, &twice),
            vec![true],
            "a message that is no result changes"
        );
        let once = json!([call("a"), result("a", "1"), call("b"), result("b", "2")]);
        let changed = json!([call("a"), result("a", "1"), call("b"), result("b", "3")]);
        assert_eq!(
            idempotence(&once, &once, &changed),
            vec![true],
            "no id repeats"
        );
        let regrouped = json!([call("a"), result("a", "1"), call("a"), result("a", "2")]);
        assert_eq!(
            idempotence(&once, &regrouped, &once),
            vec![true],
            "the output repeats an id the input does not"
        );
    }

    #[test]
    fn a_repeated_call_id_excuses_only_the_rules_it_makes_unpreventable() {
        let call = |ids: &[&str]| {
            let calls: Vec<Value> = ids
                .iter()
                .map(|id| json!({"id": id, "function": {"name": "f"}}))
                .collect();
            json!({"role": "assistant", "content": null, "tool_calls": calls})
        };
        let result = json!({"role": "tool", "tool_call_id": "a", "content": "1"});
        let unanswered = json!([call(&["a"]), result, call(&["a"])]);
        assert_eq!(
            wire_charges(Format::OpenAi, unanswered.clone(), unanswered),
            vec![true],
            "the second call of a is left unanswered: a synthetic result would answer it"
        );
        let pair = json!([call(&["a", "a"])]);
        assert_eq!(
            wire_charges(Format::OpenAi, pair.clone(), pair.clone()),
            vec![false, false],
            "one message calls a twice: missing results"
        );
        assert_eq!(
            wire_charges(
                Format::OpenAi,
                pair,
                json!([call(&["a", "a"]), result, result])
            ),
            vec![false, false],
            "one message calls a twice: a second result"
        );
        let anthropic_call = |id: &str| json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "f", "input": {}}]});
        let anthropic_result = |id: &str| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "1"}]});
        let repeated = json!([
            anthropic_call("a"),
            anthropic_result("a"),
            anthropic_call("a"),
            anthropic_result("a")
        ]);
        assert_eq!(
            wire_charges(Format::Anthropic, repeated.clone(), repeated),
            vec![false],
            "the repeated id itself"
        );
        assert_eq!(
            wire_charges(
                Format::Anthropic,
                json!([anthropic_call("a"), anthropic_result("a")]),
                json!([
                    anthropic_call("a"),
                    anthropic_result("a"),
                    anthropic_call("a"),
                    anthropic_result("a")
                ])
            ),
            vec![true],
            "an id the input calls once, repeated by the repair"
        );
    }

    #[test]
    fn a_real_result_replaced_by_an_unmarked_synthetic_one_breaks_three_promises() {
        let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}]});
        let input = json!([call, {"role": "tool", "tool_call_id": "a", "content": "real"}]);
        let output = json!([call, {"role": "tool", "tool_call_id": "a", "content": "made up"}]);
        assert_eq!(
            ids(Format::OpenAi, input, output),
            vec![
                (SYNTHETIC_RECOGNISABLE, true),
                (NO_EXTRA_RESULT, true),
                (KEEPS_REAL_RESULTS, true)
            ]
        );
    }
}
