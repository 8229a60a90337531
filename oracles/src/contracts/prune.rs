//! The prune contract: `{"messages": [...]}` in, `{"messages": [...]}` out, in the program's
//! format. A pruner (the AI SDK's `pruneMessages`) removes what the contract names: tool calls,
//! tool results and reasoning, and messages that hold nothing else (left empty by that removal,
//! or empty already). It does not repair: it adds nothing, and damage the input already had may
//! stay. A user's, an assistant's or a system's text (and an image, anything the contract does
//! not name) is never lost.
//!
//! What the contract names, per format ([`removable_part`], [`removable_field`]): content parts
//! that are calls, results or reasoning (pi `toolCall`, `thinking`; Anthropic `tool_use`,
//! `tool_result`, `thinking`, `redacted_thinking`; Gemini `functionCall`, `functionResponse`, a
//! `thought` part; AI SDK `tool-call`, `tool-result`, the tool approval parts, `reasoning`;
//! LangChain `tool_call`, `tool_use`, `thinking`, `reasoning`), the fields that hold calls or
//! reasoning outside the content (chat completions' `tool_calls` and `reasoning_content`,
//! LangChain's `tool_calls`), and messages that are only results (a `tool` message, pi's
//! `toolResult`).
//!
//! Each invariant's promise is its constant's statement (what `ctxfuzz explain` and the docs show);
//! here is how each is judged.
//!
//! - [`ONLY_REMOVES`]: the notice (with `--marker`) is ONE message that is no input message and
//!   carries the marker ("Skipped N messages."), judged like a repair's synthetic result. It hides
//!   no loss: every input message missing around it must still be one the contract lets go, so a
//!   notice never stands in for a user's text.
//! - [`NO_NEW_WIRE_DAMAGE`]: the rules are [`crate::formats::wire`]'s; a call is never pruned
//!   without its result, nor a result without its call. Damage the input had may change its shape
//!   (two results for one call, apart in the input, side by side once an empty message between
//!   them is removed): it is not new. A notice is a message like any other here: between a call
//!   and its results it is damage.

use foldhash::HashSet;
use serde_json::{Value, json};

use super::carries_marker;
use crate::formats::{Entry, Format, wire};
use crate::invariants::{Cause, Invariant, Violation};
use crate::wire::WireRule;

pub const ONLY_REMOVES: Invariant = Invariant {
    id: "prune-only-removes",
    statement: "every output message is an input message, in order, with calls, results or \
                reasoning removed and its other fields as they were; a missing input message held \
                nothing else; the only message added is one marked notice",
};
pub const NO_NEW_WIRE_DAMAGE: Invariant = Invariant {
    id: "prune-no-new-wire-damage",
    statement: "the output breaks no provider rule of its format for a call the input kept every \
                rule for (without a call id: no rule the input kept)",
};

/// Every prune invariant.
pub const INVARIANTS: &[Invariant] = &[ONLY_REMOVES, NO_NEW_WIRE_DAMAGE];

/// Judges one pruning: `output` as the program answered `input`; `marker` is the text the
/// pruner's notice carries, if it adds one.
pub fn check(
    format: Format,
    input: &[Value],
    output: &[Value],
    marker: Option<&str>,
) -> Vec<Violation> {
    judge(format, input, output, marker, &PRUNE)
}

/// A contract of a rewriter that only removes: what may go, and the ids its findings carry.
pub(super) struct Removal {
    /// Whether whole messages of any kind may go (a trimmer, [`super::trim`]), or only calls,
    /// results and reasoning and the messages they leave empty (a pruner).
    pub(super) whole_messages: bool,
    pub(super) only_removes: Invariant,
    pub(super) no_new_wire_damage: Invariant,
}

const PRUNE: Removal = Removal {
    whole_messages: false,
    only_removes: ONLY_REMOVES,
    no_new_wire_damage: NO_NEW_WIRE_DAMAGE,
};

