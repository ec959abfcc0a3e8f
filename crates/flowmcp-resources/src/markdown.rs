//! Markdown resources: the whole text, one section, a line range, or a search.
//!
//! A [`Document`] is made from the text once ([`Document::new`], or [`Document::read`] with a size
//! cap) and then answers any number of requests. Each request has a typed result
//! ([`Excerpt`], [`Section`], [`SearchResult`]) that turns into the JSON a tool call returns with
//! `to_value`; [`Access`] reads a call's arguments and [`Document::access`] answers it as JSON.
//!
//! ```
//! use flowmcp_resources::markdown::Document;
//!
//! let doc = Document::new("# Guide\n\n## Install\n\nRun `make`.\n\n## Use\n\nCall it.\n");
//! let install = doc.section("## Install")?;
//! assert_eq!(install.text, "## Install\n\nRun `make`.");
//! assert_eq!((install.from, install.to), (3, 5));
//!
//! let found = doc.search("CALL")?;
//! assert_eq!(found.matches, 1);
//! assert_eq!(found.ranges[0].hits, vec![9]);
//! # Ok::<(), flowmcp_resources::markdown::MarkdownError>(())
//! ```
//!
//! # Lines
//!
//! Lines end at `\n`. CRLF line endings become LF when the document is made, so every text this
//! module returns uses `\n`; a lone `\r` is not a line break. A final line ending does not start
//! another line (`"a\n"` has one line, `""` none). A leading byte-order mark is dropped. Line
//! numbers are 1-based everywhere. Excerpts never end with a line ending.
//!
//! # Headings
//!
//! The heading reader follows CommonMark's block rules closely enough for documentation, without
//! being a full parser:
//!
//! - ATX headings: up to three spaces, one to six `#`, then a space, a tab or the end of the line.
//!   An optional closing run of `#` (after a space) is not part of the text.
//! - Setext headings: a paragraph followed by a line of `=` (level 1) or `-` (level 2). The
//!   paragraph's lines, joined by a space, are the text; the heading starts on its first line.
//!   A `---` line after a blank line, a list item or a block quote is not an underline.
//! - Not headings: lines inside fenced code blocks (three or more `` ` `` or `~`; the block ends
//!   at a fence of the same character at least as long, or at the end of the document), indented
//!   code (four spaces or a tab), HTML comments (`<!--` … `-->`), YAML front matter (a first line
//!   `---` up to the next `---` or `...`), and headings inside list items or block quotes.
//!
//! A heading's text has its runs of white space made one space. Inline markup stays as written
//! (`` ## `run` `` has the text `` `run` ``).

use std::fmt;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use flowmcp_spec::Code;
use serde_json::{Map, Value, json};

/// The size cap [`Document::read`] callers use unless configured otherwise: 10 MiB. The
/// specification recommends documents of about 2 MB at most.
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// How many lines of context a search shows before and after each matching line.
pub const CONTEXT_LINES: usize = 2;

/// How many headings a "section not found" error lists.
const LISTED_HEADINGS: usize = 10;

