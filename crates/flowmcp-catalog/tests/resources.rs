//! Resources through the catalog (chapter 13): SQLite queries and markdown documents are listed,
//! searched and called like tools, with their own names, hints and limits; documents are also
//! served as resources; read-only databases are never changed.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use flowmcp_catalog::{
    Catalog, CatalogOptions, Envelope, primitives::PrimitiveError, primitives::ResourceBody,
    runtime::Builtin, runtime::Kind, runtime::ResourceOptions,
};
use flowmcp_spec::Profile;
use serde_json::{Value, json};
use support::{Scratch, TestServer, reply};

/// A schema with an in-memory SQLite resource `tokens` (inline), a markdown resource `guide`
/// and a postRequest handler on `tokens.bySymbol`.
const SCHEMA: &str = r#"
export const main = {
    namespace: 'demo',
    name: 'Demo',
    description: 'Resources for the tests',
    version: '4.2.0',
    tools: {},
    resources: {
        tokens: {
            source: 'sqlite', mode: 'in-memory', origin: 'ORIGIN', name: 'demo-tokens.db',
            description: 'Token metadata by symbol',
            queries: {
                bySymbol: {
                    sql: 'SELECT symbol, decimals FROM tokens WHERE symbol = ? COLLATE NOCASE AND chain = ?',
                    description: 'Look up a token by its symbol',
                    parameters: [
                        { position: { key: 'symbol', value: '{{USER_PARAM}}' }, z: { primitive: 'string()', options: [ 'min(1)' ] } },
                        { position: { key: 'chain', value: 'ethereum' }, z: { primitive: 'string()', options: [] } }
                    ],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: { symbol: { type: 'string' }, decimals: { type: 'number' } } } } },
                    tests: [ { _description: 'a', symbol: 'USDC' }, { _description: 'b', symbol: 'weth' }, { _description: 'c', symbol: 'DAI' } ]
                },
                byDecimals: {
                    sql: 'SELECT symbol FROM tokens WHERE decimals >= ? ORDER BY symbol',
                    description: 'Tokens with at least this many decimals',
                    parameters: [
                        { position: { key: 'min', value: '{{USER_PARAM}}' }, z: { primitive: 'number()', options: [ 'default(18)' ] } }
                    ],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: { symbol: { type: 'string' } } } } },
                    tests: [ { _description: 'a', min: 6 }, { _description: 'b', min: 18 }, { _description: 'c', min: 0 } ]
                }
            }
        },
        guide: { source: 'markdown', origin: 'inline', name: 'demo-guide.md', description: 'How to use the demo' }
    }
}
export const handlers = ( { sharedLists, libraries } ) => ( {
    tokens: { bySymbol: { postRequest: async ( { response, struct, payload } ) =>
        ( { response: response.map( ( r ) => ( { ...r, via: struct.queryName + ':' + payload.symbol } ) ) } ) } }
} )
"#;

const GUIDE: &str = "# Demo guide\n\nIntro.\n\n## Install\n\nRun the installer.\nThen configure.\n\n## Usage\n\nUse it well.\n";

/// Creates a SQLite database at `path` from `sql` (parents created).
fn make_db(path: &Path, sql: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(path);
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(sql).unwrap();
}

const TOKENS_SQL: &str = "CREATE TABLE tokens (symbol TEXT, decimals INTEGER, chain TEXT);
INSERT INTO tokens VALUES ('USDC', 6, 'ethereum'), ('WETH', 18, 'ethereum'), ('DAI', 18, 'polygon');";

/// The bytes of a file, to show it did not change.
fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// The names of the files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Options whose resources resolve inside `scratch`: project base `<scratch>/project/.flowmcp`,
/// home `<scratch>/home`.
fn options(scratch: &Scratch) -> CatalogOptions {
    let mut o = CatalogOptions::new(Profile::Spec);
    o.env_override = Some(BTreeMap::new());
    o.runner.resources = {
        let mut built = ResourceOptions::default();
        built.project_base = Some(scratch.0.join("project/.flowmcp"));
        built.home = Some(scratch.0.join("home"));
        built
    };
    o
}

/// A catalog of the schema with `tokens` at `origin`, its database made where that origin puts
/// it; returns the catalog and the database path.
fn catalog(scratch: &Scratch, origin: &str) -> (Catalog, PathBuf) {
    let schema = scratch.write("cat/demo.mjs", &SCHEMA.replace("ORIGIN", origin));
    scratch.write("cat/resources/demo-guide.md", GUIDE);
    let db = match origin {
        "inline" => scratch.0.join("cat/resources/demo-tokens.db"),
        "project" => scratch.0.join("project/.flowmcp/resources/demo-tokens.db"),
        _ => scratch.0.join("home/.flowmcp/resources/demo-tokens.db"),
    };
    make_db(&db, TOKENS_SQL);
    let c = Catalog::open(&schema, &options(scratch)).unwrap();
    assert!(
        c.toolset().problems().is_empty(),
        "{:?}",
        c.toolset().problems()
    );
    (c, db)
}

fn call(c: &Catalog, name: &str, args: Value) -> Envelope {
    c.call(name, args.as_object().unwrap())
}

fn message(e: &Envelope) -> &str {
    e.messages().first().map_or("", String::as_str)
}

