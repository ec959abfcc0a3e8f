//! Mounting a catalog's MCP endpoints in an HTTP server of your own: the program owns the
//! listener, the tokio runtime, the accept loop (hyper's HTTP/1 connections) and the shutdown;
//! `flowmcp-mcp` gives the [`McpService`] that answers each request (a `tower_service::Service`,
//! with the token, Host and Origin checks, body limits, request ids, `/healthz`, `/readyz` and
//! the rest of what `flowmcp serve --transport http` answers).
//!
//! ```sh
//! cargo run -p flowmcp-mcp --example embed_service
//! ```
//!
//! The server listens on a port of 127.0.0.1 the system picks and stops after it has answered one
//! MCP request, or on Ctrl-C. The example sends that request itself (an `initialize` over a plain
//! TCP connection), so it ends by itself: the service drains ([`McpService::shutdown`]), then the
//! server closes its connections.
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flowmcp_mcp::serde_json::{Value, json};
use flowmcp_mcp::{
    Catalog, CatalogOptions, Endpoints, HttpError, HttpOptions, McpServer, McpService, Profile,
    ServeOptions,
};
use hyper::body::Incoming;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_service::Service;

/// What the run showed.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The status of the answer to `initialize`.
    pub(crate) status: u16,
    /// The server's name in that answer.
    pub(crate) server_name: String,
    /// How the server stopped.
    pub(crate) stopped: Result<(), HttpError>,
}

/// Serves the catalog in `catalog_dir` until it has answered one MCP request or `stop` completes,
/// sends it an `initialize`, and says what happened.
pub(crate) async fn run(
    catalog_dir: &Path,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<Outcome, Box<dyn std::error::Error>> {
    let catalog = Catalog::open(catalog_dir, &CatalogOptions::new(Profile::Spec))?;
    let endpoints = Endpoints::single(McpServer::new(catalog, &ServeOptions::default())?);

    // Our listener; the service is told its address (the Origin checks and, with OAuth, the
    // resource URLs are made from it).
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let mut opts = HttpOptions::default();
    opts.listen = addr;
    let service = endpoints.service(&opts).await?;
    println!("listening on http://{addr}/mcp");

    let server = tokio::spawn(serve(listener, service, stop));
    let (status, body) = post(addr, "/mcp", &initialize()).await?;
    let answer: Value = flowmcp_mcp::serde_json::from_str(&body)?;
    let server_name = answer["result"]["serverInfo"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    println!("initialize: {status}, server {server_name:?}");
    let stopped = server.await?;
    Ok(Outcome {
        status,
        server_name,
        stopped,
    })
}

/// Our server: an accept loop that hands each connection to hyper with the service, until one
/// MCP request has been answered or `stop` completes; then the service drains and the
/// connections close.
async fn serve(
    listener: TcpListener,
    service: McpService,
    stop: impl Future<Output = ()>,
) -> Result<(), HttpError> {
    let answered = Arc::new(Notify::new());
    let closing = CancellationToken::new();
    let connections = TaskTracker::new();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    eprintln!("accept: {e}");
                    continue;
                }
            },
            () = &mut stop => break,
            () = answered.notified() => break,
        };
        // Each connection's clone knows its client (`/metrics` without a token is for loopback
        // clients only).
        let per_peer = service.with_peer(peer);
        let answered = Arc::clone(&answered);
        let hyper_service = hyper::service::service_fn(move |req: http::Request<Incoming>| {
            let mcp = req.uri().path() == flowmcp_mcp::http::MCP_PATH;
            let answer = per_peer.clone().call(req);
            let answered = Arc::clone(&answered);
            async move {
                let answer = answer.await;
                if mcp {
                    answered.notify_one();
                }
                answer
            }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .serve_connection(hyper_util::rt::TokioIo::new(stream), hyper_service);
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
    // No new connections; requests in flight finish (within `HttpOptions::grace`), then the
    // connections close.
    drop(listener);
    let drained = service.shutdown().await;
    closing.cancel();
    connections.close();
    connections.wait().await;
    drained
}

/// An MCP `initialize` request.
fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "embed-service-example", "version": "1.0.0"}}})
}

/// POSTs `message` to `path` at `addr` over a connection of its own; the status and the body.
async fn post(
    addr: SocketAddr,
    path: &str,
    message: &Value,
) -> Result<(u16, String), Box<dyn std::error::Error>> {
    let body = message.to_string();
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").ok_or("no end of headers")?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    Ok((status, body.to_string()))
}

#[allow(dead_code)]
#[tokio::main]
async fn main() {
    let catalog = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match run(&catalog, ctrl_c).await {
        Ok(Outcome {
            status: 200,
            server_name,
            stopped: Ok(()),
        }) => println!("done: {server_name} answered one request, and the server stopped"),
        Ok(outcome) => {
            eprintln!("embed_service: {outcome:?}");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("embed_service: {e}");
            std::process::exit(2);
        }
    }
}
