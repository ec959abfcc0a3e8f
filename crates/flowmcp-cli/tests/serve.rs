//! `flowmcp serve` over stdio, driven by the official Rust SDK's client (rmcp), against the example
//! catalog and a local upstream.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use common::repo_root;
use common::support::{Scratch, Seen, TestServer, read_until_closed, reply};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

const CANARY: &str = "CANARY-serve-7d1e";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content).unwrap().to_string()
}

#[test]
fn an_mcp_client_lists_and_calls_the_example_catalog_over_stdio() {
    let home = Scratch::new("serve");
    let holidays = json!([{"date": "2026-01-01", "localName": "Neujahr", "name": "New Year's Day",
        "type": "public", "nationwide": true, "regions": null}]);
    let body = holidays.to_string();
    let server = TestServer::start(2, move |seen: &Seen| {
        if seen.url.contains("/holidays/2026/DE") {
            reply(200, Some("application/json"), body.clone())
        } else {
            reply(404, Some("application/json"), "{}")
        }
    });
    let upstream = format!("holidaykit-net={}", server.base);
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.args(["serve", "examples/catalog", "--upstream", &upstream])
        .current_dir(repo_root())
        .env("HOME", home.path())
        .env("SKYCAST_API_KEY", CANARY)
        .env_remove("OPENSHELF_API_KEY");
    runtime().block_on(async move {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();

        // tools/list: the exposed tools, with annotations, _meta and output schemas.
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(
            names.contains(&"getPublicHolidays_holidaykit-net"),
            "{names:?}"
        );
        assert!(
            names.contains(&"getCurrentConditions_skycast-io"),
            "{names:?}"
        );
        assert!(
            !names.iter().any(|n| n.ends_with("_openshelf-org")),
            "tools without their server parameter are not served: {names:?}"
        );
        let t = tools
            .iter()
            .find(|t| t.name == "getPublicHolidays_holidaykit-net")
            .unwrap();
        let listed = serde_json::to_value(t).unwrap();
        assert_eq!(listed["annotations"]["readOnlyHint"], json!(true));
        assert_eq!(listed["annotations"]["destructiveHint"], json!(false));
        assert_eq!(listed["annotations"]["openWorldHint"], json!(true));
        assert!(listed["annotations"].get("idempotentHint").is_none());
        assert_eq!(
            listed["_meta"]["flowmcp/id"],
            json!("holidaykit-net/tool/getPublicHolidays")
        );
        assert!(listed["_meta"]["anthropic/searchHint"].is_string());
        assert_eq!(listed["outputSchema"]["type"], json!("object"));
        assert_eq!(listed["outputSchema"]["required"], json!(["data"]));
        assert!(!listed.to_string().contains(CANARY));

        // A call that succeeds: structured content satisfies the advertised schema.
        let ok = client
            .call_tool(
                CallToolRequestParams::new("getPublicHolidays_holidaykit-net")
                    .with_arguments(args(json!({"year": 2026, "countryCode": "DE"}))),
            )
            .await
            .unwrap();
        assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
        assert_eq!(ok.structured_content, Some(json!({ "data": holidays })));

        // By Primitive-ID too; the upstream answers 404: a tool error with its code.
        let failed = client
            .call_tool(
                CallToolRequestParams::new("holidaykit-net/tool/getPublicHolidays")
                    .with_arguments(args(json!({"year": 2026, "countryCode": "FR"}))),
            )
            .await
            .unwrap();
        assert_eq!(failed.is_error, Some(true));
        assert!(text(&failed).contains("E001"), "{}", text(&failed));

        // Bad input and unknown tools are tool errors (E007), not protocol errors.
        let bad = client
            .call_tool(
                CallToolRequestParams::new("getPublicHolidays_holidaykit-net")
                    .with_arguments(args(json!({"year": "soon"}))),
            )
            .await
            .unwrap();
        assert_eq!(bad.is_error, Some(true));
        assert!(text(&bad).contains("E007"), "{}", text(&bad));
        let hidden = client
            .call_tool(CallToolRequestParams::new("searchBooks_openshelf-org"))
            .await
            .unwrap();
        assert_eq!(hidden.is_error, Some(true));
        // Issue 28, item 7e: it exists, and waits for its variable.
        assert!(
            text(&hidden).contains(
                "E006 searchBooks_openshelf-org: not served until OPENSHELF_API_KEY is set"
            ),
            "{}",
            text(&hidden)
        );

        // The server keeps answering, then ends when the client goes away.
        assert!(!client.list_all_tools().await.unwrap().is_empty());
        client.cancel().await.unwrap();
    });
    let seen = server.finish();
    assert_eq!(
        seen.len(),
        2,
        "one request per call that reached the upstream"
    );
}

/// Issue #30, scope 4: `--output-schema none` lists no output schema, and a call answers with
/// its data as text only (no structured content a client would have no schema for).
#[test]
fn i30_4_serve_output_schema_none_lists_no_schemas_and_answers_with_text() {
    let home = Scratch::new("serve-none");
    let holidays = json!([{"date": "2026-01-01", "name": "New Year's Day"}]);
    let body = holidays.to_string();
    let server = TestServer::start(1, move |_: &Seen| {
        reply(200, Some("application/json"), body.clone())
    });
    let upstream = format!("holidaykit-net={}", server.base);
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.args(["serve", "examples/catalog", "--output-schema", "none"])
        .args(["--upstream", &upstream])
        .current_dir(repo_root())
        .env("HOME", home.path());
    runtime().block_on(async move {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let tools = client.list_all_tools().await.unwrap();
        assert!(tools.len() >= 5, "{tools:?}");
        assert!(tools.iter().all(|t| t.output_schema.is_none()), "{tools:?}");
        let ok = client
            .call_tool(
                CallToolRequestParams::new("getPublicHolidays_holidaykit-net")
                    .with_arguments(args(json!({"year": 2026, "countryCode": "DE"}))),
            )
            .await
            .unwrap();
        assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
        assert!(ok.structured_content.is_none(), "{ok:?}");
        assert!(text(&ok).contains("New Year's Day"), "{}", text(&ok));
        client.cancel().await.unwrap();
    });
    assert_eq!(server.finish().len(), 1);
}

