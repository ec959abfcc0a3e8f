//! Differential fuzzing of `flowmcp_spec::zod::JsRegex` (the compat `regex(...)` option) against
//! JavaScript itself: the sandboxed QuickJS of `flowmcp_loader::eval::evaluate` runs
//! `new RegExp(pattern, flags).test(subject)`.
//!
//! `JsRegex` documents that it compiles a pattern "with JavaScript semantics as far as the regex
//! crate allows" and reports unsupported syntax (look-around, back-references) as invalid. So:
//! * when `JsRegex` compiles `/pattern/flags` and JavaScript compiles it too, both must give the
//!   same answer for the subject;
//! * when `JsRegex` compiles a pattern JavaScript rejects, `regex(...)` accepts a schema the
//!   reference implementation would throw on: also reported.
//!
//! A pattern `JsRegex` refuses is fine (documented).
//!
//! Input: `<flags>\0<pattern>\0<subject>` (UTF-8); flags are the distinct letters of `gimsy` found
//! in the first part (`u`, `v` and `d` are left out: `u`/`v` change JavaScript's syntax and
//! semantics, which `JsRegex` ignores). Pattern and subject are at most 64 characters, and a
//! JavaScript run longer than 250 ms (catastrophic backtracking) is skipped.
//!
//! Known divergences are skipped unless `FLOWMCP_FUZZ_STRICT=1` (see `known_divergence`); they are
//! listed in fuzz/regressions/regex/.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use flowmcp_loader::Limits;
use flowmcp_loader::eval::evaluate;
use flowmcp_spec::zod::JsRegex;
use libfuzzer_sys::fuzz_target;

const MAX_CHARS: usize = 64;