/// Why a markdown request failed. [`MarkdownError::code`] gives a stable code for each kind.
///
/// `MD001`–`MD003` are about the file; `MD004`–`MD007` are about the request, the caller's
/// input. The messages do not repeat the code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MarkdownError {
    /// `MD001`: the file is larger than the cap given to [`Document::read`].
    #[error("{}: the document is larger than the limit of {max} bytes ({size} bytes)", .path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes (at least `max + 1` when the file grew while being read).
        size: u64,
        /// The cap.
        max: u64,
    },
    /// `MD002`: the file could not be read.
    #[error("{}: cannot read the document: {message}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error's kind.
        kind: std::io::ErrorKind,
        /// The I/O error's message.
        message: String,
    },
    /// `MD003`: the file is not UTF-8.
    #[error("{}: the document is not valid UTF-8 (at byte {offset})", .path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The offset of the first byte that is not UTF-8.
        offset: usize,
    },
    /// `MD004`: no heading matches the requested section.
    #[error("{}", section_not_found(.wanted, .similar, .available, *.total))]
    SectionNotFound {
        /// The section as requested.
        wanted: String,
        /// Headings with the same text at another level, as `## Text`.
        similar: Vec<String>,
        /// The first headings of the document, as `## Text`.
        available: Vec<String>,
        /// How many headings the document has.
        total: usize,
    },
    /// `MD005`: the line range is not `n`, `from-to` or `from-`, or is reversed.
    #[error("lines `{given}`: {reason}")]
    InvalidLines {
        /// The range as given.
        given: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `MD006`: the line range goes beyond the document.
    #[error("lines {from}-{to}: the document has {count} line{}", if *.count == 1 { "" } else { "s" })]
    LinesOutOfRange {
        /// The first requested line.
        from: u64,
        /// The last requested line.
        to: u64,
        /// How many lines the document has.
        count: usize,
    },
    /// `MD007`: an argument is missing, empty, of the wrong type, unknown, or combined with
    /// another access argument.
    #[error("{name}: {reason}")]
    InvalidArgument {
        /// The argument (`section`, `lines`, `search`, or an unknown name).
        name: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl MarkdownError {
    /// The registry code: `MD001` … `MD007` (see each variant).
    pub fn code(&self) -> Code {
        match self {
            MarkdownError::TooLarge { .. } => Code::MD001,
            MarkdownError::Read { .. } => Code::MD002,
            MarkdownError::NotUtf8 { .. } => Code::MD003,
            MarkdownError::SectionNotFound { .. } => Code::MD004,
            MarkdownError::InvalidLines { .. } => Code::MD005,
            MarkdownError::LinesOutOfRange { .. } => Code::MD006,
            MarkdownError::InvalidArgument { .. } => Code::MD007,
        }
    }

    /// Whether the request, not the file, is at fault (`MD004`–`MD007`).
    pub fn is_request_error(&self) -> bool {
        MarkdownError::is_request_code(self.code())
    }

    /// Whether `code` is one of the markdown codes that put the fault on the request
    /// (`MD004`–`MD007`), not on the file (`MD001`–`MD003`); `false` for any other code.
    pub fn is_request_code(code: Code) -> bool {
        matches!(code, Code::MD004 | Code::MD005 | Code::MD006 | Code::MD007)
    }
}

fn section_not_found(
    wanted: &str,
    similar: &[String],
    available: &[String],
    total: usize,
) -> String {
    let mut s = format!("no section `{wanted}`");
    if !similar.is_empty() {
        s.push_str("; did you mean ");
        s.push_str(&quoted_list(similar));
        s.push('?');
    }
    if total == 0 {
        s.push_str("; the document has no headings");
    } else {
        s.push_str("; headings: ");
        s.push_str(&quoted_list(available));
        if total > available.len() {
            s.push_str(&format!(" and {} more", total - available.len()));
        }
    }
    s
}

fn quoted_list(items: &[String]) -> String {
    items
        .iter()
        .map(|h| format!("`{h}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn invalid(name: &str, reason: impl Into<String>) -> MarkdownError {
    MarkdownError::InvalidArgument {
        name: name.to_owned(),
        reason: reason.into(),
    }
}

/// A heading of a [`Document`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// 1 to 6 (setext headings are 1 for `=` and 2 for `-`).
    pub level: u8,
    /// The text, without the `#` marks, with runs of white space made one space.
    pub text: String,
    /// The line it starts on (1-based).
    pub line: usize,
}

impl fmt::Display for Heading {
    /// `## Text`, whatever the heading's style.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.level {
            f.write_str("#")?;
        }
        if !self.text.is_empty() {
            write!(f, " {}", self.text)?;
        }
        Ok(())
    }
}

/// What a resource call asks for: at most one of `section`, `lines` and `search`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// The whole document (no access argument).
    Full,
    /// One section, by heading ([`Document::section`]).
    Section(String),
    /// A line range ([`Document::lines`]).
    Lines(String),
    /// A search ([`Document::search`]).
    Search(String),
}