#[test]
fn resource_entries_are_listed_with_names_kinds_and_hints() {
    let s = Scratch::new("res-list");
    let (c, _) = catalog(&s, "global");
    let names: Vec<(String, String)> = c
        .list()
        .iter()
        .map(|t| (t.descriptor.lookup_key(), t.descriptor.wire_name.clone()))
        .collect();
    let expected = [
        ("demo/resource/tokens-bySymbol", "bySymbol_demo"),
        ("demo/resource/tokens-byDecimals", "byDecimals_demo"),
        ("demo/resource/tokens-runSql", "runSql_demo"),
        ("demo/resource/tokens-describeTables", "describeTables_demo"),
        ("demo/resource/guide", "guide_demo"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(names, expected);

    let by = c.find("demo/resource/tokens-bySymbol").unwrap();
    assert_eq!(by.descriptor.id.to_string(), "demo/resource/tokens");
    // The text it was found by before it had an ID of its own still finds it.
    let legacy = c.find("demo/resource/tokens.bySymbol").unwrap();
    assert_eq!(legacy.descriptor.wire_name, by.descriptor.wire_name);
    assert_eq!(by.descriptor.label(), "tokens.bySymbol");
    assert!(
        matches!(&by.descriptor.kind, Kind::Query { resource, builtin: None } if resource == "tokens")
    );
    // Only the user parameter is an input; the fixed one is bound by the runtime.
    assert_eq!(
        by.descriptor.input_schema["required"],
        json!(["symbol"]),
        "{}",
        by.descriptor.input_schema
    );
    let tool = by.descriptor.mcp_tool();
    assert_eq!(
        tool["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false})
    );
    assert_eq!(tool["_meta"]["anthropic/alwaysLoad"], json!(false));
    assert_eq!(
        tool["_meta"]["anthropic/searchHint"],
        json!("Token metadata by symbol")
    );
    let run = c.find("runSql_demo").unwrap();
    assert!(matches!(
        run.descriptor.kind,
        Kind::Query {
            builtin: Some(Builtin::RunSql),
            ..
        }
    ));
    assert_eq!(run.descriptor.input_schema["required"], json!(["sql"]));
    assert!(run.descriptor.input_schema["properties"]["limit"].is_object());
    let guide = c.find("demo/resource/guide").unwrap();
    assert!(matches!(guide.descriptor.kind, Kind::Document { .. }));
    assert_eq!(guide.descriptor.wire_name, "guide_demo");

    // Search finds resource entries by the resource's description.
    let hits = c.search("token metadata");
    assert!(
        hits.iter()
            .any(|(_, t)| t.descriptor.wire_name == "bySymbol_demo")
    );
}

#[test]
fn schema_queries_bind_parameters_apply_defaults_and_run_handlers() {
    let s = Scratch::new("res-query");
    let (c, db) = catalog(&s, "inline");
    let before = bytes(&db);
    let e = call(&c, "bySymbol_demo", json!({"symbol": "usdc"}));
    assert!(e.status(), "{e:?}");
    assert_eq!(
        *e.data(),
        json!([{"symbol": "USDC", "decimals": 6, "via": "bySymbol:usdc"}])
    );
    // The fixed parameter binds `ethereum`: DAI is on polygon.
    let e = call(
        &c,
        "demo/resource/tokens.bySymbol",
        json!({"symbol": "DAI"}),
    );
    assert_eq!(*e.data(), json!([]));
    // A default fills an omitted parameter.
    let e = call(&c, "byDecimals_demo", json!({}));
    assert_eq!(*e.data(), json!([{"symbol": "DAI"}, {"symbol": "WETH"}]));
    // Inputs are checked like a tool's.
    let e = call(&c, "bySymbol_demo", json!({"symbol": ""}));
    assert!(!e.status() && message(&e).starts_with("E007"), "{e:?}");
    let e = call(&c, "describeTables_demo", json!({}));
    assert_eq!(
        e.data()[0],
        json!({"table_name": "tokens", "column": "symbol", "type": "TEXT"})
    );
    assert_eq!(bytes(&db), before);
    assert_eq!(
        files_in(db.parent().unwrap()),
        ["demo-guide.md", "demo-tokens.db"]
    );
}

#[test]
fn run_sql_is_limited_and_read_only_resources_refuse_every_write() {
    let s = Scratch::new("res-runsql");
    let (c, db) = catalog(&s, "project");
    let before = bytes(&db);
    let e = call(
        &c,
        "runSql_demo",
        json!({"sql": "SELECT * FROM tokens ORDER BY symbol", "limit": 2}),
    );
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data().as_array().unwrap().len(), 2);
    assert!(
        e.warnings().iter().any(|w| w.contains("first 2 rows")),
        "{e:?}"
    );
    // An author's own LIMIT and a trailing semicolon are fine.
    let e = call(
        &c,
        "runSql_demo",
        json!({"sql": "SELECT symbol FROM tokens LIMIT 1;"}),
    );
    assert_eq!(e.data().as_array().unwrap().len(), 1);
    assert!(e.warnings().is_empty(), "{e:?}");
    // A limit above 1000 is clamped, not refused.
    let e = call(
        &c,
        "runSql_demo",
        json!({"sql": "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5000) SELECT x FROM n", "limit": 5000}),
    );
    assert_eq!(e.data().as_array().unwrap().len(), 1000, "{e:?}");
    for sql in [
        "DELETE FROM tokens",
        "INSERT INTO tokens VALUES ('X', 1, 'x')",
        "WITH t AS (SELECT 1) INSERT INTO tokens SELECT 'Y', 1, 'y' FROM t",
        "ATTACH DATABASE 'other.db' AS o",
        "SELECT load_extension('x')",
        "PRAGMA writable_schema = 1",
        "SELECT 1; DELETE FROM tokens",
    ] {
        let e = call(&c, "runSql_demo", json!({"sql": sql}));
        assert!(!e.status(), "{sql}: {e:?}");
        assert!(
            message(&e).starts_with("E009") || message(&e).starts_with("E007"),
            "{sql}: {e:?}"
        );
    }
    assert_eq!(bytes(&db), before);
    assert_eq!(files_in(db.parent().unwrap()), ["demo-tokens.db"]);
}

#[test]
fn an_endless_query_ends_with_a_timeout() {
    let s = Scratch::new("res-timeout");
    let schema = s.write("cat/demo.mjs", &SCHEMA.replace("ORIGIN", "global"));
    make_db(
        &s.0.join("home/.flowmcp/resources/demo-tokens.db"),
        TOKENS_SQL,
    );
    let mut o = options(&s);
    o.runner.resources.query_timeout = Duration::from_millis(200);
    let c = Catalog::open(&schema, &o).unwrap();
    let e = call(
        &c,
        "runSql_demo",
        json!({"sql": "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"}),
    );
    assert!(!e.status());
    assert!(message(&e).starts_with("E003"), "{e:?}");
}

#[test]
fn a_file_based_resource_writes_after_a_backup_and_reports_changes() {
    let s = Scratch::new("res-filebased");
    let schema = SCHEMA.replace(
        "mode: 'in-memory', origin: 'ORIGIN'",
        "mode: 'file-based', origin: 'project'",
    );
    let schema = s.write("cat/demo.mjs", &schema);
    s.write("cat/resources/demo-guide.md", GUIDE);
    let db = s.0.join("project/.flowmcp/resources/demo-tokens.db");
    make_db(&db, TOKENS_SQL);
    let original = bytes(&db);
    let c = Catalog::open(&schema, &options(&s)).unwrap();
    let run = c.find("runSql_demo").unwrap();
    assert_eq!(
        run.descriptor.mcp_tool()["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false})
    );
    let e = call(
        &c,
        "runSql_demo",
        json!({"sql": "INSERT INTO tokens VALUES ('ARB', 18, 'arbitrum')"}),
    );
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!({"changes": 1}));
    // The copy made before the first write holds the database as it was.
    let bak = db.with_file_name("demo-tokens.db.bak");
    let c2 = rusqlite::Connection::open(&bak).unwrap();
    let n: i64 = c2
        .query_row("SELECT count(*) FROM tokens", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);
    drop(c2);
    assert!(!original.is_empty());
    let e = call(
        &c,
        "runSql_demo",
        json!({"sql": "SELECT count(*) AS n FROM tokens"}),
    );
    assert_eq!(*e.data(), json!([{"n": 4}]));
}

#[test]
fn a_missing_database_names_its_path_and_how_to_create_it() {
    let s = Scratch::new("res-missing");
    let schema = s.write("cat/demo.mjs", &SCHEMA.replace("ORIGIN", "global"));
    let c = Catalog::open(&schema, &options(&s)).unwrap();
    let e = call(&c, "bySymbol_demo", json!({"symbol": "USDC"}));
    assert!(!e.status());
    assert!(message(&e).starts_with("RES020"), "{e:?}");
    assert!(
        message(&e).contains("home/.flowmcp/resources/demo-tokens.db"),
        "{e:?}"
    );
    // Nothing was created in its place.
    assert!(!s.0.join("home/.flowmcp/resources/demo-tokens.db").exists());

    let file_based = SCHEMA.replace(
        "mode: 'in-memory', origin: 'ORIGIN'",
        "mode: 'file-based', origin: 'project'",
    );
    let schema = s.write("cat2/demo.mjs", &file_based);
    let c = Catalog::open(&schema, &options(&s)).unwrap();
    let e = call(&c, "runSql_demo", json!({"sql": "SELECT 1"}));
    assert_eq!(e.code(), Some(flowmcp_spec::Code::RES020), "{e:?}");
    // Issue 29, item 4: the runtime names the resource and the file, not a CLI command (the CLI
    // adds `flowmcp resource init …` when it prints).
    assert!(
        message(&e).contains("the file-based resource demo/resource/tokens is not created yet"),
        "{e:?}"
    );
    assert!(!message(&e).contains("flowmcp "), "{e:?}");
}

#[test]
fn the_resource_id_of_a_database_lists_its_queries() {
    let s = Scratch::new("res-id");
    let (c, _) = catalog(&s, "global");
    let e = call(&c, "demo/resource/tokens", json!({}));
    assert!(message(&e).starts_with("E007"), "{e:?}");
    assert!(
        message(&e).contains("demo/resource/tokens-bySymbol (bySymbol_demo)"),
        "{e:?}"
    );
}

#[test]
fn markdown_resources_answer_whole_by_section_lines_and_search() {
    let s = Scratch::new("res-md");
    let (c, _) = catalog(&s, "global");
    let e = call(&c, "guide_demo", json!({}));
    assert_eq!(e.data()["text"], json!(GUIDE));
    let e = call(&c, "demo/resource/guide", json!({"section": "## Install"}));
    assert_eq!(
        e.data()["text"],
        json!("## Install\n\nRun the installer.\nThen configure.")
    );
    let e = call(&c, "guide_demo", json!({"lines": "5-7"}));
    assert_eq!(
        *e.data(),
        json!({"from": 5, "to": 7, "text": "## Install\n\nRun the installer."})
    );
    let e = call(&c, "guide_demo", json!({"search": "CONFIGURE"}));
    assert_eq!(e.data()["matches"], json!(1));
    assert_eq!(e.data()["ranges"][0]["hits"], json!([8]));
    // A section that does not exist is a failure with a code, naming what exists.
    let e = call(&c, "guide_demo", json!({"section": "Nope"}));
    assert!(!e.status());
    assert!(message(&e).starts_with("MD004"), "{e:?}");
    assert!(message(&e).contains("## Install"), "{e:?}");
    let e = call(
        &c,
        "guide_demo",
        json!({"section": "Install", "lines": "1-2"}),
    );
    assert!(message(&e).starts_with("MD007"), "{e:?}");
    let e = call(&c, "guide_demo", json!({"lines": "40-50"}));
    assert!(message(&e).starts_with("MD006"), "{e:?}");
}

#[test]
fn documents_are_also_served_as_resources_with_a_template() {
    let s = Scratch::new("res-docs");
    let (c, _) = catalog(&s, "global");
    let p = c.primitives();
    assert!(p.has_resources());
    let listed = p.resources();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].uri, "flowmcp://demo/resource/guide");
    assert_eq!(listed[0].mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(
        p.resource_templates()[0].uri_template,
        "flowmcp://demo/resource/guide{?section,lines,search}"
    );
    let caller = c.caller();
    let whole = p
        .read_resource("flowmcp://demo/resource/guide", &caller)
        .unwrap();
    assert_eq!(whole[0].body, ResourceBody::Text(GUIDE.into()));
    let part = p
        .read_resource(
            "flowmcp://demo/resource/guide?section=%23%23%20Usage",
            &caller,
        )
        .unwrap();
    assert_eq!(
        part[0].body,
        ResourceBody::Text("## Usage\n\nUse it well.".into())
    );
    let found = p
        .read_resource("flowmcp://demo/resource/guide?search=installer", &caller)
        .unwrap();
    assert_eq!(found[0].mime_type.as_deref(), Some("application/json"));
    assert!(matches!(
        p.read_resource("flowmcp://demo/resource/guide?section=Nope", &caller),
        Err(PrimitiveError::InvalidArguments(m)) if m.starts_with("MD004")
    ));
    assert!(matches!(
        p.read_resource("flowmcp://demo/resource/other", &caller),
        Err(PrimitiveError::NotFound(_))
    ));
}

#[test]
fn two_resources_of_a_namespace_get_distinct_query_names() {
    let s = Scratch::new("res-collide");
    let second = r#"
        prices: {
            source: 'sqlite', mode: 'in-memory', origin: 'global', name: 'demo-prices.db',
            description: 'Prices',
            queries: {
                latest: {
                    sql: 'SELECT 1 AS one',
                    description: 'One',
                    parameters: [],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: {} } } },
                    tests: [ { _description: 'a' }, { _description: 'b' }, { _description: 'c' } ]
                }
            }
        },
        guide:"#;
    let schema = SCHEMA
        .replace("ORIGIN", "global")
        .replacen("guide:", second, 1);
    let schema = schema.replace(
        "guide: { source: 'markdown', origin: 'inline', name: 'demo-guide.md', description: 'How to use the demo' }",
        "",
    );
    let path = s.write("cat/demo.mjs", &schema);
    let c = Catalog::open(&path, &options(&s)).unwrap();
    let run: Vec<&str> = c
        .list()
        .iter()
        .filter(|t| t.descriptor.tool == "runSql")
        .map(|t| t.descriptor.wire_name.as_str())
        .collect();
    assert_eq!(run.len(), 2, "{:?}", c.toolset().problems());
    assert_ne!(run[0], run[1]);
    assert!(
        run.iter()
            .all(|n| n.starts_with("runSql_demo_") && n.len() == "runSql_demo_".len() + 6)
    );
    // Each is still found by its resource and query.
    assert!(c.find("demo/resource/prices.runSql").is_some());
    assert!(c.find("demo/resource/tokens.runSql").is_some());
}

