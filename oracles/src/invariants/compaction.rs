//! Invariants of a compaction (docs/compaction.md#invariants), judged from what went in, what came
//! out, what the summariser received and what the token tracker saw. Everything the compaction must
//! get right is re-stated here independently (message text, token estimate, call cycles, clipping,
//! state, preserved turns): this module never calls `ctxfuzz::compaction`.

use std::borrow::{Borrow, Cow};

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::{Value, json};

use super::{Cause, Invariant, Violation, same_message, same_messages};
use crate::js::{Json, View, is_str};

pub const BOUNDARY_VALID: Invariant = Invariant {
    id: "boundary-valid",
    statement: "the boundary is 0 only when no valid cut exists, never at a tool result, never inside an open call cycle (cycle-safe); 0 leaves transcript and tracker untouched",
};
pub const NO_NEW_ORPHANS: Invariant = Invariant {
    id: "compaction-no-new-orphans",
    statement: "every tool result the compaction keeps still answers a kept call",
};
pub const KEPT_SUFFIX: Invariant = Invariant {
    id: "kept-suffix-untouched",
    statement: "the kept messages come out exactly as they went in, behind one summary message carrying the composed text",
};
pub const SMALLER: Invariant = Invariant {
    id: "summary-smaller-than-region",
    statement: "the composed summary has fewer estimated tokens than the region it replaces",
};
pub const CLIP_BOUNDED: Invariant = Invariant {
    id: "clip-bounded",
    statement: "every tool-result body the summariser reads is at most clip_chars plus the marker; nothing else is changed",
};
pub const CAPS: Invariant = Invariant {
    id: "caps-respected",
    statement: "at most user_message_cap verbatim turns and the last state_command_cap commands are rendered",
};
pub const STATE_RETAINED: Invariant = Invariant {
    id: "state-retained",
    statement: "the summary carries the files written, commands run and tools used of the region",
};
pub const USER_TURNS: Invariant = Invariant {
    id: "user-turns-preserved",
    statement: "the region's most recent user turns (up to the cap) are carried verbatim, in order",
};
pub const ACROSS_ROUNDS: Invariant = Invariant {
    id: "user-turns-preserved-across-rounds",
    statement: "every summarised user turn survives later rounds (up to the cap), verbatim, in order",
};
pub const RESET_DELIVERED: Invariant = Invariant {
    id: "reset-implies-delivered",
    statement: "the tracker is reset only when the summary is delivered, then refilled once per kept message",
};
pub const INPUT_NOT_MUTATED: Invariant = Invariant {
    id: "input-not-mutated",
    statement: "the caller's transcript is unchanged",
};

/// Every compaction invariant.
pub const INVARIANTS: &[Invariant] = &[
    BOUNDARY_VALID,
    NO_NEW_ORPHANS,
    KEPT_SUFFIX,
    SMALLER,
    CLIP_BOUNDED,
    CAPS,
    STATE_RETAINED,
    USER_TURNS,
    ACROSS_ROUNDS,
    RESET_DELIVERED,
    INPUT_NOT_MUTATED,
];

const CLIP_MARKER: &str = "\u{2026} [clipped]";
const VERBATIM_HEADING: &str = "### User messages (verbatim)\n";
const STATE_HEADING: &str = "### Retained state (extracted, not inferred)";

/// Which transcript family, and the knobs the user configured (not the defect switches: a variant
/// is judged against the contract, never excused by its own configuration).
#[derive(Debug, Clone)]
pub struct Contract {
    pub pi: bool,
    pub cycle_safe: bool,
    pub user_message_cap: usize,
    pub clip_chars: usize,
    pub state_command_cap: usize,
    pub file_write_tools: Vec<String>,
    pub shell_tools: Vec<String>,
}

