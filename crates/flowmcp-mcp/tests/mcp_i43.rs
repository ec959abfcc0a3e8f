//! Issue #43: `completion/complete` for prompt and skill arguments, `logging/setLevel` with
//! `notifications/message`, and `notifications/progress` during a tool call, with a real rmcp
//! client (and plain HTTP POSTs where HTTP can carry them).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::support;

use std::collections::HashMap;

use flowmcp_catalog::serde_json::json;
use flowmcp_mcp::{McpServer, ServeOptions};
use rmcp::RoleClient;
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, CompletionContext, CompletionInfo, Reference,
};
use rmcp::service::RunningService;

const BRIDGE_DAYS: &str = "holidaykit-net/prompt/bridge-days";
const LONG_WEEKENDS: &str = "holidaykit-net/skill/plan-long-weekends";

/// `completion/complete` of `argument` of the prompt `prompt` for `value`, with `context`.
async fn complete(
    client: &RunningService<RoleClient, ()>,
    prompt: &str,
    argument: &str,
    value: &str,
    context: &[(&str, &str)],
) -> CompletionInfo {
    let mut params = CompleteRequestParams::new(
        Reference::for_prompt(prompt),
        ArgumentInfo::new(argument, value),
    );
    if !context.is_empty() {
        let args: HashMap<String, String> = context
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        params.context = Some(CompletionContext::with_arguments(args));
    }
    client.complete(params).await.unwrap().completion
}

#[test]
fn i43_a_prompt_argument_completes_from_the_shared_list_of_the_tool_it_is_handed_to() {
    let server = McpServer::shared(support::catalog(), &ServeOptions::default()).unwrap();
    support::with_client(server, (), async |client| {
        let caps = &client.peer_info().unwrap().capabilities;
        assert!(caps.completions.is_some());
        // `countryCode` goes to getPublicHolidays' `enum({{countries:alpha2}})`, whose list
        // reference filters on `holidays: true`.
        let got = complete(client, BRIDGE_DAYS, "countryCode", "D", &[]).await;
        assert_eq!(got.values, ["DE"]);
        assert_eq!(got.total, Some(1));
        assert_eq!(got.has_more, Some(false));
        let all = complete(client, BRIDGE_DAYS, "countryCode", "", &[]).await;
        assert_eq!(
            all.values,
            ["AT", "AU", "BR", "CA", "DE", "FR", "GB", "JP", "US"],
            "Iceland and New Zealand have `holidays: false`"
        );
        // Lower case, and a substring after the prefixes: "a" starts AT and AU, sits in CA.
        let got = complete(client, BRIDGE_DAYS, "countryCode", "a", &[]).await;
        assert_eq!(got.values, ["AT", "AU", "CA"]);
        // A free-text argument, an unknown argument: nothing.
        assert!(
            complete(client, BRIDGE_DAYS, "year", "20", &[])
                .await
                .values
                .is_empty()
        );
        assert!(
            complete(client, BRIDGE_DAYS, "nope", "", &[])
                .await
                .values
                .is_empty()
        );
    });
}

#[test]
fn i43_a_skill_argument_is_narrowed_by_the_argument_its_list_points_to() {
    let server = McpServer::shared(support::catalog(), &ServeOptions::default()).unwrap();
    support::with_client(server, (), async |client| {
        // The skill's prefill hands `countryCode` to getPublicHolidays; `region` reaches the
        // same tool's `enum({{subdivisions:code}})` through `{{tool:getPublicHolidays}}`.
        let all = complete(client, LONG_WEEKENDS, "region", "", &[]).await;
        assert_eq!(all.total, Some(10));
        let de = complete(
            client,
            LONG_WEEKENDS,
            "region",
            "",
            &[("countryCode", "DE")],
        )
        .await;
        assert_eq!(de.values, ["DE-BE", "DE-BY", "DE-HH"]);
        let de_b = complete(
            client,
            LONG_WEEKENDS,
            "region",
            "b",
            &[("countryCode", "DE")],
        )
        .await;
        assert_eq!(de_b.values, ["DE-BE", "DE-BY"]);
        // A country without subdivisions narrows to nothing; one the list does not know, or no
        // country, leaves every region.
        let fr = complete(
            client,
            LONG_WEEKENDS,
            "region",
            "",
            &[("countryCode", "FR")],
        )
        .await;
        assert!(fr.values.is_empty());
        let xx = complete(
            client,
            LONG_WEEKENDS,
            "region",
            "",
            &[("countryCode", "XX")],
        )
        .await;
        assert_eq!(xx.total, Some(10));
        let cc = complete(client, LONG_WEEKENDS, "countryCode", "G", &[]).await;
        assert_eq!(cc.values, ["GB"]);
    });
}

