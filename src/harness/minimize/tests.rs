use super::*;
use serde_json::json;

/// The failure: some result answers an id that an assistant called, with a `custom` message
/// somewhere between them.
fn barrier_between_call_and_result(v: &Value) -> bool {
    let Some(messages) = v.as_array() else {
        return false;
    };
    messages.iter().enumerate().any(|(i, m)| {
        m["role"] == "assistant"
            && m["content"].as_array().is_some_and(|blocks| {
                blocks.iter().any(|b| {
                    let id = &b["id"];
                    !id.is_null()
                        && messages[i + 1..].iter().any(|r| r["role"] == "custom")
                        && messages[i + 1..]
                            .iter()
                            .skip_while(|r| r["role"] != "custom")
                            .any(|r| r["role"] == "toolResult" && &r["toolCallId"] == id)
                })
            })
    })
}

fn steps(steps: usize) -> Budget {
    Budget {
        steps,
        ..Budget::default()
    }
}

fn anything(_: &Value) -> bool {
    true
}

/// Minimised with every input in the domain.
fn small(input: &Value, still_fails: impl Fn(&Value) -> bool) -> Value {
    minimize(input, anything, still_fails, Budget::default()).input
}

#[test]
fn shrinks_messages_blocks_fields_and_ids() {
    let input = json!([
        {"role": "user", "content": "hello", "timestamp": 1700000000},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": "let me look at that file for you, it will take a moment"},
            {"type": "toolCall", "id": "toolu_01ABCDEFGHIJ", "name": "read", "arguments": {"path": "/x"}},
            {"type": "toolCall", "id": "toolu_02ZZZ", "name": "ls", "arguments": {}}
        ]},
        {"role": "toolResult", "toolCallId": "toolu_02ZZZ", "content": []},
        {"role": "custom", "customType": "note", "content": "x"},
        {"role": "user", "content": "more"},
        {"role": "toolResult", "toolCallId": "toolu_01ABCDEFGHIJ", "content": [{"type": "text", "text": "body"}]}
    ]);
    assert!(barrier_between_call_and_result(&input));
    let minimised = minimize(
        &input,
        anything,
        barrier_between_call_and_result,
        Budget::default(),
    );
    assert_eq!(
        minimised.input,
        json!([
            {"role": "assistant", "content": [{"type": "toolCall", "id": "a"}]},
            {"role": "custom", "content": "x"},
            {"role": "toolResult", "toolCallId": "a", "content": []}
        ])
    );
    assert_eq!(minimised.cost.cut_short, None);
    assert!(minimised.cost.to_string().starts_with("minimised in "));
}

#[test]
fn what_a_format_requires_stays_and_no_object_is_emptied() {
    let input = json!([
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": "call_0123456789", "name": "read"}
        ]},
        {"role": "toolResult", "toolCallId": "call_0123456789", "content": "a result longer than a short string"},
        {"role": "compactionSummary", "summary": "a summary of the earlier work"},
        {"parts": [{"text": "x"}], "note": "x", "size": 7},
        {"messages": [], "target": 3, "extra": true}
    ]);
    assert_eq!(
        small(&input, |v| v.as_array().is_some_and(|m| m.len() == 5)
            && v[0]["content"][0].is_object()),
        json!([
            {"role": "assistant", "content": [{"type": "toolCall", "id": "a"}]},
            {"role": "toolResult", "toolCallId": "a", "content": ""},
            {"role": "compactionSummary"},
            {"parts": []},
            {"messages": [], "target": 0}
        ])
    );
    // A lone field stays, shrunk.
    assert_eq!(
        small(&json!([{"size": 7}]), |v| v[0].is_object()),
        json!([{"size": 0}])
    );
}

#[test]
fn a_message_keeps_its_role_and_a_block_its_type() {
    let input = json!([{"role": "user", "content": "stop", "timestamp": 1}]);
    assert_eq!(
        small(&input, |v| v.as_array().is_some_and(|m| m.len() == 1)),
        json!([{"role": "user", "content": "stop"}])
    );
}