impl Contract {
    /// Reads `family` ("pi" or "chat") and the knobs of a compaction configuration as JSON;
    /// missing knobs take the reference's defaults.
    pub fn from_json(family: &str, config: &Value) -> Contract {
        let number = |key: &str, default: usize| {
            config
                .get(key)
                .and_then(Value::as_u64)
                .map_or(default, |n| n as usize)
        };
        let names = |key: &str, default: &[&str]| match config.get(key).and_then(Value::as_array) {
            Some(items) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_lowercase)
                .collect(),
            None => default.iter().map(|s| s.to_string()).collect(),
        };
        Contract {
            pi: family == "pi",
            cycle_safe: config
                .get("policy")
                .and_then(Value::as_str)
                .unwrap_or("cycle-safe")
                == "cycle-safe",
            user_message_cap: number("user_message_cap", 40),
            clip_chars: number("clip_chars", 400),
            state_command_cap: number("state_command_cap", 10),
            file_write_tools: names(
                "file_write_tools",
                &[
                    "write_file",
                    "edit_file",
                    "move_file",
                    "copy_file",
                    "create_directory",
                ],
            ),
            shell_tools: names(
                "shell_tools",
                &["bash", "shell", "execute_command", "run_command"],
            ),
        }
    }
}

/// One compaction call as observed from outside. Every list holds messages or references to them
/// (`M = &J`): a caller that chains compactions lends the messages it keeps instead of copying
/// them, and the comparisons below pass a message borrowed from the other side without reading it.
/// The messages are any [`Json`] (`serde_json::Value`, or a [`crate::js_value::JsValue`], whose
/// fields are found without a B-tree).
#[derive(Debug, Clone, Copy)]
pub struct Round<'a, M = Value> {
    /// The transcript handed to the compaction, as it was before the call.
    pub input: &'a [M],
    /// The same transcript after the call.
    pub input_after: &'a [M],
    pub output: &'a [M],
    /// The first kept index when compacted; 0 when nothing was compacted.
    pub boundary: usize,
    /// What the boundary policy picked (the compaction may still have been skipped or failed).
    pub picked: usize,
    /// The composed summary ("" when not compacted).
    pub summary: &'a str,
    /// What the summariser received (empty when it was not called).
    pub summariser_input: &'a [M],
    /// The calls the compaction made to the token tracker in this round, in order.
    pub tracker_calls: &'a [TrackerCall],
}

/// A call to the token tracker, as far as the oracle reads it: a reset, or a kept message added
/// with its prompt tokens. A case file writes them `"reset"` and `{"add": {"prompt": n, ...}}`;
/// in a fuzz case they were built as `Value`s only to be read back here, 4% of a compaction case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackerCall {
    Reset,
    Add { prompt: u64 },
}

