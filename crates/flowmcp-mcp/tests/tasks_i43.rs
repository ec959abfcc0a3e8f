//! Issue #43, items 5 and 6: MCP Tasks in the 2025-11-25 shape (task-augmented `tools/call`,
//! `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`) over HTTP and stdio, against a
//! local upstream that answers slowly (D131).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use flowmcp_catalog::serde_json::{Value, json};
use flowmcp_catalog::{Catalog, Profile};
use flowmcp_mcp::{Endpoints, HttpOptions, McpServer, ServeOptions};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::common;
use crate::runtime_support::{Scratch, copy_dir};
use crate::support as web;

const TOOL: &str = "getPublicHolidays_holidaykit-net";
const HOLIDAY: &str = r#"[{"date": "2026-10-26", "name": "National Day", "type": "public"}]"#;
/// How long the slow upstream takes to answer.
const DELAY: Duration = Duration::from_millis(1000);

/// A local upstream that answers every request after [`DELAY`] (each on a thread of its own),
/// for up to `within`; gives its base URL and how many requests it got.
fn slow_upstream(within: Duration) -> (String, Arc<AtomicUsize>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&seen);
    std::thread::spawn(move || {
        let end = Instant::now() + within;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            let Ok(Some(request)) = server.recv_timeout(left) else {
                break;
            };
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                std::thread::sleep(DELAY);
                let header =
                    tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
                let _ =
                    request.respond(tiny_http::Response::from_string(HOLIDAY).with_header(header));
            });
        }
    });
    (format!("http://127.0.0.1:{port}"), seen)
}

