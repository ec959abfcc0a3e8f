//! Reading pure-data `export const NAME = { … }` literals natively, exactly as QuickJS would.
//!
//! QuickJS parses nested object literals in O(size × depth), which makes evaluating large schema files
//! the dominant cost of loading them. Most `main` exports are plain data, so [`read_data_export`] reads
//! such a literal here (linear time, no recursion); the caller can hand QuickJS a short placeholder in
//! its place and inject the value with `JSON.parse`.
//!
//! The reader is exact or silent: for every literal it accepts, the value equals what QuickJS produces
//! for the same text and the JSON extractor copies out (same strings, same numbers, same key order).
//! Whatever it is not sure about, it declines ([`Decline`] says why), and the caller evaluates the file
//! as before.
//!
//! # The declaration
//!
//! `export const NAME = LITERAL` where
//! - `export` is at brace/bracket/parenthesis depth 0 of the blanked text, and only whitespace precedes
//!   it on its line (comments are whitespace in the blanked text). This keeps a regular-expression
//!   literal, which the blanker leaves visible and which cannot span lines, from posing as code;
//! - it is the only such declaration of `NAME` (ES modules cannot declare a name twice, so a second
//!   match means one of them is not code: decline);
//! - any whitespace and comments may separate the tokens, `=` is not `==` or `=>`, and the literal
//!   starts with `{` or `[`;
//! - after the literal comes (whitespace and comments, then) a `;`, the end of the input, or a line
//!   break followed by an identifier other than `in`/`instanceof` (a new statement by automatic
//!   semicolon insertion; a line break followed by `.`, `[`, `(`, an operator or a template would
//!   continue the expression, so those decline). A line comment ended by U+2028/U+2029 does not count
//!   as a line break here (QuickJS does not count it either).
//!
//! The blanked text (see [`crate::scan::blank`]) is only used to find the candidate quickly; the
//! tokens are then confirmed and the literal is read from `source` itself. The blanker replaces each
//! blanked character by one space, so offsets are mapped by counting characters when a string or
//! comment contained non-ASCII text.
//!
//! # Pure data, precisely
//!
//! Values:
//! - objects `{ key: value, … }` and arrays `[value, …]`, each with an optional trailing comma, nested
//!   at most [`MAX_NESTING`] levels deep (an empty `{}`/`[]` counts as a level);
//! - `'…'` and `"…"` strings with every strict-mode escape: `\n \r \t \b \f \v`, `\0` not followed by
//!   a digit, `\xHH`, `\uHHHH`, `\u{H…}` (up to U+10FFFF), line continuations (backslash before
//!   LF, CR, CRLF, U+2028 or U+2029) and any other escaped character standing for itself. Surrogate
//!   escapes must pair up (a high one directly followed by a low one, as UTF-16 code units; a line
//!   continuation between them is empty). Raw U+2028/U+2029 are allowed inside strings;
//! - template literals without `${` and without any backslash; CR and CRLF in them become LF, as in
//!   JavaScript;
//! - numbers: decimal with optional fraction and exponent (`1`, `1.5`, `.5`, `5.`, `5.e3`, `1E-7`),
//!   `0x`/`0o`/`0b` integers (any case), numeric separators between digits (`1_000`), optionally
//!   preceded by one `-` or `+` (whitespace and comments may follow the sign). Decimal values are
//!   correctly rounded by `str::parse::<f64>`, which is what QuickJS does for up to 38 significant
//!   digits; QuickJS drops any further digits before rounding, so a decimal literal with a non-zero
//!   digit after the 38th significant one is declined. Radix integers are rounded to nearest, ties to
//!   even, as QuickJS does. Stored as the extractor stores them: integral values below 2^53 in
//!   magnitude as JSON integers (`-0` becomes `0`), everything else as a JSON float;
//! - `true`, `false`, `null`.
//!
//! Keys:
//! - identifiers made of ASCII letters, digits, `_`, `$`, and the Latin letters U+00C0–U+024F (except
//!   `×` and `÷`), U+1E00–U+1EFF, `ª`, `µ`, `º` (all of which are identifier characters in every
//!   Unicode version); reserved words are valid keys (`default`, `class`, `new`, …);
//! - string literals (as above);
//! - numeric literals, which name the property by their canonical JavaScript string
//!   (`Number.prototype.toString`: `1.50` → `"1.5"`, `0x10` → `"16"`, `1e21` → `"1e+21"`,
//!   see [`js_number_to_string`]);
//! - the key order is JavaScript's: array-index keys (canonical decimal integers below 2^32 − 1)
//!   first, ascending, then the other keys in first-insertion order. A repeated key keeps its first
//!   position and takes its last value.
//!
//! Comments and any JavaScript whitespace (including U+2028, U+2029, NBSP, U+FEFF and the other Zs
//! spaces) may appear between any two tokens.
//!
//! # Declined
//!
//! `__proto__` as a key in any spelling (it sets the prototype), computed keys, shorthand properties,
//! methods, getters and setters, spreads, identifiers as values (`undefined`, `NaN`, `Infinity`,
//! variables), array holes, operators, calls, parentheses, legacy octal numbers (`017`, `08`) and
//! escapes (`\1`, `\01`, `\8`), BigInt (`10n`), misplaced numeric separators, numbers that are not
//! finite (`1e400`), decimals with a non-zero digit after the 38th significant one, lone surrogates,
//! identifiers with `\u` escapes or other non-ASCII characters than those listed, a raw NUL character
//! anywhere in the literal (comments included), unterminated strings, comments or literals, and
//! nesting deeper than [`MAX_NESTING`]. Anything else that is not listed above declines too.
//!
//! # Cost
//!
//! One forward pass over the blanked text to find the declaration, one over the literal; no recursion
//! (an explicit stack bounded by [`MAX_NESTING`]). Allocation is only for the output value: elements
//! and entries wait on two shared stacks, so every array and object is allocated once at its final
//! size. Objects with array-index keys sort those keys (O(k log k) for k such keys).
//!
//! # Reading again after edits
//!
//! A literal that was read, then edited inside, need not be read whole again: the walk of
//! `edited_values` finds the innermost values that hold the edits (stepping over the others by
//! their brackets and quotes on the blanked text), and `read_value_blanks` reads each of them from
//! the edited text at the depth it has in the literal. The file loader uses them to load a fixed
//! text from the first load of the original (`reload_edited`, D180 in docs/decisions.md).

use std::fmt;
use std::ops::Range;

use serde_json::{Map, Value};

use crate::bytes::is_ascii_ident;

/// The deepest nesting of objects and arrays the reader accepts.
pub const MAX_NESTING: usize = 200;

/// The significant decimal digits QuickJS's `js_atod` keeps (`atod_max_digits_table` for radix 10).
const QUICKJS_DECIMAL_DIGITS: usize = 38;

/// A top-level `export const <name> = <literal>` whose literal is pure data.
#[derive(Clone, Debug, PartialEq)]
pub struct DataLiteral {
    /// Byte range of the literal in the source (from its first `{`/`[` to just after the closing
    /// bracket).
    pub range: Range<usize>,
    /// The value, as QuickJS would produce it and the extractor would copy it.
    pub value: Value,
}

