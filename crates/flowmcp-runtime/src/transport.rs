//! HTTP transport for tool calls.
//!
//! The runtime talks to upstream APIs only through the [`Transport`] trait, so tests and embedders
//! can substitute their own implementation. [`UreqTransport`] is the production implementation on
//! top of `ureq` 3 and enforces the project's rules for outgoing requests:
//!
//! * only `https://` URLs are fetched; plain `http://` is allowed solely for loopback hosts
//!   (`127.0.0.0/8`, `::1`, `localhost`) when [`TransportConfig::allow_http_loopback`] is set;
//!   anything else is refused with E009 before a connection is made;
//! * redirects are followed by this module (never by `ureq`), only HTTPS → HTTPS (or loopback
//!   HTTP → loopback HTTP when allowed), at most [`TransportConfig::max_redirects`] times; headers
//!   marked secret (and `Authorization` / `Cookie`) are dropped as soon as the origin changes, and
//!   a 307/308 redirect to another origin of a request whose body carries a secret is refused
//!   (E009): the body would have to be sent again;
//! * a request marked [`HttpRequest::public_only`] reaches only public addresses: a host that is,
//!   or resolves to, a loopback, private, link-local or otherwise non-public address is refused
//!   (E009), on every redirect too (the check is in the resolver, so DNS cannot answer differently
//!   later);
//! * the framing and routing headers (`Host`, `Content-Length`, `Transfer-Encoding`,
//!   `Connection`, …) are set by the client only: such headers in a request are not sent;
//! * [`HttpRequest::deadline`] bounds the whole exchange, redirects included, together with
//!   [`TransportConfig::total_timeout`];
//! * proxies from the environment are ignored; gzip responses are decoded;
//! * the decoded body is capped while it is read (E008).
//!
//! Error messages never contain header values. URLs are shown without user info or fragment; the
//! query string only through the request's [`HttpRequest::redactor`] (every secret value, in every
//! form, hidden; keys and the other values readable), and not at all without one (see
//! [`shown_url`]).
//!
//! [`decode_body`] turns a response body into JSON per MIME type (chapter 04 of the
//! specification) and [`status_error`] formats the E001 message for non-2xx statuses.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use flowmcp_spec::Code;
use flowmcp_spec::urls::{self, UrlRefusal};

pub use crate::encoding::base64_encode;
use crate::secret::Redactor;

use url::{Host, Url};

/// Default cap on a decoded response body: 10 MiB.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 10 * 1024 * 1024;
/// Default number of redirects followed before giving up.
pub const DEFAULT_MAX_REDIRECTS: u32 = 5;

/// The HTTP method (one enum for schemas and requests).
pub use flowmcp_spec::model::Method;

/// A header value that may be marked secret.
///
/// Secret values print as `[redacted]` in `Debug` output and are dropped from the request when a
/// redirect changes the origin.
#[derive(Clone, PartialEq, Eq)]
pub struct HeaderValue {
    value: String,
    secret: bool,
}

impl HeaderValue {
    /// A non-secret header value.
    pub fn plain(value: impl Into<String>) -> Self {
        HeaderValue {
            value: value.into(),
            secret: false,
        }
    }

    /// A secret header value (for example one that carries a server parameter).
    pub fn secret(value: impl Into<String>) -> Self {
        HeaderValue {
            value: value.into(),
            secret: true,
        }
    }

    /// The value to put on the wire.
    pub fn expose(&self) -> &str {
        &self.value
    }

    /// Whether this value is secret.
    pub fn is_secret(&self) -> bool {
        self.secret
    }
}

impl fmt::Debug for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.secret {
            f.write_str("[redacted]")
        } else {
            fmt::Debug::fmt(&self.value, f)
        }
    }
}

/// An outgoing HTTP request.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The method.
    pub method: Method,
    /// The absolute URL, query string included.
    pub url: String,
    /// Request headers in order; names are case-insensitive.
    pub headers: Vec<(String, HeaderValue)>,
    /// Optional request body.
    pub body: Option<Vec<u8>>,
    /// Whether the body carries a secret: it is never sent again to another origin.
    pub body_is_secret: bool,
    /// Reach only public addresses (see the module documentation).
    pub public_only: bool,
    /// The exchange must end by then (E003), whatever the transport's own limit allows.
    pub deadline: Option<Instant>,
    /// A body cap for this request instead of the transport's (a resource download may be
    /// larger than an API answer); `None` keeps the transport's.
    pub max_body_bytes: Option<u64>,
    /// What errors may show of the URLs (this one, and redirect targets): with a redactor, the
    /// query string with every value it hides redacted (the runtime gives the call's server
    /// parameters); without one, no query string at all (see [`shown_url`]).
    pub redactor: Option<Arc<Redactor>>,
}

impl HttpRequest {
    /// A request without headers or body, to any address, with the transport's own time limit.
    pub fn new(method: Method, url: impl Into<String>) -> Self {
        HttpRequest {
            method,
            url: url.into(),
            headers: Vec::new(),
            body: None,
            body_is_secret: false,
            public_only: false,
            deadline: None,
            max_body_bytes: None,
            redactor: None,
        }
    }

    /// Adds a header (builder style).
    pub fn with_header(mut self, name: impl Into<String>, value: HeaderValue) -> Self {
        self.headers.push((name.into(), value));
        self
    }

    /// Sets the body (builder style).
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Some(body.into());
        self
    }
}

/// `Debug` shows the URL without its query string, secret headers as `[redacted]` and the body
/// length only.
impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &redact_url(&self.url))
            .field("headers", &self.headers)
            .field("body_len", &self.body.as_ref().map(Vec::len))
            .field("body_is_secret", &self.body_is_secret)
            .field("public_only", &self.public_only)
            .finish()
    }
}

