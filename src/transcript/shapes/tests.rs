use ctxfuzz_oracles::js_value;
use serde_json::{Value, json};

use super::*;

fn a(ids: &[&str]) -> Value {
    a_from(ids, TARGET_MODEL.model)
}

fn a_from(ids: &[&str], model: &str) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {}}))
        .collect();
    json!({"role": "assistant", "content": calls, "api": TARGET_MODEL.api,
           "provider": TARGET_MODEL.provider, "model": model, "stopReason": "toolUse"})
}

fn r(id: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": "ok"}]})
}

fn u() -> Value {
    json!({"role": "user", "content": "hi"})
}

/// The shapes of messages written with `json!`.
fn shapes_of(messages: &[Value]) -> BTreeSet<Shape> {
    shapes(&js_value::borrow_all(messages))
}

fn has(messages: &[Value], shape: Shape) -> bool {
    shapes_of(messages).contains(&shape)
}

#[test]
fn a_clean_transcript_has_no_shape() {
    let clean = [u(), a(&["x"]), r("x"), a(&["y", "z"]), r("y"), r("z")];
    assert_eq!(shapes_of(&clean), BTreeSet::from([Shape::MultiCallTurn]));
}

#[test]
fn result_damage_is_recognised() {
    assert!(has(&[a(&["x", "y"]), r("x")], Shape::ResultMissing));
    assert!(has(&[a(&["x"]), r("x"), r("x")], Shape::ResultDuplicated));
    assert!(has(
        &[a(&["x", "y"]), r("y"), r("x")],
        Shape::ResultsReordered
    ));
    assert!(has(
        &[a(&["x"]), a(&["y"]), r("y"), r("x")],
        Shape::ResultLate
    ));
    assert!(has(&[r("x"), a(&["x"]), r("x")], Shape::ResultBeforeCall));
    assert!(!has(&[a(&["x"]), r("x"), r("x")], Shape::ResultsReordered));
    assert!(!has(&[a(&["x"]), r("x")], Shape::ResultMissing));
}

#[test]
fn barriers_count_only_between_a_call_and_its_result() {
    let custom = json!({"role": "custom", "content": "note"});
    let between = [a(&["x"]), custom.clone(), r("x")];
    let after = [a(&["x"]), r("x"), custom.clone()];
    let shape = Shape::BarrierBetweenCallAndResult(BarrierKind::Custom);
    assert!(has(&between, shape));
    assert!(!has(&after, shape));
    for (message, kind) in [
        (
            json!({"role": "bashExecution", "excludeFromContext": true}),
            BarrierKind::BashExecutionExcluded,
        ),
        (json!({"role": "bashExecution"}), BarrierKind::BashExecution),
        (json!({"role": "future-role"}), BarrierKind::UnknownRole),
        (json!(7), BarrierKind::NoRole),
        (json!({"role": "system"}), BarrierKind::System),
    ] {
        assert_eq!(BarrierKind::of(&JsValue::from(&message)), Some(kind));
        assert!(has(
            &[a(&["x"]), message, r("x")],
            Shape::BarrierBetweenCallAndResult(kind)
        ));
    }
}

#[test]
fn id_shapes_are_recognised() {
    assert!(has(
        &[a(&["x"]), r("x"), a(&["x"]), r("x")],
        Shape::IdReusedAcrossTurns
    ));
    let other = "gpt-5";
    assert!(has(
        &[a_from(&["a.b"], other), a_from(&["a|b"], other)],
        Shape::SanitisedIdCollision
    ));
    // Same-model ids are never sanitised.
    assert!(!has(
        &[a(&["a.b"]), a(&["a|b"])],
        Shape::SanitisedIdCollision
    ));
    let long = "x".repeat(65);
    assert!(has(&[a_from(&[&long], other)], Shape::IdOver64Units));
    assert!(!has(&[a_from(&[&long[..64]], other)], Shape::IdOver64Units));
    assert!(has(&[a(&["é1"])], Shape::NonAsciiId));
    assert!(has(&[a(&["😀"])], Shape::AstralId));
    assert!(!has(&[a(&["😀"])], Shape::NonAsciiId));
}

#[test]
fn content_shapes_are_recognised() {
    assert!(has(
        &[json!({"role": "user", "content": null})],
        Shape::NullContent
    ));
    assert!(has(
        &[json!({"role": "toolResult", "toolCallId": "x"})],
        Shape::MissingContent
    ));
    assert!(has(
        &[json!({"role": "assistant", "content": "hi"})],
        Shape::StringContent
    ));
    assert!(!has(&[u()], Shape::StringContent));
    let image = json!({"role": "toolResult", "toolCallId": "x",
                       "content": [{"type": "image", "data": "", "mimeType": "image/png"}]});
    assert!(has(&[image], Shape::MultimodalToolResult));
    let huge = json!({"role": "toolResult", "toolCallId": "x",
                      "content": [{"type": "text", "text": "x".repeat(HUGE_BODY)}]});
    assert!(has(&[huge], Shape::HugeBody));
    assert!(has(&[json!(null)], Shape::NonObjectEntry));
    assert!(has(&vec![u(); LONG_TRANSCRIPT], Shape::LongTranscript));
}

#[test]
fn stop_reasons_count_only_with_calls() {
    let mut failed = a(&["x"]);
    failed["stopReason"] = json!("aborted");
    assert!(has(&[failed.clone()], Shape::StopWithCalls("aborted")));
    failed["content"] = json!([]);
    assert!(!has(&[failed], Shape::StopWithCalls("aborted")));
}

#[test]
fn every_shape_has_a_distinct_name() {
    let names: BTreeSet<String> = Shape::all().iter().map(Shape::to_string).collect();
    assert_eq!(names.len(), Shape::all().len());
}
