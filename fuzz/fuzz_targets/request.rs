//! Fuzzes the runtime request builder (`flowmcp_runtime::{request::build_request, request::finalize}`) with a
//! small fixed family of schemas and arbitrary USER input values, optionally followed by an
//! arbitrary `preRequest` handler result (`PreparedRequest::apply_struct`). The schemas, the server
//! parameters and the upstream override are trusted; the call inputs are attacker-controlled, and
//! the handler's texts are arbitrary (they may copy this call's slot tokens anywhere).
//!
//! Security properties (a failure is a real finding):
//! * (a) user text never reaches the authority: when `finalize` succeeds, the URL parses with
//!   `url::Url`, has the root's scheme, host and port and no fragment; without a handler also no
//!   userinfo and a path that stays under the root's path (`.`/`..` insert values are refused);
//! * (b) each secret appears in the final URL, headers and body exactly as often as the schema's own
//!   places put it there: user text such as `{{SERVER_PARAM:KEY}}` or (compat) `{{KEY}}` stays
//!   literal. After a handler: headers and body hold a secret exactly where the handler's text holds
//!   its slot token, the URL at most that often, and `secret_headers` / `body_has_secret` say so;
//! * (c) nothing before `finalize` holds a secret: `PreparedRequest`'s `Debug`, `to_struct_json()`,
//!   `display_url()`, the `FinalRequest`'s `Debug` and every error's text are free of both canaries.
//!
//! Correctness properties without a handler (user values arrive intact, nothing else moves): the
//! query pairs, path segments, header names and the JSON body are exactly the expected ones, user
//! values included verbatim (after decoding).
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use flowmcp_runtime::secret::ServerParams;
use flowmcp_runtime::{
    request::FinalRequest, request::PreparedRequest, request::RequestError, request::build_request,
    request::finalize, request::query_text,
};
use flowmcp_spec::Profile;
use flowmcp_spec::model::SchemaMain;
use indexmap::IndexMap;
use libfuzzer_sys::fuzz_target;
use percent_encoding::percent_decode_str;
use serde_json::{Number, Value, json};

/// The values of the two server parameters (the canaries). Made of letters and digits, which no URL,
/// form or JSON encoding changes, and without a border (no proper prefix is also a suffix), so
/// occurrences cannot overlap. The first character, `Q`, is neither a hex digit nor a JSON escape
/// letter: an encoding of user text (`%5C`, `\u001f`, `\n`, …) can end in a canary character, and
/// with `C` as the first one, a user typing `\aNtOk…` produced `%5CaNtOk…`, a false "leak".
/// (Encodings start with `%`, `\` or `+`, none of which is in a canary, so only the first character
/// needs this care.)
const KEY: &str = "QxKeY7zW";
const TOKEN: &str = "QxToK9vW";

const ROOT: &str = "https://api.example.com/v1";
const UPSTREAM: &str = "http://127.0.0.1:8080/base/";

fn param(key: &str, value: &str, location: &str, primitive: &str) -> Value {
    json!({"position": {"key": key, "value": value, "location": location},
           "z": {"primitive": primitive, "options": []}})
}

