//! OAuth 2.1 resource-server mode: access tokens are JWTs from an identity provider, checked
//! against its published keys (JWKS) before a request reaches MCP. This module is the `oauth`
//! feature (on by default; it needs `http`).
//!
//! What is checked, in order: an `Authorization: Bearer` header; a JWT header whose algorithm is
//! an asymmetric one (RS256/384/512, PS256/384/512, ES256, ES384, EdDSA; HMAC and `none` are
//! refused, so a public key can never be used as a shared secret); a signature by a key of the
//! issuer's JWKS (by `kid`, or every key of the right kind when the token names none); `iss`
//! equal to the configured issuer; `aud` holding the audience; `exp` and `nbf` with
//! [`LEEWAY_SECONDS`]; and every required scope in the `scope` claim (space-separated, RFC 9068)
//! or `scp` (a string or an array, as some providers write it). Keys embedded in a token
//! (`jwk`, `jku`, `x5u`, `x5c`) are ignored.
//!
//! Keys are loaded when the server starts (a server without usable keys does not start). A token
//! naming an unknown `kid` makes the server load the JWKS again, at most once per
//! [`REFRESH_INTERVAL`]; keys older than [`KEYS_MAX_AGE`] are reloaded on the next request. A
//! failed reload keeps the keys there were. Loading happens on a blocking thread, never on the
//! async threads.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use flowmcp_spec::urls::{self, UrlRefusal};
use http::{HeaderValue, Response, StatusCode, header};
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation, errors::ErrorKind};
use serde::Deserialize;
use url::Url;

use crate::reply::{Body, RESOURCE_METADATA_PATH, Rejection, bearer, plain};

/// How far `exp` and `nbf` may be off, for clocks that disagree a little.
pub const LEEWAY_SECONDS: u64 = 60;
/// The shortest time between two loads of the JWKS prompted by unknown keys.
pub const REFRESH_INTERVAL: Duration = Duration::from_secs(60);
/// Keys older than this are loaded again on the next request (a failed load keeps them).
pub const KEYS_MAX_AGE: Duration = Duration::from_secs(3600);

/// The largest JWKS or metadata document read, in bytes.
const MAX_DOCUMENT: u64 = 1 << 20;
/// The longest token looked at, in bytes.
const MAX_TOKEN: usize = 16 << 10;
/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The algorithms accepted: asymmetric ones only.
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Where the issuer's signing keys come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JwksSource {
    /// A JWKS document (`{"keys": [...]}`) in a local file, read again when a token names an
    /// unknown key.
    File(PathBuf),
    /// A JWKS URL (`https://idp.example.com/.well-known/jwks.json`; `http://` only for loopback
    /// hosts).
    Url(String),
    /// The `jwks_uri` of the issuer's metadata, found at start: RFC 8414
    /// `/.well-known/oauth-authorization-server`, then OpenID Connect
    /// `/.well-known/openid-configuration` (for an issuer with a path, the path-inserted forms
    /// first, then the path-appended OpenID form). The document's `issuer` must equal the
    /// configured one.
    Discover,
}

/// OAuth 2.1 resource-server mode: every MCP request needs a JWT access token from `issuer`.
/// Made with [`OAuthOptions::new`] (the issuer and where its keys come from), then the optional
/// fields set.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// The authorization server's issuer identifier, exactly as tokens carry it in `iss`
    /// (`https://idp.example.com/realms/main`); `http://` only for loopback hosts.
    pub issuer: String,
    /// The audience tokens must name in `aud`. `None`: each endpoint's own resource URL
    /// (`<public URL><path>`, such as `https://mcp.example.com/mcp`), as the MCP authorization
    /// specification asks (RFC 8707 resource indicators).
    pub audience: Option<String>,
    /// Where the signing keys come from.
    pub jwks: JwksSource,
    /// Scopes every token must hold; also advertised as `scopes_supported`.
    pub required_scopes: Vec<String>,
    /// The server's public origin as clients reach it (`https://mcp.example.com`), without a
    /// path: resource URLs are this plus the endpoint's path, and the metadata URL is this plus
    /// `/.well-known/oauth-protected-resource<path>`. `None`: `http://<listen address>`, which
    /// is refused when listening on all interfaces. Requests still need their `Host` allowed
    /// (`HttpOptions::allowed_hosts`) when it is not a loopback name.
    pub public_url: Option<String>,
}

