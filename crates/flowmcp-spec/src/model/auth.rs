//! `main.auth`, this project's extension (D138): authentication the runtime performs after the
//! last handler has run, declared as data. A secret is named only by a `{{SERVER_PARAM:KEY}}`
//! placeholder whose key `requiredServerParams` declares, so handlers never see one.
//!
//! ```text
//! auth: { kind: 'signature', digest: 'sha1', parts: [ '{{SERVER_PARAM:KEY}}', '{{SERVER_PARAM:SECRET}}', 'time' ],
//!         header: 'Authorization', timeHeader: 'X-Auth-Date' }
//! auth: { kind: 'signature', digest: 'hmac-sha256', key: '{{SERVER_PARAM:SECRET}}', parts: [ 'method', 'path', 'time' ],
//!         separator: '\n', output: 'base64', header: 'X-Signature', prefix: 'HMAC ', timeHeader: 'X-Date' }
//! auth: { kind: 'aws-sigv4', accessKey: '{{SERVER_PARAM:AK}}', secretKey: '{{SERVER_PARAM:SK}}', region: 'eu-west-1', service: 'execute-api' }
//! auth: { kind: 'basic', username: '{{SERVER_PARAM:USER}}', password: '{{SERVER_PARAM:PASS}}' }
//! auth: { kind: 'oauth2-client-credentials', tokenUrl: 'https://id.example.com/token',
//!         clientId: '{{SERVER_PARAM:ID}}', clientSecret: '{{SERVER_PARAM:SECRET}}', scope: 'read', clientAuth: 'basic' }
//! ```
//!
//! [`parse`] is the one reader: validation reports its problems (SEC022–SEC024) with their paths,
//! and the runtime builds its plan from what it returns.

use serde_json::{Map, Value};

use crate::Code;
use crate::diagnostic::JsonPath;
use crate::placeholder::{InterpolationKind, find_interpolations};

/// A declared way of authenticating a schema's requests.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Auth {
    /// A digest over named parts, written into one header (and the time into another).
    Signature(Signature),
    /// AWS Signature Version 4 header signing (`AWS4-HMAC-SHA256`).
    SigV4(SigV4),
    /// HTTP basic: `Authorization: Basic base64(username:password)`.
    Basic {
        /// The server parameter holding the user name.
        username: String,
        /// The server parameter holding the password.
        password: String,
    },
    /// OAuth 2 client credentials: a token fetched from `token_url`, sent as a bearer token.
    ClientCredentials(ClientCredentials),
}

impl Auth {
    /// The kind as written (`signature`, `aws-sigv4`, `basic`, `oauth2-client-credentials`).
    pub fn kind(&self) -> &'static str {
        match self {
            Auth::Signature(_) => "signature",
            Auth::SigV4(_) => "aws-sigv4",
            Auth::Basic { .. } => "basic",
            Auth::ClientCredentials(_) => "oauth2-client-credentials",
        }
    }

    /// The server parameters the declaration uses, in order, without duplicates.
    pub fn server_params(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let keys: Vec<&str> = match self {
            Auth::Signature(s) => s
                .key
                .iter()
                .map(String::as_str)
                .chain(s.parts.iter().filter_map(|p| match p {
                    Part::Server(k) => Some(k.as_str()),
                    _ => None,
                }))
                .collect(),
            Auth::SigV4(s) => vec![s.access_key.as_str(), s.secret_key.as_str()],
            Auth::Basic { username, password } => vec![username.as_str(), password.as_str()],
            Auth::ClientCredentials(c) => vec![c.client_id.as_str(), c.client_secret.as_str()],
        };
        for k in keys {
            if !out.contains(&k) {
                out.push(k);
            }
        }
        out
    }
}

/// The digest of a [`Signature`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest {
    /// SHA-1 of the joined parts.
    Sha1,
    /// SHA-256 of the joined parts.
    Sha256,
    /// HMAC-SHA1 of the joined parts under `key`.
    HmacSha1,
    /// HMAC-SHA256 of the joined parts under `key`.
    HmacSha256,
}

