//! Issue #44, scope 5 (D142): per-client credentials over HTTP. Two clients with different keys
//! call one server; each gets its own account's data, the preload cache serves each its own
//! entry only, and neither key shows in the server's logs or metrics. Without the header a call
//! is E006; a reserved name is refused; the listener refuses to take keys off loopback.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use flowmcp_catalog::serde_json::{Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};
use flowmcp_mcp::{Endpoints, HttpError, HttpOptions, McpServer, ServeOptions};

use crate::runtime_support::{Scratch, TestServer, reply};
use crate::support::{get, post, start, tool_names};

const KEY_A: &str = "CANARY-key-a-7d41e0";
const KEY_B: &str = "CANARY-key-b-2c93f8";

const SCHEMA: &str = r#"export const main = {
    namespace: 'keyed',
    name: 'Keyed',
    description: 'An API that answers with the account of the key it is called with.',
    version: '4.2.0',
    root: 'https://api.keyed.example',
    requiredServerParams: [ 'KEYED_API_KEY' ],
    headers: { 'X-Api-Key': '{{SERVER_PARAM:KEYED_API_KEY}}' },
    tools: {
        whoAmI: {
            method: 'GET',
            path: '/me',
            description: 'The account the key belongs to.',
            parameters: [],
            preload: { enabled: true, ttl: 3600, description: 'The account, hourly' },
            output: { mimeType: 'application/json', schema: { type: 'object', properties: {
                account: { type: 'string' }, fetch: { type: 'number' } } } },
            tests: [ { _description: 'Who am I' }, { _description: 'Again' }, { _description: 'Once more' } ],
            meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'account', aliases: [], alwaysLoad: false }
        }
    }
}
"#;

/// What every thread of this process logged (through `tracing`), once the collector is set.
fn logged() -> &'static Mutex<Vec<String>> {
    static LINES: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    LINES.get_or_init(Mutex::default)
}

/// A `tracing` collector that keeps every event's fields as text.
struct Collect;

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!(" {}={value:?}", field.name()));
    }
}

