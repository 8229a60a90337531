//! The cut contract: `{"messages": [...], "target": T}` in, `{"boundary": N}` out, `N` the first
//! kept index (`0`: do not compact). Everything before `N` is summarised away.
//!
//! - `cut-boundary-in-range`: `N` is an integer in `0..=len`.
//! - `compaction-no-new-orphans`: no kept result loses the call it answers. The transcript may
//!   already be damaged, so only damage the cut creates is charged: a kept result that answers no
//!   open call in the kept suffix but did in the whole transcript (the differential rule of the
//!   compaction target). A result answers an open call when the latest assistant message before
//!   it holds its id (Gemini without ids: an unanswered call of its name) and no other message
//!   (a user's, a summary, anything but results) stands between them: every provider refuses a
//!   result after such a message, so that result was already orphaned in the input.
//!
//! A kept call cannot lose a result that follows it (everything after `N` is kept), so a call
//! whose result is summarised away is damage the input already had (a result before its call):
//! not charged.

use serde_json::{Value, json};

use crate::formats::{Entry, Format, Role};
use crate::invariants::compaction::NO_NEW_ORPHANS;
use crate::invariants::{Cause, Invariant, Violation};

pub const BOUNDARY_IN_RANGE: Invariant = Invariant {
    id: "cut-boundary-in-range",
    statement: "the boundary is an integer from 0 to the number of messages",
};

/// Every cut invariant (the compaction's own statement of `compaction-no-new-orphans` applies).
pub const INVARIANTS: &[Invariant] = &[BOUNDARY_IN_RANGE, NO_NEW_ORPHANS];

/// Judges one cut: `boundary` as the program answered it.
pub fn check(format: Format, messages: &[Value], boundary: &Value) -> Vec<Violation> {
    let len = messages.len();
    let Some(n) = boundary.as_u64().filter(|&n| n <= len as u64) else {
        return vec![Violation {
            invariant: BOUNDARY_IN_RANGE,
            cause: Cause::SystemUnderTest,
            summary: format!("boundary {boundary} is not an index from 0 to {len}"),
            evidence: json!({"boundary": boundary, "messages": len}),
        }];
    };
    let n = n as usize;
    if n == 0 {
        return Vec::new();
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
        .map(|(index, id)| Violation {
            invariant: NO_NEW_ORPHANS,
            cause: Cause::SystemUnderTest,
            summary: format!(
                "cutting at {n} keeps the result at {index} (call {}) but summarises its call away",
                id.as_deref().unwrap_or("without id")
            ),
            evidence: json!({"boundary": n, "result_message": index, "call_id": id}),
        })
        .collect()
}

/// For each message, whether it carries a result that answers no open call: each assistant
/// message opens its calls (and closes the earlier ones), a result consumes its call if open, and
/// any other content (a message that is not only results) closes every open call after its
/// results are read.
fn orphans(view: &[Entry]) -> Vec<bool> {
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
        check(Format::OpenAi, &transcript(), &boundary)
            .iter()
            .map(|v| v.invariant)
            .collect()
    }

    #[test]
    fn the_boundary_is_an_index_from_zero_to_the_length() {
        assert_eq!(ids(json!(0)), Vec::<Invariant>::new());
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
                check(Format::OpenAi, messages, &json!(boundary)),
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
}
