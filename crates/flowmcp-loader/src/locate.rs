//! Mapping JSON paths inside an export back to source positions.
//!
//! Schemas are object literals (`export const main = { … }`), so a light structural reader is enough:
//! it walks the literal on the blanked source (comments and string contents are spaces there, so
//! brackets inside strings cannot confuse it), reads keys from the original text, and records where each
//! value starts. Shorthand members and plain identifier values (`tools,` / `tools: tools`) are followed
//! to a top-level `const tools = { … }` of the same file. Anything computed (spreads, calls, computed
//! keys) is skipped: its paths simply have no position, and [`locate_paths`] falls back to the
//! nearest enclosing value that has one.
//!
//! Invariant: linear in the source size for one export (each character is visited a bounded number of
//! times; identifier indirections are followed at most `MAX_INDIRECTIONS` deep), never panics.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use crate::literal::LiteralIndex;
use crate::scan;

/// How many `name` → `const name = …` hops are followed for one value.
pub(crate) const MAX_INDIRECTIONS: usize = 8;

/// A 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

/// One segment of a path (mirrors `flowmcp_spec::diagnostic::Seg`, kept local so this module has no opinion on
/// diagnostics).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Name(String),
    Index(usize),
}

impl From<flowmcp_spec::diagnostic::Seg> for Key {
    fn from(s: flowmcp_spec::diagnostic::Seg) -> Key {
        match s {
            flowmcp_spec::diagnostic::Seg::Key(k) => Key::Name(k),
            flowmcp_spec::diagnostic::Seg::Index(i) => Key::Index(i),
        }
    }
}

/// Finds the source positions of `paths` (each starting with an export name such as `main`) in one
/// pass over `source`. Each answer is the position of the value at that path or, when that value cannot
/// be found (missing key, computed value), of its nearest enclosing value that can; `None` when not
/// even the export is found. Only members on the requested paths are descended into; everything else
/// is skipped, so the cost is about one scan of the export's text however many paths are asked for.
pub fn locate_paths(source: &str, paths: &[Vec<Key>]) -> Vec<Option<Pos>> {
    locate_paths_blanked(source, &scan::blank_aligned(source), paths)
}

/// As [`locate_paths`], with the source already blanked by [`scan::blank_aligned`] or [`scan::blank`]
/// (saves a pass).
///
/// Works on bytes: when no multi-byte character was blanked (the blanked text is as long as the
/// source, the common case), both texts share their byte offsets and nothing is copied; otherwise a
/// byte-aligned blanking is derived once (each blanked character becomes as many spaces as it has
/// bytes). Columns are counted in characters of the source, in one sweep at the end.
pub fn locate_paths_blanked(source: &str, blanked: &str, paths: &[Vec<Key>]) -> Vec<Option<Pos>> {
    let mut answers = vec![None; paths.len()];
    if let Some(offsets) = offsets_blanked(source, blanked, paths) {
        positions(source, &offsets, &mut answers);
    }
    answers
}

/// [`locate_paths_blanked`]'s byte offsets; `None` when the blanking does not fit the source.
fn offsets_blanked(source: &str, blanked: &str, paths: &[Vec<Key>]) -> Option<Vec<Option<usize>>> {
    let mut offsets: Vec<Option<usize>> = vec![None; paths.len()];
    if paths.is_empty() {
        return Some(offsets);
    }
    let realigned;
    let b: &str = if source.len() == blanked.len() {
        blanked
    } else {
        realigned = scan::byte_aligned(source, blanked)?;
        &realigned
    };
    let mut trie = Trie::default();
    for (n, p) in paths.iter().enumerate() {
        trie.insert(p, n);
    }
    let reader = Reader::new(b, source);
    for (export, node) in &trie.names {
        if let Some(start) = reader.declaration(export) {
            reader.value(start, node, &mut offsets, 0);
        }
    }
    Some(offsets)
}