impl OAuthOptions {
    /// Tokens from `issuer`, checked with the keys `jwks` gives; no fixed audience (each
    /// endpoint's resource URL), no required scopes, the public URL from the listen address.
    pub fn new(issuer: impl Into<String>, jwks: JwksSource) -> OAuthOptions {
        OAuthOptions {
            issuer: issuer.into(),
            audience: None,
            jwks,
            required_scopes: Vec::new(),
            public_url: None,
        }
    }
}

/// Why OAuth mode cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The issuer is not a usable URL.
    #[error("OAuth issuer {issuer:?}: {why}")]
    Issuer {
        /// The issuer as configured.
        issuer: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A URL that cannot be used (not a URL, plain `http://` to a non-loopback host, credentials
    /// in it).
    #[error("{what} {url:?}: {why}")]
    Url {
        /// Which URL (`JWKS URL`, `public URL`, …).
        what: &'static str,
        /// The URL as given (never with credentials: those are refused before it is shown).
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Listening on all interfaces without a public URL: there is no resource URL to offer.
    #[error(
        "OAuth needs a public URL when listening on {0} (the URL clients reach the server at, \
         such as https://mcp.example.com)"
    )]
    PublicUrlNeeded(SocketAddr),
    /// A scope with characters RFC 6749 does not allow (space, `"`, `\`, controls).
    #[error("scope {0:?}: a scope is one token of printable characters other than \" and \\")]
    Scope(String),
    /// A document could not be fetched.
    #[error("cannot fetch {url}: {reason}")]
    Fetch {
        /// The URL, without its query.
        url: String,
        /// Why.
        reason: String,
    },
    /// The JWKS file could not be read.
    #[error("cannot read the JWKS file {path}: {source}")]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The JWKS is not a JWKS document.
    #[error("JWKS from {from}: {reason}")]
    Jwks {
        /// Its file or URL.
        from: String,
        /// Why.
        reason: String,
    },
    /// The JWKS has no key this server can verify signatures with.
    #[error(
        "JWKS from {0}: no signature key this server can use (RSA, P-256, P-384 or Ed25519, \
         with `use` absent or `sig`)"
    )]
    NoKeys(String),
    /// No metadata document of the issuer gave a `jwks_uri`.
    #[error("cannot discover the JWKS of issuer {issuer}: {reason}")]
    Discovery {
        /// The issuer.
        issuer: String,
        /// What each attempt found.
        reason: String,
    },
    /// The blocking task that loads keys did not finish.
    #[error("the task loading the JWKS stopped unexpectedly")]
    Task,
}

/// Checks tokens for one issuer; shared by every endpoint of a listener.
pub(crate) struct Verifier {
    issuer: String,
    scopes: Vec<String>,
    source: Arc<KeySource>,
    keys: RwLock<Arc<KeySet>>,
    /// When keys were last loaded because of a request (`None`: not yet); held while loading.
    reload: tokio::sync::Mutex<Option<Instant>>,
}

enum KeySource {
    File(PathBuf),
    Url(Url),
}

impl KeySource {
    fn shown(&self) -> String {
        match self {
            KeySource::File(p) => p.display().to_string(),
            KeySource::Url(u) => shown(u),
        }
    }

    /// Loads the keys (blocking).
    fn load(&self) -> Result<KeySet, OAuthError> {
        let text = match self {
            KeySource::File(path) => read_capped(path)?,
            KeySource::Url(url) => fetch(url)?,
        };
        KeySet::parse(&text, &self.shown())
    }
}

struct KeySet {
    keys: Vec<Key>,
    loaded: Instant,
}

