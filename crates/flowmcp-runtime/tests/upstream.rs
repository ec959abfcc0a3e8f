//! Issue #44 item 3: how calls treat a busy or failing upstream (D136: E001 with the status, the
//! body's start and `Retry-After`; read-only requests tried again within the deadline) and the
//! per-namespace limits (D137: a rate, shared through Redis, and a concurrency cap).

use crate::calls;
use crate::support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use calls::{load, opts, runner, transport};
use flowmcp_runtime::cache::{PreloadCache, RedisCache};
use flowmcp_runtime::transport::CancelScope;
use flowmcp_runtime::{Envelope, RunnerOptions, UpstreamLimits};
use flowmcp_spec::Profile;
use serde_json::{Map, json};
use std::collections::BTreeMap;
use support::{RedisServer, Scratch, Seen, TestServer, header, reply};

const SECRET: &str = "KEY-44-do-not-show";

const SCHEMA: &str = r#"
export const main = {
    namespace: 'up', name: 'Up', description: 'Upstream behaviour', version: '4.2.0',
    root: 'https://api.example.com',
    requiredServerParams: [ 'API_KEY' ],
    tools: {
        read: {
            method: 'GET', path: '/read', description: 'A read',
            parameters: [
                { position: { key: 'key', value: '{{SERVER_PARAM:API_KEY}}', location: 'query' }, z: { primitive: 'string()', options: [] } }
            ]
        },
        write: {
            method: 'POST', path: '/write', description: 'A write',
            parameters: []
        }
    }
}
"#;

fn set() -> (Scratch, flowmcp_runtime::Toolset) {
    let dir = Scratch::new("upstream");
    dir.write("up.mjs", SCHEMA);
    let env = BTreeMap::from([("API_KEY".to_string(), SECRET.to_string())]);
    let set = load(&dir.0, Profile::Spec, env);
    (dir, set)
}

fn options(base: &str, timeout: Duration) -> RunnerOptions {
    let mut o = opts(&[("up", base)]);
    o.timeout = timeout;
    o
}

fn message(e: &Envelope) -> String {
    e.messages().first().cloned().unwrap_or_default()
}

fn ok(body: &str) -> support::Reply {
    reply(200, Some("application/json"), body)
}

fn with_retry_after(mut r: support::Reply, value: &str) -> support::Reply {
    r.add_header(header("Retry-After", value));
    r
}

/// A 429 with `Retry-After: 1` and then a 200: the GET succeeds on its second attempt, after the
/// second the upstream asked for.
#[test]
fn i44_a_get_answered_429_with_retry_after_succeeds_after_the_wait() {
    let n = Arc::new(AtomicUsize::new(0));
    let seen = n.clone();
    let server = TestServer::start(2, move |_: &Seen| {
        if seen.fetch_add(1, Ordering::SeqCst) == 0 {
            with_retry_after(reply(429, Some("text/plain"), "slow down"), "1")
        } else {
            ok(r#"{"n":2}"#)
        }
    });
    let (_dir, set) = set();
    let t = transport();
    let (r, _) = runner(&set, &t, options(&server.base, Duration::from_secs(5)));
    let start = Instant::now();
    let e = r.call_json("read_up", &Map::new());
    assert_eq!(*e.data(), json!({"n": 2}), "{e:?}");
    assert!(
        start.elapsed() >= Duration::from_millis(950),
        "waited as asked"
    );
    drop(r);
    assert_eq!(server.finish().len(), 2);
}

/// 429 every time: after three attempts the message carries the status, `Retry-After` and the
/// body's start with the key the upstream echoed hidden; 503, 503, 200 succeeds.
#[test]
fn i44_when_attempts_run_out_the_message_has_status_retry_after_and_redacted_body() {
    let server = TestServer::start(4, |_: &Seen| {
        with_retry_after(
            reply(
                429,
                Some("application/json"),
                format!("{{\"error\":\"quota of key {SECRET} used up\",\n\"plan\":\"free\"}}"),
            ),
            "0",
        )
    });
    let (_dir, set) = set();
    let t = transport();
    let (r, logs) = runner(&set, &t, options(&server.base, Duration::from_secs(5)));
    let e = r.call_json("read_up", &Map::new());
    assert_eq!(
        message(&e),
        r#"E001 read: API returned 429 (retry after 0 s): {"error":"quota of key [redacted] used up", "plan":"free"}"#
    );
    let text = format!("{e:?} {:?}", logs.borrow());
    assert!(!text.contains(SECRET), "{text}");
    drop(r);
    assert_eq!(server.finish().len(), 3, "three attempts by default");

    // 503 twice, then an answer.
    let n = Arc::new(AtomicUsize::new(0));
    let seen = n.clone();
    let server = TestServer::start(3, move |_: &Seen| {
        if seen.fetch_add(1, Ordering::SeqCst) < 2 {
            reply(503, Some("text/plain"), "maintenance")
        } else {
            ok(r#"{"back":true}"#)
        }
    });
    let statuses = Arc::new(Statuses::default());
    let mut o = options(&server.base, Duration::from_secs(5));
    o.observer = Some(statuses.clone());
    let (r, _) = runner(&set, &t, o);
    let e = r.call_json("read_up", &Map::new());
    assert_eq!(*e.data(), json!({"back": true}), "{e:?}");
    drop(r);
    assert_eq!(server.finish().len(), 3);
    // The observer (a server's metrics) is told of every attempt.
    assert_eq!(
        *statuses.0.lock().unwrap(),
        vec![Some(503), Some(503), Some(200)]
    );

    // One attempt only: the 503 is the answer.
    let server = TestServer::start(2, |_: &Seen| reply(503, None, ""));
    let mut o = options(&server.base, Duration::from_secs(5));
    o.max_attempts = 1;
    let (r, _) = runner(&set, &t, o);
    assert_eq!(
        message(&r.call_json("read_up", &Map::new())),
        "E001 read: API returned 503"
    );
    drop(r);
    assert_eq!(server.finish().len(), 1);
}

/// Records the statuses an observer is told of.
#[derive(Default)]
struct Statuses(std::sync::Mutex<Vec<Option<u16>>>);

impl flowmcp_runtime::transport::Observer for Statuses {
    fn upstream(&self, status: Option<u16>, _elapsed: Duration) {
        self.0.lock().unwrap().push(status);
    }
}

/// A POST answered 503 is sent exactly once.
#[test]
fn i44_a_post_answered_503_is_sent_once() {
    let server = TestServer::start(3, |_: &Seen| reply(503, Some("text/plain"), "busy"));
    let (_dir, set) = set();
    let t = transport();
    let (r, _) = runner(&set, &t, options(&server.base, Duration::from_secs(5)));
    let e = r.call_json("write_up", &Map::new());
    assert_eq!(message(&e), "E001 write: API returned 503: busy");
    drop(r);
    let seen = server.finish();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].method, "POST");
}

