//! How a catalog's tools and results look in MCP: the `tools/list` entry of a tool and the
//! `tools/call` result of an envelope.
//!
//! MCP wants `outputSchema` and `structuredContent` to be JSON objects, while a FlowMCP tool may
//! return an array, a string or a number. A tool whose declared output schema is an object schema
//! is advertised with it and returns its data as the structured content; any other declared schema
//! is wrapped, `{"type": "object", "properties": {"data": <schema>}, "required": ["data"]}`, and
//! the data travels as `{"data": <data>}`. A result that does not match its declared schema is
//! returned as a tool error (`isError: true`, the data still in the text content), because a
//! client rejects structured content that does not satisfy the advertised schema.
//!
//! FlowMCP output schemas mark a value that may be `null` with `nullable: true`, which JSON Schema
//! does not know (a JSON Schema validator rejects `null` for `{"type": "array", "nullable": true}`).
//! The advertised schema says it the JSON Schema way, `"type": ["array", "null"]`.

use std::sync::Arc;

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{Envelope, ToolEntry, runtime::check_output};
use rmcp::model::{CallToolResult, ContentBlock as Content, JsonObject, MetaObject, Tool};

/// How a tool's data is carried as structured content.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Output {
    /// No declared output schema: text content only.
    None,
    /// An object schema: the data is the structured content.
    Object(Value),
    /// Any other schema: the structured content is `{"data": <data>}`.
    Wrapped(Value),
}

impl Output {
    /// The carrying of `declared`, a tool's `output.schema`.
    pub(crate) fn of(declared: Option<&Value>) -> Output {
        match declared {
            None => Output::None,
            Some(s) if s.get("type").and_then(Value::as_str) == Some("object") => {
                Output::Object(s.clone())
            }
            Some(s) => Output::Wrapped(s.clone()),
        }
    }

    /// The `outputSchema` to advertise.
    fn advertised(&self) -> Option<JsonObject> {
        match self {
            Output::None => None,
            Output::Object(s) => match json_schema(s) {
                Value::Object(m) => Some(m),
                _ => None,
            },
            Output::Wrapped(s) => match json!({
                "type": "object",
                "properties": { "data": json_schema(s) },
                "required": ["data"],
            }) {
                Value::Object(m) => Some(m),
                _ => None,
            },
        }
    }
}

