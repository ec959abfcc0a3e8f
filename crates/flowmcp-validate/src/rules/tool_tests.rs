//! Rules on tool tests: TST001–TST008.
//!
//! Decisions (chapter 10; the chapters disagree on the minimum, one or three tests, and on whether
//! TST001 is an error or a warning: here at least three, fewer being an error under `spec` and a
//! warning under `compat`, and none at all an error in both):
//! - A *user parameter* is what [`user_params`] says (including, under compat, an undeclared bare
//!   `{{X}}` as `position.value`). It is *optional* when its `z.options` hold `optional()` or any
//!   `default(...)` (chapter 10: "Optional parameters (`optional()` or `default()` in z options) may be
//!   omitted"); every other user parameter is *required*, including one whose `z` is missing.
//! - TST001: `tests` missing, `undefined` or `[]` is the `none` variant ("No tests found", an error in
//!   both profiles). A `tests` that is not an array is also the `none` variant: it provides no usable
//!   test. One or two entries are the default variant (spec error, compat warning). Every array entry
//!   counts, whatever its type (a non-object entry is TST002's business).
//! - TST002: a test that is not an object is reported here (`Must be an object`), as is a missing or
//!   non-string `_description`. Any string passes, even an empty one.
//! - TST003/TST004/TST006/TST002 stay quiet about values the loader replaced by `null` because they were
//!   not serializable (TST005 reports them); a key that is present with such a value counts as given.
//! - TST004 checks only keys that name a user parameter, against the first parameter with that key,
//!   using [`ZType::parse`] under the active profile; a `z` that is missing or cannot be parsed is left
//!   to the parameter rules. `{{list:field}}` enum items are replaced by the values of the schema's
//!   shared lists, filtered as the schema's `sharedLists` references say, when the schema sees a list
//!   registry (a `_lists/` above it, or its catalog's); without one, or when an item does not
//!   resolve, the enum accepts any string.
//! - TST005 is reported for every non-serializable value the loader found at or below
//!   `main.tools.<tool>.tests[i]`.
//! - TST006: fixed and server parameter keys are unknown test keys too (chapter 10: never included in
//!   test objects); a help line says which they are. Under compat, a key that is the name inside a
//!   bare `{{X}}` placeholder (tests keyed `CITY` for `{ key: 'city', value: '{{CITY}}' }`) is still
//!   unknown, because the user parameter is named by `position.key`; a help line says so.
//! - TST007: for each user parameter whose `z` is an enum with two or more values (or with unresolved
//!   list items, whose values are not known yet), in a tool with at least two test objects: each test
//!   object covers the string value it gives, or, when it leaves the parameter out, the parameter's
//!   `default(...)`. Exactly one covered value is reported at the parameter; none at all is left to
//!   TST003 (required) and TST008 (optional).
//! - TST008: an optional user parameter that no test object gives, in a tool with at least one test
//!   object, is reported at the parameter.

use std::collections::BTreeSet;

use flowmcp_loader::{PathItem, Unserializable, UnserializableKind};
use flowmcp_spec::zod::{Primitive, ZType, ZodError};
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::Field as _;
use super::{
    ParamRef, ParamSource, SchemaCtx, SchemaRule, each_parameter, each_tool, shown, type_name,
    user_params,
};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::TST001],
        check: tst001_test_count,
    },
    SchemaRule {
        codes: &[Code::TST002],
        check: tst002_description,
    },
    SchemaRule {
        codes: &[Code::TST003],
        check: tst003_required_params,
    },
    SchemaRule {
        codes: &[Code::TST004],
        check: tst004_values_pass_z,
    },
    SchemaRule {
        codes: &[Code::TST005],
        check: tst005_serializable,
    },
    SchemaRule {
        codes: &[Code::TST006],
        check: tst006_known_keys,
    },
    SchemaRule {
        codes: &[Code::TST007],
        check: tst007_enum_coverage,
    },
    SchemaRule {
        codes: &[Code::TST008],
        check: tst008_optional_usage,
    },
];

/// The fewest tests a tool may have (the larger of the minimums the specification states).
pub(super) const MIN_TESTS: usize = 3;

/// The key every test carries besides parameter values.
const DESCRIPTION: &str = "_description";

