//! Rules on `main.resources` (chapter 13): the RES family.
//!
//! Each rule reads the JSON of the resources that are objects and stays quiet about what another
//! rule reports: a resource whose `source` is not known (RES001) gets none of the checks that
//! depend on the source, and a field of the wrong type is reported by the rule that owns the field.

use std::path::PathBuf;

use flowmcp_spec::gtfs::{
    EARLIEST_SPEC_REVISION, PathVarError, SUPPORTED_SPEC_REVISION, SealError, resolve_path,
    spec_revision_in_range,
};
use flowmcp_spec::{Code, diagnostic::Collector};
use serde_json::{Map, Value};

use flowmcp_loader::PathItem;
use flowmcp_spec::model::Builtin;
use flowmcp_spec::placeholder::ParamRole;
use flowmcp_spec::zod::ZType;

use super::Field as _;
use super::queries::{QueryRef, ResRef, each_query, each_resource, resources};
use super::tool_tests::{
    check_test_values, report_unserializable, resolve_list_items, unserializable_paths,
};
use super::{
    SchemaCtx, SchemaRule, main_path, required_server_params, required_string, shown, type_name,
};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::RES001],
        check: res001_source,
    },
    SchemaRule {
        codes: &[Code::RES002],
        check: res002_description,
    },
    SchemaRule {
        codes: &[Code::RES003],
        check: res003_db_extension,
    },
    SchemaRule {
        codes: &[Code::RES004],
        check: res004_name_no_path,
    },
    SchemaRule {
        codes: &[Code::RES005],
        check: res005_at_most_two,
    },
    SchemaRule {
        codes: &[Code::RES007],
        check: res007_sql,
    },
    SchemaRule {
        codes: &[Code::RES008],
        check: res008_query_description,
    },
    SchemaRule {
        codes: &[Code::RES009],
        check: res009_parameters_array,
    },
    SchemaRule {
        codes: &[Code::RES010],
        check: res010_output,
    },
    SchemaRule {
        codes: &[Code::RES013],
        check: res013_attach_load_extension,
    },
    SchemaRule {
        codes: &[Code::RES014],
        check: res014_placeholder_count,
    },
    SchemaRule {
        codes: &[Code::RES015],
        check: res015_no_location,
    },
    SchemaRule {
        codes: &[Code::RES016],
        check: res016_no_server_params,
    },
    SchemaRule {
        codes: &[Code::RES017],
        check: res017_resource_name,
    },
    SchemaRule {
        codes: &[Code::RES018],
        check: res018_query_name,
    },
    SchemaRule {
        codes: &[Code::RES019],
        check: res019_scalar_primitives,
    },
    SchemaRule {
        codes: &[Code::RES021],
        check: res021_output_array,
    },
    SchemaRule {
        codes: &[Code::RES024],
        check: res024_http_url,
    },
    SchemaRule {
        codes: &[Code::RES025],
        check: res025_sqlite_mode,
    },
    SchemaRule {
        codes: &[Code::RES026],
        check: res026_origin,
    },
    SchemaRule {
        codes: &[Code::RES027],
        check: res027_name,
    },
    SchemaRule {
        codes: &[Code::RES028],
        check: res028_query_count,
    },
    SchemaRule {
        codes: &[Code::RES029],
        check: res029_select_or_with,
    },
    SchemaRule {
        codes: &[Code::RES011],
        check: res011_has_tests,
    },
    SchemaRule {
        codes: &[Code::RES030],
        check: res030_gtfs_file_based,
    },
    SchemaRule {
        codes: &[Code::RES031],
        check: res031_gtfs_addon,
    },
    SchemaRule {
        codes: &[Code::RES037],
        check: res037_file_based_project,
    },
    SchemaRule {
        codes: &[Code::RES038],
        check: res038_markdown_no_mode,
    },
    SchemaRule {
        codes: &[Code::RES039],
        check: res039_markdown_no_queries,
    },
    SchemaRule {
        codes: &[Code::RES040],
        check: res040_sqlite_inline,
    },
    SchemaRule {
        codes: &[Code::RES022],
        check: res022_test_values_pass_z,
    },
    SchemaRule {
        codes: &[Code::RES023],
        check: res023_tests_serializable,
    },
    SchemaRule {
        codes: &[Code::RES041],
        check: res041_source_fields,
    },
    SchemaRule {
        codes: &[Code::VAL040, Code::VAL041, Code::VAL042],
        check: resource_param_positions,
    },
    SchemaRule {
        codes: &[Code::RES035],
        check: res035_path_variable,
    },
    SchemaRule {
        codes: &[Code::RES033, Code::RES032, Code::RES034],
        check: res032_res033_res034_gtfs_seal,
    },
    SchemaRule {
        codes: &[Code::RES020],
        check: res020_inline_database_exists,
    },
    SchemaRule {
        codes: &[Code::RES042],
        check: res042_get_schema_hint,
    },
    SchemaRule {
        codes: &[Code::SEC021],
        check: sec021_paths_stay_inside,
    },
];

/// The `source` values a resource may have.
const SOURCES: &[&str] = &["sqlite", "sqlite-gtfs", "markdown", "http"];

impl<'a> ResRef<'a> {
    /// `source` when it is one of [`SOURCES`].
    fn source(&self) -> Option<&'a str> {
        self.res
            .field("source")
            .and_then(Value::as_str)
            .filter(|s| SOURCES.contains(s))
    }
    fn str_field(&self, key: &str) -> Option<&'a str> {
        self.res.field(key).and_then(Value::as_str)
    }
}

/// Whether `name` matches `^[a-z][a-zA-Z0-9]*$`.
fn is_camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// Whether a `z.primitive` is one of the scalar primitives resource parameters may use.
fn is_scalar(primitive: &str) -> bool {
    let p = primitive.trim();
    ["string()", "number()", "boolean()"].contains(&p)
        || (p.starts_with("enum(") && p.ends_with(')'))
}

