//! The prune contract: `{"messages": [...]}` in, `{"messages": [...]}` out, in the program's
//! format. A pruner (the AI SDK's `pruneMessages`) removes content parts (reasoning, tool calls
//! and their results) and messages left empty; it does not repair: it adds nothing, and damage
//! the input already had may stay.
//!
//! - `prune-only-removes`: every output message is an input message, in order, with some of its
//!   content parts removed and every other field as it was; nothing is added or changed.
//! - `prune-no-new-wire-damage`: the output breaks no provider rule of the format
//!   ([`crate::formats::wire`]) for a call the input kept every rule for (a call is never pruned
//!   without its result, nor a result without its call); without a call id, no rule the input
//!   kept. Damage the input had may change its shape (two results for one call, apart in the
//!   input, side by side once an empty message between them is removed): it is not new.

use foldhash::HashSet;
use serde_json::{Value, json};

use crate::formats::{Format, wire};
use crate::invariants::{Cause, Invariant, Violation};
use crate::wire::WireRule;

pub const ONLY_REMOVES: Invariant = Invariant {
    id: "prune-only-removes",
    statement: "every output message is an input message, in order, with parts removed",
};
pub const NO_NEW_WIRE_DAMAGE: Invariant = Invariant {
    id: "prune-no-new-wire-damage",
    statement: "the output breaks no provider rule the input kept",
};

/// Every prune invariant.
pub const INVARIANTS: &[Invariant] = &[ONLY_REMOVES, NO_NEW_WIRE_DAMAGE];

/// Judges one pruning: `output` as the program answered `input`.
pub fn check(format: Format, input: &[Value], output: &[Value]) -> Vec<Violation> {
    let mut found = Vec::new();
    if let Some((at, message)) = first_not_pruned_from(input, output) {
        found.push(Violation {
            invariant: ONLY_REMOVES,
            cause: Cause::SystemUnderTest,
            summary: format!(
                "output message {at} is not an input message with parts removed (or is out of order)"
            ),
            evidence: json!({"output_message": at, "value": message}),
        });
    }
    let damaged = |v: &wire::WireViolation| match &v.id {
        Some(id) => Damage::Call(id.clone()),
        None => Damage::Rule(v.rule),
    };
    let before: HashSet<Damage> = wire::validate(format, &format.view(input))
        .iter()
        .map(damaged)
        .collect();
    for v in wire::validate(format, &format.view(output)) {
        if before.contains(&damaged(&v)) {
            continue;
        }
        found.push(Violation {
            invariant: NO_NEW_WIRE_DAMAGE,
            cause: Cause::SystemUnderTest,
            summary: format!(
                "{}: message {} (call {}), which the input did not break",
                v.rule,
                v.message,
                v.id.as_deref().unwrap_or("-")
            ),
            evidence: json!({"rule": v.rule, "message": v.message, "call_id": v.id}),
        });
    }
    found
}

/// What a wire violation damages: a call, by its id, or (no id) the rule's subject.
#[derive(PartialEq, Eq, Hash)]
enum Damage {
    Call(String),
    Rule(WireRule),
}

/// The first output message (index, value) that matches no later input message pruned.
fn first_not_pruned_from<'a>(input: &[Value], output: &'a [Value]) -> Option<(usize, &'a Value)> {
    let mut next = 0;
    for (at, message) in output.iter().enumerate() {
        match (next..input.len()).find(|&i| pruned_from(&input[i], message)) {
            Some(i) => next = i + 1,
            None => return Some((at, message)),
        }
    }
    None
}

/// Whether `pruned` is `original` with some parts of its `content` list removed (or unchanged).
fn pruned_from(original: &Value, pruned: &Value) -> bool {
    let (Some(original), Some(pruned)) = (original.as_object(), pruned.as_object()) else {
        return original == pruned;
    };
    let same_fields = original.len() == pruned.len()
        && original
            .iter()
            .all(|(key, value)| key == "content" || pruned.get(key) == Some(value));
    same_fields
        && match (original.get("content"), pruned.get("content")) {
            (Some(Value::Array(parts)), Some(Value::Array(kept))) => {
                let mut parts = parts.iter();
                kept.iter().all(|part| parts.any(|p| p == part))
            }
            (original, pruned) => original == pruned,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> Value {
        json!({"role": "assistant", "content": [
            {"type": "reasoning", "text": "hm"},
            {"type": "tool-call", "toolCallId": id, "toolName": "f", "input": {}}
        ]})
    }

    fn result(id: &str) -> Value {
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": id, "toolName": "f", "output": {"type": "text", "value": "1"}}]})
    }

    fn ids(input: Value, output: Value) -> Vec<Invariant> {
        check(
            Format::AiSdk,
            input.as_array().unwrap(),
            output.as_array().unwrap(),
        )
        .iter()
        .map(|v| v.invariant)
        .collect()
    }

    #[test]
    fn removing_parts_and_emptied_messages_is_pruning() {
        let user = json!({"role": "user", "content": "go"});
        assert_eq!(
            ids(
                json!([user, call("a"), result("a"), user]),
                json!([user, {"role": "assistant", "content": [{"type": "reasoning", "text": "hm"}]}, user])
            ),
            Vec::<Invariant>::new()
        );
    }

    #[test]
    fn an_added_changed_or_reordered_message_is_not_pruning() {
        let (a, b) = (
            json!({"role": "user", "content": "a"}),
            json!({"role": "user", "content": "b"}),
        );
        assert_eq!(ids(json!([a]), json!([a, a])), vec![ONLY_REMOVES]);
        assert_eq!(ids(json!([a, b]), json!([b, a])), vec![ONLY_REMOVES]);
        assert_eq!(ids(json!([a]), json!([b])), vec![ONLY_REMOVES]);
        assert_eq!(
            ids(json!([a]), json!([{"role": "assistant", "content": "a"}])),
            vec![ONLY_REMOVES],
            "a field other than the content changed"
        );
        let mut renamed = call("a");
        renamed["content"][1]["toolName"] = json!("g");
        assert_eq!(
            ids(
                json!([call("a"), result("a")]),
                json!([renamed, result("a")])
            ),
            vec![ONLY_REMOVES]
        );
    }

    #[test]
    fn an_entry_that_is_no_object_is_kept_only_as_it_was() {
        assert_eq!(
            ids(json!([1, "x"]), json!([1, "x"])),
            Vec::<Invariant>::new()
        );
        assert_eq!(ids(json!([1]), json!([2])), vec![ONLY_REMOVES]);
    }

    #[test]
    fn only_wire_damage_the_pruning_creates_is_charged() {
        let user = json!({"role": "user", "content": "go"});
        let bare = json!({"role": "assistant", "content": [{"type": "reasoning", "text": "hm"}]});
        assert_eq!(
            ids(
                json!([user, call("a"), result("a")]),
                json!([user, bare, result("a")])
            ),
            vec![NO_NEW_WIRE_DAMAGE],
            "the call pruned, its result kept"
        );
        assert_eq!(
            ids(json!([user, result("z")]), json!([user, result("z")])),
            Vec::<Invariant>::new(),
            "an orphan the input had"
        );
        let empty = json!({"role": "user", "content": []});
        assert_eq!(
            ids(
                json!([call("a"), result("a"), empty, result("a")]),
                json!([call("a"), result("a"), result("a")])
            ),
            Vec::<Invariant>::new(),
            "the input's second result for a, no longer apart"
        );
    }
}
