//! Tool descriptors: everything a caller (CLI `call`, MCP `serve`, `search`) needs to know about a
//! tool, computed once from a validated [`SchemaMain`].
//!
//! * Primitive-ID `namespace/tool/name`; under `compat` a tool name that is not a valid ID name
//!   (VAL030, e.g. `'/block/:id'`) is sanitised: characters other than ASCII letters, digits and
//!   `-` are dropped, then leading non-letters (`tool` if nothing is left), with a warning.
//! * Wire name `<tool>_<namespace>` (MCP tool names cannot contain `/`; the form is the ID
//!   chapter's), at most [`WIRE_NAME_MAX`] characters; a longer name is cut and gets `_` + a
//!   6-hex-digit suffix (SHA-256 of the Primitive-ID), and [`assign_wire_names`] gives every member
//!   of a collision group such a suffix. With [`ToolNames::Reference`] the plain name is the
//!   JavaScript reference's instead ([`reference_tool_name`]); lengths and collisions are handled
//!   the same way.
//! * The input JSON Schema from the user parameters only.
//! * MCP annotations and `_meta` from `meta` (chapter 19): `readOnlyHint` from `isReadOnly`,
//!   `destructiveHint` from `isDestructive`, aliases as `_meta["flowmcp/aliases"]`.
//! * Exposure: the server parameters the tool needs and which of them are missing.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use flowmcp_spec::Profile;
use flowmcp_spec::id::{IdType, PrimitiveId};
use flowmcp_spec::model::{JsonText, SchemaMain, Tool, ToolMeta};
use flowmcp_spec::placeholder::{InterpolationKind, find_interpolations};
use flowmcp_spec::zod::{Primitive, ZOption, ZType};
use serde_json::{Map, Value, json};

use crate::request::RequestPlan;
use crate::secret::ServerParams;

/// Longest wire name (MCP tool-name limit).
pub const WIRE_NAME_MAX: usize = 64;

/// Hex digits of the disambiguating hash suffix.
pub(crate) const WIRE_HASH_LEN: usize = 6;

/// The JavaScript reference cuts its names to this many UTF-16 code units.
pub const REFERENCE_NAME_MAX: usize = 63;

/// How tools are named on the wire: MCP `tools/list`, `flowmcp list`, lookups by name. Primitive-IDs
/// are the same under both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ToolNames {
    /// Spec chapter 16: `<tool>_<namespace>` as written (`listPoliticians_abgeordnetenwatch`).
    #[default]
    Spec,
    /// The names the JavaScript reference (`flowmcp-core`) gives: see [`reference_tool_name`]
    /// (`list_politicians_abgeordnetenwatch`).
    Reference,
}

impl ToolNames {
    /// `spec` or `reference`, as the command line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolNames::Spec => "spec",
            ToolNames::Reference => "reference",
        }
    }

    /// The MCP name of the prompt or skill `id` (`namespace/prompt/name`): under
    /// [`ToolNames::Spec`] its Primitive-ID as text; under [`ToolNames::Reference`] the flat
    /// name a tool of that name and namespace would get ([`reference_tool_name`]:
    /// `test-simple` of `prompt` → `test_simple_prompt`), for clients whose prompt names cannot
    /// hold `/`. The caller resolves collisions.
    pub fn prompt_name(self, id: &PrimitiveId) -> String {
        match self {
            ToolNames::Spec => id.to_string(),
            ToolNames::Reference => reference_tool_name(&id.name, &id.namespace),
        }
    }
}

impl std::fmt::Display for ToolNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ToolNames {
    type Err = String;

    /// `spec` or `reference` (ASCII case ignored).
    fn from_str(s: &str) -> Result<ToolNames, String> {
        if s.eq_ignore_ascii_case("spec") {
            Ok(ToolNames::Spec)
        } else if s.eq_ignore_ascii_case("reference") {
            Ok(ToolNames::Reference)
        } else {
            Err(format!(
                "unknown tool naming `{s}`: expected `spec` or `reference`"
            ))
        }
    }
}

/// Resolves a shared-list interpolation `{{list:field}}` to its (already filtered) values.
pub(crate) type ListResolver<'a> = dyn Fn(&str, &str) -> Option<Vec<String>> + 'a;

/// Options for building descriptors.
#[derive(Clone, Copy, Default)]
#[non_exhaustive]
pub struct DescribeOptions<'a> {
    /// `spec` or `compat`.
    pub profile: Profile,
    /// Shared-list values for `enum({{list:field}})`; without it such parameters accept any
    /// string and the descriptor carries a warning.
    pub lists: Option<&'a ListResolver<'a>>,
}

/// Every server parameter `tool` needs: `main.requiredServerParams` (handlers may use any of them;
/// no other name is ever filled in).
pub(crate) fn required_server_params(main: &SchemaMain) -> Vec<String> {
    main.required_server_params.clone()
}

/// `{{SERVER_PARAM:KEY}}` placeholders of `tool` (root, path, headers, parameter values) whose `KEY`
/// the schema does not declare: they are sent as literal text.
fn undeclared_server_params(main: &SchemaMain, tool: &Tool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let texts = main
        .root
        .iter()
        .chain(std::iter::once(&tool.path))
        .chain(main.headers.values())
        .chain(tool.headers.values())
        .chain(tool.parameters.iter().map(|p| &p.position.value));
    for text in texts {
        for i in find_interpolations(text) {
            if let InterpolationKind::ServerParam(key) = InterpolationKind::of(&i.inner)
                && !main.required_server_params.iter().any(|k| k == key)
                && !out.iter().any(|k| k == key)
            {
                out.push(key.to_string());
            }
        }
    }
    out
}

/// One user-facing parameter of a tool, with its (list-resolved) type.
#[derive(Clone, Debug, PartialEq)]
pub struct UserParam {
    /// `position.key`: the input name (where a tool sends it is its request plan's to know).
    pub key: String,
    pub z: ZType,
    pub description: Option<String>,
    /// Under compat, for a parameter whose value is a bare undeclared placeholder (`{{CITY}}`):
    /// the placeholder's name, accepted as another input key (catalogs written for the reference
    /// give it so); `None` otherwise or when it equals `key`.
    pub alias: Option<String>,
}

