//! The scale-out example (`examples/scale-out/`, issue #32 item 5): its script starts Redis, three
//! `flowmcp serve` replicas sharing it as the preload cache, HAProxy in front of them and
//! Prometheus scraping them; concurrent MCP clients drive the balancer while one replica is
//! killed (SIGKILL, a crash) halfway, with calls running on it. No call may be lost silently: each
//! one ends answered, after retries of the errors the client was told it may retry (the
//! balancer's 502/503/504, a broken connection, a JSON-RPC error marked retryable), and the
//! clients must have seen such errors. The upstream sees one fetch of the preloaded country list
//! across all replicas, and Prometheus holds every replica's call counters and `up` history.
//!
//! The test needs `redis-server`, `haproxy` and `prometheus` (Debian packages of those names;
//! `.ci/run` installs them). Where one is missing it passes without running and says so on
//! stderr, unless `FLOWMCP_REQUIRE_SCALE_OUT=1` (set by `.ci/run`) makes that a failure.
//! `FLOWMCP_SKIP_SCALE_OUT=1` skips it even where they are installed. It takes about 15 s.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;
use common::support::Scratch;
use common::{binary, repo_root};

/// What `run.sh` starts, by the names of its pid and log files.
const PARTS: [&str; 6] = [
    "redis",
    "replica1",
    "replica2",
    "replica3",
    "haproxy",
    "prometheus",
];

/// Concurrent clients driving the balancer.
const CLIENTS: usize = 8;
/// Load before the crash, at least (the test also waits until Prometheus has each replica's
/// counters, so that the crashed one has been scraped).
const BEFORE_KILL: Duration = Duration::from_secs(3);
/// Load after the crash.
const AFTER_KILL: Duration = Duration::from_secs(5);
/// How long a client keeps retrying one call once the load has stopped, before it counts the
/// call as lost.
const RETRY_GRACE: Duration = Duration::from_secs(20);
/// The longest one HTTP request may take (a call that takes longer is lost).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Slow calls sent just before the crash, so that some are running on the replica that crashes
/// (round robin gives it every third), and how long the upstream takes to answer them.
const SLOW_CALLS: usize = 9;
const SLOW: Duration = Duration::from_secs(2);
/// The preloaded tool (ttl one day: one upstream fetch for the whole test) and one that is not.
const PRELOADED: &str = "listCountries_holidaykit-net";
const NOT_PRELOADED: &str = "getPublicHolidays_holidaykit-net";

/// Where a program of a Debian package is: on `PATH`, or in an sbin directory (`haproxy` is in
/// /usr/sbin, which a user's `PATH` may lack; the script searches there too).
fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether the test can run: it is not skipped and the three programs are installed. Missing ones
/// are a failure under `FLOWMCP_REQUIRE_SCALE_OUT=1`, and a loud skip otherwise.
fn tools_installed() -> bool {
    if std::env::var("FLOWMCP_SKIP_SCALE_OUT").is_ok_and(|v| v == "1") {
        eprintln!("FLOWMCP_SKIP_SCALE_OUT=1: skipping the scale-out test");
        return false;
    }
    let missing: Vec<&str> = ["redis-server", "haproxy", "prometheus"]
        .into_iter()
        .filter(|t| find_tool(t).is_none())
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        !std::env::var("FLOWMCP_REQUIRE_SCALE_OUT").is_ok_and(|v| v == "1"),
        "FLOWMCP_REQUIRE_SCALE_OUT=1, but not installed: {missing:?} \
         (`apt-get install -y redis-server haproxy prometheus`)"
    );
    eprintln!(
        "\n*** SKIPPED: the scale-out test needs redis-server, haproxy and prometheus; not \
         installed: {missing:?} (`apt-get install -y redis-server haproxy prometheus`; \
         FLOWMCP_REQUIRE_SCALE_OUT=1 makes this a failure) ***\n"
    );
    false
}

/// Free loopback ports, distinct from each other.
fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<std::net::TcpListener> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free loopback port"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

