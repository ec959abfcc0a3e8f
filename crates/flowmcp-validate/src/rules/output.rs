//! Rules on output schemas: VAL060–VAL065 (chapter 04). Chapter 11 uses the same six codes for its
//! preload rules; here they keep their output-schema meaning, and the preload rules are
//! PRE001–PRE006 (see `preload.rs`).
//!
//! A tool's `output` is `{ mimeType, schema }`; `schema` is the simplified JSON-Schema subset of
//! chapter 04. The schema is a tree of *nodes*: the root is `output.schema`, and every value of a
//! node's `properties` object and a node's `items` object is a child node one level deeper.
//!
//! Profiles: `spec` checks every node. `compat` checks what the JavaScript reference checks — the
//! `output` block, `mimeType`, and the root node's `type`, `format` (for `image/png`), `properties`
//! and `items` — and leaves nested nodes, keyword value types and unsupported keywords unreported
//! (real catalogs use nested `integer`, `oneOf`, `additionalProperties`). VAL063 (depth, a warning)
//! is checked in both. A tool's `outputSchema` (the compat alias) is not checked here: real catalogs
//! put free-form example shapes there and the reference does not validate it either.

use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, each_tool, shown, type_name};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL060],
        check: val060_output_mime_type,
    },
    SchemaRule {
        codes: &[Code::VAL061],
        check: val061_output_schema_valid,
    },
    SchemaRule {
        codes: &[Code::VAL062],
        check: val062_output_type_fits_mime,
    },
    SchemaRule {
        codes: &[Code::VAL063],
        check: val063_output_depth,
    },
    SchemaRule {
        codes: &[Code::VAL064],
        check: val064_properties_only_on_object,
    },
    SchemaRule {
        codes: &[Code::VAL065],
        check: val065_items_only_on_array,
    },
];

/// The supported MIME types (chapter 04, "Supported MIME-Types").
pub(super) const MIME_TYPES: &[&str] = &["application/json", "image/png", "text/plain"];

/// The `type` values of the schema subset (chapter 04, "Type Values").
pub(super) const SCHEMA_TYPES: &[&str] = &["string", "number", "boolean", "object", "array"];

/// The keywords of the schema subset (chapter 04, "Supported Keywords").
pub(super) const SCHEMA_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "items",
    "description",
    "nullable",
    "enum",
    "format",
];

/// The deepest nesting level allowed without a warning (deeper is VAL063, a warning in both
/// profiles, although one chapter calls it a rejection); the root is level 1.
pub(super) const MAX_DEPTH: usize = flowmcp_spec::model::OUTPUT_SCHEMA_MAX_DEPTH;

/// Every tool whose `output` is an object: `(name, output, path of the tool)`. The paths under
/// it are made only for a finding ([`output_path`], [`Nodes::path`]): most outputs have none.
fn each_output<'a>(ctx: &SchemaCtx<'a>) -> Vec<(&'a String, &'a Map<String, Value>, JsonPath)> {
    each_tool(ctx)
        .iter()
        .filter_map(|(name, tool, path)| {
            tool.field("output")
                .and_then(Value::as_object)
                .map(|o| (*name, o, path.clone()))
        })
        .collect()
}

/// `<tool>.output.<key>`, for the path `tool` of a tool.
fn output_path(tool: &JsonPath, key: &str) -> JsonPath {
    tool.key("output").key(key)
}

/// One node of an output schema tree, found by [`schema_nodes`]. Its path is built only when a
/// finding needs it ([`Nodes::path`]).
struct Node<'a> {
    /// The node's value (an object for a well-formed node).
    value: &'a Value,
    /// 1 for the root.
    depth: usize,
    /// The index of the parent node in [`Nodes::list`] (`None` for the root).
    parent: Option<usize>,
    /// How the parent reaches this node.
    step: Step<'a>,
}

/// How a node is reached from its parent.
#[derive(Clone, Copy)]
enum Step<'a> {
    Root,
    /// `properties.<key>`
    Property(&'a str),
    /// `items`
    Items,
}

