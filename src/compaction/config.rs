//! Every knob of the compaction, with the reference's defaults, and the historical variants as
//! named configurations (the names are a target's `variant()` and a case file's `verdicts` key).

use serde::{Deserialize, Serialize};

/// Where the transcript is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// Raw `len / 2`: the original defect (cuts between a call and its result).
    Midpoint,
    /// AutoBot's `_pick_boundary`: a user turn within the window below the midpoint, else the
    /// nearest index that is not a tool result.
    Autobot,
    /// Like `autobot`, but never inside an open call cycle, whatever sits between a call and its
    /// result.
    CycleSafe,
}

/// Which key a clipped tool-result body is written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClipKey {
    /// `_body_key`: the key the summariser actually reads (the 747e9c730 fix).
    Read,
    /// Before the fix: `content` if it is a string, else `text` (list content stays unclipped).
    Legacy,
}

/// When the composed summary is built relative to the tracker reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComposeOrder {
    /// #14322: compose, then reset and refill (a failing composition leaves the tracker alone).
    BeforeReset,
    /// #14066 as first merged: reset and refill, then compose.
    AfterReset,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompactionConfig {
    pub policy: Policy,
    /// How far below the midpoint a user turn is looked for (`AUTOBOT_COMPACTION_BOUNDARY_WINDOW`).
    pub window: usize,
    /// The lowest index either boundary search may return (1; the historical defect is 0).
    pub floor: usize,
    /// Most recent user turns carried verbatim (`AUTOBOT_COMPACTION_USER_MESSAGE_CAP`).
    pub user_message_cap: usize,
    /// Tool-result body clip before the summariser (`AUTOBOT_COMPACTION_TOOL_RESULT_CLIP_CHARS`).
    pub clip_chars: usize,
    /// Last N shell commands rendered (`AUTOBOT_COMPACTION_STATE_COMMAND_CAP`; 0 renders all, as
    /// Python's `commands[-0:]` does).
    pub state_command_cap: usize,
    /// Skip compaction for this long after a summariser failure
    /// (`AUTOBOT_SUMMARY_FAILURE_BACKOFF_SECONDS`).
    pub backoff_secs: u64,
    /// Tool names (case-insensitive prefixes) that write files.
    pub file_write_tools: Vec<String>,
    /// Tool names (case-insensitive prefixes) that run shell commands.
    pub shell_tools: Vec<String>,
    pub clip_key: ClipKey,
    pub compose_order: ComposeOrder,
    /// Carry the verbatim user turns (false: the "preservation off" defect).
    pub preserve_user_turns: bool,
    /// Render the extracted state block (false: the "state off" defect).
    pub state_block: bool,
    /// Beyond AutoBot: an earlier summary in the summarised region has its verbatim user turns
    /// carried forward, so an instruction survives any number of rounds (within the cap).
    pub carry_verbatim: bool,
    /// Skip the compaction when the composed summary is not smaller than the region it replaces
    /// (as pi-condense skips a summary longer than what it replaces).
    pub skip_unless_smaller: bool,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        CompactionConfig {
            policy: Policy::CycleSafe,
            window: 10,
            floor: 1,
            user_message_cap: 40,
            clip_chars: 400,
            state_command_cap: 10,
            backoff_secs: 300,
            file_write_tools: strings(&[
                "write_file",
                "edit_file",
                "move_file",
                "copy_file",
                "create_directory",
            ]),
            shell_tools: strings(&["bash", "shell", "execute_command", "run_command"]),
            clip_key: ClipKey::Read,
            compose_order: ComposeOrder::BeforeReset,
            preserve_user_turns: true,
            state_block: true,
            carry_verbatim: true,
            skip_unless_smaller: true,
        }
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The named configurations: `cycle-safe` (the default), `autobot` (the reference, post-#14322, as
/// AutoBot ships it), and the historical defects, each the default with exactly one thing undone.
pub const NAMED_CONFIGS: &[&str] = &[
    "cycle-safe",
    "autobot",
    "midpoint",
    "floor-0",
    "compose-after-reset",
    "old-clip-key",
    "no-preserve",
    "no-state",
];

impl CompactionConfig {
    /// Builds the configuration a name stands for (a target's variant, a case file's `verdicts` key).
    pub fn named(name: &str) -> Result<CompactionConfig, UnknownCompactionConfig> {
        let default = CompactionConfig::default();
        Ok(match name {
            "cycle-safe" => default,
            "autobot" => CompactionConfig {
                policy: Policy::Autobot,
                carry_verbatim: false,
                skip_unless_smaller: false,
                ..default
            },
            "midpoint" => CompactionConfig {
                policy: Policy::Midpoint,
                ..default
            },
            "floor-0" => CompactionConfig {
                floor: 0,
                ..default
            },
            "compose-after-reset" => CompactionConfig {
                compose_order: ComposeOrder::AfterReset,
                ..default
            },
            "old-clip-key" => CompactionConfig {
                clip_key: ClipKey::Legacy,
                ..default
            },
            "no-preserve" => CompactionConfig {
                preserve_user_turns: false,
                ..default
            },
            "no-state" => CompactionConfig {
                state_block: false,
                ..default
            },
            _ => return Err(UnknownCompactionConfig(name.to_string())),
        })
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown compaction variant `{0}` (known: {known})", known = NAMED_CONFIGS.join(", "))]
pub struct UnknownCompactionConfig(pub String);