/// Issue #44, scopes 1 and 2: a result over `--max-result-bytes` is cut within the budget, its
/// structured content still matches the tool's schema (rmcp's client checks it), and the whole
/// reads back page by page through `resources/read`.
#[test]
fn i44_serve_cuts_a_large_result_to_its_budget_and_serves_the_whole_in_pages() {
    use rmcp::model::{ReadResourceRequestParams, ResourceContents};
    let home = Scratch::new("serve-budget");
    let holidays: Vec<Value> = (0..600)
        .map(|i| {
            json!({"date": "2026-01-01", "localName": format!("Feiertag {i}"),
            "name": format!("Holiday number {i} {}", "x".repeat(200)), "type": "public",
            "nationwide": true, "regions": null})
        })
        .collect();
    let body = Value::Array(holidays.clone()).to_string();
    assert!(body.len() > 150_000);
    let server = TestServer::start(1, move |_: &Seen| {
        reply(200, Some("application/json"), body.clone())
    });
    let upstream = format!("holidaykit-net={}", server.base);
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.args(["serve", "examples/catalog", "--max-result-tokens", "10000"])
        .args(["--result-text", "summary", "--upstream", &upstream])
        .current_dir(repo_root())
        .env("HOME", home.path());
    runtime().block_on(async move {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let r = client
            .call_tool(
                CallToolRequestParams::new("getPublicHolidays_holidaykit-net")
                    .with_arguments(args(json!({"year": 2026, "countryCode": "DE"}))),
            )
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        assert!(serde_json::to_string(&r).unwrap().len() <= 30_000);
        let data = r.structured_content.as_ref().unwrap()["data"]
            .as_array()
            .unwrap()
            .clone();
        assert!(!data.is_empty() && data.len() < 600, "{}", data.len());
        assert_eq!(data[0]["localName"], "Feiertag 0");
        assert!(
            text(&r).contains("The result is in structuredContent: an array"),
            "{}",
            text(&r)
        );
        let cut = &r.meta.as_ref().unwrap().0["flowmcp/cut"];
        assert_eq!(cut["cuts"][0]["total"], json!(600));
        let mut uri = cut["whole"]["uri"].as_str().map(str::to_string);
        let mut whole = String::new();
        while let Some(u) = uri {
            let page = client
                .read_resource(ReadResourceRequestParams::new(u))
                .await
                .unwrap();
            let ResourceContents::TextResourceContents { text, meta, .. } = &page.contents[0]
            else {
                panic!("a page is text");
            };
            whole.push_str(text);
            uri = meta
                .as_ref()
                .and_then(|m| m.0.get("next"))
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        assert_eq!(
            serde_json::from_str::<Value>(&whole).unwrap(),
            Value::Array(holidays)
        );
        client.cancel().await.unwrap();
    });
    assert_eq!(server.finish().len(), 1);
}

#[test]
fn hostile_input_gets_errors_and_the_server_keeps_answering_then_exits_at_eof() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let home = Scratch::new("serve-hostile");
    let mut child = Command::new(common::binary())
        .args(["serve", "examples/catalog"])
        .current_dir(repo_root())
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut read = || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or(Value::Null)
    };
    let huge = "x".repeat(2 << 20);
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        "this is not JSON".to_string(),
        r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#.to_string(),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"getPublicHolidays_holidaykit-net","arguments":{{"year":"{huge}"}}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":42}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"nonsense"}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#.to_string(),
    ];
    for l in &lines {
        stdin.write_all(l.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 6 {
        let v = read();
        if v.is_null() {
            break;
        }
        if let Some(id) = v.get("id").and_then(Value::as_i64) {
            answers.insert(id, v);
        }
    }
    assert!(answers[&1]["result"]["serverInfo"]["name"] == json!("flowmcp"));
    // The server keeps its memory in small pages (D195); a batch command may use huge ones.
    assert_ne!(common::huge_pages_enabled(child.id()), Some(true));
    assert!(answers[&2]["error"]["code"].is_i64(), "{}", answers[&2]);
    let huge_call = &answers[&3]["result"];
    assert_eq!(huge_call["isError"], json!(true), "{huge_call}");
    assert!(
        huge_call.to_string().len() < 10_000,
        "the huge value is not echoed back"
    );
    // Issue 28, item 7f: a `name` that is not a string is invalid params, and says so.
    assert_eq!(
        answers[&4]["error"]["code"],
        json!(-32602),
        "{}",
        answers[&4]
    );
    assert!(
        answers[&4]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`params.name` (the tool to call) must be a string")),
        "{}",
        answers[&4]
    );
    assert!(answers[&5].get("error").is_some(), "{}", answers[&5]);
    assert!(
        answers[&6]["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );

    // EOF on stdin ends the server promptly.
    drop(stdin);
    let closed = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if closed.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("the server did not exit after EOF");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A `flowmcp serve --transport http` process, stopped with SIGTERM when dropped.
struct HttpServe {
    child: std::process::Child,
    base: String,
    /// What it wrote to stderr up to the line that says where it listens.
    started: String,
    /// What it wrote to stderr after that line, so far.
    later: std::sync::Arc<std::sync::Mutex<String>>,
}

impl HttpServe {
    fn start(home: &Scratch, extra: &[&str]) -> HttpServe {
        HttpServe::start_at(home, "127.0.0.1:0", extra)
    }

    /// Serves on `listen`; `base` is the loopback URL of its port.
    fn start_at(home: &Scratch, listen: &str, extra: &[&str]) -> HttpServe {
        HttpServe::start_env(home, listen, extra, &[])
    }

    /// [`HttpServe::start_at`] with these environment variables set.
    fn start_env(home: &Scratch, listen: &str, extra: &[&str], env: &[(&str, &str)]) -> HttpServe {
        use std::io::{BufRead, BufReader};
        let mut child = std::process::Command::new(common::binary())
            .args([
                "serve",
                "examples/catalog",
                "--transport",
                "http",
                "--listen",
                listen,
            ])
            .args(extra)
            .current_dir(repo_root())
            .env("HOME", home.path())
            .env_remove("FLOWMCP_AUTH_TOKEN")
            .env_remove("FLOWMCP_METRICS_TOKEN")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut base = String::new();
        let mut line = String::new();
        let mut started = String::new();
        while base.is_empty() && err.read_line(&mut line).unwrap() > 0 {
            started.push_str(&line);
            if let Some(at) = line.find("http://") {
                // The scheme and authority of the first endpoint's URL.
                let url = line[at..].split_whitespace().next().unwrap();
                let end = url[7..].find('/').map_or(url.len(), |i| 7 + i);
                base = url[..end].replace("//0.0.0.0:", "//127.0.0.1:");
            }
            line.clear();
        }
        assert!(!base.is_empty(), "the server did not say where it listens");
        // Keep draining stderr so the server never blocks on it.
        let later = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let kept = std::sync::Arc::clone(&later);
        std::thread::spawn(move || {
            let mut line = String::new();
            while err.read_line(&mut line).unwrap_or(0) > 0 {
                kept.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        HttpServe {
            child,
            base,
            started,
            later,
        }
    }

    /// Sends SIGTERM and returns the exit code once the server exited (within 60 s).
    fn terminate(&mut self) -> Option<i32> {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.wait_exit()
    }

    /// The exit code once the server exited (within 60 s).
    fn wait_exit(&mut self) -> Option<i32> {
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "the server did not exit"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Sends SIGTERM and returns how long the server took to exit.
    fn stop(&mut self) -> std::time::Duration {
        let started = std::time::Instant::now();
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        while self.child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(10) {
                let _ = self.child.kill();
                panic!("the server did not stop within 10 s of SIGTERM");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        started.elapsed()
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn post(url: &str, headers: &[(&str, &str)], body: &Value) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.send(body.to_string()).unwrap();
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap_or_default())
}

#[test]
fn over_http_the_token_and_origin_are_checked_and_an_mcp_client_lists_and_calls() {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let home = Scratch::new("serve-http");
    let mut serve = HttpServe::start(&home, &["--auth-token", CANARY]);
    let mcp = format!("{}/mcp", serve.base);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});

    // Health, token and Origin checks.
    let health = ureq::get(&format!("{}/healthz", serve.base))
        .call()
        .unwrap();
    assert_eq!(health.status().as_u16(), 200);
    let (status, body) = post(&mcp, &[], &init);
    assert_eq!(status, 401);
    assert!(!body.contains("result"));
    let (status, _) = post(&mcp, &[("Authorization", "Bearer not-the-token")], &init);
    assert_eq!(status, 401);
    let bearer = format!("Bearer {CANARY}");
    let (status, _) = post(
        &mcp,
        &[
            ("Authorization", &bearer),
            ("Origin", "https://evil.example"),
        ],
        &init,
    );
    assert_eq!(status, 403);
    let own_origin = serve.base.clone();
    let (status, body) = post(
        &mcp,
        &[("Authorization", &bearer), ("Origin", &own_origin)],
        &init,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"serverInfo\""), "{body}");

    // A 10 MB request is refused without being read whole; the server keeps answering.
    let huge = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "getPublicHolidays_holidaykit-net", "arguments": {"year": "x".repeat(10 << 20)}}});
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let refused = agent
        .post(&mcp)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", &bearer)
        .send(huge.to_string());
    match refused {
        // Either the answer arrives before the connection closes, or the server closes it while
        // the client is still sending.
        Ok(r) => assert_eq!(r.status().as_u16(), 413),
        Err(ureq::Error::Io(e)) => assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
            ),
            "{e}"
        ),
        Err(e) => panic!("{e}"),
    }
    let health = ureq::get(&format!("{}/healthz", serve.base))
        .call()
        .unwrap();
    assert_eq!(health.status().as_u16(), 200);

    // The SDK's own client over Streamable HTTP.
    runtime().block_on(async {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(mcp.as_str()).auth_header(CANARY),
        );
        let client = ().serve(transport).await.unwrap();
        let tools = client.list_all_tools().await.unwrap();
        assert!(
            tools
                .iter()
                .any(|t| t.name == "getPublicHolidays_holidaykit-net")
        );
        let bad = client
            .call_tool(
                CallToolRequestParams::new("getPublicHolidays_holidaykit-net")
                    .with_arguments(args(json!({"year": "soon"}))),
            )
            .await
            .unwrap();
        assert_eq!(bad.is_error, Some(true));
        assert!(text(&bad).contains("E007"), "{}", text(&bad));
        client.cancel().await.unwrap();
    });

    let took = serve.stop();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}

