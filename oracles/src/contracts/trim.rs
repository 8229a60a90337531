//! The trim contract: `{"messages": [...]}` in, `{"messages": [...]}` out, in the program's
//! format. A trimmer fits a transcript into a window (LangChain's `trim_messages`, autogen's
//! buffered and head-and-tail contexts, llama-index's memory buffer): it keeps some messages, in
//! order, and drops the others whole, of any role. It is the prune contract
//! ([`super::prune`]) with whole messages allowed to go: what it keeps is each an input message,
//! unchanged but for calls, results and reasoning it may remove; it adds nothing but one marked
//! notice (`--marker`: "Skipped N messages."); and it leaves no provider-rule damage the input did
//! not have. Dropping a call and keeping its result is that damage (a `tool` message first in the
//! window is refused by every provider), and so is a notice between a call and its results.
//!
//! Which messages a window should keep (the latest, the system prompt, a whole turn) is each
//! package's own promise, not this contract's: a trimmer that keeps none is not charged here.

use super::prune::{self, Removal};
use crate::invariants::Invariant;

pub const ONLY_REMOVES: Invariant = Invariant {
    id: "trim-only-removes",
    statement: "every output message is an input message, in order, unchanged but for calls, \
                results or reasoning removed; the only message added is one marked notice",
};
/// The prune contract's promise, under the trim contract's id.
pub const NO_NEW_WIRE_DAMAGE: Invariant = Invariant {
    id: "trim-no-new-wire-damage",
    statement: prune::NO_NEW_WIRE_DAMAGE.statement,
};

/// Every trim invariant.
pub const INVARIANTS: &[Invariant] = &[ONLY_REMOVES, NO_NEW_WIRE_DAMAGE];

/// The trim contract.
pub const TRIM: Removal = Removal {
    whole_messages: true,
    only_removes: ONLY_REMOVES,
    no_new_wire_damage: NO_NEW_WIRE_DAMAGE,
};

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::formats::Format;
    use crate::invariants::Violation;

    fn ids(found: &[Violation]) -> Vec<&str> {
        found.iter().map(|v| v.invariant.id).collect()
    }

    fn user(text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn call(id: &str) -> Value {
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    }

    fn result(id: &str) -> Value {
        json!({"role": "tool", "tool_call_id": id, "content": "out"})
    }

    #[test]
    fn a_window_may_drop_whole_messages_of_any_role_but_keeps_what_it_keeps() {
        let input = [user("old"), call("a"), result("a"), user("new")];
        let window = [result("a"), user("new")];
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &input[3..], None)),
            [""; 0]
        );
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &input[1..], None)),
            [""; 0]
        );
        assert_eq!(ids(&TRIM.check(Format::OpenAi, &input, &[], None)), [""; 0]);
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &window, None)),
            ["trim-no-new-wire-damage"],
            "a result whose call was dropped"
        );
        let changed = [user("old!"), user("new")];
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &changed, None)),
            ["trim-only-removes"]
        );
        let reordered = [user("new"), user("old")];
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &reordered, None)),
            ["trim-only-removes"]
        );
    }

    #[test]
    fn one_marked_notice_may_be_added_and_only_one() {
        let input = [user("a"), user("b"), user("c")];
        let notice = json!({"role": "user", "content": "Skipped 1 messages."});
        let one = [user("a"), notice.clone(), user("c")];
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &one, Some("Skipped"))),
            [""; 0]
        );
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &one, None)),
            ["trim-only-removes"],
            "no notice without a marker"
        );
        let two = [notice.clone(), user("a"), notice];
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &two, Some("Skipped"))),
            ["trim-only-removes"]
        );
    }

    #[test]
    fn a_pruner_may_not_drop_what_a_trimmer_may() {
        let input = [user("old"), user("new")];
        assert_eq!(
            ids(&prune::PRUNE.check(Format::OpenAi, &input, &input[1..], None)),
            ["prune-only-removes"]
        );
        assert_eq!(
            ids(&TRIM.check(Format::OpenAi, &input, &input[1..], None)),
            [""; 0]
        );
    }
}
