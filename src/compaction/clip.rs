//! Clipping long tool-result bodies in the view of the region handed to the summariser. The
//! caller's messages are never modified: a clipped message is a copy, every other one is borrowed.

use std::borrow::Cow;

use ctxfuzz_oracles::js::View;

use super::Message;
use super::config::ClipKey;
use super::facts::{Fact, Role};
use super::family::{message_text, text_parts};

/// Appended to a clipped body: U+2026 then ` [clipped]` (11 characters).
pub const CLIP_MARKER: &str = "\u{2026} [clipped]";

/// `message` clipped when it is a tool result longer than `max_chars`, else itself; `fact` is its
/// fact, so a message that is not clipped is not read again.
pub fn clipped<'m, J: Message>(
    message: &'m J,
    fact: &Fact,
    max_chars: usize,
    key: ClipKey,
) -> Cow<'m, J> {
    if !applies(fact, max_chars) {
        return Cow::Borrowed(message);
    }
    // `fact.chars > max_chars`: the cut exists.
    let body = message_text(message);
    let cut = body
        .char_indices()
        .nth(max_chars)
        .map_or(body.len(), |(at, _)| at);
    let mut copy = message.clone();
    copy.set(
        body_key(message, key),
        J::string(format!("{}{CLIP_MARKER}", &body[..cut])),
    );
    Cow::Owned(copy)
}

/// Whether the message whose fact is `fact` is clipped: a tool result longer than `max_chars`.
pub fn applies(fact: &Fact, max_chars: usize) -> bool {
    fact.role == Role::ToolResult && fact.chars > max_chars
}

/// The key the clipped body is written to. `Read` mirrors `message_text`'s precedence (list
/// content with text parts, else non-empty string content, else `text`); `Legacy` is the
/// pre-747e9c730 rule that wrote list content's clip to `text`, which the summariser never read.
fn body_key(message: &impl Message, key: ClipKey) -> &'static str {
    let content = message.member("content").map(|content| content.view());
    let reads_content = match (key, content) {
        (ClipKey::Read, Some(View::Array(parts))) => text_parts(parts).next().is_some(),
        (ClipKey::Read, Some(View::String(s))) => !s.is_empty(),
        (ClipKey::Legacy, Some(View::String(_))) => true,
        _ => false,
    };
    if reads_content { "content" } else { "text" }
}
