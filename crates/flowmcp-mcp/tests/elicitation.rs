//! Elicitation for an agent served with `--agent`: the example agent `holiday-planner` enables
//! it, so a call that lacks a required parameter asks the user through the client — as a
//! server-to-client request for a client on an older protocol (a real rmcp client here), inside an
//! `InputRequiredResult` on protocol 2026-07-28 (over HTTP) — at most `maxRounds` times.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;
use crate::support;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use flowmcp_catalog::serde_json::{self, Map, Value, json};
#[cfg(feature = "http")]
use flowmcp_mcp::{Endpoints, HttpOptions};
use flowmcp_mcp::{McpServer, ServeOptions};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient};

const TOOL: &str = "getPublicHolidays_holidaykit-net";

/// The one holiday the local upstream answers with.
const HOLIDAY: &str = r#"[{"date": "2026-10-26", "name": "National Day", "type": "public"}]"#;

fn serving_the_agent() -> ServeOptions {
    {
        let mut built = ServeOptions::default();
        built.agent = Some("holiday-planner".into());
        built
    }
}

/// A client that answers each elicitation with the next of `answers` and keeps the messages it
/// was shown; `form`: whether it says it can show forms.
#[derive(Clone)]
struct User {
    form: bool,
    answers: Arc<Mutex<VecDeque<ElicitResult>>>,
    shown: Arc<Mutex<Vec<Value>>>,
}

impl User {
    fn new(form: bool, answers: Vec<ElicitResult>) -> User {
        User {
            form,
            answers: Arc::new(Mutex::new(answers.into())),
            shown: Arc::default(),
        }
    }
}

impl ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.shown
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        Ok(self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(ElicitResult::new(ElicitationAction::Cancel)))
    }

    fn get_info(&self) -> ClientConfig {
        let caps = if self.form {
            json!({"elicitation": {"form": {}}})
        } else {
            json!({})
        };
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": caps,
            "clientInfo": {"name": "elicitation-test", "version": "1"}
        }))
        .unwrap()
    }
}

fn year_only() -> Map<String, Value> {
    json!({"year": 2026}).as_object().cloned().unwrap()
}

/// Serves `server` to `user` over an in-memory pipe and makes `calls` calls of the holidays tool
/// with only a year; returns each result as JSON.
fn calls(server: McpServer, user: User, calls: usize) -> Vec<Value> {
    support::with_client(server, user, async |client| {
        let mut results = Vec::new();
        for _ in 0..calls {
            let call = CallToolRequestParams::new(TOOL).with_arguments(year_only());
            let r = client.call_tool(call).await.unwrap();
            results.push(serde_json::to_value(&r).unwrap());
        }
        results
    })
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_missing_parameter_is_asked_for_and_rounds_are_bounded() {
    let (url, asked) = common::json_upstream(1, HOLIDAY);
    let server = McpServer::new(common::examples_at(&url), &serving_the_agent()).unwrap();
    let accept =
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"countryCode": "AT"}));
    let user = User::new(
        true,
        vec![accept, ElicitResult::new(ElicitationAction::Decline)],
    );
    let shown = Arc::clone(&user.shown);
    let results = calls(server, user, 3);
    // The first call is completed with the user's answer and runs.
    assert_eq!(results[0]["isError"], json!(false), "{}", results[0]);
    assert_eq!(asked.join().unwrap(), ["/holidays/2026/AT"]);
    // The agent's own template was shown, twice (maxRounds: 2).
    let shown = shown.lock().unwrap().clone();
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[0]["message"], "Which country do you live in?");
    assert_eq!(
        shown[0]["requestedSchema"]["required"],
        json!(["countryCode"])
    );
    // Declined: the call fails as it would have, saying why.
    assert_eq!(results[1]["isError"], json!(true));
    assert!(text(&results[1]).contains("countryCode"), "{}", results[1]);
    assert!(text(&results[1]).contains("declined"), "{}", results[1]);
    // The rounds are used up: not asked again.
    assert_eq!(results[2]["isError"], json!(true));
    assert!(
        text(&results[2]).contains("used its 2 elicitation round"),
        "{}",
        results[2]
    );
}

#[test]
fn a_client_without_forms_is_never_asked() {
    let server = McpServer::new(
        common::examples_at("http://127.0.0.1:9"),
        &serving_the_agent(),
    )
    .unwrap();
    let user = User::new(false, Vec::new());
    let shown = Arc::clone(&user.shown);
    let results = calls(server, user, 1);
    assert_eq!(results[0]["isError"], json!(true));
    assert!(text(&results[0]).contains("countryCode"), "{}", results[0]);
    assert!(shown.lock().unwrap().is_empty());
}

#[test]
fn without_the_agent_nothing_is_asked() {
    let server = McpServer::new(
        common::examples_at("http://127.0.0.1:9"),
        &ServeOptions::default(),
    )
    .unwrap();
    let user = User::new(true, Vec::new());
    let shown = Arc::clone(&user.shown);
    let results = calls(server, user, 1);
    assert_eq!(results[0]["isError"], json!(true));
    assert!(shown.lock().unwrap().is_empty());
}

/// `_meta` of a request on protocol 2026-07-28 from a client that shows forms.
#[cfg(feature = "http")]
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "elicitation-test", "version": "1"}
    })
}

#[cfg(feature = "http")]
#[test]
fn on_protocol_2026_07_28_the_form_comes_back_as_input_required() {
    let (url, asked) = common::json_upstream(1, HOLIDAY);
    let server = McpServer::new(common::examples_at(&url), &serving_the_agent()).unwrap();
    let running = support::start(Endpoints::single(server), HttpOptions::default()).unwrap();
    let endpoint = format!("{}{}", running.base, flowmcp_mcp::http::MCP_PATH);
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", TOOL),
    ];
    let first = support::post(
        &endpoint,
        &headers,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": TOOL, "arguments": {"year": 2026}, "_meta": modern_meta()}}),
    );
    assert_eq!(first.status, 200, "{}", first.body);
    let first: Value = serde_json::from_str(&first.body).unwrap();
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let request = &result["inputRequests"]["flowmcp-elicitation"];
    assert_eq!(request["method"], "elicitation/create", "{first}");
    assert_eq!(
        request["params"]["message"],
        "Which country do you live in?"
    );
    // The retried call carries the answer and runs.
    let second = support::post(
        &endpoint,
        &headers,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": TOOL, "arguments": {"year": 2026}, "_meta": modern_meta(),
            "inputResponses": {"flowmcp-elicitation": {"action": "accept", "content": {"countryCode": "FR"}}}}}),
    );
    let second: Value = serde_json::from_str(&second.body).unwrap();
    assert_eq!(second["result"]["isError"], json!(false), "{second}");
    drop(running);
    assert_eq!(asked.join().unwrap(), ["/holidays/2026/FR"]);
}