/// What a callable entry of a toolset is: a tool, or a resource called like one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A tool of `main.tools`: an HTTP request, maybe with handlers.
    Tool,
    /// A query of a SQLite-backed resource (`sqlite`, `http`): one the schema defines, or the
    /// injected `runSql` / `describeTables` ([`Builtin`]).
    Query {
        /// The resource's key in `main.resources`.
        resource: String,
        /// Which injected query this is; `None` for a schema-defined one.
        builtin: Option<Builtin>,
    },
    /// A markdown resource: read whole, or by `section`, `lines` or `search`.
    Document {
        /// The resource's key in `main.resources`.
        resource: String,
    },
}

/// The queries the runtime adds to every SQLite-backed resource (chapter 13): the spec's
/// vocabulary, named here where the entries that run them are described.
pub use flowmcp_spec::model::Builtin;

/// Where the value for one `?` placeholder of a schema query comes from, decided when the
/// query's descriptor is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum QueryBinding {
    /// The caller's input of this key (its default when not given, `null` without one).
    User(String),
    /// This text, as written.
    Fixed(String),
}

/// A tool as callers see it. Contains no server-parameter values. Made only when a toolset is
/// built; its fields are for reading.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolDescriptor {
    /// The Primitive-ID of what the entry belongs to: `namespace/tool/name` (name sanitised under
    /// compat when needed); for a resource query or document, its resource's
    /// `namespace/resource/name` (what selections, agents and `--only` name).
    pub id: PrimitiveId,
    /// The entry's own ID: [`ToolDescriptor::id`] for a tool or a document; for a resource query
    /// `namespace/resource/<resource>-<query>` ([`PrimitiveId::query`]). It is what listings
    /// print, what `_meta["flowmcp/id"]` carries and what finds the entry besides its wire name.
    pub entry_id: PrimitiveId,
    /// The key in `main.tools`, as written; for a resource query, the query's name; for a
    /// markdown resource, the resource's key.
    pub tool: String,
    /// Whether this is a tool or a resource called like one.
    pub kind: Kind,
    pub namespace: String,
    /// `<tool>_<namespace>` (or the reference's name, [`ToolNames::Reference`]); see
    /// [`assign_wire_names`] for length and collisions.
    pub wire_name: String,
    pub description: String,
    /// User parameters in declaration order.
    pub params: Vec<UserParam>,
    /// JSON Schema of the input object.
    pub input_schema: Value,
    /// `tool.output.schema`, when present, as its JSON text ([`JsonText::value`] reads it).
    pub output_schema: Option<JsonText>,
    /// `tool.output.mimeType` (`application/json`, `image/png` or `text/plain`), when present:
    /// what kind of content the data is.
    pub output_mime_type: Option<String>,
    /// MCP `annotations` (`readOnlyHint`, `destructiveHint`), when the tool has `meta`.
    pub annotations: Option<Value>,
    /// MCP `_meta` (`anthropic/alwaysLoad`, `anthropic/searchHint`, `flowmcp/aliases`), when the
    /// tool has `meta`.
    pub meta: Option<Value>,
    /// The tool's `meta` as written (chapter 19), typed; `None` for a tool without one (allowed
    /// under `compat`) and for resource entries. Read it through
    /// [`ToolDescriptor::concurrency_safe`] and [`ToolDescriptor::always_load`].
    pub tool_meta: Option<ToolMeta>,
    /// Server parameters the tool needs (names only).
    pub required_server_params: Vec<String>,
    /// Those of them without a value; non-empty means the tool is not exposed.
    pub missing_server_params: Vec<String>,
    /// Notes for the user (sanitised name, unresolved lists, …).
    pub warnings: Vec<String>,
    /// A tool's request, compiled once (templates parsed, parameter roles decided); every call
    /// builds from it. `None` for resource entries.
    pub(crate) request: Option<Arc<RequestPlan>>,
    /// A resource query's values for its `?` placeholders, decided once; `None` for everything
    /// else.
    pub(crate) query: Option<Arc<[QueryBinding]>>,
}

impl ToolDescriptor {
    /// How listings show the entry: the tool's name, `resource.query` for a resource query (as
    /// the selections chapter prints it), the resource's name for a markdown resource.
    pub fn label(&self) -> String {
        match &self.kind {
            Kind::Query { resource, .. } => format!("{resource}.{}", self.tool),
            Kind::Tool | Kind::Document { .. } => self.tool.clone(),
        }
    }

    /// The name that finds the entry besides its wire name: its own ID
    /// ([`ToolDescriptor::entry_id`]) as text.
    pub fn lookup_key(&self) -> String {
        self.entry_id.to_string()
    }

    /// The text a resource query was found by before it had an ID of its own
    /// (`namespace/resource/<resource>.<query>`): still accepted by lookups, and the seed of the
    /// hash suffix of its wire name, so that MCP tool names do not change. `None` for other
    /// entries.
    pub fn legacy_query_key(&self) -> Option<String> {
        match &self.kind {
            Kind::Query { .. } => Some(flowmcp_spec::id::legacy_query_key(
                &self.id.to_string(),
                &self.tool,
            )),
            Kind::Tool | Kind::Document { .. } => None,
        }
    }

    /// The text the hash suffix of the wire name is made from: the legacy query key for a
    /// resource query, otherwise the ID.
    fn hash_key(&self) -> String {
        self.legacy_query_key()
            .unwrap_or_else(|| self.entry_id.to_string())
    }

    /// Whether the entry may run at the same time as other calls: what its `meta` says
    /// (`isConcurrencySafe`); an entry without `meta` (a tool under `compat`, a resource entry)
    /// is. The specification requires `meta` and gives no default; only an explicit
    /// `isConcurrencySafe: false` restricts, as the JavaScript reference (which `compat` serves)
    /// runs every call as it comes. The MCP server and the agent runner both ask this.
    pub fn concurrency_safe(&self) -> bool {
        self.tool_meta
            .as_ref()
            .is_none_or(|m| m.is_concurrency_safe)
    }

    /// Whether its `meta` says `alwaysLoad: true` (an entry without `meta` is not always loaded).
    pub fn always_load(&self) -> bool {
        self.tool_meta.as_ref().is_some_and(|m| m.always_load)
    }

    /// True when every required server parameter has a value.
    pub fn is_exposed(&self) -> bool {
        self.missing_server_params.is_empty()
    }

    /// The MCP `tools/list` entry. `outputSchema` is included only when it is an object schema
    /// (MCP requires `type: object`).
    pub fn mcp_tool(&self) -> Value {
        let mut m = self.mcp_tool_members();
        if let Some(out) = self.output_schema.as_ref().map(JsonText::parse)
            && out.get("type").and_then(Value::as_str) == Some("object")
        {
            m.insert("outputSchema".into(), out);
        }
        Value::Object(m)
    }