/// The byte where the value at `path` below `root` (the value of the literal `index` was noted
/// for) starts or, when the path leaves the value, where the deepest value on it does. An
/// object's members are in the order the literal writes them (each key once, none an array
/// index: the index is kept only then), so the n-th member's span follows the spans of the
/// n − 1 before it.
fn indexed_offset(index: &LiteralIndex, root: &serde_json::Value, path: &[Key]) -> Option<usize> {
    use serde_json::Value;
    let spans = index.spans();
    let mut value = root;
    let mut at = 0usize;
    for key in path {
        let (nth, child) = match (value, key) {
            (Value::Object(members), Key::Name(name)) => {
                match members.iter().enumerate().find(|(_, (k, _))| *k == name) {
                    Some((nth, (_, child))) => (nth, child),
                    None => break,
                }
            }
            (Value::Array(items), Key::Index(i)) => match items.get(*i) {
                Some(child) => (*i, child),
                None => break,
            },
            _ => break,
        };
        let mut child_at = at + 1;
        for _ in 0..nth {
            child_at += spans.get(child_at)?.1;
        }
        value = child;
        at = child_at;
    }
    spans.get(at).map(|&(start, _)| start)
}

impl crate::LoadedFile {
    /// [`locate_paths_blanked`] of the file's text (each path starting with an export's name):
    /// paths into a literal `main` the loader read with its index
    /// ([`crate::literal::MainLiteral::index`]) are answered from it, the others by reading the
    /// text. `None` for every path when the file has no text.
    pub fn locate_paths(&self, paths: &[Vec<Key>]) -> Vec<Option<Pos>> {
        let mut answers = vec![None; paths.len()];
        let Some(source) = self.source.as_deref() else {
            return answers;
        };
        let indexed = self.main_literal.as_ref().and_then(|m| m.index.as_ref());
        let main = indexed.and_then(|index| Some((index, self.exports.as_ref()?.get("main")?)));
        let mut offsets: Vec<Option<usize>> = vec![None; paths.len()];
        let mut rest: Vec<usize> = Vec::new();
        for (n, path) in paths.iter().enumerate() {
            match (main, path.split_first()) {
                (Some((index, root)), Some((Key::Name(export), below))) if export == "main" => {
                    offsets[n] = indexed_offset(index, root, below);
                }
                _ => rest.push(n),
            }
        }
        if !rest.is_empty() {
            let asked: Vec<Vec<Key>> = rest.iter().map(|&n| paths[n].clone()).collect();
            let found = match self.blanked.as_deref() {
                Some(blanked) => offsets_blanked(source, blanked, &asked),
                None => offsets_blanked(source, &scan::blank_aligned(source), &asked),
            };
            for (&n, offset) in rest.iter().zip(found.unwrap_or_default()) {
                offsets[n] = offset;
            }
        }
        positions(source, &offsets, &mut answers);
        answers
    }
}

/// Converts byte offsets of `source` into 1-based lines (counted by `\n`) and columns (in
/// characters), in one sweep over the source.
fn positions(source: &str, offsets: &[Option<usize>], answers: &mut [Option<Pos>]) {
    let mut order: Vec<(usize, usize)> = offsets
        .iter()
        .enumerate()
        .filter_map(|(n, o)| o.map(|o| (o, n)))
        .collect();
    order.sort_unstable();
    let bytes = source.as_bytes();
    // `column` counts the characters since the start of the line, up to `at`.
    let (mut at, mut line, mut column) = (0usize, 1usize, 0usize);
    for (offset, n) in order {
        let offset = offset.min(bytes.len());
        if let Some(segment) = bytes.get(at..offset) {
            let breaks = memchr::memchr_iter(b'\n', segment).count();
            let tail = match memchr::memrchr(b'\n', segment) {
                Some(last) => {
                    line += breaks;
                    column = 0;
                    &segment[last + 1..]
                }
                None => segment,
            };
            // Characters are the bytes that are not UTF-8 continuation bytes.
            column += tail.iter().filter(|&&c| c & 0xC0 != 0x80).count();
            at = offset;
        }
        answers[n] = Some(Pos {
            line: line as u32,
            column: (column + 1) as u32,
        });
    }
}

