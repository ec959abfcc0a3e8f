//! The mapping: a document's info, servers, security schemes and operations to schema files
//! (docs/decisions.md, D119–D121).

use std::collections::{BTreeMap, BTreeSet};

use flowmcp_files::Root;
use flowmcp_spec::id::SchemaFileId;
use serde_json::{Map, Value, json};

use crate::doc::{self, Docs, Version, escape};
use crate::emit::{self, literal, quote};
use crate::error::ImportError;
use crate::shape;
use crate::zmap::{self, accepts, merged, one_line, strip_tags, type_of, z_of};
use crate::{DraftFile, Dropped, Import, Options, Review, ReviewKind};

/// At most this many tools in one file (VAL031).
const MAX_TOOLS: usize = 8;
/// The HTTP methods of an OpenAPI path item, in the order tools are made.
const METHODS: [&str; 8] = [
    "get", "post", "put", "delete", "patch", "head", "options", "trace",
];
/// Untagged path groups smaller than this share files.
const MIN_GROUP: usize = 3;
/// The file stem of the shared files of small untagged groups.
const POOL: &str = "api";
/// How many tests each tool gets (TST001 wants at least 3).
const TESTS: usize = 3;
/// A root for documents that name no absolute server.
const NO_ROOT: &str = "https://example.invalid";

type Notes = Vec<(ReviewKind, String)>;

/// Why an operation did not become a tool: something the format cannot express (dropped and
/// reported, like a `PATCH`), or something wrong in the document (a failure, exit code 1).
enum Skip {
    Dropped(String),
    Failed(String),
}

impl From<String> for Skip {
    fn from(reason: String) -> Skip {
        Skip::Failed(reason)
    }
}

/// One parameter as written.
struct Param {
    key: String,
    value: String,
    location: &'static str,
    primitive: String,
    options: Vec<String>,
    description: Option<String>,
    notes: Notes,
    /// Candidate test values that pass the `z` block.
    samples: Vec<Value>,
    required: bool,
    /// The JSON Schema `format` of a string (made-up test values follow it).
    format: Option<String>,
    /// The JSON Schema `pattern` of a string (made-up test values follow it).
    pattern: Option<String>,
    /// The parameter's schema (made-up arrays and objects follow its items and members).
    schema: Value,
}

impl Param {
    /// A query parameter the tool always sends with `value` (a fixed text or a server-parameter
    /// placeholder): a required `string()` the user never sees.
    fn fixed_query(key: String, value: String) -> Param {
        Param {
            key,
            value,
            location: "query",
            primitive: "string()".into(),
            options: Vec::new(),
            description: None,
            notes: Vec::new(),
            samples: Vec::new(),
            required: true,
            format: None,
            pattern: None,
            schema: Value::Null,
        }
    }
}

/// One tool as written.
struct Tool {
    name: String,
    method: String,
    path: String,
    description: String,
    headers: Vec<(String, String)>,
    params: Vec<Param>,
    output: Option<Value>,
    tests: Vec<Value>,
    test_notes: Notes,
    notes: Notes,
    server_params: Vec<String>,
    group: Group,
    read_only: bool,
    destructive: bool,
    hint: String,
}

/// Where a tool goes: a tag, or else a path's first segment.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Group {
    slug: String,
    tag: Option<String>,
}

/// A security scheme of the document, by name.
struct Scheme {
    value: Value,
}

/// The document-wide facts every tool needs.
struct Ctx<'a> {
    document: String,
    version: Version,
    namespace: String,
    schemes: BTreeMap<String, Scheme>,
    global_security: Option<Value>,
    docs: &'a Docs,
    consumes: Vec<String>,
    produces: Vec<String>,
}

pub(crate) fn run(
    text: &str,
    document: &str,
    short: &str,
    folder: Option<Root>,
    options: &Options,
) -> Result<Import, ImportError> {
    let tree = doc::parse(text, document)?;
    let version = doc::version(&tree, document)?;
    let docs = Docs::new(document, tree, folder);
    let root_doc = docs.root();
    let info = root_doc.get("info").cloned().unwrap_or(Value::Null);
    let (root, root_notes, host) = root_of(&root_doc, version);
    let namespace = match &options.namespace {
        Some(ns) => ns.clone(),
        None => namespace_from(host.as_deref(), &info),
    };
    if let Err(e) = SchemaFileId::new(namespace.clone(), "api") {
        return Err(ImportError::Namespace {
            document: document.to_string(),
            namespace,
            reason: e.to_string(),
        });
    }
    let schemes_at = match version {
        Version::Swagger2 => "/securityDefinitions",
        _ => "/components/securitySchemes",
    };
    let mut schemes = BTreeMap::new();
    if let Some(Value::Object(defs)) = root_doc.pointer(schemes_at) {
        for (name, def) in defs {
            let at = format!("{schemes_at}/{}", escape(name));
            // A scheme that does not resolve is left out; the tools that use it say so.
            if let Ok(r) = docs.resolve(def, &at) {
                schemes.insert(name.clone(), Scheme { value: r.value });
            }
        }
    }
    let strings = |key: &str| -> Vec<String> {
        match root_doc.get(key) {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
    };
    let ctx = Ctx {
        document: document.to_string(),
        version,
        namespace: namespace.clone(),
        schemes,
        global_security: root_doc.get("security").cloned(),
        docs: &docs,
        consumes: strings("consumes"),
        produces: strings("produces"),
    };
    let wanted: Vec<String> = options.tags.iter().map(|t| t.to_lowercase()).collect();
    let mut tools = Vec::new();
    let mut dropped = Vec::new();
    let mut failed = Vec::new();
    let mut taken = BTreeSet::new();
    if let Some(Value::Object(paths)) = root_doc.get("paths") {
        for (path, item) in paths {
            let at = format!("/paths/{}", escape(path));
            let item = match docs.resolve_shallow(item, &at) {
                Ok(r) => r.value,
                Err(e) => {
                    failed.push(e.to_string());
                    continue;
                }
            };
            for method in METHODS {
                let Some(op) = item.get(method) else { continue };
                let op_at = format!("{at}/{method}");
                let tags: Vec<String> = match op.get("tags") {
                    Some(Value::Array(t)) => t
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    _ => Vec::new(),
                };
                if !wanted.is_empty() && !tags.iter().any(|t| wanted.contains(&t.to_lowercase())) {
                    continue;
                }
                if !matches!(method, "get" | "post" | "put" | "delete") {
                    dropped.push(Dropped {
                        pointer: op_at,
                        reason: format!(
                            "{} has no tool method (the format has GET, POST, PUT and DELETE)",
                            method.to_uppercase()
                        ),
                    });
                    continue;
                }
                match tool_of(&ctx, path, &item, op, method, &op_at, &tags, &mut taken) {
                    Ok(t) => tools.push(t),
                    Err(Skip::Dropped(reason)) => dropped.push(Dropped {
                        pointer: op_at,
                        reason,
                    }),
                    Err(Skip::Failed(reason)) => failed.push(
                        ImportError::Operation {
                            document: document.to_string(),
                            pointer: op_at,
                            reason,
                        }
                        .to_string(),
                    ),
                }
            }
        }
    }
    let mut tools = tools;
    let lists = share_enums(&ctx, short, &mut tools);
    let mut files = files_of(&ctx, short, &info, &root_doc, &root, &root_notes, tools)?;
    files.extend(lists);
    Ok(Import {
        document: document.to_string(),
        namespace,
        files,
        dropped,
        failed,
    })
}

/// `root` from `servers` (3.x) or `schemes`/`host`/`basePath` (2.0): `https` first, server
/// variables filled with their defaults, no trailing `/`. Also the host, for the namespace.
fn root_of(doc: &Value, version: Version) -> (String, Notes, Option<String>) {
    let mut notes = Vec::new();
    // The values server variables took: labels of the host made from them (a region, a tenant)
    // do not name the provider.
    let mut filled: Vec<String> = Vec::new();
    let candidates: Vec<String> = match version {
        Version::Swagger2 => {
            let host = doc.get("host").and_then(Value::as_str).unwrap_or_default();
            let base = doc
                .get("basePath")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let schemes: Vec<&str> = match doc.get("schemes") {
                Some(Value::Array(s)) => s.iter().filter_map(Value::as_str).collect(),
                _ => vec!["https"],
            };
            if host.is_empty() {
                vec![base.to_string()]
            } else {
                schemes
                    .iter()
                    .map(|s| format!("{s}://{host}{base}"))
                    .collect()
            }
        }
        _ => match doc.get("servers") {
            Some(Value::Array(servers)) => servers
                .iter()
                .filter_map(|s| -> Option<String> {
                    let mut url = s.get("url")?.as_str()?.to_string();
                    if let Some(Value::Object(vars)) = s.get("variables") {
                        for (name, var) in vars {
                            let default = match var.get("default") {
                                Some(Value::String(d)) => d.clone(),
                                Some(other) => other.to_string(),
                                None => continue,
                            };
                            let placeholder = format!("{{{name}}}");
                            if url.contains(&placeholder) {
                                filled.push(default.clone());
                            }
                            url = url.replace(&placeholder, &default);
                        }
                    }
                    Some(url)
                })
                .collect(),
            _ => Vec::new(),
        },
    };
    let chosen = candidates
        .iter()
        .find(|u| u.starts_with("https://"))
        .or_else(|| candidates.iter().find(|u| u.contains("://")))
        .or_else(|| candidates.first())
        .cloned()
        .unwrap_or_default();
    let mut root = chosen.clone();
    if let Some(rest) = root.strip_prefix("http://") {
        notes.push((
            ReviewKind::Server,
            format!("the document's server is plain http ({chosen}); https is assumed"),
        ));
        root = format!("https://{rest}");
    }
    if !root.starts_with("https://") {
        let shown = if chosen.is_empty() {
            "none".to_string()
        } else {
            chosen.clone()
        };
        notes.push((
            ReviewKind::Server,
            format!("the document names no absolute https server (found: {shown}); set the API's address"),
        ));
        let path = if chosen.starts_with('/') {
            chosen.clone()
        } else {
            String::new()
        };
        root = format!("{NO_ROOT}{path}");
    }
    if root.contains('{') {
        notes.push((
            ReviewKind::Server,
            "the server address has a variable without a default".to_string(),
        ));
        root = root.replace(['{', '}'], "");
    }
    while root.ends_with('/') {
        root.pop();
    }
    let mut places: Vec<&str> = candidates
        .iter()
        .map(|c| c.split_once("://").map_or(c.as_str(), |(_, rest)| rest))
        .collect();
    places.sort_unstable();
    places.dedup();
    if places.len() > 1 {
        notes.push((
            ReviewKind::Server,
            format!(
                "the document names {} servers; the first https one is used",
                places.len()
            ),
        ));
    }
    let host = root
        .strip_prefix("https://")
        .map(|r| {
            let host = r.split(['/', ':']).next().unwrap_or_default();
            let labels: Vec<&str> = host
                .split('.')
                .filter(|l| !filled.iter().any(|f| f == l))
                .collect();
            labels.join(".")
        })
        .filter(|h| !h.is_empty() && !root.starts_with(NO_ROOT));
    (root, notes, host)
}

/// A namespace from the host (`api.openshelf.org` → `openshelf-org`), else from the title.
fn namespace_from(host: Option<&str>, info: &Value) -> String {
    if let Some(host) = host {
        let labels: Vec<&str> = host.split('.').collect();
        let skip = [
            "api",
            "www",
            "rest",
            "developer",
            "developers",
            "public",
            "app",
        ];
        let start = usize::from(labels.len() > 2 && skip.contains(&labels[0]));
        let slug = slug(&labels[start..].join("-"));
        if !slug.is_empty() {
            return slug;
        }
    }
    let title = info.get("title").and_then(Value::as_str).unwrap_or("api");
    let s = slug(title);
    if s.is_empty() { "api".to_string() } else { s }
}

/// Lower-case letters, digits and single hyphens, starting with a letter.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "api-");
    }
    out
}

