//! Requests built for the example catalog's tools.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::PathBuf;

use flowmcp_loader::Limits;
use flowmcp_runtime::secret::ServerParams;
use flowmcp_runtime::{descriptor::DescribeOptions, descriptor::describe_tool};
use flowmcp_runtime::{input::validate_json, input::validate_strings};
use flowmcp_runtime::{request::FinalRequest, request::build_request, request::finalize};
use flowmcp_spec::Code;
use flowmcp_spec::model::{Method, SchemaMain};
use flowmcp_spec::{Profile, RuleSettings};
use indexmap::IndexMap;
use serde_json::{Value, json};

fn load(provider: &str, file: &str) -> SchemaMain {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/catalog/providers")
        .join(provider)
        .join(file);
    let loaded = flowmcp_loader::load_file(
        &path,
        file,
        &Limits::default(),
        &RuleSettings::new(Profile::Spec),
    );
    let main = loaded
        .exports
        .as_ref()
        .and_then(|e| e.get("main"))
        .expect("main export");
    SchemaMain::from_json(main).expect("typed main")
}

fn keys() -> ServerParams {
    let mut p = ServerParams::new();
    p.insert("SKYCAST_API_KEY", "sky-key");
    p.insert("OPENSHELF_API_KEY", "shelf-key");
    p
}

/// Validates `args` for `tool`, builds and finalises the request.
fn call(main: &SchemaMain, tool: &str, args: Value) -> FinalRequest {
    let params = keys();
    let d = describe_tool(main, tool, &params, DescribeOptions::default()).expect("descriptor");
    let inputs = validate_json(&d, &args.as_object().cloned().unwrap_or_default()).expect("inputs");
    let req = build_request(tool, main, &inputs, &params, Profile::Spec, None).expect("request");
    finalize(&req, &params).expect("final")
}

fn header<'a>(r: &'a FinalRequest, name: &str) -> Option<&'a str> {
    r.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.expose())
}

#[test]
fn holidaykit_inserts_and_defaults() {
    let main = load("holidaykit-net", "public-holidays.mjs");
    let r = call(
        &main,
        "getPublicHolidays",
        json!({"year": 2024, "countryCode": "GB", "type": "bank", "region": "GB-SCT"}),
    );
    assert_eq!(r.method, Method::Get);
    assert_eq!(
        r.url.expose(),
        "https://api.holidaykit.net/v1/holidays/2024/GB?type=bank&region=GB-SCT"
    );
    assert_eq!(header(&r, "Accept"), Some("application/json"));
    assert_eq!(header(&r, "Accept-Language"), Some("en"));
    assert!(header(&r, "Content-Type").is_none() && r.body.is_none());

    let r = call(&main, "getNextHolidays", json!({"countryCode": "FR"}));
    assert_eq!(
        r.url.expose(),
        "https://api.holidaykit.net/v1/holidays/next/FR?limit=10&includeWeekends=false"
    );
    let r = call(&main, "listCountries", json!({}));
    assert_eq!(r.url.expose(), "https://api.holidaykit.net/v1/countries");
}

