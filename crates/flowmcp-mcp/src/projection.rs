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
//!
//! By default ([`OutputSchemas::Compact`]) the advertised schema is the one validation needs (issue
//! #30: output schemas were 56% of `tools/list`): it accepts exactly the values the declared
//! schema accepts. Annotations no validator reads (`description`, `title`, `examples`,
//! `$comment`) are left out, as are an empty `properties` and an empty `required` (each means
//! no constraint), and sibling properties with identical schemas (samples keyed by ID, address or
//! country, as generated schemas often are) become one `patternProperties` entry whose pattern
//! matches exactly those names, `"^(a|b)$"`: a present property is checked against the same schema
//! either way, and an absent one is not checked by either.

use std::sync::Arc;

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{Envelope, ToolEntry};
use rmcp::model::{CallToolResult, ContentBlock as Content, JsonObject, MetaObject, Tool};

use flowmcp_catalog::runtime::budget;

use crate::options::{OutputSchemas, ResultText};
use crate::paging::Paging;
use crate::results::Link;

/// What kind of content a tool's data is, from its `output.mimeType` (chapter 04), decided once
/// per tool: how the data goes into the result's `content` (D133).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Media {
    /// `application/json`, or no output declared: the data as JSON text.
    Json,
    /// `text/plain`: a string result is the text itself, not a JSON string literal.
    Text,
    /// `image/png`: a string result (base64) is an MCP image item.
    Png,
}

impl Media {
    /// The media of a tool whose `output.mimeType` is `mime`.
    pub(crate) fn of(mime: Option<&str>) -> Media {
        match mime {
            Some("image/png") => Media::Png,
            Some("text/plain") => Media::Text,
            _ => Media::Json,
        }
    }

    /// The content item that carries `data`: an image item or the text itself for a string of
    /// the media's kind, the data as JSON text otherwise.
    fn content(self, data: &Value) -> Content {
        match (self, data) {
            (Media::Png, Value::String(b64)) => Content::image(b64.clone(), "image/png"),
            (Media::Text, Value::String(text)) => Content::text(text.clone()),
            _ => Content::text(
                flowmcp_catalog::serde_json::to_string(data).unwrap_or_else(|_| "null".to_string()),
            ),
        }
    }
}