/// The schema family: one `main` with four tools.
fn schema() -> &'static SchemaMain {
    static SCHEMA: OnceLock<SchemaMain> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let user = "{{USER_PARAM}}";
        let main = json!({
            "namespace": "ns", "name": "N", "description": "d", "version": "4.2.0",
            "root": ROOT,
            "requiredServerParams": ["KEY", "TOKEN"],
            "headers": {"Accept": "application/json", "X-Key": "{{SERVER_PARAM:KEY}}"},
            "tools": {
                // Two inserts (the first right after the root), user and fixed query values, a
                // server param as a whole query value and inside a longer fixed value, and a tool
                // header overriding nothing but adding a hole.
                "get": {"method": "GET", "path": "/{{id}}/items/{{sub}}", "description": "d",
                    "headers": {"Authorization": "Bearer {{SERVER_PARAM:KEY}}"},
                    "parameters": [
                        param("id", user, "insert", "string()"),
                        param("sub", user, "insert", "string()"),
                        param("q", user, "query", "string()"),
                        param("ids", user, "query", "array()"),
                        param("mode", "fast", "query", "string()"),
                        param("apikey", "{{SERVER_PARAM:KEY}}", "query", "string()"),
                        param("sig", "k-{{SERVER_PARAM:KEY}}-x", "query", "string()")
                    ]},
                // A JSON body with user values of several types, a secret and fixed typed values.
                "post": {"method": "POST", "path": "/things/{{id}}", "description": "d",
                    "parameters": [
                        param("id", user, "insert", "string()"),
                        param("q", user, "query", "string()"),
                        param("name", user, "body", "string()"),
                        param("n", user, "body", "number()"),
                        param("o", user, "body", "object()"),
                        param("secret", "{{SERVER_PARAM:KEY}}", "body", "string()"),
                        param("kind", "plain", "body", "string()"),
                        param("fixedNum", "5", "body", "number()")
                    ]},
                // The compat forms: `:key` inserts, bare `{{CITY}}` (undeclared: a user value) and
                // bare `{{TOKEN}}` (declared: a server param) in the path and as a value.
                "compat": {"method": "PUT", "path": "/feed/:city/{{TOKEN}}/:cityId", "description": "d",
                    "parameters": [
                        param("city", "{{CITY}}", "insert", "string()"),
                        param("cityId", user, "insert", "number()"),
                        param("t", "{{TOKEN}}", "query", "string()"),
                        param("note", user, "body", "string()")
                    ]},
                // A body parameter on DELETE: an error under spec, dropped under compat.
                "delete": {"method": "DELETE", "path": "/x/{{id}}", "description": "d",
                    "parameters": [
                        param("id", user, "insert", "string()"),
                        param("b", user, "body", "string()")
                    ]}
            }
        });
        SchemaMain::from_json(&main).expect("the fixed schema parses")
    })
}

fn server_params() -> &'static ServerParams {
    static PARAMS: OnceLock<ServerParams> = OnceLock::new();
    PARAMS.get_or_init(|| {
        let mut p = ServerParams::new();
        p.insert("KEY", KEY);
        p.insert("TOKEN", TOKEN);
        p
    })
}

#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Get,
    Post,
    Compat,
    Delete,
}

/// An input key: one the schemas know (user or not), or any text.
#[derive(Arbitrary, Debug)]
enum Key {
    Id,
    Sub,
    Q,
    Ids,
    Mode,
    Apikey,
    Sig,
    Name,
    N,
    O,
    Secret,
    Kind,
    City,
    CityId,
    T,
    Note,
    B,
    Other(String),
}

impl Key {
    fn text(&self) -> &str {
        match self {
            Key::Id => "id",
            Key::Sub => "sub",
            Key::Q => "q",
            Key::Ids => "ids",
            Key::Mode => "mode",
            Key::Apikey => "apikey",
            Key::Sig => "sig",
            Key::Name => "name",
            Key::N => "n",
            Key::O => "o",
            Key::Secret => "secret",
            Key::Kind => "kind",
            Key::City => "city",
            Key::CityId => "cityId",
            Key::T => "t",
            Key::Note => "note",
            Key::B => "b",
            Key::Other(s) => s,
        }
    }
}

/// Text that tends to break URL building.
#[derive(Arbitrary, Debug)]
enum Fragment {
    ServerKey,
    ServerToken,
    BareKey,
    BareToken,
    UserParam,
    Dot,
    DotDot,
    Slash,
    Backslash,
    Question,
    Hash,
    At,
    Colon,
    ColonCity,
    Amp,
    Equals,
    Percent2e,
    Percent2f,
    Crlf,
    Authority,
    Space,
    Plus,
    Nul,
    Fullwidth,
}

