//! End-to-end tool calls against local `tiny_http` servers: the example catalog with an upstream
//! override, every location type, server parameters, the three handler kinds, each E-code, the
//! preload cache and a secret canary through every path.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::calls;
use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use calls::{load, opts, runner, transport};
use flowmcp_runtime::Envelope;
use flowmcp_runtime::cache::{Cache, RedisCache};
use flowmcp_runtime::{CacheMode, RunnerOptions};
use flowmcp_runtime::{transport::TransportConfig, transport::UreqTransport};
use flowmcp_spec::Profile;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use support::{RedisServer, Scratch, Seen, TestServer, reply};

const CANARY: &str = "CANARY-7d1e-secret";

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog")
}

fn env_with_canary() -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for k in ["SKYCAST_API_KEY", "OPENSHELF_API_KEY", "API_KEY"] {
        env.insert(k.to_string(), CANARY.to_string());
    }
    env
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

fn json_reply(body: Value) -> support::Reply {
    reply(200, Some("application/json"), body.to_string())
}

/// Asserts the canary appears nowhere in the envelope or the logs.
fn no_canary(env: &Envelope, logs: &[String]) {
    let text = env.to_json().to_string();
    assert!(!text.contains(CANARY), "secret leaked into {text}");
    for l in logs {
        assert!(!l.contains(CANARY), "secret leaked into log line {l}");
    }
}

fn message(env: &Envelope) -> &str {
    env.messages()
        .first()
        .map(String::as_str)
        .unwrap_or_default()
}

#[test]
fn example_catalog_tools_run_against_a_local_upstream() {
    let set = load(&examples(), Profile::Spec, env_with_canary());
    let server = TestServer::start(3, |seen: &Seen| {
        if seen.url.starts_with("/current/") {
            json_reply(
                json!({"city": "New York", "temperature": 21.5, "condition": "clear",
                              "wind": {"speed": 3.0, "direction": 180, "gust": null}}),
            )
        } else if seen.url.starts_with("/forecast/daily") {
            json_reply(
                json!({"location": {"lat": 52.5, "lon": 13.4, "tz": "Europe/Berlin"},
                "daily": [{"date": "2026-11-22", "temperature": {"min": 1, "max": 6},
                           "precipitation": {"total": 0.4}, "summary": "rain"},
                          {"date": "2026-11-23", "temperature": {"min": 0, "max": 4}, "summary": "clouds"}],
                "alerts": [{}]}),
            )
        } else {
            // POST /search on openshelf: echo the body back.
            json_reply(json!({"echo": String::from_utf8_lossy(&seen.body)}))
        }
    });
    let t = transport();
    let ups = [
        ("skycast-io", server.base.as_str()),
        ("openshelf-org", server.base.as_str()),
    ];
    let (r, logs) = runner(&set, &t, opts(&ups));

    // Insert (percent-encoded), query with default, optional omitted, headers merged, secret header.
    let e = r.call_strings("getCurrentConditions_skycast-io", [("city", "New York")]);
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["city"], json!("New York"));
    assert!(e.warnings().is_empty(), "{:?}", e.warnings());
    no_canary(&e, &logs.borrow());

    // postRequest handler transforms the raw response.
    let e = r.call_json(
        "skycast-io/tool/getDailyForecast",
        &obj(json!({"latitude": 52.5, "longitude": 13.4, "days": 1})),
    );
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["alertCount"], json!(1));
    assert_eq!(e.data()["days"].as_array().map(Vec::len), Some(1));
    assert_eq!(e.data()["days"][0]["tempMax"], json!(6));

    // POST body keeps JSON types.
    let e = r.call_json(
        "searchBooks_openshelf-org",
        &obj(json!({"query": "dune", "limit": 5})),
    );
    assert!(e.status(), "{e:?}");
    no_canary(&e, &logs.borrow());

    let seen = server.finish();
    assert_eq!(seen.len(), 3);
    let current = &seen[0];
    assert_eq!(current.method, "GET");
    assert_eq!(current.url, "/current/New%20York?units=metric");
    assert_eq!(current.header("X-Api-Key"), Some(CANARY));
    assert_eq!(current.header("Cache-Control"), Some("no-cache"));
    assert_eq!(current.header("Accept"), Some("application/json"));
    assert!(
        current
            .header("User-Agent")
            .is_some_and(|u| u.starts_with("flowmcp-rs/"))
    );
    let search = &seen[2];
    assert_eq!(search.method, "POST");
    let body: Value = serde_json::from_slice(&search.body).expect("JSON body");
    assert_eq!(body["query"], json!("dune"));
    assert_eq!(body["limit"], json!(5));
    assert_eq!(search.header("Content-Type"), Some("application/json"));
}

const LOCATIONS: &str = r#"
export const main = {
    namespace: 'loc', name: 'Loc', description: 'Locations', version: '4.2.0',
    root: 'https://api.example.com/base',
    requiredServerParams: [ 'API_KEY' ],
    headers: { 'X-Main': 'main', 'X-Over': 'main', 'Authorization': 'Bearer {{SERVER_PARAM:API_KEY}}' },
    tools: {
        everything: {
            method: 'POST', path: '/items/{{id}}/sub', description: 'All location types',
            headers: { 'X-Over': 'tool' },
            parameters: [
                { position: { key: 'id', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [] } },
                { position: { key: 'ids', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'array()', options: [] } },
                { position: { key: 'tag', value: 'fixed', location: 'query' }, z: { primitive: 'string()', options: [] } },
                { position: { key: 'tag', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [ 'optional()' ] } },
                { position: { key: 'key', value: '{{SERVER_PARAM:API_KEY}}', location: 'query' }, z: { primitive: 'string()', options: [] } },
                { position: { key: 'count', value: '{{USER_PARAM}}', location: 'body' }, z: { primitive: 'number()', options: [ 'min(1)' ] } },
                { position: { key: 'flags', value: '{{USER_PARAM}}', location: 'body' }, z: { primitive: 'object()', options: [ 'optional()' ] } }
            ],
            output: { mimeType: 'application/json', schema: { type: 'object', properties: { n: { type: 'number' } } } }
        },
        text: {
            method: 'GET', path: '/text', description: 'Plain text',
            parameters: [],
            output: { mimeType: 'text/plain', schema: { type: 'string' } }
        },
        image: {
            method: 'GET', path: '/img', description: 'PNG',
            parameters: [],
            output: { mimeType: 'image/png', schema: { type: 'string', format: 'base64' } }
        }
    }
}
"#;

#[test]
fn every_location_type_headers_server_params_and_mime_types() {
    let dir = Scratch::new("loc");
    dir.write("loc.mjs", LOCATIONS);
    let set = load(&dir.0, Profile::Spec, env_with_canary());
    let server = TestServer::start(3, |seen: &Seen| match seen.url.as_str() {
        "/text" => reply(200, Some("text/plain; charset=utf-8"), "hello"),
        "/img" => reply(200, Some("image/png"), vec![0x89, b'P', b'N', b'G']),
        _ => json_reply(json!({"n": "not a number", "echo": seen.url})),
    });
    let t = transport();
    let (r, logs) = runner(&set, &t, opts(&[("loc", server.base.as_str())]));
    let e = r.call_json(
        "everything_loc",
        &obj(json!({"id": "a/b c", "ids": ["x", "y"], "tag": "t2", "count": 3, "flags": {"deep": true}})),
    );
    assert!(e.status(), "{e:?}");
    // Output-schema mismatch: a warning, the data still delivered.
    assert_eq!(
        e.warnings(),
        vec!["output /n: expected number, found string"]
    );
    assert_eq!(e.data()["n"], json!("not a number"));
    no_canary(&e, &logs.borrow());

    let e = r.call_json("text_loc", &Map::new());
    assert_eq!(*e.data(), json!("hello"));
    let e = r.call_json("image_loc", &Map::new());
    assert_eq!(*e.data(), json!("iVBORw=="));

    let seen = server.finish();
    let s = &seen[0];
    assert_eq!(
        s.url,
        format!("/items/a%2Fb%20c/sub?ids=x%2Cy&tag=fixed&tag=t2&key={CANARY}")
    );
    assert_eq!(s.header("X-Main"), Some("main"));
    assert_eq!(s.header("X-Over"), Some("tool"));
    assert_eq!(
        s.header("Authorization"),
        Some(format!("Bearer {CANARY}").as_str())
    );
    let body: Value = serde_json::from_slice(&s.body).expect("JSON body");
    assert_eq!(body, json!({"count": 3, "flags": {"deep": true}}));
}