/// Judges a sequence of rounds (each round's input is the previous output plus new messages).
/// `J` is the message type; rounds of `&Value` name it (`judge::<Value, _>`), since a reference
/// also borrows as itself.
pub fn judge<J: Json + PartialEq, M: Borrow<J>>(
    contract: &Contract,
    rounds: &[Round<'_, M>],
) -> Vec<Violation> {
    let reader = Reader { pi: contract.pi };
    let mut found = Vec::new();
    let mut summarised_turns: Vec<String> = Vec::new();
    let mut compacted_rounds = 0;
    for (number, round) in rounds.iter().enumerate() {
        let before = found.len();
        judge_round(contract, &reader, round, &mut found);
        if round.boundary > 0 {
            // The summary an earlier round wrote sits at index 0; its turns are already counted.
            let own = usize::from(compacted_rounds > 0);
            // A boundary past the end is a kept-suffix violation (reported), not a panic here.
            let region = round.input.get(own..round.boundary).unwrap_or_default();
            summarised_turns.extend(reader.turns(region));
            if compacted_rounds > 0 {
                across_rounds(contract, round, &summarised_turns, &mut found);
            }
            compacted_rounds += 1;
        }
        for violation in &mut found[before..] {
            if let Value::Object(evidence) = &mut violation.evidence {
                evidence.insert("round".to_string(), json!(number));
            }
        }
    }
    found
}

fn judge_round<J: Json + PartialEq, M: Borrow<J>>(
    contract: &Contract,
    reader: &Reader,
    round: &Round<'_, M>,
    found: &mut Vec<Violation>,
) {
    let mut report = |invariant: Invariant, summary: String, evidence: Value| {
        found.push(Violation {
            invariant,
            cause: Cause::SystemUnderTest,
            summary,
            evidence,
        });
    };
    let input = round.input;
    let b = round.boundary;
    if !same_messages(round.input, round.input_after) {
        report(
            INPUT_NOT_MUTATED,
            "the compaction modified the caller's transcript".into(),
            json!({}),
        );
    }

    // boundary-valid
    let inside = if contract.cycle_safe {
        reader.open_cycles(input)
    } else {
        vec![false; input.len() + 1]
    };
    let valid = |i: usize| {
        i >= 1 && i < input.len() && !reader.is_tool_result(input[i].borrow()) && !inside[i]
    };
    if round.picked == 0 {
        if let Some(cut) = (1..=input.len() / 2).rev().find(|&i| valid(i)) {
            report(
                BOUNDARY_VALID,
                format!("boundary 0 although index {cut} is a valid cut"),
                json!({"valid_cut": cut}),
            );
        }
        if !round.tracker_calls.is_empty() || !same_messages(round.output, input) {
            report(
                BOUNDARY_VALID,
                "boundary 0 but the transcript or the tracker was touched".into(),
                json!({"tracker_calls": round.tracker_calls.len()}),
            );
        }
    } else if !valid(round.picked) {
        let why = match input.get(round.picked).map(Borrow::borrow) {
            Some(m) if reader.is_tool_result(m) => "at a tool result",
            Some(_) => "inside an open call cycle",
            None => "past the end",
        };
        report(
            BOUNDARY_VALID,
            format!("boundary {} is {why}", round.picked),
            json!({"boundary": round.picked}),
        );
    }

    // kept-suffix-untouched
    if b == 0 {
        if !same_messages(round.output, input) {
            report(
                KEPT_SUFFIX,
                "nothing was compacted but the transcript changed".into(),
                json!({}),
            );
        }
    } else if b > input.len()
        || round.output.len() != input.len() - b + 1
        || !same_messages(&round.output[1..], &input[b..])
        || !reader.is_summary_carrying(round.output[0].borrow(), round.summary)
    {
        report(
            KEPT_SUFFIX,
            format!("the output is not one summary message followed by messages[{b}..]"),
            json!({"boundary": b, "output_len": round.output.len(), "input_len": input.len()}),
        );
        return; // everything below reads the output positionally
    }

    // compaction-no-new-orphans
    if b > 0 {
        let before = reader.orphans(input);
        let after = reader.orphans(round.output);
        let new: Vec<usize> = (1..round.output.len())
            .filter(|&k| after[k] && !before[b + k - 1])
            .map(|k| b + k - 1)
            .collect();
        if !new.is_empty() {
            report(
                NO_NEW_ORPHANS,
                format!(
                    "{} kept tool result(s) lost their call to the summary",
                    new.len()
                ),
                json!({"boundary": b, "orphaned_input_indices": new}),
            );
        }
    }

    // clip-bounded (whenever the summariser was called)
    if !round.summariser_input.is_empty() {
        clip_bounded(
            contract,
            reader,
            &input[..round.picked.min(input.len())],
            round.summariser_input,
            &mut report,
        );
    }

    if b == 0 {
        reset_delivered(reader, round, &mut report);
        return;
    }
    let region = &input[..b];

    // summary-smaller-than-region
    let summary_tokens = estimate(round.summary);
    let region_tokens: u64 = region
        .iter()
        .map(|m| estimate(&reader.text(m.borrow())))
        .sum();
    if summary_tokens >= region_tokens {
        report(
            SMALLER,
            format!("summary of {summary_tokens} token(s) replaces a region of {region_tokens}"),
            json!({"summary_tokens": summary_tokens, "region_tokens": region_tokens}),
        );
    }

    // user-turns-preserved, caps-respected
    let block = verbatim_block(round.summary);
    let turns = reader.turns(region);
    let expected = render_items(&turns[turns.len().saturating_sub(contract.user_message_cap)..]);
    if !block.unwrap_or("").ends_with(&expected) {
        report(
            USER_TURNS,
            "the summary does not end with the region's most recent user turns, verbatim".into(),
            json!({"expected": expected, "verbatim_block": block}),
        );
    }
    let rendered = block.map_or(0, |b| items(b).len());
    if rendered > contract.user_message_cap {
        report(
            CAPS,
            format!(
                "{rendered} verbatim turns rendered, cap {}",
                contract.user_message_cap
            ),
            json!({"rendered": rendered, "cap": contract.user_message_cap}),
        );
    }

    // state-retained, caps-respected (commands)
    state_retained(contract, reader, region, round.summary, &mut report);
    reset_delivered(reader, round, &mut report);
}

fn across_rounds<M>(
    contract: &Contract,
    round: &Round<'_, M>,
    turns: &[String],
    found: &mut Vec<Violation>,
) {
    let expected = render_items(&turns[turns.len().saturating_sub(contract.user_message_cap)..]);
    let block = verbatim_block(round.summary);
    if !block.unwrap_or("").ends_with(&expected) {
        found.push(Violation {
            invariant: ACROSS_ROUNDS,
            cause: Cause::SystemUnderTest,
            summary:
                "a user turn summarised in an earlier round is missing from the latest summary"
                    .into(),
            evidence: json!({"expected": expected, "verbatim_block": block}),
        });
    }
}

fn clip_bounded<J: Json + PartialEq>(
    contract: &Contract,
    reader: &Reader,
    region: &[impl Borrow<J>],
    given: &[impl Borrow<J>],
    report: &mut impl FnMut(Invariant, String, Value),
) {
    if given.len() != region.len() {
        report(
            CLIP_BOUNDED,
            format!(
                "the summariser received {} messages for a region of {}",
                given.len(),
                region.len()
            ),
            json!({"given": given.len(), "region": region.len()}),
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
                    json!({"index": index}),
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
                json!({"index": index, "chars_read": chars, "limit": limit, "original_chars": body.chars().count()}),
            );
        }
    }
}

