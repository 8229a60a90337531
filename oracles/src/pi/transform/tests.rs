use super::*;

/// `transformMessages` of `messages` for `model` with Anthropic's id normaliser, as `Value`s.
fn transform_values(
    messages: &[serde_json::Value],
    model: &JsValue,
    v: PiVersion,
) -> Result<Vec<serde_json::Value>, Thrown> {
    let messages = crate::js_value::borrow_all(messages);
    let out =
        crate::pi::transform_messages(&messages, model, crate::pi::Api::AnthropicMessages, v)?;
    Ok(out.iter().map(|message| message.to_value()).collect())
}

/// `{...msg, content: []}` of a message without content: an object keeps its fields, a
/// string spreads its characters, a number spreads nothing.
#[test]
fn a_message_without_content_is_spread_with_empty_content() {
    let messages = [
        serde_json::json!({"role": "user"}),
        serde_json::json!("ab"),
        serde_json::json!(5),
    ];
    let out = transform_values(&messages, crate::pi::default_model(), PiVersion::From130).unwrap();
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
    let mut model = crate::pi::default_model().to_value();
    model["input"] = serde_json::json!(["text"]);
    let model = JsValue::from(&model);
    let thrown = transform_values(&messages, &model, PiVersion::Before0804).unwrap_err();
    assert_eq!(
        thrown.error,
        "TypeError: Cannot read properties of null (reading 'role')"
    );
    let thrown = transform_values(&messages[1..], &model, PiVersion::Before0804).unwrap_err();
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
    for signature in [true, false] {
        let messages = [assistant(call(signature)), result.clone()];
        let out =
            transform_values(&messages, crate::pi::default_model(), PiVersion::From130).unwrap();
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

/// Another normaliser gives Anthropic's `transformMessages` output only when it renames every
/// call id alike: an id in normal form for both, or an id both sanitise the same, is alike; an id
/// either keeps or renames its own way, in any call of any message, is not. Blocks that are no
/// call are not read.
#[test]
fn a_normaliser_renames_like_anthropic_only_when_every_call_id_comes_out_alike() {
    let completions = IdNormaliser::OpenAiCompletions {
        openai: true,
        v: PiVersion::From130,
    };
    let responses = IdNormaliser::OpenAiResponses { keeps_items: true };
    let google = IdNormaliser::Google { requires_id: false };
    let messages = |ids: &[&str]| -> Vec<serde_json::Value> {
        let calls: Vec<_> = ids
            .iter()
            .map(|id| serde_json::json!({"type": "toolCall", "id": id, "name": "bash"}))
            .collect();
        vec![
            serde_json::json!({"role": "user", "content": [{"type": "text", "id": "not.a call"}]}),
            serde_json::json!({"role": "assistant", "content": calls}),
        ]
    };
    let alike = |ids: &[&str], normaliser: IdNormaliser| {
        let messages = messages(ids);
        let messages = crate::js_value::borrow_all(&messages);
        let borrowed: Vec<_> = messages.iter().map(Cow::Borrowed).collect();
        renames_like_anthropic(&borrowed, normaliser)
    };
    for normaliser in [completions, responses, google, IdNormaliser::Anthropic] {
        assert!(
            alike(&["call_1", "toolu_2-b"], normaliser),
            "{normaliser:?}"
        );
    }
    // Both sanitise `.` to `_` (the Responses normaliser on a whole id, without `|`).
    assert!(alike(&["call.1"], responses));
    // Google's keeps the `.`, the Responses one keeps the `|` and strips a trailing `_`,
    // openai-completions cuts the `openai` provider's ids at 40.
    assert!(!alike(&["call_1", "call.1"], google));
    assert!(!alike(&["call_1|fc_2"], responses));
    assert!(!alike(&["call_1_"], responses));
    assert!(!alike(&["call_1", &"z".repeat(41)], completions));
}

/// For a model without vision, a tool result or user array without images stays borrowed (a
/// `null` block in one still throws); another model's assistant whose text blocks are only
/// `{type, text}` stays borrowed too, as `{type: "text", text}` is that block. A text block with
/// another field, or an image, is copied and rewritten.
#[test]
fn messages_the_transform_would_rebuild_as_they_are_stay_borrowed() {
    let model = serde_json::json!({"id": "m", "api": "x", "provider": "x", "input": ["text"]});
    let model = JsValue::from(&model);
    let text = serde_json::json!({"type": "text", "text": "ok"});
    let signed = serde_json::json!({"type": "text", "text": "ok", "textSignature": "s"});
    let image = serde_json::json!({"type": "image", "data": "AA==", "mimeType": "image/png"});
    let assistant = |blocks: serde_json::Value| {
        serde_json::json!({"role": "assistant", "api": "y", "provider": "y", "model": "y",
            "stopReason": "stop", "content": blocks})
    };
    let messages = [
        serde_json::json!({"role": "user", "content": [text.clone()]}),
        serde_json::json!({"role": "toolResult", "toolCallId": "a", "content": [text.clone()]}),
        assistant(serde_json::json!([text.clone(), {"type": "text"}])),
        serde_json::json!({"role": "user", "content": [text.clone(), image.clone()]}),
        serde_json::json!({"role": "toolResult", "toolCallId": "a", "content": [image]}),
        assistant(serde_json::json!([text.clone(), signed])),
    ];
    let messages = crate::js_value::borrow_all(&messages);
    let borrowed = messages.iter().map(Cow::Borrowed).collect();
    let out = transform(
        borrowed,
        &model,
        PiVersion::From130,
        IdNormaliser::Anthropic,
        None,
    )
    .unwrap()
    .messages;
    let kept: Vec<bool> = out.iter().map(|m| matches!(m, Cow::Borrowed(_))).collect();
    assert_eq!(kept, [true, true, true, false, false, false]);
    assert_eq!(
        out[5].to_value()["content"],
        serde_json::json!([text, {"type": "text", "text": "ok"}])
    );
    let null_block = [serde_json::json!({"role": "toolResult", "toolCallId": "a",
        "content": [text.clone(), null]})];
    let null_block = crate::js_value::borrow_all(&null_block);
    let thrown = transform(
        null_block.iter().map(Cow::Borrowed).collect(),
        &model,
        PiVersion::From130,
        IdNormaliser::Anthropic,
        None,
    )
    .err()
    .expect("throws");
    assert_eq!(
        thrown.error,
        "TypeError: Cannot read properties of null (reading 'type')"
    );
}