const HTTP_SCHEMA: &str = r#"
export const main = {
    namespace: 'remote', name: 'Remote', description: 'A downloaded database', version: '4.2.0', tools: {},
    resources: {
        sanctions: {
            source: 'http', url: 'https://cdn.example.com/data/sanctions.sqlite', cacheTtl: TTL,
            description: 'A list kept on a server',
            queries: {
                byName: {
                    sql: 'SELECT name FROM entries WHERE name LIKE ? ORDER BY name',
                    description: 'Entries by name',
                    parameters: [ { position: { key: 'name', value: '{{USER_PARAM}}' }, z: { primitive: 'string()', options: [] } } ],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } },
                    tests: [ { _description: 'a', name: '%a%' }, { _description: 'b', name: '%b%' }, { _description: 'c', name: '%c%' } ]
                }
            }
        }
    }
}
"#;

/// Options for the http schema: its namespace sent to `upstream` (loopback allowed).
fn http_options(scratch: &Scratch, upstream: &str) -> CatalogOptions {
    let mut o = options(scratch);
    o.add_upstream("remote", upstream)
        .expect("a loopback upstream");
    o
}

#[test]
fn an_http_resource_is_downloaded_cached_refetched_and_used_offline() {
    let s = Scratch::new("res-http");
    let source = s.0.join("source.db");
    make_db(
        &source,
        "CREATE TABLE entries (name TEXT); INSERT INTO entries VALUES ('Alpha'), ('Beta');",
    );
    let bytes = std::fs::read(&source).unwrap();
    let served = bytes.clone();
    let server = TestServer::start(3, move |seen| {
        assert_eq!(seen.url, "/data/sanctions.sqlite");
        reply(200, Some("application/vnd.sqlite3"), served.clone())
    });
    let schema = s.write("cat/remote.mjs", &HTTP_SCHEMA.replace("TTL", "3600"));
    let c = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
    assert!(!c.has_errors(), "{:?}", c.reports());
    let e = call(&c, "byName_remote", json!({"name": "%a%"}));
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!([{"name": "Alpha"}, {"name": "Beta"}]));
    // The copy is kept under the project's cache, named by the URL's hash.
    let cache_dir = s.0.join("project/.flowmcp/cache/resources");
    let cached = files_in(&cache_dir);
    assert_eq!(cached.len(), 1, "{cached:?}");
    assert!(
        cached[0].ends_with(".db") && cached[0].len() == 64 + 3,
        "{cached:?}"
    );
    assert_eq!(std::fs::read(cache_dir.join(&cached[0])).unwrap(), bytes);
    // Within the TTL, another catalog (another runner) uses the copy without a request.
    let c2 = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
    assert!(call(&c2, "byName_remote", json!({"name": "%et%"})).status());
    drop((c, c2));
    let seen = server.finish();
    assert_eq!(seen.len(), 1, "one download: {seen:?}");

    // TTL 1 s, and the copy is older: the next open fetches again; the server is gone, so the
    // stale copy serves, with a warning, and is left as it was.
    let schema = s.write("cat/remote.mjs", &HTTP_SCHEMA.replace("TTL", "1"));
    std::thread::sleep(Duration::from_millis(1100));
    let gone = "http://127.0.0.1:9";
    let c = Catalog::open(&schema, &http_options(&s, gone)).unwrap();
    let e = call(&c, "byName_remote", json!({"name": "B%"}));
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!([{"name": "Beta"}]));
    assert!(
        e.warnings()
            .iter()
            .any(|w| w.contains("stale") || w.contains("old")),
        "{e:?}"
    );
    assert_eq!(std::fs::read(cache_dir.join(&cached[0])).unwrap(), bytes);
    assert_eq!(files_in(&cache_dir), cached);

    // No copy and no server: a coded network error, and no file.
    let s2 = Scratch::new("res-http-none");
    let schema = s2.write("cat/remote.mjs", &HTTP_SCHEMA.replace("TTL", "60"));
    let c = Catalog::open(&schema, &http_options(&s2, gone)).unwrap();
    let e = call(&c, "byName_remote", json!({"name": "%"}));
    assert!(!e.status());
    assert!(message(&e).starts_with("E002"), "{e:?}");
    let cache2 = s2.0.join("project/.flowmcp/cache/resources");
    assert!(!cache2.exists() || files_in(&cache2).is_empty());
}