const HANDLERS: &str = r#"
export const main = {
    namespace: 'hnd', name: 'Hnd', description: 'Handlers', version: '4.2.0',
    root: 'https://api.example.com',
    requiredServerParams: [ 'API_KEY' ],
    headers: { 'X-Key': '{{SERVER_PARAM:API_KEY}}' },
    sharedLists: [ { ref: 'colors', version: '1.0.0' } ],
    tools: {
        pre: { method: 'GET', path: '/pre', description: 'preRequest', parameters: [
            { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ] },
        exec: { method: 'GET', path: '/exec', description: 'executeRequest', parameters: [] },
        post: { method: 'GET', path: '/post', description: 'postRequest', parameters: [] },
        throws: { method: 'GET', path: '/t', description: 'throws', parameters: [] },
        loops: { method: 'GET', path: '/l', description: 'loops', parameters: [] },
        shape: { method: 'GET', path: '/s', description: 'bad shape', parameters: [] },
        mutate: { method: 'GET', path: '/m', description: 'mutates lists', parameters: [] },
        leak: { method: 'GET', path: '/leak', description: 'logs and throws the struct', parameters: [] }
    }
}
export const handlers = ( { sharedLists, libraries } ) => ( {
    pre: { preRequest: async ( { struct, payload } ) => {
        struct.url = struct.url + '&extra=1'
        struct.headers[ 'X-Pre' ] = payload.q.toUpperCase()
        return { struct, payload }
    } },
    exec: { executeRequest: async ( { struct, payload } ) => {
        const r = await fetch( struct.url.replace( '/exec', '/fetched' ), { headers: struct.headers } )
        const data = await r.json()
        return { response: { fetched: data, status: r.status, colors: sharedLists.colors.length } }
    } },
    post: { postRequest: async ( { response, struct, payload } ) => ( { response: { wrapped: response } } ) },
    throws: { postRequest: () => { throw new Error( 'boom' ) } },
    loops: { postRequest: () => { for ( ;; ) {} } },
    shape: { postRequest: () => 42 },
    mutate: { postRequest: ( { response } ) => { sharedLists.colors.push( { name: 'x' } ); return { response } } },
    leak: { postRequest: ( { response, struct } ) => { console.log( 'struct', JSON.stringify( struct ) ); throw new Error( JSON.stringify( struct ) ) } }
} )
"#;

const COLORS: &str = r#"
export const list = {
    meta: { name: 'colors', version: '1.0.0', description: 'Colors', fields: [ { key: 'name', type: 'string', description: 'Name' } ] },
    entries: [ { name: 'red' }, { name: 'green' } ]
}
"#;

fn handler_catalog() -> Scratch {
    let dir = Scratch::new("hnd");
    dir.write("providers/hnd.mjs", HANDLERS);
    dir.write("_lists/colors.mjs", COLORS);
    dir
}

#[test]
fn handlers_run_in_the_sandbox_with_the_ruled_shapes() {
    let dir = handler_catalog();
    let set = load(&dir.0, Profile::Compat, env_with_canary());
    let server = TestServer::start(9, |seen: &Seen| {
        json_reply(json!({"path": seen.url, "key": seen.header("X-Key")}))
    });
    let t = transport();
    let mut o = opts(&[("hnd", server.base.as_str())]);
    o.call_timeout = Duration::from_millis(300);
    let (r, logs) = runner(&set, &t, o);

    // preRequest changes URL and headers; the secret header is still filled after it.
    let e = r.call_json("pre_hnd", &obj(json!({"q": "abc"})));
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["path"], json!("/pre?q=abc&extra=1"));
    // The upstream echoed the key: redacted in the envelope.
    assert_eq!(e.data()["key"], json!("[redacted]"));
    no_canary(&e, &logs.borrow());

    // executeRequest with fetch through the runtime's transport (compat), secrets filled there.
    let e = r.call_json("exec_hnd", &Map::new());
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["fetched"]["path"], json!("/fetched"));
    assert_eq!(e.data()["fetched"]["key"], json!("[redacted]"));
    assert_eq!(e.data()["status"], json!(200));
    assert_eq!(e.data()["colors"], json!(2));

    let e = r.call_json("post_hnd", &Map::new());
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["wrapped"]["path"], json!("/post"));

    let e = r.call_json("throws_hnd", &Map::new());
    assert!(!e.status());
    assert!(
        message(&e).starts_with("E005 throws: postRequest threw: "),
        "{e:?}"
    );
    assert!(message(&e).contains("boom"));

    let e = r.call_json("loops_hnd", &Map::new());
    assert!(
        message(&e).starts_with("E005 loops: postRequest passed its CPU time limit"),
        "{e:?}"
    );
    // The host was rebuilt: the next call works.
    let e = r.call_json("post_hnd", &Map::new());
    assert!(e.status(), "{e:?}");

    let e = r.call_json("shape_hnd", &Map::new());
    assert!(
        message(&e).starts_with("E005 shape: postRequest SEC101"),
        "{e:?}"
    );

    let e = r.call_json("mutate_hnd", &Map::new());
    assert!(
        message(&e).starts_with("E005 mutate: postRequest SEC102"),
        "{e:?}"
    );

    let e = r.call_json("leak_hnd", &Map::new());
    assert!(
        message(&e).starts_with("E005 leak: postRequest threw"),
        "{e:?}"
    );
    // Handlers see this call's slot token where the key goes, never the key.
    assert!(message(&e).contains("\"X-Key\":\"secret-api_key-"), "{e:?}");
    no_canary(&e, &logs.borrow());
    assert!(
        logs.borrow().iter().any(|l| l.contains("struct")),
        "console.log reaches the log: {:?}",
        logs.borrow()
    );
    drop(r);
    let seen = server.finish();
    assert!(seen.iter().all(|s| s.header("X-Key") == Some(CANARY)));
}

#[test]
fn fetch_is_refused_under_spec() {
    let dir = handler_catalog();
    let set = load(&dir.0, Profile::Spec, env_with_canary());
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[("hnd", "http://127.0.0.1:9")]));
    let e = r.call_json("exec_hnd", &Map::new());
    assert!(
        message(&e).starts_with("E005 exec: executeRequest SEC100"),
        "{e:?}"
    );
}

#[test]
fn factory_failures_and_missing_libraries_are_e005() {
    let dir = Scratch::new("fac");
    dir.write(
        "a.mjs",
        r#"export const main = { namespace: 'fac', name: 'F', description: 'd', version: '4.2.0', root: 'https://x.example',
            tools: { t: { method: 'GET', path: '/t', description: 'd', parameters: [] } } }
        export const handlers = () => { throw new Error( 'factory broke' ) }"#,
    );
    dir.write(
        "b.mjs",
        r#"export const main = { namespace: 'lib', name: 'L', description: 'd', version: '4.2.0', root: 'https://x.example',
            requiredLibraries: [ 'ethers' ],
            tools: { t: { method: 'GET', path: '/t', description: 'd', parameters: [] } } }
        export const handlers = ( { libraries } ) => ( { t: { executeRequest: async ( { struct } ) => { struct.data = libraries.ethers.version; return { struct } } } } )"#,
    );
    let set = load(&dir.0, Profile::Compat, BTreeMap::new());
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[]));
    let e = r.call_json("t_fac", &Map::new());
    assert!(message(&e).starts_with("E005 t: SEC104"), "{e:?}");
    assert!(message(&e).contains("factory broke"));
    let e = r.call_json("t_lib", &Map::new());
    // Under compat a library that cannot be loaded is a stand-in that fails when used.
    assert!(
        message(&e).starts_with("E005 t: executeRequest threw: SEC103 the library \"ethers\""),
        "{e:?}"
    );
}