/// camelCase of the words of `text`, starting with a lower-case letter.
fn camel(text: &str) -> String {
    let mut out = String::new();
    let words = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty());
    for (i, word) in words.enumerate() {
        let word = if word.chars().all(|c| !c.is_ascii_lowercase()) {
            word.to_ascii_lowercase()
        } else {
            word.to_string()
        };
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            if i == 0 {
                out.push(first.to_ascii_lowercase());
            } else {
                out.push(first.to_ascii_uppercase());
            }
            out.extend(chars);
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out.insert_str(0, "op");
        let mut chars: Vec<char> = out.chars().collect();
        if let Some(c) = chars.get_mut(2) {
            *c = c.to_ascii_uppercase();
        }
        out = chars.into_iter().collect();
    }
    out
}

/// The tool name: the `operationId` in camelCase, else the method and the path.
fn tool_name(op: &Value, method: &str, path: &str, taken: &mut BTreeSet<String>) -> String {
    let base = match op.get("operationId").and_then(Value::as_str) {
        Some(id) if !camel(id).is_empty() => camel(id),
        _ => {
            let mut words = vec![method.to_string()];
            for seg in path.split('/').filter(|s| !s.is_empty()) {
                if let Some(p) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    words.push("by".into());
                    words.push(p.to_string());
                } else {
                    words.push(seg.to_string());
                }
            }
            camel(&words.join(" "))
        }
    };
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// One parameter of the document, before it is written.
struct Raw {
    name: String,
    location: String,
    required: bool,
    description: Option<String>,
    schema: Value,
    examples: Vec<Value>,
    notes: Notes,
}

#[allow(clippy::too_many_arguments)]
fn tool_of(
    ctx: &Ctx<'_>,
    path: &str,
    item: &Value,
    op: &Value,
    method: &str,
    at: &str,
    tags: &[String],
    taken: &mut BTreeSet<String>,
) -> Result<Tool, Skip> {
    let resolved = ctx.docs.resolve(op, at).map_err(|e| e.to_string())?;
    let op = resolved.value;
    // The path item's own parameters, resolved here (the path item was resolved shallowly).
    let item = match item.get("parameters") {
        Some(ps) => {
            let item_at = at.rsplit_once('/').map_or(at, |(p, _)| p);
            let r = ctx
                .docs
                .resolve(ps, &format!("{item_at}/parameters"))
                .map_err(|e| e.to_string())?;
            json!({ "parameters": r.value })
        }
        None => Value::Null,
    };
    let item = &item;
    let name = tool_name(&op, method, path, taken);
    let mut notes: Notes = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut raws = raw_params(ctx, item, &op)?;
    // Swagger's form fields: the format sends JSON bodies only (chapter 02), so a required one
    // drops the operation and optional ones are left out.
    if let Some(r) = raws.iter().find(|r| r.location == "formData" && r.required) {
        return Err(Skip::Dropped(format!(
            "the form field {:?} is required, and the format sends JSON bodies only",
            r.name
        )));
    }
    if raws.iter().any(|r| r.location == "formData") {
        raws.retain(|r| r.location != "formData");
        notes.push((
            ReviewKind::Parameter,
            "the API's optional form fields cannot be sent (the format sends JSON bodies); they are left out"
                .to_string(),
        ));
    }
    if ctx.version != Version::Swagger2 {
        raws.extend(body_params(ctx, &op, method, &mut notes)?);
    } else if !matches!(method, "post" | "put") {
        let before = raws.len();
        raws.retain(|r| r.location != "body");
        if raws.len() != before {
            notes.push((
                ReviewKind::Parameter,
                format!(
                    "{} takes no body here; the document's body parameters are left out",
                    method.to_uppercase()
                ),
            ));
        }
    }
    // Placeholders in a path's query (`?page={page}`) are query parameters under the query's key.
    let (base_path, _, templated) = split_path_templated(path);
    for raw in &mut raws {
        if raw.location == "path"
            && let Some((_, key)) = templated.iter().find(|(name, _)| *name == raw.name)
        {
            raw.location = "query".into();
            raw.name = key.clone();
        }
    }
    // Path placeholders the parameters do not declare are strings.
    for seg in placeholders(&base_path) {
        if !raws.iter().any(|r| r.location == "path" && r.name == seg) {
            raws.push(Raw {
                name: seg.clone(),
                location: "path".into(),
                required: true,
                description: None,
                schema: json!({"type": "string"}),
                examples: Vec::new(),
                notes: vec![(
                    ReviewKind::Parameter,
                    format!(
                        "the path has {{{seg}}} but no parameter declares it; a string is assumed"
                    ),
                )],
            });
        }
    }
    let mut params: Vec<Param> = Vec::new();
    // A path with a query (`/?Action=List`) sends it as fixed query parameters; a fragment
    // (`/#X-Amz-Target=…`, which tells operations apart in some documents) is not sent.
    let (mut tool_path, fixed_query) = split_path(path);
    let wire: BTreeSet<String> = raws
        .iter()
        .filter(|r| matches!(r.location.as_str(), "query" | "body"))
        .map(|r| r.name.clone())
        .collect();
    let mut header_keys: Vec<(String, String)> = Vec::new();
    let mut query_names = BTreeSet::new();
    for raw in &raws {
        if raw.location == "query" {
            query_names.insert(raw.name.clone());
        }
    }
    for raw in raws {
        let location = match raw.location.as_str() {
            "path" => "insert",
            "query" => "query",
            "body" => "body",
            "header" => {
                if let Some(k) = header_param(ctx, &raw, &mut headers, &mut notes) {
                    header_keys.push(k);
                }
                continue;
            }
            other => {
                notes.push((
                    ReviewKind::Parameter,
                    format!(
                        "the {other} parameter {:?} cannot be sent; it is left out{}",
                        raw.name,
                        if raw.required {
                            " (the API requires it)"
                        } else {
                            ""
                        }
                    ),
                ));
                continue;
            }
        };
        let mut key = raw.name.clone();
        let mut pnotes = raw.notes.clone();
        if location == "insert" {
            if wire.contains(&key) {
                let mut renamed = format!("{}InPath", camel(&key));
                let mut n = 2;
                while wire.contains(&renamed) || params.iter().any(|p| p.key == renamed) {
                    renamed = format!("{}InPath{n}", camel(&key));
                    n += 1;
                }
                pnotes.push((
                    ReviewKind::Collision,
                    format!("the path parameter {key:?} is named {renamed:?} here, as another parameter is called {key:?}"),
                ));
                key = renamed;
            }
            tool_path = tool_path.replace(&format!("{{{}}}", raw.name), &format!("{{{{{key}}}}}"));
        } else if location == "body" && query_names.contains(&key) {
            notes.push((
                ReviewKind::Collision,
                format!(
                    "the body member {key:?} has the name of a query parameter, and both are sent under their names; it is left out{}",
                    if raw.required { " (the API requires it)" } else { "" }
                ),
            ));
            continue;
        }
        let z = z_of(&raw.schema, raw.required);
        pnotes.extend(z.notes);
        let (samples, broken) = samples(&raw, &z.primitive, &z.options);
        pnotes.extend(broken);
        params.push(Param {
            key,
            value: "{{USER_PARAM}}".into(),
            location,
            primitive: z.primitive,
            options: z.options,
            description: raw
                .description
                .map(|d| one_line(&strip_tags(&d)))
                .filter(|d| !d.is_empty()),
            notes: pnotes,
            samples,
            required: raw.required,
            format: merged(&raw.schema)
                .get("format")
                .and_then(Value::as_str)
                .map(str::to_string),
            pattern: merged(&raw.schema)
                .get("pattern")
                .and_then(Value::as_str)
                .map(str::to_string),
            schema: merged(&raw.schema).into_owned(),
        });
    }
    for (k, v) in fixed_query {
        if params.iter().any(|p| p.location == "query" && p.key == k) {
            continue;
        }
        params.push(Param::fixed_query(k, v));
    }
    if params.iter().any(|p| p.location == "body") {
        headers.push(("Content-Type".into(), "application/json".into()));
    }
    let mut server_params = security(ctx, &op, &name, &mut headers, &mut params, &mut notes);
    // Required headers sent from server parameters, unless a security scheme sets that header
    // (its value is the one sent; the header is written once).
    for (header, key) in header_keys {
        let placeholder = format!("{{{{SERVER_PARAM:{key}}}}}");
        let overridden = headers
            .iter()
            .any(|(h, v)| h.eq_ignore_ascii_case(&header) && *v != placeholder);
        if overridden {
            headers.retain(|(h, v)| !(h.eq_ignore_ascii_case(&header) && *v == placeholder));
            // The line that announced the server parameter no longer holds.
            notes.retain(|(_, text)| !text.contains(key.as_str()));
        } else if !server_params.contains(&key) {
            server_params.push(key);
        }
    }
    let (tests, test_notes) = tests_of(&op, &params);
    let (output, out_notes) = output_of(ctx, &op);
    notes.extend(out_notes);
    if resolved.cut || has_cut(&op) {
        notes.push((
            ReviewKind::Ref,
            "a reference cycle in this operation was cut (marked where it matters)".to_string(),
        ));
    }
    let summary = op
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let long = op
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // The summary, then the description (once when one repeats the other).
    let joined = if long.trim_start().starts_with(summary.trim()) {
        long.to_string()
    } else if summary.trim().starts_with(long.trim()) {
        summary.to_string()
    } else {
        format!("{summary} {long}")
    };
    let mut description = one_line_long(&joined);
    if description.is_empty() {
        description = format!("{} {path}", method.to_uppercase());
    }
    let group = match tags.first() {
        Some(t) if !slug(t).is_empty() => Group {
            slug: slug(t),
            tag: Some(t.clone()),
        },
        _ => {
            let first = path
                .split('/')
                .find(|s| !s.is_empty() && !s.starts_with('{'))
                .unwrap_or("api");
            let s = slug(first);
            Group {
                slug: if s.is_empty() { "api".into() } else { s },
                tag: None,
            }
        }
    };
    let hint = hint_of(summary, &name, path);
    if op.get("deprecated") == Some(&Value::Bool(true)) {
        notes.push((
            ReviewKind::Parameter,
            "the document marks this operation deprecated".to_string(),
        ));
    }
    Ok(Tool {
        name,
        method: method.to_uppercase(),
        path: tool_path,
        description,
        headers,
        params,
        output,
        tests,
        test_notes,
        notes,
        server_params,
        group,
        read_only: method == "get",
        destructive: method == "delete",
        hint,
    })
}