/// A catalog of `files` schemas with 8 tools each, valid under compat. A tool is
/// concurrency-safe unless `serial` is set.
fn generated_catalog(home: &Scratch, files: usize, serial: bool) -> std::path::PathBuf {
    let dir = home.0.join("catalog");
    std::fs::create_dir_all(&dir).unwrap();
    for f in 0..files {
        let tools: Vec<String> = (0..8)
            .map(|t| {
                format!(
                    "t{t}: {{ method: 'GET', path: '/slow', description: 'Tool {t}', parameters: [], \
                     tests: [ {{ _description: 'a' }}, {{ _description: 'b' }}, {{ _description: 'c' }} ], \
                     meta: {{ isReadOnly: true, isConcurrencySafe: {}, isDestructive: false, \
                     searchHint: 'x', aliases: [], alwaysLoad: false }} }}",
                    !serial
                )
            })
            .collect();
        std::fs::write(
            dir.join(format!("ns{f}.mjs")),
            format!(
                "export const main = {{ namespace: 'ns{f}', name: 'N', description: 'd', version: '4.2.0', \
                 root: 'https://api.example.com', tools: {{ {} }} }}\n",
                tools.join(", ")
            ),
        )
        .unwrap();
    }
    dir
}

#[test]
fn tools_list_is_paginated() {
    let home = Scratch::new("serve-pages");
    let dir = generated_catalog(&home, 63, false);
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.arg("serve")
        .arg(&dir)
        .args(["--profile", "compat"])
        .env("HOME", home.path());
    runtime().block_on(async move {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let first = client.list_tools(None).await.unwrap();
        assert_eq!(first.tools.len(), 500);
        let cursor = first.next_cursor.clone().expect("a second page");
        let second = client
            .list_tools(Some(
                rmcp::model::PaginatedRequestParams::default().with_cursor(Some(cursor)),
            ))
            .await
            .unwrap();
        assert_eq!(second.tools.len(), 4);
        assert!(second.next_cursor.is_none());
        let all = client.list_all_tools().await.unwrap();
        assert_eq!(all.len(), 504);
        let mut names: Vec<_> = all.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 504, "no tool twice");
        client.cancel().await.unwrap();
    });
}

/// An upstream on 127.0.0.1 that answers every request after `hold`, one thread per connection,
/// and remembers the most requests it had in flight at once.
fn counting_upstream(
    hold: std::time::Duration,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let now = Arc::new(AtomicUsize::new(0));
    let max = Arc::new(AtomicUsize::new(0));
    let max_out = Arc::clone(&max);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (now, max) = (Arc::clone(&now), Arc::clone(&max));
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                loop {
                    let Ok(n) = stream.read(&mut chunk) else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        let in_flight = now.fetch_add(1, Ordering::SeqCst) + 1;
                        max.fetch_max(in_flight, Ordering::SeqCst);
                        std::thread::sleep(hold);
                        now.fetch_sub(1, Ordering::SeqCst);
                        let body = "{}";
                        let head = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                            body.len()
                        );
                        if stream
                            .write_all(format!("{head}{body}").as_bytes())
                            .is_err()
                        {
                            return;
                        }
                    }
                }
            });
        }
    });
    (base, max_out)
}

/// Calls two tools of namespace `ns0` at once and returns the most upstream requests in flight.
fn two_calls_at_once(serial: bool) -> usize {
    let home = Scratch::new(if serial {
        "serve-serial"
    } else {
        "serve-parallel"
    });
    let dir = generated_catalog(&home, 1, serial);
    let (base, max) = counting_upstream(std::time::Duration::from_millis(300));
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.arg("serve")
        .arg(&dir)
        .args(["--profile", "compat", "--threads", "4", "--no-cache"])
        .args(["--upstream", &format!("ns0={base}")])
        .env("HOME", home.path());
    runtime().block_on(async move {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let (a, b) = tokio::join!(
            client.call_tool(CallToolRequestParams::new("t0_ns0")),
            client.call_tool(CallToolRequestParams::new("t1_ns0")),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.is_error, Some(false), "{}", text(&a));
        assert_eq!(b.is_error, Some(false), "{}", text(&b));
        client.cancel().await.unwrap();
    });
    max.load(std::sync::atomic::Ordering::SeqCst)
}

#[test]
fn tools_that_are_not_concurrency_safe_run_one_at_a_time() {
    assert_eq!(two_calls_at_once(true), 1);
    assert_eq!(two_calls_at_once(false), 2);
}

