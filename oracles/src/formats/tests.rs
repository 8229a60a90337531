use serde_json::{Value, json};

use super::wire;
use super::*;
use crate::js_value::{self, JsValue};
use crate::wire::WireRule::{
    self, DuplicateCallId, DuplicateResult, EmptyContent, EmptyToolCalls, FunctionCallNotAfterUser,
    InvalidRole, MissingResult, ResultWithoutCall, ResultsNotFirst,
};

/// user, assistant (text + two calls), both results, a closing user message.
fn pi_turn() -> Vec<Value> {
    json!([
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "content": [
            {"type": "text", "text": "looking"},
            {"type": "toolCall", "id": "a", "name": "read", "arguments": {"path": "x"}},
            {"type": "toolCall", "id": "b", "name": "bash", "arguments": {}}
        ], "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": "a", "toolName": "read", "content": [{"type": "text", "text": "1"}], "isError": false},
        {"role": "toolResult", "toolCallId": "b", "toolName": "bash", "content": [{"type": "text", "text": "2"}], "isError": true},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]}
    ])
    .as_array()
    .unwrap()
    .clone()
}

#[test]
fn every_format_keeps_roles_ids_and_order_and_is_wire_valid() {
    let pi = pi_turn();
    let expected = skeleton(&Format::Pi.view(&pi));
    let id = |id: &str| Some(id.to_string());
    assert_eq!(
        expected,
        [
            Item::Message(Role::User),
            Item::Message(Role::Assistant),
            Item::Call(id("a")),
            Item::Call(id("b")),
            Item::Result(id("a")),
            Item::Result(id("b")),
            Item::Message(Role::User),
        ]
    );
    for &format in Format::all() {
        let written = from_pi(format, &pi).unwrap();
        let view = format.view(&written);
        assert_eq!(skeleton(&view), expected, "{format}: {written:#?}");
        if format != Format::Pi {
            assert_eq!(wire::validate(format, &view), vec![], "{format}");
        }
    }
}

/// `pi` written in `format`, its messages borrowed as the oracle reads them.
fn from_pi(format: Format, pi: &[Value]) -> Result<Vec<Written>, CannotExpress> {
    format.from_pi(&js_value::borrow_all(pi))
}

/// The messages of `pi` (a JSON array) written in `format`, as `Value`s.
fn written(format: Format, pi: &Value) -> Vec<Value> {
    let written = from_pi(format, pi.as_array().unwrap()).unwrap();
    written.iter().map(JsValue::to_value).collect()
}

/// A transcript another program wrote is told from a pi one by its calls and results (and,
/// for Gemini and LangChain, by every message); no pi message is taken for another format's,
/// nor any other shape (an unknown role, no role).
#[test]
fn a_message_of_another_format_is_told_from_a_pi_message() {
    let pi = pi_turn();
    for &format in Format::all() {
        let told: Vec<Option<Format>> = written(format, &Value::from(pi.clone()))
            .iter()
            .map(|message| written_in(message).map(|(format, _)| format))
            .collect();
        let expected = match format {
            Format::Pi => vec![None; 5],
            Format::Gemini | Format::LangChain => vec![Some(format); told.len()],
            Format::Anthropic => vec![None, Some(format), Some(format), None],
            Format::OpenAi | Format::AiSdk => {
                vec![None, Some(format), Some(format), Some(format), None]
            }
        };
        assert_eq!(told, expected, "{format}");
    }
    for other in [
        json!({"role": "future-role", "content": "?"}),
        json!({"content": "no role"}),
        json!({"role": "system", "content": "be brief"}),
        json!({"role": "bashExecution", "command": "ls", "output": ""}),
        json!({"type": "text"}),
    ] {
        assert_eq!(written_in(&other), None, "{other}");
    }
}

#[test]
fn consecutive_results_share_one_message_where_the_format_requires_it() {
    let pi = pi_turn();
    for (format, messages) in [
        (Format::OpenAi, 5),
        (Format::Anthropic, 4),
        (Format::Gemini, 4),
        (Format::AiSdk, 5),
        (Format::LangChain, 5),
    ] {
        assert_eq!(from_pi(format, &pi).unwrap().len(), messages, "{format}");
    }
}