/// Why a literal was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// No `export const NAME = {` or `= [` at the top level.
    NoDeclaration,
    /// More than one candidate declaration of the name.
    Ambiguous,
    /// The declaration's tokens could not be confirmed in the source text.
    Placement,
    /// The literal is not followed by `;`, the end of the input, or a line break and a new statement.
    Tail,
    /// An identifier where a value is expected (`undefined`, `NaN`, `Infinity`, a variable, …).
    Identifier,
    /// A key that is not a plain identifier, string or number: computed, spread, generator,
    /// identifier with escapes or unsupported characters.
    Key,
    /// `__proto__` as a key.
    Proto,
    /// A key not followed by `:` (shorthand property, method, getter or setter).
    NotColon,
    /// An array hole (`[1,,2]`, `[,]`).
    Hole,
    /// A number form that is not accepted: legacy octal, BigInt, misplaced separator, not finite, more
    /// significant digits than QuickJS keeps, or directly followed by an identifier character.
    Number,
    /// A string escape that is not accepted: legacy octal, `\8`, `\9`, malformed `\x`/`\u`, a code
    /// point above U+10FFFF.
    Escape,
    /// A lone surrogate in a string.
    Surrogate,
    /// A template literal with `${` or a backslash.
    Template,
    /// Nesting deeper than [`MAX_NESTING`].
    TooDeep,
    /// The input ends inside a literal, string or comment, or a `'…'`/`"…"` string contains a raw line
    /// break.
    Unterminated,
    /// A raw NUL character in the literal (a string, template or comment): rquickjs refuses sources
    /// that contain one, so removing it would change the outcome.
    Nul,
    /// Any other token: an operator, a call, a parenthesis, ….
    Unexpected,
}

impl Reason {
    /// A short name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NoDeclaration => "no-declaration",
            Reason::Ambiguous => "ambiguous",
            Reason::Placement => "placement",
            Reason::Tail => "tail",
            Reason::Identifier => "identifier",
            Reason::Key => "key",
            Reason::Proto => "proto",
            Reason::NotColon => "not-colon",
            Reason::Hole => "hole",
            Reason::Number => "number",
            Reason::Escape => "escape",
            Reason::Surrogate => "surrogate",
            Reason::Template => "template",
            Reason::TooDeep => "too-deep",
            Reason::Unterminated => "unterminated",
            Reason::Nul => "nul",
            Reason::Unexpected => "unexpected",
        }
    }
}

/// A declined literal: why, and the byte offset in the source where the reader stopped (`0` when no
/// declaration was found).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decline {
    pub reason: Reason,
    pub at: usize,
}

impl fmt::Display for Decline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason.as_str(), self.at)
    }
}

impl std::error::Error for Decline {}

/// Finds `export const <name> = <literal>` at the top level of `source` and reads the literal if it is
/// pure data (see the module documentation for exactly what is accepted). `blanked` is `source` with
/// comment and string contents replaced by spaces, character for character, as produced by
/// [`crate::scan::blank`] (or byte for byte, [`crate::scan::blank_aligned`]); it is used to find the declaration quickly, the literal itself is read
/// from `source`. Returns `None` whenever anything is uncertain.
pub fn read_data_export(source: &str, blanked: &str, name: &str) -> Option<DataLiteral> {
    try_read_data_export(source, blanked, name).ok()
}

/// As [`read_data_export`], saying why a literal was declined.
pub fn try_read_data_export(
    source: &str,
    blanked: &str,
    name: &str,
) -> Result<DataLiteral, Decline> {
    read_export(source, blanked, name, None).map(|(lit, _)| lit)
}

/// Where a module's literal `main` is, and what reading it told, while its `main` export is
/// exactly that literal's value ([`crate::LoadedFile::main_literal`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MainLiteral {
    /// The literal's bytes in the module's text.
    pub range: Range<usize>,
    /// Whether no object of the literal writes a key twice (a repeated key's value is its last):
    /// [`crate::reload_edited`] then stops reading the literal's members once it has passed the
    /// edits. `false` when it is not known.
    pub keys_once: bool,
    /// Where the values of the literal start, noted as it was read, when the text locator
    /// ([`crate::locate`]) would find each of them at the same place (no key written twice,
    /// every key an identifier or a string without escapes, not an array index):
    /// [`crate::LoadedFile::locate_paths`] then answers paths into `main` without reading the
    /// text again.
    pub index: Option<LiteralIndex>,
    /// Whether the static scan's matcher had nothing to look at in the module's blanking (no
    /// backslash, no whole word a module rule reports): [`crate::reload_edited`] then scans an
    /// edited text only near its edits. `false` when it is not known.
    pub scan_free: bool,
}

impl MainLiteral {
    /// The literal at `range`, with what its reading learnt (only the engine reads a literal
    /// `main` so).
    #[cfg_attr(not(feature = "quickjs"), allow(dead_code))]
    pub(crate) fn new(range: Range<usize>, facts: Facts) -> MainLiteral {
        MainLiteral {
            range,
            keys_once: facts.keys_once,
            index: facts.index,
            scan_free: false,
        }
    }
}

/// Where each value of a literal starts, noted by the literal reader as it read the literal
/// ([`MainLiteral::index`]): for every value, in the order the values start (a
/// container before the values inside it), its first byte and how many values its span holds,
/// itself included. With the literal's value it answers a path the way the text locator
/// ([`crate::locate`]) would, without reading the text again ([`crate::LoadedFile::locate_paths`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiteralIndex {
    spans: Vec<(usize, usize)>,
}

impl LiteralIndex {
    /// Each value's first byte and how many values its span holds, in the order values start.
    pub(crate) fn spans(&self) -> &[(usize, usize)] {
        &self.spans
    }
}

/// What the literal reader learnt of a literal besides its value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// Whether no object of the literal writes a key twice ([`MainLiteral::keys_once`]).
    pub(crate) keys_once: bool,
    /// Where its values start, when they were noted and the text locator would find them there
    /// ([`MainLiteral::index`]).
    pub(crate) index: Option<LiteralIndex>,
}

/// What [`read_literal`] gives: the value and the offset after it, or why it was declined.
pub(crate) type LiteralRead = Result<(Value, usize), Decline>;

/// A literal of `source` read while it was blanked ([`crate::scan`]): what [`read_literal`] gives
/// for the bracket at `at`.
#[derive(Debug)]
pub(crate) struct PreRead {
    pub(crate) at: usize,
    pub(crate) read: LiteralRead,
    /// What the reading learnt besides the value ([`BlankRead::facts`]).
    pub(crate) facts: Facts,
}

/// [`try_read_data_export`], taking the literal from `pre` when it was read from the very bracket
/// the declaration found opens (the same function on the same text gives the same result);
/// otherwise it is read here (then without the index of its values). With the literal, what the
/// reading learnt of it.
pub(crate) fn read_export(
    source: &str,
    blanked: &str,
    name: &str,
    pre: Option<PreRead>,
) -> Result<(DataLiteral, Facts), Decline> {
    let export_at = find_declaration(source, blanked, name)?;
    let mut p = Parser::new(source, export_at);
    let start = p.declaration(name)?;
    let (value, facts) = match pre {
        Some(pre) if pre.at == start => {
            let (value, end) = pre.read?;
            p.pos = end;
            (value, pre.facts)
        }
        _ => {
            let value = p.literal()?;
            let facts = Facts {
                keys_once: !p.repeats,
                index: None,
            };
            (value, facts)
        }
    };
    let end = p.pos;
    p.tail()?;
    let lit = DataLiteral {
        range: start..end,
        value,
    };
    Ok((lit, facts))
}

/// Reads a module that is nothing but data: one or more `export const NAME = <literal>`
/// declarations of names from `names` (each at most once, each accepted by
/// [`try_read_data_export`]), separated by whitespace, comments and `;`. Returns the values by
/// name in the order of `names`, or `None` when the module holds anything else (code, another
/// export, a literal the reader declines) — running such a module could do more than declare
/// the values. `blanked` is [`crate::scan::blank_aligned`]'s text of `source` (byte offsets kept).
///
/// A build without the JavaScript engine (the `quickjs` feature off) loads such modules with it.
pub fn read_data_module(
    source: &str,
    blanked: &str,
    names: &[&str],
) -> Option<Vec<(String, Value)>> {
    if source.len() != blanked.len() {
        return None;
    }
    let mut found = Vec::new();
    for name in names {
        match try_read_data_export(source, blanked, name) {
            Ok(lit) => found.push((*name, lit)),
            Err(Decline {
                reason: Reason::NoDeclaration,
                ..
            }) => {}
            Err(_) => return None,
        }
    }
    found.sort_by_key(|(_, lit)| lit.range.start);
    let code_of = |text: &str| -> String { text.chars().filter(|c| !c.is_whitespace()).collect() };
    let mut at = 0;
    for (i, (name, lit)) in found.iter().enumerate() {
        let head = code_of(blanked.get(at..lit.range.start)?);
        let head = if i > 0 {
            head.strip_prefix(';').unwrap_or(&head)
        } else {
            &head
        };
        if head != format!("exportconst{name}=") {
            return None;
        }
        at = lit.range.end;
    }
    let tail = code_of(blanked.get(at..)?);
    if found.is_empty() || !(tail.is_empty() || tail == ";") {
        return None;
    }
    let mut values: Vec<(String, Value)> = found
        .into_iter()
        .map(|(name, lit)| (name.to_string(), lit.value))
        .collect();
    values.sort_by_key(|(name, _)| names.iter().position(|n| n == name));
    Some(values)
}