/// A response from upstream, body fully read and decompressed.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The HTTP status code (non-2xx statuses are returned, not turned into errors).
    pub status: u16,
    /// The `Content-Type` header, if present and valid text.
    pub content_type: Option<String>,
    /// The body bytes (after content decoding).
    pub body: Vec<u8>,
    /// The URL that produced this response, after redirects.
    pub final_url: String,
    /// The `Retry-After` header as sent (seconds or an HTTP date), if present and valid text.
    pub retry_after: Option<String>,
}

/// `Debug` shows the final URL without its query string and the body length only.
impl fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("content_type", &self.content_type)
            .field("body_len", &self.body.len())
            .field("final_url", &redact_url(&self.final_url))
            .field("retry_after", &self.retry_after)
            .finish()
    }
}

/// A transport failure. `url` fields hold the URL as [`shown_url`] shows it (no user info or
/// fragment; the query string only through the request's [`HttpRequest::redactor`]); no variant
/// carries header values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The URL is not allowed (E009): unparsable, not HTTPS, or HTTP to a non-loopback host.
    #[error("refused URL {url}: {reason}")]
    RefusedUrl {
        /// Redacted URL.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// A redirect target is not allowed (E009).
    #[error("refused redirect from {from} to {to}: {reason}")]
    RefusedRedirect {
        /// Redacted URL that answered with the redirect.
        from: String,
        /// Redacted redirect target.
        to: String,
        /// Why it was refused.
        reason: String,
    },
    /// The request could not be built (E002), for example an invalid header name or value.
    #[error("invalid request to {url}: {reason}")]
    InvalidRequest {
        /// Redacted URL.
        url: String,
        /// What is wrong (never contains header values).
        reason: String,
    },
    /// DNS, connection, TLS or protocol failure (E002).
    #[error("network failure for {url}: {reason}")]
    Network {
        /// Redacted URL.
        url: String,
        /// A fixed description of the failure.
        reason: String,
    },
    /// More redirects than allowed (E002).
    #[error("too many redirects (more than {max}) starting at {url}")]
    TooManyRedirects {
        /// Redacted URL of the original request.
        url: String,
        /// The configured maximum.
        max: u32,
    },
    /// The call did not finish within the configured time (E003).
    #[error("timeout for {url}: {reason}")]
    Timeout {
        /// Redacted URL.
        url: String,
        /// Which timeout fired.
        reason: String,
    },
    /// The body could not be decoded, e.g. broken gzip data (E004).
    #[error("invalid response body from {url}: {reason}")]
    InvalidBody {
        /// Redacted URL.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// The body is larger than the configured cap (E008).
    #[error("response from {url} is larger than {limit} bytes")]
    TooLarge {
        /// Redacted URL.
        url: String,
        /// The configured cap in bytes.
        limit: u64,
    },
}

impl TransportError {
    /// The runtime error code for this failure.
    pub fn code(&self) -> Code {
        match self {
            TransportError::RefusedUrl { .. } | TransportError::RefusedRedirect { .. } => {
                Code::E009
            }
            TransportError::InvalidRequest { .. }
            | TransportError::Network { .. }
            | TransportError::TooManyRedirects { .. } => Code::E002,
            TransportError::Timeout { .. } => Code::E003,
            TransportError::InvalidBody { .. } => Code::E004,
            TransportError::TooLarge { .. } => Code::E008,
        }
    }

    /// The envelope message: `<code> <tool>: <description>`, in the same shape as
    /// [`status_error`].
    pub fn envelope_message(&self, tool: &str) -> String {
        format!("{} {tool}: {self}", self.code())
    }
}

/// The E001 message for a non-2xx upstream status: `E001 <tool>: API returned <status>`.
pub fn status_error(tool: &str, status: u16) -> String {
    format!("{} {tool}: {}", Code::E001, status_message(status))
}

/// The E001 text after `E001 <tool>: `, `API returned <status>`.
pub fn status_message(status: u16) -> String {
    format!("API returned {status}")
}

/// Checks an `--upstream` base URL before anything is sent: an absolute `https://` URL, or plain
/// `http://` to a loopback host (`127.0.0.0/8`, `::1`, `localhost`), without user info, query or
/// fragment. Returns whether it is plain HTTP to loopback (the transport must then allow that).
/// The URL is parsed as the transport will parse it, so `http://localhost:1@example.com/` is seen
/// for what it is: user info and the host `example.com`.
pub fn check_upstream(text: &str) -> Result<bool, UpstreamError> {
    let url = Url::parse(text).map_err(|e| UpstreamError::NotAbsolute(e.to_string()))?;
    let parts =
        urls::UrlParts::from_parsed(url.scheme(), url.host_str(), url.username(), url.password());
    if parts.credentials {
        return Err(UpstreamError::UserInfo);
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(UpstreamError::QueryOrFragment);
    }
    match urls::check(parts, true) {
        Ok(()) => Ok(parts.scheme == "http"),
        Err(UrlRefusal::HttpNotAllowed | UrlRefusal::HttpNotLoopback) => {
            Err(UpstreamError::PlainHttp)
        }
        Err(_) => Err(UpstreamError::Scheme),
    }
}

/// Why [`check_upstream`] refused a base URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UpstreamError {
    /// The text is not an absolute URL (the parser's reason).
    #[error("not an absolute URL ({0})")]
    NotAbsolute(String),
    /// `user@` or `user:password@`.
    #[error("a base URL cannot carry user info (`user@`)")]
    UserInfo,
    /// `?…` or `#…`.
    #[error("a base URL cannot have a query or a fragment")]
    QueryOrFragment,
    /// `http://` to a host that is not loopback.
    #[error("plain http is accepted only for loopback hosts (127.0.0.1, ::1, localhost)")]
    PlainHttp,
    /// Another scheme.
    #[error("must start with https:// (or http:// for a loopback host)")]
    Scheme,
}

