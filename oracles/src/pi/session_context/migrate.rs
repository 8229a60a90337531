//! pi's session-file migrations (v1 → v2 → v3), applied on load when the file has a header.
//!
//! v1 → v2 gives every entry an id and chains the `parentId`s in file order, and turns a
//! compaction's `firstKeptEntryIndex` into `firstKeptEntryId`; v2 → v3 renames the message role
//! `hookMessage` to `custom`. pi's new ids are random; ctxfuzz gives `migrated-00000001`,
//! `migrated-00000002`, ... so a run reproduces (ids never reach the model: only the tree they
//! describe does).

use serde_json::{Map, Value};

use super::{SessionError, cannot_read};
use crate::js::truthy;

const CURRENT_VERSION: f64 = 3.0;

/// Migrates `entries` in place when they contain a `session` header older than version 3.
/// Returns whether anything was migrated. Throws where pi's code throws (a `null` entry, an id
/// written onto a string or a number).
pub fn migrate(entries: &mut [Value]) -> Result<bool, SessionError> {
    let Some(header) = find_header(entries)? else {
        return Ok(false);
    };
    // `header?.version ?? 1`, compared the way JavaScript compares a value with a number.
    let version = match header.get("version") {
        None | Some(Value::Null) => 1.0,
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
fn find_header(entries: &[Value]) -> Result<Option<&Value>, SessionError> {
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

fn is_header(entry: &Value) -> bool {
    entry.get("type").and_then(Value::as_str) == Some("session")
}

fn v1_to_v2(entries: &mut [Value]) -> Result<(), SessionError> {
    let mut previous = Value::Null;
    for index in 0..entries.len() {
        if entries[index].is_null() {
            return Err(cannot_read(Some(&entries[index]), "type"));
        }
        if is_header(&entries[index]) {
            set_version(&mut entries[index], 2);
            continue;
        }
        let id = Value::String(format!("migrated-{:08}", index + 1));
        let entry = object_mut(&mut entries[index], "id")?;
        entry.insert("id".into(), id.clone());
        entry.insert("parentId".into(), std::mem::replace(&mut previous, id));
        let is_v1_compaction = entry.get("type").and_then(Value::as_str) == Some("compaction")
            && entry
                .get("firstKeptEntryIndex")
                .is_some_and(Value::is_number);
        if !is_v1_compaction {
            continue;
        }
        let kept = first_kept_target(entries, index);
        if let Value::Object(entry) = &mut entries[index] {
            match kept {
                Some(Some(target_id)) => entry.insert("firstKeptEntryId".into(), target_id),
                // The target has no id: pi assigns `undefined`, which reads like a missing field.
                Some(None) => entry.remove("firstKeptEntryId"),
                None => None,
            };
            entry.remove("firstKeptEntryIndex");
        }
    }
    Ok(())
}

/// For a v1 compaction at `index`: the id of the entry its `firstKeptEntryIndex` names, when that
/// entry exists, is truthy and is not a header (`Some(None)`: it has no id). Entries before
/// `index` already carry their new ids, later ones still have their old ones, as in pi.
fn first_kept_target(entries: &[Value], index: usize) -> Option<Option<Value>> {
    let position = entries[index].get("firstKeptEntryIndex")?.as_f64()?;
    if position < 0.0 || position.fract() != 0.0 {
        return None;
    }
    let target = entries.get(position as usize)?;
    if !truthy(Some(target)) || is_header(target) {
        return None;
    }
    Some(target.get("id").cloned())
}

fn v2_to_v3(entries: &mut [Value]) -> Result<(), SessionError> {
    for entry in entries.iter_mut() {
        if entry.is_null() {
            return Err(cannot_read(Some(entry), "type"));
        }
        if is_header(entry) {
            set_version(entry, 3);
            continue;
        }
        if entry.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        if let Some(Value::Object(message)) = entry.get_mut("message")
            && message.get("role").and_then(Value::as_str) == Some("hookMessage")
        {
            message.insert("role".into(), Value::String("custom".into()));
        }
    }
    Ok(())
}

fn set_version(header: &mut Value, version: u8) {
    if let Value::Object(header) = header {
        header.insert("version".into(), Value::from(version));
    }
}

/// The entry as an object to write `property` on; JavaScript (strict mode) throws for a
/// primitive. An array would keep the property in JavaScript but lose it in JSON: not modelled,
/// reported as the same throw.
fn object_mut<'a>(
    entry: &'a mut Value,
    property: &str,
) -> Result<&'a mut Map<String, Value>, SessionError> {
    let shown = match &*entry {
        Value::String(s) => format!("string '{s}'"),
        Value::Number(n) => format!("number '{n}'"),
        Value::Bool(b) => format!("boolean '{b}'"),
        _ => "array".to_string(),
    };
    match entry {
        Value::Object(map) => Ok(map),
        _ => Err(SessionError::Throws(format!(
            "TypeError: Cannot create property '{property}' on {shown}"
        ))),
    }
}

/// JavaScript `Number(value)` for the values a version field holds (objects and arrays: `NaN`).
fn js_number(value: &Value) -> f64 {
    match value {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => match s.trim() {
            "" => 0.0,
            text => text.parse().unwrap_or(f64::NAN),
        },
        Value::Array(_) | Value::Object(_) => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v1_files_get_chained_ids_and_kept_ids() {
        let mut entries = vec![
            json!({"type": "session", "version": 1}),
            json!({"type": "message", "message": {"role": "user", "content": "a"}}),
            json!({"type": "message", "message": {"role": "hookMessage", "content": "b"}}),
            json!({"type": "compaction", "summary": "s", "firstKeptEntryIndex": 2}),
        ];
        assert!(migrate(&mut entries).unwrap());
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
        let mut current = vec![json!({"type": "session", "version": 3}), json!({"id": "a"})];
        let before = current.clone();
        assert!(!migrate(&mut current).unwrap());
        assert_eq!(current, before);
        let mut headless = vec![json!({"type": "message", "message": {"role": "hookMessage"}})];
        assert!(!migrate(&mut headless).unwrap());
        assert_eq!(headless[0]["message"]["role"], "hookMessage");
    }

    #[test]
    fn v2_files_only_rename_hook_messages() {
        let mut entries = vec![
            json!({"type": "session", "version": "2"}),
            json!({"type": "message", "id": "k", "message": {"role": "hookMessage"}}),
        ];
        assert!(migrate(&mut entries).unwrap());
        assert_eq!(entries[1]["id"], "k");
        assert_eq!(entries[1]["message"]["role"], "custom");
    }

    #[test]
    fn throws_where_pi_throws() {
        let mut null_first = vec![Value::Null, json!({"type": "session", "version": 1})];
        assert_eq!(
            migrate(&mut null_first),
            Err(SessionError::Throws(
                "TypeError: Cannot read properties of null (reading 'type')".into()
            ))
        );
        let mut primitive = vec![json!({"type": "session", "version": 1}), json!(5)];
        assert_eq!(
            migrate(&mut primitive),
            Err(SessionError::Throws(
                "TypeError: Cannot create property 'id' on number '5'".into()
            ))
        );
    }
}