/// The stand-in for the holidaykit-net API: answers from `examples/demo-upstream/` and records
/// every request as `METHOD PATH`; runs until dropped. The country list comes after 200 ms, so
/// that replicas that miss the cache at once overlap; the holidays of 2025 after 100 ms, so that
/// calls are in flight on every replica at any time while the load stays light for the machine;
/// bank holidays (`?type=bank`) after [`SLOW`], counted in `slow` when they arrive.
struct Upstream {
    base: String,
    seen: Arc<Mutex<Vec<String>>>,
    slow: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Upstream {
    fn start() -> Upstream {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind the upstream");
        let port = server.server_addr().to_ip().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let slow = Arc::new(AtomicUsize::new(0));
        let dir = repo_root().join("examples/demo-upstream");
        let thread = {
            let (seen, slow, stop) = (Arc::clone(&seen), Arc::clone(&slow), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let Ok(Some(request)) = server.recv_timeout(Duration::from_millis(100)) else {
                        continue;
                    };
                    let path = request
                        .url()
                        .split('?')
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    seen.lock()
                        .unwrap()
                        .push(format!("{} {path}", request.method()));
                    let file = dir.join(path.trim_start_matches('/'));
                    let bank = request.url().contains("type=bank");
                    if bank {
                        slow.fetch_add(1, Ordering::SeqCst);
                    }
                    // Each answer on its own thread: a slow one does not hold up the others.
                    std::thread::spawn(move || {
                        if bank {
                            std::thread::sleep(SLOW);
                        } else if path == "/countries" {
                            std::thread::sleep(Duration::from_millis(200));
                        } else if path.starts_with("/holidays/2025/") {
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        let (status, body) = match std::fs::read(&file) {
                            Ok(body) if !path.contains("..") => (200, body),
                            _ => (404, b"{}".to_vec()),
                        };
                        let answer = tiny_http::Response::from_data(body)
                            .with_status_code(status)
                            .with_header(
                                tiny_http::Header::from_bytes("Content-Type", "application/json")
                                    .unwrap(),
                            );
                        let _ = request.respond(answer);
                    });
                }
            })
        };
        Upstream {
            base: format!("http://127.0.0.1:{port}"),
            seen,
            slow,
            stop,
            thread: Some(thread),
        }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `kill -SIGNAL TARGET` (a process id, or `-PGID` for a process group).
fn signal(sig: &str, target: &str) {
    let _ = Command::new("kill")
        .args([&format!("-{sig}"), "--", target])
        .stderr(Stdio::null())
        .status();
}

/// Whether the process `pid` is still running (a zombie, dead but not yet reaped, is not).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state is the field after the command name, which is in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// `examples/scale-out/run.sh` running in its own process group; on drop (a failed test) it
/// is asked to stop, and then the whole group is killed.
struct Deployment {
    child: Child,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    dir: PathBuf,
    /// The fields of its `scale-out: ready` line.
    ready: BTreeMap<String, String>,
    /// The process ids of the parts it started, by name (from its pid files).
    pids: BTreeMap<String, u32>,
    /// Whether the script has been waited for (its process group id may be reused from then on).
    reaped: bool,
}

impl Deployment {
    fn start(dir: &Path, home: &Path, env: &[(&str, String)], serve_args: &[String]) -> Deployment {
        let mut child = Command::new("bash")
            .arg(repo_root().join("examples/scale-out/run.sh"))
            .args(serve_args)
            .current_dir(repo_root())
            .env("FLOWMCP", binary())
            .env("HOME", home)
            .env("SCALE_OUT_DIR", dir)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env_remove("FLOWMCP_AUTH_TOKEN")
            .env_remove("FLOWMCP_METRICS_TOKEN")
            .env_remove("FLOWMCP_OAUTH_ISSUER")
            .env_remove("FLOWMCP_ROUTE_TOKENS")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("start bash examples/scale-out/run.sh");
        let (tx, lines) = std::sync::mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let err = child.stderr.take().unwrap();
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut s = kept.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let mut deployment = Deployment {
            child,
            lines,
            stderr,
            dir: dir.to_path_buf(),
            ready: BTreeMap::new(),
            pids: BTreeMap::new(),
            reaped: false,
        };
        deployment.await_ready(Duration::from_secs(120));
        deployment
    }

    /// Waits for the `scale-out: ready` line and reads the pid files.
    fn await_ready(&mut self, within: Duration) {
        let deadline = Instant::now() + within;
        let line = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with("scale-out: ready ") => break line,
                Ok(_) => {}
                // Dropping `self` prints the script's stderr and the parts' logs.
                Err(RecvTimeoutError::Timeout) => panic!("run.sh was not ready within {within:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("run.sh stopped before it was ready"),
            }
        };
        self.ready = line["scale-out: ready ".len()..]
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for name in PARTS {
            let pid = std::fs::read_to_string(self.dir.join(format!("{name}.pid")))
                .unwrap_or_else(|e| panic!("{name}.pid: {e}"));
            self.pids
                .insert(name.to_string(), pid.trim().parse().expect("a process id"));
        }
    }

    /// The script's stderr and the end of each part's log.
    fn diagnosis(&self) -> String {
        let mut s = format!("run.sh stderr:\n{}", self.stderr.lock().unwrap());
        for log in PARTS {
            if let Ok(text) = std::fs::read_to_string(self.dir.join(format!("{log}.log"))) {
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(15)..].join("\n");
                s.push_str(&format!("\n--- {log}.log (end) ---\n{tail}\n"));
            }
        }
        s
    }

