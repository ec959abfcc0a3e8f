//! The HTTP half of the tests' support (the `http` feature): a server on 127.0.0.1 that stops
//! when dropped, and a small MCP client over plain HTTP POSTs.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // each test file uses a part

use std::net::SocketAddr;

use flowmcp_catalog::serde_json::{Value, json};
use flowmcp_mcp::{Endpoints, HttpError, HttpOptions};

/// A server running on a thread of its own; dropping it stops it and waits for the thread.
pub(crate) struct Running {
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), HttpError>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Running {
    /// Sends the shutdown signal and waits for the server to stop; returns how it stopped.
    pub(crate) fn stop(mut self) -> Result<(), HttpError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.thread.take().unwrap().join().unwrap()
    }

    /// Sends the shutdown signal without waiting; [`Running::stop`] waits.
    pub(crate) fn signal(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Starts `endpoints` on a free port of 127.0.0.1 with `opts`; returns the error when the server
/// does not start.
pub(crate) fn start(endpoints: Endpoints, opts: HttpOptions) -> Result<Running, HttpError> {
    let (addr_tx, addr_rx) = std::sync::mpsc::channel::<SocketAddr>();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let opts = {
        let mut built = opts;
        built.listen = SocketAddr::from(([127, 0, 0, 1], 0));
        built
    };
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(endpoints.run(
            opts,
            move |addr| {
                let _ = addr_tx.send(addr);
            },
            async move {
                let _ = stop_rx.await;
            },
        ))
    });
    match addr_rx.recv() {
        Ok(addr) => Ok(Running {
            base: format!("http://{addr}"),
            stop: Some(stop_tx),
            thread: Some(thread),
        }),
        // The sender was dropped: the server stopped before it was ready.
        Err(_) => Err(thread.join().unwrap().unwrap_err()),
    }
}

/// A status, the `WWW-Authenticate` header (if any) and the body of an answer.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) challenge: Option<String>,
    pub(crate) body: String,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .build()
        .into()
}

/// POSTs one JSON-RPC message to `url` with `headers`.
pub(crate) fn post(url: &str, headers: &[(&str, &str)], message: &Value) -> Answer {
    try_post(url, headers, message).unwrap()
}

/// [`post`] that gives the transport's error instead of failing the test (a connection the
/// server refused).
pub(crate) fn try_post(
    url: &str,
    headers: &[(&str, &str)],
    message: &Value,
) -> Result<Answer, ureq::Error> {
    let mut req = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send(message.to_string()).map(answer)
}

/// GETs `url`.
pub(crate) fn get(url: &str) -> Answer {
    answer(agent().get(url).call().unwrap())
}

fn answer(mut r: ureq::http::Response<ureq::Body>) -> Answer {
    let status = r.status().as_u16();
    let challenge = r
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string());
    let body = r.body_mut().read_to_string().unwrap();
    Answer {
        status,
        challenge,
        body,
    }
}

/// An MCP `initialize` request.
pub(crate) fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "flowmcp-mcp-tests", "version": "1"}}})
}

/// `Authorization: Bearer <token>`.
pub(crate) fn bearer(token: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {token}"))
}

/// The wire names `tools/list` at `url` returns (with `headers`), after an `initialize` there.
pub(crate) fn tool_names(url: &str, headers: &[(&str, &str)]) -> Vec<String> {
    let init = post(url, headers, &initialize());
    assert_eq!(init.status, 200, "{}", init.body);
    let mut with_version = headers.to_vec();
    with_version.push(("MCP-Protocol-Version", "2025-06-18"));
    let list = post(
        url,
        &with_version,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    );
    assert_eq!(list.status, 200, "{}", list.body);
    let v: Value = flowmcp_catalog::serde_json::from_str(&list.body).unwrap();
    let mut names: Vec<String> = v["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {v}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}
