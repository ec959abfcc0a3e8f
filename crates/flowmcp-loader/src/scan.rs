//! The static security scan (SEC001–SEC016 for schemas, SEC200–SEC204 for shared lists).
//!
//! The scan runs on the raw text of a file before anything evaluates it. It works in two passes:
//!
//! 1. [`blank`] replaces the *contents* of comments, string literals and template-literal text with
//!    spaces, so prose never triggers a rule. Every blanked character becomes exactly one space and line
//!    terminators are kept, so a position in the blanked text has the same line and the same column (in
//!    characters) as in the original. The scan itself uses [`blank_aligned`], where a blanked character
//!    becomes as many spaces as it has bytes, so that a position is the same byte offset in both texts;
//!    lines and columns are then counted in the original. `${ … }` expressions inside templates stay visible, however deeply
//!    templates, braces and strings nest inside them.
//! 2. The matcher walks the blanked text token by token and reports every occurrence of a forbidden
//!    pattern with its 1-based line and column ([`scan`]).
//!
//! Both passes are single forward walks over the bytes with small explicit stacks (no recursion), so the
//! cost is linear in the input and no input can make them panic.
//!
//! # Blanking, precisely
//!
//! - `'…'` and `"…"`: the quotes stay, the contents (escapes included) become spaces. A string also ends
//!   at an unescaped line break (`\n`, `\r`), as it would be a syntax error otherwise; this stops an
//!   unterminated quote from hiding the rest of the file. `\` before a line break is a continuation.
//! - `` `…` ``: the backticks stay, the text becomes spaces, `${` and its closing `}` stay, the expression
//!   between them is code (and is blanked by the same rules, so nested templates and strings work).
//! - `// …` and `/* … */`: the whole comment, delimiters included, becomes spaces (a comment is
//!   whitespace to JavaScript, so `eval/**/(` is blanked to `eval    (` and still matches). A line
//!   comment ends at `\n`, `\r`, U+2028 or U+2029, as in JavaScript. A leading `#!` line is a comment.
//! - Regular-expression literals are recognised (the usual "previous significant token" rule, refined by
//!   tracking whether a `)` closes an `if`/`for`/`while`/… head and whether a `}` closes a block, an
//!   object literal, a function expression body or a template substitution) and **kept visible**: a
//!   quote, backtick or `//` inside `/…/` does not open a string or comment, but the pattern itself is
//!   matched like code. This is the conservative choice: a regex literal can never hide code, at the
//!   price of rare false positives such as `/eval\s*\(/`.
//!
//! # Matching, precisely
//!
//! - A pattern that starts with an identifier character matches only at an identifier boundary: the
//!   character before it is not `[A-Za-z0-9_$.]` (nor any other identifier character, since the matcher
//!   reads whole identifiers; a spread `...process` is not a member access and does match).
//! - Patterns that end in an identifier character match whole identifiers only (`importance`,
//!   `__dirnameX`, `setTimeoutMock` do not match).
//! - Whitespace (including blanked comments and line breaks) is allowed between an identifier and the
//!   `(`, `.` or `[` that completes a pattern (`eval (x)`, `process\n  .env`), and optional chaining
//!   counts (`process?.env`, `eval?.(x)`). A tagged template counts as a call (`` Function`…` ``).
//! - Identifiers written with `\u` escapes are decoded before matching (`\u0065val(` is `eval(`).
//! - SEC001 is the word `import` in any form (`import x from`, `import(`, `import{`, `import*`,
//!   `import'…'`, `import.meta`) except a property key (`{ import: 1 }`).
//! - `new Function` reports only SEC005 (at `new`), not also SEC004.
//! - `fs[` counts as SEC008 (computed access, like `process[`).
//! - `node:fs`, `fs/promises` and `child_process` usually appear inside module-specifier strings, which
//!   are blanked; those files are still rejected, by SEC001 (`import … from 'node:fs'`, `import('…')`)
//!   or SEC002 (`require('…')`). The three patterns match when they occur in code.
//! - Line numbers count `\n` only (CRLF is one line break); columns count characters.
//!
//! Shared lists ([`ScanKind::SharedList`]) are scanned with SEC200–SEC204 instead: the `function`
//! keyword and method definitions `name(…) {` (SEC200), `=>` (SEC201), `async`/`await` (SEC202, not as
//! property keys), a template substitution `${` found by the blanker, so never inside a string or
//! comment (SEC203), and every SEC001–SEC016 pattern reported as SEC204 with the original pattern.
//!
//! Known limits of any static scan (the sandbox is the real barrier): aliases (`const F = Function`),
//! indirect access (`[].constructor.constructor(…)`, `(0, eval)(…)`) and code built at run time are not
//! seen.

use std::path::{Component, Path};

use flowmcp_spec::Code;

pub(crate) use crate::bytes::is_ascii_ident;
use crate::bytes::{after_spaces, run_before};
use crate::literal::PreRead;

/// Which rule family a file is scanned with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanKind {
    /// A schema, skill, prompt or agent module: SEC001–SEC016.
    Module,
    /// A shared list file: SEC200–SEC204.
    SharedList,
}

/// One forbidden pattern found by [`scan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScanHit {
    /// The rule (`SEC001` … `SEC016` for modules, `SEC200` … `SEC204` for shared lists).
    pub code: Code,
    /// The pattern as the specification spells it (`"import"`, `"eval("`, `"process["`, `"=>"`, …).
    /// For SEC204 this is the pattern of the module rule that matched.
    pub pattern: &'static str,
    /// 1-based line (lines are separated by `\n`).
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl ScanHit {
    /// The message part of the diagnostic: `Forbidden pattern "import" found at line 12`.
    pub fn message(&self) -> String {
        format!(
            "Forbidden pattern \"{}\" found at line {}",
            self.pattern, self.line
        )
    }

    /// The module rule behind this hit: the code itself, except that SEC204 maps back to the
    /// SEC001–SEC016 rule whose pattern matched.
    pub fn rule(&self) -> Code {
        if self.code == Code::SEC204 {
            module_code_of(self.pattern).unwrap_or(Code::SEC204)
        } else {
            self.code
        }
    }
}

/// Every pattern the module rules can report, with its code.
const MODULE_PATTERNS: &[(&str, Code)] = &[
    ("import", Code::SEC001),
    ("require(", Code::SEC002),
    ("eval(", Code::SEC003),
    ("Function(", Code::SEC004),
    ("new Function", Code::SEC005),
    ("process.", Code::SEC006),
    ("process[", Code::SEC006),
    ("child_process", Code::SEC007),
    ("fs.", Code::SEC008),
    ("fs[", Code::SEC008),
    ("node:fs", Code::SEC009),
    ("fs/promises", Code::SEC010),
    ("globalThis.", Code::SEC011),
    ("globalThis[", Code::SEC011),
    ("global.", Code::SEC012),
    ("global[", Code::SEC012),
    ("__dirname", Code::SEC013),
    ("__filename", Code::SEC014),
    ("setTimeout", Code::SEC015),
    ("setInterval", Code::SEC016),
];

fn module_code_of(pattern: &str) -> Option<Code> {
    MODULE_PATTERNS
        .iter()
        .find(|(p, _)| *p == pattern)
        .map(|(_, c)| *c)
}

/// Returns `source` with the contents of comments, string literals and template-literal text replaced
/// by spaces (see the module documentation for the exact rules). Line terminators are kept and every
/// other blanked character becomes one space, so lines and character columns stay aligned with
/// `source`.
pub fn blank(source: &str) -> String {
    Blanker::new(source, false).run().text
}

/// [`blank`] with the byte offsets of `source` (each blanked multi-byte character becomes as many
/// spaces as it has bytes), for readers that index both texts by the same byte offsets. Lines and
/// the characters that are kept are where they are in `source`.
pub fn blank_aligned(source: &str) -> String {
    Blanker::new(source, true).run().text
}

/// `blanked` re-spaced so that its byte offsets are those of `source`: every character that differs
/// from the source's (a blanked one, a space) is padded with spaces to the source character's length.
/// `None` when the two texts do not have the same characters count or a character cannot be padded.
pub(crate) fn byte_aligned(source: &str, blanked: &str) -> Option<String> {
    let (s, b) = (source.as_bytes(), blanked.as_bytes());
    let mut out = Vec::with_capacity(s.len());
    let (mut i, mut j) = (0, 0);
    while let Some(&sc) = s.get(i) {
        let bc = *b.get(j)?;
        if sc == bc {
            // Where the texts agree (code), all of it at once, up to a character boundary (one in
            // both texts, as their bytes agree up to it).
            let mut same = common_prefix(&s[i..], &b[j..]);
            while same > 1 && !blanked.is_char_boundary(j + same) {
                same -= 1;
            }
            let n = if sc < 0x80 {
                same
            } else {
                same.max(utf8_len(sc))
            };
            out.extend_from_slice(b.get(j..j + n)?);
            i += n;
            j += n;
        } else if bc < 0x80 {
            // A blanked character: its one-byte blank, padded to the source character's length.
            out.push(bc);
            let want = if sc < 0x80 { 1 } else { utf8_len(sc) };
            out.resize(out.len() + want - 1, b' ');
            i += want;
            j += 1;
        } else {
            return None;
        }
    }
    if i != s.len() || j != b.len() {
        return None;
    }
    String::from_utf8(out).ok()
}