    /// Whether the script has exited (without reaping it, so that its process group id stays
    /// reserved for [`Deployment::kill_group`]).
    fn script_exited(&self) -> bool {
        !running(self.child.id())
    }

    /// Sends SIGTERM and waits (at most `within`) for the script to stop what it started and
    /// exit, then kills what is left of its process group. Returns the script's exit code (`None`
    /// when it did not exit in time, or was stopped before) and the parts that were still running
    /// when it exited or the time was up.
    fn stop(&mut self, within: Duration) -> (Option<i32>, Vec<String>) {
        if self.reaped {
            return (None, Vec::new());
        }
        signal("TERM", &self.child.id().to_string());
        let deadline = Instant::now() + within;
        while !self.script_exited() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let exited = self.script_exited();
        let left = self
            .pids
            .iter()
            .filter(|(_, pid)| running(**pid))
            .map(|(name, pid)| format!("{name} (pid {pid})"))
            .collect();
        // What outlived it (nothing, when it did its job) is killed, then the script is reaped.
        self.kill_group();
        self.reaped = true;
        let status = self.child.wait().ok();
        let code = if exited {
            status.and_then(|s| s.code())
        } else {
            None
        };
        (code, left)
    }

    /// SIGKILL for everything left in the script's process group (the script included).
    fn kill_group(&self) {
        signal("KILL", &format!("-{}", self.child.id()));
    }
}

impl Drop for Deployment {
    fn drop(&mut self) {
        if !self.reaped {
            if std::thread::panicking() {
                eprintln!("{}", self.diagnosis());
            }
            // Every part is in the script's process group, which `stop` kills.
            self.stop(Duration::from_secs(15));
        }
    }
}

