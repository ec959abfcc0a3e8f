//! An agent served as one MCP tool (`--agent-tool`): a real client calls it, the agent's loop
//! runs against a scripted local chat endpoint and a local upstream, progress is reported.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flowmcp_catalog::serde_json::{Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile, runtime::TransportConfig};
use flowmcp_mcp::{McpServer, ServeOptions};
use rmcp::model::{
    CallToolRequestParams, NumberOrString, ProgressNotificationParam, ProgressToken,
    RequestMetaObject,
};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};

/// A local server answering each request with the next body of `bodies`.
fn serve(bodies: Vec<String>) -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    std::thread::spawn(move || {
        for body in bodies {
            let Ok(Some(mut request)) = server.recv_timeout(Duration::from_secs(10)) else {
                break;
            };
            let mut sink = String::new();
            let _ = request.as_reader().read_to_string(&mut sink);
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = request.respond(tiny_http::Response::from_string(body).with_header(header));
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// A client that keeps the progress messages it is sent.
#[derive(Clone, Default)]
struct Progress(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

#[test]
fn an_agent_tool_runs_the_loop_and_reports_progress() {
    let upstream = serve(vec![
        r#"[{"date": "2026-10-03", "name": "German Unity Day", "type": "public"}]"#.into(),
    ]);
    let chat = serve(vec![
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "getPublicHolidays_holidaykit-net",
             "arguments": "{\"year\": 2026, \"countryCode\": \"DE\"}"}}]}}]})
        .to_string(),
        json!({"choices": [{"message": {"role": "assistant", "content": "German Unity Day (2026-10-03)."}}]})
            .to_string(),
    ]);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut o = CatalogOptions::new(Profile::Spec);
    o.env_override = Some(BTreeMap::new());
    o.transport.allow_http_loopback = true;
    o.add_upstream("holidaykit-net", &upstream)
        .expect("a loopback upstream");
    let mut opts = ServeOptions::default();
    opts.agent_tools = vec!["holiday-planner".into()];
    let mut llm = flowmcp_agent::Endpoint::new(format!("{chat}/v1"));
    llm.timeout = Duration::from_secs(10);
    opts.llm = Some(llm);
    let server = McpServer::new(Catalog::open(&dir, &o).unwrap(), &opts).unwrap();
    let progress = Progress::default();
    let seen = Arc::clone(&progress.0);
    support::with_client(server, progress, async |client| {
        let tools = client.list_all_tools().await.unwrap();
        let agent = tools
            .iter()
            .find(|t| t.name == "holiday-planner")
            .expect("the agent is a tool");
        let listed = serde_json::to_value(agent).unwrap();
        assert_eq!(listed["inputSchema"]["required"], json!(["input"]));

        let mut args = flowmcp_catalog::serde_json::Map::new();
        args.insert("input".into(), json!("Holidays in Germany 2026?"));
        let mut call = CallToolRequestParams::new("holiday-planner").with_arguments(args);
        let mut meta = RequestMetaObject::default();
        meta.set_progress_token(ProgressToken(NumberOrString::Number(7)));
        call.meta = Some(meta);
        let result = client.call_tool(call).await.unwrap();
        assert_eq!(result.is_error, Some(false));
        let text = serde_json::to_value(&result.content).unwrap();
        assert_eq!(text[0]["text"], json!("German Unity Day (2026-10-03)."));
        let messages: Vec<String> = seen.lock().unwrap().clone();
        assert_eq!(
            messages,
            [
                "round 1: the model asks for 1 tool call",
                "called holidaykit-net/tool/getPublicHolidays (ok)"
            ]
        );
        // Without `input`: a tool error, nothing runs.
        let bad = client
            .call_tool(CallToolRequestParams::new("holiday-planner"))
            .await
            .unwrap();
        assert_eq!(bad.is_error, Some(true));
        let _: Value = serde_json::to_value(&bad.content).unwrap();
    });
}

/// A copy of the example catalog at `dir` whose holidaykit-net tools have no `meta` (allowed under
/// `compat`).
fn example_without_meta(dir: &std::path::Path) {
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), &target).unwrap();
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
    copy(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog"),
        dir,
    );
    let file = dir.join("providers/holidaykit-net/public-holidays.mjs");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("meta: {") {
        out.push_str(rest[..at].trim_end().trim_end_matches(','));
        let end = at + rest[at..].find('}').unwrap() + 1;
        rest = &rest[end..];
    }
    out.push_str(rest);
    assert!(!out.contains("isConcurrencySafe"), "{out}");
    std::fs::write(&file, out).unwrap();
}

