//! Editing one member of an exported object literal in place, leaving every other character of
//! the file as it is (for tools that write a value back into a module, such as an agent's
//! `hash`).
//!
//! The file is read on its blanked form ([`crate::scan::blank_aligned`]: comments and string
//! contents are spaces, every byte stays where it is), so brackets and quotes inside strings or
//! comments cannot mislead the reader, and a position in one text is the same position in the
//! other. Structure (brackets, quotes, commas, colons) is ASCII, which UTF-8 never uses inside
//! a multi-byte character; only white space and identifiers are read as characters. [`write_atomic`] writes a whole file so that it is never half-written, and
//! [`read_capped`] reads one whole within a size limit.

use crate::scan;

pub use flowmcp_files::named::{ReadCappedError, read_capped, write_atomic, write_cache_file};

/// Why a member could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// There is no `export const <name> = { … }` in the file.
    #[error("no `export const {0} = {{ … }}` object literal in the file")]
    NoExport(String),
    /// The member exists but its value is not a plain string literal (a template with
    /// substitutions, a variable, a call), which cannot be replaced without changing meaning.
    #[error("`{0}` is not a plain string literal; change it by hand")]
    NotAString(String),
    /// The object literal is not closed (the file is not valid JavaScript).
    #[error("the object literal of `{0}` is not closed")]
    Unclosed(String),
    /// A member on the way to the edited one is not there.
    #[error("no member `{0}` in the object literal")]
    NoMember(String),
    /// A member on the way is not written as an object literal (a variable, a call).
    #[error("`{0}` is not written as an object literal; change it by hand")]
    NotAnObject(String),
}

/// Sets the member `key` of the object literal exported as `export const <export_name> = { … }`
/// to the string `value` (written in single quotes; `value` must not contain `'`, `\` or line
/// breaks): the text of an existing string value is replaced; a missing member is inserted as
/// the object's first member, on its own line with the indentation of the next one. Nothing else
/// in the text changes.
pub fn set_string_member(
    source: &str,
    export_name: &str,
    key: &str,
    value: &str,
) -> Result<String, EditError> {
    let blanked = scan::blank_aligned(source);
    let b = blanked.as_bytes();
    let open = find_export_object(&blanked, export_name)
        .ok_or_else(|| EditError::NoExport(export_name.to_string()))?;
    let literal = format!("'{value}'");
    match find_member(&blanked, &[], source, open, key, export_name)? {
        Some(start) => {
            let end = match source.as_bytes().get(start).copied() {
                Some(q @ (b'\'' | b'"' | b'`')) => (start + 1..b.len())
                    .find(|&i| b[i] == q)
                    .filter(|&i| q != b'`' || !b[start..i].contains(&b'$'))
                    .ok_or_else(|| EditError::NotAString(key.to_string()))?,
                _ => return Err(EditError::NotAString(key.to_string())),
            };
            let mut out = String::with_capacity(source.len() + literal.len());
            out.push_str(&source[..start]);
            out.push_str(&literal);
            out.push_str(&source[end + 1..]);
            Ok(out)
        }
        None => {
            let at = open + 1;
            let insert = match member_indent(&blanked, source, open, b.len()) {
                Some(indent) => format!("\n{indent}{key}: {literal},"),
                _ => format!(" {key}: {literal},"),
            };
            let mut out = String::with_capacity(source.len() + insert.len());
            out.push_str(&source[..at]);
            out.push_str(&insert);
            out.push_str(&source[at..]);
            Ok(out)
        }
    }
}

/// Sets the member `key` of the object literal at `path` inside `export const <export_name> =
/// { … }` (`path` names nested members whose values are object literals, e.g. `["tools",
/// "getBook"]`) to `value`, written by `js_literal` with the indentation of the object's members
/// and the file's indentation unit. An existing value's text is replaced whole (an object or array literal up to its closing bracket,
/// or any other expression up to the next `,` or `}`); a missing member is inserted after the
/// member `after` when there is one (else as the object's last member), on its own line with the
/// indentation of the object's members. Nothing else in the text changes.
pub fn set_member(
    source: &str,
    export_name: &str,
    path: &[&str],
    key: &str,
    value: &serde_json::Value,
    after: Option<&str>,
) -> Result<String, EditError> {
    let blanked = scan::blank_aligned(source);
    let t = blanked.as_str();
    let unit = indent_unit(source);
    let open = object_at(
        t,
        &[],
        source,
        find_export_object(t, export_name),
        export_name,
        path,
    )?;
    let splice = |from: usize, to: usize, text: &str| -> String {
        let mut out = String::with_capacity(source.len() + text.len());
        out.push_str(&source[..from]);
        out.push_str(text);
        out.push_str(&source[to..]);
        out
    };
    let close =
        value_end(t, &[], open).ok_or_else(|| EditError::Unclosed(export_name.to_string()))? - 1;
    let indent = member_indent(t, source, open, close).unwrap_or_default();
    let value = js_literal(value, &indent, &unit);
    if let Some(start) = find_member(t, &[], source, open, key, export_name)? {
        let end = value_end(t, &[], start).ok_or_else(|| EditError::Unclosed(key.to_string()))?;
        return Ok(splice(start, end, &value));
    }
    // Where the new member goes: after `after`'s value (and its comma), or after the last member.
    let anchor = match after.map(|a| find_member(t, &[], source, open, a, export_name)) {
        Some(Ok(Some(start))) => value_end(t, &[], start),
        Some(Err(e)) => return Err(e),
        _ => None,
    };
    let last = last_non_space(t, open + 1, close);
    let (at, needs_comma_before) = match (anchor, last) {
        (Some(end), _) => match next_non_space(t, end, close) {
            Some(n) if t.as_bytes()[n] == b',' => (n + 1, false),
            _ => (end, true),
        },
        (None, Some((l, c))) => (l + c.len_utf8(), c != ','),
        (None, None) => (open + 1, false),
    };
    let more_after = t
        .get(at..close)
        .is_some_and(|rest| rest.chars().any(|c| !c.is_whitespace() && c != ','));
    let text = if indent.is_empty() {
        format!(
            "{}{} {key}: {value}{}",
            if needs_comma_before { "," } else { "" },
            "",
            if more_after { "," } else { "" }
        )
    } else {
        format!(
            "{}\n{indent}{key}: {value}{}",
            if needs_comma_before { "," } else { "" },
            if more_after { "," } else { "" }
        )
    };
    Ok(splice(at, at, &text))
}