/// TST001: A tool or a resource query has fewer than 3 entries in `tests`. For a tool, no tests at
/// all (`tests` missing, empty or not an array) is the `none` variant, an error in both profiles;
/// one or two tests are an error under `spec` and a warning under `compat`. A resource query with
/// one or two tests is reported the same way; one with no tests at all is RES011.
///
/// # Why
///
/// Tests are executable documentation and the input for capturing real responses, from which output
/// schemas are derived. Three show breadth: a basic case, an edge case and a cross-cutting one. The
/// tests chapter asks the same minimum of resource queries as of tools.
pub(super) fn tst001_test_count(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let bad = unserializable_paths(ctx);
    for (name, tool, path) in each_tool(ctx) {
        // Made for a finding or a value that does not serialize only: most tools have neither.
        let tests_path = || path.key("tests");
        let lost = if bad.is_empty() {
            None
        } else {
            let tests_path = tests_path();
            bad.iter()
                .find(|(p, _)| *p == tests_path)
                .map(|(_, u)| u.kind)
        };
        match tool.field("tests") {
            None => no_tests(c, name, &tests_path()),
            Some(Value::Null) if lost == Some(UnserializableKind::Undefined) => {
                no_tests(c, name, &tests_path())
            }
            Some(Value::Array(tests)) if tests.is_empty() => no_tests(c, name, &tests_path()),
            Some(Value::Array(tests)) if tests.len() < MIN_TESTS => {
                too_few_tests(c, &tests_path(), tests.len());
            }
            Some(Value::Array(_)) => {}
            Some(other) => {
                let found = lost.map_or_else(|| type_name(other), UnserializableKind::as_str);
                c.emit_variant(
                    Code::TST001,
                    Some("none"),
                    Some(&tests_path()),
                    format!("Must be an array of tests (found {found})"),
                );
            }
        }
    }
    // Resource queries: none at all is RES011's, so only one or two are reported here.
    for (tests, tests_path) in super::queries::query_test_lists(ctx) {
        if !tests.is_empty() && tests.len() < MIN_TESTS {
            too_few_tests(c, &tests_path, tests.len());
        }
    }
}

/// TST001 (default variant) for a `tests` array at `path` with `found` entries.
fn too_few_tests(c: &mut Collector<'_>, path: &JsonPath, found: usize) {
    c.emit(
        Code::TST001,
        Some(path),
        format!("Must have at least {MIN_TESTS} tests (found {found})"),
    );
}

fn no_tests(c: &mut Collector<'_>, tool: &str, path: &JsonPath) {
    c.emit_variant(
        Code::TST001,
        Some("none"),
        Some(path),
        format!("{tool}: No tests found"),
    );
}

/// TST002: A test is not an object, or its `_description` is missing or not a string.
///
/// # Why
///
/// The description says what this particular parameter combination demonstrates, so readers learn
/// the tool's range from the tests alone.
pub(super) fn tst002_description(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let bad = unserializable_paths(ctx);
    for t in tool_tests(ctx) {
        // Made once a tool and a test, only when needed: most tests are well-formed.
        let tests_path = std::cell::OnceCell::new();
        for (i, test) in t.tests.iter().enumerate() {
            let path = || tests_path.get_or_init(|| t.path()).index(i);
            if test.is_null() && touched(&bad, &path()) {
                continue;
            }
            let Some(obj) = test.as_object() else {
                c.emit(
                    Code::TST002,
                    Some(&path()),
                    format!(
                        "Must be an object with `_description` and parameter values (found {})",
                        type_name(test)
                    ),
                );
                continue;
            };
            match obj.get(DESCRIPTION) {
                None => {
                    c.emit(
                        Code::TST002,
                        Some(&path()),
                        "Missing required field \"_description\"",
                    );
                }
                Some(Value::String(_)) => {}
                Some(other) => {
                    let field = path().key(DESCRIPTION);
                    if !touched(&bad, &field) {
                        c.emit(
                            Code::TST002,
                            Some(&field),
                            format!("Must be a string (found {})", type_name(other)),
                        );
                    }
                }
            }
        }
    }
}

