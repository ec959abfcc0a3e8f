//! Streamable HTTP: MCP endpoints on a local listener, stateless, with a bearer token or OAuth
//! access tokens, Origin and Host checks, capped bodies and concurrency, `GET /healthz`,
//! `GET /readyz`, `GET /metrics` ([`HttpOptions::metrics`]), and a drain on shutdown
//! ([`HttpOptions::grace`]). This module is the `http` feature (on by default); OAuth needs the
//! `oauth` feature too and `/metrics` the `metrics` feature (see the crate's "Features").
//!
//! Every MCP request gets an id (the client's `x-request-id` when it is short and plain, else a
//! new one), sent back in `x-request-id`, written in the call's log line (target `flowmcp::call`,
//! at `info`) and sent to the upstream on the tool's own request (see
//! `flowmcp_catalog::runtime::Observer::request_id`) when the catalog's runner options have
//! [`Metrics`] or [`RequestIds`] as their observer.
//!
//! The listener holds up against clients that do not play along: a request's headers must arrive
//! within [`HttpOptions::header_timeout`] (which also ends idle kept-alive connections) and its
//! body within [`HttpOptions::body_timeout`]; at most [`HttpOptions::max_connections`] are open at
//! once (and at most [`HttpOptions::max_connections_per_peer`] of them from one peer), counted
//! when they are accepted: a new connection takes the place of one that sits idle between
//! requests, and only when none is idle gets a 503 and is closed at once; the cap is lowered, with
//! a warning, to fit below the process's limit of open descriptors; answers to requests that
//! carry no credential (`/healthz`, `/readyz`, a 401, 403 or 404) close their connection; and
//! when `accept` fails (no descriptors left, …) the loop waits, 10 ms doubling to 1 s, and logs
//! once per run of failures instead of spinning. Endpoints without authentication are served
//! only on a loopback address and only to requests that no proxy forwarded, unless
//! [`HttpOptions::no_auth`] says otherwise; an empty token is an error, never "no token".
//! `GET /metrics` checks Host and Origin as the MCP endpoints do.
//!
//! A listener serves one endpoint at [`MCP_PATH`] ([`McpServer::serve_http`]) or several, one per
//! [`Route`] ([`Endpoints::routes`]), each with its own tool set and, optionally, its own token.
//! Every request is answered on its own (no session state on the server), so several replicas can
//! sit behind a load balancer. The MCP endpoint itself is rmcp's Streamable HTTP service; this
//! module puts the checks in front of it. All that answers requests is one
//! [`McpService`](crate::McpService) ([`Endpoints::service`]), a `tower_service::Service` an
//! application can mount in a server of its own; [`Endpoints::run`] is a listener that accepts
//! connections and hands each to it (the header deadline, the connection cap and the accept
//! back-off are the listener's, so an embedder's server decides those itself).
//!
//! With [`HttpOptions::oauth`] the server is an OAuth 2.1 resource server: it publishes RFC 9728
//! metadata at `/.well-known/oauth-protected-resource<path>` and accepts only JWT access tokens
//! of the configured issuer (see [`OAuthOptions`]).

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use flowmcp_catalog::Catalog;
use flowmcp_catalog::runtime::Observer;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use http_body_util::{LengthLimitError, Limited};
use hyper::body::Body as HttpBody;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use crate::client_params::ClientParams;
#[cfg(feature = "metrics")]
pub use crate::metrics::Metrics;
#[cfg(feature = "oauth")]
use crate::oauth::{EndpointGuard, Issuer, OAuthError, OAuthOptions, Verifier};
pub use crate::reply::RESOURCE_METADATA_PATH;
#[cfg(feature = "metrics")]
use crate::reply::same_secret;
pub(crate) use crate::reply::{Body, BoxError};
use crate::reply::{plain, token_matches};
pub use crate::request::RUNTIME_NOTES;
use crate::request::current_request_id;
use crate::route::{Route, RouteError, check_path};
use crate::server::RequestInfo;
use crate::tasks::{self, Plan};
use crate::{McpServer, ServeError, ServeOptions};

/// The path of the MCP endpoint when no routes are given.
pub const MCP_PATH: &str = "/mcp";

/// The observer that only passes each MCP request's id on to the upstream (as [`Metrics`] does
/// besides counting): give it to the catalog's runner options as their
/// [`observer`](flowmcp_catalog::runtime::RunnerOptions::observer) when the server counts no metrics, so
/// that the tool's own request still carries `x-request-id`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestIds;

impl Observer for RequestIds {
    fn request_id(&self) -> Option<String> {
        current_request_id()
    }
}

/// The header a request id travels in (from the client, back to it, and to the upstream).
const REQUEST_ID: &str = flowmcp_catalog::runtime::REQUEST_ID_HEADER;

/// The id of a request: the client's `x-request-id` when it is one
/// ([`flowmcp_catalog::runtime::is_request_id`]), else a new one, unique in this process
/// and unlikely to repeat in another (its start time is part of it).
fn request_id(given: Option<&HeaderValue>) -> Arc<str> {
    if let Some(v) = given.and_then(|v| v.to_str().ok())
        && flowmcp_catalog::runtime::is_request_id(v)
    {
        return Arc::from(v);
    }
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static START: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let start = *START.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ u64::from(std::process::id()).rotate_left(32)
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    Arc::from(format!("{start:016x}-{n:x}"))
}

