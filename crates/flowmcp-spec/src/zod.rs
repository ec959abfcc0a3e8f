//! The `z` grammar: `z.primitive` and `z.options` of a parameter.
//!
//! A parameter's `z` block (chapter 02) declares a [`Primitive`] such as `string()`,
//! `number()` or `enum(a,b,{{list:field}})` plus a list of [`Options`] such as `min(1)`,
//! `max(100)`, `optional()` or `default(10)`. [`ZType`] combines both and is used for
//! every value that must obey the block: validation rules, test values, fixed values and
//! call inputs.
//!
//! Parsing is tolerant of surrounding whitespace and reports exactly what is wrong with
//! a [`ZodError`]; checking a value reports a [`ZValueError`]. Nothing here panics on
//! any input.
//!
//! The `compat` flag (profile `compat`, RULINGS "real-world options") additionally
//! accepts the `values(a,b)` and `regex(pattern)` options written by catalogs for the
//! JavaScript reference: `values(...)` supplies the values of an `enum()` and
//! `regex(...)` is enforced on strings with JavaScript semantics as far as the `regex`
//! crate allows (see [`JsRegex`]).
//!
//! Enums that still contain unresolved `{{listName:fieldName}}` items accept any string
//! in [`ZType::validate`], because the allowed set is not known yet; resolve them with
//! [`ZType::resolve_lists`] at load time (N-12) to get the strict check.

use std::fmt;

use regex::{Regex, RegexBuilder};
use serde_json::Value;

use crate::js::{number_to_string, number_value};
use crate::placeholder::{InterpolationKind, find_interpolations};
use thiserror::Error;

/// Upper bound, in bytes, for the compiled program and the lazy DFA of a `regex(...)`
/// option ([`RegexBuilder::size_limit`] and [`RegexBuilder::dfa_size_limit`]).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// How many characters of a user-supplied value an error message quotes at most.
const QUOTE_LIMIT: usize = 60;

/// How many allowed values an enum error message lists at most.
const LIST_LIMIT: usize = 20;

const PRIMITIVE_NAMES: [&str; 6] = ["string", "number", "boolean", "enum", "array", "object"];

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// Something is wrong with the text of `z.primitive` or of an entry of `z.options`.
///
/// Option variants carry the 0-based `index` of the entry in `z.options` and its text, so
/// a caller can point at `z.options[index]`. The display text is meant for users.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ZodError {
    /// The primitive is not one of the six known ones (VAL044).
    #[error(
        "unknown primitive \"{text}\"; expected string(), number(), boolean(), enum(...), array() or object()"
    )]
    UnknownPrimitive { text: String },
    /// A known primitive name written without its parentheses, e.g. `string` (VAL044).
    #[error("primitive \"{name}\" is missing its parentheses; write {name}()")]
    MissingParentheses { name: String },
    /// A primitive other than `enum` with something inside its parentheses (VAL044).
    #[error("{name}() takes no argument (found \"{argument}\")")]
    UnexpectedArgument { name: String, argument: String },
    /// A `{{listName:fieldName}}` interpolation outside `enum(...)` (VAL047).
    #[error(
        "list interpolation \"{interpolation}\" is only allowed inside enum(...), not in {name}()"
    )]
    InterpolationOutsideEnum { name: String, interpolation: String },
    /// `enum()` with no value at all (VAL046).
    #[error("enum() needs at least one value, e.g. enum(a,b)")]
    EmptyEnum,
    /// An empty item between commas, e.g. `enum(a,,b)` or `enum(a,)`; `position` is 1-based.
    #[error("enum value #{position} is empty (check for a stray comma)")]
    EmptyEnumValue { position: usize },
    /// An enum item that contains `{{` or `}}` but is not exactly `{{listName:fieldName}}`.
    #[error("\"{item}\" is not a list interpolation; expected {{{{listName:fieldName}}}}")]
    InvalidListInterpolation { item: String },
    /// An empty string in `z.options` (VAL045).
    #[error("option #{position} is empty", position = index + 1)]
    EmptyOption { index: usize },
    /// An option name that is not known (VAL045).
    #[error("unknown option \"{option}\"; expected {expected}")]
    UnknownOption {
        index: usize,
        option: String,
        expected: &'static str,
    },
    /// `values(...)` or `regex(...)` without the compat flag (VAL045).
    #[error(
        "option \"{option}\" is not part of the specification; only the compat profile accepts {name}(...)"
    )]
    CompatOnlyOption {
        index: usize,
        option: String,
        name: &'static str,
    },
    /// A known option with a malformed argument or shape (VAL045).
    #[error("malformed option \"{option}\": {reason}")]
    MalformedOption {
        index: usize,
        option: String,
        reason: String,
    },
    /// A `regex(...)` option whose pattern does not compile (VAL045, compat only).
    #[error("invalid pattern in option \"{option}\": {reason}")]
    InvalidRegex {
        index: usize,
        option: String,
        reason: String,
    },
    /// A `default(...)` whose text cannot be read as a value of the primitive's type.
    #[error("option \"{option}\" does not fit {primitive}: {reason}")]
    InvalidDefault {
        index: usize,
        option: String,
        primitive: String,
        reason: String,
    },
    /// [`ZType::resolve_lists`] found no data for a list interpolation.
    #[error("list interpolation {{{{{list}:{field}}}}} cannot be resolved")]
    UnresolvedList { list: String, field: String },
}

/// A value does not satisfy a [`ZType`].
///
/// Messages never quote more than a short prefix of the offending value, and only for
/// enum mismatches and unreadable command-line text; callers handling server parameters
/// must not surface these errors verbatim.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ZValueError {
    /// The JSON type is wrong, e.g. a string where a number is required.
    #[error("expected {expected}, found {found}")]
    Type {
        expected: &'static str,
        found: &'static str,
    },
    /// A string that is not one of the enum's values.
    #[error("\"{value}\" is not one of the allowed values: {allowed}")]
    NotInEnum { value: String, allowed: String },
    /// A number below `min(n)`.
    #[error("must be at least {min} (found {actual})")]
    BelowMin { min: String, actual: String },
    /// A number above `max(n)`.
    #[error("must be at most {max} (found {actual})")]
    AboveMax { max: String, actual: String },
    /// A string or array shorter than `min(n)`.
    #[error("must have at least {min} {unit} (found {actual})")]
    TooShort {
        min: String,
        actual: usize,
        unit: &'static str,
    },
    /// A string or array longer than `max(n)`.
    #[error("must have at most {max} {unit} (found {actual})")]
    TooLong {
        max: String,
        actual: usize,
        unit: &'static str,
    },
    /// A string or array whose length differs from `length(n)`.
    #[error("must have exactly {expected} {unit} (found {actual})")]
    WrongLength {
        expected: u64,
        actual: usize,
        unit: &'static str,
    },
    /// A string that does not match a `regex(...)` option.
    #[error("does not match the pattern {pattern}")]
    PatternMismatch { pattern: String },
    /// No value and no default for a required parameter.
    #[error("a value is required")]
    Missing,
    /// Command-line text that is not a number.
    #[error("cannot read \"{text}\" as a number")]
    NotANumber { text: String },
    /// Command-line text that is not `true` or `false`.
    #[error("cannot read \"{text}\" as a boolean; expected true or false")]
    NotABoolean { text: String },
    /// Command-line text that is not JSON of the required kind.
    #[error("cannot read the text as a JSON {expected}: {reason}")]
    NotJson {
        expected: &'static str,
        reason: String,
    },
}

// ---------------------------------------------------------------------------------------
// Primitive
// ---------------------------------------------------------------------------------------

/// One item of `enum(...)` or `values(...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EnumItem {
    /// A literal value, trimmed.
    Literal(String),
    /// A shared-list interpolation `{{list:field}}`, resolved at load time.
    List { list: String, field: String },
}

impl fmt::Display for EnumItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnumItem::Literal(v) => f.write_str(v),
            EnumItem::List { list, field } => write!(f, "{{{{{list}:{field}}}}}"),
        }
    }
}

/// The base type of a parameter, parsed from `z.primitive`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Primitive {
    String,
    Number,
    Boolean,
    /// `enum(A,B,{{list:field}})`. Never empty when produced by [`Primitive::parse`].
    Enum(Vec<EnumItem>),
    Array,
    Object,
}

impl Primitive {
    /// Parses `z.primitive`: `string()`, `number()`, `boolean()`, `enum(A,B,C)`, `array()`
    /// or `object()`. Whitespace around the text, around the name and inside empty
    /// parentheses is tolerated; enum values are split on `,` and trimmed. The enum values
    /// are the text between the first `(` and the last `)`.
    pub fn parse(text: &str) -> Result<Primitive, ZodError> {
        let t = text.trim();
        let Some(open) = t.find('(') else {
            return Err(if PRIMITIVE_NAMES.contains(&t) {
                ZodError::MissingParentheses {
                    name: t.to_string(),
                }
            } else {
                ZodError::UnknownPrimitive {
                    text: text.to_string(),
                }
            });
        };
        let name = t[..open].trim();
        if !PRIMITIVE_NAMES.contains(&name) || !t.ends_with(')') {
            return Err(ZodError::UnknownPrimitive {
                text: text.to_string(),
            });
        }
        let argument = &t[open + 1..t.len() - 1];
        if name == "enum" {
            let items = parse_enum_items(argument)?;
            if items.is_empty() {
                return Err(ZodError::EmptyEnum);
            }
            return Ok(Primitive::Enum(items));
        }
        if !argument.trim().is_empty() {
            if let Some(found) = find_interpolations(argument)
                .into_iter()
                .find(|i| i.as_list_ref().is_some())
            {
                return Err(ZodError::InterpolationOutsideEnum {
                    name: name.to_string(),
                    interpolation: found.text(),
                });
            }
            return Err(ZodError::UnexpectedArgument {
                name: name.to_string(),
                argument: argument.trim().to_string(),
            });
        }
        Ok(match name {
            "string" => Primitive::String,
            "number" => Primitive::Number,
            "boolean" => Primitive::Boolean,
            "array" => Primitive::Array,
            _ => Primitive::Object,
        })
    }