/// Removes the member `key` of the object literal at `path` inside `export const <export_name> =
/// { … }` (`path` as for [`set_member`]; empty for the export itself): its key, its value and the
/// comma after it. When the member has its line to itself (a line comment after it counts as
/// its own), the whole line goes; otherwise only the member and the blanks after its comma.
/// Comments on the lines before it and every other character stay. A missing member is
/// [`EditError::NoMember`].
pub fn remove_member(
    source: &str,
    export_name: &str,
    path: &[&str],
    key: &str,
) -> Result<String, EditError> {
    let members = EditView::new(source).object_members(export_name, path)?;
    let m = members
        .iter()
        .find(|m| m.name == key)
        .ok_or_else(|| EditError::NoMember(key.to_string()))?;
    // Byte ranges are on the source; blanks are ASCII, so stepping by bytes over them is safe.
    let bytes = source.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut end = m.value.end;
    while end < bytes.len() && blank(bytes[end]) {
        end += 1;
    }
    if bytes.get(end) == Some(&b',') {
        end += 1;
    }
    let line_end = source[end..].find('\n').map_or(source.len(), |i| end + i);
    let rest = source[end..line_end].trim();
    let line_start = source[..m.key.start].rfind('\n').map_or(0, |i| i + 1);
    let alone_before = source[line_start..m.key.start].trim().is_empty();
    let (from, to) = if alone_before && (rest.is_empty() || rest.starts_with("//")) {
        (line_start, (line_end + 1).min(source.len()))
    } else {
        while end < bytes.len() && blank(bytes[end]) {
            end += 1;
        }
        (m.key.start, end)
    };
    let mut out = String::with_capacity(source.len());
    out.push_str(&source[..from]);
    out.push_str(&source[to..]);
    Ok(out)
}

/// The indentation of the members of the object literal opened at byte `open` of the blanked
/// text `t` (before `end`): that of its first member's line, from `source`; `None` when the first
/// member is on the line of the `{` (a one-line object) or there is none.
fn member_indent(t: &str, source: &str, open: usize, end: usize) -> Option<String> {
    let after = open + 1;
    let first = next_non_space(t, after, end)?;
    let b = t.as_bytes();
    if !b[after..first].contains(&b'\n') {
        return None;
    }
    let line_start = b[after..first]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(after, |i| after + i + 1);
    source.get(line_start..first).map(str::to_string)
}

/// The byte offset of the first character of `t[from..to]` that is not white space.
fn next_non_space(t: &str, from: usize, to: usize) -> Option<usize> {
    t.get(from..to)?
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map(|(j, _)| from + j)
}

/// The last character of `t[from..to]` that is not white space, with its byte offset.
fn last_non_space(t: &str, from: usize, to: usize) -> Option<(usize, char)> {
    t.get(from..to)?
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_whitespace())
        .map(|(j, c)| (from + j, c))
}

/// The file's indentation unit: a tab when its first indented line starts with one, else as many
/// spaces as that line has (four when no line is indented).
pub fn indent_unit(source: &str) -> String {
    for line in source.lines() {
        if line.starts_with('\t') {
            return "\t".into();
        }
        let n = line.len() - line.trim_start_matches(' ').len();
        if n > 0 && !line.trim().is_empty() {
            return " ".repeat(n);
        }
    }
    "    ".into()
}