struct Key {
    kid: Option<String>,
    /// The `alg` the JWK is restricted to, if it names one.
    alg: Option<Algorithm>,
    family: AlgorithmFamily,
    curve: Option<EllipticCurve>,
    key: DecodingKey,
}

impl Key {
    /// Whether this key may verify a token signed with `alg`.
    fn fits(&self, alg: Algorithm) -> bool {
        if self.family != alg.family() || self.alg.is_some_and(|a| a != alg) {
            return false;
        }
        match (alg, &self.curve) {
            (Algorithm::ES256, Some(c)) => *c == EllipticCurve::P256,
            (Algorithm::ES384, Some(c)) => *c == EllipticCurve::P384,
            (Algorithm::EdDSA, Some(c)) => *c == EllipticCurve::Ed25519,
            _ => true,
        }
    }
}

impl KeySet {
    /// The usable signature keys of a JWKS document; keys of other kinds are skipped.
    fn parse(text: &[u8], from: &str) -> Result<KeySet, OAuthError> {
        #[derive(Deserialize)]
        struct Doc {
            keys: Vec<serde_json::Value>,
        }
        let doc: Doc = serde_json::from_slice(text).map_err(|e| OAuthError::Jwks {
            from: from.to_string(),
            reason: format!("not a JWKS document ({e})"),
        })?;
        let mut keys = Vec::new();
        for value in doc.keys {
            // A key this crate cannot read (another kty, a private key member, …) is skipped.
            let Ok(jwk) = serde_json::from_value::<Jwk>(value) else {
                continue;
            };
            if let Some(key) = usable(&jwk) {
                keys.push(key);
            }
        }
        if keys.is_empty() {
            return Err(OAuthError::NoKeys(from.to_string()));
        }
        Ok(KeySet {
            keys,
            loaded: Instant::now(),
        })
    }
}

fn usable(jwk: &Jwk) -> Option<Key> {
    if jwk
        .common
        .public_key_use
        .as_ref()
        .is_some_and(|u| *u != PublicKeyUse::Signature)
    {
        return None;
    }
    let alg = match jwk.common.key_algorithm {
        Some(a) => Some(
            Algorithm::try_from(a)
                .ok()
                .filter(|a| ACCEPTED.contains(a))?,
        ),
        None => None,
    };
    let (family, curve) = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => (AlgorithmFamily::Rsa, None),
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 | EllipticCurve::P384 => {
                (AlgorithmFamily::Ec, Some(p.curve.clone()))
            }
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(p) if p.curve == EllipticCurve::Ed25519 => {
            (AlgorithmFamily::Ed, Some(EllipticCurve::Ed25519))
        }
        // Symmetric keys (`oct`) are never used: a JWKS is public.
        _ => return None,
    };
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        alg,
        family,
        curve,
        key,
    })
}

#[derive(Deserialize)]
struct Claims {
    /// Whose token it is: the principal of the request (D131), kept across refreshed tokens.
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    scope: Option<Scopes>,
    #[serde(default)]
    scp: Option<Scopes>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    Text(String),
    List(Vec<String>),
}

impl Scopes {
    fn add_to<'a>(&'a self, granted: &mut HashSet<&'a str>) {
        match self {
            Scopes::Text(t) => granted.extend(t.split_whitespace()),
            Scopes::List(l) => granted.extend(l.iter().map(String::as_str)),
        }
    }
}

impl Verifier {
    /// Checks the options and loads the keys (discovering the JWKS URL first if asked).
    /// Blocking: network and file I/O.
    pub(crate) fn prepare(opts: &OAuthOptions) -> Result<Verifier, OAuthError> {
        let issuer_url = issuer_url(&opts.issuer)?;
        for scope in &opts.required_scopes {
            check_scope(scope)?;
        }
        if let Some(public) = &opts.public_url {
            public_origin(public)?;
        }
        let source = match &opts.jwks {
            JwksSource::File(path) => KeySource::File(path.clone()),
            JwksSource::Url(url) => KeySource::Url(fetchable("JWKS URL", url)?),
            JwksSource::Discover => KeySource::Url(discover(&opts.issuer, &issuer_url)?),
        };
        let keys = source.load()?;
        Ok(Verifier {
            issuer: opts.issuer.clone(),
            scopes: opts.required_scopes.clone(),
            source: Arc::new(source),
            keys: RwLock::new(Arc::new(keys)),
            reload: tokio::sync::Mutex::new(None),
        })
    }

