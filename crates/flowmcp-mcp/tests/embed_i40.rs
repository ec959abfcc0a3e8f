//! Issue #40, scope 6: the MCP endpoints as a `tower_service::Service` that an application
//! mounts in a server of its own (its listener, runtime and shutdown), with the checks
//! `Endpoints::run` applies.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::convert::Infallible;
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use bytes::Bytes;
use flowmcp_mcp::{Endpoints, HttpOptions, McpServer, McpService, ServeOptions};
use http::{Request, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use tokio::net::TcpListener;
use tower_service::Service;

use crate::support::{bearer, catalog, get, initialize, post, tool_names};

/// The service for any request body whose data and errors can cross threads (hyper's
/// `Incoming`, a body that is not `Sync`), cloneable, with a future that can be spawned.
fn is_a_service_for<B>()
where
    McpService: Service<Request<B>, Error = Infallible> + Clone + Send + Sync + 'static,
    <McpService as Service<Request<B>>>::Future: Send + 'static,
{
}

#[test]
fn i40_the_service_takes_any_body() {
    is_a_service_for::<Incoming>();
    is_a_service_for::<Full<Bytes>>();
    is_a_service_for::<UnsyncBoxBody<Bytes, std::io::Error>>();
}

/// A server the test owns: a hyper HTTP/1 accept loop on 127.0.0.1 around the service, stopped
/// through `stop`; the thread returns what `McpService::shutdown` returned.
struct OwnServer {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<Result<(), flowmcp_mcp::HttpError>>,
}

fn own_server(endpoints: Endpoints, mut opts: HttpOptions) -> OwnServer {
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            opts.listen = listener.local_addr().unwrap();
            let service = endpoints.service(&opts).await.unwrap();
            addr_tx.send(opts.listen).unwrap();
            let closing = tokio_util::sync::CancellationToken::new();
            let connections = tokio_util::task::TaskTracker::new();
            tokio::pin!(stop_rx);
            loop {
                let (stream, peer) = tokio::select! {
                    accepted = listener.accept() => accepted.unwrap(),
                    _ = &mut stop_rx => break,
                };
                let per_peer = service.with_peer(peer);
                let conn = hyper::server::conn::http1::Builder::new().serve_connection(
                    hyper_util::rt::TokioIo::new(stream),
                    hyper::service::service_fn(move |req: Request<Incoming>| {
                        per_peer.clone().call(req)
                    }),
                );
                let closing = closing.clone();
                connections.spawn(async move {
                    tokio::pin!(conn);
                    tokio::select! {
                        _ = conn.as_mut() => {}
                        () = closing.cancelled() => {
                            conn.as_mut().graceful_shutdown();
                            let _ = conn.await;
                        }
                    }
                });
            }
            drop(listener);
            let drained = service.shutdown().await;
            closing.cancel();
            connections.close();
            connections.wait().await;
            drained
        })
    });
    OwnServer {
        addr: addr_rx.recv().unwrap(),
        stop,
        thread,
    }
}

#[test]
fn i40_mounted_in_a_server_of_the_tests_own_the_service_answers_mcp_and_health() {
    let server = McpServer::shared(catalog(), &ServeOptions::default()).unwrap();
    let own = own_server(Endpoints::single(server), HttpOptions::default());
    let base = format!("http://{}", own.addr);

    // MCP: initialize, then tools/list.
    let names = tool_names(&format!("{base}/mcp"), &[]);
    assert!(
        names
            .iter()
            .any(|n| n == "getPublicHolidays_holidaykit-net"),
        "{names:?}"
    );
    // Health and readiness, and a 404 for what the service does not serve.
    let health = get(&format!("{base}/healthz"));
    assert_eq!((health.status, health.body.as_str()), (200, "ok\n"));
    assert_eq!(get(&format!("{base}/readyz")).status, 200);
    assert_eq!(
        post(&format!("{base}/other"), &[], &initialize()).status,
        404
    );
    // The Origin check is the service's: a foreign page is refused.
    let foreign = post(
        &format!("{base}/mcp"),
        &[("Origin", "https://evil.example")],
        &initialize(),
    );
    assert_eq!(foreign.status, 403, "{}", foreign.body);

    // A clean stop: the drain finds nothing in flight, and the port is closed afterwards.
    own.stop.send(()).unwrap();
    own.thread.join().unwrap().unwrap();
    assert!(TcpStream::connect_timeout(&own.addr, Duration::from_secs(1)).is_err());
}

#[test]
fn i40_the_service_carries_the_token_check() {
    let server = McpServer::shared(catalog(), &ServeOptions::default()).unwrap();
    let mut opts = HttpOptions::default();
    opts.auth_token = Some("service-token".into());
    let own = own_server(Endpoints::single(server), opts);
    let url = format!("http://{}/mcp", own.addr);

    let refused = post(&url, &[], &initialize());
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert_eq!(refused.challenge.as_deref(), Some("Bearer"));
    let (k, v) = bearer("service-token");
    assert!(!tool_names(&url, &[(k, v.as_str())]).is_empty());

    own.stop.send(()).unwrap();
    own.thread.join().unwrap().unwrap();
}

/// Called directly, without any server: health, a body type of the caller's choice, and the
/// drain every clone shares (`/readyz` and MCP requests answer 503 once it started).
#[test]
fn i40_the_service_answers_without_a_server_and_drains_for_every_clone() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = McpServer::shared(catalog(), &ServeOptions::default()).unwrap();
        let mut opts = HttpOptions::default();
        opts.grace = Duration::from_secs(2);
        let service = Endpoints::single(server).service(&opts).await.unwrap();
        let ask = |method: &str, path: &str, body: &str| {
            Request::builder()
                .method(method)
                .uri(path)
                .header("host", "127.0.0.1:8765")
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(Full::new(Bytes::from(body.to_string())))
                .unwrap()
        };
        let init = initialize().to_string();

        let mut clone = service.clone();
        let ready = clone.call(ask("GET", "/readyz", "")).await.unwrap();
        assert_eq!(ready.status(), StatusCode::OK);
        let answer = clone.call(ask("POST", "/mcp", &init)).await.unwrap();
        assert_eq!(answer.status(), StatusCode::OK);
        assert!(answer.headers().contains_key("x-request-id"));
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        assert!(
            String::from_utf8_lossy(&body).contains("serverInfo"),
            "{body:?}"
        );
        assert_eq!(service.in_flight(), 0);

        service.shutdown().await.unwrap();
        let ready = clone.call(ask("GET", "/readyz", "")).await.unwrap();
        assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
        let refused = clone.call(ask("POST", "/mcp", &init)).await.unwrap();
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        let body = refused.into_body().collect().await.unwrap().to_bytes();
        assert!(
            String::from_utf8_lossy(&body).contains("\"retryable\":true"),
            "{body:?}"
        );
    });
}

#[test]
fn i40_the_embedding_example_serves_one_request_and_stops() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = rt
        .block_on(crate::embed_service_example::run(
            &dir,
            std::future::pending(),
        ))
        .unwrap();
    assert_eq!(outcome.status, 200, "{outcome:?}");
    assert!(!outcome.server_name.is_empty(), "{outcome:?}");
    assert!(outcome.stopped.is_ok(), "{outcome:?}");
}