/// The byte offset just after the value starting at byte `start` of the blanked text `t`: its
/// closing bracket for an object, array or call, its closing quote for a string, else the next
/// `,`, `}` or `]` at the value's level (trailing white space excluded).
fn value_end(t: &str, close: &[(u32, u32)], start: usize) -> Option<usize> {
    let b = t.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        match c {
            b'{' | b'[' | b'(' => {
                depth += 1;
                // Straight to the closing bracket, which the next turn reads.
                if let Some(to) = jump(close, i) {
                    i = to;
                    continue;
                }
            }
            b'}' | b']' | b')' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0 && i >= start && matches!(b[start], b'{' | b'[' | b'(') {
                    return Some(i + 1);
                }
            }
            b'\'' | b'"' | b'`' if i == start => {
                return closing_quote(b, start).map(|j| j + 1);
            }
            b',' if depth == 0 => break,
            // A run of spaces (indentation, a blanked string) at once.
            b' ' => {
                i = crate::bytes::after_spaces(b, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if matches!(b.get(start), Some(b'{' | b'[' | b'(')) {
        return None;
    }
    Some(last_non_space(t, start, i).map_or(start, |(j, c)| j + c.len_utf8()))
}

/// The offset of the quote that closes the one at `open` in the blanked text `b` (whose strings
/// hold no quotes of their own): the next byte equal to it.
fn closing_quote(b: &[u8], open: usize) -> Option<usize> {
    let q = *b.get(open)?;
    memchr::memchr(q, b.get(open + 1..)?).map(|j| open + 1 + j)
}

/// The index of the bracket closing the one at `open`, from a table of [`closing_brackets`]
/// (empty: none, and the readers walk every character).
fn jump(close: &[(u32, u32)], open: usize) -> Option<usize> {
    let open = u32::try_from(open).ok()?;
    let at = close.binary_search_by_key(&open, |&(o, _)| o).ok()?;
    close
        .get(at)
        .map(|&(_, c)| c)
        .filter(|&c| c != u32::MAX)
        .map(|c| c as usize)
}

/// Each `{`, `[` or `(` of `blanked` with the byte offset of the bracket that closes it (any
/// closing bracket closes the latest open one, as the readers count depth; `u32::MAX` for one
/// left open), in the order they open. Empty for a text too long to index by `u32`. One pair a
/// bracket rather than an entry a byte: a schema is mostly strings and names, and a table as long
/// as the text was filled and faulted in for every file read for edits (D173).
fn closing_brackets(blanked: &[u8]) -> Vec<(u32, u32)> {
    if u32::try_from(blanked.len()).is_err() {
        return Vec::new();
    }
    // The next opening and the next closing bracket, each found with a byte search: brackets
    // are a few hundredths of the text.
    let after = |from: usize, [a, b, c]: [u8; 3]| {
        blanked
            .get(from..)
            .and_then(|rest| memchr::memchr3(a, b, c, rest))
            .map(|k| from + k)
    };
    const OPENING: [u8; 3] = [b'{', b'[', b'('];
    const CLOSING: [u8; 3] = [b'}', b']', b')'];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let (mut next_open, mut next_close) = (after(0, OPENING), after(0, CLOSING));
    loop {
        match (next_open, next_close) {
            (Some(o), c) if c.is_none_or(|c| o < c) => {
                open.push(pairs.len());
                pairs.push((o as u32, u32::MAX));
                next_open = after(o + 1, OPENING);
            }
            (_, Some(c)) => {
                if let Some(pair) = open.pop().and_then(|k| pairs.get_mut(k)) {
                    pair.1 = c as u32;
                }
                next_close = after(c + 1, CLOSING);
            }
            // An opening bracket with none closing after it is taken by the first arm.
            (_, None) => return pairs,
        }
    }
}

/// `value` as JavaScript source in the style of schema files: single-quoted strings, keys without
/// quotes when they are identifiers, an object or array on one line when it holds only scalars
/// (and is short), otherwise one member per line, indented by `unit` below `indent`.
pub fn js_literal(value: &serde_json::Value, indent: &str, unit: &str) -> String {
    use serde_json::Value;
    fn scalar(v: &Value) -> bool {
        !matches!(v, Value::Object(_) | Value::Array(_))
    }
    fn key(k: &str) -> String {
        let ident = k
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if ident { k.to_string() } else { string(k) }
    }
    fn string(s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('\'');
        for c in s.chars() {
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{2028}' => out.push_str("\\u2028"),
                '\u{2029}' => out.push_str("\\u2029"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('\'');
        out
    }
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(items) if items.is_empty() => "[]".into(),
        Value::Object(m) if m.is_empty() => "{}".into(),
        Value::Array(items) => {
            let inline: Vec<String> = items.iter().map(|v| js_literal(v, indent, unit)).collect();
            if items.iter().all(scalar) && inline.iter().map(String::len).sum::<usize>() < 80 {
                return format!("[ {} ]", inline.join(", "));
            }
            let inner = format!("{indent}{unit}");
            let lines: Vec<String> = items
                .iter()
                .map(|v| format!("{inner}{}", js_literal(v, &inner, unit)))
                .collect();
            format!("[\n{}\n{indent}]", lines.join(",\n"))
        }
        Value::Object(m) => {
            let flat: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), js_literal(v, indent, unit)))
                .collect();
            if m.values().all(scalar) && flat.iter().map(String::len).sum::<usize>() < 100 {
                return format!("{{ {} }}", flat.join(", "));
            }
            let inner = format!("{indent}{unit}");
            let lines: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{inner}{}: {}", key(k), js_literal(v, &inner, unit)))
                .collect();
            format!("{{\n{}\n{indent}}}", lines.join(",\n"))
        }
    }
}

/// The byte offset of the `{` of `export const <name> = {` in the blanked text `t`.
fn find_export_object(t: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(rel) = t[from..].find("export") {
        let start = from + rel;
        from = start + "export".len();
        let rest = &t[from..];
        let rest_trim = rest.trim_start();
        let Some(after_const) = rest_trim.strip_prefix("const") else {
            continue;
        };
        let after_name = after_const.trim_start();
        let Some(after) = after_name.strip_prefix(name) else {
            continue;
        };
        if after
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            continue;
        }
        let after_eq = after.trim_start().strip_prefix('=')?;
        let brace = after_eq.trim_start();
        if !brace.starts_with('{') {
            return None;
        }
        return Some(t.len() - brace.len());
    }
    None
}

/// The byte offset of the value of the member `key` of the object opened at byte `open` of the
/// blanked text `t` (`source` is the text it blanks).
fn find_member(
    t: &str,
    close: &[(u32, u32)],
    source: &str,
    open: usize,
    key: &str,
    export_name: &str,
) -> Result<Option<usize>, EditError> {
    Ok(list_members(t, close, source, open, export_name, &[])?
        .into_iter()
        .find(|m| m.name == key)
        .map(|m| m.value))
}

/// A `key: value` member found by [`list_members`] (byte offsets).
struct RawMember {
    name: String,
    key: usize,
    value: usize,
}

