//! Mismatches the conformance test (`tests/conformance.rs`) found between the oracle and the real
//! pi, each pinned here as a minimal input with the real pi's output (recorded through
//! `oracles/conformance/bridge.mjs`), so a regression shows without Node.

use ctxfuzz_oracles::pi::{PiVersion, run_vector_input};
use serde_json::{Value, json};

/// A session entry holding a user message.
fn message(text: &str, at: u64) -> Value {
    json!({"type": "message", "timestamp": "2026-01-01T00:00:01Z",
           "message": {"role": "user", "content": text, "timestamp": at}})
}

fn anthropic_messages(input: &Value, v: PiVersion) -> Value {
    run_vector_input(input, v)["anthropic"]["messages"].clone()
}

/// 0.79.0 trims a thinking block's text before looking at its signature and drops it when blank;
/// 0.81.1 keeps a signed block whatever its text.
#[test]
fn blank_signed_thinking_is_dropped_by_0_79_only() {
    let input = json!({"anthropic": true, "messages": [
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
         "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 2,
         "content": [{"type": "thinking", "thinking": "   ", "thinkingSignature": "sig"},
                     {"type": "text", "text": "done"}]}
    ]});
    assert_eq!(
        anthropic_messages(&input, PiVersion::Before0804),
        json!([{"role": "user", "content": "go"},
               {"role": "assistant", "content": [{"type": "text", "text": "done"}]}])
    );
    for v in [PiVersion::From0804, PiVersion::From086, PiVersion::From130] {
        assert_eq!(
            anthropic_messages(&input, v),
            json!([{"role": "user", "content": "go"},
                   {"role": "assistant", "content": [
                       {"type": "thinking", "thinking": "   ", "signature": "sig"},
                       {"type": "text", "text": "done"}]}]),
            "{v:?}"
        );
    }
}

/// From 0.86 pi collapses system messages into the prompt before transforming, so a system
/// message between two results does not split their wire message; 0.81 (reached with
/// `skipConvert`, since its `convertToLlm` drops system messages) does split it.
#[test]
fn a_system_message_between_results_splits_the_run_before_0_86_only() {
    let input = json!({"anthropic": true, "skipConvert": true, "messages": [
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
         "model": "claude-sonnet-4-5", "stopReason": "toolUse", "timestamp": 2,
         "content": [{"type": "toolCall", "id": "X", "name": "bash", "arguments": {}},
                     {"type": "toolCall", "id": "Y", "name": "bash", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "X", "toolName": "bash", "isError": false,
         "content": [{"type": "text", "text": "x"}], "timestamp": 3},
        {"role": "system", "content": "be brief", "timestamp": 4},
        {"role": "toolResult", "toolCallId": "Y", "toolName": "bash", "isError": false,
         "content": [{"type": "text", "text": "y"}], "timestamp": 5}
    ]});
    let head = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "X", "name": "bash", "input": {}},
            {"type": "tool_use", "id": "Y", "name": "bash", "input": {}}]}
    ]);
    let x = json!({"type": "tool_result", "tool_use_id": "X", "content": "x", "is_error": false});
    let y = json!({"type": "tool_result", "tool_use_id": "Y", "content": "y", "is_error": false});
    let with = |tail: Value| {
        let mut messages = head.as_array().cloned().unwrap_or_default();
        messages.extend(tail.as_array().cloned().unwrap_or_default());
        Value::Array(messages)
    };
    assert_eq!(
        anthropic_messages(&input, PiVersion::From0804),
        with(json!([{"role": "user", "content": [x]}, {"role": "user", "content": [y]}]))
    );
    for v in [PiVersion::From086, PiVersion::From130] {
        assert_eq!(
            anthropic_messages(&input, v),
            with(json!([{"role": "user", "content": [x, y]}])),
            "{v:?}"
        );
        let system = &run_vector_input(&input, v)["anthropic"]["system"];
        assert_eq!(
            system,
            &json!([{"type": "text", "text": "be brief"}]),
            "{v:?}"
        );
    }
}