/// How to serve over HTTP.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The address to listen on (default `127.0.0.1:8765`). For [`Endpoints::service`], the
    /// address the embedder's listener is bound to.
    pub listen: SocketAddr,
    /// When set, every MCP request must carry `Authorization: Bearer <token>` (a route's own
    /// token replaces it for that route). Cannot be combined with [`HttpOptions::oauth`].
    pub auth_token: Option<String>,
    /// When set, the server is an OAuth 2.1 resource server: every MCP request needs a JWT
    /// access token of the configured issuer. Cannot be combined with static tokens. Only with
    /// the `oauth` feature.
    #[cfg(feature = "oauth")]
    pub oauth: Option<OAuthOptions>,
    /// Browser origins allowed besides the listener's own (`http://127.0.0.1:8765`, …). A request
    /// with any other `Origin` gets 403.
    pub allowed_origins: Vec<String>,
    /// Host names the server answers to besides the loopback ones.
    pub allowed_hosts: Vec<String>,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// How many requests are handled at once, over all endpoints; more get 503.
    pub max_concurrent: usize,
    /// The drain deadline: how long in-flight requests may take to finish after a shutdown
    /// signal. From the signal on, `GET /readyz` answers 503 and new MCP requests get a 503 with
    /// a retryable JSON-RPC error, while the listener still accepts connections; once nothing is
    /// in flight (or the deadline passed: [`HttpError::DrainCut`]) the server stops.
    pub grace: Duration,
    /// The shortest drain: after a shutdown signal the server keeps listening (and refusing, as
    /// above) at least this long even when nothing is in flight, so that a load balancer's
    /// health check sees `/readyz` turn 503 and stops sending before the port closes. Default 0:
    /// an idle server stops at once. Capped by [`HttpOptions::grace`].
    pub drain_min: Duration,
    /// How long a client may take to send a request's headers; a connection that has not sent
    /// them by then is closed. Also how long a kept-alive connection may sit idle between
    /// requests. Default [`HttpOptions::DEFAULT_HEADER_TIMEOUT`]; must be more than zero. A
    /// matter of the listener ([`Endpoints::run`]): [`Endpoints::service`] does not use it.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body once its headers are in; a body that
    /// has not arrived by then gets 408 and the connection is closed. Default
    /// [`HttpOptions::DEFAULT_BODY_TIMEOUT`].
    pub body_timeout: Duration,
    /// How many connections may be open at once, counted when they are accepted. At the cap, a
    /// new connection takes the place of one that sits idle between requests (of the peer with
    /// the most connections); when none is idle it gets a 503 and is closed at once. Lowered, with
    /// a warning, when it does not fit below the process's limit of open descriptors (a quarter
    /// of which, at least 64, is kept for everything else). Default
    /// [`HttpOptions::DEFAULT_MAX_CONNECTIONS`]. A matter of the listener ([`Endpoints::run`]):
    /// [`Endpoints::service`] does not use it, nor the next field.
    pub max_connections: usize,
    /// How many of the connections may come from one peer (an IPv4 address, or an IPv6 /64
    /// network); a peer's connection beyond it takes the place of that peer's own idle one, or
    /// is refused with a 503. `None`: a quarter of [`HttpOptions::max_connections`] (at least 1).
    /// Behind a load balancer every connection comes from the balancer: set it to
    /// [`HttpOptions::max_connections`] there.
    pub max_connections_per_peer: Option<usize>,
    /// Serve endpoints without authentication (no token, no OAuth) on an address that is not a
    /// loopback one, and to requests a proxy forwarded. Without it, [`Endpoints::run`] (and
    /// [`Endpoints::service`]) refuses to start then, and an endpoint without authentication answers a request that carries a
    /// `Forwarded`, `X-Forwarded-For` or `X-Real-IP` header with 403 (behind a balancer, whoever
    /// reaches the balancer would call its tools).
    pub no_auth: bool,
    /// When set, `GET /metrics` answers these metrics (see [`Metrics`]); otherwise it is 404.
    /// Give the same `Metrics` to the catalog's runner options as their observer, so that
    /// upstream answers, preload cache lookups and sandbox rebuilds are counted too. Only with
    /// the `metrics` feature (without it, `GET /metrics` is not served).
    #[cfg(feature = "metrics")]
    pub metrics: Option<Metrics>,
    /// Who may read `GET /metrics`: with a token, requests carrying `Authorization: Bearer
    /// <token>` (from any address); without one, only requests from a loopback address that no
    /// proxy forwarded (no `Forwarded`, `X-Forwarded-For` or `X-Real-IP` header). The MCP
    /// bearer tokens never open it, and this token must differ from them. Only with the
    /// `metrics` feature.
    #[cfg(feature = "metrics")]
    pub metrics_token: Option<String>,
}

impl HttpOptions {
    /// The default [`HttpOptions::header_timeout`]: headers come in one or two packets, so 10 s
    /// covers a slow link with retransmissions, while a client that sends nothing (or trickles)
    /// holds a connection for 10 s at most.
    pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default [`HttpOptions::body_timeout`]: bodies are JSON-RPC messages of at most
    /// [`HttpOptions::max_body_bytes`] (4 MiB), which arrive in 30 s at about 1 Mbit/s; the same
    /// as the default deadline of a call.
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default [`HttpOptions::max_connections`]: half of the common default limit of 1024
    /// open descriptors, which leaves room for upstream requests, SQLite files and the catalog,
    /// and far more than MCP clients open (one or a few each).
    pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

    /// [`HttpOptions::max_connections_per_peer`], or its default.
    pub fn connections_per_peer(&self) -> usize {
        self.max_connections_per_peer
            .unwrap_or(self.max_connections / 4)
            .clamp(1, self.max_connections.max(1))
    }

    /// Checks what [`Endpoints::run`] checks before it binds, so that a caller can fail before
    /// it reads a catalog: no bearer token (the global one, or the token of one of `routes`) is
    /// empty, and unless [`HttpOptions::no_auth`] is set, every endpoint needs a token or OAuth
    /// when [`HttpOptions::listen`] is not a loopback address. No routes means the one endpoint
    /// at [`MCP_PATH`].
    pub fn check(&self, routes: &[Route]) -> Result<(), HttpError> {
        let checked = if routes.is_empty() {
            check_access(self, [(MCP_PATH, None)])
        } else {
            check_access(
                self,
                routes
                    .iter()
                    .map(|r| (r.path.as_str(), r.auth_token.as_deref())),
            )
        };
        checked.map(|_| ())
    }
}