/// RES001: A resource whose `source` is missing or not one of `sqlite`, `sqlite-gtfs`, `markdown`,
/// `http`; also a resource that is not an object at all.
///
/// # Why
///
/// The source decides how the resource is opened and which other fields it needs. The chapter's
/// own tables name three values in one place and four in another; the four values `sqlite`,
/// `sqlite-gtfs`, `markdown` and `http` are the ones the chapter defines sections for, so all four
/// are accepted.
pub(super) fn res001_source(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(all) = resources(ctx) else { return };
    let base = main_path("resources");
    for (name, r) in all {
        let path = base.key(name);
        let Some(res) = r.as_object() else {
            c.emit(
                Code::RES001,
                Some(&path),
                format!("A resource must be an object (found {})", type_name(r)),
            );
            continue;
        };
        match res.field("source") {
            None => {
                c.emit(
                    Code::RES001,
                    Some(&path.key("source")),
                    "Missing required field \"source\"",
                );
            }
            Some(Value::String(s)) if SOURCES.contains(&s.as_str()) => {}
            Some(other) => {
                c.emit_help(
                    Code::RES001,
                    Some(&path.key("source")),
                    format!("Unknown resource source {}", shown(other)),
                    Some("use 'sqlite', 'sqlite-gtfs', 'markdown' or 'http'".to_string()),
                );
            }
        }
    }
}

/// RES002: A resource whose `description` is missing, not a string, or empty.
///
/// # Why
///
/// The description is what a client sees when it discovers the resource; without it an agent
/// cannot tell what the data is for.
pub(super) fn res002_description(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let path = r.path.key("description");
        let found = required_string(
            r.res.field("description"),
            &path,
            "description",
            Code::RES002,
            c,
        );
        if found.is_some_and(|s| s.trim().is_empty()) {
            c.emit(Code::RES002, Some(&path), "Must not be empty");
        }
    }
}

/// RES003: A `sqlite` resource whose `name` does not end in `.db`.
///
/// # Why
///
/// Chapter 09 words the rule for a `database` field that the resources chapter does not have; it
/// applies to the resource `name`, the file name of the database. A missing or empty name and the
/// `.md` extension of markdown resources are RES027's.
pub(super) fn res003_db_extension(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() != Some("sqlite") {
            continue;
        }
        let Some(name) = r.str_field("name").filter(|n| !n.is_empty()) else {
            continue;
        };
        if !name.ends_with(".db") {
            c.emit_help(
                Code::RES003,
                Some(&r.path.key("name")),
                format!("SQLite resource file name {name:?} does not end in .db"),
                Some("name the file like 'namespace-description.db'".to_string()),
            );
        }
    }
}

/// RES004: A resource `name` that contains `/`, `\` or `..`.
///
/// # Why
///
/// The name is a file name inside the folder its `origin` selects. A separator or `..` would let
/// a schema reach files outside that folder.
pub(super) fn res004_name_no_path(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let Some(name) = r.str_field("name") else {
            continue;
        };
        if name.contains('/') || name.contains('\\') || name.contains("..") {
            c.emit(
                Code::RES004,
                Some(&r.path.key("name")),
                format!("File name {name:?} must not contain a path separator or \"..\""),
            );
        }
    }
}

/// RES005: A schema with more than 2 resources.
///
/// # Why
///
/// Resources should be scoped to one data domain; the limit keeps a schema focused. It is
/// independent of the limit of 8 tools.
pub(super) fn res005_at_most_two(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(all) = resources(ctx) else { return };
    if all.len() > 2 {
        c.emit(
            Code::RES005,
            Some(&main_path("resources")),
            format!("{} resources defined, at most 2 are allowed", all.len()),
        );
    }
}

/// Reports `code` when `query.<key>` is missing or not a string.
fn require_string(q: &QueryRef<'_>, c: &mut Collector<'_>, key: &str, code: Code) {
    required_string(q.query.field(key), &q.path.key(key), key, code, c);
}

/// RES007: A resource query without `sql`, or with `sql` that is not a string; also a query that
/// is not an object.
///
/// # Why
///
/// The SQL statement is the query: without it there is nothing to run.
pub(super) fn res007_sql(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let Some(queries) = r.res.field("queries").and_then(Value::as_object) else {
            continue;
        };
        for (name, q) in queries {
            if !q.is_object() {
                c.emit(
                    Code::RES007,
                    Some(&r.path.key("queries").key(name)),
                    format!(
                        "A query must be an object with `sql` (found {})",
                        type_name(q)
                    ),
                );
            }
        }
    }
    for q in each_query(ctx) {
        require_string(&q, c, "sql", Code::RES007);
    }
}

/// RES008: A resource query without a string `description`.
///
/// # Why
///
/// The description becomes the MCP description of the query; an agent picks queries by it.
pub(super) fn res008_query_description(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        require_string(&q, c, "description", Code::RES008);
    }
}

/// RES009: A resource query without a `parameters` array (an empty array is fine).
///
/// # Why
///
/// Parameters are bound to the `?` placeholders in array order, so they must be an array, even an
/// empty one for a query without placeholders.
pub(super) fn res009_parameters_array(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let path = q.path.key("parameters");
        match q.query.field("parameters") {
            None => {
                c.emit_help(
                    Code::RES009,
                    Some(&path),
                    "Missing required field \"parameters\"",
                    Some("write `parameters: []` for a query without placeholders".to_string()),
                );
            }
            Some(Value::Array(_)) => {}
            Some(other) => {
                c.emit(
                    Code::RES009,
                    Some(&path),
                    format!("Must be an array (found {})", type_name(other)),
                );
            }
        }
    }
}

/// RES010: A resource query without an `output` object that has `mimeType` and `schema`.
///
/// # Why
///
/// The output schema tells the client the shape of the rows before it runs the query, as a tool's
/// output schema does.
pub(super) fn res010_output(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let path = q.path.key("output");
        let Some(output) = q.query.field("output") else {
            c.emit(
                Code::RES010,
                Some(&path),
                "Missing required field \"output\"",
            );
            continue;
        };
        let Some(output) = output.as_object() else {
            c.emit(
                Code::RES010,
                Some(&path),
                format!("Must be an object (found {})", type_name(output)),
            );
            continue;
        };
        if !output.field("mimeType").is_some_and(Value::is_string) {
            c.emit(
                Code::RES010,
                Some(&path.key("mimeType")),
                "`output.mimeType` is required and must be a string",
            );
        }
        if !output.field("schema").is_some_and(Value::is_object) {
            c.emit(
                Code::RES010,
                Some(&path.key("schema")),
                "`output.schema` is required and must be an object",
            );
        }
    }
}

