//! Preserved user turns: the most recent non-empty user texts of the summarised region, verbatim,
//! oldest first. With `carry`, an earlier summary in the region contributes the verbatim turns it
//! carried, so an instruction survives every later round (within the cap).

use super::facts::{Fact, Role};

pub const VERBATIM_HEADER: &str = "### User messages (verbatim)";

/// The preserved turns of the region whose facts are `region`, in order. It is read newest first
/// and only until `cap` turns are found, so a long region costs no more than its last turns.
pub fn preserved<'f, 'a: 'f>(
    region: impl DoubleEndedIterator<Item = &'f Fact<'a>>,
    cap: usize,
    carry: bool,
) -> Vec<String> {
    // Lazily, newest first: `take` stops the walk at the cap.
    let mut newest_first: Vec<String> = region
        .rev()
        .flat_map(|fact| turns_of(fact, carry))
        .take(cap)
        .collect();
    newest_first.reverse();
    newest_first
}

/// The turns one message contributes, newest first: a non-empty user text, or (with `carry`)
/// the turns an earlier summary carried.
fn turns_of(fact: &Fact, carry: bool) -> Vec<String> {
    if fact.role == Role::User {
        if fact.chars == 0 {
            return Vec::new();
        }
        return vec![fact.text.to_string()];
    }
    if carry && fact.summary {
        return carried(&fact.text).into_iter().rev().collect();
    }
    Vec::new()
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