/// TST003: A test leaves out a required user parameter, one whose `z.options` hold neither
/// `optional()` nor `default(…)`. A warning under `compat`.
///
/// # Why
///
/// Such a test cannot run: the runtime rejects the call before sending it.
pub(super) fn tst003_required_params(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for t in tool_tests(ctx) {
        let mut required: Vec<&str> = Vec::new();
        for (key, p) in user_params(ctx, t.name) {
            if !is_optional(&p) && !required.contains(&key) {
                required.push(key);
            }
        }
        for (i, test) in t.objects() {
            for key in &required {
                if !test.contains_key(*key) {
                    c.emit(
                        Code::TST003,
                        Some(&t.path().index(i)),
                        format!("Missing value for required parameter \"{key}\""),
                    );
                }
            }
        }
    }
}

/// TST004: A test value for a user parameter fails that parameter's `z` (type, enum values,
/// `min`/`max`/`length`). A warning under `compat`.
///
/// # Why
///
/// A test with invalid input fails validation instead of calling the API, so it documents nothing
/// and captures no response.
pub(super) fn tst004_values_pass_z(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let bad = unserializable_paths(ctx);
    for t in tool_tests(ctx) {
        let mut types: Vec<(&str, Option<ZType>)> = Vec::new();
        for (key, p) in user_params(ctx, t.name) {
            if !types.iter().any(|(k, _)| *k == key) {
                types.push((key, ztype(ctx, &p)));
            }
        }
        check_test_values(Code::TST004, t.objects(), &t.path(), &types, &bad, c);
    }
}

/// Reports `code` for every value of the `tests` (objects by index under `tests_path`) whose key
/// has a `z` in `types` that it fails. Values that are not JSON-serializable (in `bad`) are left to
/// the serializability rule. Shared by tool tests (TST004) and resource query tests (RES022).
pub(super) fn check_test_values<'a>(
    code: Code,
    tests: impl Iterator<Item = (usize, &'a Map<String, Value>)>,
    tests_path: &JsonPath,
    types: &[(&str, Option<ZType>)],
    bad: &[(JsonPath, &Unserializable)],
    c: &mut Collector<'_>,
) {
    for (i, test) in tests {
        for (key, value) in test {
            let Some((_, Some(zt))) = types.iter().find(|(k, _)| k == key) else {
                continue;
            };
            // Made only when needed: there is rarely a value that does not serialize, or a finding.
            let path = || tests_path.index(i).key(key);
            if !bad.is_empty() && touched(bad, &path()) {
                continue;
            }
            if let Err(e) = zt.validate(value) {
                c.emit(
                    code,
                    Some(&path()),
                    format!("Must pass the z validation of \"{key}\": {e}"),
                );
            }
        }
    }
}

/// TST005: A test contains a value that does not survive a JSON round trip (a function,
/// `undefined`, a `Date`, NaN, …).
///
/// # Why
///
/// Tests are part of `main`, which is hashed and shipped as JSON; such values would be dropped or
/// changed on the way.
pub(super) fn tst005_serializable(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some((tools_key, _)) = ctx.tools() else {
        return;
    };
    report_unserializable(ctx, c, Code::TST005, |path| {
        matches!(
            path,
            [PathItem::Key(k), PathItem::Key(_), PathItem::Key(tests), PathItem::Index(_), ..]
                if k == tools_key && tests == "tests"
        )
    });
}

/// Reports `code` for every value of `main` that does not survive a JSON round trip and whose
/// path `in_tests` accepts. Shared by tool tests (TST005) and resource query tests (RES023).
pub(super) fn report_unserializable(
    ctx: &SchemaCtx<'_>,
    c: &mut Collector<'_>,
    code: Code,
    in_tests: impl Fn(&[PathItem]) -> bool,
) {
    for u in ctx.unserializable() {
        if u.export == "main" && in_tests(u.path.as_slice()) {
            c.emit(
                code,
                Some(&json_path(u)),
                format!("Must be JSON-serializable (found {})", u.describe()),
            );
        }
    }
}

