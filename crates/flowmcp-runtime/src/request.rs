//! Building the HTTP request of a tool call, in two steps so that secrets enter as late as
//! possible:
//!
//! 1. [`build_request`] produces a [`PreparedRequest`], the "struct" that `preRequest` handlers
//!    see. Server parameters are still placeholders ([`Part::Server`]); user values are already in.
//! 2. [`finalize`] substitutes the server parameters and gives a [`FinalRequest`] whose URL,
//!    header values and body are [`Secret`]s (their `Debug` prints `[redacted]`).
//!
//! Server parameters are substituted only where the schema put a placeholder (root, path,
//! headers, parameter values); a user value that happens to contain `{{KEY}}` stays literal text.
//!
//! Rules (RULINGS "Runtime details" and the compat table):
//! * URL = root (or the `--upstream` override) + path; `insert` values are percent-encoded as one
//!   path segment (`a/b c` → `a%2Fb%20c`) into `{{key}}`, and under compat into `:key`;
//! * `query` parameters in parameter order, duplicate keys kept, arrays comma-joined, objects as
//!   JSON text, fixed values included, form-urlencoded; omitted optional values are left out;
//! * `body` parameters form a JSON object for POST/PUT keeping JSON types (fixed values are typed
//!   through their `z`); on GET/DELETE they are an error under `spec` and dropped with a warning
//!   under `compat`; POST/PUT get `Content-Type: application/json` unless a header sets it;
//! * headers: `main.headers`, overridden (case-insensitively) by the tool's `headers`.

use flowmcp_spec::Profile;
use flowmcp_spec::model::{Location, Method, SchemaMain};
use flowmcp_spec::zod::{InterpolationKind, find_interpolations};
use indexmap::IndexMap;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value, json};

use crate::descriptor::{ParamRole, param_role, server_key};
use crate::envelope::{ECode, Envelope};
use crate::secret::{Secret, ServerParams};

/// Characters escaped in a path segment: all but `A-Z a-z 0-9 - . _ ~`.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes `text` as one path segment.
pub fn encode_segment(text: &str) -> String {
    utf8_percent_encode(text, SEGMENT).to_string()
}

/// `{{SERVER_PARAM:KEY}}`: how a server parameter's hole is shown to handlers and in displays.
pub fn server_placeholder(key: &str) -> String {
    format!("{{{{SERVER_PARAM:{key}}}}}")
}

/// One piece of a [`Template`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Literal text.
    Text(String),
    /// The value of a server parameter, filled in by [`finalize`].
    Server(String),
}

/// A string with server-parameter holes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Template(pub Vec<Part>);

impl Template {
    /// Plain text.
    pub fn text(text: impl Into<String>) -> Self {
        Template(vec![Part::Text(text.into())])
    }

    /// Reads schema text: `{{SERVER_PARAM:KEY}}` (and under compat a bare declared `{{KEY}}`)
    /// become holes; anything else stays text.
    pub fn parse(text: &str, main: &SchemaMain, profile: Profile) -> Self {
        Template::parse_with(text, |inner| {
            server_key(inner, main, profile).map(str::to_string)
        })
    }

    /// Reads `text` with `key_of` deciding which interpolations (the text between `{{` and `}}`)
    /// are server-parameter holes, and for which parameter; everything else stays text.
    pub fn parse_with(text: &str, mut key_of: impl FnMut(&str) -> Option<String>) -> Self {
        let mut t = Template::default();
        let mut at = 0;
        for i in find_interpolations(text) {
            if let Some(key) = key_of(&i.inner) {
                t.push_text(&text[at..i.start]);
                t.0.push(Part::Server(key));
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

    fn extend(&mut self, other: Template) {
        for p in other.0 {
            match p {
                Part::Text(t) => self.push_text(&t),
                s @ Part::Server(_) => self.0.push(s),
            }
        }
    }

    /// The server-parameter names used, in order (may repeat).
    pub fn server_keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Part::Server(k) => Some(k.as_str()),
            Part::Text(_) => None,
        })
    }

