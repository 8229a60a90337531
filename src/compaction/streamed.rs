//! The compaction of a file's array, read one message at a time and never held whole, as the
//! sweep's is ([`crate::sweep::streamed`]): a first read counts the messages and finds the family
//! (unless it is given), a second reads every message's facts, whose strings stay borrowed from
//! the text, a third reads those messages of the region the policy picked that its facts do not
//! stand for, and [`Compacted::messages`] writes the new transcript on a fourth. The reads after
//! the first build only the messages they use. A transcript of any length costs its text, its
//! facts and one message (docs/compaction.md#a-file-read-in-four-passes).

use std::cell::Cell;
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
    // The first read: the family, unless given, and the number of messages (the facts are read
    // into a vector of exactly that size: grown by doubling, it would need half as much again).
    let pi = Cell::new(false);
    let Some(len) = document.for_each_item_where(
        |_| family.is_none() && !pi.get(),
        |_, message| {
            pi.set(Family::detect([&message]) == Family::Pi);
            ControlFlow::Continue(())
        },
    )?
    else {
        return Ok(None);
    };
    let family = family.unwrap_or(if pi.get() { Family::Pi } else { Family::Chat });
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
        }
    }
}