/// Whether a cut reference is anywhere in `value`.
fn has_cut(value: &Value) -> bool {
    match value {
        Value::Object(m) => m.contains_key(doc::CYCLE_MARK) || m.values().any(has_cut),
        Value::Array(a) => a.iter().any(has_cut),
        _ => false,
    }
}

/// A description on one line, at most 1000 characters.
fn one_line_long(text: &str) -> String {
    let text = strip_tags(text);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 1000 {
        let mut s: String = flat.chars().take(997).collect();
        s.push_str("...");
        s
    } else {
        flat
    }
}

/// A path without its query and fragment, and the query's `key=value` pairs (a key without a
/// value, or an empty value, is left out: a fixed parameter needs a value).
fn split_path(path: &str) -> (String, Vec<(String, String)>) {
    let (base, pairs, _) = split_path_templated(path);
    (base, pairs)
}

/// [`split_path`], and the query's `key={name}` pairs as (name, key): parameters the document
/// declares `in: path` that are sent in the query (`/rides?page={page}`).
#[allow(clippy::type_complexity)]
fn split_path_templated(path: &str) -> (String, Vec<(String, String)>, Vec<(String, String)>) {
    let without_fragment = path.split('#').next().unwrap_or_default();
    let query = without_fragment.split_once('?').map_or("", |(_, q)| q);
    let templated: Vec<(String, String)> = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .filter_map(|(k, v)| {
            let name = v.strip_prefix('{')?.strip_suffix('}')?;
            (!k.is_empty() && !name.is_empty()).then(|| (name.to_string(), k.to_string()))
        })
        .collect();
    let (base, pairs) = split_fixed(path);
    (base, pairs, templated)
}

/// A path without its query and fragment, and the query's fixed `key=value` pairs.
fn split_fixed(path: &str) -> (String, Vec<(String, String)>) {
    let without_fragment = path.split('#').next().unwrap_or_default();
    let (base, query) = match without_fragment.split_once('?') {
        Some((b, q)) => (b, q),
        None => (without_fragment, ""),
    };
    let pairs = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty() && !v.contains('{'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let base = if base.is_empty() { "/" } else { base };
    (base.to_string(), pairs)
}

/// The `{name}` placeholders of an OpenAPI path.
fn placeholders(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        out.push(after[..close].to_string());
        rest = &after[close + 1..];
    }
    out
}

/// A `meta.searchHint`: the summary's words, or the name's and the path's.
fn hint_of(summary: &str, name: &str, path: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut spaced = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            spaced.push(' ');
        }
        spaced.push(c.to_ascii_lowercase());
    }
    let source = format!(
        "{summary} {spaced} {}",
        path.replace(['/', '{', '}', '-', '_'], " ")
    );
    for w in source.split(|c: char| !c.is_alphanumeric()) {
        let w = w.to_lowercase();
        if w.len() > 2 && !words.contains(&w) {
            words.push(w);
        }
        if words.len() == 8 {
            break;
        }
    }
    if words.is_empty() {
        name.to_string()
    } else {
        words.join(" ")
    }
}

/// The operation's and its path item's parameters (the operation's win by name and place).
fn raw_params(ctx: &Ctx<'_>, item: &Value, op: &Value) -> Result<Vec<Raw>, Skip> {
    let mut all: Vec<Value> = Vec::new();
    for list in [item.get("parameters"), op.get("parameters")] {
        if let Some(Value::Array(ps)) = list {
            for p in ps {
                let key = (p.get("name").cloned(), p.get("in").cloned());
                all.retain(|q| (q.get("name").cloned(), q.get("in").cloned()) != key);
                all.push(p.clone());
            }
        }
    }
    let mut out = Vec::new();
    for p in all {
        if p.get(doc::CYCLE_MARK).is_some() {
            return Err(Skip::Failed("a parameter is a reference cycle".to_string()));
        }
        let name = p
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let location = p
            .get("in")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if name.is_empty() || location.is_empty() {
            return Err(Skip::Failed(
                "a parameter has no `name` or no `in`".to_string(),
            ));
        }
        let description = p
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        let required = location == "path" || p.get("required") == Some(&Value::Bool(true));
        let mut notes = Vec::new();
        let mut examples = Vec::new();
        if ctx.version == Version::Swagger2 && location == "body" {
            // The whole body: its object members become body parameters.
            let schema = merged(p.get("schema").unwrap_or(&Value::Null));
            out.extend(members(&schema, required, "the body", &mut notes)?);
            if let Some(first) = out.first_mut() {
                first.notes.extend(notes);
            }
            continue;
        }
        let schema = match ctx.version {
            Version::Swagger2 => {
                let mut s = p.clone();
                if let Value::Object(m) = &mut s {
                    for k in ["name", "in", "required", "description"] {
                        m.remove(k);
                    }
                }
                if let Some(Value::String(f)) = p.get("collectionFormat")
                    && f != "csv"
                {
                    notes.push((
                        ReviewKind::Parameter,
                        format!("the API wants the array as {f:?}; check how it is sent"),
                    ));
                }
                s
            }
            _ => match (p.get("schema"), p.get("content")) {
                (Some(s), _) => s.clone(),
                (None, Some(Value::Object(content))) => {
                    notes.push((
                        ReviewKind::Parameter,
                        "the parameter is described by `content`; its first media type is used"
                            .to_string(),
                    ));
                    content
                        .values()
                        .next()
                        .and_then(|m| m.get("schema"))
                        .cloned()
                        .unwrap_or(Value::Null)
                }
                _ => Value::Null,
            },
        };
        for key in ["x-example", "example"] {
            if let Some(v) = p.get(key) {
                examples.push(v.clone());
            }
        }
        if let Some(Value::Object(named)) = p.get("examples") {
            examples.extend(named.values().filter_map(|e| e.get("value")).cloned());
        }
        out.push(Raw {
            name,
            location,
            required,
            description,
            schema,
            examples,
            notes,
        });
    }
    Ok(out)
}