/// Shows a URL as `scheme://host[:port]/path`, without user info, query string or fragment
/// (query strings may carry API keys). Unparsable input becomes `[invalid URL]`.
pub fn redact_url(url: &str) -> String {
    shown_url(url, None)
}

/// Shows a URL as messages may: `scheme://host[:port]/path?query`, never user info or fragment.
/// With `redactor`, the query string is shown and every value the redactor hides (in every form
/// it knows, anywhere in the URL) is `[redacted]`, so keys and other values stay readable
/// (`?q=hello&key=[redacted]`); without one, the query string is `?[redacted]` as a whole.
/// Unparsable input becomes `[invalid URL]`.
pub fn shown_url(url: &str, redactor: Option<&Redactor>) -> String {
    match Url::parse(url) {
        Ok(u) => show_parsed(&u, redactor),
        Err(_) => "[invalid URL]".to_string(),
    }
}

/// [`shown_url`] for a URL already parsed.
fn show_parsed(u: &Url, redactor: Option<&Redactor>) -> String {
    let host = host_of(u);
    let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
    let mut out = format!("{}://{host}{port}{}", u.scheme(), u.path());
    match (u.query(), redactor) {
        (Some(q), Some(_)) => {
            out.push('?');
            out.push_str(q);
        }
        (Some(_), None) => out.push_str("?[redacted]"),
        (None, _) => {}
    }
    match redactor {
        Some(r) => r.redact(&out),
        None => out,
    }
}

/// The host of `u` as messages show it (`[…]` around an IPv6 address).
fn host_of(u: &Url) -> String {
    match u.host() {
        Some(Host::Ipv6(ip)) => format!("[{ip}]"),
        Some(h) => h.to_string(),
        None => String::new(),
    }
}

/// Sends [`HttpRequest`]s. Implementations must not turn non-2xx statuses into errors.
pub trait Transport {
    /// Performs the request, following redirects as the implementation's policy allows.
    fn send(&self, req: &HttpRequest) -> Result<HttpResponse, TransportError>;
}

/// What a [`Runner`](crate::Runner) tells about its calls while it runs them, and the one thing it
/// asks: a server's metrics and logs ([`RunnerOptions::observer`](crate::RunnerOptions::observer)).
/// Every method has a default that does nothing; each is called on the thread of the call and must
/// be cheap (a counter, not a lock held for long). Nothing passed holds a secret or an argument
/// value.
pub trait Observer: Send + Sync {
    /// The tool's own request (the schema's request, after its origin check; not a handler's
    /// `fetch`) got an answer with this status, or none (`None`: it failed before one arrived),
    /// after `elapsed`.
    fn upstream(&self, status: Option<u16>, elapsed: Duration) {
        let _ = (status, elapsed);
    }
    /// A preload cache lookup: `true` a fresh entry was served, `false` the upstream is asked
    /// (no entry, or an expired one).
    fn preload_cache(&self, hit: bool) {
        let _ = hit;
    }
    /// A handler sandbox that hit a limit (or holds too much memory) was thrown away and is built
    /// again.
    fn sandbox_rebuilt(&self) {}
    /// The id of the request the current call serves on this thread, sent as
    /// [`REQUEST_ID_HEADER`] on the tool's own request unless the schema sets that header itself.
    /// It goes nowhere else: never to a handler's `fetch`, never to another origin. `None` (the
    /// default) sends none.
    fn request_id(&self) -> Option<String> {
        None
    }
}

impl fmt::Debug for dyn Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
}

/// The header that carries [`Observer::request_id`] to the upstream.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Whether `id` may be a request id: 1 to 64 letters, digits, `-`, `_` or `.`, so that it is safe
/// in a header and a log line. A server takes a client's id only when it is one, and a runner
/// sends only such an id upstream.
pub fn is_request_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Settings for [`UreqTransport`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransportConfig {
    /// Time allowed to establish a connection (DNS, TCP, TLS).
    pub connect_timeout: Duration,
    /// Time allowed for the whole call, redirects and body included.
    pub total_timeout: Duration,
    /// Cap on the decoded body; larger responses fail with E008.
    pub max_body_bytes: u64,
    /// Number of redirects followed; one more fails with E002.
    pub max_redirects: u32,
    /// `User-Agent` header value.
    pub user_agent: String,
    /// Allow plain `http://` to loopback hosts (local tests, `--upstream` demos).
    pub allow_http_loopback: bool,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            connect_timeout: Duration::from_secs(10),
            total_timeout: Duration::from_secs(30),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            user_agent: format!("flowmcp-rs/{}", env!("CARGO_PKG_VERSION")),
            allow_http_loopback: false,
        }
    }
}

/// The production [`Transport`] on top of `ureq` agents (one that reaches any address, one for
/// [`HttpRequest::public_only`] requests).
#[derive(Debug)]
pub struct UreqTransport {
    agent: ureq::Agent,
    public_agent: ureq::Agent,
    config: TransportConfig,
}

impl Default for UreqTransport {
    fn default() -> Self {
        UreqTransport::new(TransportConfig::default())
    }
}

/// Header names dropped on an origin change even when not marked secret.
const CREDENTIAL_HEADERS: [&str; 3] = ["authorization", "proxy-authorization", "cookie"];

/// Headers that frame or route the message: set by the client alone, never taken from a request.
const CLIENT_HEADERS: [&str; 10] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
    "proxy-connection",
    "expect",
];

/// Whether a header name is one of [`CLIENT_HEADERS`].
fn is_client_header(name: &str) -> bool {
    CLIENT_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name))
}

impl UreqTransport {
    /// Builds the agents: statuses are not errors, no automatic redirects, no proxy from the
    /// environment, connect timeout and user agent from `config`.
    pub fn new(config: TransportConfig) -> Self {
        UreqTransport {
            agent: Self::agent(&config, false),
            public_agent: Self::agent(&config, true),
            config,
        }
    }