fuzz_target!(|data: &str| {
    let mut parts = data.splitn(3, '\0');
    let (Some(flag_text), Some(pattern), Some(subject)) =
        (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    if pattern.chars().count() > MAX_CHARS || subject.chars().count() > MAX_CHARS {
        return;
    }
    let mut flags = String::new();
    for c in flag_text.chars() {
        if "gimsy".contains(c) && !flags.contains(c) {
            flags.push(c);
        }
    }
    let text = format!("/{pattern}/{flags}");
    let Ok(re) = JsRegex::new(&text) else {
        return;
    };
    if !strict() && known_divergence(pattern, &flags, subject) {
        return;
    }
    let ours = re.is_match(subject);
    match js_test(pattern, &flags, subject) {
        Some(Js::Match(theirs)) => assert_eq!(
            ours, theirs,
            "JsRegex says {ours}, JavaScript says {theirs} for {text:?} on {subject:?}"
        ),
        Some(Js::SyntaxError) => {
            panic!("JsRegex accepts {text:?}, JavaScript throws a SyntaxError")
        }
        None => {}
    }
});

enum Js {
    Match(bool),
    SyntaxError,
}

/// `new RegExp(pattern, flags).test(subject)` in QuickJS; `None` when the engine did not answer
/// (time limit, internal failure).
fn js_test(pattern: &str, flags: &str, subject: &str) -> Option<Js> {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let source = format!(
        "let r = 3;\n\
         try {{ r = new RegExp({}, {}).test({}) ? 1 : 0; }}\n\
         catch (e) {{ r = e instanceof SyntaxError ? 2 : 3; }}\n\
         export const main = {{ r }};\n",
        quote(pattern),
        quote(flags),
        quote(subject)
    );
    let mut limits = Limits::default();
    limits.eval_timeout = Duration::from_millis(250);
    let exports = evaluate("regex.mjs", &source, &limits).ok()?;
    match exports.get("main")?.get("r")?.as_i64()? {
        0 => Some(Js::Match(false)),
        1 => Some(Js::Match(true)),
        2 => Some(Js::SyntaxError),
        _ => None,
    }
}

/// True when `FLOWMCP_FUZZ_STRICT=1`: known divergences are checked too.
fn strict() -> bool {
    static STRICT: OnceLock<bool> = OnceLock::new();
    *STRICT.get_or_init(|| std::env::var_os("FLOWMCP_FUZZ_STRICT").is_some_and(|v| v == "1"))
}

/// Inputs that hit a divergence already known (and reported), so that fuzzing can go on past it.
fn known_divergence(pattern: &str, flags: &str, subject: &str) -> bool {
    let both = || pattern.chars().chain(subject.chars());
    // JavaScript without `u` works on UTF-16 code units: an astral character is two of them.
    if both().any(|c| u32::from(c) > 0xFFFF) {
        return true;
    }
    // `i`: JavaScript's canonicalisation (toUpperCase, never mapping non-ASCII to ASCII) differs
    // from the regex crate's simple case folding outside ASCII (`ſ`, `K`, …).
    if flags.contains('i') && !both().all(|c| c.is_ascii()) {
        return true;
    }
    // `m`: `^`/`$` see only `\n` in the regex crate, also `\r`, U+2028, U+2029 in JavaScript.
    if flags.contains('m') && subject.contains(['\r', '\u{2028}', '\u{2029}']) {
        return true;
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let Some(&e) = chars.get(i + 1) else {
                    return false;
                };
                let rest = &chars[i + 2..];
                let hex =
                    |n: usize| rest.len() >= n && rest[..n].iter().all(char::is_ascii_hexdigit);
                let known = match e {
                    // `\s`: Unicode White_Space in the regex crate (has U+0085, lacks U+FEFF).
                    's' | 'S' => subject.contains(['\u{85}', '\u{FEFF}']),
                    'd' | 'D' | 'w' | 'W' | 'b' | 'B' | 'f' | 'n' | 'r' | 't' | 'v' | '0' => false,
                    'c' => !rest.first().is_some_and(char::is_ascii_alphabetic),
                    // `\x{…}`, `\u{…}` and short forms: JavaScript (without `u`) reads an identity
                    // escape, the regex crate a code point.
                    'x' => !hex(2) || rest.first() == Some(&'{'),
                    'u' => !hex(4) || rest.first() == Some(&'{'),
                    // Other letters: identity escapes in JavaScript (`\a` is `a`), the regex crate
                    // has `\a` (bell), `\A`, `\z`, `\pL`, `\U…`, ….
                    c if c.is_ascii_alphabetic() => true,
                    _ => false,
                };
                // `\b?`: a quantified assertion, see below.
                if known || (matches!(e, 'b' | 'B') && quantifier_at(&chars, i + 2)) {
                    return true;
                }
                i += 2;
            }
            // `(?i)`, `(?P<n>…)`, `(?x:…)`: the regex crate's own group syntax.
            '(' if chars.get(i + 1) == Some(&'?')
                && chars
                    .get(i + 2)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == '-') =>
            {
                return true;
            }
            // `^?`, `$*`: JavaScript has "nothing to repeat", the regex crate repeats the assertion.
            '^' | '$' if quantifier_at(&chars, i + 1) => return true,
            // `a{2,1` (no `}`): a literal in JavaScript (Annex B `ExtendedPatternCharacter`, as V8
            // reads it), but this QuickJS throws a SyntaxError: a quirk of the oracle.
            '{' if chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && !quantifier_at(&chars, i) =>
            {
                return true;
            }
            // `a+*`, `a{2}+`, `a*?+`: the same for a repeated repetition.
            '*' | '+' | '?' | '{' if quantifier_at(&chars, i) => {
                let mut end = i + quantifier_len(&chars, i);
                if chars.get(end) == Some(&'?') {
                    end += 1;
                }
                if quantifier_at(&chars, end) {
                    return true;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    false
}

/// The length of the quantifier at `at`: 1 for `*`, `+`, `?`; for `{n}`, `{n,}` or `{n,m}` up to
/// its `}`; 0 when there is none.
fn quantifier_len(chars: &[char], at: usize) -> usize {
    match chars.get(at) {
        Some('*' | '+' | '?') => 1,
        Some('{') => {
            let digits = |from: usize| {
                chars
                    .get(from..)
                    .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
            };
            let mut i = at + 1;
            let n = digits(i);
            if n == 0 {
                return 0;
            }
            i += n;
            if chars.get(i) == Some(&',') {
                i += 1;
                i += digits(i);
            }
            if chars.get(i) == Some(&'}') {
                i + 1 - at
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// True when a quantifier (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`) starts at `at`.
fn quantifier_at(chars: &[char], at: usize) -> bool {
    quantifier_len(chars, at) > 0
}