    /// The members of [`ToolDescriptor::mcp_tool`] but the output schema: `name`, `description`,
    /// `inputSchema`, `annotations` and `_meta`. For a server that carries outputs its own way
    /// (and would only drop a copy of the schema).
    pub fn mcp_tool_members(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.wire_name));
        m.insert("description".into(), json!(self.description));
        m.insert("inputSchema".into(), self.input_schema.clone());
        if let Some(a) = &self.annotations {
            m.insert("annotations".into(), a.clone());
        }
        if let Some(meta) = &self.meta {
            m.insert("_meta".into(), meta.clone());
        }
        m
    }

    /// The user parameter named `key`.
    pub fn param(&self, key: &str) -> Option<&UserParam> {
        self.params.iter().find(|p| p.key == key)
    }
}

/// Why a descriptor could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DescriptorError {
    #[error("tool \"{tool}\" does not exist in namespace \"{namespace}\"")]
    UnknownTool { namespace: String, tool: String },
    #[error("tool \"{tool}\": no valid ID: {reason}")]
    InvalidId { tool: String, reason: String },
    #[error("tool \"{tool}\", parameter \"{key}\": {reason}")]
    InvalidParameter {
        tool: String,
        key: String,
        reason: String,
    },
}

/// Builds the descriptor of `main.tools[tool_name]`. The wire name is the plain spec one; run
/// [`assign_wire_names`] (or [`assign_wire_names_with`]) over the whole set of exposed tools.
pub fn describe_tool(
    main: &SchemaMain,
    tool_name: &str,
    server_params: &ServerParams,
    opts: DescribeOptions<'_>,
) -> Result<ToolDescriptor, DescriptorError> {
    let tool = main
        .tools
        .get(tool_name)
        .ok_or_else(|| DescriptorError::UnknownTool {
            namespace: main.namespace.clone(),
            tool: tool_name.to_string(),
        })?;
    let mut warnings = Vec::new();
    let defined = PrimitiveId::defined(
        &main.namespace,
        IdType::Tool,
        tool_name,
        opts.profile.is_compat(),
    )
    .map_err(|e| DescriptorError::InvalidId {
        tool: tool_name.to_string(),
        reason: e.to_string(),
    })?;
    warnings.extend(defined.warning("tool", tool_name));
    let id = defined.id;

    let compat = opts.profile.is_compat();
    // The request, compiled once: it decides every parameter's role (the user parameters below
    // are the ones it takes from the inputs).
    let request = RequestPlan::compile(tool_name, main, opts.profile)
        .ok()
        .map(Arc::new);
    let mut params = Vec::new();
    for (i, p) in tool.parameters.iter().enumerate() {
        if !request.as_ref().is_some_and(|r| r.is_user(i)) {
            continue;
        }
        let invalid = |reason: String| DescriptorError::InvalidParameter {
            tool: tool_name.to_string(),
            key: p.position.key.clone(),
            reason,
        };
        let mut z = p.z.parse(compat).map_err(|e| invalid(e.to_string()))?;
        if z.primitive.has_unresolved_lists() {
            let resolved = opts.lists.map(|f| z.resolve_lists(|l, fld| f(l, fld)));
            match resolved {
                Some(Ok(r)) => z = r,
                Some(Err(e)) => warnings.push(format!(
                    "parameter \"{}\": {e}; any string is accepted",
                    p.position.key
                )),
                None => warnings.push(format!(
                    "parameter \"{}\": shared-list values are not loaded; any string is accepted",
                    p.position.key
                )),
            }
        }
        // A user parameter whose value is not `{{USER_PARAM}}` is the compat bare-placeholder case.
        let alias = Some(p.position.value.as_str())
            .filter(|v| *v != "{{USER_PARAM}}")
            .and_then(|v| v.strip_prefix("{{"))
            .and_then(|v| v.strip_suffix("}}"))
            .filter(|name| *name != p.position.key)
            .map(str::to_string);
        params.push(UserParam {
            key: p.position.key.clone(),
            z,
            description: p.description.clone(),
            alias,
        });
    }

    let input_schema = input_schema(&params);
    let required = required_server_params(main);
    let undeclared = undeclared_server_params(main, tool);
    if !undeclared.is_empty() {
        warnings.push(format!(
            "VAL083 server parameter{} {} {} not declared in requiredServerParams: sent as literal text",
            if undeclared.len() == 1 { "" } else { "s" },
            undeclared.join(", "),
            if undeclared.len() == 1 { "is" } else { "are" },
        ));
    }
    let missing = server_params.missing(required.iter().map(String::as_str));
    let (annotations, meta) = match &tool.meta {
        Some(m) => {
            let mut meta = Map::new();
            meta.insert("anthropic/alwaysLoad".into(), json!(m.always_load));
            if !m.search_hint.is_empty() {
                meta.insert("anthropic/searchHint".into(), json!(m.search_hint));
            }
            if !m.aliases.is_empty() {
                meta.insert("flowmcp/aliases".into(), json!(m.aliases));
            }
            (
                Some(json!({"readOnlyHint": m.is_read_only, "destructiveHint": m.is_destructive})),
                Some(Value::Object(meta)),
            )
        }
        None => (None, None),
    };
    Ok(ToolDescriptor {
        wire_name: wire_name(&id),
        tool: tool_name.to_string(),
        kind: Kind::Tool,
        namespace: main.namespace.clone(),
        entry_id: id.clone(),
        id,
        description: tool.description.clone(),
        params,
        input_schema,
        output_schema: tool.output.as_ref().map(|o| o.schema.clone()),
        output_mime_type: tool.output.as_ref().map(|o| o.mime_type.clone()),
        annotations,
        meta,
        tool_meta: tool.meta.clone(),
        required_server_params: required,
        missing_server_params: missing,
        warnings,
        request,
        query: None,
    })
}

/// Builds the descriptors of every tool of `main`, in declaration order, with spec wire names
/// assigned among them (for other names, [`assign_wire_names_with`] afterwards). Tools that fail are returned as errors next to the others.
pub fn describe_schema(
    main: &SchemaMain,
    server_params: &ServerParams,
    opts: DescribeOptions<'_>,
) -> (Vec<ToolDescriptor>, Vec<DescriptorError>) {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for name in main.tools.keys() {
        match describe_tool(main, name, server_params, opts) {
            Ok(d) => ok.push(d),
            Err(e) => errors.push(e),
        }
    }
    assign_wire_names(&mut ok);
    (ok, errors)
}

