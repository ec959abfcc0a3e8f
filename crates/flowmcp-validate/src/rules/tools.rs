//! Rules on each tool: VAL003 (tool and parameter level), VAL030–VAL037.

use flowmcp_spec::model::Method;
use flowmcp_spec::{Code, diagnostic::Collector};
use serde_json::Value;

use super::Field as _;
use super::{SchemaCtx, SchemaRule, each_tool, main_path, shown, type_name};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL003],
        check: val003_unknown_tool_keys,
    },
    SchemaRule {
        codes: &[Code::VAL030],
        check: val030_tool_name,
    },
    SchemaRule {
        codes: &[Code::VAL031],
        check: val031_max_tools,
    },
    SchemaRule {
        codes: &[Code::VAL032],
        check: val032_method,
    },
    SchemaRule {
        codes: &[Code::VAL033],
        check: val033_path,
    },
    SchemaRule {
        codes: &[Code::VAL034],
        check: val034_description,
    },
    SchemaRule {
        codes: &[Code::VAL035],
        check: val035_parameters,
    },
    SchemaRule {
        codes: &[Code::VAL036],
        check: val036_output_recommended,
    },
    SchemaRule {
        codes: &[Code::VAL037],
        check: val037_async_reserved,
    },
];

/// Keys a tool may hold (those the specification's chapters describe for a tool).
pub(super) const TOOL_KEYS: &[&str] = &[
    "method",
    "path",
    "description",
    "parameters",
    "output",
    "preload",
    "tests",
    "meta",
    "headers",
    "async",
];

/// Keys a parameter may hold.
pub(super) const PARAMETER_KEYS: &[&str] = &["position", "z", "description"];

/// The most tools one schema may define.
pub(super) const MAX_TOOLS: usize = 8;

/// VAL003 for tools and parameters: unknown keys.
pub(super) fn val003_unknown_tool_keys(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (name, tool, path) in each_tool(ctx) {
        for key in tool.keys() {
            if TOOL_KEYS.contains(&key.as_str()) {
                continue;
            }
            let help = (key == "outputSchema")
                .then(|| "the field is called `output` (`{ mimeType, schema }`)".to_string());
            c.emit_help(
                Code::VAL003,
                Some(&path.key(key)),
                format!("\"{key}\" is not a valid field of tool \"{name}\""),
                help,
            );
        }
        let Some(Value::Array(params)) = tool.field("parameters") else {
            continue;
        };
        for (i, p) in params.iter().enumerate() {
            let Some(p) = p.as_object() else { continue };
            for key in p.keys() {
                if !PARAMETER_KEYS.contains(&key.as_str()) {
                    c.emit(
                        Code::VAL003,
                        Some(&path.key("parameters").index(i).key(key)),
                        format!("\"{key}\" is not a valid field of a parameter of tool \"{name}\""),
                    );
                }
            }
        }
    }
}

/// Whether `s` matches `^[a-z][a-zA-Z0-9]*$`.
pub(super) fn is_tool_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some('a'..='z')) && chars.all(|ch| ch.is_ascii_alphanumeric())
}

/// VAL030: A key of `main.tools` does not match `^[a-z][a-zA-Z0-9]*$` (camelCase, starting with a
/// lowercase letter).
///
/// # Why
///
/// Tool names become part of IDs (`namespace/tool/name`) and MCP wire names
/// (`getAbi_etherscan-io`), which allow only a restricted set of characters. Under `compat` a name
/// such as `'/block/:id'` is a warning and a sanitised name is used for the ID and the wire name.
pub(super) fn val030_tool_name(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some((key, tools)) = ctx.tools() else {
        return;
    };
    for name in tools.keys() {
        if !is_tool_name(name) {
            c.emit(
                Code::VAL030,
                Some(&main_path(key).key(name)),
                format!(
                    "Tool name must match ^[a-z][a-zA-Z0-9]*$ (found {})",
                    shown(&Value::String(name.clone()))
                ),
            );
        }
    }
}

/// VAL031: `main.tools` has more than 8 entries.
///
/// # Why
///
/// Small schemas keep each provider's tool set focused and cheap to put into an agent's context.
/// Split a large API into several schemas.
pub(super) fn val031_max_tools(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some((key, tools)) = ctx.tools() else {
        return;
    };
    if tools.len() > MAX_TOOLS {
        c.emit(
            Code::VAL031,
            Some(&main_path(key)),
            format!("Maximum {MAX_TOOLS} tools exceeded (found {})", tools.len()),
        );
    }
}