/// The metrics token is not empty and is none of the MCP bearer tokens (the global one and
/// `route_tokens`): a token given for calls never reads metrics, nor the other way round.
#[cfg(feature = "metrics")]
fn check_metrics_token<'a>(
    opts: &'a HttpOptions,
    route_tokens: impl IntoIterator<Item = &'a str>,
) -> Result<(), HttpError> {
    let Some(m) = opts.metrics_token.as_deref() else {
        return Ok(());
    };
    if m.is_empty() {
        return Err(HttpError::EmptyToken(Some("/metrics".to_string())));
    }
    let mut mcp = opts.auth_token.as_deref().into_iter().chain(route_tokens);
    if mcp.any(|t| same_secret(t.as_bytes(), m.as_bytes())) {
        return Err(HttpError::MetricsTokenReused);
    }
    Ok(())
}

/// Whether `addr` is a loopback address (127.0.0.0/8, ::1, or ::ffff:127.x.y.z).
fn is_loopback(addr: SocketAddr) -> bool {
    flowmcp_spec::urls::is_loopback_ip(addr.ip())
}

/// See [`HttpOptions::check`]: `endpoints` are each endpoint's path and its route's token (the
/// metrics token is checked against those tokens first). When [`HttpOptions::no_auth`] lets
/// endpoints without authentication be served off loopback, their paths (comma-separated).
fn check_access<'a>(
    opts: &'a HttpOptions,
    endpoints: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
) -> Result<Option<String>, HttpError> {
    let endpoints: Vec<(&str, Option<&str>)> = endpoints.into_iter().collect();
    #[cfg(feature = "metrics")]
    check_metrics_token(opts, endpoints.iter().filter_map(|(_, token)| *token))?;
    if opts.auth_token.as_deref().is_some_and(str::is_empty) {
        return Err(HttpError::EmptyToken(None));
    }
    let mut open = Vec::new();
    for (path, token) in endpoints {
        if token.is_some_and(str::is_empty) {
            return Err(HttpError::EmptyToken(Some(path.to_string())));
        }
        if access_of(opts, token) == Access::Open {
            open.push(path);
        }
    }
    if open.is_empty() || is_loopback(opts.listen) {
        return Ok(None);
    }
    if !opts.no_auth {
        return Err(HttpError::Unauthenticated {
            addr: opts.listen,
            paths: open.join(", "),
        });
    }
    Ok(Some(open.join(", ")))
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 8765)),
            auth_token: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body_bytes: 4 << 20,
            max_concurrent: 64,
            grace: Duration::from_secs(5),
            drain_min: Duration::ZERO,
            header_timeout: HttpOptions::DEFAULT_HEADER_TIMEOUT,
            body_timeout: HttpOptions::DEFAULT_BODY_TIMEOUT,
            max_connections: HttpOptions::DEFAULT_MAX_CONNECTIONS,
            max_connections_per_peer: None,
            no_auth: false,
            #[cfg(feature = "oauth")]
            oauth: None,
            #[cfg(feature = "metrics")]
            metrics: None,
            #[cfg(feature = "metrics")]
            metrics_token: None,
        }
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("HttpOptions");
        d.field("listen", &self.listen).field(
            "auth_token",
            &self.auth_token.as_ref().map(|_| "<redacted>"),
        );
        #[cfg(feature = "oauth")]
        d.field("oauth", &self.oauth);
        d.field("allowed_origins", &self.allowed_origins)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent", &self.max_concurrent)
            .field("grace", &self.grace)
            .field("drain_min", &self.drain_min)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_connections_per_peer", &self.max_connections_per_peer)
            .field("no_auth", &self.no_auth);
        #[cfg(feature = "metrics")]
        d.field("metrics", &self.metrics.is_some()).field(
            "metrics_token",
            &self.metrics_token.as_ref().map(|_| "<redacted>"),
        );
        d.finish()
    }
}

/// Why serving over HTTP could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// Building a route's server failed.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// A route or selector is not usable.
    #[error(transparent)]
    Route(#[from] RouteError),
    /// OAuth mode could not start.
    #[cfg(feature = "oauth")]
    #[error(transparent)]
    OAuth(#[from] OAuthError),
    /// A static bearer token (global or per route) together with OAuth.
    #[cfg(feature = "oauth")]
    #[error(
        "a static bearer token and OAuth cannot be used together: with OAuth, the identity \
         provider's access tokens are the only credentials"
    )]
    TokenWithOAuth,
    /// A bearer token is empty (an unset variable, `--route-token /path=`): the listener-wide
    /// one (`None`) or the token of the route at this path.
    #[error(
        "the bearer token{} is empty (an unset variable?): give a token, or leave it out to \
         serve without one",
        .0.as_ref().map(|p| format!(" of route {p}")).unwrap_or_default()
    )]
    EmptyToken(Option<String>),
    /// Endpoints without authentication on an address that is not a loopback one, and
    /// [`HttpOptions::no_auth`] not set.
    #[error(
        "refusing to serve {paths} without authentication on {addr}, which is not a loopback \
         address: set a bearer token or OAuth, or allow serving without authentication \
         explicitly"
    )]
    Unauthenticated {
        /// The listen address.
        addr: SocketAddr,
        /// The endpoints that would be open, comma-separated.
        paths: String,
    },
    /// An endpoint takes per-client credentials
    /// ([`ServeOptions::client_credentials`](crate::ServeOptions::client_credentials)) on an
    /// address that is not a loopback one: clients would send their keys in clear text.
    #[error(
        "refusing to take per-client credentials at {path} on {addr}, which is not a loopback \
         address: clients would send their keys without TLS; listen on a loopback address \
         behind a TLS-terminating proxy"
    )]
    ClientCredentialsOffLoopback {
        /// The listen address.
        addr: SocketAddr,
        /// The endpoint that takes them.
        path: String,
    },
    /// The metrics token is also an MCP bearer token.
    #[cfg(feature = "metrics")]
    #[error(
        "the metrics token is also a bearer token of the MCP endpoints: give metrics a token of \
         their own"
    )]
    MetricsTokenReused,
    /// The drain deadline ([`HttpOptions::grace`]) passed while calls were still running: they
    /// were cut off.
    #[error("the drain deadline passed with {0} request(s) still running; they were cut off")]
    DrainCut(usize),
    /// The async runtime could not start.
    #[error("cannot start the server: {0}")]
    Runtime(std::io::Error),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// What a request to an endpoint must carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Nothing.
    Open,
    /// `Authorization: Bearer <token>` with the route's token, or else the global one.
    BearerToken,
    /// An OAuth access token from the configured issuer (only an endpoint served with the
    /// `oauth` feature and [`HttpOptions::oauth`] requires it).
    OAuth,
}