/// The nodes of the `output.schema` tree of a tool, and the tool's path (the paths of the nodes
/// are made for a finding only).
struct Nodes<'a> {
    tool: JsonPath,
    list: Vec<Node<'a>>,
}

impl Nodes<'_> {
    /// The JSON path of node `i`.
    fn path(&self, i: usize) -> JsonPath {
        let root = output_path(&self.tool, "schema");
        let mut steps = Vec::new();
        let mut at = Some(i);
        while let Some(n) = at.and_then(|n| self.list.get(n)) {
            steps.push(n.step);
            at = n.parent;
        }
        steps.iter().rev().fold(root, |p, step| match step {
            Step::Root => p,
            Step::Property(key) => p.key("properties").key(key),
            Step::Items => p.key("items"),
        })
    }
}

/// Every node of the schema tree under `root` (the `output.schema` of the tool at `tool`), depth
/// first in declaration order. Children are the
/// values of `properties` (when it is an object) and `items` (when it is an object), whatever the
/// node's `type` says. Uses an explicit stack, so a deeply nested input cannot exhaust the call stack.
fn schema_nodes<'a>(root: &'a Value, tool: JsonPath) -> Nodes<'a> {
    let mut out = Vec::new();
    let mut stack = vec![Node {
        value: root,
        depth: 1,
        parent: None,
        step: Step::Root,
    }];
    while let Some(node) = stack.pop() {
        if let Some(obj) = node.value.as_object() {
            let here = Some(out.len());
            let mut children = Vec::new();
            if let Some(Value::Object(props)) = obj.field("properties") {
                for (key, child) in props {
                    children.push(Node {
                        value: child,
                        depth: node.depth + 1,
                        parent: here,
                        step: Step::Property(key),
                    });
                }
            }
            if let Some(items @ Value::Object(_)) = obj.field("items") {
                children.push(Node {
                    value: items,
                    depth: node.depth + 1,
                    parent: here,
                    step: Step::Items,
                });
            }
            stack.extend(children.into_iter().rev());
        }
        out.push(node);
    }
    Nodes { tool, list: out }
}

/// Whether a node of [`schema_nodes`]`(root)` is deeper than `max` (the root is at depth 1),
/// found without listing them.
fn deeper_than(root: &Value, max: usize) -> bool {
    let mut stack = vec![(root, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > max {
            return true;
        }
        let Some(obj) = value.as_object() else {
            continue;
        };
        if let Some(Value::Object(props)) = obj.field("properties") {
            stack.extend(props.values().map(|child| (child, depth + 1)));
        }
        if let Some(items @ Value::Object(_)) = obj.field("items") {
            stack.push((items, depth + 1));
        }
    }
    false
}

/// The node's `type` when it is one of [`SCHEMA_TYPES`].
fn valid_type(node: &Map<String, Value>) -> Option<&str> {
    node.field("type")
        .and_then(Value::as_str)
        .filter(|t| SCHEMA_TYPES.contains(t))
}

/// The nodes a profile checks for VAL061, VAL064 and VAL065: all of them under `spec`, the root only
/// under `compat`.
fn checked_nodes<'a>(ctx: &SchemaCtx<'_>, schema: &'a Value, tool: JsonPath) -> Nodes<'a> {
    if ctx.is_compat() {
        return Nodes {
            tool,
            list: vec![Node {
                value: schema,
                depth: 1,
                parent: None,
                step: Step::Root,
            }],
        };
    }
    schema_nodes(schema, tool)
}

/// VAL060: `output.mimeType` is missing or not one of `application/json`, `image/png` and
/// `text/plain`. Chapter 11 numbers its preload checks VAL060–VAL065 as well; those are reported as
/// PRE001–PRE006, so that each code keeps one meaning.
///
/// # Why
///
/// The MIME type tells the runtime how to deliver the response (JSON, a base64 image, text) and
/// which schema types can describe it.
pub(super) fn val060_output_mime_type(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, output, tool) in each_output(ctx) {
        let path = || output_path(&tool, "mimeType");
        match output.field("mimeType") {
            None => {
                c.emit(
                    Code::VAL060,
                    Some(&path()),
                    "Missing required field \"mimeType\"",
                );
            }
            Some(Value::String(m)) if MIME_TYPES.contains(&m.as_str()) => {}
            Some(other) => {
                c.emit(
                    Code::VAL060,
                    Some(&path()),
                    format!(
                        "Must be one of {} (found {})",
                        MIME_TYPES.join(", "),
                        shown(other)
                    ),
                );
            }
        }
    }
}