/// The length in bytes of the UTF-8 character whose first byte is `lead` (not ASCII).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}

/// The length of the longest common prefix of `a` and `b`, compared 16 bytes at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut k = 0;
    while k + 16 <= n {
        let (x, y) = (&a[k..k + 16], &b[k..k + 16]);
        if x != y {
            break;
        }
        k += 16;
    }
    while k < n && a[k] == b[k] {
        k += 1;
    }
    k
}

/// Scans `source` with the rules of `kind` and returns every match, sorted by line and column.
pub fn scan(source: &str, kind: ScanKind) -> Vec<ScanHit> {
    let blanked = Blanker::new(source, true).run();
    scan_blanked(source, &blanked, kind)
}

/// Decides the kind with [`is_shared_list`] and scans, blanking `source` only once.
pub fn scan_file(path: &Path, source: &str) -> (ScanKind, Vec<ScanHit>) {
    let (kind, hits, _) = scan_file_blanked(path, source);
    (kind, hits)
}

/// As [`scan_file`], also returning the blanked text for reuse: [`blank_aligned`]'s, which has the
/// byte offsets of `source`.
pub fn scan_file_blanked(path: &Path, source: &str) -> (ScanKind, Vec<ScanHit>, String) {
    let read = scan_file_read(path, source);
    (read.kind, read.hits, read.blanked)
}

/// [`scan_file_blanked`], also giving the literal of `export const main = …` when the blanker
/// read it ([`PreRead`]; the loader reads it no second time).
pub(crate) fn scan_file_read(path: &Path, source: &str) -> ReadScan {
    let mut blanked = Blanker::new(source, true).run();
    let kind = kind_of(path, &blanked.text);
    let (hits, free) = scan_blanked_free(source, &blanked, kind);
    let pre_read = blanked.pre_read.take();
    ReadScan {
        kind,
        hits,
        blanked: blanked.text,
        pre_read,
        free,
    }
}

/// What [`scan_file_read`] found in a file.
pub(crate) struct ReadScan {
    pub(crate) kind: ScanKind,
    pub(crate) hits: Vec<ScanHit>,
    /// The aligned blanking of the text.
    pub(crate) blanked: String,
    pub(crate) pre_read: Option<PreRead>,
    /// Whether the file is a module whose blanking gives the matcher nothing to look at (no
    /// backslash, no whole word a module rule reports: [`module_may_hit`] is false).
    pub(crate) free: bool,
}

/// What the file at `path` whose blanked text is `blanked` is to the scan.
fn kind_of(path: &Path, blanked: &str) -> ScanKind {
    if under_lists_dir(path) || declares_list(blanked) {
        ScanKind::SharedList
    } else {
        ScanKind::Module
    }
}

/// [`scan_file_read`]'s hits for the file at `path` whose text is `source` and whose aligned
/// blanking the caller made otherwise (`blanked`, given back), when it is a module: `None` for a
/// shared list, whose scan also needs the places of template substitutions that only blanking
/// finds.
///
/// `edited`: when the text was made by edits of a module whose blanking was
/// [`ReadScan::free`], the byte ranges of `blanked` the edits made anew (sorted, not
/// overlapping); everything else is the old blanking, moved. The matcher then has nothing to look
/// at unless one of those ranges, widened to the identifier characters around it, has a backslash
/// or a whole rule word: a word wholly elsewhere, with its neighbours, was in the old blanking. The
/// third value tells whether the new blanking is free in the same sense.
pub(crate) fn scan_module_blanked(
    path: &Path,
    source: &str,
    blanked: String,
    edited: Option<&[std::ops::Range<usize>]>,
) -> Option<(Vec<ScanHit>, String, bool)> {
    if kind_of(path, &blanked) != ScanKind::Module {
        return None;
    }
    if let Some(pieces) = edited
        && pieces
            .iter()
            .all(|p| piece_free(blanked.as_bytes(), p.clone()))
    {
        return Some((Vec::new(), blanked, true));
    }
    let blanked = Blanked {
        text: blanked,
        template_exprs: Vec::new(),
        pre_read: None,
    };
    let (hits, free) = scan_blanked_free(source, &blanked, ScanKind::Module);
    Some((hits, blanked.text, free))
}

/// Whether `piece` of the blanking `b`, widened to the identifier characters on either side, has
/// neither a backslash nor a whole word [`module_may_hit`] looks for. The widened piece's ends are
/// ends of identifier runs, so a word in it is whole in `b` exactly when it is whole in the piece.
fn piece_free(b: &[u8], piece: std::ops::Range<usize>) -> bool {
    let mut start = piece.start.min(b.len());
    let mut end = piece.end.clamp(start, b.len());
    while start > 0 && b.get(start - 1).is_some_and(|&c| is_ascii_ident(c)) {
        start -= 1;
    }
    while b.get(end).is_some_and(|&c| is_ascii_ident(c)) {
        end += 1;
    }
    b.get(start..end).is_some_and(|w| !module_may_hit(w))
}

/// Turns the bytes of `ranges` of an aligned blanking into spaces, but for their line breaks
/// (`\n`, `\r`): how the ranges a literal's reading gives ([`crate::literal`]) are blanked.
pub(crate) fn blank_ranges(out: &mut [u8], ranges: &[std::ops::Range<usize>]) {
    for range in ranges {
        if let Some(bytes) = out.get_mut(range.clone()) {
            // A select rather than a branch: the loop is vectorised.
            for b in bytes.iter_mut() {
                *b = if matches!(*b, b'\n' | b'\r') {
                    *b
                } else {
                    b' '
                };
            }
        }
    }
}

/// True when the file is a shared list: it lies under a directory named `_lists`, or its blanked text
/// declares `export const list`.
pub fn is_shared_list(path: &Path, source: &str) -> bool {
    under_lists_dir(path) || declares_list(&blank(source))
}

/// True when a directory component of `path` (not the file name itself) is `_lists`.
fn under_lists_dir(path: &Path) -> bool {
    path.parent().is_some_and(|dir| {
        dir.components()
            .any(|c| matches!(c, Component::Normal(name) if name == "_lists"))
    })
}

/// True when already-blanked text contains the declaration `export const list` (whole words, any
/// whitespace or comments between them, not preceded by `.`).
pub(crate) fn declares_list(blanked: &str) -> bool {
    let b = blanked.as_bytes();
    let mut from = 0;
    while let Some(found) = b
        .get(from..)
        .and_then(|rest| memchr::memmem::find(rest, b"export"))
    {
        let start = from + found;
        from = start + "export".len();
        if start > 0 && !is_boundary_before(b, start) {
            continue;
        }
        let Some(after_export) = word_at(blanked, start, "export") else {
            continue;
        };
        let c = skip_ws(blanked, after_export);
        if c == after_export {
            continue;
        }
        let Some(after_const) = word_at(blanked, c, "const") else {
            continue;
        };
        let l = skip_ws(blanked, after_const);
        if l != after_const && word_at(blanked, l, "list").is_some() {
            return true;
        }
    }
    false
}

/// If the whole identifier starting at `at` is `word`, the offset after it.
fn word_at(text: &str, at: usize, word: &str) -> Option<usize> {
    let b = text.as_bytes();
    if !b.get(at..)?.starts_with(word.as_bytes()) {
        return None;
    }
    let (end, _) = ident_end(text, at);
    (end == at + word.len()).then_some(end)
}

fn is_boundary_before(b: &[u8], at: usize) -> bool {
    match at.checked_sub(1).and_then(|p| b.get(p)) {
        None => true,
        Some(&p) => !(is_ascii_ident(p) || p == b'.'),
    }
}

// ---------------------------------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------------------------------

/// A non-ASCII character that can be part of an identifier (an approximation of ID_Continue).
fn is_unicode_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '\u{200C}' || c == '\u{200D}'
}

/// JavaScript whitespace and line terminators outside ASCII.
fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{FEFF}'
}

fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

/// The character starting at byte `at`, if `at` is a character boundary inside `s`.
fn char_at(s: &str, at: usize) -> Option<char> {
    s.get(at..).and_then(|t| t.chars().next())
}

/// True when an identifier starts at `at`.
fn starts_ident(s: &str, at: usize) -> bool {
    let b = s.as_bytes();
    match b.get(at) {
        None => false,
        Some(&c) if c.is_ascii_digit() => false,
        Some(&c) if is_ascii_ident(c) || c == b'#' => true,
        Some(b'\\') => b.get(at + 1) == Some(&b'u'),
        Some(&c) if c >= 0x80 => char_at(s, at).is_some_and(is_unicode_ident),
        Some(_) => false,
    }
}

/// The end of the identifier (or number, or private name) starting at `start`, and whether it contains
/// `\u` escapes. Always returns an offset greater than `start` when `start < s.len()`.
fn ident_end(s: &str, start: usize) -> (usize, bool) {
    let b = s.as_bytes();
    let mut j = start;
    let mut escaped = false;
    if b.get(j) == Some(&b'#') {
        j += 1;
    }
    while let Some(&c) = b.get(j) {
        if is_ascii_ident(c) {
            j += 1;
        } else if c == b'\\' {
            if b.get(j + 1) != Some(&b'u') {
                break;
            }
            escaped = true;
            j += 2;
            if b.get(j) == Some(&b'{') {
                j += 1;
                while b.get(j).is_some_and(u8::is_ascii_hexdigit) {
                    j += 1;
                }
                if b.get(j) == Some(&b'}') {
                    j += 1;
                }
            }
        } else if c >= 0x80 {
            match char_at(s, j) {
                Some(ch) if is_unicode_ident(ch) => j += ch.len_utf8(),
                _ => break,
            }
        } else {
            break;
        }
    }
    (j.max((start + 1).min(s.len())), escaped)
}