    /// The text with holes shown as `{{SERVER_PARAM:KEY}}`.
    pub fn display(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.clone(),
                Part::Server(k) => server_placeholder(k),
            })
            .collect()
    }

    /// Fills the holes (each value passed through `encode`); unknown names are added to
    /// `missing`.
    pub(crate) fn fill(
        &self,
        params: &ServerParams,
        encode: fn(&str) -> String,
        missing: &mut Vec<String>,
    ) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Server(k) => match params.get(k) {
                    Some(s) => out.push_str(&encode(s.expose())),
                    None => {
                        if !missing.contains(k) {
                            missing.push(k.clone());
                        }
                    }
                },
            }
        }
        out
    }
}

/// A body member of a [`PreparedRequest`].
#[derive(Clone, Debug, PartialEq)]
pub enum BodyValue {
    /// A typed value (a user input, or a fixed value typed through its `z`).
    Json(Value),
    /// A string containing server-parameter holes.
    Template(Template),
}

/// The request before secrets are filled in: what `preRequest` handlers see. Contains no
/// server-parameter values.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedRequest {
    /// The tool name (as written in `main.tools`).
    pub tool: String,
    pub method: Method,
    /// Root + path with insert values, without the query.
    pub url: Template,
    /// Query pairs in order, values not yet encoded.
    pub query: Vec<(String, Template)>,
    /// Header name → value.
    pub headers: IndexMap<String, Template>,
    /// The JSON body members (POST/PUT only).
    pub body: Option<IndexMap<String, BodyValue>>,
    /// A whole body that is not an object (for example an array set by a `preRequest` handler);
    /// sent as JSON instead of [`PreparedRequest::body`]. It holds no server-parameter holes.
    pub raw_body: Option<Value>,
    /// Notes, e.g. dropped body parameters under compat.
    pub warnings: Vec<String>,
}

impl PreparedRequest {
    /// Every server-parameter name the request needs, without duplicates.
    pub fn server_keys(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |t: &Template| {
            for k in t.server_keys() {
                if !out.iter().any(|o| o == k) {
                    out.push(k.to_string());
                }
            }
        };
        add(&self.url);
        self.query.iter().for_each(|(_, v)| add(v));
        self.headers.values().for_each(&mut add);
        if let Some(body) = &self.body {
            for v in body.values() {
                if let BodyValue::Template(t) = v {
                    add(t);
                }
            }
        }
        out
    }

    /// The URL for display and handlers: query form-encoded, holes as placeholders.
    pub fn display_url(&self) -> String {
        let mut url = self.url.display();
        if !self.query.is_empty() {
            url.push(if url.contains('?') { '&' } else { '?' });
            let pairs: Vec<String> = self
                .query
                .iter()
                .map(|(k, v)| {
                    let value: String =
                        v.0.iter()
                            .map(|p| match p {
                                Part::Text(t) => form_encode(t),
                                Part::Server(k) => server_placeholder(k),
                            })
                            .collect();
                    format!("{}={value}", form_encode(k))
                })
                .collect();
            url.push_str(&pairs.join("&"));
        }
        url
    }

    /// The handler view `{ url, method, headers, body }` (placeholders left in).
    pub fn to_struct_json(&self) -> Value {
        let headers: Map<String, Value> = self
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), json!(v.display())))
            .collect();
        let body = self.body.as_ref().map(|b| {
            Value::Object(
                b.iter()
                    .map(|(k, v)| {
                        let v = match v {
                            BodyValue::Json(j) => j.clone(),
                            BodyValue::Template(t) => json!(t.display()),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            )
        });
        let body = self.raw_body.clone().or(body);
        json!({
            "url": self.display_url(),
            "method": self.method.as_str(),
            "headers": headers,
            "body": body,
        })
    }
}

fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The request ready to send. Every part that may hold a secret is a [`Secret`].
#[derive(Clone, Debug)]
pub struct FinalRequest {
    pub method: Method,
    /// The full URL (parsed and serialised by the WHATWG rules of `url::Url`).
    pub url: Secret,
    /// Headers in order.
    pub headers: Vec<(String, Secret)>,
    /// The JSON body text (POST/PUT).
    pub body: Option<Secret>,
}

/// Why a request could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("tool does not exist")]
    UnknownTool { tool: String },
    #[error("the schema has no root and no --upstream override was given")]
    NoRoot { tool: String },
    #[error("no value for path parameter \"{key}\"")]
    MissingInsert { tool: String, key: String },
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
}