#[test]
fn what_a_format_cannot_express_is_refused_not_altered() {
    let thinking = json!([{"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "thinking", "thinking": "hm"}]}]);
    assert_eq!(
        from_pi(Format::OpenAi, thinking.as_array().unwrap()),
        Err(CannotExpress::Block(
            "several thinking blocks in chat completions".into()
        ))
    );
    assert!(from_pi(Format::Anthropic, thinking.as_array().unwrap()).is_ok());
    let image_result = json!([{"role": "toolResult", "toolCallId": "a", "toolName": "read",
        "content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}]);
    for format in [Format::OpenAi, Format::Gemini, Format::AiSdk] {
        assert!(
            matches!(
                from_pi(format, image_result.as_array().unwrap()),
                Err(CannotExpress::Block(_))
            ),
            "{format}"
        );
    }
    let no_id =
        json!([{"role": "assistant", "content": [{"type": "toolCall", "id": 7, "name": "read"}]}]);
    assert_eq!(
        from_pi(Format::AiSdk, no_id.as_array().unwrap()),
        Err(CannotExpress::Id)
    );
    let null_content = json!([{"role": "user", "content": null}]);
    assert_eq!(
        from_pi(Format::LangChain, null_content.as_array().unwrap()),
        Err(CannotExpress::Content)
    );
    assert_eq!(
        written(Format::Pi, &null_content),
        null_content.as_array().unwrap().clone()
    );
}

#[test]
fn one_thinking_block_is_the_chat_reasoning_content() {
    let thinking = json!([{"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "ok"}]}]);
    assert_eq!(
        written(Format::OpenAi, &thinking),
        vec![
            json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "reasoning_content": "hm"})
        ]
    );
}

#[test]
fn the_system_prompt_is_no_message_in_anthropic_and_gemini() {
    let system = json!([{"role": "system", "content": "be brief"}]);
    for format in [Format::Anthropic, Format::Gemini] {
        assert_eq!(
            from_pi(format, system.as_array().unwrap()),
            Err(CannotExpress::Role("system".into()))
        );
    }
    assert_eq!(
        written(Format::AiSdk, &system),
        vec![json!({"role": "system", "content": "be brief"})]
    );
}

fn rules(format: Format, messages: Value) -> Vec<(WireRule, usize)> {
    let view = format.view(messages.as_array().unwrap());
    wire::validate(format, &view)
        .into_iter()
        .map(|v| (v.rule, v.message))
        .collect()
}

#[test]
fn chat_results_may_span_messages_but_not_an_interruption() {
    let split = json!([
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}, {"id": "b", "function": {"name": "f"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "user", "content": "wait"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "tool", "tool_call_id": "b", "content": "2"}
    ]);
    assert_eq!(
        rules(Format::OpenAi, split),
        vec![
            (MissingResult, 0),
            (ResultWithoutCall, 3),
            (ResultWithoutCall, 4)
        ]
    );
}

/// Anthropic merges consecutive messages of one role into one turn, then judges turns: results
/// split over two user messages answer the calls before them, calls split over two assistant
/// messages are answered by one user turn, and each result after anything else in its turn (the
/// user's text, in its message or before it) is refused; an empty message adds nothing to its
/// turn. Gemini judges messages.
#[test]
fn anthropic_judges_turns_of_merged_messages() {
    let call = |id: &str| json!({"type": "tool_use", "id": id, "name": "f", "input": {}});
    let result = |id: &str| json!({"type": "tool_result", "tool_use_id": id});
    let text = json!({"type": "text", "text": "wait"});
    let assistant = |content: Value| json!({"role": "assistant", "content": content});
    let user = |content: Value| json!({"role": "user", "content": content});
    let judged = |messages: Vec<Value>| rules(Format::Anthropic, Value::from(messages));
    let two_calls = assistant(json!([call("a"), call("b")]));
    assert_eq!(
        judged(vec![
            two_calls.clone(),
            user(json!([result("a"), result("a")])),
            user(json!([result("b")]))
        ]),
        vec![(DuplicateResult, 1)]
    );
    assert_eq!(
        judged(vec![
            assistant(json!([call("a")])),
            assistant(json!([call("b")])),
            user(json!([result("a"), result("b")]))
        ]),
        vec![]
    );
    assert_eq!(
        judged(vec![
            assistant(json!([call("a")])),
            assistant(json!("done")),
            user(json!([result("a")]))
        ]),
        vec![]
    );
    assert_eq!(
        judged(vec![
            assistant(json!([call("a")])),
            user(json!([result("a"), text.clone()]))
        ]),
        vec![]
    );
    let text_between = json!([
        two_calls.clone(),
        user(json!([result("a"), text.clone(), result("b")]))
    ]);
    let found = wire::validate(
        Format::Anthropic,
        &Format::Anthropic.view(text_between.as_array().unwrap()),
    );
    assert_eq!(
        found
            .iter()
            .map(|v| (v.rule, v.message, v.id.as_deref()))
            .collect::<Vec<_>>(),
        [(ResultsNotFirst, 1, Some("b"))],
        "the result after the text, not the one before it"
    );
    assert_eq!(
        judged(vec![
            two_calls.clone(),
            user(json!([result("a")])),
            user(json!("wait")),
            user(json!([result("b")])),
            user(json!([text.clone(), result("b")]))
        ]),
        vec![
            (ResultsNotFirst, 3),
            (DuplicateResult, 4),
            (ResultsNotFirst, 4)
        ]
    );
    assert_eq!(
        judged(vec![
            assistant(json!([call("a")])),
            user(json!([])),
            user(json!([result("a")]))
        ]),
        vec![(EmptyContent, 1)],
        "an empty message puts nothing before the results, but is refused itself"
    );
    assert_eq!(
        judged(vec![
            two_calls.clone(),
            user(json!([result("a"), text.clone()])),
            user(json!([result("b")]))
        ]),
        vec![(ResultsNotFirst, 2)],
        "the text after a result comes before the next message's"
    );
    assert_eq!(
        judged(vec![
            assistant(json!([call("a")])),
            user(json!("wait")),
            assistant(json!("done")),
            user(json!([result("a")]))
        ]),
        vec![(MissingResult, 0), (ResultWithoutCall, 3)]
    );
    // Only Anthropic merges: another turn of one role ends the calls' turn.
    let openai = json!([
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "assistant", "content": "done"},
        {"role": "tool", "tool_call_id": "a", "content": "1"}
    ]);
    assert_eq!(
        rules(Format::OpenAi, openai),
        vec![(MissingResult, 0), (ResultWithoutCall, 2)]
    );
    let gemini = json!([
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {}}}, {"functionCall": {"id": "b", "name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "f", "response": {}}}]},
        {"role": "user", "parts": [{"text": "wait"}, {"functionResponse": {"id": "b", "name": "f", "response": {}}}]}
    ]);
    assert_eq!(
        rules(Format::Gemini, gemini),
        vec![(MissingResult, 1), (ResultWithoutCall, 3)]
    );
}

/// Gemini wants a turn with calls right after a user turn or a function response turn: not
/// first, not after another model turn. The other formats do not say so.
#[test]
fn gemini_refuses_a_call_turn_that_follows_no_user_turn() {
    let user = json!({"role": "user", "parts": [{"text": "go"}]});
    let said = json!({"role": "model", "parts": [{"text": "looking"}]});
    let calls = |id: &str| json!({"role": "model", "parts": [{"functionCall": {"id": id, "name": "f", "args": {}}}]});
    let answer = |id: &str| json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": "f", "response": {}}}]});
    let judged = |contents: Vec<Value>| {
        let view = Format::Gemini.view(&contents);
        wire::validate(Format::Gemini, &view)
            .into_iter()
            .map(|v| (v.rule, v.message, v.id))
            .collect::<Vec<_>>()
    };
    let a = Some("a".to_string());
    assert_eq!(
        judged(vec![
            user.clone(),
            calls("a"),
            answer("a"),
            calls("b"),
            answer("b")
        ]),
        vec![]
    );
    assert_eq!(
        judged(vec![calls("a"), answer("a")]),
        vec![(FunctionCallNotAfterUser, 0, a.clone())],
        "first"
    );
    assert_eq!(
        judged(vec![user.clone(), said.clone(), calls("a"), answer("a")]),
        vec![(FunctionCallNotAfterUser, 2, a.clone())],
        "after another model turn"
    );
    let two_calls = json!({"role": "model", "parts": [
        {"functionCall": {"id": "a", "name": "f", "args": {}}},
        {"functionCall": {"id": "b", "name": "f", "args": {}}}
    ]});
    let both = json!({"role": "user", "parts": [
        {"functionResponse": {"id": "a", "name": "f", "response": {}}},
        {"functionResponse": {"id": "b", "name": "f", "response": {}}}
    ]});
    assert_eq!(
        judged(vec![two_calls, both]),
        vec![
            (FunctionCallNotAfterUser, 0, a),
            (FunctionCallNotAfterUser, 0, Some("b".to_string()))
        ],
        "one per call: a rewriter that drops the first leaves the second's as the input had it"
    );
    let chat = json!([
        {"role": "assistant", "content": "looking"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"}
    ]);
    assert_eq!(rules(Format::OpenAi, chat), vec![]);
}

#[test]
fn gemini_pairs_responses_without_ids_by_name_in_order() {
    let by_name = json!([
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}, {"functionCall": {"name": "g", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "g", "response": {}}}, {"functionResponse": {"name": "f", "response": {}}}]}
    ]);
    assert_eq!(rules(Format::Gemini, by_name), vec![]);
    let wrong_name = json!([
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "h", "response": {}}}]}
    ]);
    assert_eq!(
        rules(Format::Gemini, wrong_name),
        vec![(ResultWithoutCall, 2), (MissingResult, 1)]
    );
}

