//! Rules on shared-list references (structure only): VAL070, VAL071, VAL074, VAL075; and
//! `schemaVersion`/`schemaHash`: VAL086, VAL087 (N-20).
//!
//! Whether a referenced list exists and its version matches (VAL072, VAL073) needs the list
//! registry and is checked elsewhere.

use std::collections::HashSet;

use flowmcp_loader::scan;
use flowmcp_spec::zod::find_interpolations;
use flowmcp_spec::{Code, Collector, JsonPath, hash};
use serde_json::{Map, Value};

use super::{SchemaCtx, SchemaRule, main_path, shown, type_name};

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL070],
        check: val070_list_ref,
    },
    SchemaRule {
        codes: &[Code::VAL071],
        check: val071_list_version,
    },
    SchemaRule {
        codes: &[Code::VAL074],
        check: val074_list_filter,
    },
    SchemaRule {
        codes: &[Code::VAL075],
        check: val075_unused_list,
    },
    SchemaRule {
        codes: &[Code::VAL086],
        check: val086_schema_version,
    },
    SchemaRule {
        codes: &[Code::VAL087],
        check: val087_schema_hash,
    },
];

/// Every entry of `main.sharedLists` that is an object: `(entry, path)` with path
/// `main.sharedLists[<i>]`. (VAL024 reports a `sharedLists` that is not an array of objects.)
fn each_list_ref<'a>(ctx: &SchemaCtx<'a>) -> Vec<(&'a Map<String, Value>, JsonPath)> {
    let Some(Value::Array(entries)) = ctx.main().and_then(|m| m.get("sharedLists")) else {
        return Vec::new();
    };
    let path = main_path("sharedLists");
    entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.as_object().map(|o| (o, path.index(i))))
        .collect()
}

/// The message for a string that is not semver.
fn semver_message(text: &str) -> String {
    format!(
        "Must be semver such as \"1.0.0\" (found {})",
        shown(&Value::String(text.to_string()))
    )
}

fn is_semver(text: &str) -> bool {
    semver::Version::parse(text).is_ok()
}

/// VAL070: `sharedLists[].ref` is required and a non-empty string.
pub fn val070_list_ref(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (entry, path) in each_list_ref(ctx) {
        let path = path.key("ref");
        match entry.get("ref") {
            None => {
                let help = entry
                    .contains_key("name")
                    .then(|| "the list's name goes in `ref` (found `name`)".to_string());
                c.emit_help(
                    Code::VAL070,
                    Some(&path),
                    "Missing required field \"ref\"",
                    help,
                );
            }
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(other) => {
                c.emit(
                    Code::VAL070,
                    Some(&path),
                    format!("Must be a non-empty string (found {})", shown(other)),
                );
            }
        }
    }
}

/// VAL071: `sharedLists[].version` is required and a semver string.
pub fn val071_list_version(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (entry, path) in each_list_ref(ctx) {
        let path = path.key("version");
        match entry.get("version") {
            None => {
                c.emit(
                    Code::VAL071,
                    Some(&path),
                    "Missing required field \"version\"",
                );
            }
            Some(Value::String(v)) if is_semver(v) => {}
            Some(Value::String(v)) => {
                c.emit(Code::VAL071, Some(&path), semver_message(v));
            }
            Some(other) => {
                c.emit(
                    Code::VAL071,
                    Some(&path),
                    format!("Must be a semver string (found {})", type_name(other)),
                );
            }
        }
    }
}

/// The filter operators; a filter has exactly one.
const FILTER_OPERATORS: &[&str] = &["exists", "value", "in"];

/// Every key a filter may hold (`field` is an alias of `key`, N-11).
const FILTER_KEYS: &[&str] = &["key", "field", "exists", "value", "in"];

/// The filter forms, for messages.
const FILTER_FORMS: &str = "{ key, exists: true }, { key, value } or { key, in: [...] }";

