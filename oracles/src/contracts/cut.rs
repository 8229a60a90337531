//! The cut contract: `{"messages": [...], "target": T}` in, `{"boundary": N}` out, `N` the first
//! kept index (`0`: do not compact). Everything before `N` is summarised away.
//!
//! Each invariant's promise is its constant's statement (what `ctxfuzz explain` and the docs show);
//! here is how each is judged.
//!
//! - [`BOUNDARY_IN_RANGE`]: `N` is an integer in `0..=len`.
//! - [`COMPACTS_WHEN_ASKED`]: a request whose target is in `1..=len` asks for a compaction, and
//!   `N = 0` (summarise nothing) is then charged. A cut that keeps every call with its results
//!   always exists there: `N = len` keeps no result at all (everything is summarised), so answering
//!   0 is never forced. This is the AutoBot defect the project was founded on: a boundary dragged
//!   to 0 summarised nothing, the session stayed over its limit and asked again every turn. A
//!   target of 0 asks for no compaction; a target past the end asks for nothing this contract can
//!   judge (the request is outside the protocol), so neither is charged.
//! - [`NO_NEW_ORPHANS`]: the transcript may already be damaged, so only damage the cut creates is charged: a kept result that answers no
//!   open call in the kept suffix but did in the whole transcript (the differential rule of the
//!   compaction target). A result answers an open call when the latest assistant message before
//!   it holds its id (Gemini without ids: an unanswered call of its name) and no other message
//!   (a user's, a summary, anything but results) stands between them: every provider refuses a
//!   result after such a message, so that result was already orphaned in the input.
//!
//! A kept call cannot lose a result that follows it (everything after `N` is kept), so a call
//! whose result is summarised away is damage the input already had (a result before its call):
//! not charged.

use std::fmt::Display;

use serde::Serialize;

use crate::formats::{Entry, Format, Role};
use crate::invariants::compaction::NO_NEW_ORPHANS;
use crate::invariants::{Invariant, Violation};
use crate::js::Json;
use crate::js_value::JsValue;

pub const BOUNDARY_IN_RANGE: Invariant = Invariant {
    id: "cut-boundary-in-range",
    statement: "the boundary is an integer from 0 to the number of messages",
};
pub const COMPACTS_WHEN_ASKED: Invariant = Invariant {
    id: "cut-compacts-when-asked",
    statement: "asked to compact (a target from 1 to the number of messages), the boundary is not \
                0: cutting at the end always keeps every call with its results",
};

/// Every cut invariant (the compaction's own statement of `compaction-no-new-orphans` applies).
pub const INVARIANTS: &[Invariant] = &[BOUNDARY_IN_RANGE, COMPACTS_WHEN_ASKED, NO_NEW_ORPHANS];

/// Judges one cut: `boundary` as the program answered a request for `messages` with `target`
/// (the request's `target`, if it is a non-negative integer).
pub fn check<J: Json + Clone + Display + Serialize>(
    format: Format,
    messages: &[J],
    target: Option<u64>,
    boundary: &J,
) -> Vec<Violation> {
    let len = messages.len();
    let Some(n) = boundary.as_u64().filter(|&n| n <= len as u64) else {
        return vec![Violation::charged(
            BOUNDARY_IN_RANGE,
            format!("boundary {boundary} is not an index from 0 to {len}"),
            CutEvidence::OutOfRange {
                boundary: boundary.to_js().owned_copy(),
                messages: len,
            },
        )];
    };
    let n = n as usize;
    if n == 0 {
        return target
            .filter(|target| (1..=len as u64).contains(target))
            .map(|target| {
                Violation::charged(
                    COMPACTS_WHEN_ASKED,
                    format!(
                        "asked to compact near {target}, the program answered 0 (summarise \
                         nothing); cutting at {len} (summarise everything) keeps every call with \
                         its results"
                    ),
                    CutEvidence::NotCompacted {
                        boundary: 0,
                        target,
                        messages: len,
                    },
                )
            })
            .into_iter()
            .collect();
    }
    let view = format.view(messages);
    let before = orphans(&view);
    let after = orphans(&view[n..]);
    after
        .iter()
        .enumerate()
        .filter(|&(i, &orphan)| orphan && !before[n + i])
        .map(|(i, _)| n + i)
        .flat_map(|index| {
            view[index]
                .results
                .iter()
                .map(move |result| (index, result.id.clone()))
        })
        .map(|(index, call_id)| {
            let summary = format!(
                "cutting at {n} keeps the result at {index} (call {}) but summarises its call away",
                call_id.as_deref().unwrap_or("without id")
            );
            let evidence = CutEvidence::Orphaned {
                boundary: n,
                result_message: index,
                call_id,
            };
            Violation::charged(NO_NEW_ORPHANS, summary, evidence)
        })
        .collect()
}

/// What a violation of the cut contract shows, one variant per way to break it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CutEvidence {
    /// The boundary as answered, and the number of messages.
    OutOfRange {
        boundary: JsValue<'static>,
        messages: usize,
    },
    /// A boundary of 0 where the request asked to compact near `target`.
    NotCompacted {
        boundary: usize,
        target: u64,
        messages: usize,
    },
    /// A result kept after the boundary whose call it summarises away.
    Orphaned {
        boundary: usize,
        result_message: usize,
        call_id: Option<String>,
    },
}