/// An object schema's members as body parameters.
fn members(
    schema: &Value,
    required: bool,
    what: &str,
    notes: &mut Notes,
) -> Result<Vec<Raw>, Skip> {
    if schema.is_null() {
        return Ok(Vec::new());
    }
    let ty = type_of(schema);
    let props = match schema.get("properties") {
        Some(Value::Object(p)) if ty.as_deref().is_none_or(|t| t == "object") => p,
        _ => {
            let shape = ty.unwrap_or_else(|| "free-form".to_string());
            if required {
                return Err(Skip::Dropped(format!(
                    "{what} is required and is {shape}, not an object with members (body parameters are members)"
                )));
            }
            notes.push((
                ReviewKind::Parameter,
                format!(
                    "{what} is {shape}, not an object with members; it is left out (it is optional)"
                ),
            ));
            return Ok(Vec::new());
        }
    };
    let needed: Vec<&str> = match schema.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if schema
        .get("additionalProperties")
        .is_some_and(|a| a != &Value::Bool(false))
    {
        notes.push((
            ReviewKind::Parameter,
            format!("{what} takes more members than it names; only the named ones are parameters"),
        ));
    }
    if !required && !needed.is_empty() {
        notes.push((
            ReviewKind::Parameter,
            format!(
                "{what} is optional, but its members {} are required here: the request always sends the body",
                needed.join(", ")
            ),
        ));
    }
    let mut out = Vec::new();
    for (name, prop) in props {
        if prop.get("readOnly") == Some(&Value::Bool(true)) {
            continue;
        }
        let mut examples = Vec::new();
        if let Some(ex) = schema.get("example").and_then(|e| e.get(name)) {
            examples.push(ex.clone());
        }
        out.push(Raw {
            name: name.clone(),
            location: "body".into(),
            // An optional body's required members are required too: the request always carries
            // the body object, and the API checks its members whenever it is there.
            required: needed.contains(&name.as_str()),
            description: prop
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            schema: prop.clone(),
            examples,
            notes: Vec::new(),
        });
    }
    Ok(out)
}

/// OpenAPI 3's `requestBody` as body parameters.
fn body_params(
    ctx: &Ctx<'_>,
    op: &Value,
    method: &str,
    notes: &mut Notes,
) -> Result<Vec<Raw>, Skip> {
    let Some(body) = op.get("requestBody") else {
        return Ok(Vec::new());
    };
    let required = body.get("required") == Some(&Value::Bool(true));
    if !matches!(method, "post" | "put") {
        if required {
            return Err(Skip::Dropped(format!(
                "{} with a required body (the format sends bodies with POST and PUT only)",
                method.to_uppercase()
            )));
        }
        notes.push((
            ReviewKind::Parameter,
            format!(
                "{} takes no body here; the optional body is left out",
                method.to_uppercase()
            ),
        ));
        return Ok(Vec::new());
    }
    let Some(Value::Object(content)) = body.get("content") else {
        return Ok(Vec::new());
    };
    let _ = ctx;
    let Some((_, media)) = content.iter().find(|(m, _)| is_json(m)) else {
        // Form data, XML, files: the format sends JSON bodies only (chapter 02).
        let mimes: Vec<&str> = content.keys().map(String::as_str).collect();
        if mimes.is_empty() {
            return Ok(Vec::new());
        }
        if required {
            return Err(Skip::Dropped(format!(
                "the body is {} only, and the format sends JSON bodies",
                mimes.join(" or ")
            )));
        }
        notes.push((
            ReviewKind::Parameter,
            format!(
                "the optional body is {} only, which the format cannot send; it is left out",
                mimes.join(" or ")
            ),
        ));
        return Ok(Vec::new());
    };
    let schema = merged(media.get("schema").unwrap_or(&Value::Null));
    let mut own = Vec::new();
    let mut raws = members(&schema, required, "the body", &mut own)?;
    if let Some(ex) = media.get("example") {
        for r in &mut raws {
            if let Some(v) = ex.get(&r.name) {
                r.examples.push(v.clone());
            }
        }
    }
    if let Some(Value::Object(named)) = media.get("examples") {
        for e in named.values().filter_map(|e| e.get("value")) {
            for r in &mut raws {
                if let Some(v) = e.get(&r.name) {
                    r.examples.push(v.clone());
                }
            }
        }
    }
    notes.extend(own);
    Ok(raws)
}

fn is_json(mime: &str) -> bool {
    let m = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    m == "application/json" || m.ends_with("+json") || m == "*/*" || m == "application/*"
}

/// A header parameter: a fixed value into the tool's headers when the document gives one; a
/// required one without a value from a server parameter (the header and its server parameter's
/// name are returned); else a note (header values cannot be user parameters).
fn header_param(
    ctx: &Ctx<'_>,
    raw: &Raw,
    headers: &mut Vec<(String, String)>,
    notes: &mut Notes,
) -> Option<(String, String)> {
    let lower = raw.name.to_ascii_lowercase();
    if matches!(lower.as_str(), "accept" | "content-type")
        || (lower == "authorization" && !raw.required)
    {
        // OpenAPI ignores these as parameters; security schemes set Authorization.
        return None;
    }
    if lower == "authorization" {
        // A required Authorization parameter is ignored by OpenAPI's letter, but it says the API
        // wants credentials the document forgot to declare as a security scheme: they come from a
        // server parameter (never from an example token), unless a scheme sets the header.
        return Some(header_from_server_param(
            ctx,
            raw,
            headers,
            notes,
            ReviewKind::Security,
            |key| {
                format!(
                    "the document declares a required {:?} header parameter outside its security schemes (OpenAPI ignores such a parameter); it is sent from the server parameter {key}, unless a security scheme sets it",
                    raw.name
                )
            },
        ));
    }
    let schema = merged(&raw.schema);
    let (fixed, what) = match schema.get("enum") {
        Some(Value::Array(vs)) if vs.len() == 1 => (vs.first().cloned(), "its only value"),
        _ => match schema.get("default") {
            Some(d) => (Some(d.clone()), "its default"),
            // A required header without either: its example, so that requests are complete.
            None => (
                raw.examples
                    .first()
                    .or_else(|| schema.get("example"))
                    .cloned(),
                "the document's example; check that every request may send it",
            ),
        },
    };
    match (raw.required, fixed.as_ref().and_then(zmap::scalar_text)) {
        (true, Some(v)) => {
            notes.push((
                ReviewKind::Parameter,
                format!(
                    "the required header {:?} is sent as {v:?} ({what})",
                    raw.name
                ),
            ));
            headers.push((raw.name.clone(), v));
            None
        }
        (true, None) => {
            // Required without a value (often a key the document forgot to declare as a
            // security scheme): a request without it is refused, and only a server parameter
            // can vary a header.
            Some(header_from_server_param(
                ctx,
                raw,
                headers,
                notes,
                ReviewKind::Parameter,
                |key| {
                    format!(
                        "the required header {:?} has no value in the document; it is sent from the server parameter {key}",
                        raw.name
                    )
                },
            ))
        }
        (required, _) => {
            notes.push((
                ReviewKind::Parameter,
                format!(
                    "the header parameter {:?} cannot be a user parameter; it is left out{}",
                    raw.name,
                    if required {
                        " (the API requires it)"
                    } else {
                        ""
                    }
                ),
            ));
            None
        }
    }
}

/// A required header sent from a server parameter named after the namespace and the header, with
/// the line `note` writes for that parameter; the (header, parameter) pair for the caller.
fn header_from_server_param(
    ctx: &Ctx<'_>,
    raw: &Raw,
    headers: &mut Vec<(String, String)>,
    notes: &mut Notes,
    kind: ReviewKind,
    note: impl FnOnce(&str) -> String,
) -> (String, String) {
    let key = server_param(&ctx.namespace, &raw.name);
    notes.push((kind, note(&key)));
    headers.push((raw.name.clone(), format!("{{{{SERVER_PARAM:{key}}}}}")));
    (raw.name.clone(), key)
}