    fn current(&self) -> Arc<KeySet> {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Loads the keys again unless that happened less than [`REFRESH_INTERVAL`] ago. With
    /// `wait` false, gives up at once when another request is loading them.
    async fn reload(&self, wait: bool) {
        let mut last = if wait {
            self.reload.lock().await
        } else {
            match self.reload.try_lock() {
                Ok(guard) => guard,
                Err(_) => return,
            }
        };
        if last.is_some_and(|t| t.elapsed() < REFRESH_INTERVAL) {
            return;
        }
        *last = Some(Instant::now());
        let source = Arc::clone(&self.source);
        if let Ok(Ok(keys)) = tokio::task::spawn_blocking(move || source.load()).await {
            *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(keys);
        }
    }

    /// Checks the `Authorization` header of a request to an endpoint whose tokens must name
    /// `audience`.
    pub(crate) async fn check(
        &self,
        authorization: Option<&HeaderValue>,
        audience: &str,
    ) -> Result<Option<String>, Rejection> {
        let token = bearer(authorization)?;
        if token.len() > MAX_TOKEN {
            return Err(Rejection::Invalid("the token is too long"));
        }
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| Rejection::Invalid("the token is not a well-formed JWT"))?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(Rejection::Invalid(
                "the token's algorithm is not accepted (asymmetric signatures only)",
            ));
        }
        let mut keys = self.current();
        if keys.loaded.elapsed() > KEYS_MAX_AGE {
            self.reload(false).await;
            keys = self.current();
        }
        let named = |keys: &KeySet| -> bool {
            header
                .kid
                .as_ref()
                .is_none_or(|kid| keys.keys.iter().any(|k| k.kid.as_ref() == Some(kid)))
        };
        if !named(&keys) {
            self.reload(true).await;
            keys = self.current();
            if !named(&keys) {
                return Err(Rejection::Invalid("the token's signing key is not known"));
            }
        }
        let mut validation = Validation::new(header.alg);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let candidates = keys.keys.iter().filter(|k| {
            k.fits(header.alg) && (header.kid.is_none() || k.kid.as_ref() == header.kid.as_ref())
        });
        for key in candidates {
            match jsonwebtoken::decode::<Claims>(token, &key.key, &validation) {
                Ok(data) => {
                    return self.scopes_held(&data.claims).map(|()| data.claims.sub);
                }
                Err(e) if wrong_key(e.kind()) => continue,
                Err(e) => return Err(Rejection::Invalid(describe(e.kind()))),
            }
        }
        Err(Rejection::Invalid("the token's signature does not verify"))
    }

    fn scopes_held(&self, claims: &Claims) -> Result<(), Rejection> {
        let mut granted = HashSet::new();
        for s in [&claims.scope, &claims.scp].into_iter().flatten() {
            s.add_to(&mut granted);
        }
        if self.scopes.iter().all(|s| granted.contains(s.as_str())) {
            Ok(())
        } else {
            Err(Rejection::Scope)
        }
    }
}

/// OAuth mode at one listener: the issuer's options, the verifier [`Verifier::prepare`] made, and
/// the origin every endpoint's resource URL starts with.
pub(crate) struct Issuer {
    opts: OAuthOptions,
    verifier: Arc<Verifier>,
    base: String,
}

/// What guards one endpoint in OAuth mode: access tokens for its audience, and the challenge its
/// refusals carry.
pub(crate) struct EndpointGuard {
    verifier: Arc<Verifier>,
    audience: String,
    challenge: Challenge,
}