impl Access {
    /// The argument names a markdown resource accepts.
    pub const ARGUMENTS: [&'static str; 3] = ["section", "lines", "search"];

    /// Reads a call's arguments. A `null` counts as not given; none of the three means
    /// [`Access::Full`]. Each value is a string; `lines` may also be a positive integer (`5`
    /// for line 5). Unknown names and more than one access argument are `MD007` errors.
    pub fn from_arguments(args: &Map<String, Value>) -> Result<Access, MarkdownError> {
        let mut chosen: Option<Access> = None;
        for (name, value) in args {
            if value.is_null() {
                continue;
            }
            let text = match (name.as_str(), value) {
                (_, Value::String(s)) => s.clone(),
                ("lines", Value::Number(n)) if n.as_u64().is_some() => n.to_string(),
                _ if !Access::ARGUMENTS.contains(&name.as_str()) => {
                    return Err(unknown_argument(name));
                }
                _ => return Err(invalid(name, "must be a string")),
            };
            let access = match name.as_str() {
                "section" => Access::Section(text),
                "lines" => Access::Lines(text),
                "search" => Access::Search(text),
                _ => return Err(unknown_argument(name)),
            };
            if chosen.is_some() {
                return Err(invalid(
                    name,
                    "give at most one of `section`, `lines` and `search`",
                ));
            }
            chosen = Some(access);
        }
        Ok(chosen.unwrap_or(Access::Full))
    }
}

fn unknown_argument(name: &str) -> MarkdownError {
    invalid(
        name,
        "unknown argument (a markdown resource takes `section`, `lines` or `search`)",
    )
}

/// A line range of a document: [`Document::lines`], or the whole document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excerpt<'a> {
    /// The first line (1-based).
    pub from: usize,
    /// The last line (inclusive).
    pub to: usize,
    /// The lines, joined by `\n`.
    pub text: &'a str,
}

impl Excerpt<'_> {
    /// `{"from": 11, "to": 33, "text": "…"}`.
    pub fn to_value(&self) -> Value {
        json!({ "from": self.from, "to": self.to, "text": self.text })
    }
}

/// A section: a heading and everything up to the next heading of the same or a higher level
/// (fewer or as many `#`), without the blank lines at its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section<'a> {
    /// The heading that starts it.
    pub heading: &'a Heading,
    /// Its first line: the heading's.
    pub from: usize,
    /// Its last line that is not blank.
    pub to: usize,
    /// The heading and the content, joined by `\n`.
    pub text: &'a str,
}

impl Section<'_> {
    /// `{"heading": "Install", "level": 2, "from": 5, "to": 12, "text": "## Install\n…"}`.
    pub fn to_value(&self) -> Value {
        json!({
            "heading": self.heading.text,
            "level": self.heading.level,
            "from": self.from,
            "to": self.to,
            "text": self.text,
        })
    }
}

/// The most ranges a search returns ([`SearchResult::truncated`] says when more matched).
pub const MAX_SEARCH_RANGES: usize = 100;

/// What [`Document::search`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<'a> {
    /// How many times the query occurs (occurrences on one line do not overlap), in the whole
    /// document.
    pub matches: usize,
    /// The matching lines with their context, in document order, with overlapping or adjacent
    /// ranges merged; at most [`MAX_SEARCH_RANGES`]. Empty when nothing matched.
    pub ranges: Vec<SearchRange<'a>>,
    /// Whether ranges after the first [`MAX_SEARCH_RANGES`] were left out (a word that is
    /// everywhere would otherwise return most of the document).
    pub truncated: bool,
}

/// One stretch of lines of a [`SearchResult`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchRange<'a> {
    /// The first line (1-based).
    pub from: usize,
    /// The last line (inclusive).
    pub to: usize,
    /// The lines in the range that match, ascending.
    pub hits: Vec<usize>,
    /// The lines, joined by `\n`.
    pub text: &'a str,
}