    fn agent(config: &TransportConfig, public_only: bool) -> ureq::Agent {
        let config_ureq = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .https_only(false)
            .proxy(None)
            .timeout_connect(Some(config.connect_timeout))
            // The whole-call limit (see `UreqTransport::run`).
            .timeout_global(Some(config.total_timeout))
            .user_agent(config.user_agent.as_str())
            .build();
        ureq::Agent::with_parts(
            config_ureq,
            ureq::unversioned::transport::DefaultConnector::new(),
            CheckingResolver {
                inner: Default::default(),
                public_only,
            },
        )
    }

    /// The configuration in use.
    pub fn config(&self) -> &TransportConfig {
        &self.config
    }

    /// Checks a URL against the scheme policy and parses it.
    fn check_url(&self, raw: &str) -> Result<Url, String> {
        let url = Url::parse(raw).map_err(|e| format!("not a valid absolute URL ({e})"))?;
        let allow = self.config.allow_http_loopback;
        match urls::check(
            urls::UrlParts::from_parsed(
                url.scheme(),
                url.host_str(),
                url.username(),
                url.password(),
            ),
            allow,
        ) {
            Ok(()) if url.scheme() == "https" && !cfg!(feature = "tls") => Err(
                "this build has no TLS (flowmcp-runtime's `tls` feature is off), so https:// \
                 cannot be fetched"
                    .to_string(),
            ),
            Ok(()) => Ok(url),
            Err(UrlRefusal::Credentials) => {
                Err("credentials (user:password@) in URLs are not allowed".to_string())
            }
            Err(UrlRefusal::NoHost) => Err("URL has no host".to_string()),
            Err(UrlRefusal::HttpNotLoopback) if allow => {
                Err("plain http:// is only allowed to loopback hosts".to_string())
            }
            Err(UrlRefusal::HttpNotAllowed | UrlRefusal::HttpNotLoopback) => {
                Err("only https:// URLs are allowed".to_string())
            }
            Err(_) => Err(format!("scheme {:?} is not allowed", url.scheme())),
        }
    }

    /// Checks a redirect target: HTTPS may only lead to HTTPS; otherwise the same scheme policy
    /// as for the original URL applies.
    fn check_redirect(&self, from: &Url, to: &Url) -> Result<Url, String> {
        if from.scheme() == "https" && to.scheme() != "https" {
            return Err("redirect leaves HTTPS".to_string());
        }
        self.check_url(to.as_str())
    }

    /// Performs one exchange (no redirect handling) and reads the capped body.
    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &self,
        agent: &ureq::Agent,
        method: Method,
        url: &Url,
        headers: &[(String, HeaderValue)],
        body: Option<&[u8]>,
        remaining: Duration,
        own_limit: bool,
        max_body_bytes: u64,
        redactor: Option<&Redactor>,
    ) -> Result<Exchange, TransportError> {
        // The URL as errors show it, made only when an error needs it.
        let shown = || show_parsed(url, redactor);
        let mut builder = ureq::http::Request::builder()
            .method(method.as_str())
            .uri(url.as_str());
        for (name, value) in headers {
            if is_client_header(name) {
                continue;
            }
            let name = ureq::http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                TransportError::InvalidRequest {
                    url: shown(),
                    reason: "invalid header name".to_string(),
                }
            })?;
            let value = ureq::http::HeaderValue::from_str(value.expose()).map_err(|_| {
                TransportError::InvalidRequest {
                    url: shown(),
                    reason: format!("invalid value for header {name}"),
                }
            })?;
            builder = builder.header(name, value);
        }
        // A POST or PUT without a body says so with `Content-Length: 0` (an empty body of
        // bytes), never as an empty chunked stream, which some servers refuse (411).
        let empty: &[u8] = &[];
        let body = body.or_else(|| method.allows_body().then_some(empty));
        let result = match body {
            Some(bytes) => {
                let request = builder.body(bytes).map_err(|_| invalid_request(&shown()))?;
                run(agent, request, own_limit, remaining)
            }
            None => {
                let request = builder.body(()).map_err(|_| invalid_request(&shown()))?;
                run(agent, request, own_limit, remaining)
            }
        };
        let limit = max_body_bytes;
        let mut response = result.map_err(|e| map_ureq_error(e, url, &shown(), limit))?;
        let status = response.status().as_u16();
        let content_type = header_text(&response, "content-type");
        let location = header_text(&response, "location");
        let retry_after = header_text(&response, "retry-after");
        let body = if is_redirect(status) && location.is_some() {
            // The body of a redirect is never used; do not read it.
            Vec::new()
        } else {
            read_capped(response.body_mut(), limit)
                .map_err(|e| map_ureq_error(e, url, &shown(), limit))?
        };
        let location = location.filter(|_| is_redirect(status));
        Ok(Exchange {
            response: HttpResponse {
                status,
                content_type,
                body,
                final_url: url.as_str().to_string(),
                retry_after,
            },
            location,
        })
    }
}

/// Runs one request. With `own_limit` the agent's whole-call timeout applies; otherwise the
/// request gets `remaining` (a per-request configuration costs about 13 µs, so it is made only when
/// needed: after a redirect, or under a deadline shorter than the agent's limit).
fn run<B: ureq::AsSendBody>(
    agent: &ureq::Agent,
    request: ureq::http::Request<B>,
    own_limit: bool,
    remaining: Duration,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    if own_limit {
        agent.run(request)
    } else {
        let request = agent
            .configure_request(request)
            .timeout_global(Some(remaining))
            .build();
        agent.run(request)
    }
}

