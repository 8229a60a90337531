use serde_json::{Value, json};

use super::*;

fn user(id: &str, parent: Option<&str>, text: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
           "message": {"role": "user", "content": text, "timestamp": 1}})
}

/// [`super::build_context`] on entries written as JSON.
fn build_context(
    entries: &[Value],
    leaf: Option<&Value>,
    rules: SessionRules,
) -> Result<SessionContext<'static>, SessionError> {
    let leaf = leaf.cloned().map(JsValue::from);
    super::build_context(&owned(entries), leaf.as_ref(), rules)
}

fn owned(entries: &[Value]) -> Vec<JsValue<'static>> {
    entries.iter().cloned().map(JsValue::from).collect()
}

fn texts(context: &SessionContext) -> Vec<Value> {
    context
        .messages
        .iter()
        .map(|m| {
            field(m, "content")
                .or(field(m, "summary"))
                .map_or(Value::Null, JsValue::to_value)
        })
        .collect()
}

/// The context, built from borrowed entries and from entries given up (the two must agree).
fn build(entries: &[Value], rules: SessionRules) -> SessionContext<'static> {
    let context = build_context(entries, None, rules).expect("builds");
    let moved = build_context_from(owned(entries), None, rules).expect("builds");
    assert_eq!(
        moved, context,
        "{rules:?}: moving the messages out changes nothing"
    );
    context
}

#[test]
fn a_parent_cycle_is_reported_instead_of_hanging() {
    let entries = [user("a", Some("b"), "x"), user("b", Some("a"), "y")];
    for rules in SessionRules::ALL {
        assert_eq!(
            build_context(&entries, None, rules),
            Err(SessionError::Loops { entry: 1 })
        );
    }
}

#[test]
fn a_missing_parent_ends_the_walk() {
    let entries = [user("a", None, "one"), user("b", Some("zz"), "two")];
    assert_eq!(
        texts(&build(&entries, SessionRules::Canonical)),
        [json!("two")]
    );
}

/// The entry just before a child is its parent only when no later entry reuses the parent's id.
#[test]
fn a_parent_id_names_the_last_entry_with_that_id_even_right_before_the_child() {
    let entries = [
        user("root", None, "root"),
        user("a", Some("root"), "first a"),
        user("child", Some("a"), "child"),
        user("a", None, "second a"),
    ];
    for rules in SessionRules::ALL {
        let context = build_context(&entries, Some(&json!("child")), rules).unwrap();
        assert_eq!(texts(&context), [json!("second a"), json!("child")]);
    }
}

#[test]
fn explicit_null_leaf_selects_nothing_and_unknown_leaf_falls_back_to_the_last() {
    let entries = [user("a", None, "one"), user("b", Some("a"), "two")];
    for rules in SessionRules::ALL {
        let none = build_context(&entries, Some(&Value::Null), rules).unwrap();
        assert!(none.messages.is_empty());
        let unknown = build_context(&entries, Some(&json!("nope")), rules).unwrap();
        assert_eq!(texts(&unknown), [json!("one"), json!("two")]);
        let first = build_context(&entries, Some(&json!("a")), rules).unwrap();
        assert_eq!(texts(&first), [json!("one")]);
    }
}

#[test]
fn a_message_entry_without_a_message_throws_like_pi() {
    let entries = [json!({"type": "message", "id": "a", "parentId": null})];
    assert_eq!(
        build_context(&entries, None, SessionRules::Split),
        Err(SessionError::Throws(
            "TypeError: Cannot read properties of undefined (reading 'role')".into()
        ))
    );
    // 0.79 too: it reads the role of every message on the path for the model.
    assert_eq!(
        build_context(&entries, None, SessionRules::Legacy),
        Err(SessionError::Throws(
            "TypeError: Cannot read properties of undefined (reading 'role')".into()
        ))
    );
    let null_entry = [Value::Null];
    assert_eq!(
        build_context(&null_entry, None, SessionRules::Legacy),
        Err(SessionError::Throws(
            "TypeError: Cannot read properties of null (reading 'id')".into()
        ))
    );
}