impl SearchResult<'_> {
    /// `{"matches": 3, "ranges": [{"from": 3, "to": 9, "hits": [5, 7], "text": "…"}]}`;
    /// `{"matches": 0, "ranges": []}` when nothing matched; `"truncated": true` is added when
    /// ranges were left out.
    pub fn to_value(&self) -> Value {
        let ranges: Vec<Value> = self
            .ranges
            .iter()
            .map(|r| {
                let mut m = Map::with_capacity(4);
                m.insert("from".to_owned(), Value::from(r.from));
                m.insert("to".to_owned(), Value::from(r.to));
                m.insert(
                    "hits".to_owned(),
                    Value::Array(r.hits.iter().map(|&h| Value::from(h)).collect()),
                );
                m.insert("text".to_owned(), Value::from(r.text));
                Value::Object(m)
            })
            .collect();
        let mut out = json!({ "matches": self.matches, "ranges": ranges });
        if self.truncated
            && let Some(m) = out.as_object_mut()
        {
            m.insert("truncated".to_owned(), Value::Bool(true));
        }
        out
    }
}

/// A markdown document, ready for [`section`](Document::section), [`lines`](Document::lines) and
/// [`search`](Document::search) requests. It is `Send + Sync` and answers requests from any
/// number of threads.
#[derive(Debug)]
pub struct Document {
    /// The text, CRLF made LF, without a byte-order mark.
    text: String,
    /// Each line's byte span in `text`, without its `\n`.
    lines: Vec<(usize, usize)>,
    headings: Vec<Heading>,
    /// The case-folded text, made on the first search.
    folded: OnceLock<Folded>,
}

/// The document's text case-folded line by line, lines joined by `\n`.
#[derive(Debug)]
struct Folded {
    text: String,
    /// Each line's start in `text`.
    starts: Vec<usize>,
}

impl Document {
    /// Makes a document of `text` (see the module documentation for line endings).
    pub fn new(text: impl Into<String>) -> Document {
        let mut text: String = text.into();
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        if text.contains("\r\n") {
            text = text.replace("\r\n", "\n");
        }
        let lines = split_lines(&text);
        let headings = find_headings(&text, &lines);
        Document {
            text,
            lines,
            headings,
            folded: OnceLock::new(),
        }
    }

    /// Reads the UTF-8 file at `path`, failing with `MD001` when it is larger than `max_bytes`
    /// (checked before reading and while reading), `MD002` when it cannot be read and `MD003`
    /// when it is not UTF-8. [`DEFAULT_MAX_BYTES`] is the usual cap.
    pub fn read(path: impl AsRef<Path>, max_bytes: u64) -> Result<Document, MarkdownError> {
        let path = path.as_ref();
        let file = flowmcp_files::named::open(path).map_err(|e| MarkdownError::Read {
            path: path.to_path_buf(),
            kind: e.kind(),
            message: e.to_string(),
        })?;
        Document::read_file(file, path, max_bytes)
    }

    /// [`Document::read`] of a file already open (for example through a directory handle,
    /// [`flowmcp_files::Root::open_file`]); `path` is the name errors carry.
    pub fn read_file(
        file: std::fs::File,
        path: &Path,
        max_bytes: u64,
    ) -> Result<Document, MarkdownError> {
        let io_error = |e: std::io::Error| MarkdownError::Read {
            path: path.to_path_buf(),
            kind: e.kind(),
            message: e.to_string(),
        };
        let too_large = |size: u64| MarkdownError::TooLarge {
            path: path.to_path_buf(),
            size,
            max: max_bytes,
        };
        let meta = file.metadata().map_err(io_error)?;
        if !meta.is_file() {
            return Err(MarkdownError::Read {
                path: path.to_path_buf(),
                kind: std::io::ErrorKind::InvalidInput,
                message: "not a regular file".to_owned(),
            });
        }
        if meta.len() > max_bytes {
            return Err(too_large(meta.len()));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io_error)?;
        let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if read > max_bytes {
            return Err(too_large(read));
        }
        let text = String::from_utf8(bytes).map_err(|e| MarkdownError::NotUtf8 {
            path: path.to_path_buf(),
            offset: e.utf8_error().valid_up_to(),
        })?;
        Ok(Document::new(text))
    }