/// The security of an operation (its own, else the document's): headers and query parameters
/// with `{{SERVER_PARAM:…}}`, and the server parameters they need.
fn security(
    ctx: &Ctx<'_>,
    op: &Value,
    tool: &str,
    headers: &mut Vec<(String, String)>,
    params: &mut Vec<Param>,
    notes: &mut Notes,
) -> Vec<String> {
    let _ = tool;
    let requirement = op.get("security").or(ctx.global_security.as_ref());
    let Some(Value::Array(alternatives)) = requirement else {
        return Vec::new();
    };
    if alternatives.is_empty() {
        return Vec::new();
    }
    let names = |alt: &Value| -> Vec<String> {
        alt.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    if alternatives.iter().any(|a| names(a).is_empty()) {
        let others: Vec<String> = alternatives.iter().flat_map(names).collect();
        if !others.is_empty() {
            notes.push((
                ReviewKind::Security,
                format!(
                    "security is optional here; no credentials are sent (the document also allows {})",
                    others.join(", ")
                ),
            ));
        }
        return Vec::new();
    }
    if alternatives.len() > 1 {
        let shown: Vec<String> = alternatives.iter().map(|a| names(a).join(" + ")).collect();
        notes.push((
            ReviewKind::Security,
            format!(
                "the document allows {} ways to authenticate ({}); the first is used",
                alternatives.len(),
                shown.join(", ")
            ),
        ));
    }
    let mut used = Vec::new();
    for name in names(&alternatives[0]) {
        let Some(scheme) = ctx.schemes.get(&name) else {
            notes.push((
                ReviewKind::Security,
                format!("the security scheme {name:?} is not defined in the document; no credentials are sent"),
            ));
            continue;
        };
        let key = server_param(&ctx.namespace, &name);
        let placeholder = format!("{{{{SERVER_PARAM:{key}}}}}");
        let s = &scheme.value;
        let ty = s.get("type").and_then(Value::as_str).unwrap_or_default();
        let http_scheme = s
            .get("scheme")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase();
        match ty {
            "apiKey" => {
                let param = s.get("name").and_then(Value::as_str).unwrap_or("api_key");
                match s.get("in").and_then(Value::as_str).unwrap_or("header") {
                    "query" => {
                        params.retain(|p| !(p.location == "query" && p.key == param));
                        params.insert(0, Param::fixed_query(param.to_string(), placeholder));
                    }
                    "cookie" => {
                        notes.push((
                            ReviewKind::Security,
                            format!(
                                "the API key {name:?} is a cookie; it is sent in a Cookie header"
                            ),
                        ));
                        headers.push(("Cookie".into(), format!("{param}={placeholder}")));
                    }
                    _ => headers.push((param.to_string(), placeholder)),
                }
            }
            "http" if http_scheme == "bearer" => {
                headers.push(("Authorization".into(), format!("Bearer {placeholder}")));
            }
            "basic" | "http" if ty == "basic" || http_scheme == "basic" => {
                notes.push((
                    ReviewKind::Security,
                    format!("{key} holds the base64 of user:password (HTTP basic)"),
                ));
                headers.push(("Authorization".into(), format!("Basic {placeholder}")));
            }
            "oauth2" | "openIdConnect" => {
                let flows: Vec<String> = match (s.get("flows"), s.get("flow")) {
                    (Some(Value::Object(f)), _) => f.keys().cloned().collect(),
                    (_, Some(Value::String(f))) => vec![f.clone()],
                    _ => Vec::new(),
                };
                let how = if ty == "oauth2" {
                    format!(
                        "OAuth2 flow {}",
                        if flows.is_empty() {
                            "unknown".to_string()
                        } else {
                            flows.join(", ")
                        }
                    )
                } else {
                    "OpenID Connect".to_string()
                };
                notes.push((
                    ReviewKind::Security,
                    format!("{name:?} is {how}; {key} must hold an access token obtained outside flowmcp-rs"),
                ));
                headers.push(("Authorization".into(), format!("Bearer {placeholder}")));
            }
            other => {
                notes.push((
                    ReviewKind::Security,
                    format!("the security scheme {name:?} ({other} {http_scheme}) cannot be written; no credentials are sent"),
                ));
                continue;
            }
        }
        used.push(key);
    }
    used
}

/// A server parameter's name: the namespace's and the scheme's words in upper case.
fn server_param(namespace: &str, scheme: &str) -> String {
    let mut out = String::new();
    let mut lower_before = false;
    for c in format!("{namespace}_{scheme}").chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && lower_before {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
            lower_before = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') {
                out.push('_');
            }
            lower_before = false;
        }
    }
    out.trim_end_matches('_').to_string()
}

/// The values a parameter's tests may use: examples, the default and the enum's values, each
/// as the `z` block takes it and following the schema's `format` and `pattern` (strings, and
/// an array's string items); the notes name the document's values that break them.
fn samples(raw: &Raw, primitive: &str, options: &[String]) -> (Vec<Value>, Notes) {
    let schema = merged(&raw.schema);
    let items = schema.get("items").map(merged);
    let mut candidates = raw.examples.clone();
    for key in ["x-example", "example"] {
        if let Some(v) = schema.get(key) {
            candidates.push(v.clone());
        }
    }
    if let Some(Value::Array(vs)) = schema.get("examples") {
        candidates.extend(vs.iter().cloned());
    }
    if let Some(d) = schema.get("default") {
        candidates.push(d.clone());
    }
    if let Some(Value::Array(vs)) = schema.get("enum") {
        candidates.extend(vs.iter().cloned());
    }
    if primitive == "array()"
        && let Some(items) = schema.get("items").map(merged)
    {
        for key in ["example", "default"] {
            if let Some(v) = items.get(key) {
                candidates.push(json!([v]));
            }
        }
        if let Some(Value::Array(vs)) = items.get("enum")
            && let Some(first) = vs.first()
        {
            candidates.push(json!([first]));
        }
    }
    let mut out: Vec<Value> = Vec::new();
    let mut broken: Vec<String> = Vec::new();
    for c in candidates {
        let c = coerce(c, primitive);
        if c.is_null() || !accepts(primitive, options, &c) || out.contains(&c) {
            continue;
        }
        // An enum's own values stay (the `z` block allows nothing else, and a test needs one).
        let fits = match &c {
            Value::String(_) if primitive.starts_with("enum(") => true,
            Value::String(text) => breaks(&schema, text).is_none(),
            Value::Array(vs) => items.as_ref().is_none_or(|it| {
                vs.iter()
                    .all(|v| v.as_str().is_none_or(|t| breaks(it, t).is_none()))
            }),
            _ => true,
        };
        if fits {
            out.push(c);
        } else if broken.len() < 3 {
            broken.push(one_line(&c.to_string()));
        }
    }
    let mut notes = Notes::new();
    if !broken.is_empty() {
        notes.push((
            ReviewKind::Test,
            format!(
                "the document's value {} breaks its own format or pattern; the tests do not use it",
                broken.join(", ")
            ),
        ));
    }
    (out, notes)
}

/// What of a string schema's `format` and `pattern` `text` breaks (`None`: nothing, or a
/// pattern this crate cannot read).
fn breaks(schema: &Value, text: &str) -> Option<&'static str> {
    if let Some(Value::String(f)) = schema.get("format")
        && !shape::format_ok(f, text)
    {
        return Some("format");
    }
    if let Some(Value::String(p)) = schema.get("pattern")
        && shape::pattern_ok(p, text) == Some(false)
    {
        return Some("pattern");
    }
    None
}

/// A sample in the type the primitive wants (`"42"` for a number is 42).
fn coerce(v: Value, primitive: &str) -> Value {
    match (&v, primitive) {
        (Value::String(s), "number()") => s
            .parse::<f64>()
            .ok()
            .and_then(flowmcp_spec::js::number_value)
            .unwrap_or(v),
        (Value::String(s), "boolean()") => match s.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => v,
        },
        (Value::Number(_) | Value::Bool(_), p) if p.starts_with("enum(") || p == "string()" => {
            Value::String(v.to_string())
        }
        (Value::String(_) | Value::Number(_) | Value::Bool(_), "array()") => json!([v]),
        _ => v,
    }
}

/// The longest string or array made up for a test (a document may ask for any length).
const MADE_UP_MAX: usize = 4096;