/// A prompt the server does not have completes to nothing (the conformance suite's
/// `completion-complete` asks for `test_prompt_with_arguments` and wants a result), as an unknown
/// argument does; the answer is a completion, not an error.
#[test]
fn i43_completing_an_unknown_prompt_gives_no_values() {
    let server = McpServer::shared(support::catalog(), &ServeOptions::default()).unwrap();
    support::with_client(server, (), async |client| {
        let got = client
            .complete(CompleteRequestParams::new(
                Reference::for_prompt("test_prompt_with_arguments"),
                ArgumentInfo::new("arg1", "test"),
            ))
            .await
            .unwrap();
        assert!(got.completion.values.is_empty());
        assert_eq!(got.completion.total, Some(0));
        assert_eq!(got.completion.has_more, Some(false));
    });
}

#[cfg(feature = "http")]
#[test]
fn i43_completion_answers_over_http() {
    use flowmcp_mcp::{Endpoints, HttpOptions};
    let running = support::start(
        Endpoints::single(McpServer::shared(support::catalog(), &ServeOptions::default()).unwrap()),
        HttpOptions::default(),
    )
    .unwrap();
    let url = format!("{}/mcp", running.base);
    let init = support::post(&url, &[], &support::initialize());
    assert_eq!(init.status, 200, "{}", init.body);
    assert!(init.body.contains("\"completions\""), "{}", init.body);
    let got = support::post(
        &url,
        &[("MCP-Protocol-Version", "2025-06-18")],
        &json!({"jsonrpc": "2.0", "id": 2, "method": "completion/complete", "params": {
            "ref": {"type": "ref/prompt", "name": BRIDGE_DAYS},
            "argument": {"name": "countryCode", "value": "D"}}}),
    );
    assert_eq!(got.status, 200, "{}", got.body);
    let v: flowmcp_catalog::serde_json::Value =
        flowmcp_catalog::serde_json::from_str(&got.body).unwrap();
    assert_eq!(
        v["result"]["completion"],
        json!({"values": ["DE"], "total": 1, "hasMore": false})
    );
    running.stop().unwrap();
}

/// A client that keeps the log messages and progress notifications it hears.
#[derive(Clone, Default)]
struct Listener {
    messages: std::sync::Arc<std::sync::Mutex<Vec<flowmcp_catalog::serde_json::Value>>>,
    progress: std::sync::Arc<std::sync::Mutex<Vec<rmcp::model::ProgressNotificationParam>>>,
}

#[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); the protocol has it.
impl rmcp::ClientHandler for Listener {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.messages
            .lock()
            .unwrap()
            .push(flowmcp_catalog::serde_json::to_value(&params).unwrap());
    }
}

/// The example catalog with its skycast-io key set to a canary and both providers answered by
/// the local `upstream`.
fn canary_catalog(upstream: &str) -> flowmcp_catalog::Catalog {
    let mut o = crate::common::local_options(
        flowmcp_catalog::Profile::Spec,
        &[("holidaykit-net", upstream), ("skycast-io", upstream)],
    );
    o.env_override = Some(std::collections::BTreeMap::from([(
        "SKYCAST_API_KEY".to_string(),
        CANARY.to_string(),
    )]));
    flowmcp_catalog::Catalog::open(&crate::common::examples(), &o).unwrap()
}

const CANARY: &str = "canary-secret-i43";
const CITY: &str = "Argumentville";