#[test]
fn each_e_code() {
    let dir = Scratch::new("codes");
    dir.write("loc.mjs", LOCATIONS);
    let set = load(&dir.0, Profile::Spec, env_with_canary());
    let server = TestServer::start(5, |seen: &Seen| match seen.url.as_str() {
        "/text" => reply(
            404,
            Some("application/json"),
            format!("{{\"k\":\"{CANARY}\"}}"),
        ),
        "/img" => reply(503, None, "down"),
        _ => reply(200, Some("application/json"), "{not json"),
    });
    let t = transport();
    let (r, logs) = runner(&set, &t, opts(&[("loc", server.base.as_str())]));
    let good = obj(json!({"id": "1", "ids": [], "count": 1}));
    let e = r.call_json("text_loc", &Map::new());
    // The body's start is in the message, the secret the upstream echoed hidden (issue #44, D136).
    assert_eq!(
        e.messages(),
        vec![r#"E001 text: API returned 404: {"k":"[redacted]"}"#]
    );
    // A GET answered 503 is tried again: three attempts by default (D136).
    let e = r.call_json("image_loc", &Map::new());
    assert_eq!(e.messages(), vec!["E001 image: API returned 503: down"]);
    let e = r.call_json("everything_loc", &good);
    assert!(
        message(&e).starts_with("E004 everything: invalid JSON"),
        "{e:?}"
    );
    no_canary(&e, &logs.borrow());
    // E007 before any network call.
    let e = r.call_json(
        "everything_loc",
        &obj(json!({"id": "1", "ids": [], "count": 0})),
    );
    assert!(message(&e).starts_with("E007 everything: count"), "{e:?}");
    let e = r.call_json(
        "everything_loc",
        &obj(json!({"id": 5, "ids": [], "count": 1})),
    );
    assert!(message(&e).starts_with("E007 everything: id"), "{e:?}");
    let e = r.call_json("nothing_loc", &Map::new());
    assert!(
        message(&e).starts_with("E007 nothing_loc: unknown tool"),
        "{e:?}"
    );
    drop(r);
    assert_eq!(server.finish().len(), 5);

    // E002: nothing listens.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("probe port");
    let refused = format!("http://127.0.0.1:{port}");
    let (r, logs) = runner(&set, &t, opts(&[("loc", refused.as_str())]));
    let e = r.call_json("everything_loc", &good);
    assert!(message(&e).starts_with("E002 everything:"), "{e:?}");
    no_canary(&e, &logs.borrow());
    // The query string is shown with only the secret hidden (issue #28 item 7d).
    assert!(
        message(&e).contains("&tag=fixed&key=[redacted]:"),
        "only the secret is hidden in errors: {e:?}"
    );

    // Plain http to a non-loopback host is no upstream: refused before any call (issue #40,
    // D114; the transport refuses such a URL with E009 too, `tests/transport.rs`).
    assert_eq!(
        RunnerOptions::default().add_upstream("loc", "http://10.255.255.1"),
        Err(flowmcp_runtime::transport::UpstreamError::PlainHttp)
    );

    // E003 and E008 with tight transport limits.
    let slow = TestServer::start(2, |seen: &Seen| {
        if seen.url == "/text" {
            std::thread::sleep(Duration::from_millis(700));
            reply(200, Some("text/plain"), "late")
        } else {
            reply(200, Some("text/plain"), vec![b'x'; 4096])
        }
    });
    let tight = UreqTransport::new({
        let mut built = TransportConfig::default();
        built.total_timeout = Duration::from_millis(300);
        built.max_body_bytes = 1024;
        built.allow_http_loopback = true;
        built
    });
    let (r, _) = runner(&set, &tight, opts(&[("loc", slow.base.as_str())]));
    // The oversized body first: the server answers one request at a time.
    let e = r.call_json("image_loc", &Map::new());
    assert!(message(&e).starts_with("E008 image:"), "{e:?}");
    let e = r.call_json("text_loc", &Map::new());
    assert!(message(&e).starts_with("E003 text:"), "{e:?}");
    drop(r);
    let _ = slow.finish();

    // E006: the variable is missing; the tool is hidden and the call names it.
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let entry = set.find("everything_loc").expect("tool listed");
    assert!(!entry.descriptor.is_exposed());
    let (r, _) = runner(&set, &t, opts(&[]));
    let e = r.call_json("everything_loc", &good);
    assert!(
        message(&e).starts_with("E006 everything: missing server parameter: API_KEY"),
        "{e:?}"
    );
}

#[test]
fn preload_cache_stores_raw_responses_and_honours_the_modes() {
    let cache_dir = Scratch::new("cache");
    let set = load(&examples(), Profile::Spec, BTreeMap::new());
    let server = TestServer::start(3, |_: &Seen| {
        json_reply(json!([{"code": "DE", "name": "Germany"}]))
    });
    let t = transport();
    let mk = |mode| {
        let mut built = opts(&[("holidaykit-net", server.base.as_str())]);
        built.cache = Some(Cache::new(&cache_dir.0).into());
        built.cache_mode = mode;
        built
    };
    let tool = "listCountries_holidaykit-net";
    let (r, logs) = runner(&set, &t, mk(CacheMode::Use));
    let first = r.call_json(tool, &Map::new());
    assert!(first.status(), "{first:?}");
    let second = r.call_json(tool, &Map::new());
    assert_eq!(first.data(), second.data());
    {
        let logs = logs.borrow();
        assert_eq!(logs[0], "Fetching fresh data...");
        assert!(logs[1].starts_with("Cached for "), "{logs:?}");
        assert!(logs[2].starts_with("Cached (fetched: "), "{logs:?}");
        // Issue #31, item 6: a hit shows the tool's `preload.description`.
        assert!(
            logs[2].ends_with(") — Complete country list (~15 KB), refreshed daily"),
            "{logs:?}"
        );
    }
    let (r, _) = runner(&set, &t, mk(CacheMode::Off));
    assert!(r.call_json(tool, &Map::new()).status());
    let (r, logs) = runner(&set, &t, mk(CacheMode::Refresh));
    assert!(r.call_json(tool, &Map::new()).status());
    assert_eq!(logs.borrow()[0], "Refreshing cache...");
    drop(r);
    // Three upstream requests: miss, --no-cache, --refresh (the hit did not go out).
    assert_eq!(server.finish().len(), 3);
    let entries = Cache::new(&cache_dir.0).status(None).expect("status");
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].namespace, "holidaykit-net");
    assert_eq!(entries[0].root, server_root_placeholder(&entries[0].root));
}

/// The cache key's root is the effective root (the upstream override), kept as text.
fn server_root_placeholder(root: &str) -> String {
    assert!(root.starts_with("http://127.0.0.1:"), "{root}");
    root.to_string()
}

/// A schema whose root carries the API key in its path, `<base>/{{SERVER_PARAM:API_KEY}}` (an
/// upstream override is taken as literal text, so the root itself must name the local server).
fn keyed_root_schema(dir: &Scratch, namespace: &str, base: &str, tool: &str) {
    dir.write(
        "s.mjs",
        &format!(
            r#"export const main = {{ namespace: '{namespace}', name: 'S', description: 'd', version: '4.2.0',
            root: '{base}/{{{{SERVER_PARAM:API_KEY}}}}', requiredServerParams: [ 'API_KEY' ],
            tools: {{ t: {tool} }} }}"#
        ),
    );
}

#[test]
fn secrets_never_reach_cache_files() {
    let cache_dir = Scratch::new("cache-secret");
    let dir = Scratch::new("cache-secret-cat");
    let server = TestServer::start(1, |seen: &Seen| json_reply(json!({"echo": seen.url})));
    keyed_root_schema(
        &dir,
        "sec",
        &server.base,
        r#"{ method: 'GET', path: '/t', description: 'd', parameters: [
                { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ],
                preload: { enabled: true, ttl: 60 } }"#,
    );
    let set = load(&dir.0, Profile::Spec, env_with_canary());
    let t = transport();
    let mut o = opts(&[]);
    o.cache = Some(Cache::new(&cache_dir.0).into());
    let (r, logs) = runner(&set, &t, o);
    let e = r.call_json("t_sec", &obj(json!({"q": "x"})));
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["echo"], json!("/[redacted]/t?q=x"));
    no_canary(&e, &logs.borrow());
    drop(r);
    assert_eq!(server.finish()[0].url, format!("/{CANARY}/t?q=x"));
    let mut stack = vec![cache_dir.0.clone()];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read cache dir").flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                // The cache's own key file (random bytes) is no entry.
                if !p.ends_with(flowmcp_runtime::cache::KEY_FILE) {
                    files += 1;
                }
                let text = std::fs::read_to_string(&p).expect("cache file");
                assert!(
                    !text.contains(CANARY),
                    "secret in cache file {}",
                    p.display()
                );
            }
        }
    }
    assert_eq!(files, 1);
}

#[test]
fn url_encoded_secrets_are_redacted_too() {
    // A base64-like key changes form in a URL: `+` `/` `=` are percent-encoded.
    const B64: &str = "CANARY+k/q=";
    const TOOL: &str = r#"{ method: 'GET', path: '/t', description: 'd', parameters: [
                { position: { key: 'key', value: '{{SERVER_PARAM:API_KEY}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ] }"#;
    let mut env = BTreeMap::new();
    env.insert("API_KEY".to_string(), B64.to_string());
    let dir = Scratch::new("b64");
    let server = TestServer::start(1, |seen: &Seen| json_reply(json!({"echo": seen.url})));
    keyed_root_schema(&dir, "enc", &server.base, TOOL);
    let set = load(&dir.0, Profile::Spec, env.clone());
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[]));
    let e = r.call_json("t_enc", &Map::new());
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["echo"], json!("/[redacted]/t?key=[redacted]"));
    drop(r);
    assert_eq!(
        server.finish()[0].url,
        "/CANARY%2Bk%2Fq%3D/t?key=CANARY%2Bk%2Fq%3D"
    );
    // The same key in an error message (nothing listens): the path is redacted.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("probe port");
    let dir = Scratch::new("b64-refused");
    keyed_root_schema(&dir, "enc", &format!("http://127.0.0.1:{port}"), TOOL);
    let set = load(&dir.0, Profile::Spec, env);
    let (r, _) = runner(&set, &t, opts(&[]));
    let e = r.call_json("t_enc", &Map::new());
    assert!(message(&e).starts_with("E002 t:"), "{e:?}");
    assert!(message(&e).contains("/[redacted]/t"), "{e:?}");
    assert!(!message(&e).contains("CANARY"), "{e:?}");
}

/// Issue #28 item 7d: an error shows the request's query string with only the secret hidden (in
/// any encoding): its keys and the other values stay readable. Item 7c: and says what failed.
#[test]
fn i28_7d_errors_show_the_query_with_only_the_secret_redacted() {
    const B64: &str = "CANARY+k/q=";
    const TOOL: &str = r#"{ method: 'GET', path: '/t', description: 'd', parameters: [
                { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } },
                { position: { key: 'key', value: '{{SERVER_PARAM:API_KEY}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ] }"#;
    let mut env = BTreeMap::new();
    env.insert("API_KEY".to_string(), B64.to_string());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("probe port");
    let dir = Scratch::new("i28-7d");
    keyed_root_schema(&dir, "enc", &format!("http://127.0.0.1:{port}"), TOOL);
    let set = load(&dir.0, Profile::Spec, env);
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[]));
    let e = r.call_json("t_enc", &obj(json!({"q": "hello world"})));
    assert_eq!(
        message(&e),
        format!(
            "E002 t: network failure for http://127.0.0.1:{port}/[redacted]/t?q=hello+world&key=[redacted]: connection refused by 127.0.0.1:{port}"
        ),
        "{e:?}"
    );
    assert!(!message(&e).contains("CANARY"), "{e:?}");
}

