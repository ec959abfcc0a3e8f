//! The typed model of a schema `main`, built with serde only after validation.
//!
//! Validation works on the raw JSON and reports every problem with its location; this
//! model is for the code that runs afterwards (loader, runtime, CLI). It is therefore
//! lenient where that is harmless:
//!
//! * unknown keys are ignored (VAL003 has already reported them);
//! * optional lists and maps default to empty, optional scalars to `None`;
//! * deprecated `main.routes` is merged into [`SchemaMain::tools`] (entries of `tools`
//!   win on a name clash; having both is a validation error anyway);
//! * a tool's `outputSchema` (written by catalogs for the JavaScript reference) is read as
//!   `output` when `output` is absent (as profile `compat` accepts it);
//! * a shared-list reference may name its list with `ref` or `name`;
//! * methods may be written in lower case.
//!
//! Required fields that are missing or of the wrong type still make
//! [`SchemaMain::from_json`] fail.
//!
//! An agent manifest (`export const agent`) has its typed model here too, [`AgentManifest`]
//! (with its tests, [`AgentTest`]), read as its own documentation says.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Profile;
use crate::lists::ListRef;
use crate::placeholder::ParamRole;
use crate::zod::{ZType, ZodError};

mod agent;
pub mod auth;
pub use agent::{AgentManifest, AgentTest};

/// A schema's `main` export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "SchemaMainRaw", rename_all = "camelCase")]
pub struct SchemaMain {
    pub namespace: String,
    pub name: String,
    pub description: String,
    /// FlowMCP specification version, e.g. `4.2.0`.
    pub version: String,
    /// Schema content version (semver), optional: the specification calls it required, but none of
    /// its examples has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_version: Option<String>,
    /// 8 hex digits, optional like `schema_version`; see [`crate::hash::schema_hash`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_hash: Option<String>,
    /// Base URL; absent for resource-only schemas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Tools by name, in declaration order (including deprecated `routes`).
    pub tools: IndexMap<String, Tool>,
    /// `main.resources`, as written (chapter 13).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Value>,
    /// `main.prompts`, as written (chapter 12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Value>,
    /// `main.skills`, as written (forbidden, VAL016; kept so callers can see it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<Value>,
    pub docs: Vec<String>,
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terms_of_service: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terms_of_service_checked_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terms_of_service_language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_license: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_license_name: Option<String>,
    /// Environment variable names the tools need.
    pub required_server_params: Vec<String>,
    /// npm packages the handlers need.
    pub required_libraries: Vec<String>,
    /// Default HTTP headers for every tool.
    pub headers: IndexMap<String, String>,
    /// `main.sharedLists`, read leniently ([`ListRef::from_items`]).
    pub shared_lists: Vec<ListRef>,
    /// `main.auth`, this project's extension, as written ([`SchemaMain::typed_auth`] reads it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<Value>,
}

/// The shape actually read from JSON; converted into [`SchemaMain`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemaMainRaw {
    namespace: String,
    name: String,
    description: String,
    version: String,
    #[serde(default)]
    schema_version: Option<String>,
    #[serde(default)]
    schema_hash: Option<String>,
    #[serde(default)]
    root: Option<String>,
    #[serde(default)]
    tools: Option<IndexMap<String, Tool>>,
    #[serde(default)]
    routes: Option<IndexMap<String, Tool>>,
    #[serde(default)]
    resources: Option<Value>,
    #[serde(default)]
    prompts: Option<Value>,
    #[serde(default)]
    skills: Option<Value>,
    #[serde(default)]
    docs: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    terms_of_service: Option<String>,
    #[serde(default)]
    terms_of_service_checked_at: Option<String>,
    #[serde(default)]
    terms_of_service_language: Option<String>,
    #[serde(default)]
    data_license: Option<String>,
    #[serde(default)]
    data_license_name: Option<String>,
    #[serde(default)]
    required_server_params: Vec<String>,
    #[serde(default)]
    required_libraries: Vec<String>,
    #[serde(default)]
    headers: IndexMap<String, String>,
    #[serde(default, deserialize_with = "crate::lists::deserialize_refs")]
    shared_lists: Vec<ListRef>,
    #[serde(default)]
    auth: Option<Value>,
}

impl From<SchemaMainRaw> for SchemaMain {
    fn from(raw: SchemaMainRaw) -> Self {
        let mut tools = raw.tools.unwrap_or_default();
        for (name, tool) in raw.routes.unwrap_or_default() {
            tools.entry(name).or_insert(tool);
        }
        SchemaMain {
            namespace: raw.namespace,
            name: raw.name,
            description: raw.description,
            version: raw.version,
            schema_version: raw.schema_version,
            schema_hash: raw.schema_hash,
            root: raw.root,
            tools,
            resources: raw.resources,
            prompts: raw.prompts,
            skills: raw.skills,
            docs: raw.docs,
            tags: raw.tags,
            terms_of_service: raw.terms_of_service,
            terms_of_service_checked_at: raw.terms_of_service_checked_at,
            terms_of_service_language: raw.terms_of_service_language,
            data_license: raw.data_license,
            data_license_name: raw.data_license_name,
            required_server_params: raw.required_server_params,
            required_libraries: raw.required_libraries,
            headers: raw.headers,
            shared_lists: raw.shared_lists,
            auth: raw.auth,
        }
    }
}

impl SchemaMain {
    /// Builds the model from the JSON of a validated `main`.
    pub fn from_json(main: &Value) -> Result<SchemaMain, serde_json::Error> {
        SchemaMain::deserialize(main)
    }