/// A JSON number from an `f64`, integral values as integers (`1900`, not `1900.0`).
fn num(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        let i = f as i64;
        json!(i)
    } else {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

/// A length bound from an `f64` option value (`min` rounds up, `max` rounds down, never negative).
fn len_bound(f: f64, up: bool) -> Value {
    let v = if up { f.ceil() } else { f.floor() };
    num(v.max(0.0))
}

/// The JSON Schema of one parameter's type.
pub(crate) fn param_schema(z: &ZType, description: Option<&str>) -> Value {
    let mut s = Map::new();
    let kind = match &z.primitive {
        Primitive::String | Primitive::Enum(_) => "string",
        Primitive::Number => "number",
        Primitive::Boolean => "boolean",
        Primitive::Array => "array",
        Primitive::Object => "object",
    };
    s.insert("type".into(), json!(kind));
    if matches!(z.primitive, Primitive::Enum(_)) && !z.primitive.has_unresolved_lists() {
        s.insert("enum".into(), json!(z.enum_values()));
    }
    let (min_key, max_key) = match z.primitive {
        Primitive::Number => ("minimum", "maximum"),
        Primitive::String => ("minLength", "maxLength"),
        Primitive::Array => ("minItems", "maxItems"),
        _ => ("", ""),
    };
    for o in &z.options.items {
        match o {
            ZOption::Min(v) if !min_key.is_empty() => {
                let b = if min_key == "minimum" {
                    num(*v)
                } else {
                    len_bound(*v, true)
                };
                s.insert(min_key.into(), b);
            }
            ZOption::Max(v) if !max_key.is_empty() => {
                let b = if max_key == "maximum" {
                    num(*v)
                } else {
                    len_bound(*v, false)
                };
                s.insert(max_key.into(), b);
            }
            ZOption::Length(n) if matches!(z.primitive, Primitive::String | Primitive::Array) => {
                s.insert(min_key.into(), json!(n));
                s.insert(max_key.into(), json!(n));
            }
            ZOption::Regex(r) if matches!(z.primitive, Primitive::String) => {
                s.insert("pattern".into(), json!(r.source()));
            }
            _ => {}
        }
    }
    if let Ok(Some(d)) = z.default_value() {
        s.insert("default".into(), d);
    }
    if let Some(d) = description {
        s.insert("description".into(), json!(d));
    }
    Value::Object(s)
}

/// The input JSON Schema: an object of the user parameters, `required` listing those without
/// `optional()` / `default()`, no additional properties.
pub(crate) fn input_schema(params: &[UserParam]) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for p in params {
        props.insert(p.key.clone(), param_schema(&p.z, p.description.as_deref()));
        if !p.z.is_optional() && !required.contains(&p.key) {
            required.push(p.key.clone());
        }
    }
    // Built in place: `json!` would copy `props` through the serializer.
    let mut schema = Map::with_capacity(4);
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(props));
    schema.insert(
        "required".into(),
        Value::Array(required.into_iter().map(Value::String).collect()),
    );
    schema.insert("additionalProperties".into(), Value::Bool(false));
    Value::Object(schema)
}

/// The first [`WIRE_HASH_LEN`] hex digits of SHA-256 over `text`.
fn hash6(text: &str) -> String {
    let mut hex = flowmcp_spec::hash::sha256_hex(text);
    hex.truncate(WIRE_HASH_LEN);
    hex
}

/// `full` cut so that `_` + `hash` fits in [`WIRE_NAME_MAX`], then the suffix appended.
fn suffixed(full: &str, hash: &str) -> String {
    let keep = WIRE_NAME_MAX - 1 - hash.len();
    let base: String = full.chars().take(keep).collect();
    format!("{base}_{hash}")
}

/// The name the JavaScript reference (`flowmcp-core`) gives tool `tool` (the key in `main.tools`,
/// as written) of `namespace`:
///
/// 1. in the tool name and in the namespace separately, `_` goes between an ASCII lower-case
///    letter or digit and the ASCII capital after it (`getABI` → `get_ABI`, `v2Pools` →
///    `v2_Pools`; a run of capitals is not split: `getHTTPStatus` → `get_HTTPStatus`), then
///    both are lower-cased;
/// 2. the two are joined with `_`: `<tool>_<namespace>`;
/// 3. that is cut to [`REFERENCE_NAME_MAX`] (63) UTF-16 code units (a character that would be cut
///    in half is left out);
/// 4. after the cut, `:` is removed and `-` and `/` become `_`.
///
/// `listPoliticians` of `abgeordnetenwatch` → `list_politicians_abgeordnetenwatch`;
/// `getAbi` of `etherscan-io` → `get_abi_etherscan_io`. The result is the plain name: different
/// tools can share it, and [`assign_wire_names_with`] resolves that.
pub fn reference_tool_name(tool: &str, namespace: &str) -> String {
    let joined = format!("{}_{}", reference_snake(tool), reference_snake(namespace));
    let mut units = 0;
    let mut out = String::with_capacity(joined.len());
    for c in joined.chars() {
        units += c.len_utf16();
        if units > REFERENCE_NAME_MAX {
            break;
        }
        match c {
            ':' => {}
            '-' | '/' => out.push('_'),
            c => out.push(c),
        }
    }
    out
}

/// Step 1 of [`reference_tool_name`]: `_` between `[a-z0-9]` and `[A-Z]`, then lower case.
fn reference_snake(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_ascii_uppercase()
            && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            out.push('_');
        }
        out.push(c);
        prev = Some(c);
    }
    out.to_lowercase()
}

/// The name of a tool before lengths and collisions are dealt with: `<name>_<namespace>` from the
/// ID under [`ToolNames::Spec`], [`query_wire_name`] for a resource query, and
/// [`reference_tool_name`] of the key as written under [`ToolNames::Reference`]. The one place
/// names are made.
pub(crate) fn full_name(names: ToolNames, id: &PrimitiveId, kind: &Kind, tool: &str) -> String {
    match (names, kind) {
        (_, Kind::Query { .. }) => query_wire_name(names, tool, &id.namespace),
        (ToolNames::Spec, _) => id.wire_name(),
        (ToolNames::Reference, _) => reference_tool_name(tool, &id.namespace),
    }
}

