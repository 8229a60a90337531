//! Boundary policies: the index of the first kept message. `messages[..b]` is summarised,
//! `messages[b..]` kept; 0 means "do not compact". Read from the transcript's `Facts`.

use foldhash::{HashMap, HashMapExt};

use super::config::{CompactionConfig, Policy};
use super::facts::{Facts, Id, Role};

/// The boundary `config.policy` picks for `messages`.
pub fn pick(facts: &Facts, config: &CompactionConfig) -> usize {
    let len = facts.messages.len();
    if len <= 1 {
        return 0;
    }
    let target = len / 2;
    match config.policy {
        Policy::Midpoint => target,
        Policy::Autobot => search(facts, config, target, |_| true),
        Policy::CycleSafe => {
            let inside = open_cycles(facts);
            search(facts, config, target, |i| !inside[i])
        }
    }
}

/// AutoBot's `_pick_boundary` with an extra validity test on each candidate: a user turn within
/// `window` at or below `target`, else the nearest non-tool-result index at or below it; both
/// searches stop at `config.floor`.
fn search(
    facts: &Facts,
    config: &CompactionConfig,
    target: usize,
    valid: impl Fn(usize) -> bool,
) -> usize {
    let window_floor = config.floor.max(target.saturating_sub(config.window));
    let user_turn = (window_floor..=target)
        .rev()
        .find(|&i| facts.messages[i].role == Role::User && valid(i));
    let any_turn = || {
        (config.floor..=target)
            .rev()
            .find(|&i| facts.messages[i].role != Role::ToolResult && valid(i))
    };
    user_turn.or_else(any_turn).unwrap_or(0)
}

/// `inside[b]` is true when cutting at `b` would summarise a call whose result is kept: some
/// result at `j >= b` whose id was last opened, before `j`, by the assistant at `o < b`. This is
/// wider than the sweep's pairing, where every assistant closes the calls before it: an assistant
/// the provider never sees (no content, failed) closes nothing on the wire, where the result still
/// answers the older call. Pairing a result with the latest call of its id, whatever sits between,
/// is the reading that is safe under both. One forward pass; each pair marks the cuts `o < b <= j`
/// in a difference array.
pub fn open_cycles(facts: &Facts) -> Vec<bool> {
    let len = facts.messages.len();
    let mut delta = vec![0i64; len + 2];
    let mut opener: HashMap<Id, usize> = HashMap::new();
    for (i, fact) in facts.messages.iter().enumerate() {
        if let Some(id) = fact.result_id
            && let Some(&o) = opener.get(&id)
        {
            delta[o + 1] += 1;
            delta[i + 1] -= 1;
        }
        for &id in facts.call_ids(fact) {
            opener.insert(id, i);
        }
    }
    let mut depth = 0;
    delta[..=len]
        .iter()
        .map(|d| {
            depth += d;
            depth > 0
        })
        .collect()
}