#[test]
fn compat_execute_request_reads_like_the_reference() {
    let dir = Scratch::new("refexec");
    dir.write(
        "r.mjs",
        r#"export const main = { namespace: 'ref', name: 'R', description: 'd', version: '4.2.0',
            root: 'https://x.example', requiredServerParams: [ 'API_KEY' ],
            tools: {
                viaStruct: { method: 'GET', path: '/a', description: 'd', parameters: [
                    { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ] },
                fails: { method: 'GET', path: '/b', description: 'd', parameters: [] }
            } }
        export const handlers = ( { sharedLists, libraries } ) => ( {
            viaStruct: {
                executeRequest: async ( { struct, payload } ) => {
                    const { userParams, serverParams } = payload
                    const r = await fetch( payload.url + '&k=' + serverParams.API_KEY )
                    struct.data = { got: await r.json(), q: userParams.q, method: payload.method }
                    return { struct }
                }
            },
            fails: {
                executeRequest: async ( { struct } ) => {
                    struct.status = false
                    struct.messages.push( 'upstream said no' )
                    return { struct }
                }
            }
        } )"#,
    );
    let set = load(&dir.0, Profile::Compat, env_with_canary());
    let server = TestServer::start(1, |seen: &Seen| json_reply(json!({"path": seen.url})));
    let t = transport();
    let (r, logs) = runner(&set, &t, opts(&[("ref", server.base.as_str())]));
    let e = r.call_json("viaStruct_ref", &obj(json!({"q": "hello"})));
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["q"], json!("hello"));
    assert_eq!(e.data()["method"], json!("GET"));
    assert_eq!(e.data()["got"]["path"], json!("/a?q=hello&k=[redacted]"));
    let e = r.call_json("fails_ref", &Map::new());
    assert_eq!(
        e.messages(),
        vec!["E005 fails: executeRequest reported a failure: upstream said no"]
    );
    no_canary(&e, &logs.borrow());
    drop(r);
    assert_eq!(server.finish()[0].url, format!("/a?q=hello&k={CANARY}"));
}

#[test]
fn array_bodies_from_pre_request_and_unknown_inputs_under_compat() {
    let dir = Scratch::new("arr");
    dir.write(
        "a.mjs",
        r#"export const main = { namespace: 'arr', name: 'A', description: 'd', version: '4.2.0',
            root: 'https://x.example',
            tools: { map: { method: 'POST', path: '/map', description: 'd', parameters: [
                { position: { key: 'ids', value: '{{USER_PARAM}}', location: 'body' }, z: { primitive: 'array()', options: [] } } ] } } }
        export const handlers = () => ( {
            map: { preRequest: async ( { struct, payload } ) => {
                struct.body = payload.ids.map( ( id ) => ( { idType: 'ID_ISIN', idValue: id } ) )
                return { struct, payload }
            } }
        } )"#,
    );
    let set = load(&dir.0, Profile::Compat, BTreeMap::new());
    let server = TestServer::start(1, |seen: &Seen| {
        json_reply(json!({"got": String::from_utf8_lossy(&seen.body)}))
    });
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[("arr", server.base.as_str())]));
    let e = r.call_json("map_arr", &obj(json!({"ids": ["A1"], "extra": 1})));
    assert!(e.status(), "{e:?}");
    assert_eq!(
        e.warnings(),
        vec!["input \"extra\" is not a parameter of the tool; ignored"]
    );
    drop(r);
    let body: Value = serde_json::from_slice(&server.finish()[0].body).expect("JSON body");
    assert_eq!(body, json!([{"idType": "ID_ISIN", "idValue": "A1"}]));
    // Under spec the unknown key is an input error.
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let (r, _) = runner(&set, &t, opts(&[("arr", "http://127.0.0.1:9")]));
    let e = r.call_json("map_arr", &obj(json!({"ids": ["A1"], "extra": 1})));
    assert!(message(&e).starts_with("E007 map: "), "{e:?}");
}

#[test]
fn handler_keys_for_unknown_tools_are_logged_as_val005() {
    let dir = Scratch::new("val005");
    dir.write(
        "v.mjs",
        r#"export const main = { namespace: 'vv', name: 'V', description: 'd', version: '4.2.0', root: 'https://x.example',
            tools: { t: { method: 'GET', path: '/t', description: 'd', parameters: [] } } }
        console.log( 'module loaded' )
        export const handlers = () => ( {
            t: { postRequest: ( { response } ) => ( { response: { wrapped: response } } ) },
            ghost: { postRequest: ( { response } ) => ( { response } ) }
        } )"#,
    );
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let server = TestServer::start(1, |_: &Seen| json_reply(json!({"a": 1})));
    let t = transport();
    let (r, logs) = runner(&set, &t, opts(&[("vv", server.base.as_str())]));
    let e = r.call_json("t_vv", &Map::new());
    assert_eq!(*e.data(), json!({"wrapped": {"a": 1}}), "{e:?}");
    let logs = logs.borrow();
    assert!(
        logs.iter()
            .any(|l| l.ends_with("VAL005 the handlers name no tool: ghost")),
        "{logs:?}"
    );
    assert!(
        logs.iter().any(|l| l.ends_with("log: module loaded")),
        "{logs:?}"
    );
    drop(r);
    let _ = server.finish();
}

#[test]
fn compat_accepts_a_bare_placeholder_name_as_input_key() {
    let dir = Scratch::new("bare");
    dir.write(
        "b.mjs",
        r#"export const main = { namespace: 'bare', name: 'B', description: 'd', version: '4.2.0', root: 'https://x.example',
            tools: { feed: { method: 'GET', path: '/feed/{{city}}', description: 'd', parameters: [
                { position: { key: 'city', value: '{{CITY}}', location: 'insert' }, z: { primitive: 'string()', options: [] } } ] } } }"#,
    );
    let set = load(&dir.0, Profile::Compat, BTreeMap::new());
    let server = TestServer::start(2, |seen: &Seen| json_reply(json!({"path": seen.url})));
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[("bare", server.base.as_str())]));
    // By its key, as `compat` names such a parameter, and by the placeholder's name.
    for input in [json!({"city": "Oslo"}), json!({"CITY": "Oslo"})] {
        let e = r.call_json("feed_bare", &obj(input));
        assert_eq!(*e.data(), json!({"path": "/feed/Oslo"}), "{e:?}");
        assert!(e.warnings().iter().all(|w| !w.contains("ignored")), "{e:?}");
    }
    drop(r);
    let _ = server.finish();
}