#[test]
fn a_passing_input_is_returned_unchanged_when_nothing_smaller_fails() {
    let input = json!([{"role": "custom"}, 17, "a long string that could be shortened"]);
    assert_eq!(small(&input, |v| v == &input), input);
}

#[test]
fn long_strings_and_integers_shrink_to_the_least_that_still_fails() {
    let input =
        json!({"body": "abcdefghijklmnopqrstuvwxyz", "size": 99, "at": 40, "x": 2.5, "keep": true});
    let minimised = small(&input, |v| {
        v["body"].as_str().is_some_and(|s| s.contains('c'))
            && v["at"].as_u64().is_some_and(|at| at >= 13)
            && v["x"].is_number()
            && v["keep"] == true
    });
    assert_eq!(
        minimised,
        json!({"body": "abc", "at": 13, "x": 0, "keep": true})
    );
}

/// A cut request: its target must stay an index into its messages.
fn cut_request(v: &Value) -> bool {
    let len = v["messages"].as_array().map_or(0, Vec::len);
    v["target"].as_u64().is_some_and(|t| t as usize <= len)
}

#[test]
fn a_step_out_of_the_domain_is_never_taken() {
    let input = json!({"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "target": 2});
    let asked = std::cell::Cell::new(0);
    let minimised = minimize(
        &input,
        cut_request,
        |v| {
            asked.set(asked.get() + 1);
            assert!(cut_request(v), "asked about {v}");
            true
        },
        Budget::default(),
    );
    assert_eq!(minimised.input, json!({"messages": [], "target": 0}));
    assert!(asked.get() > 0);
    // A failure that needs the target: the messages stay; without the domain they would go.
    let needs_target = |v: &Value| v["target"] == 2;
    assert_eq!(
        minimize(&input, cut_request, needs_target, Budget::default()).input,
        input
    );
    assert_eq!(
        small(&input, needs_target),
        json!({"messages": [], "target": 2})
    );
}

#[test]
fn an_input_outside_the_domain_is_minimised_all_the_same() {
    let input = json!({"messages": [{"role": "user", "content": "a"}], "target": 5});
    assert_eq!(
        minimize(&input, cut_request, anything, Budget::default()).input,
        json!({"messages": [], "target": 0})
    );
}

#[test]
fn the_step_budget_bounds_predicate_calls_and_says_it_cut_short() {
    let (asked, admitted) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let input = json!((0..100).collect::<Vec<_>>());
    let minimised = minimize(
        &input,
        |_| {
            admitted.set(admitted.get() + 1);
            true
        },
        |_| {
            asked.set(asked.get() + 1);
            false
        },
        steps(25),
    );
    assert_eq!(asked.get(), 25);
    // The input, then one look per step: nothing is built once the budget is spent.
    assert_eq!(admitted.get(), 26);
    assert_eq!(minimised.cost.steps, 25);
    assert_eq!(minimised.cost.cut_short, Some(CutShort::Steps));
    assert!(
        minimised
            .cost
            .to_string()
            .contains("cut short by its step budget after 25 steps")
    );
}

#[test]
fn a_step_budget_keeps_the_best_input_found_so_far() {
    let input = json!((0..64).collect::<Vec<_>>());
    let minimised = minimize(
        &input,
        anything,
        |v| v.as_array().is_some_and(|a| a.contains(&json!(63))),
        steps(2),
    );
    assert_eq!(minimised.cost.cut_short, Some(CutShort::Steps));
    assert_eq!(minimised.input, json!((32..64).collect::<Vec<_>>()));
}

#[test]
fn a_spent_time_budget_takes_no_step() {
    let input = json!([1, 2, 3]);
    let minimised = minimize(
        &input,
        anything,
        |_| unreachable!("no time left to ask"),
        Budget {
            time: Duration::ZERO,
            ..Budget::default()
        },
    );
    assert_eq!(minimised.input, input);
    assert_eq!(minimised.cost.steps, 0);
    assert_eq!(minimised.cost.cut_short, Some(CutShort::Time));
    assert!(minimised.cost.to_string().contains("its time budget"));
}
