//! The sweep of a file's array, read one message at a time and never held whole: the first read
//! decides what is swept (and finds any error in the file before a byte is written) and notes
//! where each message starts; the kept messages are then written from their text, found by those
//! starts (read again from the first message where the starts could not be noted). A transcript
//! of any length costs its text, one message and a start a message (docs/sweep.md).

use std::path::Path;

use anyhow::Result;
use ctxfuzz_oracles::js_value::JsValue;
use ctxfuzz_oracles::json_text::ItemStarts;

use super::{BarrierRule, Sweeper, result_id};
use crate::transcript::io;

/// What the sweep of a file's array decided, read one message at a time.
pub struct Decided {
    /// The positions of the swept results, in order.
    pub swept_at: Vec<usize>,
    /// Their ids as the sweep reports them.
    pub swept: Vec<String>,
    /// Where each message starts, noted as it was read (`None` where a start was not found
    /// there: see `NotedStarts`), so that the second read finds each kept message's text by its
    /// start and the next one's instead of reading the array again.
    starts: Option<ItemStarts>,
}

/// The first read: the sweep's decisions for the array in `text`, or `None` when the document is
/// not an array (a protocol request, or an error [`io::messages_of`] names). `read` is shown each
/// message and its position as it is read (the command line looks for another format's).
pub fn decide(
    path: &Path,
    text: &str,
    rule: BarrierRule,
    mut read: impl FnMut(usize, &JsValue),
) -> Result<Option<Decided>> {
    let document = io::Document::new(path, text)?;
    let mut sweeper = Sweeper::new(rule);
    let (mut swept_at, mut swept) = (Vec::new(), Vec::new());
    let mut noted = document.noted_starts();
    let mut index = 0;
    let is_array = document.for_each_item(|message| {
        noted.note(&message);
        read(index, &message);
        if !sweeper.keeps(&message) {
            swept_at.push(index);
            swept.push(result_id(&message));
        }
        index += 1;
    })?;
    Ok(is_array.then(|| Decided {
        swept_at,
        swept,
        starts: noted.finish(),
    }))
}

impl Decided {
    /// The second read: the messages of the array in `text` but the swept ones.
    pub fn kept<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
    ) -> io::Items<'a, impl Fn(usize) -> bool + 'a> {
        io::Items {
            path,
            text,
            first: None,
            keep: |at| self.swept_at.binary_search(&at).is_err(),
            from: self.starts.as_ref().and_then(|starts| starts.from(0)),
        }
    }
}