/// The profile is held once, by the toolset: a compat toolset called through default runner options
/// reads `{{CITY}}` as the `compat` profile does (a user input), and sends the value — it used to
/// advertise the input, accept it, and send `?q=%7B%7BCITY%7D%7D` under the runner's `spec`.
#[test]
fn a_compat_toolset_is_called_under_compat_whatever_the_runner_options() {
    let dir = Scratch::new("profile-once");
    dir.write(
        "w.mjs",
        r#"export const main = { namespace: 'wx', name: 'W', description: 'd', version: '4.2.0', root: 'https://x.example',
            tools: { now: { method: 'GET', path: '/now', description: 'd', parameters: [
                { position: { key: 'q', value: '{{CITY}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ] } } }"#,
    );
    let set = load(&dir.0, Profile::Compat, BTreeMap::new());
    assert!(
        set.find("now_wx")
            .is_some_and(|t| t.descriptor.param("q").is_some())
    );
    let server = TestServer::start(1, |seen: &Seen| json_reply(json!({"path": seen.url})));
    let t = transport();
    let mut o = RunnerOptions::default();
    o.add_upstream("wx", &server.base).unwrap();
    let (r, _) = runner(&set, &t, o);
    let e = r.call_json("now_wx", &obj(json!({"q": "Berlin"})));
    assert_eq!(*e.data(), json!({"path": "/now?q=Berlin"}), "{e:?}");
    drop(r);
    let _ = server.finish();
}

/// A compat `:key` name ends at any character but a letter, digit or `_`, as the reference reads
/// it: `/forecast/:city-detail` with `city=Oslo` requests `/forecast/Oslo-detail` (the validator
/// accepted the path, the runtime used to leave it unfilled).
#[test]
fn colon_inserts_end_at_a_hyphen() {
    let dir = Scratch::new("colon-hyphen");
    dir.write(
        "f.mjs",
        r#"export const main = { namespace: 'fc', name: 'F', description: 'd', version: '4.2.0', root: 'https://x.example',
            tools: { detail: { method: 'GET', path: '/forecast/:city-detail', description: 'd', parameters: [
                { position: { key: 'city', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [] } } ] } } }"#,
    );
    let set = load(&dir.0, Profile::Compat, BTreeMap::new());
    let server = TestServer::start(1, |seen: &Seen| json_reply(json!({"path": seen.url})));
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[("fc", server.base.as_str())]));
    let e = r.call_json("detail_fc", &obj(json!({"city": "Oslo"})));
    assert_eq!(*e.data(), json!({"path": "/forecast/Oslo-detail"}), "{e:?}");
    drop(r);
    let _ = server.finish();
}

#[test]
fn libraries_reach_the_factory_and_are_loaded_again_after_a_limit_breach() {
    let dir = Scratch::new("libload");
    dir.write(
        "providers/lib.mjs",
        r#"export const main = { namespace: 'lib', name: 'L', description: 'd', version: '4.2.0', root: 'https://x.example',
            requiredLibraries: [ 'counter-lib' ],
            tools: { t: { method: 'GET', path: '/t', description: 'd', parameters: [
                { position: { key: 'spin', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'boolean()', options: [ 'optional()' ] } } ] } } }
        export const handlers = ( { libraries } ) => ( { t: { executeRequest: async ( { struct, payload } ) => {
            if ( payload.userParams.spin ) { for ( ;; ) {} }
            struct.data = { next: libraries[ 'counter-lib' ].next(), loadedAt: libraries[ 'counter-lib' ].loads }
            return { struct }
        } } } )"#,
    );
    dir.write(
        "libs/node_modules/counter-lib/package.json",
        r#"{"name": "counter-lib", "main": "index.js"}"#,
    );
    dir.write(
        "libs/node_modules/counter-lib/index.js",
        "let n = 0; globalThis.loads = (globalThis.loads || 0) + 1;\n\
         module.exports = { next: () => ++n, loads: globalThis.loads };",
    );
    let files = vec![dir.0.join("providers/lib.mjs")];
    let set = calls::load_files(&files, &dir.0, Profile::Compat, BTreeMap::new());
    let t = transport();
    let mut o = opts(&[]);
    o.call_timeout = Duration::from_millis(200);
    o.libraries =
        Some(flowmcp_loader::libs::LibraryDir::new(&dir.0.join("libs")).expect("library dir"));
    // Issue #32 item 1: the observer hears of the rebuild (the metrics' sandbox rebuilds).
    #[derive(Default)]
    struct Rebuilds(std::sync::atomic::AtomicUsize);
    impl flowmcp_runtime::transport::Observer for Rebuilds {
        fn sandbox_rebuilt(&self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let rebuilds = std::sync::Arc::new(Rebuilds::default());
    o.observer = Some(rebuilds.clone());
    let (r, _) = runner(&set, &t, o);
    let e = r.call_json("t_lib", &Map::new());
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!({ "next": 1, "loadedAt": 1 }));
    // Evaluated once per sandbox: its state carries over to the next call.
    let e = r.call_json("t_lib", &Map::new());
    assert_eq!(*e.data(), json!({ "next": 2, "loadedAt": 1 }));
    // A breach poisons the sandbox; the next call gets a new one with the library loaded afresh.
    let e = r.call_json("t_lib", &obj(json!({ "spin": true })));
    assert!(!e.status());
    assert!(message(&e).contains("CPU time limit"), "{e:?}");
    assert_eq!(rebuilds.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    let e = r.call_json("t_lib", &Map::new());
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!({ "next": 1, "loadedAt": 1 }));
    assert_eq!(rebuilds.0.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn a_library_talks_json_rpc_with_byte_bodies_through_the_runtime_fetch() {
    // What ethers' JsonRpcProvider does: a POST with a Uint8Array body, Headers, an
    // AbortController and a timer, the answer read with arrayBuffer() and TextDecoder.
    let dir = Scratch::new("librpc");
    dir.write(
        "providers/rpc.mjs",
        r#"export const main = { namespace: 'rpc', name: 'R', description: 'd', version: '4.2.0', root: 'https://rpc.example',
            requiredLibraries: [ 'tiny-rpc' ],
            tools: { block: { method: 'GET', path: '/', description: 'd', parameters: [] } } }
        export const handlers = ( { libraries } ) => ( { block: { executeRequest: async ( { struct, payload } ) => {
            const client = new libraries[ 'tiny-rpc' ].Client( payload.url )
            struct.data = { block: await client.call( 'eth_blockNumber', [] ) }
            return { struct }
        } } } )"#,
    );
    dir.write(
        "libs/node_modules/tiny-rpc/package.json",
        r#"{"name": "tiny-rpc", "type": "module", "exports": {".": {"import": "./index.js"}}}"#,
    );
    dir.write(
        "libs/node_modules/tiny-rpc/index.js",
        r#"export class Client {
            constructor(url) { this.url = url; this.id = 0; }
            async call(method, params) {
                const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }));
                const controller = new AbortController();
                const timer = setTimeout(() => controller.abort(), 60000);
                const resp = await fetch(this.url, { method: 'POST', body, signal: controller.signal,
                    headers: new Headers([['content-type', 'application/json']]) });
                clearTimeout(timer);
                const text = new TextDecoder().decode(new Uint8Array(await resp.arrayBuffer()));
                return JSON.parse(text).result;
            }
        }"#,
    );
    let files = vec![dir.0.join("providers/rpc.mjs")];
    let set = calls::load_files(&files, &dir.0, Profile::Compat, BTreeMap::new());
    let server = TestServer::start(1, |seen: &Seen| {
        let asked: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        json_reply(json!({
            "jsonrpc": "2.0",
            "id": asked["id"],
            "result": format!("{} {} {}", seen.method, asked["method"].as_str().unwrap_or("?"), seen.header("content-type").unwrap_or_default()),
        }))
    });
    let t = transport();
    let mut o = opts(&[("rpc", server.base.as_str())]);
    o.libraries =
        Some(flowmcp_loader::libs::LibraryDir::new(&dir.0.join("libs")).expect("library dir"));
    let (r, _) = runner(&set, &t, o);
    let e = r.call_json("block_rpc", &Map::new());
    assert!(e.status(), "{e:?}");
    assert_eq!(
        e.data()["block"],
        json!("POST eth_blockNumber application/json")
    );
}

/// A preloaded tool `data` of namespace `pc` at `root` whose path is `path`, cached `ttl` seconds.
fn preloaded_schema(dir: &Scratch, root: &str, path: &str, ttl: u64) {
    dir.write(
        "s.mjs",
        &format!(
            "export const main = {{ namespace: 'pc', name: 'S', description: 'd', version: '4.2.0',
             root: '{root}', tools: {{ data: {{ method: 'GET', path: '{path}', description: 'd',
                 parameters: [], preload: {{ enabled: true, ttl: {ttl} }} }} }} }}"
        ),
    );
}

/// Issue #46: a preloaded tool's definition hash, computed on the first call that consults the
/// cache rather than when the catalog loads, is still made from the tool's entry as written:
/// a second test, which the loaded `main` no longer holds, changes it; the same text gives the
/// same hash; a tool that is not preloaded has none.
#[test]
fn i46_a_definition_hash_made_late_covers_the_entry_as_written() {
    let write = |dir: &Scratch, second_test: &str| {
        dir.write(
            "s.mjs",
            &format!(
                "export const main = {{ namespace: 'pc', name: 'S', description: 'd', version: '4.2.0',
                 root: 'https://example.com', tools: {{
                     data: {{ method: 'GET', path: '/d', description: 'd', parameters: [],
                         preload: {{ enabled: true, ttl: 60 }},
                         tests: [ {{ _description: 'one' }}, {{ _description: '{second_test}' }} ] }},
                     live: {{ method: 'GET', path: '/l', description: 'd', parameters: [] }} }} }}"
            ),
        );
    };
    let hash = |second_test: &str| {
        let dir = Scratch::new("late-definition");
        write(&dir, second_test);
        let set = load(&dir.0, Profile::Spec, BTreeMap::new());
        let schema = &set.schemas()[0];
        assert_eq!(schema.main.tools["data"].tests.len(), 1);
        assert_eq!(schema.cache_definition("live"), None);
        schema.cache_definition("data").map(str::to_string)
    };
    let a = hash("two");
    assert!(a.as_ref().is_some_and(|h| h.len() == 64), "{a:?}");
    assert_eq!(hash("two"), a);
    assert_ne!(hash("other"), a);
}

/// Issue #27 item 8: a cache entry is bound to the definition that wrote it. A schema of another
/// catalog with the same namespace, tool and root (here: another path and a ten-year ttl) cannot
/// plant data the trusted schema then serves: its entry is a miss for the trusted one, which
/// fetches and overwrites it.
#[test]
fn item08_a_cache_entry_serves_only_the_definition_that_wrote_it() {
    let cache_dir = Scratch::new("cache-planted");
    let server = TestServer::start(3, |seen: &Seen| {
        if seen.url == "/real" {
            json_reply(json!({"real": true}))
        } else {
            json_reply(json!({"planted": true}))
        }
    });
    let hostile = Scratch::new("cache-planted-hostile");
    preloaded_schema(&hostile, &server.base, "/fake", 315_360_000);
    let trusted = Scratch::new("cache-planted-trusted");
    preloaded_schema(&trusted, &server.base, "/real", 60);
    let t = transport();
    let o = || {
        let mut built = opts(&[]);
        built.cache = Some(Cache::new(&cache_dir.0).into());
        built
    };
    let set = load(&hostile.0, Profile::Spec, BTreeMap::new());
    let (r, _) = runner(&set, &t, o());
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(*e.data(), json!({"planted": true}), "{e:?}");
    drop(r);
    let set = load(&trusted.0, Profile::Spec, BTreeMap::new());
    let (r, logs) = runner(&set, &t, o());
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(
        *e.data(),
        json!({"real": true}),
        "the planted entry was served: {e:?}"
    );
    // The trusted entry replaced the planted one and is served from now on.
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(*e.data(), json!({"real": true}), "{e:?}");
    assert!(
        logs.borrow()
            .last()
            .is_some_and(|l| l.starts_with("Cached (fetched: ")),
        "{:?}",
        logs.borrow()
    );
    drop(r);
    let seen = server.finish();
    let urls: Vec<&str> = seen.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(urls, vec!["/fake", "/real"]);
}

