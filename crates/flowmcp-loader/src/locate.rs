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

use std::collections::HashMap;

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
    locate_paths_blanked(source, &scan::blank(source), paths)
}

/// As [`locate_paths`], with the source already blanked by [`scan::blank`] (saves a pass).
pub fn locate_paths_blanked(source: &str, blanked: &str, paths: &[Vec<Key>]) -> Vec<Option<Pos>> {
    let mut answers = vec![None; paths.len()];
    if paths.is_empty() {
        return answers;
    }
    let b: Vec<char> = blanked.chars().collect();
    let o: Vec<char> = source.chars().collect();
    if b.len() != o.len() {
        return answers;
    }
    let mut trie = Trie::default();
    for (n, p) in paths.iter().enumerate() {
        trie.insert(p, n);
    }
    let reader = Reader::new(&b, &o);
    for (key, node) in &trie.children {
        if let Key::Name(export) = key
            && let Some(start) = reader.decls.get(export.as_str()).copied()
        {
            reader.value(start, node, &mut answers, 0);
        }
    }
    answers
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
    children: HashMap<Key, Trie>,
}

impl Trie {
    fn insert(&mut self, path: &[Key], n: usize) {
        let mut node = self;
        for k in path {
            node = node.children.entry(k.clone()).or_default();
            node.through.push(n);
        }
        node.ends.push(n);
    }
}

struct Reader<'a> {
    b: &'a [char],
    o: &'a [char],
    /// Character index of the start of each line.
    line_starts: Vec<usize>,
    /// Top-level `const|let|var name = ` declarations: name → index of the value's first character.
    decls: HashMap<String, usize>,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

impl<'a> Reader<'a> {
    fn new(b: &'a [char], o: &'a [char]) -> Self {
        let mut line_starts = vec![0];
        for (i, c) in b.iter().enumerate() {
            if *c == '\n' {
                line_starts.push(i + 1);
            }
        }
        let mut r = Reader {
            b,
            o,
            line_starts,
            decls: HashMap::new(),
        };
        r.decls = r.top_level_declarations();
        r
    }

    fn pos(&self, i: usize) -> Pos {
        let line = self.line_starts.partition_point(|s| *s <= i);
        let start = self
            .line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        Pos {
            line: line as u32,
            column: (i - start + 1) as u32,
        }
    }

    fn at(&self, i: usize) -> char {
        self.b.get(i).copied().unwrap_or('\0')
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while i < self.b.len() && self.b[i].is_whitespace() {
            i += 1;
        }
        i
    }

    fn ident_end(&self, mut i: usize) -> usize {
        while i < self.b.len() && is_ident_char(self.b[i]) {
            i += 1;
        }
        i
    }

    fn word(&self, from: usize, to: usize) -> String {
        self.b[from..to].iter().collect()
    }

    /// Scans the top level (brace depth 0) for `const|let|var NAME =`.
    fn top_level_declarations(&self) -> HashMap<String, usize> {
        let mut out = HashMap::new();
        let mut depth = 0usize;
        let mut i = 0;
        while i < self.b.len() {
            let c = self.b[i];
            match c {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && is_ident_start(c) && (i == 0 || !is_ident_char(self.b[i - 1])) {
                let end = self.ident_end(i);
                let w = self.word(i, end);
                if w == "const" || w == "let" || w == "var" {
                    let n = self.skip_ws(end);
                    if is_ident_start(self.at(n)) {
                        let n_end = self.ident_end(n);
                        let eq = self.skip_ws(n_end);
                        if self.at(eq) == '=' && self.at(eq + 1) != '=' {
                            out.entry(self.word(n, n_end))
                                .or_insert(self.skip_ws(eq + 1));
                        }
                    }
                }
                i = end;
                continue;
            }
            i += 1;
        }
        out
    }

    /// Records the position of the value at `i` for every path through `node`, then descends into the
    /// members `node` asks for. Returns the index just after the value.
    fn value(&self, i: usize, node: &Trie, answers: &mut [Option<Pos>], hops: usize) -> usize {
        let i = self.skip_ws(i);
        if i >= self.b.len() {
            return i;
        }
        let here = self.pos(i);
        for &n in &node.through {
            // Deeper nodes are visited later and overwrite: the answer is the deepest found.
            answers[n] = Some(here);
        }
        if node.children.is_empty() {
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
                    if let Some(&target) = self.decls.get(&name) {
                        // Follow `name` to its declaration for the members below; this value's own
                        // position stays the place where it is used.
                        let saved: Vec<(usize, Option<Pos>)> =
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

    fn object(&self, open: usize, node: &Trie, answers: &mut [Option<Pos>], hops: usize) -> usize {
        let mut i = open + 1;
        loop {
            i = self.skip_ws(i);
            if i >= self.b.len() {
                return i;
            }
            match self.at(i) {
                '}' => return i + 1,
                ',' => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            // A member: key, then `:` value | `(` method | shorthand.
            let c = self.at(i);
            let (key, after_key) = if c == '\'' || c == '"' {
                let mut j = i + 1;
                while j < self.b.len() && self.b[j] != c && self.b[j] != '\n' {
                    j += 1;
                }
                let text: String = self.o[i + 1..j.min(self.o.len())].iter().collect();
                (Some(unescape_simple(&text)), j + 1)
            } else if is_ident_start(c) || c.is_ascii_digit() {
                let end = self.ident_end(i);
                (Some(self.word(i, end)), end)
            } else if c == '.' && self.at(i + 1) == '.' && self.at(i + 2) == '.' {
                i = self.skip_expression(i + 3);
                continue;
            } else if c == '[' {
                (None, self.skip_group(i))
            } else {
                i = self.skip_expression(i + 1);
                continue;
            };
            let child = key.map(Key::Name).and_then(|k| node.children.get(&k));
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

    fn array(&self, open: usize, node: &Trie, answers: &mut [Option<Pos>], hops: usize) -> usize {
        let mut i = open + 1;
        let mut index = 0usize;
        loop {
            i = self.skip_ws(i);
            if i >= self.b.len() {
                return i;
            }
            match self.at(i) {
                ']' => return i + 1,
                ',' => {
                    index += 1;
                    i += 1;
                    continue;
                }
                '.' if self.at(i + 1) == '.' && self.at(i + 2) == '.' => {
                    // A spread: later indices are unknown.
                    return self.skip_group(open);
                }
                _ => {}
            }
            i = match node.children.get(&Key::Index(index)) {
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

    /// Skips a balanced group starting at the opening bracket `i`; returns the index after its close.
    fn skip_group(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while j < self.b.len() {
            match self.b[j] {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        j
    }

    /// Skips an expression: up to the next `,` or closing bracket at depth 0.
    fn skip_expression(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while j < self.b.len() {
            match self.b[j] {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => {
                    if depth == 0 {
                        return j;
                    }
                    depth -= 1;
                }
                ',' | ';' if depth == 0 => return j,
                _ => {}
            }
            j += 1;
        }
        j
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

    #[test]
    fn follows_indirection_without_loops() {
        let src = "const a = b\nconst b = a\nexport const main = { x: a }\n";
        assert!(at(src, &["main", "x", "y"]).is_some());
    }
}
