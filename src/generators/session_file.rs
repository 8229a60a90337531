//! pi session files from fuzz bytes: a generated transcript ([`super::pi::transcript`]) laid out as
//! session entries (docs/oracle.md#pi-session-files-check-and-scan), with what makes
//! `buildSessionContext` interesting around it.
//!
//! - custom and summary messages sometimes written as `custom_message` / `branch_summary` entries;
//! - settings entries (`model_change`, `thinking_level_change`, `label`, `custom`, `session_info`);
//! - compactions whose `firstKeptEntryId` is any earlier entry (mid-cycle ones included, V28) or an
//!   id not on the path (V31), nested compactions (V30), a compaction's `systemMessage`;
//! - `context_edit`s that omit or replace an earlier entry;
//! - branches (a `parentId` naming an older entry), an explicit `leafId`, a missing parent;
//! - version 1 and 2 files (migrations), headerless entry lists, malformed JSONL lines.
//!
//! Ids are unique and every `parentId` names an earlier entry, so the tree has no cycle (pi would
//! loop forever on one). As in [`super::pi`], the byte value 0 (and an exhausted input) picks the
//! ordinary option everywhere. The output is a vectors-protocol input: `{"entries": [...]}` or
//! `{"jsonl": "..."}`, plus `"leafId"` sometimes.

use std::collections::VecDeque;
use std::io::{self, Write};

use arbitrary::{Result, Unstructured};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::{Map, Value, json};