/// `transformMessages` maps an assistant's blocks with `flatMap`, so an array where a block should
/// be is spliced in one level deep; what it holds then reaches the provider untransformed.
#[test]
fn an_array_among_assistant_blocks_is_spliced_in_by_every_version() {
    let input = json!({"anthropic": true, "messages": [
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
         "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 2,
         "content": [[{"type": "text", "text": "nested"},
                      {"type": "toolCall", "id": "a.b", "name": "bash", "arguments": {}}],
                     {"type": "text", "text": "done"}]},
        {"role": "toolResult", "toolCallId": "a.b", "toolName": "bash", "isError": false,
         "content": [{"type": "text", "text": "x"}], "timestamp": 3}
    ]});
    for v in [
        PiVersion::Before0804,
        PiVersion::From0804,
        PiVersion::From086,
        PiVersion::From130,
    ] {
        assert_eq!(
            anthropic_messages(&input, v),
            json!([{"role": "user", "content": "go"},
                   {"role": "assistant", "content": [
                       {"type": "text", "text": "nested"},
                       {"type": "tool_use", "id": "a.b", "name": "bash", "input": {}},
                       {"type": "text", "text": "done"}]},
                   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a.b",
                                                 "content": "x", "is_error": false}]}]),
            "{v:?}"
        );
    }
}

/// pi's accounting compares tool-call ids with `Set.has` (SameValueZero): a number id matches the
/// same number and `-0` matches `0`, so only the unanswered call `2` gets a synthetic result.
#[test]
fn number_ids_are_answered_by_equal_numbers_and_minus_zero_by_zero() {
    let call = |id: f64| json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {}});
    let result = |id: u32, text: &str| {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "bash", "isError": false,
               "content": [{"type": "text", "text": text}], "timestamp": 3})
    };
    let input = json!({"messages": [
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
         "model": "claude-sonnet-4-5", "stopReason": "toolUse", "timestamp": 2,
         "content": [call(-0.0), call(1.0), call(2.0)]},
        result(0, "x"),
        result(1, "y"),
        {"role": "user", "content": "next", "timestamp": 5}
    ]});
    for v in [PiVersion::Before0804, PiVersion::From130] {
        let transformed = run_vector_input(&input, v)["transformed"].clone();
        let synthetic: Vec<&Value> = transformed
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["isError"] == json!(true))
            .map(|m| &m["toolCallId"])
            .collect();
        assert_eq!(synthetic, [&json!(2.0)], "{v:?}: {transformed}");
    }
}

/// From 0.86 the system messages' `sections` build the prompt: a later message replaces a section
/// in its place, `null` deletes one, a new name is appended, and empty sections are left out.
#[test]
fn system_sections_are_replaced_in_place_deleted_by_null_and_appended() {
    let input = json!({"anthropic": true, "messages": [
        {"role": "system", "content": "base", "timestamp": 1,
         "sections": {"a": "A1", "b": "B1", "c": ["x", "y"], "e": ""}},
        {"role": "user", "content": "go", "timestamp": 2},
        {"role": "system", "content": "more", "timestamp": 3,
         "sections": {"a": null, "b": "B2", "d": "D", "zz": null}},
        {"role": "user", "content": "on", "timestamp": 4}
    ]});
    for v in [PiVersion::From086, PiVersion::From130] {
        assert_eq!(
            run_vector_input(&input, v)["anthropic"]["system"],
            json!([{"type": "text", "text": "base\n\nmore\n\nB2\n\nx,y\n\nD"}]),
            "{v:?}"
        );
    }
}

/// Migrating a v1 file writes an id onto every entry; on a primitive entry JavaScript (strict
/// mode) throws, naming the primitive's type and value.
#[test]
fn a_primitive_entry_in_a_v1_file_throws_naming_its_type() {
    for (entry, shown) in [
        (json!("x"), "string 'x'"),
        (json!(true), "boolean 'true'"),
        (json!(5), "number '5'"),
    ] {
        let input = json!({"entries": [{"type": "session", "id": "s"}, entry]});
        assert_eq!(
            run_vector_input(&input, PiVersion::From130)["error"],
            json!(format!("TypeError: Cannot create property 'id' on {shown}")),
        );
    }
}

