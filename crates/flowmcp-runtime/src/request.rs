//! Building the HTTP request of a tool call so that secrets go only where the schema puts them.
//!
//! 1. [`build_request`] produces a [`PreparedRequest`], the "struct" that handlers see: URL (query
//!    included), headers and JSON body as plain text and JSON. Every place the schema's `main` puts a
//!    server parameter (root, path, query, headers, body, parameter values) holds a **slot token**
//!    instead of the value: an opaque text such as `secret-api_key-0-9f3a1c2b7d4e6f80` that names the
//!    parameter and carries a random per-call nonce ([`SecretSlots`]). User values are already in,
//!    encoded for where they stand.
//! 2. A `preRequest` handler may replace the URL, headers and body with any text; the text is taken
//!    as it is. Its tokens are the only thing ever filled: text a user typed (`{{SERVER_PARAM:KEY}}`,
//!    `{{KEY}}`), a handler's own text or a response can never become a secret, because nobody outside
//!    the runtime can know this call's nonce before the call starts.
//! 3. [`finalize`] replaces the tokens by the values (percent-encoded in the path, form-encoded in
//!    the query, raw in headers, JSON-escaped in the body) and checks the result: the final URL must
//!    have the **schema's origin** — the origin of its `root`, or of the `--upstream` that replaces
//!    it — or the request is refused (E009). So user text can never reach the authority, and a
//!    handler can move a request (and its secrets) only within that origin. Every part that may hold
//!    a secret is a [`Secret`] (its `Debug` prints `[redacted]`).
//!
//! An `--upstream` base URL is taken as literal text: placeholders in it are never filled.
//!
//! Rules (both profiles unless `compat` is named):
//! * URL = root (or the `--upstream` override) + path; `insert` values are percent-encoded as one
//!   path segment (`a/b c` → `a%2Fb%20c`) into `{{key}}`, and under compat into `:key`; the values
//!   `.` and `..` are refused (E007): URL parsers treat them, and `%2e%2e`, as dot segments;
//! * `query` parameters in parameter order, duplicate keys kept, arrays comma-joined, objects as
//!   JSON text, fixed values included, form-urlencoded; omitted optional values are left out;
//! * `body` parameters form a JSON object for POST/PUT keeping JSON types (fixed values are typed
//!   through their `z`); on GET/DELETE they are an error under `spec` and dropped with a warning
//!   under `compat`; a POST/PUT body gets `Content-Type: application/json` unless a header sets
//!   it; a POST/PUT without body parameters sends no body under `spec` (nothing to assemble) and
//!   `{}` under `compat` (the reference's behaviour); a body a `preRequest` handler adds where
//!   there was none is JSON with its content type too;
//! * headers: `main.headers`, overridden (case-insensitively) by the tool's `headers`.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::SystemTime;

use flowmcp_spec::Profile;
use flowmcp_spec::model::auth::Auth;
use flowmcp_spec::model::{Location, Method, Parameter, SchemaMain};
use flowmcp_spec::placeholder::{InterpolationKind, colon_key_matches, find_interpolations};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::auth::AuthInputs;
use crate::encoding::Encoding;
use crate::envelope::Envelope;
use crate::secret::{Secret, ServerParams};
use flowmcp_spec::Code;

pub(crate) use flowmcp_spec::placeholder::ParamRole;

/// The role of a parameter in a call: the one classification the validator shares
/// ([`flowmcp_spec::model::Parameter::role`]), except that a server parameter the schema does not
/// declare in `requiredServerParams` is literal text: parameters are resolved for a whole catalog by
/// name, so it would be another schema's key (VAL083 reports it).
pub(crate) fn param_role<'a>(
    param: &'a Parameter,
    main: &SchemaMain,
    profile: Profile,
) -> ParamRole<'a> {
    let declared = &main.required_server_params;
    match param.role(declared, profile) {
        ParamRole::Server(k) if !declared.iter().any(|d| d == k) => {
            ParamRole::Fixed(&param.position.value)
        }
        role => role,
    }
}

/// The server-parameter name a placeholder's inner text denotes, if any: `SERVER_PARAM:KEY`, or
/// (compat) a bare `KEY`, for a `KEY` declared in the schema's own `requiredServerParams`. Server
/// parameters are resolved for a whole catalog by name, so an undeclared name would be another
/// schema's key: such a placeholder stays literal text (VAL083 reports it).
pub(crate) fn server_key<'t>(
    inner: &'t str,
    main: &SchemaMain,
    profile: Profile,
) -> Option<&'t str> {
    let declared = |k: &str| main.required_server_params.iter().any(|d| d == k);
    match InterpolationKind::of(inner) {
        InterpolationKind::ServerParam(key) if declared(key) => Some(key),
        InterpolationKind::Bare(name) if profile.is_compat() && declared(name) => Some(name),
        _ => None,
    }
}

/// `{{SERVER_PARAM:KEY}}`: how a server parameter's place is shown to people.
pub(crate) fn server_placeholder(key: &str) -> String {
    format!("{{{{SERVER_PARAM:{key}}}}}")
}

/// The stand-ins for server parameters in one call: a token per parameter name, made of
/// characters that no URL, form or JSON encoding changes (`[a-z0-9_-]`), ending in a random
/// nonce drawn when the call starts. Only texts equal to a token are ever replaced by a secret.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretSlots {
    nonce: String,
    /// (parameter name, token), in the order the names were first used.
    slots: Vec<(String, String)>,
}

impl fmt::Debug for SecretSlots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.slots.iter().map(|(k, _)| k))
            .finish()
    }
}

impl Default for SecretSlots {
    fn default() -> Self {
        SecretSlots::new()
    }
}

impl SecretSlots {
    /// No slots yet, with a fresh random nonce (64 bits from the standard library's randomly
    /// keyed SipHash, seeded from the operating system).
    pub fn new() -> Self {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default(),
        );
        SecretSlots {
            nonce: format!("{:016x}", h.finish()),
            slots: Vec::new(),
        }
    }

    /// The token of `key`, made on first use.
    pub fn token(&mut self, key: &str) -> String {
        if let Some((_, t)) = self.slots.iter().find(|(k, _)| k == key) {
            return t.clone();
        }
        let shown: String = key
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .map(|c| c.to_ascii_lowercase())
            .take(40)
            .collect();
        let token = format!("secret-{shown}-{}-{}", self.slots.len(), self.nonce);
        self.slots.push((key.to_string(), token.clone()));
        token
    }

    /// The parameter names that have a token, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.slots.iter().map(|(k, _)| k.as_str())
    }

    /// The names whose tokens occur in `text`, in slot order.
    pub fn keys_in<'s>(&'s self, text: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.slots
            .iter()
            .filter(move |(_, t)| text.contains(t.as_str()))
            .map(|(k, _)| k.as_str())
    }

    /// Whether any token occurs in `text`.
    pub fn occurs_in(&self, text: &str) -> bool {
        self.keys_in(text).next().is_some()
    }

    /// `text` with every token shown as `{{SERVER_PARAM:KEY}}`.
    pub fn display(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (k, t) in &self.slots {
            if out.contains(t.as_str()) {
                out = out.replace(t.as_str(), &server_placeholder(k));
            }
        }
        out
    }

    /// `text` with every token replaced by its value in `encoding` (the only way a value is
    /// written into a request: every form is one the redactor knows). Names without a value are
    /// added to `missing` (their tokens stay). Returns whether any token was replaced.
    pub(crate) fn fill(
        &self,
        text: &str,
        params: &ServerParams,
        encoding: Encoding,
        missing: &mut Vec<String>,
    ) -> (String, bool) {
        let mut out = text.to_string();
        let mut filled = false;
        for (k, t) in &self.slots {
            if !out.contains(t.as_str()) {
                continue;
            }
            match params.get(k) {
                Some(s) => {
                    out = out.replace(t.as_str(), &encoding.encode(s.expose()));
                    filled = true;
                }
                None => {
                    if !missing.contains(k) {
                        missing.push(k.clone());
                    }
                }
            }
        }
        (out, filled)
    }
}