/// For each message, whether it carries a result that answers no open call: each assistant
/// message opens its calls (and closes the earlier ones), a result consumes its call if open, and
/// any other content (a message that is not only results) closes every open call after its
/// results are read.
fn orphans<J: Json + Clone>(view: &[Entry<J>]) -> Vec<bool> {
    let mut open: Vec<(Option<&str>, &str)> = Vec::new();
    view.iter()
        .map(|entry| {
            if entry.role == Role::Assistant {
                open = entry
                    .calls
                    .iter()
                    .map(|c| (c.id.as_deref(), c.name.as_str()))
                    .collect();
            }
            let mut orphan = false;
            for result in &entry.results {
                let at = open
                    .iter()
                    .position(|&(id, name)| match result.id.as_deref() {
                        Some(wanted) => id == Some(wanted),
                        None => id.is_none() && name == result.name,
                    });
                match at {
                    Some(at) => {
                        open.remove(at);
                    }
                    None => orphan = true,
                }
            }
            if entry.role != Role::Assistant && entry.rest.is_some() {
                open.clear();
            }
            orphan
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    use crate::invariants::evidence;
    use crate::js_value::{JsValue, borrow_all};

    fn transcript() -> Vec<Value> {
        json!([
            {"role": "user", "content": "go"},
            {"role": "tool", "tool_call_id": "z", "content": "already alone"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "1"}
        ])
        .as_array()
        .unwrap()
        .clone()
    }

    fn ids(boundary: Value) -> Vec<Invariant> {
        let judged = check(Format::OpenAi, &transcript(), Some(4), &boundary);
        let borrowed = check(
            Format::OpenAi,
            &borrow_all(&transcript()),
            Some(4),
            &JsValue::from(&boundary),
        );
        assert_eq!(borrowed, judged, "the same judgement of borrowed messages");
        judged.iter().map(|v| v.invariant).collect()
    }

    #[test]
    fn the_boundary_is_an_index_from_zero_to_the_length() {
        assert_eq!(ids(json!(4)), Vec::<Invariant>::new());
        for bad in [json!(5), json!(-1), json!(1.5), json!("2")] {
            assert_eq!(ids(bad), vec![BOUNDARY_IN_RANGE]);
        }
    }

    #[test]
    fn a_result_after_a_user_message_was_orphaned_before_the_cut() {
        let messages = json!([
            {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}]},
            {"role": "user", "content": "meanwhile"},
            {"role": "tool", "tool_call_id": "a", "content": "1"}
        ]);
        let messages = messages.as_array().unwrap();
        for boundary in 0..=3 {
            assert_eq!(
                check(Format::OpenAi, messages, Some(0), &json!(boundary)),
                vec![],
                "cut at {boundary}"
            );
        }
    }

    #[test]
    fn only_orphans_the_cut_creates_are_charged() {
        assert_eq!(
            ids(json!(1)),
            Vec::<Invariant>::new(),
            "the result at 1 was alone before the cut"
        );
        assert_eq!(ids(json!(2)), Vec::<Invariant>::new());
        assert_eq!(ids(json!(3)), vec![NO_NEW_ORPHANS]);
    }

    #[test]
    fn asked_to_compact_answering_zero_is_charged() {
        let asked = |target: Option<u64>| -> Vec<Invariant> {
            check(Format::OpenAi, &transcript(), target, &json!(0))
                .iter()
                .map(|v| v.invariant)
                .collect()
        };
        for target in [1, 4] {
            assert_eq!(
                asked(Some(target)),
                vec![COMPACTS_WHEN_ASKED],
                "target {target}"
            );
        }
        for target in [None, Some(0), Some(5)] {
            assert_eq!(asked(target), vec![], "target {target:?} asks for nothing");
        }
        let found = check(Format::OpenAi, &transcript(), Some(3), &json!(0));
        assert_eq!(
            evidence::json(&found[0]),
            json!({"boundary": 0, "target": 3, "messages": 4})
        );
        assert_eq!(
            check(Format::OpenAi, &transcript(), Some(3), &json!(2)),
            vec![],
            "a cut that keeps every call with its results"
        );
    }

    #[test]
    fn a_new_orphan_is_reported_at_its_own_index() {
        let messages = json!([
            {"role": "tool", "tool_call_id": "z", "content": "already alone"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "function": {"name": "f"}},
                {"id": "b", "function": {"name": "f"}},
                {"id": "c", "function": {"name": "f"}}
            ]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
            {"role": "tool", "tool_call_id": "c", "content": "3"}
        ]);
        let found: Vec<(Value, Value)> = check(
            Format::OpenAi,
            messages.as_array().unwrap(),
            Some(2),
            &json!(2),
        )
        .into_iter()
        .map(|v| {
            (
                evidence::json(&v)["result_message"].clone(),
                evidence::json(&v)["call_id"].clone(),
            )
        })
        .collect();
        assert_eq!(
            found,
            vec![
                (json!(2), json!("a")),
                (json!(3), json!("b")),
                (json!(4), json!("c"))
            ]
        );
    }

    #[test]
    fn a_result_without_an_id_answers_a_call_without_an_id_of_its_name() {
        let call =
            |function: Value| json!({"role": "model", "parts": [{"functionCall": function}]});
        let response =
            json!({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]});
        let orphaned =
            |function: Value| orphans(&Format::Gemini.view(&[call(function), response.clone()]));
        assert_eq!(orphaned(json!({"name": "f"})), vec![false, false]);
        assert_eq!(
            orphaned(json!({"name": "g"})),
            vec![false, true],
            "another name"
        );
        assert_eq!(
            orphaned(json!({"id": "a", "name": "f"})),
            vec![false, true],
            "a call with an id is answered only by its id"
        );
    }
}