#[test]
fn langchain_reads_the_nested_messages_to_dict_shape_too() {
    let nested = json!([
        {"type": "ai", "data": {"content": "", "tool_calls": [{"id": "a", "name": "f", "args": {}}]}},
        {"type": "tool", "data": {"content": "1", "tool_call_id": "a"}}
    ]);
    assert_eq!(rules(Format::LangChain, nested), vec![]);
    // A `data` that is no object holds no fields: the message's own are read.
    let flat_beside_data = json!([
        {"type": "ai", "data": "x", "content": "", "tool_calls": [{"id": "a", "name": "f", "args": {}}]},
        {"type": "tool", "data": "x", "content": "1", "tool_call_id": "a"}
    ]);
    assert_eq!(rules(Format::LangChain, flat_beside_data), vec![]);
}

#[test]
fn unknown_roles_are_invalid() {
    assert_eq!(
        rules(Format::AiSdk, json!([{"role": "robot", "content": "x"}])),
        vec![(InvalidRole, 0)]
    );
}

/// The pi turn with a thinking block and an image in the user's message, in `format`.
fn rich_turn(format: Format) -> Vec<Value> {
    let mut pi = pi_turn();
    pi[0]["content"] = json!([{"type": "text", "text": "see"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}]);
    pi[1]["content"].as_array_mut().unwrap().insert(
        0,
        json!({"type": "thinking", "thinking": "hm", "thinkingSignature": "s"}),
    );
    written(format, &Value::from(pi))
}