/// Resolves hosts that are IP literals (`127.0.0.1`, `[::1]`) without a lookup, and names with
/// ureq's default resolver. (With a timeout set, the default resolver runs every lookup, literals
/// included, on a new thread so that it can give up; for literals that thread is pure cost.)
/// With `public_only`, an answer holding any non-public address fails (as a `PermissionDenied`
/// I/O error, reported as E009).
#[derive(Debug)]
struct CheckingResolver {
    inner: ureq::unversioned::resolver::DefaultResolver,
    public_only: bool,
}

/// The error a `public_only` resolver gives for a non-public address.
fn non_public_error() -> ureq::Error {
    ureq::Error::Io(std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        "non-public address",
    ))
}

/// Whether an address is public: not loopback, private (RFC 1918, unique local), link-local,
/// shared (100.64/10), unspecified, broadcast, multicast, documentation or benchmarking space,
/// and not an IPv4-mapped or -compatible form of one of those.
pub fn is_public_ip(ip: std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_ip(IpAddr::V4(v4));
            }
            let seg = v6.segments();
            // ::a.b.c.d (deprecated IPv4-compatible) and 64:ff9b::/96 (NAT64) carry an IPv4 address.
            if seg[..6] == [0, 0, 0, 0, 0, 0] || seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let v4 = std::net::Ipv4Addr::new(
                    (seg[6] >> 8) as u8,
                    seg[6] as u8,
                    (seg[7] >> 8) as u8,
                    seg[7] as u8,
                );
                return !v6.is_unspecified() && !v6.is_loopback() && is_public_ip(IpAddr::V4(v4));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (seg[0] & 0xfe00) == 0xfc00
                || (seg[0] & 0xffc0) == 0xfe80
                || (seg[0] & 0xffc0) == 0xfec0
                || seg[0] == 0x2001 && seg[1] == 0x0db8)
        }
    }
}

impl ureq::unversioned::resolver::Resolver for CheckingResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        if let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) {
            let host = authority
                .host()
                .trim_start_matches('[')
                .trim_end_matches(']');
            let port = authority.port_u16().or(match scheme {
                "https" => Some(443),
                "http" => Some(80),
                _ => None,
            });
            if let (Ok(ip), Some(port)) = (host.parse::<std::net::IpAddr>(), port) {
                if self.public_only && !is_public_ip(ip) {
                    return Err(non_public_error());
                }
                let mut out = self.empty();
                out.push(std::net::SocketAddr::new(ip, port));
                return Ok(out);
            }
        }
        // A failed lookup is an I/O error from the system resolver ("uncategorized"): it means the
        // name does not resolve.
        let addrs = self
            .inner
            .resolve(uri, config, timeout)
            .map_err(|e| match e {
                ureq::Error::Io(_) => ureq::Error::HostNotFound,
                other => other,
            })?;
        if self.public_only && addrs.iter().any(|a| !is_public_ip(a.ip())) {
            return Err(non_public_error());
        }
        Ok(addrs)
    }
}

/// One exchange: the response and, for a followable redirect, its `Location` value.
struct Exchange {
    response: HttpResponse,
    location: Option<String>,
}

/// A way to end the upstream requests of one call from another thread: requests that
/// [`UreqTransport`] sends on a thread inside [`CancelScope::enter`] each use an agent of their
/// own, and [`CancelScope::cancel`] shuts those agents down, which closes their connections (the
/// upstream sees the close; the request fails with an I/O error). Cheap to clone (one `Arc`).
#[derive(Clone, Debug, Default)]
pub struct CancelScope {
    inner: Arc<std::sync::Mutex<ScopeState>>,
}

#[derive(Debug, Default)]
struct ScopeState {
    cancelled: bool,
    agents: Vec<ureq::Agent>,
}

thread_local! {
    static CURRENT_SCOPE: std::cell::RefCell<Option<CancelScope>> =
        const { std::cell::RefCell::new(None) };
}

impl CancelScope {
    /// A new scope, not cancelled.
    pub fn new() -> CancelScope {
        CancelScope::default()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ScopeState> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `f` on this thread inside the scope: the upstream requests it sends can be ended by
    /// [`CancelScope::cancel`].
    pub fn enter<T>(&self, f: impl FnOnce() -> T) -> T {
        /// Puts the previous scope back, also when `f` panics.
        struct Reset<'a>(Option<CancelScope>, &'a CancelScope);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT_SCOPE.with(|c| c.replace(previous));
                self.1.state().agents.clear();
            }
        }
        let previous = CURRENT_SCOPE.with(|c| c.replace(Some(self.clone())));
        let _reset = Reset(previous, self);
        f()
    }

    /// Ends the requests in flight in the scope and makes later ones fail at once.
    pub fn cancel(&self) {
        let agents = {
            let mut st = self.state();
            st.cancelled = true;
            std::mem::take(&mut st.agents)
        };
        for a in agents {
            a.shutdown();
        }
    }

    /// Whether [`CancelScope::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.state().cancelled
    }

    /// An agent of its own for a request sent inside the current thread's scope (`None`
    /// outside one); shut down already when the scope was cancelled.
    fn agent_for(config: &TransportConfig, public_only: bool) -> Option<ureq::Agent> {
        let scope = CURRENT_SCOPE.with(|c| c.borrow().clone())?;
        let agent = UreqTransport::agent(config, public_only);
        let mut st = scope.state();
        if st.cancelled {
            drop(st);
            agent.clone().shutdown();
        } else {
            st.agents.push(agent.clone());
        }
        Some(agent)
    }
}

/// Whether this thread runs inside a [`CancelScope`] that was cancelled.
pub(crate) fn scope_cancelled() -> bool {
    CURRENT_SCOPE.with(|c| c.borrow().as_ref().is_some_and(CancelScope::is_cancelled))
}