/// TST006: A test key is neither `_description` nor the key of a user parameter. Keys of fixed and
/// server parameters count as unknown, and the message says which they are. A warning under
/// `compat`.
///
/// # Why
///
/// Fixed and server values are supplied by the runtime and never belong in tests (API keys would
/// end up in the schema). Any other unknown key is usually a typo, so the test does not give what
/// it meant to.
pub(super) fn tst006_known_keys(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for t in tool_tests(ctx) {
        let params: Vec<(&str, Option<ParamSource<'_>>, Option<&str>)> = each_parameter(ctx)
            .iter()
            .filter(|p| p.tool == t.name)
            .filter_map(|p| {
                let key = p.position_str("key")?;
                Some((key, p.source(), p.position_str("value")))
            })
            .collect();
        let is_user = |key: &str| {
            params
                .iter()
                .any(|(k, s, _)| *k == key && *s == Some(ParamSource::User))
        };
        for (i, test) in t.objects() {
            for key in test.keys() {
                if key == DESCRIPTION || is_user(key) {
                    continue;
                }
                let placeholder = format!("{{{{{key}}}}}");
                let help = params
                    .iter()
                    .find_map(|(k, s, v)| match s {
                        Some(ParamSource::User) if *v == Some(placeholder.as_str()) => Some(format!(
                            "\"{key}\" is the name inside the placeholder {placeholder}; the user parameter is named by its position.key \"{k}\""
                        )),
                        _ => None,
                    })
                    .or_else(|| {
                        params.iter().find(|(k, _, _)| *k == key).and_then(|(_, s, _)| match s {
                            Some(ParamSource::Server(_)) => Some(
                                "this is a server parameter; the runtime supplies it from the environment"
                                    .to_string(),
                            ),
                            Some(ParamSource::Fixed(_)) => Some(
                                "this is a fixed parameter; the runtime supplies its value".to_string(),
                            ),
                            _ => None,
                        })
                    });
                c.emit_help(
                    Code::TST006,
                    Some(&t.path().index(i).key(key)),
                    format!(
                        "Must be a user parameter key or _description (found {})",
                        shown(&Value::String(key.clone()))
                    ),
                    help,
                );
            }
        }
    }
}

/// TST007: In a tool with at least two tests, an enum user parameter with two or more values is
/// covered by only one distinct value across the tests; a test that leaves the parameter out counts
/// as its `default(…)` (a warning).
///
/// # Why
///
/// Tests should show the breadth of a tool. For an enum (chains, networks, intervals) that means
/// several values, which also catches values the API does not actually support.
pub(super) fn tst007_enum_coverage(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for t in tool_tests(ctx) {
        let objects: Vec<&Map<String, Value>> = t.objects().map(|(_, o)| o).collect();
        if objects.len() < 2 {
            continue;
        }
        let mut seen: Vec<&str> = Vec::new();
        for (key, p) in user_params(ctx, t.name) {
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let Some(zt) = ztype(ctx, &p) else { continue };
            if !matches!(zt.primitive, Primitive::Enum(_))
                || (zt.enum_values().len() < 2 && !zt.primitive.has_unresolved_lists())
            {
                continue;
            }
            let default = zt.default_value().ok().flatten();
            let covered: BTreeSet<&str> = objects
                .iter()
                .filter_map(|o| o.field(key).or(default.as_ref()))
                .filter_map(Value::as_str)
                .collect();
            if let [only] = covered.iter().collect::<Vec<_>>().as_slice() {
                c.emit(
                    Code::TST007,
                    Some(&p.path),
                    format!(
                        "Tests should cover more than one value of enum parameter \"{key}\" (found only {})",
                        shown(&Value::String((*only).to_string()))
                    ),
                );
            }
        }
    }
}

/// TST008: An optional user parameter that no test gives (reported as info).
///
/// # Why
///
/// A test that sets the optional parameter shows readers what it does, and captures the response
/// shape with it in effect.
pub(super) fn tst008_optional_usage(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for t in tool_tests(ctx) {
        let objects: Vec<&Map<String, Value>> = t.objects().map(|(_, o)| o).collect();
        if objects.is_empty() {
            continue;
        }
        for (key, p) in user_params(ctx, t.name) {
            if is_optional(&p) && !objects.iter().any(|o| o.contains_key(key)) {
                c.emit(
                    Code::TST008,
                    Some(&p.path),
                    format!("Optional parameter \"{key}\" is not used in any test; consider a test that demonstrates it"),
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// A tool whose `tests` is an array.
struct ToolTests<'a> {
    name: &'a String,
    /// `main.tools.<tool>` (the path of the tests is [`ToolTests::path`], made for a finding)
    tool_path: JsonPath,
    tests: &'a [Value],
}

impl<'a> ToolTests<'a> {
    /// `main.tools.<tool>.tests`
    fn path(&self) -> JsonPath {
        self.tool_path.key("tests")
    }
    /// The tests that are objects, with their index.
    fn objects(&self) -> impl Iterator<Item = (usize, &'a Map<String, Value>)> + use<'a> {
        self.tests
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.as_object().map(|o| (i, o)))
    }
}

/// Every tool whose `tests` is an array.
fn tool_tests<'a>(ctx: &SchemaCtx<'a>) -> Vec<ToolTests<'a>> {
    each_tool(ctx)
        .iter()
        .filter_map(|(name, tool, path)| match tool.field("tests") {
            Some(Value::Array(tests)) => Some(ToolTests {
                name,
                tool_path: path.clone(),
                tests,
            }),
            _ => None,
        })
        .collect()
}

/// True when the parameter's `z.options` hold `optional()` or a `default(...)`.
fn is_optional(p: &ParamRef<'_>) -> bool {
    p.options_parsed()
        .is_some_and(|(options, _)| options.is_optional())
}

/// The parameter's `z` when it parses under the active profile (`options` may be absent), with its
/// `{{list:field}}` enum items replaced by the values of the schema's resolved shared lists when the
/// schema sees a list registry (see [`resolve_list_items`]).
fn ztype(ctx: &SchemaCtx<'_>, p: &ParamRef<'_>) -> Option<ZType> {
    let zt = p.ztype()?.as_ref().ok()?.clone();
    Some(resolve_list_items(ctx, zt))
}

/// Replaces the list items of an enum by the filtered values of the schema's shared lists
/// ([`SchemaCtx::resolved_lists`]). Left as it is (any string accepted) when there is no registry
/// or an item does not resolve (an undeclared or unknown list, an unknown field: VAL048, VAL072,
/// VAL049 report those). An enum whose lists give no values at all accepts nothing.
pub(super) fn resolve_list_items(ctx: &SchemaCtx<'_>, zt: ZType) -> ZType {
    if !zt.primitive.has_unresolved_lists() {
        return zt;
    }
    let Some(resolved) = ctx.resolved_lists() else {
        return zt;
    };
    match zt.resolve_lists(|list, field| resolved.field_values(list, field)) {
        Ok(z) => z,
        Err(ZodError::EmptyEnum) => ZType {
            primitive: Primitive::Enum(Vec::new()),
            options: zt.options,
        },
        Err(_) => zt,
    }
}

/// The location of a value the loader could not serialize.
pub(super) fn json_path(u: &Unserializable) -> JsonPath {
    let mut p = JsonPath::root(&u.export);
    for seg in &u.path {
        p = match seg {
            PathItem::Key(k) => p.key(k),
            PathItem::Index(i) => p.index(*i),
        };
    }
    p
}

/// Every non-serializable value of `main`, with its location.
pub(super) fn unserializable_paths<'a>(ctx: &SchemaCtx<'a>) -> Vec<(JsonPath, &'a Unserializable)> {
    ctx.unserializable()
        .iter()
        .filter(|u| u.export == "main")
        .map(|u| (json_path(u), u))
        .collect()
}

/// True when a non-serializable value lies at or below `path`.
pub(super) fn touched(bad: &[(JsonPath, &Unserializable)], path: &JsonPath) -> bool {
    bad.iter().any(|(p, _)| p.starts_with(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowmcp_spec::diagnostic::Seg;

    #[test]
    fn touched_matches_prefixes() {
        let u = Unserializable {
            export: "main".into(),
            path: vec![
                PathItem::Key("tools".into()),
                PathItem::Key("a".into()),
                PathItem::Key("tests".into()),
                PathItem::Index(1),
                PathItem::Key("x".into()),
            ],
            kind: UnserializableKind::Function,
            detail: String::new(),
        };
        let bad = vec![(json_path(&u), &u)];
        let tests = JsonPath::root("main").key("tools").key("a").key("tests");
        assert!(touched(&bad, &tests));
        assert!(touched(&bad, &tests.index(1)));
        assert!(touched(&bad, &tests.index(1).key("x")));
        assert!(!touched(&bad, &tests.index(1).key("y")));
        assert!(!touched(&bad, &tests.index(0)));
        assert_eq!(u.describe(), "function");
        assert!(matches!(json_path(&u).last(), Some(Seg::Key(k)) if k == "x"));
    }
}