/// Issue #29, scope 1: a query parameter's role is decided once, by the rule tool parameters and
/// the validator use. Under compat an undeclared bare `{{name}}` is the caller's value (the
/// validator checks it as one); the runtime used to bind the text `{{name}}` instead and to leave
/// the parameter out of the input schema.
#[test]
fn i29_1_a_compat_bare_placeholder_in_a_query_is_the_callers_value() {
    let s = Scratch::new("res-compat-bare");
    let schema = r#"export const main = {
    namespace: 'old', name: 'Old', description: 'A 3.0 resource', version: '4.2.0', tools: {},
    resources: {
        placesDb: {
            source: 'sqlite', lifecycle: 'persistent', description: 'Places',
            database: 'data/old-local.db',
            queries: {
                byName: {
                    sql: 'SELECT name FROM places WHERE name LIKE ? AND ? = ?',
                    description: 'Places by name',
                    parameters: [
                        { position: { key: 'name', value: '{{name}}' }, z: { primitive: 'string()', options: [] } },
                        { position: { key: 'a', value: 'same' }, z: { primitive: 'string()', options: [] } },
                        { position: { key: 'b', value: 'same' }, z: { primitive: 'string()', options: [] } }
                    ],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } },
                    tests: [ { _description: 'a', name: '%' }, { _description: 'b', name: 'B%' }, { _description: 'c', name: 'C%' } ]
                }
            }
        }
    }
}
"#;
    let mut o = options(&s);
    o.validation = flowmcp_catalog::ValidationOptions::new(Profile::Compat);
    make_db(
        &s.0.join("cat/data/old-local.db"),
        "CREATE TABLE places (name TEXT); INSERT INTO places VALUES ('Bonn'), ('Köln');",
    );
    let path = s.write("cat/old.mjs", schema);
    let c = Catalog::open(&path, &o).unwrap();
    assert!(!c.has_errors(), "{:?}", c.reports());
    let entry = c.find("byName_old").unwrap();
    let keys: Vec<&str> = entry
        .descriptor
        .params
        .iter()
        .map(|p| p.key.as_str())
        .collect();
    assert_eq!(keys, ["name"], "only the bare placeholder is the caller's");
    let e = call(&c, "byName_old", json!({"name": "B%"}));
    assert_eq!(*e.data(), json!([{ "name": "Bonn" }]), "{e:?}");
}