/// How a tool's data is carried as structured content, with its declared schema (borrowed from
/// the catalog's entry: a server does not keep a copy of every tool's output schema).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Output<'a> {
    /// No declared output schema: text content only.
    None,
    /// An object schema: the data is the structured content.
    Object(&'a Value),
    /// Any other schema: the structured content is `{"data": <data>}`.
    Wrapped(&'a Value),
}

impl<'a> Output<'a> {
    /// The carrying of `declared`, a tool's `output.schema`, when output schemas are advertised
    /// as `schemas` says (`None`: text content only).
    pub(crate) fn of(declared: Option<&'a Value>, schemas: OutputSchemas) -> Output<'a> {
        match declared {
            None => Output::None,
            Some(_) if schemas == OutputSchemas::None => Output::None,
            Some(s) if s.get("type").and_then(Value::as_str) == Some("object") => Output::Object(s),
            Some(s) => Output::Wrapped(s),
        }
    }

    /// The `outputSchema` to advertise, as `schemas` says.
    fn advertised(&self, schemas: OutputSchemas) -> Option<JsonObject> {
        let full = match self {
            Output::None => return None,
            Output::Object(s) => json_schema(s),
            Output::Wrapped(s) => json!({
                "type": "object",
                "properties": { "data": json_schema(s) },
                "required": ["data"],
            }),
        };
        let advertised = match schemas {
            OutputSchemas::Full => full,
            OutputSchemas::Compact => compact(full),
            OutputSchemas::None => return None,
        };
        match advertised {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
}

/// `schema` in JSON Schema terms: every `nullable: true` becomes `null` among the node's types.
/// A copy (which copies each object's index as it is, without hashing a key again) changed in
/// place: a `nullable` member leaves, every other member keeps its place.
fn json_schema(schema: &Value) -> Value {
    let mut out = schema.clone();
    to_json_schema(&mut out);
    out
}

/// [`json_schema`] in place: on this node, and on the schemas under `properties` and `items`.
fn to_json_schema(schema: &mut Value) {
    let Value::Object(node) = schema else {
        return;
    };
    let nullable = node.get("nullable") == Some(&Value::Bool(true));
    node.shift_remove("nullable");
    if nullable && let Some(t) = node.get_mut("type") {
        let mut types = match std::mem::take(t) {
            Value::Array(a) => a,
            other => vec![other],
        };
        if !types.iter().any(|x| x.as_str() == Some("null")) {
            types.push(json!("null"));
        }
        *t = Value::Array(types);
    }
    if let Some(Value::Object(props)) = node.get_mut("properties") {
        props.values_mut().for_each(to_json_schema);
    }
    if let Some(items) = node.get_mut("items") {
        to_json_schema(items);
    }
}

/// Keywords that only annotate a schema: no validator reads them (JSON Schema's meta-data
/// vocabulary, and `$comment`).
const ANNOTATIONS: [&str; 4] = ["description", "title", "examples", "$comment"];

/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: [&str; 3] = ["properties", "patternProperties", "$defs"];

/// Keywords whose value is one schema.
const SCHEMA_ONE: [&str; 4] = ["items", "additionalProperties", "not", "contains"];

/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: [&str; 4] = ["oneOf", "anyOf", "allOf", "prefixItems"];

/// `schema` (already in JSON Schema terms) without what validation does not need: it accepts
/// exactly the values `schema` accepts (see the module docs). Keys keep their order; a node with
/// nothing to leave out is unchanged.
fn compact(mut schema: Value) -> Value {
    compact_in_place(&mut schema);
    schema
}

/// [`compact`] in place: members leave or change where they are, so no key is hashed again
/// (a map rebuilt member by member hashes every key anew, most of a listing's cost).
fn compact_in_place(schema: &mut Value) {
    let Value::Object(node) = schema else {
        return;
    };
    let declares_patterns = node.contains_key("patternProperties");
    node.retain(|k, _| !ANNOTATIONS.contains(&k.as_str()));
    for (k, v) in node.iter_mut() {
        let key = k.as_str();
        match v {
            Value::Object(m) if SCHEMA_MAPS.contains(&key) => {
                m.values_mut().for_each(compact_in_place);
            }
            Value::Array(a) if SCHEMA_LISTS.contains(&key) => {
                a.iter_mut().for_each(compact_in_place);
            }
            v if SCHEMA_ONE.contains(&key) => compact_in_place(v),
            _ => {}
        }
    }
    if matches!(node.get("required"), Some(Value::Array(a)) if a.is_empty()) {
        node.shift_remove("required");
    }
    let Some(Value::Object(props)) = node.get_mut("properties") else {
        return;
    };
    if declares_patterns {
        // A node that declares its own patterns keeps its properties as they are (a merged
        // pattern could collide with a declared one); only an empty map leaves.
        if props.is_empty() {
            node.shift_remove("properties");
        }
        return;
    }
    let (kept, merged) = merge_siblings(std::mem::take(props));
    let kept_any = !kept.is_empty();
    if kept_any {
        *props = kept;
    }
    if merged.is_empty() && kept_any {
        return;
    }
    let at = node
        .keys()
        .position(|k| k == "properties")
        .unwrap_or(node.len());
    if !kept_any {
        node.shift_remove("properties");
    }
    if !merged.is_empty() {
        // Right after the kept properties, or in their place.
        let at = if kept_any { at + 1 } else { at };
        node.shift_insert(at, "patternProperties".into(), Value::Object(merged));
    }
}

/// `properties` split into the properties to keep and `patternProperties` entries, each one schema
/// shared by several sibling names, with a pattern that matches exactly those names; a group is
/// merged only where that is shorter. The kept properties keep their order.
fn merge_siblings(props: Map<String, Value>) -> (Map<String, Value>, Map<String, Value>) {
    if props.len() < 2 {
        return (props, Map::new());
    }
    // Groups of names by their schema's text, in first-seen order; texts are compared without
    // being written ([`Text`]). Each schema's whole tree is hashed, at every level of nesting:
    // with a fast hasher (the groups are the same with any hasher; a crafted schema can only
    // make its own tool's listing slower).
    let mut group_of: std::collections::HashMap<Text<'_>, usize, foldhash::fast::RandomState> =
        std::collections::HashMap::with_capacity_and_hasher(props.len(), Default::default());
    // Each group: its schema and its names.
    let mut groups: Vec<(&Value, Vec<&str>)> = Vec::new();
    let mut texts = Vec::with_capacity(props.len());
    for (name, s) in &props {
        let g = *group_of.entry(Text(s)).or_insert_with(|| {
            groups.push((s, Vec::new()));
            groups.len() - 1
        });
        if let Some((_, names)) = groups.get_mut(g) {
            names.push(name.as_str());
        }
        texts.push(g);
    }
    drop(group_of);
    if groups.len() == props.len() {
        return (props, Map::new());
    }
    let pattern = |names: &[&str]| {
        let alternatives: Vec<String> = names.iter().map(|n| regex_escape(n)).collect();
        format!("^({})$", alternatives.join("|"))
    };
    // JSON text lengths: `"name":<schema>,` for each name against `"pattern":<schema>,`.
    let quoted = |s: &str| budget::json_size(s);
    let merge: Vec<Option<String>> = groups
        .iter()
        .map(|(schema, names)| {
            if names.len() < 2 {
                return None;
            }
            let len = budget::json_size(*schema);
            let p = pattern(names);
            let before: usize = names.iter().map(|n| quoted(n) + len + 2).sum();
            (quoted(&p) + len + 2 < before).then_some(p)
        })
        .collect();
    drop(groups);
    let mut kept = Map::new();
    let mut merged = Map::new();
    // Whether a merged group has its entry yet (its first name's schema stands for all).
    let mut placed = vec![false; merge.len()];
    for ((name, s), g) in props.into_iter().zip(texts) {
        match (merge.get(g), placed.get_mut(g)) {
            (Some(Some(p)), Some(done)) => {
                if !*done {
                    *done = true;
                    merged.insert(p.clone(), s);
                }
            }
            _ => {
                kept.insert(name, s);
            }
        }
    }
    (kept, merged)
}

/// A value keyed by its JSON text, without writing it: hashed by [`fingerprint`], compared by
/// [`same_text`].
struct Text<'a>(&'a Value);

impl std::hash::Hash for Text<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        fingerprint(self.0, h);
    }
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_text(self.0, other.0)
    }
}

impl Eq for Text<'_> {}

/// Feeds `v`'s JSON text to `h` without writing it: member order, each number's own form and
/// each string's characters count, so equal texts give equal fingerprints.
fn fingerprint(v: &Value, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => {
            h.write_u8(1);
            b.hash(h);
        }
        Value::Number(n) => {
            h.write_u8(2);
            number_form(n).hash(h);
        }
        Value::String(s) => {
            h.write_u8(3);
            s.hash(h);
        }
        Value::Array(a) => {
            h.write_u8(4);
            h.write_usize(a.len());
            for x in a {
                fingerprint(x, h);
            }
        }
        Value::Object(o) => {
            h.write_u8(5);
            h.write_usize(o.len());
            for (k, x) in o {
                k.hash(h);
                fingerprint(x, h);
            }
        }
    }
}

/// A number as its JSON text tells it apart: an unsigned or a negative integer, or a float by
/// its bits (ours are never NaN, and a float's text always differs from an integer's).
fn number_form(n: &flowmcp_catalog::serde_json::Number) -> (u8, u64) {
    if let Some(u) = n.as_u64() {
        (0, u)
    } else if let Some(i) = n.as_i64() {
        (1, i.cast_unsigned())
    } else {
        (2, n.as_f64().map_or(0, f64::to_bits))
    }
}

