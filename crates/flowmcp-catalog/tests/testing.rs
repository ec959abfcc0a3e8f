//! The test runner against a local upstream with canned answers per route: a 500, a shape
//! mismatch, a handler that throws, a slow route, a good answer — each primitive gets exactly the
//! verdict chapter 21 gives it, and a capture writes chapter 10's records.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flowmcp_catalog::serde_json::{Value, json};
use flowmcp_catalog::{Catalog, Profile, testing::TestOptions, testing::Verdict};

const META: &str = "meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'demo', aliases: [], alwaysLoad: false }";

/// A tool at `path` with one parameter `q` and the output schema `{ name: string }`.
fn tool(name: &str, path: &str) -> String {
    format!(
        "{name}: {{ method: 'GET', path: '{path}', description: 'The {name} route', \
         parameters: [ {{ position: {{ key: 'q', value: '{{{{USER_PARAM}}}}', location: 'query' }}, z: {{ primitive: 'string()', options: [] }} }} ], \
         output: {{ mimeType: 'application/json', schema: {{ type: 'object', properties: {{ name: {{ type: 'string', description: 'A name' }} }} }} }}, \
         tests: [ {{ _description: 'First', q: 'a' }}, {{ _description: 'Second', q: 'b' }}, {{ _description: 'Third', q: 'c' }} ], {META} }}"
    )
}

const HANDLERS: &str = "export const handlers = () => ( { throws: { postRequest: async ( { response } ) => { throw new Error( 'the handler broke' ) } } } )";

/// A catalog folder with one schema `demo-api` whose tools are `good`, `flaky` (500 twice, then
/// good), `broken` (always 500), `shape` (a number where a string is declared), `throws` (its
/// handler throws) and `slow` (answers after the call's time limit).
fn catalog_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flowmcp-testing-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let schema_dir = dir.join("providers/demo-api");
    std::fs::create_dir_all(&schema_dir).unwrap();
    let tools: Vec<String> = ["good", "flaky", "broken", "shape", "throws", "slow"]
        .iter()
        .map(|t| tool(t, &format!("/{t}")))
        .collect();
    let text = format!(
        "export const main = {{ namespace: 'demo-api', name: 'DemoApi', description: 'A demo API for the test runner', \
         version: '4.2.0', root: 'https://api.demo-api.example', docs: [ 'https://demo-api.example/docs' ], tags: [ 'demo' ], \
         tools: {{ {} }} }}\n{HANDLERS}\n",
        tools.join(", ")
    );
    std::fs::write(schema_dir.join("demo.mjs"), text).unwrap();
    dir
}

