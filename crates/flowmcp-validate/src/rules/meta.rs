//! Rules on the per-tool `meta` block: VAL100–VAL106 (chapter 19; chapter 01 places `meta` on
//! `main` instead, but the rules and chapter 19 put it on each tool, and so does this project).
//!
//! `spec` requires the block on every tool; `compat` does not report a missing one (the registry
//! turns VAL100's default variant off) but checks a block that is present. `meta: null` counts as
//! missing, as in the JavaScript reference.

use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, each_tool, shown, type_name};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL100],
        check: val100_meta_block,
    },
    SchemaRule {
        codes: &[Code::VAL101],
        check: val101_is_read_only,
    },
    SchemaRule {
        codes: &[Code::VAL102],
        check: val102_is_concurrency_safe,
    },
    SchemaRule {
        codes: &[Code::VAL103],
        check: val103_is_destructive,
    },
    SchemaRule {
        codes: &[Code::VAL104],
        check: val104_search_hint,
    },
    SchemaRule {
        codes: &[Code::VAL105],
        check: val105_aliases,
    },
    SchemaRule {
        codes: &[Code::VAL106],
        check: val106_always_load,
    },
];

/// Every tool whose `meta` is an object: `(meta, path of meta)`.
fn each_meta<'a>(ctx: &SchemaCtx<'a>) -> Vec<(&'a Map<String, Value>, JsonPath)> {
    each_tool(ctx)
        .iter()
        .filter_map(|(_, tool, path)| {
            tool.field("meta")
                .and_then(Value::as_object)
                .map(|m| (m, path.key("meta")))
        })
        .collect()
}

/// VAL100: A tool has no `meta` block (`meta: null` counts as missing). Under `compat` a missing
/// `meta` is not reported (it is checked when present). A `meta` that is present but not an object
/// is the `not-object` variant, an error in both profiles.
///
/// # Why
///
/// Version 4.2.0 requires `meta` on every tool so that MCP servers can annotate tools (read-only,
/// destructive) and find them through tool search.
pub(super) fn val100_meta_block(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (name, tool, path) in each_tool(ctx) {
        let path = || path.key("meta");
        match tool.field("meta") {
            found @ (None | Some(Value::Null)) => {
                let null = if found.is_some() { " (found null)" } else { "" };
                c.emit_help(
                    Code::VAL100,
                    Some(&path()),
                    format!("Missing required field \"meta\" in tool \"{name}\"{null}"),
                    Some(
                        "add `meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: '…', aliases: [], alwaysLoad: false }`"
                            .to_string(),
                    ),
                );
            }
            Some(Value::Object(_)) => {}
            Some(other) => {
                c.emit_variant(
                    Code::VAL100,
                    Some("not-object"),
                    Some(&path()),
                    format!("Must be an object (found {})", type_name(other)),
                );
            }
        }
    }
}

/// Checks that `meta.<field>` is present and a boolean.
fn check_boolean(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>, code: Code, field: &str) {
    for (meta, path) in each_meta(ctx) {
        let path = path.key(field);
        match meta.field(field) {
            None => {
                c.emit(
                    code,
                    Some(&path),
                    format!("Missing required field \"{field}\""),
                );
            }
            Some(Value::Bool(_)) => {}
            Some(other) => {
                c.emit(
                    code,
                    Some(&path),
                    format!("Must be a boolean (found {})", shown(other)),
                );
            }
        }
    }
}

/// VAL101: `meta.isReadOnly` is missing or not a boolean.
///
/// # Why
///
/// It becomes the MCP `readOnlyHint` annotation, which clients use to decide whether a call needs
/// the user's confirmation.
pub(super) fn val101_is_read_only(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_boolean(ctx, c, Code::VAL101, "isReadOnly");
}

/// VAL102: `meta.isConcurrencySafe` is missing or not a boolean.
///
/// # Why
///
/// It tells agents whether the tool may be called several times in parallel.
pub(super) fn val102_is_concurrency_safe(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_boolean(ctx, c, Code::VAL102, "isConcurrencySafe");
}

/// VAL103: `meta.isDestructive` is missing or not a boolean.
///
/// # Why
///
/// It becomes the MCP `destructiveHint` annotation; clients warn before calling a tool that can
/// make irreversible changes.
pub(super) fn val103_is_destructive(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_boolean(ctx, c, Code::VAL103, "isDestructive");
}

/// VAL104: `meta.searchHint` is missing, not a string, or empty (whitespace only counts as empty).
///
/// # Why
///
/// The hint holds the keywords tool search matches (`_meta["anthropic/searchHint"]`); a tool that
/// is loaded on demand can only be found through it.
pub(super) fn val104_search_hint(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (meta, path) in each_meta(ctx) {
        let path = path.key("searchHint");
        match meta.field("searchHint") {
            None => {
                c.emit(
                    Code::VAL104,
                    Some(&path),
                    "Missing required field \"searchHint\"",
                );
            }
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            Some(other @ Value::String(_)) => {
                c.emit(
                    Code::VAL104,
                    Some(&path),
                    format!("Must be a non-empty string (found {})", shown(other)),
                );
            }
            Some(other) => {
                c.emit(
                    Code::VAL104,
                    Some(&path),
                    format!("Must be a non-empty string (found {})", type_name(other)),
                );
            }
        }
    }
}

/// VAL105: `meta.aliases` is missing, not an array, or has an entry that is not a string (an empty
/// `[]` is fine).
///
/// # Why
///
/// Aliases let tool search find a tool under other names, such as `getAbi` for
/// `getSmartContractAbi`.
pub(super) fn val105_aliases(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (meta, path) in each_meta(ctx) {
        let path = path.key("aliases");
        match meta.field("aliases") {
            None => {
                c.emit(
                    Code::VAL105,
                    Some(&path),
                    "Missing required field \"aliases\"",
                );
            }
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if !item.is_string() {
                        c.emit(
                            Code::VAL105,
                            Some(&path.index(i)),
                            format!("Must be a string (found {})", type_name(item)),
                        );
                    }
                }
            }
            Some(other) => {
                c.emit(
                    Code::VAL105,
                    Some(&path),
                    format!("Must be an array of strings (found {})", type_name(other)),
                );
            }
        }
    }
}

/// VAL106: `meta.alwaysLoad` is missing or not a boolean.
///
/// # Why
///
/// It decides whether the tool is registered eagerly (`_meta["anthropic/alwaysLoad"]`) or loaded on
/// demand; eager tools fill every session's tool list, so the choice must be explicit.
pub(super) fn val106_always_load(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_boolean(ctx, c, Code::VAL106, "alwaysLoad");
}