impl Fragment {
    fn text(&self) -> &'static str {
        match self {
            Fragment::ServerKey => "{{SERVER_PARAM:KEY}}",
            Fragment::ServerToken => "{{SERVER_PARAM:TOKEN}}",
            Fragment::BareKey => "{{KEY}}",
            Fragment::BareToken => "{{TOKEN}}",
            Fragment::UserParam => "{{USER_PARAM}}",
            Fragment::Dot => ".",
            Fragment::DotDot => "..",
            Fragment::Slash => "/",
            Fragment::Backslash => "\\",
            Fragment::Question => "?",
            Fragment::Hash => "#",
            Fragment::At => "@",
            Fragment::Colon => ":",
            Fragment::ColonCity => ":city",
            Fragment::Amp => "&apikey=",
            Fragment::Equals => "=",
            Fragment::Percent2e => "%2e",
            Fragment::Percent2f => "%2F",
            Fragment::Crlf => "\r\nX-Injected: 1\r\n",
            Fragment::Authority => "//evil.example:1/",
            Fragment::Space => " ",
            Fragment::Plus => "+",
            Fragment::Nul => "\0",
            Fragment::Fullwidth => "\u{FF0E}\u{FF0E}",
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Piece {
    Raw(String),
    Frag(Fragment),
}

#[derive(Arbitrary, Debug)]
struct Text(Vec<Piece>);

impl Text {
    fn render(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Raw(s) => s.as_str(),
                Piece::Frag(f) => f.text(),
            })
            .collect()
    }
}

#[derive(Arbitrary, Debug)]
enum UserValue {
    Text(Text),
    Float(f64),
    Int(i64),
    Bool(bool),
    Null,
    Array(Vec<Text>),
    Nested(Vec<Vec<Text>>),
    Object(Vec<(Text, Text)>),
}

impl UserValue {
    fn to_value(&self) -> Value {
        match self {
            UserValue::Text(t) => Value::String(t.render()),
            UserValue::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            UserValue::Int(i) => Value::from(*i),
            UserValue::Bool(b) => Value::Bool(*b),
            UserValue::Null => Value::Null,
            UserValue::Array(items) => items.iter().map(|t| Value::String(t.render())).collect(),
            UserValue::Nested(rows) => rows
                .iter()
                .map(|r| Value::Array(r.iter().map(|t| Value::String(t.render())).collect()))
                .collect(),
            UserValue::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.render(), Value::String(v.render())))
                    .collect(),
            ),
        }
    }
}

/// A piece of a handler's text: anything a URL-building attacker would try, or one of this call's
/// slot tokens.
#[derive(Arbitrary, Debug)]
enum HandlerPiece {
    Piece(Piece),
    /// The slot token of KEY (`false`) or TOKEN (`true`).
    Slot(bool),
    /// The request's current URL.
    CurrentUrl,
    Origin(OriginText),
}

#[derive(Arbitrary, Debug)]
enum OriginText {
    Root,
    RootLookalike,
    Evil,
    UserinfoTrick,
    Upstream,
    OtherPort,
    HttpDowngrade,
}

impl OriginText {
    fn text(&self) -> &'static str {
        match self {
            OriginText::Root => "https://api.example.com",
            OriginText::RootLookalike => "https://api.example.com.evil.example",
            OriginText::Evil => "https://evil.example",
            OriginText::UserinfoTrick => "https://api.example.com@evil.example",
            OriginText::Upstream => "http://127.0.0.1:8080",
            OriginText::OtherPort => "https://api.example.com:8443",
            OriginText::HttpDowngrade => "http://api.example.com",
        }
    }
}

#[derive(Arbitrary, Debug)]
struct HandlerText(Vec<HandlerPiece>);

impl HandlerText {
    fn render(&self, prepared: &mut PreparedRequest, current_url: &str) -> String {
        self.0
            .iter()
            .map(|p| match p {
                HandlerPiece::Piece(Piece::Raw(s)) => s.clone(),
                HandlerPiece::Piece(Piece::Frag(f)) => f.text().to_string(),
                HandlerPiece::Slot(token) => prepared.token(if *token { "TOKEN" } else { "KEY" }),
                HandlerPiece::CurrentUrl => current_url.to_string(),
                HandlerPiece::Origin(o) => o.text().to_string(),
            })
            .collect()
    }
}

/// What a `preRequest` handler returns: each of `url`, `headers`, `body` replaced or kept.
#[derive(Arbitrary, Debug)]
struct Handler {
    url: Option<HandlerText>,
    headers: Option<Vec<(Text, HandlerText)>>,
    /// A body object of strings (a whole non-object body is also allowed).
    body: Option<(bool, Vec<(Text, HandlerText)>)>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    tool: Tool,
    compat: bool,
    upstream: bool,
    values: Vec<(Key, UserValue)>,
    handler: Option<Handler>,
}