/// An upstream for holidaykit-net that answers only once two requests are in (then both): two
/// calls run one after the other never get an answer to the first.
fn upstream_answering_pairs() -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    std::thread::spawn(move || {
        loop {
            let mut held = Vec::new();
            while held.len() < 2 {
                match server.recv_timeout(Duration::from_secs(30)) {
                    Ok(Some(r)) => held.push(r),
                    _ => return,
                }
            }
            for r in held {
                let body = if r.url().starts_with("/countries") {
                    r#"[{"countryCode": "AT", "name": "Austria", "regionCount": 9}]"#
                } else {
                    r#"[{"date": "2026-10-26", "name": "National Day", "type": "public"}]"#
                };
                let header =
                    tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
                let _ = r.respond(tiny_http::Response::from_string(body).with_header(header));
            }
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// Issue #29, item 2 (`meta` concurrency): a tool without `meta` (compat) is treated the same way
/// by the MCP server and by the agent runner — both run two calls of such tools at the same time
/// (the descriptor's one answer, `concurrency_safe`). Before, the MCP server ran them together
/// and the agent runner one after the other.
#[test]
fn i29_2_mcp_and_the_agent_runner_treat_a_tool_without_meta_the_same_way() {
    let dir = std::env::temp_dir().join(format!("flowmcp-i29-2-{}", std::process::id()));
    example_without_meta(&dir);
    let upstream = upstream_answering_pairs();
    let mut o = {
        let mut built = CatalogOptions::new(Profile::Compat);
        built.env_override = Some(BTreeMap::new());
        built.transport = {
            let mut built = TransportConfig::default();
            built.allow_http_loopback = true;
            built.total_timeout = Duration::from_secs(8);
            built
        };
        built
    };
    o.add_upstream("holidaykit-net", &upstream)
        .expect("a loopback upstream");
    o.runner.timeout = Duration::from_secs(8);
    o.runner.cache = None;
    let list = "listCountries_holidaykit-net";
    let holidays = "getPublicHolidays_holidaykit-net";

    // The one answer both ask.
    let catalog = Catalog::open(&dir, &o).unwrap();
    for name in [list, holidays] {
        let d = &catalog.find(name).unwrap().descriptor;
        assert!(d.tool_meta.is_none() && d.concurrency_safe(), "{name}");
    }

    // The agent runner: both calls of one reply at once.
    let chat = serve(vec![
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": list, "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": holidays,
             "arguments": "{\"year\": 2026, \"countryCode\": \"AT\"}"}}]}}]})
        .to_string(),
        json!({"choices": [{"message": {"role": "assistant", "content": "Austria: National Day."}}]})
            .to_string(),
    ]);
    let mut endpoint = flowmcp_agent::Endpoint::new(format!("{chat}/v1"));
    endpoint.timeout = Duration::from_secs(30);
    let runner = flowmcp_agent::AgentRunner::new(&catalog, "holiday-planner", endpoint).unwrap();
    let run = runner.run("Austria?").unwrap();
    assert_eq!(run.calls.len(), 2);
    assert!(run.calls.iter().all(|c| c.ok), "{:?}", run.calls);

    // The MCP server: two calls sent together both answer.
    let mut opts = ServeOptions::default();
    opts.threads = 2;
    let server = McpServer::new(catalog, &opts).unwrap();
    support::with_client(server, (), async |client| {
        let mut args = flowmcp_catalog::serde_json::Map::new();
        args.insert("year".into(), json!(2026));
        args.insert("countryCode".into(), json!("AT"));
        let (a, b) = tokio::join!(
            client.call_tool(CallToolRequestParams::new(list)),
            client.call_tool(CallToolRequestParams::new(holidays).with_arguments(args)),
        );
        assert_eq!(a.unwrap().is_error, Some(false));
        assert_eq!(b.unwrap().is_error, Some(false));
    });
    let _ = std::fs::remove_dir_all(&dir);
}
