//! Where an array's items start in its text, noted for every `STRIDE`th item in one pass that
//! builds none: a later read of the array's last items begins at the start noted at or before
//! the first item it wants ([`super::for_each_raw_item_from`]), not at the array's first item.

use std::ops::ControlFlow;

use super::for_each_raw_item_where;

/// One item in this many has its start noted: 8 bytes for 64 items.
const STRIDE: usize = 64;

/// An item's position in its array and the byte of the text where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemStart {
    pub at: usize,
    pub offset: usize,
}

/// The items of an array counted, and every `STRIDE`th one's start.
#[derive(Debug)]
pub struct ItemStarts {
    /// How many items the array has.
    pub len: usize,
    /// The start of item `k * STRIDE`, by `k`.
    offsets: Vec<usize>,
}

/// The items of the array in `text` counted and their starts noted, each item passed over
/// unbuilt; `None` when the document does not start with `[`.
pub fn item_starts(text: &str) -> serde_json::Result<Option<ItemStarts>> {
    let mut offsets = Vec::new();
    let len = for_each_raw_item_where(
        text,
        |_| true,
        |at, item| {
            if at % STRIDE == 0 {
                offsets.push(item.get().as_ptr() as usize - text.as_ptr() as usize);
            }
            ControlFlow::Continue(())
        },
    )?;
    Ok(len.map(|len| ItemStarts { len, offsets }))
}

impl ItemStarts {
    /// The start noted at or before item `at`; none when no item was noted there (an empty array).
    pub fn at_or_before(&self, at: usize) -> Option<ItemStart> {
        let k = at / STRIDE;
        self.offsets.get(k).map(|&offset| ItemStart {
            at: k * STRIDE,
            offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_text::for_each_raw_item_from;

    /// 130 items, `[ ` first and `,\n` between: every 64th item's start is noted, each where
    /// that item's text begins.
    #[test]
    fn every_64th_items_start_is_noted_where_its_text_begins() {
        let item = r#"{"role":"user","content":"x"}"#;
        let text = format!("[ {}]", vec![item; 130].join(",\n"));
        let starts = item_starts(&text).unwrap().unwrap();
        assert_eq!(starts.len, 130);
        let noted: Vec<usize> = (0..3).map(|k| 2 + k * 64 * (item.len() + 2)).collect();
        assert_eq!(starts.offsets, noted);
        for offset in noted {
            assert!(text[offset..].starts_with(item));
        }
        assert!(item_starts("{}").unwrap().is_none());
        assert_eq!(item_starts("[]").unwrap().unwrap().len, 0);
    }

    #[test]
    fn an_item_is_read_from_the_start_noted_at_or_before_it() {
        let starts = ItemStarts {
            len: 6400,
            offsets: (0..100).map(|k| 1000 * k).collect(),
        };
        for (at, noted) in [
            (0, 0),
            (63, 0),
            (64, 64),
            (100, 64),
            (3203, 3200),
            (6399, 6336),
        ] {
            let start = starts.at_or_before(at).unwrap();
            assert_eq!(
                start,
                ItemStart {
                    at: noted,
                    offset: noted / 64 * 1000
                },
                "{at}"
            );
        }
        let empty = ItemStarts {
            len: 0,
            offsets: Vec::new(),
        };
        assert!(empty.at_or_before(0).is_none());
    }

    /// What a later read starts from: the items from the noted start on, none before it.
    #[test]
    fn a_read_from_a_noted_start_hands_over_that_item_and_those_after_it() {
        let text = format!(
            "[{}]",
            (0..70)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let starts = item_starts(&text).unwrap().unwrap();
        let start = starts.at_or_before(69).unwrap();
        let mut read = Vec::new();
        for_each_raw_item_from(&text, start.offset, |item| {
            read.push(item.get().to_string());
            ControlFlow::Continue(())
        })
        .unwrap();
        let expected: Vec<String> = (64..70).map(|i| i.to_string()).collect();
        assert_eq!((start.at, read), (64, expected));
    }
}
