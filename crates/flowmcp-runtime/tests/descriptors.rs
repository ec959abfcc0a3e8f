//! Descriptors of the example catalog's schemas, wire names, and the secret canary.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::PathBuf;

use flowmcp_loader::Limits;
use flowmcp_runtime::input::validate_json;
use flowmcp_runtime::secret::ServerParams;
use flowmcp_runtime::{
    ToolDescriptor, descriptor::DescribeOptions, descriptor::WIRE_NAME_MAX,
    descriptor::assign_wire_names, descriptor::describe_schema,
};
use flowmcp_runtime::{request::build_request, request::finalize};
use flowmcp_spec::model::SchemaMain;
use flowmcp_spec::{Profile, RuleSettings};
use serde_json::{Value, json};

const CANARY: &str = "CANARY-9f3a";

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
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let main = loaded
        .exports
        .as_ref()
        .and_then(|e| e.get("main"))
        .expect("main export");
    SchemaMain::from_json(main).expect("typed main")
}

fn canary_params() -> ServerParams {
    let mut p = ServerParams::new();
    p.insert("SKYCAST_API_KEY", CANARY);
    p.insert("OPENSHELF_API_KEY", CANARY);
    p
}

fn by_tool<'a>(ds: &'a [ToolDescriptor], tool: &str) -> &'a ToolDescriptor {
    ds.iter().find(|d| d.tool == tool).expect("tool present")
}