/// Reads the pure-data literal that starts with the `{` or `[` at byte `at` of `source`. Returns the
/// value and the offset just after the closing bracket; nothing after it is looked at.
pub fn read_literal(source: &str, at: usize) -> Result<(Value, usize), Decline> {
    Parser::new(source, at).bracketed()
}

/// What [`read_literal_blanks`] and [`read_value_blanks`] give.
#[derive(Debug)]
pub(crate) struct BlankRead {
    /// The value and the offset after it, or why it was declined.
    pub(crate) read: LiteralRead,
    /// The ranges the scan's blanker turns into spaces (given only with a value).
    pub(crate) blanks: Vec<Range<usize>>,
    /// What the reading learnt besides the value (`keys_once` is `false` without a value).
    pub(crate) facts: Facts,
}

/// [`read_literal`], also giving the ranges of the literal that the scan's blanker turns into
/// spaces but for their line breaks (`\n`, `\r`): the text of every string and template, between
/// its quotes, and every comment, whole, and where its values start (the scan reads `main` so).
pub(crate) fn read_literal_blanks(source: &str, at: usize) -> BlankRead {
    if !matches!(source.as_bytes().get(at), Some(b'{' | b'[')) {
        let unexpected = Decline {
            reason: Reason::Unexpected,
            at,
        };
        return BlankRead {
            read: Err(unexpected),
            blanks: Vec::new(),
            facts: Facts::default(),
        };
    }
    read_blanks(source, at, 0, true)
}

/// [`read_literal_blanks`] of any value (not only a bracketed one) that starts at `at` inside a
/// larger literal, where `enclosing` objects and arrays hold it (they count towards
/// [`MAX_NESTING`] as they do when the whole literal is read); without the index of its values.
pub(crate) fn read_value_blanks(source: &str, at: usize, enclosing: usize) -> BlankRead {
    read_blanks(source, at, enclosing, false)
}

/// [`read_value_blanks`], noting where the values start when `indexed`.
fn read_blanks(source: &str, at: usize, enclosing: usize, indexed: bool) -> BlankRead {
    let mut p = Parser::new(source, at);
    p.blanks = Some(Vec::new());
    p.enclosing = enclosing;
    if indexed {
        p.spans = Some(Vec::new());
    }
    let read = p.literal().map(|value| (value, p.pos));
    let blanks = match read {
        Ok(_) => p.blanks.take().unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let keys_once = read.is_ok() && !p.repeats;
    // The index serves the locator only where the locator would find the same places: each key
    // written once, as it reads keys.
    let index = p
        .spans
        .take()
        .filter(|_| keys_once && p.plain)
        .map(|spans| LiteralIndex { spans });
    BlankRead {
        read,
        blanks,
        facts: Facts { keys_once, index },
    }
}

/// One step from a literal's root towards a value inside it: an object's key (an array-index key
/// as its decimal text, as the value's object stores it) or an array's index.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// A value of a literal that holds some of the edits given to [`edited_values`].
#[derive(Debug, PartialEq)]
pub(crate) struct Held {
    /// Where the value is in the literal's value.
    pub(crate) path: Vec<Step>,
    /// Its bytes in the text before the edits: from its first character (an opening bracket, a
    /// quote, a sign or the first of a scalar) to just after its last.
    pub(crate) span: Range<usize>,
    /// How many objects and arrays enclose it.
    pub(crate) enclosing: usize,
    /// The indices of the edits it holds (a run of the sorted edits).
    pub(crate) edits: Range<usize>,
}

/// The values of the literal `literal` (the byte range of `source` from its opening bracket to
/// just after its closing one) which hold `edits` (byte ranges of `source`, sorted, not
/// overlapping, each strictly inside the literal's brackets), each as deep as it can be: the
/// innermost value whose text holds an edit whole (an insertion at either end of a value is its
/// container's), unless a key on the way to it is written twice in its object (a repeated key's
/// value is its last one, so an edit of another makes no change there): then that object. In the
/// order of `source`, not overlapping; no edit is outside them. So the literal with the edits
/// applied is the literal with each of these values replaced by what its edited text reads as.
///
/// The literal must be one [`read_literal`] accepts, and `blanked` the aligned blanking of
/// `source` (comments and the text of strings turned into spaces at the same offsets) that the
/// scan made: values are skipped on it by their brackets and quotes. `None` when the text is not
/// as expected or an edit is not inside the literal.
///
/// `keys_once`: the reader found that no object of the literal writes a key twice
/// ([`MainLiteral::keys_once`]). Then, as in an array, no member after the ones that
/// hold the edits can change which value holds them, and an object's members are read only
/// until the last edit is passed (an edit at the top of `main`, such as its `tags`, reads a few
/// members instead of all of them).
pub(crate) fn edited_values(
    source: &str,
    blanked: &str,
    literal: Range<usize>,
    edits: &[Range<usize>],
    keys_once: bool,
) -> Option<Vec<Held>> {
    let inside = edits
        .iter()
        .all(|e| literal.start < e.start && e.start <= e.end && e.end < literal.end);
    let sorted = edits.windows(2).all(|w| w[0].end <= w[1].start);
    let bracket = matches!(blanked.as_bytes().get(literal.start), Some(b'{' | b'['));
    if source.len() != blanked.len() || edits.is_empty() || !inside || !sorted || !bracket {
        return None;
    }
    let walk = Walk {
        src: source,
        blanked: blanked.as_bytes(),
        keys_once,
    };
    let mut out = Vec::new();
    walk.visit(literal, 0, edits, 0, &mut Vec::new(), &mut out)?;
    Some(out)
}

/// The walk of [`edited_values`] over one text and its blanking.
struct Walk<'a> {
    src: &'a str,
    blanked: &'a [u8],
    /// Whether no object of the literal writes a key twice: its members need not be read past
    /// the edits.
    keys_once: bool,
}

