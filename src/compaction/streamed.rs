//! The compaction of a file's array, read one message at a time and never held whole, as the
//! sweep's is ([`crate::sweep::streamed`]): a first read finds the family (unless it is given)
//! and counts the messages, noting where every `STRIDE`th starts, a second reads every message's
//! facts, whose strings stay borrowed from the text, a third reads those messages of the region
//! the policy picked that its facts do not stand for, and [`Compacted::messages`] writes the new
//! transcript on a fourth, from the start noted before the boundary. The reads after the first
//! build only the messages they use. A transcript of any length costs its text, its facts and
//! one message (docs/compaction.md#a-file-read-in-four-passes).

use std::ops::ControlFlow;
use std::path::Path;

use anyhow::Result;
use ctxfuzz_oracles::js_value::JsValue;

use super::facts::Reader;
use super::{CompactionConfig, Decision, Family, Faults, Region, Summariser, Tracker};
use crate::transcript::io;

/// What the compaction of a file's array decided.
pub struct Compacted<'t> {
    pub decision: Decision<JsValue<'t>>,
    /// The messages in the file.
    pub len: usize,
    /// Where every `STRIDE`th message starts (none when the first read counted them).
    starts: Vec<usize>,
}

/// One message in this many has its start noted: 8 bytes for 64 messages.
const STRIDE: usize = 64;

/// Compacts the array in `text`, the file at `path`, as [`super::compact`] does; `None` when the
/// document is not an array.
pub fn compact<'t>(
    path: &Path,
    text: &'t str,
    family: Option<Family>,
    config: &CompactionConfig,
    summariser: &dyn Summariser,
    tracker: &mut Tracker,
) -> Result<Option<Compacted<'t>>> {
    let document = io::Document::new(path, text)?;
    // The first read finds the family, unless it is given: it stops at the first pi message,
    // and counts a chat transcript, which it reads whole.
    let mut pi = false;
    let mut counted = None;
    if family.is_none() {
        let Some(passed) = document.for_each_item_where(
            |_| true,
            |_, message| {
                pi = Family::detect([&message]) == Family::Pi;
                if pi {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        )?
        else {
            return Ok(None);
        };
        counted = (!pi).then_some(passed);
    }
    let family = family.unwrap_or(if pi { Family::Pi } else { Family::Chat });
    // Any other is counted by a pass over its messages (the facts are read into a vector of
    // exactly that size: grown by doubling, it would need half as much again), which notes where
    // every `STRIDE`th starts: the new transcript is written from the boundary's, not after
    // passing over the region again.
    let mut starts = Vec::new();
    let len = match counted {
        Some(len) => len,
        None => {
            let Some(len) = document.for_each_item_start(|start| {
                if start.at % STRIDE == 0 {
                    starts.push(start.offset);
                }
            })?
            else {
                return Ok(None);
            };
            len
        }
    };
    let mut facts = Reader::with_capacity(family, len);
    document.for_each_item(|message| {
        facts.read(&message, |part| io::lent_by(text, part));
    })?;
    let facts = facts.finish();
    let mut region = Region::pick(&facts, family, config);
    let needed: Vec<usize> = (0..region.picked())
        .filter(|&at| region.needs(at))
        .collect();
    // The region's last message is always needed, so none is when there is no region.
    if let Some(&last) = needed.last() {
        let needs = |at| needed.binary_search(&at).is_ok();
        document.for_each_item_where(needs, |at, message| {
            region.read_at(at, &message);
            if at == last {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
    }
    Ok(Some(Compacted {
        decision: region.conclude(summariser, Faults::default(), tracker),
        len: facts.messages.len(),
        starts,
    }))
}

impl<'t> Compacted<'t> {
    /// How many messages were kept untouched.
    pub fn kept(&self) -> usize {
        self.len - self.decision.boundary
    }

    /// The new transcript (the summary message, then the kept messages), read again from `text`
    /// as it is written.
    pub fn messages<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
    ) -> io::Items<'a, impl Fn(usize) -> bool + 'a> {
        io::Items {
            path,
            text,
            first: self.decision.summary_message.as_ref(),
            keep: |at| at >= self.decision.boundary,
            from: from(&self.starts, self.decision.boundary, self.len),
        }
    }
}

/// Where the new transcript is read from: the start noted at or before the first kept message,
/// `boundary` (the last of the `len` messages, when none is kept); none when no start was noted.
fn from(starts: &[usize], boundary: usize, len: usize) -> Option<io::ItemStart> {
    let k = boundary.min(len.saturating_sub(1)) / STRIDE;
    starts.get(k).map(|&offset| io::ItemStart {
        at: k * STRIDE,
        offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::Scripted;

    fn compacted(text: &str, family: Option<Family>) -> Compacted<'_> {
        let config = CompactionConfig::named("cycle-safe").unwrap();
        let mut tracker = Tracker::default();
        let path = Path::new("t.json");
        compact(path, text, family, &config, &Scripted::Digest, &mut tracker)
            .unwrap()
            .unwrap()
    }

    /// Every 64th message's start is noted when the messages are counted by a pass of their
    /// own (a pi transcript, or a family given), not when the first read counted them (a chat
    /// transcript, read whole to find its family).
    #[test]
    fn every_64th_start_is_noted_unless_the_first_read_counted_the_messages() {
        let message = r#"{"role":"assistant","content":[],"stopReason":"stop"}"#;
        let array = |message: &str| format!("[ {}]", vec![message; 130].join(",\n"));
        let (pi, chat) = (
            array(message),
            array(r#"{"role":"assistant","content":"x"}"#),
        );
        // `[ `, then 64 messages and their `,\n` for each start noted.
        let noted: Vec<usize> = (0..3).map(|k| 2 + k * 64 * (message.len() + 2)).collect();
        assert_eq!(compacted(&pi, None).starts, noted);
        assert_eq!(compacted(&pi, Some(Family::Pi)).starts, noted);
        assert!(compacted(&chat, None).starts.is_empty());
        assert_eq!(compacted(&chat, Some(Family::Chat)).starts.len(), 3);
    }

    #[test]
    fn the_transcript_is_read_from_the_start_noted_at_or_before_the_first_kept_message() {
        let starts: Vec<usize> = (0..100).map(|k| 1000 * k).collect();
        for (boundary, at) in [
            (0, 0),
            (63, 0),
            (64, 64),
            (100, 64),
            (3203, 3200),
            (6400, 6336),
        ] {
            let from = from(&starts, boundary, 6400).unwrap();
            assert_eq!((from.at, from.offset), (at, at / 64 * 1000), "{boundary}");
        }
        assert!(from(&[], 0, 0).is_none());
        assert!(from(&[], 5, 7).is_none());
    }
}