/// Decodes the `\uXXXX` and `\u{…}` escapes of an identifier into `buf`. Malformed escapes become
/// U+FFFD.
fn decode_ident(raw: &str, buf: &mut String) {
    buf.clear();
    let mut rest = raw;
    while let Some(p) = rest.find('\\') {
        buf.push_str(rest.get(..p).unwrap_or(""));
        let after = rest.get(p + 1..).unwrap_or("");
        let Some(tail) = after.strip_prefix('u') else {
            buf.push('\\');
            rest = after;
            continue;
        };
        if let Some(braced) = tail.strip_prefix('{') {
            let n = braced.bytes().take_while(u8::is_ascii_hexdigit).count();
            let hex = braced.get(..n).unwrap_or("");
            let decoded = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
            buf.push(decoded.unwrap_or('\u{FFFD}'));
            let after_hex = braced.get(n..).unwrap_or("");
            rest = after_hex.strip_prefix('}').unwrap_or(after_hex);
        } else {
            let n = tail
                .bytes()
                .take(4)
                .take_while(u8::is_ascii_hexdigit)
                .count();
            let decoded = if n == 4 {
                tail.get(..4)
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
            } else {
                None
            };
            buf.push(decoded.unwrap_or('\u{FFFD}'));
            rest = tail.get(n..).unwrap_or("");
        }
    }
    buf.push_str(rest);
}

/// The first offset at or after `at` that is not JavaScript whitespace.
fn skip_ws(s: &str, mut at: usize) -> usize {
    let b = s.as_bytes();
    while let Some(&c) = b.get(at) {
        if is_ascii_space(c) {
            at += 1;
        } else if c >= 0x80 {
            match char_at(s, at) {
                Some(ch) if is_js_space(ch) => at += ch.len_utf8(),
                _ => break,
            }
        } else {
            break;
        }
    }
    at
}

/// The length of the run at the start of `rest` of ASCII bytes that are neither a line break
/// (`\n`, `\r`) nor one of `stops`: exactly `rest.iter().position(|&c| c >= 0x80 || c == b'\n'
/// || c == b'\r' || stops.contains(&c))`, or all of `rest`.
fn ascii_run(rest: &[u8], stops: [u8; 3]) -> usize {
    run_before(rest, stops, [b'\n', b'\r'], true)
}

/// Whether the code before `at` in `blanked` (blanked up to `at`) ends with `export const main =`:
/// the words whole, separated by ASCII whitespace (a comment is blanked to spaces). Only a hint
/// of where a `main` literal starts: the loader takes a literal read there only when the
/// declaration it finds itself opens at `at`.
fn declares_main_before(blanked: &[u8], at: usize) -> bool {
    let mut end = at.min(blanked.len());
    for word in [&b"="[..], b"main", b"const", b"export"] {
        while end > 0 && blanked[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        if !blanked[..end].ends_with(word) {
            return false;
        }
        end -= word.len();
    }
    end == 0 || !(is_ascii_ident(blanked[end - 1]) || matches!(blanked[end - 1], b'.' | 0x80..))
}

// ---------------------------------------------------------------------------------------------------
// Pass 1: blanking
// ---------------------------------------------------------------------------------------------------

/// What the previous significant token allows next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prev {
    /// A value ended (identifier, literal, `)`, `]`, `}` of an expression): `/` divides, `{` is a block.
    Value,
    /// An expression is expected (operator, `(`, `,`, `return`, …): `/` starts a regex, `{` an object.
    Expr,
    /// A statement starts (file start, `;`, block `}`, `=>`, `else`, …): `/` starts a regex, `{` a block.
    Stmt,
}

/// An open bracket of the code being blanked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    Block,
    Object,
    /// The body of a function or class expression: a `/` after its `}` divides.
    ExprBody,
    Paren,
    /// The head of `if`, `for`, `while`, `with`, `switch`, `catch`: a `/` after its `)` starts a regex.
    ControlParen,
    /// `${` inside a template literal: its `}` resumes the template text.
    TemplateExpr,
}

struct Blanked {
    text: String,
    /// Offsets (in `text`) of the `$` of every template substitution `${`.
    template_exprs: Vec<usize>,
    /// The literal of `export const main = …`, read while blanking it ([`Blanker::data_literal`]).
    pre_read: Option<PreRead>,
}

struct Blanker<'a> {
    src: &'a str,
    b: &'a [u8],
    out: Vec<u8>,
    pos: usize,
    stack: Vec<Frame>,
    prev: Prev,
    /// The previous token was `if`, `for`, … (its `(` is a control head).
    control_kw: bool,
    /// The previous token was `.` (the next identifier is a property name, never a keyword).
    after_dot: bool,
    /// A `function`/`class` keyword in expression position was seen at this stack depth; the next `{`
    /// opened at that depth is its body.
    pending_expr_body: Option<usize>,
    template_exprs: Vec<usize>,
    /// A blanked multi-byte character becomes as many spaces as it has bytes (else one). Then
    /// `out` starts as a copy of the source and is blanked in place (its offsets are the
    /// source's): code is copied by moving `pos` alone.
    keep_bytes: bool,
    /// Whether a `main` literal may be read and blanked at once ([`Blanker::data_literal`]);
    /// with `keep_bytes` only. Off only to test that it changes nothing.
    read_ahead: bool,
    pre_read: Option<PreRead>,
}

impl<'a> Blanker<'a> {
    fn new(src: &'a str, keep_bytes: bool) -> Self {
        Blanker {
            src,
            b: src.as_bytes(),
            out: if keep_bytes {
                src.as_bytes().to_vec()
            } else {
                Vec::with_capacity(src.len())
            },
            pos: 0,
            stack: Vec::new(),
            prev: Prev::Stmt,
            control_kw: false,
            after_dot: false,
            pending_expr_body: None,
            template_exprs: Vec::new(),
            keep_bytes,
            read_ahead: keep_bytes,
            pre_read: None,
        }
    }