impl Access {
    /// A few words for logs: "no token required", "bearer token required", …
    pub fn describe(self) -> &'static str {
        match self {
            Access::Open => "no token required",
            Access::BearerToken => "bearer token required",
            Access::OAuth => "OAuth access token required",
        }
    }
}

/// What an endpoint whose route set `route_token` requires under `opts`: OAuth when it is
/// configured, else the route's token, else the global one, else nothing. The guards
/// [`Endpoints::run`] builds follow the same order.
fn access_of(opts: &HttpOptions, route_token: Option<&str>) -> Access {
    #[cfg(feature = "oauth")]
    if opts.oauth.is_some() {
        return Access::OAuth;
    }
    if route_token.or(opts.auth_token.as_deref()).is_some() {
        Access::BearerToken
    } else {
        Access::Open
    }
}

/// One MCP endpoint: its path, its server and the token its route set.
struct Endpoint {
    path: String,
    server: McpServer,
    token: Option<String>,
}

/// The MCP endpoints one listener serves: one at [`MCP_PATH`], or one per route.
pub struct Endpoints {
    list: Vec<Endpoint>,
}

impl fmt::Debug for Endpoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.list
                    .iter()
                    .map(|e| (&e.path, e.server.tool_count(), e.token.is_some())),
            )
            .finish()
    }
}

impl Endpoints {
    /// `server` at [`MCP_PATH`], guarded by [`HttpOptions::auth_token`] or OAuth.
    pub fn single(server: McpServer) -> Endpoints {
        Endpoints {
            list: vec![Endpoint {
                path: MCP_PATH.to_string(),
                server,
                token: None,
            }],
        }
    }

    /// One endpoint per route over one catalog, each serving what its selector names (see
    /// [`ServeOptions::only`]; with `opts.threads` worker threads of its own). Without routes, the catalog's tools as
    /// `opts` says at [`MCP_PATH`], as [`Endpoints::single`] does. `opts.only` cannot be combined
    /// with routes.
    pub fn routes(
        catalog: &Arc<Catalog>,
        routes: &[Route],
        opts: &ServeOptions,
    ) -> Result<Endpoints, HttpError> {
        if routes.is_empty() {
            return Ok(Endpoints::single(McpServer::shared(
                Arc::clone(catalog),
                opts,
            )?));
        }
        if !opts.only.is_empty() {
            return Err(RouteError::OnlyWithRoutes.into());
        }
        let mut list: Vec<Endpoint> = Vec::with_capacity(routes.len());
        for route in routes {
            check_path(&route.path)?;
            if list.iter().any(|e| e.path == route.path) {
                return Err(RouteError::DuplicatePath(route.path.clone()).into());
            }
            // The route's selector is the endpoint's `only`: its members are decided where every
            // endpoint's are.
            let only = route.selector.items().iter().map(ToString::to_string);
            let server = McpServer::shared(
                Arc::clone(catalog),
                &ServeOptions {
                    only: only.collect(),
                    ..opts.clone()
                },
            )
            .map_err(|e| match e {
                ServeError::Selector(e) => HttpError::Route(e),
                e => HttpError::Serve(e),
            })?;
            list.push(Endpoint {
                path: route.path.clone(),
                server,
                token: route.auth_token.clone(),
            });
        }
        Ok(Endpoints { list })
    }