/// Issue #27 item 8: an entry's expiry is capped by the reader's own ttl: an entry that claims to
/// live until 9999, fetched an hour ago, is expired for a tool whose ttl is a minute; one that
/// claims to have been fetched in the future is expired too.
#[test]
fn item08_the_readers_ttl_caps_an_entrys_expiry() {
    let cache_dir = Scratch::new("cache-ttl-cap");
    let server = TestServer::start(4, |_: &Seen| json_reply(json!({"fresh": true})));
    let dir = Scratch::new("cache-ttl-cap-cat");
    preloaded_schema(&dir, &server.base, "/d", 60);
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let t = transport();
    let mut o = opts(&[]);
    o.cache = Some(Cache::new(&cache_dir.0).into());
    let (r, logs) = runner(&set, &t, o);
    let forge = |fetched: std::time::SystemTime| {
        let entries = Cache::new(&cache_dir.0).status(None).expect("status");
        assert_eq!(entries.len(), 1);
        let path = &entries[0].path;
        let mut entry: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("entry")).expect("JSON");
        entry["meta"]["fetchedAt"] = json!(flowmcp_runtime::cache::rfc3339(fetched));
        entry["meta"]["expiresAt"] = json!("9999-12-31T23:59:59.999Z");
        entry["data"] = json!({"forged": true});
        std::fs::write(path, entry.to_string()).expect("write entry");
    };
    let now = std::time::SystemTime::now;
    assert_eq!(
        *r.call_json("data_pc", &Map::new()).data(),
        json!({"fresh": true})
    );
    forge(now() - Duration::from_secs(3600));
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(
        *e.data(),
        json!({"fresh": true}),
        "an hour-old entry was served: {e:?}"
    );
    forge(now() + Duration::from_secs(86_400));
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(
        *e.data(),
        json!({"fresh": true}),
        "an entry from the future was served: {e:?}"
    );
    // A genuine entry is still served within the ttl.
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(*e.data(), json!({"fresh": true}), "{e:?}");
    assert!(
        logs.borrow()
            .last()
            .is_some_and(|l| l.starts_with("Cached (fetched: ")),
        "{:?}",
        logs.borrow()
    );
    drop(r);
    assert_eq!(server.finish().len(), 3);
}

/// Runner options whose preload cache is the Redis database `url`, with a generous time limit
/// (a loaded machine must not turn a slow answer into an outage) and the key every "replica" of
/// the tests shares.
fn redis_opts(url: &str) -> RunnerOptions {
    let mut built = opts(&[]);
    let key = flowmcp_runtime::cache::BindingKey::from_text("the replicas' shared cache key")
        .expect("a key");
    let cache = RedisCache::open(url)
        .expect("a redis:// URL")
        .with_timeout(Duration::from_secs(10))
        .with_key(key);
    built.cache = Some(cache.into());
    built
}

/// Issue #32, item 4: two runners ("replicas", each with its own connection) against one Redis
/// and one upstream fetch once per ttl: the second replica is served the first one's entry, kept
/// under `flowmcp:preload:v1:` with a Redis expiry of at most the ttl.
#[test]
fn i32_4_two_replicas_share_one_redis_cache_and_fetch_once_per_ttl() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = TestServer::start(4, |_: &Seen| json_reply(json!({"n": 1})));
    let dir = Scratch::new("redis-replicas");
    preloaded_schema(&dir, &server.base, "/d", 60);
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let t = transport();
    let (a, logs_a) = runner(&set, &t, redis_opts(&redis.url()));
    let (b, logs_b) = runner(&set, &t, redis_opts(&redis.url()));
    for r in [&a, &b, &a, &b] {
        let e = r.call_json("data_pc", &Map::new());
        assert_eq!(*e.data(), json!({"n": 1}), "{e:?}");
    }
    assert_eq!(logs_a.borrow()[0], "Fetching fresh data...");
    assert!(
        logs_b.borrow()[0].starts_with("Cached (fetched: "),
        "the second replica fetched again: {:?}",
        logs_b.borrow()
    );
    drop((a, b));
    let base = server.base.clone();
    assert_eq!(
        server.finish().len(),
        1,
        "one upstream fetch for both replicas"
    );
    let keys = redis.keys("*");
    assert_eq!(keys, vec!["flowmcp:preload:v1:pc/data".to_string()]);
    let pttl: i64 = redis.cli(&["PTTL", &keys[0]]).trim().parse().expect("PTTL");
    assert!(pttl > 0 && pttl <= 60_000, "Redis expiry {pttl} ms");
    // The same entry the file cache writes: meta (bound to the definition) and the raw data.
    let entry: Value = serde_json::from_str(&redis.cli(&["GET", &keys[0]])).expect("JSON entry");
    assert_eq!(entry["data"], json!({"n": 1}));
    assert_eq!(entry["meta"]["ttl"], json!(60));
    assert_eq!(entry["meta"]["root"], json!(base));
    assert!(entry["meta"]["definition"].is_string(), "{entry}");
}

/// Issue #32, item 4: replicas that miss the same entry at the same moment make one upstream
/// fetch between them: the first takes the entry's fill lock, the others wait for its store. A
/// fetch that fails releases the lock, and the next caller fetches.
#[test]
fn i32_4_concurrent_misses_across_replicas_make_one_fetch() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = TestServer::start(3, |seen: &Seen| {
        // Slow enough that the other replicas miss while the first one fetches.
        std::thread::sleep(Duration::from_millis(400));
        if seen.url == "/fail" {
            reply(500, Some("application/json"), "{}")
        } else {
            json_reply(json!({"once": true}))
        }
    });
    let dir = Scratch::new("redis-single-flight");
    preloaded_schema(&dir, &server.base, "/d", 60);
    let replicas = 3;
    let start = std::sync::Barrier::new(replicas);
    let url = redis.url();
    let results: Vec<(Value, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..replicas)
            .map(|_| {
                scope.spawn(|| {
                    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
                    let t = transport();
                    let (r, logs) = runner(&set, &t, redis_opts(&url));
                    start.wait();
                    let e = r.call_json("data_pc", &Map::new());
                    drop(r);
                    let logs = logs.borrow().clone();
                    (e.data().clone(), logs)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("replica"))
            .collect()
    });
    for (data, logs) in &results {
        assert_eq!(*data, json!({"once": true}), "{logs:?}");
    }
    let fetched = results
        .iter()
        .filter(|(_, logs)| logs.iter().any(|l| l == "Fetching fresh data..."))
        .count();
    assert_eq!(fetched, 1, "{results:?}");
    assert!(
        redis.keys("flowmcp:preload-fill:*").is_empty(),
        "the lock was released"
    );
    // A failed fetch releases its lock: the next caller fetches at once (no lock left behind).
    let failing = Scratch::new("redis-single-flight-fail");
    preloaded_schema(&failing, &server.base, "/fail", 60);
    let set = load(&failing.0, Profile::Spec, BTreeMap::new());
    let t = transport();
    let (r, _) = runner(&set, &t, redis_opts(&url));
    assert!(!r.call_json("data_pc", &Map::new()).status());
    assert!(
        redis.keys("flowmcp:preload-fill:*").is_empty(),
        "the lock was released"
    );
    drop(r);
    assert_eq!(server.finish().len(), 2);
}

/// Issue #32, item 4: an entry in Redis written by another definition (same namespace, tool and
/// root), or a value that is not an entry, is ignored as the file cache ignores it: the trusted
/// tool fetches and overwrites it.
#[test]
fn i32_4_a_redis_entry_of_another_definition_or_malformed_is_ignored() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = TestServer::start(4, |seen: &Seen| {
        if seen.url == "/real" {
            json_reply(json!({"real": true}))
        } else {
            json_reply(json!({"planted": true}))
        }
    });
    let hostile = Scratch::new("redis-planted-hostile");
    preloaded_schema(&hostile, &server.base, "/fake", 315_360_000);
    let trusted = Scratch::new("redis-planted-trusted");
    preloaded_schema(&trusted, &server.base, "/real", 60);
    let t = transport();
    let set = load(&hostile.0, Profile::Spec, BTreeMap::new());
    let (r, _) = runner(&set, &t, redis_opts(&redis.url()));
    assert_eq!(
        *r.call_json("data_pc", &Map::new()).data(),
        json!({"planted": true})
    );
    drop(r);
    let set = load(&trusted.0, Profile::Spec, BTreeMap::new());
    let (r, _) = runner(&set, &t, redis_opts(&redis.url()));
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(
        *e.data(),
        json!({"real": true}),
        "the planted entry was served: {e:?}"
    );
    // A malformed value under the key is a miss too.
    let key = "flowmcp:preload:v1:pc/data";
    for bad in ["not json", r#"{"meta":{},"data":{"forged":true}}"#] {
        assert_eq!(redis.cli(&["SET", key, bad]).trim(), "OK");
        let e = r.call_json("data_pc", &Map::new());
        assert_eq!(*e.data(), json!({"real": true}), "{bad}: {e:?}");
    }
    let e = r.call_json("data_pc", &Map::new());
    assert_eq!(*e.data(), json!({"real": true}), "{e:?}");
    drop(r);
    let urls: Vec<String> = server.finish().into_iter().map(|s| s.url).collect();
    assert_eq!(urls, vec!["/fake", "/real", "/real", "/real"]);
}