/// Waits until `n` items arrived in `items` (notifications are handled off the call's reply).
async fn wait_for<T>(items: &std::sync::Mutex<Vec<T>>, n: usize) {
    for _ in 0..100 {
        if items.lock().unwrap().len() >= n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); the protocol has it.
#[test]
fn i43_log_messages_reach_a_client_at_its_level_without_secrets_or_arguments() {
    use rmcp::model::{CallToolRequestParams, LoggingLevel, SetLevelRequestParams};
    let (base, upstream) = crate::common::json_upstream(3, r#"{"temperature": 21}"#);
    let server = McpServer::new(canary_catalog(&base), &ServeOptions::default()).unwrap();
    let listener = Listener::default();
    let messages = std::sync::Arc::clone(&listener.messages);
    support::with_client(server, listener, async |client| {
        assert!(client.peer_info().unwrap().capabilities.logging.is_some());
        let call = || {
            let mut args = flowmcp_catalog::serde_json::Map::new();
            args.insert("city".into(), json!(CITY));
            CallToolRequestParams::new("getCurrentConditions_skycast-io").with_arguments(args)
        };
        // Before the client asks, nothing.
        let r = client.call_tool(call()).await.unwrap();
        assert_ne!(r.is_error, Some(true), "{r:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(messages.lock().unwrap().is_empty());

        client
            .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
            .await
            .unwrap();
        client.call_tool(call()).await.unwrap();
        wait_for(&messages, 3).await;
        let heard = messages.lock().unwrap().clone();
        let end = heard
            .iter()
            .find(|m| m["logger"] == json!("flowmcp::call"))
            .unwrap_or_else(|| panic!("no call line in {heard:?}"));
        assert_eq!(end["level"], json!("info"));
        assert_eq!(
            end["data"]["tool"],
            json!("skycast-io/tool/getCurrentConditions")
        );
        assert_eq!(end["data"]["outcome"], json!("ok"));
        assert!(
            heard
                .iter()
                .any(|m| m["data"]["phase"] == json!("running on a worker"))
        );
        let text = flowmcp_catalog::serde_json::to_string(&heard).unwrap();
        assert!(!text.contains(CANARY), "{text}");
        assert!(!text.contains(CITY), "{text}");

        // At `error`, a successful call says nothing.
        messages.lock().unwrap().clear();
        client
            .set_level(SetLevelRequestParams::new(LoggingLevel::Error))
            .await
            .unwrap();
        client.call_tool(call()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(messages.lock().unwrap().is_empty());
    });
    let urls = upstream.join().unwrap();
    assert_eq!(urls.len(), 3, "{urls:?}");
}

#[test]
fn i43_a_call_with_a_progress_token_reports_its_phases_in_order() {
    use rmcp::model::CallToolRequestParams;
    let (base, upstream) =
        crate::common::json_upstream(1, r#"{"countryCode": "DE", "holidays": []}"#);
    let server = McpServer::new(canary_catalog(&base), &ServeOptions::default()).unwrap();
    let listener = Listener::default();
    let progress = std::sync::Arc::clone(&listener.progress);
    let messages = std::sync::Arc::clone(&listener.messages);
    support::with_client(server, listener, async |client| {
        let call = CallToolRequestParams::new("getNextHolidays_holidaykit-net");
        let mut args = flowmcp_catalog::serde_json::Map::new();
        args.insert("countryCode".into(), json!("DE"));
        let call = call.with_arguments(args);
        let r = client.call_tool(call).await.unwrap();
        assert_ne!(r.is_error, Some(true), "{r:?}");
        wait_for(&progress, 3).await;
        let got = progress.lock().unwrap().clone();
        let said: Vec<&str> = got.iter().filter_map(|p| p.message.as_deref()).collect();
        assert_eq!(said, ["preparing the call", "running on a worker", "done"]);
        // rmcp's client puts a token of its own on every request; all say the same one.
        assert!(
            got.iter()
                .all(|p| p.progress_token == got[0].progress_token)
        );
        let steps: Vec<f64> = got.iter().map(|p| p.progress).collect();
        assert_eq!(steps, [1.0, 2.0, 3.0]);
        assert_eq!(got[2].total, Some(3.0));
        assert_eq!(got[0].total, None);
        // No log level was asked for: no messages.
        assert!(messages.lock().unwrap().is_empty());
    });
    assert_eq!(upstream.join().unwrap().len(), 1);
}

/// Over the stdio framing (newline-delimited JSON-RPC), a call without a progress token hears
/// no progress, and one with a token hears its phases, the last with its total.
#[test]
fn i43_progress_goes_only_to_a_call_that_carries_a_token() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (base, upstream) =
        crate::common::json_upstream(2, r#"{"countryCode": "DE", "holidays": []}"#);
    let server = McpServer::new(canary_catalog(&base), &ServeOptions::default()).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let (a, b) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(server.serve_io(a));
        let (read, mut write) = tokio::io::split(b);
        let mut lines = BufReader::new(read).lines();
        // Sends `message`; returns the lines up to the answer to request `id`.
        let mut ask = async |message: flowmcp_catalog::serde_json::Value, id: Option<i64>| {
            write
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
            let mut got = Vec::new();
            let Some(id) = id else { return got };
            while let Some(line) = lines.next_line().await.unwrap() {
                let v: flowmcp_catalog::serde_json::Value =
                    flowmcp_catalog::serde_json::from_str(&line).unwrap();
                let done = v["id"] == json!(id);
                got.push(v);
                if done {
                    break;
                }
            }
            got
        };
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "i43", "version": "1"}}});
        ask(init, Some(1)).await;
        ask(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            None,
        )
        .await;
        let call = |id: i64, meta: flowmcp_catalog::serde_json::Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "getNextHolidays_holidaykit-net", "arguments": {"countryCode": "DE"},
                "_meta": meta}})
        };
        let plain = ask(call(2, json!({})), Some(2)).await;
        assert_eq!(plain.len(), 1, "{plain:?}");
        let watched = ask(call(3, json!({"progressToken": "p-43"})), Some(3)).await;
        let progress: Vec<_> = watched
            .iter()
            .filter(|m| m["method"] == json!("notifications/progress"))
            .map(|m| m["params"].clone())
            .collect();
        assert_eq!(progress.len(), 3, "{watched:?}");
        assert!(progress.iter().all(|p| p["progressToken"] == json!("p-43")));
        assert_eq!(progress[2]["total"], json!(3.0));
        assert_eq!(progress[2]["message"], json!("done"));
        drop(lines);
        drop(write);
        let _ = serving.await;
    });
    assert_eq!(upstream.join().unwrap().len(), 2);
}