/// The protocol's promise, whichever layer keeps it (rmcp drops the answer of a cancelled request;
/// the server also stops waiting for the worker).
#[test]
fn a_cancelled_call_gets_no_answer_and_the_server_goes_on() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    let home = Scratch::new("serve-cancel");
    let dir = generated_catalog(&home, 1, false);
    let (base, _) = counting_upstream(std::time::Duration::from_millis(1500));
    let mut child = Command::new(common::binary())
        .arg("serve")
        .arg(&dir)
        .args(["--profile", "compat", "--no-cache"])
        .args(["--upstream", &format!("ns0={base}")])
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| {
        stdin.write_all(format!("{v}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    // Reads answers until the one with `id`; returns the ids seen before it.
    let mut until = |id: i64| {
        let mut seen = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                out.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            match v.get("id").and_then(Value::as_i64) {
                Some(i) if i == id => return seen,
                Some(i) => seen.push(i),
                None => {}
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    until(1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t0_ns0"}}));
    send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
    );
    // The server answers other requests while the cancelled call is still with the upstream…
    send(json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
    assert!(until(8).is_empty());
    // …and after the upstream has answered it, the cancelled call still gets no answer.
    std::thread::sleep(std::time::Duration::from_millis(2000));
    send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "nope"}}));
    assert_eq!(
        until(9),
        Vec::<i64>::new(),
        "no answer to the cancelled call"
    );
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn schema_files_are_served_together() {
    let home = Scratch::new("serve-files");
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.args([
        "serve",
        "examples/catalog/providers/holidaykit-net/public-holidays.mjs",
        "examples/catalog/providers/skycast-io/forecast.mjs",
    ])
    .current_dir(repo_root())
    .env("HOME", home.path())
    .env("SKYCAST_API_KEY", CANARY)
    .env_remove("OPENSHELF_API_KEY");
    runtime().block_on(async move {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let tools = client.list_all_tools().await.unwrap();
        let mut namespaces: Vec<&str> = tools
            .iter()
            .filter_map(|t| t.name.rsplit_once('_').map(|(_, ns)| ns))
            .collect();
        namespaces.dedup();
        assert_eq!(namespaces, ["holidaykit-net", "skycast-io"], "{tools:?}");
        client.cancel().await.unwrap();
    });
}

#[test]
fn lazy_mode_lists_always_loaded_tools_and_finds_and_runs_the_rest() {
    let home = Scratch::new("serve-lazy");
    let server = TestServer::start(2, move |seen: &Seen| {
        if seen.url.contains("/holidays/2026/DE") {
            reply(200, Some("application/json"), "[]")
        } else {
            reply(404, Some("application/json"), "{}")
        }
    });
    let upstream = format!("holidaykit-net={}", server.base);
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.args([
        "serve",
        "examples/catalog",
        "--lazy",
        "--upstream",
        &upstream,
    ])
    .current_dir(repo_root())
    .env("HOME", home.path())
    .env("SKYCAST_API_KEY", CANARY)
    .env_remove("OPENSHELF_API_KEY");
    runtime().block_on(async move {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        // The one alwaysLoad tool of the example catalog, then the meta-tools.
        assert_eq!(
            names,
            ["listCountries_holidaykit-net", "search_tools", "call_tool"]
        );

        // An alias finds its tool first; hidden tools are never found.
        let found = client
            .call_tool(
                CallToolRequestParams::new("search_tools")
                    .with_arguments(args(json!({"query": "weeklyForecast", "limit": 3}))),
            )
            .await
            .unwrap();
        assert_eq!(found.is_error, Some(false), "{}", text(&found));
        let hits = &found.structured_content.as_ref().unwrap()["tools"];
        assert_eq!(hits[0]["name"], json!("getDailyForecast_skycast-io"));
        assert_eq!(hits[0]["inputSchema"]["type"], json!("object"));
        assert_eq!(hits[0]["annotations"]["readOnlyHint"], json!(true));
        assert!(hits.as_array().unwrap().len() <= 3);
        let books = client
            .call_tool(
                CallToolRequestParams::new("search_tools")
                    .with_arguments(args(json!({"query": "books"}))),
            )
            .await
            .unwrap();
        assert!(!text(&books).contains("openshelf-org"), "{}", text(&books));

        // call_tool runs a tool that is not listed, by wire name or ID, with its own checks.
        let ok = client
            .call_tool(
                CallToolRequestParams::new("call_tool").with_arguments(args(json!({
                "name": "getPublicHolidays_holidaykit-net",
                "arguments": {"year": 2026, "countryCode": "DE"}}))),
            )
            .await
            .unwrap();
        assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
        assert_eq!(ok.structured_content, Some(json!({"data": []})));
        let bad = client
            .call_tool(
                CallToolRequestParams::new("call_tool").with_arguments(args(json!({
                "name": "holidaykit-net/tool/getPublicHolidays",
                "arguments": {"year": "soon"}}))),
            )
            .await
            .unwrap();
        assert_eq!(bad.is_error, Some(true));
        assert!(text(&bad).contains("E007"), "{}", text(&bad));
        let hidden = client
            .call_tool(
                CallToolRequestParams::new("call_tool")
                    .with_arguments(args(json!({"name": "searchBooks_openshelf-org"}))),
            )
            .await
            .unwrap();
        // Issue 28, item 7e: through `call_tool` too, it waits for its variable.
        assert!(
            text(&hidden).contains(
                "E006 searchBooks_openshelf-org: not served until OPENSHELF_API_KEY is set"
            ),
            "{}",
            text(&hidden)
        );
        let wrong = client
            .call_tool(CallToolRequestParams::new("search_tools"))
            .await
            .unwrap();
        assert!(
            text(&wrong).contains("E007 search_tools: missing input"),
            "{}",
            text(&wrong)
        );
        client.cancel().await.unwrap();
    });
    assert_eq!(server.finish().len(), 1, "only the one good call went out");
}

/// A client that counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Changes(std::sync::Arc<tokio::sync::Notify>);

impl rmcp::ClientHandler for Changes {
    async fn on_tool_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.0.notify_one();
    }
}

/// A valid schema of namespace `ns` with one tool `t`.
fn one_tool(ns: &str) -> String {
    format!(
        "export const main = {{ namespace: '{ns}', name: 'N', description: 'd', version: '4.2.0',
         root: 'https://api.example.com',
         tools: {{ t: {{ method: 'GET', path: '/t', description: 'Tool of {ns}', parameters: [],
             tests: [ {{ _description: 'a' }}, {{ _description: 'b' }}, {{ _description: 'c' }} ],
             meta: {{ isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'x', aliases: [], alwaysLoad: false }} }} }} }}\n"
    )
}

#[test]
fn watch_mode_reloads_changed_files_and_a_broken_one_keeps_serving() {
    let home = Scratch::new("serve-watch");
    let dir = home.0.join("catalog");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.mjs"), one_tool("aaa")).unwrap();
    let mut cmd = tokio::process::Command::new(common::binary());
    cmd.arg("serve")
        .arg(&dir)
        .args([
            "--profile",
            "compat",
            "--watch",
            "--watch-interval-ms",
            "100",
        ])
        .args(["--log-level", "info"])
        .env("HOME", home.path());
    runtime().block_on(async move {
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let changes = Changes::default();
        let notified = std::sync::Arc::clone(&changes.0);
        let client = changes.serve(transport).await.unwrap();
        let info = client.peer_info().unwrap();
        assert_eq!(
            info.capabilities
                .tools
                .as_ref()
                .and_then(|t| t.list_changed),
            Some(true)
        );
        let names = |tools: Vec<rmcp::model::Tool>| -> Vec<String> {
            tools.into_iter().map(|t| t.name.to_string()).collect()
        };
        assert_eq!(names(client.list_all_tools().await.unwrap()), ["t_aaa"]);

        // A new file: the client is told, and the list has it.
        std::fs::write(dir.join("b.mjs"), one_tool("bbb")).unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(20), notified.notified())
            .await
            .expect("notifications/tools/list_changed");
        assert_eq!(
            names(client.list_all_tools().await.unwrap()),
            ["t_aaa", "t_bbb"]
        );

        // A broken file keeps its previous version; its errors go to the log.
        std::fs::write(
            dir.join("a.mjs"),
            "export const main = { namespace: 'aaa', tools: ",
        )
        .unwrap();
        // Then a change that does reach the list, to know the broken one was seen before it.
        std::fs::remove_file(dir.join("b.mjs")).unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(20), notified.notified())
            .await
            .expect("notifications/tools/list_changed");
        assert_eq!(names(client.list_all_tools().await.unwrap()), ["t_aaa"]);
        let described = client.list_all_tools().await.unwrap();
        assert_eq!(described[0].description.as_deref(), Some("Tool of aaa"));
        client.cancel().await.unwrap();
        let mut log = String::new();
        if let Some(mut e) = stderr {
            use tokio::io::AsyncReadExt;
            let _ = tokio::time::timeout(
                std::time::Duration::from_secs(10),
                e.read_to_string(&mut log),
            )
            .await;
        }
        assert!(
            log.contains("has errors; its previous version keeps serving"),
            "{log}"
        );
        assert!(log.contains("a.mjs"), "{log}");
    });
}