/// The words of an SQL text outside string literals, quoted identifiers and comments, each
/// upper-cased, and the number of `?` placeholders found there.
fn sql_tokens(sql: &str) -> (Vec<String>, usize) {
    let mut words = Vec::new();
    let mut placeholders = 0;
    let mut word = String::new();
    let mut chars = sql.chars().peekable();
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(word.to_ascii_uppercase());
            word.clear();
        }
    };
    while let Some(ch) = chars.next() {
        match ch {
            '\'' | '"' | '`' | '[' => {
                flush(&mut word, &mut words);
                let close = if ch == '[' { ']' } else { ch };
                // A doubled quote inside a literal is an escaped quote: the loop ends at the first
                // quote and starts again at the second, which is equivalent.
                for c in chars.by_ref() {
                    if c == close {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                flush(&mut word, &mut words);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                flush(&mut word, &mut words);
                chars.next();
                let mut prev = '\0';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            '?' => {
                flush(&mut word, &mut words);
                placeholders += 1;
            }
            c if c.is_alphanumeric() || c == '_' => word.push(c),
            _ => flush(&mut word, &mut words),
        }
    }
    flush(&mut word, &mut words);
    (words, placeholders)
}

/// RES013: SQL that uses `ATTACH` or `LOAD_EXTENSION` (outside string literals and comments), in
/// any mode.
///
/// # Why
///
/// `ATTACH` opens another database file and `load_extension` loads native code: both reach past
/// the one file the resource names. The runtime also denies them at the connection; reporting
/// them here rejects the schema before it is ever run. Other keywords are not listed: a
/// `file-based` resource may run any statement, and the read-only modes are held to `SELECT` or
/// `WITH` by RES029.
pub(super) fn res013_attach_load_extension(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let Some(sql) = q.sql() else { continue };
        let (words, _) = sql_tokens(sql);
        for bad in ["ATTACH", "LOAD_EXTENSION"] {
            if words.iter().any(|w| w == bad) {
                c.emit(
                    Code::RES013,
                    Some(&q.path.key("sql")),
                    format!("SQL must not use {bad}"),
                );
            }
        }
    }
}

/// RES014: A query whose number of parameters differs from the number of `?` placeholders in its
/// SQL (placeholders inside string literals, quoted identifiers and comments do not count).
///
/// # Why
///
/// Parameters are bound to the placeholders in array order; one too many or too few shifts every
/// value or leaves a placeholder unbound. A query whose SQL is `{{DYNAMIC_SQL}}` is not checked.
pub(super) fn res014_placeholder_count(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let Some(sql) = q.sql() else { continue };
        if sql.contains("{{DYNAMIC_SQL}}") {
            continue;
        }
        let Some(Value::Array(params)) = q.query.field("parameters") else {
            continue;
        };
        let (_, placeholders) = sql_tokens(sql);
        if placeholders != params.len() {
            c.emit(
                Code::RES014,
                Some(&q.path.key("parameters")),
                format!(
                    "{} parameter(s) for {} `?` placeholder(s) in the SQL",
                    params.len(),
                    placeholders
                ),
            );
        }
    }
}

/// RES015: A resource parameter whose `position` has a `location`.
///
/// # Why
///
/// `location` places a tool parameter into an HTTP request. A resource parameter is bound to a
/// `?` by its place in the array; a `location` would suggest an effect it does not have.
pub(super) fn res015_no_location(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        for (param, path) in q.params() {
            let Some(position) = param.field("position").and_then(Value::as_object) else {
                continue;
            };
            if position.contains_key("location") {
                c.emit(
                    Code::RES015,
                    Some(&path.key("position").key("location")),
                    "Resource parameters must not have `position.location`",
                );
            }
        }
    }
}

/// RES016: A resource parameter whose `position.value` is a server parameter
/// (`{{SERVER_PARAM:KEY}}`, or under compat a bare `{{KEY}}` naming a `requiredServerParams`
/// entry).
///
/// # Why
///
/// Query results go back to the client. A secret bound into a query could be read back through
/// the query's own results, so resources take only user values and fixed strings.
pub(super) fn res016_no_server_params(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let declared = required_server_params(ctx);
    for q in each_query(ctx) {
        for (param, path) in q.params() {
            let Some(value) = param
                .field("position")
                .and_then(Value::as_object)
                .and_then(|p| p.field("value"))
                .and_then(Value::as_str)
            else {
                continue;
            };
            let role = flowmcp_spec::placeholder::param_role(
                value,
                |k| declared.contains(&k),
                ctx.profile(),
            );
            if let flowmcp_spec::placeholder::ParamRole::Server(key) = role {
                c.emit(
                    Code::RES016,
                    Some(&path.key("position").key("value")),
                    format!("Resource parameters must not use the server parameter {key:?}"),
                );
            }
        }
    }
}

/// RES017: A resource name (its key in `main.resources`) that does not match `^[a-z][a-zA-Z0-9]*$`.
///
/// # Why
///
/// The name becomes part of the resource's ID and URI; camelCase keeps it consistent with tool
/// names and safe in both.
pub(super) fn res017_resource_name(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(all) = resources(ctx) else { return };
    let base = main_path("resources");
    for name in all.keys() {
        if !is_camel_case(name) {
            c.emit(
                Code::RES017,
                Some(&base.key(name)),
                format!("Resource name {name:?} must match ^[a-z][a-zA-Z0-9]*$"),
            );
        }
    }
}

/// RES018: A query name that does not match `^[a-z][a-zA-Z0-9]*$`.
///
/// # Why
///
/// Query names become part of the query's ID and handler key; camelCase keeps them consistent
/// with tool names.
pub(super) fn res018_query_name(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let Some(queries) = r.res.field("queries").and_then(Value::as_object) else {
            continue;
        };
        for name in queries.keys() {
            if !is_camel_case(name) {
                c.emit(
                    Code::RES018,
                    Some(&r.path.key("queries").key(name)),
                    format!("Query name {name:?} must match ^[a-z][a-zA-Z0-9]*$"),
                );
            }
        }
    }
}

/// RES019: A resource parameter whose `z.primitive` is missing or not one of `string()`,
/// `number()`, `boolean()`, `enum(...)`.
///
/// # Why
///
/// SQL binding takes scalar values only; an array or object has no value to bind to a `?`.
pub(super) fn res019_scalar_primitives(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        for (param, path) in q.params() {
            let path = path.key("z").key("primitive");
            let primitive = param
                .field("z")
                .and_then(Value::as_object)
                .and_then(|z| z.field("primitive"));
            let Some(Value::String(p)) = primitive else {
                c.emit(
                    Code::RES019,
                    Some(&path),
                    match primitive {
                        None => "Missing required field \"z.primitive\"".to_string(),
                        Some(other) => format!("Must be a string (found {})", type_name(other)),
                    },
                );
                continue;
            };
            let p = p.trim();
            if !is_scalar(p) {
                c.emit_help(
                    Code::RES019,
                    Some(&path),
                    format!("Primitive {p:?} is not scalar"),
                    Some("use string(), number(), boolean() or enum(...)".to_string()),
                );
            }
        }
    }
}