/// One piece of schema text: literal text or a server parameter's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Text(String),
    Server(String),
}

/// Schema text read for server-parameter places: `{{SERVER_PARAM:KEY}}` (and under compat a
/// bare declared `{{KEY}}`); anything else stays text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Template(pub(crate) Vec<Part>);

impl Template {
    fn parse(text: &str, main: &SchemaMain, profile: Profile) -> Self {
        let mut t = Template::default();
        let mut at = 0;
        for i in find_interpolations(text) {
            if let Some(key) = server_key(&i.inner, main, profile) {
                t.push_text(&text[at..i.start]);
                t.0.push(Part::Server(key.to_string()));
                at = i.end;
            }
        }
        t.push_text(&text[at..]);
        t
    }

    fn push_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(Part::Text(last)) = self.0.last_mut() {
            last.push_str(text);
        } else {
            self.0.push(Part::Text(text.to_string()));
        }
    }

    fn has_server(&self) -> bool {
        self.0.iter().any(|p| matches!(p, Part::Server(_)))
    }

    /// The text with literal parts in `encoding` and places as slot tokens.
    fn render(&self, slots: &mut SecretSlots, encoding: Encoding) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Part::Text(t) => out.push_str(&encoding.encode(t)),
                Part::Server(k) => out.push_str(&slots.token(k)),
            }
        }
        out
    }
}

/// The request before secrets are filled in: what handlers see and may change. Contains no
/// server-parameter values, only slot tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedRequest {
    tool: String,
    method: Method,
    /// The full URL, query included.
    url: String,
    /// Header name → value.
    headers: IndexMap<String, String>,
    /// The JSON body (POST/PUT).
    body: Option<Value>,
    /// The base URL whose origin the request must keep (slot tokens where `root` has places).
    root: String,
    slots: SecretSlots,
    /// The server parameters the schema's own request uses, without duplicates.
    used: Vec<String>,
    warnings: Vec<String>,
    /// `main.auth`, applied by [`finalize_with`] after the last handler (handlers never see it).
    auth: Option<Arc<Auth>>,
}

impl PreparedRequest {
    /// The tool name (as written in `main.tools`).
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The method (handlers cannot change it).
    pub fn method(&self) -> Method {
        self.method
    }

    /// Notes, e.g. dropped body parameters under compat.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The server parameters the schema's request uses, in order, without duplicates.
    pub fn server_keys(&self) -> &[String] {
        &self.used
    }

    /// The URL as people see it: places shown as `{{SERVER_PARAM:KEY}}`.
    pub fn display_url(&self) -> String {
        self.slots.display(&self.url)
    }

    /// The slot token of `key` in this call (made on first use): how handlers that build their own
    /// requests (`executeRequest` under compat) are given a server parameter.
    pub fn token(&mut self, key: &str) -> String {
        self.slots.token(key)
    }

    /// This call's slots.
    pub fn slots(&self) -> &SecretSlots {
        &self.slots
    }

    /// The schema's `main.auth`, which [`finalize_with`] applies.
    pub fn auth(&self) -> Option<&Auth> {
        self.auth.as_deref()
    }

    pub(crate) fn auth_arc(&self) -> Option<&Arc<Auth>> {
        self.auth.as_ref()
    }

    /// The handler view `{ url, method, headers, body }`, with slot tokens where secrets go.
    pub fn to_struct_json(&self) -> Value {
        let headers: Map<String, Value> = self
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        json!({
            "url": self.url,
            "method": self.method.as_str(),
            "headers": headers,
            "body": self.body,
        })
    }

    /// Takes what a `preRequest` handler returned as the struct: `url`, `headers` and `body` replace
    /// the request's when present and not `null`; `method` cannot be changed. The texts are taken
    /// as they are: only this call's slot tokens in them will be filled.
    pub fn apply_struct(&mut self, s: &Value) -> Result<(), StructError> {
        if let Some(url) = s.get("url").filter(|u| !u.is_null()) {
            self.url = url.as_str().ok_or(StructError::Url)?.to_string();
        }
        if let Some(h) = s.get("headers").filter(|h| !h.is_null()) {
            let h = h.as_object().ok_or(StructError::Headers)?;
            let mut headers = IndexMap::new();
            for (k, v) in h {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(_) | Value::Bool(_) => v.to_string(),
                    _ => return Err(StructError::Header(k.clone())),
                };
                headers.insert(k.clone(), text);
            }
            self.headers = headers;
        }
        if let Some(b) = s.get("body").filter(|b| !b.is_null()) {
            // A body where the route had none (a POST or PUT without body parameters under
            // `spec`) is JSON like every other body: it gets the JSON content type unless the
            // handler's headers name one.
            if self.body.is_none() && self.method.allows_body() {
                json_content_type(&mut self.headers);
            }
            self.body = Some(b.clone());
        }
        Ok(())
    }

    /// The schema's origin: the root (or `--upstream`) with its places filled. Errors never contain
    /// a secret value.
    pub fn origin(&self, params: &ServerParams) -> Result<url::Origin, RequestError> {
        let mut missing = Vec::new();
        let (root, _) = self
            .slots
            .fill(&self.root, params, Encoding::Segment, &mut missing);
        if !missing.is_empty() {
            return Err(RequestError::MissingServerParams {
                tool: self.tool.clone(),
                names: missing,
            });
        }
        let parsed = url::Url::parse(&root).map_err(|e| RequestError::InvalidUrl {
            tool: self.tool.clone(),
            reason: params.redact(&format!("the root is not a valid URL ({e})")),
        })?;
        Ok(parsed.origin())
    }
}

/// The request ready to send. Every part that may hold a secret is a [`Secret`].
#[derive(Clone, Debug)]
pub struct FinalRequest {
    pub method: Method,
    /// The full URL (parsed and serialised by the WHATWG rules of `url::Url`).
    pub url: Secret,
    /// Headers in order.
    pub headers: Vec<(String, Secret)>,
    /// The names of the headers whose value carries a server parameter.
    pub secret_headers: Vec<String>,
    /// The JSON body text (POST/PUT).
    pub body: Option<Secret>,
    /// Whether the body carries a server parameter.
    pub body_has_secret: bool,
    /// What `main.auth` added that is no server parameter but must never be shown: signatures,
    /// tokens and the secret header values it wrote (an API that echoes them gets them redacted).
    pub auth_secrets: Vec<Secret>,
}