impl Issuer {
    /// OAuth mode with `opts` for a listener bound at `local`.
    pub(crate) fn new(
        opts: &OAuthOptions,
        verifier: Arc<Verifier>,
        local: SocketAddr,
    ) -> Result<Issuer, OAuthError> {
        Ok(Issuer {
            base: resource_base(opts, local)?,
            opts: opts.clone(),
            verifier,
        })
    }

    /// The guard of the endpoint at `path`, and its RFC 9728 metadata document (published at
    /// [`RESOURCE_METADATA_PATH`] followed by `path`).
    pub(crate) fn endpoint(&self, path: &str) -> (EndpointGuard, Bytes) {
        let resource = format!("{}{path}", self.base);
        let metadata_url = format!("{}{RESOURCE_METADATA_PATH}{path}", self.base);
        let doc = Bytes::from(metadata(&self.opts, &resource).to_string());
        let guard = EndpointGuard {
            verifier: Arc::clone(&self.verifier),
            audience: self.opts.audience.clone().unwrap_or(resource),
            challenge: Challenge::new(&metadata_url, &self.opts.required_scopes),
        };
        (guard, doc)
    }
}

impl EndpointGuard {
    /// The token's subject (`sub`, when it has one) when `authorization` (a request's
    /// `Authorization` header) carries an access token this endpoint accepts; else the 401 or
    /// 403 answer.
    pub(crate) async fn admit(
        &self,
        authorization: Option<&HeaderValue>,
    ) -> Result<Option<String>, Response<Body>> {
        self.verifier
            .check(authorization, &self.audience)
            .await
            .map_err(|rejection| self.challenge.answer(&rejection))
    }
}

/// The origin resource URLs start with: the configured public URL, else the listener's own.
fn resource_base(oauth: &OAuthOptions, local: SocketAddr) -> Result<String, OAuthError> {
    match &oauth.public_url {
        Some(public) => public_origin(public),
        None if local.ip().is_unspecified() => Err(OAuthError::PublicUrlNeeded(local)),
        None => Ok(format!("http://{local}")),
    }
}

/// The RFC 9728 metadata of one endpoint.
fn metadata(oauth: &OAuthOptions, resource: &str) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "resource": resource,
        "authorization_servers": [oauth.issuer],
        "bearer_methods_supported": ["header"],
    });
    if !oauth.required_scopes.is_empty()
        && let Some(map) = doc.as_object_mut()
    {
        map.insert(
            "scopes_supported".into(),
            serde_json::json!(oauth.required_scopes),
        );
    }
    doc
}

/// The parts of `WWW-Authenticate` answers that are the same for every request to an endpoint.
/// URLs and scopes are checked to hold no `"` or `\` before they get here.
struct Challenge {
    metadata: String,
    scope: Option<String>,
}

impl Challenge {
    fn new(metadata_url: &str, scopes: &[String]) -> Challenge {
        Challenge {
            metadata: format!("resource_metadata=\"{metadata_url}\""),
            scope: (!scopes.is_empty()).then(|| format!("scope=\"{}\"", scopes.join(" "))),
        }
    }

    /// The 401 or 403 answer to a rejected request.
    fn answer(&self, rejection: &Rejection) -> Response<Body> {
        let (status, text, value) = match rejection {
            Rejection::Missing => {
                let mut v = format!("Bearer {}", self.metadata);
                if let Some(scope) = &self.scope {
                    v.push_str(", ");
                    v.push_str(scope);
                }
                (StatusCode::UNAUTHORIZED, "unauthorized\n", v)
            }
            Rejection::Invalid(why) => (
                StatusCode::UNAUTHORIZED,
                "unauthorized\n",
                format!(
                    "Bearer error=\"invalid_token\", error_description=\"{why}\", {}",
                    self.metadata
                ),
            ),
            Rejection::Scope => (
                StatusCode::FORBIDDEN,
                "forbidden\n",
                format!(
                    "Bearer error=\"insufficient_scope\", {}, error_description=\"the token \
                     lacks a required scope\", {}",
                    self.scope.as_deref().unwrap_or("scope=\"\""),
                    self.metadata
                ),
            ),
        };
        let mut r = plain(status, text);
        if let Ok(v) = HeaderValue::from_str(&value) {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        r
    }
}

/// Errors that mean "this key did not make this signature": the next key may.
fn wrong_key(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::InvalidSignature
            | ErrorKind::InvalidEcdsaKey
            | ErrorKind::InvalidEddsaKey
            | ErrorKind::InvalidRsaKey(_)
            | ErrorKind::InvalidKeyFormat
    )
}