/// Whether `c` continues an identifier as the readers take one.
fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The `key: value` members of the object opened at byte `open` of the blanked text `t`, in
/// source order (shorthand members, spreads and computed keys are not listed); names are read
/// from `source`, which `t` blanks. With `until` not empty, the list ends at the member by which
/// every name of `until` has been listed.
fn list_members(
    t: &str,
    close: &[(u32, u32)],
    source: &str,
    open: usize,
    export_name: &str,
    until: &[&str],
) -> Result<Vec<RawMember>, EditError> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut expect_key = true;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth == 1 {
                    expect_key = true;
                } else if let Some(to) = jump(close, i) {
                    // Nothing inside a member's value is read: straight to its closing bracket.
                    i = to;
                    continue;
                }
            }
            b'}' | b']' | b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(out);
                }
            }
            b',' if depth == 1 => expect_key = true,
            // A run of spaces (indentation, a blanked string) at once.
            b' ' => {
                i = crate::bytes::after_spaces(b, i);
                continue;
            }
            _ if depth == 1 && expect_key => {
                // A key starts at a character that is not white space (the position is always
                // a character's first byte here: every step below moves by whole characters).
                let Some(c) = t.get(i..).and_then(|r| r.chars().next()) else {
                    i += 1;
                    continue;
                };
                if c.is_whitespace() {
                    i += c.len_utf8();
                    continue;
                }
                expect_key = false;
                // A key: an identifier, or a quoted name (its text is in the source).
                let (name, end) = if c == '\'' || c == '"' {
                    let close = closing_quote(b, i).unwrap_or(b.len());
                    (
                        source.get(i + 1..close).unwrap_or_default().to_string(),
                        close + 1,
                    )
                } else {
                    let end = t[i..]
                        .char_indices()
                        .find(|(_, c)| !ident_char(*c))
                        .map_or(b.len(), |(j, _)| i + j);
                    (source.get(i..end).unwrap_or_default().to_string(), end)
                };
                if let Some(colon) =
                    next_non_space(t, end.min(b.len()), b.len()).filter(|&j| b[j] == b':')
                    && let Some(value) = next_non_space(t, colon + 1, b.len())
                {
                    out.push(RawMember {
                        name,
                        key: i,
                        value,
                    });
                    if !until.is_empty() && until.iter().all(|u| out.iter().any(|m| m.name == *u)) {
                        return Ok(out);
                    }
                    // Continue at the value: its brackets count.
                    i = value;
                    continue;
                }
                i = end.max(i + c.len_utf8());
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Err(EditError::Unclosed(export_name.to_string()))
}

/// One `key: value` member of an object literal, as byte ranges of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The key's name (without quotes).
    pub name: String,
    /// The key as written (with its quotes, if any).
    pub key: std::ops::Range<usize>,
    /// The value as written: an object or array literal up to its closing bracket, a string up to
    /// its closing quote, any other expression up to the next `,`, `}` or `]` (trailing white
    /// space excluded).
    pub value: std::ops::Range<usize>,
}

/// Where `export const <name> = { … }` is, as byte ranges of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportObject {
    /// The exported name (after `export const`).
    pub name: std::ops::Range<usize>,
    /// The object literal, from `{` to its `}` inclusive.
    pub object: std::ops::Range<usize>,
}

/// The byte offset of the `{` of the object literal that `path` names inside
/// `export const <export_name> = { … }` (the export's own `{` for an empty path), from `export`,
/// the export's `{` as [`find_export_object`] found it.
fn object_at(
    t: &str,
    close: &[(u32, u32)],
    source: &str,
    export: Option<usize>,
    export_name: &str,
    path: &[&str],
) -> Result<usize, EditError> {
    let mut open = export.ok_or_else(|| EditError::NoExport(export_name.to_string()))?;
    for member in path {
        let start = find_member(t, close, source, open, member, export_name)?
            .ok_or_else(|| EditError::NoMember(member.to_string()))?;
        if t.as_bytes().get(start) != Some(&b'{') {
            return Err(EditError::NotAnObject(member.to_string()));
        }
        open = start;
    }
    Ok(open)
}

/// Finds `export const <name> = { … }` (read on the blanked text, so comments and strings cannot
/// mislead it); `None` when there is none or it is not closed.
pub fn find_export(source: &str, name: &str) -> Option<ExportObject> {
    EditView::new(source).find_export(name)
}

/// The `key: value` members of the object literal at `path` inside `export const <export_name> =
/// { … }` (`path` names nested members whose values are object literals; empty for the export
/// itself), in source order, as byte ranges. Shorthand members, spreads and computed keys are
/// not listed. Each call blanks the whole text: for many reads of one text use [`EditView`].
pub fn object_members(
    source: &str,
    export_name: &str,
    path: &[&str],
) -> Result<Vec<Member>, EditError> {
    EditView::new(source).object_members(export_name, path)
}

/// The `key: value` members of the object literal whose `{` is at byte `open` of `source` (an
/// element of an array, say, which [`object_members`] cannot name), as [`object_members`] lists
/// them. Each call blanks the whole text: for many reads of one text use [`EditView`].
pub fn members_at(source: &str, open: usize) -> Result<Vec<Member>, EditError> {
    EditView::new(source).members_at(open)
}

/// One text read for edits: its blanked form and where its brackets close, computed once, so
/// that reading the members of many objects of one file costs one pass over it rather than one
/// per object.
#[derive(Debug)]
pub struct EditView<'s> {
    source: &'s str,
    /// [`scan::blank_aligned`] of `source`: byte offsets are the source's. Borrowed when the
    /// caller has it already (the loader's blanking of the same text).
    blanked: std::borrow::Cow<'s, str>,
    /// [`closing_brackets`] of `blanked`, made when a reader first needs it: readers step over a
    /// nested value in one move.
    close: std::sync::OnceLock<Vec<(u32, u32)>>,
    /// [`find_export_object`]'s answer for each export name asked so far: a reader of one text
    /// asks for the same export once per object it reads, and each search reads the whole text.
    /// A lock, not a cell, so that a view stays `Sync`.
    exports: std::sync::Mutex<Vec<(String, Option<usize>)>>,
}

