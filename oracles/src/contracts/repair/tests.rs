use super::*;
use serde_json::{Value, json};

use crate::invariants::evidence;
use crate::js_value::borrow_all;

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
    let judged = check(&run);
    let (input, output) = (borrow_all(&input), borrow_all(&output));
    let borrowed = RepairRun {
        format,
        input: &input,
        output: &output,
        again: &output,
        marker: Some("[syn]"),
    };
    assert_eq!(
        check(&borrowed),
        judged,
        "the same judgement of borrowed messages"
    );
    judged
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
    assert!(kept(user(json!("")), user(json!([part("[filled]")]))));
    assert!(kept(user(json!("")), user(json!([]))));
    assert!(!kept(
        user(json!("")),
        json!({"role": "user", "content": "[filled]", "name": "n"})
    ));
    assert!(
        !kept(
            json!({"role": "user", "content": "x", "name": ""}),
            json!({"role": "user", "content": "x", "name": "[filled]"})
        ),
        "only the text is filled in"
    );
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
    assert!(kept(user(json!([part("")])), user(Value::Null)));
    assert!(!kept(user(json!([part("x")])), user(Value::Null)));
    assert!(
        kept(user(Value::Null), user(json!(""))),
        "a null content is no text, as a blank one is"
    );
    assert!(kept(user(Value::Null), user(json!("[filled]"))));
    assert!(kept(user(Value::Null), user(json!([]))));
    assert!(!kept(user(Value::Null), user(json!(1))));
    assert!(!kept(
        user(Value::Null),
        user(json!([{"type": "image", "text": ""}]))
    ));
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

/// A string content is shorthand for one text part: an Anthropic repair that writes its synthetic
/// result first into the user message after the call (where the API wants it) writes that
/// message's text as a part, and keeps it. Only a part that is that text and nothing else is it.
#[test]
fn a_string_content_written_as_its_one_text_part_is_kept() {
    let part = |text: &str| json!({"type": "text", "text": text});
    let call = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "bash", "input": {}}]});
    let synthetic = json!({"type": "tool_result", "tool_use_id": "a", "content": "[syn] none"});
    let repaired = |text: Value| {
        ids(
            Format::Anthropic,
            json!([call, {"role": "user", "content": "wait, also check tests"}]),
            json!([call, {"role": "user", "content": [synthetic, text]}]),
        )
    };
    assert_eq!(repaired(part("wait, also check tests")), vec![]);
    assert_eq!(
        repaired(part("wait")),
        vec![(KEEPS_OTHER_MESSAGES, true)],
        "its text changed"
    );
    assert_eq!(
        repaired(json!({"type": "text", "text": "wait, also check tests",
            "cache_control": {"type": "ephemeral"}})),
        vec![(KEEPS_OTHER_MESSAGES, true)],
        "a part with more than its text is another part"
    );
    let kept = |input: Value, output: Value| {
        ids(
            Format::OpenAi,
            json!([{"role": "user", "content": input}]),
            json!([{"role": "user", "content": output}]),
        )
        .is_empty()
    };
    assert!(kept(json!("x"), json!([part("x")])));
    assert!(kept(json!([part("x")]), json!("x")), "and the other way");
    assert!(kept(json!([part(""), part("x")]), json!("x")));
    assert!(!kept(json!("x"), json!([part("x"), part("x")])));
    assert!(!kept(json!([part("x"), part("y")]), json!("xy")));
    assert!(
        !kept(json!("x"), json!([{"text": "x"}])),
        "an untyped part is Gemini's"
    );
    assert!(!kept(
        json!("x"),
        json!([{"type": "input_text", "text": "x"}])
    ));
}