#[test]
fn null_content_is_normalised_from_0_80_4_only() {
    let entries = [json!({"type": "message", "id": "a", "parentId": null,
                          "message": {"role": "assistant", "content": null}})];
    assert_eq!(
        build(&entries, SessionRules::Legacy).messages[0].to_value()["content"],
        Value::Null
    );
    assert_eq!(
        build(&entries, SessionRules::Split).messages[0].to_value(),
        json!({"role": "assistant", "content": []}),
        "the message keeps its other fields"
    );
    let system =
        [json!({"type": "message", "id": "a", "parentId": null, "message": {"role": "system"}})];
    assert_eq!(
        build(&system, SessionRules::Canonical).messages[0].to_value()["content"],
        json!("")
    );
    assert!(
        build(&system, SessionRules::Split).messages[0]
            .to_value()
            .get("content")
            .is_none()
    );
}

#[test]
fn custom_message_content_defaults_to_an_empty_list_from_0_80_4() {
    let entries = [
        json!({"type": "custom_message", "id": "a", "parentId": null, "customType": "n",
                          "timestamp": "2026-01-01T00:00:00Z"}),
    ];
    assert!(
        build(&entries, SessionRules::Legacy).messages[0]
            .to_value()
            .get("content")
            .is_none()
    );
    assert_eq!(
        build(&entries, SessionRules::Split).messages[0].to_value()["content"],
        json!([])
    );
    assert_eq!(
        build(&entries, SessionRules::Split).messages[0].to_value()["timestamp"],
        json!(1767225600000_i64)
    );
}

#[test]
fn context_edits_replace_or_omit_only_in_canonical_rules() {
    let assistant = json!({"type": "message", "id": "b", "parentId": "a",
                           "message": {"role": "assistant", "content": [{"type": "text", "text": "old"}]}});
    let edit = json!({"type": "context_edit", "id": "c", "parentId": "b", "targetId": "b",
                      "replacement": {"content": "new"}});
    let omit = json!({"type": "context_edit", "id": "d", "parentId": "c", "targetId": "a", "replacement": null});
    let entries = [user("a", None, "one"), assistant, edit, omit];
    let canonical = build(&entries, SessionRules::Canonical);
    assert_eq!(
        texts(&canonical),
        [json!([{"type": "text", "text": "new"}])]
    );
    let split = build(&entries, SessionRules::Split);
    assert_eq!(
        texts(&split),
        [json!("one"), json!([{"type": "text", "text": "old"}])]
    );
}

#[test]
fn the_latest_edit_of_a_target_wins_and_a_string_stays_a_string_for_users() {
    let entries = [
        user("a", None, "one"),
        json!({"type": "context_edit", "id": "c", "parentId": "a", "targetId": "a", "replacement": {"content": "x"}}),
        json!({"type": "context_edit", "id": "d", "parentId": "c", "targetId": "a", "replacement": {"content": "y"}}),
    ];
    assert_eq!(
        texts(&build(&entries, SessionRules::Canonical)),
        [json!("y")]
    );
}

#[test]
fn an_edit_without_replacement_throws_like_pi() {
    let entries = [
        user("a", None, "one"),
        json!({"type": "context_edit", "id": "c", "parentId": "a", "targetId": "a"}),
    ];
    assert_eq!(
        build_context(&entries, None, SessionRules::Canonical),
        Err(SessionError::Throws(
            "TypeError: Cannot read properties of undefined (reading 'content')".into()
        ))
    );
}

