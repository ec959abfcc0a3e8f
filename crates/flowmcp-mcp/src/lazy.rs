//! Lazy mode: `tools/list` holds the `alwaysLoad` tools and two meta-tools, `search_tools` and
//! `call_tool`, through which an agent finds and runs every other tool without loading them all
//! into its context.

use flowmcp_catalog::serde_json::{Map, Value, json};
use rmcp::model::{CallToolResult, ContentBlock as Content, Tool};

use crate::projection::{self, Output};

/// The meta-tool that searches the served tools.
pub const SEARCH_TOOLS: &str = "search_tools";
/// The meta-tool that runs a served tool by wire name or Primitive-ID.
pub const CALL_TOOL: &str = "call_tool";

/// How many tools `search_tools` returns unless asked for fewer or more.
const DEFAULT_LIMIT: u64 = 10;
/// The most `search_tools` returns.
const MAX_LIMIT: u64 = 50;

/// A meta-tool's MCP entry from its JSON (fixed text, so reading it cannot fail in practice; an
/// entry that did not read would be left out of the list rather than stop the server).
fn tool(entry: Value) -> Option<Tool> {
    flowmcp_catalog::serde_json::from_value(entry).ok()
}

/// The two meta-tools' entries, built once.
pub(crate) fn meta_tools() -> &'static [Tool] {
    static TOOLS: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(build_meta_tools)
}

fn build_meta_tools() -> Vec<Tool> {
    let search = json!({
        "name": SEARCH_TOOLS,
        "title": "Search tools",
        "description": "Find tools of this server by what they do. Ranks every served tool by its \
            name, aliases, search hint, tags, namespace and description against the query, and \
            returns the best matches with their wire names, input schemas and annotations. Run one \
            with call_tool.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words describing the task, e.g. \"public holidays germany\""},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                    "description": format!("How many tools to return (default {DEFAULT_LIMIT})")}
            },
            "required": ["query"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false}
    });
    let call = json!({
        "name": CALL_TOOL,
        "title": "Call a tool",
        "description": "Run a tool of this server by its wire name (as search_tools returns it) \
            or its ID, with the tool's own arguments. The tool checks its arguments as when it is \
            called directly, and its errors come back as they are.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's wire name or ID"},
                "arguments": {"type": "object", "description": "The tool's arguments"}
            },
            "required": ["name"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true}
    });
    [search, call].into_iter().filter_map(tool).collect()
}

/// A tool error for a meta-tool whose own arguments are wrong (E007, as for any tool).
pub(crate) fn input_error(tool: &str, message: &str) -> CallToolResult {
    let e = flowmcp_catalog::Envelope::error(flowmcp_catalog::Code::E007, tool, message);
    projection::result(e, &Output::None, projection::Media::Json)
}

/// The arguments of `search_tools`: the query and the limit.
/// (An error is the message of the E007 tool error.)
pub(crate) fn search_args(args: &Map<String, Value>) -> Result<(String, usize), String> {
    let query = match args.get("query") {
        Some(Value::String(q)) if !q.trim().is_empty() => q.clone(),
        Some(Value::String(_)) | None => {
            return Err(String::from("missing input \"query\""));
        }
        Some(_) => return Err(String::from("\"query\" must be a string")),
    };
    let limit = match args.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(v) => match v.as_u64().filter(|n| (1..=MAX_LIMIT).contains(n)) {
            Some(n) => n,
            None => {
                return Err(format!(
                    "\"limit\" must be an integer from 1 to {MAX_LIMIT}"
                ));
            }
        },
    };
    if let Some(extra) = args.keys().find(|k| *k != "query" && *k != "limit") {
        return Err(format!("unknown input \"{extra}\""));
    }
    Ok((query, usize::try_from(limit).unwrap_or(10)))
}

/// The arguments of `call_tool`: the tool's name and its arguments.
pub(crate) fn call_args(
    mut args: Map<String, Value>,
) -> Result<(String, Map<String, Value>), String> {
    let name = match args.remove("name") {
        Some(Value::String(n)) if !n.is_empty() => n,
        Some(Value::String(_)) | None => {
            return Err(String::from("missing input \"name\""));
        }
        Some(_) => return Err(String::from("\"name\" must be a string")),
    };
    let inner = match args.remove("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(String::from("\"arguments\" must be an object")),
    };
    if let Some(extra) = args.keys().next() {
        return Err(format!("unknown input \"{extra}\""));
    }
    Ok((name, inner))
}

/// The `search_tools` result: the found tools' entries, best first.
pub(crate) fn found(tools: Vec<Tool>) -> CallToolResult {
    let entries: Vec<Value> = tools
        .into_iter()
        .filter_map(|t| {
            let mut v = flowmcp_catalog::serde_json::to_value(&t).ok()?;
            // The output schema is for the client that calls the tool directly; leave it out to
            // keep results short.
            if let Value::Object(m) = &mut v {
                m.remove("outputSchema");
            }
            Some(v)
        })
        .collect();
    let data = json!({"tools": entries});
    let text = data.to_string();
    let mut r = CallToolResult::success(vec![Content::text(text)]);
    r.structured_content = Some(data);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meta_tools_read() {
        let tools = meta_tools();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, [SEARCH_TOOLS, CALL_TOOL]);
    }

    #[test]
    fn meta_tool_arguments_are_checked() {
        let ok = json!({"query": "holidays", "limit": 3});
        assert_eq!(
            search_args(ok.as_object().unwrap()).ok(),
            Some(("holidays".to_string(), 3))
        );
        for bad in [
            json!({}),
            json!({"query": 5}),
            json!({"query": "x", "limit": 0}),
            json!({"query": "x", "limit": 51}),
            json!({"query": "x", "other": 1}),
        ] {
            let e = search_args(bad.as_object().unwrap()).unwrap_err();
            assert!(!e.is_empty(), "{bad}");
        }
        let ok = json!({"name": "t_ns", "arguments": {"a": 1}});
        let (name, args) = call_args(ok.as_object().unwrap().clone()).unwrap();
        assert_eq!((name.as_str(), args.len()), ("t_ns", 1));
        for bad in [
            json!({}),
            json!({"name": "t", "arguments": [1]}),
            json!({"name": "t", "x": 1}),
        ] {
            assert!(
                call_args(bad.as_object().unwrap().clone()).is_err(),
                "{bad}"
            );
        }
    }
}
