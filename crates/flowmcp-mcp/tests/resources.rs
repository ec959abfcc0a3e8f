//! A catalog's resources over MCP, with a real client: SQLite queries and markdown documents are
//! tools (`tools/list`, `tools/call`) with local hints, and documents are also resources
//! (`resources/list`, `resources/templates/list`, `resources/read`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile, runtime::ResourceOptions};
use flowmcp_mcp::{McpServer, ServeOptions};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use rmcp::service::ServiceError;

const SCHEMA: &str = r#"
export const main = {
    namespace: 'demo', name: 'Demo', description: 'Resources over MCP', version: '4.2.0', tools: {},
    resources: {
        tokens: {
            source: 'sqlite', mode: 'in-memory', origin: 'inline', name: 'demo-tokens.db',
            description: 'Token metadata by symbol',
            queries: {
                bySymbol: {
                    sql: 'SELECT symbol, decimals FROM tokens WHERE symbol = ?',
                    description: 'Look up a token by its symbol',
                    parameters: [ { position: { key: 'symbol', value: '{{USER_PARAM}}' }, z: { primitive: 'string()', options: [] } } ],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: { symbol: { type: 'string' }, decimals: { type: 'number' } } } } },
                    tests: [ { _description: 'a', symbol: 'USDC' }, { _description: 'b', symbol: 'WETH' }, { _description: 'c', symbol: 'DAI' } ]
                }
            }
        },
        guide: { source: 'markdown', origin: 'inline', name: 'demo-guide.md', description: 'How to use the demo' }
    }
}
"#;

fn catalog() -> (PathBuf, Catalog) {
    catalog_of(SCHEMA)
}