/// Waits `pause` on this thread, ending early when the thread's [`CancelScope`] is cancelled
/// (looked at every 20 ms). Returns whether the whole pause passed without a cancel.
pub(crate) fn pause_unless_cancelled(pause: Duration) -> bool {
    const STEP: Duration = Duration::from_millis(20);
    let until = Instant::now() + pause;
    loop {
        if scope_cancelled() {
            return false;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(STEP));
    }
}

impl Transport for UreqTransport {
    fn send(&self, req: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let own = Instant::now() + self.config.total_timeout;
        let deadline = req.deadline.map_or(own, |d| d.min(own));
        // Inside a cancel scope the request has an agent of its own, which the scope can shut
        // down (the upstream sees the connection close).
        let scoped = CancelScope::agent_for(&self.config, req.public_only);
        let agent = match &scoped {
            Some(a) => a,
            None if req.public_only => &self.public_agent,
            None => &self.agent,
        };
        let redactor = req.redactor.as_deref();
        let shown = |u: &Url| show_parsed(u, redactor);
        let mut url = self
            .check_url(&req.url)
            .map_err(|reason| TransportError::RefusedUrl {
                url: shown_url(&req.url, redactor),
                reason,
            })?;
        let mut method = req.method;
        // Borrowed until a redirect has to change them.
        let mut headers: Cow<'_, [(String, HeaderValue)]> = Cow::Borrowed(&req.headers);
        let mut body: Option<&[u8]> = req.body.as_deref();
        let mut redirects = 0u32;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(TransportError::Timeout {
                    url: shown(&url),
                    reason: "the call's time limit was reached".to_string(),
                });
            }
            let own_limit = redirects == 0 && deadline == own;
            let exchange = self.exchange(
                agent,
                method,
                &url,
                &headers,
                body,
                remaining,
                own_limit,
                req.max_body_bytes.unwrap_or(self.config.max_body_bytes),
                redactor,
            )?;
            let Some(location) = exchange.location else {
                return Ok(exchange.response);
            };
            let status = exchange.response.status;
            let from_shown = shown(&url);
            let Ok(next) = url.join(&location) else {
                return Err(TransportError::RefusedRedirect {
                    from: from_shown,
                    to: "[invalid URL]".to_string(),
                    reason: "Location is not a valid URL".to_string(),
                });
            };
            if redirects >= self.config.max_redirects {
                return Err(TransportError::TooManyRedirects {
                    url: shown_url(&req.url, redactor),
                    max: self.config.max_redirects,
                });
            }
            redirects += 1;
            let next = self.check_redirect(&url, &next).map_err(|reason| {
                TransportError::RefusedRedirect {
                    from: from_shown,
                    to: shown(&next),
                    reason,
                }
            })?;
            // 303 always, and 301/302 for anything but GET/HEAD, continue as a body-less GET.
            let to_get = status == 303
                || (matches!(status, 301 | 302) && !matches!(method, Method::Get | Method::Head));
            if !same_origin(&url, &next) {
                if !to_get && body.is_some() && req.body_is_secret {
                    return Err(TransportError::RefusedRedirect {
                        from: shown(&url),
                        to: shown(&next),
                        reason: "the body carries a secret and would be sent to another origin"
                            .to_string(),
                    });
                }
                headers.to_mut().retain(|(name, value)| {
                    !value.is_secret()
                        && !CREDENTIAL_HEADERS
                            .iter()
                            .any(|c| c.eq_ignore_ascii_case(name))
                });
            }
            if to_get {
                if method != Method::Head {
                    method = Method::Get;
                }
                body = None;
                headers.to_mut().retain(|(name, _)| {
                    !name.eq_ignore_ascii_case("content-type")
                        && !name.eq_ignore_ascii_case("content-length")
                });
            }
            url = next;
        }
    }
}

