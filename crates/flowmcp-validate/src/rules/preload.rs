//! Rules on `preload`: PRE001–PRE006 (chapter 11 numbers them VAL060–VAL065, which the
//! validation-rules chapter gives to the output-schema rules; renumbered here, in the same order).

use flowmcp_spec::zod::Options;
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, each_tool, shown, type_name, user_params};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::PRE001],
        check: pre001_preload_object,
    },
    SchemaRule {
        codes: &[Code::PRE002],
        check: pre002_enabled_boolean,
    },
    SchemaRule {
        codes: &[Code::PRE003],
        check: pre003_ttl_positive_integer,
    },
    SchemaRule {
        codes: &[Code::PRE004],
        check: pre004_description_string,
    },
    SchemaRule {
        codes: &[Code::PRE005],
        check: pre005_cache_candidate,
    },
    SchemaRule {
        codes: &[Code::PRE006],
        check: pre006_required_params_documented,
    },
];

/// A tool whose `preload` is an object.
struct PreloadRef<'a> {
    tool_name: &'a String,
    tool: &'a Map<String, Value>,
    preload: &'a Map<String, Value>,
    /// `main.tools.<name>.preload`
    path: JsonPath,
}

/// Every tool whose `preload` is an object.
fn each_preload<'a>(ctx: &SchemaCtx<'a>) -> Vec<PreloadRef<'a>> {
    each_tool(ctx)
        .iter()
        .filter_map(|(tool_name, tool, path)| {
            tool.field("preload")
                .and_then(Value::as_object)
                .map(|preload| PreloadRef {
                    tool_name,
                    tool,
                    preload,
                    path: path.key("preload"),
                })
        })
        .collect()
}

/// The preloads with `enabled: true` on tools whose `parameters` is an array, each with the
/// `position.key` of every required user parameter (a user parameter without `optional()` or
/// `default(...)` in `z.options`).
fn enabled_preloads<'a>(ctx: &SchemaCtx<'a>) -> Vec<(PreloadRef<'a>, Vec<&'a str>)> {
    each_preload(ctx)
        .into_iter()
        .filter(|p| {
            p.preload.field("enabled") == Some(&Value::Bool(true))
                && p.tool.field("parameters").is_some_and(Value::is_array)
        })
        .map(|p| {
            let required = user_params(ctx, p.tool_name)
                .into_iter()
                .filter(|(_, param)| !is_optional(param.z()))
                .map(|(key, _)| key)
                .collect();
            (p, required)
        })
        .collect()
}

/// Whether a parameter's `z.options` make it optional (`optional()` or `default(...)`). Entries that
/// are not strings or do not parse are ignored here (VAL045 reports them).
fn is_optional(z: Option<&Map<String, Value>>) -> bool {
    let Some(Value::Array(options)) = z.and_then(|z| z.field("options")) else {
        return false;
    };
    let texts: Vec<&str> = options.iter().filter_map(Value::as_str).collect();
    Options::parse_lenient(&texts, true).0.is_optional()
}

/// PRE001: A tool's `preload` is present but not a plain object.
///
/// # Why
///
/// `preload` declares caching intent through its fields (`enabled`, `ttl`, `description`). Chapter
/// 11 numbers the preload checks VAL060–VAL065, codes the output-schema checks of chapter 09
/// already use; the output-schema checks keep those codes and the preload checks are PRE001–PRE006,
/// in the same order, so that each code has one meaning.
pub(super) fn pre001_preload_object(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, tool, path) in each_tool(ctx) {
        let Some(preload) = tool.field("preload") else {
            continue;
        };
        if !preload.is_object() {
            c.emit_help(
                Code::PRE001,
                Some(&path.key("preload")),
                format!("Must be an object (found {})", type_name(preload)),
                Some("write `preload: { enabled: true, ttl: 86400 }`".to_string()),
            );
        }
    }
}