#[test]
fn what_a_bridge_writes_lacks_no_field_its_format_requires() {
    for &format in Format::all() {
        assert_eq!(format.missing_field(&rich_turn(format)), None, "{format}");
    }
}

#[test]
fn a_call_or_result_without_its_id_or_name_is_missing_a_field() {
    // (format, the field removed, the field named missing)
    for (format, removed, expected) in [
        ("pi", "/2/toolCallId", "toolCallId"),
        ("pi", "/1/content/2/name", "name"),
        ("pi", "/0/content/1/mimeType", "mimeType"),
        ("openai", "/1/tool_calls/0/function/name", "function.name"),
        ("openai", "/3/tool_call_id", "tool_call_id"),
        ("openai", "/0/content/1/image_url/url", "image_url.url"),
        ("anthropic", "/2/content/1/tool_use_id", "tool_use_id"),
        ("anthropic", "/1/content/0/signature", "signature"),
        (
            "gemini",
            "/1/parts/2/functionCall/name",
            "functionCall.name",
        ),
        (
            "gemini",
            "/2/parts/0/functionResponse/response",
            "functionResponse.response",
        ),
        ("gemini", "/0/parts/1/inlineData/data", "inlineData.data"),
        ("ai-sdk", "/1/content/2/toolCallId", "toolCallId"),
        ("ai-sdk", "/3/content/0/output/value", "output.value"),
        ("ai-sdk", "/1/content/0/text", "text"),
        ("langchain", "/1/tool_calls/1/id", "id"),
        ("langchain", "/1/content/0/thinking", "thinking"),
        ("langchain", "/3/content", "content"),
    ] {
        let format: Format = format.parse().unwrap();
        let mut messages = Value::Array(rich_turn(format));
        let (object, field) = removed.rsplit_once('/').unwrap();
        let holder = messages.pointer_mut(object).unwrap();
        assert!(
            holder.as_object_mut().unwrap().remove(field).is_some(),
            "{format} {removed}"
        );
        let message: usize = removed[1..].split('/').next().unwrap().parse().unwrap();
        assert_eq!(
            format.missing_field(messages.as_array().unwrap()),
            Some(MissingField {
                message,
                field: expected
            }),
            "{format} {removed}"
        );
    }
}

