//! The MCP endpoints as a [`tower_service::Service`]: what answers every request of a listener,
//! for an application that runs its own server (its listener, runtime and shutdown) and mounts
//! the endpoints in it. [`Endpoints::run`] is one such server.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{Request, Response};
use hyper::body::Body as HttpBody;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::http::{Body, BoxError, Endpoints, HttpError, HttpOptions, Prepared, Table};

/// How often a drain looks whether requests are still in flight.
const DRAIN_TICK: Duration = Duration::from_millis(20);

/// Every endpoint of a listener, with all the checks [`Endpoints::run`] applies to a request, as
/// a [`tower_service::Service`] for an application that owns the listener, the runtime and the
/// shutdown. Only with the `http` feature (on by default).
///
/// It answers `POST` at each endpoint's path (a bearer token or OAuth access token checked, the
/// Host and Origin checked against DNS rebinding and foreign pages, the body read within
/// [`HttpOptions::max_body_bytes`] and [`HttpOptions::body_timeout`], at most
/// [`HttpOptions::max_concurrent`] requests at once, a request id in `x-request-id`), `GET
/// /healthz`, `GET /readyz`, `GET /metrics` when [`HttpOptions::metrics`] is set, the RFC 9728
/// metadata under OAuth, and 404 for any other path; so it can be mounted as the fallback of an
/// application's router, or at those paths. Answers to requests that carried no credential have
/// `Connection: close`, which an HTTP/1 server honours.
///
/// Made by [`Endpoints::service`]; cloning is cheap and every clone answers from the same
/// endpoints, limits and drain. What belongs to a listener is the embedder's: the address it
/// binds, how long headers may take ([`HttpOptions::header_timeout`]), how many connections it
/// keeps ([`HttpOptions::max_connections`]) and what it does when `accept` fails. Tell each
/// connection's clone who the client is with [`McpService::with_peer`] (without it, `GET
/// /metrics` is served only with [`HttpOptions::metrics_token`]). To stop, call
/// [`McpService::shutdown`] and close the listener when it returns.
///
/// ```no_run
/// # async fn mount(endpoints: flowmcp_mcp::Endpoints) -> Result<(), Box<dyn std::error::Error>> {
/// use flowmcp_mcp::HttpOptions;
/// use tower_service::Service;
///
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let mut opts = HttpOptions::default();
/// opts.listen = listener.local_addr()?; // the address clients reach: Origin and OAuth use it
/// let service = endpoints.service(&opts).await?;
/// let (stream, peer) = listener.accept().await?;
/// let per_connection = service.with_peer(peer);
/// let hyper_service = hyper::service::service_fn(move |req| per_connection.clone().call(req));
/// hyper::server::conn::http1::Builder::new()
///     .serve_connection(hyper_util::rt::TokioIo::new(stream), hyper_service)
///     .await?;
/// service.shutdown().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpService {
    shared: Arc<Shared>,
    /// The client of this clone's requests, when the embedder said.
    peer: Option<SocketAddr>,
}

/// What every clone of a service shares.
struct Shared {
    table: Table,
    /// [`HttpOptions::max_concurrent`] permits.
    limit: Semaphore,
    /// Stops rmcp's Streamable HTTP services.
    closing: CancellationToken,
    /// Watch-mode reload tasks, stopped with the service.
    watchers: Mutex<Vec<JoinHandle<()>>>,
    /// [`HttpOptions::grace`] and [`HttpOptions::drain_min`].
    grace: Duration,
    drain_min: Duration,
}

impl Shared {
    /// Stops what runs on the service's behalf: the watch tasks and rmcp's services.
    fn close(&self) {
        let watchers =
            std::mem::take(&mut *self.watchers.lock().unwrap_or_else(PoisonError::into_inner));
        for w in watchers {
            w.abort();
        }
        self.closing.cancel();
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.close();
    }
}