/// Over stateless HTTP, `logging/setLevel` is answered and remembered for the request's
/// principal (D135), and a call with a progress token is answered as an event stream: its
/// progress, then its result.
#[cfg(feature = "http")]
#[test]
fn i43_http_answers_set_level_and_a_call_with_a_progress_token() {
    use flowmcp_mcp::{Endpoints, HttpOptions};
    let (base, upstream) =
        crate::common::json_upstream(3, r#"{"countryCode": "DE", "holidays": []}"#);
    let server = McpServer::new(canary_catalog(&base), &ServeOptions::default()).unwrap();
    let running = support::start(Endpoints::single(server), HttpOptions::default()).unwrap();
    let url = format!("{}/mcp", running.base);
    let init = support::post(&url, &[], &support::initialize());
    assert!(init.body.contains("\"logging\""), "{}", init.body);
    let version = [("MCP-Protocol-Version", "2025-06-18")];
    let level = support::post(
        &url,
        &version,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
            "params": {"level": "info"}}),
    );
    assert_eq!(level.status, 200, "{}", level.body);
    let v: flowmcp_catalog::serde_json::Value =
        flowmcp_catalog::serde_json::from_str(&level.body).unwrap();
    assert_eq!(v["result"], json!({}), "{v}");
    let call = support::post(
        &url,
        &version,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "getNextHolidays_holidaykit-net", "arguments": {"countryCode": "DE"},
            "_meta": {"progressToken": "h-43"}}}),
    );
    assert_eq!(call.status, 200, "{}", call.body);
    // The notifications come first in the answer's event stream, then the result.
    let events: Vec<flowmcp_catalog::serde_json::Value> = call
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| flowmcp_catalog::serde_json::from_str(d).unwrap())
        .collect();
    let said: Vec<&str> = events
        .iter()
        .filter(|e| e["method"] == json!("notifications/progress"))
        .map(|e| e["params"]["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        said,
        ["preparing the call", "running on a worker", "done"],
        "{}",
        call.body
    );
    let last = events.last().unwrap();
    assert_eq!(last["id"], json!(3), "{last}");
    assert_eq!(last["result"]["isError"], json!(false), "{last}");
    // The level is remembered for the request's principal (the endpoint and its credential,
    // D135): the later call hears its phases as log messages too.
    assert!(call.body.contains("notifications/message"), "{}", call.body);
    // Another principal (another credential) asked for nothing: no log messages.
    let other = support::post(
        &url,
        &[
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Authorization", "Bearer someone-else"),
        ],
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "getNextHolidays_holidaykit-net", "arguments": {"countryCode": "DE"},
            "_meta": {"progressToken": "h-43-other"}}}),
    );
    assert_eq!(other.status, 200, "{}", other.body);
    assert!(
        other.body.contains("notifications/progress"),
        "{}",
        other.body
    );
    assert!(
        !other.body.contains("notifications/message"),
        "{}",
        other.body
    );
    // A call that names its own level in `_meta` (SEP-2575) hears its phases as log messages,
    // whatever its principal asked for.
    let call = support::post(
        &url,
        &[
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Authorization", "Bearer someone-else"),
        ],
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "getNextHolidays_holidaykit-net", "arguments": {"countryCode": "DE"},
            "_meta": {"io.modelcontextprotocol/logLevel": "info"}}}),
    );
    assert_eq!(call.status, 200, "{}", call.body);
    let logged: Vec<flowmcp_catalog::serde_json::Value> = call
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| {
            flowmcp_catalog::serde_json::from_str::<flowmcp_catalog::serde_json::Value>(d).unwrap()
        })
        .filter(|e| e["method"] == json!("notifications/message"))
        .collect();
    let phases: Vec<&str> = logged
        .iter()
        .filter_map(|e| e["params"]["data"]["phase"].as_str())
        .collect();
    assert_eq!(
        phases,
        ["preparing the call", "running on a worker"],
        "{}",
        call.body
    );
    assert_eq!(
        logged.last().unwrap()["params"]["data"]["message"],
        json!("tool call"),
        "{}",
        call.body
    );
    running.stop().unwrap();
    assert_eq!(upstream.join().unwrap().len(), 3);
}

