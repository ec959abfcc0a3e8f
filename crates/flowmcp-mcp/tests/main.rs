//! The integration tests of this crate, compiled as one test binary (one link instead of one
//! per file); each file below is a module. `cargo test -p <crate> --test integration <module>::`
//! runs one file's tests.
// Tests and their fixtures make files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

#[path = "catalog_common/mod.rs"] // a link to the catalog's, a copy in the package
mod common;
#[path = "runtime_support/mod.rs"] // a link to the runtime's, a copy in the package
mod runtime_support;
mod support;

mod agent_tool;
// Per-client credentials over HTTP, counted in `/metrics`.
#[cfg(feature = "metrics")]
mod client_creds_i44;
mod elicitation;
// The tests that serve over HTTP need the features they test (all are on by default).
#[cfg(feature = "http")]
mod embed_i40;
#[cfg(feature = "metrics")]
mod http_i39;
#[cfg(feature = "oauth")]
mod http_oauth;
#[cfg(feature = "metrics")]
mod http_routes;
mod mcp_i43;
mod prompts;
mod registry;
mod resources;
mod results_i44;
// `/metrics` counts tasks, and replicas share them through Redis.
#[cfg(all(feature = "metrics", feature = "redis"))]
mod tasks_i43;

/// The in-process serving example, run as a test (so the documented example keeps working).
#[path = "../examples/in_process.rs"]
mod in_process_example;

/// The example of mounting the endpoints' service in a server of one's own, run as a test.
#[cfg(feature = "http")]
#[path = "../examples/embed_service.rs"]
mod embed_service_example;

#[test]
fn i29_the_in_process_example_serves_and_calls_with_flowmcp_mcp_and_tokio_only() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = rt.block_on(in_process_example::run(&root)).unwrap();
    assert!(outcome.tools >= 10, "{outcome:?}");
    assert!(!outcome.is_error, "{outcome:?}");
    // The data of examples/demo-upstream/holidays/2026/DE, through the catalog's tool.
    assert!(
        outcome.text.contains("\"date\":\"2026-01-01\""),
        "{outcome:?}"
    );
}

/// Every `outputSchema` of the example catalog's `tools/list` under `opts`, by wire name.
fn output_schemas(
    opts: &flowmcp_mcp::ServeOptions,
) -> std::collections::BTreeMap<String, Option<flowmcp_catalog::serde_json::Value>> {
    let server = flowmcp_mcp::McpServer::shared(support::catalog(), opts).unwrap();
    support::with_client(server, (), async |client| {
        let tools = client.list_all_tools().await.unwrap();
        tools
            .into_iter()
            .map(|t| {
                let listed = flowmcp_catalog::serde_json::to_value(&t).unwrap();
                (t.name.to_string(), listed.get("outputSchema").cloned())
            })
            .collect()
    })
}

/// Issue #46: a served tool's MCP entry is kept between listings with its output schema as
/// text and its input schema left to the catalog; every later listing (and a lookup) gives the
/// entry the first listing gave, for each way of advertising output schemas.
#[test]
fn i46_a_tool_listed_again_is_the_entry_first_listed() {
    use flowmcp_mcp::OutputSchemas;
    for schemas in [
        OutputSchemas::Compact,
        OutputSchemas::Full,
        OutputSchemas::None,
    ] {
        let mut opts = flowmcp_mcp::ServeOptions::default();
        opts.output_schema = schemas;
        let server = flowmcp_mcp::McpServer::shared(support::catalog(), &opts).unwrap();
        let text = |tools: Vec<rmcp::model::Tool>| {
            tools
                .iter()
                .map(|t| flowmcp_catalog::serde_json::to_string(t).unwrap())
                .collect::<Vec<_>>()
        };
        let first = text(server.tools());
        let again = text(server.tools());
        assert_eq!(first, again, "{schemas:?}");
        let listed = server.tools();
        assert!(
            listed.iter().all(|t| !t.input_schema.is_empty()),
            "{schemas:?}"
        );
        let with_output = listed.iter().filter(|t| t.output_schema.is_some()).count();
        assert_eq!(
            with_output > 0,
            schemas != OutputSchemas::None,
            "{schemas:?}"
        );
    }
}

/// Issue #30, scope 4: by default `tools/list` advertises output schemas without what no
/// validator reads (the example's property descriptions), every one still an object schema.
#[test]
fn i30_4_default_tools_list_advertises_output_schemas_without_annotations() {
    let listed = output_schemas(&flowmcp_mcp::ServeOptions::default());
    let with_schema: Vec<_> = listed.values().flatten().collect();
    assert!(with_schema.len() >= 5, "{listed:?}");
    for s in &with_schema {
        assert_eq!(s["type"], "object", "{s}");
        assert!(!s.to_string().contains("\"description\""), "{s}");
    }
    let notes = listed
        .iter()
        .find(|(n, _)| n.starts_with("getSchema_fieldnotes"))
        .and_then(|(_, s)| s.clone())
        .expect("the notebook's getSchema query is listed with a schema");
    assert_eq!(
        notes.to_string(),
        r#"{"type":"object","properties":{"data":{"type":"array","items":{"type":"object","patternProperties":{"^(name|sql)$":{"type":"string"}}}}},"required":["data"]}"#
    );
}

/// Issue #30, scope 4: `full` advertises the declared schemas (descriptions included) and
/// `none` advertises none; the tools listed are the same.
#[test]
fn i30_4_output_schema_full_and_none() {
    let compact = output_schemas(&flowmcp_mcp::ServeOptions::default());
    let mut opts = flowmcp_mcp::ServeOptions::default();
    opts.output_schema = flowmcp_mcp::OutputSchemas::Full;
    let full = output_schemas(&opts);
    opts.output_schema = flowmcp_mcp::OutputSchemas::None;
    let none = output_schemas(&opts);
    assert_eq!(
        compact.keys().collect::<Vec<_>>(),
        full.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        none.keys().collect::<Vec<_>>(),
        full.keys().collect::<Vec<_>>()
    );
    assert!(none.values().all(Option::is_none), "{none:?}");
    let notes = full
        .iter()
        .find(|(n, _)| n.starts_with("getSchema_fieldnotes"))
        .and_then(|(_, s)| s.clone())
        .unwrap();
    assert_eq!(
        notes["properties"]["data"]["items"]["properties"]["name"]["description"],
        "Table name"
    );
    let bytes = |m: &std::collections::BTreeMap<_, Option<flowmcp_catalog::serde_json::Value>>| {
        m.values()
            .flatten()
            .map(|s| s.to_string().len())
            .sum::<usize>()
    };
    assert!(bytes(&compact) < bytes(&full));
}