impl Digest {
    const NAMES: [(&'static str, Digest); 4] = [
        ("sha1", Digest::Sha1),
        ("sha256", Digest::Sha256),
        ("hmac-sha1", Digest::HmacSha1),
        ("hmac-sha256", Digest::HmacSha256),
    ];

    /// Whether the digest needs a key (HMAC).
    pub fn keyed(self) -> bool {
        matches!(self, Digest::HmacSha1 | Digest::HmacSha256)
    }
}

/// How a digest is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Lower-case hexadecimal.
    Hex,
    /// Standard base64 with padding.
    Base64,
}

/// One part of a signed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// A server parameter's value (`{{SERVER_PARAM:KEY}}`).
    Server(String),
    /// The request time in Unix seconds (`time`), the value of `timeHeader`.
    Time,
    /// The method in upper case (`method`).
    Method,
    /// The URL's path, percent-encoded as sent (`path`).
    Path,
    /// The URL's query as sent, without `?` (`query`).
    Query,
    /// The body as sent, empty without one (`body`).
    Body,
}

impl Part {
    const WORDS: [(&'static str, Part); 5] = [
        ("time", Part::Time),
        ("method", Part::Method),
        ("path", Part::Path),
        ("query", Part::Query),
        ("body", Part::Body),
    ];
}

/// `kind: 'signature'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub digest: Digest,
    /// The server parameter that keys an HMAC digest.
    pub key: Option<String>,
    pub parts: Vec<Part>,
    /// Written between parts (default empty).
    pub separator: String,
    pub output: Output,
    /// The header that carries the signature.
    pub header: String,
    /// Written before the signature in the header (default empty).
    pub prefix: String,
    /// The header that carries the time in Unix seconds, if any.
    pub time_header: Option<String>,
}

/// `kind: 'aws-sigv4'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigV4 {
    /// The server parameter holding the access key id.
    pub access_key: String,
    /// The server parameter holding the secret access key.
    pub secret_key: String,
    pub region: String,
    pub service: String,
}

/// How the client authenticates at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    /// `client_secret_basic`: HTTP basic with the client id and secret (the default).
    Basic,
    /// `client_secret_post`: both in the form body.
    Post,
}

/// `kind: 'oauth2-client-credentials'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCredentials {
    /// The token endpoint, `https://`.
    pub token_url: String,
    /// The server parameter holding the client id.
    pub client_id: String,
    /// The server parameter holding the client secret.
    pub client_secret: String,
    pub scope: Option<String>,
    pub client_auth: ClientAuth,
}

/// One problem of a `main.auth` declaration: its code (SEC022 shape, SEC023 secret reference,
/// SEC024 token URL), where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthProblem {
    pub code: Code,
    pub path: JsonPath,
    pub message: String,
}

/// The keys each kind may hold.
fn allowed_keys(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "signature" => &[
            "kind",
            "digest",
            "key",
            "parts",
            "separator",
            "output",
            "header",
            "prefix",
            "timeHeader",
        ],
        "aws-sigv4" => &["kind", "accessKey", "secretKey", "region", "service"],
        "basic" => &["kind", "username", "password"],
        "oauth2-client-credentials" => &[
            "kind",
            "tokenUrl",
            "clientId",
            "clientSecret",
            "scope",
            "clientAuth",
        ],
        _ => return None,
    })
}

struct Reader<'a> {
    obj: &'a Map<String, Value>,
    base: JsonPath,
    required: &'a [String],
    problems: Vec<AuthProblem>,
}