    /// Each endpoint's path and server (for its tools), in the order given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &McpServer)> {
        self.list.iter().map(|e| (e.path.as_str(), &e.server))
    }

    /// Each endpoint's path, server and what its requests must carry when served with `opts`.
    pub fn access<'a>(
        &'a self,
        opts: &'a HttpOptions,
    ) -> impl Iterator<Item = (&'a str, &'a McpServer, Access)> {
        self.list.iter().map(move |e| {
            (
                e.path.as_str(),
                &e.server,
                access_of(opts, e.token.as_deref()),
            )
        })
    }

    /// What [`Endpoints::run`] and [`Endpoints::service`] do before anything answers: the checks
    /// of [`HttpOptions::check`] for these endpoints (with a warning when
    /// [`HttpOptions::no_auth`] opens endpoints off loopback), and with OAuth the issuer's keys,
    /// loaded on a blocking thread.
    pub(crate) async fn prepare(&self, opts: &HttpOptions) -> Result<Prepared, HttpError> {
        let open = check_access(
            opts,
            self.list
                .iter()
                .map(|e| (e.path.as_str(), e.token.as_deref())),
        )?;
        // Per-client credentials travel in headers: only over TLS, which a proxy in front of a
        // loopback listener terminates (D142).
        if !opts.listen.ip().is_loopback()
            && let Some(e) = self.list.iter().find(|e| e.server.client_credentials())
        {
            return Err(HttpError::ClientCredentialsOffLoopback {
                addr: opts.listen,
                path: e.path.clone(),
            });
        }
        if let Some(paths) = open {
            tracing::warn!(
                "serving {paths} without authentication on {} (no_auth): every client that \
                 reaches this address may call its tools",
                opts.listen
            );
        }
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &opts.oauth {
            if opts.auth_token.is_some() || self.list.iter().any(|e| e.token.is_some()) {
                return Err(HttpError::TokenWithOAuth);
            }
            let oauth = oauth.clone();
            let verifier = tokio::task::spawn_blocking(move || Verifier::prepare(&oauth))
                .await
                .map_err(|_| OAuthError::Task)??;
            return Ok(Prepared {
                verifier: Some(Arc::new(verifier)),
            });
        }
        Ok(Prepared::default())
    }

    /// The table every request to a listener bound at `local` is answered from (`prepared`:
    /// what [`Endpoints::prepare`] loaded), and the watch tasks of endpoints in watch mode
    /// (spawned on the current runtime). rmcp's services stop with `ct`.
    pub(crate) fn table(
        self,
        opts: &HttpOptions,
        local: SocketAddr,
        prepared: Prepared,
        ct: &CancellationToken,
    ) -> Result<(Table, Vec<tokio::task::JoinHandle<()>>), HttpError> {
        let config = rmcp_config(opts, local, ct);
        let global: Option<Arc<str>> = opts.auth_token.as_deref().map(Arc::from);
        let mut table = Table {
            endpoints: HashMap::new(),
            metadata: HashMap::new(),
            max_body_bytes: opts.max_body_bytes,
            body_timeout: opts.body_timeout,
            #[cfg(feature = "metrics")]
            metrics: opts.metrics.clone(),
            #[cfg(feature = "metrics")]
            metrics_token: opts.metrics_token.as_deref().map(Arc::from),
            drain: Drain::default(),
            no_auth: opts.no_auth,
            #[cfg(feature = "metrics")]
            host_checks: None,
        };
        #[cfg(feature = "oauth")]
        let issuer = match (&opts.oauth, prepared.verifier) {
            (Some(oauth), Some(verifier)) => Some(Issuer::new(oauth, verifier, local)?),
            _ => None,
        };
        // Without OAuth nothing was prepared.
        #[cfg(not(feature = "oauth"))]
        let Prepared {} = prepared;
        #[cfg(feature = "oauth")]
        let single = self.list.len() == 1;
        let mut watchers = Vec::new();
        for e in self.list {
            let guard = match e.token {
                Some(t) => Guard::Token(Arc::from(t)),
                None => global.clone().map_or(Guard::Open, Guard::Token),
            };
            // With OAuth, the issuer's access tokens are the only credentials (`prepare` refused
            // static tokens), and each endpoint publishes its RFC 9728 metadata.
            #[cfg(feature = "oauth")]
            let guard = match &issuer {
                Some(issuer) => {
                    let (guard, doc) = issuer.endpoint(&e.path);
                    if single {
                        table
                            .metadata
                            .insert(RESOURCE_METADATA_PATH.to_string(), doc.clone());
                    }
                    table
                        .metadata
                        .insert(format!("{RESOURCE_METADATA_PATH}{}", e.path), doc);
                    Guard::OAuth(guard)
                }
                None => guard,
            };
            let server = e.server;
            let tasks_server = server.clone();
            // Watch mode: reloads serve the next requests (stateless HTTP has no channel to tell
            // clients; they see the new list when they next ask).
            if let Some(every) = server.watch_interval() {
                #[cfg(feature = "metrics")]
                let metrics = opts.metrics.clone();
                let reloaded = move |_changed: bool| {
                    #[cfg(feature = "metrics")]
                    if let Some(m) = &metrics {
                        m.reloaded(_changed);
                    }
                };
                watchers.push(tokio::spawn(server.clone().watch(every, None, reloaded)));
            }
            let mcp = StreamableHttpService::new(
                move || Ok(server.stateless_session()),
                Arc::new(NeverSessionManager::default()),
                config.clone(),
            );
            let route: Arc<str> = Arc::from(e.path.as_str());
            // Every endpoint has the same Host and Origin checks; the first one's service asks
            // them for the other paths.
            #[cfg(feature = "metrics")]
            table.host_checks.get_or_insert_with(|| mcp.clone());
            table
                .endpoints
                .insert(e.path, Arc::new((mcp, guard, route, tasks_server)));
        }
        Ok((table, watchers))
    }
}

/// rmcp's Streamable HTTP settings, the same for every endpoint of a listener.
fn rmcp_config(
    opts: &HttpOptions,
    local: SocketAddr,
    ct: &CancellationToken,
) -> StreamableHttpServerConfig {
    let port = local.port();
    let mut origins: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .map(|h| format!("http://{h}:{port}"))
        .collect();
    origins.extend(opts.allowed_origins.iter().cloned());
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(opts.allowed_hosts.iter().cloned());
    StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(opts.max_body_bytes)
        .with_cancellation_token(ct.child_token())
}

/// What guards one endpoint.
enum Guard {
    /// Nothing (loopback development use).
    Open,
    /// A static bearer token.
    Token(Arc<str>),
    /// OAuth access tokens for the endpoint's audience.
    #[cfg(feature = "oauth")]
    OAuth(EndpointGuard),
}

/// What [`Endpoints::prepare`] loads before anything answers: with OAuth, the issuer's keys.
#[derive(Default)]
pub(crate) struct Prepared {
    #[cfg(feature = "oauth")]
    verifier: Option<Arc<Verifier>>,
}

type Mcp = StreamableHttpService<McpServer, NeverSessionManager>;

/// One endpoint: its rmcp service, guard, path and server.
type EndpointParts = (Mcp, Guard, Arc<str>, McpServer);

/// Everything one listener answers: endpoints by path and metadata documents by path.
pub(crate) struct Table {
    /// Each endpoint's rmcp service, guard, path, and server (for the MCP tasks, D131).
    endpoints: HashMap<String, Arc<EndpointParts>>,
    metadata: HashMap<String, Bytes>,
    /// [`HttpOptions::max_body_bytes`].
    max_body_bytes: usize,
    /// [`HttpOptions::body_timeout`].
    body_timeout: Duration,
    /// [`HttpOptions::metrics`] and [`HttpOptions::metrics_token`].
    #[cfg(feature = "metrics")]
    metrics: Option<Metrics>,
    #[cfg(feature = "metrics")]
    metrics_token: Option<Arc<str>>,
    /// Whether the server drains, and how many MCP requests are in flight.
    drain: Drain,
    /// [`HttpOptions::no_auth`]: endpoints without authentication answer forwarded requests too.
    no_auth: bool,
    /// The service of one endpoint, whose Host and Origin checks (rmcp's, the same on every
    /// endpoint) are asked for `/metrics` too.
    #[cfg(feature = "metrics")]
    host_checks: Option<Mcp>,
}