    /// The whole text (CRLF made LF, without a byte-order mark).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How many lines the document has.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The headings, in document order.
    pub fn headings(&self) -> &[Heading] {
        &self.headings
    }

    /// The section that starts at the heading `heading`.
    ///
    /// `heading` may start with `#` marks (`## Install`, also `##Install`): then only headings
    /// of that level match. Without them (`Install`) a heading of any level matches. The text
    /// is compared after trimming and making runs of white space one space, first exactly; only
    /// when no heading matches exactly, ignoring case (the same folding as
    /// [`search`](Document::search)). When several headings match, the first in the document
    /// wins. An empty heading is `MD007`; no match is `MD004`, whose message names headings
    /// with the same text at other levels and the document's first headings.
    pub fn section(&self, heading: &str) -> Result<Section<'_>, MarkdownError> {
        let (level, text) = parse_section_query(heading);
        if level.is_none() && text.is_empty() {
            return Err(invalid("section", "must name a heading"));
        }
        let level_ok = |h: &Heading| level.is_none_or(|l| h.level == l);
        let index = self
            .headings
            .iter()
            .position(|h| level_ok(h) && h.text == text)
            .or_else(|| {
                let folded = fold(&text);
                self.headings
                    .iter()
                    .position(|h| level_ok(h) && fold(&h.text) == folded)
            });
        let Some(index) = index else {
            let folded = fold(&text);
            return Err(MarkdownError::SectionNotFound {
                wanted: heading.trim().to_owned(),
                similar: self
                    .headings
                    .iter()
                    .filter(|h| fold(&h.text) == folded)
                    .map(Heading::to_string)
                    .collect(),
                available: self
                    .headings
                    .iter()
                    .take(LISTED_HEADINGS)
                    .map(Heading::to_string)
                    .collect(),
                total: self.headings.len(),
            });
        };
        let Some(found) = self.headings.get(index) else {
            return Err(invalid("section", "heading index out of range"));
        };
        let end = self
            .headings
            .get(index + 1..)
            .unwrap_or(&[])
            .iter()
            .find(|h| h.level <= found.level)
            .map_or(self.lines.len(), |h| h.line - 1);
        // The heading's own lines (a setext underline) stay even when blank-looking.
        let mut to = end;
        while to > found.line && self.is_blank(to) {
            to -= 1;
        }
        Ok(Section {
            heading: found,
            from: found.line,
            to,
            text: self.span(found.line, to),
        })
    }

    /// Lines of the document, 1-based and inclusive: `from-to` (`11-33`), `n` (one line) or
    /// `from-` (to the end). White space around the numbers is allowed. A malformed or
    /// reversed range, or line 0, is `MD005`; a range beyond the last line is `MD006` (an
    /// empty document has no lines to give).
    pub fn lines(&self, range: &str) -> Result<Excerpt<'_>, MarkdownError> {
        let bad = |reason: &str| MarkdownError::InvalidLines {
            given: range.to_owned(),
            reason: reason.to_owned(),
        };
        let number = |s: &str| -> Result<u64, MarkdownError> {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("expected `from-to`, `n` or `from-` with whole numbers"));
            }
            // Only digits: the parse fails only on overflow, which is beyond any document.
            let n = s.parse::<u64>().unwrap_or(u64::MAX);
            if n == 0 {
                return Err(bad("line numbers start at 1"));
            }
            Ok(n)
        };
        let count = self.lines.len();
        let count64 = u64::try_from(count).unwrap_or(u64::MAX);
        let (from, to) = match range.split_once('-') {
            None => {
                let n = number(range)?;
                (n, n)
            }
            Some((a, b)) if b.trim().is_empty() => {
                let from = number(a)?;
                if from > count64 {
                    return Err(MarkdownError::LinesOutOfRange {
                        from,
                        to: from,
                        count,
                    });
                }
                (from, count64)
            }
            Some((a, b)) => (number(a)?, number(b)?),
        };
        if from > to {
            return Err(bad("the first line is after the last"));
        }
        if to > count64 {
            return Err(MarkdownError::LinesOutOfRange { from, to, count });
        }
        // Both are at most `count`, a usize.
        let (from, to) = (
            usize::try_from(from).unwrap_or(count),
            usize::try_from(to).unwrap_or(count),
        );
        Ok(Excerpt {
            from,
            to,
            text: self.span(from, to),
        })
    }

    /// Finds `query` ignoring case, line by line.
    ///
    /// Case is folded per character with Unicode's lowercase mapping (`Ä` finds `ä`, `Σ` finds
    /// `σ` and `ς`); foldings that change the number of characters (`ß` and `SS`) are not
    /// applied. The query is used as given, spaces included; one that is empty, only white
    /// space, or spans lines is `MD007`. Each matching line comes with [`CONTEXT_LINES`] lines
    /// before and after; ranges that overlap or touch are merged.
    ///
    /// Finding nothing is not an error: the result has no ranges and `matches` 0. A search is
    /// a question whose answer may be "nowhere", unlike a section or range that must exist.
    /// At most [`MAX_SEARCH_RANGES`] ranges are returned; `matches` still counts them all.
    pub fn search(&self, query: &str) -> Result<SearchResult<'_>, MarkdownError> {
        if query.trim().is_empty() {
            return Err(invalid("search", "must not be empty"));
        }
        if query.contains('\n') || query.contains('\r') {
            return Err(invalid("search", "must be on one line"));
        }
        let needle = fold(query);
        let folded = self
            .folded
            .get_or_init(|| fold_lines(&self.text, &self.lines));
        let hay = folded.text.as_str();

        let mut matches = 0usize;
        let mut ranges: Vec<SearchRange<'_>> = Vec::new();
        let mut line = 0usize; // 0-based index of the line holding `pos`
        let mut pos = 0usize;
        let last = self.lines.len().saturating_sub(1);
        while let Some(found) = hay.get(pos..).and_then(|rest| rest.find(&needle)) {
            let at = pos + found;
            while folded.starts.get(line + 1).is_some_and(|&s| s <= at) {
                line += 1;
            }
            matches += 1;
            pos = at + needle.len().max(1);
            let hit = line + 1;
            let (lo, hi) = (
                line.saturating_sub(CONTEXT_LINES) + 1,
                (line + CONTEXT_LINES).min(last) + 1,
            );
            match ranges.last_mut() {
                Some(r) if r.hits.last() == Some(&hit) => {}
                Some(r) if lo <= r.to + 1 => {
                    r.to = r.to.max(hi);
                    r.hits.push(hit);
                }
                _ => ranges.push(SearchRange {
                    from: lo,
                    to: hi,
                    hits: vec![hit],
                    text: "",
                }),
            }
        }
        let truncated = ranges.len() > MAX_SEARCH_RANGES;
        ranges.truncate(MAX_SEARCH_RANGES);
        for r in &mut ranges {
            r.text = self.span(r.from, r.to);
        }
        Ok(SearchResult {
            matches,
            ranges,
            truncated,
        })
    }

    /// Answers `access` as a tool's data:
    ///
    /// - [`Access::Full`] gives `{"text": "…", "lines": 120}`;
    /// - [`Access::Section`] gives [`Section::to_value`];
    /// - [`Access::Lines`] gives [`Excerpt::to_value`];
    /// - [`Access::Search`] gives [`SearchResult::to_value`].
    pub fn access(&self, access: &Access) -> Result<Value, MarkdownError> {
        Ok(match access {
            Access::Full => json!({ "text": self.text, "lines": self.lines.len() }),
            Access::Section(s) => self.section(s)?.to_value(),
            Access::Lines(l) => self.lines(l)?.to_value(),
            Access::Search(q) => self.search(q)?.to_value(),
        })
    }

    /// The text of lines `from..=to` (1-based, both within the document, `from <= to`).
    fn span(&self, from: usize, to: usize) -> &str {
        let start = self.lines.get(from.wrapping_sub(1)).map_or(0, |l| l.0);
        let end = self.lines.get(to.wrapping_sub(1)).map_or(start, |l| l.1);
        self.text.get(start..end).unwrap_or("")
    }

    /// Whether line `n` (1-based) is empty or only white space.
    fn is_blank(&self, n: usize) -> bool {
        self.lines
            .get(n.wrapping_sub(1))
            .and_then(|&(s, e)| self.text.get(s..e))
            .is_none_or(|l| l.trim().is_empty())
    }
}