/// True when any string in `v` (keys included) contains a canary: the user typed the secret
/// itself, which no property can tell from a leak.
/// Whether a handler's value holds a secret's value itself (then it knew it: nothing to check).
/// Also with ASCII tabs and line breaks taken out, as URL parsing drops them anywhere in a URL:
/// `QxKe\r\rY7z…` written by a handler becomes the value in the final URL (a finding of this
/// target, minimised in `fuzz/regressions/request/`).
fn mentions_canary(v: &Value) -> bool {
    let holds = |s: &str| {
        let squeezed: String = s.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
        [s, squeezed.as_str()]
            .iter()
            .any(|t| t.contains(KEY) || t.contains(TOKEN))
    };
    match v {
        Value::String(s) => holds(s),
        Value::Array(items) => items.iter().any(mentions_canary),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| holds(k) || mentions_canary(v)),
        _ => false,
    }
}

fn assert_no_canary(what: &str, text: &str) {
    assert!(
        !text.contains(KEY) && !text.contains(TOKEN),
        "a secret leaked into {what}: {text}"
    );
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

/// KEY and TOKEN occurrences in `text`.
fn counts(text: &str) -> (usize, usize) {
    (count(text, KEY), count(text, TOKEN))
}

fuzz_target!(|input: Input| {
    let main = schema();
    let params = server_params();
    let profile = if input.compat {
        Profile::Compat
    } else {
        Profile::Spec
    };
    let tool = match input.tool {
        Tool::Get => "get",
        Tool::Post => "post",
        Tool::Compat => "compat",
        Tool::Delete => "delete",
    };
    let mut inputs: IndexMap<String, Value> = IndexMap::new();
    for (k, v) in &input.values {
        inputs.insert(k.text().to_string(), v.to_value());
    }
    if inputs
        .iter()
        .any(|(k, v)| k.contains(KEY) || k.contains(TOKEN) || mentions_canary(v))
    {
        return;
    }
    let root = if input.upstream { UPSTREAM } else { ROOT };
    let upstream = input.upstream.then_some(UPSTREAM);

    let prepared = match build_request(tool, main, &inputs, params, profile, upstream) {
        Ok(p) => p,
        Err(e) => {
            check_error(&e);
            check_build_error(&e, input.tool, input.compat, &inputs);
            return;
        }
    };
    assert!(
        input.tool != Tool::Delete || input.compat,
        "a body parameter on DELETE was accepted under spec"
    );
    for key in insert_keys(input.tool, input.compat) {
        let text = inputs.get(*key).map(query_text);
        assert!(
            !matches!(text.as_deref(), Some("." | "..")),
            "the dot segment {key}={text:?} was accepted"
        );
    }
    assert_no_canary("the prepared request's Debug", &format!("{prepared:?}"));
    assert_no_canary("to_struct_json()", &prepared.to_struct_json().to_string());
    assert_no_canary("display_url()", &prepared.display_url());

    if let Some(handler) = &input.handler {
        run_handler(handler, prepared, params, root);
        return;
    }

    let fin = match finalize(&prepared, params) {
        Ok(f) => f,
        Err(e) => {
            check_error(&e);
            // Every user value is percent- or form-encoded, so the URL must always parse and keep
            // the root's origin.
            panic!("finalize failed: {e:?} for {:?}", prepared.display_url());
        }
    };
    assert_no_canary("the final request's Debug", &format!("{fin:?}"));
    check_final(&fin, &prepared, input.tool, input.compat, root, &inputs);
});

fn check_error(e: &RequestError) {
    assert_no_canary("an error's Display", &e.to_string());
    assert_no_canary("an error's Debug", &format!("{e:?}"));
    assert_no_canary("an error's envelope", &format!("{:?}", e.envelope()));
}

/// The user parameters of `tool` that are inserted into the path.
fn insert_keys(tool: Tool, compat: bool) -> &'static [&'static str] {
    match (tool, compat) {
        (Tool::Get, _) => &["id", "sub"],
        (Tool::Post | Tool::Delete, _) => &["id"],
        // Under spec `{{CITY}}` is a fixed value, not a user parameter.
        (Tool::Compat, true) => &["city", "cityId"],
        (Tool::Compat, false) => &["cityId"],
    }
}