#[test]
fn null_content_is_content_and_pi_lets_a_message_lack_it() {
    let tools_only = json!([{"role": "assistant", "content": null, "tool_calls": []}]);
    assert_eq!(
        Format::OpenAi.missing_field(tools_only.as_array().unwrap()),
        None
    );
    let no_content = json!([{"role": "user"}]);
    assert_eq!(
        Format::Pi.missing_field(no_content.as_array().unwrap()),
        None
    );
    let missing = Format::OpenAi
        .missing_field(no_content.as_array().unwrap())
        .unwrap();
    assert_eq!(missing.to_string(), "message 0 lacks `content`");
}

#[test]
fn a_langchain_ai_message_that_only_calls_tools_has_empty_content_and_one_that_calls_none_no_calls()
{
    let pi = json!([
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "read", "arguments": {}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
    ]);
    assert_eq!(
        written(Format::LangChain, &pi),
        vec![
            json!({"type": "ai", "content": "", "tool_calls": [{"id": "a", "name": "read", "args": {}, "type": "tool_call"}]}),
            json!({"type": "ai", "content": [{"type": "text", "text": "done"}]})
        ]
    );
}

#[test]
fn a_call_id_repeated_among_the_calls_is_refused_by_anthropic_alone() {
    let anthropic = json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]}
    ]);
    assert_eq!(
        rules(Format::Anthropic, anthropic),
        vec![(DuplicateCallId, 2)]
    );
    let openai = json!([
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "function": {"name": "f"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"}
    ]);
    assert_eq!(rules(Format::OpenAi, openai), vec![]);
}

#[test]
fn a_format_and_a_reason_it_cannot_express_have_stable_names() {
    for &format in Format::all() {
        assert_eq!(format.to_string(), format.name());
        assert_eq!(format.name().parse(), Ok(format));
    }
    for (reason, key, text) in [
        (
            CannotExpress::PiThrows("boom".into()),
            "pi-throws",
            "pi's convertToLlm throws: boom",
        ),
        (
            CannotExpress::Role("bash".into()),
            "role:bash",
            "no rendering for a `bash` message",
        ),
        (
            CannotExpress::Block("an image".into()),
            "block:an image",
            "no rendering for an image",
        ),
        (
            CannotExpress::Content,
            "content",
            "content that is neither text nor blocks",
        ),
        (
            CannotExpress::Id,
            "id",
            "a call or result without a string id or name",
        ),
    ] {
        assert_eq!(
            (reason.key(), reason.to_string()),
            (key.to_string(), text.to_string())
        );
    }
}

#[test]
fn every_rule_is_refused_in_every_format_but_one_provider_s_own_named_where_they_apply() {
    for (rule, texts) in wire::SOURCES {
        let named: Vec<bool> = texts.iter().map(Option::is_some).collect();
        let expected = match rule {
            DuplicateCallId | ResultsNotFirst => vec![false, true, false, false, false],
            FunctionCallNotAfterUser => vec![false, false, true, false, false],
            EmptyToolCalls => vec![true, false, false, false, false],
            EmptyContent => vec![false, true, false, false, false],
            _ => vec![true; 5],
        };
        assert_eq!(named, expected, "{rule}");
        for (at, format) in wire::SOURCE_FORMATS.into_iter().enumerate() {
            assert_eq!(
                wire::applies(format, rule),
                expected[at],
                "{rule} in {format}"
            );
        }
    }
    assert!(!wire::applies(Format::Pi, DuplicateCallId));
    assert!(!wire::applies(
        Format::OpenAi,
        crate::wire::WireRule::OrphanResult
    ));
}