impl fmt::Debug for McpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpService")
            .field("paths", &self.shared.table.paths())
            .field("peer", &self.peer)
            .field("in_flight", &self.shared.table.in_flight())
            .finish()
    }
}

impl Endpoints {
    /// The service that answers these endpoints' requests (see [`McpService`]), for a server of
    /// the caller's own on the current tokio runtime. `opts.listen` must be the address that
    /// server is bound to (with its real port): the Origins allowed besides
    /// [`HttpOptions::allowed_origins`], the OAuth resource URLs when
    /// [`OAuthOptions::public_url`](crate::OAuthOptions::public_url) is not set, and the rule
    /// that endpoints without authentication are served only on loopback are made from it.
    /// Fails as [`Endpoints::run`] does before it binds ([`HttpOptions::check`], a bearer token
    /// with OAuth, the issuer's keys); endpoints in watch mode start reloading on this runtime.
    pub async fn service(self, opts: &HttpOptions) -> Result<McpService, HttpError> {
        let prepared = self.prepare(opts).await?;
        self.into_service(opts, opts.listen, prepared)
    }

    /// [`Endpoints::service`] once [`Endpoints::prepare`] has run, for a listener bound at
    /// `local`.
    pub(crate) fn into_service(
        self,
        opts: &HttpOptions,
        local: SocketAddr,
        prepared: Prepared,
    ) -> Result<McpService, HttpError> {
        let closing = CancellationToken::new();
        let (table, watchers) = self.table(opts, local, prepared, &closing)?;
        Ok(McpService {
            shared: Arc::new(Shared {
                table,
                limit: Semaphore::new(opts.max_concurrent.max(1)),
                closing,
                watchers: Mutex::new(watchers),
                grace: opts.grace,
                drain_min: opts.drain_min,
            }),
            peer: None,
        })
    }
}

impl McpService {
    /// This service for the requests of one connection from `peer`: `GET /metrics` without a
    /// metrics token is served only to a loopback peer (and never to a forwarded request).
    pub fn with_peer(&self, peer: SocketAddr) -> McpService {
        McpService {
            shared: Arc::clone(&self.shared),
            peer: Some(peer),
        }
    }

    /// How many MCP requests are being answered now.
    pub fn in_flight(&self) -> usize {
        self.shared.table.in_flight()
    }

    /// Drains and stops the service, for every clone. From the call on, `GET /readyz` answers
    /// 503 and new MCP requests get a 503 with a retryable JSON-RPC error; keep accepting
    /// connections meanwhile, so that a load balancer sees it. Returns once no MCP request is in
    /// flight and [`HttpOptions::drain_min`] has passed, or when [`HttpOptions::grace`] has
    /// passed with requests still running ([`HttpError::DrainCut`]). Then the watch tasks and
    /// rmcp's services stop; close the listener and the connections.
    pub async fn shutdown(&self) -> Result<(), HttpError> {
        let shared = &self.shared;
        let start = Instant::now();
        let deadline = start + shared.grace;
        let earliest = start + shared.drain_min.min(shared.grace);
        shared.table.start_drain();
        tracing::info!(
            "shutting down: draining {} request(s) in flight",
            shared.table.in_flight()
        );
        loop {
            tokio::time::sleep(DRAIN_TICK).await;
            let now = Instant::now();
            if (shared.table.in_flight() == 0 && now >= earliest) || now >= deadline {
                break;
            }
        }
        let cut = shared.table.in_flight();
        shared.close();
        if cut > 0 {
            return Err(HttpError::DrainCut(cut));
        }
        Ok(())
    }
}

impl<B> tower_service::Service<Request<B>> for McpService
where
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    /// Always ready: requests over [`HttpOptions::max_concurrent`] are answered 503, not held.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let shared = Arc::clone(&self.shared);
        let peer = self.peer;
        Box::pin(async move { Ok(shared.table.answer(req, &shared.limit, peer).await) })
    }
}