impl Walk<'_> {
    /// The end of the value that starts at `p`'s position, where `p` is then left: a bracketed
    /// value ends at its matching bracket and a string at its closing quote (found on the
    /// blanking, where brackets and quotes inside strings and comments are spaces), any other
    /// scalar where the reader ends it.
    fn value_end(&self, p: &mut Parser<'_>) -> Option<usize> {
        let at = p.pos;
        let end = match *self.blanked.get(at)? {
            b'{' | b'[' => {
                let (mut depth, mut i) = (0usize, at);
                loop {
                    i = crate::bytes::next_bracket(self.blanked, i)?;
                    if matches!(self.blanked[i], b'{' | b'[') {
                        depth += 1;
                    } else {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            break i + 1;
                        }
                    }
                    i += 1;
                }
            }
            q @ (b'\'' | b'"' | b'`') => at + 2 + memchr::memchr(q, self.blanked.get(at + 1..)?)?,
            _ => {
                p.scalar().ok()?;
                p.pos
            }
        };
        p.pos = end;
        Some(end)
    }

    /// Finds the values of the object or array `span` (enclosed by `enclosing` others, at `path`)
    /// that hold `edits` (the run of the sorted edits from index `first`), pushing them to `out`.
    fn visit(
        &self,
        span: Range<usize>,
        enclosing: usize,
        edits: &[Range<usize>],
        first: usize,
        path: &mut Vec<Step>,
        out: &mut Vec<Held>,
    ) -> Option<()> {
        let object = self.blanked.get(span.start) == Some(&b'{');
        let close = if object { b'}' } else { b']' };
        let mut p = Parser::new(self.src, span.start + 1);
        p.skip_trivia().ok()?;
        let mut children: Vec<(Step, Range<usize>)> = Vec::new();
        // The members after the one that reaches past the last edit tell nothing when no key
        // can come again (always so in an array); the literal was read whole, so it is closed.
        let last_edit = edits.last().map_or(0, |e| e.end);
        let read_all = object && !self.keys_once;
        while p.peek() != Some(close) {
            if !read_all && children.last().is_some_and(|(_, r)| r.end >= last_edit) {
                break;
            }
            let step = if object {
                match p.key().ok()? {
                    Key::Index(n) => Step::Key(n.to_string()),
                    Key::Name(k) => Step::Key(k),
                }
            } else {
                Step::Index(children.len())
            };
            let start = p.pos;
            let end = self.value_end(&mut p)?;
            children.push((step, start..end));
            p.skip_trivia().ok()?;
            match p.peek() {
                Some(b',') => {
                    p.pos += 1;
                    p.skip_trivia().ok()?;
                }
                Some(c) if c == close => {}
                _ => return None,
            }
        }
        if p.peek() == Some(close) && p.pos + 1 != span.end {
            return None;
        }
        // The child holding each edit, in order; none for one of them, or a child under a
        // repeated key, and this value is the one the edits are in.
        let holds = |r: &Range<usize>, e: &Range<usize>| {
            r.start <= e.start
                && e.end <= r.end
                && !(e.is_empty() && (e.start == r.start || e.start == r.end))
        };
        let mut groups: Vec<(usize, Range<usize>)> = Vec::new();
        let mut k = 0;
        for (i, e) in edits.iter().enumerate() {
            while k < children.len() && children[k].1.end < e.end {
                k += 1;
            }
            let Some((step, _)) = children.get(k).filter(|(_, r)| holds(r, e)) else {
                groups.clear();
                break;
            };
            let repeated = object && children.iter().filter(|(s, _)| s == step).count() > 1;
            if repeated {
                groups.clear();
                break;
            }
            match groups.last_mut() {
                Some((last, run)) if *last == k => run.end = i + 1,
                _ => groups.push((k, i..i + 1)),
            }
        }
        if groups.is_empty() {
            out.push(Held {
                path: path.clone(),
                span,
                enclosing,
                edits: first..first + edits.len(),
            });
            return Some(());
        }
        for (k, run) in groups {
            let (step, r) = children.get(k)?;
            let held = edits.get(run.clone())?;
            path.push(step.clone());
            let deeper = matches!(self.blanked.get(r.start), Some(b'{' | b'['))
                && held.iter().all(|e| r.start < e.start && e.end < r.end);
            let run = first + run.start..first + run.end;
            if deeper {
                self.visit(r.clone(), enclosing + 1, held, run.start, path, out)?;
            } else {
                out.push(Held {
                    path: path.clone(),
                    span: r.clone(),
                    enclosing: enclosing + 1,
                    edits: run,
                });
            }
            path.pop();
        }
        Some(())
    }
}

/// JavaScript's `Number.prototype.toString()` (radix 10); see [`flowmcp_spec::js::number_to_string`].
pub use flowmcp_spec::js::number_to_string as js_number_to_string;