#[test]
fn routes_serve_their_own_tools_with_their_own_tokens() {
    let home = Scratch::new("serve-routes");
    let mut serve = HttpServe::start(
        &home,
        &[
            "--route",
            "/holidays=holidaykit-net",
            "--route",
            "/pick=listCountries_holidaykit-net,holidaykit-net/tool/getNextHolidays",
            "--route-token",
            "/holidays=token-one",
            "--route-token",
            "/pick=token-two",
        ],
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let names = |path: &str, token: &str| -> (u16, Vec<String>) {
        let bearer = format!("Bearer {token}");
        let (status, body) = post(
            &format!("{}{path}", serve.base),
            &[
                ("Authorization", &bearer),
                ("MCP-Protocol-Version", "2025-06-18"),
            ],
            &list,
        );
        let names = serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v["result"]["tools"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect();
        (status, names)
    };
    let (status, holidays) = names("/holidays", "token-one");
    assert_eq!(status, 200);
    assert_eq!(holidays.len(), 4, "{holidays:?}");
    assert!(holidays.iter().all(|n| n.ends_with("_holidaykit-net")));
    let (status, picked) = names("/pick", "token-two");
    assert_eq!(status, 200);
    assert_eq!(
        picked,
        [
            "listCountries_holidaykit-net",
            "getNextHolidays_holidaykit-net"
        ]
    );
    // Each route takes only its own token; /mcp is not served when routes are given.
    assert_eq!(names("/holidays", "token-two").0, 401);
    assert_eq!(names("/pick", "token-one").0, 401);
    assert_eq!(names("/mcp", "token-one").0, 404);
    serve.stop();
}

/// How long the HTTP tests below wait for something that must happen; they check that it
/// happens, not how fast.
const WITHIN: std::time::Duration = std::time::Duration::from_secs(30);

/// The `host:port` of `base` (`http://host:port`).
fn authority(base: &str) -> &str {
    base.trim_start_matches("http://")
}

fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

/// Item 10: the real server cuts off a client that stops halfway through its headers or its body
/// at the deadlines given by flags (the body with a 408), while an honest client is served.
#[test]
fn item10_half_sent_requests_are_closed_at_the_header_and_body_deadlines() {
    use std::io::Write;
    let home = Scratch::new("serve-deadlines");
    let serve = HttpServe::start(
        &home,
        &["--header-timeout-ms", "1000", "--body-timeout-ms", "1000"],
    );
    let mut headers = std::net::TcpStream::connect(authority(&serve.base)).unwrap();
    headers
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
        .unwrap();
    let mut body = std::net::TcpStream::connect(authority(&serve.base)).unwrap();
    body.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"json",
    )
    .unwrap();
    let mcp = format!("{}/mcp", serve.base);
    assert_eq!(post(&mcp, &[], &initialize_request()).0, 200);
    assert!(
        read_until_closed(&mut headers, WITHIN).is_some(),
        "half-sent headers keep their connection open"
    );
    let answer =
        read_until_closed(&mut body, WITHIN).expect("a half-sent body keeps its connection open");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert_eq!(post(&mcp, &[], &initialize_request()).0, 200);
}

/// Item 10: with `--max-connections 2`, further connections get a 503 and are closed at once
/// while the two holders are busy (bodies that never end); once one goes, a client is served
/// again. (Idle holders give their places up instead: issue #39.)
#[test]
fn item10_connections_over_the_cap_are_refused_while_its_holders_live() {
    use std::io::Write;
    let home = Scratch::new("serve-cap");
    // Holders stay for a minute unless they go.
    let serve = HttpServe::start(
        &home,
        &[
            "--max-connections",
            "2",
            "--max-connections-per-client",
            "2",
            "--body-timeout-ms",
            "60000",
        ],
    );
    let mut holders: Vec<std::net::TcpStream> = (0..2)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(authority(&serve.base)).unwrap();
            s.write_all(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                  Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{",
            )
            .unwrap();
            assert!(
                read_until_closed(&mut s, std::time::Duration::from_millis(500)).is_none(),
                "a holder was closed"
            );
            s
        })
        .collect();
    for _ in 0..3 {
        let mut over = std::net::TcpStream::connect(authority(&serve.base)).unwrap();
        let answer = read_until_closed(&mut over, WITHIN).expect("a connection over the cap waits");
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    }
    holders.remove(0);
    let started = std::time::Instant::now();
    while started.elapsed() < WITHIN {
        let mut s = std::net::TcpStream::connect(authority(&serve.base)).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        if read_until_closed(&mut s, WITHIN)
            .unwrap_or_default()
            .starts_with("HTTP/1.1 200")
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the place a holder left is never taken again");
}

/// Issue #39 finding 1 (replacing item 10's accept test, whose exhausted descriptors the fitted
/// cap now prevents): with at most 64 descriptors (soft and hard), `--max-connections 512` does
/// not fit; the server says so, lowers the cap, and while 100 idle connections are held it still
/// serves (idle ones make room), without failing to accept. The back-off after failed accepts is
/// checked by `flowmcp-mcp`'s unit test `accept_back_off_doubles_to_a_second_and_starts_over_after_a_success`.
#[test]
fn i39_1_a_cap_beyond_the_descriptor_limit_is_lowered_and_the_server_keeps_serving() {
    use std::io::{BufRead, BufReader};
    let home = Scratch::new("serve-emfile");
    let mut child = std::process::Command::new("sh")
        .args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
        .arg(common::binary())
        .args(["serve", "examples/catalog", "--transport", "http"])
        .args(["--listen", "127.0.0.1:0", "--header-timeout-ms", "60000"])
        .current_dir(repo_root())
        .env("HOME", home.path())
        .env_remove("FLOWMCP_AUTH_TOKEN")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let mut base = String::new();
    while base.is_empty() && err.read_line(&mut line).unwrap() > 0 {
        log.lock().unwrap().push(line.clone());
        if let Some(url) = line.split(" tools at ").nth(1) {
            let url = url.split_whitespace().next().unwrap();
            base = url.trim_end_matches("/mcp").to_string();
        }
        line.clear();
    }
    assert!(!base.is_empty(), "the server did not start");
    let seen = std::sync::Arc::clone(&log);
    std::thread::spawn(move || {
        let mut line = String::new();
        while err.read_line(&mut line).unwrap_or(0) > 0 {
            seen.lock().unwrap().push(line.clone());
            line.clear();
        }
    });
    let held: Vec<std::net::TcpStream> = (0..100)
        .filter_map(|_| std::net::TcpStream::connect(authority(&base)).ok())
        .collect();
    let started = std::time::Instant::now();
    let mut served = false;
    while !served && started.elapsed() < WITHIN {
        use std::io::Write;
        if let Ok(mut s) = std::net::TcpStream::connect(authority(&base)) {
            let _ = s.write_all(
                b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            );
            served = read_until_closed(&mut s, WITHIN)
                .unwrap_or_default()
                .starts_with("HTTP/1.1 200");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(held);
    let _ = child.kill();
    let _ = child.wait();
    let log = log.lock().unwrap().concat();
    assert!(
        served,
        "the server does not serve while idle connections are held:\n{log}"
    );
    assert!(
        log.contains("connections are served at once, not 512"),
        "no warning that the cap was lowered:\n{log}"
    );
    assert!(!log.contains("cannot accept connections"), "{log}");
}

/// Runs `flowmcp serve` with `args` (and `env`) and returns its exit code and stderr, or `None`
/// for the code when it is still running after [`WITHIN`] (then it is stopped).
fn serve_exit(home: &Scratch, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    use std::io::Read;
    let mut cmd = std::process::Command::new(common::binary());
    cmd.arg("serve")
        .arg("examples/catalog")
        .args(args)
        .current_dir(repo_root())
        .env("HOME", home.path())
        .env_remove("FLOWMCP_AUTH_TOKEN")
        .env_remove("FLOWMCP_ROUTE_TOKENS")
        .env_remove("SKYCAST_API_KEY")
        .env_remove("OPENSHELF_API_KEY")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let started = std::time::Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if started.elapsed() > WITHIN {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
    (code, stderr)
}

/// Item 12: an empty token (given empty, or from an empty variable) and an endpoint without
/// authentication on an address that is not loopback are usage errors (exit 2, before anything
/// is served); `--no-auth` serves there, as a token does.
#[test]
fn item12_an_empty_token_or_an_open_listener_off_loopback_is_a_usage_error() {
    let home = Scratch::new("serve-no-auth");
    let http = ["--transport", "http", "--listen", "127.0.0.1:0"];
    let everywhere = ["--transport", "http", "--listen", "0.0.0.0:0"];
    // The arguments after `serve examples/catalog`, the environment, and what stderr says.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case<'_>; 5] = [
        (
            &[&http[..], &["--auth-token", ""]].concat(),
            &[],
            "is empty",
        ),
        (&http, &[("FLOWMCP_AUTH_TOKEN", "")], "is empty"),
        (
            &[
                &http[..],
                &["--route", "/a=holidaykit-net", "--route-token", "/a="],
            ]
            .concat(),
            &[],
            "empty",
        ),
        (&everywhere, &[], "--no-auth"),
        (
            &[
                &everywhere[..],
                &[
                    "--route",
                    "/a=holidaykit-net",
                    "--route",
                    "/b=atlasdata-org",
                ],
            ]
            .concat(),
            &[("FLOWMCP_ROUTE_TOKENS", "/a=tok")],
            "refusing to serve /b without authentication on 0.0.0.0:0",
        ),
    ];
    for (args, env, message) in cases {
        let (code, stderr) = serve_exit(&home, args, env);
        assert_eq!(code, Some(2), "{args:?} {env:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("serving"), "{args:?}: {stderr}");
    }
    // Asked for explicitly, or with a token, it serves there.
    let serve = HttpServe::start_at(&home, "0.0.0.0:0", &["--no-auth"]);
    let mcp = format!("{}/mcp", serve.base);
    assert_eq!(post(&mcp, &[], &initialize_request()).0, 200);
    drop(serve);
    // `noAuth` in the user's own configuration says it too (a project's cannot: see
    // `config.rs` `project_keys_that_need_consent_are_taken_out`).
    std::fs::create_dir_all(home.0.join(".flowmcp")).unwrap();
    std::fs::write(home.0.join(".flowmcp/config.json"), r#"{"noAuth": true}"#).unwrap();
    let serve = HttpServe::start_at(&home, "0.0.0.0:0", &[]);
    let mcp = format!("{}/mcp", serve.base);
    assert_eq!(post(&mcp, &[], &initialize_request()).0, 200);
    drop(serve);
    std::fs::remove_file(home.0.join(".flowmcp/config.json")).unwrap();
    let serve = HttpServe::start_at(&home, "0.0.0.0:0", &["--auth-token", CANARY]);
    let mcp = format!("{}/mcp", serve.base);
    assert_eq!(post(&mcp, &[], &initialize_request()).0, 401);
    let bearer = format!("Bearer {CANARY}");
    assert_eq!(
        post(&mcp, &[("Authorization", &bearer)], &initialize_request()).0,
        200
    );
}

/// Issue 28, item 7g: at start, stderr names the tools that wait for a variable only when they
/// are members of what is served (not those `--only`, `--selection` or the routes leave out),
/// and counts tools in the singular and plural correctly.
#[test]
fn i28_7g_stderr_names_only_the_endpoints_own_waiting_tools_and_counts_them_right() {
    let home = Scratch::new("serve-waiting");
    // The whole catalog: both variables, each with its tools.
    // (stdin is empty: each server says what it serves, then ends for want of `initialize`.)
    let (_, stderr) = serve_exit(&home, &[], &[]);
    assert!(
        stderr.contains("flowmcp: serving 14 tools over stdio"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "flowmcp: not served until OPENSHELF_API_KEY is set: searchBooks_openshelf-org"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("flowmcp: not served until SKYCAST_API_KEY is set: "),
        "{stderr}"
    );
    // One tool: nothing else is named, and it is one tool.
    let (_, stderr) = serve_exit(
        &home,
        &["--only", "holidaykit-net/tool/getPublicHolidays"],
        &[],
    );
    assert!(!stderr.contains("not served until"), "{stderr}");
    assert!(
        stderr.contains("flowmcp: serving 1 tool over stdio"),
        "{stderr}"
    );
    // A selection: its members only.
    let (_, stderr) = serve_exit(
        &home,
        &["--selection", "trip-planning/selection/days-off"],
        &[],
    );
    assert!(!stderr.contains("not served until"), "{stderr}");
    assert!(stderr.contains(" tools over stdio"), "{stderr}");
    // A member that has nothing to serve without its variable is refused, and names it (it used
    // to say that the namespace has no tools in the catalog).
    let (code, stderr) = serve_exit(
        &home,
        &["--only", "skycast-io", "--only", "openshelf-org"],
        &[("SKYCAST_API_KEY", CANARY)],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("selector member openshelf-org: not served until OPENSHELF_API_KEY is set"),
        "{stderr}"
    );
    assert!(!stderr.contains("SKYCAST_API_KEY"), "{stderr}");
    assert!(!stderr.contains(CANARY), "{stderr}");
    // Routes: only what some route serves.
    let serve = HttpServe::start(&home, &["--route", "/h=holidaykit-net"]);
    assert!(
        !serve.started.contains("not served until"),
        "{}",
        serve.started
    );
    assert!(
        serve
            .started
            .contains("flowmcp: serving 4 tools at http://"),
        "{}",
        serve.started
    );
}

/// Issue 29, item 4: the server library's errors name no option; `serve` still does when it
/// prints them.
#[test]
fn i29_4_serve_still_names_the_options() {
    let home = Scratch::new("serve-i29-4");
    let (code, stderr) = serve_exit(&home, &["--only", "noSuchTool_holidaykit-net"], &[]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("--only: selector member noSuchTool_holidaykit-net: no such exposed tool")
            && stderr.contains("(see `flowmcp list`)"),
        "{stderr}"
    );
    let routed = [
        "--transport",
        "http",
        "--listen",
        "127.0.0.1:0",
        "--route",
        "/a=holidaykit-net",
        "--only",
        "holidaykit-net",
    ];
    let (code, stderr) = serve_exit(&home, &routed, &[]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("--only cannot be combined with routes"),
        "{stderr}"
    );
}

const I32_SECRET: &str = "CANARY-i32-secret-77aa";
const I32_ARG: &str = "CANARY-i32-argument-31bb";

/// A GET with `headers`: the status and the body.
fn get_with(url: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent.get(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.call().unwrap();
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap_or_default())
}

fn tools_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// Issue #32 items 1 and 2: `--log-format json` writes one JSON object per tool call with the
/// route, tool ID, outcome, duration and request id; neither the logs nor `/metrics` (loopback
/// only, or its own token) show a server parameter's value or an argument value.
#[test]
fn i32_2_json_logs_and_metrics_name_calls_without_secrets_or_argument_values() {
    let upstream = TestServer::start(2, |_| reply(200, Some("application/json"), "{}"));
    let home = Scratch::new("serve-i32-logs");
    let mut serve = HttpServe::start_env(
        &home,
        "127.0.0.1:0",
        &[
            "--log-format",
            "json",
            "--log-level",
            "info",
            "--no-cache",
            "--upstream",
            &format!("skycast-io={}", upstream.base),
            "--metrics-token",
            "metrics-i32",
        ],
        &[("SKYCAST_API_KEY", I32_SECRET)],
    );
    let mcp = format!("{}/mcp", serve.base);
    let version = ("MCP-Protocol-Version", "2025-06-18");
    let (status, body) = post(
        &mcp,
        &[version, ("x-request-id", "req-i32-cli")],
        &tools_call(
            1,
            "getCurrentConditions_skycast-io",
            json!({"city": I32_ARG}),
        ),
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = post(
        &mcp,
        &[version],
        &tools_call(2, "noSuchTool", json!({"city": I32_ARG})),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("E007"), "{body}");

    let metrics_url = format!("{}/metrics", serve.base);
    assert_eq!(get_with(&metrics_url, &[]).0, 401);
    let (status, metrics) = get_with(&metrics_url, &[("Authorization", "Bearer metrics-i32")]);
    assert_eq!(status, 200, "{metrics}");
    assert!(
        metrics.contains(
            r#"flowmcp_tool_calls_total{route="/mcp",tool="skycast-io/tool/getCurrentConditions",outcome="ok"} 1"#
        ),
        "{metrics}"
    );
    assert!(
        metrics.contains(r#"flowmcp_upstream_responses_total{class="2xx"} 1"#),
        "{metrics}"
    );
    assert!(!metrics.contains("CANARY"), "{metrics}");

    assert_eq!(serve.terminate(), Some(0));
    let seen = upstream.finish();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].header("x-request-id"), Some("req-i32-cli"));
    assert_eq!(seen[0].header("x-api-key"), Some(I32_SECRET));

    let log = serve.later.lock().unwrap().clone();
    assert!(!log.contains("CANARY"), "{log}");
    let calls: Vec<Value> = log
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v| v["target"] == "flowmcp::call")
        .collect();
    assert_eq!(calls.len(), 2, "{log}");
    let first = &calls[0];
    assert_eq!(
        first["tool"], "skycast-io/tool/getCurrentConditions",
        "{first}"
    );
    assert_eq!(first["outcome"], "ok", "{first}");
    assert_eq!(first["route"], "/mcp", "{first}");
    assert_eq!(first["request_id"], "req-i32-cli", "{first}");
    assert_eq!(first["level"], "INFO", "{first}");
    assert!(first["timestamp"].is_string(), "{first}");
    assert!(first["duration_ms"].is_number(), "{first}");
    assert_eq!(calls[1]["tool"], "unknown", "{}", calls[1]);
    assert_eq!(calls[1]["outcome"], "E007", "{}", calls[1]);
    assert!(
        calls[1]["request_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
}

/// Issue #32 item 3: SIGTERM during a slow call: the call completes, `/readyz` is 503 while the
/// server drains, a new call is refused with a retryable error, and the process exits 0.
#[test]
fn i32_3_sigterm_during_a_slow_call_drains_it_and_exits_0() {
    let (arrived, rx) = std::sync::mpsc::channel::<()>();
    let upstream = TestServer::start(1, move |_| {
        let _ = arrived.send(());
        std::thread::sleep(std::time::Duration::from_secs(3));
        reply(200, Some("application/json"), "[]")
    });
    let home = Scratch::new("serve-i32-drain");
    let mut serve = HttpServe::start_env(
        &home,
        "127.0.0.1:0",
        &[
            "--no-cache",
            "--upstream",
            &format!("holidaykit-net={}", upstream.base),
            "--drain-timeout",
            "120",
        ],
        &[],
    );
    let base = serve.base.clone();
    assert_eq!(get_with(&format!("{base}/readyz"), &[]).0, 200);
    let mcp = format!("{base}/mcp");
    let in_flight = {
        let mcp = mcp.clone();
        std::thread::spawn(move || {
            post(
                &mcp,
                &[("MCP-Protocol-Version", "2025-06-18")],
                &tools_call(
                    1,
                    "getPublicHolidays_holidaykit-net",
                    json!({"year": 2026, "countryCode": "DE"}),
                ),
            )
        })
    };
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the call reached the upstream");
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &serve.child.id().to_string()])
        .status();
    let started = std::time::Instant::now();
    while get_with(&format!("{base}/readyz"), &[]).0 != 503 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "readyz never turned 503"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let (status, body) = post(
        &mcp,
        &[("MCP-Protocol-Version", "2025-06-18")],
        &tools_call(2, "listCountries_holidaykit-net", json!({})),
    );
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("\"retryable\":true"), "{body}");
    let (status, body) = in_flight.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"isError\":false"), "{body}");
    assert_eq!(serve.wait_exit(), Some(0));
    assert_eq!(upstream.finish().len(), 1);
}

/// Issue #32 item 5: with `--drain-min`, an idle replica keeps listening after SIGTERM (its
/// `/readyz` answers 503, so a balancer's health check sees it leave) instead of closing its port
/// at once; then it exits 0.
#[test]
fn i32_5_drain_min_keeps_an_idle_server_answering_503_before_it_exits() {
    let home = Scratch::new("serve-i32-drain-min");
    let mut serve = HttpServe::start_env(
        &home,
        "127.0.0.1:0",
        &["--no-cache", "--drain-min", "2", "--drain-timeout", "60"],
        &[],
    );
    let readyz = format!("{}/readyz", serve.base);
    assert_eq!(get_with(&readyz, &[]).0, 200);
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &serve.child.id().to_string()])
        .status();
    let signalled = std::time::Instant::now();
    // Well inside the 2 s, the server still answers, and says it is not ready.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let status = agent
        .get(&readyz)
        .call()
        .map(|r| r.status().as_u16())
        .unwrap_or_else(|e| panic!("the server closed its port at once: {e}"));
    assert_eq!(status, 503);
    assert_eq!(serve.wait_exit(), Some(0));
    assert!(signalled.elapsed() >= std::time::Duration::from_millis(1500));
}