/// How one attempt at a call ended.
enum Attempt {
    /// HTTP 200 and a tool result that is not an error; the replica that answered.
    Ok(String),
    /// An error the client was told it may retry: its kind.
    Retryable(&'static str),
    /// Anything else.
    Lost(String),
}

/// What one client saw.
#[derive(Default)]
struct Tally {
    ok: usize,
    /// Of those, the calls that started after the crash.
    ok_after_kill: usize,
    by_replica: BTreeMap<String, usize>,
    retryable: BTreeMap<&'static str, usize>,
    lost: Vec<String>,
}

/// The JSON-RPC message of a response body: JSON, or the last `data:` line of an event stream.
fn message(body: &str) -> Option<Value> {
    serde_json::from_str(body).ok().or_else(|| {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .next_back()
    })
}

/// One POST of `body` to the balancer, classified.
fn attempt(agent: &ureq::Agent, mcp: &str, body: &Value) -> Attempt {
    let sent = agent
        .post(mcp)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .send(body.to_string());
    let mut resp = match sent {
        Ok(resp) => resp,
        Err(ureq::Error::Timeout(t)) => return Attempt::Lost(format!("timed out ({t})")),
        Err(ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::Protocol(_)) => {
            return Attempt::Retryable("connection error");
        }
        Err(e) => return Attempt::Lost(format!("request failed: {e}")),
    };
    let status = resp.status().as_u16();
    let replica = resp
        .headers()
        .get("x-flowmcp-replica")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("?")
        .to_string();
    let Ok(text) = resp.body_mut().read_to_string() else {
        return Attempt::Retryable("connection error");
    };
    match status {
        502 => return Attempt::Retryable("HTTP 502"),
        503 => return Attempt::Retryable("HTTP 503"),
        504 => return Attempt::Retryable("HTTP 504"),
        200 => {}
        _ => return Attempt::Lost(format!("HTTP {status}: {text}")),
    }
    let Some(msg) = message(&text) else {
        return Attempt::Lost(format!("HTTP 200, not a JSON-RPC message: {text}"));
    };
    if msg["result"]["isError"] == false {
        Attempt::Ok(replica)
    } else if msg["error"]["data"]["retryable"] == true {
        Attempt::Retryable("JSON-RPC retryable error")
    } else {
        Attempt::Lost(format!("HTTP 200: {text}"))
    }
}

/// An agent for one client: statuses are answers, not errors; `CALL_TIMEOUT` per request.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(CALL_TIMEOUT))
        .build()
        .into()
}

/// Sends one call until it is answered. Each retryable failure is counted and the call sent again
/// after 100 ms; a call that still fails `RETRY_GRACE` after `stop` is lost, and so is one that
/// gets an answer that is neither a result nor retryable.
fn call_until_answered(
    agent: &ureq::Agent,
    mcp: &str,
    body: &Value,
    stop: &AtomicBool,
    after_kill: bool,
    tally: &mut Tally,
) {
    let mut stopped_at: Option<Instant> = None;
    loop {
        match attempt(agent, mcp, body) {
            Attempt::Ok(replica) => {
                tally.ok += 1;
                tally.ok_after_kill += usize::from(after_kill);
                *tally.by_replica.entry(replica).or_default() += 1;
                return;
            }
            Attempt::Lost(why) => {
                tally.lost.push(why);
                return;
            }
            Attempt::Retryable(kind) => {
                *tally.retryable.entry(kind).or_default() += 1;
                if stop.load(Ordering::SeqCst) {
                    let since = *stopped_at.get_or_insert_with(Instant::now);
                    if since.elapsed() > RETRY_GRACE {
                        tally
                            .lost
                            .push(format!("still {kind} {RETRY_GRACE:?} after the load"));
                        return;
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// A client: calls one of the two tools after the other until `stop`, the preloaded one first
/// (so that all clients miss the cache together at the start) and then every third call.
fn client(n: usize, mcp: String, killed: Arc<AtomicBool>, stop: Arc<AtomicBool>) -> Tally {
    let agent = agent();
    let mut tally = Tally::default();
    for i in 0.. {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let id = (n * 1_000_000 + i) as u64;
        let body = if i.is_multiple_of(3) {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": PRELOADED, "arguments": {}}})
        } else {
            let year = if (n + i).is_multiple_of(2) {
                2025
            } else {
                2026
            };
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": NOT_PRELOADED,
                    "arguments": {"year": year, "countryCode": "DE"}}})
        };
        let after_kill = killed.load(Ordering::SeqCst);
        call_until_answered(&agent, &mcp, &body, &stop, after_kill, &mut tally);
    }
    tally
}

/// One call that the upstream answers after `SLOW` (`type=bank`), sent just before the crash so
/// that it is surely still running then.
fn slow_call(n: usize, mcp: String, stop: Arc<AtomicBool>) -> Tally {
    let body = json!({"jsonrpc": "2.0", "id": 9_000_000 + n, "method": "tools/call",
        "params": {"name": NOT_PRELOADED,
            "arguments": {"year": 2025, "countryCode": "DE", "type": "bank"}}});
    let mut tally = Tally::default();
    call_until_answered(&agent(), &mcp, &body, &stop, false, &mut tally);
    tally
}

/// Sets the flag when dropped: client threads stop even when the test fails.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// `GET url`: the status and the body.
fn get(url: &str) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let mut resp = agent.get(url).call().expect("GET");
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap_or_default())
}

/// Prometheus' HTTP API: the instant vector of `query`, as (labels, value) pairs.
fn prometheus_query(base: &str, query: &str) -> Vec<(BTreeMap<String, String>, f64)> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let Ok(mut resp) = agent
        .get(format!("{base}/api/v1/query"))
        .query("query", query)
        .call()
    else {
        return Vec::new();
    };
    let body: Value = resp
        .body_mut()
        .read_to_string()
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let mut out = Vec::new();
    for r in body["data"]["result"].as_array().into_iter().flatten() {
        let labels = r["metric"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect();
        let value = r["value"][1]
            .as_str()
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN);
        out.push((labels, value));
    }
    out
}