    /// [`SchemaMain::from_json`] taking the JSON: its strings are moved, not copied (a schema's
    /// tests and output schemas are most of its data).
    pub fn from_value(mut main: Value) -> Result<SchemaMain, serde_json::Error> {
        // serde_json turns a value into the text of a `JsonText` through `Display`, one
        // formatter call per token, several times slower than writing the text directly. So the
        // output schemas are taken out first (`null` in their place) and written directly after
        // (the same compact text: D169).
        let mut schemas: Vec<(String, Value)> = Vec::new();
        if let Some(tools) = main.get_mut("tools").and_then(Value::as_object_mut) {
            for (name, tool) in tools.iter_mut() {
                if let Some(schema) = tool
                    .get_mut("output")
                    .and_then(Value::as_object_mut)
                    .and_then(|output| output.get_mut("schema"))
                {
                    schemas.push((name.clone(), schema.take()));
                }
            }
        }
        let mut typed = SchemaMain::deserialize(main)?;
        for (name, schema) in schemas {
            if let Some(output) = typed.tools.get_mut(&name).and_then(|t| t.output.as_mut()) {
                output.schema = JsonText::from_value(&schema);
            }
        }
        Ok(typed)
    }

    /// `main.auth` read as the typed declaration ([`auth::parse`]); `Ok(None)` when the schema
    /// has none. Fails with every problem (SEC022–SEC024) that validation reports first.
    pub fn typed_auth(&self) -> Result<Option<auth::Auth>, Vec<auth::AuthProblem>> {
        match &self.auth {
            None | Some(Value::Null) => Ok(None),
            Some(v) => auth::parse(
                v,
                &crate::JsonPath::root("main").key("auth"),
                &self.required_server_params,
            )
            .map(Some),
        }
    }

    /// `main.resources` read as the typed resource model (chapter 13), in declaration order; empty
    /// when the schema has none. Fails when an entry does not have the shape of a resource (which
    /// validation, RES001–RES029, reports with locations first).
    pub fn typed_resources(&self) -> Result<IndexMap<String, Resource>, serde_json::Error> {
        match &self.resources {
            None | Some(Value::Null) => Ok(IndexMap::new()),
            Some(v) => IndexMap::<String, Resource>::deserialize(v),
        }
    }
}

/// The kind of a resource (`source`, chapter 13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResourceSource {
    /// A SQLite database opened by `mode` and `origin`.
    Sqlite,
    /// A sealed SQLite database produced by an add-on (`addon`, `path`).
    SqliteGtfs,
    /// A markdown document.
    Markdown,
    /// A remote file (usually SQLite) fetched over HTTPS and cached for `cacheTtl` seconds.
    Http,
}

/// How a SQLite resource is opened (`mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResourceMode {
    /// Read-only; only `SELECT` / `WITH` queries.
    InMemory,
    /// Writable, persistent on disk; only with `origin: 'project'`.
    FileBased,
}

/// Where a resource file lives (`origin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceOrigin {
    /// The user's base folder.
    Global,
    /// The project's base folder.
    Project,
    /// Next to the schema file.
    Inline,
}

/// One entry of `main.resources` (chapter 13). Every field but `source` and `description` is
/// optional here: which ones a source needs is validation's business (RES024–RES027, RES031).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    pub source: ResourceSource,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ResourceMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<ResourceOrigin>,
    /// File name with its extension (`.db` or `.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A file path (sqlite-gtfs; the cache file of an http resource; a local file under compat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The database file of a `sqlite` resource in the form of FlowMCP 3.0 (`~/…` or relative to
    /// the schema), read under the `compat` profile in place of `origin` and `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// The HTTPS address of an http resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Cache lifetime of an http resource, in seconds (an integral float is accepted).
    #[serde(
        default,
        deserialize_with = "integral_u64_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_ttl: Option<u64>,
    /// Schema-defined queries by name, in declaration order.
    #[serde(default)]
    pub queries: IndexMap<String, ResourceQuery>,
    /// The add-on of a sqlite-gtfs resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addon_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addon_source: Option<String>,
}

/// One query of a resource: a prepared statement with `?` placeholders bound from `parameters`
/// in array order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceQuery {
    pub sql: String,
    pub description: String,
    #[serde(default)]
    pub parameters: Vec<ResourceParameter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    /// Test cases: `_description` plus parameter values.
    #[serde(default)]
    pub tests: Vec<IndexMap<String, Value>>,
}

/// The queries the runtime adds to every SQLite-backed resource (chapter 13), beside the
/// schema's own: the one list of their names (validation does not count them towards RES028).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `runSql`: one statement of the caller's SQL (`sql`, optional `limit`).
    RunSql,
    /// `describeTables`: one row `{table_name, column, type}` per column of every table.
    DescribeTables,
}

impl Builtin {
    /// Both, in the order they are listed after the schema's own queries.
    pub const ALL: [Builtin; 2] = [Builtin::RunSql, Builtin::DescribeTables];

    /// `runSql` or `describeTables`.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::RunSql => "runSql",
            Builtin::DescribeTables => "describeTables",
        }
    }
}

/// A resource query parameter: like a tool parameter, without `position.location`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceParameter {
    pub position: ResourcePosition,
    pub z: ZBlock,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The role of a parameter whose `position.value` is `value`, in a schema whose
/// `requiredServerParams` is `declared` ([`crate::placeholder::param_role`]); tool and resource
/// parameters share it.
fn role_of<'a>(value: &'a str, declared: &[String], profile: Profile) -> ParamRole<'a> {
    crate::placeholder::param_role(value, |k| declared.iter().any(|d| d == k), profile)
}