/// Why a request could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("tool does not exist")]
    UnknownTool { tool: String },
    #[error("the schema has no root and no upstream replaces it")]
    NoRoot { tool: String },
    #[error("no value for path parameter \"{key}\"")]
    MissingInsert { tool: String, key: String },
    #[error("path parameter \"{key}\" cannot be \"{value}\" (a dot segment would change the path)")]
    DotSegment {
        tool: String,
        key: String,
        value: String,
    },
    #[error("body parameter \"{key}\" is not allowed on a {method} tool")]
    BodyNotAllowed {
        tool: String,
        key: String,
        method: &'static str,
    },
    #[error("missing server parameter{}: {}", if .names.len() == 1 { "" } else { "s" }, .names.join(", "))]
    MissingServerParams { tool: String, names: Vec<String> },
    #[error("the request URL is invalid: {reason}")]
    InvalidUrl { tool: String, reason: String },
    #[error("refused request: it leaves the schema's origin {origin}")]
    OtherOrigin { tool: String, origin: String },
    /// `main.auth` could not be read or applied (never holds a secret value).
    #[error("auth: {reason}")]
    Auth { tool: String, reason: String },
}

impl RequestError {
    /// The tool the error belongs to.
    pub fn tool(&self) -> &str {
        match self {
            RequestError::UnknownTool { tool }
            | RequestError::NoRoot { tool }
            | RequestError::MissingInsert { tool, .. }
            | RequestError::DotSegment { tool, .. }
            | RequestError::BodyNotAllowed { tool, .. }
            | RequestError::MissingServerParams { tool, .. }
            | RequestError::InvalidUrl { tool, .. }
            | RequestError::OtherOrigin { tool, .. }
            | RequestError::Auth { tool, .. } => tool,
        }
    }

    /// The runtime code: E006 for missing server parameters, E009 for an invalid URL or one that
    /// leaves the schema's origin, E007 otherwise (the call cannot be made as given).
    pub fn code(&self) -> Code {
        match self {
            RequestError::MissingServerParams { .. } => Code::E006,
            RequestError::InvalidUrl { .. } | RequestError::OtherOrigin { .. } => Code::E009,
            _ => Code::E007,
        }
    }

    /// The failure envelope, e.g. `E006 getThing: missing server parameter: API_KEY`.
    pub fn envelope(&self) -> Envelope {
        Envelope::error(self.code(), self.tool(), &self.to_string())
    }
}

/// Why the struct a `preRequest` handler returned cannot be taken ([`PreparedRequest::apply_struct`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StructError {
    /// `url` is present but not a string.
    #[error("url is not a string")]
    Url,
    /// `headers` is present but not an object.
    #[error("headers is not an object")]
    Headers,
    /// A header value that is not a string, number or boolean.
    #[error("header \"{0}\" is not a string")]
    Header(String),
}

/// A value as query text: strings as-is, numbers and booleans printed, arrays comma-joined,
/// objects as JSON, `null` empty.
pub fn query_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::Array(_) | Value::Object(_) => v.to_string(),
                other => query_text(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => value.to_string(),
    }
}

/// Builds the request "struct" for `main.tools[tool_name]` from validated `inputs`.
/// `root_override` replaces `main.root` (the `--upstream` of the namespace) and is taken as literal
/// text. Fails with E006 when a server parameter the request needs has no value in
/// `server_params` (names only), and with E007 for an insert value `.` or `..`.
///
/// Compiles the tool's `RequestPlan` and builds from it; a toolset compiles each plan once and
/// builds every call from it.
pub fn build_request(
    tool_name: &str,
    main: &SchemaMain,
    inputs: &IndexMap<String, Value>,
    server_params: &ServerParams,
    profile: Profile,
    root_override: Option<&str>,
) -> Result<PreparedRequest, RequestError> {
    RequestPlan::compile(tool_name, main, profile)?.build(inputs, server_params, root_override)
}

/// How a parameter's value gets into the request, decided once ([`param_role`]).
#[derive(Clone, Debug, PartialEq)]
enum Planned {
    /// From the caller's inputs.
    User,
    /// A server parameter's place.
    Server(String),
    /// Fixed schema text, parsed for server-parameter places (insert text already encoded as a
    /// path segment); a body value's JSON when its `z` types it (and it has no server place).
    Fixed(Template, Option<Value>),
}

/// One parameter of a compiled request: `{ key, location, role }` (its type is the descriptor's).
#[derive(Clone, Debug, PartialEq)]
struct PlannedParam {
    key: String,
    location: Location,
    role: Planned,
    /// For an insert parameter: whether the path uses it (`{{key}}`, or `:key` under compat).
    in_path: bool,
}

/// A piece of the compiled path: schema text (with server places), or an insert's place with the
/// text written there (kept when the insert has no value).
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Part(Part),
    Insert { key: String, written: String },
}

/// A JSON body's content type, unless the headers already name one (in any case).
fn json_content_type(headers: &mut IndexMap<String, String>) {
    if !headers
        .keys()
        .any(|k| k.eq_ignore_ascii_case("content-type"))
    {
        headers.insert("Content-Type".into(), "application/json".into());
    }
}

/// A tool's request compiled once, when its toolset is built: the root, path and header templates
/// parsed, every parameter's role decided and fixed values parsed (and typed, in a body). Every
/// call builds its [`PreparedRequest`] from it ([`RequestPlan::build`]) without reading a
/// template or a type again.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RequestPlan {
    tool: String,
    method: Method,
    /// `main.root`, parsed (empty when there is none).
    root: Template,
    path: Vec<Piece>,
    params: Vec<PlannedParam>,
    /// `main.headers` overridden (case-insensitively) by the tool's, parsed.
    headers: Vec<(String, Template)>,
    /// Under `spec`, the first body parameter of a method without a body (an error at build).
    body_refused: Option<String>,
    /// Under `compat`, the warnings for body parameters that are not sent.
    warnings: Vec<String>,
    /// Whether a JSON body is sent: on POST and PUT, under `spec` only when the tool has a body
    /// parameter (there is nothing to assemble otherwise), under `compat` always (`{}` when it has
    /// none, as the reference does).
    sends_body: bool,
    /// The `preload` of a tool whose preload is enabled (its responses are cached): its `ttl`,
    /// and its `description`, shown on a cache hit.
    preload: Option<(u64, Option<String>)>,
    /// `main.auth`, read once.
    auth: Option<Arc<Auth>>,
}