/// Everything `serve` wrote to stderr so far.
fn stderr_of(serve: &HttpServe) -> String {
    format!("{}{}", serve.started, serve.later.lock().unwrap())
}

/// Issue #39 finding 4: a client's JSON-RPC id and tool name with a newline and an escape
/// sequence cannot forge a line of the text log or put a raw ESC on stderr (rmcp's warning about
/// the failed request prints the id).
#[test]
fn i39_4_text_logs_escape_control_characters_of_client_text() {
    let home = Scratch::new("serve-i39-text-log");
    let mut serve = HttpServe::start(&home, &["--log-level", "info"]);
    let mcp = format!("{}/mcp", serve.base);
    let version = ("MCP-Protocol-Version", "2025-06-18");
    let forged_id = "i39\nFORGED-ID 2099-01-01T00:00:00Z ERROR forged\x1b[31m";
    let forged_name = "i39\nFORGED-NAME ERROR forged\x1b[2J";
    // Params that do not decode (-32602): rmcp warns about the failed request with its id.
    let (status, body) = post(
        &mcp,
        &[version],
        &json!({"jsonrpc": "2.0", "id": forged_id, "method": "tools/call",
            "params": {"name": 5}}),
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = post(
        &mcp,
        &[version],
        &json!({"jsonrpc": "2.0", "id": forged_id, "method": "tools/call",
            "params": {"name": forged_name, "arguments": {}}}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(serve.terminate(), Some(0));
    let log = stderr_of(&serve);
    assert!(log.contains("i39"), "the request was not logged:\n{log}");
    for line in log.lines() {
        assert!(
            !line.starts_with("FORGED"),
            "a client forged a log line: {line:?}\n{log}"
        );
    }
    assert!(!log.contains('\x1b'), "a raw ESC on stderr: {log:?}");
}

/// Issue #39 finding 5: under `--log-format json` every line of stderr is one JSON object: the
/// start lines, the tools waiting for a variable, a placeholder key's warning, and the preload
/// cache's notes of a miss and a hit.
#[test]
fn i39_5_json_logs_are_json_lines_only() {
    let upstream = TestServer::start(4, |seen| {
        if seen.url.starts_with("/countries") {
            reply(
                200,
                Some("application/json"),
                r#"[{"countryCode": "DE", "name": "Germany", "regionCount": 16}]"#,
            )
        } else {
            reply(404, Some("text/plain"), "no")
        }
    });
    let home = Scratch::new("serve-i39-json");
    let mut serve = HttpServe::start_env(
        &home,
        "127.0.0.1:0",
        &[
            "--log-format",
            "json",
            "--upstream",
            &format!("holidaykit-net={}", upstream.base),
        ],
        // A placeholder left where a key belongs is warned about at start.
        &[("SKYCAST_API_KEY", "YOUR_API_KEY")],
    );
    let mcp = format!("{}/mcp", serve.base);
    let version = ("MCP-Protocol-Version", "2025-06-18");
    for id in [1, 2] {
        let (status, body) = post(
            &mcp,
            &[version],
            &tools_call(id, "listCountries_holidaykit-net", json!({})),
        );
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("Germany"), "{body}");
    }
    assert_eq!(serve.terminate(), Some(0));
    let seen = upstream.finish();
    assert_eq!(
        seen.len(),
        1,
        "the second call was not a cache hit: {seen:?}"
    );
    let log = stderr_of(&serve);
    let mut messages = Vec::new();
    for line in log.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("a line of stderr is not JSON ({e}): {line:?}\n{log}"));
        assert!(v.is_object(), "{line}");
        messages.push(v["message"].as_str().unwrap_or_default().to_string());
    }
    for expected in ["serving", "placeholder", "Cached (fetched:"] {
        assert!(
            messages.iter().any(|m| m.contains(expected)),
            "no JSON line says {expected:?}:\n{log}"
        );
    }
}

