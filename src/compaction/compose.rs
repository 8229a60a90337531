//! Composition: the summariser's text, then the state block, then the preserved user turns, each
//! only when non-empty, joined by a blank line (`_compose_summary`).

pub fn compose(summary: &str, state_block: &str, verbatim_block: &str) -> String {
    [summary, state_block, verbatim_block]
        .into_iter()
        .enumerate()
        .filter(|&(i, part)| i == 0 || !part.is_empty())
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join("\n\n")
}