#[test]
fn compat_reads_the_database_path_of_older_catalogs_inside_home_or_the_schema_dir() {
    let s = Scratch::new("res-compat-db");
    let schema = |database: &str| {
        format!(
            r#"export const main = {{
    namespace: 'old', name: 'Old', description: 'A 3.0 resource', version: '4.2.0', tools: {{}},
    resources: {{
        placesDb: {{
            source: 'sqlite', lifecycle: 'persistent', description: 'Places',
            database: '{database}',
            queries: {{
                byName: {{
                    sql: 'SELECT name FROM places WHERE name LIKE ?',
                    description: 'Places by name',
                    parameters: [ {{ position: {{ key: 'name', value: '{{{{USER_PARAM}}}}' }}, z: {{ primitive: 'string()', options: [] }} }} ],
                    output: {{ mimeType: 'application/json', schema: {{ type: 'array', items: {{ type: 'object', properties: {{ name: {{ type: 'string' }} }} }} }} }},
                    tests: [ {{ _description: 'a', name: '%' }}, {{ _description: 'b', name: 'B%' }}, {{ _description: 'c', name: 'C%' }} ]
                }}
            }}
        }}
    }}
}}
"#
        )
    };
    let mut o = options(&s);
    o.validation = flowmcp_catalog::ValidationOptions::new(Profile::Compat);
    make_db(
        &s.0.join("home/.flowmcp/data/old-places.db"),
        "CREATE TABLE places (name TEXT); INSERT INTO places VALUES ('Berlin');",
    );
    make_db(
        &s.0.join("cat/data/old-local.db"),
        "CREATE TABLE places (name TEXT); INSERT INTO places VALUES ('Bonn');",
    );
    for (database, expected) in [
        ("~/.flowmcp/data/old-places.db", "Berlin"),
        ("data/old-local.db", "Bonn"),
    ] {
        let path = s.write("cat/old.mjs", &schema(database));
        let c = Catalog::open(&path, &o).unwrap();
        assert!(!c.has_errors(), "{:?}", c.reports());
        let e = call(&c, "byName_old", json!({"name": "B%"}));
        assert_eq!(
            *e.data(),
            json!([{ "name": expected }]),
            "{database}: {e:?}"
        );
    }
    // Issue #27, item 4: a path that would leave those roots — `..`, absolute, or anywhere in the
    // home directory outside ~/.flowmcp/ (a browser's cookie database is SQLite too) — is
    // reported by validation (SEC021, not callable), and refused by the runtime before anything
    // is opened even when that rule is switched off.
    make_db(
        &s.0.join("home/Library/Cookies.db"),
        "CREATE TABLE places (name TEXT); INSERT INTO places VALUES ('Bcookie');",
    );
    let mut unchecked = o.clone();
    unchecked
        .validation
        .settings
        .overrides
        .set(flowmcp_spec::Code::SEC021, flowmcp_spec::Level::Off);
    for database in [
        "../outside.db",
        "/etc/outside.db",
        "~/../outside.db",
        "~/Library/Cookies.db",
        "~/.flowmcp/../Library/Cookies.db",
    ] {
        let path = s.write("cat/old.mjs", &schema(database));
        let c = Catalog::open(&path, &o).unwrap();
        let codes: Vec<&str> = c.reports()[0]
            .diagnostics()
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(codes.contains(&"SEC021"), "{database}: {codes:?}");
        assert!(c.find("byName_old").is_none(), "{database}: callable");
        let c = Catalog::open(&path, &unchecked).unwrap();
        let e = call(&c, "byName_old", json!({"name": "%"}));
        assert!(!e.status(), "{database}: {e:?}");
        assert!(message(&e).starts_with("SEC021"), "{database}: {e:?}");
    }
    // A symbolic link beside the schema that leads out is refused by the runtime (E009).
    std::os::unix::fs::symlink(s.0.join("home/Library"), s.0.join("cat/data/lib")).unwrap();
    let path = s.write("cat/old.mjs", &schema("data/lib/Cookies.db"));
    let c = Catalog::open(&path, &o).unwrap();
    assert!(!c.has_errors(), "{:?}", c.reports());
    let e = call(&c, "byName_old", json!({"name": "%"}));
    assert!(message(&e).starts_with("E009"), "{e:?}");
}