/// A made-up value that passes the `z` block, for a required parameter without samples.
fn made_up(p: &Param, i: usize) -> Option<Value> {
    let bound = |name: &str| -> Option<f64> {
        p.options.iter().find_map(|o| {
            o.strip_prefix(&format!("{name}("))
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|n| n.parse::<f64>().ok())
        })
    };
    let candidates: Vec<Value> = match p.primitive.as_str() {
        "number()" => {
            let n = bound("min")
                .unwrap_or(1.0)
                .max(bound("min").unwrap_or(f64::MIN));
            let n = match bound("max") {
                Some(max) if n > max => max,
                _ => n,
            };
            vec![flowmcp_spec::js::number_value(n).unwrap_or(json!(1))]
        }
        "boolean()" => vec![Value::Bool(i.is_multiple_of(2))],
        // An object with its required members, an array of made-up items (mocks and APIs check
        // what is inside), else the simplest value.
        "object()" => {
            let mut budget = MADE_UP_NODES;
            made_up_json(&p.schema, 0, &mut budget)
                .into_iter()
                .chain([json!({})])
                .collect()
        }
        "array()" => {
            let n = bound("length").unwrap_or(1.0) as usize;
            if n > MADE_UP_MAX {
                return None;
            }
            let mut budget = MADE_UP_NODES;
            made_up_json(&p.schema, 0, &mut budget)
                .filter(|v| v.as_array().is_some_and(|a| a.len() == n) || bound("length").is_none())
                .into_iter()
                .chain([Value::Array(vec![json!("example"); n])])
                .collect()
        }
        _ => {
            let low = bound("min").map_or(0, |n| n as usize);
            let high = bound("max").map_or(MADE_UP_MAX, |n| n as usize);
            let (low, high) = match bound("length") {
                Some(n) => (n as usize, n as usize),
                None => (low, high),
            };
            // A value of the string's pattern, which must also have its format.
            if let Some(pattern) = &p.pattern {
                let made = shape::from_pattern(pattern, low, high.min(MADE_UP_MAX))
                    .map(Value::String)
                    .filter(|v| {
                        accepts(&p.primitive, &p.options, v)
                            && v.as_str().is_some_and(|t| {
                                p.format.as_deref().is_none_or(|f| shape::format_ok(f, t))
                            })
                    });
                if made.is_some() {
                    return made;
                }
            }
            // A value of the string's format, when it has a well-known one.
            let formatted = match p.format.as_deref() {
                Some("date") => Some("2024-01-31"),
                Some("date-time") => Some("2024-01-31T12:00:00Z"),
                Some("time") => Some("12:00:00"),
                Some("email") => Some("user@example.com"),
                Some("uuid") => Some("123e4567-e89b-42d3-a456-426614174000"),
                Some("uri" | "url") => Some("https://example.com/"),
                Some("hostname") => Some("example.com"),
                Some("ipv4") => Some("192.0.2.1"),
                Some("ipv6") => Some("2001:db8::1"),
                _ => None,
            };
            if let Some(v) = formatted
                && accepts(&p.primitive, &p.options, &json!(v))
            {
                return Some(json!(v));
            }
            // `length`, else 7 characters within `min` and `max`.
            let len = 7usize.max(low).min(high);
            if len > MADE_UP_MAX {
                return None;
            }
            let mut s = "example".repeat(len / 7 + 1);
            s.truncate(len.max(1));
            vec![Value::String(s)]
        }
    };
    candidates
        .into_iter()
        .find(|c| accepts(&p.primitive, &p.options, c))
}

/// At most this many values in one made-up object or array.
const MADE_UP_NODES: usize = 200;

/// A value of a JSON Schema made up for a test: objects with their required members, arrays
/// with `minItems` (at least one) items, strings of the enum, pattern, format or lengths,
/// numbers within the bounds. `None` when it cannot be made (too deep or large, a pattern
/// beyond the generator).
fn made_up_json(schema: &Value, depth: usize, budget: &mut usize) -> Option<Value> {
    if depth > 6 || *budget == 0 {
        return None;
    }
    *budget -= 1;
    let schema = merged(schema);
    if let Some(Value::Array(vs)) = schema.get("enum") {
        return vs.iter().find(|v| !v.is_null()).cloned();
    }
    for key in ["example", "default"] {
        if let Some(v) = schema.get(key)
            && !v.is_null()
            && !v.is_object()
            && !v.is_array()
            && v.as_str().is_none_or(|t| breaks(&schema, t).is_none())
        {
            return Some(v.clone());
        }
    }
    let size = |key: &str| schema.get(key).and_then(Value::as_u64).map(|n| n as usize);
    let ty = type_of(&schema).or_else(|| {
        schema
            .get("properties")
            .is_some()
            .then(|| "object".to_string())
    });
    match ty.as_deref() {
        Some("object") => {
            let mut out = Map::new();
            if let (Some(Value::Object(props)), Some(Value::Array(needed))) =
                (schema.get("properties"), schema.get("required"))
            {
                for name in needed.iter().filter_map(Value::as_str) {
                    let member = props.get(name).cloned().unwrap_or(Value::Null);
                    out.insert(name.to_string(), made_up_json(&member, depth + 1, budget)?);
                }
            }
            Some(Value::Object(out))
        }
        Some("array") => {
            let n = size("minItems").unwrap_or(1).max(1);
            if n > 16 {
                return None;
            }
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let mut out = Vec::new();
            for _ in 0..n {
                out.push(made_up_json(&items, depth + 1, budget)?);
            }
            Some(Value::Array(out))
        }
        Some("integer" | "number") => {
            let low = schema.get("minimum").and_then(Value::as_f64).unwrap_or(1.0);
            let high = schema
                .get("maximum")
                .and_then(Value::as_f64)
                .unwrap_or(f64::MAX);
            flowmcp_spec::js::number_value(low.ceil().min(high.floor()))
        }
        Some("boolean") => Some(Value::Bool(true)),
        _ => {
            let low = size("minLength").unwrap_or(0);
            let high = size("maxLength").unwrap_or(MADE_UP_MAX).min(MADE_UP_MAX);
            if let Some(Value::String(pattern)) = schema.get("pattern") {
                return shape::from_pattern(pattern, low, high).map(Value::String);
            }
            let formatted = match schema.get("format").and_then(Value::as_str) {
                Some("date") => Some("2024-01-31"),
                Some("date-time") => Some("2024-01-31T12:00:00Z"),
                Some("email") => Some("user@example.com"),
                Some("uuid") => Some("123e4567-e89b-42d3-a456-426614174000"),
                Some("uri" | "url") => Some("https://example.com/"),
                _ => None,
            };
            if let Some(v) = formatted.filter(|v| (low..=high).contains(&v.len())) {
                return Some(json!(v));
            }
            let len = 7usize.max(low).min(high);
            if len > MADE_UP_MAX || len < low {
                return None;
            }
            let mut s = "example".repeat(len / 7 + 1);
            s.truncate(len);
            Some(Value::String(s))
        }
    }
}

/// Three tests: the first with the required parameters, the others with optional ones too,
/// each value taken in turn from the samples; made-up values are noted.
fn tests_of(op: &Value, params: &[Param]) -> (Vec<Value>, Notes) {
    let mut notes = Vec::new();
    let summary = op
        .get("summary")
        .and_then(Value::as_str)
        .map(one_line)
        .unwrap_or_default();
    let user: Vec<&Param> = params
        .iter()
        .filter(|p| p.value == "{{USER_PARAM}}")
        .collect();
    let mut made = BTreeSet::new();
    let mut tests = Vec::new();
    for i in 0..TESTS {
        let mut t = Map::new();
        let what = match i {
            0 if user.iter().any(|p| !p.required) => "required parameters only",
            0 => "example values",
            1 => "with the optional parameters the document gives examples for",
            _ => "other example values",
        };
        let d = if summary.is_empty() {
            format!("Test {}: {what}", i + 1)
        } else {
            format!("{summary} ({what})")
        };
        t.insert("_description".into(), Value::String(d));
        for p in &user {
            let value = if !p.samples.is_empty() {
                if p.required || i > 0 {
                    p.samples.get(i % p.samples.len()).cloned()
                } else {
                    None
                }
            } else if p.required {
                made.insert(p.key.clone());
                made_up(p, i)
            } else {
                None
            };
            if let Some(v) = value {
                t.insert(p.key.clone(), v);
            }
        }
        tests.push(Value::Object(t));
    }
    for key in made {
        let unfollowed = user.iter().find(|p| p.key == key).and_then(|p| {
            let pattern = p.pattern.as_ref()?;
            let v = tests.first()?.get(&key)?.as_str()?;
            (shape::pattern_ok(pattern, v) != Some(true)).then(|| one_line(pattern))
        });
        notes.push((
            ReviewKind::Test,
            match unfollowed {
                Some(pattern) => format!(
                    "the document gives no example for {key:?}; the tests' value is made up and does not follow its pattern {pattern} (give one that does)"
                ),
                None => format!(
                    "the document gives no example for {key:?}; the tests' value is made up"
                ),
            },
        ));
    }
    (tests, notes)
}

/// The output schema of the first JSON 2xx response.
fn output_of(ctx: &Ctx<'_>, op: &Value) -> (Option<Value>, Notes) {
    let mut notes = Vec::new();
    let Some(Value::Object(responses)) = op.get("responses") else {
        return (None, notes);
    };
    let mut codes: Vec<&String> = responses.keys().filter(|c| c.starts_with('2')).collect();
    codes.sort_by_key(|c| (c.eq_ignore_ascii_case("2XX"), c.to_string()));
    for code in codes {
        let response = &responses[code.as_str()];
        let schema = match ctx.version {
            Version::Swagger2 => {
                let produces: Vec<String> = match op.get("produces") {
                    Some(Value::Array(p)) => p
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    _ => ctx.produces.clone(),
                };
                let _ = &ctx.consumes;
                if !produces.is_empty() && !produces.iter().any(|m| is_json(m)) {
                    continue;
                }
                response.get("schema").cloned()
            }
            _ => match response.get("content") {
                Some(Value::Object(content)) => content
                    .iter()
                    .find(|(m, _)| is_json(m))
                    .and_then(|(_, media)| media.get("schema"))
                    .cloned(),
                _ => None,
            },
        };
        let Some(schema) = schema else { continue };
        let mut lossy = false;
        let Some(out) = zmap::output_schema(&schema, 1, &mut lossy) else {
            notes.push((
                ReviewKind::Output,
                format!("the {code} response's schema has no type; no output schema is written"),
            ));
            return (None, notes);
        };
        let root_type = out.get("type").and_then(Value::as_str).unwrap_or_default();
        if root_type != "object" && root_type != "array" {
            notes.push((
                ReviewKind::Output,
                format!("the {code} response is a JSON {root_type}; output schemas describe objects and arrays"),
            ));
            return (None, notes);
        }
        if lossy {
            notes.push((
                ReviewKind::Output,
                format!("the {code} response's schema is deeper or richer than the output subset; parts are left out"),
            ));
        }
        let mut output = Map::new();
        output.insert("mimeType".into(), json!("application/json"));
        if let Some(Value::String(d)) = response.get("description") {
            let d = one_line(&strip_tags(d));
            if !d.is_empty() {
                output.insert("description".into(), Value::String(d));
            }
        }
        output.insert("schema".into(), out);
        return (Some(Value::Object(output)), notes);
    }
    (None, notes)
}

