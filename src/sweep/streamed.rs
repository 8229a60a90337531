//! The sweep of a file's array, read twice one message at a time and never held whole: the first
//! read decides what is swept (and finds any error in the file before a byte is written), the
//! second writes the kept messages as it reads them, borrowed from the text. A transcript of any
//! length costs its text and one message (docs/sweep.md).

use std::path::Path;

use anyhow::Result;
use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};

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

/// The second read: the messages of the array in `text` but those at `swept_at`, serialised as
/// they are read.
pub struct KeptItems<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    pub swept_at: &'a [usize],
}

impl Serialize for KeptItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let mut failed = None;
        let mut swept = self.swept_at.iter().peekable();
        let mut index = 0;
        io::for_each_item(self.path, self.text, |message| {
            if swept.next_if(|&&at| at == index).is_none() && failed.is_none() {
                failed = seq.serialize_element(&message).err();
            }
            index += 1;
        })
        .map_err(|e| S::Error::custom(format!("{e:#}")))?;
        match failed {
            Some(error) => Err(error),
            None => seq.end(),
        }
    }
}
