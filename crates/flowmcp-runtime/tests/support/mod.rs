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

/// A `redis-server` of its own on a free loopback port (no persistence, in a scratch directory),
/// stopped on drop: the shared preload cache's tests (issue #32, item 4).
///
/// The binary comes from the Debian package (`apt-get install -y redis-server`). When it is not
/// installed, [`RedisServer::start`] says so on stderr and returns `None`, and the test passes
/// without running — so that `cargo test --workspace` works on a machine without it — unless
/// `FLOWMCP_REQUIRE_REDIS=1` is set (CI sets it once it has installed the package): then the
/// test fails. `FLOWMCP_SKIP_REDIS=1` skips the Redis tests even where the binary is installed.
pub(crate) struct RedisServer {
    pub port: u16,
    password: Option<String>,
    child: Option<std::process::Child>,
    _dir: Scratch,
}

impl RedisServer {
    /// A server without a password.
    pub(crate) fn start() -> Option<RedisServer> {
        RedisServer::start_with(None)
    }

    /// A server that requires `password` (`requirepass`).
    pub(crate) fn start_with(password: Option<&str>) -> Option<RedisServer> {
        if std::env::var("FLOWMCP_SKIP_REDIS").is_ok_and(|v| v == "1") {
            eprintln!("FLOWMCP_SKIP_REDIS=1: skipping a test that needs redis-server");
            return None;
        }
        let installed = std::process::Command::new("redis-server")
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok();
        if !installed {
            assert!(
                !std::env::var("FLOWMCP_REQUIRE_REDIS").is_ok_and(|v| v == "1"),
                "FLOWMCP_REQUIRE_REDIS=1, but redis-server is not installed \
                 (`apt-get install -y redis-server`)"
            );
            eprintln!(
                "skipping a test that needs redis-server, which is not installed \
                 (`apt-get install -y redis-server`; FLOWMCP_REQUIRE_REDIS=1 makes this a failure)"
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let mut server = RedisServer {
            port,
            password: password.map(str::to_string),
            child: None,
            _dir: Scratch::new("redis"),
        };
        server.restart();
        Some(server)
    }

    /// Starts the server (again) on its port, and waits until it answers.
    pub(crate) fn restart(&mut self) {
        self.stop();
        let mut cmd = std::process::Command::new("redis-server");
        cmd.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(&self._dir.0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if let Some(p) = &self.password {
            cmd.args(["--requirepass", p]);
        }
        self.child = match cmd.spawn() {
            Ok(child) => Some(child),
            Err(e) => panic!(
                "redis-server could not be started ({e}): install it with \
                 `apt-get install -y redis-server`, or set FLOWMCP_SKIP_REDIS=1 to skip the \
                 Redis tests"
            ),
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while self.cli(&["PING"]).trim() != "PONG" {
            assert!(
                std::time::Instant::now() < deadline,
                "redis-server on port {} did not answer PING",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `redis://[:password@]127.0.0.1:<port>/0`.
    pub(crate) fn url(&self) -> String {
        match &self.password {
            Some(p) => format!("redis://:{p}@127.0.0.1:{}/0", self.port),
            None => format!("redis://127.0.0.1:{}/0", self.port),
        }
    }

    /// Runs `redis-cli --raw` with `args` against the server; its standard output (empty when it
    /// could not run).
    pub(crate) fn cli(&self, args: &[&str]) -> String {
        let mut cmd = std::process::Command::new("redis-cli");
        cmd.args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--raw"]);
        if let Some(p) = &self.password {
            cmd.env("REDISCLI_AUTH", p);
        }
        cmd.args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    /// The keys matching `pattern`, sorted.
    pub(crate) fn keys(&self, pattern: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .cli(&["KEYS", pattern])
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        keys.sort();
        keys
    }

    /// Stops the server (kill and wait); later commands fail to connect.
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
