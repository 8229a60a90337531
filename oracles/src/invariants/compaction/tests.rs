use serde_json::json;

use super::*;
use crate::js_value::{JsValue, borrow_all};

/// The round cut at 3: the summariser read the region whole, the tracker was left alone.
fn cut_at_3<'a, M>(input: &'a [M], output: &'a [M], summary: &'a str) -> Round<'a, M> {
    Round {
        input,
        input_after: input,
        output,
        boundary: 3,
        picked: 3,
        summary,
        summariser_input: &input[..3],
        tracker_calls: &[],
    }
}

/// A cut at a tool result, inside the call cycle whose arguments name the state (one as a JSON
/// string, one as an object whose falsy `path` falls through to `file_path`), behind a summary
/// without that state: the oracle says the same of the messages read either way.
#[test]
fn a_round_read_as_js_values_is_judged_as_read_as_values() {
    let input = [
        json!({"role": "user", "content": "please write the notes and list the directory"}),
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "write_file",
                "arguments": "{\"path\": \"\", \"file_path\": \"notes.md\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "edit_file",
                "arguments": {"path": {}, "file_path": "todo.md"}}},
            {"id": "c3", "type": "function", "function": {"name": "bash",
                "arguments": {"command": "ls -la"}}},
        ]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "ok"}),
        json!({"role": "tool", "tool_call_id": "c2", "content": "ok"}),
        json!({"role": "tool", "tool_call_id": "c3", "content": "notes.md todo.md"}),
        json!({"role": "user", "content": "thanks"}),
        json!({"role": "assistant", "content": "done"}),
    ];
    let summary = "### User messages (verbatim)\n- please write the notes and list the directory";
    let output: Vec<Value> =
        [json!({"sender": "system", "messageType": "context_summary", "text": summary})]
            .into_iter()
            .chain(input[3..].iter().cloned())
            .collect();
    let contract = Contract::from_json("chat", &json!({}));
    let as_values = judge(&contract, &[cut_at_3(&input, &output, summary)]);
    let (input, output) = (borrow_all(&input), borrow_all(&output));
    let as_js_values = judge::<JsValue, _>(&contract, &[cut_at_3(&input, &output, summary)]);

    let ids: Vec<&str> = as_values.iter().map(|v| v.invariant.id).collect();
    assert_eq!(
        ids,
        [
            BOUNDARY_VALID.id,
            NO_NEW_ORPHANS.id,
            SMALLER.id,
            STATE_RETAINED.id
        ]
    );
    assert_eq!(
        as_values[3].evidence["files_written"],
        json!(["notes.md", "todo.md"])
    );
    assert_eq!(as_values[3].evidence["commands"], json!(["ls -la"]));
    assert_eq!(as_js_values, as_values);
}