/// The version of the shared lists the import drafts.
const LIST_VERSION: &str = "1.0.0";
/// The field of a drafted shared list that holds the values.
const LIST_FIELD: &str = "value";

/// The shared list an `enum({{list:value}})` primitive names.
fn list_of(primitive: &str) -> Option<String> {
    let inner = primitive.strip_prefix("enum({{")?.strip_suffix("}})")?;
    let (name, field) = inner.split_once(':')?;
    (field == LIST_FIELD).then(|| name.to_string())
}

/// Enums whose exact values several parameters of the document share become shared lists
/// (chapter 03): each is drafted as `_lists/<name>.mjs`, and its parameters read it as
/// `enum({{name:value}})` (D121).
fn share_enums(ctx: &Ctx<'_>, short: &str, tools: &mut [Tool]) -> Vec<DraftFile> {
    let mut uses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in tools.iter() {
        for p in &t.params {
            if p.value == "{{USER_PARAM}}"
                && p.primitive.starts_with("enum(")
                && p.primitive.contains(',')
            {
                uses.entry(p.primitive.clone())
                    .or_default()
                    .push(p.key.clone());
            }
        }
    }
    // The validator asks that an inline enum whose values are all in a shared list it sees use
    // that list (VAL107), which would widen the check: a list is made only when no enum that
    // stays inline is part of it.
    let items_of = |p: &str| -> BTreeSet<String> {
        p.strip_prefix("enum(")
            .and_then(|r| r.strip_suffix(')'))
            .map(|i| i.split(',').map(str::to_string).collect())
            .unwrap_or_default()
    };
    let mut inline: BTreeSet<String> = BTreeSet::new();
    for t in tools.iter() {
        for p in &t.params {
            if p.primitive.starts_with("enum(") && !p.primitive.contains("{{") {
                inline.insert(p.primitive.clone());
            }
        }
    }
    let mut shared: BTreeSet<String> = uses
        .iter()
        .filter(|(_, keys)| keys.len() >= 2)
        .map(|(p, _)| p.clone())
        .collect();
    loop {
        let staying: Vec<BTreeSet<String>> = inline
            .iter()
            .filter(|p| !shared.contains(*p))
            .map(|p| items_of(p))
            .collect();
        let before = shared.len();
        shared.retain(|p| {
            let set = items_of(p);
            !staying.iter().any(|e| e.is_subset(&set))
        });
        if shared.len() == before {
            break;
        }
    }
    let mut files = Vec::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    for (primitive, keys) in uses {
        if !shared.contains(&primitive) {
            continue;
        }
        let Some(items) = primitive
            .strip_prefix("enum(")
            .and_then(|r| r.strip_suffix(')'))
        else {
            continue;
        };
        // The key most parameters have names the list.
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for k in &keys {
            *counts.entry(k.as_str()).or_insert(0) += 1;
        }
        let key = counts
            .iter()
            .max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k)))
            .map(|(k, _)| *k)
            .unwrap_or("values");
        let base = camel(&format!("{} {key}", ctx.namespace));
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        names.insert(name.clone());
        let entries: Vec<Value> = items.split(',').map(|v| json!({ LIST_FIELD: v })).collect();
        let mut text = format!(
            "// Drafted from the OpenAPI document {}: the values of an enum that {} parameters share\n// (`{key}`). Review the description and add fields the entries have in common.\n",
            one_line(short),
            keys.len()
        );
        text.push_str("export const list = {\n    meta: {\n");
        text.push_str(&format!("        name: {},\n", quote(&name)));
        text.push_str(&format!("        version: {},\n", quote(LIST_VERSION)));
        text.push_str(&format!(
            "        description: {},\n",
            quote(&format!("Values of `{key}` in the {} API", ctx.namespace))
        ));
        text.push_str(&format!(
            "        fields: [ {{ key: {}, type: 'string', description: {} }} ],\n",
            quote(LIST_FIELD),
            quote(&format!("A value of `{key}`"))
        ));
        text.push_str("        dependsOn: []\n    },\n");
        text.push_str(&format!(
            "    entries: {}\n}}\n",
            literal(&json!(entries), 1)
        ));
        files.push(DraftFile {
            name: format!("_lists/{name}.mjs"),
            text,
            tools: Vec::new(),
            reviews: Vec::new(),
        });
        renamed.insert(primitive, format!("enum({{{{{name}:{LIST_FIELD}}}}})"));
    }
    for t in tools.iter_mut() {
        for p in &mut t.params {
            if let Some(to) = renamed.get(&p.primitive) {
                p.primitive = to.clone();
            }
        }
    }
    files
}

/// The tools grouped into files of at most 8 (by tag, then by path), each written out.
#[allow(clippy::too_many_arguments)]
fn files_of(
    ctx: &Ctx<'_>,
    short: &str,
    info: &Value,
    root_doc: &Value,
    root: &str,
    root_notes: &Notes,
    tools: Vec<Tool>,
) -> Result<Vec<DraftFile>, ImportError> {
    let mut groups: BTreeMap<Group, Vec<Tool>> = BTreeMap::new();
    for t in tools {
        groups.entry(t.group.clone()).or_default().push(t);
    }
    // Untagged tools are grouped by their path's first segment; segments with fewer than
    // MIN_GROUP tools share files (`api.mjs`, `api-2.mjs`, … in path order) instead of one file
    // each (D121).
    if groups.len() > 1 {
        let small: Vec<Group> = groups
            .iter()
            .filter(|(g, list)| g.tag.is_none() && list.len() < MIN_GROUP)
            .map(|(g, _)| g.clone())
            .collect();
        if small.len() > 1 {
            let pool = Group {
                slug: POOL.to_string(),
                tag: None,
            };
            let mut pooled = groups.remove(&pool).unwrap_or_default();
            for g in small {
                pooled.extend(groups.remove(&g).unwrap_or_default());
            }
            pooled.sort_by(|a, b| a.path.cmp(&b.path));
            groups.insert(pool, pooled);
        }
    }
    let mut chunks: Vec<(String, Group, Vec<Tool>)> = Vec::new();
    let mut names = BTreeSet::new();
    for (group, mut list) in groups {
        if list.len() > MAX_TOOLS {
            list.sort_by(|a, b| a.path.cmp(&b.path));
        }
        let mut k = 0;
        while !list.is_empty() {
            let rest = list.split_off(list.len().min(MAX_TOOLS));
            let mut name = if k == 0 {
                group.slug.clone()
            } else {
                format!("{}-{}", group.slug, k + 1)
            };
            while names.contains(&name) {
                name.push_str("-x");
            }
            names.insert(name.clone());
            chunks.push((name, group.clone(), list));
            list = rest;
            k += 1;
        }
    }
    let title = info
        .get("title")
        .and_then(Value::as_str)
        .map(one_line)
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| ctx.namespace.clone());
    let api_version = info
        .get("version")
        .and_then(Value::as_str)
        .map(one_line)
        .unwrap_or_default();
    let info_description = info
        .get("description")
        .and_then(Value::as_str)
        .map(one_line_long)
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| title.clone());
    let tag_defs: BTreeMap<String, Value> = match root_doc.get("tags") {
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| Some((t.get("name")?.as_str()?.to_string(), t.clone())))
            .collect(),
        _ => BTreeMap::new(),
    };
    let several = chunks.len() > 1;
    let mut files = Vec::new();
    for (stem, group, tools) in chunks {
        SchemaFileId::new(ctx.namespace.clone(), stem.clone()).map_err(|e| {
            ImportError::Namespace {
                document: ctx.document.clone(),
                namespace: ctx.namespace.clone(),
                reason: e.to_string(),
            }
        })?;
        let tag_def = group.tag.as_ref().and_then(|t| tag_defs.get(t));
        let name = match &group.tag {
            Some(t) if several => format!("{title} {}", one_line(t)),
            _ if several => format!("{title} {}", group.slug),
            _ => title.clone(),
        };
        let description = match tag_def
            .and_then(|t| t.get("description"))
            .and_then(Value::as_str)
        {
            Some(d) if !d.trim().is_empty() => one_line_long(&format!("{title}: {d}")),
            _ => info_description.clone(),
        };
        let mut docs: Vec<String> = Vec::new();
        for ext in [
            root_doc.get("externalDocs"),
            tag_def.and_then(|t| t.get("externalDocs")),
        ] {
            if let Some(url) = ext.and_then(|e| e.get("url")).and_then(Value::as_str)
                && (url.starts_with("https://") || url.starts_with("http://"))
                && !docs.contains(&url.to_string())
            {
                docs.push(url.to_string());
            }
        }
        let mut tags: Vec<String> = Vec::new();
        if let Some(t) = &group.tag {
            let s = slug(t);
            if !s.is_empty() {
                tags.push(s);
            }
        }
        let mut server_params: Vec<String> = Vec::new();
        for t in &tools {
            for k in &t.server_params {
                if !server_params.contains(k) {
                    server_params.push(k.clone());
                }
            }
        }
        let mut text = String::new();
        text.push_str(&format!(
            "// Drafted from the OpenAPI document {} ({title}{}). Each `// REVIEW:` line marks\n// something to check by hand before this file joins a catalog.\n",
            one_line(short),
            if api_version.is_empty() { String::new() } else { format!(", version {api_version}") }
        ));
        text.push_str("export const main = {\n");
        text.push_str(&format!("    namespace: {},\n", quote(&ctx.namespace)));
        text.push_str(&format!("    name: {},\n", quote(&name)));
        text.push_str(&format!("    description: {},\n", quote(&description)));
        text.push_str("    version: '4.2.0',\n");
        emit::reviews(&mut text, root_notes, 1);
        text.push_str(&format!("    root: {},\n", quote(root)));
        if !docs.is_empty() {
            text.push_str(&format!("    docs: {},\n", literal(&json!(docs), 1)));
        }
        if !tags.is_empty() {
            text.push_str(&format!("    tags: {},\n", literal(&json!(tags), 1)));
        }
        let mut shared: Vec<String> = Vec::new();
        for t in &tools {
            for p in &t.params {
                if let Some(name) = list_of(&p.primitive)
                    && !shared.contains(&name)
                {
                    shared.push(name);
                }
            }
        }
        if !shared.is_empty() {
            let refs: Vec<Value> = shared
                .iter()
                .map(|n| json!({ "ref": n, "version": LIST_VERSION }))
                .collect();
            text.push_str(&format!("    sharedLists: {},\n", literal(&json!(refs), 1)));
        }
        if !server_params.is_empty() {
            text.push_str(&format!(
                "    requiredServerParams: {},\n",
                literal(&json!(server_params), 1)
            ));
        }
        text.push_str("    tools: {\n");
        let mut reviews: Vec<Review> = root_notes
            .iter()
            .map(|(kind, text)| Review {
                kind: *kind,
                tool: None,
                text: text.clone(),
            })
            .collect();
        let count = tools.len();
        let mut names_out = Vec::new();
        for (i, t) in tools.into_iter().enumerate() {
            write_tool(&mut text, &t, &mut reviews);
            text.push_str(if i + 1 < count {
                "        },\n"
            } else {
                "        }\n"
            });
            names_out.push(t.name);
        }
        text.push_str("    }\n}\n");
        files.push(DraftFile {
            name: format!("{stem}.mjs"),
            text,
            tools: names_out,
            reviews,
        });
    }
    Ok(files)
}

