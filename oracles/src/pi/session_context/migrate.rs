//! pi's session-file migrations (v1 → v2 → v3), applied on load when the file has a header.
//!
//! v1 → v2 gives every entry an id and chains the `parentId`s in file order, and turns a
//! compaction's `firstKeptEntryIndex` into `firstKeptEntryId`; v2 → v3 renames the message role
//! `hookMessage` to `custom`. pi's new ids are random; ctxfuzz gives `migrated-00000001`,
//! `migrated-00000002`, ... so a run reproduces (ids never reach the model: only the tree they
//! describe does).

use super::{SessionError, cannot_read};
use crate::js::{field, is_str, truthy};
use crate::js_value::{JsValue, Object};

const CURRENT_VERSION: f64 = 3.0;

/// Migrates `entries` in place when they contain a `session` header older than version 3.
/// Returns whether anything was migrated. Throws where pi's code throws (a `null` entry, an id
/// written onto a string or a number).
pub fn migrate(entries: &mut [JsValue<'_>]) -> Result<bool, SessionError> {
    let Some(header) = find_header(entries)? else {
        return Ok(false);
    };
    // `header?.version ?? 1`, compared the way JavaScript compares a value with a number.
    let version = match field(header, "version") {
        None | Some(JsValue::Null) => 1.0,
        Some(v) => js_number(v),
    };
    if version >= CURRENT_VERSION {
        return Ok(false);
    }
    if version < 2.0 {
        v1_to_v2(entries)?;
    }
    if version < 3.0 {
        v2_to_v3(entries)?;
    }
    Ok(true)
}

/// `entries.find((e) => e.type === "session")`, which throws on a `null` before the header.
fn find_header<'e, 'a>(
    entries: &'e [JsValue<'a>],
) -> Result<Option<&'e JsValue<'a>>, SessionError> {
    for entry in entries {
        if entry.is_null() {
            return Err(cannot_read(Some(entry), "type"));
        }
        if is_header(entry) {
            return Ok(Some(entry));
        }
    }
    Ok(None)
}

fn is_header(entry: &JsValue) -> bool {
    is_str(field(entry, "type"), "session")
}

fn v1_to_v2(entries: &mut [JsValue<'_>]) -> Result<(), SessionError> {
    let mut previous = JsValue::Null;
    for index in 0..entries.len() {
        if entries[index].is_null() {
            return Err(cannot_read(Some(&entries[index]), "type"));
        }
        if is_header(&entries[index]) {
            set_version(&mut entries[index], 2);
            continue;
        }
        let id = JsValue::from(format!("migrated-{:08}", index + 1));
        let entry = object_mut(&mut entries[index], "id")?;
        entry.insert("id", id.clone());
        entry.insert("parentId", std::mem::replace(&mut previous, id));
        let is_v1_compaction = is_str(entry.get("type"), "compaction")
            && entry
                .get("firstKeptEntryIndex")
                .is_some_and(|index| matches!(index, JsValue::Number(_)));
        if !is_v1_compaction {
            continue;
        }
        let kept = first_kept_target(entries, index);
        if let JsValue::Object(entry) = &mut entries[index] {
            match kept {
                Some(Some(target_id)) => entry.insert("firstKeptEntryId", target_id),
                // The target has no id: pi assigns `undefined`, which reads like a missing field.
                Some(None) => entry.remove("firstKeptEntryId"),
                None => {}
            };
            entry.remove("firstKeptEntryIndex");
        }
    }
    Ok(())
}

/// For a v1 compaction at `index`: the id of the entry its `firstKeptEntryIndex` names, when that
/// entry exists, is truthy and is not a header (`Some(None)`: it has no id). Entries before
/// `index` already carry their new ids, later ones still have their old ones, as in pi.
fn first_kept_target<'a>(entries: &[JsValue<'a>], index: usize) -> Option<Option<JsValue<'a>>> {
    let position = field(&entries[index], "firstKeptEntryIndex")?.as_f64()?;
    if position < 0.0 || position.fract() != 0.0 {
        return None;
    }
    let target = entries.get(position as usize)?;
    if !truthy(Some(target)) || is_header(target) {
        return None;
    }
    Some(field(target, "id").cloned())
}