/// The string written at `path` (an export name, then keys: `main`, `namespace`), read from the
/// text without running anything, so also from a file that does not load (a syntax error further
/// down): what names the file would have given. Only a plain `'…'` or `"…"` string without escapes
/// counts, at exactly that path; anything else (another value, a computed member, a path that is
/// not there) is `None`.
pub fn string_at(source: &str, path: &[Key]) -> Option<String> {
    let pos = locate_paths(source, &[path.to_vec()])
        .into_iter()
        .next()
        .flatten()?;
    let line = source
        .split('\n')
        .nth(usize::try_from(pos.line).ok()?.checked_sub(1)?)?;
    let mut chars = line
        .chars()
        .skip(usize::try_from(pos.column).ok()?.checked_sub(1)?);
    let quote = chars.next().filter(|c| matches!(c, '\'' | '"'))?;
    let mut out = String::new();
    for c in chars {
        match c {
            c if c == quote => return Some(out),
            '\\' => return None,
            c => out.push(c),
        }
    }
    None
}

/// The requested paths as a tree; `ends` lists the indices of the paths that end at a node.
#[derive(Default)]
struct Trie {
    ends: Vec<usize>,
    /// Every path that passes through (or ends at) this node, for the nearest-ancestor fallback.
    through: Vec<usize>,
    /// Children by member name (looked up by `&str`, so reading a key allocates nothing).
    names: HashMap<String, Trie>,
    /// Children by array index.
    indices: HashMap<usize, Trie>,
}

impl Trie {
    fn insert(&mut self, path: &[Key], n: usize) {
        let mut node = self;
        for k in path {
            node = match k {
                Key::Name(name) => node.names.entry(name.clone()).or_default(),
                Key::Index(i) => node.indices.entry(*i).or_default(),
            };
            node.through.push(n);
        }
        node.ends.push(n);
    }

    fn is_leaf(&self) -> bool {
        self.names.is_empty() && self.indices.is_empty()
    }
}

/// Reads the blanked text as bytes. `t` is byte-aligned with `o` (the source): every offset is an
/// offset of both.
struct Reader<'a> {
    t: &'a str,
    b: &'a [u8],
    o: &'a str,
    /// Top-level `const|let|var name = ` declarations found so far: name → offset of the value's
    /// first character (the first declaration of a name wins).
    decls: RefCell<HashMap<&'a str, usize>>,
    /// How far the top level has been read for declarations: offset and bracket depth there. The
    /// text is read on only when a name is asked for that is not known yet.
    scanned: Cell<(usize, usize)>,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

impl<'a> Reader<'a> {
    fn new(t: &'a str, o: &'a str) -> Self {
        Reader {
            t,
            b: t.as_bytes(),
            o,
            decls: RefCell::new(HashMap::new()),
            scanned: Cell::new((0, 0)),
        }
    }

    /// The character at byte `i` (`'\0'` past the end or inside a character).
    fn at(&self, i: usize) -> char {
        match self.b.get(i) {
            Some(&c) if c < 0x80 => char::from(c),
            Some(_) => self
                .t
                .get(i..)
                .and_then(|rest| rest.chars().next())
                .unwrap_or('\0'),
            None => '\0',
        }
    }

    /// The character ending just before byte `i`.
    fn before(&self, i: usize) -> char {
        match self.b.get(i.wrapping_sub(1)) {
            Some(&c) if c < 0x80 => char::from(c),
            Some(_) => self
                .t
                .get(..i)
                .and_then(|head| head.chars().next_back())
                .unwrap_or('\0'),
            None => '\0',
        }
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while i < self.b.len() {
            // ASCII first (the spaces eight at a time); `char::is_whitespace` for the rest.
            match self.b[i] {
                b' ' => {
                    i = crate::bytes::after_spaces(self.b, i);
                    continue;
                }
                b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => {
                    i += 1;
                    continue;
                }
                c if c < 0x80 => break,
                _ => {}
            }
            let c = self.at(i);
            if !c.is_whitespace() {
                break;
            }
            i += c.len_utf8();
        }
        i
    }

    fn ident_end(&self, mut i: usize) -> usize {
        while i < self.b.len() {
            let c = self.at(i);
            if !is_ident_char(c) {
                break;
            }
            i += c.len_utf8();
        }
        i
    }

