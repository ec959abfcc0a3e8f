//! The listener of [`Endpoints::serve`] and [`McpServer::serve_http`]: it accepts connections
//! and hands each to the endpoints' [`McpService`](crate::McpService). What it decides is what belongs to a listener:
//! the address it binds, how long a request's headers may take
//! ([`HttpOptions::header_timeout`]), how many connections it keeps
//! ([`HttpOptions::max_connections`], idle ones giving way), what it does when `accept` fails (a
//! back-off), the connections it counts in the metrics, and when it stops (the drain of
//! [`McpService::shutdown`](crate::McpService::shutdown), then the connections close).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;

use http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use crate::McpServer;
#[cfg(feature = "metrics")]
use crate::http::Metrics;
use crate::http::{Endpoints, HttpError, HttpOptions};
use crate::slots::{Slots, fit_connections};

/// How long connections may take to close once the drain is over.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// The service's drain ([`McpService::shutdown`](crate::McpService::shutdown)) once the stop
/// signal came.
type Draining = Pin<Box<dyn Future<Output = Result<(), HttpError>> + Send>>;

impl Endpoints {
    /// Serves the endpoints until SIGINT or SIGTERM on a runtime of its own. Calls `ready` with
    /// the bound address once the listener accepts connections (port 0 picks a free port).
    pub fn serve(
        self,
        opts: &HttpOptions,
        ready: impl FnOnce(SocketAddr),
    ) -> Result<(), HttpError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(HttpError::Runtime)?;
        rt.block_on(self.run(opts.clone(), ready, shutdown_signal()))
    }

    /// [`Endpoints::serve`] on the current runtime, stopping when `stop` completes. Refuses to
    /// start when [`HttpOptions::check`] fails for these endpoints. With OAuth, the keys are
    /// loaded (on a blocking thread) before the listener is bound. Every request is answered by
    /// the endpoints' [`McpService`](crate::McpService) (see
    /// [`Endpoints::service`]); this is a listener around it.
    pub async fn run(
        self,
        opts: HttpOptions,
        ready: impl FnOnce(SocketAddr),
        stop: impl Future<Output = ()>,
    ) -> Result<(), HttpError> {
        let prepared = self.prepare(&opts).await?;
        let listener = tokio::net::TcpListener::bind(opts.listen)
            .await
            .map_err(|source| HttpError::Listen {
                addr: opts.listen,
                source,
            })?;
        let local = listener.local_addr().map_err(HttpError::Runtime)?;
        let service = self.into_service(&opts, local, prepared)?;
        // Closes the connections once the service has stopped.
        let ct = CancellationToken::new();
        let slots = Slots::new(
            fit_connections(opts.max_connections),
            opts.connections_per_peer(),
        );
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1
            .timer(TokioTimer::new())
            .header_read_timeout(opts.header_timeout);
        let mut backoff = Backoff::default();
        let connections = tokio_util::task::TaskTracker::new();
        ready(local);
        tokio::pin!(stop);
        // Set when the shutdown signal came: the service's drain, which ends the loop.
        let mut draining: Option<Draining> = None;
        let stopped = loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut stop, if draining.is_none() => {
                    let service = service.clone();
                    draining = Some(Box::pin(async move { service.shutdown().await }));
                    continue;
                }
                stopped = async {
                    match draining.as_mut() {
                        Some(drain) => drain.await,
                        None => std::future::pending().await,
                    }
                } => break stopped,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => {
                    backoff.succeeded();
                    accepted
                }
                Err(e) => {
                    // Out of descriptors (or another failure that the next try may repeat at
                    // once): wait instead of spinning.
                    tokio::time::sleep(backoff.failed(&e)).await;
                    continue;
                }
            };
            // The cap counts connections, not requests: an idle one makes room, or the new one
            // is told so and closed.
            let Some(slot) = slots.admit(peer.ip(), &ct) else {
                refuse(&stream);
                continue;
            };
            // Counted in the metrics while the connection is open.
            #[cfg(feature = "metrics")]
            let counted = opts.metrics.as_ref().map(Metrics::connection);
            #[cfg(not(feature = "metrics"))]
            let counted = ();
            let usage = slot.usage();
            let per_peer = service.with_peer(peer);
            let hyper_service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let busy = usage.busy();
                let answered = per_peer.clone().call(req);
                async move {
                    let answer = answered.await;
                    drop(busy);
                    answer
                }
            });
            let conn = http1.serve_connection(TokioIo::new(stream), hyper_service);
            let conn_ct = slot.closing();
            connections.spawn(async move {
                let _open = (slot, counted);
                tokio::pin!(conn);
                tokio::select! {
                    _ = conn.as_mut() => {}
                    () = conn_ct.cancelled() => {
                        conn.as_mut().graceful_shutdown();
                        let _ = conn.await;
                    }
                }
            });
        };
        // Drained (or out of time): stop accepting, close the connections (idle ones at once,
        // busy ones after their answer) and give them a moment to finish writing.
        drop(listener);
        ct.cancel();
        connections.close();
        let _ = tokio::time::timeout(CLOSE_GRACE, connections.wait()).await;
        stopped
    }
}

