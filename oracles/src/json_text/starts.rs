//! Where each of an array's items starts in its text, noted in one pass that builds none or
//! ([`NotedStarts`]) by a reader that builds every item anyway: a later read of some of the
//! array's items begins at the start of each it wants ([`ItemsFrom::texts`],
//! [`super::Searched::item_at`]), passing over none before it (8 bytes an item).

use std::ops::ControlFlow;

use super::{JSON_WHITESPACE, RawText, for_each_raw_item_where};
use crate::js_value::JsValue;

/// An item's position in its array and the byte of the text where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemStart {
    pub at: usize,
    pub offset: usize,
}

/// Where each item of an array starts.
#[derive(Debug)]
pub struct ItemStarts {
    /// The start of each item, in order.
    offsets: Vec<usize>,
}

/// The items of the array in `text` counted and their starts noted, each item passed over
/// unbuilt; `None` when the document does not start with `[`.
pub fn item_starts(text: &str) -> serde_json::Result<Option<ItemStarts>> {
    let mut offsets = Vec::new();
    let len = for_each_raw_item_where(
        text,
        |_| true,
        |_, item| {
            offsets.push(item.get().as_ptr() as usize - text.as_ptr() as usize);
            ControlFlow::Continue(())
        },
    )?;
    Ok(len.map(|_| ItemStarts { offsets }))
}

/// [`ItemStarts`] noted by a reader that builds each item of the array in `text` from that text
/// (`json_text::for_each_item_where`), sparing it the pass of [`item_starts`]. An item's start is
/// found from its first key ([`object_start`]): this holds for an array of objects read as the
/// text lies; when an item has none found there, the starts are not noted and the reader counts
/// them after all.
pub struct NotedStarts<'t> {
    text: &'t str,
    /// `None` once a start was not found.
    offsets: Option<Vec<usize>>,
}

impl<'t> NotedStarts<'t> {
    pub fn new(text: &'t str) -> Self {
        NotedStarts {
            text,
            offsets: Some(Vec::new()),
        }
    }

    /// Notes the array's next item, built from the text.
    pub fn note(&mut self, item: &JsValue) {
        if let Some(offsets) = &mut self.offsets {
            match object_start(self.text, item) {
                Some(offset) => offsets.push(offset),
                None => self.offsets = None,
            }
        }
    }

    /// The starts of the items noted; `None` when one was not found.
    pub fn finish(self) -> Option<ItemStarts> {
        self.offsets.map(|offsets| ItemStarts { offsets })
    }
}

/// Where `item` starts in `text`: the `{` before its first key, when it is an object read from
/// `text` whose first key lies there (a key without escapes, read from the text itself rather
/// than a copy: one with its escapes rewritten, or made of an owned value). `None` otherwise.
fn object_start(text: &str, item: &JsValue) -> Option<usize> {
    let JsValue::Object(object) = item else {
        return None;
    };
    let (key, _) = object.iter().next()?;
    let at = super::offset_in(text, key)?;
    let before = text[..at]
        .strip_suffix('"')?
        .trim_end_matches(JSON_WHITESPACE);
    before.ends_with('{').then(|| before.len() - 1)
}

impl ItemStarts {
    /// Where item `at` starts; none past the last item.
    pub fn at(&self, at: usize) -> Option<ItemStart> {
        self.offsets.get(at).map(|&offset| ItemStart { at, offset })
    }

    /// The items from the `at`th on; none past the last item.
    pub fn from(&self, at: usize) -> Option<ItemsFrom<'_>> {
        (at < self.offsets.len()).then_some(ItemsFrom {
            starts: &self.offsets,
            at,
        })
    }
}

/// An array's items from one on, by the starts noted of them ([`ItemStarts::from`]).
#[derive(Debug, Clone, Copy)]
pub struct ItemsFrom<'s> {
    starts: &'s [usize],
    at: usize,
}

impl<'s> ItemsFrom<'s> {
    /// The position of the first of the items.
    pub fn at(self) -> usize {
        self.at
    }