impl RequestPlan {
    /// Compiles the request of `main.tools[tool_name]` under `profile`.
    pub(crate) fn compile(
        tool_name: &str,
        main: &SchemaMain,
        profile: Profile,
    ) -> Result<RequestPlan, RequestError> {
        let tool = main
            .tools
            .get(tool_name)
            .ok_or_else(|| RequestError::UnknownTool {
                tool: tool_name.to_string(),
            })?;
        let compat = profile.is_compat();
        let mut params = Vec::with_capacity(tool.parameters.len());
        for p in &tool.parameters {
            let key = p.position.key.clone();
            let location = p.position.location;
            let role = match param_role(p, main, profile) {
                ParamRole::User => Planned::User,
                ParamRole::Server(k) => Planned::Server(k.to_string()),
                ParamRole::Fixed(v) => {
                    let t = Template::parse(v, main, profile);
                    match location {
                        Location::Insert => Planned::Fixed(
                            Template(
                                t.0.into_iter()
                                    .map(|part| match part {
                                        Part::Text(s) => Part::Text(Encoding::Segment.encode(&s)),
                                        s @ Part::Server(_) => s,
                                    })
                                    .collect(),
                            ),
                            None,
                        ),
                        Location::Body => {
                            let typed = (!t.has_server())
                                .then(|| p.z.parse(compat).ok())
                                .flatten()
                                .and_then(|z| z.coerce_str(v).ok());
                            Planned::Fixed(t, typed)
                        }
                        Location::Query => Planned::Fixed(t, None),
                    }
                }
            };
            let in_path = location == Location::Insert
                && (tool.path.contains(&format!("{{{{{key}}}}}"))
                    || (compat && !colon_key_matches(&tool.path, &[key.as_str()]).is_empty()));
            params.push(PlannedParam {
                key,
                location,
                role,
                in_path,
            });
        }

        // The path: `{{key}}` of an insert parameter is its place; other placeholders are server
        // places or text; under compat `:key` of an insert parameter is its place too.
        let insert_keys: Vec<&str> = params
            .iter()
            .filter(|p| p.location == Location::Insert)
            .map(|p| p.key.as_str())
            .collect();
        let mut path = Vec::new();
        let path_text = tool.path.as_str();
        let mut at = 0;
        for i in find_interpolations(path_text) {
            let piece = match InterpolationKind::of(&i.inner) {
                InterpolationKind::Bare(k) if insert_keys.contains(&k) => Some(Piece::Insert {
                    key: k.to_string(),
                    written: path_text[i.start..i.end].to_string(),
                }),
                _ => server_key(&i.inner, main, profile)
                    .map(|k| Piece::Part(Part::Server(k.to_string()))),
            };
            if let Some(piece) = piece {
                colon_pieces(&mut path, &path_text[at..i.start], &insert_keys, compat);
                path.push(piece);
                at = i.end;
            }
        }
        colon_pieces(&mut path, &path_text[at..], &insert_keys, compat);

        let mut headers: Vec<(String, Template)> = Vec::new();
        for (k, v) in main.headers.iter().chain(tool.headers.iter()) {
            headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(k));
            headers.push((k.clone(), Template::parse(v, main, profile)));
        }

        let sends_body = tool.method.allows_body()
            && (compat || params.iter().any(|p| p.location == Location::Body));
        let body_keys = params.iter().filter(|p| p.location == Location::Body);
        let (body_refused, warnings) = if tool.method.allows_body() {
            (None, Vec::new())
        } else if compat {
            let warnings = body_keys
                .map(|p| {
                    format!(
                        "body parameter \"{}\" is not sent on a {} request",
                        p.key,
                        tool.method.as_str()
                    )
                })
                .collect();
            (None, warnings)
        } else {
            (body_keys.map(|p| p.key.clone()).next(), Vec::new())
        };

        let auth = main
            .typed_auth()
            .map_err(|problems| RequestError::Auth {
                tool: tool_name.to_string(),
                reason: problems
                    .first()
                    .map(|p| format!("{} {}", p.code.as_str(), p.message))
                    .unwrap_or_default(),
            })?
            .map(Arc::new);
        Ok(RequestPlan {
            auth,
            tool: tool_name.to_string(),
            method: tool.method,
            root: main
                .root
                .as_deref()
                .map(|r| Template::parse(r, main, profile))
                .unwrap_or_default(),
            path,
            params,
            headers,
            body_refused,
            warnings,
            sends_body,
            preload: tool.preload.as_ref().filter(|p| p.enabled).map(|p| {
                let note = p.description.clone().filter(|d| !d.trim().is_empty());
                (p.ttl, note)
            }),
        })
    }

    /// How long a response may be served from the preload cache; `None` when the tool is not
    /// preloaded.
    pub(crate) fn preload_ttl(&self) -> Option<u64> {
        self.preload.as_ref().map(|(ttl, _)| *ttl)
    }

    /// The tool's `preload.description`, when it is preloaded and has one.
    pub(crate) fn preload_note(&self) -> Option<&str> {
        self.preload.as_ref().and_then(|(_, note)| note.as_deref())
    }

    /// Whether parameter `i` (in declaration order) comes from the caller's inputs: the one
    /// decision of its role, which the descriptor's input schema reads too.
    pub(crate) fn is_user(&self, i: usize) -> bool {
        self.params.get(i).is_some_and(|p| p.role == Planned::User)
    }

    /// Builds the request "struct" from validated `inputs` (see [`build_request`]).
    pub(crate) fn build(
        &self,
        inputs: &IndexMap<String, Value>,
        server_params: &ServerParams,
        root_override: Option<&str>,
    ) -> Result<PreparedRequest, RequestError> {
        let name = || self.tool.clone();
        let root = match root_override {
            Some(r) => Cow::Owned(Template(vec![Part::Text(
                r.trim_end_matches('/').to_string(),
            )])),
            None => Cow::Borrowed(&self.root),
        };
        if root.0.is_empty() {
            return Err(RequestError::NoRoot { tool: name() });
        }
        let mut slots = SecretSlots::new();
        let mut used: Vec<String> = Vec::new();
        let mut note = |t: &Template| {
            for p in &t.0 {
                if let Part::Server(k) = p
                    && !used.contains(k)
                {
                    used.push(k.clone());
                }
            }
        };
        note(&root);

        // Insert values, by key.
        let mut inserts: IndexMap<&str, Cow<'_, Template>> = IndexMap::new();
        for p in self
            .params
            .iter()
            .filter(|p| p.location == Location::Insert)
        {
            let key = p.key.as_str();
            let t = match &p.role {
                Planned::User => match inputs.get(key) {
                    Some(v) => {
                        let text = query_text(v);
                        if text == "." || text == ".." {
                            return Err(RequestError::DotSegment {
                                tool: name(),
                                key: key.to_string(),
                                value: text,
                            });
                        }
                        Cow::Owned(Template(vec![Part::Text(Encoding::Segment.encode(&text))]))
                    }
                    // An omitted (optional) insert value is an error only when the path uses it: a
                    // handler may consume it instead (`executeRequest`).
                    None if p.in_path => {
                        return Err(RequestError::MissingInsert {
                            tool: name(),
                            key: key.to_string(),
                        });
                    }
                    None => continue,
                },
                Planned::Server(k) => Cow::Owned(Template(vec![Part::Server(k.clone())])),
                Planned::Fixed(t, _) => Cow::Borrowed(t),
            };
            inserts.insert(key, t);
        }

        // URL: root + path (insert texts are encoded already).
        let mut path = Template::default();
        for piece in &self.path {
            match piece {
                Piece::Part(Part::Text(s)) => path.push_text(s),
                Piece::Part(s @ Part::Server(_)) => path.0.push(s.clone()),
                Piece::Insert { key, written } => match inserts.get(key.as_str()) {
                    Some(value) => extend(&mut path, value),
                    None => path.push_text(written),
                },
            }
        }
        note(&path);
        let root_text = root.render(&mut slots, Encoding::Raw);
        let mut url = root_text.clone();
        url.push_str(&path.render(&mut slots, Encoding::Raw));

        // Query.
        let mut query: Vec<String> = Vec::new();
        for p in self.params.iter().filter(|p| p.location == Location::Query) {
            let value = match &p.role {
                Planned::User => match inputs.get(&p.key) {
                    Some(v) => Cow::Owned(Template(vec![Part::Text(query_text(v))])),
                    None => continue,
                },
                Planned::Server(k) => Cow::Owned(Template(vec![Part::Server(k.clone())])),
                Planned::Fixed(t, _) => Cow::Borrowed(t),
            };
            note(&value);
            query.push(format!(
                "{}={}",
                Encoding::Form.encode(&p.key),
                value.render(&mut slots, Encoding::Form)
            ));
        }
        if !query.is_empty() {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&query.join("&"));
        }

        // Body.
        if let Some(key) = &self.body_refused {
            return Err(RequestError::BodyNotAllowed {
                tool: name(),
                key: key.clone(),
                method: self.method.as_str(),
            });
        }
        let body = if self.sends_body {
            let mut body = Map::new();
            for p in self.params.iter().filter(|p| p.location == Location::Body) {
                let value = match &p.role {
                    Planned::User => match inputs.get(&p.key) {
                        Some(v) => v.clone(),
                        None => continue,
                    },
                    Planned::Server(k) => {
                        let t = Template(vec![Part::Server(k.clone())]);
                        note(&t);
                        Value::String(t.render(&mut slots, Encoding::Raw))
                    }
                    Planned::Fixed(_, Some(typed)) => typed.clone(),
                    Planned::Fixed(t, None) => {
                        note(t);
                        Value::String(t.render(&mut slots, Encoding::Raw))
                    }
                };
                body.insert(p.key.clone(), value);
            }
            Some(Value::Object(body))
        } else {
            None
        };

        // Headers: main, then tool (case-insensitive override), compiled.
        let mut headers: IndexMap<String, String> = IndexMap::with_capacity(self.headers.len() + 1);
        for (k, t) in &self.headers {
            note(t);
            headers.insert(k.clone(), t.render(&mut slots, Encoding::Raw));
        }
        if body.is_some() {
            json_content_type(&mut headers);
        }

        if let Some(auth) = &self.auth {
            for k in auth.server_params() {
                if !used.iter().any(|u| u == k) {
                    used.push(k.to_string());
                }
            }
        }
        let missing = server_params.missing(used.iter().map(String::as_str));
        if !missing.is_empty() {
            return Err(RequestError::MissingServerParams {
                tool: name(),
                names: missing,
            });
        }
        Ok(PreparedRequest {
            auth: self.auth.clone(),
            tool: name(),
            method: self.method,
            url,
            headers,
            body,
            root: root_text,
            slots,
            used,
            warnings: self.warnings.clone(),
        })
    }
}