/// Each line's byte span, without its `\n`.
fn split_lines(text: &str) -> Vec<(usize, usize)> {
    let mut lines = Vec::with_capacity(text.len() / 40 + 1);
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            lines.push((start, i));
            start = i + 1;
        }
    }
    if start < text.len() {
        lines.push((start, text.len()));
    }
    lines
}

/// Unicode lowercase per character, with final sigma as sigma.
fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(s, &mut out);
    out
}

fn fold_into(s: &str, out: &mut String) {
    if s.is_ascii() {
        let start = out.len();
        out.push_str(s);
        if let Some(added) = out.get_mut(start..) {
            added.make_ascii_lowercase();
        }
        return;
    }
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else if c == 'ς' {
            out.push('σ');
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

fn fold_lines(text: &str, lines: &[(usize, usize)]) -> Folded {
    if text.is_ascii() {
        // Same lengths: the spans carry over.
        return Folded {
            text: text.to_ascii_lowercase(),
            starts: lines.iter().map(|l| l.0).collect(),
        };
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut starts = Vec::with_capacity(lines.len());
    for &(s, e) in lines {
        starts.push(out.len());
        fold_into(text.get(s..e).unwrap_or(""), &mut out);
        out.push('\n');
    }
    Folded { text: out, starts }
}

/// `## Text` → (Some(2), "Text"); `Text` → (None, "Text"). Text normalised like headings'.
fn parse_section_query(q: &str) -> (Option<u8>, String) {
    let q = q.trim();
    let marks = q.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&marks) {
        let rest = q.get(marks..).unwrap_or("");
        let level = u8::try_from(marks).ok();
        (level, normalise(strip_closing_marks(rest.trim())))
    } else {
        (None, normalise(q))
    }
}

/// Runs of white space made one space, trimmed.
fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `foo ##` → `foo`; `foo#` stays; `##` → ``.
fn strip_closing_marks(s: &str) -> &str {
    let without = s.trim_end_matches('#');
    if without.is_empty() {
        return "";
    }
    if without.len() < s.len() && without.ends_with([' ', '\t']) {
        return without.trim_end();
    }
    s
}

/// The indentation of `line` in columns (a tab goes to the next multiple of 4), and the rest.
fn indent(line: &str) -> (usize, &str) {
    let mut cols = 0;
    for (i, b) in line.bytes().enumerate() {
        match b {
            b' ' => cols += 1,
            b'\t' => cols += 4 - cols % 4,
            _ => return (cols, line.get(i..).unwrap_or("")),
        }
    }
    (cols, "")
}

/// An ATX heading's level and raw text (`rest` is the line after its indentation).
fn atx(rest: &str) -> Option<(u8, &str)> {
    let marks = rest.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&marks) {
        return None;
    }
    let after = rest.get(marks..)?;
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    Some((u8::try_from(marks).ok()?, strip_closing_marks(after.trim())))
}

/// A fence's character and length, when `rest` opens a fenced code block.
fn fence_open(rest: &str) -> Option<(u8, usize)> {
    let c = *rest.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|&b| b == c).count();
    if n < 3 {
        return None;
    }
    if c == b'`' && rest.get(n..).is_some_and(|info| info.contains('`')) {
        return None;
    }
    Some((c, n))
}