/// A v1 compaction whose `firstKeptEntryIndex` names the header keeps nothing before it: pi
/// migrates only a target that is not the header. (The header's id is the one the model gives
/// the first migrated entry, so taking the header's id would keep `a` and `b`.)
#[test]
fn a_v1_compaction_kept_from_the_header_keeps_nothing_before_it() {
    let input = json!({"entries": [
        {"type": "session", "id": "migrated-00000002", "timestamp": "2026-01-01T00:00:00Z"},
        message("a", 1),
        message("b", 2),
        {"type": "compaction", "timestamp": "2026-01-01T00:00:03Z", "summary": "S",
         "firstKeptEntryIndex": 0, "tokensBefore": 9},
        message("c", 4)
    ]});
    for v in [PiVersion::Before0804, PiVersion::From130] {
        let llm = run_vector_input(&input, v)["llm"].clone();
        let contents: Vec<&Value> = llm
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| &m["content"])
            .collect();
        assert_eq!(contents.len(), 2, "{v:?}: {llm}");
        assert_eq!(contents[1], &json!("c"), "{v:?}: {llm}");
    }
}

/// A v1 compaction keeps from the entry at a whole, non-negative `firstKeptEntryIndex` (which may
/// be 0 when the header is not first); any other index names no entry and keeps nothing.
#[test]
fn a_v1_compaction_keeps_from_a_whole_non_negative_index_only() {
    for (index, kept) in [
        (json!(0), vec!["a", "b", "c"]),
        (json!(-1), vec!["c"]),
        (json!(2.5), vec!["c"]),
        (json!(2), vec!["b", "c"]),
    ] {
        let input = json!({"entries": [
            message("a", 1),
            {"type": "session", "id": "s", "timestamp": "2026-01-01T00:00:00Z"},
            message("b", 2),
            {"type": "compaction", "timestamp": "2026-01-01T00:00:03Z", "summary": "S",
             "firstKeptEntryIndex": index, "tokensBefore": 9},
            message("c", 4)
        ]});
        let llm = run_vector_input(&input, PiVersion::From130)["llm"].clone();
        let after_summary: Vec<&Value> = llm
            .as_array()
            .into_iter()
            .flatten()
            .skip(1)
            .map(|m| &m["content"])
            .collect();
        assert_eq!(after_summary, kept, "index {index}: {llm}");
    }
}

/// The same model means the same provider, api and model id: an assistant that matches on only
/// some of them is another model's, so its call ids are sanitised.
#[test]
fn a_model_matching_on_only_some_fields_is_another_model() {
    let turn = |api: &str, provider: &str, model: &str, id: &str, at: u64| {
        [
            json!({"role": "assistant", "api": api, "provider": provider, "model": model,
                   "stopReason": "toolUse", "timestamp": at,
                   "content": [{"type": "toolCall", "id": id, "name": "bash", "arguments": {}}]}),
            json!({"role": "toolResult", "toolCallId": id, "toolName": "bash", "isError": false,
                   "content": [{"type": "text", "text": "x"}], "timestamp": at + 1}),
        ]
    };
    let mut messages = vec![json!({"role": "user", "content": "go", "timestamp": 1})];
    messages.extend(turn(
        "anthropic-messages",
        "anthropic",
        "claude-haiku-4-5",
        "a.b",
        2,
    ));
    messages.extend(turn(
        "openai-completions",
        "openrouter",
        "claude-sonnet-4-5",
        "c.d",
        4,
    ));
    let input = json!({"anthropic": true, "messages": messages});
    let ids: Vec<Value> = anthropic_messages(&input, PiVersion::From130)
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter_map(|block| {
            block
                .get("id")
                .or_else(|| block.get("tool_use_id"))
                .cloned()
        })
        .collect();
    assert_eq!(
        ids,
        [json!("a_b"), json!("a_b"), json!("c_d"), json!("c_d")]
    );
}

