//! Chat transcripts as AutoBot stores and sends them, from fuzz bytes: API-schema messages
//! (`role/content/tool_calls/tool_call_id`) and stored ones (`sender/text/messageType`) mixed,
//! multimodal list content, earlier `context_summary` messages, non-object entries, malformed tool
//! calls (non-objects, arguments that are not JSON, flat `name/args` calls, missing names), and the
//! damage the pi generator applies to results (dropped, duplicated, reordered, a foreign message
//! spliced between a call and its result).
//!
//! As in [`super::pi`], an exhausted input picks the most ordinary option everywhere, so shrinking
//! the bytes moves toward ordinary transcripts. A transcript is built with [`Build`].

use std::borrow::Cow;

use arbitrary::{Result, Unstructured};
use serde::Serialize;

use crate::transcript::build::Build;

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
pub fn transcript<B: Build + Serialize>(u: &mut Unstructured<'_>) -> Result<Vec<B>> {
    let mut out = Vec::new();
    let turns = u.int_in_range(1..=8)?;
    for turn in 0..turns {
        if !rarely(u, 10)? {
            out.push(user(u)?);
        }
        let calls = *u.choose(&[1usize, 0, 2, 3])?;
        let ids: Vec<String> = (0..calls).map(|i| format!("call_{turn}_{i}")).collect();
        out.push(assistant(u, &ids)?);
        let mut results: Vec<B> = Vec::with_capacity(ids.len());
        for id in &ids {
            results.push(tool_result(u, id)?);
        }
        damage(u, &mut results)?;
        out.append(&mut results);
        if !rarely(u, 60)? {
            out.push(B::object(vec![
                ("role", B::text("assistant")),
                ("content", string(text(u)?)),
            ]));
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
fn text(u: &mut Unstructured<'_>) -> Result<Cow<'static, str>> {
    let word = *u.choose(&WORDS)?;
    Ok(if rarely(u, 40)? {
        Cow::Owned(super::repeated(word, u.int_in_range(2..=64)?))
    } else {
        Cow::Borrowed(word)
    })
}

/// A text as a JSON string, borrowed when it is one of the constant phrases.
fn string<B: Build>(text: Cow<'static, str>) -> B {
    match text {
        Cow::Borrowed(text) => B::text(text),
        Cow::Owned(text) => B::string(text),
    }
}

fn user<B: Build>(u: &mut Unstructured<'_>) -> Result<B> {
    let text = string::<B>(text(u)?);
    let role = ("role", B::text("user"));
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => B::object(vec![role, ("content", text)]),
        6 | 7 => B::object(vec![
            ("sender", B::text("user")),
            ("text", text),
            ("messageType", B::text("default")),
        ]),
        8 => {
            let image = B::object(vec![("type", B::text("image"))]);
            let blocks = B::array(vec![text_block(text), image]);
            B::object(vec![role, ("content", blocks)])
        }
        _ => B::object(vec![role, ("content", B::text("")), ("text", text)]),
    })
}

/// `{"type": "text", "text": text}`.
fn text_block<B: Build>(text: B) -> B {
    B::object(vec![("type", B::text("text")), ("text", text)])
}

fn assistant<B: Build + Serialize>(u: &mut Unstructured<'_>, ids: &[String]) -> Result<B> {
    let mut calls = Vec::with_capacity(ids.len());
    for id in ids {
        calls.push(call(u, id)?);
    }
    let content = if rarely(u, 30)? {
        B::null()
    } else {
        string(text(u)?)
    };
    Ok(B::object(vec![
        ("role", B::text("assistant")),
        ("content", content),
        ("tool_calls", B::array(calls)),
    ]))
}

fn call<B: Build + Serialize>(u: &mut Unstructured<'_>, id: &str) -> Result<B> {
    let name = *u.choose(&TOOLS)?;
    let arg = string::<B>(text(u)?);
    // Keys in sorted order: the arguments' JSON text is the one a `Value` (whose keys are sorted)
    // wrote, which the seeds' recorded cases hold.
    let args = match u.int_in_range(0..=3u8)? {
        0 => B::object(vec![
            ("command", arg),
            ("path", B::string(format!("src/{name}.rs"))),
        ]),
        1 => B::object(vec![
            ("command", B::string(format!("make {name}"))),
            ("file_path", arg),
        ]),
        2 => B::object(vec![
            ("command", B::text("")),
            ("file_path", B::text("b.py")),
            ("path", B::text("")),
        ]),
        _ => B::object(vec![
            (
                "command",
                B::array(["not", "a", "string"].map(B::text).into()),
            ),
            ("path", B::number(7)),
        ]),
    };
    let id = || ("id", B::string(id.to_string()));
    let function = |fields| ("function", B::object(fields));
    let name = || ("name", B::text(name));
    Ok(match u.int_in_range(0..=19u8)? {
        0..=13 => {
            let arguments = serde_json::to_string(&args).expect("a document serialises");
            B::object(vec![
                id(),
                ("type", B::text("function")),
                function(vec![name(), ("arguments", B::string(arguments))]),
            ])
        }
        14 | 15 => B::object(vec![id(), function(vec![name(), ("arguments", args)])]),
        16 => B::object(vec![id(), name(), ("args", args)]),
        17 => B::object(vec![
            id(),
            function(vec![name(), ("arguments", B::text("{not json"))]),
        ]),
        18 => B::object(vec![id(), function(vec![("arguments", B::text("{}"))])]),
        _ => B::array(["not", "a", "call"].map(B::text).into()),
    })
}

fn tool_result<B: Build>(u: &mut Unstructured<'_>, id: &str) -> Result<B> {
    let body = string::<B>(text(u)?);
    let role = ("role", B::text("tool"));
    let id = ("tool_call_id", B::string(id.to_string()));
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => B::object(vec![role, id, ("content", body)]),
        6 | 7 => B::object(vec![
            role,
            id,
            ("content", B::array(vec![text_block(body)])),
        ]),
        8 => {
            let image = B::object(vec![("type", B::text("image"))]);
            B::object(vec![
                role,
                id,
                ("content", B::array(vec![image])),
                ("text", body),
            ])
        }
        _ => B::object(vec![role, id, ("content", B::text("")), ("text", body)]),
    })
}

/// Zero to two kinds of damage to one turn's results.
fn damage<B: Build>(u: &mut Unstructured<'_>, results: &mut Vec<B>) -> Result<()> {
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
fn odd_entry<B: Build>(u: &mut Unstructured<'_>) -> Result<B> {
    let text = text(u)?;
    Ok(match u.int_in_range(0..=5u8)? {
        0 => B::object(vec![("role", B::text("system")), ("content", string(text))]),
        1 => B::object(vec![
            ("sender", B::text("system")),
            ("messageType", B::text("context_summary")),
            (
                "text",
                B::string(format!(
                    "Earlier summary.\n\n### User messages (verbatim)\n- {text}"
                )),
            ),
        ]),
        2 => B::object(vec![
            ("sender", B::text("assistant")),
            ("text", string(text)),
            ("messageType", B::text("response")),
        ]),
        3 => string(text),
        4 => B::null(),
        _ => B::number(42),
    })
}