/// Whether `a` and `b` have the same JSON text (unlike `==`, members in another order differ).
fn same_text(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number_form(x) == number_form(y),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_text(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, p), (l, q))| k == l && same_text(p, q))
        }
        _ => false,
    }
}

/// `name` as a regular expression that matches it literally, in the ECMA-262 dialect JSON Schema
/// uses (with or without the `u` flag) and in Python's: each syntax character is escaped.
fn regex_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if "^$\\.*+?()[]{}|/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether a tool talks to the outside world over HTTP: every tool of `main.tools` does
/// (resource entries say `openWorldHint: false` themselves).
const HTTP_TOOLS_ARE_OPEN_WORLD: bool = true;

/// The `tools/list` entry of `entry`: wire name, title, description, input schema, annotations
/// (`readOnlyHint`, `destructiveHint`, `openWorldHint`), `_meta` (`anthropic/alwaysLoad`,
/// `anthropic/searchHint`, `flowmcp/aliases`, `flowmcp/id`) and the output schema.
pub(crate) fn tool(entry: &ToolEntry, output: &Output<'_>, schemas: OutputSchemas) -> Tool {
    let d = &entry.descriptor;
    // The descriptor's own MCP entry (name, description, input schema, annotations, `_meta`;
    // its output schema is carried by `output`), with what serving adds: the title,
    // `openWorldHint`, the ID and the advertised output schema. Its members move into the SDK's
    // model; nothing large is copied again.
    let mut m = d.mcp_tool_members();
    m.remove("inputSchema");
    let mut tool = Tool::new(
        d.wire_name.clone(),
        d.description.clone(),
        Arc::new(input_schema(entry)),
    );
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
    tool.output_schema = output.advertised(schemas).map(Arc::new);
    tool
}

/// The `inputSchema` of `entry`'s MCP entry: its descriptor's input schema (an object).
pub(crate) fn input_schema(entry: &ToolEntry) -> JsonObject {
    match &entry.descriptor.input_schema {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    }
}

/// The `tools/call` result of `envelope`, for a tool carried as `output` whose data is `media`:
/// the whole data, its JSON text beside the structured content.
pub(crate) fn result(envelope: Envelope, output: &Output<'_>, media: Media) -> CallToolResult {
    shaped(envelope, output, media, &Shape::WHOLE)
}

/// How results are shaped (D140): the budget of one result and what its text block carries.
#[derive(Clone, Copy)]
pub(crate) struct Shape<'k> {
    /// The most bytes the result may take as JSON; `None`: no bound.
    pub(crate) max_bytes: Option<usize>,
    /// What the text block carries next to structured content.
    pub(crate) text: ResultText,
    /// Keeps the whole data's JSON text of a cut result, readable in pages of the given size.
    pub(crate) keep: Option<&'k (dyn Fn(String, usize) -> Option<Link> + Sync)>,
    /// The tool's own paging and the call's value of its parameter: a cut result says which
    /// arguments fetch what follows (D141).
    pub(crate) paging: Option<(&'k Paging, Option<&'k Value>)>,
}

impl Shape<'_> {
    /// No budget and the data's JSON text in full: results as they were before budgets.
    pub(crate) const WHOLE: Shape<'static> = Shape {
        max_bytes: None,
        text: ResultText::Full,
        keep: None,
        paging: None,
    };
}

/// Bytes set aside in a budget for what the result carries besides its data (the cut's note,
/// its `_meta` and link, the JSON around them).
const RESERVED: usize = 2048;

/// The `tools/call` result of `envelope` shaped as `shape` says: over its budget, the data is cut
/// inside the declared output schema ([`flowmcp_catalog::runtime::budget`]), the whole kept for
/// reading in pages, and the result says what was cut (`_meta["flowmcp/cut"]`, a note and a
/// resource link). A result that cannot be cut small enough is an E008 tool error with the link.
pub(crate) fn shaped(
    envelope: Envelope,
    output: &Output<'_>,
    media: Media,
    shape: &Shape<'_>,
) -> CallToolResult {
    if !envelope.status() {
        return CallToolResult::error(vec![Content::text(envelope.messages().join("\n"))]);
    }
    let declared = match output {
        Output::None => None,
        Output::Object(s) | Output::Wrapped(s) => Some(*s),
    };
    let mismatch = declared.and_then(|declared| {
        let mismatches = envelope.output_mismatches(declared);
        if !mismatches.is_empty() {
            Some(mismatches.join("; "))
        } else if matches!(output, Output::Object(_)) && !envelope.data().is_object() {
            Some("the result is not an object".to_string())
        } else {
            None
        }
    });
    // An image is not text in a model's context: it is never cut.
    let budget = shape.max_bytes.filter(|_| media != Media::Png);
    let Some(max) = budget else {
        return whole(envelope, output, media, shape.text, mismatch);
    };
    // What is set aside for the note, link and `_meta` of a cut: at most half a small budget.
    let set_aside = RESERVED.min(max / 2);
    let reserved = set_aside + envelope.warnings().iter().map(String::len).sum::<usize>();
    let data_size = budget::json_size(envelope.data());
    // A first guess of the data's share: the budget over the copies the result carries.
    let structured = mismatch.is_none() && declared.is_some();
    let copies = if structured && shape.text != ResultText::Full {
        1
    } else if structured {
        2
    } else {
        1
    };
    let mut share = max.saturating_sub(reserved) / copies;
    // Small data fits whatever its text's escaping costs; data that may fit whole is measured
    // (whatever was set aside: a whole result needs no note).
    if data_size.saturating_mul(2) < share {
        return whole(envelope, output, media, shape.text, mismatch);
    }
    if data_size <= max {
        let r = whole(
            envelope.clone(),
            output,
            media,
            shape.text,
            mismatch.clone(),
        );
        if budget::json_size(&r) <= max {
            return r;
        }
    }
    let schema = declared.filter(|_| mismatch.is_none());
    // The whole is kept once, readable in pages of the budget's size.
    let link = keep_whole(envelope.data(), max.saturating_sub(set_aside), shape);
    let mut fitted = budget::fit(envelope.data(), schema, share);
    for _ in 0..4 {
        if !fitted.fits {
            break;
        }
        let cut = Envelope::ok(fitted.data.clone()).with_warnings(envelope.warnings().to_vec());
        let r = whole(cut, output, media, shape.text, mismatch.clone());
        let next = shape.paging.and_then(|(paging, current)| {
            let kept = fitted
                .cuts
                .iter()
                .find(|c| c.kind == budget::CutKind::Array)?;
            paging.next(current, envelope.data(), kept.kept)
        });
        let r = with_cut(r, &fitted, max, data_size, link.as_ref(), next);
        let size = budget::json_size(&r);
        if size <= max {
            return r;
        }
        // The escaped text copy, or the note and `_meta`, took more than was set aside: each
        // copy of the data gives up its part of the excess, and a little more.
        share = share.saturating_sub((size - max) / copies + 64);
        fitted = budget::fit(envelope.data(), schema, share);
    }
    let mut text = format!(
        "E008 the result ({data_size} bytes of JSON) does not fit the result budget of {max} bytes, even cut."
    );
    match &link {
        Some(l) => text.push_str(&format!(
            " The whole result: {} page(s) through resources/read, from {}",
            l.pages, l.uri
        )),
        None => text.push_str(" Call the tool again with narrower parameters."),
    }
    let mut content = vec![Content::text(text)];
    content.extend(link.map(|l| link_item(&l, data_size)));
    CallToolResult::error(content)
}