/// Issue #32, item 4: Redis stopped in the middle of a run: every call still succeeds (fetching),
/// one warning is logged for the outage (not one per call), and it does not show the password;
/// once Redis is back, the cache is used again.
#[test]
fn i32_4_redis_stopped_mid_run_degrades_to_no_cache_with_one_warning() {
    let password = "s3cret-redis-pw";
    let Some(mut redis) = RedisServer::start_with(Some(password)) else {
        return;
    };
    let server = TestServer::start(200, |_: &Seen| json_reply(json!({"ok": true})));
    let dir = Scratch::new("redis-outage");
    preloaded_schema(&dir, &server.base, "/d", 60);
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let t = transport();
    let (r, logs) = runner(&set, &t, redis_opts(&redis.url()));
    for _ in 0..2 {
        assert_eq!(
            *r.call_json("data_pc", &Map::new()).data(),
            json!({"ok": true})
        );
    }
    assert_eq!(redis.keys("flowmcp:preload:v1:*").len(), 1);
    redis.stop();
    for i in 0..4 {
        let e = r.call_json("data_pc", &Map::new());
        assert!(e.status(), "call {i} failed with Redis down: {e:?}");
        assert_eq!(*e.data(), json!({"ok": true}));
        assert!(e.warnings().is_empty(), "{e:?}");
    }
    let fetched = logs
        .borrow()
        .iter()
        .filter(|l| *l == "Fetching fresh data...")
        .count();
    assert_eq!(
        fetched,
        5,
        "one fetch before, one per call after: {:?}",
        logs.borrow()
    );
    // Redis back: after the pause the cache is used again, without another warning.
    redis.restart();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while redis.keys("flowmcp:preload:v1:*").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the cache was not used again"
        );
        assert!(r.call_json("data_pc", &Map::new()).status());
        std::thread::sleep(Duration::from_millis(200));
    }
    let e = r.call_json("data_pc", &Map::new());
    assert!(e.status(), "{e:?}");
    assert!(
        logs.borrow()
            .last()
            .is_some_and(|l| l.starts_with("Cached (fetched: ")),
        "{:?}",
        logs.borrow()
    );
    drop(r);
    drop(server);
    let logs = logs.borrow();
    let warnings: Vec<&String> = logs.iter().filter(|l| l.contains("Redis")).collect();
    assert_eq!(warnings.len(), 1, "{logs:?}");
    assert!(
        warnings[0].contains("redis://127.0.0.1:") && warnings[0].contains("unavailable"),
        "{}",
        warnings[0]
    );
    assert!(!logs.iter().any(|l| l.contains(password)), "{logs:?}");
}

/// Issue #32, item 4: what goes to Redis is what goes to a cache file: the key is built from the
/// root template and the user parameters, the value is the raw response with secrets redacted —
/// neither holds a server parameter's value.
#[test]
fn i32_4_secrets_never_reach_redis() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let dir = Scratch::new("redis-secret-cat");
    let server = TestServer::start(1, |seen: &Seen| json_reply(json!({"echo": seen.url})));
    keyed_root_schema(
        &dir,
        "sec",
        &server.base,
        r#"{ method: 'GET', path: '/t', description: 'd', parameters: [
                { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ],
                preload: { enabled: true, ttl: 60 } }"#,
    );
    let set = load(&dir.0, Profile::Spec, env_with_canary());
    let t = transport();
    let (r, logs) = runner(&set, &t, redis_opts(&redis.url()));
    let e = r.call_json("t_sec", &obj(json!({"q": "x"})));
    assert!(e.status(), "{e:?}");
    no_canary(&e, &logs.borrow());
    drop(r);
    assert_eq!(server.finish()[0].url, format!("/{CANARY}/t?q=x"));
    let keys = redis.keys("*");
    assert_eq!(keys.len(), 1, "{keys:?}");
    for key in &keys {
        assert!(!key.contains(CANARY), "secret in the Redis key {key}");
        let value = redis.cli(&["GET", key]);
        assert!(value.contains("[redacted]"), "{value}");
        assert!(
            !value.contains(CANARY),
            "secret in the Redis value of {key}"
        );
    }
}

/// Issue #31 item 4: one tool per handler result shape (the handler tables of chapters 01 and 05).
const SHAPES: &str = r#"
export const main = {
    namespace: 'shp', name: 'Shapes', description: 'Handler result shapes', version: '4.2.0',
    root: 'https://api.example.com',
    tools: {
        preOk: { method: 'GET', path: '/pre-ok', description: 'd', parameters: [] },
        preNoStruct: { method: 'GET', path: '/pre-no-struct', description: 'd', parameters: [] },
        prePayloadNumber: { method: 'GET', path: '/pre-payload', description: 'd', parameters: [] },
        preExtraKey: { method: 'GET', path: '/pre-extra', description: 'd', parameters: [] },
        execOk: { method: 'GET', path: '/exec-ok', description: 'd', parameters: [] },
        execNoResponse: { method: 'GET', path: '/exec-none', description: 'd', parameters: [] },
        postOk: { method: 'GET', path: '/post-ok', description: 'd', parameters: [] },
        postNull: { method: 'GET', path: '/post-null', description: 'd', parameters: [] },
        postWrong: { method: 'GET', path: '/post-wrong', description: 'd', parameters: [] }
    }
}
export const handlers = ( { sharedLists, libraries } ) => ( {
    preOk: { preRequest: async ( { struct, payload } ) => ( { struct, payload } ) },
    preNoStruct: { preRequest: async ( { struct, payload } ) => ( { payload } ) },
    prePayloadNumber: { preRequest: async ( { struct, payload } ) => ( { struct, payload: 1 } ) },
    preExtraKey: { preRequest: async ( { struct, payload } ) => ( { struct, payload, extra: 1 } ) },
    execOk: { executeRequest: async () => ( { response: { made: true } } ) },
    execNoResponse: { executeRequest: async () => ( { data: { made: true } } ) },
    postOk: { postRequest: async ( { response } ) => ( { response: { wrapped: response } } ) },
    postNull: { postRequest: async () => ( { response: null } ) },
    postWrong: { postRequest: async () => ( { wrong: 1 } ) }
} )
"#;

#[test]
fn i31_4_handler_results_have_the_ruled_shape() {
    let dir = Scratch::new("shp");
    dir.write("providers/shp.mjs", SHAPES);
    let t = transport();
    let echo = |seen: &Seen| json_reply(json!({"path": seen.url}));

    // spec: a missing, unknown or mistyped key is SEC101, reported as E005 (no data).
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    // Only the tools whose preRequest passes reach the upstream: preOk and the three post tools.
    let server = TestServer::start(4, echo);
    let (r, _) = runner(&set, &t, opts(&[("shp", server.base.as_str())]));
    let call = |tool: &str| r.call_json(&format!("{tool}_shp"), &Map::new());
    let fails = [
        (
            "postWrong",
            "E005 postWrong: postRequest SEC101 must return an object { response } (\"response\" is missing)",
        ),
        (
            "preNoStruct",
            "E005 preNoStruct: preRequest SEC101 must return an object { struct, payload } (\"struct\" is missing)",
        ),
        (
            "prePayloadNumber",
            "E005 prePayloadNumber: preRequest SEC101 must return an object { struct, payload } (its \"payload\" is a number)",
        ),
        (
            "preExtraKey",
            "E005 preExtraKey: preRequest SEC101 must return an object { struct, payload } (unexpected key \"extra\")",
        ),
        (
            "execNoResponse",
            "E005 execNoResponse: executeRequest SEC101 must return an object { response } (\"response\" is missing)",
        ),
    ];
    for (tool, expected) in fails {
        let e = call(tool);
        assert!(!e.status(), "{tool}: {e:?}");
        assert_eq!(e.messages(), vec![expected], "{tool}");
        assert_eq!(*e.data(), Value::Null, "{tool}");
    }
    let e = call("preOk");
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["path"], json!("/pre-ok"));
    let e = call("execOk");
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!({"made": true}));
    let e = call("postOk");
    assert_eq!(e.data()["wrapped"]["path"], json!("/post-ok"), "{e:?}");
    // `response: null` is a response: the data is null, no failure.
    let e = call("postNull");
    assert!(e.status() && e.warnings().is_empty(), "{e:?}");
    assert_eq!(*e.data(), Value::Null);
    drop(r);
    assert_eq!(server.finish().len(), 4);

    // compat reads results as the reference does: a missing key changes nothing. A postRequest
    // without `response` passes the upstream's data on (not null), with a warning.
    let set = load(&dir.0, Profile::Compat, BTreeMap::new());
    let server = TestServer::start(5, echo);
    let (r, _) = runner(&set, &t, opts(&[("shp", server.base.as_str())]));
    let call = |tool: &str| r.call_json(&format!("{tool}_shp"), &Map::new());
    let e = call("postWrong");
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), json!({"path": "/post-wrong"}));
    assert_eq!(
        e.warnings(),
        vec![
            "postRequest returned no \"response\": the data is passed on unchanged (SEC101 under profile spec)"
        ]
    );
    for (tool, path) in [
        ("preNoStruct", "/pre-no-struct"),
        ("prePayloadNumber", "/pre-payload"),
        ("preExtraKey", "/pre-extra"),
    ] {
        let e = call(tool);
        assert!(e.status() && e.warnings().is_empty(), "{tool}: {e:?}");
        assert_eq!(e.data()["path"], json!(path), "{tool}");
    }
    // executeRequest without `response` (nor a reference-style `struct`) gives null data.
    let e = call("execNoResponse");
    assert!(e.status(), "{e:?}");
    assert_eq!(*e.data(), Value::Null);
    let e = call("postNull");
    assert!(e.status() && e.warnings().is_empty(), "{e:?}");
    assert_eq!(*e.data(), Value::Null);
    drop(r);
    assert_eq!(server.finish().len(), 5);
}

/// Issue #31 item 5: under compat a schema that uses `setTimeout` at its top level loads and its
/// tools are callable (the handler host and the loader offer the same timers).
#[test]
fn i31_5_compat_schema_with_top_level_timers_is_callable() {
    let dir = Scratch::new("tmr");
    dir.write(
        "providers/tmr.mjs",
        r#"let ready = 'no'
setTimeout( () => { ready = 'yes' }, 1 )
await new Promise( ( resolve ) => setTimeout( resolve, 5 ) )
export const main = {
    namespace: 'tmr', name: 'Timers', description: 'Top-level timers', version: '4.2.0',
    root: 'https://api.example.com',
    tools: { get: { method: 'GET', path: '/get', description: 'd', parameters: [] } }
}
export const handlers = () => ( {
    get: { postRequest: async ( { response } ) => ( { response: { ready, upstream: response } } ) }
} )
"#,
    );
    let set = load(&dir.0, Profile::Compat, BTreeMap::new());
    let server = TestServer::start(1, |seen: &Seen| json_reply(json!({"path": seen.url})));
    let t = transport();
    let (r, _) = runner(&set, &t, opts(&[("tmr", server.base.as_str())]));
    let e = r.call_json("get_tmr", &Map::new());
    assert!(e.status(), "{e:?}");
    assert_eq!(
        *e.data(),
        json!({"ready": "yes", "upstream": {"path": "/get"}})
    );
    drop(r);
    assert_eq!(server.finish().len(), 1);
}