fn serve_http(catalog: Catalog) -> web::Running {
    let server = McpServer::new(catalog, &ServeOptions::default()).unwrap();
    web::start(Endpoints::single(server), HttpOptions::default()).unwrap()
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// POSTs `message` to the server's `/mcp` (after the version header) and gives the JSON answer.
fn post(server: &web::Running, message: &Value) -> Value {
    let url = format!("{}/mcp", server.base);
    let answer = web::post(&url, &[("MCP-Protocol-Version", "2025-11-25")], message);
    assert_eq!(answer.status, 200, "{}", answer.body);
    flowmcp_catalog::serde_json::from_str(&answer.body).unwrap()
}

fn call_params(task: Option<Value>) -> Value {
    let mut p = json!({"name": TOOL, "arguments": {"year": 2026, "countryCode": "AT"}});
    if let Some(t) = task {
        p["task"] = t;
    }
    p
}

#[test]
fn i43_a_task_call_answers_at_once_and_its_result_equals_the_plain_call() {
    let (upstream, seen) = slow_upstream(Duration::from_secs(20));
    let server = serve_http(common::examples_at(&upstream));
    let url = format!("{}/mcp", server.base);
    // `initialize` advertises tasks; `tools/list` says each tool's support.
    let init = web::post(&url, &[], &web::initialize());
    let init: Value = flowmcp_catalog::serde_json::from_str(&init.body).unwrap();
    assert_eq!(
        init["result"]["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let list = post(&server, &rpc(2, "tools/list", json!({})));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    for t in tools {
        assert_eq!(t["execution"]["taskSupport"], "optional", "{t}");
    }

    let plain = post(&server, &rpc(3, "tools/call", call_params(None)));
    assert_eq!(plain["result"]["isError"], false, "{plain}");

    let started = Instant::now();
    let created = post(
        &server,
        &rpc(4, "tools/call", call_params(Some(json!({"ttl": 60000})))),
    );
    assert!(
        started.elapsed() < DELAY / 2,
        "answered at once: {:?}",
        started.elapsed()
    );
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 60000);
    assert!(task["pollInterval"].as_u64().unwrap() > 0);
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));
    let id = task["taskId"].as_str().unwrap().to_string();

    let got = post(&server, &rpc(5, "tasks/get", json!({"taskId": id})));
    assert_eq!(got["result"]["status"], "working", "{got}");
    assert_eq!(got["result"]["taskId"], id.as_str());

    // `tasks/result` waits until the call ends; its result is the plain call's.
    let result = post(&server, &rpc(6, "tasks/result", json!({"taskId": id})));
    let mut result = result["result"].clone();
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    result.as_object_mut().unwrap().remove("_meta");
    assert_eq!(result, plain["result"]);

    let got = post(&server, &rpc(7, "tasks/get", json!({"taskId": id})));
    assert_eq!(got["result"]["status"], "completed", "{got}");
    let listed = post(&server, &rpc(8, "tasks/list", json!({})));
    let ids: Vec<&str> = listed["result"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["taskId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [id.as_str()]);
    assert_eq!(
        seen.load(Ordering::SeqCst),
        2,
        "one upstream request per call"
    );

    // A ttl above the server's maximum is cut to it; an unknown id is an error.
    let long = post(
        &server,
        &rpc(
            9,
            "tools/call",
            call_params(Some(json!({"ttl": 999_999_999_u64}))),
        ),
    );
    assert_eq!(long["result"]["task"]["ttl"], 3_600_000);
    let unknown = post(&server, &rpc(10, "tasks/get", json!({"taskId": "nope"})));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[test]
fn i43_a_cancelled_task_stays_cancelled_and_has_no_result() {
    let (upstream, _seen) = slow_upstream(Duration::from_secs(20));
    let mut opts = HttpOptions::default();
    opts.metrics = Some(flowmcp_mcp::http::Metrics::new());
    let server = web::start(
        Endpoints::single(
            McpServer::new(common::examples_at(&upstream), &ServeOptions::default()).unwrap(),
        ),
        opts,
    )
    .unwrap();
    let created = post(&server, &rpc(1, "tools/call", call_params(Some(json!({})))));
    let task = &created["result"]["task"];
    assert_eq!(task["ttl"], 600_000, "the default ttl");
    let id = task["taskId"].as_str().unwrap();
    let cancelled = post(&server, &rpc(2, "tasks/cancel", json!({"taskId": id})));
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["result"]["taskId"], id);
    // The call's end does not revive it.
    std::thread::sleep(DELAY + Duration::from_millis(300));
    let got = post(&server, &rpc(3, "tasks/get", json!({"taskId": id})));
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    let result = post(&server, &rpc(4, "tasks/result", json!({"taskId": id})));
    assert_eq!(result["error"]["code"], -32603, "{result}");
    let again = post(&server, &rpc(5, "tasks/cancel", json!({"taskId": id})));
    assert_eq!(again["error"]["code"], -32602, "{again}");
    // A second task completes; `/metrics` counts both.
    let created = post(&server, &rpc(6, "tools/call", call_params(Some(json!({})))));
    let id = created["result"]["task"]["taskId"].as_str().unwrap();
    let done = post(&server, &rpc(7, "tasks/result", json!({"taskId": id})));
    assert_eq!(done["result"]["isError"], false, "{done}");
    let metrics = web::get(&format!("{}/metrics", server.base)).body;
    for line in [
        "flowmcp_tasks_total{event=\"created\"} 2",
        "flowmcp_tasks_total{event=\"cancelled\"} 1",
        "flowmcp_tasks_total{event=\"completed\"} 1",
        "flowmcp_tasks_total{event=\"failed\"} 0",
        "flowmcp_tasks_total{event=\"expired\"} 0",
    ] {
        assert!(metrics.contains(line), "{line} in\n{metrics}");
    }
}

#[test]
fn i43_a_tool_whose_async_field_requires_a_task_refuses_a_plain_call() {
    let dir = Scratch::new("i43-tasks");
    copy_dir(&common::examples(), &dir.0);
    let file = dir.0.join("providers/holidaykit-net/public-holidays.mjs");
    let text = std::fs::read_to_string(&file).unwrap();
    let text = text.replacen(
        "        getPublicHolidays: {\n",
        "        getPublicHolidays: {\n            async: { taskSupport: 'required' },\n",
        1,
    );
    std::fs::write(&file, text).unwrap();
    let (upstream, seen) = slow_upstream(Duration::from_secs(10));
    let o = common::local_options(Profile::Spec, &[("holidaykit-net", &upstream)]);
    let server = serve_http(Catalog::open(&dir.0, &o).unwrap());
    let list = post(&server, &rpc(1, "tools/list", json!({})));
    let support = |name: &str| {
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["execution"]["taskSupport"].clone())
            .unwrap()
    };
    assert_eq!(support(TOOL), "required");
    assert_eq!(support("getNextHolidays_holidaykit-net"), "optional");
    let plain = post(&server, &rpc(2, "tools/call", call_params(None)));
    assert_eq!(plain["error"]["code"], -32601, "{plain}");
    assert!(
        plain["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requires task augmentation"),
        "{plain}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 0, "nothing was called");
    let created = post(&server, &rpc(3, "tools/call", call_params(Some(json!({})))));
    let id = created["result"]["task"]["taskId"].as_str().unwrap();
    let result = post(&server, &rpc(4, "tasks/result", json!({"taskId": id})));
    assert_eq!(result["result"]["isError"], false, "{result}");
}

/// One stdio session over a pipe: writes each line and reads the answer to each request.
struct Session {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Session {
    async fn open(server: &McpServer) -> Session {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        tokio::spawn(server.clone().serve_io(theirs));
        let (read, write) = tokio::io::split(ours);
        let mut s = Session {
            write,
            lines: BufReader::new(read).lines(),
        };
        let init = s
            .ask(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
            )
            .await;
        assert!(init["result"]["capabilities"]["tasks"]["list"].is_object());
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        s
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    async fn ask(&mut self, message: Value) -> Value {
        let id = message["id"].clone();
        self.send(message).await;
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            let got: Value = flowmcp_catalog::serde_json::from_str(&line).unwrap();
            if got["id"] == id {
                return got;
            }
        }
    }
}

#[test]
fn i43_tasks_over_stdio_are_the_sessions_own() {
    let (upstream, _seen) = slow_upstream(Duration::from_secs(20));
    let server = McpServer::new(common::examples_at(&upstream), &ServeOptions::default()).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut a = Session::open(&server).await;
        let mut b = Session::open(&server).await;
        let list = a.ask(rpc(1, "tools/list", json!({}))).await;
        assert_eq!(
            list["result"]["tools"][0]["execution"]["taskSupport"],
            "optional"
        );
        let plain = a.ask(rpc(2, "tools/call", call_params(None))).await;
        let started = Instant::now();
        let created = a
            .ask(rpc(
                3,
                "tools/call",
                call_params(Some(json!({"ttl": 5000}))),
            ))
            .await;
        assert!(started.elapsed() < DELAY / 2);
        let id = created["result"]["task"]["taskId"]
            .as_str()
            .unwrap()
            .to_string();
        // Another session (another principal) cannot see it: the unknown task's answer.
        let other = b.ask(rpc(4, "tasks/get", json!({"taskId": id}))).await;
        assert_eq!(other["error"]["code"], -32602, "{other}");
        let other = b.ask(rpc(5, "tasks/list", json!({}))).await;
        assert_eq!(other["result"]["tasks"], json!([]));
        let other = b.ask(rpc(6, "tasks/cancel", json!({"taskId": id}))).await;
        assert_eq!(other["error"]["code"], -32602, "{other}");
        let mut result = a.ask(rpc(7, "tasks/result", json!({"taskId": id}))).await;
        result["result"].as_object_mut().unwrap().remove("_meta");
        assert_eq!(result["result"], plain["result"]);
        let listed = a.ask(rpc(8, "tasks/list", json!({}))).await;
        assert_eq!(listed["result"]["tasks"][0]["status"], "completed");
    });
}