/// VAL061: `output` is not an object, or its `schema` is missing or not a valid schema definition:
/// every node (the root and each value of `properties` and `items`) must be an object whose `type`
/// is one of `string`, `number`, `boolean`, `object` and `array`. Under `spec` the nodes may use
/// only the subset's keywords (`type`, `properties`, `items`, `description`, `nullable`, `enum`,
/// `format`), with values of the right type: `description` and `format` strings, `nullable` a
/// boolean, `enum` an array, `properties` and `items` objects. Under `compat` only the root node is
/// checked, as in the JavaScript reference.
///
/// # Why
///
/// Output schemas use a deliberately small subset of JSON Schema that AI clients, validators and
/// documentation generators read. A malformed one describes nothing.
pub(super) fn val061_output_schema_valid(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, tool, tool_path) in each_tool(ctx) {
        let Some(output) = tool.field("output") else {
            continue;
        };
        let Some(output) = output.as_object() else {
            c.emit(
                Code::VAL061,
                Some(&tool_path.key("output")),
                format!(
                    "Must be an object {{ mimeType, schema }} (found {})",
                    type_name(output)
                ),
            );
            continue;
        };
        let Some(schema) = output.field("schema") else {
            c.emit(
                Code::VAL061,
                Some(&output_path(tool_path, "schema")),
                "Missing required field \"schema\"",
            );
            continue;
        };
        let deep = !ctx.is_compat();
        let nodes = checked_nodes(ctx, schema, tool_path.clone());
        for (i, node) in nodes.list.iter().enumerate() {
            let path = || nodes.path(i);
            let Some(obj) = node.value.as_object() else {
                c.emit(
                    Code::VAL061,
                    Some(&path()),
                    format!("Must be an object (found {})", type_name(node.value)),
                );
                continue;
            };
            check_node_type(c, obj, &path);
            if deep {
                check_node_keywords(c, obj, &path);
            }
        }
    }
}

/// VAL061 for one node's `type`.
fn check_node_type(c: &mut Collector<'_>, node: &Map<String, Value>, path: &dyn Fn() -> JsonPath) {
    match node.field("type") {
        None => {
            c.emit(
                Code::VAL061,
                Some(&path().key("type")),
                "Missing required field \"type\"",
            );
        }
        Some(Value::String(t)) if SCHEMA_TYPES.contains(&t.as_str()) => {}
        Some(other) => {
            c.emit(
                Code::VAL061,
                Some(&path().key("type")),
                format!(
                    "Must be one of {} (found {})",
                    SCHEMA_TYPES.join(", "),
                    shown(other)
                ),
            );
        }
    }
}

/// VAL061 (`spec` only) for one node's keywords and their value types. `properties` and `items`
/// are judged here only when the node's `type` does not already rule them out (VAL064/VAL065).
fn check_node_keywords(
    c: &mut Collector<'_>,
    node: &Map<String, Value>,
    path: &dyn Fn() -> JsonPath,
) {
    let ty = valid_type(node);
    for (key, value) in node {
        let at = || path().key(key);
        let expected = match key.as_str() {
            "type" => continue,
            "description" | "format" => (!value.is_string()).then_some("a string"),
            "nullable" => (!value.is_boolean()).then_some("a boolean"),
            "enum" => (!value.is_array()).then_some("an array"),
            "properties" if ty.is_none() || ty == Some("object") => {
                (!value.is_object()).then_some("an object")
            }
            "items" if ty.is_none() || ty == Some("array") => {
                (!value.is_object()).then_some("an object")
            }
            "properties" | "items" => continue,
            _ => {
                c.emit(
                    Code::VAL061,
                    Some(&at()),
                    format!(
                        "Must be a supported keyword: {} (found \"{key}\")",
                        SCHEMA_KEYWORDS.join(", ")
                    ),
                );
                continue;
            }
        };
        if let Some(expected) = expected {
            c.emit(
                Code::VAL061,
                Some(&at()),
                format!("Must be {expected} (found {})", type_name(value)),
            );
        }
    }
}