/// `build_request` may fail only for a missing insert value used by the path, a dot-segment
/// insert value, or a body parameter on DELETE under spec.
fn check_build_error(e: &RequestError, tool: Tool, compat: bool, inputs: &IndexMap<String, Value>) {
    match e {
        RequestError::BodyNotAllowed { .. } => assert!(tool == Tool::Delete && !compat),
        RequestError::MissingInsert { key, .. } => {
            assert!(!inputs.contains_key(key.as_str()), "{key} was given: {e:?}");
        }
        RequestError::DotSegment { key, .. } => {
            let text = inputs.get(key.as_str()).map(query_text);
            assert!(
                matches!(text.as_deref(), Some("." | "..")),
                "{key}={text:?} refused as a dot segment"
            );
        }
        other => panic!("unexpected build error {other:?}"),
    }
}

/// Applies a handler's struct and checks what `finalize` makes of it.
fn run_handler(
    handler: &Handler,
    mut prepared: PreparedRequest,
    params: &ServerParams,
    root: &str,
) {
    let current = prepared.to_struct_json();
    let current_url = current["url"].as_str().unwrap_or_default().to_string();
    let mut s = serde_json::Map::new();
    if let Some(url) = &handler.url {
        s.insert(
            "url".into(),
            Value::String(url.render(&mut prepared, &current_url)),
        );
    }
    if let Some(headers) = &handler.headers {
        let mut h = serde_json::Map::new();
        for (k, v) in headers {
            h.insert(
                k.render(),
                Value::String(v.render(&mut prepared, &current_url)),
            );
        }
        s.insert("headers".into(), Value::Object(h));
    }
    if let Some((whole_array, members)) = &handler.body {
        let items = members.iter().map(|(k, v)| {
            (
                k.render(),
                Value::String(v.render(&mut prepared, &current_url)),
            )
        });
        let body = if *whole_array {
            Value::Array(items.map(|(_, v)| v).collect())
        } else {
            Value::Object(items.collect())
        };
        s.insert("body".into(), body);
    }
    let s = Value::Object(s);
    if mentions_canary(&s) {
        return;
    }
    prepared
        .apply_struct(&s)
        .expect("a struct of strings is accepted");
    let after = prepared.to_struct_json();
    assert_no_canary("to_struct_json() after the handler", &after.to_string());
    assert_no_canary(
        "the prepared request's Debug after the handler",
        &format!("{prepared:?}"),
    );

    let fin = match finalize(&prepared, params) {
        Ok(f) => f,
        Err(e) => {
            check_error(&e);
            return;
        }
    };
    assert_no_canary("the final request's Debug", &format!("{fin:?}"));

    // (a) The origin is the root's, whatever the handler wrote.
    let url_text = fin.url.expose();
    let url = url::Url::parse(url_text).expect("finalize returned an unparsable URL");
    let root_url = url::Url::parse(root).expect("the root parses");
    assert_eq!(
        url.origin(),
        root_url.origin(),
        "the handler moved the request: {url_text}"
    );

    // (b) Secrets only where this call's tokens were.
    let mut slots = prepared.slots().clone();
    let (key_slot, token_slot) = (slots.token("KEY"), slots.token("TOKEN"));
    let tokens = |text: &str| (count(text, &key_slot), count(text, &token_slot));
    let url_tokens = tokens(after["url"].as_str().unwrap_or_default());
    let url_secrets = counts(url_text);
    assert!(
        url_secrets.0 <= url_tokens.0 && url_secrets.1 <= url_tokens.1,
        "the URL holds secrets {url_secrets:?} for tokens {url_tokens:?}: {url_text}"
    );
    let headers = after["headers"].as_object().cloned().unwrap_or_default();
    assert_eq!(fin.headers.len(), headers.len());
    for ((name, value), (h_name, h_value)) in fin.headers.iter().zip(&headers) {
        assert_eq!(name, h_name);
        let want = tokens(h_value.as_str().unwrap_or_default());
        assert_eq!(counts(value.expose()), want, "header {name}");
        assert_eq!(
            fin.secret_headers.contains(name),
            want != (0, 0),
            "secret_headers {:?} for {name}",
            fin.secret_headers
        );
    }
    let body_text = after["body"].to_string();
    let want = if after["body"].is_null() {
        (0, 0)
    } else {
        tokens(&body_text)
    };
    let got = fin.body.as_ref().map_or((0, 0), |b| counts(b.expose()));
    assert_eq!(got, want, "body secrets");
    assert_eq!(fin.body_has_secret, want != (0, 0));
}