/// Before `transformMessages` reads content, 0.80.4+ gives a message without any
/// `{...message, content: []}`: an array where a message should be spreads its indices.
#[test]
fn an_array_in_place_of_a_message_spreads_its_indices() {
    let input = json!({"skipConvert": true, "messages": [
        {"role": "user", "content": "go", "timestamp": 1}, ["x", "y"]]});
    assert_eq!(
        run_vector_input(&input, PiVersion::From130)["transformed"][1],
        json!({"0": "x", "1": "y", "content": []})
    );
}

/// A `null` message reaching `transformMessages` throws where pi first reads it: its `content`
/// from 0.80.4 (the normalisation), its `role` before (the image downgrade, for a model without
/// vision).
#[test]
fn a_null_message_throws_at_the_first_read_of_it() {
    let input = json!({"skipConvert": true, "model": {"input": ["text"]},
                       "messages": [{"role": "user", "content": "go", "timestamp": 1}, null]});
    for (v, property) in [
        (PiVersion::Before0804, "role"),
        (PiVersion::From130, "content"),
    ] {
        let output = run_vector_input(&input, v);
        assert_eq!(
            (&output["error"], &output["stage"]),
            (
                &json!(format!(
                    "TypeError: Cannot read properties of null (reading '{property}')"
                )),
                &json!("transformMessages")
            ),
            "{v:?}"
        );
    }
}

/// For a model without vision, a tool result's content is iterated block by block: a string
/// yields its characters (each becomes a "block"), and a number is not iterable.
#[test]
fn a_string_tool_result_is_split_into_characters_for_a_model_without_vision() {
    let result = |content: Value| {
        json!({"role": "toolResult", "toolCallId": "t", "toolName": "bash", "isError": false,
               "content": content, "timestamp": 2})
    };
    let user = json!({"role": "user", "content": "go", "timestamp": 1});
    let input = |content: Value| {
        json!({"skipConvert": true, "model": {"input": ["text"]},
               "messages": [user.clone(), result(content)]})
    };
    assert_eq!(
        run_vector_input(&input(json!("ok")), PiVersion::From130)["transformed"][1]["content"],
        json!(["o", "k"])
    );
    assert_eq!(
        run_vector_input(&input(json!(5)), PiVersion::From130)["error"],
        json!("TypeError: content is not iterable")
    );
}

/// A system message without a timestamp still makes the prompt when it adds tools (pi-ai's
/// `getCurrentSystemMessage` needs one or the other).
#[test]
fn a_system_message_that_adds_tools_makes_the_prompt_without_a_timestamp() {
    let tool = json!({"name": "grep", "description": "d",
                      "parameters": {"type": "object", "properties": {}}});
    let input = |tools: Value| {
        json!({"anthropic": true, "messages": [
            {"role": "system", "content": "base", "toolsAdded": tools},
            {"role": "user", "content": "go", "timestamp": 2}]})
    };
    let system = |tools: Value| {
        run_vector_input(&input(tools), PiVersion::From130)["anthropic"]
            .get("system")
            .cloned()
    };
    assert_eq!(
        system(json!([tool])),
        Some(json!([{"type": "text", "text": "base"}]))
    );
    assert_eq!(system(json!([])), None);
}

/// The prompt keeps a section by its length before joining: an array that joins to "" (`[""]`,
/// `[null]`) still adds a paragraph break; an empty string, an empty array or a value that is
/// neither adds nothing.
#[test]
fn a_section_is_kept_by_its_length_not_by_its_text() {
    for (sections, prompt) in [
        (json!({"a": [""], "b": "B"}), "base\n\n\n\nB"),
        (json!({"a": [null], "b": 5, "c": {}}), "base\n\n"),
        (json!({"a": ""}), "base"),
        (json!({"a": [], "b": "B"}), "base\n\nB"),
    ] {
        let input = json!({"anthropic": true, "messages": [
            {"role": "system", "content": "base", "timestamp": 1, "sections": sections},
            {"role": "user", "content": "go", "timestamp": 2}]});
        assert_eq!(
            run_vector_input(&input, PiVersion::From130)["anthropic"]["system"],
            json!([{"type": "text", "text": prompt}]),
            "{sections}"
        );
    }
}