/// RES021: A query whose `output.schema.type` is not `array`.
///
/// # Why
///
/// A query returns rows, always a list; an output schema of another type would describe a shape
/// the query never returns.
pub(super) fn res021_output_array(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let Some(schema) = q
            .query
            .field("output")
            .and_then(Value::as_object)
            .and_then(|o| o.field("schema"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        let ty = schema.field("type");
        if ty.and_then(Value::as_str) != Some("array") {
            c.emit(
                Code::RES021,
                Some(&q.path.key("output").key("schema").key("type")),
                match ty {
                    None => "Missing `type`: must be \"array\"".to_string(),
                    Some(other) => format!("Must be \"array\" (found {})", shown(other)),
                },
            );
        }
    }
}

/// RES024: An `http` resource without a `url`, or with a `url` that does not start with
/// `https://`.
///
/// # Why
///
/// The file is downloaded and then queried locally; plain HTTP would let anyone on the way replace
/// the data. `path` only moves the cache file, so `url` is what an http resource needs. Catalogs
/// written for the reference implementation give some http resources a `path` to a local file and
/// no `url`: that is the variant `local-path`, an error under `spec` and accepted under `compat`.
pub(super) fn res024_http_url(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() != Some("http") {
            continue;
        }
        let path = r.path.key("url");
        match r.res.field("url") {
            None if r.str_field("path").is_some() => {
                c.emit_variant(
                    Code::RES024,
                    Some("local-path"),
                    Some(&path),
                    "http resource has a `path` but no `url`",
                );
            }
            None => {
                c.emit(Code::RES024, Some(&path), "Missing required field \"url\"");
            }
            Some(Value::String(url)) => {
                let https = url
                    .get(..8)
                    .is_some_and(|p| p.eq_ignore_ascii_case("https://"));
                if !https || url.len() <= 8 {
                    c.emit(
                        Code::RES024,
                        Some(&path),
                        format!("URL {url:?} must use https://"),
                    );
                }
            }
            Some(other) => {
                c.emit(
                    Code::RES024,
                    Some(&path),
                    format!("Must be a string (found {})", type_name(other)),
                );
            }
        }
    }
}

/// SEC021: A resource file path that would leave its folder: an `http` resource's `path` (where
/// the downloaded copy is kept, relative to the project's `.flowmcp/`) or a FlowMCP 3.0
/// `database` (relative to the schema, or `~/.flowmcp/…`) that is absolute, contains `..`, or
/// starts with `~/` outside `~/.flowmcp/`.
///
/// # Why
///
/// These paths come from the catalog, which may be someone else's. A download kept at
/// `../../.bashrc` would replace a file of the user's with whatever the server sends, and a
/// `database` of `~/Library/…/Cookies` would let `runSql` read a browser's cookies. The runtime
/// refuses such paths too, and also a symbolic link that leads out of the folder; this rule says
/// so before anything runs.
pub(super) fn sec021_paths_stay_inside(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() == Some("http")
            && let Some(p) = r.str_field("path")
            && let Err(fault) = flowmcp_spec::paths::check_relative(p)
        {
            c.emit(
                Code::SEC021,
                Some(&r.path.key("path")),
                format!("path {p:?} {fault}"),
            );
        }
        if let Some(db) = r.str_field("database")
            && let Err(fault) =
                flowmcp_spec::paths::database_path(db, flowmcp_spec::paths::DEFAULT_BASE)
        {
            c.emit(
                Code::SEC021,
                Some(&r.path.key("database")),
                format!("database {db:?} {fault}"),
            );
        }
    }
}

/// Whether a `sqlite` resource is in the FlowMCP 3.0 form that `compat` accepts: a `database`
/// path instead of `origin` and `name` (and `in-memory` when it has no `mode`, as the reference
/// opens it).
fn compat_database(ctx: &SchemaCtx<'_>, r: &ResRef<'_>) -> bool {
    ctx.is_compat()
        && r.source() == Some("sqlite")
        && matches!(r.res.field("database"), Some(Value::String(_)))
        && r.res.field("origin").is_none()
        && r.res.field("name").is_none()
}

/// RES025: A `sqlite` resource whose `mode` is missing or not `in-memory` / `file-based`.
///
/// # Why
///
/// The mode decides whether the database is opened read-only or writable; there is no default,
/// so that writing is always a stated choice.
pub(super) fn res025_sqlite_mode(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() != Some("sqlite") {
            continue;
        }
        let path = r.path.key("mode");
        match r.res.field("mode") {
            None if compat_database(ctx, &r) => {}
            None => {
                c.emit(Code::RES025, Some(&path), "Missing required field \"mode\"");
            }
            Some(Value::String(m)) if m == "in-memory" || m == "file-based" => {}
            Some(other) => {
                c.emit(
                    Code::RES025,
                    Some(&path),
                    format!(
                        "Must be 'in-memory' or 'file-based' (found {})",
                        shown(other)
                    ),
                );
            }
        }
    }
}

/// RES026: A `sqlite` or `markdown` resource without `origin`, or any resource whose `origin` is
/// not `global`, `project` or `inline`.
///
/// # Why
///
/// The origin names the folder the file lives in; with the name it is the whole address of the
/// file, so there are no pseudo-paths. `http` and `sqlite-gtfs` resources are addressed by `url`
/// and `path` and need no origin.
pub(super) fn res026_origin(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let Some(source) = r.source() else { continue };
        let path = r.path.key("origin");
        match r.res.field("origin") {
            None if compat_database(ctx, &r) => {}
            None if source == "sqlite" || source == "markdown" => {
                c.emit(
                    Code::RES026,
                    Some(&path),
                    "Missing required field \"origin\"",
                );
            }
            None => {}
            Some(Value::String(o)) if ["global", "project", "inline"].contains(&o.as_str()) => {}
            Some(other) => {
                c.emit(
                    Code::RES026,
                    Some(&path),
                    format!(
                        "Must be 'global', 'project' or 'inline' (found {})",
                        shown(other)
                    ),
                );
            }
        }
    }
}