/// The name of query `query` of a resource of `namespace` as an MCP tool, before lengths and
/// collisions are dealt with ([`assign_wire_names_with`]): `<query>_<namespace>` under
/// [`ToolNames::Spec`], [`reference_tool_name`] of the query's name under
/// [`ToolNames::Reference`]. The one place a query's tool name is made: the toolset's entries and
/// the catalog's names of the queries of a file that did not validate both come from it.
pub fn query_wire_name(names: ToolNames, query: &str, namespace: &str) -> String {
    match names {
        ToolNames::Spec => flowmcp_spec::id::wire_name(query, namespace),
        ToolNames::Reference => reference_tool_name(query, namespace),
    }
}

/// `full` when it fits in [`WIRE_NAME_MAX`] characters; otherwise cut and ending in `_` + the
/// 6-hex-digit hash of `key` (the ID, or the ID and query of a resource query).
fn bounded(full: String, key: impl FnOnce() -> String) -> String {
    if full.chars().count() <= WIRE_NAME_MAX {
        full
    } else {
        suffixed(&full, &hash6(&key()))
    }
}

/// The spec wire name of a tool ID: `<name>_<namespace>`; over [`WIRE_NAME_MAX`] characters it is
/// cut and ends in `_` + the 6-hex-digit hash of the ID.
pub(crate) fn wire_name(id: &PrimitiveId) -> String {
    bounded(
        full_name(ToolNames::Spec, id, &Kind::Tool, &id.name),
        || id.to_string(),
    )
}

/// Makes the spec wire names of a set of tools unique: [`assign_wire_names_with`] under
/// [`ToolNames::Spec`].
pub fn assign_wire_names(descriptors: &mut [ToolDescriptor]) {
    assign_wire_names_with(descriptors, ToolNames::Spec);
}

/// Gives every tool its wire name under `names` and makes the names of the set unique,
/// independent of their order: a plain name over [`WIRE_NAME_MAX`] characters is cut and gets
/// `_` + the 6-hex-digit hash of the tool's Primitive-ID; every tool whose plain name collides
/// with another's gets that suffix too; if suffixed names still collide (the same ID twice, or a
/// suffixed name equal to a plain one), the later tools in ID order get the hash of `<id>#<n>`
/// with the smallest `n` that makes them unique.
pub fn assign_wire_names_with(descriptors: &mut [ToolDescriptor], names: ToolNames) {
    let assigned = wire_names_of(descriptors, names, |d| d);
    for (d, n) in descriptors.iter_mut().zip(assigned) {
        d.wire_name = n;
    }
}

/// The wire names [`assign_wire_names_with`] gives the descriptors that `descriptor` finds in
/// `items` (the toolset's entries, which hold them), parallel to `items`: the descriptors need
/// not be gathered into a list of their own first.
pub(crate) fn wire_names_of<T>(
    items: &[T],
    names: ToolNames,
    descriptor: impl Fn(&T) -> &ToolDescriptor,
) -> Vec<String> {
    let fulls: Vec<String> = items
        .iter()
        .map(|t| {
            let d = descriptor(t);
            full_name(names, &d.id, &d.kind, &d.tool)
        })
        .collect();
    assign_names(fulls, &|i| &descriptor(&items[i]).id, &|i| {
        descriptor(&items[i]).hash_key()
    })
}

/// For each of `names`, whether another of them is the same.
fn shared_names(names: &[String]) -> Vec<bool> {
    let mut count: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for n in names {
        *count.entry(n.as_str()).or_default() += 1;
    }
    names.iter().map(|n| count[n.as_str()] > 1).collect()
}

/// [`assign_wire_names`] on bare IDs; the result is parallel to `ids`.
#[cfg(test)]
pub(crate) fn assign_wire_names_for(ids: &[PrimitiveId]) -> Vec<String> {
    let fulls = ids
        .iter()
        .map(|id| full_name(ToolNames::Spec, id, &Kind::Tool, &id.name))
        .collect();
    assign_names(fulls, &|i| &ids[i], &|i| ids[i].to_string())
}