/// VAL062: `output.schema.type` does not fit the MIME type: `application/json` needs `object` or
/// `array`, `text/plain` needs `string`, and `image/png` needs `string` with `format: 'base64'`.
/// Checked only when the MIME type is supported (VAL060) and the root type is valid (VAL061).
///
/// # Why
///
/// The runtime decodes the response according to the MIME type, so the declared shape must be one
/// that type can produce.
pub(super) fn val062_output_type_fits_mime(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, output, tool) in each_output(ctx) {
        let Some(mime) = output
            .field("mimeType")
            .and_then(Value::as_str)
            .filter(|m| MIME_TYPES.contains(m))
        else {
            continue;
        };
        let Some(schema) = output.field("schema").and_then(Value::as_object) else {
            continue;
        };
        let Some(ty) = valid_type(schema) else {
            continue;
        };
        let schema_path = || output_path(&tool, "schema");
        let allowed: &[&str] = match mime {
            "application/json" => &["object", "array"],
            _ => &["string"],
        };
        if !allowed.contains(&ty) {
            let expected = allowed
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(" or ");
            c.emit(
                Code::VAL062,
                Some(&schema_path().key("type")),
                format!("Must be {expected} for mimeType \"{mime}\" (found \"{ty}\")"),
            );
            continue;
        }
        if mime == "image/png" {
            match schema.field("format") {
                Some(Value::String(f)) if f == "base64" => {}
                None => {
                    c.emit(
                        Code::VAL062,
                        Some(&schema_path().key("format")),
                        "Missing required field \"format\" (must be \"base64\" for mimeType \"image/png\")",
                    );
                }
                Some(other) => {
                    c.emit(
                        Code::VAL062,
                        Some(&schema_path().key("format")),
                        format!(
                            "Must be \"base64\" for mimeType \"image/png\" (found {})",
                            shown(other)
                        ),
                    );
                }
            }
        }
    }
}

/// VAL063: The output schema nests deeper than 4 levels, counting the root schema as level 1 and
/// each step into a property or into `items` as one more. One warning per tool, at the first node
/// on level 5, naming the deepest level found; a warning in both profiles.
///
/// # Why
///
/// Deeply nested shapes are hard for AI clients to reason about. The data is still usable, so the
/// excess is a warning rather than a rejection.
pub(super) fn val063_output_depth(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, output, tool) in each_output(ctx) {
        let Some(schema) = output.field("schema") else {
            continue;
        };
        // Most schemas are shallow: told without listing their nodes.
        if !deeper_than(schema, MAX_DEPTH) {
            continue;
        }
        let nodes = schema_nodes(schema, tool);
        let deepest = nodes.list.iter().map(|n| n.depth).max().unwrap_or(0);
        if let Some(first) = nodes.list.iter().position(|n| n.depth == MAX_DEPTH + 1) {
            c.emit(
                Code::VAL063,
                Some(&nodes.path(first)),
                format!("Nesting depth must be at most {MAX_DEPTH} levels (found {deepest})"),
            );
        }
    }
}