impl RequestError {
    /// The tool the error belongs to.
    pub fn tool(&self) -> &str {
        match self {
            RequestError::UnknownTool { tool }
            | RequestError::NoRoot { tool }
            | RequestError::MissingInsert { tool, .. }
            | RequestError::BodyNotAllowed { tool, .. }
            | RequestError::MissingServerParams { tool, .. }
            | RequestError::InvalidUrl { tool, .. } => tool,
        }
    }

    /// The runtime code: E006 for missing server parameters, E009 for an invalid URL, E007
    /// otherwise (the call cannot be made as given).
    pub fn code(&self) -> ECode {
        match self {
            RequestError::MissingServerParams { .. } => ECode::E006,
            RequestError::InvalidUrl { .. } => ECode::E009,
            _ => ECode::E007,
        }
    }

    /// The failure envelope, e.g. `E006 getThing: missing server parameter: API_KEY`.
    pub fn envelope(&self) -> Envelope {
        Envelope::error(self.code(), self.tool(), &self.to_string())
    }
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
/// `root_override` replaces `main.root` (the `--upstream` of the namespace). Fails with E006 when
/// a server parameter the request needs has no value in `server_params` (names only).
pub fn build_request(
    tool_name: &str,
    main: &SchemaMain,
    inputs: &IndexMap<String, Value>,
    server_params: &ServerParams,
    profile: Profile,
    root_override: Option<&str>,
) -> Result<PreparedRequest, RequestError> {
    let tool = main
        .tools
        .get(tool_name)
        .ok_or_else(|| RequestError::UnknownTool {
            tool: tool_name.to_string(),
        })?;
    let name = || tool_name.to_string();
    let root = root_override
        .map(|r| r.trim_end_matches('/'))
        .or(main.root.as_deref())
        .filter(|r| !r.is_empty())
        .ok_or_else(|| RequestError::NoRoot { tool: name() })?;
    let mut warnings = Vec::new();

    // Insert values, by key.
    let mut inserts: IndexMap<&str, Template> = IndexMap::new();
    for p in tool
        .parameters
        .iter()
        .filter(|p| p.position.location == Location::Insert)
    {
        let key = p.position.key.as_str();
        let t = match param_role(p, main, profile) {
            ParamRole::User => match inputs.get(key) {
                Some(v) => Template::text(encode_segment(&query_text(v))),
                // An omitted (optional) insert value is an error only when the path uses it: a
                // handler may consume it instead (`executeRequest`).
                None => {
                    let used = tool.path.contains(&format!("{{{{{key}}}}}"))
                        || (profile.is_compat() && tool.path.contains(&format!(":{key}")));
                    if used {
                        return Err(RequestError::MissingInsert {
                            tool: name(),
                            key: key.to_string(),
                        });
                    }
                    continue;
                }
            },
            ParamRole::Server(k) => Template(vec![Part::Server(k.to_string())]),
            ParamRole::Fixed(v) => {
                let mut t = Template::default();
                for part in Template::parse(v, main, profile).0 {
                    match part {
                        Part::Text(s) => t.push_text(&encode_segment(&s)),
                        s @ Part::Server(_) => t.0.push(s),
                    }
                }
                t
            }
        };
        inserts.insert(key, t);
    }

    // URL: root + path.
    let mut url = Template::parse(root, main, profile);
    let path = tool.path.as_str();
    let mut at = 0;
    for i in find_interpolations(path) {
        let replacement = match InterpolationKind::of(&i.inner) {
            InterpolationKind::Bare(k) if inserts.contains_key(k) => inserts.get(k).cloned(),
            _ => server_key(&i.inner, main, profile)
                .map(|k| Template(vec![Part::Server(k.to_string())])),
        };
        if let Some(r) = replacement {
            url.extend(colon_inserts(&path[at..i.start], &inserts, profile));
            url.extend(r);
            at = i.end;
        }
    }
    url.extend(colon_inserts(&path[at..], &inserts, profile));

    // Query.
    let mut query = Vec::new();
    for p in tool
        .parameters
        .iter()
        .filter(|p| p.position.location == Location::Query)
    {
        let key = p.position.key.clone();
        match param_role(p, main, profile) {
            ParamRole::User => {
                if let Some(v) = inputs.get(&p.position.key) {
                    query.push((key, Template::text(query_text(v))));
                }
            }
            ParamRole::Server(k) => query.push((key, Template(vec![Part::Server(k.to_string())]))),
            ParamRole::Fixed(v) => query.push((key, Template::parse(v, main, profile))),
        }
    }

    // Body.
    let body_params: Vec<_> = tool
        .parameters
        .iter()
        .filter(|p| p.position.location == Location::Body)
        .collect();
    let body = if tool.method.allows_body() {
        let mut body = IndexMap::new();
        for p in body_params {
            let key = p.position.key.clone();
            match param_role(p, main, profile) {
                ParamRole::User => {
                    if let Some(v) = inputs.get(&p.position.key) {
                        body.insert(key, BodyValue::Json(v.clone()));
                    }
                }
                ParamRole::Server(k) => {
                    body.insert(
                        key,
                        BodyValue::Template(Template(vec![Part::Server(k.to_string())])),
                    );
                }
                ParamRole::Fixed(v) => {
                    let t = Template::parse(v, main, profile);
                    let typed = (t.server_keys().next().is_none())
                        .then(|| p.z.parse(profile.is_compat()).ok())
                        .flatten()
                        .and_then(|z| z.coerce_str(v).ok());
                    body.insert(key, typed.map_or(BodyValue::Template(t), BodyValue::Json));
                }
            }
        }
        Some(body)
    } else {
        if let Some(p) = body_params.first() {
            if !profile.is_compat() {
                return Err(RequestError::BodyNotAllowed {
                    tool: name(),
                    key: p.position.key.clone(),
                    method: tool.method.as_str(),
                });
            }
            for p in &body_params {
                warnings.push(format!(
                    "body parameter \"{}\" is not sent on a {} request",
                    p.position.key,
                    tool.method.as_str()
                ));
            }
        }
        None
    };

    // Headers: main, then tool (case-insensitive override).
    let mut headers: IndexMap<String, Template> = IndexMap::new();
    for (k, v) in main.headers.iter().chain(tool.headers.iter()) {
        headers.retain(|existing, _| !existing.eq_ignore_ascii_case(k));
        headers.insert(k.clone(), Template::parse(v, main, profile));
    }
    if body.is_some()
        && !headers
            .keys()
            .any(|k| k.eq_ignore_ascii_case("content-type"))
    {
        headers.insert("Content-Type".into(), Template::text("application/json"));
    }

    let prepared = PreparedRequest {
        tool: name(),
        method: tool.method,
        url,
        query,
        headers,
        body,
        raw_body: None,
        warnings,
    };
    let missing = server_params.missing(prepared.server_keys().iter().map(String::as_str));
    if !missing.is_empty() {
        return Err(RequestError::MissingServerParams {
            tool: name(),
            names: missing,
        });
    }
    Ok(prepared)
}

/// Under compat, replaces `:key` in path text by the insert value of `key` when the key is not
/// followed by another name character; longer keys first.
fn colon_inserts(text: &str, inserts: &IndexMap<&str, Template>, profile: Profile) -> Template {
    if !profile.is_compat() || !text.contains(':') {
        return Template::text(text);
    }
    let mut keys: Vec<&str> = inserts.keys().copied().collect();
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    let mut out = Template::default();
    let mut rest = text;
    'outer: while let Some(pos) = rest.find(':') {
        let after = &rest[pos + 1..];
        for k in &keys {
            if let Some(tail) = after.strip_prefix(k)
                && !tail
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                && let Some(t) = inserts.get(k)
            {
                out.push_text(&rest[..pos]);
                out.extend(t.clone());
                rest = tail;
                continue 'outer;
            }
        }
        out.push_text(&rest[..=pos]);
        rest = after;
    }
    out.push_text(rest);
    out
}