fn state_retained<J: Json>(
    contract: &Contract,
    reader: &Reader,
    region: &[impl Borrow<J>],
    summary: &str,
    report: &mut impl FnMut(Invariant, String, Value),
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
                json!({"commands": commands.len(), "cap": cap}),
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
            json!({"missing": missing, "files_written": files, "commands": shown, "tools_used": tools}),
        );
    }
}

fn reset_delivered<J: Json, M: Borrow<J>>(
    reader: &Reader,
    round: &Round<'_, M>,
    report: &mut impl FnMut(Invariant, String, Value),
) {
    let resets = round
        .tracker_calls
        .iter()
        .filter(|&&call| call == TrackerCall::Reset)
        .count();
    if resets == 0 {
        return;
    }
    let delivered = round.boundary > 0 && !round.summary.is_empty();
    if !delivered || resets != 1 || round.tracker_calls.first() != Some(&TrackerCall::Reset) {
        report(
            RESET_DELIVERED,
            format!("the tracker was reset {resets} time(s) without a delivered summary"),
            json!({"resets": resets, "delivered": delivered}),
        );
        return;
    }
    // The one reset is the first call, so every call after it is an `Add`.
    let refills: Vec<u64> = round.tracker_calls[1..]
        .iter()
        .filter_map(|&call| match call {
            TrackerCall::Add { prompt } => Some(prompt),
            TrackerCall::Reset => None,
        })
        .collect();
    let kept: Vec<u64> = round.input[round.boundary..]
        .iter()
        .map(|m| estimate(&reader.text(m.borrow())))
        .collect();
    if refills != kept {
        report(
            RESET_DELIVERED,
            format!(
                "refilled {} message(s) for {} kept",
                refills.len(),
                kept.len()
            ),
            json!({"refills": refills.len(), "kept": kept.len()}),
        );
    }
}