/// Issue #39 scope 6: under `--log-format json` an agent served as a tool (`--agent-tool`) writes
/// its tool calls' notes (here the preload cache's) as JSON lines too, not as plain lines.
#[test]
fn i39_10_an_agent_tools_notes_are_json_lines_under_json_logs() {
    use std::time::Duration;
    let upstream = TestServer::start(4, |seen| {
        if seen.url.starts_with("/countries") {
            reply(
                200,
                Some("application/json"),
                r#"[{"countryCode": "DE", "name": "Germany", "regionCount": 16}]"#,
            )
        } else {
            reply(404, Some("text/plain"), "no")
        }
    });
    // The model: one round asking for `listCountries`, then the answer. Each request is waited
    // for up to 30 s (the server starts in between).
    let chat = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let chat_port = chat.server_addr().to_ip().unwrap().port();
    let answers = [
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "listCountries_holidaykit-net",
             "arguments": "{}"}}]}}]}),
        json!({"choices": [{"message": {"role": "assistant", "content": "Germany."}}]}),
    ];
    let model = std::thread::spawn(move || {
        for answer in answers {
            let Ok(Some(mut request)) = chat.recv_timeout(Duration::from_secs(30)) else {
                break;
            };
            let mut sink = String::new();
            let _ = request.as_reader().read_to_string(&mut sink);
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = request
                .respond(tiny_http::Response::from_string(answer.to_string()).with_header(header));
        }
    });
    let home = Scratch::new("serve-i39-agent-json");
    let mut serve = HttpServe::start_env(
        &home,
        "127.0.0.1:0",
        &[
            "--log-format",
            "json",
            "--agent-tool",
            "holiday-planner",
            "--llm-base-url",
            &format!("http://127.0.0.1:{chat_port}/v1"),
            "--upstream",
            &format!("holidaykit-net={}", upstream.base),
        ],
        &[],
    );
    let (status, body) = post(
        &format!("{}/mcp", serve.base),
        &[("MCP-Protocol-Version", "2025-06-18")],
        &tools_call(1, "holiday-planner", json!({"input": "Which countries?"})),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Germany."), "{body}");
    assert_eq!(serve.terminate(), Some(0));
    let _ = model.join();
    assert_eq!(upstream.finish().len(), 1);
    let log = stderr_of(&serve);
    let mut messages = Vec::new();
    for line in log.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("a line of stderr is not JSON ({e}): {line:?}\n{log}"));
        messages.push(v["message"].as_str().unwrap_or_default().to_string());
    }
    assert!(
        messages
            .iter()
            .any(|m| m.contains("Fetching fresh data") || m.contains("Cached for")),
        "the agent's tool call left no cache note as a JSON line:\n{log}"
    );
}