    /// The bare name: `string`, `number`, `boolean`, `enum`, `array` or `object`.
    pub fn name(&self) -> &'static str {
        match self {
            Primitive::String => "string",
            Primitive::Number => "number",
            Primitive::Boolean => "boolean",
            Primitive::Enum(_) => "enum",
            Primitive::Array => "array",
            Primitive::Object => "object",
        }
    }

    /// The enum items (empty for other primitives).
    pub fn enum_items(&self) -> &[EnumItem] {
        match self {
            Primitive::Enum(items) => items,
            _ => &[],
        }
    }

    /// The literal enum values, in order (empty for other primitives).
    pub fn literal_values(&self) -> Vec<&str> {
        self.enum_items()
            .iter()
            .filter_map(|i| match i {
                EnumItem::Literal(v) => Some(v.as_str()),
                EnumItem::List { .. } => None,
            })
            .collect()
    }

    /// The `(list, field)` pairs of the enum's list interpolations, in order.
    pub fn list_refs(&self) -> Vec<(&str, &str)> {
        self.enum_items()
            .iter()
            .filter_map(|i| match i {
                EnumItem::List { list, field } => Some((list.as_str(), field.as_str())),
                EnumItem::Literal(_) => None,
            })
            .collect()
    }

    /// True for an enum that still has unresolved list interpolations.
    pub fn has_unresolved_lists(&self) -> bool {
        self.enum_items()
            .iter()
            .any(|i| matches!(i, EnumItem::List { .. }))
    }
}

impl fmt::Display for Primitive {
    /// The canonical text: `string()`, `enum(a,b,{{list:field}})`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Primitive::Enum(items) => {
                f.write_str("enum(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
            other => write!(f, "{}()", other.name()),
        }
    }
}

/// Splits the inside of `enum(...)` / `values(...)` into items. An all-blank argument
/// yields no items; an empty item between commas is an error.
fn parse_enum_items(argument: &str) -> Result<Vec<EnumItem>, ZodError> {
    if argument.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut items = Vec::new();
    for (i, raw) in argument.split(',').enumerate() {
        let item = raw.trim();
        if item.is_empty() {
            return Err(ZodError::EmptyEnumValue { position: i + 1 });
        }
        if item.contains("{{") || item.contains("}}") {
            let parsed = item
                .strip_prefix("{{")
                .and_then(|s| s.strip_suffix("}}"))
                .and_then(|inner| match InterpolationKind::of(inner) {
                    InterpolationKind::ListRef { list, field } => Some(EnumItem::List {
                        list: list.to_string(),
                        field: field.to_string(),
                    }),
                    _ => None,
                });
            match parsed {
                Some(list_item) => items.push(list_item),
                None => {
                    return Err(ZodError::InvalidListInterpolation {
                        item: item.to_string(),
                    });
                }
            }
        } else {
            items.push(EnumItem::Literal(item.to_string()));
        }
    }
    Ok(items)
}

/// True when `z.primitive` is an `enum(...)` whose values have whitespace around them,
/// e.g. `enum(GET, POST)`. [`Primitive::parse`] trims such values; the specification
/// says "no spaces around commas", so a validator may want to report it.
pub fn enum_has_padded_values(text: &str) -> bool {
    let t = text.trim();
    let Some(open) = t.find('(') else {
        return false;
    };
    if t[..open].trim() != "enum" || !t.ends_with(')') {
        return false;
    }
    let argument = &t[open + 1..t.len() - 1];
    !argument.trim().is_empty() && argument.split(',').any(|v| v.trim() != v)
}

// ---------------------------------------------------------------------------------------
// Regex (compat)
// ---------------------------------------------------------------------------------------

/// The pattern of a `regex(...)` option, compiled with JavaScript semantics.
///
/// The pattern may be written bare (`^0x[a-f0-9]+$`) or as a literal with delimiters and
/// flags (`/^0x[a-f0-9]+$/i`). Flags `i`, `m`, `s` and `y` (anchored at the start) are
/// honoured; `g`, `d`, `u` and `v` have no effect on a single test. `\d`, `\w`, `\b` and
/// their negations are ASCII as in JavaScript, `.` excludes all JavaScript line
/// terminators, and JavaScript-only syntax (`\cX`, `\0`, `[\b]`, `[]`, `[^]`, a literal
/// `{`) is translated. Look-around and back-references are not supported and are
/// reported as invalid patterns.
#[derive(Clone, Debug)]
pub struct JsRegex {
    source: String,
    regex: Regex,
}

impl PartialEq for JsRegex {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl JsRegex {
    /// Compiles the text written inside `regex(...)`.
    pub fn new(text: &str) -> Result<JsRegex, String> {
        // Rules parse the same options several times per file; compiled patterns are cached per
        // thread (`Regex` clones share the compiled program).
        thread_local! {
            static CACHE: std::cell::RefCell<std::collections::HashMap<String, Result<JsRegex, String>>> =
                std::cell::RefCell::new(std::collections::HashMap::new());
        }
        if let Some(hit) = CACHE.with(|c| c.borrow().get(text).cloned()) {
            return hit;
        }
        let compiled = JsRegex::compile(text);
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= 4096 {
                c.clear();
            }
            c.insert(text.to_string(), compiled.clone());
        });
        compiled
    }

    fn compile(text: &str) -> Result<JsRegex, String> {
        if text.is_empty() {
            return Err("regex() needs a pattern".to_string());
        }
        let (body, flags) = split_regex_literal(text);
        if body.is_empty() {
            return Err("the pattern is empty".to_string());
        }
        let dot_all = flags.contains('s');
        let mut translated = translate_js_pattern(body, dot_all)?;
        if flags.contains('y') {
            translated = format!(r"\A(?:{translated})");
        }
        let regex = RegexBuilder::new(&translated)
            .case_insensitive(flags.contains('i'))
            .multi_line(flags.contains('m'))
            .dot_matches_new_line(dot_all)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| regex_error_text(&e))?;
        Ok(JsRegex {
            source: text.to_string(),
            regex,
        })
    }

    /// The text as written inside `regex(...)`.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// True when the pattern matches somewhere in `text` (JavaScript `RegExp.test`).
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// The last non-empty line of a regex error, which names the problem.
fn regex_error_text(error: &regex::Error) -> String {
    match error {
        regex::Error::CompiledTooBig(limit) => {
            format!("the pattern is too large (compiled size limit {limit} bytes)")
        }
        other => {
            let text = other.to_string();
            text.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().trim_start_matches("error: ").to_string())
                .unwrap_or(text)
        }
    }
}

/// Splits `/body/flags` into body and flags; anything else is a bare pattern. Flags must
/// be distinct letters of `dgimsuvy`.
fn split_regex_literal(text: &str) -> (&str, &str) {
    let Some((body, flags)) = text
        .strip_prefix('/')
        .and_then(|rest| rest.rsplit_once('/'))
    else {
        return (text, "");
    };
    let mut seen = String::new();
    let valid_flags = flags.chars().all(|c| {
        let ok = "dgimsuvy".contains(c) && !seen.contains(c);
        seen.push(c);
        ok
    });
    if valid_flags {
        (body, flags)
    } else {
        (text, "")
    }
}

/// Where the previous class member leaves a following `-` inside `[...]`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ClassPrev {
    /// Start of the class or after a range / class escape: `-` is literal.
    NoRangeStart,
    /// After a single character: `-` followed by a character forms a range.
    Char,
    /// After a range operator: the next character ends the range.
    RangeOp,
}

/// True when `chars` (starting at a `{`) is a JavaScript quantifier `{n}`, `{n,}` or
/// `{n,m}`; returns its length in chars.
fn quantifier_len(chars: &[char]) -> Option<usize> {
    let mut i = 1;
    let digits_start = i;
    while chars.get(i).is_some_and(char::is_ascii_digit) {
        i += 1;
    }
    if i == digits_start {
        return None;
    }
    if chars.get(i) == Some(&',') {
        i += 1;
        while chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
        }
    }
    (chars.get(i) == Some(&'}')).then_some(i + 1)
}

