//! A local `tiny_http` test server on 127.0.0.1 and scratch directories, shared by the runtime's
//! and the CLI's tests.
//!
//! Every server runs on its own thread, handles at most a fixed number of requests (each waited
//! for with a bounded timeout) and then stops, returning what it received.
#![allow(dead_code)]

use std::io::Cursor;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// What a test server saw for one request.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub(crate) type Reply = tiny_http::Response<Cursor<Vec<u8>>>;

/// A running test server: its base URL (`http://127.0.0.1:<port>`) and the thread that returns
/// the requests it handled.
pub(crate) struct TestServer {
    pub base: String,
    handle: JoinHandle<Vec<Seen>>,
}

impl TestServer {
    /// Starts a server that answers at most `max_requests` requests with `handler`, waiting at
    /// most two seconds for each.
    pub(crate) fn start<F>(max_requests: usize, handler: F) -> TestServer
    where
        F: Fn(&Seen) -> Reply + Send + 'static,
    {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind test server");
        let port = server
            .server_addr()
            .to_ip()
            .expect("test server has an IP address")
            .port();
        let handle = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for _ in 0..max_requests {
                let Ok(Some(mut request)) = server.recv_timeout(Duration::from_secs(2)) else {
                    break;
                };
                let mut body = Vec::new();
                let _ = request.as_reader().read_to_end(&mut body);
                let record = Seen {
                    method: request.method().as_str().to_string(),
                    url: request.url().to_string(),
                    headers: request
                        .headers()
                        .iter()
                        .map(|h| (h.field.as_str().as_str().to_string(), h.value.to_string()))
                        .collect(),
                    body,
                };
                let reply = handler(&record);
                seen.push(record);
                // The client may have given up already (timeouts); that is fine.
                let _ = request.respond(reply);
            }
            seen
        });
        TestServer {
            base: format!("http://127.0.0.1:{port}"),
            handle,
        }
    }

    /// Waits for the server thread and returns what it received.
    pub(crate) fn finish(self) -> Vec<Seen> {
        self.handle.join().expect("test server thread")
    }
}

pub(crate) fn reply(status: u16, content_type: Option<&str>, body: impl Into<Vec<u8>>) -> Reply {
    let mut r = tiny_http::Response::from_data(body.into()).with_status_code(status);
    if let Some(ct) = content_type {
        r.add_header(header("Content-Type", ct));
    }
    r
}

pub(crate) fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("valid test header")
}

/// A scratch directory under the system temp dir (unique per process and call), removed on drop.
pub(crate) struct Scratch(pub PathBuf);

impl Scratch {
    pub(crate) fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "flowmcp-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }

    /// The directory as text (for environment variables such as `HOME`).
    pub(crate) fn path(&self) -> &str {
        self.0.to_str().expect("UTF-8 temp path")
    }

    /// Writes `text` to `rel` below the directory, creating parents.
    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("parent dir");
        }
        std::fs::write(&p, text).expect("write scratch file");
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies the directory `from` to `to`, recursively.
pub(crate) fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("create a directory");
    for e in std::fs::read_dir(from).expect("read a directory") {
        let e = e.expect("read a directory entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy a file");
        }
    }
}

/// Reads what `stream` gets until the peer closes it, waiting at most `within`; `None` when it is
/// still open then (the HTTP server's deadline and connection-cap tests).
pub(crate) fn read_until_closed(
    stream: &mut std::net::TcpStream,
    within: Duration,
) -> Option<String> {
    use std::io::Read;
    stream.set_read_timeout(Some(within)).expect("read timeout");
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            // Reset by the peer: closed as well.
            Err(_) => return Some(String::from_utf8_lossy(&got).into_owned()),
        }
    }
}
