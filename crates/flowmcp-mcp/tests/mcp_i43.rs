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

#[test]
fn i43_completing_an_unknown_prompt_is_invalid_params() {
    let server = McpServer::shared(support::catalog(), &ServeOptions::default()).unwrap();
    support::with_client(server, (), async |client| {
        let e = client
            .complete(CompleteRequestParams::new(
                Reference::for_prompt("nope/prompt/nope"),
                ArgumentInfo::new("x", ""),
            ))
            .await
            .unwrap_err();
        match e {
            rmcp::service::ServiceError::McpError(d) => assert_eq!(d.code.0, -32602),
            other => panic!("{other}"),
        }
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