/// Whether `rest` closes a fence of `c` × `n`.
fn fence_close(rest: &str, c: u8, n: usize) -> bool {
    let run = rest.bytes().take_while(|&b| b == c).count();
    run >= n && rest.get(run..).is_some_and(|r| r.trim().is_empty())
}

/// `=` or `-` when `rest` is a setext underline.
fn underline(rest: &str) -> Option<u8> {
    let rest = rest.trim_end();
    let c = *rest.as_bytes().first()?;
    (matches!(c, b'=' | b'-') && rest.bytes().all(|b| b == c)).then_some(c)
}

/// `***`, `- - -`, `___`: three or more of one of `*-_`, spaces allowed between.
fn thematic_break(rest: &str) -> bool {
    let Some(&c) = rest.as_bytes().first() else {
        return false;
    };
    matches!(c, b'*' | b'-' | b'_')
        && rest.bytes().all(|b| b == c || b == b' ' || b == b'\t')
        && rest.bytes().filter(|&b| b == c).count() >= 3
}

/// A list item or block quote starts on this line.
fn container_start(rest: &str) -> bool {
    let b = rest.as_bytes();
    let spaced = |i: usize| b.get(i).is_none_or(|&c| c == b' ' || c == b'\t');
    match b.first() {
        Some(b'>') => true,
        Some(b'-' | b'+' | b'*') => spaced(1),
        Some(c) if c.is_ascii_digit() => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            digits <= 9 && matches!(b.get(digits), Some(b'.' | b')')) && spaced(digits + 1)
        }
        _ => false,
    }
}