impl<'s> EditView<'s> {
    /// The view of `source` (blanked once).
    pub fn new(source: &'s str) -> EditView<'s> {
        Self::of(source, std::borrow::Cow::Owned(scan::blank_aligned(source)))
    }

    /// The view of `source` from its [`scan::blank_aligned`] form `aligned`, for a reader that
    /// has that form already: nothing is blanked again, nor copied.
    pub fn with_aligned(source: &'s str, aligned: &'s str) -> EditView<'s> {
        Self::of(source, std::borrow::Cow::Borrowed(aligned))
    }

    /// The view's blanked text ([`scan::blank_aligned`] of its source): strings and comments are
    /// spaces, byte offsets are the source's.
    pub fn blanked(&self) -> &str {
        &self.blanked
    }

    /// The byte offsets of the `{` of the object literals that are elements of the array
    /// literal `range` (its brackets included): each `{` one bracket deep in it, any closing
    /// bracket closing the latest open one. A value nested deeper is stepped over to where it
    /// closes, by the view's table of matching brackets.
    pub fn array_objects(&self, range: std::ops::Range<usize>) -> Vec<usize> {
        let b = self.blanked.as_bytes();
        let end = range.end.min(b.len());
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut at = range.start;
        while let Some(i) = crate::bytes::next_delimiter(b, at, false).filter(|&i| i < end) {
            at = i + 1;
            match b[i] {
                b'{' | b'[' | b'(' if depth >= 1 => {
                    if depth == 1 && b[i] == b'{' {
                        out.push(i);
                    }
                    match jump(self.close(), i) {
                        // Its inside is deeper still: on after its closing bracket.
                        Some(close) if close < end => at = close + 1,
                        // Closed past the range: nothing after it is one bracket deep.
                        Some(_) => break,
                        // Never closed, or no table (a text too long for one): count on.
                        None => depth += 1,
                    }
                }
                b'{' | b'[' | b'(' => depth += 1,
                _ => depth = depth.saturating_sub(1),
            }
        }
        out
    }