fn write_tool(text: &mut String, t: &Tool, reviews: &mut Vec<Review>) {
    let mut record = |notes: &Notes| {
        for (kind, note) in notes {
            reviews.push(Review {
                kind: *kind,
                tool: Some(t.name.clone()),
                text: note.clone(),
            });
        }
    };
    record(&t.notes);
    for p in &t.params {
        record(&p.notes);
    }
    record(&t.test_notes);
    emit::reviews(text, &t.notes, 2);
    text.push_str(&format!("        {}: {{\n", t.name));
    text.push_str(&format!("            method: {},\n", quote(&t.method)));
    text.push_str(&format!("            path: {},\n", quote(&t.path)));
    text.push_str(&format!(
        "            description: {},\n",
        quote(&t.description)
    ));
    if !t.headers.is_empty() {
        let mut h = Map::new();
        for (k, v) in &t.headers {
            h.insert(k.clone(), Value::String(v.clone()));
        }
        text.push_str(&format!(
            "            headers: {},\n",
            literal(&Value::Object(h), 3)
        ));
    }
    if t.params.is_empty() {
        text.push_str("            parameters: [],\n");
    } else {
        text.push_str("            parameters: [\n");
        let n = t.params.len();
        for (i, p) in t.params.iter().enumerate() {
            emit::reviews(text, &p.notes, 4);
            let mut line = format!(
                "{{ position: {{ key: {}, value: {}, location: {} }}, z: {{ primitive: {}, options: {} }}",
                quote(&p.key),
                quote(&p.value),
                quote(p.location),
                quote(&p.primitive),
                literal(&json!(p.options), 0)
            );
            if let Some(d) = &p.description {
                line.push_str(&format!(", description: {}", quote(d)));
            }
            line.push_str(" }");
            text.push_str(&format!(
                "                {line}{}\n",
                if i + 1 < n { "," } else { "" }
            ));
        }
        text.push_str("            ],\n");
    }
    if let Some(o) = &t.output {
        text.push_str(&format!("            output: {},\n", literal(o, 3)));
    }
    emit::reviews(text, &t.test_notes, 3);
    text.push_str(&format!(
        "            tests: {},\n",
        literal(&json!(t.tests), 3)
    ));
    let meta = json!({
        "isReadOnly": t.read_only,
        "isConcurrencySafe": t.read_only,
        "isDestructive": t.destructive,
        "searchHint": t.hint,
        "aliases": [],
        "alwaysLoad": false
    });
    text.push_str(&format!("            meta: {}\n", literal(&meta, 3)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i41_names_are_camel_case_from_ids_or_method_and_path() {
        assert_eq!(camel("list_pets"), "listPets");
        assert_eq!(camel("GetUser"), "getUser");
        assert_eq!(camel("listPets"), "listPets");
        assert_eq!(camel("2fa-verify"), "op2faVerify");
        let mut taken = BTreeSet::new();
        let n = tool_name(&json!({}), "get", "/pets/{petId}/toys", &mut taken);
        assert_eq!(n, "getPetsByPetIdToys");
        let again = tool_name(&json!({}), "get", "/pets/{petId}/toys", &mut taken);
        assert_eq!(again, "getPetsByPetIdToys2");
    }

    #[test]
    fn i41_path_queries_become_fixed_parameters_and_fragments_go() {
        assert_eq!(
            split_path("/?Action=List&Version=2020&flag"),
            (
                "/".to_string(),
                vec![
                    ("Action".into(), "List".into()),
                    ("Version".into(), "2020".into())
                ]
            )
        );
        assert_eq!(
            split_path("/x/{id}/tags#keys"),
            ("/x/{id}/tags".to_string(), vec![])
        );
        let (base, fixed, templated) = split_path_templated("/rides?page={page}&per_page={n}&v=2");
        assert_eq!(base, "/rides");
        assert_eq!(fixed, [("v".to_string(), "2".to_string())]);
        assert_eq!(
            templated,
            [
                ("page".to_string(), "page".to_string()),
                ("n".to_string(), "per_page".to_string())
            ]
        );
        assert_eq!(
            strip_tags("<p>Hello <b>you</b></p>")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["Hello", "you"]
        );
        assert_eq!(strip_tags("a < b"), "a < b");
    }

    #[test]
    fn i41_made_up_values_stay_small_whatever_the_document_asks() {
        let p = |primitive: &str, options: &[&str]| Param {
            primitive: primitive.into(),
            options: options.iter().map(|o| o.to_string()).collect(),
            ..Param::fixed_query("k".into(), "{{USER_PARAM}}".into())
        };
        assert_eq!(
            made_up(&p("string()", &["length(3)"]), 0),
            Some(json!("exa"))
        );
        assert_eq!(made_up(&p("string()", &["max(2)"]), 0), Some(json!("ex")));
        assert_eq!(
            made_up(&p("string()", &["min(9)"]), 0),
            Some(json!("exampleex"))
        );
        assert_eq!(made_up(&p("string()", &["min(1000000000)"]), 0), None);
        let mut date = p("string()", &[]);
        date.format = Some("date".into());
        assert_eq!(made_up(&date, 0), Some(json!("2024-01-31")));
        assert_eq!(made_up(&p("array()", &["length(1000000000)"]), 0), None);
        assert_eq!(
            made_up(&p("number()", &["min(5)", "max(9)"]), 0),
            Some(json!(5))
        );
    }

    #[test]
    fn i41_namespace_comes_from_the_host() {
        assert_eq!(
            namespace_from(Some("api.openshelf.org"), &Value::Null),
            "openshelf-org"
        );
        assert_eq!(
            namespace_from(None, &json!({"title": "My Great API"})),
            "my-great-api"
        );
        assert_eq!(
            server_param("openshelf-org", "api_key"),
            "OPENSHELF_ORG_API_KEY"
        );
        assert_eq!(server_param("pets", "clinicKey"), "PETS_CLINIC_KEY");
    }
}