impl ResourceParameter {
    /// The role of `position.value` under `profile`, by the same rule as a tool parameter's
    /// ([`Parameter::role`]).
    pub fn role<'a>(&'a self, declared: &[String], profile: Profile) -> ParamRole<'a> {
        role_of(&self.position.value, declared, profile)
    }
}

/// A resource parameter's `position` block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourcePosition {
    pub key: String,
    /// `{{USER_PARAM}}` or a fixed string.
    pub value: String,
}

/// [`integral_u64`] for an optional field.
fn integral_u64_opt<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    integral_u64(deserializer).map(Some)
}

/// An HTTP method: of a tool (`GET`, `POST`, `PUT`, `DELETE`, the methods chapter 01 allows and
/// validation checks), or of a request a handler makes (also `PATCH`, `HEAD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Method {
    #[serde(rename = "GET", alias = "get")]
    Get,
    #[serde(rename = "POST", alias = "post")]
    Post,
    #[serde(rename = "PUT", alias = "put")]
    Put,
    #[serde(rename = "DELETE", alias = "delete")]
    Delete,
    #[serde(rename = "PATCH", alias = "patch")]
    Patch,
    #[serde(rename = "HEAD", alias = "head")]
    Head,
}

impl Method {
    /// The upper-case name: `GET`, `POST`, `PUT`, `DELETE`, `PATCH`, `HEAD`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Patch => "PATCH",
            Method::Head => "HEAD",
        }
    }

    /// The method named `text`, in any case.
    pub fn parse(text: &str) -> Option<Method> {
        [
            Method::Get,
            Method::Post,
            Method::Put,
            Method::Delete,
            Method::Patch,
            Method::Head,
        ]
        .into_iter()
        .find(|m| m.as_str().eq_ignore_ascii_case(text))
    }

    /// True for POST, PUT and PATCH: the methods that carry a body (`body` parameters).
    pub fn allows_body(self) -> bool {
        matches!(self, Method::Post | Method::Put | Method::Patch)
    }

    /// The methods a tool may have (chapter 01): GET, POST, PUT, DELETE.
    pub const TOOL_METHODS: [Method; 4] = [Method::Get, Method::Post, Method::Put, Method::Delete];

    /// The tool method written exactly `text` (upper case, as VAL032 requires).
    pub fn tool_method(text: &str) -> Option<Method> {
        Method::TOOL_METHODS
            .into_iter()
            .find(|m| m.as_str() == text)
    }
}

/// Reads a tool's `method`: one of [`Method::TOOL_METHODS`] (in any case, as the model is lenient).
fn deserialize_tool_method<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Method, D::Error> {
    let m = Method::deserialize(d)?;
    if Method::TOOL_METHODS.contains(&m) {
        Ok(m)
    } else {
        Err(serde::de::Error::custom(format!(
            "{m} is not a tool method (GET, POST, PUT, DELETE)"
        )))
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool of `main.tools` (chapter 01).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ToolRaw", rename_all = "camelCase")]
pub struct Tool {
    pub method: Method,
    pub path: String,
    pub description: String,
    pub parameters: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preload: Option<Preload>,
    /// Test cases: `_description` plus parameter values.
    pub tests: Vec<IndexMap<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<ToolMeta>,
    /// Tool-level headers; they override `main.headers`.
    pub headers: IndexMap<String, String>,
    /// Reserved `async` field (chapter 07): preserved, ignored.
    #[serde(rename = "async", skip_serializing_if = "Option::is_none")]
    pub async_: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolRaw {
    #[serde(deserialize_with = "deserialize_tool_method")]
    method: Method,
    path: String,
    description: String,
    #[serde(default)]
    parameters: Vec<Parameter>,
    #[serde(default)]
    output: Option<Output>,
    /// Compat alias of `output`; catalogs also use the name for free-form examples, so a value that
    /// is not a valid `output` block is ignored rather than failing the whole tool.
    #[serde(default)]
    output_schema: Option<Value>,
    #[serde(default)]
    preload: Option<Preload>,
    #[serde(default)]
    tests: Vec<IndexMap<String, Value>>,
    #[serde(default)]
    meta: Option<ToolMeta>,
    #[serde(default)]
    headers: IndexMap<String, String>,
    #[serde(default, rename = "async")]
    async_: Option<Value>,
}

impl From<ToolRaw> for Tool {
    fn from(raw: ToolRaw) -> Self {
        Tool {
            method: raw.method,
            path: raw.path,
            description: raw.description,
            parameters: raw.parameters,
            output: raw.output.or_else(|| {
                raw.output_schema
                    .and_then(|v| serde_json::from_value(v).ok())
            }),
            preload: raw.preload,
            tests: raw.tests,
            meta: raw.meta,
            headers: raw.headers,
            async_: raw.async_,
        }
    }
}

/// The deepest nesting of an output schema without a warning (VAL063): the root is level 1, and
/// each value of `properties` and each `items` one level below its parent.
pub const OUTPUT_SCHEMA_MAX_DEPTH: usize = 4;

/// A tool's `output` (chapter 04).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// `application/json`, `image/png` or `text/plain`.
    pub mime_type: String,
    /// The simplified JSON-Schema description of the response, as written (kept as its JSON
    /// text: [`JsonText::value`] reads it).
    pub schema: JsonText,
}

/// A JSON value kept as its JSON text and read into a [`Value`] where it is used.
///
/// An output schema is held by every tool of a catalog and read by few of them (a call checks
/// its data against it, a listing advertises it): as a tree of values it takes about ten times
/// the memory of its text. Read from JSON text, the text is kept as written (whitespace
/// included); made from a value ([`JsonText::from_value`], or read from a [`Value`] by serde),
/// it is the value's compact text. [`JsonText::value`] reads it once and keeps the value (for
/// what is used again, such as the schema of a tool that is called); [`JsonText::parse`] reads
/// it each time and keeps nothing (for what is used once, such as a listing). Two are equal when
/// their values are.
#[derive(Clone, Debug)]
pub struct JsonText {
    text: Box<serde_json::value::RawValue>,
    value: std::sync::OnceLock<Value>,
}

impl JsonText {
    /// The compact JSON text of `value`.
    pub fn from_value(value: &Value) -> JsonText {
        // Writing a `Value` cannot fail (its map keys are strings); `null` stands in regardless.
        let text = serde_json::value::to_raw_value(value).unwrap_or_else(|_| null_text());
        JsonText::of(text)
    }

    fn of(text: Box<serde_json::value::RawValue>) -> JsonText {
        JsonText {
            text,
            value: std::sync::OnceLock::new(),
        }
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.text.get()
    }

    /// The value the text holds, read on first use and kept.
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| self.parse())
    }

    /// The value the text holds, read afresh (nothing is kept).
    pub fn parse(&self) -> Value {
        if let Some(v) = self.value.get() {
            return v.clone();
        }
        // The text was read (or written) as JSON when this was made, so it reads again; `null`
        // stands in regardless.
        serde_json::from_str(self.text.get()).unwrap_or(Value::Null)
    }
}

