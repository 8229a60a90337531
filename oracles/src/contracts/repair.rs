//! The repair contract: `{"messages": [...]}` in, `{"messages": [...]}` out, in the program's
//! format. A repair may drop tool results, add synthetic results and move results next to their
//! calls; nothing else.
//!
//! - `repair-wire-valid`: the output breaks none of the format's provider rules
//!   ([`crate::formats::wire`]; pi transcripts: the permanent 400s after pi's pipeline). A rule
//!   broken by damage no repair may touch (a call id repeated among the calls, a call without an
//!   id, a message of a role the provider refuses) is unpreventable.
//! - `repair-keeps-other-messages`: every message that is not a tool result (and what is left of
//!   a message that also carries results) is kept, unchanged, in order (entries that are not JSON
//!   objects are no messages).
//! - `repair-keeps-real-results`: a real result is not dropped while its call is still there and
//!   no real result answers it.
//! - `repair-no-extra-result`: no result is added for a call that already had a real one.
//! - `repair-synthetic-recognisable`: every added result carries the package's marker (when the
//!   package names one).
//! - `repair-idempotent`: repairing the output changes nothing.
//!
//! A result is real when the input holds the same result (same id, same JSON); every other result
//! in the output was added. Ids that several input calls share are ambiguous and left out of the
//! result rules.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::formats::{Entry, Format, wire};
use crate::invariants::{Cause, Invariant, Violation, wire as pi_wire};
use crate::pi::{PiVersion, default_model};

pub const WIRE_VALID: Invariant = Invariant {
    id: "repair-wire-valid",
    statement: "the output breaks none of the format's provider rules",
};
pub const KEEPS_OTHER_MESSAGES: Invariant = Invariant {
    id: "repair-keeps-other-messages",
    statement: "every message that is not a tool result is kept, unchanged, in order",
};
pub const KEEPS_REAL_RESULTS: Invariant = Invariant {
    id: "repair-keeps-real-results",
    statement: "a real result is not dropped while its call is there and unanswered",
};
pub const NO_EXTRA_RESULT: Invariant = Invariant {
    id: "repair-no-extra-result",
    statement: "no result is added for a call that already had a real one",
};
pub const SYNTHETIC_RECOGNISABLE: Invariant = Invariant {
    id: "repair-synthetic-recognisable",
    statement: "every added result carries the package's marker",
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
    found.extend(other_messages(&input, &output));
    found.extend(results(run, &input, &output));
    if let Some(at) = first_difference(run.output, run.again) {
        found.push(charged(
            IDEMPOTENT,
            format!("repairing the output again changes it (first at message {at})"),
            json!({"message": at, "output_len": run.output.len(), "again_len": run.again.len()}),
        ));
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

fn wire_violations(run: &RepairRun, input: &[Entry]) -> Vec<Violation> {
    if run.format == Format::Pi {
        let model = default_model();
        return match pi_wire::permanent(run.output, &model, PiVersion::default()) {
            Ok(found) => found
                .into_iter()
                .map(|v| Violation {
                    invariant: WIRE_VALID,
                    ..v
                })
                .collect(),
            Err(thrown) => {
                let cause = match pi_wire::permanent(run.input, &model, PiVersion::default()) {
                    Err(_) => Cause::Unpreventable("pi itself throws on the input"),
                    Ok(_) => Cause::SystemUnderTest,
                };
                vec![Violation {
                    invariant: WIRE_VALID,
                    cause,
                    summary: format!("pi throws on the output: {thrown}"),
                    evidence: json!({"thrown": thrown}),
                }]
            }
        };
    }
    let counts = call_counts(input);
    let id_less_call = input.iter().flat_map(|e| &e.calls).any(|c| c.id.is_none());
    wire::validate(run.format, &run.format.view(run.output))
        .into_iter()
        .map(|v| {
            let repeated =
                v.id.as_deref()
                    .is_some_and(|id| counts.get(id).copied().unwrap_or(0) > 1);
            let cause = if v.rule == wire::INVALID_ROLE {
                Cause::Unpreventable("a repair may not change a message that is not a result")
            } else if repeated {
                Cause::Unpreventable("the input repeats this call id among its calls")
            } else if v.rule == wire::MISSING_RESULT
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
/// not a JSON object is no message (pi's `convertToLlm` drops it too): dropping it is not charged.
fn others(view: &[Entry]) -> Vec<(usize, &Value)> {
    view.iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e.rest.as_ref().filter(|rest| rest.is_object())?)))
        .collect()
}

fn other_messages(input: &[Entry], output: &[Entry]) -> Option<Violation> {
    let before = others(input);
    let after = others(output);
    let at = (0..before.len().max(after.len()))
        .find(|&k| before.get(k).map(|b| b.1) != after.get(k).map(|a| a.1))?;
    let (what, message) = match (before.get(at), after.get(at)) {
        (Some((i, lost)), _) if !after.iter().any(|(_, a)| a == lost) => {
            ("lost", json!({"input_message": i, "value": lost}))
        }
        (_, Some((o, added))) if !before.iter().any(|(_, b)| b == added) => (
            "changed or added",
            json!({"output_message": o, "value": added}),
        ),
        (Some((i, moved)), _) => ("reordered", json!({"input_message": i, "value": moved})),
        (None, _) => unreachable!("a difference past the input's end is an addition"),
    };
    Some(charged(
        KEEPS_OTHER_MESSAGES,
        format!(
            "a message that is not a tool result was {what} (the {}th of them)",
            at + 1
        ),
        json!({"kind": what, "position": at, "message": message}),
    ))
}

fn results(run: &RepairRun, input: &[Entry], output: &[Entry]) -> Vec<Violation> {
    let calls_in = call_counts(input);
    let calls_out = call_counts(output);
    let mut real: HashMap<&str, Vec<(usize, &Value)>> = HashMap::new();
    for (i, entry) in input.iter().enumerate() {
        for result in &entry.results {
            if let Some(id) = &result.id {
                real.entry(id.as_str())
                    .or_default()
                    .push((i, &result.value));
            }
        }
    }
    let unambiguous = |id: &str| calls_in.get(id) == Some(&1);
    let mut kept_real: HashMap<&str, bool> = HashMap::new();
    let mut found = Vec::new();
    for (o, entry) in output.iter().enumerate() {
        for result in &entry.results {
            let id = result.id.as_deref();
            let is_real = id
                .and_then(|id| real.get(id))
                .is_some_and(|values| values.iter().any(|(_, v)| *v == &result.value));
            if is_real {
                kept_real.insert(id.expect("a real result has an id"), true);
                continue;
            }
            if let Some(marker) = run.marker
                && !result.value.to_string().contains(marker)
            {
                found.push(charged(
                    SYNTHETIC_RECOGNISABLE,
                    format!("the result at {o} is not in the input and does not carry the marker {marker:?}"),
                    json!({"output_message": o, "call_id": id, "result": result.value, "marker": marker}),
                ));
            }
            if let Some(id) = id
                && unambiguous(id)
                && let Some(values) = real.get(id)
            {
                found.push(charged(
                    NO_EXTRA_RESULT,
                    format!("a result for call {id} was added at {o} although the input answers it at {}", values[0].0),
                    json!({"output_message": o, "call_id": id, "input_result_message": values[0].0, "added": result.value}),
                ));
            }
        }
    }
    let mut dropped: Vec<(&str, usize)> = real
        .iter()
        .filter(|(id, _)| {
            unambiguous(id) && calls_out.contains_key(**id) && !kept_real.contains_key(**id)
        })
        .map(|(id, values)| (*id, values[0].0))
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
