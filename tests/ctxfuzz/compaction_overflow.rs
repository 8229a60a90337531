//! AutoBot's overflow check (`check_and_protect`): the fill it reports, when it warns, and when it
//! compacts, by mode and by fill.

use ctxfuzz::compaction::overflow::{Mode, Protection, Turn, check_and_protect};
use ctxfuzz::compaction::{CompactionConfig, Compactor, Family, Faults, Scripted, Tracker};
use ctxfuzz_oracles::js_value::JsValue;
use serde_json::json;

use crate::common::messages;

/// A message as the compaction reads it.
type Message = JsValue<'static>;

/// Four chat messages the default policy cuts at the second user turn.
fn history() -> Vec<Message> {
    messages(json!([
        {"role": "user", "content": "a".repeat(400)}, {"role": "assistant", "content": "b".repeat(400)},
        {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}
    ]))
}

/// One check with `tracked` tokens already counted, no usage reported, against `limit`.
fn check(
    messages: &[Message],
    tracked: u64,
    limit: u64,
    mode: Mode,
) -> (Protection<'_, Message>, Tracker) {
    check_with_usage(messages, tracked, None, limit, mode)
}

/// One check with `tracked` tokens already counted and the turn's `usage`, against `limit`.
fn check_with_usage(
    messages: &[Message],
    tracked: u64,
    usage: Option<(u64, u64)>,
    limit: u64,
    mode: Mode,
) -> (Protection<'_, Message>, Tracker) {
    let mut tracker = Tracker::with_total(tracked);
    let turn = Turn {
        usage,
        context_limit: limit,
        mode,
        now: 100,
    };
    let protection = check_and_protect(
        messages,
        &Compactor {
            family: Family::Chat,
            config: &CompactionConfig::default(),
            summariser: &Scripted::Fixed("S".into()),
            faults: Faults::default(),
        },
        &mut tracker,
        turn,
    );
    (protection, tracker)
}

#[test]
fn fill_is_tracked_tokens_over_the_context_limit() {
    let history = history();
    let (p, _) = check(&history, 850, 1000, Mode::Auto);
    assert_eq!(p.current_fill, 0.85);
    assert_eq!((p.total_tokens, p.context_limit), (850, 1000));
    assert!(p.warning_triggered);
    assert!(!p.summary_created, "85 % is below the 90 % that compacts");
}

#[test]
fn a_zero_context_limit_is_zero_fill_and_never_compacts() {
    let history = history();
    for tracked in [0, 5000] {
        let (p, tracker) = check(&history, tracked, 0, Mode::Auto);
        assert_eq!(p.current_fill, 0.0, "{tracked}");
        assert!(!p.warning_triggered && !p.summary_created, "{tracked}");
        assert_eq!(tracker, Tracker::with_total(tracked));
    }
}

#[test]
fn auto_mode_compacts_at_ninety_percent() {
    let history = history();
    let (exactly, _) = check(&history, 900, 1000, Mode::Auto);
    assert!(exactly.summary_created, "90 % itself compacts");
    let (p, tracker) = check(&history, 950, 1000, Mode::Auto);
    assert!(p.warning_triggered && p.summary_created);
    assert!(p.summary_text.starts_with("S\n\n"), "{}", p.summary_text);
    assert_ne!(tracker, Tracker::with_total(950), "the tracker is refilled");
}

#[test]
fn warn_only_mode_warns_and_never_compacts() {
    let history = history();
    let (p, tracker) = check(&history, 950, 1000, Mode::WarnOnly);
    assert!(p.warning_triggered);
    assert!(!p.summary_created && p.compaction.is_none());
    assert_eq!(tracker, Tracker::with_total(950));
}

#[test]
fn an_empty_transcript_is_never_compacted() {
    let (p, tracker) = check(&[], 950, 1000, Mode::Auto);
    assert!(p.warning_triggered);
    assert!(!p.summary_created && p.compaction.is_none());
    assert_eq!(tracker, Tracker::with_total(950));
}

#[test]
fn a_reported_usage_counts_prompt_and_completion() {
    let history = history();
    let (p, tracker) = check_with_usage(&history, 100, Some((600, 250)), 1000, Mode::WarnOnly);
    assert_eq!(p.total_tokens, 950);
    assert_eq!((tracker.total_tokens, tracker.message_count), (950, 1));
}
