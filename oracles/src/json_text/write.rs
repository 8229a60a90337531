//! The writers: JSON text written the way `JSON.stringify` writes it (see the parent module),
//! in serde_json's compact or pretty layout.

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

use super::{parse_borrowed, reindent};
use crate::js_string::{self, JsChar};

/// One JSON value's text, written as serde_json's [`RawValue`](serde_json::value::RawValue)
/// writes its own (laid out by these writers as the value it holds), taken from a text read
/// whole before: a value found in it by its bounds ([`super::ItemsFrom::texts`]) is not read
/// again to make a `RawValue` of it, which would pass over it once more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawText<'t>(pub(super) &'t str);

/// serde_json's serializers write a struct of this name as the raw text of its one field: the
/// way `RawValue`'s own `Serialize` reaches them (serde_json/src/raw.rs `TOKEN`; a test writes a
/// [`RawText`] through each of them).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl<'t> RawText<'t> {
    pub fn get(self) -> &'t str {
        self.0
    }
}

impl<'t> From<&'t serde_json::value::RawValue> for RawText<'t> {
    fn from(raw: &'t serde_json::value::RawValue) -> Self {
        RawText(raw.get())
    }
}

impl Serialize for RawText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, self.0)?;
        raw.end()
    }
}

/// serde_json's layout (`inner`) with strings written as `JSON.stringify` writes them, and a
/// value's text read from a document ([`RawValue`]) written as the value it holds would be.
struct Stringify<F> {
    inner: F,
    /// In the pretty layout, the arrays and objects open around what is written next.
    indent: reindent::Indent,
    /// A value's text laid out, kept for the next one's, and the stacks it was laid out with.
    scratch: Vec<u8>,
    stacks: reindent::Stacks,
}

impl<F> Stringify<F> {
    fn open(&mut self) {
        self.indent = self.indent.map(|depth| depth + 1);
    }

    fn close(&mut self) {
        self.indent = self.indent.map(|depth| depth - 1);
    }
}

impl<F: Formatter> Formatter for Stringify<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !js_string::may_hold_reserved(fragment) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut buffer = [0u8; 4];
        for c in js_string::chars(fragment) {
            match c {
                JsChar::Scalar(c) => writer.write_all(c.encode_utf8(&mut buffer).as_bytes())?,
                JsChar::Lone(unit) => write!(writer, "\\u{unit:04x}")?,
            }
        }
        Ok(())
    }

    fn write_raw_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        self.scratch.clear();
        if reindent::write(fragment, self.indent, &mut self.scratch, &mut self.stacks) {
            return writer.write_all(&self.scratch);
        }
        // Built and written alone, moved in by the indentation around it as it is written.
        let value = parse_borrowed(fragment).map_err(io::Error::other)?;
        let depth = self.indent.unwrap_or(0);
        let shifted = Shifted { out: writer, depth };
        match self.indent {
            None => write_with(shifted, CompactFormatter, None, &value),
            Some(_) => write_with(shifted, PrettyFormatter::new(), Some(0), &value),
        }
        .map_err(io::Error::other)
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open();
        self.inner.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close();
        self.inner.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.inner.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open();
        self.inner.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close();
        self.inner.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.inner.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_object_value(writer)
    }
}

/// Writes to `out` what is written to it, each line after the first moved in by `depth` levels
/// of the pretty layout: its line breaks are only between tokens, never inside a string.
pub(super) struct Shifted<'w, W: ?Sized> {
    pub(super) out: &'w mut W,
    pub(super) depth: usize,
}

impl<W: ?Sized + io::Write> io::Write for Shifted<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for (at, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if at > 0 {
                self.out.write_all(b"\n")?;
                for _ in 0..self.depth {
                    self.out.write_all(b"  ")?;
                }
            }
            self.out.write_all(line)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

fn write_with<W: io::Write, F: Formatter, T: Serialize + ?Sized>(
    writer: W,
    formatter: F,
    indent: reindent::Indent,
    value: &T,
) -> serde_json::Result<()> {
    let formatter = Stringify {
        inner: formatter,
        indent,
        scratch: Vec::new(),
        stacks: reindent::Stacks::default(),
    };
    let mut serializer = serde_json::Serializer::with_formatter(writer, formatter);
    value.serialize(&mut serializer)
}

/// `JSON.stringify(value)` on one line (serde_json's compact layout).
pub fn to_writer<W: io::Write, T: Serialize + ?Sized>(
    writer: W,
    value: &T,
) -> serde_json::Result<()> {
    write_with(writer, CompactFormatter, None, value)
}

/// `JSON.stringify(value)` as a `String`.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    // Room for a call's arguments, the most frequent text written here, without growing.
    let mut out = Vec::with_capacity(64);
    to_writer(&mut out, value)?;
    Ok(String::from_utf8(out).expect("JSON output is UTF-8"))
}

/// serde_json's pretty layout, strings as `JSON.stringify` writes them.
pub fn to_writer_pretty<W: io::Write, T: Serialize + ?Sized>(
    writer: W,
    value: &T,
) -> serde_json::Result<()> {
    write_with(writer, PrettyFormatter::new(), Some(0), value)
}

/// [`to_writer_pretty`] into a `String`.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    to_writer_pretty(&mut out, value)?;
    Ok(String::from_utf8(out).expect("JSON output is UTF-8"))
}