/// An empty `tool_calls` list (which OpenAI refuses) may be left out; a list with a call may not,
/// and the other fields stay. Carried as it is, the list is the input's damage: unpreventable;
/// made empty by the repair, it is charged twice.
#[test]
fn an_empty_tool_calls_list_may_be_left_out_and_only_a_carried_one_is_excused() {
    let assistant = |calls: Option<Value>| {
        let mut message = json!({"role": "assistant", "content": "ok"});
        if let Some(calls) = calls {
            message["tool_calls"] = calls;
        }
        message
    };
    let call = json!({"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}});
    let result = json!({"role": "tool", "tool_call_id": "a", "content": "1"});
    let judged = |input: Value, output: Value| ids(Format::OpenAi, input, output);
    let empty = assistant(Some(json!([])));
    assert_eq!(judged(json!([empty]), json!([assistant(None)])), vec![]);
    assert_eq!(
        judged(json!([empty]), json!([empty])),
        vec![(WIRE_VALID, false)],
        "carried"
    );
    assert_eq!(
        judged(
            json!([empty]),
            json!([{"role": "assistant", "tool_calls": []}])
        ),
        vec![(WIRE_VALID, true), (KEEPS_OTHER_MESSAGES, true)],
        "its content lost with it"
    );
    let called = assistant(Some(json!([call])));
    assert_eq!(
        judged(json!([called, result]), json!([assistant(None)])),
        vec![(KEEPS_OTHER_MESSAGES, true)],
        "a list with a call is no empty one"
    );
    assert_eq!(
        judged(json!([called, result]), json!([empty])),
        vec![(WIRE_VALID, true), (KEEPS_OTHER_MESSAGES, true)],
        "emptied by the repair"
    );
    assert_eq!(
        judged(
            json!([{"role": "assistant", "content": "ok", "tool_calls": [], "name": "n"}]),
            json!([{"role": "assistant", "content": "ok", "tool_calls": []}])
        ),
        vec![(WIRE_VALID, true), (KEEPS_OTHER_MESSAGES, true)],
        "another field left out: a message the repair changed is no longer the input's"
    );
    assert_eq!(
        judged(
            json!([{"role": "assistant", "content": "ok", "tool_calls": [], "name": "n"}]),
            json!([{"role": "assistant", "content": "ok", "name": "m"}])
        ),
        vec![(KEEPS_OTHER_MESSAGES, true)],
        "another field changed"
    );
    assert_eq!(
        judged(
            json!([{"role": "assistant", "content": "ok", "tool_calls": [], "name": "n"}]),
            json!([{"role": "assistant", "content": "ok", "nick": "n"}])
        ),
        vec![(KEEPS_OTHER_MESSAGES, true)],
        "another field renamed as the list is left out"
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
    // The first finding's summary and evidence.
    let finding = |input: Value, output: Value| {
        let found = check(&RepairRun {
            format: Format::OpenAi,
            input: input.as_array().unwrap(),
            output: output.as_array().unwrap(),
            again: output.as_array().unwrap(),
            marker: None,
        });
        (found[0].summary.clone(), evidence::json(&found[0]))
    };
    let kind = |input: Value, output: Value| finding(input, output).1["kind"].clone();
    let (x, y, z) = (
        json!({"role": "user", "content": "x"}),
        json!({"role": "user", "content": "y"}),
        json!({"role": "user", "content": "z"}),
    );
    assert_eq!(kind(json!([x]), json!([x, x])), "changed or added");
    assert_eq!(kind(json!([x, x]), json!([x])), "lost");
    assert_eq!(kind(json!([x, y]), json!([y, x])), "reordered");
    assert_eq!(kind(json!([x, y]), json!([y])), "lost");
    assert_eq!(kind(json!([x]), json!([y, x])), "changed or added");
    // A copy kept before the first difference is the copy it was paired with there, not the one
    // lost: the second `x` is lost, not moved (a lossy repairer once read as reordering).
    assert_eq!(kind(json!([x, y, x, y]), json!([x, y, y])), "lost");
    assert_eq!(
        kind(json!([x, y, y]), json!([x, y, x, y])),
        "changed or added"
    );
    // Neither side the other with some left out: the first place they differ says it. A message
    // changed in place is lost (nothing after keeps it); one put before a kept one, the last
    // dropped, is changed or added.
    assert_eq!(kind(json!([x, y]), json!([x, z])), "lost");
    assert_eq!(kind(json!([x, y]), json!([z, x])), "changed or added");
    // A message left out before a copy of it, the others kept in order, is lost; one put in
    // before its original is added. Neither is reordering (the lossy repairer of
    // examples/js/lossy.mjs, on a user's message typed twice).
    let (summary, evidence) = finding(json!([x, y, x]), json!([y, x]));
    assert_eq!(
        summary,
        "a message that is not a tool result was lost (number 1 of them)"
    );
    assert_eq!(
        evidence,
        json!({"kind": "lost", "position": 0, "message": {"input_message": 0, "value": x}})
    );
    let (summary, evidence) = finding(json!([y, x]), json!([x, y, x]));
    assert_eq!(
        summary,
        "a message that is not a tool result was changed or added (number 1 of them)"
    );
    assert_eq!(
        evidence,
        json!({"kind": "changed or added", "position": 0, "message": {"output_message": 0, "value": x}})
    );
    // The first left out, where more than one could be: the others pair in order from the first.
    let (_, evidence) = finding(json!([x, y, y, x]), json!([y, x]));
    assert_eq!(
        evidence,
        json!({"kind": "lost", "position": 0, "message": {"input_message": 0, "value": x}})
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
    let idless_call =
        json!({"role": "assistant", "content": null, "tool_calls": [{"function": {"name": "f"}}]});
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

/// A pi call id the input repeats is excused with the repair contract's reason (a repair may not
/// change calls), counted on the ids as pi sends them; not only with pi's own "the input reuses".
#[test]
fn a_pi_call_id_the_input_repeats_is_excused_with_the_repair_contract_s_reason() {
    let call = json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a|1", "name": "f", "arguments": {}}], "stopReason": "toolUse"});
    let input = vec![call.clone(), call];
    let run = RepairRun {
        format: Format::Pi,
        input: &input,
        output: &input,
        again: &input,
        marker: Some("[syn]"),
    };
    let causes: Vec<Cause> = check(&run).into_iter().map(|v| v.cause).collect();
    let repeated = Cause::Unpreventable(
        "the input repeats this call id among its calls, and a repair may not change calls",
    );
    assert_eq!(causes, vec![repeated.clone(), repeated]);
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
/// pi drops an assistant message that stopped on an error or an abort whole: a result for one of
/// its calls is an orphan on the wire. A repair that drops it keeps the message and loses no
/// real result; one that keeps it, or answers the call, leaves the request refused.
#[test]
fn a_call_of_a_pi_assistant_turn_that_pi_never_sends_is_no_call() {
    let user = json!({"role": "user", "content": "go", "timestamp": 1});
    let aborted = json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f", "arguments": {}}], "stopReason": "aborted"});
    let result = json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": [], "isError": false});
    let synthetic = json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": [{"type": "text", "text": "[syn]"}], "isError": true});
    let input = json!([user, aborted, result]);
    assert_eq!(
        ids(Format::Pi, input.clone(), json!([user, aborted])),
        vec![]
    );
    // An orphan, as the input has it (Anthropic also merges it into the user's message before).
    let only_orphaned = |output: Value| {
        let judged = ids(Format::Pi, input.clone(), output);
        !judged.is_empty() && judged.iter().all(|&v| v == (WIRE_VALID, true))
    };
    assert!(only_orphaned(input.clone()));
    assert!(
        only_orphaned(json!([user, aborted, synthetic])),
        "an answer to a call pi never sends is no extra result but an orphan"
    );
}

/// Gemini refuses a turn of calls that is first or follows another model turn: no repair's doing
/// where the input has no user's message right before it (stray results there must go); made by
/// dropping the user's message, charged.
#[test]
fn a_gemini_turn_of_calls_after_another_model_turn_is_excused_only_as_the_input_has_it() {
    let user = |text: &str| json!({"role": "user", "parts": [{"text": text}]});
    let said = json!({"role": "model", "parts": [{"text": "looking"}]});
    let calls =
        json!({"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {}}}]});
    let answer = json!({"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "f", "response": {}}}]});
    let carried = json!([user("go"), said, calls, answer]);
    assert_eq!(
        wire_charges(Format::Gemini, carried.clone(), carried),
        vec![false]
    );
    let steered = json!([user("go"), said, user("wait"), calls, answer]);
    assert_eq!(
        wire_charges(
            Format::Gemini,
            steered,
            json!([user("go"), said, calls, answer])
        ),
        vec![true],
        "the repair dropped the user's message before the calls"
    );
    let stray = json!({"role": "user", "parts": [{"functionResponse": {"id": "z", "name": "f", "response": {}}}]});
    assert_eq!(
        wire_charges(
            Format::Gemini,
            json!([stray, calls, answer]),
            json!([calls, answer])
        ),
        vec![false],
        "the stray result before the calls had to go"
    );
    let again = json!([user("go"), calls, answer, said, calls]);
    assert_eq!(
        wire_charges(Format::Gemini, again.clone(), again),
        vec![false, true],
        "a repeated id: the turn after the model's is excused, its missing result is not"
    );
}

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

/// Anthropic refuses an empty message: one the input has as it is is no repair's doing; one the
/// repair left empty, by taking its stray results out and keeping it, is charged.
#[test]
fn an_empty_message_is_charged_only_where_the_repair_left_it_empty() {
    let user = |content: Value| json!({"role": "user", "content": content});
    let said = json!({"role": "assistant", "content": "ok"});
    let carried = json!([user(json!("")), said, user(json!("more"))]);
    assert_eq!(
        wire_charges(Format::Anthropic, carried.clone(), carried),
        vec![false],
        "carried as the input has it"
    );
    let stray = json!([{"type": "tool_result", "tool_use_id": "z", "content": "1"}]);
    let input = json!([
        user(json!("go")),
        said,
        user(stray),
        said,
        user(json!("more"))
    ]);
    let left_empty = json!([
        user(json!("go")),
        said,
        user(json!([])),
        said,
        user(json!("more"))
    ]);
    assert_eq!(
        wire_charges(Format::Anthropic, input.clone(), left_empty),
        vec![true],
        "its stray result taken out, the message kept empty"
    );
    let left_out = json!([user(json!("go")), said, said, user(json!("more"))]);
    assert_eq!(
        wire_charges(Format::Anthropic, input, left_out),
        Vec::<bool>::new()
    );
}