/// What the schema puts into a request of `tool` under the profile, besides user values.
struct Expected {
    /// KEY and TOKEN occurrences in the URL.
    url: (usize, usize),
    /// KEY and TOKEN occurrences in all header values together.
    headers: (usize, usize),
    /// KEY and TOKEN occurrences in the body.
    body: (usize, usize),
    header_names: &'static [&'static str],
}

fn expected(tool: Tool, compat: bool) -> Expected {
    match (tool, compat) {
        // apikey + sig in the query; X-Key + Authorization.
        (Tool::Get, _) => Expected {
            url: (2, 0),
            headers: (2, 0),
            body: (0, 0),
            header_names: &["Accept", "X-Key", "Authorization"],
        },
        // X-Key; the `secret` body member.
        (Tool::Post, _) => Expected {
            url: (0, 0),
            headers: (1, 0),
            body: (1, 0),
            header_names: &["Accept", "X-Key", "Content-Type"],
        },
        // Compat: `{{TOKEN}}` in the path and as the value of `t`. Spec: both are literal text.
        (Tool::Compat, true) => Expected {
            url: (0, 2),
            headers: (1, 0),
            body: (0, 0),
            header_names: &["Accept", "X-Key", "Content-Type"],
        },
        (Tool::Compat, false) => Expected {
            url: (0, 0),
            headers: (1, 0),
            body: (0, 0),
            header_names: &["Accept", "X-Key", "Content-Type"],
        },
        (Tool::Delete, _) => Expected {
            url: (0, 0),
            headers: (1, 0),
            body: (0, 0),
            header_names: &["Accept", "X-Key"],
        },
    }
}

fn check_final(
    fin: &FinalRequest,
    prepared: &PreparedRequest,
    tool: Tool,
    compat: bool,
    root: &str,
    inputs: &IndexMap<String, Value>,
) {
    let want = expected(tool, compat);
    let url_text = fin.url.expose();

    // (a) The authority is the root's.
    let url = url::Url::parse(url_text).expect("finalize returned an unparsable URL");
    let root_url = url::Url::parse(root).expect("the root parses");
    assert_eq!(
        url.scheme(),
        root_url.scheme(),
        "scheme changed: {url_text}"
    );
    assert_eq!(
        url.host_str(),
        root_url.host_str(),
        "host changed: {url_text}"
    );
    assert_eq!(
        url.port_or_known_default(),
        root_url.port_or_known_default(),
        "port changed: {url_text}"
    );
    assert_eq!(url.username(), "", "userinfo appeared: {url_text}");
    assert_eq!(url.password(), None, "userinfo appeared: {url_text}");
    assert_eq!(url.fragment(), None, "a fragment appeared: {url_text}");

    // (b) Secrets exactly where the schema put them.
    let headers = &fin.headers;
    let header_text: String = headers
        .iter()
        .map(|(_, v)| v.expose())
        .collect::<Vec<_>>()
        .join("\n");
    let body_text = fin.body.as_ref().map_or("", |b| b.expose());
    assert_eq!(counts(url_text), want.url, "secrets in the URL: {url_text}");
    assert_eq!(
        counts(&header_text),
        want.headers,
        "secrets in the headers: {header_text}"
    );
    assert_eq!(
        counts(body_text),
        want.body,
        "secrets in the body: {body_text}"
    );
    assert_eq!(fin.body_has_secret, want.body != (0, 0));
    for (name, value) in headers {
        assert_no_canary("a header name", name);
        assert_eq!(
            fin.secret_headers.contains(name),
            counts(value.expose()) != (0, 0),
            "secret_headers {:?} for {name}",
            fin.secret_headers
        );
    }

    // Headers: exactly the schema's names, fixed values intact.
    let names: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, want.header_names);
    for (name, value) in headers {
        let expected = match name.as_str() {
            "Accept" | "Content-Type" => "application/json".to_string(),
            "X-Key" => KEY.to_string(),
            "Authorization" => format!("Bearer {KEY}"),
            _ => continue,
        };
        assert_eq!(value.expose(), expected, "header {name}");
    }

    check_query(&url, tool, compat, inputs);
    check_path(&url, &root_url, tool, compat, inputs);
    check_body(fin, prepared, tool, compat, inputs);
}