/// The upstream: answers by route; returns the paths it was asked for.
fn upstream() -> (String, Arc<Mutex<Vec<String>>>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut flaky = 0;
        while let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(10)) {
            let path = request
                .url()
                .split('?')
                .next()
                .unwrap_or_default()
                .to_string();
            log.lock().unwrap().push(request.url().to_string());
            let (status, body) = match path.as_str() {
                "/good" | "/throws" => (200, r#"{"name": "Ada"}"#.to_string()),
                "/flaky" => {
                    flaky += 1;
                    if flaky < 3 {
                        (500, "{}".to_string())
                    } else {
                        (200, r#"{"name": "Grace"}"#.to_string())
                    }
                }
                "/shape" => (200, r#"{"name": 42}"#.to_string()),
                "/slow" => {
                    std::thread::sleep(Duration::from_millis(1500));
                    (200, r#"{"name": "late"}"#.to_string())
                }
                _ => (500, "{}".to_string()),
            };
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = request.respond(
                tiny_http::Response::from_string(body)
                    .with_status_code(status)
                    .with_header(header),
            );
        }
    });
    (format!("http://127.0.0.1:{port}"), seen)
}

fn open(dir: &std::path::Path, upstream: &str) -> Catalog {
    let mut o = common::local_options(Profile::Spec, &[("demo-api", upstream)]);
    o.transport.total_timeout = Duration::from_millis(700);
    o.runner.timeout = Duration::from_millis(700);
    let catalog = Catalog::open(dir, &o).unwrap();
    let report = catalog
        .reports()
        .iter()
        .find(|r| r.file().ends_with("demo.mjs"))
        .unwrap();
    assert_eq!(report.counts().errors, 0, "{:#?}", report.diagnostics());
    catalog
}

fn no_delay() -> TestOptions {
    {
        let mut built = TestOptions::default();
        built.delay = Duration::ZERO;
        built.calls = true;
        built
    }
}

#[test]
fn each_primitive_gets_its_verdict_with_the_reason() {
    let (url, seen) = upstream();
    let dir = catalog_dir("verdicts");
    let catalog = open(&dir, &url);
    let mut lines = Vec::new();
    let report = catalog.run_tests(&|_| true, &no_delay(), &mut |l| lines.push(l.to_string()));
    let verdict = |route: &str| {
        let p = report.primitives().find(|p| p.route == route).unwrap();
        (p.verdict, p.reason.clone().unwrap_or_default())
    };
    assert_eq!(verdict("good").0, Verdict::Pass);
    // Two 500s, then a good answer: one passing test is enough.
    assert_eq!(verdict("flaky").0, Verdict::Pass);
    let (v, why) = verdict("broken");
    assert_eq!(v, Verdict::Fail);
    assert!(why.contains("E001") && why.contains("500"), "{why}");
    let (v, why) = verdict("shape");
    assert_eq!(v, Verdict::Fail);
    assert!(
        why.contains("does not match output.schema") && why.contains("/name"),
        "{why}"
    );
    let shape = report.primitives().find(|p| p.route == "shape").unwrap();
    let mismatches = &shape.tests[0].outcome.as_ref().unwrap().mismatches;
    assert_eq!(
        mismatches,
        &["output /name: expected string, found integer"]
    );
    let (v, why) = verdict("throws");
    assert_eq!(v, Verdict::Fail);
    assert!(
        why.contains("E005") && why.contains("the handler broke"),
        "{why}"
    );
    let (v, why) = verdict("slow");
    assert_eq!(v, Verdict::Fail);
    assert!(why.contains("E003"), "{why}");
    assert_eq!(report.counts(), (2, 4, 0));
    let failed: Vec<&str> = report.failed().iter().map(|p| p.route.as_str()).collect();
    assert_eq!(failed, ["broken", "shape", "throws", "slow"]);
    // One progress line per test, and the test values went to the upstream.
    assert_eq!(lines.len(), 18);
    assert!(seen.lock().unwrap().iter().any(|u| u == "/good?q=a"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn static_runs_call_nothing_and_list_the_tests() {
    let (url, seen) = upstream();
    let dir = catalog_dir("static");
    let catalog = open(&dir, &url);
    let mut opts = no_delay();
    opts.calls = false;
    let report = catalog.run_tests(&|e| e.descriptor.tool == "good", &opts, &mut |_| {});
    let p = report.primitives().next().unwrap();
    assert_eq!(p.verdict, Verdict::Skip);
    assert_eq!(p.tests.len(), 3);
    assert_eq!(p.tests[1].description, "Second");
    assert_eq!(p.tests[1].params, *json!({"q": "b"}).as_object().unwrap());
    assert!(p.tests.iter().all(|t| t.outcome.is_none()));
    assert!(seen.lock().unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_capture_holds_the_chapter_records_and_metrics() {
    let (url, _) = upstream();
    let dir = catalog_dir("capture");
    let catalog = open(&dir, &url);
    let report = catalog.run_tests(
        &|e| ["good", "broken"].contains(&e.descriptor.tool.as_str()),
        &no_delay(),
        &mut |_| {},
    );
    let files = report
        .capture_files(&dir.join("capture"), "2026-11-25T10-00-00Z")
        .unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|(p, _)| {
            p.strip_prefix(dir.join("capture"))
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(names.len(), 7, "{names:?}");
    assert!(names.contains(&"2026-11-25T10-00-00Z/demo-api/good-0.json".to_string()));
    assert!(names.contains(&"2026-11-25T10-00-00Z/demo-api/metrics.json".to_string()));
    let (_, record) = files
        .iter()
        .find(|(p, _)| p.ends_with("good-1.json"))
        .unwrap();
    assert_eq!(record["namespace"], "demo-api");
    assert_eq!(record["routeName"], "good");
    assert_eq!(record["testIndex"], 1);
    assert_eq!(record["_description"], "Second");
    assert_eq!(record["userParams"], json!({"q": "b"}));
    assert_eq!(record["response"]["status"], true);
    assert_eq!(record["response"]["data"], json!({"name": "Ada"}));
    assert!(record["responseTime"].is_u64());
    let (_, metrics) = files
        .iter()
        .find(|(p, _)| p.ends_with("metrics.json"))
        .unwrap();
    assert_eq!(metrics["calls"], 6);
    assert_eq!(metrics["passed"], 3);
    assert_eq!(metrics["errorCodes"], json!({"E001": 3}));
    let _: Value = metrics["routes"].clone();
    let _ = std::fs::remove_dir_all(&dir);
}