/// Judges one removal under `removal`: `output` as the program answered `input`.
pub(super) fn judge(
    format: Format,
    input: &[Value],
    output: &[Value],
    marker: Option<&str>,
    removal: &Removal,
) -> Vec<Violation> {
    let view = format.view(input);
    let may_go: Vec<bool> = view
        .iter()
        .map(|e| removal.whole_messages || holds_nothing_kept(format, e))
        .collect();
    let mut found: Vec<Violation> =
        not_pruned(format, input, &may_go, output, marker, removal.only_removes)
            .into_iter()
            .collect();
    let damaged = |v: &wire::WireViolation| match &v.id {
        Some(id) => Damage::Call(id.clone()),
        None => Damage::Rule(v.rule),
    };
    let before: HashSet<Damage> = wire::validate(format, &view).iter().map(damaged).collect();
    for v in wire::validate(format, &format.view(output)) {
        if before.contains(&damaged(&v)) {
            continue;
        }
        found.push(Violation {
            invariant: removal.no_new_wire_damage,
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

/// Where the output stops being the input pruned: an output message that is not the next input
/// message it could be (past only messages that may go) with what the contract names removed, and
/// not the one notice; or an input message the output lost that held more than that.
fn not_pruned(
    format: Format,
    input: &[Value],
    may_go: &[bool],
    output: &[Value],
    marker: Option<&str>,
    invariant: Invariant,
) -> Option<Violation> {
    let violation = |summary: String, evidence: Value| Violation {
        invariant,
        cause: Cause::SystemUnderTest,
        summary,
        evidence,
    };
    let mut notice = marker;
    let mut next = 0;
    for (at, message) in output.iter().enumerate() {
        let stop =
            (next..input.len()).find(|&i| pruned_from(format, &input[i], message) || !may_go[i]);
        match stop {
            Some(i) if pruned_from(format, &input[i], message) => next = i + 1,
            _ if notice.is_some_and(|marker| carries_marker(message, marker)) => notice = None,
            Some(i) => {
                return Some(violation(
                    format!(
                        "output message {at} is not input message {i} pruned, and input message \
                         {i} holds more than calls, results and reasoning (lost or changed)"
                    ),
                    json!({"output_message": at, "value": message, "input_message": i, "input": input[i]}),
                ));
            }
            None => {
                return Some(violation(
                    format!(
                        "output message {at} is no later input message pruned (added, changed or out of order)"
                    ),
                    json!({"output_message": at, "value": message}),
                ));
            }
        }
    }
    let lost = (next..input.len()).find(|&i| !may_go[i])?;
    Some(violation(
        format!("input message {lost} holds more than calls, results and reasoning, and is lost"),
        json!({"input_message": lost, "input": input[lost]}),
    ))
}

/// Whether the contract lets a pruner remove the message `entry` views whole: it is only results,
/// or what is left of it holds no content but calls and reasoning (an empty list, `""`, `null`).
/// A message without a content field holds something: pi's bash runs and summaries keep their
/// text in other fields; in every other format, the content field is where a message's text is.
fn holds_nothing_kept(format: Format, entry: &Entry) -> bool {
    let Some(rest) = &entry.rest else {
        return true;
    };
    match rest.get(content_key(format)) {
        None => format != Format::Pi,
        Some(Value::Array(parts)) => parts.iter().all(|part| removable_part(format, part)),
        Some(content) => content.is_null() || content == "",
    }
}

/// The field that holds a message's content parts.
fn content_key(format: Format) -> &'static str {
    match format {
        Format::Gemini => "parts",
        _ => "content",
    }
}

/// Whether `part`, a content part of a message of `format`, is one the contract lets a pruner
/// remove: a tool call, a tool result or reasoning.
fn removable_part(format: Format, part: &Value) -> bool {
    let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
    match format {
        Format::Pi => matches!(kind, "toolCall" | "thinking"),
        Format::OpenAi => false,
        Format::Anthropic => matches!(
            kind,
            "tool_use" | "tool_result" | "thinking" | "redacted_thinking"
        ),
        Format::Gemini => {
            ["functionCall", "functionResponse"]
                .iter()
                .any(|key| part.get(key).is_some())
                || part.get("thought") == Some(&Value::Bool(true))
        }
        Format::AiSdk => matches!(
            kind,
            "tool-call"
                | "tool-result"
                | "tool-approval-request"
                | "tool-approval-response"
                | "reasoning"
        ),
        Format::LangChain => matches!(kind, "tool_call" | "tool_use" | "thinking" | "reasoning"),
    }
}

/// Whether the field `key` of a message of `format` holds only calls or reasoning.
fn removable_field(format: Format, key: &str) -> bool {
    match format {
        Format::OpenAi => matches!(key, "tool_calls" | "reasoning_content"),
        Format::LangChain => key == "tool_calls",
        _ => false,
    }
}

/// Whether `pruned` is `original` with some of what the contract names removed (or unchanged):
/// removable content parts and removable fields (or items of them), every other field as it was.
fn pruned_from(format: Format, original: &Value, pruned: &Value) -> bool {
    let (Some(original), Some(pruned)) = (original.as_object(), pruned.as_object()) else {
        return original == pruned;
    };
    let content = content_key(format);
    pruned.keys().all(|key| original.contains_key(key))
        && original.iter().all(|(key, value)| match pruned.get(key) {
            Some(kept) if key == content => {
                items_removed(value, kept, |part| removable_part(format, part))
            }
            Some(kept) if removable_field(format, key) => items_removed(value, kept, |_| true),
            Some(kept) => kept == value,
            None => removable_field(format, key),
        })
}

/// Whether `kept` is `value`, or (both lists) `value` with some items `removable` allows removed.
fn items_removed(value: &Value, kept: &Value, removable: impl Fn(&Value) -> bool) -> bool {
    let (Value::Array(items), Value::Array(kept)) = (value, kept) else {
        return value == kept;
    };
    let mut items = items.iter();
    kept.iter().all(|part| {
        items
            .by_ref()
            .find(|&item| item == part || !removable(item))
            == Some(part)
    }) && items.all(removable)
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
        marked(None, input, output)
    }

    /// The invariants an AI SDK pruning breaks, with `marker` as its notice's marker.
    fn marked(marker: Option<&str>, input: Value, output: Value) -> Vec<Invariant> {
        in_format(Format::AiSdk, marker, input, output)
    }

    fn in_format(
        format: Format,
        marker: Option<&str>,
        input: Value,
        output: Value,
    ) -> Vec<Invariant> {
        check(
            format,
            input.as_array().unwrap(),
            output.as_array().unwrap(),
            marker,
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

    #[test]
    fn a_message_with_text_is_never_dropped() {
        let (first, last) = (
            json!({"role": "user", "content": "first"}),
            json!({"role": "user", "content": "last"}),
        );
        assert_eq!(
            ids(json!([first, call("a"), result("a"), last]), json!([first])),
            vec![ONLY_REMOVES],
            "the last user message"
        );
        let found = check(
            Format::AiSdk,
            json!([first, call("a"), result("a"), last])
                .as_array()
                .unwrap(),
            json!([last]).as_array().unwrap(),
            None,
        );
        assert_eq!(found[0].evidence["input_message"], 0, "the first");
        assert_eq!(found[0].evidence["output_message"], 0);
        let lost = check(
            Format::AiSdk,
            json!([first, last]).as_array().unwrap(),
            json!([first]).as_array().unwrap(),
            None,
        );
        assert_eq!(lost[0].evidence["input_message"], 1);
    }

    #[test]
    fn a_field_is_never_added() {
        let mut named = json!({"role": "user", "content": "go"});
        let input = json!([named]);
        named["name"] = json!("bob");
        assert_eq!(ids(input, json!([named])), vec![ONLY_REMOVES]);
        let tagged = json!({"role": "user", "content": "go", "tags": [1, 2]});
        assert_eq!(
            ids(
                json!([tagged]),
                json!([{"role": "user", "content": "go", "tags": [1]}])
            ),
            vec![ONLY_REMOVES],
            "a list the contract does not name is kept whole"
        );
    }

    #[test]
    fn text_before_or_after_kept_parts_is_never_removed() {
        let message = |parts: Value| json!([{"role": "assistant", "content": parts}]);
        let (text, reasoning) = (
            json!({"type": "text", "text": "t"}),
            json!({"type": "reasoning", "text": "r"}),
        );
        assert_eq!(
            ids(
                message(json!([text, reasoning])),
                message(json!([reasoning]))
            ),
            vec![ONLY_REMOVES]
        );
        assert_eq!(
            ids(
                message(json!([reasoning, text])),
                message(json!([reasoning]))
            ),
            vec![ONLY_REMOVES]
        );
        assert_eq!(
            ids(message(json!([reasoning, text])), message(json!([text]))),
            Vec::<Invariant>::new()
        );
    }

    /// Per format: a message with text, reasoning and a call; the ways of pruning it (each clean);
    /// the same message without its text, which may go whole.
    fn formats() -> Vec<(Format, Value, Vec<Value>, Value)> {
        vec![
            (
                Format::Pi,
                json!({"role": "assistant", "content": [{"type": "text", "text": "t"}, {"type": "thinking", "thinking": "r"}, {"type": "toolCall", "id": "a", "name": "f", "arguments": {}}]}),
                vec![
                    json!({"role": "assistant", "content": [{"type": "text", "text": "t"}, {"type": "toolCall", "id": "a", "name": "f", "arguments": {}}]}),
                    json!({"role": "assistant", "content": [{"type": "text", "text": "t"}]}),
                ],
                json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "r"}]}),
            ),
            (
                Format::OpenAi,
                json!({"role": "assistant", "content": "t", "reasoning_content": "r", "tool_calls": [{"id": "a", "function": {"name": "f"}}, {"id": "b", "function": {"name": "f"}}]}),
                vec![
                    json!({"role": "assistant", "content": "t", "tool_calls": [{"id": "a", "function": {"name": "f"}}, {"id": "b", "function": {"name": "f"}}]}),
                    json!({"role": "assistant", "content": "t", "reasoning_content": "r", "tool_calls": [{"id": "b", "function": {"name": "f"}}]}),
                    json!({"role": "assistant", "content": "t"}),
                ],
                json!({"role": "assistant", "content": null, "reasoning_content": "r"}),
            ),
            (
                Format::Anthropic,
                json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "r"}, {"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "t"}, {"type": "tool_use", "id": "a", "name": "f", "input": {}}]}),
                vec![json!({"role": "assistant", "content": [{"type": "text", "text": "t"}]})],
                json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "r"}, {"type": "redacted_thinking", "data": "x"}]}),
            ),
            (
                Format::Gemini,
                json!({"role": "model", "parts": [{"text": "r", "thought": true}, {"text": "t"}, {"functionCall": {"id": "a", "name": "f", "args": {}}}]}),
                vec![
                    json!({"role": "model", "parts": [{"text": "t"}, {"functionCall": {"id": "a", "name": "f", "args": {}}}]}),
                    json!({"role": "model", "parts": [{"text": "r", "thought": true}, {"text": "t"}]}),
                ],
                json!({"role": "model", "parts": [{"text": "r", "thought": true}, {"functionCall": {"id": "a", "name": "f", "args": {}}}]}),
            ),
            (
                Format::AiSdk,
                json!({"role": "assistant", "content": [{"type": "reasoning", "text": "r"}, {"type": "text", "text": "t"}, {"type": "tool-call", "toolCallId": "a", "toolName": "f", "input": {}}, {"type": "tool-approval-request", "approvalId": "x", "toolCallId": "a"}]}),
                vec![json!({"role": "assistant", "content": [{"type": "text", "text": "t"}]})],
                json!({"role": "assistant", "content": []}),
            ),
            (
                Format::LangChain,
                json!({"type": "ai", "content": [{"type": "thinking", "thinking": "r"}, {"type": "text", "text": "t"}], "tool_calls": [{"id": "a", "name": "f", "args": {}}]}),
                vec![
                    json!({"type": "ai", "content": [{"type": "text", "text": "t"}], "tool_calls": []}),
                    json!({"type": "ai", "content": [{"type": "text", "text": "t"}]}),
                ],
                json!({"type": "ai", "content": "", "tool_calls": [{"id": "a", "name": "f", "args": {}}]}),
            ),
        ]
    }

    #[test]
    fn in_every_format_calls_results_and_reasoning_may_go_and_text_stays() {
        let only_removes = |format, input: Value, output: Value| {
            in_format(format, None, input, output).contains(&ONLY_REMOVES)
        };
        for (format, full, pruned, bare) in formats() {
            for output in pruned {
                assert!(
                    !only_removes(format, json!([full]), json!([output])),
                    "{format}: {output}"
                );
            }
            assert!(
                only_removes(format, json!([full]), json!([])),
                "{format}: dropped"
            );
            assert!(
                only_removes(format, json!([full]), json!([bare])),
                "{format}: its text removed"
            );
            assert!(
                !only_removes(format, json!([bare]), json!([])),
                "{format}: {bare} holds nothing kept"
            );
        }
    }

    #[test]
    fn results_in_a_user_message_may_go_and_its_text_stays() {
        let user = |parts: Value| json!([{"role": "user", "content": parts}]);
        let text = json!({"type": "text", "text": "t"});
        let result = json!({"type": "tool_result", "tool_use_id": "a", "content": "1"});
        let ids = |input, output| in_format(Format::Anthropic, None, input, output);
        assert_eq!(
            ids(user(json!([result, text])), user(json!([text]))),
            Vec::<Invariant>::new()
        );
        assert_eq!(
            ids(user(json!([result])), json!([])),
            Vec::<Invariant>::new()
        );
        let text = json!({"text": "t"});
        let response = json!({"functionResponse": {"id": "a", "name": "f", "response": {}}});
        let ids = |input, output| in_format(Format::Gemini, None, input, output);
        assert_eq!(
            ids(
                json!([{"role": "user", "parts": [response, text]}]),
                json!([{"role": "user", "parts": [text]}])
            ),
            Vec::<Invariant>::new()
        );
        assert_eq!(
            ids(json!([{"role": "user", "parts": [text]}]), json!([])),
            vec![ONLY_REMOVES]
        );
    }

    #[test]
    fn a_message_without_content_holds_something_only_in_pi() {
        let bash = json!({"role": "bashExecution", "command": "ls", "output": "x", "exitCode": 0});
        assert_eq!(
            in_format(Format::Pi, None, json!([bash]), json!([])),
            vec![ONLY_REMOVES],
            "a bash run's text is in other fields"
        );
        let calls =
            json!({"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f"}}]});
        assert!(
            !in_format(Format::OpenAi, None, json!([calls]), json!([])).contains(&ONLY_REMOVES)
        );
    }

    #[test]
    fn one_marked_notice_may_be_added_and_hides_no_loss() {
        let marker = Some("[notice]");
        let (a, b) = (
            json!({"role": "user", "content": "a"}),
            json!({"role": "user", "content": "b"}),
        );
        let notice = json!({"role": "system", "content": "[notice] Skipped 2 messages."});
        let input = json!([a, call("x"), result("x"), b]);
        assert_eq!(
            marked(marker, input.clone(), json!([a, notice, b])),
            Vec::<Invariant>::new()
        );
        assert_eq!(
            marked(None, input.clone(), json!([a, notice, b])),
            vec![ONLY_REMOVES],
            "no marker, no notice"
        );
        assert_eq!(
            marked(
                marker,
                input.clone(),
                json!([a, {"role": "system", "content": "Skipped."}, b])
            ),
            vec![ONLY_REMOVES],
            "a notice without the marker"
        );
        assert_eq!(
            marked(marker, input.clone(), json!([notice, a, notice, b])),
            vec![ONLY_REMOVES],
            "two notices"
        );
        assert_eq!(
            marked(marker, input, json!([notice, b])),
            vec![ONLY_REMOVES],
            "a user's text lost behind the notice"
        );
        assert_eq!(
            marked(marker, json!([notice, a]), json!([notice, a])),
            Vec::<Invariant>::new(),
            "the notice of an earlier pruning is an input message"
        );
    }
}