/// Issue #32 items 1 and 2: an observer hears of each upstream answer and preload cache lookup,
/// and its request id goes on the schema's own request as `x-request-id`, unless the schema sets
/// that header itself (the schema's header wins, and is sent once).
#[test]
fn i32_2_the_request_id_rides_the_schemas_own_request_and_its_own_header_wins() {
    use std::sync::{Arc, Mutex};
    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);
    impl flowmcp_runtime::transport::Observer for Heard {
        fn upstream(&self, status: Option<u16>, _elapsed: Duration) {
            self.0.lock().unwrap().push(format!("upstream {status:?}"));
        }
        fn preload_cache(&self, hit: bool) {
            self.0.lock().unwrap().push(format!("cache {hit}"));
        }
        fn request_id(&self) -> Option<String> {
            Some("rid-i32".into())
        }
    }
    let server = TestServer::start(3, |_| json_reply(json!({"ok": true})));
    let dir = Scratch::new("i32-request-id");
    for (ns, headers) in [
        ("plain", ""),
        ("own", "headers: { 'X-Request-Id': 'fixed-by-schema' },"),
    ] {
        dir.write(
            &format!("{ns}.mjs"),
            &format!(
                r#"export const main = {{ namespace: '{ns}', name: 'S', description: 'd', version: '4.2.0',
                root: 'https://x.example', {headers}
                tools: {{ t: {{ method: 'GET', path: '/t', description: 'd', parameters: [] }} }} }}"#
            ),
        );
    }
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let t = transport();
    let heard = Arc::new(Heard::default());
    let mut o = opts(&[("plain", &server.base), ("own", &server.base)]);
    o.observer = Some(heard.clone());
    let (r, _) = runner(&set, &t, o);
    for tool in ["t_plain", "t_own"] {
        let e = r.call_json(tool, &Map::new());
        assert!(e.status(), "{e:?}");
    }
    let seen = server.finish();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].header("x-request-id"), Some("rid-i32"));
    let own: Vec<_> = seen[1]
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("x-request-id"))
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(own, ["fixed-by-schema"]);
    assert_eq!(
        *heard.0.lock().unwrap(),
        ["upstream Some(200)", "upstream Some(200)"]
    );
}

/// A preloaded tool whose API key travels in a header (the root holds no key): the request is the
/// same whatever the key, only the account it reaches differs.
fn header_keyed_schema(dir: &Scratch, base: &str) {
    dir.write(
        "s.mjs",
        &format!(
            "export const main = {{ namespace: 'kv', name: 'S', description: 'd', version: '4.2.0',
             root: '{base}', requiredServerParams: [ 'API_KEY' ],
             headers: {{ 'X-Api-Key': '{{{{SERVER_PARAM:API_KEY}}}}' }},
             tools: {{ data: {{ method: 'GET', path: '/d', description: 'd',
                 parameters: [], preload: {{ enabled: true, ttl: 60 }} }} }} }}"
        ),
    );
}

/// Issue #39, finding 1: calls of one tool with the API key `attacker-key`, then twice with
/// `user-key`, each from a fresh toolset whose cache `cache` gives: the user's first call must
/// not be served the attacker's account (a miss that fetches and overwrites), the second is a
/// hit.
fn key_values_bind_entries(tag: &str, cache: &dyn Fn() -> RunnerOptions) {
    let server = TestServer::start(3, |seen: &Seen| {
        let account = match seen.header("X-Api-Key") {
            Some("attacker-key") => "attacker",
            Some("user-key") => "user",
            _ => "none",
        };
        json_reply(json!({ "account": account }))
    });
    let dir = Scratch::new(tag);
    header_keyed_schema(&dir, &server.base);
    let t = transport();
    let call = |key: &str| {
        let env = BTreeMap::from([("API_KEY".to_string(), key.to_string())]);
        let set = load(&dir.0, Profile::Spec, env);
        let (r, logs) = runner(&set, &t, cache());
        let e = r.call_json("data_kv", &Map::new());
        let logs = logs.borrow().clone();
        (e, logs)
    };
    let (e, _) = call("attacker-key");
    assert_eq!(*e.data(), json!({"account": "attacker"}), "{e:?}");
    let (e, logs) = call("user-key");
    assert_eq!(
        *e.data(),
        json!({"account": "user"}),
        "the entry fetched with another key was served: {e:?} {logs:?}"
    );
    let (e, logs) = call("user-key");
    assert_eq!(*e.data(), json!({"account": "user"}), "{e:?}");
    assert!(
        logs.last()
            .is_some_and(|l| l.starts_with("Cached (fetched: ")),
        "the same key is a hit: {logs:?}"
    );
    let seen: Vec<Option<String>> = server
        .finish()
        .iter()
        .map(|s| s.header("X-Api-Key").map(str::to_string))
        .collect();
    assert_eq!(
        seen,
        vec![
            Some("attacker-key".to_string()),
            Some("user-key".to_string())
        ]
    );
}

/// Issue #39, finding 1: a file cache entry serves only calls with the server-parameter values
/// it was fetched with (a repository's `.env` holding an attacker's key cannot fill the user's
/// cache with the attacker's account data).
#[test]
fn i39_1_a_cache_file_serves_only_the_key_values_that_fetched_it() {
    let cache_dir = Scratch::new("i39-values-cache");
    key_values_bind_entries("i39-values-file", &|| {
        let mut built = opts(&[]);
        built.cache = Some(Cache::new(&cache_dir.0).into());
        built
    });
}

/// Issue #39, finding 1: the same for the shared cache in Redis (two deployments with different
/// keys sharing one Redis do not read each other's data).
#[test]
fn i39_1_a_redis_entry_serves_only_the_key_values_that_fetched_it() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let url = redis.url();
    key_values_bind_entries("i39-values-redis", &|| redis_opts(&url));
}

/// Issue #39, finding 2: another process holds the entry's fill lock (and never stores): a call
/// with a 1,000 ms deadline ends at its deadline (E003), not after the fill wait.
#[test]
fn i39_2_a_fill_lock_held_elsewhere_cannot_outlast_the_calls_deadline() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = TestServer::start(1, |_: &Seen| json_reply(json!({"late": true})));
    let dir = Scratch::new("i39-fill-deadline");
    preloaded_schema(&dir, &server.base, "/d", 60);
    assert_eq!(
        redis
            .cli(&[
                "SET",
                "flowmcp:preload-fill:v1:pc/data",
                "another-holder",
                "PX",
                "60000"
            ])
            .trim(),
        "OK"
    );
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let t = transport();
    let mut o = redis_opts(&redis.url());
    o.timeout = Duration::from_millis(1000);
    let (r, _) = runner(&set, &t, o);
    let started = std::time::Instant::now();
    let e = r.call_json("data_pc", &Map::new());
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "a 1,000 ms call took {took:?}: {e:?}"
    );
    assert_eq!(e.code(), Some(flowmcp_spec::Code::E003), "{e:?}");
    drop(r);
    drop(server);
}

/// A fake Redis on 127.0.0.1 that answers every connection with a bulk reply one byte every
/// 100 ms (each read waits less than any per-read limit) for `secs` seconds; returns its port.
fn dripping_redis(secs: u64) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        let until = std::time::Instant::now() + Duration::from_secs(secs);
        listener.set_nonblocking(true).expect("nonblocking");
        while std::time::Instant::now() < until {
            let Ok((mut conn, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            std::thread::spawn(move || {
                use std::io::Write;
                let _ = conn.set_nonblocking(false);
                let _ = conn.write_all(b"$100000\r\n");
                while std::time::Instant::now() < until {
                    if conn.write_all(b"x").is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
        }
    });
    port
}

/// Issue #39, finding 2: a Redis that answers one byte at a time cannot stretch one command past
/// the limit (here 300 ms): the lookup gives up, and the call fetches without the cache.
#[test]
fn i39_2_a_redis_answering_byte_by_byte_cannot_stretch_a_command() {
    let port = dripping_redis(10);
    let server = TestServer::start(1, |_: &Seen| json_reply(json!({"fetched": true})));
    let dir = Scratch::new("i39-drip");
    preloaded_schema(&dir, &server.base, "/d", 60);
    let set = load(&dir.0, Profile::Spec, BTreeMap::new());
    let t = transport();
    let mut o = redis_opts(&format!("redis://127.0.0.1:{port}/0"));
    if let Some(flowmcp_runtime::cache::PreloadCache::Redis(c)) = o.cache.take() {
        o.cache = Some(c.with_timeout(Duration::from_millis(300)).into());
    }
    let (r, logs) = runner(&set, &t, o);
    let started = std::time::Instant::now();
    let e = r.call_json("data_pc", &Map::new());
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "one Redis command took {took:?}: {e:?} {:?}",
        logs.borrow()
    );
    assert_eq!(*e.data(), json!({"fetched": true}), "{e:?}");
    drop(r);
    assert_eq!(server.finish().len(), 1);
}
