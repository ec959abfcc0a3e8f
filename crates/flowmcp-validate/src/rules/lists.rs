//! Rules on shared-list references: the structure (VAL070, VAL071, VAL074, VAL075), and, with the
//! list registry the schema sees ([`SchemaCtx::registry`]), existence (VAL072), version (VAL073),
//! fields (VAL049) and hard-coded duplicates (VAL107); VAL088 says when the registry rules were
//! skipped. Also `schemaVersion`/`schemaHash` (both optional): VAL086, VAL087.
//!
//! Without a registry (no `_lists/` found walking up from the schema, see [`crate::lists`]), VAL049,
//! VAL072, VAL073 and VAL107 are not checked, TST004 accepts any string for a list-interpolated
//! enum, and a schema that declares shared lists gets one VAL088 info saying so.

use std::collections::HashSet;

use flowmcp_loader::scan::blank_aligned;
use flowmcp_spec::diagnostic::{Applicability, Collector, Edit, Fix};
use flowmcp_spec::lists::is_scalar;
use flowmcp_spec::placeholder::find_interpolations;
use flowmcp_spec::zod::{EnumItem, Options, Primitive};
use flowmcp_spec::{Code, JsonPath, hash};
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, each_parameter, main_path, shown, type_name};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
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
        codes: &[Code::VAL088],
        check: val088_registry_rules_skipped,
    },
    SchemaRule {
        codes: &[Code::VAL072],
        check: val072_list_exists,
    },
    SchemaRule {
        codes: &[Code::VAL073],
        check: val073_list_version_matches,
    },
    SchemaRule {
        codes: &[Code::VAL049],
        check: val049_list_field_exists,
    },
    SchemaRule {
        codes: &[Code::VAL107],
        check: val107_hardcoded_list_values,
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
    let Some(Value::Array(entries)) = ctx.main_field("sharedLists") else {
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

/// VAL070: An entry of `main.sharedLists` has no `ref`, or its `ref` is empty or not a string.
///
/// # Why
///
/// `ref` names the list in the list registry; without it there is nothing to resolve.
pub(super) fn val070_list_ref(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (entry, path) in each_list_ref(ctx) {
        let path = path.key("ref");
        match entry.field("ref") {
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

/// VAL071: `sharedLists[].version` is missing or not a semantic version such as `1.0.0`.
///
/// # Why
///
/// A schema pins the exact list version it was written against and the runtime rejects a mismatch,
/// so the pin has to be a valid version.
pub(super) fn val071_list_version(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (entry, path) in each_list_ref(ctx) {
        let path = path.key("version");
        match entry.field("version") {
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

/// Every key a filter may hold (`field` is an alias of `key`: the shared-lists chapter's examples
/// write `{ field, value }`).
const FILTER_KEYS: &[&str] = &["key", "field", "exists", "value", "in"];

/// The filter forms, for messages.
const FILTER_FORMS: &str = "{ key, exists: true }, { key, value } or { key, in: [...] }";

/// VAL074: The `filter` of a shared-list reference is not one of the three forms `{ key, exists:
/// true }`, `{ key, value }` and `{ key, in: [ … ] }`: `key` must be a non-empty string (`field` is
/// accepted as its alias in every form), `value` and the items of `in` must be strings, numbers or
/// booleans, `in` must not be empty, and the filter has exactly one operator and no other keys.
///
/// # Why
///
/// The filter selects which list entries reach the schema. Without a valid key the runtime cannot
/// apply it, and the schema would receive the wrong entries.
pub(super) fn val074_list_filter(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (entry, path) in each_list_ref(ctx) {
        let Some(filter) = entry.field("filter") else {
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
    let (name, value) = match (f.field("key"), f.field("field")) {
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
    let Some(value) = f.field(op) else { return };
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

/// VAL075: A list declared in `main.sharedLists` is used neither by a `{{list:field}}`
/// interpolation in a string of `main` outside `main.sharedLists` (parameter primitives and
/// options, in tools and resources alike) nor by name in the module's source outside the `main`
/// literal, comments ignored: as a whole identifier (`sharedLists.evmChains`,
/// `sharedLists?.evmChains`, `const { evmChains } = sharedLists`) or as the whole content of a
/// string literal (`sharedLists['evmChains']`). A warning. When the `main` literal cannot be
/// located in the source (for example because `main` is built by a call), or the source is not
/// available, handler use is assumed and nothing is reported.
///
/// # Why
///
/// Every declared list is resolved, filtered and frozen at load time. An unused one costs load time
/// and usually points at a leftover declaration or a typo in an interpolation.
pub(super) fn val075_unused_list(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let refs: Vec<(&str, JsonPath)> = each_list_ref(ctx)
        .into_iter()
        .filter_map(|(entry, path)| {
            entry
                .field("ref")
                .and_then(Value::as_str)
                .filter(|r| !r.is_empty())
                .map(|r| (r, path))
        })
        .collect();
    if refs.is_empty() {
        return;
    }
    if ctx.main_view().is_none() {
        return;
    }
    let interpolated = interpolated_lists(ctx);
    // Only the names no interpolation uses are looked for in the code.
    let unused: Vec<&(&str, JsonPath)> = refs
        .iter()
        .filter(|(name, _)| !interpolated.contains(*name))
        .collect();
    if unused.is_empty() {
        return;
    }
    let names: Vec<&str> = unused.iter().map(|(name, _)| *name).collect();
    let Some(mentioned) =
        ctx.loaded().source.as_deref().and_then(|source| {
            mentioned_outside_main(source, ctx.loaded().blanked.as_deref(), &names)
        })
    else {
        return;
    };
    for ((name, path), mentioned) in unused.into_iter().zip(mentioned) {
        if mentioned {
            continue;
        }
        c.emit_help(
            Code::VAL075,
            Some(path),
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
fn interpolated_lists(ctx: &SchemaCtx<'_>) -> HashSet<String> {
    let mut found = HashSet::new();
    for (_, s) in ctx
        .paired_strings()
        .iter()
        .filter(|(member, _)| *member != "sharedLists")
    {
        for i in find_interpolations(s) {
            if let Some((list, _)) = i.as_list_ref() {
                found.insert(list.to_string());
            }
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

/// Which of `names` a source text mentions outside its `main` object literal: as an identifier, or
/// as the whole text of a string literal without escapes or substitutions; comments ignored. The
/// text is read from its blanking (the loader's, when it has one: computed once per file, at the
/// source's byte offsets; otherwise the source is blanked here), in which strings and comments are
/// spaces. `None` when the `main` literal cannot be located.
///
/// One walk from the start: a quote followed by spaces and the same quote is a plain string (its
/// text is the source's between them); a run of identifier characters not preceded by one, and
/// starting with a letter, `_` or `$`, is an identifier; anything else is passed over a character
/// at a time, and the `main` literal at once.
fn mentioned_outside_main(
    source: &str,
    blanked: Option<&str>,
    names: &[&str],
) -> Option<Vec<bool>> {
    let owned;
    let blanked = match blanked.filter(|b| b.len() == source.len()) {
        Some(b) => b,
        None => {
            owned = blank_aligned(source);
            &owned
        }
    };
    let (open, close) = main_literal(blanked)?;
    let mut found = vec![false; names.len()];
    let mut left = names.len();
    let mut note = |text: &str| {
        for (i, name) in names.iter().enumerate() {
            if !found[i] && *name == text {
                found[i] = true;
                left -= 1;
            }
        }
        left == 0
    };
    let b = blanked.as_bytes();
    // The character at a byte offset (always a character's first byte: every step is a whole one).
    let char_at = |i: usize| match b.get(i) {
        Some(&c) if c < 0x80 => Some(char::from(c)),
        Some(_) => blanked.get(i..).and_then(|t| t.chars().next()),
        None => None,
    };
    let ident_before = |i: usize| match i.checked_sub(1).and_then(|j| b.get(j)) {
        None => false,
        Some(&c) if c < 0x80 => is_ident_char(char::from(c)),
        Some(_) => blanked[..i].chars().next_back().is_some_and(is_ident_char),
    };
    let mut i = 0;
    while let Some(ch) = char_at(i) {
        if i == open {
            i = close + 1;
            continue;
        }
        if matches!(ch, '\'' | '"' | '`') {
            if let Some(end) = plain_string_end(b, i) {
                if note(source.get(i + 1..end)?) {
                    break;
                }
                i = end + 1;
            } else {
                i += 1;
            }
            continue;
        }
        if is_ident_start(ch) && !ident_before(i) {
            let mut end = i + ch.len_utf8();
            while let Some(c) = char_at(end).filter(|c| is_ident_char(*c)) {
                end += c.len_utf8();
            }
            if note(&blanked[i..end]) {
                break;
            }
            i = end;
            continue;
        }
        i += ch.len_utf8();
    }
    Some(found)
}

/// Where the plain string literal opened by the quote at `open` ends (its closing quote), in a
/// blanked text `b`. Contents are blanked to spaces, so such a literal runs to the next identical
/// quote and holds only spaces in between; `None` for anything else (a template with `${ … }`, a
/// line continuation, a quote inside a regular expression), which is read on as code.
fn plain_string_end(b: &[u8], open: usize) -> Option<usize> {
    let quote = *b.get(open)?;
    let rest = b.get(open + 1..)?;
    let end = open + 1 + rest.iter().position(|c| *c != b' ')?;
    (b[end] == quote).then_some(end)
}

/// The byte offsets of the `{` and `}` of the object literal in `const|let|var main = { … }`
/// (blanked text, so brackets inside strings and comments are gone).
fn main_literal(text: &str) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    // `w` is ASCII, so a match starts and ends at character boundaries.
    let word_at = |i: usize, w: &str| -> bool {
        b.get(i..i + w.len()) == Some(w.as_bytes())
            && !text[..i].chars().next_back().is_some_and(is_ident_char)
            && !text[i + w.len()..]
                .chars()
                .next()
                .is_some_and(is_ident_char)
    };
    let skip_ws = |mut i: usize| -> usize {
        while let Some(c) = text.get(i..).and_then(|t| t.chars().next()) {
            if !c.is_whitespace() {
                break;
            }
            i += c.len_utf8();
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
        if b.get(eq) != Some(&b'=') || b.get(eq + 1) == Some(&b'=') {
            continue;
        }
        let open = skip_ws(eq + 1);
        if b.get(open) != Some(&b'{') {
            return None;
        }
        let mut depth = 0usize;
        for (j, c) in b.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
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

// ---------------------------------------------------------------------------------------
// Rules that need the list registry
// ---------------------------------------------------------------------------------------

/// VAL088: A schema declares `main.sharedLists`, but no `_lists/` directory is found walking up
/// from its directory, so the checks that need the lists' contents (VAL049, VAL072, VAL073, VAL107,
/// and TST004 for list-interpolated enums) are skipped. Reported once, at `main.sharedLists`, as
/// info.
///
/// # Why
///
/// A schema validated on its own, away from the catalog it belongs to, cannot see its lists.
/// Failing it for what cannot be judged would be wrong, and passing it silently would hide that
/// checks did not run; validating it inside its catalog runs them.
pub(super) fn val088_registry_rules_skipped(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(reason) = ctx.lists().missing_reason() else {
        return;
    };
    let declares = matches!(
        ctx.main_field("sharedLists"),
        Some(Value::Array(items)) if !items.is_empty()
    );
    if !declares {
        return;
    }
    c.emit_help(
        Code::VAL088,
        Some(&main_path("sharedLists")),
        format!(
            "Shared-list checks skipped (VAL049, VAL072, VAL073, VAL107, TST004 on list enums): {reason}"
        ),
        Some(
            "validate the schema inside its catalog, where `_lists/` lies next to or above it"
                .to_string(),
        ),
    );
}

/// At most this many names in a help line.
const NAMES_SHOWN: usize = 12;

/// `a, b, c` (and `… (N more)` beyond [`NAMES_SHOWN`]).
fn name_list<'n>(names: impl IntoIterator<Item = &'n str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    let mut text = names
        .iter()
        .take(NAMES_SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_SHOWN {
        text.push_str(&format!(", … ({} more)", names.len() - NAMES_SHOWN));
    }
    text
}

/// VAL072: An entry of `main.sharedLists` names (`ref`) a list that is not in the list registry the
/// schema sees: no list in the nearest `_lists/` directory has that `meta.name`. The help names the
/// lists that are available. Without a registry the check is skipped (VAL088).
///
/// # Why
///
/// The runtime resolves every reference by name when it loads the schema, and a list that does not
/// exist makes the load fail (chapter 03). Validation points at the typo or the missing list file
/// before a server start does.
pub(super) fn val072_list_exists(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(registry) = ctx.registry() else {
        return;
    };
    for r in ctx.list_refs() {
        if registry.get(&r.list).is_some() {
            continue;
        }
        let help = if let Some(file) = registry.unloaded_file_of(&r.list) {
            format!("{file} would define it, but it cannot be loaded: fix that file first")
        } else if registry.is_empty() {
            "the list registry (_lists/) holds no lists".to_string()
        } else {
            format!("available lists: {}", name_list(registry.names()))
        };
        c.emit_help(
            Code::VAL072,
            Some(&main_path("sharedLists").index(r.index).key("ref")),
            format!("Shared list \"{}\" not found in the list registry", r.list),
            Some(help),
        );
    }
}

/// VAL073: The `version` of a `main.sharedLists` entry is not the `meta.version` of the list it
/// names. The two must be equal as strings; no range of compatible versions is accepted. A version
/// that is not semver at all is left to VAL071.
///
/// # Why
///
/// A schema pins the list version it was written against. A new major version may remove or rename
/// entries and fields, so chapter 03 makes any mismatch a hard error: the schema has to be checked
/// against the current list and its pin updated, as the help suggests.
pub(super) fn val073_list_version_matches(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(registry) = ctx.registry() else {
        return;
    };
    for r in ctx.list_refs() {
        let (Some(list), Some(wanted)) = (registry.get(&r.list), r.version.as_deref()) else {
            continue;
        };
        // A list without a version is reported on the list itself (LST003).
        let Some(have) = list.version.as_deref() else {
            continue;
        };
        if !is_semver(wanted) || wanted == have {
            continue;
        }
        c.emit_help(
            Code::VAL073,
            Some(&main_path("sharedLists").index(r.index).key("version")),
            format!(
                "Must equal the version of shared list \"{}\" (\"{have}\"; found \"{wanted}\")",
                r.list
            ),
            Some(format!("pin version: '{have}'")),
        );
    }
}

/// The enum items of every tool parameter: `z.primitive` when it parses as `enum(...)`, and under
/// compat each `values(...)` option; with the path of the text they come from.
fn enum_sites(ctx: &SchemaCtx<'_>) -> Vec<(JsonPath, Vec<EnumItem>)> {
    let mut out = Vec::new();
    for p in each_parameter(ctx) {
        let Some(z) = p.z() else { continue };
        let z_path = p.path.key("z");
        if let Some(Ok(Primitive::Enum(items))) = p.primitive_parsed() {
            out.push((z_path.key("primitive"), items.clone()));
        }
        if ctx.is_compat()
            && let Some(Value::Array(options)) = z.field("options")
        {
            for (i, option) in options.iter().enumerate() {
                let Some(text) = option.as_str() else {
                    continue;
                };
                let Ok(parsed) = Options::parse(&[text], true) else {
                    continue;
                };
                let items: Vec<EnumItem> = parsed.values_items().into_iter().cloned().collect();
                if !items.is_empty() {
                    out.push((z_path.key("options").index(i), items));
                }
            }
        }
    }
    out
}

/// VAL049: A `{{list:field}}` enum interpolation, or the `key` (or `field`) of a `main.sharedLists`
/// filter, names a field that the referenced list does not declare in its `meta.fields`; the help
/// lists the fields it has. A list the registry does not have is VAL048's or VAL072's business.
/// Checked only when the schema sees a list registry (a `_lists/` directory found walking up from
/// it, see VAL088).
///
/// # Why
///
/// Interpolation replaces the placeholder with that field's values across the list's entries, and a
/// filter keeps the entries whose field matches. A field the list does not have yields nothing: an
/// enum that accepts no value, or a filter that drops every entry.
pub(super) fn val049_list_field_exists(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(registry) = ctx.registry() else {
        return;
    };
    let fields_help = |list: &crate::lists::SharedList| {
        Some(format!(
            "fields of \"{}\": {}",
            list.name,
            name_list(list.fields.iter().map(|f| f.key.as_str()))
        ))
    };
    for (path, items) in enum_sites(ctx) {
        for item in items {
            let EnumItem::List { list, field } = item else {
                continue;
            };
            let Some(l) = registry.get(&list) else {
                continue;
            };
            if l.field(&field).is_none() {
                c.emit_help(
                    Code::VAL049,
                    Some(&path),
                    format!(
                        "Field \"{field}\" is not in the fields of shared list \"{list}\" (found {{{{{list}:{field}}}}})"
                    ),
                    fields_help(l),
                );
            }
        }
    }
    let Some(Value::Array(entries)) = ctx.main_field("sharedLists") else {
        return;
    };
    for r in ctx.list_refs() {
        let Some(l) = registry.get(&r.list) else {
            continue;
        };
        let Some(filter) = entries
            .get(r.index)
            .and_then(|e| e.field("filter"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        let (name, key) = match (filter.field("key"), filter.field("field")) {
            (Some(Value::String(k)), _) => ("key", k),
            (None, Some(Value::String(k))) => ("field", k),
            _ => continue,
        };
        if key.is_empty() || l.field(key).is_some() {
            continue;
        }
        c.emit_help(
            Code::VAL049,
            Some(
                &main_path("sharedLists")
                    .index(r.index)
                    .key("filter")
                    .key(name),
            ),
            format!(
                "Filter field \"{key}\" is not in the fields of shared list \"{}\"",
                r.list
            ),
            fields_help(l),
        );
    }
}

/// The fewest hard-coded values VAL107 looks at.
pub(super) const VAL107_MIN_VALUES: usize = 3;

/// VAL107: An enum written out by hand (`enum(ETH,POLYGON,ARBITRUM)`, under `compat` also a
/// `values(…)` option) whose literal values, at least three distinct ones, all appear among the
/// values of one string field of a list in the registry, compared exactly over all the list's
/// entries. Subsets count: `enum(1h,4h,1d)` duplicates part of a timeframe list just as much as the
/// whole list would. Number and boolean fields are not compared, so that a few digits cannot match
/// `chainId` by chance, and interpolated items of the same enum are ignored. The message names the
/// `{{list:field}}` interpolation to use instead, preferring a field that identifies entries, then
/// the one with the fewest distinct values. Checked only when the schema sees a list registry.
///
/// # Why
///
/// Shared lists exist so that common value sets are maintained in one place. A copied enum drifts
/// when the list gains or renames entries, and it bypasses the alias mapping that chapter 03
/// prescribes, whereas an interpolated enum follows the list automatically.
pub(super) fn val107_hardcoded_list_values(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(registry) = ctx.registry() else {
        return;
    };
    for (path, items) in enum_sites(ctx) {
        let literals: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                EnumItem::Literal(v) => Some(v.as_str()),
                EnumItem::List { .. } => None,
            })
            .collect();
        let Some((list, field, total)) = registry.duplicated_field(&literals, VAL107_MIN_VALUES)
        else {
            continue;
        };
        let distinct: HashSet<&str> = literals.iter().copied().collect();
        let version = list.version.as_deref().unwrap_or("…");
        c.emit_help(
            Code::VAL107,
            Some(&path),
            format!(
                "Hard-coded enum values duplicate shared list field \"{}:{}\" (all {} values are among its {total}); use {{{{{}:{}}}}}",
                list.name,
                field.key,
                distinct.len(),
                list.name,
                field.key
            ),
            Some(format!(
                "declare {{ ref: '{}', version: '{version}' }} in main.sharedLists (with a filter to narrow it) and write enum({{{{{}:{}}}}})",
                list.name, list.name, field.key
            )),
        );
    }
}

/// VAL086: `main.schemaVersion`, when present, is not a semantic version.
///
/// # Why
///
/// `schemaVersion` versions the schema itself, independently of the specification version, so that
/// catalogs can compare revisions; that needs semver.
pub(super) fn val086_schema_version(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(value) = ctx.main_field("schemaVersion") else {
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

/// VAL087: `main.schemaHash`, when present, is not 8 lowercase hex digits equal to the recomputed
/// hash: the first 8 hex digits of SHA-256 over the canonical JSON (RFC 8785) of `main` without
/// `schemaHash`. A warning; the message gives the expected value.
///
/// # Why
///
/// The hash lets catalogs and agents notice that a schema changed. A stale hash means the schema
/// was edited without being re-hashed, so that signal is wrong.
pub(super) fn val087_schema_hash(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.export("main") else {
        return;
    };
    let Some(value) = main.as_object().and_then(|m| m.field("schemaHash")) else {
        return;
    };
    let expected = hash::schema_hash(main);
    let help = Some("set it to the hash recomputed from `main`".to_string());
    let path = main_path("schemaHash");
    let d = match value {
        Value::String(s) if *s == expected => None,
        Value::String(s) if is_hash_shape(s) => {
            c.emit_help(
                Code::VAL087,
                Some(&path),
                format!("Must equal the recomputed hash \"{expected}\" (found \"{s}\")"),
                help,
            )
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
            )
        }
    };
    if let Some(d) = d {
        d.fix = schema_hash_fix(ctx, &expected);
    }
}

/// The fix of VAL087: the value of `main.schemaHash` in the source, written as a literal,
/// replaced by `expected` (safe: the hash is a function of `main`). `None` when the source does
/// not show it as one literal member of a literal `main`.
fn schema_hash_fix(ctx: &SchemaCtx<'_>, expected: &str) -> Option<Fix> {
    let source = ctx.loaded().source.as_deref()?;
    let members = flowmcp_loader::edit::object_members(source, "main", &[]).ok()?;
    let member = members.iter().rev().find(|m| m.name == "schemaHash")?;
    let written = source.get(member.value.clone())?;
    let literal = written.starts_with(['\'', '"']) || written.parse::<f64>().is_ok();
    literal.then(|| {
        Fix::new(
            Applicability::Safe,
            vec![Edit {
                start: member.value.start,
                end: member.value.end,
                text: format!("'{expected}'"),
            }],
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every identifier and plain string outside `main`, collected character by character by the
    /// walk [`mentioned_outside_main`] makes (VAL075 read the code this way before it looked only
    /// for its names): the reference its answers are held to.
    struct SourceOutsideMain {
        identifiers: HashSet<String>,
        strings: HashSet<String>,
    }

    impl SourceOutsideMain {
        /// `None` when the `main` literal cannot be located. `blanked` is the loader's blanking of
        /// `source` when it has one (computed once per file, at the source's byte offsets); otherwise
        /// the source is blanked here.
        fn new(source: &str, blanked: Option<&str>) -> Option<SourceOutsideMain> {
            let owned;
            let blanked = match blanked.filter(|b| b.len() == source.len()) {
                Some(b) => b,
                None => {
                    owned = blank_aligned(source);
                    &owned
                }
            };
            let (open, close) = main_literal(blanked)?;
            let mut out = SourceOutsideMain {
                identifiers: HashSet::new(),
                strings: HashSet::new(),
            };
            let b = blanked.as_bytes();
            // Byte offsets, always at the start of a character (every step is a whole one).
            let mut i = 0;
            while let Some(ch) = blanked.get(i..).and_then(|t| t.chars().next()) {
                if i == open {
                    i = close + 1;
                    continue;
                }
                if matches!(ch, '\'' | '"' | '`') {
                    if let Some(end) = plain_string_end(b, i) {
                        out.strings.insert(source.get(i + 1..end)?.to_string());
                        i = end + 1;
                    } else {
                        i += 1;
                    }
                    continue;
                }
                if is_ident_start(ch)
                    && !blanked[..i].chars().next_back().is_some_and(is_ident_char)
                {
                    let end = blanked[i..]
                        .char_indices()
                        .find(|(_, c)| !is_ident_char(*c))
                        .map_or(blanked.len(), |(k, _)| i + k);
                    out.identifiers.insert(blanked[i..end].to_string());
                    i = end;
                    continue;
                }
                i += ch.len_utf8();
            }
            Some(out)
        }

        fn mentions(&self, name: &str) -> bool {
            self.identifiers.contains(name) || self.strings.contains(name)
        }
    }

    #[test]
    fn finds_the_main_literal() {
        let src =
            "// main = {\nexport const main = { a: '}', b: { c: `x${ {d:1}.d }` } }\nconst x = 1";
        let blanked = blank_aligned(src);
        let (open, close) = main_literal(&blanked).unwrap();
        let text = &src[open..=close];
        assert_eq!(text, "{ a: '}', b: { c: `x${ {d:1}.d }` } }");
        assert!(main_literal(&blank_aligned("const mainly = {}")).is_none());
        assert!(main_literal(&blank_aligned("const main = build()")).is_none());
        assert!(main_literal(&blank_aligned("const main = { a: 1")).is_none());
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
        let used = ["tokens", "chains", "other", "templ", "sharedLists"];
        let unused = ["evmChains", "fiat", "commented", "chain"];
        let names: Vec<&str> = used.iter().chain(&unused).copied().collect();
        let found = mentioned_outside_main(src, None, &names).unwrap();
        for (name, found) in names.iter().zip(found) {
            assert_eq!(found, used.contains(name), "{name}");
        }
        assert!(mentioned_outside_main("export const main = make()", None, &["x"]).is_none());
    }

    #[test]
    fn i46_names_looked_for_are_found_where_the_whole_walk_finds_them() {
        // Texts of fragments around a `main` literal: identifiers of several scripts, digits
        // before letters, plain strings, strings with text, templates, comments and stray quotes.
        let pieces = [
            "a",
            "ab",
            "_x",
            "$y",
            "é",
            "ñame",
            "9a",
            "a9",
            "名",
            "x\\u0041",
            " ",
            "\n",
            ".",
            "(",
            ")",
            "'ab'",
            "\"a\"",
            "`ab`",
            "'a b'",
            "`${a}`",
            "'",
            "\"",
            "`",
            "// ab\n",
            "/* a */",
            "=",
            "{",
            "}",
            ",",
            "main",
            "const ",
            "let main = { ab: 'a' }",
            "\u{a0}",
            "\u{2028}",
        ];
        let mut next = crate::test_rng::below(0x2545_f491_4f6c_dd1d);
        let candidates = [
            "a", "ab", "_x", "$y", "é", "ñame", "a9", "名", "a b", "x", "main", "y", "ab2", "",
        ];
        let (mut yes, mut no) = (0, 0);
        for _ in 0..20_000 {
            let mut src = String::new();
            for _ in 0..next(12) {
                src.push_str(pieces[next(pieces.len())]);
            }
            src.push_str("export const main = { ab: 'a', é: \"ñame\" }");
            for _ in 0..next(16) {
                src.push_str(pieces[next(pieces.len())]);
            }
            let whole = SourceOutsideMain::new(&src, None);
            let names: Vec<&str> = (0..next(5))
                .map(|_| candidates[next(candidates.len())])
                .collect();
            let found = mentioned_outside_main(&src, None, &names);
            match (whole, found) {
                (None, None) => {}
                (Some(whole), Some(found)) => {
                    for (name, found) in names.iter().zip(found) {
                        assert_eq!(found, whole.mentions(name), "{name:?} in {src:?}");
                        *(if found { &mut yes } else { &mut no }) += 1;
                    }
                }
                (whole, found) => panic!("{src:?}: {:?} against {found:?}", whole.is_some()),
            }
        }
        assert!(yes > 1_000 && no > 1_000, "{yes} found, {no} not");
    }

    #[test]
    fn interpolations_outside_shared_lists() {
        let main = json!({
            "sharedLists": [ { "ref": "a", "note": "{{b:x}}" } ],
            "tools": { "t": { "parameters": [ { "z": { "primitive": "enum(x,{{c:alias}})", "options": [] } } ] } },
            "resources": { "r": { "queries": { "q": { "parameters": [ { "z": { "primitive": "enum({{d:id}})" } } ] } } } }
        });
        let opts = crate::Options::default();
        let source = format!("export const main = {main}\n");
        let loaded = flowmcp_loader::load_source(
            std::path::Path::new("s.mjs"),
            "s.mjs",
            &source,
            &opts.limits,
            &opts.settings,
        );
        let exports = loaded.exports.as_ref().unwrap();
        let found = interpolated_lists(&SchemaCtx::new(exports, &opts, &loaded));
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