/// An answer, and whether the request carried what the endpoint requires: the connection of an
/// answer to a request that carried nothing (a health check, a 401, 403 or 404, public metadata)
/// is closed, so that a client without a credential cannot keep connections open by asking such
/// things.
enum Answer {
    /// To a request that passed its endpoint's guard: the connection may stay open.
    Served(Response<Body>),
    /// To anything else: sent with `Connection: close`.
    Closing(Response<Body>),
}

/// The drain after a shutdown signal: from then on, new MCP requests are refused; the server
/// stops when none is in flight.
#[derive(Default)]
struct Drain {
    draining: AtomicBool,
    inflight: AtomicUsize,
}

/// One MCP request in flight; leaves the count when dropped.
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Drain {
    /// Starts the drain: from now on `GET /readyz` answers 503 and new MCP requests are
    /// refused.
    fn start(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// How many MCP requests are in flight.
    fn in_flight(&self) -> usize {
        self.inflight.load(Ordering::SeqCst)
    }

    /// Counts a request in, unless the server drains (`None`: refuse it).
    fn enter(&self) -> Option<InFlight<'_>> {
        self.inflight.fetch_add(1, Ordering::SeqCst);
        let entered = InFlight(&self.inflight);
        // Counted before the check: the drain, which sets the flag and then reads the count,
        // never misses a request that got past it.
        (!self.draining.load(Ordering::SeqCst)).then_some(entered)
    }
}

/// Headers a proxy adds to a request it forwards: such a request did not come from this machine
/// even when the proxy runs on it.
const FORWARDED: [&str; 3] = ["forwarded", "x-forwarded-for", "x-real-ip"];

/// Whether a proxy forwarded `req` (it carries one of [`FORWARDED`]).
fn forwarded<B>(req: &Request<B>) -> bool {
    FORWARDED.iter().any(|h| req.headers().contains_key(*h))
}

impl Table {
    /// Starts the drain (see [`HttpOptions::grace`]); the metrics say so.
    pub(crate) fn start_drain(&self) {
        self.drain.start();
        #[cfg(feature = "metrics")]
        if let Some(m) = &self.metrics {
            m.draining();
        }
    }

