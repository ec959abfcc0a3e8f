//! The local HTTP servers of a sweep: a catch-all echo server on `127.0.0.1:0`.
//!
//! Every request is answered `200 application/json` with `{"method","url","headers","body"}` and
//! scanned for canaries as it arrives; the server counts the requests and keeps the record of
//! the requests that carried a canary only (a handler looping on `fetch` cannot fill the memory).
//! The call a request belongs to is read from the [`CALL_HEADER`] the sweep's transport adds.
//!
//! Marks in the path change the answer, for the hostile schemas: [`REDIRECT_MARK`] is answered
//! with a `302` to the redirect target, if the server has one (secrets must not follow a redirect
//! to another origin); [`SLOW_MARK`] after [`SLOW_DELAY`] (a handler fetching it in a loop must
//! still end); [`PNG_MARK`] with the echo as `image/png` (the runtime turns such a body into
//! base64 text, which a redaction of the plain value does not see).

use std::io::{Cursor, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Map, Value};

use super::canary::{Canaries, Hit};

/// The header carrying the call number of a request.
pub(super) const CALL_HEADER: &str = "X-Flowmcp-Sweep-Call";
/// A path containing this is redirected (`302`) to the server's redirect target.
pub(super) const REDIRECT_MARK: &str = "__sweep_redirect";
/// A path containing this is answered after [`SLOW_DELAY`].
pub(super) const SLOW_MARK: &str = "__sweep_slow";
/// How long a [`SLOW_MARK`] request waits.
pub(super) const SLOW_DELAY: Duration = Duration::from_secs(2);
/// A path containing this is answered with the echo as `image/png`.
pub(super) const PNG_MARK: &str = "__sweep_png";
/// Largest request body read; the rest is ignored.
const MAX_BODY: u64 = 1 << 20;
/// Threads answering requests, per server.
const THREADS: usize = 4;

/// Which server saw a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    /// The catch-all upstream of every namespace.
    Upstream,
    /// The unrelated host that must never see a canary.
    Foreign,
}

impl Side {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Side::Upstream => "upstream",
            Side::Foreign => "foreign server",
        }
    }
}

/// A canary found in a request: which one, in what form, in which part.
#[derive(Clone, Debug)]
pub(super) struct Found {
    pub hit: Hit,
    /// `url`, `header <name>` or `body`.
    pub part: String,
}

/// A request that carried at least one canary.
#[derive(Clone, Debug)]
pub(super) struct Record {
    pub side: Side,
    /// The call number from [`CALL_HEADER`], when present.
    pub call: Option<u64>,
    pub method: String,
    /// The request target (path and query), cut to a readable length.
    pub url: String,
    /// The path as received (for the namespace prefix).
    pub path: String,
    pub found: Vec<Found>,
}

/// What a server has seen.
#[derive(Debug, Default)]
pub(super) struct Seen {
    pub total: AtomicUsize,
    records: Mutex<Vec<Record>>,
}

impl Seen {
    /// The records of requests that carried a canary.
    pub(super) fn records(&self) -> Vec<Record> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn note(&self, record: Option<Record>) {
        self.total.fetch_add(1, Ordering::Relaxed);
        if let Some(r) = record {
            self.records
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(r);
        }
    }
}

/// A running echo server.
pub(super) struct EchoServer {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    pub port: u16,
    pub seen: Arc<Seen>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

/// What every answering thread needs.
struct Shared {
    server: tiny_http::Server,
    side: Side,
    canaries: Arc<Canaries>,
    seen: Arc<Seen>,
    stop: Arc<AtomicBool>,
    redirect_to: Option<String>,
}

impl EchoServer {
    /// Binds `127.0.0.1:0` and starts answering.
    pub(super) fn start(
        side: Side,
        canaries: Arc<Canaries>,
        redirect_to: Option<String>,
    ) -> Result<EchoServer, String> {
        let server = tiny_http::Server::http("127.0.0.1:0")
            .map_err(|e| format!("cannot start the {} server: {e}", side.as_str()))?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or("the server has no IP address")?;
        let seen = Arc::new(Seen::default());
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            server,
            side,
            canaries,
            seen: seen.clone(),
            stop: stop.clone(),
            redirect_to,
        });
        let mut threads = Vec::new();
        for i in 0..THREADS {
            let s = shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("sweep-{}-{i}", side.as_str()))
                .spawn(move || serve(&s))
                .map_err(|e| format!("cannot start a server thread: {e}"))?;
            threads.push(handle);
        }
        Ok(EchoServer {
            base: format!("http://127.0.0.1:{port}"),
            port,
            seen,
            stop,
            threads,
        })
    }

    /// Stops answering and waits for the threads.
    pub(super) fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads {
            let _ = t.join();
        }
    }
}