    fn run(mut self) -> Blanked {
        if self.b.starts_with(b"#!") {
            self.line_comment();
        }
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => {
                    // A run of ASCII whitespace (indentation, mostly) at once.
                    let mut end = self.pos;
                    loop {
                        end = after_spaces(self.b, end);
                        match self.b.get(end) {
                            Some(b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) => end += 1,
                            _ => break,
                        }
                    }
                    self.copy(end - self.pos);
                }
                b'/' => match self.b.get(self.pos + 1) {
                    Some(b'/') => self.line_comment(),
                    Some(b'*') => self.block_comment(),
                    _ if self.prev == Prev::Value => {
                        self.copy(1);
                        self.token(Prev::Expr);
                    }
                    _ => {
                        self.regex();
                        self.token(Prev::Value);
                    }
                },
                b'\'' | b'"' => {
                    self.string(c);
                    self.token(Prev::Value);
                }
                b'`' => {
                    self.copy(1);
                    self.template_text();
                }
                b'{' => {
                    if !self.data_literal() {
                        self.open_brace();
                    }
                }
                b'}' => self.close_brace(),
                b'(' => {
                    let frame = if self.control_kw {
                        Frame::ControlParen
                    } else {
                        Frame::Paren
                    };
                    self.stack.push(frame);
                    self.copy(1);
                    self.token(Prev::Expr);
                }
                b')' => {
                    let next = match self.stack.last() {
                        Some(Frame::ControlParen) => {
                            self.stack.pop();
                            Prev::Stmt
                        }
                        Some(Frame::Paren) => {
                            self.stack.pop();
                            Prev::Value
                        }
                        _ => Prev::Value,
                    };
                    self.copy(1);
                    self.token(next);
                }
                b']' => {
                    self.copy(1);
                    self.token(Prev::Value);
                }
                b';' => {
                    self.copy(1);
                    self.token(Prev::Stmt);
                }
                b'.' if self.b.get(self.pos + 1).is_some_and(u8::is_ascii_digit) => self.number(),
                b'.' => {
                    self.copy(1);
                    self.token(Prev::Expr);
                    self.after_dot = true;
                }
                b'>' if self.pos > 0 && self.b.get(self.pos - 1) == Some(&b'=') => {
                    // `=>`: an arrow body follows; `{` opens a block, `/` starts a regex.
                    self.copy(1);
                    self.token(Prev::Stmt);
                }
                b'+' | b'-' if self.b.get(self.pos + 1) == Some(&c) => {
                    self.copy(2);
                    self.token(Prev::Value);
                }
                b'0'..=b'9' => self.number(),
                _ if starts_ident(self.src, self.pos) => self.identifier(),
                0x80.. => match char_at(self.src, self.pos) {
                    Some(ch) if is_js_space(ch) => self.copy(ch.len_utf8()),
                    Some(ch) => {
                        self.copy(ch.len_utf8());
                        self.token(Prev::Expr);
                    }
                    None => self.copy(1),
                },
                _ => {
                    self.copy(1);
                    self.token(Prev::Expr);
                }
            }
        }
        let text = String::from_utf8(self.out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Blanked {
            text,
            template_exprs: self.template_exprs,
            pre_read: self.pre_read,
        }
    }

    /// At a `{` that opens the literal of `export const main = {…}` at the top level, reads the
    /// literal with the literal reader and, when it is pure data, blanks it from the ranges the
    /// reader found and moves past it: whether it did. The reading is kept ([`PreRead`]), so that
    /// the loader does not read the same literal again.
    ///
    /// Exactly what blanking token by token gives (D177). In a literal the reader accepts, the
    /// only bytes that are not code are the texts of strings and templates (no `${`, no
    /// backslash in a template) and comments; the blanker finds each of them by its first
    /// character wherever it stands (a `/` outside them would depend on the state, and there is
    /// none), and turns every byte of them but `\n` and `\r` into a space, as the reader's ranges
    /// are blanked here. After the closing `}` the state is the one the tokens leave, given the
    /// state at the `{` required here: no open bracket, an expression expected, and no pending
    /// keyword: the literal's own `{` closes as an object, every frame opened inside is closed, a
    /// `function` or `class` key's pending body is dropped with its frame, and the last token
    /// clears the keyword flags.
    fn data_literal(&mut self) -> bool {
        if !self.read_ahead
            || self.pre_read.is_some()
            || !self.stack.is_empty()
            || self.prev != Prev::Expr
            || self.control_kw
            || self.after_dot
            || self.pending_expr_body.is_some()
            || !declares_main_before(&self.out, self.pos)
        {
            return false;
        }
        let at = self.pos;
        let crate::literal::BlankRead {
            read,
            blanks,
            facts,
        } = crate::literal::read_literal_blanks(self.src, at);
        let end = read.as_ref().ok().map(|(_, end)| *end);
        self.pre_read = Some(PreRead { at, read, facts });
        let Some(end) = end else {
            return false;
        };
        blank_ranges(&mut self.out, &blanks);
        self.pos = end;
        self.token(Prev::Value);
        true
    }

    /// Records the end of a token.
    fn token(&mut self, prev: Prev) {
        self.prev = prev;
        self.control_kw = false;
        self.after_dot = false;
    }

    /// Copies `n` bytes of code unchanged.
    fn copy(&mut self, n: usize) {
        let end = (self.pos + n).min(self.b.len());
        if !self.keep_bytes
            && let Some(bytes) = self.b.get(self.pos..end)
        {
            self.out.extend_from_slice(bytes);
        }
        self.pos = end;
    }

    /// Blanks the `n` bytes of source at `pos` and moves past them: with `keep_bytes` each byte
    /// becomes a space (in place), else each character does.
    fn spaces(&mut self, n: usize) {
        let end = (self.pos + n).min(self.b.len());
        if self.keep_bytes {
            if let Some(out) = self.out.get_mut(self.pos..end) {
                out.fill(b' ');
            }
        } else {
            let chars = self
                .src
                .get(self.pos..end)
                .map_or(end - self.pos, |s| s.chars().count());
            self.out.resize(self.out.len() + chars, b' ');
        }
        self.pos = end;
    }

    /// The length of the text written so far (with `keep_bytes`, the source offset).
    fn written(&self) -> usize {
        if self.keep_bytes {
            self.pos
        } else {
            self.out.len()
        }
    }

    /// Blanks the character at `pos`: line terminators `\n`/`\r` are kept, anything else becomes one
    /// space (as many as it has bytes, keeping byte offsets).
    fn blank_char(&mut self) {
        match self.b.get(self.pos) {
            None => {}
            Some(b'\n' | b'\r') => self.copy(1),
            Some(&c) if c < 0x80 => self.spaces(1),
            Some(_) => {
                let n = char_at(self.src, self.pos).map_or(1, char::len_utf8);
                self.spaces(n);
            }
        }
    }

    /// Blanks the ASCII characters from `pos` up to (not including) the first line break, non-ASCII
    /// byte or one of `stops`, all at once: what [`Blanker::blank_char`] would do to each.
    fn blank_ascii_run(&mut self, stops: [u8; 3]) {
        let rest = self.b.get(self.pos..).unwrap_or_default();
        let n = ascii_run(rest, stops);
        self.spaces(n);
    }

    /// True at `\n`, `\r`, U+2028 or U+2029.
    fn at_line_terminator(&self) -> bool {
        match self.b.get(self.pos) {
            Some(b'\n' | b'\r') => true,
            Some(0xE2) => matches!(
                self.b.get(self.pos + 1..self.pos + 3),
                Some([0x80, 0xA8 | 0xA9])
            ),
            _ => false,
        }
    }

    /// `// …` (or the `#!` line): blanked up to, not including, the line terminator.
    fn line_comment(&mut self) {
        loop {
            self.blank_ascii_run([b'\n'; 3]);
            if self.pos >= self.b.len() || self.at_line_terminator() {
                return;
            }
            self.blank_char();
        }
    }

    /// `/* … */`: blanked entirely, line breaks kept.
    fn block_comment(&mut self) {
        self.spaces(2);
        loop {
            self.blank_ascii_run([b'*', b'\n', b'\n']);
            let Some(&c) = self.b.get(self.pos) else {
                return;
            };
            if c == b'*' && self.b.get(self.pos + 1) == Some(&b'/') {
                self.spaces(2);
                return;
            }
            self.blank_char();
        }
    }

    /// A `'…'` or `"…"` literal starting at `pos`.
    fn string(&mut self, quote: u8) {
        self.copy(1);
        loop {
            self.blank_ascii_run([quote, b'\\', b'\n']);
            let Some(&c) = self.b.get(self.pos) else {
                return;
            };
            match c {
                _ if c == quote => {
                    self.copy(1);
                    return;
                }
                // An unescaped line break ends the (invalid) literal; code resumes on the next line.
                b'\n' | b'\r' => return,
                b'\\' => {
                    self.blank_char();
                    if self.b.get(self.pos) == Some(&b'\r') {
                        self.blank_char();
                        if self.b.get(self.pos) == Some(&b'\n') {
                            self.blank_char();
                        }
                    } else {
                        self.blank_char();
                    }
                }
                _ => self.blank_char(),
            }
        }
    }

    /// Template text after a backtick or after the `}` of a substitution. Ends at the closing backtick
    /// (the literal is then a value) or at `${` (code resumes inside the substitution).
    fn template_text(&mut self) {
        loop {
            self.blank_ascii_run([b'`', b'$', b'\\']);
            let Some(&c) = self.b.get(self.pos) else {
                break;
            };
            match c {
                b'`' => {
                    self.copy(1);
                    self.token(Prev::Value);
                    return;
                }
                b'$' if self.b.get(self.pos + 1) == Some(&b'{') => {
                    self.template_exprs.push(self.written());
                    self.copy(2);
                    self.stack.push(Frame::TemplateExpr);
                    self.token(Prev::Expr);
                    return;
                }
                b'\\' => {
                    self.blank_char();
                    self.blank_char();
                }
                _ => self.blank_char(),
            }
        }
        self.token(Prev::Value);
    }

    /// A regular-expression literal starting at `pos`, copied unchanged. It ends after the closing `/`
    /// (outside a `[…]` class) or before a line terminator.
    fn regex(&mut self) {
        self.copy(1);
        let mut in_class = false;
        while let Some(&c) = self.b.get(self.pos) {
            if self.at_line_terminator() {
                return;
            }
            match c {
                b'\\' => {
                    self.copy(1);
                    if self.pos < self.b.len() && !self.at_line_terminator() {
                        self.copy_char();
                    }
                }
                b'[' => {
                    in_class = true;
                    self.copy(1);
                }
                b']' => {
                    in_class = false;
                    self.copy(1);
                }
                b'/' if !in_class => {
                    self.copy(1);
                    return;
                }
                _ => self.copy_char(),
            }
        }
    }

    /// Copies the whole character at `pos`.
    fn copy_char(&mut self) {
        let n = char_at(self.src, self.pos).map_or(1, char::len_utf8);
        self.copy(n);
    }

    fn number(&mut self) {
        let start = self.pos;
        let mut j = start;
        while let Some(&c) = self.b.get(j) {
            if is_ascii_ident(c) || c == b'.' {
                j += 1;
            } else {
                break;
            }
        }
        self.copy((j - start).max(1));
        self.token(Prev::Value);
    }

    fn identifier(&mut self) {
        let start = self.pos;
        let (end, _) = ident_end(self.src, start);
        let word = self.src.get(start..end).unwrap_or("");
        let member = self.after_dot;
        let was_expr = self.prev == Prev::Expr;
        self.copy(end - start);
        if member {
            self.token(Prev::Value);
            return;
        }
        match word {
            "return" | "typeof" | "instanceof" | "in" | "of" | "new" | "delete" | "void"
            | "throw" | "case" | "yield" | "await" | "default" => self.token(Prev::Expr),
            "else" | "do" | "try" | "finally" => self.token(Prev::Stmt),
            "if" | "for" | "while" | "with" | "switch" | "catch" => {
                self.token(Prev::Value);
                self.control_kw = true;
            }
            // A modifier: `x = async function () {}` keeps the expression position.
            "async" => {}
            "function" | "class" => {
                if was_expr {
                    self.pending_expr_body = Some(self.stack.len());
                }
                self.token(Prev::Value);
            }
            _ => self.token(Prev::Value),
        }
    }

    fn open_brace(&mut self) {
        let frame = if self.pending_expr_body == Some(self.stack.len()) {
            self.pending_expr_body = None;
            Frame::ExprBody
        } else if self.prev == Prev::Expr {
            Frame::Object
        } else {
            Frame::Block
        };
        self.stack.push(frame);
        self.copy(1);
        self.token(if frame == Frame::Object {
            Prev::Expr
        } else {
            Prev::Stmt
        });
    }

    fn close_brace(&mut self) {
        // Unclosed parentheses inside the braces (invalid code) are dropped.
        loop {
            match self.stack.pop() {
                Some(Frame::Paren | Frame::ControlParen) => continue,
                Some(Frame::Block) | None => {
                    self.copy(1);
                    self.token(Prev::Stmt);
                }
                Some(Frame::Object | Frame::ExprBody) => {
                    self.copy(1);
                    self.token(Prev::Value);
                }
                Some(Frame::TemplateExpr) => {
                    self.copy(1);
                    self.template_text();
                }
            }
            if self
                .pending_expr_body
                .is_some_and(|depth| depth > self.stack.len())
            {
                self.pending_expr_body = None;
            }
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Pass 2: matching
// ---------------------------------------------------------------------------------------------------

/// What follows an identifier (after optional whitespace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Follow {
    /// `.` or `?.name`
    Dot,
    /// `[` or `?.[`
    Bracket,
    /// `(` or `?.(`
    Call,
    /// `` ` `` (a tagged template, which calls the tag)
    Tag,
    /// `:` (the identifier is a property key)
    Colon,
    Other,
}

fn follow(s: &str, at: usize) -> Follow {
    let b = s.as_bytes();
    let j = skip_ws(s, at);
    match b.get(j) {
        Some(b'.') => Follow::Dot,
        Some(b'?') if b.get(j + 1) == Some(&b'.') => match b.get(j + 2) {
            Some(b'(') => Follow::Call,
            Some(b'[') => Follow::Bracket,
            // `a ?.5 : b` is a conditional, not optional chaining.
            Some(c) if c.is_ascii_digit() => Follow::Other,
            _ => Follow::Dot,
        },
        Some(b'[') => Follow::Bracket,
        Some(b'(') => Follow::Call,
        Some(b'`') => Follow::Tag,
        Some(b':') => Follow::Colon,
        _ => Follow::Other,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RawHit {
    offset: usize,
    code: Code,
    pattern: &'static str,
}

/// Upper bound of the parenthesis stack used for method detection in shared lists; deeper nesting is
/// not tracked (such a file cannot be a plain data list anyway).
const MAX_TRACKED_PARENS: usize = 1 << 16;

struct Matcher<'a> {
    text: &'a str,
    b: &'a [u8],
    list: bool,
    hits: Vec<RawHit>,
    scratch: String,
    /// Offset of a `Function` already reported as part of `new Function`.
    skip_function_at: Option<usize>,
    // Method detection (shared lists only).
    /// Offset of the name-like token just before the current position.
    last_name: Option<usize>,
    /// The previous token was the `function` keyword (its name and parameters are not a method).
    after_function_kw: bool,
    depth: usize,
    /// `(depth, name offset)` of every open parenthesis that directly follows a name.
    named_parens: Vec<(usize, usize)>,
}

/// Runs the matcher over blanked text; in a shared list, every template substitution the blanker
/// found is a hit too.
///
/// SEC203: A template literal with a `${…}` expression in a shared-list file; template text without
/// expressions is fine.
///
/// # Why
///
/// An expression computes a value while the file loads, so the list would no longer be exactly what
/// its file says.
fn scan_blanked(source: &str, blanked: &Blanked, kind: ScanKind) -> Vec<ScanHit> {
    scan_blanked_free(source, blanked, kind).0
}

/// [`scan_blanked`], and whether the text was a module the matcher had nothing to look at in
/// ([`ReadScan::free`]).
fn scan_blanked_free(source: &str, blanked: &Blanked, kind: ScanKind) -> (Vec<ScanHit>, bool) {
    // `blanked` is `blank_aligned`'s blanking of `source`: the hits' lines and columns are counted
    // in `source` (at the same byte offsets), so a blanked multi-byte character is one column.
    let list = kind == ScanKind::SharedList;
    if !list && !module_may_hit(blanked.text.as_bytes()) {
        return (Vec::new(), true);
    }
    (locate(source, &raw_hits(blanked, list)), false)
}

/// Every hit of the matcher in `blanked`, sorted by offset and code, without repeats.
fn raw_hits(blanked: &Blanked, list: bool) -> Vec<RawHit> {
    let mut m = Matcher {
        text: &blanked.text,
        b: blanked.text.as_bytes(),
        list,
        hits: Vec::new(),
        scratch: String::new(),
        skip_function_at: None,
        last_name: None,
        after_function_kw: false,
        depth: 0,
        named_parens: Vec::new(),
    };
    m.run();
    if list {
        m.hits
            .extend(blanked.template_exprs.iter().map(|&offset| RawHit {
                offset,
                code: Code::SEC203,
                pattern: "${",
            }));
    }
    let mut hits = m.hits;
    hits.sort_by_key(|h| (h.offset, h.code));
    hits.dedup();
    hits
}

/// Every name [`Matcher::module_rules`] reports, as it is spelled in the blanked text (`new` is
/// reported only before `Function`). A name written with a `\u` escape has a backslash in the
/// text.
const MODULE_RULE_WORDS: [&str; 14] = [
    "import",
    "require",
    "eval",
    "Function",
    "process",
    "child_process",
    "fs",
    "node",
    "global",
    "globalThis",
    "__dirname",
    "__filename",
    "setTimeout",
    "setInterval",
];

/// Whether the matcher could report anything in a module (not a shared list) whose blanked text
/// is `b`: false only when `b` has no backslash and none of [`MODULE_RULE_WORDS`] as a whole word
/// (no ASCII letter, digit, `_` or `$` on either side). Each module rule fires on an identifier
/// whose decoded name is one of those words; an identifier is a maximal run of identifier
/// characters, and one with an escape has a backslash, so a text without either gives no hit.
/// Cheaper than matching: one multi-word search over text that is mostly spaces (issue #46).
fn module_may_hit(b: &[u8]) -> bool {
    static WORDS: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::LazyLock::new(|| {
            aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                .build(MODULE_RULE_WORDS)
                .ok()
        });
    if memchr::memchr(b'\\', b).is_some() {
        return true;
    }
    let Some(words) = WORDS.as_ref() else {
        return true;
    };
    let ident_at = |i: usize| b.get(i).is_some_and(|&c| is_ascii_ident(c));
    // The longest word at the leftmost place, then on after it. A whole word is never missed:
    // every word is made of identifier characters, so no other occurrence can reach across the
    // boundaries of a whole one, and at its start the longest word is the whole one.
    words
        .find_iter(b)
        .any(|m| !(m.start().checked_sub(1).is_some_and(ident_at) || ident_at(m.end())))
}

impl Matcher<'_> {
    fn run(&mut self) {
        let mut i = 0;
        while let Some(&c) = self.b.get(i) {
            if c == b' ' {
                // Blanked strings and comments are long runs of spaces.
                i = after_spaces(self.b, i);
            } else if is_ascii_space(c) {
                i += 1;
            } else if c.is_ascii_digit() {
                let (end, _) = ident_end(self.text, i);
                self.other_token();
                i = end;
            } else if starts_ident(self.text, i) {
                i = self.identifier(i);
            } else if c >= 0x80 {
                let ch = char_at(self.text, i);
                if !ch.is_some_and(is_js_space) {
                    self.other_token();
                }
                i += ch.map_or(1, char::len_utf8);
            } else {
                if self.list {
                    self.list_punct(i, c);
                }
                i += 1;
            }
        }
    }

    /// Records a hit.
    ///
    /// SEC204: Any of the schema scan patterns of SEC001–SEC016 (`import`, `require(`, `eval(`,
    /// `process.`, …) in a shared-list file.
    ///
    /// # Why
    ///
    /// Shared lists get the stricter scan; every pattern forbidden in a schema is at least as
    /// dangerous in a file that is injected into many schemas.
    fn push(&mut self, offset: usize, code: Code, pattern: &'static str) {
        // In a shared list every module rule is SEC204.
        let code = if self.list && module_code_of(pattern).is_some() {
            Code::SEC204
        } else {
            code
        };
        self.hits.push(RawHit {
            offset,
            code,
            pattern,
        });
    }

    fn identifier(&mut self, start: usize) -> usize {
        let (end, escaped) = ident_end(self.text, start);
        let raw = self.text.get(start..end).unwrap_or("");
        let mut buf = std::mem::take(&mut self.scratch);
        let name: &str = if escaped {
            decode_ident(raw, &mut buf);
            &buf
        } else {
            raw
        };
        // `x.eval(` is a member; `...process` is a spread, not a member.
        let member = start > 0
            && self.b.get(start - 1) == Some(&b'.')
            && !(start >= 3 && self.b.get(start - 3..start - 1) == Some(b"..".as_slice()));
        if !member {
            self.module_rules(start, end, name);
            if self.list {
                self.list_rules(start, end, name);
            }
        }
        if self.list {
            self.track_name(start, name);
        }
        self.scratch = buf;
        end
    }

    /// The module rules for the identifier `name` at `start..end` (not a member such as `x.eval`).
    ///
    /// SEC001: `import` in any form: a static `import … from`, a dynamic `import(…)`, `import{` and
    /// `import.meta`. A property key such as `{ import: 1 }` does not count.
    ///
    /// # Why
    ///
    /// Schemas receive all their dependencies through the `handlers` factory, so they need no
    /// imports; an import would load code that neither the allowlist nor the sandbox controls.
    ///
    /// SEC002: A `require(` call (whitespace and comments before the parenthesis included).
    ///
    /// # Why
    ///
    /// `require` is the CommonJS way to load modules, with the same risk as `import`: code from
    /// outside the allowlist.
    ///
    /// SEC003: An `eval(` call, including `eval (` and `eval?.(`, but not a method such as
    /// `x.eval(`.
    ///
    /// # Why
    ///
    /// `eval` runs code assembled from strings, which no static check can see; it is the easiest
    /// way around every other rule.
    ///
    /// SEC004: A call of the `Function(` constructor (`new Function` is SEC005), including tagged
    /// templates such as ``Function`…` ``, but not names such as `getFunction(`.
    ///
    /// # Why
    ///
    /// The `Function` constructor compiles code from strings, exactly like `eval`.
    ///
    /// SEC005: `new Function`, reported once (not also as SEC004).
    ///
    /// # Why
    ///
    /// It compiles code from strings at run time, exactly like `eval`.
    ///
    /// SEC006: Access to `process` with `.`, `?.` or `[`.
    ///
    /// # Why
    ///
    /// `process` exposes the environment (where API keys live), the working directory and `exit`.
    /// Handlers must never see server parameters.
    ///
    /// SEC007: The identifier `child_process` outside strings and comments. (A module specifier in
    /// a string is blanked; the `import` or `require` around it is SEC001/SEC002.)
    ///
    /// # Why
    ///
    /// Spawning processes would give a schema a shell on the machine running it.
    ///
    /// SEC008: Access to `fs` with `.` or `[`, as in `fs.readFileSync`.
    ///
    /// # Why
    ///
    /// File system access could read credentials or write anywhere the server can.
    ///
    /// SEC009: `node:fs` written outside strings and comments. (A module specifier in a string is
    /// blanked; the `import` or `require` around it is SEC001/SEC002.)
    ///
    /// # Why
    ///
    /// It names Node's file system module, which schemas must never reach.
    ///
    /// SEC010: `fs/promises` written outside strings and comments. (A module specifier in a string
    /// is blanked; the `import` or `require` around it is SEC001/SEC002.)
    ///
    /// # Why
    ///
    /// It names the promise API of Node's file system module, which schemas must never reach.
    ///
    /// SEC011: Access to `globalThis` with `.`, `?.` or `[`.
    ///
    /// # Why
    ///
    /// The global object reaches built-ins the sandbox removes and lets a module redefine what
    /// other code sees.
    ///
    /// SEC012: Access to `global` with `.`, `?.` or `[` (Node's name for the global object).
    ///
    /// # Why
    ///
    /// The global object reaches built-ins the sandbox removes and lets a module redefine what
    /// other code sees.
    ///
    /// SEC013: The identifier `__dirname`.
    ///
    /// # Why
    ///
    /// It reveals where the server keeps its files, a first step towards file access.
    ///
    /// SEC014: The identifier `__filename`.
    ///
    /// # Why
    ///
    /// It reveals where the server keeps its files, a first step towards file access.
    ///
    /// SEC015: The identifier `setTimeout`. Not reported under `compat`.
    ///
    /// # Why
    ///
    /// Timers create asynchronous side effects that outlive a call. Catalogs written for the
    /// JavaScript reference use them, so `compat` allows them and the runtime provides a capped
    /// timer instead.
    ///
    /// SEC016: The identifier `setInterval`. Not reported under `compat`.
    ///
    /// # Why
    ///
    /// Intervals keep running after a call ends, an asynchronous side effect. Catalogs written for
    /// the JavaScript reference use them, so `compat` allows them and the runtime provides a capped
    /// timer instead.
    fn module_rules(&mut self, start: usize, end: usize, name: &str) {
        let rest = self.b.get(end..).unwrap_or(&[]);
        match name {
            "import" if follow(self.text, end) != Follow::Colon => {
                self.push(start, Code::SEC001, "import")
            }
            "require" if self.is_call(end) => self.push(start, Code::SEC002, "require("),
            "eval" if self.is_call(end) => self.push(start, Code::SEC003, "eval("),
            "Function" if self.skip_function_at != Some(start) && self.is_call(end) => {
                self.push(start, Code::SEC004, "Function(")
            }
            "new" => {
                let j = skip_ws(self.text, end);
                if j > end && starts_ident(self.text, j) {
                    let (e, escaped) = ident_end(self.text, j);
                    let raw = self.text.get(j..e).unwrap_or("");
                    let is_function = if escaped {
                        let mut tmp = String::new();
                        decode_ident(raw, &mut tmp);
                        tmp == "Function"
                    } else {
                        raw == "Function"
                    };
                    if is_function {
                        self.push(start, Code::SEC005, "new Function");
                        self.skip_function_at = Some(j);
                    }
                }
            }
            "process" => self.member_rule(start, end, Code::SEC006, "process.", "process["),
            "child_process" => self.push(start, Code::SEC007, "child_process"),
            "fs" => {
                if rest.starts_with(b"/promises") {
                    self.push(start, Code::SEC010, "fs/promises");
                } else {
                    self.member_rule(start, end, Code::SEC008, "fs.", "fs[");
                }
            }
            "node" if rest.starts_with(b":fs") => self.push(start, Code::SEC009, "node:fs"),
            "globalThis" => {
                self.member_rule(start, end, Code::SEC011, "globalThis.", "globalThis[")
            }
            "global" => self.member_rule(start, end, Code::SEC012, "global.", "global["),
            "__dirname" => self.push(start, Code::SEC013, "__dirname"),
            "__filename" => self.push(start, Code::SEC014, "__filename"),
            "setTimeout" => self.push(start, Code::SEC015, "setTimeout"),
            "setInterval" => self.push(start, Code::SEC016, "setInterval"),
            _ => {}
        }
    }

    /// True when a call (`(`, `?.(`) or a tagged template follows the identifier ending at `end`.
    fn is_call(&self, end: usize) -> bool {
        matches!(follow(self.text, end), Follow::Call | Follow::Tag)
    }

    fn member_rule(
        &mut self,
        start: usize,
        end: usize,
        code: Code,
        dot: &'static str,
        bracket: &'static str,
    ) {
        match follow(self.text, end) {
            Follow::Dot => self.push(start, code, dot),
            Follow::Bracket => self.push(start, code, bracket),
            _ => {}
        }
    }

    /// The keyword rules of shared lists for the identifier `name` at `start..end`.
    ///
    /// SEC200: A function definition in a shared-list file (a file under `_lists/`, or one that
    /// declares `export const list`): a `function` declaration or expression, or a method such as
    /// `name() { … }`.
    ///
    /// # Why
    ///
    /// Shared lists are pure data, frozen and injected into every schema that references them. Code
    /// in a list would run for every consumer.
    ///
    /// SEC202: `async` or `await` in a shared-list file (used as property keys they do not count).
    ///
    /// # Why
    ///
    /// Asynchronous code means computation at load time, and a shared list must be plain data.
    fn list_rules(&mut self, start: usize, end: usize, name: &str) {
        match name {
            "function" if follow(self.text, end) != Follow::Colon => {
                self.push(start, Code::SEC200, "function")
            }
            "async" if follow(self.text, end) != Follow::Colon => {
                self.push(start, Code::SEC202, "async")
            }
            "await" if follow(self.text, end) != Follow::Colon => {
                self.push(start, Code::SEC202, "await")
            }
            _ => {}
        }
    }

    /// Remembers a name that a following `(…) {` would turn into a method definition.
    fn track_name(&mut self, start: usize, name: &str) {
        let is_function = name == "function";
        let control = matches!(name, "if" | "for" | "while" | "switch" | "catch" | "with");
        self.last_name = if is_function || control || self.after_function_kw {
            None
        } else {
            Some(start)
        };
        self.after_function_kw = is_function;
    }

    fn other_token(&mut self) {
        self.last_name = None;
        self.after_function_kw = false;
    }

    /// Punctuation in a shared list: `=>` and method definitions.
    ///
    /// SEC201: An arrow function (`=>`) in a shared-list file.
    ///
    /// # Why
    ///
    /// Shared lists are pure data; a function in one would be code shipped to every schema that
    /// references the list.
    fn list_punct(&mut self, i: usize, c: u8) {
        match c {
            b'=' if self.b.get(i + 1) == Some(&b'>') => {
                self.push(i, Code::SEC201, "=>");
                self.other_token();
            }
            b'(' => {
                self.depth += 1;
                if let Some(name) = self.last_name
                    && self.named_parens.len() < MAX_TRACKED_PARENS
                {
                    self.named_parens.push((self.depth, name));
                }
                self.other_token();
            }
            b')' => {
                while self
                    .named_parens
                    .last()
                    .is_some_and(|&(d, _)| d > self.depth)
                {
                    self.named_parens.pop();
                }
                if let Some(&(d, name)) = self.named_parens.last()
                    && d == self.depth
                {
                    self.named_parens.pop();
                    if self.b.get(skip_ws(self.text, i + 1)) == Some(&b'{') {
                        self.push(name, Code::SEC200, "() {");
                    }
                }
                self.depth = self.depth.saturating_sub(1);
                self.other_token();
            }
            // Names of computed (`[k]() {}`) and quoted (`'k'() {}`) methods.
            b']' | b'"' | b'\'' => {
                self.last_name = Some(i);
                self.after_function_kw = false;
            }
            // `function* name() {}` is one definition.
            b'*' => {}
            _ => self.other_token(),
        }
    }
}

/// Converts byte offsets (sorted) into 1-based lines and character columns in one forward walk.
fn locate(text: &str, hits: &[RawHit]) -> Vec<ScanHit> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(hits.len());
    let mut pos = 0usize;
    let mut line = 1usize;
    let mut col = 0usize;
    for h in hits {
        let target = h.offset.min(b.len());
        if let Some(chunk) = b.get(pos..target) {
            for &c in chunk {
                if c == b'\n' {
                    line += 1;
                    col = 0;
                } else if c & 0xC0 != 0x80 {
                    col += 1;
                }
            }
        }
        pos = pos.max(target);
        out.push(ScanHit {
            code: h.code,
            pattern: h.pattern,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(col + 1).unwrap_or(u32::MAX),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(src: &str, kind: ScanKind) -> Vec<(Code, &'static str)> {
        scan(src, kind)
            .into_iter()
            .map(|h| (h.code, h.pattern))
            .collect()
    }

    /// `byte_aligned` against the character-by-character definition, on texts where blanked,
    /// kept and unblanked multi-byte characters meet at every kind of boundary.
    #[test]
    fn byte_aligned_pads_each_blanked_character_to_its_bytes() {
        fn by_chars(source: &str, blanked: &str) -> Option<String> {
            let mut out = String::new();
            let mut s = source.chars();
            for bc in blanked.chars() {
                let sc = s.next()?;
                out.push(bc);
                if bc != sc {
                    out.extend(std::iter::repeat_n(
                        ' ',
                        sc.len_utf8().checked_sub(bc.len_utf8())?,
                    ));
                }
            }
            s.next().is_none().then_some(out)
        }
        let long = "x".repeat(40);
        for src in [
            "const a = 'é'; // ü\nconst b = \"€𝄞\";",
            "export const main = { d: 'Prüfung — «ok»', e: `${'ß'} ✓` } /* 日本 */",
            &format!("const é = '{long}é{long}'; const z = 'ä';\n/*{long}😀*/ const ö = 1;"),
            "'é'",
            "é",
            "",
            "plain ascii, nothing blanked but 'strings'",
        ] {
            let blanked = blank(src);
            let aligned = byte_aligned(src, &blanked);
            assert_eq!(aligned, by_chars(src, &blanked), "{src}");
            let aligned = aligned.unwrap_or_default();
            assert_eq!(aligned.len(), src.len(), "{src}");
            assert_eq!(blank_aligned(src), aligned);
        }
        // Texts that are not a source and its blanking are refused.
        assert_eq!(byte_aligned("ab", "abc"), None);
        assert_eq!(byte_aligned("abc", "ab"), None);
        assert_eq!(byte_aligned("a", "é"), None);
    }

    /// Columns count characters of the source, also after blanked multi-byte characters (the scan
    /// reads a blanking with the source's byte offsets).
    #[test]
    fn columns_after_blanked_multibyte_text_count_characters() {
        let hits = scan(
            "const s = 'ééé'; /* 日本 */ eval(x)\n`😀${ require(y) }`",
            ScanKind::Module,
        );
        let at: Vec<_> = hits.iter().map(|h| (h.pattern, h.line, h.column)).collect();
        assert_eq!(at, vec![("eval(", 1, 27), ("require(", 2, 6)]);
    }

    /// D170: the run searches give exactly what a byte-by-byte search gives, for every stop set
    /// the blanker uses, at every length and offset around the 16-byte head and the search
    /// after it.
    #[test]
    fn i46_run_searches_agree_with_a_byte_by_byte_search() {
        let alphabet: &[u8] = b"ab \t\n\r*'\"\\`$/{}x\xc3\xa9";
        let stop_sets: [[u8; 3]; 5] = [
            [b'\n'; 3],
            [b'*', b'\n', b'\n'],
            [b'\'', b'\\', b'\n'],
            [b'"', b'\\', b'\n'],
            [b'`', b'$', b'\\'],
        ];
        for text in
            crate::test_texts::texts_with_one_other_byte(0x2545_f491_4f6c_dd1d, alphabet, 4000)
        {
            let len = text.len();
            for stops in stop_sets {
                let slow = text
                    .iter()
                    .position(|&c| c >= 0x80 || c == b'\n' || c == b'\r' || stops.contains(&c))
                    .unwrap_or(text.len());
                assert_eq!(ascii_run(&text, stops), slow, "{text:?} {stops:?}");
            }
            for at in 0..=len {
                let slow = at + text[at..].iter().take_while(|&&c| c == b' ').count();
                let spaced: Vec<u8> = text
                    .iter()
                    .map(|&c| if c == b'a' { b' ' } else { c })
                    .collect();
                let slow_spaced = at + spaced[at..].iter().take_while(|&&c| c == b' ').count();
                assert_eq!(after_spaces(&text, at), slow);
                assert_eq!(after_spaces(&spaced, at), slow_spaced);
            }
        }
        assert!((0..=255u8).all(|c| is_ascii_ident(c)
            == (c.is_ascii_alphanumeric() || c == b'_' || c == b'$')));
    }

    /// D175: a module whose blanked text the word search passes over has no hit, whatever the
    /// matcher would read there. Texts are made of the rule words, near misses, escapes, members,
    /// calls, strings, comments, regular expressions, templates and non-ASCII characters (a space
    /// and a letter), so every side of the search is reached.
    #[test]
    fn i46_the_word_search_passes_over_no_hit() {
        // The rule words are spelled out here rather than taken from `MODULE_RULE_WORDS`: a word
        // the list lacks must still reach the matcher, or the test could not notice it missing.
        let pieces: &[&str] = &[
            "import",
            "require",
            "eval",
            "Function",
            "process",
            "fs",
            "node",
            "global",
            "__dirname",
            "__filename",
            "setTimeout",
            "setInterval",
            "new",
            "child_process",
            "globalThis",
            "requiredServerParams",
            "evaluate",
            "nodes",
            "offset",
            "x",
            "a1",
            "1",
            "$",
            "_",
            "#",
            " ",
            "\n",
            ".",
            "(",
            ")",
            "[",
            "?.",
            ":",
            ";",
            "/promises",
            ":fs",
            "'s'",
            "\"eval\"",
            "// eval\n",
            "/* fs */",
            "`t${",
            "}`",
            "/eval(/",
            "\\u0065val",
            "ev\\u{61}l",
            "\u{a0}",
            "\u{e9}",
            "=",
            "{",
            "}",
        ];
        let mut rng = crate::test_texts::XorShift(0x9e37_79b9_7f4a_7c15);
        let (mut passed, mut hit) = (0, 0);
        for _ in 0..20_000 {
            let n = 1 + (rng.next() % 10) as usize;
            let text: String = (0..n)
                .map(|_| pieces[(rng.next() as usize) % pieces.len()])
                .collect();
            let blanked = Blanker::new(&text, true).run();
            let hits = raw_hits(&blanked, false);
            if !module_may_hit(blanked.text.as_bytes()) {
                passed += 1;
                assert!(hits.is_empty(), "{text:?}: {hits:?}");
            } else if !hits.is_empty() {
                hit += 1;
            }
        }
        assert!(
            passed > 1_000 && hit > 1_000,
            "{passed} passed over, {hit} with hits"
        );
    }

    /// What a reload's scan leans on (`scan_module_blanked` with edited ranges): when a blanking
    /// the word search passes over has a range replaced, and that range, widened to the identifier
    /// characters around it, passes too, the whole new blanking passes. Old texts and new ranges
    /// are made of words, parts of words and the characters that end them, so that a word can be
    /// joined across either end of a range or split by it.
    #[test]
    fn i46_an_edited_range_that_names_no_rule_word_leaves_the_text_free() {
        let parts: &[&str] = &[
            "ev", "al", "eval", "re", "quire", "fs", "f", "s", "node", "no", "de", "x", "1", "$",
            "_", " ", "\n", ".", ":", ",", "{", "}", "[", "]", "\\", "\u{e9}",
        ];
        let mut rng = crate::test_texts::XorShift(0x46_f4ee);
        let make = |rng: &mut crate::test_texts::XorShift, max: u64| -> String {
            let n = (rng.next() % max) as usize;
            (0..n)
                .map(|_| parts[(rng.next() as usize) % parts.len()])
                .collect()
        };
        let (mut free, mut caught) = (0, 0);
        for _ in 0..50_000 {
            let old = make(&mut rng, 8);
            if module_may_hit(old.as_bytes()) {
                continue;
            }
            let mut start = (rng.next() as usize) % (old.len() + 1);
            while !old.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = start + (rng.next() as usize) % (old.len() - start + 1);
            while !old.is_char_boundary(end) {
                end += 1;
            }
            let new_piece = make(&mut rng, 3);
            let new = format!("{}{new_piece}{}", &old[..start], &old[end..]);
            let piece = start..start + new_piece.len();
            if piece_free(new.as_bytes(), piece) {
                free += 1;
                assert!(!module_may_hit(new.as_bytes()), "{old:?} → {new:?}");
            } else if module_may_hit(new.as_bytes()) {
                caught += 1;
            }
        }
        assert!(
            free > 5_000 && caught > 1_000,
            "{free} free, {caught} caught"
        );
    }

    #[test]
    fn blank_keeps_delimiters_and_lines() {
        let src = "a('x y', \"z\") // c\n/* d\ne */ b`t${ c }u`";
        let out = blank(src);
        assert_eq!(out, "a('   ', \" \")     \n    \n     b` ${ c } `");
    }

    #[test]
    fn blank_nested_template() {
        let src = "`a${ `b${ {x: 'q'} }c` }d`";
        assert_eq!(blank(src), "` ${ ` ${ {x: ' '} } ` } `");
    }

    #[test]
    fn regex_literal_does_not_open_string_or_comment() {
        let out = blank("x = /'/; y = /a\\/\\/b/; process.exit()");
        assert!(out.ends_with("process.exit()"), "{out}");
        let out = blank("if (a) /[/]'/.test(s); process.x");
        assert!(out.ends_with("process.x"), "{out}");
    }

    #[test]
    fn division_is_not_a_regex() {
        let out = blank("a = b / 2 + '/'; c");
        assert_eq!(out, "a = b / 2 + ' '; c");
        let out = blank("x = function(){} / '/'.length; process.exit(); y = '/'");
        assert!(out.contains("process.exit()"), "{out}");
        let out = blank("x = {} / '/'.length; process.exit(); y = '/'");
        assert!(out.contains("process.exit()"), "{out}");
    }

    #[test]
    fn escaped_identifiers_are_decoded() {
        assert_eq!(
            codes("\\u0065val('x')", ScanKind::Module),
            vec![(Code::SEC003, "eval(")]
        );
        assert_eq!(
            codes("pro\\u{63}ess.env", ScanKind::Module),
            vec![(Code::SEC006, "process.")]
        );
    }

    #[test]
    fn decode_malformed_escapes() {
        let mut buf = String::new();
        decode_ident("a\\u{110000}b\\u12\\x", &mut buf);
        assert_eq!(buf, "a\u{FFFD}b\u{FFFD}\\x");
    }

    #[test]
    fn rule_maps_sec204_back() {
        let hits = scan(
            "export const list = { a: process.env }",
            ScanKind::SharedList,
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].code, Code::SEC204);
        assert_eq!(hits[0].rule(), Code::SEC006);
        assert_eq!(
            hits[0].message(),
            "Forbidden pattern \"process.\" found at line 1"
        );
    }

    /// Blanks `src` as the loader does, reading a `main` literal ahead or not.
    fn blanked_with(src: &str, read_ahead: bool) -> Blanked {
        let mut blanker = Blanker::new(src, true);
        blanker.read_ahead = read_ahead;
        blanker.run()
    }

    /// A random data literal (or, one time in twelve, something the literal reader declines),
    /// with every kind of string, template, comment, key and number the reader knows.
    fn random_literal(rng: &mut crate::test_texts::XorShift, depth: usize, out: &mut String) {
        const TRIVIA: &[&str] = &[
            "",
            " ",
            "\n",
            "\t",
            "\r\n",
            "// c\n",
            "// é \u{2028}",
            "/* a\r\nb */",
            "/*é*/",
            "\u{a0}",
            "/**/",
            "// x // y\r",
            "/* // */",
        ];
        const KEYS: &[&str] = &[
            "a",
            "class",
            "function",
            "if",
            "return",
            "typeof",
            "async",
            "else",
            "'q'",
            "\"k\\\"\"",
            "'é'",
            "1",
            "0x1F",
            "$x",
            "_y",
            "'a\\\nb'",
            "\"/* */\"",
            "'//'",
        ];
        const SCALARS: &[&str] = &[
            "'s'",
            "\"d\"",
            "'it\\'s'",
            "\"\\\\\"",
            "'\\n\\t'",
            "'\\u{1F600}'",
            "'\\x41'",
            "'a\\\nb'",
            "'a\\\r\nb'",
            "'\u{2028}'",
            "'é€😀'",
            "'//'",
            "'/*'",
            "'`'",
            "'${x}'",
            "`t`",
            "`a\nb`",
            "`a\r\nb`",
            "`$`",
            "`é`",
            "``",
            "1",
            "-2.5",
            "0x1F",
            "1_000",
            ".5",
            "1e3",
            "- 1",
            "true",
            "false",
            "null",
            "'a/b'",
            "\"}\"",
            "'{'",
        ];
        const BAD: &[&str] = &[
            "f()", "`${x}`", "`\\n`", "x", "'open", "1 / 2", "[,]", "a.b",
        ];
        out.push_str(rng.pick(TRIVIA));
        let roll = rng.next() % 12;
        if roll == 0 {
            out.push_str(rng.pick(BAD));
        } else if depth < 4 && roll < 5 {
            out.push('{');
            for i in 0..(rng.next() % 4) {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(rng.pick(TRIVIA));
                out.push_str(rng.pick(KEYS));
                out.push_str(rng.pick(TRIVIA));
                out.push(':');
                random_literal(rng, depth + 1, out);
            }
            out.push_str(rng.pick(TRIVIA));
            out.push('}');
        } else if depth < 4 && roll < 8 {
            out.push('[');
            for i in 0..(rng.next() % 4) {
                if i > 0 {
                    out.push(',');
                }
                random_literal(rng, depth + 1, out);
            }
            out.push(']');
        } else {
            out.push_str(rng.pick(SCALARS));
        }
        out.push_str(rng.pick(TRIVIA));
    }

    /// Reading a `main` literal ahead while blanking (D177) gives the very text, template
    /// offsets and reading of blanking token by token: on 20,000 random modules (states before
    /// the declaration, literals of every token kind, literals the reader declines, code after)
    /// and on every module of the example catalog and the rule fixtures.
    #[test]
    fn i46_a_main_literal_read_ahead_blanks_as_token_by_token() {
        fn same(src: &str) -> bool {
            let mut ahead = blanked_with(src, true);
            let plain = blanked_with(src, false);
            assert_eq!(ahead.text, plain.text, "blanked differently: {src:?}");
            assert_eq!(ahead.template_exprs, plain.template_exprs, "{src:?}");
            assert!(plain.pre_read.is_none());
            // The reading kept is `read_literal`'s at its offset.
            if let Some(pre) = &ahead.pre_read {
                let again = crate::literal::read_literal(src, pre.at);
                assert_eq!(format!("{:?}", pre.read), format!("{again:?}"), "{src:?}");
            }
            let read = ahead.pre_read.as_ref().is_some_and(|p| p.read.is_ok());
            // And the loader's reading of `main` with it is the reading without it (whether a key
            // is written twice included; only the read ahead notes where the values start).
            let with = crate::literal::read_export(src, &ahead.text, "main", ahead.pre_read.take())
                .map(|(lit, facts)| (lit, facts.keys_once));
            let without = crate::literal::read_export(src, &plain.text, "main", None)
                .map(|(lit, facts)| (lit, facts.keys_once));
            assert_eq!(format!("{with:?}"), format!("{without:?}"), "{src:?}");
            read
        }
        const BEFORE: &[&str] = &[
            "",
            "// c\n",
            "/* c */ ",
            "const f = function ",
            "x = class ",
            "if (a) ",
            "`${",
            "({",
            "a.",
            "let r = /x/; ",
            "const main = 1;\n",
            "export const list = [];\n",
            "}",
            ";",
            "#!/usr/bin/env node\n",
            "'",
        ];
        const DECLARATIONS: &[&str] = &[
            "export const main = ",
            "export const main=",
            "export  const\tmain /* m */ = ",
            "export const main == ",
            "export const mainly = ",
            "xexport const main = ",
        ];
        const AFTER: &[&str] = &[
            "",
            ";",
            "\nexport const handlers = () => ({})",
            " / 2 /x/g",
            // A `/` after the literal divides: a regular expression would keep the quotes' text.
            " / 'x' / 2",
            "\n/re/.test(x)",
            "\n/'q'/.test(s)",
            ".x",
            "\nexport const main = {}",
            "`",
        ];
        let mut rng = crate::test_texts::XorShift(0x2545_f491_4f6c_dd1d);
        let (mut read, mut declined) = (0, 0);
        for _ in 0..20_000 {
            let mut src = String::new();
            src.push_str(rng.pick(BEFORE));
            src.push_str(rng.pick(DECLARATIONS));
            if rng.next().is_multiple_of(4) {
                random_literal(&mut rng, 0, &mut src);
            } else {
                // Mostly an object, as `main` is.
                src.push('{');
                src.push_str("a:");
                random_literal(&mut rng, 1, &mut src);
                src.push('}');
            }
            src.push_str(rng.pick(AFTER));
            if same(&src) {
                read += 1;
            } else {
                declined += 1;
            }
        }
        assert!(
            read > 1_000 && declined > 1_000,
            "{read} read ahead, {declined} not"
        );
        // Real modules.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = 0;
        let mut dirs = vec![
            root.join("../../examples"),
            root.join("../flowmcp-validate/tests"),
        ];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "mjs" || e == "js")
                    && let Ok(src) = std::fs::read_to_string(&path)
                {
                    same(&src);
                    files += 1;
                }
            }
        }
        assert!(files > 300, "only {files} modules found");
    }
}