#[test]
fn holidaykit_descriptors() {
    let main = load("holidaykit-net", "public-holidays.mjs");
    let (ds, errors) = describe_schema(&main, &ServerParams::new(), DescribeOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(ds.len(), 4);
    let list = by_tool(&ds, "listCountries");
    assert_eq!(list.id.to_string(), "holidaykit-net/tool/listCountries");
    assert_eq!(list.wire_name, "listCountries_holidaykit-net");
    assert!(list.is_exposed(), "no server params needed");
    assert_eq!(
        list.input_schema,
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    assert_eq!(
        list.annotations,
        Some(json!({"readOnlyHint": true, "destructiveHint": false}))
    );
    assert_eq!(
        list.meta,
        Some(json!({
            "anthropic/alwaysLoad": true,
            "anthropic/searchHint": "supported countries iso codes holidays list",
            "flowmcp/aliases": ["getCountries"]
        }))
    );
    // Array output schema: kept in the descriptor, not offered to MCP as outputSchema.
    assert_eq!(
        list.output_schema.as_ref().map(|o| &o.value()["type"]),
        Some(&json!("array"))
    );
    assert!(list.mcp_tool().get("outputSchema").is_none());
    assert!(list.mcp_tool().get("annotations").is_some());

    let hol = by_tool(&ds, "getPublicHolidays");
    let props = &hol.input_schema["properties"];
    assert_eq!(
        props["year"],
        json!({"type": "number", "minimum": 1900, "maximum": 2100, "description": "Four-digit calendar year"})
    );
    assert_eq!(
        props["type"]["enum"],
        json!(["public", "bank", "school", "observance"])
    );
    // Shared lists were not supplied: plain strings plus warnings.
    assert_eq!(props["countryCode"]["type"], "string");
    assert!(props["countryCode"].get("enum").is_none());
    assert_eq!(hol.warnings.len(), 2, "{:?}", hol.warnings);
    assert_eq!(hol.input_schema["required"], json!(["year", "countryCode"]));
    assert!(hol.annotations.is_some());

    let next = by_tool(&ds, "getNextHolidays");
    assert_eq!(
        next.input_schema["properties"]["limit"]["default"],
        json!(10)
    );
    assert_eq!(
        next.input_schema["properties"]["includeWeekends"]["default"],
        json!(false)
    );
    let check = by_tool(&ds, "checkWorkingDay");
    assert_eq!(
        check.input_schema["properties"]["date"],
        json!({"type": "string", "minLength": 10, "maxLength": 10, "description": "Date in YYYY-MM-DD format"})
    );
}

#[test]
fn holidaykit_lists_resolve_into_enums() {
    let main = load("holidaykit-net", "public-holidays.mjs");
    let lists = |list: &str, field: &str| match (list, field) {
        ("countries", "alpha2") => Some(vec!["DE".to_string(), "GB".into(), "AT".into()]),
        ("subdivisions", "code") => Some(vec!["GB-SCT".to_string(), "AT-9".into()]),
        _ => None,
    };
    let mut opts = DescribeOptions::default();
    opts.profile = Profile::Spec;
    opts.lists = Some(&lists);
    let (ds, _) = describe_schema(&main, &ServerParams::new(), opts);
    let hol = by_tool(&ds, "getPublicHolidays");
    assert!(hol.warnings.is_empty());
    assert_eq!(
        hol.input_schema["properties"]["countryCode"]["enum"],
        json!(["DE", "GB", "AT"])
    );
    let ok = validate_json(
        hol,
        &json!({"year": 2025, "countryCode": "DE"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    assert!(ok.is_ok());
    let bad = validate_json(
        hol,
        &json!({"year": 2025, "countryCode": "XX"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    assert!(bad.is_err());
}

#[test]
fn skycast_and_openshelf_exposure() {
    let sky = load("skycast-io", "forecast.mjs");
    let (ds, errors) = describe_schema(&sky, &ServerParams::new(), DescribeOptions::default());
    assert!(errors.is_empty());
    for d in &ds {
        assert_eq!(d.missing_server_params, vec!["SKYCAST_API_KEY"]);
        assert!(!d.is_exposed());
    }
    let (ds, _) = describe_schema(&sky, &canary_params(), DescribeOptions::default());
    assert!(ds.iter().all(ToolDescriptor::is_exposed));
    let cur = by_tool(&ds, "getCurrentConditions");
    assert_eq!(cur.wire_name, "getCurrentConditions_skycast-io");
    assert_eq!(cur.input_schema["required"], json!(["city"]));
    assert_eq!(cur.input_schema["properties"]["units"]["default"], "metric");
    assert!(cur.mcp_tool().get("outputSchema").is_some());
    assert!(
        by_tool(&ds, "getWeatherAlerts")
            .meta
            .as_ref()
            .is_some_and(|m| m.get("flowmcp/aliases").is_none())
    );

    let shelf = load("openshelf-org", "books.mjs");
    let (ds, errors) = describe_schema(&shelf, &canary_params(), DescribeOptions::default());
    assert!(errors.is_empty());
    let search = by_tool(&ds, "searchBooks");
    let props = search.input_schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    // Fixed and server parameters are not inputs.
    assert!(!props.contains_key("apiKey") && !props.contains_key("searchMode"));
    assert_eq!(search.input_schema["required"], json!(["query"]));
    let create = by_tool(&ds, "createReadingList");
    assert_eq!(
        create.annotations,
        Some(json!({"readOnlyHint": false, "destructiveHint": false}))
    );
}

#[test]
fn wire_names_across_a_set_are_unique_and_bounded() {
    let mut all = Vec::new();
    for (p, f) in [
        ("holidaykit-net", "public-holidays.mjs"),
        ("skycast-io", "forecast.mjs"),
        ("openshelf-org", "books.mjs"),
    ] {
        let (ds, _) = describe_schema(
            &load(p, f),
            &ServerParams::new(),
            DescribeOptions::default(),
        );
        all.extend(ds);
    }
    // The same schema loaded twice (two sources): every copy gets a distinct suffixed name.
    let (dup, _) = describe_schema(
        &load("skycast-io", "forecast.mjs"),
        &ServerParams::new(),
        DescribeOptions::default(),
    );
    all.extend(dup);
    assign_wire_names(&mut all);
    let mut names: Vec<&str> = all.iter().map(|d| d.wire_name.as_str()).collect();
    assert!(names.iter().all(|n| n.len() <= WIRE_NAME_MAX));
    assert!(names.contains(&"listCountries_holidaykit-net"));
    assert!(!names.contains(&"getDailyForecast_skycast-io"));
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
}

#[test]
fn canary_never_leaks() {
    let params = canary_params();
    let mut seen = String::new();
    seen.push_str(&format!("{params:?}"));
    for (p, f) in [
        ("skycast-io", "forecast.mjs"),
        ("openshelf-org", "books.mjs"),
    ] {
        let main = load(p, f);
        let (ds, _) = describe_schema(&main, &params, DescribeOptions::default());
        for d in &ds {
            seen.push_str(&format!("{d:?}{}", d.mcp_tool()));
        }
    }
    let sky = load("skycast-io", "forecast.mjs");
    let (ds, _) = describe_schema(&sky, &params, DescribeOptions::default());
    let d = by_tool(&ds, "getCurrentConditions");
    let inputs = validate_json(
        d,
        &json!({"city": "Berlin"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    )
    .expect("valid");
    let req = build_request(&d.tool, &sky, &inputs, &params, Profile::Spec, None).expect("request");
    seen.push_str(&format!("{req:?}{}", req.to_struct_json()));
    let fin = finalize(&req, &params).expect("final");
    seen.push_str(&format!("{fin:?}"));
    // The secret is really sent.
    assert!(
        fin.headers
            .iter()
            .any(|(k, v)| k == "X-Api-Key" && v.expose() == CANARY)
    );
    // Error paths: input error, missing params, and an error text that quotes the secret.
    let bad = validate_json(
        d,
        &json!({"city": CANARY.len()})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    if let Err(e) = bad {
        seen.push_str(&format!("{e:?}{e}{:?}", e.envelope()));
    }
    let other = ServerParams::new();
    if let Err(e) = finalize(&req, &other) {
        seen.push_str(&format!("{e:?}{e}{}", e.envelope().to_json()));
    }
    seen.push_str(&params.redact(&format!("upstream said: bad key {CANARY}")));
    assert!(!seen.contains(CANARY), "canary leaked: {seen}");
    assert!(seen.contains("[redacted]"));
    let _: Value = req.to_struct_json();
}