/// The text `null`.
fn null_text() -> Box<serde_json::value::RawValue> {
    serde_json::value::RawValue::NULL.to_owned()
}

/// The text `null`.
impl Default for JsonText {
    fn default() -> JsonText {
        JsonText::of(null_text())
    }
}

impl From<Value> for JsonText {
    fn from(value: Value) -> JsonText {
        JsonText::from_value(&value)
    }
}

impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.text() == other.text() || self.parse() == other.parse()
    }
}

impl Serialize for JsonText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JsonText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<JsonText, D::Error> {
        Box::<serde_json::value::RawValue>::deserialize(deserializer).map(JsonText::of)
    }
}

/// A tool's `preload` (chapter 11).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Preload {
    pub enabled: bool,
    /// Cache lifetime in seconds. An integral float such as `86400.0` is accepted.
    #[serde(deserialize_with = "integral_u64")]
    pub ttl: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Reads a non-negative integer that may arrive as an integral float (a JavaScript engine
/// may hand every number over as a double).
fn integral_u64<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let n = serde_json::Number::deserialize(deserializer)?;
    if let Some(u) = n.as_u64() {
        return Ok(u);
    }
    match n.as_f64() {
        // Exact below 2^53; larger doubles are integral anyway.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= u64::MAX as f64 => Ok(f as u64),
        _ => Err(serde::de::Error::custom(format!(
            "expected a non-negative integer, found {n}"
        ))),
    }
}

/// A tool's `meta` block (chapter 19). Missing fields take their default (`false`,
/// empty) so that a partial block, already reported by VAL101–VAL106, still loads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolMeta {
    pub is_read_only: bool,
    pub is_concurrency_safe: bool,
    pub is_destructive: bool,
    pub search_hint: String,
    pub aliases: Vec<String>,
    pub always_load: bool,
}

/// One entry of a tool's `parameters` (chapter 02).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    pub position: Position,
    pub z: ZBlock,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Parameter {
    /// The role of `position.value` under `profile` ([`crate::placeholder::param_role`]), for a
    /// schema whose `requiredServerParams` is `declared`.
    pub fn role<'a>(&'a self, declared: &[String], profile: Profile) -> ParamRole<'a> {
        role_of(&self.position.value, declared, profile)
    }
}

/// A parameter's `position` block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub key: String,
    pub value: String,
    pub location: Location,
}

/// Where a value goes in the HTTP request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    /// Into the path, replacing `{{key}}`.
    Insert,
    /// As a query parameter.
    Query,
    /// As a member of the JSON body.
    Body,
}

/// A parameter's `z` block as written; parse it with [`ZBlock::parse`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZBlock {
    pub primitive: String,
    #[serde(default)]
    pub options: Vec<String>,
}

impl ZBlock {
    /// Parses the block into a [`ZType`] (see [`ZType::parse`]).
    ///
    /// Under compat, an option string that joins several options (`'optional(), default(1000)'`,
    /// VAL045 variant `joined`) is read by its first option, as the JavaScript reference does.
    pub fn parse(&self, compat: bool) -> Result<ZType, ZodError> {
        if compat && self.options.iter().any(|o| o.contains("),")) {
            let first_of_each: Vec<&str> = self
                .options
                .iter()
                .map(|o| match o.find("),") {
                    Some(i) => &o[..=i],
                    None => o.as_str(),
                })
                .collect();
            return ZType::parse(&self.primitive, &first_of_each, compat);
        }
        ZType::parse(&self.primitive, &self.options, compat)
    }
}

