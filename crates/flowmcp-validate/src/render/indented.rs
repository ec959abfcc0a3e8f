//! The layout of `serde_json`'s pretty output (two spaces a level, `": "` after a key, an empty
//! array or object as `[]` or `{}`), written with one write per line's indentation instead of one
//! per level: a validation report of the public collection is two megabytes of lines four and
//! five levels deep (D188).

use std::io::{self, Write};

/// Enough spaces for the indentation of the deepest line a report has; deeper lines take them
/// in several writes.
const SPACES: &[u8; 64] = b"                                                                ";

/// A [`serde_json::ser::Formatter`] laying out JSON as `serde_json::to_writer_pretty` does.
#[derive(Default)]
pub(crate) struct Indented {
    /// How many levels deep the next line is.
    depth: usize,
    /// Whether the array or object being closed had a value (then its bracket goes on a line of
    /// its own).
    has_value: bool,
}

impl Indented {
    fn newline_and_indent<W: ?Sized + Write>(&self, writer: &mut W, lead: &[u8]) -> io::Result<()> {
        writer.write_all(lead)?;
        let mut width = self.depth * 2;
        while width > 0 {
            let step = width.min(SPACES.len());
            writer.write_all(&SPACES[..step])?;
            width -= step;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        if self.has_value {
            self.newline_and_indent(writer, b"\n")?;
        }
        writer.write_all(bracket)
    }

    fn item<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.newline_and_indent(writer, if first { b"\n" } else { b",\n" })
    }
}

impl serde_json::ser::Formatter for Indented {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::{Value, json};

    use super::Indented;

    fn laid_out(value: &Value) -> String {
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, Indented::default());
        value.serialize(&mut ser).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// D188: the layout is `serde_json`'s pretty one, for empty and nested containers, strings
    /// that need escapes, and lines deeper than one write of spaces.
    #[test]
    fn i46_the_layout_is_serde_json_pretty_one() {
        let mut deep = json!("bottom");
        for i in 0..40 {
            deep = if i % 2 == 0 {
                json!([deep, {}])
            } else {
                json!({ "k": deep, "e": [] })
            };
        }
        let values = [
            json!(null),
            json!([]),
            json!({}),
            json!([[]]),
            json!([{}, [], [[]], {"a": {}}]),
            json!({"a": 1, "b": [true, null, 2.5, "x\"y\n\u{1}é"], "c": {"d": []}}),
            json!({"": "", "\t": [{"z": -0.0}]}),
            deep,
        ];
        for v in &values {
            assert_eq!(laid_out(v), serde_json::to_string_pretty(v).unwrap(), "{v}");
        }
    }
}