/// D134: under the reference's tool names, prompts and skills get flat names as tools do; the
/// flat name lists, renders and completes, the Primitive-ID still finds the prompt, and
/// `_meta["flowmcp/id"]` keeps the ID.
#[test]
fn i43_under_reference_names_prompts_get_flat_names_that_render_and_complete() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut opts = flowmcp_catalog::CatalogOptions::new(flowmcp_catalog::Profile::Spec);
    opts.tool_names = flowmcp_catalog::runtime::ToolNames::Reference;
    let catalog = std::sync::Arc::new(flowmcp_catalog::Catalog::open(&dir, &opts).unwrap());
    let server = McpServer::shared(catalog, &ServeOptions::default()).unwrap();
    support::with_client(server, (), async |client| {
        let listed = client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = listed.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"bridge_days_holidaykit_net"), "{names:?}");
        assert!(
            names.contains(&"plan_long_weekends_holidaykit_net"),
            "{names:?}"
        );
        assert!(names.iter().all(|n| !n.contains('/')), "{names:?}");
        let bridge = listed
            .iter()
            .find(|p| p.name == "bridge_days_holidaykit_net")
            .unwrap();
        assert_eq!(
            bridge.meta.as_ref().unwrap().0["flowmcp/id"],
            json!(BRIDGE_DAYS)
        );
        let args: flowmcp_catalog::serde_json::Map<String, flowmcp_catalog::serde_json::Value> = [
            ("countryCode".to_string(), json!("DE")),
            ("year".to_string(), json!("2026")),
        ]
        .into_iter()
        .collect();
        for name in ["bridge_days_holidaykit_net", BRIDGE_DAYS] {
            let got = client
                .get_prompt(
                    rmcp::model::GetPromptRequestParams::new(name).with_arguments(args.clone()),
                )
                .await
                .unwrap();
            let text = flowmcp_catalog::serde_json::to_string(&got.messages).unwrap();
            assert!(text.contains("bridge days of DE in 2026"), "{name}: {text}");
        }
        let got = complete(
            client,
            "bridge_days_holidaykit_net",
            "countryCode",
            "D",
            &[],
        )
        .await;
        assert_eq!(got.values, ["DE"]);
    });
}
