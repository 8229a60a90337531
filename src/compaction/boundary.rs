//! Boundary policies: the index of the first kept message. `messages[..b]` is summarised,
//! `messages[b..]` kept; 0 means "do not compact". Read from the transcript's `Facts`.

use std::collections::HashSet;

use super::config::{Config, Policy};
use super::facts::{Facts, Id, Role};

/// The boundary `config.policy` picks for `messages`.
pub fn pick(facts: &Facts, config: &Config) -> usize {
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
fn search(facts: &Facts, config: &Config, target: usize, valid: impl Fn(usize) -> bool) -> usize {
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
/// result at `j >= b` answers a call opened at `o < b`. A result answers the most recent
/// assistant if that assistant opened its id and no earlier result consumed it (the sweep's
/// pairing); messages between them, of any role, do not matter. One forward pass.
pub fn open_cycles(facts: &Facts) -> Vec<bool> {
    let mut inside = vec![false; facts.messages.len() + 1];
    let mut opener: Option<usize> = None;
    let mut open: HashSet<Id> = HashSet::new();
    // The furthest result answered so far for the current opener.
    let mut reach = 0;
    let mark = |opener: Option<usize>, reach: usize, inside: &mut [bool]| {
        if let Some(o) = opener {
            inside[o + 1..=reach].fill(true);
        }
    };
    for (i, fact) in facts.messages.iter().enumerate() {
        if fact.role == Role::Assistant {
            mark(opener, reach, &mut inside);
            opener = Some(i);
            reach = i;
            open.clear();
            open.extend(facts.call_ids(fact).iter().copied());
        } else if let Some(id) = fact.result_id
            && open.remove(&id)
        {
            reach = i;
        }
    }
    mark(opener, reach, &mut inside);
    inside
}