fn v2_to_v3(entries: &mut [JsValue<'_>]) -> Result<(), SessionError> {
    for entry in entries.iter_mut() {
        if entry.is_null() {
            return Err(cannot_read(Some(entry), "type"));
        }
        if is_header(entry) {
            set_version(entry, 3);
            continue;
        }
        if !is_str(field(entry, "type"), "message") {
            continue;
        }
        if let JsValue::Object(entry) = entry
            && let Some(JsValue::Object(message)) = entry.get_mut("message")
            && is_str(message.get("role"), "hookMessage")
        {
            message.insert("role", JsValue::from("custom"));
        }
    }
    Ok(())
}

fn set_version(header: &mut JsValue, version: u64) {
    if let JsValue::Object(header) = header {
        header.insert("version", JsValue::from(version));
    }
}

/// The entry as an object to write `property` on; JavaScript (strict mode) throws for a
/// primitive. An array would keep the property in JavaScript but lose it in JSON: not modelled,
/// reported as the same throw.
fn object_mut<'e, 'a>(
    entry: &'e mut JsValue<'a>,
    property: &str,
) -> Result<&'e mut Object<'a>, SessionError> {
    let shown = match &*entry {
        JsValue::String(s) => format!("string '{}'", &**s),
        JsValue::Number(n) => format!("number '{n}'"),
        JsValue::Bool(b) => format!("boolean '{b}'"),
        _ => "array".to_string(),
    };
    match entry {
        JsValue::Object(map) => Ok(map),
        _ => Err(SessionError::Throws(format!(
            "TypeError: Cannot create property '{property}' on {shown}"
        ))),
    }
}

/// JavaScript `Number(value)` for the values a version field holds (objects and arrays: `NaN`).
fn js_number(value: &JsValue) -> f64 {
    match value {
        JsValue::Null => 0.0,
        JsValue::Bool(b) => f64::from(u8::from(*b)),
        JsValue::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        JsValue::String(s) => match s.trim() {
            "" => 0.0,
            text => text.parse().unwrap_or(f64::NAN),
        },
        JsValue::Array(_) | JsValue::Object(_) => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// `migrate` on entries written as JSON, and the entries it leaves.
    fn migrated(entries: Vec<Value>) -> (Result<bool, SessionError>, Vec<Value>) {
        let mut entries: Vec<JsValue> = entries.into_iter().map(JsValue::from).collect();
        let result = migrate(&mut entries);
        (result, entries.iter().map(JsValue::to_value).collect())
    }

    #[test]
    fn v1_files_get_chained_ids_and_kept_ids() {
        let (result, entries) = migrated(vec![
            json!({"type": "session", "version": 1}),
            json!({"type": "message", "message": {"role": "user", "content": "a"}}),
            json!({"type": "message", "message": {"role": "hookMessage", "content": "b"}}),
            json!({"type": "compaction", "summary": "s", "firstKeptEntryIndex": 2}),
        ]);
        assert!(result.unwrap());
        assert_eq!(entries[0]["version"], 3);
        assert_eq!(entries[1]["parentId"], Value::Null);
        assert_eq!(entries[2]["parentId"], entries[1]["id"]);
        assert_eq!(entries[3]["parentId"], entries[2]["id"]);
        assert_eq!(entries[3]["firstKeptEntryId"], entries[2]["id"]);
        assert!(entries[3].get("firstKeptEntryIndex").is_none());
        assert_eq!(entries[2]["message"]["role"], "custom");
    }

    #[test]
    fn current_files_and_files_without_a_header_are_left_alone() {
        let current = vec![json!({"type": "session", "version": 3}), json!({"id": "a"})];
        let (result, after) = migrated(current.clone());
        assert!(!result.unwrap());
        assert_eq!(after, current);
        let (result, headless) = migrated(vec![
            json!({"type": "message", "message": {"role": "hookMessage"}}),
        ]);
        assert!(!result.unwrap());
        assert_eq!(headless[0]["message"]["role"], "hookMessage");
    }

    #[test]
    fn v2_files_only_rename_hook_messages() {
        let (result, entries) = migrated(vec![
            json!({"type": "session", "version": "2"}),
            json!({"type": "message", "id": "k", "message": {"role": "hookMessage"}}),
        ]);
        assert!(result.unwrap());
        assert_eq!(entries[1]["id"], "k");
        assert_eq!(entries[1]["message"]["role"], "custom");
    }

    #[test]
    fn throws_where_pi_throws() {
        let (null_first, _) = migrated(vec![Value::Null, json!({"type": "session", "version": 1})]);
        assert_eq!(
            null_first,
            Err(SessionError::Throws(
                "TypeError: Cannot read properties of null (reading 'type')".into()
            ))
        );
        let (primitive, _) = migrated(vec![json!({"type": "session", "version": 1}), json!(5)]);
        assert_eq!(
            primitive,
            Err(SessionError::Throws(
                "TypeError: Cannot create property 'id' on number '5'".into()
            ))
        );
    }
}