#[cfg(test)]
mod resource_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_resources_read_sqlite_and_http() {
        let main = SchemaMain::from_json(&json!({
            "namespace": "tokens", "name": "T", "description": "d", "version": "4.2.0", "tools": {},
            "resources": {
                "tokenLookup": {
                    "source": "sqlite", "mode": "in-memory", "origin": "global", "name": "tokens-list.db",
                    "description": "Tokens",
                    "queries": {"bySymbol": {
                        "sql": "SELECT * FROM tokens WHERE symbol = ?", "description": "By symbol",
                        "parameters": [{"position": {"key": "symbol", "value": "{{USER_PARAM}}"},
                                        "z": {"primitive": "string()", "options": []}}],
                        "output": {"mimeType": "application/json", "schema": {"type": "array"}},
                        "tests": [{"_description": "USDC", "symbol": "USDC"}]
                    }}
                },
                "remote": {"source": "http", "url": "https://x.example/a.db", "cacheTtl": 3600.0,
                           "description": "Remote", "queries": {}}
            }
        }))
        .unwrap();
        let r = main.typed_resources().unwrap();
        let t = &r["tokenLookup"];
        assert_eq!(t.source, ResourceSource::Sqlite);
        assert_eq!(t.mode, Some(ResourceMode::InMemory));
        assert_eq!(t.origin, Some(ResourceOrigin::Global));
        assert_eq!(t.queries["bySymbol"].parameters[0].position.key, "symbol");
        assert_eq!(r["remote"].source, ResourceSource::Http);
        assert_eq!(r["remote"].cache_ttl, Some(3600));
        assert!(
            SchemaMain::from_json(&json!({"namespace": "a", "name": "b", "description": "c",
                "version": "4.2.0", "resources": {"x": {"source": "ftp", "description": "d"}}}))
            .unwrap()
            .typed_resources()
            .is_err()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::Filter;
    use serde_json::json;

    fn example_main() -> Value {
        json!({
            "namespace": "etherscan",
            "name": "SmartContractExplorer",
            "description": "Explore verified smart contracts on EVM-compatible chains via Etherscan APIs",
            "version": "4.2.0",
            "schemaVersion": "1.0.0",
            "schemaHash": "a1b2c3d4",
            "root": "https://api.etherscan.io",
            "docs": ["https://docs.etherscan.io/api-endpoints/contracts"],
            "tags": ["smart-contracts", "evm", "abi"],
            "termsOfService": "https://etherscan.io/terms",
            "termsOfServiceCheckedAt": "2026-01-15",
            "termsOfServiceLanguage": "en",
            "dataLicense": null,
            "dataLicenseName": null,
            "requiredServerParams": ["ETHERSCAN_API_KEY"],
            "requiredLibraries": [],
            "headers": {"Accept": "application/json"},
            "sharedLists": [
                {"ref": "evmChains", "version": "1.0.0", "filter": {"key": "etherscanAlias", "exists": true}}
            ],
            "tools": {
                "getContractAbi": {
                    "method": "GET",
                    "path": "/api",
                    "description": "Returns the Contract ABI of a verified smart contract",
                    "parameters": [
                        {"position": {"key": "module", "value": "contract", "location": "query"},
                         "z": {"primitive": "string()", "options": []}},
                        {"position": {"key": "address", "value": "{{USER_PARAM}}", "location": "query"},
                         "z": {"primitive": "string()", "options": ["min(42)", "max(42)"]},
                         "description": "Contract address"},
                        {"position": {"key": "chain", "value": "{{USER_PARAM}}", "location": "query"},
                         "z": {"primitive": "enum({{evmChains:etherscanAlias}})", "options": ["default(ETHEREUM_MAINNET)"]}},
                        {"position": {"key": "apikey", "value": "{{SERVER_PARAM:ETHERSCAN_API_KEY}}", "location": "query"},
                         "z": {"primitive": "string()", "options": []}}
                    ],
                    "output": {
                        "mimeType": "application/json",
                        "schema": {"type": "object", "properties": {"result": {"type": "string"}}}
                    },
                    "preload": {"enabled": true, "ttl": 604800, "description": "ABIs rarely change"},
                    "tests": [
                        {"_description": "USDT", "address": "0xdAC17F958D2ee523a2206206994597C13D831ec7"},
                        {"_description": "USDC", "address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "chain": "ETHEREUM_MAINNET"},
                        {"_description": "WETH", "address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"}
                    ],
                    "meta": {
                        "isReadOnly": true,
                        "isConcurrencySafe": true,
                        "isDestructive": false,
                        "searchHint": "contract abi ethereum",
                        "aliases": ["getAbi"],
                        "alwaysLoad": false
                    },
                    "headers": {"X-Trace": "1"},
                    "async": {"reserved": true}
                },
                "submitQuery": {
                    "method": "POST",
                    "path": "/api/v1/{{chainId}}/query",
                    "description": "Runs a query",
                    "parameters": [
                        {"position": {"key": "chainId", "value": "{{USER_PARAM}}", "location": "insert"},
                         "z": {"primitive": "number()", "options": []}},
                        {"position": {"key": "query", "value": "{{USER_PARAM}}", "location": "body"},
                         "z": {"primitive": "object()", "options": []}}
                    ],
                    "tests": [{"_description": "q", "chainId": 1, "query": {"sql": "SELECT 1"}}]
                }
            },
            "resources": {"tokens": {"source": "sqlite"}},
            "prompts": {"about": {"contentFile": "./prompts/about.mjs"}},
            "unknownKey": "ignored"
        })
    }

    /// Issue #46: an output schema is kept as its JSON text, read into a value where it is used;
    /// written out it is the value it holds, and two are equal when their values are.
    #[test]
    fn i46_an_output_schema_is_kept_as_its_text() {
        let text = r#"{"mimeType":"application/json","schema":{ "type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}}}"#;
        let read: Output = serde_json::from_str(text).unwrap();
        // Read from text: the text as written.
        assert_eq!(
            read.schema.text(),
            r#"{ "type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}}"#
        );
        let value = json!({"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}});
        assert_eq!(read.schema.parse(), value);
        assert_eq!(read.schema.value(), &value);
        // Read from a value: its compact text; equal to the one read from text.
        let from_value: Output =
            serde_json::from_value(json!({"mimeType": "application/json", "schema": value}))
                .unwrap();
        assert_eq!(
            from_value.schema.text(),
            r#"{"type":"object","properties":{"b":{"type":"number"},"a":{"type":"string"}}}"#
        );
        assert_eq!(from_value, read);
        assert_eq!(JsonText::from_value(&value), read.schema);
        assert_ne!(JsonText::from_value(&json!({"type": "array"})), read.schema);
        // Written out, as a value or as text, it is the value it holds.
        assert_eq!(
            serde_json::to_value(&read).unwrap(),
            json!({"mimeType": "application/json", "schema": value})
        );
        assert_eq!(
            serde_json::to_string(&from_value).unwrap(),
            r#"{"mimeType":"application/json","schema":{"type":"object","properties":{"b":{"type":"number"},"a":{"type":"string"}}}}"#
        );
        // A whole schema typed from its text or from its value holds the same output.
        let main = json!({"namespace": "a", "name": "b", "description": "c", "version": "4.0.0",
            "root": "https://x.test", "tools": {"t": {"method": "GET", "path": "/", "description": "d",
            "parameters": [], "output": {"mimeType": "application/json", "schema": {"type": "array", "items": {"type": "number"}}}}}});
        let typed = SchemaMain::from_json(&main).unwrap();
        let from_text: SchemaMain = serde_json::from_str(&main.to_string()).unwrap();
        let schema = |m: &SchemaMain| m.tools["t"].output.as_ref().unwrap().schema.parse();
        assert_eq!(
            schema(&typed),
            json!({"type": "array", "items": {"type": "number"}})
        );
        assert_eq!(schema(&from_text), schema(&typed));
        assert_eq!(JsonText::default().text(), "null");
    }

    #[test]
    fn i46_from_value_gives_the_output_schemas_the_text_serde_gives_them() {
        // D169: `from_value` writes the output schemas itself; the result, texts included, is
        // what serde makes of the same value, for tools, routes, the `outputSchema` alias and an
        // `output` of `null`.
        let out = |t: &str| json!({"mimeType": "application/json", "schema": {"type": t, "description": "é \"q\" \u{2028}"}});
        let main = json!({"namespace": "a", "name": "b", "description": "c", "version": "4.0.0",
        "root": "https://x.test",
        "tools": {
            "t1": {"method": "GET", "path": "/", "description": "d", "output": out("array")},
            "t2": {"method": "GET", "path": "/", "description": "d", "output": null, "outputSchema": out("object")},
            "t3": {"method": "GET", "path": "/", "description": "d", "outputSchema": out("string")},
            "t4": {"method": "GET", "path": "/", "description": "d", "output": out("number"), "outputSchema": out("boolean")}
        },
        "routes": {
            "t1": {"method": "GET", "path": "/", "description": "d", "output": out("integer")},
            "r1": {"method": "GET", "path": "/", "description": "d", "output": out("object")}
        }});
        let by_serde = SchemaMain::from_json(&main).unwrap();
        let moved = SchemaMain::from_value(main.clone()).unwrap();
        assert_eq!(moved, by_serde);
        let texts = |m: &SchemaMain| {
            m.tools
                .iter()
                .map(|(n, t)| {
                    (
                        n.clone(),
                        t.output.as_ref().map(|o| o.schema.text().to_string()),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(&moved), texts(&by_serde));
        let compact = serde_json::to_string(&out("array")["schema"]).unwrap();
        assert_eq!(texts(&moved)[0].1.as_deref(), Some(compact.as_str()));
        // A schema that does not type fails the same way.
        let mut bad = main;
        bad["tools"]["t1"]["output"] = json!({"schema": {}});
        assert_eq!(
            SchemaMain::from_value(bad.clone()).unwrap_err().to_string(),
            SchemaMain::from_json(&bad).unwrap_err().to_string()
        );
    }

    #[test]
    fn parses_a_realistic_main() {
        let main = SchemaMain::from_json(&example_main()).unwrap();
        assert_eq!(main.namespace, "etherscan");
        assert_eq!(main.name, "SmartContractExplorer");
        assert_eq!(main.version, "4.2.0");
        assert_eq!(main.schema_version.as_deref(), Some("1.0.0"));
        assert_eq!(main.schema_hash.as_deref(), Some("a1b2c3d4"));
        assert_eq!(main.root.as_deref(), Some("https://api.etherscan.io"));
        assert_eq!(main.docs.len(), 1);
        assert_eq!(main.tags, vec!["smart-contracts", "evm", "abi"]);
        assert_eq!(
            main.terms_of_service_checked_at.as_deref(),
            Some("2026-01-15")
        );
        assert_eq!(main.terms_of_service_language.as_deref(), Some("en"));
        assert_eq!(main.data_license, None);
        assert_eq!(main.data_license_name, None);
        assert_eq!(main.required_server_params, vec!["ETHERSCAN_API_KEY"]);
        assert!(main.required_libraries.is_empty());
        assert_eq!(
            main.headers.get("Accept").map(String::as_str),
            Some("application/json")
        );
        assert_eq!(
            main.shared_lists,
            vec![ListRef {
                list: "evmChains".into(),
                version: Some("1.0.0".into()),
                filter: Some(Filter::Exists {
                    key: "etherscanAlias".into()
                }),
                index: 0,
            }]
        );
        assert!(main.resources.is_some());
        assert!(
            main.typed_resources().is_err(),
            "a resource without description"
        );
        assert!(main.prompts.is_some());
        assert!(main.skills.is_none());
        assert_eq!(
            main.tools.keys().collect::<Vec<_>>(),
            vec!["getContractAbi", "submitQuery"]
        );

        let abi = &main.tools["getContractAbi"];
        assert_eq!(abi.method, Method::Get);
        assert_eq!(abi.path, "/api");
        assert_eq!(abi.parameters.len(), 4);
        assert_eq!(
            abi.parameters[1].description.as_deref(),
            Some("Contract address")
        );
        assert_eq!(abi.parameters[1].position.location, Location::Query);
        assert_eq!(abi.parameters[1].z.options, vec!["min(42)", "max(42)"]);
        let declared = ["ETHERSCAN_API_KEY".to_string()];
        let role = |i: usize| abi.parameters[i].role(&declared, Profile::Spec);
        assert_eq!(role(0), ParamRole::Fixed("contract"));
        assert_eq!(role(1), ParamRole::User);
        assert_eq!(role(3), ParamRole::Server("ETHERSCAN_API_KEY"));
        let output = abi.output.as_ref().unwrap();
        assert_eq!(output.mime_type, "application/json");
        assert_eq!(output.schema.value()["type"], "object");
        assert_eq!(
            abi.preload,
            Some(Preload {
                enabled: true,
                ttl: 604_800,
                description: Some("ABIs rarely change".into())
            })
        );
        assert_eq!(abi.tests.len(), 3);
        assert_eq!(abi.tests[1]["chain"], "ETHEREUM_MAINNET");
        assert_eq!(
            abi.tests[0].keys().collect::<Vec<_>>(),
            vec!["_description", "address"]
        );
        let meta = abi.meta.as_ref().unwrap();
        assert!(meta.is_read_only && meta.is_concurrency_safe && !meta.is_destructive);
        assert_eq!(meta.search_hint, "contract abi ethereum");
        assert_eq!(meta.aliases, vec!["getAbi"]);
        assert!(!meta.always_load);
        assert_eq!(abi.headers["X-Trace"], "1");
        assert_eq!(abi.async_, Some(json!({"reserved": true})));

        let query = &main.tools["submitQuery"];
        assert_eq!(query.method, Method::Post);
        assert!(query.method.allows_body());
        assert_eq!(query.parameters[0].position.location, Location::Insert);
        assert_eq!(query.parameters[1].position.location, Location::Body);
        assert!(query.output.is_none() && query.preload.is_none() && query.meta.is_none());
        assert!(query.headers.is_empty());
    }

    #[test]
    fn z_blocks_parse_into_ztypes() {
        let main = SchemaMain::from_json(&example_main()).unwrap();
        let abi = &main.tools["getContractAbi"];
        let address = abi.parameters[1].z.parse(false).unwrap();
        assert!(
            address
                .validate(&json!("0xdAC17F958D2ee523a2206206994597C13D831ec7"))
                .is_ok()
        );
        let chain = abi.parameters[2].z.parse(false).unwrap();
        assert!(chain.primitive.has_unresolved_lists());
        assert!(ZBlock::default().parse(false).is_err());
    }

    #[test]
    fn minimal_main_uses_defaults() {
        let main = SchemaMain::from_json(&json!({
            "namespace": "x", "name": "X", "description": "d", "version": "4.0.0"
        }))
        .unwrap();
        assert!(main.tools.is_empty());
        assert!(main.root.is_none());
        assert!(main.docs.is_empty() && main.tags.is_empty());
        assert!(main.headers.is_empty() && main.shared_lists.is_empty());
        assert!(main.schema_hash.is_none() && main.schema_version.is_none());
    }

    #[test]
    fn routes_are_merged_into_tools() {
        let tool = |path: &str| json!({"method": "get", "path": path, "description": "d"});
        let main = SchemaMain::from_json(&json!({
            "namespace": "x", "name": "X", "description": "d", "version": "3.0.0",
            "tools": {"a": tool("/tools-a")},
            "routes": {"a": tool("/routes-a"), "b": tool("/routes-b")}
        }))
        .unwrap();
        assert_eq!(main.tools.keys().collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(main.tools["a"].path, "/tools-a");
        assert_eq!(main.tools["b"].method, Method::Get);
        let only_routes = SchemaMain::from_json(&json!({
            "namespace": "x", "name": "X", "description": "d", "version": "3.0.0",
            "routes": {"r": tool("/r")}
        }))
        .unwrap();
        assert_eq!(only_routes.tools.keys().collect::<Vec<_>>(), vec!["r"]);
    }

    #[test]
    fn malformed_output_schema_alias_is_ignored() {
        let tool = json!({
            "method": "GET", "path": "/", "description": "d", "parameters": [],
            "outputSchema": { "type": "object", "properties": {} }
        });
        let main = json!({ "namespace": "x", "name": "X", "description": "d", "version": "4.2.0", "tools": { "a": tool } });
        let m = SchemaMain::from_json(&main).unwrap();
        assert!(m.tools["a"].output.is_none());
    }

    #[test]
    fn joined_options_read_by_their_first_under_compat() {
        let z = ZBlock {
            primitive: "number()".into(),
            options: vec!["optional(), default(1000)".into()],
        };
        assert!(z.parse(false).is_err());
        let t = z.parse(true).unwrap();
        assert!(t.is_optional());
    }

    #[test]
    fn output_schema_is_read_as_output() {
        let output = json!({"mimeType": "text/plain", "schema": {"type": "string"}});
        let alt = json!({"mimeType": "application/json", "schema": {"type": "array"}});
        let tool: Tool = serde_json::from_value(json!({
            "method": "GET", "path": "/", "description": "d", "outputSchema": output
        }))
        .unwrap();
        assert_eq!(tool.output.as_ref().unwrap().mime_type, "text/plain");
        let both: Tool = serde_json::from_value(json!({
            "method": "GET", "path": "/", "description": "d", "output": alt, "outputSchema": output
        }))
        .unwrap();
        assert_eq!(both.output.unwrap().mime_type, "application/json");
    }

    #[test]
    fn preload_ttl_accepts_integral_floats() {
        let p: Preload = serde_json::from_value(json!({"enabled": true, "ttl": 86400.0})).unwrap();
        assert_eq!(p.ttl, 86_400);
        assert_eq!(p.description, None);
        for bad in [json!(1.5), json!(-1), json!(-2.0), json!("60")] {
            assert!(
                serde_json::from_value::<Preload>(json!({"enabled": true, "ttl": bad})).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn shared_lists_are_read_leniently_and_partial_meta() {
        // VAL070 requires `ref`; the typed model, built after validation, skips what it cannot read.
        let main = SchemaMain::from_json(&json!({
            "namespace": "n", "name": "N", "description": "d", "version": "4.2.0", "tools": {},
            "sharedLists": [{"name": "evmChains", "version": "1.0.0"}, {"ref": "b", "filter": {"key": "k", "value": 1}}]
        }))
        .unwrap();
        assert_eq!(main.shared_lists.len(), 1);
        assert_eq!(main.shared_lists[0].list, "b");
        assert_eq!(main.shared_lists[0].index, 1);
        assert_eq!(
            main.shared_lists[0].to_json(),
            json!({"ref": "b", "filter": {"key": "k", "value": 1}})
        );
        let meta: ToolMeta = serde_json::from_value(json!({"isReadOnly": true})).unwrap();
        assert!(meta.is_read_only);
        assert_eq!(meta.search_hint, "");
    }

    #[test]
    fn value_sources() {
        let param = |value: &str| Parameter {
            position: Position {
                key: "k".into(),
                value: value.into(),
                location: Location::Query,
            },
            z: ZBlock {
                primitive: "string()".into(),
                options: vec![],
            },
            description: None,
        };
        let p = |value: &str| param(value);
        let role = |value: &str| -> String {
            format!("{:?}", p(value).role(&["K".to_string()], Profile::Spec))
        };
        assert_eq!(role("{{USER_PARAM}}"), "User");
        assert_eq!(role("{{SERVER_PARAM:K}}"), "Server(\"K\")");
        assert_eq!(
            role("Bearer {{SERVER_PARAM:K}}"),
            "Fixed(\"Bearer {{SERVER_PARAM:K}}\")"
        );
        assert_eq!(role("{{CITY}}"), "Fixed(\"{{CITY}}\")");
        assert_eq!(role(""), "Fixed(\"\")");
        assert_eq!(
            role("{{USER_PARAM}}{{USER_PARAM}}"),
            "Fixed(\"{{USER_PARAM}}{{USER_PARAM}}\")"
        );
    }

    #[test]
    fn methods() {
        assert_eq!(Method::Get.as_str(), "GET");
        assert_eq!(Method::Delete.as_str(), "DELETE");
        assert!(Method::Put.allows_body());
        assert!(!Method::Delete.allows_body());
        assert_eq!(
            serde_json::from_value::<Method>(json!("PUT")).unwrap(),
            Method::Put
        );
        assert_eq!(
            serde_json::from_value::<Method>(json!("delete")).unwrap(),
            Method::Delete
        );
        // PATCH is a method (handlers' requests use it), but not a tool's.
        assert_eq!(
            serde_json::from_value::<Method>(json!("PATCH")).unwrap(),
            Method::Patch
        );
        assert_eq!(Method::tool_method("DELETE"), Some(Method::Delete));
        assert_eq!(Method::tool_method("PATCH"), None);
        assert_eq!(Method::tool_method("get"), None);
        assert_eq!(Method::parse("get"), Some(Method::Get));
        let tool = |m: &str| {
            serde_json::from_value::<Tool>(
                json!({"method": m, "path": "/", "description": "d", "parameters": []}),
            )
        };
        assert!(tool("PATCH").is_err());
        assert!(tool("get").is_ok());
    }

    #[test]
    fn missing_required_fields_fail() {
        assert!(SchemaMain::from_json(&json!({"namespace": "x"})).is_err());
        assert!(SchemaMain::from_json(&json!([])).is_err());
        let bad_location = json!({
            "namespace": "x", "name": "X", "description": "d", "version": "4.0.0",
            "tools": {"t": {"method": "GET", "path": "/", "description": "d", "parameters": [
                {"position": {"key": "a", "value": "b", "location": "header"}, "z": {"primitive": "string()", "options": []}}
            ]}}
        });
        assert!(SchemaMain::from_json(&bad_location).is_err());
    }

    #[test]
    fn serialises_with_spec_names() {
        let main = SchemaMain::from_json(&example_main()).unwrap();
        let v = serde_json::to_value(&main).unwrap();
        assert_eq!(v["schemaVersion"], "1.0.0");
        assert_eq!(v["requiredServerParams"][0], "ETHERSCAN_API_KEY");
        assert_eq!(v["sharedLists"][0]["ref"], "evmChains");
        assert_eq!(v["tools"]["getContractAbi"]["method"], "GET");
        assert_eq!(v["tools"]["getContractAbi"]["meta"]["isReadOnly"], true);
        assert_eq!(
            v["tools"]["getContractAbi"]["output"]["mimeType"],
            "application/json"
        );
        assert_eq!(v["tools"]["getContractAbi"]["async"]["reserved"], true);
        assert_eq!(
            v["tools"]["getContractAbi"]["parameters"][0]["position"]["location"],
            "query"
        );
        assert!(v.get("dataLicense").is_none());
        // Serialising and reading back gives the same model.
        assert_eq!(SchemaMain::from_json(&v).unwrap(), main);
    }
}