/// The verbatim block of a composed summary (after its first heading), if any.
fn verbatim_block(summary: &str) -> Option<&str> {
    summary.strip_prefix(VERBATIM_HEADING).or_else(|| {
        let (_, block) = summary.split_once(&format!("\n\n{VERBATIM_HEADING}"))?;
        Some(block)
    })
}

/// The turns of a verbatim block: a `- ` line starts one, any other line continues it.
fn items(block: &str) -> Vec<String> {
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

fn render_items(turns: &[String]) -> String {
    turns
        .iter()
        .map(|t| format!("- {t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `len // 4` in code points.
fn estimate(text: &str) -> u64 {
    (text.chars().count() / 4) as u64
}

fn python_truthy(value: &impl Json) -> bool {
    match value.view() {
        View::Null => false,
        View::Bool(b) => b,
        View::Number(n) => n != 0.0,
        View::String(s) => !s.is_empty(),
        View::Array(a) => !a.is_empty(),
        View::Object => !value.is_empty_object(),
    }
}

/// `value[key]` when it is a string.
fn string<'v>(value: &'v impl Json, key: &str) -> Option<&'v str> {
    match value.member(key).map(Json::view) {
        Some(View::String(s)) => Some(s),
        _ => None,
    }
}

/// What `state_retained` reads of one tool call: its name, the path it writes (`path`, or
/// `file_path` where Python finds `path` falsy) and the command it runs, each only when a string.
/// Borrowed from the message, unless its arguments were a JSON string parsed here.
struct ToolCall<'m> {
    name: &'m str,
    path: Option<Cow<'m, str>>,
    command: Option<Cow<'m, str>>,
}

/// The written path and the command of a call's arguments (neither unless they are an object).
fn path_and_command(args: &impl Json) -> (Option<&str>, Option<&str>) {
    let path = match args.member("path") {
        Some(p) if python_truthy(p) => Some(p),
        _ => args.member("file_path"),
    };
    let path = match path.map(Json::view) {
        Some(View::String(p)) => Some(p),
        _ => None,
    };
    (path, string(args, "command"))
}

/// How the oracle reads a message of either family.
struct Reader {
    pi: bool,
}

impl Reader {
    fn field<'a>(m: &'a impl Json, key: &str) -> &'a str {
        string(m, key).unwrap_or("")
    }

    fn role<'a>(&self, m: &'a impl Json) -> &'a str {
        match Self::field(m, "role") {
            "" if !self.pi => Self::field(m, "sender"),
            role => role,
        }
    }

    fn tool_role(&self) -> &'static str {
        if self.pi { "toolResult" } else { "tool" }
    }

    fn is_tool_result(&self, m: &impl Json) -> bool {
        self.role(m) == self.tool_role()
    }

    /// The text that is counted, summarised and preserved: list content's text parts joined by a
    /// space, else a non-empty string content, else `text`; a pi summary's `summary`.
    fn text<'a>(&self, m: &'a impl Json) -> Cow<'a, str> {
        if self.pi && matches!(self.role(m), "compactionSummary" | "branchSummary") {
            return Cow::Borrowed(Self::field(m, "summary"));
        }
        self.body(m)
    }

    /// Borrowed unless text parts are joined: the oracle reads the text of every message of a
    /// round, and a copy of each was a tenth of judging one.
    fn body<'a>(&self, m: &'a impl Json) -> Cow<'a, str> {
        match m.member("content").map(Json::view) {
            Some(View::Array(parts)) => {
                let texts: Vec<&str> = parts
                    .iter()
                    .filter(|p| is_str(p.member("type"), "text"))
                    .filter_map(|p| string(p, "text"))
                    .collect();
                let joined = match texts.as_slice() {
                    [only] => Cow::Borrowed(*only),
                    _ => Cow::Owned(texts.join(" ")),
                };
                if !joined.is_empty() {
                    return joined;
                }
            }
            Some(View::String(s)) if !s.is_empty() => return Cow::Borrowed(s),
            _ => {}
        }
        Cow::Borrowed(Self::field(m, "text"))
    }

    /// The user turns a region holds, oldest first: every non-empty user text, and the verbatim
    /// turns an earlier summary in the region carries, where it sits.
    fn turns<J: Json>(&self, region: &[impl Borrow<J>]) -> Vec<String> {
        let mut turns = Vec::new();
        for m in region {
            let m = m.borrow();
            if self.role(m) == "user" {
                turns.extend(
                    Some(self.text(m))
                        .filter(|t| !t.is_empty())
                        .map(Cow::into_owned),
                );
            } else if self.is_summary(m) {
                turns.extend(verbatim_block(&self.text(m)).map(items).unwrap_or_default());
            }
        }
        turns
    }

    fn is_summary(&self, m: &impl Json) -> bool {
        if self.pi {
            Self::field(m, "role") == "compactionSummary"
        } else {
            Self::field(m, "messageType") == "context_summary"
        }
    }

    fn is_summary_carrying(&self, m: &impl Json, summary: &str) -> bool {
        if self.pi {
            Self::field(m, "role") == "compactionSummary" && Self::field(m, "summary") == summary
        } else {
            Self::field(m, "sender") == "system"
                && Self::field(m, "messageType") == "context_summary"
                && Self::field(m, "text") == summary
        }
    }

    fn calls<'a, J: Json>(&self, m: &'a J) -> impl Iterator<Item = &'a J> {
        let list = if self.pi {
            m.member("content")
        } else {
            m.member("tool_calls")
        };
        let list = match list.map(Json::view) {
            Some(View::Array(items)) => items,
            _ => &[],
        };
        list.iter().filter(|c| {
            if self.pi {
                is_str(c.member("type"), "toolCall")
            } else {
                matches!(c.view(), View::Object)
            }
        })
    }

    /// A string of arguments is parsed (into a throwaway value: what is read of it is copied out);
    /// an object is read where it lies.
    fn tool_calls<'a>(&self, m: &'a impl Json) -> Vec<ToolCall<'a>> {
        self.calls(m)
            .map(|call| {
                let function = match call.member("function") {
                    Some(f) if !self.pi && matches!(f.view(), View::Object) => f,
                    _ => call,
                };
                let raw = match function.member("arguments") {
                    Some(a) => Some(a),
                    None if !self.pi => function.member("args"),
                    None => None,
                };
                let (path, command) = match raw.map(Json::view) {
                    Some(View::String(text)) => match serde_json::from_str::<Value>(text) {
                        Ok(parsed) => {
                            let (path, command) = path_and_command(&parsed);
                            let owned = |s: &str| Cow::Owned(s.to_owned());
                            (path.map(owned), command.map(owned))
                        }
                        Err(_) => (None, None),
                    },
                    _ => {
                        let (path, command) = raw.map_or((None, None), path_and_command);
                        (path.map(Cow::Borrowed), command.map(Cow::Borrowed))
                    }
                };
                ToolCall {
                    name: Self::field(function, "name"),
                    path,
                    command,
                }
            })
            .collect()
    }

    /// For each message, whether it is a tool result that answers no open call: an assistant
    /// replaces the open ids with its own, a result consumes its id if open; no other role
    /// matters (call cycles, not the sweep's barriers, which exist to clean up after the damage
    /// a compaction must not do).
    fn orphans<J: Json>(&self, messages: &[impl Borrow<J>]) -> Vec<bool> {
        let mut open: HashSet<&str> = HashSet::new();
        messages
            .iter()
            .map(|m| {
                let m = m.borrow();
                let role = self.role(m);
                if role == "assistant" {
                    open = self.call_ids(m).collect();
                    false
                } else if role == self.tool_role() {
                    !self.answered_id(m).is_some_and(|id| open.remove(id))
                } else {
                    false
                }
            })
            .collect()
    }

    fn call_ids<'m>(&self, assistant: &'m impl Json) -> impl Iterator<Item = &'m str> {
        self.calls(assistant).filter_map(|c| string(c, "id"))
    }

    /// The id a tool result names (`toolCallId`, chat `tool_call_id`), if a string.
    fn answered_id<'m>(&self, result: &'m impl Json) -> Option<&'m str> {
        let key = if self.pi {
            "toolCallId"
        } else {
            "tool_call_id"
        };
        string(result, key)
    }

    /// `inside[b]`: cutting at `b` would separate a kept result from the latest earlier call of
    /// its id. Whatever lies between does not matter: an assistant the provider never sees (no
    /// content, failed) closes no call on the wire, where the result still answers it.
    fn open_cycles<J: Json>(&self, messages: &[impl Borrow<J>]) -> Vec<bool> {
        let mut inside = vec![false; messages.len() + 1];
        let mut latest_call: HashMap<&str, usize> = HashMap::new();
        for (i, m) in messages.iter().enumerate() {
            let m = m.borrow();
            let role = self.role(m);
            if role == "assistant" {
                latest_call.extend(self.call_ids(m).map(|id| (id, i)));
            } else if role == self.tool_role()
                && let Some(&call) = self.answered_id(m).and_then(|id| latest_call.get(id))
            {
                inside[call + 1..=i].fill(true);
            }
        }
        inside
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::js_value::{JsValue, borrow_all};

    /// The round cut at 3: the summariser read the region whole, the tracker was left alone.
    fn cut_at_3<'a, M>(input: &'a [M], output: &'a [M], summary: &'a str) -> Round<'a, M> {
        Round {
            input,
            input_after: input,
            output,
            boundary: 3,
            picked: 3,
            summary,
            summariser_input: &input[..3],
            tracker_calls: &[],
        }
    }

    /// A cut at a tool result, inside the call cycle whose arguments name the state (one as a JSON
    /// string, one as an object whose falsy `path` falls through to `file_path`), behind a summary
    /// without that state: the oracle says the same of the messages read either way.
    #[test]
    fn a_round_read_as_js_values_is_judged_as_read_as_values() {
        let input = [
            json!({"role": "user", "content": "please write the notes and list the directory"}),
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "write_file",
                    "arguments": "{\"path\": \"\", \"file_path\": \"notes.md\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "edit_file",
                    "arguments": {"path": {}, "file_path": "todo.md"}}},
                {"id": "c3", "type": "function", "function": {"name": "bash",
                    "arguments": {"command": "ls -la"}}},
            ]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "ok"}),
            json!({"role": "tool", "tool_call_id": "c2", "content": "ok"}),
            json!({"role": "tool", "tool_call_id": "c3", "content": "notes.md todo.md"}),
            json!({"role": "user", "content": "thanks"}),
            json!({"role": "assistant", "content": "done"}),
        ];
        let summary =
            "### User messages (verbatim)\n- please write the notes and list the directory";
        let output: Vec<Value> =
            [json!({"sender": "system", "messageType": "context_summary", "text": summary})]
                .into_iter()
                .chain(input[3..].iter().cloned())
                .collect();
        let contract = Contract::from_json("chat", &json!({}));
        let as_values = judge(&contract, &[cut_at_3(&input, &output, summary)]);
        let (input, output) = (borrow_all(&input), borrow_all(&output));
        let as_js_values = judge::<JsValue, _>(&contract, &[cut_at_3(&input, &output, summary)]);

        let ids: Vec<&str> = as_values.iter().map(|v| v.invariant.id).collect();
        assert_eq!(
            ids,
            [
                BOUNDARY_VALID.id,
                NO_NEW_ORPHANS.id,
                SMALLER.id,
                STATE_RETAINED.id
            ]
        );
        assert_eq!(
            as_values[3].evidence["files_written"],
            json!(["notes.md", "todo.md"])
        );
        assert_eq!(as_values[3].evidence["commands"], json!(["ls -la"]));
        assert_eq!(as_js_values, as_values);
    }
}
