use super::*;

/// `{...msg, content: []}` of a message without content: an object keeps its fields, a
/// string spreads its characters, a number spreads nothing.
#[test]
fn a_message_without_content_is_spread_with_empty_content() {
    let messages = [
        serde_json::json!({"role": "user"}),
        serde_json::json!("ab"),
        serde_json::json!(5),
    ];
    let model = crate::pi::default_model();
    let out = crate::pi::transform_messages(
        &messages,
        &model,
        crate::pi::Api::AnthropicMessages,
        PiVersion::From130,
    )
    .unwrap();
    assert_eq!(
        out,
        [
            serde_json::json!({"role": "user", "content": []}),
            serde_json::json!({"0": "a", "1": "b", "content": []}),
            serde_json::json!({"content": []}),
        ]
    );
}

/// Below 0.80.4 a `null` message throws where the image downgrade reads its role, before a
/// later tool result whose content is `null` can throw that it is not iterable.
#[test]
fn a_null_message_throws_before_a_later_content_is_iterated() {
    let messages = [
        serde_json::json!(null),
        serde_json::json!({"role": "toolResult", "toolCallId": "a", "content": null}),
    ];
    let mut model = crate::pi::default_model();
    model["input"] = serde_json::json!(["text"]);
    let thrown = crate::pi::transform_messages(
        &messages,
        &model,
        crate::pi::Api::AnthropicMessages,
        PiVersion::Before0804,
    )
    .unwrap_err();
    assert_eq!(
        thrown.error,
        "TypeError: Cannot read properties of null (reading 'role')"
    );
    let thrown = crate::pi::transform_messages(
        &messages[1..],
        &model,
        crate::pi::Api::AnthropicMessages,
        PiVersion::Before0804,
    )
    .unwrap_err();
    assert_eq!(thrown.error, "TypeError: content is not iterable");
}

/// Another model's tool call loses its `thoughtSignature` even when its id needs no change,
/// and keeps the id it has; an unsigned call with such an id comes out as it went in.
#[test]
fn another_models_call_loses_its_signature_whatever_its_id() {
    let call = |signature: bool| {
        let mut call = serde_json::json!({"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {}});
        if signature {
            call["thoughtSignature"] = serde_json::json!("sig");
        }
        call
    };
    let assistant = |call| {
        serde_json::json!({"role": "assistant", "content": [call], "provider": "openai",
            "api": "openai-responses", "model": "gpt-5", "stopReason": "toolUse"})
    };
    let result = serde_json::json!({"role": "toolResult", "toolCallId": "call_1",
        "toolName": "bash", "content": [], "isError": false});
    let model = crate::pi::default_model();
    for signature in [true, false] {
        let messages = [assistant(call(signature)), result.clone()];
        let out = crate::pi::transform_messages(
            &messages,
            &model,
            crate::pi::Api::AnthropicMessages,
            PiVersion::From130,
        )
        .unwrap();
        assert_eq!(
            out,
            [assistant(call(false)), result.clone()],
            "signed: {signature}"
        );
    }
}

#[test]
fn ids_are_sanitised_per_utf16_unit_and_cut_at_64() {
    assert_eq!(normalize_tool_call_id("a.b"), "a_b");
    assert_eq!(normalize_tool_call_id("a|b"), "a_b");
    assert_eq!(normalize_tool_call_id("a😀b"), "a__b");
    let lone = crate::js_string::lone;
    assert_eq!(
        normalize_tool_call_id(&format!("a{}b", lone(0xD83D))),
        "a_b"
    );
    assert_eq!(normalize_tool_call_id(&lone(0xDC00)), "_");
    assert_eq!(normalize_tool_call_id(&"z".repeat(70)), "z".repeat(64));
    assert_eq!(
        normalize_tool_call_id(&format!("{}😀", "z".repeat(63))),
        format!("{}_", "z".repeat(63))
    );
    assert_eq!(normalize_tool_call_id("ok_-9"), "ok_-9");
    assert_eq!(normalize_tool_call_id(""), "");
    // An id already in normal form is lent back, up to the cut's length and not past it.
    assert!(matches!(
        normalize_tool_call_id(&"z".repeat(64)),
        Cow::Borrowed(_)
    ));
    assert!(matches!(
        normalize_tool_call_id(&"z".repeat(65)),
        Cow::Owned(_)
    ));
    assert!(matches!(normalize_tool_call_id("a.b"), Cow::Owned(_)));
}