/// Issue #27, item 2: an `http` resource's `path` (where the downloaded copy is kept) cannot
/// name a file outside the project's folder: a download never replaces a file of the user's.
#[test]
fn item02_a_downloaded_copy_is_never_written_outside_the_project_folder() {
    let s = Scratch::new("res-http-path");
    let source = s.0.join("source.db");
    make_db(
        &source,
        "CREATE TABLE entries (name TEXT); INSERT INTO entries VALUES ('Mallory');",
    );
    let served = std::fs::read(&source).unwrap();
    let victim = s.0.join("home/.bashrc");
    std::fs::create_dir_all(victim.parent().unwrap()).unwrap();
    std::fs::write(&victim, "alias ls='ls --color'\n").unwrap();
    let before = bytes(&victim);
    let server = TestServer::start(4, move |_| {
        reply(200, Some("application/vnd.sqlite3"), served.clone())
    });
    let with_path = |p: &str| {
        HTTP_SCHEMA
            .replace("TTL", "60")
            .replace("cacheTtl: 60,", &format!("cacheTtl: 60, path: '{p}',"))
    };
    let mut unchecked = http_options(&s, &server.base);
    unchecked
        .validation
        .settings
        .overrides
        .set(flowmcp_spec::Code::SEC021, flowmcp_spec::Level::Off);
    let absolute = victim.display().to_string();
    for p in ["../../home/.bashrc", absolute.as_str()] {
        let schema = s.write("cat/remote.mjs", &with_path(p));
        // Validation reports the path; the file is not callable.
        let c = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
        let codes: Vec<&str> = c.reports()[0]
            .diagnostics()
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(codes.contains(&"SEC021"), "{p}: {codes:?}");
        assert!(c.find("byName_remote").is_none(), "{p}: callable");
        // With the rule off, the runtime still refuses before anything is fetched or written.
        let c = Catalog::open(&schema, &unchecked).unwrap();
        let e = call(&c, "byName_remote", json!({"name": "%"}));
        assert!(!e.status(), "{p}: {e:?}");
        assert!(message(&e).starts_with("SEC021"), "{p}: {e:?}");
        assert_eq!(bytes(&victim), before, "{p}: the file was replaced");
    }
    // A relative path inside the project's folder is where the copy is kept.
    let schema = s.write("cat/remote.mjs", &with_path("copies/sanctions.db"));
    let c = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
    assert!(!c.has_errors(), "{:?}", c.reports());
    let e = call(&c, "byName_remote", json!({"name": "%"}));
    assert!(e.status(), "{e:?}");
    assert!(s.0.join("project/.flowmcp/copies/sanctions.db").is_file());
    drop(c);
    let seen = server.finish();
    assert_eq!(seen.len(), 1, "only the honest path was fetched: {seen:?}");
}

