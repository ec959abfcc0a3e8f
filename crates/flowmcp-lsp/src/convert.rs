//! Positions: the validator's byte offsets and 1-based lines with character columns, as the
//! protocol's UTF-16 positions, and back. Every conversion clamps: a position past the text is
//! its end, never a panic.

use lsp_types::{Position, Range};

/// The starts of the lines of one text, for conversions in both directions.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    /// The byte offset of each line's first byte (the first is 0).
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// The text of the 0-based line `line` without its line break (empty past the end).
    pub(crate) fn line(&self, line: usize) -> &'a str {
        let Some(&start) = self.starts.get(line) else {
            return "";
        };
        let end = self
            .starts
            .get(line + 1)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        self.text
            .get(start..end)
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .unwrap_or("")
    }

    /// The byte offset where the 0-based line `line` starts (the text's end past the last line).
    pub(crate) fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.text.len())
    }

    /// The protocol position of the byte offset `offset` (moved back to a character boundary).
    pub(crate) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.line_start(line);
        let units = self
            .text
            .get(start..offset)
            .map(|s| s.encode_utf16().count())
            .unwrap_or(0);
        Position::new(to_u32(line), to_u32(units))
    }

    /// The byte offset of the protocol position `pos` (a column past the line's end is its end;
    /// one inside a surrogate pair is the character's start).
    pub(crate) fn offset(&self, pos: Position) -> usize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return self.text.len();
        }
        let start = self.line_start(line);
        let text = self.line(line);
        let mut units = 0u32;
        for (i, c) in text.char_indices() {
            let next = units + c.len_utf16() as u32;
            if next > pos.character {
                return start + i;
            }
            units = next;
        }
        start + text.len()
    }

    /// The byte offset of the validator's 1-based `line` and 1-based character `column`.
    pub(crate) fn offset_of_line_column(&self, line: u32, column: u32) -> usize {
        let line = (line as usize).saturating_sub(1);
        if line >= self.starts.len() {
            return self.text.len();
        }
        let start = self.line_start(line);
        let text = self.line(line);
        let skip = (column as usize).saturating_sub(1);
        start
            + text
                .char_indices()
                .nth(skip)
                .map(|(i, _)| i)
                .unwrap_or(text.len())
    }

    /// The range of the byte offsets `start..end`.
    pub(crate) fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end.max(start)))
    }

    /// The range a finding at the validator's `line` and `column` covers: the token that starts
    /// there (a string literal with its quotes, a name, a number), the rest of the line for an
    /// object or array, else one character. Without a line, the file's first line.
    pub(crate) fn finding_range(&self, line: Option<u32>, column: Option<u32>) -> Range {
        let Some(line) = line else {
            let first = self.line(0);
            return self.range(0, first.len());
        };
        let start = self.offset_of_line_column(line, column.unwrap_or(1));
        let line_end = self.line_start(line.saturating_sub(1) as usize)
            + self.line(line.saturating_sub(1) as usize).len();
        let rest = self.text.get(start..line_end.max(start)).unwrap_or("");
        let len = token_len(rest);
        self.range(start, start + len)
    }
}

/// The length in bytes of the token at the start of `rest` (see [`LineIndex::finding_range`]).
fn token_len(rest: &str) -> usize {
    let mut chars = rest.char_indices();
    let Some((_, first)) = chars.next() else {
        return 0;
    };
    match first {
        '\'' | '"' | '`' => {
            let mut escaped = false;
            for (i, c) in chars {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == first {
                    return i + c.len_utf8();
                }
            }
            rest.len()
        }
        '{' | '[' => rest.trim_end().len(),
        c if is_word(c) || c == '-' => rest
            .char_indices()
            .skip(1)
            .find(|(_, c)| !(is_word(*c) || *c == '.'))
            .map(|(i, _)| i)
            .unwrap_or(rest.len()),
        c => c.len_utf8(),
    }
}

/// A character of a name or number.
pub(crate) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i42_positions_count_utf16_units_in_non_ascii_lines() {
        // `é` is 2 bytes and 1 unit; `😀` is 4 bytes and 2 units.
        let text = "a\nxé😀'name' z\n";
        let index = LineIndex::new(text);
        let quote = text.find('\'').unwrap_or(0);
        assert_eq!(index.position(quote), Position::new(1, 4));
        assert_eq!(index.offset(Position::new(1, 4)), quote);
        // Inside the surrogate pair: the character's start.
        assert_eq!(
            index.offset(Position::new(1, 3)),
            text.find('😀').unwrap_or(0)
        );
        // Past everything: clamped.
        assert_eq!(index.offset(Position::new(9, 9)), text.len());
        assert_eq!(index.position(text.len() + 5), Position::new(2, 0));
    }

    #[test]
    fn i42_a_finding_covers_its_token() {
        let text = "x\n  name: 'Wörld' }\n";
        let index = LineIndex::new(text);
        // Line 2, column 9 (characters) is the opening quote.
        let r = index.finding_range(Some(2), Some(9));
        assert_eq!(r, Range::new(Position::new(1, 8), Position::new(1, 15)));
        let r = index.finding_range(Some(2), Some(3));
        assert_eq!(r, Range::new(Position::new(1, 2), Position::new(1, 6)));
        assert_eq!(
            index.finding_range(None, None),
            Range::new(Position::new(0, 0), Position::new(0, 1))
        );
    }
}