fn extend(t: &mut Template, other: &Template) {
    for p in &other.0 {
        match p {
            Part::Text(s) => t.push_text(s),
            s @ Part::Server(_) => t.0.push(s.clone()),
        }
    }
}

/// Path text as pieces: under compat each `:key` of an insert parameter (a whole name:
/// [`colon_key_matches`]) is that insert's place; otherwise the text as it is.
fn colon_pieces(out: &mut Vec<Piece>, text: &str, keys: &[&str], compat: bool) {
    let push_text = |out: &mut Vec<Piece>, s: &str| {
        if s.is_empty() {
            return;
        }
        if let Some(Piece::Part(Part::Text(last))) = out.last_mut() {
            last.push_str(s);
        } else {
            out.push(Piece::Part(Part::Text(s.to_string())));
        }
    };
    if !compat || !text.contains(':') {
        push_text(out, text);
        return;
    }
    let mut at = 0;
    for (pos, key) in colon_key_matches(text, keys) {
        if pos < at {
            continue;
        }
        push_text(out, &text[at..pos]);
        let end = pos + 1 + key.len();
        out.push(Piece::Insert {
            key: key.to_string(),
            written: text[pos..end].to_string(),
        });
        at = end;
    }
    push_text(out, &text[at..]);
}

/// Fills in the server parameters and checks that the URL keeps the schema's origin; applies
/// `main.auth` at the system's time ([`finalize_with`]). Errors never contain a secret value.
pub fn finalize(
    req: &PreparedRequest,
    params: &ServerParams,
) -> Result<FinalRequest, RequestError> {
    finalize_with(req, params, &AuthInputs::at(SystemTime::now()))
}