/// RES027: A `sqlite` or `markdown` resource whose `name` is missing, not a string or empty, or a
/// `markdown` resource whose name does not end in `.md`.
///
/// # Why
///
/// The name is the file name, extension included. A wrong `.db` extension on a sqlite resource is
/// reported as RES003, so the finding is not counted twice.
pub(super) fn res027_name(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let Some(source) = r.source() else { continue };
        if source != "sqlite" && source != "markdown" {
            continue;
        }
        let path = r.path.key("name");
        match r.res.field("name") {
            None if compat_database(ctx, &r) => {}
            None => {
                c.emit(Code::RES027, Some(&path), "Missing required field \"name\"");
            }
            Some(Value::String(n)) if n.trim().is_empty() => {
                c.emit(Code::RES027, Some(&path), "Must not be empty");
            }
            Some(Value::String(n)) => {
                if source == "markdown" && !n.ends_with(".md") {
                    c.emit(
                        Code::RES027,
                        Some(&path),
                        format!("Markdown resource file name {n:?} does not end in .md"),
                    );
                }
            }
            Some(other) => {
                c.emit(
                    Code::RES027,
                    Some(&path),
                    format!("Must be a string (found {})", type_name(other)),
                );
            }
        }
    }
}

/// RES028: A resource with more than 7 schema-defined queries (`runSql` and `describeTables`, which
/// the runtime injects, are not counted).
///
/// # Why
///
/// Chapter 09 says 4 and the resources chapter 7 (9 with the two injected ones). The chapter that
/// defines resources decides: at most 7, and RES006 is not reported.
pub(super) fn res028_query_count(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let Some(queries) = r.res.field("queries").and_then(Value::as_object) else {
            continue;
        };
        let count = queries
            .keys()
            .filter(|k| !Builtin::ALL.iter().any(|b| b.name() == k.as_str()))
            .count();
        if count > 7 {
            c.emit(
                Code::RES028,
                Some(&r.path.key("queries")),
                format!("{count} queries defined, at most 7 are allowed"),
            );
        }
    }
}

/// RES029: A query of an `in-memory` sqlite resource or of an `http` resource whose SQL does not
/// start with `SELECT` or `WITH` (after whitespace and comments).
///
/// # Why
///
/// These resources are read-only. A statement that starts otherwise either writes or does
/// something a reader does not need; `WITH` admits common table expressions. `file-based`
/// resources may run any statement. Chapter 09's RES012 (SELECT only) is not reported: this rule
/// replaces it.
pub(super) fn res029_select_or_with(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let source = q.res.field("source").and_then(Value::as_str);
        let mode = q.res.field("mode").and_then(Value::as_str);
        let read_only =
            source == Some("http") || (source == Some("sqlite") && mode == Some("in-memory"));
        if !read_only {
            continue;
        }
        let Some(sql) = q.sql() else { continue };
        if sql.contains("{{DYNAMIC_SQL}}") {
            continue;
        }
        let (words, _) = sql_tokens(sql);
        let first = words.first().map(String::as_str);
        if first != Some("SELECT") && first != Some("WITH") {
            c.emit(
                Code::RES029,
                Some(&q.path.key("sql")),
                format!(
                    "Query {:?} of a read-only resource must start with SELECT or WITH",
                    q.name
                ),
            );
        }
    }
}

/// RES011: A resource query without tests: `tests` missing, not an array, or empty.
///
/// # Why
///
/// Tests are how a query is shown to work against its database and how a client learns example
/// values. A query with some tests but fewer than three is TST001's business; a query with none at
/// all is an error under every profile.
pub(super) fn res011_has_tests(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let path = q.path.key("tests");
        match q.query.field("tests") {
            Some(Value::Array(tests)) if !tests.is_empty() => {}
            Some(Value::Array(_)) => {
                c.emit(Code::RES011, Some(&path), "A query needs at least one test");
            }
            None => {
                c.emit_help(
                    Code::RES011,
                    Some(&path),
                    "Missing required field \"tests\"",
                    Some("add `tests: [ { _description: '…', <param>: <value> } ]`".to_string()),
                );
            }
            Some(other) => {
                c.emit(
                    Code::RES011,
                    Some(&path),
                    format!("Must be an array of tests (found {})", type_name(other)),
                );
            }
        }
    }
}

/// RES030: A `sqlite-gtfs` resource whose `mode` is missing or not `file-based`.
///
/// # Why
///
/// The quality seal is read from the database's persisted `meta` table; an in-memory copy could not
/// be checked the same way.
pub(super) fn res030_gtfs_file_based(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() != Some("sqlite-gtfs") {
            continue;
        }
        let path = r.path.key("mode");
        match r.res.field("mode") {
            Some(Value::String(m)) if m == "file-based" => {}
            None => {
                c.emit(
                    Code::RES030,
                    Some(&path),
                    "sqlite-gtfs requires `mode: 'file-based'`",
                );
            }
            Some(other) => {
                c.emit(
                    Code::RES030,
                    Some(&path),
                    format!(
                        "sqlite-gtfs requires `mode: 'file-based'` (found {})",
                        shown(other)
                    ),
                );
            }
        }
    }
}

/// RES031: A `sqlite-gtfs` resource without `addon` (a non-empty string).
///
/// # Why
///
/// The add-on produced the database and decides which standard tools are injected for it; without
/// it the resource cannot be interpreted.
pub(super) fn res031_gtfs_addon(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() != Some("sqlite-gtfs") {
            continue;
        }
        let path = r.path.key("addon");
        match r.res.field("addon") {
            Some(Value::String(a)) if !a.trim().is_empty() => {}
            None => {
                c.emit(
                    Code::RES031,
                    Some(&path),
                    "Missing required field \"addon\"",
                );
            }
            Some(other) => {
                c.emit(
                    Code::RES031,
                    Some(&path),
                    format!("Must be the add-on's name (found {})", shown(other)),
                );
            }
        }
    }
}

/// RES037: A `sqlite` resource with `mode: 'file-based'` whose `origin` is not `project`.
///
/// # Why
///
/// A writable database must belong to one project: a global one could be corrupted by several
/// projects at once, and an inline one would be written next to the schema, inside the catalog. A
/// missing or unknown origin is RES026's.
pub(super) fn res037_file_based_project(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() != Some("sqlite") || r.str_field("mode") != Some("file-based") {
            continue;
        }
        if let Some(origin @ ("global" | "inline")) = r.str_field("origin") {
            c.emit(
                Code::RES037,
                Some(&r.path.key("origin")),
                format!("A file-based database must have `origin: 'project'` (found {origin:?})"),
            );
        }
    }
}

/// RES038: A `markdown` resource with a `mode`.
///
/// # Why
///
/// A markdown document is always read-only; a `mode` would suggest it could be written.
pub(super) fn res038_markdown_no_mode(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() == Some("markdown") && r.res.contains_key("mode") {
            c.emit(
                Code::RES038,
                Some(&r.path.key("mode")),
                "A markdown resource must not have `mode`",
            );
        }
    }
}

