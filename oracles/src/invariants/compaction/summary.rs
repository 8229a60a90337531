//! What a compaction's summary must hold and what the summariser may read: the clipped region
//! (`clip-bounded`), the retained state (`state-retained`) and the verbatim user turns.

use std::borrow::{Borrow, Cow};

use foldhash::{HashSet, HashSetExt};

use super::{
    CAPS, CLIP_BOUNDED, Contract, Invariant, Reader, RoundEvidence, STATE_RETAINED, same_message,
};
use crate::js::Json;

pub(super) const CLIP_MARKER: &str = "\u{2026} [clipped]";
pub(super) const VERBATIM_HEADING: &str = "### User messages (verbatim)\n";
pub(super) const STATE_HEADING: &str = "### Retained state (extracted, not inferred)";

pub(super) fn clip_bounded<J: Json + PartialEq>(
    contract: &Contract,
    reader: &Reader,
    region: &[impl Borrow<J>],
    given: &[impl Borrow<J>],
    report: &mut impl FnMut(Invariant, String, RoundEvidence),
) {
    if given.len() != region.len() {
        report(
            CLIP_BOUNDED,
            format!(
                "the summariser received {} messages for a region of {}",
                given.len(),
                region.len()
            ),
            RoundEvidence::ClipMiscounted {
                given: given.len(),
                region: region.len(),
            },
        );
        return;
    }
    let limit = contract.clip_chars + CLIP_MARKER.chars().count();
    for (index, (original, seen)) in region.iter().zip(given).enumerate() {
        let (original, seen) = (original.borrow(), seen.borrow());
        if !reader.is_tool_result(original) {
            if !same_message(original, seen) {
                report(
                    CLIP_BOUNDED,
                    format!("message {index} is not a tool result but was changed"),
                    RoundEvidence::Changed { index },
                );
            }
            continue;
        }
        let body = reader.body(original);
        let read = reader.body(seen);
        let chars = read.chars().count();
        let expected = match body.char_indices().nth(contract.clip_chars) {
            Some((cut, _)) => format!("{}{CLIP_MARKER}", &body[..cut]),
            None => body.to_string(),
        };
        if chars > limit || read != expected {
            report(
                CLIP_BOUNDED,
                format!(
                    "the summariser reads {chars} chars of tool result {index} (limit {limit})"
                ),
                RoundEvidence::OverClipped {
                    index,
                    chars_read: chars,
                    limit,
                    original_chars: body.chars().count(),
                },
            );
        }
    }
}

pub(super) fn state_retained<J: Json>(
    contract: &Contract,
    reader: &Reader,
    region: &[impl Borrow<J>],
    summary: &str,
    report: &mut impl FnMut(Invariant, String, RoundEvidence),
) {
    let (mut files, mut commands, mut tools) = (Vec::new(), Vec::new(), Vec::new());
    let (mut files_seen, mut tools_seen) = (HashSet::new(), HashSet::new());
    for message in region {
        for call in reader.tool_calls(message.borrow()) {
            if call.name.is_empty() {
                continue;
            }
            if tools_seen.insert(call.name) {
                tools.push(call.name);
            }
            let lower = call.name.to_lowercase();
            let matches =
                |patterns: &[String]| patterns.iter().any(|p| lower.starts_with(p.as_str()));
            if matches(&contract.file_write_tools) {
                if let Some(path) = call.path
                    && !path.is_empty()
                    && files_seen.insert(path.clone())
                {
                    files.push(path);
                }
            } else if matches(&contract.shell_tools)
                && let Some(command) = call.command
                && !command.is_empty()
            {
                commands.push(command);
            }
        }
    }
    // Every file and command comes from a named tool call: no tool, no state to look for.
    if tools.is_empty() {
        return;
    }
    let cap = contract.state_command_cap;
    let shown = if cap == 0 {
        &commands[..]
    } else {
        &commands[commands.len().saturating_sub(cap)..]
    };
    let mut missing = Vec::new();
    if !summary.contains(STATE_HEADING) {
        missing.push("heading".to_string());
    }
    for (label, joined) in [
        ("**Files written:** ", files.join(", ")),
        ("**Tools used:** ", tools.join(", ")),
    ] {
        if !joined.is_empty() && !summary.contains(&format!("{label}{joined}")) {
            missing.push(label.trim_matches(['*', ':', ' ']).to_string());
        }
    }
    // Commands may contain newlines, so the line is matched as a whole rather than split out.
    let line = |commands: &[Cow<str>]| format!("**Commands run:** {}", commands.join("; "));
    if !shown.is_empty() && !summary.contains(&line(shown)) {
        // Every command rendered where the cap shows fewer. (Uncapped, `shown` is all of them,
        // and that line was just not found.)
        if summary.contains(&line(&commands)) {
            report(
                CAPS,
                format!("all {} commands rendered, cap {cap}", commands.len()),
                RoundEvidence::CommandsOverCap {
                    commands: commands.len(),
                    cap,
                },
            );
        } else {
            missing.push("Commands run".to_string());
        }
    }
    if !missing.is_empty() {
        report(
            STATE_RETAINED,
            format!(
                "the summary lacks the extracted state: {}",
                missing.join(", ")
            ),
            RoundEvidence::StateMissing {
                missing,
                files_written: owned(&files),
                commands: owned(shown),
                tools_used: owned(&tools),
            },
        );
    }
}

/// The verbatim block of a composed summary (after its first heading), if any.
pub(super) fn verbatim_block(summary: &str) -> Option<&str> {
    summary.strip_prefix(VERBATIM_HEADING).or_else(|| {
        let (_, block) = summary.split_once(&format!("\n\n{VERBATIM_HEADING}"))?;
        Some(block)
    })
}

/// The turns of a verbatim block: a `- ` line starts one, any other line continues it.
pub(super) fn items(block: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for line in block.split('\n') {
        if let Some(item) = line.strip_prefix("- ") {
            items.push(item.to_string());
        } else if let Some(last) = items.last_mut() {
            last.push('\n');
            last.push_str(line);
        }
    }
    items
}

pub(super) fn render_items(turns: &[String]) -> String {
    turns
        .iter()
        .map(|t| format!("- {t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Texts as evidence holds them.
fn owned(texts: &[impl AsRef<str>]) -> Vec<String> {
    texts.iter().map(|text| text.as_ref().to_string()).collect()
}