/// Whether the status is a redirect this transport follows.
fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Whether two URLs share scheme, host and (effective) port.
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host() == b.host()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// A header as text, if present and visible ASCII.
fn header_text(response: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn invalid_request(shown: &str) -> TransportError {
    TransportError::InvalidRequest {
        url: shown.to_string(),
        reason: "request could not be built".to_string(),
    }
}

/// Reads the body, capping both the raw (possibly compressed) and the decoded size at `limit`.
///
/// ureq's own limit fails as soon as `limit` bytes have been read and more are asked for, even at
/// end of stream, so the raw cap is one byte higher and the decoded size is checked here.
fn read_capped(body: &mut ureq::Body, limit: u64) -> Result<Vec<u8>, ureq::Error> {
    let reader = body.with_config().limit(limit.saturating_add(1)).reader();
    let mut buf = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(ureq::Error::from)?;
    if buf.len() as u64 > limit {
        return Err(ureq::Error::BodyExceedsLimit(limit));
    }
    Ok(buf)
}

/// Maps a `ureq` error of an exchange with `url` (shown as `shown`) to a [`TransportError`] that
/// says in words what failed and with which host: `cannot resolve host api.example.com`,
/// `connection refused by 127.0.0.1:8080`, `TLS failure with api.example.com: …`,
/// `connecting to api.example.com took too long`. ureq's own messages may quote URLs, so they are
/// not reused (TLS errors name the certificate problem only).
fn map_ureq_error(err: ureq::Error, url: &Url, shown: &str, limit: u64) -> TransportError {
    let host = host_of(url);
    let address = match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.clone(),
    };
    let network = |reason: String| TransportError::Network {
        url: shown.to_string(),
        reason,
    };
    let timeout = |reason: String| TransportError::Timeout {
        url: shown.to_string(),
        reason,
    };
    match err {
        ureq::Error::Timeout(which) => timeout(match which {
            ureq::Timeout::Resolve => format!("resolving host {host} took too long"),
            ureq::Timeout::Connect => format!("connecting to {address} took too long"),
            ureq::Timeout::SendRequest | ureq::Timeout::SendBody => {
                format!("sending the request to {host} took too long")
            }
            ureq::Timeout::RecvResponse => format!("{host} did not answer in time"),
            ureq::Timeout::RecvBody => format!("reading the response of {host} took too long"),
            ureq::Timeout::Global | ureq::Timeout::PerCall => {
                "the call's time limit was reached".to_string()
            }
            other => format!("timeout ({other})"),
        }),
        ureq::Error::BodyExceedsLimit(_) => TransportError::TooLarge {
            url: shown.to_string(),
            limit,
        },
        ureq::Error::Decompress(kind, _) => TransportError::InvalidBody {
            url: shown.to_string(),
            reason: format!("could not decompress {kind} body"),
        },
        // The resolver turns a failed lookup into this (see `CheckingResolver`).
        ureq::Error::HostNotFound => network(format!("cannot resolve host {host}")),
        ureq::Error::ConnectionFailed => network(format!("cannot connect to {address}")),
        ureq::Error::Io(e) => {
            use std::io::ErrorKind;
            match e.kind() {
                ErrorKind::PermissionDenied => TransportError::RefusedUrl {
                    url: shown.to_string(),
                    reason: "the host is, or resolves to, a loopback, private or other non-public \
                             address, which only an upstream set for the namespace may name"
                        .to_string(),
                },
                ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                    timeout(format!("{host} did not answer in time"))
                }
                // rustls reports a failed handshake (a bad certificate, a peer that does not
                // speak TLS) as invalid data, with its own error inside.
                ErrorKind::InvalidData if url.scheme() == "https" => network(format!(
                    "TLS failure with {host}: {}",
                    e.get_ref()
                        .map_or_else(|| "invalid data".to_string(), ToString::to_string)
                )),
                ErrorKind::ConnectionRefused => network(format!("connection refused by {address}")),
                ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
                    network(format!("{host} closed the connection"))
                }
                ErrorKind::UnexpectedEof => network(format!(
                    "{host} closed the connection before the answer was complete"
                )),
                ErrorKind::NetworkUnreachable | ErrorKind::HostUnreachable => {
                    network(format!("cannot reach {address} (no route)"))
                }
                ErrorKind::AddrNotAvailable | ErrorKind::NetworkDown => {
                    network(format!("cannot connect to {address} (network down)"))
                }
                kind => network(format!("I/O error with {host} ({kind})")),
            }
        }
        ureq::Error::Tls(what) => network(format!("TLS failure with {host}: {what}")),
        #[cfg(feature = "tls")]
        ureq::Error::Rustls(e) => network(format!("TLS failure with {host}: {e}")),
        #[cfg(feature = "tls")]
        ureq::Error::Pem(_) => network(format!(
            "TLS failure with {host}: a certificate cannot be read"
        )),
        ureq::Error::TlsRequired => network("TLS required".to_string()),
        ureq::Error::Protocol(_) => network(format!("{host} did not answer with valid HTTP")),
        ureq::Error::LargeResponseHeader(_, _) => {
            network(format!("the response headers of {host} are too large"))
        }
        ureq::Error::BodyStalled => network(format!("the response body of {host} stalled")),
        ureq::Error::BadUri(_) | ureq::Error::Http(_) => TransportError::InvalidRequest {
            url: shown.to_string(),
            reason: "request could not be built".to_string(),
        },
        _ => network("HTTP error".to_string()),
    }
}

/// Decodes a response body to JSON by MIME type (chapter 04):
///
/// * `application/json` and `*/*+json` are parsed (invalid → E004);
/// * `text/plain` becomes a JSON string (invalid UTF-8 → E004);
/// * `image/png` becomes a base64 (standard alphabet, padded) string;
/// * anything else (or no `Content-Type`) is parsed as JSON if possible, otherwise returned as a
///   string; an empty body is `null`; non-UTF-8 data is E004.
///
/// The message never quotes the body.
pub fn decode_body(resp: &HttpResponse) -> Result<serde_json::Value, (Code, String)> {
    let mime = resp
        .content_type
        .as_deref()
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let is_json = mime == "application/json" || (mime.contains('/') && mime.ends_with("+json"));
    if is_json {
        return serde_json::from_slice(&resp.body).or_else(|e| {
            // What `JSON.parse` accepts beyond serde_json (deep nesting, `1e400`, lone
            // surrogates) is read by the second reader; its verdict decides.
            crate::json::parse_lenient(&resp.body).map_err(|lenient| {
                let kind = match (&lenient, e.classify()) {
                    (crate::json::JsonError::TooDeep, _) => {
                        return (
                            Code::E004,
                            format!(
                                "invalid JSON response body (nested more than {} levels deep)",
                                crate::json::MAX_DEPTH
                            ),
                        );
                    }
                    (_, serde_json::error::Category::Eof) => "unexpected end of input",
                    (_, serde_json::error::Category::Io) => "I/O error",
                    _ => "syntax error",
                };
                (
                    Code::E004,
                    format!(
                        "invalid JSON response body ({kind} at line {} column {})",
                        e.line(),
                        e.column()
                    ),
                )
            })
        });
    }
    match mime.as_str() {
        "text/plain" => utf8(&resp.body).map(serde_json::Value::String),
        _ if is_base64_mime(Some(&mime)) => {
            Ok(serde_json::Value::String(base64_encode(&resp.body)))
        }
        _ => {
            if resp.body.iter().all(u8::is_ascii_whitespace) {
                return Ok(serde_json::Value::Null);
            }
            if let Ok(v) = serde_json::from_slice(&resp.body) {
                return Ok(v);
            }
            if let Ok(v) = crate::json::parse_lenient(&resp.body) {
                return Ok(v);
            }
            utf8(&resp.body).map(serde_json::Value::String)
        }
    }
}

/// Whether [`decode_body`] turns a body of this `Content-Type` into base64 text (`image/png`).
pub fn is_base64_mime(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("image/png"))
}