/// RES039: A `markdown` resource with `queries`.
///
/// # Why
///
/// Markdown documents are read whole, by section, by line range or by search, through access
/// functions the runtime injects; there is no SQL to run, so queries would never be used.
pub(super) fn res039_markdown_no_queries(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() == Some("markdown") && r.res.contains_key("queries") {
            c.emit(
                Code::RES039,
                Some(&r.path.key("queries")),
                "A markdown resource must not have `queries`",
            );
        }
    }
}

/// RES040: A read-only `sqlite` resource with `origin: 'inline'` (a warning).
///
/// # Why
///
/// An inline database is committed with the schema, and databases may hold personal or
/// proprietary data or be large. A file-based one with `inline` is an error (RES037) and is not
/// reported here as well.
pub(super) fn res040_sqlite_inline(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() == Some("sqlite")
            && r.str_field("origin") == Some("inline")
            && r.str_field("mode") != Some("file-based")
        {
            c.emit_help(
                Code::RES040,
                Some(&r.path.key("origin")),
                "A SQLite database inline with the schema is not recommended",
                Some("use `origin: 'global'` or `'project'`".to_string()),
            );
        }
    }
}

/// The parsed `z` of each user parameter of a query (`{{USER_PARAM}}`, or under compat an
/// undeclared bare `{{X}}`), by `position.key`; `None` for a `z` that is missing or does not parse.
fn query_user_types<'a>(ctx: &SchemaCtx<'a>, q: &QueryRef<'a>) -> Vec<(&'a str, Option<ZType>)> {
    let declared = required_server_params(ctx);
    let mut out: Vec<(&'a str, Option<ZType>)> = Vec::new();
    for (param, _) in q.params() {
        let Some(position) = param.field("position").and_then(Value::as_object) else {
            continue;
        };
        let (Some(key), Some(value)) = (
            position.field("key").and_then(Value::as_str),
            position.field("value").and_then(Value::as_str),
        ) else {
            continue;
        };
        let role =
            flowmcp_spec::placeholder::param_role(value, |k| declared.contains(&k), ctx.profile());
        if role != ParamRole::User || out.iter().any(|(k, _)| *k == key) {
            continue;
        }
        out.push((key, param_ztype(ctx, param)));
    }
    out
}

/// A parameter's `z` when it parses under the active profile, with shared-list enum items
/// resolved as for tool tests.
fn param_ztype(ctx: &SchemaCtx<'_>, param: &Map<String, Value>) -> Option<ZType> {
    let z = param.field("z")?.as_object()?;
    // A primitive that is not scalar is RES019's; its test values are not checked against it.
    let primitive = z.field("primitive")?.as_str().filter(|p| is_scalar(p))?;
    let options: Vec<&str> = match z.field("options") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(Value::as_str)
            .collect::<Option<Vec<_>>>()?,
        Some(_) => return None,
    };
    let zt = ZType::parse(primitive, &options, ctx.is_compat()).ok()?;
    Some(resolve_list_items(ctx, zt))
}

/// RES022: A query test whose value for a user parameter does not pass that parameter's `z`
/// validation (type, enum values, `min`/`max`/`length`, …).
///
/// # Why
///
/// A test with invalid input is rejected before the SQL runs, so it shows nothing about the query.
/// Values that are not JSON-serializable are RES023's, and parameters whose primitive is not scalar
/// are RES019's.
pub(super) fn res022_test_values_pass_z(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let bad = unserializable_paths(ctx);
    for q in each_query(ctx) {
        let Some(Value::Array(tests)) = q.query.field("tests") else {
            continue;
        };
        let types = query_user_types(ctx, &q);
        let objects = tests
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.as_object().map(|o| (i, o)));
        check_test_values(Code::RES022, objects, &q.path.key("tests"), &types, &bad, c);
    }
}

/// RES023: A query test that contains a value that does not survive a JSON round trip (a
/// function, `undefined`, a `Date`, NaN, …).
///
/// # Why
///
/// Tests are part of `main`, which is hashed and shipped as JSON; such values would be dropped or
/// changed on the way.
pub(super) fn res023_tests_serializable(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    report_unserializable(ctx, c, Code::RES023, |path| {
        matches!(
            path,
            [
                PathItem::Key(resources),
                PathItem::Key(_),
                PathItem::Key(queries),
                PathItem::Key(_),
                PathItem::Key(tests),
                PathItem::Index(_),
                ..
            ] if resources == "resources" && queries == "queries" && tests == "tests"
        )
    });
}

/// RES041: A field a resource's source requires, where no other code covers it, is missing or of
/// the wrong type: `queries` (an object) of `sqlite` and `http` resources, `cacheTtl` (a positive
/// number of seconds) of `http` resources, `path` (a non-empty string) of `sqlite-gtfs` resources.
///
/// # Why
///
/// Every field of a resource is required for its source and none has a default. The other required
/// fields have codes of their own (`mode` RES025/RES030, `origin` RES026, `name` RES027, `url`
/// RES024, `addon` RES031, `description` RES002); this code reports the rest, so that each missing
/// field is reported once.
pub(super) fn res041_source_fields(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        let Some(source) = r.source() else { continue };
        if source == "sqlite" || source == "http" {
            let path = r.path.key("queries");
            match r.res.field("queries") {
                Some(Value::Object(_)) => {}
                None => {
                    c.emit_help(
                        Code::RES041,
                        Some(&path),
                        format!("Missing required field \"queries\" of a {source} resource"),
                        Some("write `queries: {}` when the injected runSql is enough".to_string()),
                    );
                }
                Some(other) => {
                    c.emit(
                        Code::RES041,
                        Some(&path),
                        format!("Must be an object (found {})", type_name(other)),
                    );
                }
            }
        }
        if source == "http" {
            let path = r.path.key("cacheTtl");
            match r.res.field("cacheTtl") {
                Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f > 0.0) => {}
                None => {
                    c.emit(
                        Code::RES041,
                        Some(&path),
                        "Missing required field \"cacheTtl\" of an http resource",
                    );
                }
                Some(other) => {
                    c.emit(
                        Code::RES041,
                        Some(&path),
                        format!(
                            "Must be a positive number of seconds (found {})",
                            shown(other)
                        ),
                    );
                }
            }
        }
        if source == "sqlite-gtfs" {
            let path = r.path.key("path");
            match r.res.field("path") {
                Some(Value::String(p)) if !p.trim().is_empty() => {}
                None => {
                    c.emit(
                        Code::RES041,
                        Some(&path),
                        "Missing required field \"path\" of a sqlite-gtfs resource",
                    );
                }
                Some(other) => {
                    c.emit(
                        Code::RES041,
                        Some(&path),
                        format!("Must be a non-empty string (found {})", shown(other)),
                    );
                }
            }
        }
    }
}