/// Rewrites a JavaScript pattern into `regex` crate syntax with the same meaning.
fn translate_js_pattern(body: &str, dot_all: bool) -> Result<String, String> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = String::with_capacity(body.len() + 16);
    let mut in_class = false;
    let mut prev = ClassPrev::NoRangeStart;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let Some(&e) = chars.get(i + 1) else {
                return Err("the pattern ends with a lone backslash".to_string());
            };
            i += 2;
            // `single` is true when the escape stands for one character.
            let single = match e {
                'd' => {
                    out.push_str(if in_class { "0-9" } else { "[0-9]" });
                    false
                }
                'D' => {
                    out.push_str(if in_class { "[:^digit:]" } else { "[^0-9]" });
                    false
                }
                'w' => {
                    out.push_str(if in_class {
                        "0-9A-Za-z_"
                    } else {
                        "[0-9A-Za-z_]"
                    });
                    false
                }
                'W' => {
                    out.push_str(if in_class {
                        "[:^word:]"
                    } else {
                        "[^0-9A-Za-z_]"
                    });
                    false
                }
                's' | 'S' => {
                    out.push('\\');
                    out.push(e);
                    false
                }
                'b' if in_class => {
                    out.push_str(r"\x08");
                    true
                }
                'b' => {
                    out.push_str(r"(?-u:\b)");
                    false
                }
                'B' if in_class => {
                    out.push('B');
                    true
                }
                'B' => {
                    out.push_str(r"(?-u:\B)");
                    false
                }
                '0' if !chars.get(i).is_some_and(char::is_ascii_digit) => {
                    out.push_str(r"\x00");
                    true
                }
                'c' if chars.get(i).is_some_and(char::is_ascii_alphabetic) => {
                    let letter = chars.get(i).copied().unwrap_or('@');
                    i += 1;
                    out.push_str(&format!(r"\x{:02X}", u32::from(letter) % 32));
                    true
                }
                other if other.is_ascii_punctuation() => {
                    out.push_str(&regex::escape(&other.to_string()));
                    true
                }
                other => {
                    out.push('\\');
                    out.push(other);
                    true
                }
            };
            if in_class {
                prev = match (single, prev) {
                    (false, _) => ClassPrev::NoRangeStart,
                    (true, ClassPrev::RangeOp) => ClassPrev::NoRangeStart,
                    (true, _) => ClassPrev::Char,
                };
            }
            continue;
        }
        if in_class {
            match c {
                ']' => {
                    in_class = false;
                    out.push(']');
                }
                '[' | '&' | '~' => {
                    out.push('\\');
                    out.push(c);
                    prev = advance_class(prev);
                }
                '-' => {
                    let next = chars.get(i + 1);
                    if prev == ClassPrev::Char && next.is_some_and(|n| *n != ']') {
                        out.push('-');
                        prev = ClassPrev::RangeOp;
                    } else {
                        out.push_str(r"\-");
                        prev = advance_class(prev);
                    }
                }
                _ => {
                    out.push(c);
                    prev = advance_class(prev);
                }
            }
            i += 1;
            continue;
        }
        match c {
            '[' => match (chars.get(i + 1), chars.get(i + 2)) {
                (Some(']'), _) => {
                    // JavaScript `[]` matches nothing.
                    out.push_str("[a&&b]");
                    i += 2;
                }
                (Some('^'), Some(']')) => {
                    // JavaScript `[^]` matches any character.
                    out.push_str("(?s:.)");
                    i += 3;
                }
                (Some('^'), _) => {
                    out.push_str("[^");
                    in_class = true;
                    prev = ClassPrev::NoRangeStart;
                    i += 2;
                }
                _ => {
                    out.push('[');
                    in_class = true;
                    prev = ClassPrev::NoRangeStart;
                    i += 1;
                }
            },
            '.' if !dot_all => {
                out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                i += 1;
            }
            '{' => match quantifier_len(&chars[i..]) {
                Some(len) => {
                    out.extend(&chars[i..i + len]);
                    i += len;
                }
                None => {
                    out.push_str(r"\{");
                    i += 1;
                }
            },
            '}' => {
                out.push_str(r"\}");
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

fn advance_class(prev: ClassPrev) -> ClassPrev {
    if prev == ClassPrev::RangeOp {
        ClassPrev::NoRangeStart
    } else {
        ClassPrev::Char
    }
}

// ---------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------

/// One parsed entry of `z.options`.
#[derive(Clone, Debug, PartialEq)]
pub enum ZOption {
    /// `min(n)`: lower bound for numbers, minimum length for strings and arrays.
    Min(f64),
    /// `max(n)`: upper bound for numbers, maximum length for strings and arrays.
    Max(f64),
    /// `length(n)`: exact length of strings and arrays.
    Length(u64),
    /// `optional()`.
    Optional,
    /// `default(value)`: the raw text between the parentheses, not trimmed. See
    /// [`parse_default`] for its meaning per primitive.
    Default(String),
    /// `values(a,b)` (compat): the values of an `enum()`.
    Values(Vec<EnumItem>),
    /// `regex(pattern)` (compat): strings must match.
    Regex(JsRegex),
}

impl ZOption {
    /// The option's name: `min`, `max`, `length`, `optional`, `default`, `values`, `regex`.
    pub fn name(&self) -> &'static str {
        match self {
            ZOption::Min(_) => "min",
            ZOption::Max(_) => "max",
            ZOption::Length(_) => "length",
            ZOption::Optional => "optional",
            ZOption::Default(_) => "default",
            ZOption::Values(_) => "values",
            ZOption::Regex(_) => "regex",
        }
    }

    /// Parses one entry of `z.options`; `index` is its position, used in errors.
    pub fn parse(text: &str, index: usize, compat: bool) -> Result<ZOption, ZodError> {
        let expected = if compat {
            "min(n), max(n), length(n), optional(), default(value), values(a,b) or regex(pattern)"
        } else {
            "min(n), max(n), length(n), optional() or default(value)"
        };
        let known = [
            "min", "max", "length", "optional", "default", "values", "regex",
        ];
        let t = text.trim();
        if t.is_empty() {
            return Err(ZodError::EmptyOption { index });
        }
        let malformed = |reason: &str| ZodError::MalformedOption {
            index,
            option: text.to_string(),
            reason: reason.to_string(),
        };
        let unknown = || ZodError::UnknownOption {
            index,
            option: text.to_string(),
            expected,
        };
        let Some(open) = t.find('(') else {
            return Err(if known.contains(&t) {
                malformed(&format!("missing parentheses; write {t}(...)"))
            } else {
                unknown()
            });
        };
        let name = t[..open].trim();
        if !known.contains(&name) {
            return Err(unknown());
        }
        if !t.ends_with(')') {
            return Err(malformed("an option must end with \")\""));
        }
        let argument = &t[open + 1..t.len() - 1];
        match name {
            "min" | "max" => {
                let n = parse_finite(argument.trim())
                    .ok_or_else(|| malformed(&format!("{name}() needs a number")))?;
                Ok(if name == "min" {
                    ZOption::Min(n)
                } else {
                    ZOption::Max(n)
                })
            }
            "length" => argument
                .trim()
                .parse::<u64>()
                .map(ZOption::Length)
                .map_err(|_| malformed("length() needs a non-negative integer")),
            "optional" => {
                if argument.trim().is_empty() {
                    Ok(ZOption::Optional)
                } else {
                    Err(malformed("optional() takes no argument"))
                }
            }
            "default" => Ok(ZOption::Default(argument.to_string())),
            "values" | "regex" if !compat => Err(ZodError::CompatOnlyOption {
                index,
                option: text.to_string(),
                name: if name == "values" { "values" } else { "regex" },
            }),
            "values" => {
                let items = parse_enum_items(argument).map_err(|e| malformed(&e.to_string()))?;
                if items.is_empty() {
                    return Err(malformed("values() needs at least one value"));
                }
                Ok(ZOption::Values(items))
            }
            _ => JsRegex::new(argument)
                .map(ZOption::Regex)
                .map_err(|reason| ZodError::InvalidRegex {
                    index,
                    option: text.to_string(),
                    reason,
                }),
        }
    }
}

impl fmt::Display for ZOption {
    /// The canonical text, e.g. `min(1)`, `default(10)`, `values(a,b)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZOption::Min(n) => write!(f, "min({})", number_to_string(*n)),
            ZOption::Max(n) => write!(f, "max({})", number_to_string(*n)),
            ZOption::Length(n) => write!(f, "length({n})"),
            ZOption::Optional => f.write_str("optional()"),
            ZOption::Default(text) => write!(f, "default({text})"),
            ZOption::Values(items) => {
                f.write_str("values(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
            ZOption::Regex(r) => write!(f, "regex({})", r.source()),
        }
    }
}

/// The parsed `z.options` list, in declaration order. Constraints combine with AND.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub items: Vec<ZOption>,
}

impl Options {
    /// Parses every entry; the first bad entry is the error.
    pub fn parse<S: AsRef<str>>(options: &[S], compat: bool) -> Result<Options, ZodError> {
        let items = options
            .iter()
            .enumerate()
            .map(|(i, o)| ZOption::parse(o.as_ref(), i, compat))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Options { items })
    }

    /// Parses every entry, keeping the good ones and returning every error (for a
    /// validator that reports all problems at once).
    pub fn parse_lenient<S: AsRef<str>>(options: &[S], compat: bool) -> (Options, Vec<ZodError>) {
        let mut items = Vec::new();
        let mut errors = Vec::new();
        for (i, o) in options.iter().enumerate() {
            match ZOption::parse(o.as_ref(), i, compat) {
                Ok(item) => items.push(item),
                Err(e) => errors.push(e),
            }
        }
        (Options { items }, errors)
    }

    /// True when the parameter may be omitted: `optional()` or any `default(...)`.
    pub fn is_optional(&self) -> bool {
        self.items
            .iter()
            .any(|o| matches!(o, ZOption::Optional | ZOption::Default(_)))
    }

    /// The raw text of the effective `default(...)` (the last one wins, as in Zod).
    pub fn default_text(&self) -> Option<&str> {
        self.items.iter().rev().find_map(|o| match o {
            ZOption::Default(text) => Some(text.as_str()),
            _ => None,
        })
    }

    /// All items of all `values(...)` options, in order.
    pub fn values_items(&self) -> Vec<&EnumItem> {
        self.items
            .iter()
            .filter_map(|o| match o {
                ZOption::Values(items) => Some(items.iter()),
                _ => None,
            })
            .flatten()
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// Numbers and defaults
// ---------------------------------------------------------------------------------------

/// Parses a finite decimal number (surrounding whitespace must already be removed).
fn parse_finite(text: &str) -> Option<f64> {
    // Rust also accepts "inf", "nan" and "infinity"; those are not finite and rejected.
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// Reads `text` as a JSON string literal `"..."`, if it is one.
fn json_string_literal(text: &str) -> Option<String> {
    if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        serde_json::from_str::<String>(text).ok()
    } else {
        None
    }
}

/// Interprets the text of `default(...)` for a primitive:
///
/// * `number()`: a finite decimal number (`10`, `0.025`, `-1`); integral values become
///   JSON integers.
/// * `boolean()`: `true` or `false`.
/// * `string()`: the text verbatim, or the decoded string when the whole text is a JSON
///   string literal (`default("43114")` → `43114`); `default()` is the empty string.
/// * `enum(...)`: like `string()` but trimmed. Membership is not checked here.
/// * `array()` / `object()`: JSON text of an array / object (`default([])`).
///
/// Whitespace around number, boolean, array and object text is ignored.
pub fn parse_default(primitive: &Primitive, text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    match primitive {
        Primitive::String => Ok(Value::String(
            json_string_literal(trimmed).unwrap_or_else(|| text.to_string()),
        )),
        Primitive::Enum(_) => Ok(Value::String(
            json_string_literal(trimmed).unwrap_or_else(|| trimmed.to_string()),
        )),
        Primitive::Number => parse_finite(trimmed)
            .and_then(number_value)
            .ok_or_else(|| format!("\"{}\" is not a number", quote(trimmed))),
        Primitive::Boolean => match trimmed {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "\"{}\" is not a boolean; expected true or false",
                quote(trimmed)
            )),
        },
        Primitive::Array => match serde_json::from_str::<Value>(trimmed) {
            Ok(v @ Value::Array(_)) => Ok(v),
            Ok(_) => Err("expected a JSON array such as [] or [\"a\"]".to_string()),
            Err(e) => Err(format!("expected a JSON array: {e}")),
        },
        Primitive::Object => match serde_json::from_str::<Value>(trimmed) {
            Ok(v @ Value::Object(_)) => Ok(v),
            Ok(_) => Err("expected a JSON object such as {\"a\":1}".to_string()),
            Err(e) => Err(format!("expected a JSON object: {e}")),
        },
    }
}

