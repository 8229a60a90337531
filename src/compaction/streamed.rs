//! The compaction of a file's array, read one message at a time and never held whole, as the
//! sweep's is ([`crate::sweep::streamed`]): a first read finds the family (unless it is given),
//! a read of every message's facts follows, whose strings stay borrowed from the text, noting
//! where each message starts (or, where that cannot be seen from the messages built, a pass over
//! them unbuilt notes it), then the messages of the region the policy picked that its facts do
//! not stand for are read, each at its start, and [`Compacted::messages`] writes the new
//! transcript on a last read, from the boundary's start. The reads after the first build only
//! the messages they use, and pass over none. A transcript of any length costs its text, its
//! facts, its starts and one message (docs/compaction.md#a-file-read-in-three-passes).

use std::ops::ControlFlow;
use std::path::Path;

use anyhow::Result;
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text::ItemStarts;

use super::facts::Reader;
use super::{CompactionConfig, Decision, Family, Faults, Region, Summariser, Tracker};
use crate::transcript::io;

/// What the compaction of a file's array decided.
pub struct Compacted<'t> {
    pub decision: Decision<JsValue<'t>>,
    /// The messages in the file.
    pub len: usize,
    /// Where each message starts.
    starts: ItemStarts,
}

/// Compacts the array in `text`, the file at `path`, as [`super::compact`] does; `None` when the
/// document is not an array. `read` is shown the family and each message with its position as
/// its facts are read, before anything is decided (the command line looks for another format's).
pub fn compact<'t>(
    path: &Path,
    text: &'t str,
    family: Option<Family>,
    config: &CompactionConfig,
    summariser: &dyn Summariser,
    tracker: &mut Tracker,
    mut read: impl FnMut(Family, usize, &JsValue),
) -> Result<Option<Compacted<'t>>> {
    let document = io::Document::new(path, text)?;
    // The first read finds the family, unless it is given: it stops at the first pi message
    // (a chat transcript is read whole).
    let family = match family {
        Some(family) => family,
        None => {
            let mut pi = false;
            let array = document.for_each_item_where(
                |_| true,
                |_, message| {
                    pi = Family::detect([&message]) == Family::Pi;
                    if pi {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            )?;
            if array.is_none() {
                return Ok(None);
            }
            if pi { Family::Pi } else { Family::Chat }
        }
    };
    // Each message's start is noted as the facts are read, so that the region's messages are read
    // and the new transcript written from their own, none passed over; when one is not found
    // there (see `NotedStarts`), the messages are passed over once more to note them.
    let mut facts = Reader::with_capacity(family, 0);
    let mut noted = document.noted_starts();
    let mut at = 0;
    let is_array = document.for_each_item(|message| {
        noted.note(&message);
        read(family, at, &message);
        at += 1;
        facts.read(&message, |part| io::lent_by(text, part));
    })?;
    if !is_array {
        return Ok(None);
    }
    let facts = facts.finish();
    let starts = match noted.finish() {
        Some(starts) => starts,
        None => match document.item_starts()? {
            Some(starts) => starts,
            None => return Ok(None),
        },
    };
    let mut region = Region::pick(&facts, family, config);
    let needed: Vec<usize> = (0..region.picked())
        .filter(|&at| region.needs(at))
        .collect();
    // Each needed message read at its start; the rest (all of them, when the items are read only
    // from the first: see `Document::item_at`) read from the first, the others passed over.
    let mut at_starts = needed.iter().copied().peekable();
    while let Some(&at) = at_starts.peek() {
        let start = starts.at(at).map(|start| start.offset);
        let Some(message) = start
            .map(|offset| document.item_at(offset))
            .transpose()?
            .flatten()
        else {
            break;
        };
        region.read_at(at, &message);
        at_starts.next();
    }
    let needed: Vec<usize> = at_starts.collect();
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
    /// as it is written, from the first kept message's start (the last message's, when none is
    /// kept).
    pub fn messages<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
    ) -> io::Items<'a, impl Fn(usize) -> bool + 'a> {
        let first_kept = self.decision.boundary.min(self.len.saturating_sub(1));
        io::Items {
            path,
            text,
            first: self.decision.summary_message.as_ref(),
            keep: |at| at >= self.decision.boundary,
            from: self.starts.from(first_kept),
        }
    }
}