/// The collision rule of [`assign_wire_names_with`] on full (uncut) names, given each one's ID
/// and the key its hashes are made of ([`ToolDescriptor::hash_key`]: the ID, or the legacy key
/// of a resource query) by its index; the result is parallel to `fulls`. A key is made only
/// where a hash is needed, and the ID order only when suffixed names still collide: with 1,563
/// tools that do not, ordering them and making their keys was half the work (D172).
fn assign_names<'a>(
    fulls: Vec<String>,
    id: &dyn Fn(usize) -> &'a PrimitiveId,
    key: &dyn Fn(usize) -> String,
) -> Vec<String> {
    let mut names: Vec<String> = fulls
        .iter()
        .enumerate()
        .map(|(i, full)| bounded(full.clone(), || key(i)))
        .collect();
    let colliding = shared_names(&names);
    for (i, c) in colliding.iter().enumerate() {
        if *c {
            names[i] = suffixed(&fulls[i], &hash6(&key(i)));
        }
    }
    // Names still shared: the tools that have them, in ID order (then key, then input order),
    // each keeps its name when no tool before it has the same and takes the first free
    // `<id>#<n>` hash otherwise. A tool whose name no other has keeps it, so only the sharing
    // ones are ordered: the outcome is that of ordering all (a name once given is never given
    // again, so "taken before" is "held by another").
    let shared: Vec<usize> = shared_names(&names)
        .iter()
        .enumerate()
        .filter_map(|(i, &s)| s.then_some(i))
        .collect();
    if shared.is_empty() {
        return names;
    }
    let keys: HashMap<usize, String> = shared.iter().map(|&i| (i, key(i))).collect();
    let mut order = shared;
    order.sort_by(|a, b| {
        id(*a)
            .cmp(id(*b))
            .then_with(|| keys[a].cmp(&keys[b]))
            .then(a.cmp(b))
    });
    let mut taken: HashSet<String> = HashSet::new();
    for &i in &order {
        if taken.insert(names[i].clone()) {
            continue;
        }
        let mut n = 2u32;
        loop {
            let candidate = suffixed(&fulls[i], &hash6(&format!("{}#{n}", keys[&i])));
            if !names.contains(&candidate) {
                names[i] = candidate.clone();
                taken.insert(candidate);
                break;
            }
            n += 1;
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn main_with(tools: Value, extra: Value) -> SchemaMain {
        let mut m = json!({
            "namespace": "demo-ns", "name": "Demo", "description": "d", "version": "4.2.0",
            "root": "https://api.example.com", "tools": tools
        });
        if let (Some(obj), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
            for (k, v) in extra {
                obj.insert(k.clone(), v.clone());
            }
        }
        SchemaMain::from_json(&m).expect("test schema")
    }

    fn id(ns: &str, name: &str) -> PrimitiveId {
        PrimitiveId::new(ns, IdType::Tool, name).expect("valid id")
    }

    #[test]
    fn plain_wire_name() {
        assert_eq!(
            wire_name(&id("etherscan-io", "getAbi")),
            "getAbi_etherscan-io"
        );
    }

    #[test]
    fn long_wire_name_is_cut_with_hash() {
        let long = "a".repeat(70);
        let i = id("ns", &long);
        let w = wire_name(&i);
        assert_eq!(w.len(), WIRE_NAME_MAX);
        let (base, hash) = w.split_at(WIRE_NAME_MAX - 7);
        assert_eq!(base, "a".repeat(57));
        assert!(hash.starts_with('_'));
        assert_eq!(&hash[1..], hash6(&format!("ns/tool/{long}")));
        assert_eq!(wire_name(&i), w, "stable");
        // Exactly 64 stays as is.
        let exact = "b".repeat(61);
        assert_eq!(wire_name(&id("ns", &exact)).len(), 64);
        assert_eq!(wire_name(&id("ns", &exact)), format!("{exact}_ns"));
    }

    #[test]
    fn collisions_get_suffixes_independent_of_order() {
        // `a_b` + namespace `c` vs `a` + namespace `b_c` cannot happen (namespaces have no `_`),
        // but two long names sharing the first 57 characters, and duplicate IDs, can.
        let p = "x".repeat(60);
        let a = id("ns", &format!("{p}A"));
        let b = id("ns", &format!("{p}B"));
        let c = id("other", "short");
        let n1 = assign_wire_names_for(&[a.clone(), b.clone(), c.clone()]);
        let n2 = assign_wire_names_for(&[c.clone(), b.clone(), a.clone()]);
        assert_eq!(n1[0], n2[2]);
        assert_eq!(n1[1], n2[1]);
        assert_eq!(n1[2], "short_other");
        assert_ne!(n1[0], n1[1]);
        // Same ID twice: still unique, deterministic.
        let d = assign_wire_names_for(&[c.clone(), c.clone()]);
        assert_ne!(d[0], d[1]);
        assert!(d.iter().all(|n| n.len() <= WIRE_NAME_MAX));
        assert!(d[0].starts_with("short_other_") && d[0].len() == "short_other_".len() + 6);
        assert_eq!(d, assign_wire_names_for(&[c.clone(), c]));
    }

    /// Ordering only the tools that still share a name gives what ordering every tool gave
    /// (D172): checked against that rule, written out, on sets full of repeats and long names.
    #[test]
    fn i46_only_the_tools_sharing_a_name_are_ordered() {
        fn ordering_all(
            ids: &[PrimitiveId],
            mut names: Vec<String>,
            fulls: &[String],
        ) -> Vec<String> {
            let keys: Vec<String> = ids.iter().map(ToString::to_string).collect();
            let mut order: Vec<usize> = (0..ids.len()).collect();
            order.sort_by(|a, b| {
                ids[*a]
                    .cmp(&ids[*b])
                    .then_with(|| keys[*a].cmp(&keys[*b]))
                    .then(a.cmp(b))
            });
            let mut taken = std::collections::BTreeSet::new();
            for &i in &order {
                if taken.insert(names[i].clone()) {
                    continue;
                }
                let mut n = 2u32;
                loop {
                    let candidate = suffixed(&fulls[i], &hash6(&format!("{}#{n}", keys[i])));
                    if !taken.contains(&candidate) && !names.contains(&candidate) {
                        names[i] = candidate.clone();
                        taken.insert(candidate);
                        break;
                    }
                    n += 1;
                }
            }
            names
        }
        let long = "y".repeat(70);
        let pool = ["a", "b", "dup", long.as_str(), &long[..62]];
        let mut state = 0x2545_f491_u64;
        for round in 0..200 {
            let mut ids = Vec::new();
            for _ in 0..(round % 12 + 1) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let name = pool[(state >> 33) as usize % pool.len()];
                let ns = ["ns", "n2"][(state >> 40) as usize % 2];
                ids.push(id(ns, name));
            }
            let fulls: Vec<String> = ids
                .iter()
                .map(|i| full_name(ToolNames::Spec, i, &Kind::Tool, &i.name))
                .collect();
            // The names after the first two steps, which both versions share.
            let mut names: Vec<String> = ids.iter().map(wire_name).collect();
            for (i, shared) in shared_names(&names).into_iter().enumerate() {
                if shared {
                    names[i] = suffixed(&fulls[i], &hash6(&ids[i].to_string()));
                }
            }
            assert_eq!(
                assign_wire_names_for(&ids),
                ordering_all(&ids, names, &fulls),
                "{ids:?}"
            );
        }
    }

    #[test]
    fn plain_name_colliding_with_suffixed_name() {
        // A tool literally named like another's suffixed wire name.
        let c = id("ns", "dup");
        let suffixed_name = suffixed("dup_ns", &hash6("ns/tool/dup"));
        let tricky_tool = suffixed_name.trim_end_matches("_ns").to_string();
        // `tricky_tool` contains `_`, not a valid ID name: build the ID by hand.
        let tricky = PrimitiveId {
            namespace: "ns".into(),
            kind: IdType::Tool,
            name: tricky_tool,
        };
        let names = assign_wire_names_for(&[c.clone(), c, tricky]);
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 3, "{names:?}");
    }

    /// Cases checked against the reference's own function (`buildToolName` of `flowmcp-core`,
    /// run under Node): `(tool, namespace, reference name)`.
    const REFERENCE_CASES: &[(&str, &str, &str)] = &[
        (
            "listPoliticians",
            "abgeordnetenwatch",
            "list_politicians_abgeordnetenwatch",
        ),
        // Acronyms are not split; a capital after a digit or lower-case letter is.
        ("getABI", "etherscan-io", "get_abi_etherscan_io"),
        ("getHTTPStatusV2", "x", "get_httpstatus_v2_x"),
        ("getPRsByRepo", "github-com", "get_prs_by_repo_github_com"),
        ("ABCdef", "ns", "abcdef_ns"),
        // Digits: `_` after a digit before a capital, none before a digit.
        ("top10Tokens", "ns", "top10_tokens_ns"),
        ("get24hVolume", "ns", "get24h_volume_ns"),
        ("v2Pools", "uniswap-v3", "v2_pools_uniswap_v3"),
        // `-` and `/` become `_`, `:` goes; an existing `_` stays.
        ("x", "ab-cd", "x_ab_cd"),
        ("get:balance/of", "my-ns", "getbalance_of_my_ns"),
        ("/block/:id", "ns", "_block_id_ns"),
        ("already_snake", "ns", "already_snake_ns"),
        // Cut to 63 before `-` is replaced (the cut may end in `_`).
        (
            "getVeryLongRouteNameForTheCutTestWithManyWords",
            "some-provider-with-long-name",
            "get_very_long_route_name_for_the_cut_test_with_many_words_some_",
        ),
        (
            "getVeryLongRouteNameForTheCutTestWithManyWordsX",
            "abc-def",
            "get_very_long_route_name_for_the_cut_test_with_many_words_x_abc",
        ),
        // Non-ASCII letters are lower-cased but never start a split.
        ("getÜberData", "ns", "getüber_data_ns"),
    ];

    #[test]
    fn i40_a_querys_tool_name_is_made_by_query_wire_name_under_both_namings() {
        let id: PrimitiveId = "demo-io/resource/tokens".parse().unwrap();
        let kind = Kind::Query {
            resource: "tokens".into(),
            builtin: None,
        };
        assert_eq!(
            query_wire_name(ToolNames::Spec, "bySymbol", "demo-io"),
            "bySymbol_demo-io"
        );
        assert_eq!(
            query_wire_name(ToolNames::Reference, "bySymbol", "demo-io"),
            "by_symbol_demo_io"
        );
        for names in [ToolNames::Spec, ToolNames::Reference] {
            assert_eq!(
                full_name(names, &id, &kind, "bySymbol"),
                query_wire_name(names, "bySymbol", "demo-io")
            );
        }
    }

    #[test]
    fn reference_names_match_the_reference() {
        for (tool, ns, want) in REFERENCE_CASES {
            assert_eq!(reference_tool_name(tool, ns), *want, "{tool} of {ns}");
        }
        let cut = reference_tool_name(&"a".repeat(61), "b-c");
        assert_eq!(cut, format!("{}_b", "a".repeat(61)));
        // The cut counts UTF-16 code units: 61 letters and an astral character fill 63 exactly.
        let astral = format!("{}\u{1F600}", "a".repeat(61));
        assert_eq!(reference_tool_name(&astral, "ns"), astral);
        // One letter more: the reference keeps half the character (a lone surrogate, which a
        // Rust string cannot hold); it is left out whole.
        let over = format!("{}\u{1F600}", "a".repeat(62));
        assert_eq!(reference_tool_name(&over, "ns"), "a".repeat(62));
    }

    fn reference_descriptor(ns: &str, tool: &str) -> ToolDescriptor {
        let main = main_with(
            json!({ tool: {"method": "GET", "path": "/x", "description": "D", "parameters": []} }),
            json!({ "namespace": ns }),
        );
        describe_tool(
            &main,
            tool,
            &ServerParams::new(),
            DescribeOptions::default(),
        )
        .expect("describes")
    }

    #[test]
    fn reference_names_are_assigned_with_the_collision_suffix() {
        let mut ds = vec![
            reference_descriptor("x", "fooBar"),
            reference_descriptor("bar-x", "foo"),
            reference_descriptor("etherscan-io", "getABI"),
            reference_descriptor("etherscan-io", "getAbi"),
            reference_descriptor("abgeordnetenwatch", "listPoliticians"),
        ];
        assign_wire_names_with(&mut ds, ToolNames::Reference);
        let names: Vec<String> = ds.iter().map(|d| d.wire_name.clone()).collect();
        // The reference gives `foo_bar_x` twice and `get_abi_etherscan_io` twice: every member of
        // such a group gets `_` + the hash of its own Primitive-ID.
        assert_eq!(
            names[0],
            format!("foo_bar_x_{}", hash6("x/tool/fooBar")),
            "{names:?}"
        );
        assert_eq!(names[1], format!("foo_bar_x_{}", hash6("bar-x/tool/foo")));
        assert_eq!(
            names[2],
            format!("get_abi_etherscan_io_{}", hash6("etherscan-io/tool/getABI"))
        );
        assert_eq!(
            names[3],
            format!("get_abi_etherscan_io_{}", hash6("etherscan-io/tool/getAbi"))
        );
        assert_eq!(names[4], "list_politicians_abgeordnetenwatch");
        // The same set under the spec: no collisions, and the IDs are unchanged by the choice.
        let ids: Vec<String> = ds.iter().map(|d| d.id.to_string()).collect();
        assign_wire_names_with(&mut ds, ToolNames::Spec);
        let spec: Vec<&str> = ds.iter().map(|d| d.wire_name.as_str()).collect();
        assert_eq!(
            spec,
            [
                "fooBar_x",
                "foo_bar-x",
                "getABI_etherscan-io",
                "getAbi_etherscan-io",
                "listPoliticians_abgeordnetenwatch"
            ]
        );
        assert_eq!(ids, ds.iter().map(|d| d.id.to_string()).collect::<Vec<_>>());
        // Independent of order.
        let mut rev: Vec<ToolDescriptor> = ds.iter().rev().cloned().collect();
        assign_wire_names_with(&mut rev, ToolNames::Reference);
        assert_eq!(rev[4].wire_name, names[0]);
        assert_eq!(rev[1].wire_name, names[3]);
    }

    #[test]
    fn long_reference_names_collide_within_the_limit() {
        // Two tools the same for 63 code units: the reference would give the same name twice.
        let long = "getVeryLongRouteNameForTheCutTestWithManyWordsAndThenSomeMore";
        let mut ds = vec![
            reference_descriptor("provider", &format!("{long}A")),
            reference_descriptor("provider", &format!("{long}B")),
        ];
        let plain = reference_tool_name(&ds[0].tool, "provider");
        assert_eq!(plain, reference_tool_name(&ds[1].tool, "provider"));
        assert_eq!(
            plain,
            "get_very_long_route_name_for_the_cut_test_with_many_words_and_t"
        );
        assign_wire_names_with(&mut ds, ToolNames::Reference);
        assert_ne!(ds[0].wire_name, ds[1].wire_name);
        for d in &ds {
            assert_eq!(d.wire_name.len(), WIRE_NAME_MAX, "{}", d.wire_name);
            assert!(
                d.wire_name
                    .starts_with("get_very_long_route_name_for_the_cut_test_with_many_words_"),
                "{}",
                d.wire_name
            );
            assert!(d.wire_name.ends_with(&hash6(&d.id.to_string())));
        }
    }

    #[test]
    fn tool_names_parse_and_print() {
        assert_eq!("spec".parse::<ToolNames>(), Ok(ToolNames::Spec));
        assert_eq!("Reference".parse::<ToolNames>(), Ok(ToolNames::Reference));
        assert!("snake".parse::<ToolNames>().is_err());
        assert_eq!(ToolNames::Reference.to_string(), "reference");
        assert_eq!(ToolNames::default(), ToolNames::Spec);
    }

    #[test]
    fn input_schema_types_and_bounds() {
        let main = main_with(
            json!({"t": {"method": "GET", "path": "/x", "description": "D", "parameters": [
                {"position": {"key": "n", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "number()", "options": ["min(1)", "max(2.5)", "default(2)"]}, "description": "N"},
                {"position": {"key": "s", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "string()", "options": ["min(2)", "max(5)"]}},
                {"position": {"key": "l", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "string()", "options": ["length(10)", "optional()"]}},
                {"position": {"key": "a", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "array()", "options": ["min(1)", "max(3)"]}},
                {"position": {"key": "e", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "enum(x,y)", "options": []}},
                {"position": {"key": "b", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "boolean()", "options": ["default(false)"]}},
                {"position": {"key": "o", "value": "{{USER_PARAM}}", "location": "body"},
                 "z": {"primitive": "object()", "options": ["optional()"]}},
                {"position": {"key": "fixed", "value": "v", "location": "query"},
                 "z": {"primitive": "string()", "options": []}},
                {"position": {"key": "key", "value": "{{SERVER_PARAM:K}}", "location": "query"},
                 "z": {"primitive": "string()", "options": []}}
            ]}}),
            json!({"requiredServerParams": ["K"]}),
        );
        let d = describe_tool(&main, "t", &ServerParams::new(), DescribeOptions::default())
            .expect("descriptor");
        assert_eq!(
            d.input_schema,
            json!({
                "type": "object",
                "properties": {
                    "n": {"type": "number", "minimum": 1, "maximum": 2.5, "default": 2, "description": "N"},
                    "s": {"type": "string", "minLength": 2, "maxLength": 5},
                    "l": {"type": "string", "minLength": 10, "maxLength": 10},
                    "a": {"type": "array", "minItems": 1, "maxItems": 3},
                    "e": {"type": "string", "enum": ["x", "y"]},
                    "b": {"type": "boolean", "default": false},
                    "o": {"type": "object"}
                },
                "required": ["s", "a", "e"],
                "additionalProperties": false
            })
        );
        assert_eq!(d.wire_name, "t_demo-ns");
        assert_eq!(d.id.to_string(), "demo-ns/tool/t");
        assert_eq!(d.missing_server_params, vec!["K"]);
        assert!(!d.is_exposed());
        assert!(d.annotations.is_none() && d.meta.is_none());
        assert!(d.mcp_tool().get("annotations").is_none());
    }

    #[test]
    fn lists_resolved_or_degraded_with_warning() {
        let main = main_with(
            json!({"t": {"method": "GET", "path": "/x", "description": "D", "parameters": [
                {"position": {"key": "c", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "enum(ZZ,{{countries:alpha2}})", "options": []}}
            ]}}),
            json!({}),
        );
        let plain = describe_tool(&main, "t", &ServerParams::new(), DescribeOptions::default())
            .expect("descriptor");
        assert_eq!(
            plain.input_schema["properties"]["c"],
            json!({"type": "string"})
        );
        assert_eq!(plain.warnings.len(), 1);
        let lists = |l: &str, f: &str| {
            (l == "countries" && f == "alpha2").then(|| vec!["DE".to_string(), "ZZ".into()])
        };
        let opts = DescribeOptions {
            profile: Profile::Spec,
            lists: Some(&lists),
        };
        let d = describe_tool(&main, "t", &ServerParams::new(), opts).expect("descriptor");
        assert_eq!(
            d.input_schema["properties"]["c"],
            json!({"type": "string", "enum": ["ZZ", "DE"]})
        );
        assert!(d.warnings.is_empty());
        let none = |_: &str, _: &str| None;
        let opts = DescribeOptions {
            profile: Profile::Spec,
            lists: Some(&none),
        };
        let d = describe_tool(&main, "t", &ServerParams::new(), opts).expect("descriptor");
        assert_eq!(d.warnings.len(), 1);
    }

    #[test]
    fn compat_bare_placeholders_and_sanitised_names() {
        let main = main_with(
            json!({"/feed/:city": {"method": "GET", "path": "/feed/:city", "description": "D", "parameters": [
                {"position": {"key": "city", "value": "{{CITY}}", "location": "insert"},
                 "z": {"primitive": "string()", "options": []}},
                {"position": {"key": "token", "value": "{{API_TOKEN}}", "location": "query"},
                 "z": {"primitive": "string()", "options": []}}
            ]}}),
            json!({"requiredServerParams": ["API_TOKEN"]}),
        );
        let compat = DescribeOptions {
            profile: Profile::Compat,
            lists: None,
        };
        let mut sp = ServerParams::new();
        sp.insert("API_TOKEN", "x");
        let d = describe_tool(&main, "/feed/:city", &sp, compat).expect("descriptor");
        assert_eq!(d.id.name, "feedcity");
        assert_eq!(d.wire_name, "feedcity_demo-ns");
        assert_eq!(d.params.len(), 1);
        assert_eq!(d.params[0].key, "city");
        assert_eq!(d.required_server_params, vec!["API_TOKEN"]);
        assert!(d.is_exposed());
        assert_eq!(d.warnings.len(), 1);
        assert!(matches!(
            describe_tool(&main, "/feed/:city", &sp, DescribeOptions::default()),
            Err(DescriptorError::InvalidId { .. })
        ));
        assert!(matches!(
            describe_tool(&main, "nope", &sp, compat),
            Err(DescriptorError::UnknownTool { .. })
        ));
        assert_eq!(flowmcp_spec::id::sanitize_name("/123"), "tool");
    }
}