/// At most [`QUOTE_LIMIT`] characters of `text`, with `…` when cut.
fn quote(text: &str) -> String {
    if text.chars().count() <= QUOTE_LIMIT {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(QUOTE_LIMIT).collect();
        s.push('…');
        s
    }
}

/// The JSON type of a value, as an article + noun for messages.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ---------------------------------------------------------------------------------------
// ZType
// ---------------------------------------------------------------------------------------

/// A parsed `z` block: the primitive plus its options.
///
/// With the compat flag, the items of `values(...)` options are appended to the enum's
/// items when the primitive is an enum (so `enum()` + `values(a,b)` is `enum(a,b)`);
/// on other primitives `values(...)` has no effect.
#[derive(Clone, Debug, PartialEq)]
pub struct ZType {
    pub primitive: Primitive,
    pub options: Options,
}

impl ZType {
    /// Parses `z.primitive` and `z.options`. Fails on the first problem, in this order: an
    /// invalid primitive, an unknown or malformed option, a `default(...)` that cannot be
    /// read as a value of the primitive's type ([`parse_default`]). To report every
    /// problem, use [`Primitive::parse`] and [`Options::parse_lenient`] directly.
    pub fn parse<S: AsRef<str>>(
        primitive: &str,
        options: &[S],
        compat: bool,
    ) -> Result<ZType, ZodError> {
        let parsed = Primitive::parse(primitive);
        // In compat, `enum()` is acceptable when `values(...)` supplies the values.
        let empty_enum = compat && parsed == Err(ZodError::EmptyEnum);
        if let Err(e) = &parsed
            && !empty_enum
        {
            return Err(e.clone());
        }
        let options = Options::parse(options, compat)?;
        let mut primitive = match parsed {
            Ok(p) => p,
            Err(e) if options.values_items().is_empty() => return Err(e),
            Err(_) => Primitive::Enum(Vec::new()),
        };
        if let Primitive::Enum(items) = &mut primitive {
            items.extend(options.values_items().into_iter().cloned());
        }
        let z = ZType { primitive, options };
        z.default_value()?;
        Ok(z)
    }

    /// True when the parameter may be omitted (`optional()` or `default(...)`).
    pub fn is_optional(&self) -> bool {
        self.options.is_optional()
    }