/// The shape of a resource query's parameters, with the codes tool parameters use: an entry that
/// is not an object, or has no `position` object, is VAL040; `position.key` missing, empty or
/// not a string is VAL041; `position.value` missing or not a string is VAL042. A missing `z` is
/// left to RES019 and `position.location` to RES015.
///
/// Resource parameters have the format of tool parameters (without `location`): the key names
/// the input and the test values, and the value says where the bound value comes from. Without
/// a string key and value the parameter can be neither offered nor bound.
pub(super) fn resource_param_positions(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for q in each_query(ctx) {
        let Some(Value::Array(params)) = q.query.field("parameters") else {
            continue;
        };
        let base = q.path.key("parameters");
        for (i, p) in params.iter().enumerate() {
            let path = base.index(i);
            let Some(param) = p.as_object() else {
                c.emit(
                    Code::VAL040,
                    Some(&path),
                    format!(
                        "Must be an object with position and z (found {})",
                        type_name(p)
                    ),
                );
                continue;
            };
            let position = match param.field("position") {
                Some(Value::Object(position)) => position,
                None => {
                    c.emit(
                        Code::VAL040,
                        Some(&path.key("position")),
                        "Missing required field \"position\"",
                    );
                    continue;
                }
                Some(other) => {
                    c.emit(
                        Code::VAL040,
                        Some(&path.key("position")),
                        format!("Must be an object (found {})", type_name(other)),
                    );
                    continue;
                }
            };
            for (field, code) in [("key", Code::VAL041), ("value", Code::VAL042)] {
                let at = path.key("position").key(field);
                match position.field(field) {
                    None => {
                        c.emit(
                            code,
                            Some(&at),
                            format!("Missing required field \"{field}\""),
                        );
                    }
                    Some(Value::String(s)) if s.is_empty() && field == "key" => {
                        c.emit(code, Some(&at), "Must not be empty (found \"\")");
                    }
                    Some(Value::String(_)) => {}
                    Some(other) => {
                        c.emit(
                            code,
                            Some(&at),
                            format!("Must be a string (found {})", type_name(other)),
                        );
                    }
                }
            }
        }
    }
}

/// Resolves the path variable of a `sqlite-gtfs` `path` with what the caller gave in
/// [`crate::Options`]: `FLOWMCP_RESOURCES` and the home directory (an empty one counts as unset).
fn resolve_gtfs_path(ctx: &SchemaCtx<'_>, path: &str) -> Result<PathBuf, PathVarError> {
    let home = ctx
        .options()
        .home
        .as_deref()
        .filter(|h| !h.as_os_str().is_empty());
    resolve_path(path, ctx.options().resources_variable.as_deref(), home)
}

/// The `path` of every `sqlite-gtfs` resource where it is a non-empty string (otherwise RES041),
/// with the resource.
fn gtfs_paths<'a>(ctx: &SchemaCtx<'a>) -> Vec<(ResRef<'a>, &'a str)> {
    each_resource(ctx)
        .into_iter()
        .filter(|r| r.source() == Some("sqlite-gtfs"))
        .filter_map(|r| {
            let path = r.str_field("path").filter(|p| !p.trim().is_empty())?;
            Some((r, path))
        })
        .collect()
}

/// RES035: A `sqlite-gtfs` resource whose `path` holds a path variable that cannot be resolved:
/// `${FLOWMCP_RESOURCES}` while the environment variable `FLOWMCP_RESOURCES` is unset and there is
/// no home directory (`HOME`) for the default `~/.flowmcp/resources`, any other `${…}` variable,
/// or a `${` without its `}`.
///
/// # Why
///
/// Only `${FLOWMCP_RESOURCES}` is defined; a variable nobody defines would resolve to nothing, and
/// the database would be looked for in the wrong place. An empty `FLOWMCP_RESOURCES` counts as
/// unset, so the default applies.
pub(super) fn res035_path_variable(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let paths = gtfs_paths(ctx);
    if !paths.iter().any(|(_, p)| p.contains("${")) {
        return;
    }
    for (r, path) in paths {
        if let Err(e) = resolve_gtfs_path(ctx, path) {
            c.emit_help(
                Code::RES035,
                Some(&r.path.key("path")),
                format!("Path {path:?}: {e}"),
                Some(
                    "write `${FLOWMCP_RESOURCES}/<file>.db` and set FLOWMCP_RESOURCES, or an absolute path"
                        .to_string(),
                ),
            );
        }
    }
}

/// RES033: The database a `sqlite-gtfs` resource names cannot be opened: no file at its `path`,
/// not a regular file, not a SQLite database, or corrupt.
///
/// # Why
///
/// The resource is nothing but its database: without one that opens, no tool can be injected for
/// it. The path is the one the schema gives, with `${FLOWMCP_RESOURCES}` resolved as for RES035; a
/// relative path is taken from the schema's directory. Like RES032 and RES034 this looks at the
/// file only when the schema itself was read from disk (a schema validated from a string touches
/// no files), and it opens the database read-only without changing it.
///
/// RES032: The database a `sqlite-gtfs` resource names does not carry the quality seal: its
/// `meta` table is missing or has no key and value columns, `meta.qualitySeal` is not
/// `'sqlite-gtfs'`, or one of the ten required meta keys is missing or null (the message lists
/// them).
///
/// # Why
///
/// The seal is how an add-on's converter says that the conversion finished and passed its checks;
/// a database produced another way, edited by hand or converted only in part is rejected rather
/// than served as if it were. A database without a `meta` table opens fine but carries no seal,
/// so it is reported here and not as RES033. The `meta` table is read by its `key` and `value`
/// columns, or by its two columns in order when it has exactly two.
///
/// RES034: The `meta.specRevision` of a sealed `sqlite-gtfs` database is outside the range this
/// validator expects: not an ISO date `YYYY-MM-DD`, or a date before the first revision that
/// defines the seal or after the newest revision supported (both `2026-04-27` for now).
///
/// # Why
///
/// The revision says which contract the converter followed. An older one predates the seal's
/// contract, a newer one was written for a specification this validator does not know yet: the
/// database may still work, so this is a warning about the drift, not an error. The range widens
/// when a newer revision is supported.
pub(super) fn res032_res033_res034_gtfs_seal(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(files) = ctx.options().files.as_deref() else {
        return;
    };
    let paths = gtfs_paths(ctx);
    if paths.is_empty() {
        return;
    }
    // The disk is asked only for a schema that has such a database.
    let Some(schema_dir) = ctx.schema_dir() else {
        return;
    };
    for (r, path) in paths {
        // An unresolvable variable is RES035's.
        let Ok(resolved) = resolve_gtfs_path(ctx, path) else {
            continue;
        };
        let full = schema_dir.join(&resolved);
        let at = r.path.key("path");
        // Where a variable led, for the reader; a path as written is shown as written.
        let resolved_help = path
            .contains("${")
            .then(|| format!("the path resolves to {}", full.display()));
        match files.gtfs_seal(&full) {
            Ok(seal) if !spec_revision_in_range(&seal.spec_revision) => {
                c.emit_help(
                    Code::RES034,
                    Some(&at),
                    format!(
                        "Database {path:?} was converted for spec revision {}, outside the expected range: {}",
                        shown(&Value::String(seal.spec_revision)),
                        expected_revisions()
                    ),
                    Some(
                        "convert the data again with an add-on version that targets a supported revision"
                            .to_string(),
                    ),
                );
            }
            Ok(_) => {}
            Err(SealError::Unopenable { reason }) => {
                c.emit_help(
                    Code::RES033,
                    Some(&at),
                    format!("Database {path:?} cannot be opened: {reason}"),
                    resolved_help,
                );
            }
            Err(e) => {
                c.emit_help(
                    e.code(),
                    Some(&at),
                    format!("Database {path:?} is not a sealed sqlite-gtfs database: {e}"),
                    Some(
                        "convert the data with the add-on named in `addon`; only a database whose meta table holds qualitySeal 'sqlite-gtfs' and the ten required keys is accepted"
                            .to_string(),
                    ),
                );
            }
        }
    }
}