/// A `Retry-After` longer than the call has left is not waited for: the 429 is the answer at once.
#[test]
fn i44_a_retry_after_beyond_the_deadline_is_not_waited_for() {
    let server = TestServer::start(2, |_: &Seen| {
        with_retry_after(reply(429, None, ""), "Wed, 01 Jan 2120 00:00:00 GMT")
    });
    let (_dir, set) = set();
    let t = transport();
    let (r, _) = runner(&set, &t, options(&server.base, Duration::from_secs(2)));
    let start = Instant::now();
    let e = r.call_json("read_up", &Map::new());
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert!(
        message(&e).starts_with("E001 read: API returned 429 (retry after "),
        "{e:?}"
    );
    drop(r);
    assert_eq!(server.finish().len(), 1);
}

/// A raw HTTP server on 127.0.0.1: `serve(i, stream)` for the `i`-th connection, each on its own
/// thread; returns the base URL and the threads' handle.
fn raw_server<F>(connections: usize, serve: F) -> (String, std::thread::JoinHandle<()>)
where
    F: Fn(usize, TcpStream) + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let serve = Arc::new(serve);
    let handle = std::thread::spawn(move || {
        let mut threads = Vec::new();
        for i in 0..connections {
            let Ok((stream, _)) = listener.accept() else {
                break;
            };
            let serve = serve.clone();
            threads.push(std::thread::spawn(move || serve(i, stream)));
        }
        for t in threads {
            let _ = t.join();
        }
    });
    (base, handle)
}

/// Reads a request's head (up to the blank line).
fn read_head(stream: &mut TcpStream) {
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => got.push(byte[0]),
            _ => return,
        }
    }
}

const ANSWER: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}";

/// A connection closed without an answer is a network failure, and a GET is tried again.
#[test]
fn i44_a_connection_closed_without_an_answer_is_tried_again() {
    let (base, handle) = raw_server(2, |i, mut stream| {
        read_head(&mut stream);
        if i == 1 {
            let _ = stream.write_all(ANSWER);
        }
        // The first connection is dropped unanswered.
    });
    let (_dir, set) = set();
    let t = transport();
    let (r, _) = runner(&set, &t, options(&base, Duration::from_secs(5)));
    let e = r.call_json("read_up", &Map::new());
    assert_eq!(*e.data(), json!({"ok": true}), "{e:?}");
    drop(r);
    handle.join().expect("server");
}

/// A body that trickles in slower than the call's time limit fails with E003 within it (a
/// time-out is not tried again).
#[test]
fn i44_a_slow_body_fails_with_e003_within_the_deadline() {
    let (base, handle) = raw_server(1, |_, mut stream| {
        read_head(&mut stream);
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[",
        );
        for _ in 0..30 {
            std::thread::sleep(Duration::from_millis(100));
            if stream.write_all(b"1,").is_err() {
                return;
            }
        }
    });
    let (_dir, set) = set();
    let t = transport();
    let (r, _) = runner(&set, &t, options(&base, Duration::from_secs(1)));
    let start = Instant::now();
    let e = r.call_json("read_up", &Map::new());
    let took = start.elapsed();
    assert!(message(&e).starts_with("E003 read:"), "{e:?}");
    assert!(took < Duration::from_millis(1800), "{took:?}");
    drop(r);
    handle.join().expect("server");
}