    fn word(&self, from: usize, to: usize) -> &'a str {
        self.t.get(from..to).unwrap_or("")
    }

    /// Where the top-level `const|let|var NAME =` declaration of `name` puts its value: the first
    /// one in the text. Reads the top level (bracket depth 0) on from where the last call stopped,
    /// only as far as needed.
    fn declaration(&self, name: &str) -> Option<usize> {
        if let Some(&at) = self.decls.borrow().get(name) {
            return Some(at);
        }
        let (mut i, mut depth) = self.scanned.get();
        let mut found = None;
        while let Some(&byte) = self.b.get(i) {
            match byte {
                b'{' | b'[' | b'(' => depth += 1,
                b'}' | b']' | b')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 {
                let c = self.at(i);
                if is_ident_start(c) && (i == 0 || !is_ident_char(self.before(i))) {
                    let end = self.ident_end(i);
                    let w = self.word(i, end);
                    if w == "const" || w == "let" || w == "var" {
                        let n = self.skip_ws(end);
                        if is_ident_start(self.at(n)) {
                            let n_end = self.ident_end(n);
                            let eq = self.skip_ws(n_end);
                            if self.at(eq) == '=' && self.at(eq + 1) != '=' {
                                let declared = self.word(n, n_end);
                                let value = self.skip_ws(eq + 1);
                                let mut decls = self.decls.borrow_mut();
                                let first = *decls.entry(declared).or_insert(value);
                                if declared == name {
                                    found = Some(first);
                                }
                            }
                        }
                    }
                    i = end;
                    if found.is_some() {
                        break;
                    }
                    continue;
                }
            }
            i += 1;
        }
        self.scanned.set((i, depth));
        found
    }

    /// Records the offset of the value at `i` for every path through `node`, then descends into the
    /// members `node` asks for. Returns the offset just after the value.
    fn value(&self, i: usize, node: &Trie, answers: &mut [Option<usize>], hops: usize) -> usize {
        let i = self.skip_ws(i);
        if i >= self.b.len() {
            return i;
        }
        for &n in &node.through {
            // Deeper nodes are visited later and overwrite: the answer is the deepest found.
            answers[n] = Some(i);
        }
        if node.is_leaf() {
            return self.skip_expression(i);
        }
        match self.at(i) {
            '{' => self.object(i, node, answers, hops),
            '[' => self.array(i, node, answers, hops),
            c if is_ident_start(c) => {
                let end = self.ident_end(i);
                let after = self.skip_ws(end);
                let ends_value =
                    after >= self.b.len() || matches!(self.at(after), ',' | '}' | ']' | ';');
                if ends_value && hops < MAX_INDIRECTIONS {
                    let name = self.word(i, end);
                    if let Some(target) = self.declaration(name) {
                        // Follow `name` to its declaration for the members below; this value's own
                        // position stays the place where it is used.
                        let saved: Vec<(usize, Option<usize>)> =
                            node.ends.iter().map(|&n| (n, answers[n])).collect();
                        self.value(target, node, answers, hops + 1);
                        for (n, p) in saved {
                            answers[n] = p;
                        }
                    }
                }
                self.skip_expression(i)
            }
            _ => self.skip_expression(i),
        }
    }

    fn object(
        &self,
        open: usize,
        node: &Trie,
        answers: &mut [Option<usize>],
        hops: usize,
    ) -> usize {
        let mut i = open + 1;
        loop {
            i = self.skip_ws(i);
            if i >= self.b.len() {
                return i;
            }
            match self.b[i] {
                b'}' => return i + 1,
                b',' => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            // A member: key, then `:` value | `(` method | shorthand.
            let c = self.at(i);
            let (child, after_key) = if c == '\'' || c == '"' {
                let quote = c as u8;
                let mut j = i + 1;
                while j < self.b.len() && self.b[j] != quote && self.b[j] != b'\n' {
                    j += 1;
                }
                let text = self.o.get(i + 1..j.min(self.o.len())).unwrap_or("");
                let child = if text.contains('\\') {
                    node.names.get(unescape_simple(text).as_str())
                } else {
                    node.names.get(text)
                };
                (child, j + 1)
            } else if is_ident_start(c) || c.is_ascii_digit() {
                let end = self.ident_end(i);
                (node.names.get(self.word(i, end)), end)
            } else if c == '.' && self.at(i + 1) == '.' && self.at(i + 2) == '.' {
                i = self.skip_expression(i + 3);
                continue;
            } else if c == '[' {
                (None, self.skip_group(i))
            } else {
                i = self.skip_expression(i + 1);
                continue;
            };
            let j = self.skip_ws(after_key);
            match self.at(j) {
                ':' => {
                    i = match child {
                        Some(child) => self.value(j + 1, child, answers, hops),
                        None => self.skip_expression(j + 1),
                    };
                }
                '(' => {
                    let k = self.skip_ws(self.skip_group(j));
                    i = if self.at(k) == '{' {
                        self.skip_group(k)
                    } else {
                        k
                    };
                }
                ',' | '}' => {
                    // Shorthand `name`: the value is the identifier itself.
                    if let Some(child) = child {
                        self.value(i, child, answers, hops);
                    }
                    i = j;
                }
                _ => {
                    i = self.skip_expression(j);
                }
            }
        }
    }

    fn array(&self, open: usize, node: &Trie, answers: &mut [Option<usize>], hops: usize) -> usize {
        let mut i = open + 1;
        let mut index = 0usize;
        loop {
            i = self.skip_ws(i);
            if i >= self.b.len() {
                return i;
            }
            match self.b[i] {
                b']' => return i + 1,
                b',' => {
                    index += 1;
                    i += 1;
                    continue;
                }
                b'.' if self.at(i + 1) == '.' && self.at(i + 2) == '.' => {
                    // A spread: later indices are unknown.
                    return self.skip_group(open);
                }
                _ => {}
            }
            i = match node.indices.get(&index) {
                Some(child) => self.value(i, child, answers, hops),
                None => self.skip_expression(i),
            };
            i = self.skip_ws(i);
            if self.at(i) == ',' {
                i += 1;
                index += 1;
            } else if self.at(i) != ']' {
                return self.skip_group(open);
            }
        }
    }

    /// Skips a balanced group starting at the opening bracket `i`; returns the offset after its close.
    fn skip_group(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while let Some(k) = crate::bytes::next_delimiter(self.b, j, false) {
            if matches!(self.b[k], b'{' | b'[' | b'(') {
                depth += 1;
            } else {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k + 1;
                }
            }
            j = k + 1;
        }
        self.b.len().max(i)
    }

    /// Skips an expression: up to the next `,` or closing bracket at depth 0. The delimiters are
    /// found eight bytes at a time (in the blanked text, strings and comments hold none).
    fn skip_expression(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while let Some(k) = crate::bytes::next_delimiter(self.b, j, depth == 0) {
            match self.b[k] {
                b'{' | b'[' | b'(' => depth += 1,
                b'}' | b']' | b')' => {
                    if depth == 0 {
                        return k;
                    }
                    depth -= 1;
                }
                // `,` or `;` at depth 0 (only then are they searched for).
                _ => return k,
            }
            j = k + 1;
        }
        self.b.len().max(i)
    }
}