/// The revisions RES034 accepts, in words.
fn expected_revisions() -> String {
    if EARLIEST_SPEC_REVISION == SUPPORTED_SPEC_REVISION {
        format!("the supported revision is {SUPPORTED_SPEC_REVISION}")
    } else {
        format!(
            "supported revisions are the dates {EARLIEST_SPEC_REVISION} to {SUPPORTED_SPEC_REVISION}"
        )
    }
}

/// RES020: A `sqlite` resource with `origin: 'inline'` whose database cannot be found beside the
/// schema (a warning): there is no file at `resources/<name>` in the schema's directory, nor the
/// schema SQL `resources/<name stem>.sql` the runtime builds it from on first use. Only
/// `in-memory` resources are checked, and only when the schema was read from disk.
///
/// # Why
///
/// An inline database ships with the schema, as the database file or as the SQL it is built
/// from, so one of them should be there when the schema is validated; otherwise the runtime
/// cannot open it. `project` and `global` databases live on the machine that runs the schema, not
/// beside it, so their absence where the validator runs says nothing about the schema and they
/// are not checked. A `file-based` database is created with `flowmcp resource init` (and must be
/// `project`, RES037), so a missing file is expected there.
pub(super) fn res020_inline_database_exists(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(files) = ctx.options().files.as_deref() else {
        return;
    };
    for r in each_resource(ctx) {
        if r.source() != Some("sqlite")
            || r.str_field("origin") != Some("inline")
            || r.str_field("mode") == Some("file-based")
        {
            continue;
        }
        let Some(name) = r.str_field("name") else {
            continue;
        };
        // The disk is asked only for a schema that has an inline database (once per file).
        let Some(schema_dir) = ctx.schema_dir() else {
            return;
        };
        // A name that is not a plain `.db` file name is reported by RES003, RES004 and RES027.
        if files.inline_database_present(schema_dir, name) == Some(false) {
            let stem = name.strip_suffix(".db").unwrap_or(name);
            c.emit_help(
                Code::RES020,
                Some(&r.path.key("name")),
                format!("Database file resources/{name} does not exist beside the schema"),
                Some(format!(
                    "put the database at resources/{name} in the schema's directory, or the SQL it is built from at resources/{stem}.sql"
                )),
            );
        }
    }
}

/// RES042: A `file-based` sqlite resource that defines no `getSchema` query (information only).
///
/// # Why
///
/// The resources chapter lets SQLite resources define `getSchema`, a query returning the `CREATE
/// TABLE` statements, for bootstrapping a file-based database or for tools that need the schema
/// text; it is never required. The hint is given for `file-based` resources, the ones the chapter
/// recommends it for. `in-memory` resources are not reported: the injected `describeTables`
/// already shows their structure, so they almost never need it. This implementation creates a
/// missing file-based database from the SQL file committed beside the schema
/// (`resources/<name stem>.sql`), since `getSchema` can only read a database that already exists.
/// A resource without `queries` is RES041's.
pub(super) fn res042_get_schema_hint(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for r in each_resource(ctx) {
        if r.source() != Some("sqlite") || r.str_field("mode") != Some("file-based") {
            continue;
        }
        let Some(queries) = r.res.field("queries").and_then(Value::as_object) else {
            continue;
        };
        if !queries.contains_key("getSchema") {
            c.emit_help(
                Code::RES042,
                Some(&r.path.key("queries")),
                "A file-based SQLite resource may define a `getSchema` query that returns its CREATE TABLE statements (optional)",
                Some(
                    "for example `getSchema: { sql: \"SELECT name, sql FROM sqlite_master WHERE type='table'\", … }`"
                        .to_string(),
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sql_tokens;

    #[test]
    fn placeholders_outside_literals_and_comments() {
        assert_eq!(sql_tokens("SELECT * FROM t WHERE a = ? AND b = ?").1, 2);
        assert_eq!(
            sql_tokens("SELECT '?' , \"?\" FROM t -- ?\n WHERE a = ?").1,
            1
        );
        assert_eq!(sql_tokens("SELECT /* ? ? */ x FROM [a?] WHERE a = ?").1, 1);
        assert_eq!(sql_tokens("SELECT 'it''s ?' WHERE a = ?").1, 1);
        assert_eq!(sql_tokens("SELECT 'unterminated ?").1, 0);
    }

    #[test]
    fn words_are_upper_cased_outside_literals() {
        let (words, _) = sql_tokens("  -- note\n with x as (select 1) select load_extension('a')");
        assert_eq!(words.first().map(String::as_str), Some("WITH"));
        assert!(words.iter().any(|w| w == "LOAD_EXTENSION"));
        let (words, _) = sql_tokens("SELECT 'ATTACH' FROM t");
        assert!(!words.iter().any(|w| w == "ATTACH"));
    }
}