/// The array index named by `key`: a canonical decimal integer `0 ≤ n < 2^32 − 1` (`"0"`, `"7"`, not
/// `"07"`, `"-1"` or `"4294967295"`). JavaScript orders such keys first, ascending.
pub fn array_index(key: &str) -> Option<u32> {
    let b = key.as_bytes();
    if b.is_empty() || b.len() > 10 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if b.len() > 1 && b.first() == Some(&b'0') {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    u32::try_from(n).ok().filter(|&n| n != u32::MAX)
}

// ---------------------------------------------------------------------------------------------------
// Finding the declaration in the blanked text
// ---------------------------------------------------------------------------------------------------

/// The offset in `source` of the `export` of the only top-level `export const NAME = {`/`[` found in
/// `blanked`.
fn find_declaration(source: &str, blanked: &str, name: &str) -> Result<usize, Decline> {
    let bb = blanked.as_bytes();
    // The candidates are the few `export`s (found by a vectorised search); the bracket depth is
    // counted only up to the declarations among them, not over the whole text.
    let mut depth: i64 = 0;
    let mut counted = 0;
    let mut found: Option<usize> = None;
    for i in memchr::memmem::find_iter(bb, b"export") {
        if !blanked_declaration(blanked, i, name) {
            continue;
        }
        depth += bb
            .get(counted..i)
            .unwrap_or_default()
            .iter()
            .map(|&c| i64::from(BRACKET_DEPTH[usize::from(c)]))
            .sum::<i64>();
        counted = i;
        if depth != 0 {
            continue;
        }
        if found.is_some() {
            return Err(Decline {
                reason: Reason::Ambiguous,
                at: 0,
            });
        }
        found = Some(i);
    }
    let Some(at) = found else {
        return Err(Decline {
            reason: Reason::NoDeclaration,
            at: 0,
        });
    };
    let placement = Decline {
        reason: Reason::Placement,
        at: 0,
    };
    let mapped = if source.len() == blanked.len() {
        // No multi-byte character was blanked: offsets agree.
        at
    } else {
        let chars = blanked.get(..at).ok_or(placement)?.chars().count();
        source
            .char_indices()
            .nth(chars)
            .map(|(o, _)| o)
            .ok_or(placement)?
    };
    Ok(mapped)
}

/// How each byte changes the bracket depth: `{ [ (` open, `} ] )` close.
const BRACKET_DEPTH: [i8; 256] = {
    let mut t = [0i8; 256];
    t[b'{' as usize] = 1;
    t[b'[' as usize] = 1;
    t[b'(' as usize] = 1;
    t[b'}' as usize] = -1;
    t[b']' as usize] = -1;
    t[b')' as usize] = -1;
    t
};

/// True when `blanked` holds, at `at`, `export const NAME = {` (or `[`) with only whitespace before it
/// on its line.
fn blanked_declaration(blanked: &str, at: usize, name: &str) -> bool {
    let b = blanked.as_bytes();
    // Only whitespace between the start of the line and `export`.
    let line_start = b
        .get(..at)
        .and_then(|before| before.iter().rposition(|&c| c == b'\n' || c == b'\r'))
        .map_or(0, |p| p + 1);
    let mut j = line_start;
    while j < at {
        match space_at(b, j) {
            Some((len, _)) => j += len,
            None => return false,
        }
    }
    if j != at {
        return false;
    }
    let Some(j) = word(b, at, b"export") else {
        return false;
    };
    let Some(j) = word(b, skip_spaces(b, j), b"const") else {
        return false;
    };
    let Some(j) = word(b, skip_spaces(b, j), name.as_bytes()) else {
        return false;
    };
    let j = skip_spaces(b, j);
    if b.get(j) != Some(&b'=') || matches!(b.get(j + 1), Some(b'=' | b'>')) {
        return false;
    }
    matches!(b.get(skip_spaces(b, j + 1)), Some(b'{' | b'['))
}

/// The offset after `w` when the whole identifier at `at` is `w`.
fn word(b: &[u8], at: usize, w: &[u8]) -> Option<usize> {
    let end = at + w.len();
    if w.is_empty() || b.get(at..end)? != w {
        return None;
    }
    match b.get(end) {
        Some(&c) if is_ascii_ident(c) || c == b'\\' || (c >= 0x80 && !is_space_at(b, end)) => None,
        _ => Some(end),
    }
}

/// How many bytes at the start of `rest` a string quoted by `quote` takes as they are: up to the
/// first quote, backslash, line break (`\n`, `\r`) or NUL, or all of `rest`. Exactly
/// `rest.iter().position(|&c| matches!(c, b'\\' | b'\n' | b'\r' | 0) || c == quote)`.
fn plain_run(rest: &[u8], quote: u8) -> usize {
    crate::bytes::run_before(rest, [quote, b'\\', b'\n'], [b'\r', 0], false)
}

/// Skips whitespace (no comments: in blanked text they are spaces already).
fn skip_spaces(b: &[u8], mut at: usize) -> usize {
    while let Some((len, _)) = space_at(b, at) {
        at += len;
    }
    at
}

// ---------------------------------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------------------------------

fn is_ascii_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

/// Non-ASCII characters accepted in identifier keys: letters that are `ID_Start` (hence also
/// `ID_Continue`) in every Unicode version, so QuickJS's tables agree whatever their version.
fn is_safe_unicode_ident(c: char) -> bool {
    matches!(c,
        '\u{AA}' | '\u{B5}' | '\u{BA}'
        | '\u{C0}'..='\u{D6}'
        | '\u{D8}'..='\u{F6}'
        | '\u{F8}'..='\u{24F}'
        | '\u{1E00}'..='\u{1EFF}')
}

/// The JavaScript whitespace or line terminator at `at`: its length in bytes and whether it is a line
/// terminator. Exactly QuickJS's set: TAB, LF, VT, FF, CR, space, U+00A0, U+1680, U+2000–U+200A,
/// U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF.
fn space_at(b: &[u8], at: usize) -> Option<(usize, bool)> {
    match *b.get(at)? {
        b' ' | b'\t' | 0x0B | 0x0C => Some((1, false)),
        b'\n' | b'\r' => Some((1, true)),
        0xC2 => (b.get(at + 1) == Some(&0xA0)).then_some((2, false)),
        0xE1 => (b.get(at + 1..at + 3) == Some(&[0x9A, 0x80])).then_some((3, false)),
        0xE2 => match b.get(at + 1..at + 3)? {
            [0x80, 0x80..=0x8A | 0xAF] | [0x81, 0x9F] => Some((3, false)),
            [0x80, 0xA8 | 0xA9] => Some((3, true)),
            _ => None,
        },
        0xE3 => (b.get(at + 1..at + 3) == Some(&[0x80, 0x80])).then_some((3, false)),
        0xEF => (b.get(at + 1..at + 3) == Some(&[0xBB, 0xBF])).then_some((3, false)),
        _ => None,
    }
}

fn is_space_at(b: &[u8], at: usize) -> bool {
    space_at(b, at).is_some()
}

/// True at U+2028 or U+2029.
fn is_ls_ps(b: &[u8], at: usize) -> bool {
    matches!(b.get(at..at + 3), Some([0xE2, 0x80, 0xA8 | 0xA9]))
}

fn hex_value(c: u8) -> Option<u32> {
    (c as char).to_digit(16)
}

// ---------------------------------------------------------------------------------------------------
// The reader
// ---------------------------------------------------------------------------------------------------

/// A key waiting for its value.
enum Key {
    Index(u32),
    Name(String),
}

impl Key {
    fn from_string(s: String) -> Key {
        match array_index(&s) {
            Some(n) => Key::Index(n),
            None => Key::Name(s),
        }
    }
}

/// An open container. Elements and entries of all open containers live on two shared stacks, so
/// each finished array or object is allocated once, at its exact size.
enum Frame {
    /// An array whose elements start at this index of the value stack, and its place among the
    /// spans when they are kept.
    Array(usize, usize),
    /// An object whose entries start at this index of the entry stack, its place among the spans,
    /// and the key waiting for its value.
    Object(usize, usize, Option<Key>),
}

/// Builds an object from its entries in source order: array-index keys first, ascending, then the
/// other keys in first-insertion order; a repeated key keeps its first position and its last value.
fn build_object(entries: impl ExactSizeIterator<Item = (Key, Value)>) -> Value {
    let mut map = Map::with_capacity(entries.len());
    let mut indexed: Vec<(u32, Value)> = Vec::new();
    for (key, value) in entries {
        match key {
            Key::Index(n) => indexed.push((n, value)),
            Key::Name(k) => {
                // `Map` keeps insertion order (`preserve_order`): `insert` on a present key keeps
                // its position and takes the new value.
                map.insert(k, value);
            }
        }
    }
    if indexed.is_empty() {
        return Value::Object(map);
    }
    // A stable sort keeps repeated indices in source order, so the last value is inserted last.
    indexed.sort_by_key(|(n, _)| *n);
    let mut ordered = Map::with_capacity(indexed.len() + map.len());
    for (n, value) in indexed {
        ordered.insert(n.to_string(), value);
    }
    for (k, value) in map {
        ordered.insert(k, value);
    }
    Value::Object(ordered)
}

struct Parser<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    /// Scratch space for numbers with separators.
    digits: String,
    /// When kept, the byte ranges the scan's blanker turns into spaces (all but their line
    /// breaks): the text of each string and template (not its quotes) and each comment whole.
    blanks: Option<Vec<Range<usize>>>,
    /// How many objects and arrays enclose the value being read (it is part of a larger literal),
    /// which count towards [`MAX_NESTING`].
    enclosing: usize,
    /// Whether an object read so far wrote a key twice (its value has fewer members than it
    /// wrote).
    repeats: bool,
    /// When kept, where each value starts and how many values its span holds, itself included, in
    /// the order the values start ([`LiteralIndex`]).
    spans: Option<Vec<(usize, usize)>>,
    /// Whether every key so far was written as the text locator reads it: an identifier, or a
    /// string without a backslash, neither an array index; and no trivia held a character
    /// beyond ASCII ([`LiteralIndex`]).
    plain: bool,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, pos: usize) -> Self {
        Parser {
            src,
            b: src.as_bytes(),
            pos,
            digits: String::new(),
            blanks: None,
            enclosing: 0,
            repeats: false,
            spans: None,
            plain: true,
        }
    }

    /// The literal that starts with the `{` or `[` at the position, and the offset after it.
    fn bracketed(&mut self) -> LiteralRead {
        if !matches!(self.peek(), Some(b'{' | b'[')) {
            return self.fail(Reason::Unexpected);
        }
        let value = self.literal()?;
        Ok((value, self.pos))
    }

    /// Notes `range` as one the blanker blanks, when such ranges are kept.
    fn blanked(&mut self, range: Range<usize>) {
        if let Some(blanks) = self.blanks.as_mut() {
            blanks.push(range);
        }
    }

    fn fail<T>(&self, reason: Reason) -> Result<T, Decline> {
        Err(Decline {
            reason,
            at: self.pos,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.b.get(self.pos + offset).copied()
    }

    /// The source text from `from` to the current position.
    fn slice(&self, from: usize) -> Result<&'a str, Decline> {
        match self.src.get(from..self.pos) {
            Some(s) => Ok(s),
            None => self.fail(Reason::Unexpected),
        }
    }

    /// Skips whitespace and comments; returns whether a line break was among them (a raw LF, CR,
    /// U+2028 or U+2029, or one inside a block comment).
    #[inline]
    fn skip_trivia(&mut self) -> Result<bool, Decline> {
        // Most calls find a token at once, or after one space (`key: value`): answered here,
        // without the call. A token byte is ASCII above the space, but not `/` (a comment may
        // start there).
        let token = |c: Option<&u8>| c.is_some_and(|&c| c > b' ' && c < 0x80 && c != b'/');
        if token(self.b.get(self.pos)) {
            return Ok(false);
        }
        if self.b.get(self.pos) == Some(&b' ') && token(self.b.get(self.pos + 1)) {
            self.pos += 1;
            return Ok(false);
        }
        self.skip_trivia_rest()
    }

    /// [`Parser::skip_trivia`] past its two quick answers.
    #[inline(never)]
    fn skip_trivia_rest(&mut self) -> Result<bool, Decline> {
        let mut line_break = false;
        'trivia: loop {
            // ASCII blanks and line breaks first (indentation, mostly), then the rest of the set.
            match self.peek() {
                Some(b' ') => {
                    self.pos = crate::bytes::after_spaces(self.b, self.pos);
                    continue;
                }
                Some(b'\t') => {
                    self.pos += 1;
                    continue;
                }
                Some(b'\n' | b'\r') => {
                    self.pos += 1;
                    line_break = true;
                    continue;
                }
                // Any other ASCII byte but `/`, VT and FF (the rest of `space_at`'s ASCII set)
                // ends the trivia: the token that follows, most of the time.
                Some(c) if c < 0x80 && !matches!(c, b'/' | 0x0B | 0x0C) => return Ok(line_break),
                None => return Ok(line_break),
                _ => {}
            }
            if let Some((len, lt)) = space_at(self.b, self.pos) {
                // A space beyond ASCII: the text locator's idea of a space may differ.
                self.plain &= len == 1;
                self.pos += len;
                line_break |= lt;
                continue;
            }
            if self.peek() != Some(b'/') {
                return Ok(line_break);
            }
            match self.peek_at(1) {
                Some(b'/') => {
                    let open = self.pos;
                    self.pos += 2;
                    while let Some(c) = self.peek() {
                        if c == b'\n' || c == b'\r' {
                            break;
                        }
                        if c == 0 {
                            return self.fail(Reason::Nul);
                        }
                        if is_ls_ps(self.b, self.pos) {
                            // QuickJS ends the comment here but does not count the line break.
                            self.blanked(open..self.pos);
                            self.pos += 3;
                            continue 'trivia;
                        }
                        self.pos += 1;
                    }
                    self.blanked(open..self.pos);
                }
                Some(b'*') => {
                    let open = self.pos;
                    self.pos += 2;
                    loop {
                        match self.peek() {
                            None => {
                                self.pos = open;
                                return self.fail(Reason::Unterminated);
                            }
                            Some(b'*') if self.peek_at(1) == Some(b'/') => {
                                self.pos += 2;
                                self.blanked(open..self.pos);
                                break;
                            }
                            Some(b'\n' | b'\r') => {
                                line_break = true;
                                self.pos += 1;
                            }
                            Some(0) => return self.fail(Reason::Nul),
                            Some(_) => {
                                if is_ls_ps(self.b, self.pos) {
                                    line_break = true;
                                }
                                self.pos += 1;
                            }
                        }
                    }
                }
                _ => return Ok(line_break),
            }
        }
    }

    /// Consumes the identifier `w` (whole word) or fails with `Placement`.
    fn expect_word(&mut self, w: &str) -> Result<(), Decline> {
        match word(self.b, self.pos, w.as_bytes()) {
            Some(end) => {
                self.pos = end;
                Ok(())
            }
            None => self.fail(Reason::Placement),
        }
    }

    /// `export const NAME =` from the current position; returns the offset of the literal's bracket.
    fn declaration(&mut self, name: &str) -> Result<usize, Decline> {
        self.expect_word("export")?;
        self.skip_trivia()?;
        self.expect_word("const")?;
        self.skip_trivia()?;
        self.expect_word(name)?;
        self.skip_trivia()?;
        if self.peek() != Some(b'=') || matches!(self.peek_at(1), Some(b'=' | b'>')) {
            return self.fail(Reason::Placement);
        }
        self.pos += 1;
        self.skip_trivia()?;
        if !matches!(self.peek(), Some(b'{' | b'[')) {
            return self.fail(Reason::Placement);
        }
        Ok(self.pos)
    }

    /// What follows the literal must end the declaration.
    fn tail(&mut self) -> Result<(), Decline> {
        let line_break = self.skip_trivia()?;
        match self.peek() {
            None | Some(b';') => Ok(()),
            Some(c) if line_break && is_ascii_ident_start(c) => {
                let start = self.pos;
                while self.peek().is_some_and(is_ascii_ident) {
                    self.pos += 1;
                }
                let w = self.slice(start)?;
                let next = self.peek();
                self.pos = start;
                if w == "in" || w == "instanceof" || next == Some(b'\\') {
                    self.fail(Reason::Tail)
                } else {
                    Ok(())
                }
            }
            Some(_) => self.fail(Reason::Tail),
        }
    }

    /// Reads the literal at the current position (`{`, `[` or a scalar), without recursion.
    fn literal(&mut self) -> Result<Value, Decline> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut values: Vec<Value> = Vec::new();
        let mut entries: Vec<(Key, Value)> = Vec::new();
        'value: loop {
            // A value starts here (trivia already skipped).
            let span = match self.spans.as_mut() {
                Some(spans) => {
                    spans.push((self.pos, 1));
                    spans.len() - 1
                }
                None => 0,
            };
            let mut value = match self.peek() {
                Some(b'{') => {
                    if stack.len() + self.enclosing >= MAX_NESTING {
                        return self.fail(Reason::TooDeep);
                    }
                    self.pos += 1;
                    self.skip_trivia()?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Value::Object(Map::new())
                    } else {
                        let key = self.key()?;
                        stack.push(Frame::Object(entries.len(), span, Some(key)));
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    if stack.len() + self.enclosing >= MAX_NESTING {
                        return self.fail(Reason::TooDeep);
                    }
                    self.pos += 1;
                    self.skip_trivia()?;
                    match self.peek() {
                        Some(b']') => {
                            self.pos += 1;
                            Value::Array(Vec::new())
                        }
                        Some(b',') => return self.fail(Reason::Hole),
                        _ => {
                            stack.push(Frame::Array(values.len(), span));
                            continue 'value;
                        }
                    }
                }
                _ => self.scalar()?,
            };
            // A value ended: attach it to its container and close finished containers.
            loop {
                let Some(top) = stack.last_mut() else {
                    return Ok(value);
                };
                self.skip_trivia()?;
                let close = match top {
                    Frame::Array(..) => {
                        values.push(value);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_trivia()?;
                                match self.peek() {
                                    Some(b']') => true,
                                    Some(b',') => return self.fail(Reason::Hole),
                                    _ => false,
                                }
                            }
                            Some(b']') => true,
                            None => return self.fail(Reason::Unterminated),
                            Some(_) => return self.fail(Reason::Unexpected),
                        }
                    }
                    Frame::Object(_, _, key) => {
                        if let Some(key) = key.take() {
                            entries.push((key, value));
                        }
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_trivia()?;
                                if self.peek() == Some(b'}') {
                                    true
                                } else {
                                    *key = Some(self.key()?);
                                    false
                                }
                            }
                            Some(b'}') => true,
                            None => return self.fail(Reason::Unterminated),
                            Some(_) => return self.fail(Reason::Unexpected),
                        }
                    }
                };
                if !close {
                    continue 'value;
                }
                self.pos += 1;
                let (closed, span) = match stack.pop() {
                    Some(Frame::Array(start, span)) => (
                        Value::Array(values.drain(start.min(values.len())..).collect()),
                        span,
                    ),
                    Some(Frame::Object(start, span, _)) => {
                        let written = entries.len().saturating_sub(start);
                        let object = build_object(entries.drain(start.min(entries.len())..));
                        self.repeats |= object.as_object().map_or(0, Map::len) != written;
                        (object, span)
                    }
                    None => return self.fail(Reason::Unexpected),
                };
                // The container's span holds every value read since it opened.
                if let Some(spans) = self.spans.as_mut() {
                    let held = spans.len() - span;
                    if let Some(s) = spans.get_mut(span) {
                        s.1 = held;
                    }
                }
                value = closed;
            }
        }
    }

    /// A string, template, number, `true`, `false` or `null`.
    fn scalar(&mut self) -> Result<Value, Decline> {
        match self.peek() {
            Some(q @ (b'"' | b'\'')) => Ok(Value::String(self.string(q)?)),
            Some(b'`') => Ok(Value::String(self.template()?)),
            Some(sign @ (b'-' | b'+')) => {
                self.pos += 1;
                self.skip_trivia()?;
                if !self.at_number() {
                    return self.fail(Reason::Unexpected);
                }
                let n = self.number()?;
                Ok(number_value(if sign == b'-' { -n } else { n }))
            }
            _ if self.at_number() => Ok(number_value(self.number()?)),
            Some(c) if is_ascii_ident_start(c) => {
                let start = self.pos;
                while self.peek().is_some_and(is_ascii_ident) {
                    self.pos += 1;
                }
                let value = match self.slice(start)? {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    _ => {
                        self.pos = start;
                        return self.fail(Reason::Identifier);
                    }
                };
                Ok(value)
            }
            None => self.fail(Reason::Unterminated),
            Some(_) => self.fail(Reason::Unexpected),
        }
    }

    /// A property key and its `:`, leaving the position at the value.
    fn key(&mut self) -> Result<Key, Decline> {
        let start = self.pos;
        let key = match self.peek() {
            Some(q @ (b'"' | b'\'')) => {
                let text = self.string(q)?;
                // Asked only while the index is kept, the one reader of `plain`.
                if self.spans.is_some()
                    && self
                        .b
                        .get(start..self.pos)
                        .is_none_or(|raw| raw.contains(&b'\\'))
                {
                    self.plain = false;
                }
                Key::from_string(text)
            }
            _ if self.at_number() => {
                self.plain = false;
                Key::from_string(js_number_to_string(self.number()?))
            }
            Some(_) => {
                let name = self.identifier()?;
                Key::Name(name.to_string())
            }
            None => return self.fail(Reason::Unterminated),
        };
        match &key {
            Key::Name(k) if k == "__proto__" => {
                self.pos = start;
                return self.fail(Reason::Proto);
            }
            Key::Index(_) => self.plain = false,
            Key::Name(_) => {}
        }
        self.skip_trivia()?;
        if self.peek() != Some(b':') {
            return self.fail(Reason::NotColon);
        }
        self.pos += 1;
        self.skip_trivia()?;
        Ok(key)
    }

    /// An identifier key: ASCII identifier characters and the safe Latin letters.
    fn identifier(&mut self) -> Result<&'a str, Decline> {
        let start = self.pos;
        // The ASCII run first, counted on the slice (most keys are nothing else).
        let rest = self.b.get(start..).unwrap_or_default();
        self.pos += rest.iter().take_while(|&&c| is_ascii_ident(c)).count();
        while let Some(c) = self.peek() {
            if is_ascii_ident(c) {
                self.pos += 1;
            } else if c >= 0x80 {
                match self.src.get(self.pos..).and_then(|t| t.chars().next()) {
                    Some(ch) if is_safe_unicode_ident(ch) => self.pos += ch.len_utf8(),
                    _ => break,
                }
            } else {
                break;
            }
        }
        let first_ok = self.b.get(start).is_some_and(|&c| !c.is_ascii_digit());
        let next_ok = match self.peek() {
            Some(b'\\') => false,
            Some(c) if c >= 0x80 => is_space_at(self.b, self.pos),
            _ => true,
        };
        if self.pos == start || !first_ok || !next_ok {
            return self.fail(Reason::Key);
        }
        self.slice(start)
    }

    /// True when a numeric literal starts here (a digit, or `.` and a digit).
    fn at_number(&self) -> bool {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => true,
            Some(b'.') => self.peek_at(1).is_some_and(|c| c.is_ascii_digit()),
            _ => false,
        }
    }

    /// Digits with numeric separators, starting at a digit accepted by `is_digit`. Returns whether a
    /// separator was seen.
    fn digits(&mut self, is_digit: impl Fn(u8) -> bool) -> Result<bool, Decline> {
        let mut separated = false;
        loop {
            while self.peek().is_some_and(&is_digit) {
                self.pos += 1;
            }
            if self.peek() == Some(b'_') && self.peek_at(1).is_some_and(&is_digit) {
                self.pos += 1;
                separated = true;
                continue;
            }
            if self.peek() == Some(b'_') {
                return self.fail(Reason::Number);
            }
            return Ok(separated);
        }
    }

    /// An unsigned numeric literal (at a digit, or `.` and a digit).
    fn number(&mut self) -> Result<f64, Decline> {
        let start = self.pos;
        let radix_bits = match (self.peek(), self.peek_at(1)) {
            (Some(b'0'), Some(b'x' | b'X')) => Some(4),
            (Some(b'0'), Some(b'o' | b'O')) => Some(3),
            (Some(b'0'), Some(b'b' | b'B')) => Some(1),
            _ => None,
        };
        let value = if let Some(bits) = radix_bits {
            self.pos += 2;
            self.radix_integer(bits)?
        } else {
            self.decimal(start)?
        };
        // "The SourceCharacter immediately following a NumericLiteral must not be an IdentifierStart
        // or DecimalDigit" (and `n` would make it a BigInt).
        if self.peek().is_some_and(|c| is_ascii_ident(c) || c == b'\\') {
            return self.fail(Reason::Number);
        }
        if !value.is_finite() {
            self.pos = start;
            return self.fail(Reason::Number);
        }
        Ok(value)
    }

    /// The digits of a `0x`/`0o`/`0b` literal (after the prefix), rounded to nearest, ties to even.
    fn radix_integer(&mut self, bits: u32) -> Result<f64, Decline> {
        let radix = 1u32 << bits;
        let is_digit = |c: u8| (c as char).is_digit(radix);
        if !self.peek().is_some_and(is_digit) {
            return self.fail(Reason::Number);
        }
        let digits_start = self.pos;
        self.digits(is_digit)?;
        let text = self.slice(digits_start)?;
        // Keep at least 121 significant bits exactly; fold the rest into a sticky bit, which sits far
        // below the 53-bit rounding position.
        let mut mantissa: u128 = 0;
        let mut shift: i32 = 0;
        let mut sticky = false;
        for d in text.bytes().filter_map(|c| (c as char).to_digit(radix)) {
            if mantissa < (1u128 << 120) {
                mantissa = (mantissa << bits) | u128::from(d);
            } else {
                shift = shift.saturating_add(bits as i32);
                sticky |= d != 0;
            }
        }
        if sticky {
            mantissa |= 1;
        }
        // `as` rounds to nearest, ties to even; scaling by a power of two is exact (or overflows to
        // infinity, which is declined).
        Ok((mantissa as f64) * 2f64.powi(shift))
    }

    /// A decimal literal from `start` (at a digit or `.`).
    fn decimal(&mut self, start: usize) -> Result<f64, Decline> {
        let mut separated = false;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                // `017`, `08` (legacy, a syntax error in modules) and `0_1` are declined.
                if self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'_') {
                    return self.fail(Reason::Number);
                }
            }
            Some(c) if c.is_ascii_digit() => separated |= self.digits(|c| c.is_ascii_digit())?,
            _ => {}
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            match self.peek() {
                Some(c) if c.is_ascii_digit() => {
                    separated |= self.digits(|c| c.is_ascii_digit())?;
                }
                Some(b'_') => return self.fail(Reason::Number),
                _ => {}
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return self.fail(Reason::Number);
            }
            separated |= self.digits(|c| c.is_ascii_digit())?;
        }
        let text = self.slice(start)?;
        if !within_quickjs_digits(text) {
            self.pos = start;
            return self.fail(Reason::Number);
        }
        let parsed = if separated {
            self.digits.clear();
            self.digits.extend(text.chars().filter(|&c| c != '_'));
            self.digits.parse::<f64>()
        } else {
            text.parse::<f64>()
        };
        match parsed {
            Ok(v) => Ok(v),
            Err(_) => self.fail(Reason::Number),
        }
    }

    /// A `'…'` or `"…"` literal at the current position.
    fn string(&mut self, quote: u8) -> Result<String, Decline> {
        self.pos += 1;
        let text_start = self.pos;
        let mut out = String::new();
        // A high surrogate waiting for its low half.
        let mut high: Option<u32> = None;
        let mut run = self.pos;
        loop {
            let Some(c) = self.peek() else {
                return self.fail(Reason::Unterminated);
            };
            if c == quote {
                if high.is_some() {
                    return self.fail(Reason::Surrogate);
                }
                let rest = self.slice(run)?;
                // A string without escapes (most of them) is allocated once, at its size.
                let out = if out.is_empty() {
                    rest.to_owned()
                } else {
                    out.push_str(rest);
                    out
                };
                self.blanked(text_start..self.pos);
                self.pos += 1;
                return Ok(out);
            }
            match c {
                b'\\' => {
                    out.push_str(self.slice(run)?);
                    self.pos += 1;
                    if let Some(unit) = self.escape()? {
                        self.push_unit(&mut out, &mut high, unit)?;
                    }
                    run = self.pos;
                }
                b'\n' | b'\r' => return self.fail(Reason::Unterminated),
                0 => return self.fail(Reason::Nul),
                _ if high.is_some() => return self.fail(Reason::Surrogate),
                // An ordinary byte: the bytes up to the next that is not are taken at once.
                _ => self.pos += plain_run(self.b.get(self.pos..).unwrap_or_default(), quote),
            }
        }
    }

    /// Appends one escaped code unit or code point, pairing surrogates.
    fn push_unit(
        &self,
        out: &mut String,
        high: &mut Option<u32>,
        unit: u32,
    ) -> Result<(), Decline> {
        let is_low = (0xDC00..=0xDFFF).contains(&unit);
        let code_point = match high.take() {
            Some(h) if is_low => 0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00),
            Some(_) => return self.fail(Reason::Surrogate),
            None if (0xD800..=0xDBFF).contains(&unit) => {
                *high = Some(unit);
                return Ok(());
            }
            None if is_low => return self.fail(Reason::Surrogate),
            None => unit,
        };
        match char::from_u32(code_point) {
            Some(ch) => {
                out.push(ch);
                Ok(())
            }
            None => self.fail(Reason::Escape),
        }
    }

    /// The escape after a backslash: the code unit or code point it stands for, or `None` for a line
    /// continuation.
    fn escape(&mut self) -> Result<Option<u32>, Decline> {
        let Some(c) = self.peek() else {
            return self.fail(Reason::Unterminated);
        };
        let unit = match c {
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => 0x0A,
            b'r' => 0x0D,
            b't' => 0x09,
            b'v' => 0x0B,
            b'0' if !self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => 0,
            b'0'..=b'9' => return self.fail(Reason::Escape),
            b'x' => {
                let hi = self.peek_at(1).and_then(hex_value);
                let lo = self.peek_at(2).and_then(hex_value);
                let (Some(hi), Some(lo)) = (hi, lo) else {
                    return self.fail(Reason::Escape);
                };
                self.pos += 3;
                return Ok(Some((hi << 4) | lo));
            }
            b'u' => return self.unicode_escape().map(Some),
            b'\r' => {
                self.pos += 1;
                if self.peek() == Some(b'\n') {
                    self.pos += 1;
                }
                return Ok(None);
            }
            b'\n' => {
                self.pos += 1;
                return Ok(None);
            }
            0 => return self.fail(Reason::Nul),
            _ if c < 0x80 => u32::from(c),
            _ => {
                if is_ls_ps(self.b, self.pos) {
                    self.pos += 3;
                    return Ok(None);
                }
                let Some(ch) = self.src.get(self.pos..).and_then(|t| t.chars().next()) else {
                    return self.fail(Reason::Escape);
                };
                self.pos += ch.len_utf8();
                return Ok(Some(u32::from(ch)));
            }
        };
        self.pos += 1;
        Ok(Some(unit))
    }

    /// `\uHHHH` or `\u{H…}` (the position is at the `u`).
    fn unicode_escape(&mut self) -> Result<u32, Decline> {
        self.pos += 1;
        if self.peek() == Some(b'{') {
            self.pos += 1;
            let mut value: u32 = 0;
            let mut count = 0;
            while let Some(d) = self.peek().and_then(hex_value) {
                value = (value << 4) | d;
                if value > 0x10FFFF {
                    return self.fail(Reason::Escape);
                }
                count += 1;
                self.pos += 1;
            }
            if count == 0 || self.peek() != Some(b'}') {
                return self.fail(Reason::Escape);
            }
            self.pos += 1;
            Ok(value)
        } else {
            let mut value: u32 = 0;
            for i in 0..4 {
                let Some(d) = self.peek_at(i).and_then(hex_value) else {
                    return self.fail(Reason::Escape);
                };
                value = (value << 4) | d;
            }
            self.pos += 4;
            Ok(value)
        }
    }

    /// A template literal without substitutions or backslashes.
    fn template(&mut self) -> Result<String, Decline> {
        self.pos += 1;
        let text_start = self.pos;
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            match self.peek() {
                None => return self.fail(Reason::Unterminated),
                Some(0) => return self.fail(Reason::Nul),
                Some(b'`') => {
                    out.push_str(self.slice(run)?);
                    self.blanked(text_start..self.pos);
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => return self.fail(Reason::Template),
                Some(b'$') if self.peek_at(1) == Some(b'{') => return self.fail(Reason::Template),
                Some(b'\r') => {
                    // CR and CRLF are normalised to LF in template values.
                    out.push_str(self.slice(run)?);
                    out.push('\n');
                    self.pos += 1;
                    if self.peek() == Some(b'\n') {
                        self.pos += 1;
                    }
                    run = self.pos;
                }
                Some(_) => self.pos += 1,
            }
        }
    }
}