    /// How many MCP requests are in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.drain.in_flight()
    }

    /// The endpoints' paths (for `Debug`).
    pub(crate) fn paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self.endpoints.keys().map(String::as_str).collect();
        paths.sort_unstable();
        paths
    }

    /// The answer to `req` from a client at `peer` (`None`: not known, which `GET /metrics`
    /// without a token takes for a client off loopback), with at most as many MCP requests at
    /// once as `limit` has permits. Answers to requests that carried no credential close their
    /// connection.
    pub(crate) async fn answer<B>(
        &self,
        req: Request<B>,
        limit: &Semaphore,
        peer: Option<SocketAddr>,
    ) -> Response<Body>
    where
        B: HttpBody + Send,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        match self.respond(req, limit, peer).await {
            Answer::Served(r) => r,
            Answer::Closing(mut r) => {
                r.headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                r
            }
        }
    }

    async fn respond<B>(
        &self,
        mut req: Request<B>,
        limit: &Semaphore,
        #[cfg_attr(not(feature = "metrics"), allow(unused_variables))] peer: Option<SocketAddr>,
    ) -> Answer
    where
        B: HttpBody + Send,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        let path = req.uri().path();
        if path == "/healthz" {
            return Answer::Closing(plain(StatusCode::OK, "ok\n"));
        }
        if path == "/readyz" {
            return Answer::Closing(if self.drain.draining.load(Ordering::SeqCst) {
                plain(StatusCode::SERVICE_UNAVAILABLE, "draining\n")
            } else {
                plain(StatusCode::OK, "ready\n")
            });
        }
        #[cfg(feature = "metrics")]
        if path == METRICS_PATH
            && let Some(metrics) = &self.metrics
        {
            // The probe is made before the wait, so that the future holds no reference to the
            // request (whose body need not be `Sync`).
            let probe = host_probe(&req);
            if let Some(refused) = self.foreign_host_or_origin(probe).await {
                return Answer::Closing(refused);
            }
            return self.metrics_answer(&req, peer, metrics);
        }
        if let Some(doc) = self.metadata.get(path) {
            return Answer::Closing(metadata_answer(req.method(), doc));
        }
        let Some(endpoint) = self.endpoints.get(path) else {
            return Answer::Closing(plain(StatusCode::NOT_FOUND, "not found\n"));
        };
        let (mcp, guard, route, server) = &**endpoint;
        // The subject of an accepted OAuth access token.
        #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
        let mut subject: Option<String> = None;
        match guard {
            Guard::Open => {
                // Behind a proxy, whoever reaches the proxy would call the tools.
                if !self.no_auth && forwarded(&req) {
                    return Answer::Closing(plain(
                        StatusCode::FORBIDDEN,
                        "forbidden: this endpoint requires no token, so it serves only requests \
                         that no proxy forwarded (no Forwarded, X-Forwarded-For or X-Real-IP \
                         header); behind a proxy or load balancer, give it a token\n",
                    ));
                }
            }
            Guard::Token(token) => {
                if !token_matches(&req, token) {
                    let mut r = plain(StatusCode::UNAUTHORIZED, "unauthorized\n");
                    r.headers_mut()
                        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                    return Answer::Closing(r);
                }
            }
            #[cfg(feature = "oauth")]
            Guard::OAuth(oauth) => {
                // Cloned, so that the wait holds no reference to the request.
                let given = req.headers().get(header::AUTHORIZATION).cloned();
                match oauth.admit(given.as_ref()).await {
                    Ok(s) => subject = s,
                    Err(refused) => return Answer::Closing(refused),
                }
            }
        }
        let id = request_id(req.headers().get(REQUEST_ID));
        // Whose request this is, as a digest (D131): the endpoint and the OAuth token's subject,
        // or else its credential (a static token, or an OAuth token without `sub`).
        let owner = match &subject {
            Some(sub) => tasks::principal("oauth", route, Some(sub.as_bytes())),
            None => tasks::principal(
                "http",
                route,
                req.headers()
                    .get(header::AUTHORIZATION)
                    .map(HeaderValue::as_bytes),
            ),
        };
        // Per-client credentials (D142): taken off the request, so nothing after this sees them
        // among its headers.
        let params = if server.client_credentials() {
            match ClientParams::take(req.headers_mut()) {
                Ok(p) => p,
                Err(why) => {
                    return Answer::Closing(plain(StatusCode::BAD_REQUEST, format!("{why}\n")));
                }
            }
        } else {
            None
        };
        req.extensions_mut().insert(RequestInfo {
            id: Arc::clone(&id),
            route: Arc::clone(route),
            owner: Arc::clone(&owner),
            params,
            #[cfg(feature = "metrics")]
            metrics: self.metrics.clone(),
        });
        // The body is read before a request counts against `max_concurrent`, within its
        // deadline and size.
        let (parts, body) = req.into_parts();
        let body = match read_body(body, self.max_body_bytes, self.body_timeout).await {
            Ok(body) => body,
            Err(answer) => return Answer::Served(answer),
        };
        let Some(_in_flight) = self.drain.enter() else {
            return Answer::Served(draining_answer(&body));
        };
        #[cfg(feature = "metrics")]
        let _counted = self.metrics.as_ref().map(Metrics::inflight);
        // MCP tasks (D131): a task request is answered here once it passed rmcp's transport
        // checks as a `ping` with its id; `initialize` and `tools/list` answers are completed.
        let plan = serde_json::from_slice::<serde_json::Value>(&body)
            .map_or(Plan::Pass, |m| tasks::plan(&m, server));
        let mut parts = parts;
        let body = match &plan {
            Plan::Answer(call) => {
                parts.headers.remove(header::CONTENT_LENGTH);
                // Protocol 2026-07-28's standard headers (SEP-2243) must agree with the body
                // rmcp checks: the method becomes the stand-in's, a tool's name and parameters
                // go.
                let params: Vec<header::HeaderName> = parts
                    .headers
                    .keys()
                    .filter(|k| k.as_str().starts_with("mcp-param-"))
                    .cloned()
                    .collect();
                for k in params {
                    parts.headers.remove(k);
                }
                parts.headers.remove("mcp-name");
                let modern = parts
                    .headers
                    .get("mcp-protocol-version")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v >= "2026-07-28");
                if parts.headers.contains_key("mcp-method") {
                    parts.headers.insert(
                        "mcp-method",
                        HeaderValue::from_static(tasks::Call::stand_in_method(modern)),
                    );
                }
                Bytes::from(call.stand_in(modern).to_string())
            }
            _ => body,
        };
        let info = parts.extensions.get::<RequestInfo>().cloned();
        let req = Request::from_parts(parts, Full::new(body));
        let Ok(_permit) = limit.try_acquire() else {
            return Answer::Served(plain(StatusCode::SERVICE_UNAVAILABLE, "busy\n"));
        };
        let mut mcp = mcp.clone();
        let mut answer = match mcp.call(req).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        if answer.status() == StatusCode::OK {
            match plan {
                Plan::Pass => {}
                Plan::Answer(call) => {
                    let reply = tasks::answer(server, call, owner, info).await;
                    replace_json(&mut answer, &reply);
                }
                Plan::Decorate(what) => {
                    let body = std::mem::replace(answer.body_mut(), Full::default().boxed());
                    let bytes = match body.collect().await {
                        Ok(c) => c.to_bytes(),
                        Err(never) => match never {},
                    };
                    let completed = std::str::from_utf8(&bytes)
                        .ok()
                        .and_then(|text| tasks::decorate(what, text, server));
                    match completed {
                        Some(text) => replace_text(&mut answer, text),
                        None => *answer.body_mut() = Full::new(bytes).boxed(),
                    }
                }
            }
        }
        if let Ok(v) = HeaderValue::from_str(&id) {
            answer.headers_mut().insert(REQUEST_ID, v);
        }
        Answer::Served(answer)
    }

    /// The answer that refuses a request when its Host or Origin is not allowed (DNS rebinding,
    /// a page of another site), or `None`. The checks are those of the MCP endpoints (rmcp's
    /// Streamable HTTP service, configured once in [`rmcp_config`]), asked with the request's
    /// [`host_probe`]: a request that passes them gets 405 from the service, which serves only
    /// POST.
    #[cfg(feature = "metrics")]
    async fn foreign_host_or_origin(&self, probe: Request<Full<Bytes>>) -> Option<Response<Body>> {
        let Some(checks) = &self.host_checks else {
            return Some(plain(StatusCode::FORBIDDEN, "forbidden\n"));
        };
        let answer = checks.handle(probe).await;
        (answer.status() != StatusCode::METHOD_NOT_ALLOWED).then_some(answer)
    }

    /// `GET /metrics`: for the metrics token's bearer, or else for a loopback client that no
    /// proxy forwarded.
    #[cfg(feature = "metrics")]
    fn metrics_answer<B>(
        &self,
        req: &Request<B>,
        peer: Option<SocketAddr>,
        metrics: &Metrics,
    ) -> Answer {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Answer::Closing(r);
        }
        match &self.metrics_token {
            Some(token) if !token_matches(req, token) => {
                let mut r = plain(StatusCode::UNAUTHORIZED, "unauthorized\n");
                r.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return Answer::Closing(r);
            }
            Some(_) => {}
            None => {
                if !peer.is_some_and(is_loopback) || forwarded(req) {
                    return Answer::Closing(plain(
                        StatusCode::FORBIDDEN,
                        "metrics are served to loopback clients only unless a metrics token is \
                         set\n",
                    ));
                }
            }
        }
        let mut r = Response::new(Full::new(Bytes::from(metrics.encode())).boxed());
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(crate::metrics::CONTENT_TYPE),
        );
        // A scraper with the metrics token may keep its connection; a loopback one without it
        // carried no credential.
        if self.metrics_token.is_some() {
            Answer::Served(r)
        } else {
            Answer::Closing(r)
        }
    }
}