/// A local upstream that takes one request and never answers it: gives its base URL and a
/// channel that says how long after the request arrived the client closed the connection
/// (`None`: still open after 5 s).
fn silent_upstream() -> (String, std::sync::mpsc::Receiver<Option<Duration>>) {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = listener.accept() else {
            return;
        };
        let arrived = Instant::now();
        s.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut buf = [0u8; 4096];
        let closed = loop {
            if arrived.elapsed() > Duration::from_secs(5) {
                break None;
            }
            match s.read(&mut buf) {
                Ok(0) => break Some(arrived.elapsed()),
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break Some(arrived.elapsed()),
            }
        };
        let _ = tx.send(closed);
    });
    (format!("http://127.0.0.1:{port}"), rx)
}

#[test]
fn i43_cancelling_a_task_closes_its_upstream_connection() {
    let (upstream, closed) = silent_upstream();
    let server = serve_http(common::examples_at(&upstream));
    let created = post(&server, &rpc(1, "tools/call", call_params(Some(json!({})))));
    let id = created["result"]["task"]["taskId"].as_str().unwrap();
    // The request reaches the upstream, which holds it.
    std::thread::sleep(Duration::from_millis(500));
    let cancelled = post(&server, &rpc(2, "tasks/cancel", json!({"taskId": id})));
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let seen = closed.recv_timeout(Duration::from_secs(10)).unwrap();
    let after = seen.expect("the upstream saw its connection close");
    assert!(after < Duration::from_secs(3), "closed after {after:?}");
    // The worker is free again: a plain call answers (with the upstream gone, an error).
    let plain = post(&server, &rpc(3, "tools/call", call_params(None)));
    assert_eq!(plain["result"]["isError"], true, "{plain}");
}