/// Issue #39 finding 6: each MCP request's id goes upstream as `x-request-id` also when the
/// server counts no metrics (`--no-metrics`).
#[test]
fn i39_6_the_request_id_goes_upstream_without_metrics() {
    let upstream = TestServer::start(1, |_| reply(200, Some("application/json"), "{}"));
    let home = Scratch::new("serve-i39-request-id");
    let mut serve = HttpServe::start_env(
        &home,
        "127.0.0.1:0",
        &[
            "--no-metrics",
            "--no-cache",
            "--upstream",
            &format!("skycast-io={}", upstream.base),
        ],
        &[("SKYCAST_API_KEY", "key-i39")],
    );
    let (status, body) = post(
        &format!("{}/mcp", serve.base),
        &[
            ("MCP-Protocol-Version", "2025-06-18"),
            ("x-request-id", "req-i39-six"),
        ],
        &tools_call(
            1,
            "getCurrentConditions_skycast-io",
            json!({"city": "Berlin"}),
        ),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(serve.terminate(), Some(0));
    let seen = upstream.finish();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        seen[0].header("x-request-id"),
        Some("req-i39-six"),
        "{:?}",
        seen[0]
    );
}

/// Issue #44, scope 3: a per-namespace rate limit holds across two `serve` replicas that share
/// one Redis. With `--rate-limit skycast-io=2/h`, two calls (one on each replica) reach the
/// upstream and the third, on either replica, is refused at once with E003 naming the limit; the
/// shared counter lives under `flowmcp:rate:v1:` and holds no secret.
#[test]
fn i44_a_rate_limit_holds_across_two_serve_replicas_sharing_redis() {
    use common::support::RedisServer;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    // The counter's window is the clock hour: start well inside one, so all three calls share it.
    let into_hour = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        % 3600;
    if into_hour > 3540 {
        std::thread::sleep(std::time::Duration::from_secs(3601 - into_hour));
    }
    let upstream = TestServer::start(3, |_| {
        reply(200, Some("application/json"), r#"{"temperature":3.5}"#)
    });
    let home = Scratch::new("serve-i44-rate");
    let url = redis.url();
    let upstream_arg = format!("skycast-io={}", upstream.base);
    let args = [
        "--cache",
        url.as_str(),
        "--rate-limit",
        "skycast-io=2/h",
        "--upstream",
        upstream_arg.as_str(),
    ];
    let env = [("SKYCAST_API_KEY", I32_SECRET)];
    let mut a = HttpServe::start_env(&home, "127.0.0.1:0", &args, &env);
    let mut b = HttpServe::start_env(&home, "127.0.0.1:0", &args, &env);
    let version = ("MCP-Protocol-Version", "2025-06-18");
    let call = |serve: &HttpServe, id: u64| {
        let (status, body) = post(
            &format!("{}/mcp", serve.base),
            &[version],
            &tools_call(
                id,
                "getCurrentConditions_skycast-io",
                json!({"city": "Berlin"}),
            ),
        );
        assert_eq!(status, 200, "{body}");
        body
    };
    let first = call(&a, 1);
    assert!(
        first.contains("3.5") && !first.contains("\"isError\":true"),
        "{first}"
    );
    let second = call(&b, 2);
    assert!(
        second.contains("3.5") && !second.contains("\"isError\":true"),
        "{second}"
    );
    for (serve, id) in [(&a, 3), (&b, 4)] {
        let refused = call(serve, id);
        assert!(refused.contains("\"isError\":true"), "{refused}");
        assert!(
            refused.contains("E003")
                && refused
                    .contains("the rate limit of namespace skycast-io (2/h) allowed no request"),
            "{refused}"
        );
    }
    assert_eq!(a.terminate(), Some(0));
    assert_eq!(b.terminate(), Some(0));
    let seen = upstream.finish();
    assert_eq!(
        seen.len(),
        2,
        "only two calls reached the upstream: {seen:?}"
    );
    let keys = redis.keys("flowmcp:rate:v1:*");
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(
        keys[0].starts_with("flowmcp:rate:v1:skycast-io:"),
        "{keys:?}"
    );
    assert_eq!(redis.cli(&["GET", &keys[0]]).trim(), "4");
    for key in redis.keys("*") {
        assert!(!key.contains(I32_SECRET), "{key}");
    }
}