/// The query pairs, decoded, are exactly the schema's, in parameter order.
fn check_query(url: &url::Url, tool: Tool, compat: bool, inputs: &IndexMap<String, Value>) {
    let user = |key: &str| inputs.get(key).map(|v| (key.to_string(), query_text(v)));
    let fixed = |key: &str, value: &str| Some((key.to_string(), value.to_string()));
    let want: Vec<(String, String)> = match (tool, compat) {
        (Tool::Get, _) => vec![
            user("q"),
            user("ids"),
            fixed("mode", "fast"),
            fixed("apikey", KEY),
            fixed("sig", &format!("k-{KEY}-x")),
        ],
        (Tool::Post, _) => vec![user("q")],
        (Tool::Compat, true) => vec![fixed("t", TOKEN)],
        (Tool::Compat, false) => vec![fixed("t", "{{TOKEN}}")],
        (Tool::Delete, _) => vec![],
    }
    .into_iter()
    .flatten()
    .collect();
    let got: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    assert_eq!(got, want, "query of {url}");
}

/// The path stays under the root's path, and its segments, decoded, are the root's then the
/// tool's with user values verbatim.
fn check_path(
    url: &url::Url,
    root: &url::Url,
    tool: Tool,
    compat: bool,
    inputs: &IndexMap<String, Value>,
) {
    let root_path = root.path().trim_end_matches('/');
    assert!(
        url.path().starts_with(&format!("{root_path}/")),
        "the path left the root's path {root_path:?}: {url}"
    );
    let insert = |key: &str| inputs.get(key).map(query_text).unwrap_or_default();
    let tool_segments: Vec<String> = match (tool, compat) {
        (Tool::Get, _) => vec![insert("id"), "items".into(), insert("sub")],
        (Tool::Post, _) => vec!["things".into(), insert("id")],
        (Tool::Compat, true) => vec![
            "feed".into(),
            insert("city"),
            TOKEN.into(),
            insert("cityId"),
        ],
        (Tool::Compat, false) => vec![
            "feed".into(),
            ":city".into(),
            "{{TOKEN}}".into(),
            ":cityId".into(),
        ],
        (Tool::Delete, _) => vec!["x".into(), insert("id")],
    };
    let want: Vec<String> = root_path
        .split('/')
        .skip(1)
        .map(str::to_string)
        .chain(tool_segments)
        .collect();
    let got: Vec<String> = url
        .path_segments()
        .map(|s| {
            s.map(|seg| percent_decode_str(seg).decode_utf8_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(got, want, "path of {url}");
}

/// The body holds the user values verbatim (JSON types kept) and the schema's members.
fn check_body(
    fin: &FinalRequest,
    prepared: &PreparedRequest,
    tool: Tool,
    compat: bool,
    inputs: &IndexMap<String, Value>,
) {
    let body: Option<Value> = fin
        .body
        .as_ref()
        .map(|b| serde_json::from_str(b.expose()).expect("the body is JSON"));
    let user = |key: &str| inputs.get(key).map(|v| (key.to_string(), v.clone()));
    let fixed = |key: &str, value: Value| Some((key.to_string(), value));
    let want: Option<Vec<(String, Value)>> = match (tool, compat) {
        (Tool::Get, _) => None,
        (Tool::Post, _) => Some(vec![
            user("name"),
            user("n"),
            user("o"),
            fixed("secret", json!(KEY)),
            fixed("kind", json!("plain")),
            fixed("fixedNum", json!(5)),
        ]),
        (Tool::Compat, _) => Some(vec![user("note")]),
        (Tool::Delete, _) => {
            assert_eq!(prepared.warnings().len(), 1, "{:?}", prepared.warnings());
            None
        }
    }
    .map(|v| v.into_iter().flatten().collect());
    let got: Option<Vec<(String, Value)>> = body.map(|b| match b {
        Value::Object(map) => map.into_iter().collect(),
        other => panic!("the body is not an object: {other}"),
    });
    assert_eq!(got, want, "body");
}