    /// Each item's position and text in `text`, the document the starts were noted in, read
    /// whole before (so the array and what follows it are valid JSON): an item runs from its
    /// start to the whitespace and comma before the next item's start, the last to the
    /// whitespace and bracket closing the array. No item is read: its end is found from the
    /// next one's start. An error where no comma or bracket lies there (a text the starts were
    /// not noted in).
    pub fn texts<'t>(
        self,
        text: &'t str,
    ) -> impl Iterator<Item = serde_json::Result<(usize, RawText<'t>)>> + use<'s, 't> {
        let starts = &self.starts[self.at..];
        let nexts = starts.iter().skip(1).map(Some).chain([None]);
        starts
            .iter()
            .zip(nexts)
            .zip(self.at..)
            .map(move |((&start, next), at)| {
                let (rest, closing) = match next {
                    Some(&next) => (text.get(start..next), ','),
                    None => (text.get(start..), ']'),
                };
                rest.and_then(|rest| rest.trim_end_matches(JSON_WHITESPACE).strip_suffix(closing))
                    .map(|item| (at, RawText(item.trim_end_matches(JSON_WHITESPACE))))
                    .ok_or_else(|| {
                        serde::de::Error::custom(format!(
                            "expected `{closing}` after the item at byte {start}"
                        ))
                    })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_text::for_each_item_where;

    /// The starts a reader of every item of `text` notes, each item built from the text.
    fn noted_in(text: &str) -> Option<ItemStarts> {
        let mut noted = NotedStarts::new(text);
        for_each_item_where(
            text,
            |_| true,
            |_, item| {
                noted.note(&item);
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        noted.finish()
    }

    /// 130 objects laid out in several ways (whitespace inside and before each, an empty first
    /// key): the starts noted as they are built are those the pass of `item_starts` notes.
    #[test]
    fn the_starts_noted_by_a_reader_of_every_item_are_those_the_pass_notes() {
        let layouts = [
            r#"{"role":"user"}"#,
            "{ \n\t\"role\" : 1}",
            r#"{"":[{"a":1}]}"#,
        ];
        let items: Vec<&str> = (0..130).map(|i| layouts[i % 3]).collect();
        let text = format!("[ {} ]", items.join(" ,\n "));
        let counted = item_starts(&text).unwrap().unwrap();
        let noted = noted_in(&text).expect("every start found");
        assert_eq!(noted.offsets, counted.offsets);
        assert_eq!(counted.offsets.len(), 130);
        let empty = noted_in("[]").expect("no start wanted");
        assert_eq!(empty.offsets, Vec::<usize>::new());
    }

    /// A start not found from the item's first key: the starts are not noted. An item that is
    /// not an object, or whose first key was copied (an escape in it), or built from another
    /// text.
    #[test]
    fn the_starts_are_not_noted_when_one_is_not_found_from_its_first_key() {
        let plain = r#"{"role":"user"}"#;
        let with = |at: usize, item: &str| {
            let items: Vec<&str> = (0..70)
                .map(|i| if i == at { item } else { plain })
                .collect();
            format!("[{}]", items.join(","))
        };
        for item in ["[1]", "\"x\"", "{}", r#"{"r\u006fle":"user"}"#] {
            for at in [0, 63, 69] {
                assert!(noted_in(&with(at, item)).is_none(), "{item} at {at}");
            }
        }
        assert_eq!(noted_in(&with(69, plain)).unwrap().offsets.len(), 70);
        let other = String::from(plain);
        let copy = crate::json_text::parse_borrowed(&other).unwrap();
        let mut noted = NotedStarts::new(plain);
        noted.note(&copy);
        assert!(noted.finish().is_none(), "an item of another text");
        let mut noted = NotedStarts::new(&other);
        noted.note(&copy);
        assert_eq!(noted.finish().unwrap().offsets, vec![0]);
    }

    /// 130 items, `[ ` first and `,\n` between: each item's start is noted where its text
    /// begins, and none past the last.
    #[test]
    fn each_item_s_start_is_noted_where_its_text_begins() {
        let item = r#"{"role":"user","content":"x"}"#;
        let text = format!("[ {}]", vec![item; 130].join(",\n"));
        let starts = item_starts(&text).unwrap().unwrap();
        for at in 0..130 {
            let start = starts.at(at).unwrap();
            assert_eq!(
                start,
                ItemStart {
                    at,
                    offset: 2 + at * (item.len() + 2)
                }
            );
            assert!(text[start.offset..].starts_with(item));
        }
        assert!(starts.at(130).is_none());
        assert!(item_starts("{}").unwrap().is_none());
        assert!(item_starts("[]").unwrap().unwrap().at(0).is_none());
    }

    /// What a later write starts from: the items from the noted start on, none before it.
    #[test]
    fn the_items_from_a_noted_start_are_that_item_and_those_after_it() {
        let text = format!(
            "[{}]",
            (0..70)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let starts = item_starts(&text).unwrap().unwrap();
        let read: Vec<(usize, String)> = starts
            .from(64)
            .unwrap()
            .texts(&text)
            .map(|item| item.map(|(at, item)| (at, item.get().to_string())))
            .collect::<serde_json::Result<_>>()
            .unwrap();
        let expected: Vec<(usize, String)> = (64..70).map(|i| (i, i.to_string())).collect();
        assert_eq!(read, expected);
    }
}