/// The example catalog sent to `upstream`, with its preload cache in the Redis at `url`.
fn examples_sharing(upstream: &str, url: &str) -> Catalog {
    let mut o = common::local_options(Profile::Spec, &[("holidaykit-net", upstream)]);
    o.runner.cache = Some(
        flowmcp_catalog::runtime::RedisCache::open(url)
            .unwrap()
            .into(),
    );
    Catalog::open(&common::examples(), &o).unwrap()
}

fn serve_with_token(catalog: Catalog, token: &str) -> web::Running {
    let server = McpServer::new(catalog, &ServeOptions::default()).unwrap();
    let mut opts = HttpOptions::default();
    opts.auth_token = Some(token.to_string());
    web::start(Endpoints::single(server), opts).unwrap()
}

fn post_as(server: &web::Running, token: &str, message: &Value) -> Value {
    let url = format!("{}/mcp", server.base);
    let auth = web::bearer(token);
    let answer = web::post(
        &url,
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            (auth.0, auth.1.as_str()),
        ],
        message,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    flowmcp_catalog::serde_json::from_str(&answer.body).unwrap()
}

#[test]
fn i43_with_the_cache_in_redis_a_task_is_read_through_another_replica_by_its_owner_only() {
    let Some(redis) = crate::runtime_support::RedisServer::start() else {
        return;
    };
    let (upstream, _seen) = slow_upstream(Duration::from_secs(30));
    let url = redis.url();
    let a = serve_with_token(examples_sharing(&upstream, &url), "token-a");
    let b = serve_with_token(examples_sharing(&upstream, &url), "token-a");
    let other = serve_with_token(examples_sharing(&upstream, &url), "token-b");
    let created = post_as(
        &a,
        "token-a",
        &rpc(1, "tools/call", call_params(Some(json!({"ttl": 60000})))),
    );
    let id = created["result"]["task"]["taskId"].as_str().unwrap();
    // Another replica, the same token: the task, then its result.
    let got = post_as(&b, "token-a", &rpc(2, "tasks/get", json!({"taskId": id})));
    assert_eq!(got["result"]["status"], "working", "{got}");
    let result = post_as(
        &b,
        "token-a",
        &rpc(3, "tasks/result", json!({"taskId": id})),
    );
    assert_eq!(result["result"]["isError"], false, "{result}");
    let listed = post_as(&b, "token-a", &rpc(4, "tasks/list", json!({})));
    assert_eq!(listed["result"]["tasks"][0]["taskId"], id);
    assert_eq!(listed["result"]["tasks"][0]["status"], "completed");
    // Another token: as unknown.
    for (n, method) in ["tasks/get", "tasks/result", "tasks/cancel"]
        .iter()
        .enumerate()
    {
        let refused = post_as(
            &other,
            "token-b",
            &rpc(5 + n as u64, method, json!({"taskId": id})),
        );
        assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
    }
    let none = post_as(&other, "token-b", &rpc(9, "tasks/list", json!({})));
    assert_eq!(none["result"]["tasks"], json!([]));
    // No secret in the stored record.
    let keys = redis.keys("flowmcp:task*");
    assert!(keys.len() >= 2, "{keys:?}");
    for k in keys {
        assert!(!k.contains("token-a"), "{k}");
    }
    let record = redis.cli(&["GET", &format!("flowmcp:task:v1:{id}")]);
    assert!(!record.contains("token-a"), "{record}");
    assert!(record.contains("\"status\":\"completed\""), "{record}");
    // A cancel through one replica stops the call running on another.
    let created = post_as(
        &a,
        "token-a",
        &rpc(10, "tools/call", call_params(Some(json!({})))),
    );
    let id = created["result"]["task"]["taskId"].as_str().unwrap();
    let cancelled = post_as(
        &b,
        "token-a",
        &rpc(11, "tasks/cancel", json!({"taskId": id})),
    );
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    std::thread::sleep(DELAY + Duration::from_millis(500));
    let got = post_as(&a, "token-a", &rpc(12, "tasks/get", json!({"taskId": id})));
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    // D135: a log level asked for through one replica holds on the other for the same
    // principal, and not for another token.
    let set = post_as(
        &a,
        "token-a",
        &rpc(13, "logging/setLevel", json!({"level": "info"})),
    );
    assert_eq!(set["result"], json!({}), "{set}");
    let plain_call = |server: &web::Running, token: &str| {
        let auth = web::bearer(token);
        web::post(
            &format!("{}/mcp", server.base),
            &[
                ("MCP-Protocol-Version", "2025-11-25"),
                (auth.0, auth.1.as_str()),
            ],
            &rpc(14, "tools/call", call_params(None)),
        )
    };
    let heard = plain_call(&b, "token-a");
    assert!(
        heard.body.contains("notifications/message"),
        "{}",
        heard.body
    );
    let unheard = plain_call(&other, "token-b");
    assert!(
        !unheard.body.contains("notifications/message"),
        "{}",
        unheard.body
    );
    assert!(
        redis.keys("flowmcp:loglevel:v1:*").len() == 1,
        "{:?}",
        redis.keys("flowmcp:*")
    );
}

