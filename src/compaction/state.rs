//! Extracted state: files written, shell commands, tools used, read from the tool calls of the
//! summarised region (no model call; malformed calls are skipped, never raise).

use ctxfuzz_oracles::js::View;
use foldhash::HashSet;

use super::Message;
use super::config::CompactionConfig;
use super::facts::Fact;
use super::family::Family;

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct State {
    pub files_written: Vec<String>,
    pub commands: Vec<String>,
    pub tools_used: Vec<String>,
}

pub const STATE_HEADER: &str = "### Retained state (extracted, not inferred)";

/// [`State`] read from the region one message at a time.
#[derive(Default)]
pub struct Extraction {
    state: State,
    // Membership sets keep the first-seen lists linear in the region's length.
    tools_seen: HashSet<String>,
    files_seen: HashSet<String>,
}

impl Extraction {
    /// Reads the tool calls of the next message, whose fact is `fact` (a message without calls is
    /// not read again).
    pub fn read<J: Message>(
        &mut self,
        message: &J,
        fact: &Fact,
        family: Family,
        config: &CompactionConfig,
    ) {
        if !fact.tool_calls {
            return;
        }
        let state = &mut self.state;
        for (name, args) in family.tool_calls(message) {
            if name.is_empty() {
                continue;
            }
            if self.tools_seen.insert(name.to_string()) {
                state.tools_used.push(name.to_string());
            }
            let text_arg = |key: &str| args.member(key).and_then(non_empty_str);
            if matches_tool(name, &config.file_write_tools) {
                // `args.get("path") or args.get("file_path")`: a falsy path falls through.
                let path = args
                    .member("path")
                    .filter(|v| python_truthy(*v))
                    .or_else(|| args.member("file_path"))
                    .and_then(non_empty_str);
                if let Some(path) = path
                    && self.files_seen.insert(path.to_string())
                {
                    state.files_written.push(path.to_string());
                }
            } else if matches_tool(name, &config.shell_tools)
                && let Some(command) = text_arg("command")
            {
                state.commands.push(command.to_string());
            }
        }
    }

    pub fn finish(self) -> State {
        self.state
    }
}

/// `match_tool_name`: case-insensitive exact name or plain prefix.
fn matches_tool(name: &str, patterns: &[String]) -> bool {
    let name = name.to_lowercase();
    patterns.iter().any(|p| name.starts_with(p.as_str()))
}

fn python_truthy(value: &impl Message) -> bool {
    match value.view() {
        View::Null => false,
        View::Bool(b) => b,
        View::Number(n) => n != 0.0,
        View::String(s) => !s.is_empty(),
        View::Array(items) => !items.is_empty(),
        View::Object => !value.is_empty_object(),
    }
}

fn non_empty_str(value: &impl Message) -> Option<&str> {
    match value.view() {
        View::String(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// `_render_state_block`: one line per non-empty list; `""` when there is none.
pub fn render(state: &State, command_cap: usize) -> String {
    let commands = if command_cap == 0 {
        &state.commands[..]
    } else {
        &state.commands[state.commands.len().saturating_sub(command_cap)..]
    };
    let lines: Vec<String> = [
        ("**Files written:** ", state.files_written.join(", ")),
        ("**Commands run:** ", commands.join("; ")),
        ("**Tools used:** ", state.tools_used.join(", ")),
    ]
    .into_iter()
    .filter(|(_, joined)| !joined.is_empty())
    .map(|(label, joined)| format!("{label}{joined}"))
    .collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!("{STATE_HEADER}\n{}", lines.join("\n"))
    }
}
