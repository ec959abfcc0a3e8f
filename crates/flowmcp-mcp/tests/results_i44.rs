//! Issue #44, scope 1: a result over the server's budget says which call of the tool's own
//! paging fetches what follows (an offset past the elements kept, the next cursor of the answer),
//! with a real rmcp client against a local upstream.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::sync::Arc;

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};
use flowmcp_mcp::{McpServer, ServeOptions};
use rmcp::model::CallToolRequestParams;

use crate::runtime_support::{Scratch, Seen, TestServer, reply};
use crate::support;

const SCHEMA: &str = r#"export const main = {
    namespace: 'pager',
    name: 'Pager',
    description: 'A paged list, for the result budget tests.',
    version: '4.2.0',
    root: 'https://api.pager.example',
    tools: {
        byOffset: {
            method: 'GET',
            path: '/items',
            description: 'Items from an offset.',
            parameters: [
                { position: { key: 'offset', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'number()', options: [ 'optional()' ] } }
            ],
            output: { mimeType: 'application/json', schema: { type: 'object', properties: {
                items: { type: 'array', items: { type: 'object', properties: { id: { type: 'number' }, text: { type: 'string' } } } },
                next_cursor: { type: 'string' } } } },
            tests: [ { _description: 'The first items' }, { _description: 'Again' }, { _description: 'Once more' } ],
            meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'items', aliases: [], alwaysLoad: false },
        },
        byCursor: {
            method: 'GET',
            path: '/items',
            description: 'Items after a cursor.',
            parameters: [
                { position: { key: 'cursor', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [ 'optional()' ] } }
            ],
            tests: [ { _description: 'The first items' }, { _description: 'Again' }, { _description: 'Once more' } ],
            meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'items', aliases: [], alwaysLoad: false },
        }
    }
}
"#;

fn page() -> String {
    let items: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "text": format!("item {i} {}", "t".repeat(100))}))
        .collect();
    json!({"items": items, "next_cursor": "c-300"}).to_string()
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

#[test]
fn i44_a_cut_result_names_the_call_that_fetches_what_follows() {
    let dir = Scratch::new("i44-pager");
    dir.write("pager.mjs", SCHEMA);
    let upstream = TestServer::start(2, |_: &Seen| reply(200, Some("application/json"), page()));
    let opts = CatalogOptions::new(Profile::Spec)
        .upstream("pager", &upstream.base)
        .unwrap();
    let catalog = Arc::new(Catalog::open(&dir.0, &opts).unwrap());
    let mut serve = ServeOptions::default();
    serve.max_result_bytes = Some(8_000);
    let server = McpServer::shared(catalog, &serve).unwrap();
    support::with_client(server, (), async |client| {
        let r = client
            .call_tool(
                CallToolRequestParams::new("byOffset_pager")
                    .with_arguments(args(json!({"offset": 40}))),
            )
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let cut = &r.meta.as_ref().unwrap().0["flowmcp/cut"];
        let kept = r.structured_content.as_ref().unwrap()["items"]
            .as_array()
            .unwrap()
            .len();
        assert!(kept > 0 && kept < 300);
        assert_eq!(cut["next"], json!({"arguments": {"offset": 40 + kept}}));
        let r = client
            .call_tool(CallToolRequestParams::new("byCursor_pager"))
            .await
            .unwrap();
        let cut = &r.meta.as_ref().unwrap().0["flowmcp/cut"];
        assert_eq!(cut["next"], json!({"arguments": {"cursor": "c-300"}}));
        let text = flowmcp_catalog::serde_json::to_string(&r.content).unwrap();
        assert!(
            text.contains(r#"call the tool again with {\"cursor\":\"c-300\"}"#),
            "{text}"
        );
    });
    assert_eq!(upstream.finish().len(), 2);
}