/// QuickJS keeps the first [`QUICKJS_DECIMAL_DIGITS`] significant digits of a decimal literal and
/// drops the rest before rounding (`js_atod`), so a longer literal whose dropped digits are not all
/// zero may round differently from the correctly rounded `str::parse`. Such literals are declined.
fn within_quickjs_digits(text: &str) -> bool {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    let mut significant = 0usize;
    for c in mantissa.bytes().filter(u8::is_ascii_digit) {
        if significant == 0 && c == b'0' {
            continue;
        }
        significant += 1;
        if significant > QUICKJS_DECIMAL_DIGITS && c != b'0' {
            return false;
        }
    }
    true
}

/// A finite number as the extractor stores it ([`flowmcp_spec::js::number_value`]).
fn number_value(f: f64) -> Value {
    flowmcp_spec::js::number_value(f).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::{plain_run, read_literal_blanks};

    /// D188: the reader notes an object that writes a key twice, at any depth, index keys by
    /// their number.
    #[test]
    fn i46_the_reader_tells_whether_a_key_is_written_twice() {
        let cases = [
            ("{ a: 1, b: { a: 2 } }", true),
            ("{ a: 1, a: 2 }", false),
            ("{ a: 1, 'a': 2 }", false),
            ("{ 1: 1, '1': 2 }", false),
            ("{ 1: 1, '01': 2, 2: [ { x: 1 }, { x: 2 } ] }", true),
            ("[ { k: [ { k: 1, j: { k: 2, k: 3 } } ] } ]", false),
            ("{ o: {}, p: [], q: { '': 1, ' ': 2 } }", true),
        ];
        for (text, once) in cases {
            let read = read_literal_blanks(text, 0);
            assert!(read.read.is_ok(), "{text}");
            assert_eq!(read.facts.keys_once, once, "{text}");
        }
        // Not read: not known.
        assert!(!read_literal_blanks("{ a: x }", 0).facts.keys_once);
    }

    /// D170: the run of a string's plain bytes is what a byte-by-byte search finds, at every
    /// length around the 16-byte head, for both quotes.
    #[test]
    fn i46_plain_runs_agree_with_a_byte_by_byte_search() {
        let alphabet: &[u8] = b"'\"\\\n\r\0`$ \xc3\xa9\xe2\x80\xa8";
        for text in
            crate::test_texts::texts_with_one_other_byte(0x9e37_79b9_7f4a_7c15, alphabet, 4000)
        {
            for quote in [b'\'', b'"'] {
                let slow = text
                    .iter()
                    .position(|&c| c == quote || matches!(c, b'\\' | b'\n' | b'\r' | 0))
                    .unwrap_or(text.len());
                assert_eq!(plain_run(&text, quote), slow, "{text:?}");
            }
        }
    }
}