fn catalog_of(schema: &str) -> (PathBuf, Catalog) {
    // One directory per call: tests run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("flowmcp-mcp-resources-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("resources")).unwrap();
    std::fs::write(dir.join("demo.mjs"), schema).unwrap();
    std::fs::write(
        dir.join("resources/demo-guide.md"),
        "# Guide\n\n## Install\n\nRun it.\n",
    )
    .unwrap();
    let db = rusqlite::Connection::open(dir.join("resources/demo-tokens.db")).unwrap();
    db.execute_batch("CREATE TABLE tokens (symbol TEXT, decimals INTEGER); INSERT INTO tokens VALUES ('USDC', 6);")
        .unwrap();
    drop(db);
    let mut o = CatalogOptions::new(Profile::Spec);
    o.env_override = Some(BTreeMap::new());
    o.runner.resources = ResourceOptions::default();
    let c = Catalog::open(&dir.join("demo.mjs"), &o).unwrap();
    (dir, c)
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn code(e: ServiceError) -> i32 {
    match e {
        ServiceError::McpError(d) => d.code.0,
        other => panic!("not a protocol error: {other}"),
    }
}

/// Issue #29, call plan (typed `meta` owned by each entry): a resource query named like a tool of
/// its schema does not take that tool's `meta`. The MCP server used to look `meta` up by the
/// entry's name in `main.tools`, so in lazy mode the query `bySymbol` was listed as always loaded
/// (and run one at a time) because the tool `bySymbol` says `alwaysLoad: true`.
#[test]
fn i29_3_a_query_named_like_a_tool_does_not_take_its_meta() {
    let schema = SCHEMA.replace(
        "version: '4.2.0', tools: {},",
        "version: '4.2.0', root: 'https://api.example.com', tools: { bySymbol: { method: 'GET', \
         path: '/x', description: 'A tool named like the query', parameters: [], \
         meta: { isReadOnly: true, isConcurrencySafe: false, isDestructive: false, \
         searchHint: 'tool', aliases: [], alwaysLoad: true }, \
         tests: [ { _description: 'a' }, { _description: 'b' }, { _description: 'c' } ] } },",
    );
    assert_ne!(schema, SCHEMA);
    let (dir, catalog) = catalog_of(&schema);
    let tool = catalog
        .find("demo/tool/bySymbol")
        .expect("the tool is callable");
    assert!(tool.descriptor.always_load() && !tool.descriptor.concurrency_safe());
    let query = catalog.find("demo/resource/tokens-bySymbol").unwrap();
    assert!(!query.descriptor.always_load() && query.descriptor.concurrency_safe());
    let mut opts = ServeOptions::default();
    opts.lazy = true;
    let server = McpServer::new(catalog, &opts).unwrap();
    support::with_client(server, (), async |client| {
        let tools = client.list_all_tools().await.unwrap();
        let always: Vec<String> = tools
            .iter()
            .filter_map(|t| {
                let listed = serde_json::to_value(t).unwrap();
                let id = listed["_meta"]["flowmcp/id"].as_str()?.to_string();
                Some(id)
            })
            .collect();
        assert_eq!(always, ["demo/tool/bySymbol"]);
    });
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue #29, IDs: over MCP each resource-query tool carries its own ID in `_meta["flowmcp/id"]`
/// (not its resource's, shared by all of them), and that ID is one the ID grammar accepts.
#[test]
fn i29_ids_each_resource_query_tool_carries_its_own_id() {
    let (dir, catalog) = catalog();
    let server = McpServer::new(catalog, &ServeOptions::default()).unwrap();
    support::with_client(server, (), async |client| {
        let tools = client.list_all_tools().await.unwrap();
        let ids: Vec<(String, String)> = tools
            .iter()
            .map(|t| {
                let listed = serde_json::to_value(t).unwrap();
                let id = listed["_meta"]["flowmcp/id"].as_str().unwrap().to_string();
                (t.name.to_string(), id)
            })
            .collect();
        assert_eq!(
            ids,
            [
                (
                    "bySymbol_demo".into(),
                    "demo/resource/tokens-bySymbol".into()
                ),
                ("runSql_demo".into(), "demo/resource/tokens-runSql".into()),
                (
                    "describeTables_demo".into(),
                    "demo/resource/tokens-describeTables".into()
                ),
                ("guide_demo".into(), "demo/resource/guide".into()),
            ]
        );
        for (_, id) in &ids {
            flowmcp_spec::id::PrimitiveId::parse(id).unwrap();
        }
    });
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn resources_are_tools_and_documents_are_resources_over_mcp() {
    let (dir, catalog) = catalog();
    let server = McpServer::new(catalog, &ServeOptions::default()).unwrap();
    support::with_client(server, (), async |client| {
        assert!(client.peer_info().unwrap().capabilities.resources.is_some());

        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "bySymbol_demo",
                "runSql_demo",
                "describeTables_demo",
                "guide_demo"
            ]
        );
        let listed = serde_json::to_value(&tools[0]).unwrap();
        assert_eq!(listed["title"], json!("tokens.bySymbol"));
        assert_eq!(
            listed["annotations"],
            json!({"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false})
        );
        assert_eq!(
            listed["_meta"]["flowmcp/id"],
            json!("demo/resource/tokens-bySymbol")
        );
        assert_eq!(listed["_meta"]["anthropic/alwaysLoad"], json!(false));

        let ok = client
            .call_tool(
                CallToolRequestParams::new("bySymbol_demo")
                    .with_arguments(args(json!({"symbol": "USDC"}))),
            )
            .await
            .unwrap();
        assert_eq!(ok.is_error, Some(false));
        let text = serde_json::to_string(&ok.content).unwrap();
        assert!(text.contains("USDC"), "{text}");
        let refused = client
            .call_tool(
                CallToolRequestParams::new("runSql_demo")
                    .with_arguments(args(json!({"sql": "DELETE FROM tokens"}))),
            )
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true));
        assert!(
            serde_json::to_string(&refused.content)
                .unwrap()
                .contains("E009")
        );

        let resources = client.list_all_resources().await.unwrap();
        assert_eq!(resources.len(), 1);
        assert_eq!(resources[0].uri, "flowmcp://demo/resource/guide");
        let templates = client.list_all_resource_templates().await.unwrap();
        assert_eq!(
            templates[0].uri_template,
            "flowmcp://demo/resource/guide{?section,lines,search}"
        );
        let read = client
            .read_resource(ReadResourceRequestParams::new(
                "flowmcp://demo/resource/guide?section=Install",
            ))
            .await
            .unwrap();
        match &read.contents[0] {
            ResourceContents::TextResourceContents { text, .. } => {
                assert_eq!(text, "## Install\n\nRun it.");
            }
            other => panic!("{other:?}"),
        }
        // A section that does not exist is the reader's error (invalid params).
        let e = client
            .read_resource(ReadResourceRequestParams::new(
                "flowmcp://demo/resource/guide?section=Nope",
            ))
            .await
            .unwrap_err();
        assert_eq!(code(e), -32602);
    });
    let _ = std::fs::remove_dir_all(dir);
}