/// PRE002: `preload.enabled` is missing or not a boolean.
///
/// # Why
///
/// Only `enabled: true` turns caching on; a string such as `'false'` would read as the opposite of
/// what it says.
pub(super) fn pre002_enabled_boolean(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for PreloadRef { preload, path, .. } in each_preload(ctx) {
        let path = path.key("enabled");
        match preload.field("enabled") {
            None => {
                c.emit(
                    Code::PRE002,
                    Some(&path),
                    "Missing required field \"enabled\"",
                );
            }
            Some(Value::Bool(_)) => {}
            Some(other) => {
                c.emit(
                    Code::PRE002,
                    Some(&path),
                    format!("Must be a boolean (found {})", shown(other)),
                );
            }
        }
    }
}

/// Whether `n` is an integer greater than 0. An integral float (`86400.0`) counts: a JavaScript
/// engine hands every number over as a double.
fn is_positive_integer(n: &serde_json::Number) -> bool {
    if let Some(u) = n.as_u64() {
        return u > 0;
    }
    if n.is_i64() {
        return false;
    }
    n.as_f64()
        .is_some_and(|f| f.is_finite() && f > 0.0 && f.fract() == 0.0)
}

/// PRE003: `preload.ttl` is missing or not a positive integer (seconds).
///
/// # Why
///
/// The TTL is the maximum age of a cached response; zero, negative or fractional values make no
/// sense for a cache lifetime.
pub(super) fn pre003_ttl_positive_integer(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for PreloadRef { preload, path, .. } in each_preload(ctx) {
        let path = path.key("ttl");
        match preload.field("ttl") {
            None => {
                c.emit(Code::PRE003, Some(&path), "Missing required field \"ttl\"");
            }
            Some(Value::Number(n)) if is_positive_integer(n) => {}
            Some(other) => {
                c.emit(
                    Code::PRE003,
                    Some(&path),
                    format!(
                        "Must be a positive integer number of seconds (found {})",
                        shown(other)
                    ),
                );
            }
        }
    }
}

/// PRE004: `preload.description` is present but not a string (a warning).
///
/// # Why
///
/// The description is shown on a cache hit (dataset size, update rhythm). It is informational, so a
/// bad value does not block loading.
pub(super) fn pre004_description_string(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for PreloadRef { preload, path, .. } in each_preload(ctx) {
        if let Some(d) = preload.field("description")
            && !d.is_string()
        {
            c.emit(
                Code::PRE004,
                Some(&path.key("description")),
                format!("Must be a string (found {})", type_name(d)),
            );
        }
    }
}

/// PRE005: A tool with `preload.enabled: true` and no user parameters (reported as info); fixed and
/// server parameters do not count, since they do not vary between calls.
///
/// # Why
///
/// A response without parameters is one dataset: the ideal cache entry, keyed by namespace and tool
/// alone. The note confirms the choice.
pub(super) fn pre005_cache_candidate(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (p, _) in enabled_preloads(ctx) {
        let (name, path) = (p.tool_name, p.path);
        if user_params(ctx, name).is_empty() {
            c.emit(
                Code::PRE005,
                Some(&path),
                format!(
                    "{name}: preloaded and takes no user parameters, an ideal cache candidate (one cache entry serves every call)"
                ),
            );
        }
    }
}

/// PRE006: A tool with `preload.enabled: true` that has required user parameters but no
/// `preload.description`, or a blank one (a warning). A description that is not a string is
/// PRE004's business.
///
/// # Why
///
/// Each distinct set of parameter values becomes its own cache entry, so the cache key must include
/// them and caching only helps when the same inputs repeat. Chapter 11 asks such tools to document
/// that behaviour.
pub(super) fn pre006_required_params_documented(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (p, required) in enabled_preloads(ctx) {
        if required.is_empty() {
            continue;
        }
        let (name, path) = (p.tool_name, p.path);
        let documented = match p.preload.field("description") {
            None => false,
            Some(Value::String(s)) => !s.trim().is_empty(),
            Some(_) => true,
        };
        if documented {
            continue;
        }
        c.emit_help(
            Code::PRE006,
            Some(&path),
            format!(
                "{name}: preloaded with required parameters ({}) should document its caching in preload.description (the cache key includes the parameter values)",
                required.join(", ")
            ),
            Some(
                "e.g. `description: 'Cached per address for 1 day'`, or drop `preload` if responses vary too much"
                    .to_string(),
            ),
        );
    }
}