    /// The view of `source` whose aligned blanked text is `blanked`.
    fn of(source: &'s str, blanked: std::borrow::Cow<'s, str>) -> EditView<'s> {
        EditView {
            source,
            close: std::sync::OnceLock::new(),
            blanked,
            exports: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The byte offset of the `{` of `export const <name> = {`, found once per name.
    fn export_open(&self, name: &str) -> Option<usize> {
        let mut found = self
            .exports
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, open)) = found.iter().find(|(n, _)| n == name) {
            return *open;
        }
        let open = find_export_object(&self.blanked, name);
        found.push((name.to_string(), open));
        open
    }

    /// The text the view reads.
    pub fn source(&self) -> &'s str {
        self.source
    }

    /// [`find_export`] on this view's text.
    pub fn find_export(&self, name: &str) -> Option<ExportObject> {
        let t: &str = &self.blanked;
        let open = self.export_open(name)?;
        let end = value_end(t, self.close(), open)?;
        // The name as written before the `{`, not inside a longer identifier.
        let name_start = (0..open)
            .rev()
            .find(|&i| {
                t.is_char_boundary(i)
                    && t.as_bytes()[i..].starts_with(name.as_bytes())
                    && !t[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
            .unwrap_or(open);
        let at = |i: usize| i.min(self.source.len());
        Some(ExportObject {
            name: at(name_start)..at(name_start + name.len()),
            object: at(open)..at(end),
        })
    }

    /// [`object_members`] on this view's text.
    pub fn object_members(
        &self,
        export_name: &str,
        path: &[&str],
    ) -> Result<Vec<Member>, EditError> {
        let open = object_at(
            &self.blanked,
            self.close(),
            self.source,
            self.export_open(export_name),
            export_name,
            path,
        )?;
        self.members_of(open, export_name)
    }

    /// [`members_at`] on this view's text.
    pub fn members_at(&self, open: usize) -> Result<Vec<Member>, EditError> {
        if self.blanked.as_bytes().get(open) != Some(&b'{') {
            return Err(EditError::NotAnObject(format!("byte {open}")));
        }
        self.members_of(open, "object")
    }

    fn members_of(&self, open: usize, export_name: &str) -> Result<Vec<Member>, EditError> {
        members_of(
            self.source,
            &self.blanked,
            self.close(),
            open,
            export_name,
            &[],
        )
    }

    /// The view's table of matching brackets, made on first use.
    fn close(&self) -> &[(u32, u32)] {
        self.close
            .get_or_init(|| closing_brackets(self.blanked.as_bytes()))
    }

    /// The first members of `export const <export_name> = { … }` in the list
    /// [`object_members`](Self::object_members) gives, up to the first member named by each of
    /// `names` (all of them when one is missing), for a caller that knows the export's object to
    /// be the literal opened at byte `literal`, which a loader has read whole and so is closed.
    /// The object is read only as far as those members, a character at a time, without the
    /// view's table of matching brackets (which reads the whole text). When the export's `{` is
    /// not at `literal`, this is [`object_members`](Self::object_members).
    pub fn leading_members(
        &self,
        export_name: &str,
        literal: usize,
        names: &[&str],
    ) -> Result<Vec<Member>, EditError> {
        match self.export_open(export_name) {
            Some(open) if open == literal => {
                members_of(self.source, &self.blanked, &[], open, export_name, names)
            }
            _ => self.object_members(export_name, &[]),
        }
    }
}

/// The members [`list_members`] finds (up to `until`), with the ends of their keys and values.
fn members_of(
    source: &str,
    t: &str,
    close: &[(u32, u32)],
    open: usize,
    export_name: &str,
    until: &[&str],
) -> Result<Vec<Member>, EditError> {
    let b = t.as_bytes();
    let at = |i: usize| i.min(source.len());
    list_members(t, close, source, open, export_name, until)?
        .into_iter()
        .map(|m| {
            let key_end = match source.as_bytes().get(m.key) {
                Some(b'\'' | b'"') => closing_quote(b, m.key).map_or(b.len(), |j| j + 1),
                _ => m.key + m.name.len(),
            };
            let end =
                value_end(t, close, m.value).ok_or_else(|| EditError::Unclosed(m.name.clone()))?;
            Ok(Member {
                key: at(m.key)..at(key_end),
                value: at(m.value)..at(end),
                name: m.name,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENT: &str = "// the agent\nexport const agent = {\n    name: 'helper', // its name\n    tools: { 'a/tool/b': null, inline: { description: 'hash: no' } },\n    hash: 'sha256:old'\n}\n";

    /// Members are read on byte offsets, so characters of several bytes around them (white
    /// space, identifiers, text in strings and comments) must neither shift a range nor split a
    /// character (issue #46: the view no longer keeps a character table).
    #[test]
    fn i46_members_around_multi_byte_characters_have_their_byte_ranges() {
        let src = "/* é */ export const main = {\u{3000}ü: 'é',\u{a0}'k😀': { a: 1 },\u{2028}n$: [ '😀' ]\u{3000}, ß: x😀y }";
        let members = object_members(src, "main", &[]).unwrap_or_default();
        let read: Vec<(&str, &str, &str)> = members
            .iter()
            .map(|m| (m.name.as_str(), &src[m.key.clone()], &src[m.value.clone()]))
            .collect();
        assert_eq!(
            read,
            [
                ("ü", "ü", "'é'"),
                ("k😀", "'k😀'", "{ a: 1 }"),
                ("n$", "n$", "[ '😀' ]"),
                ("ß", "ß", "x😀y"),
            ]
        );
        // A member added after a last value that ends in a character of several bytes.
        let out = set_member(
            "export const main = { a: é }",
            "main",
            &[],
            "b",
            &serde_json::json!(1),
            None,
        );
        assert_eq!(out.as_deref(), Ok("export const main = { a: é, b: 1 }"));
        let out = set_string_member("export const main = {\u{3000}é: 'x' }", "main", "é", "y");
        assert_eq!(out.as_deref(), Ok("export const main = {\u{3000}é: 'y' }"));
        // On any text, every range read is whole characters of the source.
        let alphabet: Vec<char> = "/*'\"`${}()[]\\\n\r =>.?:;,#u0aef😀é\u{2028}\u{3000}\u{a0}"
            .chars()
            .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            let mut text = String::from("export const main = {");
            for _ in 0..(state % 120) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            let view = EditView::new(&text);
            for open in (0..text.len()).filter(|&i| text.as_bytes()[i] == b'{') {
                for m in view.members_at(open).unwrap_or_default() {
                    assert!(text.get(m.key.clone()).is_some(), "{m:?} of {text:?}");
                    assert!(text.get(m.value.clone()).is_some(), "{m:?} of {text:?}");
                }
            }
            if let Some(e) = view.find_export("main") {
                assert_eq!(&text[e.name], "main");
            }
            // The editors read the same offsets: whatever the text, they answer, never panic.
            let one = serde_json::json!(1);
            for key in ["a", "é", "x"] {
                let _ = set_member(&text, "main", &[], key, &one, Some("a"));
                let _ = set_string_member(&text, "main", key, "v");
                let _ = remove_member(&text, "main", &[], key);
            }
        }
    }

    /// One view read many times, for several exports and for one that is missing, reads what a
    /// fresh view reads each time: the export found once per name is the export of that name.
    #[test]
    fn i46_a_view_asked_again_reads_what_a_fresh_view_reads() {
        let src = "// `export const main = {` in a comment\nexport const list = { a: { b: 1 } };\nexport const main = {\n    name: 'x',\n    tools: { t: { method: 'GET' } }\n};\nexport const handlers = () => ({});\n";
        let view = EditView::new(src);
        let asks: [(&str, &[&str]); 7] = [
            ("main", &[]),
            ("main", &["tools"]),
            ("list", &["a"]),
            ("main", &["tools", "t"]),
            ("handlers", &[]),
            ("nope", &[]),
            ("list", &[]),
        ];
        for _ in 0..2 {
            for (name, path) in asks {
                let fresh = EditView::new(src).object_members(name, path);
                assert_eq!(
                    format!("{:?}", view.object_members(name, path)),
                    format!("{fresh:?}"),
                    "{name} {path:?}"
                );
                assert_eq!(
                    format!("{:?}", view.find_export(name)),
                    format!("{:?}", EditView::new(src).find_export(name)),
                    "{name}"
                );
            }
        }
        let main = view.find_export("main").expect("main is exported");
        assert_eq!(&src[main.name], "main");
        assert!(src[main.object].starts_with("{\n    name"));
        assert!(view.find_export("nope").is_none());
        assert!(matches!(
            view.object_members("handlers", &[]),
            Err(EditError::NoExport(_))
        ));
    }

    /// Stepping over nested values by the bracket table reads the members and value ends that
    /// walking every character reads, on well-formed and broken texts alike.
    /// The objects one bracket deep in a range, found by stepping over nested brackets, are the
    /// ones a count of every bracket finds: random texts of brackets, letters and spaces, from
    /// every start to every end (issue #46).
    #[test]
    fn i46_array_objects_are_the_objects_one_bracket_deep() {
        fn counted(b: &[u8], range: std::ops::Range<usize>) -> Vec<usize> {
            let mut out = Vec::new();
            let mut depth = 0usize;
            for i in range {
                match b.get(i) {
                    Some(b'{' | b'[' | b'(') => {
                        if depth == 1 && b[i] == b'{' {
                            out.push(i);
                        }
                        depth += 1;
                    }
                    Some(b'}' | b']' | b')') => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            out
        }
        let alphabet = b"{}[]()a  ";
        let mut state: u64 = 0x46a0;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut found = 0;
        for _ in 0..400 {
            let len = (next() % 40) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
                .collect();
            let view = EditView::new(&text);
            for start in 0..=len {
                for end in start..=len + 1 {
                    let want = counted(text.as_bytes(), start..end);
                    found += want.len();
                    assert_eq!(
                        view.array_objects(start..end),
                        want,
                        "{text:?} {start}..{end}"
                    );
                }
            }
        }
        assert!(found > 1000, "{found}");
    }

    #[test]
    fn i46_stepping_over_brackets_reads_what_walking_reads() {
        let alphabet: Vec<&str> = vec![
            "{", "}", "[", "]", "(", ")", ",", ":", " ", "\n", "a", "b_1", "'k'", "\"q\"", "`t`",
            "x: ", "y: {", "z: [", "f(", "'s, }'", "// c }\n", "/* ] */", "😀",
        ];
        let mut rng = crate::test_texts::XorShift(0x2545_F491_4F6C_DD1D);
        let mut next = || rng.next();
        for round in 0..3000 {
            let mut text = String::from(if round % 2 == 0 {
                "export const main = {"
            } else {
                "{"
            });
            for _ in 0..(next() % 60) {
                text.push_str(alphabet[(next() % alphabet.len() as u64) as usize]);
            }
            let view = EditView::new(&text);
            let t = view.blanked();
            // The leading members of a closed export are the first of all its members.
            if let (Some(export), Ok(all)) =
                (view.find_export("main"), view.object_members("main", &[]))
            {
                for names in [&["x"][..], &["y", "x"], &["z"], &["nothing"], &[]] {
                    let seen =
                        |k: usize| names.iter().all(|n| all[..k].iter().any(|m| m.name == *n));
                    let upto = (1..=all.len()).find(|&k| seen(k)).unwrap_or(all.len());
                    let upto = if names.is_empty() { all.len() } else { upto };
                    let fresh = EditView::new(&text);
                    let leading = fresh.leading_members("main", export.object.start, names);
                    assert_eq!(
                        leading.as_deref(),
                        Ok(&all[..upto]),
                        "{names:?} of {text:?}"
                    );
                    assert!(
                        fresh.close.get().is_none(),
                        "the table was made for {text:?}"
                    );
                }
            }
            // The table is what reading byte by byte gives.
            let mut by_byte: Vec<(u32, u32)> = Vec::new();
            let mut open = Vec::new();
            for (i, c) in t.bytes().enumerate() {
                match c {
                    b'{' | b'[' | b'(' => {
                        open.push(by_byte.len());
                        by_byte.push((i as u32, u32::MAX));
                    }
                    b'}' | b']' | b')' => {
                        if let Some(k) = open.pop() {
                            by_byte[k].1 = i as u32;
                        }
                    }
                    _ => {}
                }
            }
            assert_eq!(view.close(), by_byte, "{text:?}");
            for start in (0..t.len()).filter(|&i| t.is_char_boundary(i)) {
                assert_eq!(
                    value_end(t, view.close(), start),
                    value_end(t, &[], start),
                    "value at {start} of {text:?}"
                );
                if t.as_bytes()[start] == b'{' {
                    let walked = members_of(&text, t, &[], start, "x", &[]);
                    let stepped = members_of(&text, t, view.close(), start, "x", &[]);
                    assert_eq!(stepped, walked, "members at {start} of {text:?}");
                }
            }
        }
    }

    #[test]
    fn an_existing_value_is_replaced_and_nothing_else_changes() {
        let out = set_string_member(AGENT, "agent", "hash", "sha256:new").unwrap_or_default();
        assert_eq!(out, AGENT.replace("'sha256:old'", "'sha256:new'"));
    }

    #[test]
    fn a_missing_member_is_inserted_first_with_the_indentation() {
        let src = AGENT.replace(",\n    hash: 'sha256:old'", "");
        let out = set_string_member(&src, "agent", "hash", "sha256:x").unwrap_or_default();
        assert_eq!(
            out,
            src.replace(
                "export const agent = {\n",
                "export const agent = {\n    hash: 'sha256:x',\n"
            )
        );
        let one = "export const agent = { name: 'a' }";
        assert_eq!(
            set_string_member(one, "agent", "hash", "h").unwrap_or_default(),
            "export const agent = { hash: 'h', name: 'a' }"
        );
    }

    #[test]
    fn keys_in_nested_objects_strings_and_comments_are_not_members() {
        let src = "export const agent = {\n    // hash: 'in a comment'\n    inline: { hash: 'nested' },\n    note: 'hash: text'\n}\n";
        let out = set_string_member(src, "agent", "hash", "h").unwrap_or_default();
        assert!(
            out.starts_with("export const agent = {\n    hash: 'h',\n    // hash: 'in a comment'"),
            "{out}"
        );
        assert!(out.contains("inline: { hash: 'nested' }"));
    }

    const SCHEMA: &str = "export const main = {\n    namespace: 'x',\n    tools: {\n        a: {\n            method: 'GET',\n            parameters: [ { z: '}' } ],\n            tests: []\n        },\n        b: { method: 'GET', output: { mimeType: 'text/plain', schema: { type: 'string' } }, tests: [] }\n    }\n}\n";

    #[test]
    fn a_nested_member_is_inserted_after_another_or_replaced() {
        let x = serde_json::json!({"x": 1});
        let out = set_member(
            SCHEMA,
            "main",
            &["tools", "a"],
            "output",
            &x,
            Some("parameters"),
        )
        .unwrap_or_default();
        assert_eq!(
            out,
            SCHEMA.replace(
                "parameters: [ { z: '}' } ],\n",
                "parameters: [ { z: '}' } ],\n            output: { x: 1 },\n"
            )
        );
        let y = serde_json::json!({"y": 2});
        let out = set_member(
            SCHEMA,
            "main",
            &["tools", "b"],
            "output",
            &y,
            Some("parameters"),
        )
        .unwrap_or_default();
        assert_eq!(
            out,
            SCHEMA.replace(
                "output: { mimeType: 'text/plain', schema: { type: 'string' } }",
                "output: { y: 2 }"
            )
        );
        // No `parameters`: the new member goes last.
        let empty = serde_json::json!({});
        let out = set_member(
            SCHEMA,
            "main",
            &["tools", "b"],
            "meta",
            &empty,
            Some("parameters"),
        )
        .unwrap_or_default();
        assert!(out.contains("tests: [], meta: {} }"), "{out}");
        assert_eq!(
            set_member(SCHEMA, "main", &["tools", "c"], "output", &empty, None),
            Err(EditError::NoMember("c".into()))
        );
        assert_eq!(
            set_member(SCHEMA, "main", &["namespace"], "output", &empty, None),
            Err(EditError::NotAnObject("namespace".into()))
        );
    }

    #[test]
    fn js_literals_look_like_schema_files() {
        let v = serde_json::json!({"mimeType": "application/json", "schema": {"type": "object",
            "properties": {"it's": {"type": "string", "description": ""}}}});
        assert_eq!(
            js_literal(&v, "    ", "    "),
            "{\n        mimeType: 'application/json',\n        schema: {\n            type: 'object',\n            properties: {\n                'it\\'s': { type: 'string', description: '' }\n            }\n        }\n    }"
        );
        assert_eq!(
            js_literal(&serde_json::json!(["a", 1, null]), "", "  "),
            "[ 'a', 1, null ]"
        );
    }

    #[test]
    fn what_cannot_be_edited_is_refused() {
        assert_eq!(
            set_string_member("export const main = {}", "agent", "hash", "h"),
            Err(EditError::NoExport("agent".into()))
        );
        assert_eq!(
            set_string_member("export const agent = { hash: HASH }", "agent", "hash", "h"),
            Err(EditError::NotAString("hash".into()))
        );
        assert_eq!(
            set_string_member("export const agent = { name: 'a'", "agent", "hash", "h"),
            Err(EditError::Unclosed("agent".into()))
        );
    }

    #[test]
    fn i31_1_members_are_listed_with_their_byte_ranges() {
        let src = "// é\nexport const main = {\n    'quoted key': 'ü', // comment: x\n    tools: { a: [ 1, { b: 2 } ] },\n    n: 3\n}\n";
        let e = find_export(src, "main").unwrap();
        assert_eq!(&src[e.name.clone()], "main");
        assert!(src[e.object.clone()].starts_with('{') && src[e.object.clone()].ends_with('}'));
        let m = object_members(src, "main", &[]).unwrap();
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["quoted key", "tools", "n"]);
        assert_eq!(&src[m[0].key.clone()], "'quoted key'");
        assert_eq!(&src[m[0].value.clone()], "'ü'");
        assert_eq!(&src[m[1].value.clone()], "{ a: [ 1, { b: 2 } ] }");
        assert_eq!(&src[m[2].value.clone()], "3");
        let inner = object_members(src, "main", &["tools"]).unwrap();
        assert_eq!(&src[inner[0].value.clone()], "[ 1, { b: 2 } ]");
        let at = src.find("{ b").unwrap();
        let b = members_at(src, at).unwrap();
        assert_eq!((b[0].name.as_str(), &src[b[0].value.clone()]), ("b", "2"));
        assert!(members_at(src, at + 1).is_err());
        assert!(find_export(src, "other").is_none());
    }

    #[test]
    fn i31_1_aligned_blanking_keeps_byte_offsets() {
        let src = "const a = 'Größe' // ü\nexport { a }";
        let b = crate::scan::blank_aligned(src);
        assert_eq!(b.len(), src.len());
        assert_eq!(b.find("export"), src.find("export"));
    }

    #[test]
    fn i45_remove_member_takes_its_line_or_only_itself() {
        let src = "export const main = {\n    tools: {\n        // kept\n        a: { x: 1 },\n        b: {\n            y: [ 1, 2 ]\n        }, // fails\n        c: 'z'\n    }\n}\n";
        let out = remove_member(src, "main", &["tools"], "b").unwrap();
        assert_eq!(
            out,
            "export const main = {\n    tools: {\n        // kept\n        a: { x: 1 },\n        c: 'z'\n    }\n}\n"
        );
        let out = remove_member(&out, "main", &["tools"], "c").unwrap();
        assert_eq!(
            out,
            "export const main = {\n    tools: {\n        // kept\n        a: { x: 1 },\n    }\n}\n"
        );
        let one_line = "export const main = { tools: { a: 1, b: '}', c: 3 } }";
        assert_eq!(
            remove_member(one_line, "main", &["tools"], "b").unwrap(),
            "export const main = { tools: { a: 1, c: 3 } }"
        );
        assert_eq!(
            remove_member(one_line, "main", &["tools"], "nope"),
            Err(EditError::NoMember("nope".into()))
        );
    }
}