/// One session-mode vectors input from `u`.
pub fn session_input(u: &mut Unstructured<'_>) -> Result<Value> {
    let messages: Vec<JsValue> = super::pi::transcript(u)?;
    let version = *u.choose(&[3, 3, 3, 3, 3, 3, 2, 1])?;
    let mut s = Session {
        u,
        entries: Vec::new(),
        ids: Vec::new(),
        version,
        second: 0,
    };
    if version == 3 && s.coin(300)? {
        // A bare entry list (as the reference vectors V29–V31 give them): no header, no migration.
    } else {
        s.entries
            .push(json!({"type": "session", "version": version, "id": "s1",
            "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}));
    }
    for message in messages {
        s.extras()?;
        let entry = s.entry_for(message.to_value())?;
        s.push(entry)?;
    }
    s.extras()?;
    let mut input = Map::new();
    if version == 3 && s.coin(150)? && !s.ids.is_empty() {
        let leaf = s.u.choose(&s.ids)?.clone();
        input.insert("leafId".into(), Value::String(leaf));
    }
    if s.coin(500)? {
        input.insert("jsonl".into(), Value::String(s.jsonl()?));
    } else {
        input.insert("entries".into(), Value::Array(s.entries));
    }
    Ok(Value::Object(input))
}

struct Session<'u, 'd> {
    u: &'u mut Unstructured<'d>,
    entries: Vec<Value>,
    /// Ids of the entries so far (version 2 and 3 files), in order.
    ids: Vec<String>,
    version: u8,
    second: u32,
}

impl Session<'_, '_> {
    /// True about `per_1000` times in 1,000; false on an exhausted input (which draws 0), so a
    /// loop on a coin always ends.
    fn coin(&mut self, per_1000: u16) -> Result<bool> {
        Ok(self.u.int_in_range(0..=999u16)? >= 1000 - per_1000)
    }

    fn timestamp(&mut self) -> Result<Value> {
        self.second += 1;
        let (minutes, seconds) = (self.second / 60 % 60, self.second % 60);
        Ok(match self.u.int_in_range(0..=99u8)? {
            97 => Value::Null,
            98 => json!(1_767_225_600_123_u64),
            99 => json!("not a date"),
            _ => json!(format!("2026-01-01T00:{minutes:02}:{seconds:02}.000Z")),
        })
    }

    /// Appends `entry` with its id and parent (version 2 and 3; version 1 has neither).
    fn push(&mut self, mut entry: Map<String, Value>) -> Result<()> {
        let timestamp = self.timestamp()?;
        entry.insert("timestamp".into(), timestamp);
        if self.version >= 2 {
            let id = format!("e{}", self.ids.len() + 1);
            let parent = self.parent()?;
            entry.insert("id".into(), Value::String(id.clone()));
            entry.insert("parentId".into(), parent);
            self.ids.push(id);
        }
        self.entries.push(Value::Object(entry));
        Ok(())
    }

    /// Usually the previous entry; sometimes an older one (a branch) or an id that names nothing.
    fn parent(&mut self) -> Result<Value> {
        let Some(last) = self.ids.last().cloned() else {
            return Ok(Value::Null);
        };
        Ok(match self.u.int_in_range(0..=99u8)? {
            95..=98 => Value::String(self.u.choose(&self.ids)?.clone()),
            99 => Value::String("gone".into()),
            _ => Value::String(last),
        })
    }

    fn entry_for(&mut self, message: Value) -> Result<Map<String, Value>> {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let as_entry = self.coin(600)?;
        let mut entry = Map::new();
        match role {
            "custom" if as_entry => {
                entry.insert("type".into(), json!("custom_message"));
                for key in ["customType", "content", "display", "details"] {
                    if let Some(value) = message.get(key) {
                        entry.insert(key.into(), value.clone());
                    }
                }
            }
            "branchSummary" if as_entry => {
                entry.insert("type".into(), json!("branch_summary"));
                entry.insert(
                    "fromId".into(),
                    message.get("fromId").cloned().unwrap_or(Value::Null),
                );
                let summary = message.get("summary").cloned().unwrap_or(Value::Null);
                let summary = if self.coin(100)? { json!("") } else { summary };
                entry.insert("summary".into(), summary);
            }
            "compactionSummary" if as_entry => return self.compaction(),
            _ => {
                entry.insert("type".into(), json!("message"));
                let message = if self.version < 3 && role == "custom" && self.coin(500)? {
                    with_role(message, "hookMessage")
                } else {
                    message
                };
                entry.insert("message".into(), message);
            }
        }
        Ok(entry)
    }

    /// Zero or more entries that are not messages of the transcript.
    fn extras(&mut self) -> Result<()> {
        while self.coin(120)? {
            let entry = match self.u.int_in_range(0..=9u8)? {
                0..=2 => self.compaction()?,
                3 | 4 if self.version >= 2 => self.context_edit()?,
                5 => object(
                    json!({"type": "model_change", "provider": "openai", "modelId": "gpt-5"}),
                ),
                6 => object(json!({"type": "thinking_level_change",
                    "thinkingLevel": *self.u.choose(&["high", "low", "off"])?})),
                7 => object(json!({"type": "label", "targetId": "e1", "label": "start"})),
                8 => object(json!({"type": "custom", "customType": "state", "data": {"n": 1}})),
                _ => object(json!({"type": "session_info", "name": "work"})),
            };
            self.push(entry)?;
        }
        Ok(())
    }

    fn compaction(&mut self) -> Result<Map<String, Value>> {
        let mut entry = object(json!({"type": "compaction", "summary": "earlier work",
            "tokensBefore": 1000}));
        if self.version == 1 {
            let at = self.u.int_in_range(0..=self.entries.len())?;
            entry.insert("firstKeptEntryIndex".into(), json!(at));
        } else {
            let kept = match self.u.int_in_range(0..=9u8)? {
                0 => "nope".to_string(),
                _ if self.ids.is_empty() => "nope".to_string(),
                _ => self.u.choose(&self.ids)?.clone(),
            };
            entry.insert("firstKeptEntryId".into(), Value::String(kept));
        }
        if self.coin(150)? {
            entry.insert(
                "systemMessage".into(),
                json!({"role": "system", "content": "You are pi.", "timestamp": 5}),
            );
        }
        Ok(entry)
    }

    fn context_edit(&mut self) -> Result<Map<String, Value>> {
        let target = if self.ids.is_empty() {
            "nope".to_string()
        } else {
            self.u.choose(&self.ids)?.clone()
        };
        let replacement = match self.u.int_in_range(0..=3u8)? {
            0 | 1 => Value::Null,
            2 => json!({"content": "edited"}),
            _ => json!({"content": [{"type": "text", "text": "edited"}]}),
        };
        Ok(object(
            json!({"type": "context_edit", "targetId": target, "replacement": replacement}),
        ))
    }

    /// The entries as a JSONL file, with a blank line or a malformed line now and then.
    fn jsonl(&mut self) -> Result<String> {
        let mut text = String::new();
        for entry in &self.entries {
            text.push_str(&entry.to_string());
            text.push('\n');
            match self.u.int_in_range(0..=49u8)? {
                48 => text.push_str("{\"type\": \"message\", \"trunc\n"),
                49 => text.push_str("   \n"),
                _ => {}
            }
        }
        Ok(text)
    }
}

/// Writes a long pi session file (version 3) line by line: `messages` messages of
/// [`super::long_session`] as message entries, with what a long session has around them now and
/// then: an abandoned branch (two entries off the path, then a `branch_summary` on the path),
/// a compaction keeping the last few hundred turns, model and thinking-level changes, custom
/// messages and `context_edit`s of a user message. Deterministic from the seed; the workload of
/// `check`'s memory test for session files and of its figure (docs/figures.md).
pub fn write_long(out: &mut impl Write, messages: usize, seed: u64) -> io::Result<()> {
    writeln!(
        out,
        r#"{{"type":"session","version":3,"id":"long-{seed}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}}"#
    )?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut file = LongFile {
        out,
        entries: 0,
        leaf: None,
        turns: VecDeque::new(),
    };
    super::long_session::for_each_message(messages, seed, |message| {
        let message = message.to_string();
        if message.starts_with(r#"{"role":"user""#) {
            file.between_turns(&mut rng)?;
            let id = file.entry(r#""type":"message""#, &format!(r#""message":{message}"#))?;
            file.turns.push_back(id);
            if file.turns.len() > 500 {
                file.turns.pop_front();
            }
            Ok(())
        } else {
            file.entry(r#""type":"message""#, &format!(r#""message":{message}"#))
                .map(drop)
        }
    })
}

/// A long session file being written: entries chained from the leaf.
struct LongFile<'w, W> {
    out: &'w mut W,
    entries: usize,
    leaf: Option<String>,
    /// The ids of the last 500 user messages' entries.
    turns: VecDeque<String>,
}

impl<W: Write> LongFile<'_, W> {
    /// Writes an entry (`kind` and `fields`, JSON members) as the leaf's child; its id.
    fn entry(&mut self, kind: &str, fields: &str) -> io::Result<String> {
        self.entries += 1;
        let id = format!("e{}", self.entries);
        let parent = self
            .leaf
            .as_ref()
            .map_or("null".to_string(), |leaf| format!(r#""{leaf}""#));
        writeln!(
            self.out,
            r#"{{{kind},"id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z",{fields}}}"#
        )?;
        self.leaf = Some(id.clone());
        Ok(id)
    }

    /// What may come before a user message besides the transcript's messages.
    fn between_turns(&mut self, rng: &mut fastrand::Rng) -> io::Result<()> {
        let (Some(recent), Some(oldest)) =
            (self.turns.back().cloned(), self.turns.front().cloned())
        else {
            return Ok(());
        };
        match rng.u32(..100_000) {
            0..500 => {
                let branch_point = self.leaf.clone();
                self.entry(
                    r#""type":"message""#,
                    r#""message":{"role":"user","content":"try another way","timestamp":1}"#,
                )?;
                let abandoned = self.entry(
                    r#""type":"message""#,
                    r#""message":{"role":"assistant","content":[{"type":"text","text":"that did not work"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1}"#,
                )?;
                self.leaf = branch_point;
                self.entry(
                    r#""type":"branch_summary""#,
                    &format!(r#""fromId":"{abandoned}","summary":"tried another way""#),
                )?;
            }
            500..502 => {
                self.entry(
                    r#""type":"compaction""#,
                    &format!(
                        r#""summary":"earlier work","firstKeptEntryId":"{oldest}","tokensBefore":150000"#
                    ),
                )?;
            }
            502..552 => {
                self.entry(
                    r#""type":"model_change""#,
                    r#""provider":"anthropic","modelId":"claude-sonnet-4-5""#,
                )?;
            }
            552..602 => {
                self.entry(
                    r#""type":"thinking_level_change""#,
                    r#""thinkingLevel":"high""#,
                )?;
            }
            602..702 => {
                self.entry(
                    r#""type":"custom_message""#,
                    r#""customType":"note","content":"remember the plan","display":true"#,
                )?;
            }
            702..752 => {
                self.entry(
                    r#""type":"context_edit""#,
                    &format!(r#""targetId":"{recent}","replacement":{{"content":"edited"}}"#),
                )?;
            }
            _ => {}
        }
        Ok(())
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn with_role(mut message: Value, role: &str) -> Value {
    if let Value::Object(map) = &mut message {
        map.insert("role".into(), Value::String(role.into()));
    }
    message
}