/// Issue #31 item 4: a resource query's `postRequest` returns `{ response }` as a tool's does.
/// Under spec a result without it is SEC101 (E005); under compat the rows pass on unchanged, with
/// a warning, as the JavaScript reference reads such a result.
#[test]
fn i31_4_a_query_post_request_without_response() {
    let s = Scratch::new("res-shape");
    let handler = "( { response: response.map( ( r ) => ( { ...r, via: struct.queryName + ':' + payload.symbol } ) ) } )";
    assert!(SCHEMA.contains(handler));
    let schema = s.write(
        "cat/demo.mjs",
        &SCHEMA
            .replace("ORIGIN", "inline")
            .replace(handler, "( { wrong: 1 } )"),
    );
    s.write("cat/resources/demo-guide.md", GUIDE);
    make_db(&s.0.join("cat/resources/demo-tokens.db"), TOKENS_SQL);

    let c = Catalog::open(&schema, &options(&s)).unwrap();
    let e = call(&c, "bySymbol_demo", json!({"symbol": "usdc"}));
    assert!(!e.status(), "{e:?}");
    assert_eq!(
        e.messages(),
        vec![
            "E005 bySymbol: postRequest SEC101 must return an object { response } (\"response\" is missing)"
        ]
    );

    let mut compat = options(&s);
    compat.validation = flowmcp_validate::Options::new(Profile::Compat);
    let c = Catalog::open(&schema, &compat).unwrap();
    let e = call(&c, "bySymbol_demo", json!({"symbol": "usdc"}));
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!([{"symbol": "USDC", "decimals": 6}]));
    assert_eq!(
        e.warnings(),
        vec![
            "postRequest returned no \"response\": the data is passed on unchanged (SEC101 under profile spec)"
        ]
    );
}

