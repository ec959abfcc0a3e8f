//! `flowmcp validate --id` end to end: the three examples of chapter 16 (ID schema) in our
//! `CODE severity: message` layout, JSON output and exit codes.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use serde_json::Value;

/// Runs the binary from the workspace root.
fn flowmcp(args: &[&str]) -> common::Run {
    common::flowmcp(args, &common::repo_root())
}

#[test]
fn valid_id() {
    let r = flowmcp(&["validate", "--id", "coingecko/tool/simplePrice"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "0 errors, 0 warnings\nID is valid\n");
    assert_eq!(r.stderr, "");
}

#[test]
fn uppercase_namespace_is_id002() {
    let r = flowmcp(&["validate", "--id", "COINGECKO/tool/simplePrice"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "ID002 error: Namespace \"COINGECKO\" must match ^[a-z][a-z0-9-]*$\n\
         1 error, 0 warnings\n\
         ID is invalid\n"
    );
}

#[test]
fn bare_name_is_id001() {
    let r = flowmcp(&["validate", "--id", "simplePrice"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "ID001 error: ID MUST contain at least one \"/\" separator\n\
         1 error, 0 warnings\n\
         ID is invalid\n"
    );
}

#[test]
fn schema_file_id_is_valid_and_short_form_is_not() {
    let r = flowmcp(&["validate", "--id", "etherscan-io/contracts"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "0 errors, 0 warnings\nID is valid\n");

    let r = flowmcp(&["validate", "--id", "moralis/getTokenBalance"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("ID005 error: "), "{}", r.stdout);
    assert!(r.stdout.ends_with("ID is invalid\n"), "{}", r.stdout);

    let r = flowmcp(&["validate", "--id", "tool/simplePrice"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("ID006 error: "), "{}", r.stdout);
}

#[test]
fn json_output_is_the_file_report() {
    let r = flowmcp(&[
        "validate",
        "--id",
        "COINGECKO/tool/simplePrice",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["file"], "COINGECKO/tool/simplePrice");
    assert_eq!(v["kind"], "id");
    assert_eq!(v["verdict"], "invalid");
    assert_eq!(v["errors"], 1);
    assert_eq!(v["warnings"], 0);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "ID002");
    assert_eq!(d["severity"], "error");
    assert_eq!(
        d["message"],
        "Namespace \"COINGECKO\" must match ^[a-z][a-z0-9-]*$"
    );
    assert!(d.get("file").is_none() && d.get("pointer").is_none(), "{d}");

    let r = flowmcp(&[
        "validate",
        "--id",
        "coingecko/tool/simplePrice",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["verdict"], "valid");
    assert_eq!(v["diagnostics"], Value::Array(Vec::new()));
}

#[test]
fn rule_overrides_apply_to_ids() {
    let r = flowmcp(&[
        "validate",
        "--id",
        "COINGECKO/tool/simplePrice",
        "--rule",
        "ID002=warning",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "ID002 warning: Namespace \"COINGECKO\" must match ^[a-z][a-z0-9-]*$\n\
         0 errors, 1 warning\n\
         ID is valid\n"
    );
}

#[test]
fn id_and_paths_conflict() {
    let r = flowmcp(&["validate", "--id", "coingecko/tool/simplePrice", "src"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
}

/// Issue #29, IDs: every entry `flowmcp list --json` prints for the example catalog (its `name`
/// and its `id`) is an ID that `flowmcp validate --id` accepts — resource queries included
/// (`atlasdata-org/resource/countries-byCode`, no longer `countries.byCode`, which is ID004).
#[test]
fn i29_ids_every_name_list_prints_passes_validate_id() {
    let r = flowmcp(&["list", "--catalog", "examples/catalog", "--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let listed: Value = serde_json::from_str(&r.stdout).expect("JSON");
    let tools = listed["tools"].as_array().expect("tools");
    assert!(
        tools.iter().any(|t| t["kind"] == "query"),
        "the example catalog has resource queries: {listed}"
    );
    for t in tools {
        for field in ["name", "id"] {
            let id = t[field].as_str().expect("a string");
            let v = flowmcp(&["validate", "--id", id]);
            assert_eq!(
                v.code, 0,
                "{field} {id} printed by list is rejected: {}",
                v.stdout
            );
        }
    }
}