/// A short, fixed description for `error_description` (never anything from the token).
fn describe(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet",
        ErrorKind::InvalidIssuer => "the token is from another issuer",
        ErrorKind::InvalidAudience => "the token is not meant for this resource",
        ErrorKind::MissingRequiredClaim(c) if c == "exp" => "the token has no exp claim",
        ErrorKind::MissingRequiredClaim(c) if c == "iss" => "the token has no iss claim",
        ErrorKind::MissingRequiredClaim(c) if c == "aud" => "the token has no aud claim",
        ErrorKind::InvalidAlgorithm => "the token's algorithm is not accepted",
        _ => "the token is not a well-formed JWT",
    }
}

/// Checks a scope against RFC 6749's `scope-token` (`%x21 / %x23-5B / %x5D-7E`).
fn check_scope(scope: &str) -> Result<(), OAuthError> {
    let ok = !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b));
    if ok {
        Ok(())
    } else {
        Err(OAuthError::Scope(scope.to_string()))
    }
}

/// A URL that may be fetched or named: `https://`, or `http://` to a loopback host; no
/// credentials, no fragment.
fn fetchable(what: &'static str, text: &str) -> Result<Url, OAuthError> {
    let err = |why| OAuthError::Url {
        what,
        url: text.to_string(),
        why,
    };
    let Ok(url) = Url::parse(text.trim()) else {
        return Err(err("not a URL"));
    };
    let parts =
        urls::UrlParts::from_parsed(url.scheme(), url.host_str(), url.username(), url.password());
    if parts.credentials {
        return Err(OAuthError::Url {
            what,
            url: "<a URL with credentials>".to_string(),
            why: "credentials in URLs are not accepted",
        });
    }
    if url.fragment().is_some() {
        return Err(err("a fragment is not allowed"));
    }
    match urls::check(parts, true) {
        Ok(()) => Ok(url),
        Err(UrlRefusal::HttpNotAllowed | UrlRefusal::HttpNotLoopback) => Err(err(
            "only https:// is accepted (plain http:// only for loopback hosts)",
        )),
        Err(_) => Err(err("only https:// URLs are accepted")),
    }
}

fn issuer_url(issuer: &str) -> Result<Url, OAuthError> {
    let url = fetchable("OAuth issuer", issuer).map_err(|e| match e {
        OAuthError::Url { why, .. } => OAuthError::Issuer {
            issuer: issuer.to_string(),
            why,
        },
        other => other,
    })?;
    if url.query().is_some() {
        return Err(OAuthError::Issuer {
            issuer: issuer.to_string(),
            why: "an issuer has no query",
        });
    }
    Ok(url)
}

/// The origin (`https://mcp.example.com`) of a public URL, which must have no path.
fn public_origin(text: &str) -> Result<String, OAuthError> {
    let url = fetchable("public URL", text)?;
    if url.path() != "/" && !url.path().is_empty() {
        return Err(OAuthError::Url {
            what: "public URL",
            url: text.to_string(),
            why: "give the origin only (https://host[:port]); endpoint paths are added to it",
        });
    }
    if url.query().is_some() {
        return Err(OAuthError::Url {
            what: "public URL",
            url: text.to_string(),
            why: "a query is not allowed",
        });
    }
    Ok(url.origin().ascii_serialization())
}

/// A URL for messages: no credentials (refused anyway) and no query.
fn shown(url: &Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.to_string()
}