impl Reader<'_> {
    fn problem(&mut self, code: Code, path: JsonPath, message: String) {
        self.problems.push(AuthProblem {
            code,
            path,
            message,
        });
    }

    /// A string field; `None` (reported when `required`) when missing or not a non-empty string.
    fn string(&mut self, key: &str, required: bool) -> Option<String> {
        match self.obj.get(key) {
            None | Some(Value::Null) if !required => None,
            None | Some(Value::Null) => {
                let path = self.base.clone();
                self.problem(Code::SEC022, path, format!("`{key}` is missing"));
                None
            }
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(_) => {
                let path = self.base.key(key);
                self.problem(Code::SEC022, path, "Must be a non-empty string".into());
                None
            }
        }
    }

    /// A secret field: exactly one `{{SERVER_PARAM:KEY}}` whose key is declared.
    fn secret(&mut self, key: &str) -> Option<String> {
        let text = self.string(key, true)?;
        let path = self.base.key(key);
        self.secret_text(&text, path)
    }

    fn secret_text(&mut self, text: &str, path: JsonPath) -> Option<String> {
        let found = find_interpolations(text);
        let name = match found.as_slice() {
            [one] if one.start == 0 && one.end == text.len() => match one.kind() {
                InterpolationKind::ServerParam(k) => Some(k.to_string()),
                _ => None,
            },
            _ => None,
        };
        let Some(name) = name else {
            self.problem(
                Code::SEC023,
                path,
                format!(
                    "Must be one `{{{{SERVER_PARAM:KEY}}}}` placeholder (found \"{text}\"): secrets come only from server parameters"
                ),
            );
            return None;
        };
        if !self.required.iter().any(|r| r == &name) {
            self.problem(
                Code::SEC023,
                path,
                format!("Server parameter \"{name}\" is not declared in `requiredServerParams`"),
            );
            return None;
        }
        Some(name)
    }

    /// A header name field: a valid HTTP token.
    fn header(&mut self, key: &str, required: bool) -> Option<String> {
        let name = self.string(key, required)?;
        if name.bytes().all(is_token_byte) {
            Some(name)
        } else {
            let path = self.base.key(key);
            self.problem(
                Code::SEC022,
                path,
                format!("\"{name}\" is not a header name"),
            );
            None
        }
    }

    /// A plain text field that must hold no placeholder (it is sent as written).
    fn plain(&mut self, key: &str, required: bool) -> Option<String> {
        let text = self.string(key, required)?;
        if find_interpolations(&text).is_empty() {
            Some(text)
        } else {
            let path = self.base.key(key);
            self.problem(
                Code::SEC023,
                path,
                format!("\"{text}\" holds a placeholder; only the secret fields take one"),
            );
            None
        }
    }

    fn choice<T: Copy>(&mut self, key: &str, names: &[(&str, T)], default: Option<T>) -> Option<T> {
        let text = self.string(key, default.is_none())?;
        if let Some((_, v)) = names.iter().find(|(n, _)| *n == text) {
            return Some(*v);
        }
        let allowed: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
        let path = self.base.key(key);
        self.problem(
            Code::SEC022,
            path,
            format!("\"{text}\" is not one of {}", allowed.join(", ")),
        );
        None
    }
}