/// VAL032: A tool's `method` is missing or is not exactly one of `GET`, `POST`, `PUT` and `DELETE`.
///
/// # Why
///
/// The runtime builds the HTTP request from it, and it decides whether `body` parameters are
/// allowed.
pub(super) fn val032_method(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, tool, path) in each_tool(ctx) {
        match tool.field("method") {
            None => {
                c.emit(
                    Code::VAL032,
                    Some(&path.key("method")),
                    "Missing required field \"method\"",
                );
            }
            Some(Value::String(m)) if Method::tool_method(m).is_some() => {}
            Some(other) => {
                c.emit(
                    Code::VAL032,
                    Some(&path.key("method")),
                    format!(
                        "Must be one of GET, POST, PUT, DELETE (found {})",
                        shown(other)
                    ),
                );
            }
        }
    }
}

/// VAL033: A tool's `path` is missing, not a string, or does not start with `/`.
///
/// # Why
///
/// The request URL is `root` + `path`; without the leading slash the path would run into the host
/// name.
pub(super) fn val033_path(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, tool, path) in each_tool(ctx) {
        match tool.field("path") {
            None => {
                c.emit(
                    Code::VAL033,
                    Some(&path.key("path")),
                    "Missing required field \"path\"",
                );
            }
            Some(Value::String(p)) if p.starts_with('/') => {}
            Some(Value::String(p)) => {
                c.emit(
                    Code::VAL033,
                    Some(&path.key("path")),
                    format!(
                        "Must start with / (found {})",
                        shown(&Value::String(p.clone()))
                    ),
                );
            }
            Some(other) => {
                c.emit(
                    Code::VAL033,
                    Some(&path.key("path")),
                    format!("Must be a string (found {})", type_name(other)),
                );
            }
        }
    }
}

/// VAL034: A tool's `description` is missing or not a string.
///
/// # Why
///
/// AI clients choose tools by their descriptions; a tool without one is effectively invisible to
/// them.
pub(super) fn val034_description(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, tool, path) in each_tool(ctx) {
        match tool.field("description") {
            None => {
                c.emit(
                    Code::VAL034,
                    Some(&path.key("description")),
                    "Missing required field \"description\"",
                );
            }
            Some(Value::String(_)) => {}
            Some(other) => {
                c.emit(
                    Code::VAL034,
                    Some(&path.key("description")),
                    format!("Must be a string (found {})", type_name(other)),
                );
            }
        }
    }
}

/// VAL035: A tool's `parameters` is missing or not an array (an empty `[]` is fine).
///
/// # Why
///
/// The parameter list defines the tool's input schema and how the request is built; an explicit
/// `[]` states that the tool takes no input.
pub(super) fn val035_parameters(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, tool, path) in each_tool(ctx) {
        match tool.field("parameters") {
            None => {
                c.emit(
                    Code::VAL035,
                    Some(&path.key("parameters")),
                    "Missing required field \"parameters\"",
                );
            }
            Some(Value::Array(_)) => {}
            Some(other) => {
                c.emit(
                    Code::VAL035,
                    Some(&path.key("parameters")),
                    format!("Must be an array (found {})", type_name(other)),
                );
            }
        }
    }
}

/// VAL036: A tool has no `output` block (a warning).
///
/// # Why
///
/// An output schema tells AI clients the shape of the response before they call the tool, and lets
/// the runtime check what handlers return. Leaving it out is allowed but discouraged for new
/// schemas.
pub(super) fn val036_output_recommended(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (name, tool, path) in each_tool(ctx) {
        if !tool.contains_key("output") {
            c.emit(
                Code::VAL036,
                Some(path),
                format!("{name}: output schema is recommended"),
            );
        }
    }
}

/// VAL037: A tool sets the `async` field (reported as info).
///
/// # Why
///
/// `async` is reserved for future task support. The runtime ignores it, so the author should know
/// it has no effect.
pub(super) fn val037_async_reserved(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (name, tool, path) in each_tool(ctx) {
        if tool.contains_key("async") {
            c.emit(
                Code::VAL037,
                Some(&path.key("async")),
                format!("{name}: `async` is reserved and is not executed"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        assert!(is_tool_name("getAbi"));
        assert!(is_tool_name("get2"));
        assert!(!is_tool_name("GetAbi"));
        assert!(!is_tool_name("get_abi"));
        assert!(!is_tool_name("/block/:id"));
        assert!(!is_tool_name(""));
    }
}