/// A system message declaring `tools` (and maybe more), then a user message.
fn with_system(system: Vec<Value>) -> Value {
    let mut messages = system;
    messages.push(json!({"role": "user", "content": "go", "timestamp": 2}));
    json!({"anthropic": true, "messages": messages})
}

fn system(content: &str, tools: Value) -> Value {
    json!({"role": "system", "content": content, "toolsAdded": tools})
}

fn tool(name: &str) -> Value {
    json!({"name": name, "parameters": {"type": "object", "properties": {}}})
}

/// The Anthropic stage's error without its name: pi reports a throw while building the request
/// without it (and one while collapsing the system messages with it).
fn anthropic_error(input: &Value, v: PiVersion) -> Option<String> {
    let out = run_vector_input(input, v);
    assert!(
        out.get("error").is_none() || out["stage"] == "anthropic",
        "{out}"
    );
    let error = out.get("error")?.as_str()?.to_string();
    Some(
        error
            .strip_prefix("TypeError: ")
            .unwrap_or(&error)
            .to_string(),
    )
}

fn prompt(input: &Value, v: PiVersion) -> Option<Value> {
    run_vector_input(input, v)["anthropic"]
        .get("system")
        .cloned()
}

/// The head system message (and so the prompt) exists when a system message has a timestamp or
/// when tools are left declared after every `toolsRemoved` (by name, as pi's `Map` keys them: a
/// primitive or nameless tool has the key `undefined`).
#[test]
fn the_tools_left_declared_decide_whether_there_is_a_prompt() {
    let removed = |names: Value| json!({"role": "system", "content": "two", "toolsRemoved": names});
    for v in [PiVersion::From086, PiVersion::From130] {
        let cases = [
            (
                vec![
                    system("base", json!([tool("a")])),
                    removed(json!([{"name": "a"}])),
                ],
                None,
            ),
            (
                vec![
                    system("base", json!([tool("a")])),
                    removed(json!([{"name": "b"}])),
                ],
                Some("base\n\ntwo"),
            ),
            (
                vec![system("base", json!(["grep"])), removed(json!(["x"]))],
                None,
            ),
            (vec![system("base", json!(null))], None),
            (vec![system("base", json!(""))], None),
        ];
        for (messages, expected) in cases {
            let input = with_system(messages);
            assert_eq!(anthropic_error(&input, v), None, "{input}");
            assert_eq!(
                prompt(&input, v),
                expected.map(|text| json!([{"type": "text", "text": text}])),
                "{input}"
            );
        }
    }
}

/// pi reads every declared tool's `parameters` as a schema while building the request, so a tool
/// without them throws: a nameless or primitive tool (a string iterates its characters), one
/// whose name differs by type (`1` is not `"1"`) or is an object (never the same key). A later
/// same-named declaration replaces a broken one; `false` parameters are read without a throw.
#[test]
fn a_declared_tool_without_parameters_makes_pi_throw_building_the_request() {
    let undefined = Some("Cannot read properties of undefined (reading 'properties')".to_string());
    let with_params = |name: Value| json!({"name": name, "parameters": {}});
    for v in [PiVersion::From086, PiVersion::From130] {
        let throwing = [
            vec![system("base", json!(["grep"]))],
            vec![system("base", json!([{"name": "grep"}]))],
            vec![system("base", json!("ab"))],
            vec![system("base", json!("😀"))],
            vec![system("base", json!([{"parameters": {}}, "x"]))],
            vec![system(
                "base",
                json!([with_params(json!(1)), {"name": "1"}]),
            )],
            vec![
                system("base", json!([with_params(json!({})), {"name": {}}])),
                json!({"role": "system", "content": "", "toolsRemoved": [{"name": {}}]}),
            ],
        ];
        for messages in throwing {
            let input = with_system(messages);
            assert_eq!(anthropic_error(&input, v), undefined, "{input}");
        }
        let null = with_system(vec![system(
            "base",
            json!([{"name": "a", "parameters": null}]),
        )]);
        assert_eq!(
            anthropic_error(&null, v).as_deref(),
            Some("Cannot read properties of null (reading 'properties')")
        );
        let sent = [
            (
                vec![
                    system("base", json!([{"name": "a"}])),
                    system("two", json!([tool("a")])),
                ],
                "base\n\ntwo",
            ),
            (
                vec![
                    system("base", json!([tool("a"), {"name": "b"}])),
                    json!({"role": "system", "content": "two", "toolsRemoved": [{"name": "b"}]}),
                ],
                "base\n\ntwo",
            ),
            (
                vec![system("base", json!([{"name": "a", "parameters": false}]))],
                "base",
            ),
        ];
        for (messages, text) in sent {
            let input = with_system(messages);
            assert_eq!(anthropic_error(&input, v), None, "{input}");
            assert_eq!(
                prompt(&input, v),
                Some(json!([{"type": "text", "text": text}]))
            );
        }
    }
}