/// Issue #39, finding 1: a repository that ships its project folder as a symbolic link
/// (`.flowmcp -> ../.ssh`) gets no project folder at all. Before the fix the link was followed:
/// the root was canonicalised through it, so "inside the root" held wherever it pointed, a
/// download whose `path` is `authorized_keys` replaced the user's file, and `project` resources
/// read the user's SQLite files through it.
#[test]
fn i39_1_a_linked_project_folder_is_refused_for_downloads_and_reads() {
    let s = Scratch::new("res-linked-project");
    // The user's files the link points at: an SSH folder and another program's database.
    let ssh = s.0.join("home/.ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    let keys = ssh.join("authorized_keys");
    std::fs::write(&keys, "ssh-ed25519 AAAA the-users-own-key\n").unwrap();
    let before = bytes(&keys);
    make_db(
        &ssh.join("resources/demo-tokens.db"),
        "CREATE TABLE tokens (symbol TEXT, decimals INTEGER, chain TEXT);
         INSERT INTO tokens VALUES ('COOKIE', 1, 'ethereum');",
    );
    std::fs::create_dir_all(s.0.join("project")).unwrap();
    std::os::unix::fs::symlink(&ssh, s.0.join("project/.flowmcp")).unwrap();

    // A download kept at `authorized_keys` inside the (linked) project folder.
    let source = s.0.join("source.db");
    make_db(
        &source,
        "CREATE TABLE entries (name TEXT); INSERT INTO entries VALUES ('Mallory');",
    );
    let served = std::fs::read(&source).unwrap();
    let server = TestServer::start(4, move |_| {
        reply(200, Some("application/vnd.sqlite3"), served.clone())
    });
    let schema = s.write(
        "cat/remote.mjs",
        &HTTP_SCHEMA
            .replace("TTL", "60")
            .replace("cacheTtl: 60,", "cacheTtl: 60, path: 'authorized_keys',"),
    );
    let c = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
    assert!(!c.has_errors(), "{:?}", c.reports());
    let e = call(&c, "byName_remote", json!({"name": "%"}));
    assert!(!e.status(), "{e:?}");
    assert!(message(&e).starts_with("E009"), "{e:?}");
    assert!(message(&e).contains("symbolic link"), "{e:?}");
    assert_eq!(bytes(&keys), before, "authorized_keys was replaced");
    drop(c);
    assert!(
        server.finish().is_empty(),
        "nothing is fetched for a refused place"
    );

    // A `project` resource read through the link.
    let schema = s.write("cat2/demo.mjs", &SCHEMA.replace("ORIGIN", "project"));
    let c = Catalog::open(&schema, &options(&s)).unwrap();
    let e = call(&c, "bySymbol_demo", json!({"symbol": "COOKIE"}));
    assert!(!e.status(), "{e:?}");
    assert!(!format!("{e:?}").contains("COOKIE\""), "{e:?}");
    assert!(message(&e).contains("symbolic link"), "{e:?}");
}

/// Issue #39, finding 2: the default place of a downloaded copy
/// (`.flowmcp/cache/resources/<sha256(url)>.db`) goes through the resolver too. Before the fix it
/// was built from the project folder by hand: a linked `cache/resources` received the download,
/// and a link in the copy's place made any SQLite file of the user's readable.
#[test]
fn i39_2_the_default_copy_place_is_resolved_and_never_a_link() {
    let s = Scratch::new("res-default-copy");
    let source = s.0.join("source.db");
    make_db(
        &source,
        "CREATE TABLE entries (name TEXT); INSERT INTO entries VALUES ('Mallory');",
    );
    let served = std::fs::read(&source).unwrap();
    let server = TestServer::start(8, move |_| {
        reply(200, Some("application/vnd.sqlite3"), served.clone())
    });
    let schema = s.write("cat/remote.mjs", &HTTP_SCHEMA.replace("TTL", "60"));
    let url = "https://cdn.example.com/data/sanctions.sqlite";
    let base = s.0.join("project/.flowmcp");
    let copy = base
        .join("cache/resources")
        .join(format!("{}.db", flowmcp_spec::hash::sha256_hex(url)));

    // (a) `cache/resources` is a link to a folder of the user's: nothing is written there.
    let elsewhere = s.0.join("home/elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(base.join("cache")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, base.join("cache/resources")).unwrap();
    let c = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
    let e = call(&c, "byName_remote", json!({"name": "%"}));
    assert!(!e.status(), "{e:?}");
    assert!(message(&e).contains("symbolic link"), "{e:?}");
    assert!(
        files_in(&elsewhere).is_empty(),
        "{:?}",
        files_in(&elsewhere)
    );
    drop(c);

    // (b) The copy's own place is a link to another SQLite file of the user's: never read,
    // never replaced.
    std::fs::remove_file(base.join("cache/resources")).unwrap();
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    let cookies = s.0.join("home/cookies.sqlite");
    make_db(
        &cookies,
        "CREATE TABLE entries (name TEXT); INSERT INTO entries VALUES ('session=SECRET');",
    );
    let cookies_before = bytes(&cookies);
    std::os::unix::fs::symlink(&cookies, &copy).unwrap();
    let c = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
    let e = call(&c, "byName_remote", json!({"name": "%"}));
    assert!(!format!("{e:?}").contains("SECRET"), "{e:?}");
    assert!(!e.status(), "{e:?}");
    assert_eq!(bytes(&cookies), cookies_before);
    drop(c);

    // (c) A real folder: the copy is downloaded and used.
    std::fs::remove_file(&copy).unwrap();
    let c = Catalog::open(&schema, &http_options(&s, &server.base)).unwrap();
    let e = call(&c, "byName_remote", json!({"name": "%"}));
    assert!(e.status(), "{e:?}");
    assert!(copy.is_file());
}

/// The names a resource query is found by come from one place: the names the valid file's
/// entries have (own ID, legacy key, wire name) are the names under which the same queries are
/// refused when the file has errors.
#[test]
fn i40_a_rejected_files_queries_are_refused_under_the_names_its_entries_have() {
    let s = Scratch::new("res-i40-names");
    let (valid, _) = catalog(&s, "global");
    let names: Vec<String> = valid
        .list()
        .iter()
        .filter(|t| matches!(t.descriptor.kind, Kind::Query { .. }))
        .flat_map(|t| {
            let d = &t.descriptor;
            [
                d.lookup_key(),
                d.legacy_query_key().unwrap(),
                d.wire_name.clone(),
            ]
        })
        .collect();
    assert_eq!(names.len(), 12, "{names:?}");
    // The same schema with an error (an unknown field in `main`, VAL003): nothing is callable.
    let broken = s.write(
        "broken/demo.mjs",
        &SCHEMA
            .replace("ORIGIN", "global")
            .replace("tools: {},", "tools: {}, notAField: 1,"),
    );
    let c = Catalog::open(&broken, &options(&s)).unwrap();
    assert!(c.list().is_empty());
    for name in &names {
        assert!(c.rejected(name).is_some(), "{name} is not refused");
    }
    assert!(c.rejected("bySymbol_other").is_none());
}