/// Whether `b` may appear in an HTTP header name (RFC 9110 `token`).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Reads `main.auth` (`value`, at `base`, usually `/main/auth`) against the schema's
/// `requiredServerParams`. Every problem is returned, each with its code and path.
pub fn parse(
    value: &Value,
    base: &JsonPath,
    required: &[String],
) -> Result<Auth, Vec<AuthProblem>> {
    let Some(obj) = value.as_object() else {
        return Err(vec![AuthProblem {
            code: Code::SEC022,
            path: base.clone(),
            message: "`auth` must be an object".into(),
        }]);
    };
    let mut r = Reader {
        obj,
        base: base.clone(),
        required,
        problems: Vec::new(),
    };
    let kind = r.string("kind", true).unwrap_or_default();
    let Some(keys) = allowed_keys(&kind) else {
        if !kind.is_empty() {
            r.problem(
                Code::SEC022,
                base.key("kind"),
                format!(
                    "\"{kind}\" is not a kind of auth (signature, aws-sigv4, basic, oauth2-client-credentials)"
                ),
            );
        }
        return Err(r.problems);
    };
    for key in obj.keys() {
        if !keys.contains(&key.as_str()) {
            r.problem(
                Code::SEC022,
                base.key(key),
                format!("\"{key}\" is not a field of `{kind}` auth"),
            );
        }
    }
    let auth = match kind.as_str() {
        "signature" => read_signature(&mut r),
        "aws-sigv4" => {
            let access_key = r.secret("accessKey");
            let secret_key = r.secret("secretKey");
            let region = r.plain("region", true);
            let service = r.plain("service", true);
            Some(Auth::SigV4(SigV4 {
                access_key: access_key.unwrap_or_default(),
                secret_key: secret_key.unwrap_or_default(),
                region: region.unwrap_or_default(),
                service: service.unwrap_or_default(),
            }))
        }
        "basic" => {
            let username = r.secret("username");
            let password = r.secret("password");
            Some(Auth::Basic {
                username: username.unwrap_or_default(),
                password: password.unwrap_or_default(),
            })
        }
        _ => read_client_credentials(&mut r),
    };
    match auth {
        Some(a) if r.problems.is_empty() => Ok(a),
        _ => Err(r.problems),
    }
}

fn read_signature(r: &mut Reader<'_>) -> Option<Auth> {
    let digest = r.choice("digest", &Digest::NAMES, None);
    let key = match (digest, r.obj.contains_key("key")) {
        (Some(d), true) if !d.keyed() => {
            let path = r.base.key("key");
            r.problem(
                Code::SEC022,
                path,
                "`key` is only for the HMAC digests".into(),
            );
            None
        }
        (_, true) => r.secret("key"),
        (Some(d), false) if d.keyed() => {
            let path = r.base.clone();
            r.problem(
                Code::SEC022,
                path,
                "`key` is missing: an HMAC digest needs one".into(),
            );
            None
        }
        _ => None,
    };
    let mut parts = Vec::new();
    match r.obj.get("parts") {
        Some(Value::Array(items)) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                let path = r.base.key("parts").index(i);
                let Some(text) = item.as_str() else {
                    r.problem(Code::SEC022, path, "Must be a string".into());
                    continue;
                };
                if let Some((_, p)) = Part::WORDS.iter().find(|(w, _)| *w == text) {
                    parts.push(p.clone());
                } else if text.contains("{{") {
                    if let Some(k) = r.secret_text(text, path) {
                        parts.push(Part::Server(k));
                    }
                } else {
                    r.problem(
                        Code::SEC022,
                        path,
                        format!(
                            "\"{text}\" is not a part (time, method, path, query, body or `{{{{SERVER_PARAM:KEY}}}}`)"
                        ),
                    );
                }
            }
        }
        _ => {
            let path = r.base.key("parts");
            r.problem(
                Code::SEC022,
                path,
                "`parts` must be a non-empty array".into(),
            );
        }
    }
    let separator = match r.obj.get("separator") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            let path = r.base.key("separator");
            r.problem(Code::SEC022, path, "Must be a string".into());
            String::new()
        }
    };
    let output = r.choice(
        "output",
        &[("hex", Output::Hex), ("base64", Output::Base64)],
        Some(Output::Hex),
    );
    let header = r.header("header", true);
    let prefix = match r.obj.get("prefix") {
        None | Some(Value::Null) => Some(String::new()),
        Some(_) => r.plain("prefix", false),
    };
    let time_header = r.header("timeHeader", false);
    Some(Auth::Signature(Signature {
        digest: digest?,
        key,
        parts,
        separator,
        output: output.unwrap_or(Output::Hex),
        header: header?,
        prefix: prefix.unwrap_or_default(),
        time_header,
    }))
}