/// The result carrying all of `envelope`'s data, its text block as `text` says.
fn whole(
    envelope: Envelope,
    output: &Output<'_>,
    media: Media,
    text: ResultText,
    mismatch: Option<String>,
) -> CallToolResult {
    let content = media.content(envelope.data());
    if let Some(why) = mismatch {
        return CallToolResult::error(vec![
            Content::text(format!(
                "the result does not match the tool's declared output schema: {why}"
            )),
            content,
        ]);
    }
    if matches!(output, Output::None) {
        return with_warnings(CallToolResult::success(vec![content]), &envelope);
    }
    let items = match text {
        ResultText::Full => vec![content],
        ResultText::Summary => vec![Content::text(summary(envelope.data()))],
        ResultText::None => Vec::new(),
    };
    let mut r = with_warnings(CallToolResult::success(items), &envelope);
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

/// The text block of `--result-text summary`: what the structured content holds, in one line.
fn summary(data: &Value) -> String {
    let size = budget::json_size(data);
    let what = match data {
        Value::Object(m) => {
            let names: Vec<&str> = m.keys().take(12).map(String::as_str).collect();
            let more = m.len().saturating_sub(names.len());
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!("an object with members {}{more}", names.join(", "))
        }
        Value::Array(a) => format!("an array of {} elements", a.len()),
        Value::String(_) => "a string".to_string(),
        _ => "a value".to_string(),
    };
    format!("The result is in structuredContent: {what} ({size} bytes of JSON).")
}

/// Keeps `data`'s whole JSON text for reading in pages of `page_bytes`.
fn keep_whole(data: &Value, page_bytes: usize, shape: &Shape<'_>) -> Option<Link> {
    let keep = shape.keep?;
    let text = flowmcp_catalog::serde_json::to_string(data).ok()?;
    keep(text, page_bytes)
}

/// The resource link to a kept result's first page.
fn link_item(link: &Link, size: usize) -> Content {
    let mut r = rmcp::model::Resource::new(link.uri.clone(), "whole result");
    r.description = Some(format!(
        "The whole result, {size} bytes of JSON text in {} page(s); each page's _meta names the next.",
        link.pages
    ));
    r.mime_type = Some("application/json".into());
    r.size = u64::try_from(size).ok();
    Content::resource_link(r)
}

/// Marks `r`, made of `fitted` data, as cut: the note, the link to the whole (when kept) and
/// `_meta["flowmcp/cut"]`.
fn with_cut(
    mut r: CallToolResult,
    fitted: &budget::Fitted,
    max: usize,
    original: usize,
    link: Option<&Link>,
    next: Option<Value>,
) -> CallToolResult {
    let mut note = format!(
        "Result cut to fit the result budget of {max} bytes ({original} bytes of JSON became {}): {}.",
        fitted.bytes,
        fitted.describe()
    );
    match link {
        Some(l) => note.push_str(&format!(
            " The whole result: {} page(s) through resources/read, from {}",
            l.pages, l.uri
        )),
        None => note.push_str(" The whole result is not kept."),
    }
    if let Some(args) = &next {
        note.push_str(&format!(
            " What follows from the upstream: call the tool again with {args}."
        ));
    }
    let mut cut = Map::new();
    cut.insert("budgetBytes".into(), json!(max));
    cut.insert("originalBytes".into(), json!(original));
    cut.insert("returnedBytes".into(), json!(fitted.bytes));
    cut.insert(
        "cuts".into(),
        flowmcp_catalog::serde_json::to_value(fitted.groups()).unwrap_or(Value::Null),
    );
    if fitted.more_cuts > 0 {
        cut.insert("moreCuts".into(), json!(fitted.more_cuts));
    }
    if let Some(l) = link {
        cut.insert("whole".into(), json!({"uri": l.uri, "pages": l.pages}));
    }
    if let Some(args) = next {
        cut.insert("next".into(), json!({ "arguments": args }));
    }
    r.content.push(Content::text(note));
    r.content.extend(link.map(|l| link_item(l, original)));
    let mut meta = r.meta.take().unwrap_or_default();
    meta.0.insert("flowmcp/cut".into(), Value::Object(cut));
    r.meta = Some(meta);
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
        let out = Output::of(Some(&arr), OutputSchemas::Full);
        assert_eq!(out, Output::Wrapped(&arr));
        let adv = out.advertised(OutputSchemas::Full).unwrap();
        assert_eq!(adv["properties"]["data"], arr);
        let r = result(Envelope::ok(json!(["a", "b"])), &out, Media::Json);
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.structured_content, Some(json!({"data": ["a", "b"]})));

        let obj = json!({"type": "object", "properties": {"n": {"type": "number"}}});
        let out = Output::of(Some(&obj), OutputSchemas::Full);
        assert_eq!(
            out.advertised(OutputSchemas::Full).map(Value::Object),
            Some(obj.clone())
        );
        let r = result(Envelope::ok(json!({"n": 1})), &out, Media::Json);
        assert_eq!(r.structured_content, Some(json!({"n": 1})));
    }

    #[test]
    fn nullable_becomes_a_null_type_at_every_depth() {
        let declared = json!({"type": "array", "items": {"type": "object", "properties": {
            "regions": {"type": "array", "nullable": true, "items": {"type": "string"}},
            "name": {"type": "string"}}}});
        let adv = Value::Object(
            Output::of(Some(&declared), OutputSchemas::Full)
                .advertised(OutputSchemas::Full)
                .unwrap(),
        );
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
            &Output::of(Some(&declared), OutputSchemas::Full),
            Media::Json,
        );
        assert_eq!(r.is_error, Some(false));
    }

    /// The JSON Schema form is the declared schema changed in place (issue #46): every member
    /// keeps its place, `nullable` leaves wherever it is (also when `false`), a type list that
    /// already has `null` gets no second one, and only `properties` and `items` are entered.
    #[test]
    fn i46_the_json_schema_form_keeps_every_member_in_its_place() {
        let declared = json!({"description": "d", "nullable": true, "type": "object",
            "properties": {
                "b": {"nullable": false, "type": "string", "title": "t"},
                "a": {"type": ["string", "null"], "nullable": true, "enum": ["x", null]}},
            "required": ["a"],
            "additionalProperties": {"type": "string", "nullable": true},
            "items": {"type": "integer", "x": 1, "nullable": true}});
        let out = json_schema(&declared).to_string();
        assert_eq!(
            out,
            r#"{"description":"d","type":["object","null"],"properties":{"b":{"type":"string","title":"t"},"a":{"type":["string","null"],"enum":["x",null]}},"required":["a"],"additionalProperties":{"type":"string","nullable":true},"items":{"type":["integer","null"],"x":1}}"#
        );
        assert_eq!(json_schema(&json!(3)), json!(3));
    }

    #[test]
    fn a_result_that_breaks_its_schema_is_a_tool_error_without_structured_content() {
        let array = json!({"type": "array"});
        let out = Output::of(Some(&array), OutputSchemas::Full);
        let r = result(Envelope::ok(json!({"not": "an array"})), &out, Media::Json);
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
        let object = json!({"type": "object"});
        let out = Output::of(Some(&object), OutputSchemas::Full);
        let r = result(Envelope::ok(json!([1])), &out, Media::Json);
        assert_eq!(r.is_error, Some(true));
    }

    #[test]
    fn i43_png_output_is_an_image_item_and_text_output_is_the_text_itself() {
        let png = json!({"type": "string", "format": "base64"});
        let out = Output::of(Some(&png), OutputSchemas::Full);
        let r = result(Envelope::ok(json!("iVBORw0KGgo=")), &out, Media::Png);
        let content = flowmcp_catalog::serde_json::to_value(&r.content).unwrap();
        assert_eq!(
            content,
            json!([{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
        );
        // The structured content still carries the data, as the advertised schema says.
        assert_eq!(r.structured_content, Some(json!({"data": "iVBORw0KGgo="})));
        let r = result(Envelope::ok(json!("hello")), &Output::None, Media::Text);
        let content = flowmcp_catalog::serde_json::to_value(&r.content).unwrap();
        assert_eq!(content, json!([{"type": "text", "text": "hello"}]));
        // Data that is not a string stays JSON text whatever the media says.
        let r = result(Envelope::ok(json!({"n": 1})), &Output::None, Media::Png);
        let content = flowmcp_catalog::serde_json::to_value(&r.content).unwrap();
        assert_eq!(content, json!([{"type": "text", "text": "{\"n\":1}"}]));
        assert_eq!(Media::of(Some("image/png")), Media::Png);
        assert_eq!(Media::of(Some("text/plain")), Media::Text);
        assert_eq!(Media::of(Some("application/json")), Media::Json);
        assert_eq!(Media::of(None), Media::Json);
    }

    fn big_list() -> Value {
        let items: Vec<Value> = (0..400)
            .map(|i| json!({"id": i, "title": format!("entry \"{i}\""), "body": "b".repeat(400)}))
            .collect();
        json!({"total": 400, "items": items})
    }

    fn shaped_with(
        data: Value,
        out: &Output<'_>,
        text: ResultText,
        max: usize,
        kept: &crate::results::Kept,
    ) -> CallToolResult {
        let keep = |t: String, page: usize| kept.keep("me", t, page);
        let shape = Shape {
            max_bytes: Some(max),
            text,
            keep: Some(&keep),
            paging: None,
        };
        shaped(Envelope::ok(data), out, Media::Json, &shape)
    }

    /// A budget below what is set aside for a cut's note still serves a small result whole (it
    /// was E008: the data's share of a 1,500-byte budget came out as 0).
    #[test]
    fn i44_a_small_result_under_a_small_budget_is_served_whole() {
        let declared = json!({"type": "object", "required": ["data"], "properties": {
            "data": {"type": "array", "items": {"type": "object",
                "properties": {"code": {"type": "string"}, "name": {"type": "string"}}}}}});
        let out = Output::of(Some(&declared), OutputSchemas::Compact);
        let kept = crate::results::Kept::default();
        let data =
            json!({"data": [{"code": "DE", "name": "Germany"}, {"code": "FR", "name": "France"}]});
        for text in [ResultText::Full, ResultText::Summary, ResultText::None] {
            let r = shaped_with(data.clone(), &out, text, 1_500, &kept);
            assert_eq!(r.is_error, Some(false), "{text:?}: {r:?}");
            assert_eq!(r.structured_content.as_ref(), Some(&data), "{text:?}");
            assert!(r.meta.is_none(), "{text:?}: not cut");
        }
        // Over such a budget, it is cut rather than refused, and still fits.
        let r = shaped_with(
            big_list(),
            &Output::of(Some(&big_declared()), OutputSchemas::Compact),
            ResultText::Full,
            1_500,
            &kept,
        );
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let wire = flowmcp_catalog::serde_json::to_string(&r).unwrap();
        assert!(wire.len() <= 1_500, "{}", wire.len());
    }

    /// The declared output schema of [`big_list`].
    fn big_declared() -> Value {
        let declared = json!({"type": "object", "required": ["total", "items"], "properties": {
            "total": {"type": "integer"},
            "items": {"type": "array", "items": {"type": "object", "required": ["id"],
                "properties": {"id": {"type": "integer"}, "title": {"type": "string"},
                               "body": {"type": "string"}}}}}});
        declared
    }

    #[test]
    fn i44_a_result_over_budget_is_cut_inside_its_schema_and_links_the_whole() {
        let declared = json!({"type": "object", "required": ["total", "items"], "properties": {
            "total": {"type": "integer"},
            "items": {"type": "array", "minItems": 2, "items": {"type": "object", "required": ["id"],
                "properties": {"id": {"type": "integer"}, "title": {"type": "string"},
                               "body": {"type": "string"}}}}}});
        let out = Output::of(Some(&declared), OutputSchemas::Compact);
        let advertised = Value::Object(out.advertised(OutputSchemas::Compact).unwrap());
        let kept = crate::results::Kept::default();
        for (text, max) in [
            (ResultText::Full, 30_000),
            (ResultText::Summary, 30_000),
            (ResultText::None, 9_000),
        ] {
            let r = shaped_with(big_list(), &out, text, max, &kept);
            assert_eq!(r.is_error, Some(false), "{text:?}");
            let wire = flowmcp_catalog::serde_json::to_string(&r).unwrap();
            assert!(wire.len() <= max, "{text:?}: {} > {max}", wire.len());
            let structured = r.structured_content.clone().unwrap();
            assert!(accepts(&advertised, &structured), "{text:?}");
            let n = structured["items"].as_array().map_or(0, Vec::len);
            assert!((2..400).contains(&n), "{n}");
            let meta = &r.meta.as_ref().unwrap().0["flowmcp/cut"];
            assert_eq!(meta["budgetBytes"], json!(max));
            assert_eq!(
                meta["cuts"][0],
                json!({"path": "/items", "kind": "array", "count": 1, "kept": n, "total": 400})
            );
            // The whole reads back, page by page, and is the original data.
            let mut uri = meta["whole"]["uri"].as_str().map(str::to_string);
            let mut whole = String::new();
            while let Some(u) = uri {
                let page = kept.read(&u, "me").unwrap();
                let page = flowmcp_catalog::serde_json::to_value(&page.contents[0]).unwrap();
                whole.push_str(page["text"].as_str().unwrap());
                uri = page["_meta"]["next"].as_str().map(str::to_string);
            }
            assert_eq!(
                flowmcp_catalog::serde_json::from_str::<Value>(&whole).unwrap(),
                big_list()
            );
            let content = flowmcp_catalog::serde_json::to_value(&r.content).unwrap();
            let texts: Vec<&str> = content
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|c| c["text"].as_str())
                .collect();
            assert!(
                texts
                    .iter()
                    .any(|t| t.starts_with("Result cut to fit the result budget")),
                "{texts:?}"
            );
            assert!(
                content
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["type"] == "resource_link")
            );
            match text {
                ResultText::Full => assert!(
                    texts[0].starts_with("{\"items\"") || texts[0].starts_with("{\"total\"")
                ),
                ResultText::Summary => {
                    assert!(texts[0].starts_with("The result is in structuredContent: an object"))
                }
                _ => assert_eq!(texts.len(), 1),
            }
        }
    }

    #[test]
    fn i44_results_within_budget_and_images_are_whole() {
        let kept = crate::results::Kept::default();
        let small = json!({"n": 1});
        let object = json!({"type": "object"});
        let out = Output::of(Some(&object), OutputSchemas::Compact);
        let r = shaped_with(small.clone(), &out, ResultText::Full, 10_000, &kept);
        assert_eq!(r, result(Envelope::ok(small), &out, Media::Json));
        let png = "A".repeat(50_000);
        let keep = |t: String, page: usize| kept.keep("me", t, page);
        let shape = Shape {
            max_bytes: Some(10_000),
            text: ResultText::Full,
            keep: Some(&keep),
            paging: None,
        };
        let r = shaped(Envelope::ok(json!(png)), &Output::None, Media::Png, &shape);
        assert!(r.meta.is_none() && r.is_error == Some(false));
    }

    #[test]
    fn i44_a_result_that_cannot_be_cut_small_enough_is_e008_with_the_whole_linked() {
        let kept = crate::results::Kept::default();
        let many: Map<String, Value> = (0..2000).map(|i| (format!("key{i}"), json!(i))).collect();
        let r = shaped_with(
            Value::Object(many),
            &Output::None,
            ResultText::Full,
            5_000,
            &kept,
        );
        assert_eq!(r.is_error, Some(true));
        let content = flowmcp_catalog::serde_json::to_value(&r.content).unwrap();
        assert!(
            content[0]["text"]
                .as_str()
                .unwrap()
                .starts_with("E008 the result"),
            "{content}"
        );
        assert_eq!(content[1]["type"], "resource_link");
        // Without a schema (text only) a long array is cut as well.
        let list = json!((0..5000).collect::<Vec<_>>());
        let r = shaped_with(list, &Output::None, ResultText::Full, 5_000, &kept);
        assert_eq!(r.is_error, Some(false));
        assert!(flowmcp_catalog::serde_json::to_string(&r).unwrap().len() <= 5_000);
    }

    #[test]
    fn failures_are_tool_errors_with_their_code() {
        let e = Envelope::error(flowmcp_catalog::Code::E007, "t", "missing input \"city\"");
        let r = result(e, &Output::None, Media::Json);
        assert_eq!(r.is_error, Some(true));
        let text = flowmcp_catalog::serde_json::to_value(&r.content).unwrap();
        assert!(text.to_string().contains("E007 t: missing input"), "{text}");
    }

    /// Whether `schema` accepts `v`, for the keywords the advertised schemas use (`type`,
    /// `properties`, `patternProperties`, `additionalProperties`, `items`, `required`, `enum`,
    /// `oneOf`), as JSON Schema says: a small validator for these tests.
    fn accepts(schema: &Value, v: &Value) -> bool {
        let Some(s) = schema.as_object() else {
            return schema != &json!(false);
        };
        let is = |t: &str| match t {
            "null" => v.is_null(),
            "boolean" => v.is_boolean(),
            "string" => v.is_string(),
            "number" => v.is_number(),
            "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
            "array" => v.is_array(),
            "object" => v.is_object(),
            _ => false,
        };
        let typed = match s.get("type") {
            Some(Value::String(t)) => is(t),
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(is),
            _ => true,
        };
        if !typed {
            return false;
        }
        if let Some(Value::Array(e)) = s.get("enum")
            && !e.contains(v)
        {
            return false;
        }
        if let Some(Value::Array(one)) = s.get("oneOf")
            && one.iter().filter(|o| accepts(o, v)).count() != 1
        {
            return false;
        }
        if let (Value::Array(items), Some(sub)) = (v, s.get("items"))
            && !items.iter().all(|i| accepts(sub, i))
        {
            return false;
        }
        let Value::Object(o) = v else {
            return true;
        };
        if let Some(Value::Array(req)) = s.get("required")
            && !req
                .iter()
                .filter_map(Value::as_str)
                .all(|k| o.contains_key(k))
        {
            return false;
        }
        let empty = Map::new();
        let props = s
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let patterns: Vec<(regex::Regex, &Value)> = s
            .get("patternProperties")
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .iter()
            .map(|(p, sub)| (regex::Regex::new(p).unwrap(), sub))
            .collect();
        o.iter().all(|(k, val)| {
            let mut matched = false;
            if let Some(sub) = props.get(k) {
                matched = true;
                if !accepts(sub, val) {
                    return false;
                }
            }
            for (re, sub) in &patterns {
                if re.is_match(k) {
                    matched = true;
                    if !accepts(sub, val) {
                        return false;
                    }
                }
            }
            matched
                || s.get("additionalProperties")
                    .is_none_or(|a| accepts(a, val))
        })
    }

    fn advertised(declared: &Value, schemas: OutputSchemas) -> Value {
        Value::Object(
            Output::of(Some(declared), schemas)
                .advertised(schemas)
                .unwrap(),
        )
    }

    /// Issue #30, scope 4: the compact schema accepts exactly what the full one accepts, and is
    /// smaller: no annotations, no empty `properties`/`required`, identical siblings merged
    /// (names with regular-expression syntax in them matched literally).
    #[test]
    fn i30_4_compact_output_schemas_accept_exactly_what_the_full_ones_accept() {
        let warning = json!({"type": "object", "description": "One country's warning",
            "properties": {"title": {"type": "string", "description": "Title"},
                           "warning": {"type": "boolean"}}, "required": []});
        let declared = json!({"type": "object", "description": "Warnings by ID",
            "properties": {
                "199124": warning, "200382": warning, "a.b": warning, "x|y": warning,
                "(c)": warning, "": warning,
                "count": {"type": "number", "title": "count", "examples": [1]},
                "total": {"type": "number"},
                "list": {"type": "array", "nullable": true, "items": {"type": "object",
                    "properties": {}, "required": [], "description": "row"}},
                "one": {"type": "string"}
            },
            "required": ["count"]});
        let full = advertised(&declared, OutputSchemas::Full);
        let compact = advertised(&declared, OutputSchemas::Compact);
        let text = compact.to_string();
        assert!(
            !text.contains("description") && !text.contains("examples"),
            "{text}"
        );
        assert!(!text.contains("\"required\":[]"), "{text}");
        assert_eq!(compact["type"], json!("object"));
        assert!(text.len() * 2 < full.to_string().len(), "{text}");
        let pp = compact["patternProperties"].as_object().unwrap();
        assert_eq!(pp.len(), 2, "{text}");
        assert!(
            pp.contains_key(r"^(199124|200382|a\.b|x\|y|\(c\)|)$"),
            "{text}"
        );
        assert!(pp.contains_key("^(count|total)$"), "{text}");
        assert_eq!(
            compact["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["list", "one"]
        );
        let ok = json!({"title": "t", "warning": true});
        let bad = json!({"title": 1});
        let samples = [
            json!({"count": 1}),
            json!({}),
            json!({"count": "1"}),
            json!({"count": 1, "total": 2, "199124": ok, "a.b": ok, "x|y": ok, "(c)": ok, "": ok}),
            json!({"count": 1, "199124": bad}),
            json!({"count": 1, "a.b": bad}),
            json!({"count": 1, "x|y": bad}),
            json!({"count": 1, "": bad}),
            json!({"count": 1, "total": "2"}),
            // Names the patterns would match if they were not escaped or anchored.
            json!({"count": 1, "aXb": bad, "x": bad, "y": bad, "c": bad, "1991245": bad,
                   "counts": "x", "(c)x": bad}),
            json!({"count": 1, "list": null}),
            json!({"count": 1, "list": [{"anything": 1}]}),
            json!({"count": 1, "list": [1]}),
            json!({"count": 1, "one": null}),
            json!([]),
            json!(null),
        ];
        let verdicts: Vec<bool> = samples.iter().map(|v| accepts(&full, v)).collect();
        for (v, want) in samples.iter().zip(&verdicts) {
            assert_eq!(accepts(&compact, v), *want, "{v}");
        }
        assert_eq!(verdicts.iter().filter(|a| **a).count(), 5, "{verdicts:?}");
    }

    /// Issue #30, scope 4: a schema with nothing redundant is advertised byte for byte as declared;
    /// a non-object schema is wrapped and compacted inside.
    #[test]
    fn i30_4_compact_leaves_a_schema_without_redundancy_unchanged() {
        let declared = json!({"type": "object", "properties": {"n": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}}, "s": {"type": "string",
            "enum": ["a", "b"]}}, "required": ["n"]});
        assert_eq!(
            advertised(&declared, OutputSchemas::Compact).to_string(),
            declared.to_string()
        );
        let arr = json!({"type": "array", "items": {"type": "object",
            "properties": {"x": {"type": "number", "description": "x"}}}});
        assert_eq!(
            advertised(&arr, OutputSchemas::Compact),
            json!({"type": "object", "properties": {"data": {"type": "array", "items": {
                "type": "object", "properties": {"x": {"type": "number"}}}}},
                "required": ["data"]})
        );
        // A property named like an annotation is a property, not an annotation.
        let named = json!({"type": "object", "properties": {"description": {"type": "string"},
            "title": {"type": "number"}}});
        assert_eq!(advertised(&named, OutputSchemas::Compact), named);
    }

    /// Issue #30, scope 4: `none` advertises no output schema and answers with text only.
    #[test]
    fn i30_4_output_schema_none_means_no_schema_and_no_structured_content() {
        let obj = json!({"type": "object", "properties": {"n": {"type": "number"}}});
        let out = Output::of(Some(&obj), OutputSchemas::None);
        assert_eq!(out, Output::None);
        assert!(out.advertised(OutputSchemas::None).is_none());
        let r = result(Envelope::ok(json!({"n": 1})), &out, Media::Json);
        assert_eq!(r.is_error, Some(false));
        assert!(r.structured_content.is_none());
        let text = flowmcp_catalog::serde_json::to_string(&r.content).unwrap();
        assert!(text.contains(r#"{\"n\":1}"#), "{text}");
    }

    /// The groups `merge_siblings` forms, by names, as its JSON texts would form them.
    fn groups_by_text(props: &Map<String, Value>) -> Vec<Vec<String>> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for (name, s) in props {
            let text = s.to_string();
            match out.iter_mut().find(|(t, _)| *t == text) {
                Some((_, names)) => names.push(name.clone()),
                None => out.push((text, vec![name.clone()])),
            }
        }
        out.into_iter().map(|(_, names)| names).collect()
    }

    #[test]
    fn i46_siblings_are_grouped_by_their_text_without_writing_it() {
        // Equal under `==` but not as text: members in another order, 1 against 1.0, 0.0
        // against -0.0; equal as text: the same members in the same order, at any depth.
        let props = json!({
            "a": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "number"}}},
            "b": {"properties": {"x": {"type": "string"}, "y": {"type": "number"}}, "type": "object"},
            "c": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "number"}}},
            "d": {"const": 1}, "e": {"const": 1.0}, "f": {"const": 1}, "g": {"const": 0.0},
            "h": {"const": -0.0}, "i": {"const": -1}, "j": {"const": -1}, "k": {"enum": [1, "1"]},
            "l": {"enum": ["1", 1]}, "m": {"enum": [1, "1"]}, "n": null, "o": null, "p": true,
            "q": false, "r": {"const": 18446744073709551615_u64}, "s": {"const": 1.8446744073709552e19},
            "t": {"const": "é\u{0}"}, "u": {"const": "é\u{0}"}, "v": [], "w": {}, "x": [],
        });
        let props = props.as_object().unwrap().clone();
        let print = |v: &Value| {
            let mut h = std::hash::DefaultHasher::new();
            fingerprint(v, &mut h);
            std::hash::Hasher::finish(&h)
        };
        for (name, a) in &props {
            assert_eq!(budget::json_size(a), a.to_string().len(), "{a}");
            assert_eq!(
                budget::json_size(name),
                json!(name).to_string().len(),
                "{name}"
            );
            for b in props.values() {
                // By the texts, not by `==` (which ignores member order).
                let (ta, tb) = (a.to_string(), b.to_string());
                let same = ta == tb;
                assert_eq!(same_text(a, b), same, "{a} {b}");
                if same {
                    assert_eq!(print(a), print(b), "{a} {b}");
                }
            }
        }
        let expected: Vec<Vec<String>> = groups_by_text(&props)
            .into_iter()
            .filter(|names| names.len() > 1)
            .collect();
        assert_eq!(
            expected,
            [
                vec!["a", "c"],
                vec!["d", "f"],
                vec!["i", "j"],
                vec!["k", "m"],
                vec!["n", "o"],
                vec!["t", "u"],
                vec!["v", "x"]
            ]
        );
        // Every group whose pattern is shorter than its names becomes one entry, and only those.
        let (kept, merged) = merge_siblings(props.clone());
        let patterns: Vec<&String> = merged.keys().collect();
        let mut merged_names = Vec::new();
        for names in &expected {
            let pattern = format!("^({})$", names.join("|"));
            if merged.contains_key(&pattern) {
                merged_names.extend(names.iter().cloned());
                assert_eq!(merged[&pattern], props[&names[0]], "{pattern}");
            }
        }
        assert!(!patterns.is_empty(), "{patterns:?}");
        assert_eq!(
            patterns.len(),
            expected
                .iter()
                .filter(|n| merged.contains_key(&format!("^({})$", n.join("|"))))
                .count()
        );
        let kept_names: Vec<&String> = kept.keys().collect();
        let all: Vec<&String> = props.keys().filter(|n| !merged_names.contains(n)).collect();
        assert_eq!(kept_names, all);
    }
}