impl McpServer {
    /// Serves MCP over Streamable HTTP at [`MCP_PATH`](crate::http::MCP_PATH) until SIGINT or
    /// SIGTERM. Calls `ready` with the bound address once the listener accepts connections (port
    /// 0 picks a free port). Only with the `http` feature (on by default).
    pub fn serve_http(
        self,
        opts: &HttpOptions,
        ready: impl FnOnce(SocketAddr),
    ) -> Result<(), HttpError> {
        Endpoints::single(self).serve(opts, ready)
    }

    /// [`McpServer::serve_http`] on the current runtime, stopping when `stop` completes.
    pub async fn run_http(
        self,
        opts: HttpOptions,
        ready: impl FnOnce(SocketAddr),
        stop: impl Future<Output = ()>,
    ) -> Result<(), HttpError> {
        Endpoints::single(self).run(opts, ready, stop).await
    }
}

/// What a connection over [`HttpOptions::max_connections`] gets before it is closed: a 503 if
/// the socket takes it at once (it never waits).
fn refuse(stream: &tokio::net::TcpStream) {
    const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\
        Content-Type: text/plain; charset=utf-8\r\nContent-Length: 21\r\n\r\n\
        too many connections\n";
    let _ = stream.try_write(BUSY);
    tracing::debug!("a connection over max_connections was refused");
}

/// The pause after a failed `accept`: 10 ms, doubling up to 1 s while accepts keep failing. The
/// first failure of a run is logged (a warning), and the end of the run (at `info`).
#[derive(Debug, Default)]
struct Backoff {
    /// The last pause, while accepts fail.
    pause: Option<Duration>,
    /// Failures in this run.
    failures: u64,
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(10);
    const MOST: Duration = Duration::from_secs(1);

    /// Records a failure; returns how long to wait before the next `accept`.
    fn failed(&mut self, e: &std::io::Error) -> Duration {
        let pause = match self.pause {
            None => {
                tracing::warn!(
                    "cannot accept connections: {e}; retrying every 10 ms to 1 s until it works"
                );
                Self::FIRST
            }
            Some(p) => (p * 2).min(Self::MOST),
        };
        self.pause = Some(pause);
        self.failures += 1;
        pause
    }

    /// Records a success: the next failure starts a new run.
    fn succeeded(&mut self) {
        if self.pause.take().is_some() {
            tracing::info!(
                "accepting connections again after {} failed tries",
                self.failures
            );
            self.failures = 0;
        }
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
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn accept_back_off_doubles_to_a_second_and_starts_over_after_a_success() {
        let e = std::io::Error::from_raw_os_error(24);
        let mut b = Backoff::default();
        let pauses: Vec<u128> = (0..10).map(|_| b.failed(&e).as_millis()).collect();
        assert_eq!(pauses, [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000]);
        assert_eq!(b.failures, 10);
        b.succeeded();
        assert_eq!((b.pause, b.failures), (None, 0));
        assert_eq!(b.failed(&e), Duration::from_millis(10));
    }
}