fn read_client_credentials(r: &mut Reader<'_>) -> Option<Auth> {
    let token_url = r.plain("tokenUrl", true);
    if let Some(u) = &token_url
        && let Err(why) = check_token_url(u)
    {
        let path = r.base.key("tokenUrl");
        r.problem(Code::SEC024, path, why);
    }
    let client_id = r.secret("clientId");
    let client_secret = r.secret("clientSecret");
    let scope = r.plain("scope", false);
    let client_auth = r.choice(
        "clientAuth",
        &[("basic", ClientAuth::Basic), ("post", ClientAuth::Post)],
        Some(ClientAuth::Basic),
    );
    Some(Auth::ClientCredentials(ClientCredentials {
        token_url: token_url?,
        client_id: client_id?,
        client_secret: client_secret?,
        scope,
        client_auth: client_auth.unwrap_or(ClientAuth::Basic),
    }))
}

/// A token URL must be absolute `https://` with a host, without user info or fragment (SEC024).
/// This crate parses no URLs (see [`crate::urls`]): the check reads the text, and the runtime
/// checks the parsed URL again through [`crate::urls::check`] before sending anything.
fn check_token_url(text: &str) -> Result<(), String> {
    let Some(rest) = text.strip_prefix("https://") else {
        return Err(format!(
            "Must start with https:// (found \"{text}\"): the client secret travels to it"
        ));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() {
        return Err(format!("\"{text}\" has no host"));
    }
    if authority.contains('@') {
        return Err(format!("\"{text}\" must not carry credentials"));
    }
    if text.contains('#') {
        return Err(format!("\"{text}\" must not have a fragment"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn required(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|k| k.to_string()).collect()
    }

    /// Issue #44: the podcastindex form reads as declared; its server parameters come in order.
    #[test]
    fn i44_the_podcastindex_form_reads() {
        let v = json!({"kind": "signature", "digest": "sha1", "header": "Authorization",
                       "timeHeader": "X-Auth-Date",
                       "parts": ["{{SERVER_PARAM:K}}", "{{SERVER_PARAM:S}}", "time"]});
        let auth = parse(
            &v,
            &JsonPath::root("main").key("auth"),
            &required(&["K", "S"]),
        )
        .expect("reads");
        assert_eq!(
            auth,
            Auth::Signature(Signature {
                digest: Digest::Sha1,
                key: None,
                parts: vec![
                    Part::Server("K".into()),
                    Part::Server("S".into()),
                    Part::Time
                ],
                separator: String::new(),
                output: Output::Hex,
                header: "Authorization".into(),
                prefix: String::new(),
                time_header: Some("X-Auth-Date".into()),
            })
        );
        assert_eq!(auth.server_params(), vec!["K", "S"]);
        assert_eq!(auth.kind(), "signature");
    }

    /// Issue #44: a secret as text, an undeclared key and a bad header name are each reported
    /// with their code and path.
    #[test]
    fn i44_problems_carry_their_code_and_path() {
        let base = JsonPath::root("main").key("auth");
        let v = json!({"kind": "basic", "username": "alice", "password": "{{SERVER_PARAM:P}}"});
        let problems = parse(&v, &base, &required(&[])).expect_err("two problems");
        let codes: Vec<(Code, String)> = problems
            .iter()
            .map(|p| (p.code, p.path.to_string()))
            .collect();
        assert_eq!(
            codes,
            vec![
                (Code::SEC023, base.key("username").to_string()),
                (Code::SEC023, base.key("password").to_string()),
            ]
        );
        let v = json!({"kind": "signature", "digest": "sha256", "parts": ["body"], "header": "Bad Header"});
        let problems = parse(&v, &base, &[]).expect_err("a bad header");
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].code, Code::SEC022);
        let v = json!({"kind": "oauth2-client-credentials", "tokenUrl": "https://id.example.com#x",
                       "clientId": "{{SERVER_PARAM:I}}", "clientSecret": "{{SERVER_PARAM:S}}"});
        let problems = parse(&v, &base, &required(&["I", "S"])).expect_err("a fragment");
        assert_eq!(problems[0].code, Code::SEC024);
    }
}
