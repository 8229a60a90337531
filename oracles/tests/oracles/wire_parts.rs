//! A transcript judged in parts (`wire::Parts`) finds what the whole finds, numbered as in the
//! whole request; a part that cannot stand alone sends the transcript to the whole judgement
//! (`finish` gives `None`), one test per reason.

use ctxfuzz_oracles::invariants::Cause;
use ctxfuzz_oracles::invariants::wire::{self, Parts, WireFinding};
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::pi::{PiVersion, Thrown, default_model};
use ctxfuzz_oracles::wire::WireRule;
use serde_json::{Value, json};

use crate::common::{calling, result, user};

/// The judgement of `input` in parts of at least `part_size` messages, `None` when a part did
/// not stand alone.
fn in_parts(
    input: &[Value],
    v: PiVersion,
    part_size: usize,
) -> Option<Result<Vec<WireFinding>, Thrown>> {
    let model = default_model();
    let mut parts = Parts::new(model, v, part_size);
    input.iter().for_each(|m| parts.push(JsValue::from(m)));
    parts.finish()
}

fn whole(input: &[Value], v: PiVersion) -> Vec<WireFinding> {
    let input: Vec<JsValue> = input.iter().map(JsValue::from).collect();
    wire::findings(&input, default_model(), v).expect("pi does not throw")
}

fn rules(found: &[WireFinding]) -> Vec<(WireRule, usize)> {
    found
        .iter()
        .map(|f| (f.wire.rule, f.wire.message))
        .collect()
}

/// The whole of `input` breaks `rule`; judged in parts of `part_size`, it is sent to be judged
/// whole.
fn only_the_whole_breaks(input: &[Value], rule: WireRule, part_size: usize) {
    let found = rules(&whole(input, PiVersion::default()));
    assert!(found.iter().any(|(r, _)| *r == rule), "{found:?}");
    assert_eq!(in_parts(input, PiVersion::default(), part_size), None);
}

#[test]
fn parts_number_their_findings_as_the_whole_request_does() {
    let input = [
        user("one"),
        calling(&["a1"]),
        result("a1"),
        user("two"),
        calling(&["b1"]),
        result("b1"),
        result("stray"),
        user("three"),
        calling(&["c1"]),
    ];
    let whole = whole(&input, PiVersion::default());
    assert_eq!(
        rules(&whole),
        [(WireRule::OrphanResult, 5)],
        "the orphan sits in the second part's results: {whole:#?}"
    );
    for part_size in 1..=input.len() {
        assert_eq!(
            in_parts(&input, PiVersion::default(), part_size),
            Some(Ok(whole.clone())),
            "part size {part_size}"
        );
    }
}

#[test]
fn the_first_part_may_open_with_results() {
    let input = [
        result("stray"),
        user("one"),
        calling(&["a1"]),
        result("a1"),
        user("two"),
    ];
    let whole = whole(&input, PiVersion::default());
    assert_eq!(rules(&whole), [(WireRule::OrphanResult, 0)]);
    assert_eq!(in_parts(&input, PiVersion::default(), 1), Some(Ok(whole)));
}

#[test]
fn an_id_two_parts_share_sends_the_transcript_whole() {
    // The second call reuses the first's id: a duplicate only the whole request shows.
    let input = [
        user("one"),
        calling(&["x"]),
        result("x"),
        user("two"),
        calling(&["x"]),
        result("x"),
    ];
    only_the_whole_breaks(&input, WireRule::DuplicateToolUseId, 1);
    // Never cut, the transcript is one part, judged as the whole it is.
    let whole = whole(&input, PiVersion::default());
    assert_eq!(
        in_parts(&input, PiVersion::default(), input.len()),
        Some(Ok(whole))
    );
}

#[test]
fn a_call_id_that_is_not_a_string_is_shared_as_its_text_on_the_wire() {
    // Both calls go out with the id `7`: a duplicate only the whole request shows.
    let mut numbered = calling(&["unused"]);
    numbered["content"][0]["id"] = json!(7);
    let input = [user("one"), numbered.clone(), user("two"), numbered];
    only_the_whole_breaks(&input, WireRule::DuplicateToolUseId, 1);
}

#[test]
fn a_part_opening_on_results_sends_the_transcript_whole() {
    // The blank user message sends nothing, so the second part's request opens with a result,
    // which merges into the first part's last user turn, after its text: "results first" is
    // broken only in the whole.
    let input = [
        calling(&["a1"]),
        result("a1"),
        user("text after the result"),
        user("   "),
        result("b1"),
    ];
    only_the_whole_breaks(&input, WireRule::ResultsNotFirst, 3);
}

#[test]
fn a_result_without_an_id_sends_the_transcript_whole() {
    // pi answers the second part's call without an id with a result without one, an orphan:
    // unpreventable alone, but a real result without an id anywhere makes it the sweep's to
    // remove.
    let mut idless_result = result("unused");
    idless_result.as_object_mut().unwrap().remove("toolCallId");
    let mut idless_call = calling(&["unused"]);
    idless_call["content"][0]
        .as_object_mut()
        .unwrap()
        .remove("id");
    let input = [
        user("one"),
        calling(&["a1"]),
        result("a1"),
        idless_result,
        user("two"),
        idless_call,
    ];
    let idless_orphan_causes = |input: &[Value]| -> Vec<Cause> {
        whole(input, PiVersion::default())
            .into_iter()
            .filter(|f| f.wire.rule == WireRule::OrphanResult && f.wire.tool_use_id.is_none())
            .map(|f| f.cause)
            .collect()
    };
    assert_eq!(
        idless_orphan_causes(&input),
        [Cause::SystemUnderTest, Cause::SystemUnderTest]
    );
    assert!(matches!(
        idless_orphan_causes(&input[4..])[..],
        [Cause::Unpreventable(_)]
    ));
    assert_eq!(in_parts(&input, PiVersion::default(), 1), None);
}

#[test]
fn a_system_message_sends_the_transcript_whole_where_pi_keeps_it() {
    let system = json!({"role": "system", "content": "be brief", "timestamp": 1});
    let input = [user("one"), system, user("two")];
    // pi keeps system messages from 0.86 on; before, `convertToLlm` drops them.
    assert_eq!(in_parts(&input, PiVersion::From086, 1), None);
    assert_eq!(
        in_parts(&input, PiVersion::From086, input.len()),
        Some(Ok(whole(&input, PiVersion::From086)))
    );
    assert_eq!(
        in_parts(&input, PiVersion::From0804, 1),
        Some(Ok(Vec::new()))
    );
}

#[test]
fn a_part_pi_throws_on_sends_the_transcript_whole() {
    let input = [user("one"), user("two"), Value::Null];
    assert_eq!(in_parts(&input, PiVersion::default(), 1), None);
    assert!(matches!(
        in_parts(&input, PiVersion::default(), input.len()),
        Some(Err(_))
    ));
}
