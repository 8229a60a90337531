//! The sweep of a file's array, read twice one message at a time and never held whole: the first
//! read decides what is swept (and finds any error in the file before a byte is written), the
//! second writes the kept messages as it reads them, borrowed from the text. A transcript of any
//! length costs its text and one message (docs/sweep.md).

use std::path::Path;

use anyhow::Result;

use super::{BarrierRule, Sweeper, result_id};
use crate::transcript::io;

/// What the sweep of a file's array decided, read one message at a time.
pub struct Decided {
    /// The positions of the swept results, in order.
    pub swept_at: Vec<usize>,
    /// Their ids as the sweep reports them.
    pub swept: Vec<String>,
}

/// The first read: the sweep's decisions for the array in `text`, or `None` when the document is
/// not an array (a protocol request, or an error [`io::messages_of`] names).
pub fn decide(path: &Path, text: &str, rule: BarrierRule) -> Result<Option<Decided>> {
    let mut sweeper = Sweeper::new(rule);
    let mut decided = Decided {
        swept_at: Vec::new(),
        swept: Vec::new(),
    };
    let mut index = 0;
    let is_array = io::for_each_item(path, text, |message| {
        if !sweeper.keeps(&message) {
            decided.swept_at.push(index);
            decided.swept.push(result_id(&message));
        }
        index += 1;
    })?;
    Ok(is_array.then_some(decided))
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
            from: None,
        }
    }
}