#[test]
fn skycast_server_header_and_upstream_override() {
    let main = load("skycast-io", "forecast.mjs");
    let r = call(
        &main,
        "getCurrentConditions",
        json!({"city": "New York/NY", "lang": "en"}),
    );
    assert_eq!(
        r.url.expose(),
        "https://api.skycast.io/v2/current/New%20York%2FNY?units=metric&lang=en"
    );
    assert_eq!(header(&r, "X-Api-Key"), Some("sky-key"));
    assert_eq!(header(&r, "Cache-Control"), Some("no-cache"));

    let r = call(
        &main,
        "getDailyForecast",
        json!({"latitude": 52.52, "longitude": -13.405, "includeAlerts": true}),
    );
    assert_eq!(
        r.url.expose(),
        "https://api.skycast.io/v2/forecast/daily?latitude=52.52&longitude=-13.405&days=7&units=metric&includeAlerts=true"
    );

    // --upstream override for the namespace.
    let params = keys();
    let d = describe_tool(
        &main,
        "getWeatherAlerts",
        &params,
        DescribeOptions::default(),
    )
    .expect("d");
    let mut args = IndexMap::new();
    args.insert("countryCode".to_string(), "DE".to_string());
    args.insert("activeOnly".to_string(), "false".to_string());
    let inputs = validate_strings(&d, &args).expect("inputs");
    let req = build_request(
        "getWeatherAlerts",
        &main,
        &inputs,
        &params,
        Profile::Spec,
        Some("https://127.0.0.1:9000/mock/"),
    )
    .expect("request");
    let fin = finalize(&req, &params).expect("final");
    assert_eq!(
        fin.url.expose(),
        "https://127.0.0.1:9000/mock/alerts/DE?activeOnly=false"
    );

    // Without the key: E006 naming the variable, before any handler runs.
    let e = build_request(
        "getWeatherAlerts",
        &main,
        &inputs,
        &ServerParams::new(),
        Profile::Spec,
        None,
    )
    .expect_err("missing key");
    assert_eq!(e.code(), Code::E006);
    assert_eq!(
        e.envelope().messages(),
        vec!["E006 getWeatherAlerts: missing server parameter: SKYCAST_API_KEY"]
    );
}

#[test]
fn openshelf_post_body_keeps_types() {
    let main = load("openshelf-org", "books.mjs");
    let r = call(
        &main,
        "searchBooks",
        json!({"query": "dune", "subjects": ["sf", "classic"], "publishedAfter": 1960}),
    );
    assert_eq!(r.method, Method::Post);
    assert_eq!(
        r.url.expose(),
        "https://api.openshelf.org/v1/search?apiKey=shelf-key"
    );
    assert_eq!(header(&r, "Content-Type"), Some("application/json"));
    assert_eq!(header(&r, "X-Client"), Some("flowmcp-example-catalog"));
    let body: Value = serde_json::from_str(r.body.as_ref().map(|b| b.expose()).unwrap_or("null"))
        .unwrap_or_default();
    assert_eq!(
        body,
        json!({"searchMode": "fulltext", "query": "dune", "subjects": ["sf", "classic"], "publishedAfter": 1960, "limit": 10, "availableOnly": false})
    );

    let r = call(&main, "getBook", json!({"isbn": "9780441013593"}));
    assert_eq!(
        r.url.expose(),
        "https://api.openshelf.org/v1/books/9780441013593?apiKey=shelf-key"
    );
    assert!(r.body.is_none());

    let r = call(
        &main,
        "createReadingList",
        json!({"title": "Sci-fi", "isbns": ["1", "2"]}),
    );
    let body: Value = serde_json::from_str(r.body.as_ref().map(|b| b.expose()).unwrap_or("null"))
        .unwrap_or_default();
    assert_eq!(
        body,
        json!({"title": "Sci-fi", "isbns": ["1", "2"], "visibility": "private"})
    );
}

#[test]
fn struct_shows_placeholders_not_secrets() {
    let main = load("openshelf-org", "books.mjs");
    let params = keys();
    let d = describe_tool(&main, "getAuthorWorks", &params, DescribeOptions::default()).expect("d");
    let inputs = validate_json(
        &d,
        &json!({"authorId": "OL 23/A"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    )
    .expect("inputs");
    let req = build_request(
        "getAuthorWorks",
        &main,
        &inputs,
        &params,
        Profile::Spec,
        None,
    )
    .expect("req");
    let s = req.to_struct_json();
    // Handlers see a slot token; shown to people as the placeholder.
    assert_eq!(
        req.slots().display(s["url"].as_str().unwrap_or_default()),
        "https://api.openshelf.org/v1/authors/OL%2023%2FA/works?apiKey={{SERVER_PARAM:OPENSHELF_API_KEY}}&sort=popular&limit=10"
    );
    assert!(
        s["url"]
            .as_str()
            .is_some_and(|u| u.contains("apiKey=secret-openshelf_api_key-0-")),
        "{s}"
    );
    assert_eq!(s["method"], "GET");
    assert!(!s.to_string().contains("shelf-key"));
}