fn utf8(bytes: &[u8]) -> Result<String, (Code, String)> {
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        (
            Code::E004,
            format!(
                "response body is not valid UTF-8 (at byte {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in cases {
            assert_eq!(base64_encode(input.as_bytes()), expected);
        }
    }

    /// A URL with `user:password@` is refused before anything is sent, to any host and with
    /// loopback http allowed or not (it was accepted before D106).
    #[test]
    fn i40_transport_refuses_credentials_in_urls() {
        let strict = UreqTransport::default();
        let local = UreqTransport::new(TransportConfig {
            allow_http_loopback: true,
            ..TransportConfig::default()
        });
        for (transport, url) in [
            (&strict, "https://user:secret@api.example.com/x"),
            (&strict, "https://user@api.example.com/x"),
            (&local, "http://user:secret@127.0.0.1:8080/"),
            (&local, "https://:secret@api.example.com/"),
        ] {
            let err = transport.check_url(url).err();
            assert_eq!(
                err.as_deref(),
                Some("credentials (user:password@) in URLs are not allowed"),
                "{url}"
            );
        }
        let from = Url::parse("https://api.example.com/").ok();
        let to = Url::parse("https://user:pw@api.example.com/next").ok();
        if let (Some(from), Some(to)) = (from, to) {
            assert!(strict.check_redirect(&from, &to).is_err());
        } else {
            panic!("test URLs parse");
        }
    }

    #[test]
    fn url_policy() {
        let strict = UreqTransport::default();
        // A build without TLS (the `tls` feature off) refuses https:// before connecting, saying why.
        let https = strict.check_url("https://api.example.com/x?k=1");
        assert_eq!(https.is_ok(), cfg!(feature = "tls"), "{https:?}");
        if let Err(why) = https {
            assert!(why.contains("`tls` feature"), "{why}");
        }
        assert!(strict.check_url("http://127.0.0.1:8080/").is_err());
        assert!(strict.check_url("ftp://example.com/").is_err());
        assert!(strict.check_url("not a url").is_err());
        let local = UreqTransport::new(TransportConfig {
            allow_http_loopback: true,
            ..TransportConfig::default()
        });
        assert!(local.check_url("http://127.0.0.1:8080/").is_ok());
        assert!(local.check_url("http://[::1]:8080/").is_ok());
        assert!(local.check_url("http://LOCALHOST/").is_ok());
        assert!(local.check_url("http://example.com/").is_err());
        assert!(local.check_url("http://localhost.example.com/").is_err());
    }

    #[test]
    fn redirect_policy_never_leaves_https() {
        let t = UreqTransport::new(TransportConfig {
            allow_http_loopback: true,
            ..TransportConfig::default()
        });
        let url = |s: &str| Url::parse(s).expect("static URL");
        let https = url("https://api.example.com/a");
        assert_eq!(
            t.check_redirect(&https, &url("https://other.example.com/b"))
                .is_ok(),
            cfg!(feature = "tls")
        );
        assert!(
            t.check_redirect(&https, &url("http://127.0.0.1/b"))
                .is_err()
        );
        assert!(
            t.check_redirect(&https, &url("http://api.example.com/b"))
                .is_err()
        );
        let local = url("http://127.0.0.1:9/a");
        assert!(
            t.check_redirect(&local, &url("http://localhost:8/b"))
                .is_ok()
        );
        assert_eq!(
            t.check_redirect(&local, &url("https://api.example.com/b"))
                .is_ok(),
            cfg!(feature = "tls")
        );
        assert!(
            t.check_redirect(&local, &url("http://example.com/b"))
                .is_err()
        );
    }

    #[test]
    fn redaction_drops_query_and_userinfo() {
        assert_eq!(
            redact_url("https://user:pw@api.example.com:8443/v1/x?key=abc#frag"),
            "https://api.example.com:8443/v1/x?[redacted]"
        );
        assert_eq!(redact_url("http://[::1]:80/a"), "http://[::1]/a");
        assert_eq!(redact_url("::"), "[invalid URL]");
    }

    /// Issue #28 item 7c: a timeout says which step took too long, with the host (a connect
    /// timeout cannot be made to happen on 127.0.0.1, so the mapping is checked here).
    #[test]
    fn i28_7c_timeouts_say_which_step_took_too_long() {
        let url = Url::parse("https://api.example.com/v1?k=1").expect("static URL");
        let text = |which| map_ureq_error(ureq::Error::Timeout(which), &url, "U", 1).to_string();
        assert_eq!(
            text(ureq::Timeout::Connect),
            "timeout for U: connecting to api.example.com:443 took too long"
        );
        assert_eq!(
            text(ureq::Timeout::Resolve),
            "timeout for U: resolving host api.example.com took too long"
        );
        assert_eq!(
            text(ureq::Timeout::RecvResponse),
            "timeout for U: api.example.com did not answer in time"
        );
        let io = |kind: std::io::ErrorKind| {
            map_ureq_error(ureq::Error::Io(kind.into()), &url, "U", 1).to_string()
        };
        assert_eq!(
            io(std::io::ErrorKind::ConnectionRefused),
            "network failure for U: connection refused by api.example.com:443"
        );
        assert_eq!(
            map_ureq_error(ureq::Error::HostNotFound, &url, "U", 1).to_string(),
            "network failure for U: cannot resolve host api.example.com"
        );
    }

    #[test]
    fn origin_comparison_uses_effective_port() {
        let a = Url::parse("https://a.example/x").expect("static URL");
        let b = Url::parse("https://a.example:443/y").expect("static URL");
        let c = Url::parse("https://a.example:8443/y").expect("static URL");
        let d = Url::parse("http://a.example/y").expect("static URL");
        assert!(same_origin(&a, &b));
        assert!(!same_origin(&a, &c));
        assert!(!same_origin(&a, &d));
    }
}