/// A cancel ends a call that waits before its next attempt.
#[test]
fn i44_a_cancel_ends_the_wait_before_a_retry() {
    let server = TestServer::start(1, |_: &Seen| with_retry_after(reply(503, None, ""), "3"));
    let (_dir, set) = set();
    let t = transport();
    let (r, _) = runner(&set, &t, options(&server.base, Duration::from_secs(10)));
    let scope = CancelScope::new();
    let canceller = scope.clone();
    let timer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let start = Instant::now();
    let e = scope.enter(|| r.call_json("read_up", &Map::new()));
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(
        message(&e).starts_with("E001 read: API returned 503"),
        "{e:?}"
    );
    timer.join().expect("timer");
    drop(r);
    assert_eq!(server.finish().len(), 1);
}

/// A concurrency cap of 2: six calls on six threads, never more than two at the upstream at once.
#[test]
fn i44_the_concurrency_cap_holds_at_the_upstream() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (now, max) = (in_flight.clone(), most.clone());
    let (base, handle) = raw_server(6, move |_, mut stream| {
        read_head(&mut stream);
        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
        max.fetch_max(n, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(150));
        now.fetch_sub(1, Ordering::SeqCst);
        let _ = stream.write_all(ANSWER);
    });
    let (_dir, set) = set();
    let t = transport();
    let mut o = options(&base, Duration::from_secs(10));
    let mut limits = UpstreamLimits::default();
    limits.set_concurrency("up", std::num::NonZeroU32::new(2).expect("not 0"));
    o.limits = limits;
    std::thread::scope(|s| {
        for _ in 0..6 {
            let o = o.clone();
            let (set, t) = (&set, &t);
            s.spawn(move || {
                let (r, _) = runner(set, t, o);
                let e = r.call_json("read_up", &Map::new());
                assert_eq!(*e.data(), json!({"ok": true}), "{e:?}");
            });
        }
    });
    handle.join().expect("server");
    assert_eq!(most.load(Ordering::SeqCst), 2);

    // A call that cannot get a place before its deadline fails with E003, saying why.
    let (base, handle) = raw_server(1, |_, mut stream| {
        read_head(&mut stream);
        std::thread::sleep(Duration::from_millis(800));
        let _ = stream.write_all(ANSWER);
    });
    let mut o = options(&base, Duration::from_millis(300));
    let mut limits = UpstreamLimits::default();
    limits.set_concurrency("up", std::num::NonZeroU32::MIN);
    o.limits = limits;
    let mut slow = o.clone();
    slow.timeout = Duration::from_secs(5);
    std::thread::scope(|s| {
        let (set, t) = (&set, &t);
        s.spawn(move || {
            let (r, _) = runner(set, t, slow);
            assert_eq!(
                *r.call_json("read_up", &Map::new()).data(),
                json!({"ok": true})
            );
        });
        std::thread::sleep(Duration::from_millis(150));
        let (r, _) = runner(set, t, o);
        let e = r.call_json("read_up", &Map::new());
        assert_eq!(
            message(&e),
            "E003 read: the call did not finish within 300 ms: all 1 requests of namespace up \
             allowed at once stayed busy in time"
        );
    });
    handle.join().expect("server");
}

/// Two runners with limits of their own (two replicas) share the rate through the Redis of the
/// preload cache: 2 per hour, two calls through one, and the third, through the other, is
/// refused; without Redis the other would have counted alone.
#[test]
fn i44_the_rate_limit_is_shared_through_redis() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = TestServer::start(4, |_: &Seen| ok("{}"));
    let (_dir, set) = set();
    let t = transport();
    let replica = || {
        let mut o = options(&server.base, Duration::from_secs(1));
        let mut limits = UpstreamLimits::default();
        limits.set_rate("up", "2/h").expect("a valid rate");
        o.limits = limits;
        o.cache = Some(PreloadCache::Redis(
            RedisCache::open(&redis.url()).expect("a Redis URL"),
        ));
        o
    };
    let (a, _) = runner(&set, &t, replica());
    let (b, _) = runner(&set, &t, replica());
    for _ in 0..2 {
        let e = a.call_json("read_up", &Map::new());
        assert_eq!(*e.data(), json!({}), "{e:?}");
    }
    let e = b.call_json("read_up", &Map::new());
    assert_eq!(
        message(&e),
        "E003 read: the call did not finish within 1000 ms: the rate limit of namespace up \
         (2/h) allowed no request in time"
    );
    let keys = redis.keys("flowmcp:rate:v1:up:3600000:*");
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_eq!(redis.cli(&["GET", &keys[0]]).trim(), "3");
    // A replica without Redis counts alone.
    let mut alone = replica();
    alone.cache = None;
    let (c, _) = runner(&set, &t, alone);
    assert_eq!(*c.call_json("read_up", &Map::new()).data(), json!({}));
    drop((a, b, c));
    assert_eq!(server.finish().len(), 3);
}
