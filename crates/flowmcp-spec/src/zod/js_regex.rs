//! The compat `regex(...)` option: [`JsRegex`], a JavaScript pattern translated into
//! `regex` crate syntax with the same meaning, and [`JsRegexError`] when it does not
//! compile.

use regex::{Regex, RegexBuilder};
use thiserror::Error;

/// Upper bound, in bytes, for the compiled program and the lazy DFA of a `regex(...)`
/// option ([`RegexBuilder::size_limit`] and [`RegexBuilder::dfa_size_limit`]).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Why the text of a `regex(...)` option does not compile ([`JsRegex::new`]).
///
/// The display text is the reason quoted by `ZodError::InvalidRegex`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum JsRegexError {
    /// Nothing inside `regex()`.
    #[error("regex() needs a pattern")]
    MissingPattern,
    /// A literal with delimiters but no body, e.g. `//i`.
    #[error("the pattern is empty")]
    EmptyPattern,
    /// The pattern ends with a `\` that escapes nothing.
    #[error("the pattern ends with a lone backslash")]
    LoneBackslash,
    /// The compiled pattern would exceed [`REGEX_SIZE_LIMIT`].
    #[error("the pattern is too large (compiled size limit {limit} bytes)")]
    TooLarge {
        /// The size limit, in bytes, reported by the `regex` crate.
        limit: usize,
    },
    /// The `regex` crate rejects the translated pattern, e.g. look-around, a
    /// back-reference or broken syntax.
    #[error("{reason}")]
    Invalid {
        /// The last non-empty line of the `regex` crate's message, which names the problem.
        reason: String,
    },
}

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
    /// Shared by clones: a `Regex`'s own clone shares the compiled program but starts a new pool
    /// of search caches, whose lazy DFA then has to be built again on its first search.
    regex: std::sync::Arc<Regex>,
}

impl PartialEq for JsRegex {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl JsRegex {
    /// Compiles the text written inside `regex(...)`.
    pub fn new(text: &str) -> Result<JsRegex, JsRegexError> {
        // Rules parse the same options several times per file; compiled patterns are cached per
        // thread (clones share the compiled program and its search caches).
        thread_local! {
            static CACHE: std::cell::RefCell<std::collections::HashMap<String, Result<JsRegex, JsRegexError>>> =
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

    fn compile(text: &str) -> Result<JsRegex, JsRegexError> {
        if text.is_empty() {
            return Err(JsRegexError::MissingPattern);
        }
        let (body, flags) = split_regex_literal(text);
        if body.is_empty() {
            return Err(JsRegexError::EmptyPattern);
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
            .map_err(|e| regex_error(&e))?;
        Ok(JsRegex {
            source: text.to_string(),
            regex: std::sync::Arc::new(regex),
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

/// A regex error as a [`JsRegexError`]: the size limit, or the last non-empty line of the
/// message, which names the problem.
fn regex_error(error: &regex::Error) -> JsRegexError {
    match error {
        regex::Error::CompiledTooBig(limit) => JsRegexError::TooLarge { limit: *limit },
        other => {
            let text = other.to_string();
            let reason = text
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().trim_start_matches("error: ").to_string())
                .unwrap_or(text);
            JsRegexError::Invalid { reason }
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
fn translate_js_pattern(body: &str, dot_all: bool) -> Result<String, JsRegexError> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = String::with_capacity(body.len() + 16);
    let mut in_class = false;
    let mut prev = ClassPrev::NoRangeStart;
    // Open groups: a `)` with none open is a SyntaxError in JavaScript ("Unmatched ')'"), and
    // passed on it could close the group the `y` flag wraps the pattern in (issue #31 item 5).
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let Some(&e) = chars.get(i + 1) else {
                return Err(JsRegexError::LoneBackslash);
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
            '(' | ')' => {
                if c == '(' {
                    depth += 1;
                } else if let Some(d) = depth.checked_sub(1) {
                    depth = d;
                } else {
                    return Err(JsRegexError::Invalid {
                        reason: "unmatched ')'".to_string(),
                    });
                }
                out.push(c);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zod::{ZOption, ZodError};

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
        let empty = JsRegex::new("").unwrap_err();
        assert_eq!(empty, JsRegexError::MissingPattern);
        assert_eq!(empty.to_string(), "regex() needs a pattern");
        let no_body = JsRegex::new("//i").unwrap_err();
        assert_eq!(no_body, JsRegexError::EmptyPattern);
        assert_eq!(no_body.to_string(), "the pattern is empty");
        let backslash = JsRegex::new("abc\\").unwrap_err();
        assert_eq!(backslash, JsRegexError::LoneBackslash);
        assert_eq!(
            backslash.to_string(),
            "the pattern ends with a lone backslash"
        );
        assert!(matches!(
            JsRegex::new("(?=a)"),
            Err(JsRegexError::Invalid { .. })
        ));
        assert!(matches!(
            JsRegex::new("(a)\\1"),
            Err(JsRegexError::Invalid { .. })
        ));
        match JsRegex::new("(").unwrap_err() {
            JsRegexError::Invalid { reason } => {
                assert!(!reason.is_empty() && !reason.contains('\n'), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let big = JsRegex::new(r"(?:.{1000}){50}").unwrap_err();
        assert!(matches!(big, JsRegexError::TooLarge { .. }), "{big:?}");
        assert!(big.to_string().contains("too large"), "{big}");
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

    #[test]
    fn i31_5_unmatched_close_paren_is_refused() {
        // An unmatched `)` is refused as JavaScript refuses it, with `y` (whose
        // wrapping group it would otherwise close) and without.
        for text in ["/)(/y", ")(", "a)", "/(a))(/y", "(a)|b)", "/[(])/"] {
            assert_eq!(
                JsRegex::new(text).unwrap_err(),
                JsRegexError::Invalid {
                    reason: "unmatched ')'".into()
                },
                "{text}"
            );
        }
        for text in [
            r"\)",
            "[)]",
            r"[\]]",
            "(a)(b)",
            "/((a)|b)/y",
            "(?:a)",
            "(?<n>a)",
        ] {
            assert!(JsRegex::new(text).is_ok(), "{text}");
        }
        // The fuzz finding, replayed from its file (`<flags>\0<pattern>\0<subject>`).
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            // A link to the workspace's `fuzz/regressions/regex` (a copy in the package).
            "/tests/regex-regressions/accepts-unmatched-close-paren.txt"
        );
        let input = std::fs::read_to_string(path).unwrap();
        let mut parts = input.splitn(3, '\0');
        let (flags, pattern) = (parts.next().unwrap(), parts.next().unwrap());
        assert!(JsRegex::new(&format!("/{pattern}/{flags}")).is_err());
    }
}