#[test]
fn compaction_system_message_and_kept_system_messages_follow_the_release() {
    let entries = [
        json!({"type": "message", "id": "s", "parentId": null, "message": {"role": "system", "content": "old prompt"}}),
        user("a", Some("s"), "one"),
        json!({"type": "compaction", "id": "c", "parentId": "a", "summary": "S", "firstKeptEntryId": "s",
               "tokensBefore": 1, "timestamp": "2026-01-01T00:00:00Z",
               "systemMessage": {"role": "system", "content": "new prompt"}}),
    ];
    let canonical = build(&entries, SessionRules::Canonical);
    assert_eq!(
        texts(&canonical),
        [json!("new prompt"), json!("S"), json!("one")]
    );
    let split = build(&entries, SessionRules::Split);
    assert_eq!(
        texts(&split),
        [json!("S"), json!("old prompt"), json!("one")]
    );
}

#[test]
fn an_older_compaction_in_the_kept_range_speaks_only_in_0_81() {
    let entries = [
        user("a", None, "one"),
        json!({"type": "compaction", "id": "c1", "parentId": "a", "summary": "OLD", "firstKeptEntryId": "a"}),
        json!({"type": "compaction", "id": "c2", "parentId": "c1", "summary": "NEW", "firstKeptEntryId": "a"}),
    ];
    assert_eq!(
        texts(&build(&entries, SessionRules::Legacy)),
        [json!("NEW"), json!("one")]
    );
    assert_eq!(
        texts(&build(&entries, SessionRules::Split)),
        [json!("NEW"), json!("one"), json!("OLD")]
    );
    assert_eq!(
        texts(&build(&entries, SessionRules::Canonical)),
        [json!("NEW"), json!("one")]
    );
}

#[test]
fn settings_follow_the_path() {
    let entries = [
        json!({"type": "thinking_level_change", "id": "t", "parentId": null}),
        json!({"type": "message", "id": "a", "parentId": "t",
               "message": {"role": "assistant", "provider": "p", "model": "m", "content": []}}),
    ];
    let context = build(&entries, SessionRules::Canonical);
    assert_eq!(
        context.thinking_level, None,
        "an undefined level stays undefined"
    );
    assert_eq!(
        context.model.to_value(),
        json!({"provider": "p", "modelId": "m"})
    );
    assert_eq!(context.to_json().get("thinkingLevel"), None);
}

#[test]
fn a_branch_summary_speaks_only_when_its_summary_is_truthy() {
    let summary = |id: &str, parent: &str, text: &str| {
        json!({"type": "branch_summary", "id": id, "parentId": parent, "fromId": "x",
               "summary": text, "timestamp": "2026-01-01T00:00:02.000Z"})
    };
    let entries = [
        user("a", None, "hi"),
        summary("b", "a", ""),
        summary("c", "b", "went left"),
    ];
    for rules in [
        SessionRules::Legacy,
        SessionRules::Split,
        SessionRules::Canonical,
    ] {
        assert_eq!(
            texts(&build(&entries, rules)),
            [json!("hi"), json!("went left")],
            "{rules:?}"
        );
    }
}

/// pi 0.79 starts from the latest compaction: a kept id found on no entry before it keeps nothing
/// before it, and nothing between an older compaction and the latest.
#[test]
fn legacy_rules_keep_only_what_follows_the_latest_compaction_when_its_kept_id_is_not_found() {
    let compaction = |id: &str, parent: &str, summary: &str, kept: &str| {
        json!({"type": "compaction", "id": id, "parentId": parent, "summary": summary,
               "firstKeptEntryId": kept, "tokensBefore": 10, "timestamp": "2026-01-01T00:00:03.000Z"})
    };
    let entries = [
        user("a", None, "u1"),
        compaction("b", "a", "S1", "a"),
        user("c", Some("b"), "u2"),
        compaction("d", "c", "S2", "nowhere"),
        user("e", Some("d"), "u3"),
    ];
    assert_eq!(
        texts(&build(&entries, SessionRules::Legacy)),
        [json!("S2"), json!("u3")]
    );
}
