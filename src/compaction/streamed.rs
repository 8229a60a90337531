//! The compaction of a file's array, read one message at a time and never held whole, as the
//! sweep's is ([`crate::sweep::streamed`]): a first read finds the family (unless it is given),
//! a read of every message's facts follows, whose strings stay borrowed from the text, noting
//! where every 64th message starts (or, where that cannot be seen from the messages built, a pass
//! over them unbuilt notes it), then a read of those messages of the region the policy picked
//! that its facts do not stand for, and
//! [`Compacted::messages`] writes the new transcript on a last one, from the start noted before
//! the boundary. The reads after the first build only the messages they use. A transcript of any
//! length costs its text, its facts and one message
//! (docs/compaction.md#a-file-read-in-three-passes).

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
    /// Where every 64th message starts.
    starts: ItemStarts,
}

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
    // Every 64th message's start is noted as the facts are read, so that the new transcript is
    // written from the boundary's, not after passing over the region again; when one is not
    // found there (see `NotedStarts`), the messages are passed over once more to note them.
    let mut facts = Reader::with_capacity(family, 0);
    let mut noted = document.noted_starts();
    let read = document.for_each_item(|message| {
        noted.note(&message);
        facts.read(&message, |part| io::lent_by(text, part));
    })?;
    if !read {
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
    /// as it is written, from the start noted at or before the first kept message (the last
    /// message, when none is kept).
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
            from: self.starts.at_or_before(first_kept),
        }
    }
}