/// [`finalize`] with the time and token `main.auth` uses: the headers it adds (a signature and
/// its time, basic credentials, a bearer token) replace headers of the same name, whatever a
/// handler set, and the ones that carry secrets are marked so ([`FinalRequest::secret_headers`]).
pub fn finalize_with(
    req: &PreparedRequest,
    params: &ServerParams,
    auth: &AuthInputs,
) -> Result<FinalRequest, RequestError> {
    let origin = req.origin(params)?;
    let mut missing = Vec::new();
    let slots = &req.slots;
    // Tokens before the query are path text, after it query text.
    let (path, query) = match req.url.find('?') {
        Some(i) => req.url.split_at(i),
        None => (req.url.as_str(), ""),
    };
    let (mut url, _) = slots.fill(path, params, Encoding::Segment, &mut missing);
    url.push_str(&slots.fill(query, params, Encoding::Form, &mut missing).0);
    let mut headers = Vec::with_capacity(req.headers.len());
    let mut secret_headers = Vec::new();
    for (k, v) in &req.headers {
        let (value, secret) = slots.fill(v, params, Encoding::Raw, &mut missing);
        if secret {
            secret_headers.push(k.clone());
        }
        headers.push((k.clone(), Secret::new(value)));
    }
    let mut body_has_secret = false;
    let body = req.body.as_ref().map(|b| {
        let (text, secret) = slots.fill(&b.to_string(), params, Encoding::JsonString, &mut missing);
        body_has_secret = secret;
        Secret::new(text)
    });
    if !missing.is_empty() {
        return Err(RequestError::MissingServerParams {
            tool: req.tool.clone(),
            names: missing,
        });
    }
    let parsed = url::Url::parse(&url).map_err(|e| RequestError::InvalidUrl {
        tool: req.tool.clone(),
        reason: params.redact(&e.to_string()),
    })?;
    if parsed.origin() != origin {
        return Err(RequestError::OtherOrigin {
            tool: req.tool.clone(),
            origin: params.redact(&origin.ascii_serialization()),
        });
    }
    let mut auth_secrets = Vec::new();
    if let Some(declared) = &req.auth {
        let signed = crate::auth::Signed {
            method: req.method,
            url: &parsed,
            body: body
                .as_ref()
                .filter(|_| req.method.allows_body())
                .map(Secret::expose),
        };
        let added = crate::auth::apply(declared, &signed, params, auth).map_err(|reason| {
            RequestError::Auth {
                tool: req.tool.clone(),
                reason: params.redact(&reason),
            }
        })?;
        auth_secrets.extend(added.hide.into_iter().map(Secret::new));
        for (name, value, secret) in added.headers {
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case(&name));
            secret_headers.retain(|k| !k.eq_ignore_ascii_case(&name));
            if secret {
                secret_headers.push(name.clone());
            }
            headers.push((name, Secret::new(value)));
        }
    }
    Ok(FinalRequest {
        method: req.method,
        url: Secret::new(parsed.to_string()),
        headers,
        secret_headers,
        body,
        body_has_secret,
        auth_secrets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn main_of(tool: Value, required: &[&str]) -> SchemaMain {
        SchemaMain::from_json(&json!({
            "namespace": "ns", "name": "N", "description": "d", "version": "4.2.0",
            "root": "https://api.example.com/v1",
            "requiredServerParams": required,
            "headers": {"Accept": "application/json", "X-Key": "{{SERVER_PARAM:KEY}}"},
            "tools": {"t": tool}
        }))
        .expect("schema")
    }

    fn inputs(v: Value) -> IndexMap<String, Value> {
        v.as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    fn params() -> ServerParams {
        let mut p = ServerParams::new();
        p.insert("KEY", "CANARY-9f3a");
        p
    }

    /// Issue #44: `main.auth` is applied when the request is finalized, never before: handlers
    /// see neither the header nor its value; the signature replaces a handler's header of the same
    /// name, is a secret header and is listed to be hidden; `Debug` shows none of it.
    #[test]
    fn i44_auth_is_added_at_finalize_as_a_secret_header() {
        let mut raw = json!({
            "namespace": "ns", "name": "N", "description": "d", "version": "4.2.0",
            "root": "https://api.example.com/v1",
            "requiredServerParams": ["KEY", "SECRET"],
            "headers": {"X-Key": "{{SERVER_PARAM:KEY}}"},
            "auth": {"kind": "signature", "digest": "hmac-sha256", "key": "{{SERVER_PARAM:SECRET}}",
                     "parts": ["method", "path", "query", "time"], "separator": "\n",
                     "output": "base64", "header": "X-Signature", "prefix": "v1=",
                     "timeHeader": "X-Time"},
            "tools": {"t": {"method": "GET", "path": "/items", "description": "d", "parameters": [
                param("q", "{{USER_PARAM}}", "query", "string()")]}}
        });
        let main = SchemaMain::from_value(raw.take()).expect("schema");
        let mut p = params();
        p.insert("SECRET", "CANARY-hmac-key");
        let plan = RequestPlan::compile("t", &main, Profile::Spec).expect("plan");
        let mut prepared = plan
            .build(&inputs(json!({"q": "a b"})), &p, None)
            .expect("built");
        let seen = prepared.to_struct_json().to_string();
        assert!(
            !seen.contains("X-Signature") && !seen.contains("X-Time"),
            "{seen}"
        );
        // A handler that sets the header itself is overridden.
        let mut handled = prepared.to_struct_json();
        handled["headers"]["x-signature"] = json!("forged");
        prepared.apply_struct(&handled).expect("struct");
        let now = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let fin = finalize_with(&prepared, &p, &AuthInputs::at(now)).expect("final");
        let header = |name: &str| {
            fin.headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.expose().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(header("X-Time"), vec!["1700000000"]);
        let sig = header("X-Signature");
        assert_eq!(sig.len(), 1, "{sig:?}");
        assert!(
            sig[0].starts_with("v1=") && sig[0].len() == 3 + 44,
            "{sig:?}"
        );
        assert!(fin.secret_headers.iter().any(|h| h == "X-Signature"));
        assert!(!fin.secret_headers.iter().any(|h| h == "X-Time"));
        let bare = &sig[0][3..];
        assert!(fin.auth_secrets.iter().any(|s| s.expose() == bare));
        let debug = format!("{fin:?} {prepared:?}");
        for hidden in [bare, "CANARY-hmac-key", "CANARY-9f3a"] {
            assert!(!debug.contains(hidden), "{hidden} in {debug}");
        }
        // Another second, another signature.
        let later = now + std::time::Duration::from_secs(1);
        let again = finalize_with(&prepared, &p, &AuthInputs::at(later)).expect("final");
        let other = again
            .headers
            .iter()
            .find(|(k, _)| k == "X-Signature")
            .map(|(_, v)| v.expose().to_string());
        assert_ne!(other.as_deref(), Some(sig[0].as_str()));
    }

    /// Issue #29, call plan: a tool's request is compiled once — every role decided, the path cut
    /// into text, server places and insert places (`{{key}}`, and `:key` under compat), fixed
    /// values parsed and typed — and each call builds from it alone; the result is what
    /// `build_request` gives.
    #[test]
    fn i29_3_a_compiled_plan_decides_once_and_builds_every_call() {
        let main = main_of(
            json!({"method": "POST", "path": "/a/{{id}}/:part/x", "description": "d",
                   "parameters": [
                       param("id", "{{USER_PARAM}}", "insert", "string()"),
                       param("part", "{{USER_PARAM}}", "insert", "string()"),
                       param("q", "fixed {{SERVER_PARAM:KEY}}", "query", "string()"),
                       param("n", "7", "body", "number()"),
                       param("u", "{{USER_PARAM}}", "body", "string()")]}),
            &["KEY"],
        );
        let plan = RequestPlan::compile("t", &main, Profile::Compat).expect("plan");
        assert_eq!(
            plan.params.iter().map(|p| &p.role).collect::<Vec<_>>(),
            [
                &Planned::User,
                &Planned::User,
                &Planned::Fixed(
                    Template(vec![
                        Part::Text("fixed ".into()),
                        Part::Server("KEY".into())
                    ]),
                    None
                ),
                &Planned::Fixed(Template(vec![Part::Text("7".into())]), Some(json!(7))),
                &Planned::User,
            ]
        );
        assert_eq!(
            plan.path,
            [
                Piece::Part(Part::Text("/a/".into())),
                Piece::Insert {
                    key: "id".into(),
                    written: "{{id}}".into()
                },
                Piece::Part(Part::Text("/".into())),
                Piece::Insert {
                    key: "part".into(),
                    written: ":part".into()
                },
                Piece::Part(Part::Text("/x".into())),
            ]
        );
        assert!(plan.is_user(0) && !plan.is_user(2) && !plan.is_user(9));
        for (id, part) in [("one", "a b"), ("two", "c/d")] {
            let given = inputs(json!({"id": id, "part": part, "u": "text"}));
            let built = plan.build(&given, &params(), None).expect("built");
            let direct =
                build_request("t", &main, &given, &params(), Profile::Compat, None).expect("built");
            assert_eq!(
                built.url[..built.url.find('?').unwrap_or(0)],
                direct.url[..direct.url.find('?').unwrap_or(0)]
            );
            assert!(
                built.url.starts_with(&format!(
                    "https://api.example.com/v1/a/{id}/{}/x?q=fixed+",
                    Encoding::Segment.encode(part)
                )),
                "{}",
                built.url
            );
            assert_eq!(built.body, Some(json!({"n": 7, "u": "text"})));
        }
    }

    fn param(key: &str, value: &str, location: &str, primitive: &str) -> Value {
        json!({"position": {"key": key, "value": value, "location": location},
               "z": {"primitive": primitive, "options": []}})
    }

    #[test]
    fn insert_encoding_query_arrays_and_secrets_late() {
        let main = main_of(
            json!({"method": "GET", "path": "/items/{{id}}/x", "description": "d", "parameters": [
                param("id", "{{USER_PARAM}}", "insert", "string()"),
                param("ids", "{{USER_PARAM}}", "query", "array()"),
                param("mode", "fast", "query", "string()"),
                param("mode", "{{USER_PARAM}}", "query", "string()"),
                param("apikey", "{{SERVER_PARAM:KEY}}", "query", "string()")
            ]}),
            &["KEY"],
        );
        let p = params();
        let req = build_request(
            "t",
            &main,
            &inputs(json!({"id": "a/b c", "ids": ["bitcoin", "ethereum"], "mode": "x y"})),
            &p,
            Profile::Spec,
            None,
        )
        .expect("request");
        let dbg = format!("{req:?} {}", req.to_struct_json());
        assert!(!dbg.contains("CANARY"), "{dbg}");
        assert_eq!(
            req.display_url(),
            "https://api.example.com/v1/items/a%2Fb%20c/x?ids=bitcoin%2Cethereum&mode=fast&mode=x+y&apikey={{SERVER_PARAM:KEY}}"
        );
        // Handlers see the slot token, which the display shows as the placeholder.
        let header = req.to_struct_json()["headers"]["X-Key"].clone();
        let header = header.as_str().unwrap_or_default();
        assert!(header.starts_with("secret-key-"), "{header}");
        assert_eq!(req.slots().display(header), "{{SERVER_PARAM:KEY}}");
        let fin = finalize(&req, &p).expect("final");
        assert!(!format!("{fin:?}").contains("CANARY"));
        assert_eq!(
            fin.url.expose(),
            "https://api.example.com/v1/items/a%2Fb%20c/x?ids=bitcoin%2Cethereum&mode=fast&mode=x+y&apikey=CANARY-9f3a"
        );
        assert_eq!(fin.headers[1].0, "X-Key");
        assert_eq!(fin.headers[1].1.expose(), "CANARY-9f3a");
        assert!(fin.body.is_none());
    }

    #[test]
    fn user_text_resembling_a_placeholder_is_not_filled() {
        let main = main_of(
            json!({"method": "GET", "path": "/s", "description": "d", "parameters": [
                param("q", "{{USER_PARAM}}", "query", "string()")
            ]}),
            &["KEY"],
        );
        let p = params();
        let req = build_request(
            "t",
            &main,
            &inputs(json!({"q": "{{SERVER_PARAM:KEY}} {{KEY}}"})),
            &p,
            Profile::Compat,
            None,
        )
        .expect("request");
        let fin = finalize(&req, &p).expect("final");
        assert!(!fin.url.expose().contains("CANARY"), "{}", fin.url.expose());
    }

    #[test]
    fn missing_server_params_name_the_variable() {
        let main = main_of(
            json!({"method": "GET", "path": "/s", "description": "d", "parameters": []}),
            &["KEY"],
        );
        let e = build_request(
            "t",
            &main,
            &IndexMap::new(),
            &ServerParams::new(),
            Profile::Spec,
            None,
        )
        .expect_err("missing");
        assert_eq!(e.code(), Code::E006);
        assert_eq!(
            e.envelope().messages(),
            vec!["E006 t: missing server parameter: KEY"]
        );
        // finalize with other params also reports it.
        let req = build_request("t", &main, &IndexMap::new(), &params(), Profile::Spec, None)
            .expect("req");
        let e = finalize(&req, &ServerParams::new()).expect_err("missing");
        assert_eq!(e.to_string(), "missing server parameter: KEY");
    }

    #[test]
    fn body_typing_and_content_type() {
        let main = main_of(
            json!({"method": "POST", "path": "/q", "description": "d", "parameters": [
                param("n", "{{USER_PARAM}}", "body", "number()"),
                param("o", "{{USER_PARAM}}", "body", "object()"),
                param("fixedNum", "5", "body", "number()"),
                param("fixedBool", "true", "body", "boolean()"),
                param("secret", "{{SERVER_PARAM:KEY}}", "body", "string()"),
                param("absent", "{{USER_PARAM}}", "body", "string()")
            ]}),
            &["KEY"],
        );
        let p = params();
        let req = build_request(
            "t",
            &main,
            &inputs(json!({"n": 1.5, "o": {"a": [1]}})),
            &p,
            Profile::Spec,
            None,
        )
        .expect("request");
        let shown: Value = serde_json::from_str(
            &req.slots()
                .display(&req.to_struct_json()["body"].to_string()),
        )
        .unwrap_or_default();
        assert_eq!(
            shown,
            json!({"n": 1.5, "o": {"a": [1]}, "fixedNum": 5, "fixedBool": true, "secret": "{{SERVER_PARAM:KEY}}"})
        );
        let fin = finalize(&req, &p).expect("final");
        let body: Value = serde_json::from_str(fin.body.as_ref().map(Secret::expose).unwrap_or(""))
            .unwrap_or_default();
        assert_eq!(body["secret"], "CANARY-9f3a");
        assert!(fin.body_has_secret);
        assert_eq!(body["n"], 1.5);
        assert!(
            fin.headers
                .iter()
                .any(|(k, v)| k == "Content-Type" && v.expose() == "application/json")
        );
    }

    /// Issue #41: a POST or PUT without body parameters sends no body under `spec` (an OpenAPI
    /// operation without a request body gets none), and `{}` under `compat`, as the reference;
    /// a body a `preRequest` handler adds is sent as JSON with its content type.
    #[test]
    fn i41_a_post_without_body_parameters_sends_no_body_under_spec() {
        let main = main_of(
            json!({"method": "POST", "path": "/run", "description": "d", "parameters": [
                param("q", "{{USER_PARAM}}", "query", "string()")
            ]}),
            &["KEY"],
        );
        let p = params();
        let content_type = |fin: &FinalRequest| {
            fin.headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        };
        let spec = build_request(
            "t",
            &main,
            &inputs(json!({"q": "x"})),
            &p,
            Profile::Spec,
            None,
        )
        .expect("spec");
        assert_eq!(spec.to_struct_json()["body"], Value::Null);
        let fin = finalize(&spec, &p).expect("final");
        assert!(fin.body.is_none());
        assert!(!content_type(&fin));

        let compat = build_request(
            "t",
            &main,
            &inputs(json!({"q": "x"})),
            &p,
            Profile::Compat,
            None,
        )
        .expect("compat");
        let fin = finalize(&compat, &p).expect("final");
        assert_eq!(fin.body.as_ref().map(Secret::expose), Some("{}"));
        assert!(content_type(&fin));

        let mut handled = spec.clone();
        handled
            .apply_struct(&json!({"body": {"k": 1}}))
            .expect("struct");
        let fin = finalize(&handled, &p).expect("final");
        assert_eq!(fin.body.as_ref().map(Secret::expose), Some(r#"{"k":1}"#));
        assert!(content_type(&fin));

        // Every body parameter absent still sends the (empty) object the route declares.
        let main = main_of(
            json!({"method": "PUT", "path": "/run", "description": "d", "parameters": [
                param("b", "{{USER_PARAM}}", "body", "string()")
            ]}),
            &["KEY"],
        );
        let put =
            build_request("t", &main, &inputs(json!({})), &p, Profile::Spec, None).expect("put");
        let fin = finalize(&put, &p).expect("final");
        assert_eq!(fin.body.as_ref().map(Secret::expose), Some("{}"));
    }

    #[test]
    fn body_on_get_spec_error_compat_dropped() {
        let main = main_of(
            json!({"method": "GET", "path": "/q", "description": "d", "parameters": [
                param("b", "{{USER_PARAM}}", "body", "string()")
            ]}),
            &[],
        );
        let sp = ServerParams::new();
        let main = SchemaMain {
            headers: IndexMap::new(),
            ..main
        };
        let e = build_request(
            "t",
            &main,
            &inputs(json!({"b": "x"})),
            &sp,
            Profile::Spec,
            None,
        )
        .expect_err("spec");
        assert!(matches!(e, RequestError::BodyNotAllowed { .. }));
        let r = build_request(
            "t",
            &main,
            &inputs(json!({"b": "x"})),
            &sp,
            Profile::Compat,
            None,
        )
        .expect("compat");
        assert!(r.to_struct_json()["body"].is_null());
        assert_eq!(r.warnings().len(), 1);
    }

    #[test]
    fn compat_colon_keys_and_bare_server_params_and_override() {
        let main = SchemaMain::from_json(&json!({
            "namespace": "ns", "name": "N", "description": "d", "version": "4.2.0",
            "root": "https://api.example.com",
            "requiredServerParams": ["TOKEN"],
            "tools": {"t": {"method": "GET", "path": "/feed/:city/:cityId/{{TOKEN}}", "description": "d", "parameters": [
                param("city", "{{CITY}}", "insert", "string()"),
                param("cityId", "{{USER_PARAM}}", "insert", "number()"),
                param("t", "{{TOKEN}}", "query", "string()")
            ]}}
        }))
        .expect("schema");
        let mut sp = ServerParams::new();
        sp.insert("TOKEN", "tok en");
        let req = build_request(
            "t",
            &main,
            &inputs(json!({"city": "São Paulo", "cityId": 7})),
            &sp,
            Profile::Compat,
            Some("https://mock.local:8080/"),
        )
        .expect("request");
        let fin = finalize(&req, &sp).expect("final");
        assert_eq!(
            fin.url.expose(),
            "https://mock.local:8080/feed/S%C3%A3o%20Paulo/7/tok%20en?t=tok+en"
        );
        assert!(
            fin.secret_headers.is_empty() && !fin.body_has_secret,
            "{fin:?}"
        );
        // Under spec, `:city` is left alone and `{{TOKEN}}` is not a server param.
        let spec = build_request(
            "t",
            &main,
            &inputs(json!({"cityId": 7})),
            &sp,
            Profile::Spec,
            None,
        )
        .expect("spec");
        assert_eq!(
            spec.display_url(),
            "https://api.example.com/feed/:city/:cityId/{{TOKEN}}?t=%7B%7BTOKEN%7D%7D"
        );
    }

    #[test]
    fn missing_insert_and_no_root() {
        let main = main_of(
            json!({"method": "GET", "path": "/{{id}}", "description": "d", "parameters": [
                param("id", "{{USER_PARAM}}", "insert", "string()")
            ]}),
            &[],
        );
        let sp = params();
        assert!(matches!(
            build_request("t", &main, &IndexMap::new(), &sp, Profile::Spec, None),
            Err(RequestError::MissingInsert { .. })
        ));
        // An omitted insert value the path does not use is fine (a handler may consume it).
        let unused = main_of(
            json!({"method": "GET", "path": "/", "description": "d", "parameters": [
                param("id", "{{USER_PARAM}}", "insert", "string()")
            ]}),
            &[],
        );
        let r = build_request("t", &unused, &IndexMap::new(), &sp, Profile::Spec, None)
            .expect("unused insert may be omitted");
        assert_eq!(r.display_url(), "https://api.example.com/v1/");
        let no_root = SchemaMain { root: None, ..main };
        let e = build_request(
            "t",
            &no_root,
            &inputs(json!({"id": "1"})),
            &sp,
            Profile::Spec,
            None,
        )
        .expect_err("no root");
        assert_eq!(e.code(), Code::E007);
        assert!(matches!(
            build_request("zz", &no_root, &IndexMap::new(), &sp, Profile::Spec, None),
            Err(RequestError::UnknownTool { .. })
        ));
    }

    /// Issue #27 item 14: a secret written in any encoding the runtime has is redacted, alone or
    /// inside a longer encoded text. Values are filled into requests only through [`Encoding`]
    /// ([`SecretSlots::fill`] takes nothing else) and `encodings!` declares [`Encoding::ALL`] with
    /// the enum, so an encoding added to the builder is in this loop, and in the redactor's
    /// patterns, from its first use.
    #[test]
    fn item14_every_encoding_of_a_secret_is_redacted() {
        let hostile = "k\u{e9}\"y\\/+ &=\t%41\u{1}~Z-9";
        let mut p = ServerParams::new();
        p.insert("K", hostile);
        let mut slots = SecretSlots::new();
        let token = slots.token("K");
        for e in Encoding::ALL {
            for form in e.forms(hostile) {
                assert_eq!(
                    p.redact(&format!("<{form}>")),
                    "<[redacted]>",
                    "{e:?}: {form}"
                );
            }
            for (before, after) in [("", ""), ("a", "z"), ("ab", "yz"), ("abc", "")] {
                let embedded = e.encode(&format!("{before}{hostile}{after}"));
                assert!(
                    p.redact(&embedded).contains("[redacted]"),
                    "{e:?}: {embedded}"
                );
            }
            let mut missing = Vec::new();
            let (filled, secret) = slots.fill(&format!("x{token}y"), &p, *e, &mut missing);
            assert!(secret && missing.is_empty());
            assert_eq!(p.redact(&filled), "x[redacted]y", "{e:?}: {filled}");
        }
        assert_eq!(Encoding::JsonString.encode("a\"b\\c\t"), "a\\\"b\\\\c\\t");
        assert_eq!(Encoding::Base64.encode("foobar"), "Zm9vYmFy");
    }

    #[test]
    fn query_text_forms() {
        assert_eq!(query_text(&json!(["a", 1, true, [2]])), "a,1,true,[2]");
        assert_eq!(query_text(&json!({"a": 1})), "{\"a\":1}");
        assert_eq!(query_text(&json!(52.52)), "52.52");
        assert_eq!(query_text(&Value::Null), "");
        assert_eq!(Encoding::Segment.encode("a/b c"), "a%2Fb%20c");
        assert_eq!(Encoding::Segment.encode("A-z_0.9~"), "A-z_0.9~");
    }
}