#[test]
fn a_pi_result_is_an_error_only_when_is_error_is_true() {
    let result = |is_error: Value| json!({"role": "toolResult", "toolCallId": "a", "toolName": "f", "content": "1", "isError": is_error});
    let messages = [json!(true), json!(false), json!("true")].map(result);
    let flags: Vec<bool> = llm::read(&js_value::borrow_all(&messages))
        .unwrap()
        .into_iter()
        .map(|message| matches!(message, llm::Message::Result(result) if result.is_error))
        .collect();
    assert_eq!(flags, [true, false, false]);
}

/// Findings name a broken rule by its id, message and call, and carry the same as evidence.
#[test]
fn a_wire_violation_reads_as_its_rule_message_and_call() {
    let with_id = wire::WireViolation {
        rule: MissingResult,
        message: 3,
        id: Some("c1".into()),
    };
    assert_eq!(with_id.summary(), "missing-result: message 3 (call c1)");
    assert_eq!(
        json!(with_id.evidence()),
        json!({"rule": "missing-result", "message": 3, "call_id": "c1"})
    );
    let without = wire::WireViolation {
        id: None,
        ..with_id
    };
    assert_eq!(without.summary(), "missing-result: message 3 (call -)");
    let empty = wire::WireViolation {
        rule: EmptyContent,
        ..without.clone()
    };
    assert_eq!(
        empty.summary(),
        "empty-content: message 3",
        "a rule of a message names no call"
    );
    assert_eq!(
        json!(without.evidence()),
        json!({"rule": "missing-result", "message": 3, "call_id": null})
    );
}

/// OpenAI refuses an assistant's `tool_calls: []`; a list with a call, no list, another role's
/// list and LangChain's AI message with its default empty list are not refused.
#[test]
fn an_empty_tool_calls_list_is_refused_in_chat_completions_alone() {
    let rules = |format: Format, messages: Value| -> Vec<(WireRule, usize)> {
        let messages = messages.as_array().unwrap().clone();
        wire::validate(format, &format.view(&messages))
            .into_iter()
            .map(|v| (v.rule, v.message))
            .collect()
    };
    let call = json!({"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}});
    assert_eq!(
        rules(
            Format::OpenAi,
            json!([
                {"role": "user", "content": "go", "tool_calls": []},
                {"role": "assistant", "content": "ok"},
                {"role": "assistant", "content": null, "tool_calls": []},
                {"role": "assistant", "content": null, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "a", "content": "1"}
            ])
        ),
        vec![(EmptyToolCalls, 2)]
    );
    assert_eq!(
        rules(
            Format::LangChain,
            json!([{"type": "human", "content": "go"}, {"type": "ai", "content": "ok", "tool_calls": []}])
        ),
        vec![]
    );
}

/// Anthropic refuses a message whose content is empty, but for a final assistant message (a
/// prefill); a message that is only results is not empty, and no other format's provider is
/// known to refuse an empty content.
#[test]
fn an_empty_message_is_refused_by_anthropic_alone_but_for_a_final_assistant_one() {
    let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]});
    let answer = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": ""}]});
    assert_eq!(
        rules(
            Format::Anthropic,
            json!([
                {"role": "user", "content": ""},
                {"role": "assistant", "content": []},
                {"role": "user", "content": " "},
                call,
                answer,
                {"role": "assistant"},
                {"role": "user", "content": "go on"},
                {"role": "assistant", "content": []}
            ])
        ),
        vec![(EmptyContent, 0), (EmptyContent, 1)]
    );
    assert_eq!(
        rules(
            Format::Anthropic,
            json!([{"role": "user", "content": "go"}, {"role": "assistant", "content": ""}])
        ),
        vec![],
        "a final assistant message may be empty"
    );
    assert_eq!(
        rules(
            Format::OpenAi,
            json!([{"role": "user", "content": ""}, {"role": "assistant", "content": ""}, {"role": "user", "content": "x"}])
        ),
        vec![]
    );
}