/// `query`'s values by the `instance` label.
fn by_instance(base: &str, query: &str) -> BTreeMap<String, f64> {
    prometheus_query(base, query)
        .into_iter()
        .filter_map(|(labels, v)| labels.get("instance").map(|i| (i.clone(), v)))
        .collect()
}

/// Polls `check` every 250 ms until it holds or `within` passes; whether it held.
fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Counters over the last five minutes (`max_over_time`), so that the series of the replica that
/// was killed, which Prometheus marks stale once its scrapes fail, still count.
const CALLS_BY_INSTANCE: &str = "sum by (instance) (max_over_time(flowmcp_tool_calls_total[5m]))";

/// Issue #32 item 5: the scale-out example under load, with a replica crashing halfway.
#[test]
fn i32_5_scale_out_survives_a_replica_crash_with_one_upstream_fetch_and_every_replica_scraped() {
    if !tools_installed() {
        return;
    }
    let upstream = Upstream::start();
    let scratch = Scratch::new("scale-out");
    let home = scratch.0.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ports = free_ports(6);
    let replicas: Vec<String> = ports[1..4]
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect();
    let env = [
        ("SCALE_OUT_BALANCER_PORT", ports[0].to_string()),
        (
            "SCALE_OUT_REPLICA_PORTS",
            format!("{} {} {}", ports[1], ports[2], ports[3]),
        ),
        ("SCALE_OUT_REDIS_PORT", ports[4].to_string()),
        ("SCALE_OUT_PROMETHEUS_PORT", ports[5].to_string()),
        ("SCALE_OUT_SCRAPE_INTERVAL", "1s".to_string()),
        ("SCALE_OUT_STOP_TIMEOUT", "15".to_string()),
    ];
    let started = Instant::now();
    let mut deployment = Deployment::start(
        &scratch.0.join("state"),
        &home,
        &env,
        &[
            "--upstream".to_string(),
            format!("holidaykit-net={}", upstream.base),
            // A replica runs as many calls at once as it has worker threads (one per core by
            // default) and queues the rest: enough for the slow calls to run side by side.
            "--threads".to_string(),
            "8".to_string(),
        ],
    );
    let startup = started.elapsed();
    let mcp = deployment.ready["balancer"].clone();
    let prometheus = deployment.ready["prometheus"].clone();
    assert_eq!(
        mcp,
        format!("http://127.0.0.1:{}/mcp", ports[0]),
        "{:?}",
        deployment.ready
    );
    assert_eq!(deployment.ready["replicas"], replicas.join(","));
    // The balancer does not hand out the replicas' metrics (HAProxy connects from loopback).
    let through_balancer = mcp.replace("/mcp", "/metrics");
    let (status, body) = get(&through_balancer);
    assert!(
        status != 200 && !body.contains("flowmcp_"),
        "GET {through_balancer}: {status} {body}"
    );
    let victim = deployment.pids["replica2"];
    assert_eq!(
        deployment.ready["replica-pids"].split(',').nth(1),
        Some(victim.to_string().as_str())
    );

    // Issue #43 (D131): a task created through the balancer is read through other replicas (its
    // record is in the shared Redis); the endpoints have no token, so one principal.
    let task_agent = agent();
    let through = |body: Value| {
        let mut resp = task_agent
            .post(&mcp)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25")
            .send(body.to_string())
            .unwrap();
        let replica = resp
            .headers()
            .get("x-flowmcp-replica")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("?")
            .to_string();
        let text = resp.body_mut().read_to_string().unwrap();
        (replica, message(&text).unwrap_or(Value::Null))
    };
    let (creator, created) = through(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": NOT_PRELOADED, "arguments": {"year": 2026, "countryCode": "DE"},
            "task": {"ttl": 60000}}}));
    let task_id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {created}"))
        .to_string();
    let mut readers = std::collections::BTreeSet::new();
    for n in 0..6 {
        let (replica, got) = through(
            json!({"jsonrpc": "2.0", "id": 2 + n, "method": "tasks/result",
            "params": {"taskId": task_id}}),
        );
        assert_eq!(
            got["result"]["isError"], false,
            "tasks/result through {replica}: {got}"
        );
        readers.insert(replica);
    }
    readers.remove(&creator);
    assert!(
        !readers.is_empty(),
        "the task was read only through its creator {creator}"
    );

    // The load, and the crash halfway.
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
    let killed = Arc::new(AtomicBool::new(false));
    let load_started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|n| {
            let (mcp, killed, stop) = (mcp.clone(), Arc::clone(&killed), Arc::clone(&stop));
            std::thread::spawn(move || client(n, mcp, killed, stop))
        })
        .collect();
    let scraped_before_kill = eventually(Duration::from_secs(30), || {
        load_started.elapsed() >= BEFORE_KILL
            && replicas
                .iter()
                .all(|r| by_instance(&prometheus, CALLS_BY_INSTANCE).contains_key(r))
    });
    assert!(
        scraped_before_kill,
        "Prometheus did not get every replica's call counters within 30 s: {:?}",
        by_instance(&prometheus, CALLS_BY_INSTANCE)
    );
    let slow_calls: Vec<_> = (0..SLOW_CALLS)
        .map(|n| {
            let (mcp, stop) = (mcp.clone(), Arc::clone(&stop));
            std::thread::spawn(move || slow_call(n, mcp, stop))
        })
        .collect();
    let slow_running = eventually(Duration::from_secs(10), || {
        upstream.slow.load(Ordering::SeqCst) >= SLOW_CALLS
    });
    assert!(slow_running, "the slow calls did not reach the upstream");
    signal("KILL", &victim.to_string());
    killed.store(true, Ordering::SeqCst);
    let killed_at = load_started.elapsed();
    std::thread::sleep(AFTER_KILL);
    stop.store(true, Ordering::SeqCst);
    let load = load_started.elapsed();
    let mut tally = Tally::default();
    for c in clients.into_iter().chain(slow_calls) {
        let t = c.join().expect("a client thread");
        tally.ok += t.ok;
        tally.ok_after_kill += t.ok_after_kill;
        tally.lost.extend(t.lost);
        for (k, v) in t.by_replica {
            *tally.by_replica.entry(k).or_default() += v;
        }
        for (k, v) in t.retryable {
            *tally.retryable.entry(k).or_default() += v;
        }
    }
    assert!(!running(victim), "replica2 survived SIGKILL");

    // Prometheus: every replica's counters, each replica up at some point, and the crash seen.
    let killed_addr = &replicas[1];
    let saw_crash = eventually(Duration::from_secs(15), || {
        by_instance(&prometheus, "min_over_time(up[5m])").get(killed_addr) == Some(&0.0)
    });
    let calls = by_instance(&prometheus, CALLS_BY_INSTANCE);
    let up_max = by_instance(&prometheus, "max_over_time(up[5m])");
    let up_min = by_instance(&prometheus, "min_over_time(up[5m])");
    let series = prometheus_query(&prometheus, "max_over_time(flowmcp_tool_calls_total[5m])");

    let seen = upstream.seen();
    let countries = seen.iter().filter(|s| *s == "GET /countries").count();

    // The balancer's log lines of requests not answered 200 (HAProxy's `option httplog`: the
    // status, and the termination state that says which side ended the request and why).
    let haproxy_log =
        std::fs::read_to_string(deployment.dir.join("haproxy.log")).unwrap_or_default();
    let not_200: Vec<&str> = haproxy_log
        .lines()
        .filter(|l| l.contains("\"POST /mcp ") && !l.contains(" 200 "))
        .collect();

    let (exit, left) = deployment.stop(Duration::from_secs(60));
    let retryable: usize = tally.retryable.values().sum();
    eprintln!(
        "\nscale-out report (issue #32 item 5):\n\
         \x20 startup of Redis, 3 replicas, HAProxy, Prometheus: {startup:.1?}\n\
         \x20 load: {CLIENTS} clients for {load:.1?}; replica2 ({killed_addr}, pid {victim}) \
         killed with SIGKILL at {killed_at:.1?}, with {SLOW_CALLS} slow calls running on the \
         replicas\n\
         \x20 calls: {} ok ({} of them started after the crash), answered by {:?}; {} lost{}\n\
         \x20 retryable errors seen by clients (each retried): {retryable} {:?}\n\
         \x20 upstream: {countries} GET /countries, {} requests in all\n\
         \x20 prometheus: calls counted by instance (incl. errors) {calls:?}; \
         flowmcp_tool_calls_total series {}; up max {up_max:?}, up min {up_min:?}; \
         crash seen: {saw_crash}\n\
         \x20 balancer log: {} POST /mcp answered other than 200 (not logged: requests \
         HAProxy ends by closing a kept-alive client connection){}\n\
         \x20 run.sh exit after SIGTERM: {exit:?}; processes left: {left:?}\n",
        tally.ok,
        tally.ok_after_kill,
        tally.by_replica,
        tally.lost.len(),
        if tally.lost.is_empty() {
            String::new()
        } else {
            format!(" {:?}", &tally.lost[..tally.lost.len().min(5)])
        },
        tally.retryable,
        seen.len(),
        series.len(),
        not_200.len(),
        if not_200.is_empty() {
            String::new()
        } else {
            format!(":\n    {}", not_200[..not_200.len().min(8)].join("\n    "))
        },
    );

    assert!(tally.lost.is_empty(), "calls lost: {:?}", tally.lost);
    assert!(tally.ok_after_kill > 0, "no call succeeded after the crash");
    assert!(
        retryable > 0,
        "no client saw the crash: no call was running on the replica that crashed"
    );
    assert_eq!(
        countries, 1,
        "the preloaded country list must be fetched once across all replicas: {seen:?}"
    );
    for r in &replicas {
        assert!(
            calls.get(r).is_some_and(|v| *v > 0.0),
            "no flowmcp_tool_calls_total of {r} in Prometheus: {calls:?}"
        );
        assert_eq!(
            up_max.get(r),
            Some(&1.0),
            "Prometheus never scraped {r}: {up_max:?}"
        );
    }
    for name in ["replica1", "replica2", "replica3"] {
        assert!(
            tally.by_replica.get(name).is_some_and(|n| *n > 0),
            "{name} answered no call: {:?}",
            tally.by_replica
        );
    }
    assert!(
        saw_crash,
        "Prometheus did not record the crashed replica as down: {up_min:?}"
    );
    assert_eq!(exit, Some(0), "run.sh did not stop cleanly on SIGTERM");
    assert!(left.is_empty(), "processes left behind: {left:?}");
}