/// `toolsAdded` / `toolsRemoved` are iterated while pi collapses the system messages: anything
/// but an array, a string or nothing is not iterable, and a `null` tool has no name to read.
/// Every system message's content is read first; the conversation's messages are converted only
/// after, and the tool definitions last.
#[test]
fn tools_that_cannot_be_iterated_throw_while_collapsing_the_system_messages() {
    let not_iterable = |shown: &str| {
        format!("{shown} is not iterable (cannot read property Symbol(Symbol.iterator))")
    };
    let null_name = "Cannot read properties of null (reading 'name')".to_string();
    let removed = |tools: Value| json!({"role": "system", "content": "base", "timestamp": 1, "toolsRemoved": tools});
    for v in [PiVersion::From086, PiVersion::From130] {
        let cases = [
            (vec![system("base", json!(1.5))], not_iterable("number 1.5")),
            (vec![system("base", json!(-0.0))], not_iterable("number 0")),
            (
                vec![system("base", json!(true))],
                not_iterable("boolean true"),
            ),
            (
                vec![system("base", json!({"a": 1}))],
                not_iterable("object"),
            ),
            (vec![removed(json!(7))], not_iterable("number 7")),
            (vec![system("base", json!([null]))], null_name.clone()),
            (vec![removed(json!([null]))], null_name.clone()),
            (
                vec![
                    system("base", json!(5)),
                    json!({"role": "system", "content": null}),
                ],
                "Cannot read properties of null (reading 'filter')".to_string(),
            ),
        ];
        for (messages, expected) in cases {
            let input = with_system(messages);
            assert_eq!(anthropic_error(&input, v), Some(expected), "{input}");
        }
        let with_null_block = |tools: Value| {
            json!({"anthropic": true, "messages": [
                system("base", tools), {"role": "user", "content": [null], "timestamp": 2}]})
        };
        assert_eq!(
            anthropic_error(&with_null_block(json!(5)), v),
            Some(not_iterable("number 5"))
        );
        assert_eq!(
            anthropic_error(&with_null_block(json!([{"name": "a"}])), v).as_deref(),
            Some("Cannot read properties of null (reading 'type')")
        );
    }
}

/// A `bashExecution` message notes the full output only when it was truncated AND has a path.
#[test]
fn a_truncation_note_needs_both_the_flag_and_the_path() {
    let ran = "Ran `ls`\n```\nx\n```";
    for (flags, text) in [
        (
            json!({"truncated": false, "fullOutputPath": "/tmp/o"}),
            ran.to_string(),
        ),
        (json!({"truncated": true}), ran.to_string()),
        (
            json!({"truncated": true, "fullOutputPath": "/tmp/o"}),
            format!("{ran}\n\n[Output truncated. Full output: /tmp/o]"),
        ),
    ] {
        let mut message = json!({"role": "bashExecution", "command": "ls", "output": "x",
                                 "exitCode": 0, "cancelled": false, "timestamp": 1});
        message
            .as_object_mut()
            .unwrap()
            .extend(flags.as_object().unwrap().clone());
        for v in [PiVersion::Before0804, PiVersion::From130] {
            let out = run_vector_input(&json!({"messages": [message.clone()]}), v);
            assert_eq!(out["llm"][0]["content"][0]["text"], json!(text), "{flags}");
        }
    }
}
