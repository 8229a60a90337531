//! pi-coding-agent's `convertToLlm`: a role-by-role map from agent messages to LLM messages.
//!
//! `user`, `assistant` and `toolResult` (and `system` from 0.86) pass through as the very same
//! object, so they are borrowed; `custom`, `branchSummary`, `compactionSummary` and
//! `bashExecution` become new `user` messages; everything else (unknown roles, excluded bash runs,
//! non-objects) is dropped. A `null` element throws, as `null.role` does in JavaScript.

use std::borrow::{Borrow, Cow};

use crate::js_value::{JsValue, Object, Str};

use super::{PiVersion, Stage, Thrown};
use crate::js::{self, field, to_js_string, truthy};

pub const COMPACTION_PREFIX: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
pub const COMPACTION_SUFFIX: &str = "\n</summary>";
pub const BRANCH_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
pub const BRANCH_SUFFIX: &str = "</summary>";

/// `convertToLlm(messages)` for pi version `v`, borrowing every message it passes through. The
/// messages may be references (`M = &JsValue`): a caller judging several subsets of one transcript
/// converts it to [`JsValue`]s once.
pub fn convert<'a, M: Borrow<JsValue<'a>>>(
    messages: &'a [M],
    v: PiVersion,
) -> Result<Vec<Cow<'a, JsValue<'a>>>, Thrown> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        let message = message.borrow();
        if message.is_null() {
            return Err(Thrown::new(
                Stage::ConvertToLlm,
                js::cannot_read(Some(message), "role"),
            ));
        }
        let Some(role) = field(message, "role").and_then(JsValue::as_str) else {
            continue;
        };
        let timestamp = || field(message, "timestamp");
        let converted = match role {
            "user" | "assistant" | "toolResult" => Cow::Borrowed(message),
            "system" if v.has_system_role() => Cow::Borrowed(message),
            "bashExecution" => {
                if truthy(field(message, "excludeFromContext")) {
                    continue;
                }
                Cow::Owned(user_text(bash_text(message), timestamp()))
            }
            "custom" => {
                let content = match field(message, "content") {
                    Some(JsValue::String(text)) => Some(text_content(text.clone())),
                    other => other.cloned(),
                };
                Cow::Owned(user_message(content, timestamp()))
            }
            "branchSummary" => Cow::Owned(user_text(
                summary_text(BRANCH_PREFIX, field(message, "summary"), BRANCH_SUFFIX),
                timestamp(),
            )),
            "compactionSummary" => Cow::Owned(user_text(
                summary_text(
                    COMPACTION_PREFIX,
                    field(message, "summary"),
                    COMPACTION_SUFFIX,
                ),
                timestamp(),
            )),
            _ => continue,
        };
        out.push(converted);
    }
    Ok(out)
}

fn summary_text(prefix: &str, summary: Option<&JsValue>, suffix: &str) -> String {
    format!("{prefix}{}{suffix}", to_js_string(summary))
}

/// `{role: "user", content: [{type: "text", text}], timestamp}`.
fn user_text<'a>(text: String, timestamp: Option<&JsValue<'a>>) -> JsValue<'a> {
    user_message(Some(text_content(text.into())), timestamp)
}

/// `[{type: "text", text}]`.
fn text_content(text: Str<'_>) -> JsValue<'_> {
    JsValue::from(vec![JsValue::object([
        ("type", JsValue::from("text")),
        ("text", JsValue::String(text)),
    ])])
}

/// `{role: "user", content, timestamp}`; an `undefined` field is left out, as `JSON.stringify` does.
fn user_message<'a>(content: Option<JsValue<'a>>, timestamp: Option<&JsValue<'a>>) -> JsValue<'a> {
    let mut map = Object::new();
    map.insert("role", JsValue::from("user"));
    if let Some(content) = content {
        map.insert("content", content);
    }
    if let Some(timestamp) = timestamp {
        map.insert("timestamp", timestamp.clone());
    }
    JsValue::Object(map)
}

/// `bashExecutionToText`: the command, its output in a fence (or "(no output)"), then the
/// cancellation / non-zero exit note and the truncation note.
fn bash_text(message: &JsValue) -> String {
    let mut text = format!("Ran `{}`\n", to_js_string(field(message, "command")));
    let output = field(message, "output");
    if truthy(output) {
        text.push_str(&format!("```\n{}\n```", to_js_string(output)));
    } else {
        text.push_str("(no output)");
    }
    let exit_code = field(message, "exitCode");
    let exited_zero = exit_code.and_then(JsValue::as_f64) == Some(0.0);
    if truthy(field(message, "cancelled")) {
        text.push_str("\n\n(command cancelled)");
    } else if !js::is_nullish(exit_code) && !exited_zero {
        text.push_str(&format!(
            "\n\nCommand exited with code {}",
            to_js_string(exit_code)
        ));
    }
    let full_output_path = field(message, "fullOutputPath");
    if truthy(field(message, "truncated")) && truthy(full_output_path) {
        text.push_str(&format!(
            "\n\n[Output truncated. Full output: {}]",
            to_js_string(full_output_path)
        ));
    }
    text
}