fn is_scalar(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// VAL074: `sharedLists[].filter`, when present, is one of `{ key, exists: true }`,
/// `{ key, value }` and `{ key, in: [...] }` (N-11), where `key` is a non-empty string (`field` is
/// accepted as its alias in every form), `value` and the items of `in` are strings, numbers or
/// booleans, `in` is not empty, and no other keys appear.
pub fn val074_list_filter(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (entry, path) in each_list_ref(ctx) {
        let Some(filter) = entry.get("filter") else {
            continue;
        };
        let path = path.key("filter");
        let Some(f) = filter.as_object() else {
            c.emit(
                Code::VAL074,
                Some(&path),
                format!(
                    "Must be an object {FILTER_FORMS} (found {})",
                    type_name(filter)
                ),
            );
            continue;
        };
        check_filter_key(c, f, &path);
        let operators: Vec<&str> = FILTER_OPERATORS
            .iter()
            .copied()
            .filter(|k| f.contains_key(*k))
            .collect();
        match operators.as_slice() {
            [] => {
                c.emit(
                    Code::VAL074,
                    Some(&path),
                    format!("Must be one of {FILTER_FORMS} (found no exists, value or in)"),
                );
            }
            [op] => check_filter_operator(c, f, &path, op),
            [first, rest @ ..] => {
                for op in rest {
                    c.emit(
                        Code::VAL074,
                        Some(&path.key(op)),
                        format!(
                            "Must be the only operator of the filter (found \"{op}\" next to \"{first}\")"
                        ),
                    );
                }
            }
        }
        for key in f.keys() {
            if !FILTER_KEYS.contains(&key.as_str()) {
                c.emit(
                    Code::VAL074,
                    Some(&path.key(key)),
                    format!("Unknown field \"{key}\" in filter (allowed: {FILTER_FORMS})"),
                );
            }
        }
    }
}

/// VAL074 for the filter's `key` (or its alias `field`).
fn check_filter_key(c: &mut Collector<'_>, f: &Map<String, Value>, path: &JsonPath) {
    let (name, value) = match (f.get("key"), f.get("field")) {
        (Some(_), Some(_)) => {
            c.emit(
                Code::VAL074,
                Some(&path.key("field")),
                "Must not appear together with \"key\" (\"field\" is an alias of \"key\")",
            );
            return;
        }
        (None, None) => {
            c.emit(
                Code::VAL074,
                Some(&path.key("key")),
                "Missing required field \"key\"",
            );
            return;
        }
        (Some(v), None) => ("key", v),
        (None, Some(v)) => ("field", v),
    };
    match value {
        Value::String(s) if !s.is_empty() => {}
        other => {
            c.emit(
                Code::VAL074,
                Some(&path.key(name)),
                format!("Must be a non-empty string (found {})", shown(other)),
            );
        }
    }
}

/// VAL074 for the filter's single operator.
fn check_filter_operator(c: &mut Collector<'_>, f: &Map<String, Value>, path: &JsonPath, op: &str) {
    let Some(value) = f.get(op) else { return };
    let at = path.key(op);
    match op {
        "exists" => {
            if value != &Value::Bool(true) {
                c.emit(
                    Code::VAL074,
                    Some(&at),
                    format!("Must be true (found {})", shown(value)),
                );
            }
        }
        "value" => {
            if !is_scalar(value) {
                c.emit(
                    Code::VAL074,
                    Some(&at),
                    format!(
                        "Must be a string, number or boolean (found {})",
                        type_name(value)
                    ),
                );
            }
        }
        _ => match value {
            Value::Array(items) if items.is_empty() => {
                c.emit(
                    Code::VAL074,
                    Some(&at),
                    "Must be a non-empty array (found [])",
                );
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if !is_scalar(item) {
                        c.emit(
                            Code::VAL074,
                            Some(&at.index(i)),
                            format!(
                                "Must be a string, number or boolean (found {})",
                                type_name(item)
                            ),
                        );
                    }
                }
            }
            other => {
                c.emit(
                    Code::VAL074,
                    Some(&at),
                    format!("Must be a non-empty array (found {})", type_name(other)),
                );
            }
        },
    }
}

/// VAL075 (warning): a declared shared list that nothing uses.
///
/// A reference `{ ref: 'evmChains' }` counts as used when either
/// 1. a string anywhere in `main` outside `main.sharedLists` (parameter primitives and options, in
///    tools and resources alike) contains a list interpolation `{{evmChains:<field>}}`; or
/// 2. the file's source text outside the `main` object literal, with comments ignored, mentions the
///    name: as a whole identifier (`sharedLists.evmChains`, `sharedLists?.evmChains`,
///    `const { evmChains } = sharedLists`) or as the entire content of a string literal
///    (`sharedLists['evmChains']`, `sharedLists[ "evmChains" ]`).
///
/// When the `main` literal cannot be located in the source (e.g. `main` is built by a call), or the
/// source is not available, handler use is assumed and nothing is reported.
pub fn val075_unused_list(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let refs: Vec<(&str, JsonPath)> = each_list_ref(ctx)
        .into_iter()
        .filter_map(|(entry, path)| {
            entry
                .get("ref")
                .and_then(Value::as_str)
                .filter(|r| !r.is_empty())
                .map(|r| (r, path))
        })
        .collect();
    if refs.is_empty() {
        return;
    }
    let Some(main) = ctx.main() else { return };
    let interpolated = interpolated_lists(main);
    let Some(outside) = ctx
        .loaded
        .source
        .as_deref()
        .and_then(SourceOutsideMain::new)
    else {
        return;
    };
    for (name, path) in refs {
        if interpolated.contains(name) || outside.mentions(name) {
            continue;
        }
        c.emit_help(
            Code::VAL075,
            Some(&path),
            format!(
                "Shared list \"{name}\" is declared but used by no parameter ({{{{{name}:field}}}}) or handler"
            ),
            Some(format!(
                "remove the reference, or use it: `enum({{{{{name}:<field>}}}})` or `sharedLists.{name}` in a handler"
            )),
        );
    }
}

