//! Preserved user turns: the most recent non-empty user texts of the summarised region, verbatim,
//! oldest first. With `carry`, an earlier summary in the region contributes the verbatim turns it
//! carried, so an instruction survives every later round (within the cap).

use std::borrow::Cow;

use serde_json::Value;

use super::family::Family;

pub const VERBATIM_HEADER: &str = "### User messages (verbatim)";

pub fn preserved(messages: &[Value], family: Family, cap: usize, carry: bool) -> Vec<String> {
    if cap == 0 {
        return Vec::new();
    }
    let mut texts: Vec<Cow<'_, str>> = Vec::new();
    for message in messages {
        if family.is_user(message) {
            let text = family.text(message);
            if !text.is_empty() {
                texts.push(text);
            }
        } else if carry && family.is_summary(message) {
            texts.extend(carried(&family.text(message)).into_iter().map(Cow::Owned));
        }
    }
    let recent = texts.len().saturating_sub(cap);
    texts.drain(recent..).map(Cow::into_owned).collect()
}

/// The verbatim turns a composed summary carries: the items of its first
/// `### User messages (verbatim)` block. Items are `- ` lines; a line without the dash continues
/// the item before it (multi-line user text is not re-indented when composed). A turn that itself
/// contains a line starting with `- ` comes back as two adjacent items, which compose back into
/// the same text.
pub fn carried(summary: &str) -> Vec<String> {
    let heading = format!("{VERBATIM_HEADER}\n");
    let block = if let Some(rest) = summary.strip_prefix(&heading) {
        rest
    } else if let Some(at) = summary.find(&format!("\n\n{heading}")) {
        &summary[at + 2 + heading.len()..]
    } else {
        return Vec::new();
    };
    let mut items: Vec<String> = Vec::new();
    for line in block.split('\n') {
        match (line.strip_prefix("- "), items.last_mut()) {
            (Some(item), _) => items.push(item.to_string()),
            (None, Some(last)) => {
                last.push('\n');
                last.push_str(line);
            }
            (None, None) => {}
        }
    }
    items
}

/// The verbatim block for `turns` (empty when there are none).
pub fn render(turns: &[String]) -> String {
    if turns.is_empty() {
        return String::new();
    }
    let items: Vec<String> = turns.iter().map(|t| format!("- {t}")).collect();
    format!("{VERBATIM_HEADER}\n{}", items.join("\n"))
}
