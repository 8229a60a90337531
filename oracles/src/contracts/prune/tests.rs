use super::*;
use serde_json::{Value, json};

use crate::invariants::evidence;
use crate::js_value::borrow_all;

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

fn in_format(format: Format, marker: Option<&str>, input: Value, output: Value) -> Vec<Invariant> {
    let (input, output) = (input.as_array().unwrap(), output.as_array().unwrap());
    let judged = PRUNE.check(format, input, output, marker);
    let borrowed = PRUNE.check(format, &borrow_all(input), &borrow_all(output), marker);
    assert_eq!(borrowed, judged, "the same judgement of borrowed messages");
    judged.iter().map(|v| v.invariant).collect()
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
    // Gemini refuses a history that starts with calls, for every call of that turn: pruning the
    // unanswered first one leaves the second's damage as the input had it.
    let gemini_call = |id: &str| json!({"functionCall": {"id": id, "name": "f", "args": {}}});
    let answer = json!({"role": "user", "parts": [{"functionResponse": {"id": "b", "name": "f", "response": {}}}]});
    assert_eq!(
        in_format(
            Format::Gemini,
            None,
            json!([{"role": "model", "parts": [gemini_call("a"), gemini_call("b")]}, answer]),
            json!([{"role": "model", "parts": [gemini_call("b")]}, answer])
        ),
        Vec::<Invariant>::new(),
        "the input's call turn first in the history"
    );
}

/// A chat completions pruner that removes an assistant's last call but leaves its `tool_calls` list
/// empty makes a request OpenAI refuses (`empty_array`); leaving the list out does not.
#[test]
fn an_emptied_tool_calls_list_is_new_wire_damage() {
    let user = json!({"role": "user", "content": "go"});
    let called = json!({"role": "assistant", "content": "ok", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]});
    let result = json!({"role": "tool", "tool_call_id": "a", "content": "1"});
    let pruned = |calls: Option<Value>| {
        let mut message = json!({"role": "assistant", "content": "ok"});
        if let Some(calls) = calls {
            message["tool_calls"] = calls;
        }
        in_format(
            Format::OpenAi,
            None,
            json!([user, called, result]),
            json!([user, message]),
        )
    };
    assert_eq!(pruned(None), Vec::<Invariant>::new());
    assert_eq!(pruned(Some(json!([]))), vec![NO_NEW_WIRE_DAMAGE]);
    let empty = json!({"role": "assistant", "content": "ok", "tool_calls": []});
    assert_eq!(
        in_format(
            Format::OpenAi,
            None,
            json!([user, empty]),
            json!([user, empty])
        ),
        Vec::<Invariant>::new(),
        "the input's own empty list"
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
    let found = PRUNE.check(
        Format::AiSdk,
        json!([first, call("a"), result("a"), last])
            .as_array()
            .unwrap(),
        json!([last]).as_array().unwrap(),
        None,
    );
    assert_eq!(evidence::json(&found[0])["input_message"], 0, "the first");
    assert_eq!(evidence::json(&found[0])["output_message"], 0);
    let lost = PRUNE.check(
        Format::AiSdk,
        json!([first, last]).as_array().unwrap(),
        json!([first]).as_array().unwrap(),
        None,
    );
    assert_eq!(evidence::json(&lost[0])["input_message"], 1);
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
    assert!(!in_format(Format::OpenAi, None, json!([calls]), json!([])).contains(&ONLY_REMOVES));
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

/// Anthropic refuses an empty message but for a final assistant one: a pruner that empties a
/// message and keeps it damages the request; an empty message the input has may stay.
#[test]
fn a_message_the_pruning_emptied_and_kept_is_new_damage_where_anthropic_refuses_it() {
    let user = |content: Value| json!({"role": "user", "content": content});
    let assistant = |content: Value| json!({"role": "assistant", "content": content});
    let call = json!({"type": "tool_use", "id": "a", "name": "f", "input": {}});
    let answer = json!({"type": "tool_result", "tool_use_id": "a", "content": "1"});
    let input = json!([
        user(json!("go")),
        assistant(json!([{"type": "thinking", "thinking": "hm", "signature": "s"}, call])),
        user(json!([answer])),
        assistant(json!("done")),
        user(json!("")),
        assistant(json!([]))
    ]);
    let judged = |output: Value| in_format(Format::Anthropic, None, input.clone(), output);
    assert_eq!(
        judged(json!([
            user(json!("go")),
            assistant(json!([])),
            user(json!([])),
            assistant(json!("done")),
            user(json!("")),
            assistant(json!([]))
        ])),
        vec![NO_NEW_WIRE_DAMAGE, NO_NEW_WIRE_DAMAGE],
        "both messages emptied and kept"
    );
    assert_eq!(
        judged(json!([
            user(json!("go")),
            assistant(json!("done")),
            user(json!("")),
            assistant(json!([]))
        ])),
        Vec::<Invariant>::new(),
        "the emptied ones left out; the input's empty user message and final assistant kept"
    );
}