/// Makes `message` the JSON body of `answer`.
fn replace_json(answer: &mut Response<Body>, message: &serde_json::Value) {
    replace_text(answer, message.to_string());
}

/// [`replace_json`] with the message's text.
fn replace_text(answer: &mut Response<Body>, text: String) {
    answer.headers_mut().remove(header::CONTENT_LENGTH);
    answer.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    *answer.body_mut() = Full::new(Bytes::from(text)).boxed();
}

/// An `OPTIONS` request with `req`'s URI and headers and no body, for the Host and Origin
/// checks of [`Table::foreign_host_or_origin`].
#[cfg(feature = "metrics")]
fn host_probe<B>(req: &Request<B>) -> Request<Full<Bytes>> {
    let mut probe = Request::new(Full::new(Bytes::new()));
    *probe.method_mut() = Method::OPTIONS;
    *probe.uri_mut() = req.uri().clone();
    *probe.headers_mut() = req.headers().clone();
    probe
}

/// The answer to an MCP request that arrives while the server drains: 503, `Retry-After`, the
/// connection closed, and a JSON-RPC error (with the request's id, when its body has one) that
/// says the request may be sent again, to this server's replacement or another replica.
fn draining_answer(body: &Bytes) -> Response<Body> {
    let id = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .unwrap_or(serde_json::Value::Null);
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": DRAINING_CODE,
            "message": "the server is shutting down and takes no new requests: retry the \
                        request (another replica will answer it)",
            "data": {"retryable": true},
        },
    });
    let mut r = Response::new(Full::new(Bytes::from(error.to_string())).boxed());
    *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// The JSON-RPC error code of a request refused while the server drains (in the range JSON-RPC
/// leaves to servers).
pub const DRAINING_CODE: i64 = -32000;

/// The path of the metrics ([`HttpOptions::metrics`]).
#[cfg(feature = "metrics")]
pub const METRICS_PATH: &str = "/metrics";

/// A request's body, read whole within `deadline` and `max` bytes; or the answer when it is too
/// large (413), cannot be read (400) or does not arrive in time (408, and the connection closes).
async fn read_body<B>(body: B, max: usize, deadline: Duration) -> Result<Bytes, Response<Body>>
where
    B: HttpBody,
    B::Error: Into<BoxError>,
{
    match tokio::time::timeout(deadline, Limited::new(body, max).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<LengthLimitError>() => Err(plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large\n",
        )),
        Ok(Err(_)) => Err(plain(
            StatusCode::BAD_REQUEST,
            "the request body could not be read\n",
        )),
        Err(_) => {
            let mut r = plain(
                StatusCode::REQUEST_TIMEOUT,
                "the request body did not arrive in time\n",
            );
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(r)
        }
    }
}

fn metadata_answer(method: &Method, doc: &Bytes) -> Response<Body> {
    if method != Method::GET {
        let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET"));
        return r;
    }
    let mut r = Response::new(Full::new(doc.clone()).boxed());
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // Public information that browser-based clients read before they have a token.
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    r
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn i32_2_request_ids_are_taken_only_when_safe() {
        let ok = HeaderValue::from_static("abc-123_x.y");
        assert_eq!(&*request_id(Some(&ok)), "abc-123_x.y");
        let bad = HeaderValue::from_static("a b");
        let made = request_id(Some(&bad));
        assert_ne!(&*made, "a b");
        assert_ne!(request_id(None), request_id(None));
    }

    #[test]
    fn authentication_is_needed_off_loopback_and_tokens_are_never_empty() {
        let at = |ip: &str| HttpOptions {
            listen: SocketAddr::new(ip.parse().unwrap(), 8765),
            ..HttpOptions::default()
        };
        for ip in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            assert!(at(ip).check(&[]).is_ok(), "{ip}");
        }
        for ip in [
            "0.0.0.0",
            "::",
            "192.168.1.10",
            "10.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(
                matches!(at(ip).check(&[]), Err(HttpError::Unauthenticated { .. })),
                "{ip}"
            );
            let no_auth = HttpOptions {
                no_auth: true,
                ..at(ip)
            };
            assert!(no_auth.check(&[]).is_ok(), "{ip}");
            #[cfg(feature = "oauth")]
            {
                let oauth = HttpOptions {
                    oauth: Some(OAuthOptions {
                        issuer: "https://idp.example.com".into(),
                        audience: None,
                        jwks: crate::JwksSource::Discover,
                        required_scopes: vec![],
                        public_url: None,
                    }),
                    ..at(ip)
                };
                assert!(oauth.check(&[]).is_ok(), "{ip}");
            }
        }
        let route = |spec: &str, token: Option<&str>| Route {
            auth_token: token.map(str::to_string),
            ..Route::parse(spec).unwrap()
        };
        let open = at("0.0.0.0");
        assert!(
            open.check(&[route("/a=x", Some("t")), route("/b=y", Some("u"))])
                .is_ok()
        );
        assert!(matches!(
            open.check(&[route("/a=x", Some("t")), route("/b=y", None)]),
            Err(HttpError::Unauthenticated { paths, .. }) if paths == "/b"
        ));
        let empty = HttpOptions {
            auth_token: Some(String::new()),
            ..at("127.0.0.1")
        };
        assert!(matches!(empty.check(&[]), Err(HttpError::EmptyToken(None))));
        assert!(matches!(
            at("127.0.0.1").check(&[route("/a=x", Some(""))]),
            Err(HttpError::EmptyToken(Some(p))) if p == "/a"
        ));
        // An empty token is an error even where no token is needed, and never quoted.
        let e = empty.check(&[]).unwrap_err().to_string();
        assert!(e.contains("is empty"), "{e}");
    }

    #[test]
    fn options_never_show_the_token() {
        let opts = HttpOptions {
            auth_token: Some("s3cret-value".into()),
            ..HttpOptions::default()
        };
        let shown = format!("{opts:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
    }
}