    /// The index and raw text of the effective `default(...)` (the last one).
    fn effective_default(&self) -> Option<(usize, &str)> {
        self.options
            .items
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, o)| match o {
                ZOption::Default(text) => Some((i, text.as_str())),
                _ => None,
            })
    }

    fn invalid_default(&self, index: usize, text: &str, reason: String) -> ZodError {
        ZodError::InvalidDefault {
            index,
            option: format!("default({text})"),
            primitive: format!("{}()", self.primitive.name()),
            reason,
        }
    }

    /// The typed value of the effective `default(...)`, if any ([`parse_default`]).
    pub fn default_value(&self) -> Result<Option<Value>, ZodError> {
        let Some((index, text)) = self.effective_default() else {
            return Ok(None);
        };
        parse_default(&self.primitive, text)
            .map(Some)
            .map_err(|reason| self.invalid_default(index, text, reason))
    }

    /// Checks that the default, if any, also satisfies the enum values and the options
    /// (a default that fails would make every call without the parameter fail).
    /// [`ZType::parse`] only checks that the default has the right type.
    pub fn check_default(&self) -> Result<(), ZodError> {
        let Some((index, text)) = self.effective_default() else {
            return Ok(());
        };
        let Some(value) = self.default_value()? else {
            return Ok(());
        };
        self.validate(&value)
            .map_err(|e| self.invalid_default(index, text, e.to_string()))
    }

    /// Fills in an omitted value: `Some(value)` is returned unchanged (not validated);
    /// `None` becomes the default if there is one, stays `None` for an optional
    /// parameter, and is [`ZValueError::Missing`] otherwise. The default is not
    /// re-validated; see [`ZType::check_default`].
    pub fn apply_default(&self, value: Option<&Value>) -> Result<Option<Value>, ZValueError> {
        if let Some(v) = value {
            return Ok(Some(v.clone()));
        }
        match self.default_value() {
            Ok(Some(d)) => Ok(Some(d)),
            _ if self.is_optional() => Ok(None),
            _ => Err(ZValueError::Missing),
        }
    }

    /// The enum's literal values including those from `values(...)` (empty for other
    /// primitives).
    pub fn enum_values(&self) -> Vec<&str> {
        self.primitive.literal_values()
    }

    /// Indices into `options` of entries that have no effect on this primitive: `min` and
    /// `max` except on number, string and array; `length` except on string and array;
    /// `regex` except on string; `values` except on enum.
    pub fn ignored_options(&self) -> Vec<usize> {
        let p = &self.primitive;
        self.options
            .items
            .iter()
            .enumerate()
            .filter(|(_, o)| match o {
                ZOption::Min(_) | ZOption::Max(_) => {
                    !matches!(p, Primitive::Number | Primitive::String | Primitive::Array)
                }
                ZOption::Length(_) => !matches!(p, Primitive::String | Primitive::Array),
                ZOption::Regex(_) => !matches!(p, Primitive::String),
                ZOption::Values(_) => !matches!(p, Primitive::Enum(_)),
                ZOption::Optional | ZOption::Default(_) => false,
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Replaces every `{{list:field}}` enum item by the values `resolve(list, field)`
    /// returns (already filtered by the caller), keeping item order and dropping
    /// duplicates. `None` from the resolver is [`ZodError::UnresolvedList`]; an enum that
    /// ends up empty is [`ZodError::EmptyEnum`].
    pub fn resolve_lists<F>(&self, mut resolve: F) -> Result<ZType, ZodError>
    where
        F: FnMut(&str, &str) -> Option<Vec<String>>,
    {
        let Primitive::Enum(items) = &self.primitive else {
            return Ok(self.clone());
        };
        let mut resolved: Vec<EnumItem> = Vec::with_capacity(items.len());
        let push = |value: String, out: &mut Vec<EnumItem>| {
            if !out
                .iter()
                .any(|e| matches!(e, EnumItem::Literal(v) if *v == value))
            {
                out.push(EnumItem::Literal(value));
            }
        };
        for item in items {
            match item {
                EnumItem::Literal(v) => push(v.clone(), &mut resolved),
                EnumItem::List { list, field } => {
                    let values = resolve(list, field).ok_or_else(|| ZodError::UnresolvedList {
                        list: list.clone(),
                        field: field.clone(),
                    })?;
                    for v in values {
                        push(v, &mut resolved);
                    }
                }
            }
        }
        if resolved.is_empty() {
            return Err(ZodError::EmptyEnum);
        }
        Ok(ZType {
            primitive: Primitive::Enum(resolved),
            options: self.options.clone(),
        })
    }

    /// Checks a JSON value strictly: the JSON type must match the primitive (no coercion),
    /// an enum value must be one of the literal values (any string is accepted while the
    /// enum still has unresolved list items), then every applicable option must hold.
    /// String lengths count Unicode scalar values.
    pub fn validate(&self, value: &Value) -> Result<(), ZValueError> {
        let expected = match &self.primitive {
            Primitive::String | Primitive::Enum(_) => "a string",
            Primitive::Number => "a number",
            Primitive::Boolean => "a boolean",
            Primitive::Array => "an array",
            Primitive::Object => "an object",
        };
        let type_ok = match &self.primitive {
            Primitive::String | Primitive::Enum(_) => value.is_string(),
            Primitive::Number => value.is_number(),
            Primitive::Boolean => value.is_boolean(),
            Primitive::Array => value.is_array(),
            Primitive::Object => value.is_object(),
        };
        if !type_ok {
            return Err(ZValueError::Type {
                expected,
                found: json_kind(value),
            });
        }
        if let (Primitive::Enum(_), Value::String(s)) = (&self.primitive, value) {
            let allowed = self.primitive.literal_values();
            if !self.primitive.has_unresolved_lists() && !allowed.contains(&s.as_str()) {
                let mut list = allowed
                    .iter()
                    .take(LIST_LIMIT)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ");
                if allowed.len() > LIST_LIMIT {
                    list.push_str(&format!(", … ({} more)", allowed.len() - LIST_LIMIT));
                }
                return Err(ZValueError::NotInEnum {
                    value: quote(s),
                    allowed: list,
                });
            }
        }
        for option in &self.options.items {
            self.check_option(option, value)?;
        }
        Ok(())
    }

    fn check_option(&self, option: &ZOption, value: &Value) -> Result<(), ZValueError> {
        // Length of strings (chars) and arrays (items), with the unit for messages.
        let length = match (&self.primitive, value) {
            (Primitive::String, Value::String(s)) => Some((s.chars().count(), "characters")),
            (Primitive::Array, Value::Array(a)) => Some((a.len(), "items")),
            _ => None,
        };
        let number = match (&self.primitive, value) {
            (Primitive::Number, Value::Number(n)) => n.as_f64(),
            _ => None,
        };
        match option {
            ZOption::Min(min) => {
                if let Some(n) = number.filter(|n| n < min) {
                    return Err(ZValueError::BelowMin {
                        min: number_to_string(*min),
                        actual: number_to_string(n),
                    });
                }
                if let Some((len, unit)) = length.filter(|(len, _)| (*len as f64) < *min) {
                    return Err(ZValueError::TooShort {
                        min: number_to_string(*min),
                        actual: len,
                        unit,
                    });
                }
            }
            ZOption::Max(max) => {
                if let Some(n) = number.filter(|n| n > max) {
                    return Err(ZValueError::AboveMax {
                        max: number_to_string(*max),
                        actual: number_to_string(n),
                    });
                }
                if let Some((len, unit)) = length.filter(|(len, _)| (*len as f64) > *max) {
                    return Err(ZValueError::TooLong {
                        max: number_to_string(*max),
                        actual: len,
                        unit,
                    });
                }
            }
            ZOption::Length(expected) => {
                if let Some((len, unit)) = length.filter(|(len, _)| *len as u64 != *expected) {
                    return Err(ZValueError::WrongLength {
                        expected: *expected,
                        actual: len,
                        unit,
                    });
                }
            }
            ZOption::Regex(regex) => {
                if let (Primitive::String, Value::String(s)) = (&self.primitive, value)
                    && !regex.is_match(s)
                {
                    return Err(ZValueError::PatternMismatch {
                        pattern: regex.source().to_string(),
                    });
                }
            }
            ZOption::Optional | ZOption::Default(_) | ZOption::Values(_) => {}
        }
        Ok(())
    }

    /// Converts text to a JSON value of the primitive's type, without checking options
    /// (call [`ZType::validate`] afterwards). Used for command-line arguments and for fixed
    /// `position.value` strings:
    ///
    /// * `string()` / `enum(...)`: the text as-is;
    /// * `number()`: a finite decimal number, surrounding whitespace ignored (`"5"` → 5);
    /// * `boolean()`: `true` or `false`, surrounding whitespace ignored;
    /// * `array()` / `object()`: JSON text of an array / object.
    pub fn coerce_str(&self, text: &str) -> Result<Value, ZValueError> {
        let trimmed = text.trim();
        match &self.primitive {
            Primitive::String | Primitive::Enum(_) => Ok(Value::String(text.to_string())),
            Primitive::Number => parse_finite(trimmed).and_then(number_value).ok_or_else(|| {
                ZValueError::NotANumber {
                    text: quote(trimmed),
                }
            }),
            Primitive::Boolean => match trimmed {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(ZValueError::NotABoolean {
                    text: quote(trimmed),
                }),
            },
            Primitive::Array | Primitive::Object => {
                let expected = if matches!(self.primitive, Primitive::Array) {
                    "array"
                } else {
                    "object"
                };
                let v: Value = serde_json::from_str(trimmed).map_err(|e| ZValueError::NotJson {
                    expected,
                    reason: e.to_string(),
                })?;
                let ok = match expected {
                    "array" => v.is_array(),
                    _ => v.is_object(),
                };
                if ok {
                    Ok(v)
                } else {
                    Err(ZValueError::NotJson {
                        expected,
                        reason: format!("found {}", json_kind(&v)),
                    })
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn z(primitive: &str, options: &[&str]) -> ZType {
        ZType::parse(primitive, options, false).unwrap()
    }

    fn zc(primitive: &str, options: &[&str]) -> ZType {
        ZType::parse(primitive, options, true).unwrap()
    }

    fn lit(v: &str) -> EnumItem {
        EnumItem::Literal(v.to_string())
    }

    // ---- primitives ----

    #[test]
    fn parses_simple_primitives() {
        assert_eq!(Primitive::parse("string()"), Ok(Primitive::String));
        assert_eq!(Primitive::parse("number()"), Ok(Primitive::Number));
        assert_eq!(Primitive::parse("boolean()"), Ok(Primitive::Boolean));
        assert_eq!(Primitive::parse("array()"), Ok(Primitive::Array));
        assert_eq!(Primitive::parse("object()"), Ok(Primitive::Object));
    }

    #[test]
    fn primitive_tolerates_whitespace() {
        assert_eq!(Primitive::parse("  string()  "), Ok(Primitive::String));
        assert_eq!(Primitive::parse("number ( )"), Ok(Primitive::Number));
        assert_eq!(
            Primitive::parse(" enum( a , b ) "),
            Ok(Primitive::Enum(vec![lit("a"), lit("b")]))
        );
    }

    #[test]
    fn parses_enum_values() {
        assert_eq!(
            Primitive::parse("enum(GET,POST,PUT,DELETE)"),
            Ok(Primitive::Enum(vec![
                lit("GET"),
                lit("POST"),
                lit("PUT"),
                lit("DELETE")
            ]))
        );
        assert_eq!(
            Primitive::parse("enum(1,5,137)").unwrap().literal_values(),
            vec!["1", "5", "137"]
        );
    }

    #[test]
    fn enum_values_span_first_open_to_last_close() {
        let p = Primitive::parse("enum(a(1),b)").unwrap();
        assert_eq!(p.literal_values(), vec!["a(1)", "b"]);
    }

    #[test]
    fn parses_enum_with_list_interpolation() {
        let p = Primitive::parse("enum(custom,{{evmChains:etherscanAlias}})").unwrap();
        assert_eq!(
            p,
            Primitive::Enum(vec![
                lit("custom"),
                EnumItem::List {
                    list: "evmChains".into(),
                    field: "etherscanAlias".into()
                }
            ])
        );
        assert_eq!(p.list_refs(), vec![("evmChains", "etherscanAlias")]);
        assert!(p.has_unresolved_lists());
        assert_eq!(p.literal_values(), vec!["custom"]);
    }

    #[test]
    fn primitive_display_is_canonical() {
        for text in [
            "string()",
            "number()",
            "boolean()",
            "array()",
            "object()",
            "enum(a,b,{{l:f}})",
        ] {
            assert_eq!(Primitive::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            Primitive::parse(" enum( a , b )").unwrap().to_string(),
            "enum(a,b)"
        );
    }

    #[test]
    fn primitive_names_and_items() {
        assert_eq!(Primitive::String.name(), "string");
        assert_eq!(Primitive::Object.name(), "object");
        assert!(Primitive::Number.enum_items().is_empty());
        assert!(Primitive::Number.list_refs().is_empty());
        assert!(!Primitive::Number.has_unresolved_lists());
    }

    #[test]
    fn unknown_primitive_is_reported() {
        let e = Primitive::parse("strin()").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown primitive \"strin()\"; expected string(), number(), boolean(), enum(...), array() or object()"
        );
        assert!(matches!(
            Primitive::parse("integer()"),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse(""),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse("String()"),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse("string("),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse("string()x"),
            Err(ZodError::UnknownPrimitive { .. })
        ));
    }

    #[test]
    fn missing_parentheses_is_reported() {
        let e = Primitive::parse(" string ").unwrap_err();
        assert_eq!(
            e,
            ZodError::MissingParentheses {
                name: "string".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "primitive \"string\" is missing its parentheses; write string()"
        );
    }

    #[test]
    fn argument_on_non_enum_is_reported() {
        let e = Primitive::parse("string(x)").unwrap_err();
        assert_eq!(
            e,
            ZodError::UnexpectedArgument {
                name: "string".into(),
                argument: "x".into()
            }
        );
        assert_eq!(e.to_string(), "string() takes no argument (found \"x\")");
    }

    #[test]
    fn interpolation_outside_enum_is_reported() {
        let e = Primitive::parse("string({{evmChains:alias}})").unwrap_err();
        assert_eq!(
            e,
            ZodError::InterpolationOutsideEnum {
                name: "string".into(),
                interpolation: "{{evmChains:alias}}".into()
            }
        );
        assert!(e.to_string().contains("only allowed inside enum(...)"));
    }

    #[test]
    fn empty_enum_is_distinct() {
        assert_eq!(Primitive::parse("enum()"), Err(ZodError::EmptyEnum));
        assert_eq!(Primitive::parse("enum(   )"), Err(ZodError::EmptyEnum));
        assert!(
            ZodError::EmptyEnum
                .to_string()
                .contains("at least one value")
        );
    }

    #[test]
    fn empty_enum_item_is_reported() {
        assert_eq!(
            Primitive::parse("enum(a,,b)"),
            Err(ZodError::EmptyEnumValue { position: 2 })
        );
        let e = Primitive::parse("enum(a,b,)").unwrap_err();
        assert_eq!(e, ZodError::EmptyEnumValue { position: 3 });
        assert_eq!(
            e.to_string(),
            "enum value #3 is empty (check for a stray comma)"
        );
    }

    #[test]
    fn bad_list_interpolation_is_reported() {
        for text in [
            "enum({{evmChains}})",
            "enum(x{{a:b}})",
            "enum({{a:b}}y)",
            "enum({{a:b:c}})",
            "enum({{USER_PARAM}})",
            "enum(a}})",
        ] {
            assert!(
                matches!(
                    Primitive::parse(text),
                    Err(ZodError::InvalidListInterpolation { .. })
                ),
                "{text}"
            );
        }
        let e = Primitive::parse("enum({{x}})").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"{{x}}\" is not a list interpolation; expected {{listName:fieldName}}"
        );
    }

    #[test]
    fn padded_enum_values_are_detected() {
        assert!(enum_has_padded_values("enum(GET, POST)"));
        assert!(enum_has_padded_values("enum( a)"));
        assert!(!enum_has_padded_values("enum(GET,POST)"));
        assert!(!enum_has_padded_values(" enum(a,b) "));
        assert!(!enum_has_padded_values("enum()"));
        assert!(!enum_has_padded_values("string( )"));
        assert!(!enum_has_padded_values("enum"));
        assert!(!enum_has_padded_values("enum(a"));
    }

    #[test]
    fn interpolation_edge_cases() {
        assert!(find_interpolations("no braces").is_empty());
        assert!(find_interpolations("{{unterminated").is_empty());
        let nested = find_interpolations("{{a{{b:c}} {{d}}");
        assert_eq!(nested.len(), 2);
        assert_eq!(nested[0].inner, "b:c");
        assert_eq!(nested[0].start, 3);
        assert_eq!(nested[1].inner, "d");
        let multibyte = find_interpolations("é{{ü}}");
        assert_eq!(multibyte[0].start, 2);
        assert_eq!(multibyte[0].inner, "ü");
        assert_eq!(multibyte[0].kind(), InterpolationKind::Other("ü"));
    }

    // ---- options ----

    #[test]
    fn parses_spec_options() {
        let o = Options::parse(
            &[
                "min(1)",
                "max(100)",
                "length(42)",
                "optional()",
                "default(10)",
            ],
            false,
        )
        .unwrap();
        assert_eq!(
            o.items,
            vec![
                ZOption::Min(1.0),
                ZOption::Max(100.0),
                ZOption::Length(42),
                ZOption::Optional,
                ZOption::Default("10".into())
            ]
        );
        assert!(o.is_optional());
        assert_eq!(o.default_text(), Some("10"));
    }

    #[test]
    fn option_numbers_may_be_negative_or_fractional() {
        let o = Options::parse(&[" min( -180 ) ", "max(13.8)"], false).unwrap();
        assert_eq!(o.items, vec![ZOption::Min(-180.0), ZOption::Max(13.8)]);
    }

    #[test]
    fn option_display_is_canonical() {
        let o = Options::parse(
            &[
                "min(1)",
                "max(13.8)",
                "length(4)",
                "optional()",
                "default(x y)",
                "values(a,{{l:f}})",
                "regex(/^a$/i)",
            ],
            true,
        )
        .unwrap();
        let texts: Vec<String> = o.items.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            vec![
                "min(1)",
                "max(13.8)",
                "length(4)",
                "optional()",
                "default(x y)",
                "values(a,{{l:f}})",
                "regex(/^a$/i)"
            ]
        );
        let names: Vec<&str> = o.items.iter().map(ZOption::name).collect();
        assert_eq!(
            names,
            vec![
                "min", "max", "length", "optional", "default", "values", "regex"
            ]
        );
    }

    #[test]
    fn default_makes_optional_and_last_default_wins() {
        let o = Options::parse(&["default(1)", "default(2)"], false).unwrap();
        assert!(o.is_optional());
        assert_eq!(o.default_text(), Some("2"));
        assert!(!Options::parse(&["min(1)"], false).unwrap().is_optional());
        assert_eq!(Options::default().default_text(), None);
    }

    #[test]
    fn unknown_option_names_the_option() {
        let e = Options::parse(&["min(1)", "foo(3)"], false).unwrap_err();
        assert_eq!(
            e,
            ZodError::UnknownOption {
                index: 1,
                option: "foo(3)".into(),
                expected: "min(n), max(n), length(n), optional() or default(value)"
            }
        );
        assert_eq!(
            e.to_string(),
            "unknown option \"foo(3)\"; expected min(n), max(n), length(n), optional() or default(value)"
        );
        assert!(matches!(
            ZOption::parse("nonsense", 0, true),
            Err(ZodError::UnknownOption { expected, .. }) if expected.contains("regex")
        ));
    }

    #[test]
    fn empty_option_is_reported() {
        let e = ZOption::parse("  ", 2, false).unwrap_err();
        assert_eq!(e, ZodError::EmptyOption { index: 2 });
        assert_eq!(e.to_string(), "option #3 is empty");
    }

    #[test]
    fn malformed_options_are_reported() {
        let cases = [
            ("min(abc)", "min() needs a number"),
            ("max()", "max() needs a number"),
            ("min(inf)", "min() needs a number"),
            ("max(NaN)", "max() needs a number"),
            ("length(4.5)", "length() needs a non-negative integer"),
            ("length(-1)", "length() needs a non-negative integer"),
            ("optional(true)", "optional() takes no argument"),
            ("optional(), default(1000)", "optional() takes no argument"),
            ("optional", "missing parentheses; write optional(...)"),
            ("min(1", "an option must end with \")\""),
        ];
        for (text, reason) in cases {
            match ZOption::parse(text, 0, false) {
                Err(ZodError::MalformedOption {
                    option, reason: r, ..
                }) => {
                    assert_eq!(option, text);
                    assert_eq!(r, reason, "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let e = ZOption::parse("min(abc)", 0, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "malformed option \"min(abc)\": min() needs a number"
        );
    }

    #[test]
    fn compat_only_options_need_the_flag() {
        for (text, name) in [("values(a,b)", "values"), ("regex(^a$)", "regex")] {
            let e = ZOption::parse(text, 0, false).unwrap_err();
            assert_eq!(
                e,
                ZodError::CompatOnlyOption {
                    index: 0,
                    option: text.into(),
                    name
                }
            );
            assert!(e.to_string().contains("only the compat profile accepts"));
        }
        assert!(ZOption::parse("values(a,b)", 0, true).is_ok());
        assert!(ZOption::parse("regex(^a$)", 0, true).is_ok());
    }

    #[test]
    fn values_option_parses_items() {
        assert_eq!(
            ZOption::parse("values(1, 8453,{{l:f}})", 0, true),
            Ok(ZOption::Values(vec![
                lit("1"),
                lit("8453"),
                EnumItem::List {
                    list: "l".into(),
                    field: "f".into()
                }
            ]))
        );
        assert!(matches!(
            ZOption::parse("values()", 0, true),
            Err(ZodError::MalformedOption { reason, .. }) if reason == "values() needs at least one value"
        ));
        assert!(matches!(
            ZOption::parse("values(a,,b)", 0, true),
            Err(ZodError::MalformedOption { reason, .. }) if reason.contains("#2 is empty")
        ));
    }

    #[test]
    fn parse_lenient_collects_every_error() {
        let (o, errors) =
            Options::parse_lenient(&["min(1)", "bogus()", "max(x)", "optional()"], false);
        assert_eq!(o.items, vec![ZOption::Min(1.0), ZOption::Optional]);
        assert_eq!(errors.len(), 2);
        assert!(matches!(
            errors[0],
            ZodError::UnknownOption { index: 1, .. }
        ));
        assert!(matches!(
            errors[1],
            ZodError::MalformedOption { index: 2, .. }
        ));
    }

    // ---- regex ----

    #[test]
    fn regex_bare_and_delimited() {
        let bare = JsRegex::new("^0x[a-fA-F0-9]{40}$").unwrap();
        assert!(bare.is_match("0x0000000000000000000000000000000000000001"));
        assert!(!bare.is_match("0x01"));
        assert_eq!(bare.source(), "^0x[a-fA-F0-9]{40}$");
        let delimited = JsRegex::new(r"/^NCT\d{8}$/").unwrap();
        assert!(delimited.is_match("NCT01234567"));
        assert!(!delimited.is_match("nct01234567"));
        let flags = JsRegex::new("/^nct$/i").unwrap();
        assert!(flags.is_match("NCT"));
    }

    #[test]
    fn regex_flags() {
        assert!(JsRegex::new("/^b$/m").unwrap().is_match("a\nb"));
        assert!(!JsRegex::new("/^b$/").unwrap().is_match("a\nb"));
        assert!(JsRegex::new("/a.b/s").unwrap().is_match("a\nb"));
        assert!(!JsRegex::new("/a.b/").unwrap().is_match("a\nb"));
        assert!(JsRegex::new("/b/y").is_ok_and(|r| !r.is_match("ab") && r.is_match("ba")));
        assert!(JsRegex::new("/a/gu").unwrap().is_match("xa"));
        // A slash-led pattern whose tail is not a flag set is a bare pattern.
        let path = JsRegex::new("/api/v1").unwrap();
        assert!(path.is_match("/api/v1"));
        // Duplicate flags are not a literal either.
        assert!(JsRegex::new("/a/ii").unwrap().is_match("/a/ii"));
    }

    #[test]
    fn regex_has_javascript_classes() {
        // \d is ASCII only, as in JavaScript.
        let d = JsRegex::new(r"^\d+$").unwrap();
        assert!(d.is_match("123"));
        assert!(!d.is_match("١٢٣"));
        let w = JsRegex::new(r"^\w+$").unwrap();
        assert!(w.is_match("a_1"));
        assert!(!w.is_match("é"));
        assert!(!JsRegex::new(r"^\D\W$").unwrap().is_match("1-"));
        assert!(JsRegex::new(r"^\D\W$").unwrap().is_match("--"));
        assert!(JsRegex::new(r"\bcat\b").unwrap().is_match("a cat!"));
        assert!(JsRegex::new(r"a\Bb").unwrap().is_match("ab"));
        assert!(JsRegex::new(r"^[\d\w-]+$").unwrap().is_match("a-1"));
        assert!(JsRegex::new(r"^[\D]$").unwrap().is_match("a"));
        assert!(JsRegex::new(r"^[\W]$").unwrap().is_match("-"));
        assert!(JsRegex::new(r"^\s\S$").unwrap().is_match(" a"));
        // `.` excludes every JavaScript line terminator.
        assert!(!JsRegex::new("^.$").unwrap().is_match("\r"));
        assert!(!JsRegex::new("^.$").unwrap().is_match("\u{2028}"));
    }

    #[test]
    fn regex_translates_javascript_only_syntax() {
        // `-` after a range or a class escape is literal in JavaScript.
        let r = JsRegex::new(r"^[A-Za-z0-9-_,]+$").unwrap();
        assert!(r.is_match("a-_,"));
        assert!(!r.is_match("A:"));
        let r = JsRegex::new(r"^[\d-z]+$").unwrap();
        assert!(r.is_match("1-z"));
        assert!(!r.is_match("5y"));
        assert!(JsRegex::new(r"^[a-]$").unwrap().is_match("-"));
        assert!(JsRegex::new(r"^[-a]$").unwrap().is_match("-"));
        assert!(JsRegex::new(r"^[\x41-\x43]$").unwrap().is_match("B"));
        // `[`, `&` and `~` are literal inside a JavaScript class.
        assert!(JsRegex::new(r"^[[&~]+$").unwrap().is_match("[&~"));
        assert!(JsRegex::new(r"^[a&&b]$").unwrap().is_match("&"));
        // `[]` matches nothing, `[^]` anything.
        assert!(!JsRegex::new(r"[]").unwrap().is_match("a"));
        assert!(JsRegex::new(r"^[^]$").unwrap().is_match("\n"));
        // `\0`, `\cJ`, `[\b]`, `[\B]`, `\/`.
        assert!(JsRegex::new(r"^\0$").unwrap().is_match("\0"));
        assert!(JsRegex::new(r"^\cJ$").unwrap().is_match("\n"));
        assert!(JsRegex::new(r"^[\b]$").unwrap().is_match("\u{8}"));
        assert!(JsRegex::new(r"^[\B]$").unwrap().is_match("B"));
        assert!(JsRegex::new(r"^a\/b$").unwrap().is_match("a/b"));
        assert!(JsRegex::new(r"/^a\/b$/").unwrap().is_match("a/b"));
        // A literal `{` that is no quantifier; real quantifiers still work.
        assert!(JsRegex::new(r"^{a}$").unwrap().is_match("{a}"));
        assert!(JsRegex::new(r"^a{2,}$").unwrap().is_match("aaa"));
        assert!(JsRegex::new(r"^a{2,3}$").unwrap().is_match("aa"));
        assert!(JsRegex::new(r"^a{,3}$").unwrap().is_match("a{,3}"));
        // Other escapes pass through.
        assert!(JsRegex::new(r"^\u0041\n$").unwrap().is_match("A\n"));
        assert!(JsRegex::new(r"^(?<n>a)\.$").unwrap().is_match("a."));
    }

    #[test]
    fn regex_errors_are_reported() {
        assert_eq!(JsRegex::new("").unwrap_err(), "regex() needs a pattern");
        assert_eq!(JsRegex::new("//i").unwrap_err(), "the pattern is empty");
        assert_eq!(
            JsRegex::new("abc\\").unwrap_err(),
            "the pattern ends with a lone backslash"
        );
        assert!(JsRegex::new("(?=a)").is_err());
        assert!(JsRegex::new("(a)\\1").is_err());
        assert!(JsRegex::new("(").is_err());
        let big = JsRegex::new(r"(?:.{1000}){50}").unwrap_err();
        assert!(big.contains("too large"), "{big}");
        match ZOption::parse("regex(()", 3, true) {
            Err(e @ ZodError::InvalidRegex { index: 3, .. }) => {
                assert!(
                    e.to_string()
                        .starts_with("invalid pattern in option \"regex(()\": ")
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            JsRegex::new("^a$").unwrap(),
            JsRegex::new("^a$").unwrap(),
            "equality compares the source"
        );
    }

    // ---- defaults ----

    #[test]
    fn defaults_are_typed_per_primitive() {
        let cases: Vec<(&str, &str, Value)> = vec![
            ("number()", "default(10)", json!(10)),
            ("number()", "default(1.0)", json!(1)),
            ("number()", "default(0.025)", json!(0.025)),
            ("number()", "default( -1 )", json!(-1)),
            ("number()", "default(1e21)", json!(1e21)),
            ("boolean()", "default(true)", json!(true)),
            ("boolean()", "default(false)", json!(false)),
            ("string()", "default(desc)", json!("desc")),
            ("string()", "default(10)", json!("10")),
            ("string()", "default()", json!("")),
            ("string()", "default(score desc, x)", json!("score desc, x")),
            ("string()", "default(\"43114\")", json!("43114")),
            ("string()", "default([])", json!("[]")),
            (
                "string()",
                r#"default("{ a(x: \"u\") }")"#,
                json!("{ a(x: \"u\") }"),
            ),
            ("enum(a,b)", "default( b )", json!("b")),
            ("enum(1,2)", "default(\"1\")", json!("1")),
            ("array()", "default([\"ofac\"])", json!(["ofac"])),
            ("object()", "default({\"adult\":1})", json!({"adult": 1})),
        ];
        for (p, o, expected) in cases {
            let zt = z(p, &[o]);
            assert_eq!(zt.default_value(), Ok(Some(expected)), "{p} {o}");
        }
        assert_eq!(z("number()", &[]).default_value(), Ok(None));
    }

    #[test]
    fn bad_defaults_are_reported() {
        for (p, o, reason_part) in [
            ("number()", "default(abc)", "is not a number"),
            ("number()", "default(\"12\")", "is not a number"),
            ("number()", "default(Infinity)", "is not a number"),
            ("boolean()", "default(yes)", "is not a boolean"),
            ("array()", "default(a,b)", "expected a JSON array"),
            ("array()", "default({})", "expected a JSON array"),
            ("object()", "default([])", "expected a JSON object"),
            ("object()", "default(x)", "expected a JSON object"),
        ] {
            match ZType::parse(p, &[o], false) {
                Err(ZodError::InvalidDefault {
                    option,
                    primitive,
                    reason,
                    ..
                }) => {
                    assert_eq!(option, o);
                    assert_eq!(primitive, p);
                    assert!(reason.contains(reason_part), "{p} {o}: {reason}");
                }
                other => panic!("{p} {o}: {other:?}"),
            }
        }
        let e = ZType::parse("boolean()", &["default(yes)"], false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "option \"default(yes)\" does not fit boolean(): \"yes\" is not a boolean; expected true or false"
        );
    }

    #[test]
    fn apply_default_fills_omitted_values() {
        let with_default = z("number()", &["min(1)", "default(20)"]);
        assert_eq!(with_default.apply_default(None), Ok(Some(json!(20))));
        assert_eq!(
            with_default.apply_default(Some(&json!(5))),
            Ok(Some(json!(5)))
        );
        let optional = z("string()", &["optional()"]);
        assert_eq!(optional.apply_default(None), Ok(None));
        let required = z("string()", &[]);
        assert_eq!(required.apply_default(None), Err(ZValueError::Missing));
        assert_eq!(ZValueError::Missing.to_string(), "a value is required");
    }

    #[test]
    fn check_default_applies_constraints() {
        assert!(
            z("number()", &["min(1)", "default(0)"])
                .check_default()
                .is_err()
        );
        assert!(
            z("number()", &["min(1)", "default(1)"])
                .check_default()
                .is_ok()
        );
        let e = z("enum(a,b)", &["min(1)", "default(c)"])
            .check_default()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "option \"default(c)\" does not fit enum(): \"c\" is not one of the allowed values: a, b"
        );
        assert!(matches!(e, ZodError::InvalidDefault { index: 1, .. }));
        assert!(z("string()", &[]).check_default().is_ok());
        // A default that does not fit the type (only reachable by building ZType by hand).
        let hand_made = ZType {
            primitive: Primitive::Boolean,
            options: Options {
                items: vec![ZOption::Default("x".into())],
            },
        };
        assert!(matches!(
            hand_made.check_default(),
            Err(ZodError::InvalidDefault { index: 0, .. })
        ));
    }

    // ---- ZType::parse ----

    #[test]
    fn ztype_parse_reports_primitive_and_option_errors() {
        assert_eq!(
            ZType::parse("enum()", &["default(a)"], false),
            Err(ZodError::EmptyEnum)
        );
        assert!(matches!(
            ZType::parse("string()", &["regex(^a$)"], false),
            Err(ZodError::CompatOnlyOption { .. })
        ));
        assert!(matches!(
            ZType::parse("strin()", &[] as &[&str], true),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        // The primitive is judged first, then the options.
        assert!(matches!(
            ZType::parse("strin()", &["bogus()"], false),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            ZType::parse("enum()", &["bogus()", "values(a)"], true),
            Err(ZodError::UnknownOption { index: 0, .. })
        ));
    }

    #[test]
    fn compat_values_supply_enum_values() {
        let zt = zc("enum()", &["values(1,8453,137,10,42161)", "default(1)"]);
        assert_eq!(zt.enum_values(), vec!["1", "8453", "137", "10", "42161"]);
        assert_eq!(zt.default_value(), Ok(Some(json!("1"))));
        assert!(zt.validate(&json!("8453")).is_ok());
        assert!(zt.validate(&json!("2")).is_err());
        // Appended to explicit enum values.
        let zt = zc("enum(a)", &["values(b)"]);
        assert_eq!(zt.enum_values(), vec!["a", "b"]);
        // Without values(), enum() stays an error even in compat.
        assert_eq!(
            ZType::parse("enum()", &["optional()"], true),
            Err(ZodError::EmptyEnum)
        );
        // On other primitives values() has no effect.
        let zt = zc("string()", &["values(a,b)"]);
        assert!(zt.validate(&json!("zzz")).is_ok());
        assert_eq!(zt.ignored_options(), vec![0]);
    }

    #[test]
    fn ignored_options_are_listed() {
        assert_eq!(
            z(
                "boolean()",
                &["min(1)", "max(2)", "length(3)", "optional()"]
            )
            .ignored_options(),
            vec![0, 1, 2]
        );
        assert_eq!(
            z("number()", &["min(1)", "length(3)", "default(1)"]).ignored_options(),
            vec![1]
        );
        assert!(
            z("string()", &["min(1)", "length(3)"])
                .ignored_options()
                .is_empty()
        );
        assert!(
            z("array()", &["min(1)", "length(3)"])
                .ignored_options()
                .is_empty()
        );
        assert_eq!(
            zc("enum(a)", &["regex(a)", "min(1)"]).ignored_options(),
            vec![0, 1]
        );
        assert!(zc("string()", &["regex(a)"]).ignored_options().is_empty());
        assert_eq!(z("object()", &["length(1)"]).ignored_options(), vec![0]);
    }

    // ---- list resolution ----

    #[test]
    fn resolve_lists_replaces_interpolations() {
        let zt = z(
            "enum(custom,{{evmChains:alias}},ETHEREUM)",
            &["default(custom)"],
        );
        assert!(
            zt.validate(&json!("anything")).is_ok(),
            "unresolved: lenient"
        );
        let resolved = zt
            .resolve_lists(|list, field| {
                assert_eq!((list, field), ("evmChains", "alias"));
                Some(vec!["ETHEREUM".into(), "POLYGON".into()])
            })
            .unwrap();
        assert_eq!(
            resolved.enum_values(),
            vec!["custom", "ETHEREUM", "POLYGON"]
        );
        assert_eq!(
            resolved.primitive.to_string(),
            "enum(custom,ETHEREUM,POLYGON)"
        );
        assert!(resolved.validate(&json!("POLYGON")).is_ok());
        assert!(resolved.validate(&json!("anything")).is_err());
        assert_eq!(resolved.options, zt.options);
    }

    #[test]
    fn resolve_lists_errors() {
        let zt = z("enum({{a:b}})", &[]);
        let e = zt.resolve_lists(|_, _| None).unwrap_err();
        assert_eq!(
            e,
            ZodError::UnresolvedList {
                list: "a".into(),
                field: "b".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "list interpolation {{a:b}} cannot be resolved"
        );
        assert_eq!(
            zt.resolve_lists(|_, _| Some(Vec::new())),
            Err(ZodError::EmptyEnum)
        );
        let plain = z("string()", &[]);
        assert_eq!(plain.resolve_lists(|_, _| None), Ok(plain.clone()));
    }

    // ---- validate ----

    #[test]
    fn validate_checks_json_types_strictly() {
        let cases = [
            ("string()", json!("a"), json!(1)),
            ("number()", json!(1.5), json!("5")),
            ("boolean()", json!(true), json!("true")),
            ("array()", json!([1, "a"]), json!({})),
            ("object()", json!({"a": 1}), json!([])),
            ("enum(a,b)", json!("a"), json!(1)),
        ];
        for (p, good, bad) in cases {
            let zt = z(p, &[]);
            assert!(zt.validate(&good).is_ok(), "{p} {good}");
            assert!(
                matches!(zt.validate(&bad), Err(ZValueError::Type { .. })),
                "{p} {bad}"
            );
        }
        assert_eq!(
            z("number()", &[])
                .validate(&json!("5"))
                .unwrap_err()
                .to_string(),
            "expected a number, found a string"
        );
        assert_eq!(
            z("string()", &[])
                .validate(&Value::Null)
                .unwrap_err()
                .to_string(),
            "expected a string, found null"
        );
        assert_eq!(
            z("array()", &[])
                .validate(&json!(true))
                .unwrap_err()
                .to_string(),
            "expected an array, found a boolean"
        );
        assert_eq!(
            z("object()", &[])
                .validate(&json!([]))
                .unwrap_err()
                .to_string(),
            "expected an object, found an array"
        );
        assert_eq!(
            z("boolean()", &[])
                .validate(&json!({}))
                .unwrap_err()
                .to_string(),
            "expected a boolean, found an object"
        );
    }

    #[test]
    fn validate_enum_membership() {
        let zt = z("enum(mainnet,testnet)", &[]);
        let e = zt.validate(&json!("devnet")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"devnet\" is not one of the allowed values: mainnet, testnet"
        );
        // Long lists and long values are shortened.
        let many: Vec<String> = (0..25).map(|i| i.to_string()).collect();
        let zt = z(&format!("enum({})", many.join(",")), &[]);
        let long = "x".repeat(100);
        match zt.validate(&json!(long)).unwrap_err() {
            ZValueError::NotInEnum { value, allowed } => {
                assert_eq!(value.chars().count(), QUOTE_LIMIT + 1);
                assert!(allowed.ends_with(", … (5 more)"), "{allowed}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn validate_number_bounds() {
        let zt = z("number()", &["min(1)", "max(100)"]);
        assert!(zt.validate(&json!(1)).is_ok());
        assert!(zt.validate(&json!(100)).is_ok());
        assert!(zt.validate(&json!(50.5)).is_ok());
        assert_eq!(
            zt.validate(&json!(0)).unwrap_err().to_string(),
            "must be at least 1 (found 0)"
        );
        assert_eq!(
            zt.validate(&json!(100.5)).unwrap_err().to_string(),
            "must be at most 100 (found 100.5)"
        );
        // length() is ignored on numbers.
        assert!(
            z("number()", &["length(2)"])
                .validate(&json!(12345))
                .is_ok()
        );
    }

    #[test]
    fn validate_string_lengths() {
        let zt = z("string()", &["min(2)", "max(4)"]);
        assert!(zt.validate(&json!("ab")).is_ok());
        assert!(zt.validate(&json!("ééé")).is_ok(), "characters, not bytes");
        assert_eq!(
            zt.validate(&json!("a")).unwrap_err().to_string(),
            "must have at least 2 characters (found 1)"
        );
        assert_eq!(
            zt.validate(&json!("abcde")).unwrap_err().to_string(),
            "must have at most 4 characters (found 5)"
        );
        let exact = z("string()", &["length(42)"]);
        assert!(
            exact
                .validate(&json!("0x0000000000000000000000000000000000000001"))
                .is_ok()
        );
        assert_eq!(
            exact.validate(&json!("0x1")).unwrap_err().to_string(),
            "must have exactly 42 characters (found 3)"
        );
    }

    #[test]
    fn validate_array_lengths() {
        let zt = z("array()", &["min(1)", "max(2)"]);
        assert!(zt.validate(&json!(["a"])).is_ok());
        assert_eq!(
            zt.validate(&json!([])).unwrap_err().to_string(),
            "must have at least 1 items (found 0)"
        );
        assert!(matches!(
            zt.validate(&json!([1, 2, 3])),
            Err(ZValueError::TooLong { actual: 3, .. })
        ));
        let exact = z("array()", &["length(2)"]);
        assert!(exact.validate(&json!([1, 2])).is_ok());
        assert!(matches!(
            exact.validate(&json!([1])),
            Err(ZValueError::WrongLength {
                expected: 2,
                actual: 1,
                unit: "items"
            })
        ));
    }

    #[test]
    fn validate_ignores_inapplicable_options() {
        assert!(
            z("boolean()", &["min(5)", "max(0)", "length(3)"])
                .validate(&json!(false))
                .is_ok()
        );
        assert!(z("enum(a)", &["min(5)"]).validate(&json!("a")).is_ok());
        assert!(
            z("object()", &["max(0)"])
                .validate(&json!({"a": 1}))
                .is_ok()
        );
        assert!(zc("enum(a)", &["regex(^b$)"]).validate(&json!("a")).is_ok());
    }

    #[test]
    fn validate_regex_on_strings() {
        let zt = zc("string()", &["regex(^0x[a-fA-F0-9]{40}$)"]);
        assert!(
            zt.validate(&json!("0x0000000000000000000000000000000000000001"))
                .is_ok()
        );
        let e = zt.validate(&json!("0x12")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "does not match the pattern ^0x[a-fA-F0-9]{40}$"
        );
    }

    // ---- coerce_str ----

    #[test]
    fn coerce_str_per_primitive() {
        assert_eq!(z("number()", &[]).coerce_str("5"), Ok(json!(5)));
        assert_eq!(z("number()", &[]).coerce_str(" -2.5 "), Ok(json!(-2.5)));
        assert_eq!(z("number()", &[]).coerce_str("1e3"), Ok(json!(1000)));
        assert_eq!(z("boolean()", &[]).coerce_str("true"), Ok(json!(true)));
        assert_eq!(z("boolean()", &[]).coerce_str("false "), Ok(json!(false)));
        assert_eq!(z("string()", &[]).coerce_str(" a b "), Ok(json!(" a b ")));
        assert_eq!(z("enum(a,b)", &[]).coerce_str("b"), Ok(json!("b")));
        assert_eq!(
            z("array()", &[]).coerce_str("[\"bitcoin\",1]"),
            Ok(json!(["bitcoin", 1]))
        );
        assert_eq!(
            z("object()", &[]).coerce_str("{\"sql\":\"SELECT 1\"}"),
            Ok(json!({"sql": "SELECT 1"}))
        );
    }

    #[test]
    fn coerce_str_errors() {
        assert_eq!(
            z("number()", &[])
                .coerce_str("abc")
                .unwrap_err()
                .to_string(),
            "cannot read \"abc\" as a number"
        );
        assert!(z("number()", &[]).coerce_str("NaN").is_err());
        assert!(z("number()", &[]).coerce_str("inf").is_err());
        assert!(z("number()", &[]).coerce_str("").is_err());
        assert_eq!(
            z("boolean()", &[])
                .coerce_str("yes")
                .unwrap_err()
                .to_string(),
            "cannot read \"yes\" as a boolean; expected true or false"
        );
        assert!(z("boolean()", &[]).coerce_str("True").is_err());
        let e = z("array()", &[]).coerce_str("a,b").unwrap_err();
        assert!(matches!(
            e,
            ZValueError::NotJson {
                expected: "array",
                ..
            }
        ));
        assert!(
            e.to_string()
                .starts_with("cannot read the text as a JSON array: ")
        );
        assert_eq!(
            z("array()", &[]).coerce_str("{}").unwrap_err().to_string(),
            "cannot read the text as a JSON array: found an object"
        );
        assert_eq!(
            z("object()", &[])
                .coerce_str("[1]")
                .unwrap_err()
                .to_string(),
            "cannot read the text as a JSON object: found an array"
        );
        let long = "9".repeat(400) + "x";
        match z("number()", &[]).coerce_str(&long).unwrap_err() {
            ZValueError::NotANumber { text } => assert!(text.ends_with('…')),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn value_error_messages() {
        assert_eq!(
            ZValueError::PatternMismatch {
                pattern: "x".into()
            }
            .to_string(),
            "does not match the pattern x"
        );
        assert_eq!(
            ZValueError::BelowMin {
                min: "1".into(),
                actual: "0".into()
            }
            .to_string(),
            "must be at least 1 (found 0)"
        );
    }
}