/// Fills in the server parameters and checks the URL. Errors never contain a secret value.
pub fn finalize(
    req: &PreparedRequest,
    params: &ServerParams,
) -> Result<FinalRequest, RequestError> {
    let mut missing = Vec::new();
    let mut url = req.url.fill(params, encode_segment, &mut missing);
    if !req.query.is_empty() {
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &req.query {
            ser.append_pair(k, &v.fill(params, str::to_string, &mut missing));
        }
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&ser.finish());
    }
    let headers: Vec<(String, Secret)> = req
        .headers
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                Secret::new(v.fill(params, str::to_string, &mut missing)),
            )
        })
        .collect();
    let structured = req.body.as_ref().map(|b| {
        let obj: Map<String, Value> = b
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    BodyValue::Json(j) => j.clone(),
                    BodyValue::Template(t) => {
                        Value::String(t.fill(params, str::to_string, &mut missing))
                    }
                };
                (k.clone(), v)
            })
            .collect();
        Secret::new(Value::Object(obj).to_string())
    });
    let body = match &req.raw_body {
        Some(raw) => Some(Secret::new(raw.to_string())),
        None => structured,
    };
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
    Ok(FinalRequest {
        method: req.method,
        url: Secret::new(parsed.to_string()),
        headers,
        body,
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
        assert_eq!(
            req.to_struct_json()["headers"]["X-Key"],
            "{{SERVER_PARAM:KEY}}"
        );
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
        assert_eq!(e.code(), ECode::E006);
        assert_eq!(
            e.envelope().messages,
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
        assert_eq!(
            req.to_struct_json()["body"],
            json!({"n": 1.5, "o": {"a": [1]}, "fixedNum": 5, "fixedBool": true, "secret": "{{SERVER_PARAM:KEY}}"})
        );
        let fin = finalize(&req, &p).expect("final");
        let body: Value = serde_json::from_str(fin.body.as_ref().map(Secret::expose).unwrap_or(""))
            .unwrap_or_default();
        assert_eq!(body["secret"], "CANARY-9f3a");
        assert_eq!(body["n"], 1.5);
        assert!(
            fin.headers
                .iter()
                .any(|(k, v)| k == "Content-Type" && v.expose() == "application/json")
        );
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
        assert!(r.body.is_none());
        assert_eq!(r.warnings.len(), 1);
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
            spec.url.display(),
            "https://api.example.com/feed/:city/:cityId/{{TOKEN}}"
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
        assert_eq!(r.url.display(), "https://api.example.com/v1/");
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
        assert_eq!(e.code(), ECode::E007);
        assert!(matches!(
            build_request("zz", &no_root, &IndexMap::new(), &sp, Profile::Spec, None),
            Err(RequestError::UnknownTool { .. })
        ));
    }

    #[test]
    fn query_text_forms() {
        assert_eq!(query_text(&json!(["a", 1, true, [2]])), "a,1,true,[2]");
        assert_eq!(query_text(&json!({"a": 1})), "{\"a\":1}");
        assert_eq!(query_text(&json!(52.52)), "52.52");
        assert_eq!(query_text(&Value::Null), "");
        assert_eq!(encode_segment("a/b c"), "a%2Fb%20c");
        assert_eq!(encode_segment("A-z_0.9~"), "A-z_0.9~");
    }
}