impl tracing::Subscriber for Collect {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut f = Fields(String::new());
        span.record(&mut f);
        logged().lock().unwrap().push(f.0);
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut f = Fields(String::new());
        values.record(&mut f);
        logged().lock().unwrap().push(f.0);
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut f = Fields(event.metadata().target().to_string());
        event.record(&mut f);
        logged().lock().unwrap().push(f.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// The example API: the account of each known key and the number of the fetch, 401 otherwise.
fn keyed_upstream(fetches: Arc<AtomicUsize>) -> TestServer {
    TestServer::start(8, move |seen| {
        let account = match seen.header("x-api-key") {
            Some(KEY_A) => "alice",
            Some(KEY_B) => "bob",
            _ => return reply(401, Some("text/plain"), "no such key"),
        };
        let n = fetches.fetch_add(1, Ordering::SeqCst) + 1;
        reply(
            200,
            Some("application/json"),
            json!({"account": account, "fetch": n}).to_string(),
        )
    })
}

/// The `keyed` catalog sent to `upstream`, with a preload cache in `cache` and no value of its
/// own for `KEYED_API_KEY`, counted in `metrics` when given.
fn keyed_catalog(
    dir: &Scratch,
    upstream: &str,
    cache: &Scratch,
    metrics: Option<&flowmcp_mcp::http::Metrics>,
) -> Arc<Catalog> {
    dir.write("keyed.mjs", SCHEMA);
    let mut o = CatalogOptions::new(Profile::Spec)
        .upstream("keyed", upstream)
        .unwrap();
    o.env_override = Some(std::collections::BTreeMap::new());
    o.runner.cache = Some(flowmcp_catalog::runtime::Cache::new(&cache.0).into());
    if let Some(m) = metrics {
        o.runner.observer = Some(Arc::new(m.clone()));
    }
    Arc::new(Catalog::open(&dir.0, &o).unwrap())
}

fn with_credentials() -> ServeOptions {
    let mut o = ServeOptions::default();
    o.client_credentials = true;
    o
}

#[test]
fn i44_two_clients_with_their_own_keys_see_only_their_own_data_and_cache() {
    let _ = tracing::subscriber::set_global_default(Collect);
    let fetches = Arc::new(AtomicUsize::new(0));
    let upstream = keyed_upstream(Arc::clone(&fetches));
    let (dir, cache) = (Scratch::new("i44-cc"), Scratch::new("i44-cc-cache"));
    let metrics = flowmcp_mcp::http::Metrics::new();
    let catalog = keyed_catalog(&dir, &upstream.base, &cache, Some(&metrics));

    // Without the option the tool waits for its key; with it, it is served.
    let plain = McpServer::shared(Arc::clone(&catalog), &ServeOptions::default()).unwrap();
    assert_eq!(plain.tool_count(), 0);
    assert!(
        plain.waiting().contains_key("KEYED_API_KEY"),
        "{:?} {:?}",
        plain.waiting(),
        catalog.reports()
    );

    let endpoints = Endpoints::routes(&catalog, &[], &with_credentials()).unwrap();
    let mut opts = HttpOptions::default();
    opts.metrics = Some(metrics);
    let server = start(endpoints, opts).unwrap();
    let mcp = format!("{}/mcp", server.base);
    assert_eq!(tool_names(&mcp, &[]), vec!["whoAmI_keyed".to_string()]);

    let version = ("MCP-Protocol-Version", "2025-06-18");
    let call = |id: u64, headers: &[(&str, &str)]| -> Value {
        let mut h = vec![version];
        h.extend_from_slice(headers);
        let a = post(
            &mcp,
            &h,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "whoAmI_keyed", "arguments": {}}}),
        );
        assert_eq!(a.status, 200, "{}", a.body);
        let v: Value = flowmcp_catalog::serde_json::from_str(&a.body).unwrap();
        v["result"].clone()
    };
    // Header names are matched to the schema's names without regard to case.
    let a = [("X-FlowMCP-Param-keyed_api_key", KEY_A)];
    let b = [("x-flowmcp-param-KEYED_API_KEY", KEY_B)];
    let first_a = call(1, &a);
    assert_eq!(
        first_a["structuredContent"],
        json!({"account": "alice", "fetch": 1}),
        "{first_a}"
    );
    // B's first call is fetched with B's key: A's entry is not B's.
    let first_b = call(2, &b);
    assert_eq!(
        first_b["structuredContent"],
        json!({"account": "bob", "fetch": 2}),
        "{first_b}"
    );
    // Each one's second call comes from its own cache entry.
    let again_a = call(3, &a);
    assert_eq!(again_a["structuredContent"], first_a["structuredContent"]);
    let again_b = call(4, &b);
    assert_eq!(again_b["structuredContent"], first_b["structuredContent"]);
    assert_eq!(fetches.load(Ordering::SeqCst), 2);

    // Without a key: the usual E006 naming the variable.
    let none = call(5, &[]);
    assert_eq!(none["isError"], true, "{none}");
    let text = none["content"].to_string();
    assert!(
        text.contains("E006") && text.contains("KEYED_API_KEY"),
        "{text}"
    );
    // A name reserved for flowmcp itself is refused, its value not repeated.
    let reserved = post(
        &mcp,
        &[version, ("X-FlowMCP-Param-FLOWMCP_AUTH_TOKEN", KEY_A)],
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
            "params": {"name": "whoAmI_keyed", "arguments": {}}}),
    );
    assert_eq!(reserved.status, 400, "{}", reserved.body);
    assert!(reserved.body.contains("reserved"), "{}", reserved.body);
    assert!(!reserved.body.contains(KEY_A), "{}", reserved.body);

    let shown = get(&format!("{}/metrics", server.base));
    assert_eq!(shown.status, 200);
    assert!(
        shown
            .body
            .contains(r#"flowmcp_preload_cache_lookups_total{result="hit"} 2"#),
        "{}",
        shown.body
    );
    drop(server);
    let seen = upstream.finish();
    let keys: Vec<_> = seen.iter().map(|s| s.header("x-api-key")).collect();
    assert_eq!(keys, vec![Some(KEY_A), Some(KEY_B)]);

    // Neither key in the metrics, the server's logs or the cache's files.
    assert!(!shown.body.contains("CANARY"), "{}", shown.body);
    let lines = logged().lock().unwrap().clone();
    assert!(
        lines.iter().any(|l| l.contains("whoAmI")),
        "the calls were logged: {lines:?}"
    );
    for line in &lines {
        assert!(!line.contains(KEY_A) && !line.contains(KEY_B), "{line}");
    }
    for entry in walk(&cache.0) {
        let bytes = std::fs::read(&entry).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("CANARY"), "{}: {text}", entry.display());
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn i44_client_credentials_are_refused_off_loopback() {
    let (dir, cache) = (Scratch::new("i44-cc-off"), Scratch::new("i44-cc-off-cache"));
    let catalog = keyed_catalog(&dir, "http://127.0.0.1:9", &cache, None);
    let endpoints = Endpoints::routes(&catalog, &[], &with_credentials()).unwrap();
    let mut opts = HttpOptions::default();
    opts.listen = SocketAddr::from(([0, 0, 0, 0], 0));
    opts.auth_token = Some("token-i44".into());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = rt.block_on(endpoints.run(opts, |_| {}, async {}));
    match outcome {
        Err(e @ HttpError::ClientCredentialsOffLoopback { .. }) => {
            assert!(e.to_string().contains("loopback"), "{e}");
        }
        other => panic!("not refused: {other:?}"),
    }
}