/// D132: a client of the SEP-2663 tasks extension (protocol 2026-07-28, its capabilities in each
/// request's `_meta`) calling a tool whose `async` says `optional` gets `resultType: "task"`;
/// `tasks/get` carries the result inline, `tasks/cancel` and `tasks/update` are acknowledged. The
/// same call from a client without the extension is answered plainly.
#[test]
fn i43_a_tasks_extension_client_gets_the_sep2663_shape() {
    let dir = Scratch::new("i43-sep2663");
    copy_dir(&common::examples(), &dir.0);
    let file = dir.0.join("providers/holidaykit-net/public-holidays.mjs");
    let text = std::fs::read_to_string(&file).unwrap();
    let text = text.replacen(
        "        getPublicHolidays: {\n",
        "        getPublicHolidays: {\n            async: 'optional',\n",
        1,
    );
    std::fs::write(&file, text).unwrap();
    let (upstream, seen) = slow_upstream(Duration::from_secs(20));
    let o = common::local_options(Profile::Spec, &[("holidaykit-net", &upstream)]);
    let server = serve_http(Catalog::open(&dir.0, &o).unwrap());
    let url = format!("{}/mcp", server.base);
    let modern = |message: &Value| -> Value {
        // Protocol 2026-07-28 sends the method (and a tool's name) as headers too (SEP-2243).
        let method = message["method"].as_str().unwrap();
        let mut headers = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        if let Some(name) = message["params"]["name"].as_str() {
            headers.push(("Mcp-Name", name));
        }
        let answer = web::post(&url, &headers, message);
        assert_eq!(answer.status, 200, "{}", answer.body);
        flowmcp_catalog::serde_json::from_str(&answer.body).unwrap()
    };
    let caps = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    });
    let init = web::post(&url, &[], &web::initialize());
    let init: Value = flowmcp_catalog::serde_json::from_str(&init.body).unwrap();
    assert!(
        init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object(),
        "{init}"
    );
    let mut params = call_params(None);
    params["_meta"] = caps.clone();
    let created = modern(&rpc(1, "tools/call", params.clone()));
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "working", "{created}");
    assert!(
        task["ttlMs"].is_u64() && task["pollIntervalMs"].is_u64(),
        "{created}"
    );
    let id = task["taskId"].as_str().unwrap().to_string();
    let mut got = Value::Null;
    for _ in 0..100 {
        got = modern(&rpc(2, "tasks/get", json!({"taskId": id, "_meta": caps})));
        if got["result"]["status"] != "working" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(got["result"]["status"], "completed", "{got}");
    assert_eq!(got["result"]["result"]["isError"], false, "{got}");
    assert!(got["result"]["result"]["content"].is_array(), "{got}");
    // Nothing is outstanding: an empty update is acknowledged, an answer refused.
    let update = modern(&rpc(
        3,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {}, "_meta": caps}),
    ));
    assert_eq!(update["result"]["resultType"], "complete", "{update}");
    let refused = modern(&rpc(
        4,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"x": {}}, "_meta": caps}),
    ));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // A cancel is acknowledged and the task ends cancelled.
    let created = modern(&rpc(5, "tools/call", params));
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let cancelled = modern(&rpc(
        6,
        "tasks/cancel",
        json!({"taskId": id, "_meta": caps}),
    ));
    assert_eq!(cancelled["result"]["resultType"], "complete", "{cancelled}");
    assert!(cancelled["result"].get("status").is_none(), "{cancelled}");
    let got = modern(&rpc(7, "tasks/get", json!({"taskId": id, "_meta": caps})));
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    // Without the extension the same call is answered plainly.
    let plain = post(&server, &rpc(8, "tools/call", call_params(None)));
    assert_eq!(plain["result"]["isError"], false, "{plain}");
    assert!(plain["result"].get("taskId").is_none(), "{plain}");
    assert!(seen.load(Ordering::SeqCst) >= 2);
}