/// Shared by VAL064 and VAL065: `keyword` appears on a node whose valid `type` is not `owner`.
fn keyword_only_on(
    ctx: &SchemaCtx<'_>,
    c: &mut Collector<'_>,
    code: Code,
    keyword: &str,
    owner: &str,
) {
    for (_, output, tool) in each_output(ctx) {
        let Some(schema) = output.field("schema") else {
            continue;
        };
        let nodes = checked_nodes(ctx, schema, tool);
        for (i, node) in nodes.list.iter().enumerate() {
            let Some(obj) = node.value.as_object() else {
                continue;
            };
            let Some(ty) = valid_type(obj) else {
                continue;
            };
            if ty != owner && obj.contains_key(keyword) {
                c.emit(
                    code,
                    Some(&nodes.path(i).key(keyword)),
                    format!("Must only appear when type is \"{owner}\" (found type \"{ty}\")"),
                );
            }
        }
    }
}

/// VAL064: A schema node declares `properties` but its `type` is not `object`.
///
/// # Why
///
/// `properties` describes the fields of an object. On any other type it means nothing and usually
/// reveals a wrong `type`.
pub(super) fn val064_properties_only_on_object(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    keyword_only_on(ctx, c, Code::VAL064, "properties", "object");
}

/// VAL065: A schema node declares `items` but its `type` is not `array`.
///
/// # Why
///
/// `items` describes the elements of an array. On any other type it means nothing and usually
/// reveals a wrong `type`.
pub(super) fn val065_items_only_on_array(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    keyword_only_on(ctx, c, Code::VAL065, "items", "array");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Whether a schema is deeper than a limit, told without listing its nodes, is what the
    /// deepest listed node says: for schemas nested by properties, items and both, with
    /// properties and items that are not objects, at every limit up to past their depth.
    #[test]
    fn i46_deeper_than_is_the_deepest_listed_node() {
        let mut schemas = vec![
            json!("x"),
            json!({}),
            json!({ "type": "string" }),
            json!({ "properties": [1, 2], "items": [ { "properties": {} } ] }),
            json!({ "properties": { "a": 1, "b": [ { "properties": { "c": {} } } ] } }),
        ];
        let mut deep = json!({ "type": "string" });
        for level in 0..9 {
            deep = if level % 3 == 0 {
                json!({ "type": "array", "items": deep })
            } else {
                json!({ "type": "object", "properties": { "k": deep, "s": { "type": "string" } } })
            };
            schemas.push(deep.clone());
            schemas
                .push(json!({ "properties": { "x": 1, "y": deep.clone() }, "items": { "t": 1 } }));
        }
        for schema in &schemas {
            let nodes = schema_nodes(schema, JsonPath::root("s"));
            let deepest = nodes.list.iter().map(|n| n.depth).max().unwrap_or(0);
            for max in 0..14 {
                assert_eq!(deeper_than(schema, max), deepest > max, "{schema} at {max}");
            }
        }
    }

    #[test]
    fn nodes_in_declaration_order_with_depth() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": { "type": "array", "items": { "type": "string" } },
                "b": { "type": "object", "properties": { "c": { "type": "number" } } }
            }
        });
        let nodes = schema_nodes(&schema, JsonPath::root("s"));
        let seen: Vec<(String, usize)> = (0..nodes.list.len())
            .map(|i| (nodes.path(i).dotted(), nodes.list[i].depth))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("s.output.schema".to_string(), 1),
                ("s.output.schema.properties.a".to_string(), 2),
                ("s.output.schema.properties.a.items".to_string(), 3),
                ("s.output.schema.properties.b".to_string(), 2),
                ("s.output.schema.properties.b.properties.c".to_string(), 3),
            ]
        );
    }

    #[test]
    fn depth_counts_properties_and_items() {
        // array → items → regions → items: depth 4 (the example catalog's deepest schema).
        let schema = json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": { "regions": { "type": "array", "items": { "type": "string" } } }
            }
        });
        let nodes = schema_nodes(&schema, JsonPath::root("s"));
        assert_eq!(nodes.list.iter().map(|n| n.depth).max(), Some(4));
        // Children of a malformed node are not invented.
        let odd = json!({ "type": "object", "properties": [ { "type": "string" } ], "items": "x" });
        assert_eq!(schema_nodes(&odd, JsonPath::root("s")).list.len(), 1);
    }
}