fn read_capped(path: &std::path::Path) -> Result<Vec<u8>, OAuthError> {
    use flowmcp_files::named::{ReadCappedError, read_capped};
    read_capped(path, MAX_DOCUMENT).map_err(|e| match e {
        ReadCappedError::Io(source) => OAuthError::ReadFile {
            path: path.to_path_buf(),
            source,
        },
        ReadCappedError::TooLarge(_) => OAuthError::Jwks {
            from: path.display().to_string(),
            reason: format!("larger than {MAX_DOCUMENT} bytes"),
        },
    })
}

/// GETs a JSON document (blocking): no proxy, no redirects, a time limit and a size cap.
fn fetch(url: &Url) -> Result<Vec<u8>, OAuthError> {
    let fail = |reason: String| OAuthError::Fetch {
        url: shown(url),
        reason,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(FETCH_TIMEOUT))
        .max_redirects(0)
        .http_status_as_error(false)
        .https_only(url.scheme() == "https")
        .proxy(None)
        .build()
        .into();
    let mut response = agent
        .get(url.as_str())
        .header("Accept", "application/json")
        .call()
        .map_err(|e| fail(e.to_string()))?;
    let status = response.status();
    if status != StatusCode::OK {
        return Err(fail(format!("HTTP {}", status.as_u16())));
    }
    response
        .body_mut()
        .with_config()
        .limit(MAX_DOCUMENT)
        .read_to_vec()
        .map_err(|e| fail(e.to_string()))
}

/// Where the issuer's metadata may be, in the order the MCP authorization specification gives.
fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let origin = issuer.origin().ascii_serialization();
    let path = issuer.path().trim_end_matches('/');
    let texts = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    texts.iter().filter_map(|t| Url::parse(t).ok()).collect()
}