/// Undoes the simple escapes that appear in object keys (`\'`, `\"`, `\\`).
fn unescape_simple(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every path into `value` (below `at`), with a few that leave it: a member that is not
    /// there, an index past the end, a step below a scalar, a name on an array and an index on an
    /// object.
    fn paths_into(value: &serde_json::Value, at: &mut Vec<Key>, out: &mut Vec<Vec<Key>>) {
        use serde_json::Value;
        out.push(at.clone());
        let mut leave = |key: Key| {
            let mut p = at.clone();
            p.push(key);
            out.push(p);
        };
        match value {
            Value::Object(members) => {
                leave(Key::Name("__not_there__".into()));
                leave(Key::Index(0));
                for (k, v) in members {
                    at.push(Key::Name(k.clone()));
                    paths_into(v, at, out);
                    at.pop();
                }
            }
            Value::Array(items) => {
                leave(Key::Index(items.len()));
                leave(Key::Name("0".into()));
                for (i, v) in items.iter().enumerate() {
                    at.push(Key::Index(i));
                    paths_into(v, at, out);
                    at.pop();
                }
            }
            _ => {
                leave(Key::Name("x".into()));
                leave(Key::Index(0));
            }
        }
    }

    /// The positions of `text`'s paths into `main` (and a few into other exports) by the
    /// loader's index and by reading the text, compared; whether the index was there.
    fn same_by_index_and_text(name: &str, text: &str) -> bool {
        let limits = crate::Limits::default();
        let settings = flowmcp_spec::RuleSettings::new(flowmcp_spec::Profile::Compat);
        let loaded = crate::file::load_source(Path::new(name), name, text, &limits, &settings);
        let (Some(_), Some(main)) = (
            loaded.main_literal.as_ref().and_then(|m| m.index.as_ref()),
            loaded.exports.as_ref().and_then(|e| e.get("main")),
        ) else {
            return false;
        };
        let mut paths = Vec::new();
        paths_into(main, &mut vec![Key::Name("main".into())], &mut paths);
        paths.push(vec![Key::Name("handlers".into())]);
        paths.push(vec![Key::Name("nothing".into()), Key::Index(1)]);
        let blanked = loaded.blanked.as_deref().unwrap_or_default();
        let by_text = locate_paths_blanked(text, blanked, &paths);
        let by_index = loaded.locate_paths(&paths);
        for ((path, t), i) in paths.iter().zip(&by_text).zip(&by_index) {
            assert_eq!(t, i, "{name}: {path:?}");
        }
        true
    }

    /// D188: the positions of paths into a literal `main` that the loader answers from the
    /// literal reader's index are the text locator's, for every schema fixture of the
    /// validator, the example catalogs and random literals (keys quoted, escaped, numeric and
    /// repeated, comments and spaces beyond ASCII); the index is there for most files.
    #[test]
    fn i46_a_literal_main_is_located_by_its_index_as_by_its_text() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        for dir in ["crates/flowmcp-validate/tests", "examples"] {
            files.extend(flowmcp_files::walk::mjs_files(&root.join(dir), &|_| false).unwrap());
        }
        let (mut indexed, mut read) = (0, 0);
        for path in &files {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            read += 1;
            indexed += usize::from(same_by_index_and_text(&path.display().to_string(), &text));
        }
        assert!(
            read > 900 && indexed > 400,
            "{indexed} of {read} files indexed"
        );

        // Random literals: members whose keys and spacing the index may or may not take.
        let keys = [
            "a",
            "b",
            "é",
            "$x",
            "'a'",
            "\"b\"",
            "'a b'",
            "'\\x41'",
            "'c\\'d'",
            "1",
            "'2'",
            "1.5",
            "0x1F",
            "'01'",
            "`t`",
            "a /* é */",
            "b\u{2028}",
            "c\u{a0}",
            "'é'",
        ];
        let gaps = [
            " ",
            "",
            "\n  ",
            " /* c */ ",
            " // c\n",
            "\u{feff}",
            "\u{3000}",
            "\t",
        ];
        let scalars = [
            "1",
            "- 2",
            "+ /* s */ 0x1F",
            "'s'",
            "\"q\"",
            "`t`",
            "null",
            "true",
            "1_000",
        ];
        let mut rng = crate::test_texts::XorShift(0x10ca_7e46);
        let mut indexed = 0;
        for round in 0..2_000 {
            fn value(
                rng: &mut crate::test_texts::XorShift,
                depth: usize,
                k: &[&str],
                g: &[&str],
                s: &[&str],
            ) -> String {
                match rng.next() % 5 {
                    0 | 1 if depth < 4 => {
                        let n = rng.next() % 4;
                        let members: Vec<String> = (0..n)
                            .map(|_| {
                                format!(
                                    "{}{}:{}{}",
                                    rng.pick(k),
                                    rng.pick(g),
                                    rng.pick(g),
                                    value(rng, depth + 1, k, g, s)
                                )
                            })
                            .collect();
                        format!("{{{}{}}}", rng.pick(g), members.join(","))
                    }
                    2 if depth < 4 => {
                        let n = rng.next() % 4;
                        let items: Vec<String> = (0..n)
                            .map(|_| format!("{}{}", rng.pick(g), value(rng, depth + 1, k, g, s)))
                            .collect();
                        format!("[{}]", items.join(","))
                    }
                    _ => rng.pick(s).to_string(),
                }
            }
            let members: Vec<String> = (0..1 + rng.next() % 4)
                .map(|_| {
                    format!(
                        "{}: {}",
                        rng.pick(&keys),
                        value(&mut rng, 1, &keys, &gaps, &scalars)
                    )
                })
                .collect();
            let text = format!(
                "// r{round}\nexport const main = {{ {} }}\n{}",
                members.join(",\n  "),
                if round % 2 == 0 {
                    "export const handlers = () => ({})\n"
                } else {
                    ""
                }
            );
            indexed += usize::from(same_by_index_and_text(&format!("r{round}.mjs"), &text));
        }
        assert!(indexed > 100, "{indexed} random literals indexed");
    }

    fn k(parts: &[&str]) -> Vec<Key> {
        parts
            .iter()
            .map(|p| match p.parse::<usize>() {
                Ok(n) => Key::Index(n),
                Err(_) => Key::Name((*p).to_string()),
            })
            .collect()
    }

    fn at(src: &str, path: &[&str]) -> Option<(u32, u32)> {
        locate_paths(src, &[k(path)])[0].map(|p| (p.line, p.column))
    }

    const SRC: &str = "// a schema\nexport const main = {\n    namespace: 'x', // note { [\n    version: '1.2.0',\n    'Content-Type': \"a}b\",\n    tools: {\n        getA: {\n            parameters: [\n                { position: { key: 'id' } },\n                { z: { primitive: 'string()' } }\n            ],\n            run() { return [1, 2] },\n            after: true\n        }\n    },\n    shared,\n    ...extra,\n    last: `t${ 1 }`\n}\nconst shared = { lists: [ 'a' ] }\n";

    #[test]
    fn locates_values() {
        assert_eq!(at(SRC, &["main"]), Some((2, 21)));
        assert_eq!(at(SRC, &["main", "version"]), Some((4, 14)));
        assert_eq!(at(SRC, &["main", "Content-Type"]), Some((5, 21)));
        assert_eq!(
            at(SRC, &["main", "tools", "getA", "parameters", "1"]),
            Some((10, 17))
        );
        assert_eq!(
            at(
                SRC,
                &[
                    "main",
                    "tools",
                    "getA",
                    "parameters",
                    "0",
                    "position",
                    "key"
                ]
            ),
            Some((9, 36))
        );
        assert_eq!(at(SRC, &["main", "tools", "getA", "after"]), Some((13, 20)));
        assert_eq!(at(SRC, &["main", "last"]), Some((18, 11)));
        // Shorthand: the member itself is where it is used, what is inside comes from the declaration.
        assert_eq!(at(SRC, &["main", "shared"]), Some((16, 5)));
        assert_eq!(at(SRC, &["main", "shared", "lists", "0"]), Some((20, 27)));
        // Fallback to the nearest ancestor.
        assert_eq!(
            at(SRC, &["main", "tools", "getA", "missing"]),
            Some((7, 15))
        );
        assert_eq!(at(SRC, &["other"]), None);
    }

    #[test]
    fn many_paths_in_one_pass() {
        let paths = vec![
            k(&["main", "version"]),
            k(&["main", "namespace"]),
            k(&["main", "tools", "getA"]),
        ];
        let got: Vec<_> = locate_paths(SRC, &paths)
            .into_iter()
            .map(|p| p.map(|p| (p.line, p.column)))
            .collect();
        assert_eq!(got, vec![Some((4, 14)), Some((3, 16)), Some((7, 15))]);
    }

    /// Issue #28 item 7a: the namespace of a file that does not load is still read from its text.
    #[test]
    fn i28_7a_strings_are_read_from_a_file_that_does_not_load() {
        let broken = "export const main = {\n    namespace: 'demo-ns',\n    name: \"x\"\n    version: '4.0.0'\n}\n";
        assert_eq!(
            string_at(broken, &k(&["main", "namespace"])).as_deref(),
            Some("demo-ns")
        );
        assert_eq!(
            string_at(SRC, &k(&["main", "Content-Type"])).as_deref(),
            Some("a}b")
        );
        // Not a plain string, or not there: nothing (never the enclosing value).
        assert_eq!(string_at(SRC, &k(&["main", "tools"])), None);
        assert_eq!(string_at(SRC, &k(&["main", "missing"])), None);
        assert_eq!(
            string_at(
                "export const main = { namespace: 'a\\'b' }",
                &k(&["main", "namespace"])
            ),
            None
        );
        assert_eq!(
            string_at(
                "export const main = { namespace: 'open",
                &k(&["main", "namespace"])
            ),
            None
        );
        assert_eq!(string_at("", &k(&["main", "namespace"])), None);
    }

    /// `skip_ws` takes ASCII whitespace byte by byte: the six bytes it knows are exactly the
    /// ASCII characters `char::is_whitespace` accepts, and a run of any of them (spaces eight at
    /// a time) ends where the character-by-character loop ends.
    #[test]
    fn i46_ascii_whitespace_is_skipped_as_char_is_whitespace_says() {
        let known = [b' ', b'\t', b'\n', 0x0B, 0x0C, b'\r'];
        for c in 0u8..0x80 {
            assert_eq!(char::from(c).is_whitespace(), known.contains(&c), "{c:#x}");
        }
        let text = "  \t\n\u{b}\u{c}\r         \u{a0}\u{2028} x           y";
        let reader = Reader::new(text, text);
        let by_chars = |mut i: usize| {
            while let Some(c) = text.get(i..).and_then(|t| t.chars().next()) {
                if !c.is_whitespace() {
                    break;
                }
                i += c.len_utf8();
            }
            i
        };
        for (i, _) in text.char_indices() {
            assert_eq!(reader.skip_ws(i), by_chars(i), "from {i}");
        }
    }

    #[test]
    fn never_panics_on_garbage() {
        for src in [
            "export const main = {",
            "export const main = [,,",
            "const main = { a: ",
            "}}}]]",
            "",
            "main = {'a",
        ] {
            let _ = locate_paths(src, &[k(&["main", "a", "0"])]);
        }
    }

    /// Issue #30 (cold path): the reader works on bytes, positions stay in characters. Non-ASCII
    /// text in strings, comments, keys and identifiers (blanked to fewer bytes than the source),
    /// JavaScript spaces outside ASCII, and several paths on one long line.
    #[test]
    fn i30_2_columns_are_characters_with_non_ascii_text() {
        let src = "// ünïcödé — comment\nexport const main = { /* é */ 'clé': 'vålue', ñame:\u{a0}'x', \"k\\\"q\": [ 'ä', 'b' ],\n  sub: { ß: 1, z: `€${ 1 }€`, w: 'y' },\n  ref: rüf, o\u{2003}: 2 }\nconst rüf = { deep: ['😀', 7] }\n";
        let paths = [
            k(&["main", "clé"]),
            k(&["main", "ñame"]),
            k(&["main", "k\"q", "1"]),
            k(&["main", "sub", "ß"]),
            k(&["main", "sub", "w"]),
            k(&["main", "ref", "deep", "1"]),
            k(&["main", "o"]),
            k(&["main", "missing", "x"]),
        ];
        let got: Vec<_> = locate_paths(src, &paths)
            .into_iter()
            .map(|p| p.map(|p| (p.line, p.column)))
            .collect();
        assert_eq!(
            got,
            vec![
                Some((2, 38)),
                Some((2, 53)),
                Some((2, 73)),
                Some((3, 13)),
                Some((3, 34)),
                Some((5, 27)),
                Some((4, 17)),
                Some((2, 21)),
            ]
        );
        // The same with the blanking passed in, and a blanking that does not match: nothing.
        let b = scan::blank(src);
        assert_eq!(
            locate_paths_blanked(src, &b, &paths),
            locate_paths(src, &paths)
        );
        assert_eq!(
            locate_paths_blanked(src, "x", &paths),
            vec![None; paths.len()]
        );
    }

    #[test]
    fn follows_indirection_without_loops() {
        let src = "const a = b\nconst b = a\nexport const main = { x: a }\n";
        assert!(at(src, &["main", "x", "y"]).is_some());
    }
}