/// `schema` in JSON Schema terms: every `nullable: true` becomes `null` among the node's types.
fn json_schema(schema: &Value) -> Value {
    let Value::Object(node) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    let nullable = node.get("nullable") == Some(&Value::Bool(true));
    for (k, v) in node {
        match k.as_str() {
            "nullable" => {}
            "type" if nullable => {
                let mut types = match v {
                    Value::Array(a) => a.clone(),
                    other => vec![other.clone()],
                };
                if !types.contains(&json!("null")) {
                    types.push(json!("null"));
                }
                out.insert(k.clone(), Value::Array(types));
            }
            "properties" => {
                let props = match v {
                    Value::Object(p) => Value::Object(
                        p.iter()
                            .map(|(name, s)| (name.clone(), json_schema(s)))
                            .collect(),
                    ),
                    other => other.clone(),
                };
                out.insert(k.clone(), props);
            }
            "items" => {
                out.insert(k.clone(), json_schema(v));
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// Whether a tool talks to the outside world over HTTP: every tool of `main.tools` does
/// (resource entries say `openWorldHint: false` themselves).
const HTTP_TOOLS_ARE_OPEN_WORLD: bool = true;

/// The `tools/list` entry of `entry`: wire name, title, description, input schema, annotations
/// (`readOnlyHint`, `destructiveHint`, `openWorldHint`), `_meta` (`anthropic/alwaysLoad`,
/// `anthropic/searchHint`, `flowmcp/aliases`, `flowmcp/id`) and the output schema.
pub(crate) fn tool(entry: &ToolEntry, output: &Output) -> Tool {
    let d = &entry.descriptor;
    // The descriptor's own MCP entry (name, description, input schema, annotations, `_meta`;
    // its output schema is carried by `output`), with what serving adds: the title,
    // `openWorldHint`, the ID and the advertised output schema. Its members move into the SDK's
    // model; nothing large is copied again.
    let mut m = d.mcp_tool_members();
    let input = match m.remove("inputSchema") {
        Some(Value::Object(o)) => o,
        _ => Map::new(),
    };
    let mut tool = Tool::new(d.wire_name.clone(), d.description.clone(), Arc::new(input));
    tool.title = Some(d.label());
    let mut annotations = match m.remove("annotations") {
        Some(Value::Object(a)) => a,
        _ => Map::new(),
    };
    annotations
        .entry("openWorldHint")
        .or_insert(json!(HTTP_TOOLS_ARE_OPEN_WORLD));
    // Booleans only, each with the type MCP gives it: this cannot fail; should the SDK's model
    // ever disagree, the tool is listed without annotations rather than not at all.
    tool.annotations = flowmcp_catalog::serde_json::from_value(Value::Object(annotations)).ok();
    let mut meta = match m.remove("_meta") {
        Some(Value::Object(a)) => a,
        _ => Map::new(),
    };
    // The entry's own ID: a resource query's is its own, not its resource's.
    meta.insert("flowmcp/id".into(), json!(d.entry_id.to_string()));
    tool.meta = Some(MetaObject(meta));
    tool.output_schema = output.advertised().map(Arc::new);
    tool
}

/// The `tools/call` result of `envelope`, for a tool carried as `output`.
pub(crate) fn result(envelope: Envelope, output: &Output) -> CallToolResult {
    if !envelope.status() {
        return CallToolResult::error(vec![Content::text(envelope.messages().join("\n"))]);
    }
    let text = flowmcp_catalog::serde_json::to_string(&envelope.data())
        .unwrap_or_else(|_| "null".to_string());
    let declared = match output {
        Output::None => {
            return with_warnings(
                CallToolResult::success(vec![Content::text(text)]),
                &envelope,
            );
        }
        Output::Object(s) | Output::Wrapped(s) => s,
    };
    let mismatches = check_output(declared, envelope.data());
    if !mismatches.is_empty()
        || (matches!(output, Output::Object(_)) && !envelope.data().is_object())
    {
        let why = if mismatches.is_empty() {
            "the result is not an object".to_string()
        } else {
            mismatches.join("; ")
        };
        return CallToolResult::error(vec![
            Content::text(format!(
                "the result does not match the tool's declared output schema: {why}"
            )),
            Content::text(text),
        ]);
    }
    let mut r = with_warnings(
        CallToolResult::success(vec![Content::text(text)]),
        &envelope,
    );
    // The data moves into the structured content (wrapped when the schema is not an object one).
    let data = envelope.into_data();
    r.structured_content = Some(match output {
        Output::Wrapped(_) => {
            let mut wrapped = Map::new();
            wrapped.insert("data".into(), data);
            Value::Object(wrapped)
        }
        _ => data,
    });
    r
}

/// Adds the envelope's warnings as further text content.
fn with_warnings(mut r: CallToolResult, envelope: &Envelope) -> CallToolResult {
    for w in envelope.warnings() {
        r.content.push(Content::text(format!("warning: {w}")));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_object_outputs_are_wrapped_and_object_outputs_are_not() {
        let arr = json!({"type": "array", "items": {"type": "string"}});
        let out = Output::of(Some(&arr));
        assert_eq!(out, Output::Wrapped(arr.clone()));
        let adv = out.advertised().unwrap();
        assert_eq!(adv["properties"]["data"], arr);
        let r = result(Envelope::ok(json!(["a", "b"])), &out);
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.structured_content, Some(json!({"data": ["a", "b"]})));

        let obj = json!({"type": "object", "properties": {"n": {"type": "number"}}});
        let out = Output::of(Some(&obj));
        assert_eq!(out.advertised().map(Value::Object), Some(obj));
        let r = result(Envelope::ok(json!({"n": 1})), &out);
        assert_eq!(r.structured_content, Some(json!({"n": 1})));
    }

    #[test]
    fn nullable_becomes_a_null_type_at_every_depth() {
        let declared = json!({"type": "array", "items": {"type": "object", "properties": {
            "regions": {"type": "array", "nullable": true, "items": {"type": "string"}},
            "name": {"type": "string"}}}});
        let adv = Value::Object(Output::of(Some(&declared)).advertised().unwrap());
        let regions = &adv["properties"]["data"]["items"]["properties"]["regions"];
        assert_eq!(regions["type"], json!(["array", "null"]));
        assert!(regions.get("nullable").is_none());
        assert_eq!(
            adv["properties"]["data"]["items"]["properties"]["name"]["type"],
            json!("string")
        );
        // The data the runtime accepts for the declared schema is accepted as structured content.
        let r = result(
            Envelope::ok(json!([{"regions": null, "name": "x"}])),
            &Output::of(Some(&declared)),
        );
        assert_eq!(r.is_error, Some(false));
    }

    #[test]
    fn a_result_that_breaks_its_schema_is_a_tool_error_without_structured_content() {
        let out = Output::of(Some(&json!({"type": "array"})));
        let r = result(Envelope::ok(json!({"not": "an array"})), &out);
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
        let out = Output::of(Some(&json!({"type": "object"})));
        let r = result(Envelope::ok(json!([1])), &out);
        assert_eq!(r.is_error, Some(true));
    }

    #[test]
    fn failures_are_tool_errors_with_their_code() {
        let e = Envelope::error(flowmcp_catalog::Code::E007, "t", "missing input \"city\"");
        let r = result(e, &Output::None);
        assert_eq!(r.is_error, Some(true));
        let text = flowmcp_catalog::serde_json::to_value(&r.content).unwrap();
        assert!(text.to_string().contains("E007 t: missing input"), "{text}");
    }
}