/// Where the current line sits, for setext headings.
enum Block {
    /// Nothing open: a blank line, a heading, a code block or a break came last.
    None,
    /// A paragraph that started on this line (0-based).
    Paragraph(usize),
    /// A list item or block quote: its lines are not paragraphs of the document.
    Container,
}

fn find_headings(text: &str, lines: &[(usize, usize)]) -> Vec<Heading> {
    let line_at = |i: usize| {
        lines
            .get(i)
            .and_then(|&(s, e)| text.get(s..e))
            .unwrap_or("")
    };
    let mut headings = Vec::new();
    let mut i = front_matter_end(lines.len(), line_at);
    let mut fence: Option<(u8, usize)> = None;
    let mut in_comment = false;
    let mut block = Block::None;
    while i < lines.len() {
        let line = line_at(i);
        i += 1;
        if let Some((c, n)) = fence {
            let (cols, rest) = indent(line);
            if cols < 4 && fence_close(rest, c, n) {
                fence = None;
            }
            continue;
        }
        if in_comment {
            if line.contains("-->") {
                in_comment = false;
            }
            continue;
        }
        if line.trim().is_empty() {
            block = Block::None;
            continue;
        }
        let (cols, rest) = indent(line);
        if cols >= 4 {
            // Indented code, or a continuation line of what is open.
            continue;
        }
        if let Some(f) = fence_open(rest) {
            fence = Some(f);
            block = Block::None;
            continue;
        }
        if let Some(after) = rest.strip_prefix("<!--") {
            in_comment = !after.contains("-->");
            block = Block::None;
            continue;
        }
        if let Some((level, raw)) = atx(rest) {
            headings.push(Heading {
                level,
                text: normalise(raw),
                line: i,
            });
            block = Block::None;
            continue;
        }
        if let (Block::Paragraph(start), Some(c)) = (&block, underline(rest)) {
            let start = *start;
            let joined = (start..i - 1).map(line_at).collect::<Vec<_>>().join(" ");
            headings.push(Heading {
                level: if c == b'=' { 1 } else { 2 },
                text: normalise(&joined),
                line: start + 1,
            });
            block = Block::None;
            continue;
        }
        if thematic_break(rest) {
            block = Block::None;
            continue;
        }
        if container_start(rest) {
            block = Block::Container;
            continue;
        }
        if matches!(block, Block::None) {
            block = Block::Paragraph(i - 1);
        }
    }
    headings
}

/// The index of the first line after YAML front matter (0 when there is none).
fn front_matter_end<'a>(count: usize, line_at: impl Fn(usize) -> &'a str) -> usize {
    if count == 0 || line_at(0).trim_end() != "---" {
        return 0;
    }
    (1..count)
        .find(|&i| matches!(line_at(i).trim_end(), "---" | "..."))
        .map_or(0, |i| i + 1)
}
