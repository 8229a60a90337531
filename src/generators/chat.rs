//! Chat transcripts as AutoBot stores and sends them, from fuzz bytes: API-schema messages
//! (`role/content/tool_calls/tool_call_id`) and stored ones (`sender/text/messageType`) mixed,
//! multimodal list content, earlier `context_summary` messages, non-object entries, malformed tool
//! calls (non-objects, arguments that are not JSON, flat `name/args` calls, missing names), and the
//! damage the pi generator applies to results (dropped, duplicated, reordered, a foreign message
//! spliced between a call and its result).
//!
//! As in [`super::pi`], an exhausted input picks the most ordinary option everywhere, so shrinking
//! the bytes moves toward ordinary transcripts.

use arbitrary::{Result, Unstructured};
use serde_json::{Value, json};

/// Tool names around AutoBot's catalogue prefixes (case, suffixes, near misses).
const TOOLS: [&str; 8] = [
    "write_file",
    "execute_command",
    "read_file",
    "Edit_File_v2",
    "bash",
    "shellcheck",
    "search",
    "RUN_COMMAND",
];
const WORDS: [&str; 8] = [
    "never touch the prod database",
    "add the endpoint",
    "ok",
    "the build is green",
    "- a line that looks like a list item",
    "¿qué pasa?",
    "multi\nline",
    "",
];

/// One chat transcript from `u`; never fails for lack of bytes.
pub fn transcript(u: &mut Unstructured<'_>) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let turns = u.int_in_range(1..=8)?;
    for turn in 0..turns {
        if !rarely(u, 10)? {
            out.push(user(u)?);
        }
        let calls = *u.choose(&[1usize, 0, 2, 3])?;
        let ids: Vec<String> = (0..calls).map(|i| format!("call_{turn}_{i}")).collect();
        out.push(assistant(u, &ids)?);
        let mut results: Vec<Value> = Vec::with_capacity(ids.len());
        for id in &ids {
            results.push(tool_result(u, id)?);
        }
        damage(u, &mut results)?;
        out.append(&mut results);
        if !rarely(u, 60)? {
            out.push(json!({"role": "assistant", "content": text(u)?}));
        }
        if rarely(u, 8)? {
            out.push(odd_entry(u)?);
        }
    }
    Ok(out)
}

/// True about `percent` times in 100; false on an exhausted input.
fn rarely(u: &mut Unstructured<'_>, percent: u8) -> Result<bool> {
    Ok(u.int_in_range(0..=99u8)? >= 100 - percent)
}

/// Text of realistic and unrealistic sizes: a phrase repeated 1 to 64 times.
fn text(u: &mut Unstructured<'_>) -> Result<String> {
    let word = *u.choose(&WORDS)?;
    let times = if rarely(u, 40)? {
        u.int_in_range(2..=64)?
    } else {
        1
    };
    Ok(vec![word; times].join(" "))
}

fn user(u: &mut Unstructured<'_>) -> Result<Value> {
    let text = text(u)?;
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => json!({"role": "user", "content": text}),
        6 | 7 => json!({"sender": "user", "text": text, "messageType": "default"}),
        8 => {
            json!({"role": "user", "content": [{"type": "text", "text": text}, {"type": "image"}]})
        }
        _ => json!({"role": "user", "content": "", "text": text}),
    })
}

fn assistant(u: &mut Unstructured<'_>, ids: &[String]) -> Result<Value> {
    let mut calls = Vec::with_capacity(ids.len());
    for id in ids {
        calls.push(call(u, id)?);
    }
    let content = if rarely(u, 30)? {
        Value::Null
    } else {
        Value::from(text(u)?)
    };
    Ok(json!({"role": "assistant", "content": content, "tool_calls": calls}))
}

fn call(u: &mut Unstructured<'_>, id: &str) -> Result<Value> {
    let name = *u.choose(&TOOLS)?;
    let arg = text(u)?;
    let args = match u.int_in_range(0..=3u8)? {
        0 => json!({"path": format!("src/{name}.rs"), "command": arg}),
        1 => json!({"file_path": arg, "command": format!("make {name}")}),
        2 => json!({"path": "", "file_path": "b.py", "command": ""}),
        _ => json!({"path": 7, "command": ["not", "a", "string"]}),
    };
    Ok(match u.int_in_range(0..=19u8)? {
        0..=13 => {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}})
        }
        14 | 15 => json!({"id": id, "function": {"name": name, "arguments": args}}),
        16 => json!({"id": id, "name": name, "args": args}),
        17 => json!({"id": id, "function": {"name": name, "arguments": "{not json"}}),
        18 => json!({"id": id, "function": {"arguments": "{}"}}),
        _ => json!(["not", "a", "call"]),
    })
}

fn tool_result(u: &mut Unstructured<'_>, id: &str) -> Result<Value> {
    let body = text(u)?;
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => json!({"role": "tool", "tool_call_id": id, "content": body}),
        6 | 7 => {
            json!({"role": "tool", "tool_call_id": id, "content": [{"type": "text", "text": body}]})
        }
        8 => {
            json!({"role": "tool", "tool_call_id": id, "content": [{"type": "image"}], "text": body})
        }
        _ => json!({"role": "tool", "tool_call_id": id, "content": "", "text": body}),
    })
}

/// Zero to two kinds of damage to one turn's results.
fn damage(u: &mut Unstructured<'_>, results: &mut Vec<Value>) -> Result<()> {
    for _ in 0..2 {
        if !rarely(u, 25)? {
            break;
        }
        let n = results.len();
        match u.int_in_range(0..=3u8)? {
            0 => {
                let at = u.int_in_range(0..=n)?;
                results.insert(at, odd_entry(u)?);
            }
            _ if n == 0 => {}
            1 => {
                results.remove(u.choose_index(n)?);
            }
            2 => {
                let copy = results[u.choose_index(n)?].clone();
                results.push(copy);
            }
            _ => {
                let (i, j) = (u.choose_index(n)?, u.choose_index(n)?);
                results.swap(i, j);
            }
        }
    }
    Ok(())
}

/// A message that is not part of a call cycle: a system note, an earlier summary as production
/// persists it, a stored assistant message, or a non-object entry.
fn odd_entry(u: &mut Unstructured<'_>) -> Result<Value> {
    let text = text(u)?;
    Ok(match u.int_in_range(0..=5u8)? {
        0 => json!({"role": "system", "content": text}),
        1 => json!({
            "sender": "system",
            "messageType": "context_summary",
            "text": format!("Earlier summary.\n\n### User messages (verbatim)\n- {text}"),
        }),
        2 => json!({"sender": "assistant", "text": text, "messageType": "response"}),
        3 => Value::from(text),
        4 => Value::Null,
        _ => json!(42),
    })
}