/// Finds the issuer's `jwks_uri` (blocking).
fn discover(issuer: &str, issuer_url: &Url) -> Result<Url, OAuthError> {
    #[derive(Deserialize)]
    struct Metadata {
        issuer: Option<String>,
        jwks_uri: Option<String>,
    }
    let mut tried = Vec::new();
    for url in metadata_urls(issuer_url) {
        let found = match fetch(&url) {
            Ok(body) => body,
            Err(e) => {
                tried.push(e.to_string());
                continue;
            }
        };
        let Ok(meta) = serde_json::from_slice::<Metadata>(&found) else {
            tried.push(format!("{}: not a metadata document", shown(&url)));
            continue;
        };
        if meta.issuer.as_deref() != Some(issuer) {
            tried.push(format!(
                "{}: its issuer is not {issuer} (RFC 8414 requires them to be equal)",
                shown(&url)
            ));
            continue;
        }
        let Some(jwks) = meta.jwks_uri else {
            tried.push(format!("{}: no jwks_uri", shown(&url)));
            continue;
        };
        return fetchable("jwks_uri", &jwks);
    }
    Err(OAuthError::Discovery {
        issuer: issuer.to_string(),
        reason: tried.join("; "),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn urls_are_https_or_loopback_http() {
        assert!(fetchable("x", "https://idp.example.com/jwks").is_ok());
        assert!(fetchable("x", "http://127.0.0.1:9/jwks").is_ok());
        assert!(fetchable("x", "http://localhost/jwks").is_ok());
        assert!(fetchable("x", "http://[::1]:9/jwks").is_ok());
        assert!(fetchable("x", "http://idp.example.com/jwks").is_err());
        assert!(fetchable("x", "ftp://idp.example.com/jwks").is_err());
        let e = fetchable("x", "https://user:hunter2@idp.example.com/").unwrap_err();
        assert!(!e.to_string().contains("hunter2"), "{e}");
    }

    #[test]
    fn public_urls_are_origins() {
        assert_eq!(
            public_origin("https://mcp.example.com/").unwrap(),
            "https://mcp.example.com"
        );
        assert_eq!(
            public_origin("https://mcp.example.com:8443").unwrap(),
            "https://mcp.example.com:8443"
        );
        assert!(public_origin("https://mcp.example.com/api").is_err());
        assert!(public_origin("http://mcp.example.com").is_err());
    }

    #[test]
    fn metadata_is_looked_for_where_the_spec_says() {
        let plain = metadata_urls(&Url::parse("https://idp.example.com").unwrap());
        let plain: Vec<&str> = plain.iter().map(Url::as_str).collect();
        assert_eq!(
            plain,
            [
                "https://idp.example.com/.well-known/oauth-authorization-server",
                "https://idp.example.com/.well-known/openid-configuration"
            ]
        );
        let tenant = metadata_urls(&Url::parse("https://idp.example.com/t/1/").unwrap());
        let tenant: Vec<&str> = tenant.iter().map(Url::as_str).collect();
        assert_eq!(
            tenant,
            [
                "https://idp.example.com/.well-known/oauth-authorization-server/t/1",
                "https://idp.example.com/.well-known/openid-configuration/t/1",
                "https://idp.example.com/t/1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn scopes_follow_rfc_6749() {
        assert!(check_scope("mcp:tools").is_ok());
        assert!(check_scope("read").is_ok());
        assert!(check_scope("two words").is_err());
        assert!(check_scope("quo\"te").is_err());
        assert!(check_scope("").is_err());
    }

    #[test]
    fn symmetric_and_encryption_keys_are_skipped() {
        let doc = br#"{"keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "h"},
            {"kty": "RSA", "use": "enc", "n": "sXch", "e": "AQAB", "kid": "e"},
            {"kty": "EC", "crv": "P-256", "kid": "bad", "x": "AA", "y": "AA", "alg": "HS256"}
        ]}"#;
        assert!(matches!(
            KeySet::parse(doc, "test"),
            Err(OAuthError::NoKeys(_))
        ));
        assert!(matches!(
            KeySet::parse(b"[]", "test"),
            Err(OAuthError::Jwks { .. })
        ));
    }

    #[test]
    fn resource_urls_need_a_public_url_on_all_interfaces() {
        let oauth = |public: Option<&str>| OAuthOptions {
            issuer: "https://idp.example.com".into(),
            audience: None,
            jwks: crate::JwksSource::Discover,
            required_scopes: vec![],
            public_url: public.map(str::to_string),
        };
        let any = SocketAddr::from(([0, 0, 0, 0], 8765));
        assert!(matches!(
            resource_base(&oauth(None), any),
            Err(OAuthError::PublicUrlNeeded(_))
        ));
        assert_eq!(
            resource_base(&oauth(Some("https://mcp.example.com/")), any).unwrap(),
            "https://mcp.example.com"
        );
        let local = SocketAddr::from(([127, 0, 0, 1], 8765));
        assert_eq!(
            resource_base(&oauth(None), local).unwrap(),
            "http://127.0.0.1:8765"
        );
        let v6 = SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, 8765));
        assert_eq!(
            resource_base(&oauth(None), v6).unwrap(),
            "http://[::1]:8765"
        );
    }

    #[test]
    fn challenges_follow_rfc_6750_and_9728() {
        let c = Challenge::new(
            "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp",
            &["mcp:read".into(), "mcp:call".into()],
        );
        let header = |r: Response<Body>| {
            (
                r.status(),
                r.headers()[header::WWW_AUTHENTICATE]
                    .to_str()
                    .unwrap()
                    .to_string(),
            )
        };
        let (status, value) = header(c.answer(&Rejection::Missing));
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            value,
            "Bearer resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp\", \
             scope=\"mcp:read mcp:call\""
        );
        let (status, value) = header(c.answer(&Rejection::Invalid("the token has expired")));
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(
            value.starts_with("Bearer error=\"invalid_token\", error_description=\"the token has expired\", resource_metadata=\""),
            "{value}"
        );
        let (status, value) = header(c.answer(&Rejection::Scope));
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(
            value.starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp:read mcp:call\""),
            "{value}"
        );
    }
}