/// The list names of every `{{list:field}}` interpolation in a string of `main`, except under
/// `main.sharedLists`. Walks with an explicit stack.
fn interpolated_lists(main: &Map<String, Value>) -> HashSet<String> {
    let mut found = HashSet::new();
    let mut stack: Vec<&Value> = main
        .iter()
        .filter(|(k, _)| k.as_str() != "sharedLists")
        .map(|(_, v)| v)
        .collect();
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if s.contains("{{") => {
                for i in find_interpolations(s) {
                    if let Some((list, _)) = i.as_list_ref() {
                        found.insert(list.to_string());
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    found
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifiers and plain string literals of a source text outside its `main` object literal,
/// with comments ignored (read from the blanked source, see [`scan::blank`]).
struct SourceOutsideMain {
    identifiers: HashSet<String>,
    strings: HashSet<String>,
}

impl SourceOutsideMain {
    /// `None` when the `main` literal cannot be located.
    fn new(source: &str) -> Option<SourceOutsideMain> {
        let original: Vec<char> = source.chars().collect();
        let blanked: Vec<char> = scan::blank(source).chars().collect();
        if original.len() != blanked.len() {
            return None;
        }
        let (open, close) = main_literal(&blanked)?;
        let mut out = SourceOutsideMain {
            identifiers: HashSet::new(),
            strings: HashSet::new(),
        };
        let mut i = 0;
        while i < blanked.len() {
            if i == open {
                i = close + 1;
                continue;
            }
            let ch = blanked[i];
            if matches!(ch, '\'' | '"' | '`') {
                // Contents are blanked to spaces, so a literal runs to the next identical quote and
                // holds only spaces in between. Anything else (a template with `${ … }`, a line
                // continuation, a quote inside a regular expression) is read on as code.
                let plain_end = blanked[i + 1..]
                    .iter()
                    .position(|c| *c != ' ')
                    .map(|n| i + 1 + n)
                    .filter(|end| blanked[*end] == ch);
                if let Some(end) = plain_end {
                    out.strings.insert(original[i + 1..end].iter().collect());
                    i = end + 1;
                } else {
                    i += 1;
                }
                continue;
            }
            if is_ident_start(ch) && (i == 0 || !is_ident_char(blanked[i - 1])) {
                let start = i;
                while i < blanked.len() && is_ident_char(blanked[i]) {
                    i += 1;
                }
                out.identifiers.insert(blanked[start..i].iter().collect());
                continue;
            }
            i += 1;
        }
        Some(out)
    }

    fn mentions(&self, name: &str) -> bool {
        self.identifiers.contains(name) || self.strings.contains(name)
    }
}

/// The character positions of the `{` and `}` of the object literal in `const|let|var main = { … }`
/// (blanked text, so brackets inside strings and comments are gone).
fn main_literal(b: &[char]) -> Option<(usize, usize)> {
    let word_at = |i: usize, w: &str| -> bool {
        let n = w.chars().count();
        i + n <= b.len()
            && b[i..i + n].iter().copied().eq(w.chars())
            && (i == 0 || !is_ident_char(b[i - 1]))
            && b.get(i + n).is_none_or(|c| !is_ident_char(*c))
    };
    let skip_ws = |mut i: usize| -> usize {
        while i < b.len() && b[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = 0;
    while i < b.len() {
        let decl = ["const", "let", "var"]
            .into_iter()
            .find(|w| word_at(i, w))
            .map(str::len);
        let Some(len) = decl else {
            i += 1;
            continue;
        };
        let name = skip_ws(i + len);
        i += len;
        if name == i || !word_at(name, "main") {
            continue;
        }
        let eq = skip_ws(name + 4);
        if b.get(eq) != Some(&'=') || b.get(eq + 1) == Some(&'=') {
            continue;
        }
        let open = skip_ws(eq + 1);
        if b.get(open) != Some(&'{') {
            return None;
        }
        let mut depth = 0usize;
        for (j, c) in b.iter().enumerate().skip(open) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some((open, j));
                    }
                }
                _ => {}
            }
        }
        return None;
    }
    None
}

/// VAL086: `main.schemaVersion`, when present, is a semver string (N-20).
pub fn val086_schema_version(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(value) = ctx.main().and_then(|m| m.get("schemaVersion")) else {
        return;
    };
    let path = main_path("schemaVersion");
    match value {
        Value::String(v) if is_semver(v) => {}
        Value::String(v) => {
            c.emit(Code::VAL086, Some(&path), semver_message(v));
        }
        other => {
            c.emit(
                Code::VAL086,
                Some(&path),
                format!("Must be a semver string (found {})", type_name(other)),
            );
        }
    }
}

fn is_hash_shape(s: &str) -> bool {
    s.len() == 8 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// VAL087 (warning): `main.schemaHash`, when present, is 8 lowercase hex digits equal to
/// [`hash::schema_hash`] of `main` (N-20, RULINGS "Hashes"). A malformed or stale hash is reported
/// with the expected value.
pub fn val087_schema_hash(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.exports.get("main") else {
        return;
    };
    let Some(value) = main.as_object().and_then(|m| m.get("schemaHash")) else {
        return;
    };
    let expected = hash::schema_hash(main);
    let help = Some("`flowmcp hash <file>` prints the value".to_string());
    let path = main_path("schemaHash");
    match value {
        Value::String(s) if *s == expected => {}
        Value::String(s) if is_hash_shape(s) => {
            c.emit_help(
                Code::VAL087,
                Some(&path),
                format!("Must equal the recomputed hash \"{expected}\" (found \"{s}\")"),
                help,
            );
        }
        other => {
            c.emit_help(
                Code::VAL087,
                Some(&path),
                format!(
                    "Must be 8 lowercase hex digits equal to the recomputed hash \"{expected}\" (found {})",
                    shown(other)
                ),
                help,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_the_main_literal() {
        let src =
            "// main = {\nexport const main = { a: '}', b: { c: `x${ {d:1}.d }` } }\nconst x = 1";
        let blanked: Vec<char> = scan::blank(src).chars().collect();
        let (open, close) = main_literal(&blanked).unwrap();
        let text: String = src.chars().collect::<Vec<_>>()[open..=close]
            .iter()
            .collect();
        assert_eq!(text, "{ a: '}', b: { c: `x${ {d:1}.d }` } }");
        assert!(
            main_literal(&scan::blank("const mainly = {}").chars().collect::<Vec<_>>()).is_none()
        );
        assert!(
            main_literal(
                &scan::blank("const main = build()")
                    .chars()
                    .collect::<Vec<_>>()
            )
            .is_none()
        );
        assert!(
            main_literal(
                &scan::blank("const main = { a: 1")
                    .chars()
                    .collect::<Vec<_>>()
            )
            .is_none()
        );
    }

    #[test]
    fn mentions_outside_main_only() {
        let src = r#"export const main = { sharedLists: [ { ref: 'evmChains', version: '1.0.0' } ], x: 'fiat' }
// sharedLists.commented
export const handlers = ( { sharedLists } ) => {
    const { tokens } = sharedLists
    const a = sharedLists[ 'chains' ]
    const b = sharedLists["other"]
    const t = `${ sharedLists.templ }`
    return {}
}"#;
        let s = SourceOutsideMain::new(src).unwrap();
        for used in ["tokens", "chains", "other", "templ", "sharedLists"] {
            assert!(s.mentions(used), "{used}");
        }
        for unused in ["evmChains", "fiat", "commented", "chain"] {
            assert!(!s.mentions(unused), "{unused}");
        }
        assert!(SourceOutsideMain::new("export const main = make()").is_none());
    }

    #[test]
    fn interpolations_outside_shared_lists() {
        let main = json!({
            "sharedLists": [ { "ref": "a", "note": "{{b:x}}" } ],
            "tools": { "t": { "parameters": [ { "z": { "primitive": "enum(x,{{c:alias}})", "options": [] } } ] } },
            "resources": { "r": { "queries": { "q": { "parameters": [ { "z": { "primitive": "enum({{d:id}})" } } ] } } } }
        });
        let found = interpolated_lists(main.as_object().unwrap());
        let mut names: Vec<_> = found.into_iter().collect();
        names.sort();
        assert_eq!(names, vec!["c", "d"]);
    }

    #[test]
    fn hash_shape() {
        assert!(is_hash_shape("a91ee727"));
        assert!(!is_hash_shape("A91EE727"));
        assert!(!is_hash_shape("a91ee72"));
        assert!(!is_hash_shape("a91ee7270"));
        assert!(!is_hash_shape("g91ee727"));
    }
}
