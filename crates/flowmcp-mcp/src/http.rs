//! Streamable HTTP: MCP at `/mcp` on a local listener, stateless, with a bearer token, Origin and
//! Host checks, capped bodies and concurrency, `GET /healthz`, and a clean shutdown.
//!
//! Every request is answered on its own (no session state on the server), so several replicas can
//! sit behind a load balancer. The MCP endpoint itself is rmcp's Streamable HTTP service; this module
//! puts the checks in front of it and runs the listener.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use crate::{McpServer, ServeError};

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// How to serve over HTTP.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The address to listen on (default `127.0.0.1:8765`).
    pub listen: SocketAddr,
    /// When set, every MCP request must carry `Authorization: Bearer <token>`.
    pub auth_token: Option<String>,
    /// Browser origins allowed besides the listener's own (`http://127.0.0.1:8765`, …). A request
    /// with any other `Origin` gets 403.
    pub allowed_origins: Vec<String>,
    /// Host names the server answers to besides the loopback ones.
    pub allowed_hosts: Vec<String>,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// How many requests are handled at once; more get 503.
    pub max_concurrent: usize,
    /// How long in-flight requests may take to finish after a shutdown signal.
    pub grace: Duration,
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
        }
    }
}

type Body = BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// Compares two byte strings in time that depends only on their lengths.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `req` carries the token (always true when none is required).
fn authorized(req: &Request<Incoming>, token: Option<&str>) -> bool {
    let Some(token) = token else { return true };
    req.headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| same_secret(given.trim().as_bytes(), token.as_bytes()))
}

impl McpServer {
    /// Serves MCP over Streamable HTTP at [`MCP_PATH`] until SIGINT or SIGTERM. Calls `ready` with
    /// the bound address once the listener accepts connections (port 0 picks a free port).
    pub fn serve_http(
        self,
        opts: &HttpOptions,
        ready: impl FnOnce(SocketAddr),
    ) -> Result<(), ServeError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        rt.block_on(self.run_http(opts.clone(), ready, shutdown_signal()))
    }

    /// [`McpServer::serve_http`] on the current runtime, stopping when `stop` completes.
    pub async fn run_http(
        self,
        opts: HttpOptions,
        ready: impl FnOnce(SocketAddr),
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::bind(opts.listen).await?;
        let local = listener.local_addr()?;
        let ct = CancellationToken::new();
        let port = local.port();
        let mut origins: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("http://{h}:{port}"))
            .collect();
        origins.extend(opts.allowed_origins.iter().cloned());
        let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        hosts.extend(opts.allowed_hosts.iter().cloned());
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            .with_max_request_body_bytes(opts.max_body_bytes)
            .with_cancellation_token(ct.child_token());
        let server = self.clone();
        let mcp = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        let limit = Arc::new(Semaphore::new(opts.max_concurrent.max(1)));
        let token: Option<Arc<str>> = opts.auth_token.as_deref().map(Arc::from);
        let connections = tokio_util::task::TaskTracker::new();
        ready(local);
        tokio::pin!(stop);
        loop {
            let (stream, _) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(_) => continue,
                },
                () = &mut stop => break,
            };
            let mcp = mcp.clone();
            let limit = Arc::clone(&limit);
            let token = token.clone();
            let conn_ct = ct.clone();
            connections.spawn(async move {
                let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                    let mut mcp = mcp.clone();
                    let limit = Arc::clone(&limit);
                    let token = token.clone();
                    async move {
                        if req.uri().path() == "/healthz" {
                            return Ok::<_, Infallible>(plain(StatusCode::OK, "ok\n"));
                        }
                        if req.uri().path() != MCP_PATH {
                            return Ok(plain(StatusCode::NOT_FOUND, "not found\n"));
                        }
                        if !authorized(&req, token.as_deref()) {
                            let mut r = plain(StatusCode::UNAUTHORIZED, "unauthorized\n");
                            r.headers_mut().insert(
                                header::WWW_AUTHENTICATE,
                                header::HeaderValue::from_static("Bearer"),
                            );
                            return Ok(r);
                        }
                        let Ok(_permit) = limit.try_acquire() else {
                            return Ok(plain(StatusCode::SERVICE_UNAVAILABLE, "busy\n"));
                        };
                        mcp.call(req).await
                    }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                tokio::pin!(conn);
                tokio::select! {
                    _ = conn.as_mut() => {}
                    () = conn_ct.cancelled() => {
                        conn.as_mut().graceful_shutdown();
                        let _ = conn.await;
                    }
                }
            });
        }
        // Stop accepting; let in-flight requests finish within the grace period.
        drop(listener);
        ct.cancel();
        connections.close();
        let _ = tokio::time::timeout(opts.grace, connections.wait()).await;
        Ok(())
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = term => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::same_secret;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }
}