fn serve(s: &Shared) {
    while !s.stop.load(Ordering::SeqCst) {
        match s.server.recv_timeout(Duration::from_millis(100)) {
            Ok(Some(request)) => answer(s, request),
            Ok(None) => {}
            Err(_) => break,
        }
    }
}

fn answer(s: &Shared, mut request: tiny_http::Request) {
    let mut body = Vec::new();
    let _ = request.as_reader().take(MAX_BODY).read_to_end(&mut body);
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|h| (h.field.as_str().as_str().to_string(), h.value.to_string()))
        .collect();
    let call = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(CALL_HEADER))
        .and_then(|(_, v)| v.trim().parse::<u64>().ok());
    let body_text = String::from_utf8_lossy(&body);
    let found = scan(&s.canaries, &url, &headers, &body_text);
    let record = (!found.is_empty()).then(|| Record {
        side: s.side,
        call,
        method: method.clone(),
        url: cut(&url, 300),
        path: url.split('?').next().unwrap_or_default().to_string(),
        found,
    });
    s.seen.note(record);
    let reply = match &s.redirect_to {
        Some(target) if url.contains(REDIRECT_MARK) => redirect(target),
        _ => {
            if url.contains(SLOW_MARK) {
                std::thread::sleep(SLOW_DELAY);
            }
            let mime = if url.contains(PNG_MARK) {
                "image/png"
            } else {
                "application/json"
            };
            echo(&method, &url, &headers, &body_text, mime)
        }
    };
    // The client may have given up already (timeouts, an abandoned call): that is fine.
    let _ = request.respond(reply);
}

/// The canaries in a request's target, headers and body.
pub(super) fn scan(
    canaries: &Canaries,
    url: &str,
    headers: &[(String, String)],
    body: &str,
) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    let mut add = |part: String, text: &str| {
        for hit in canaries.find(text) {
            found.push(Found {
                hit,
                part: part.clone(),
            });
        }
    };
    add("url".into(), url);
    for (k, v) in headers {
        add(format!("header {k}"), &format!("{k}: {v}"));
    }
    add("body".into(), body);
    found
}

fn echo(method: &str, url: &str, headers: &[(String, String)], body: &str, mime: &str) -> Reply {
    let mut h = Map::new();
    for (k, v) in headers {
        h.insert(k.clone(), Value::String(v.clone()));
    }
    let mut o = Map::new();
    o.insert("method".into(), Value::String(method.into()));
    o.insert("url".into(), Value::String(url.into()));
    o.insert("headers".into(), Value::Object(h));
    o.insert("body".into(), Value::String(body.into()));
    let text = Value::Object(o).to_string();
    with_header(
        tiny_http::Response::from_data(text.into_bytes()),
        "Content-Type",
        mime,
    )
}

fn redirect(target: &str) -> Reply {
    let r = tiny_http::Response::from_data(Vec::new()).with_status_code(302);
    with_header(r, "Location", &format!("{target}/sweep-redirected"))
}

type Reply = tiny_http::Response<Cursor<Vec<u8>>>;

fn with_header(mut r: Reply, name: &str, value: &str) -> Reply {
    if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
        r.add_header(h);
    }
    r
}

/// `text` cut to at most `max` characters (`…` marks a cut).
pub(super) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
