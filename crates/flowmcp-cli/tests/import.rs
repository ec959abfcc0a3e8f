//! `flowmcp import openapi` end to end: the files it writes validate under the spec profile, an
//! existing file is never overwritten, `--dry-run` writes nothing, the JSON report, exit codes.

use std::path::{Path, PathBuf};

use crate::common;

use serde_json::Value;

fn fixture(name: &str) -> String {
    common::repo_root()
        .join("crates/flowmcp-openapi/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn flowmcp(args: &[&str]) -> common::Run {
    common::flowmcp(args, &common::repo_root())
}

fn out_dir(name: &str) -> PathBuf {
    let d = common::temp_dir(name);
    d.join("out")
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn i41_imported_files_are_written_and_validate_under_the_spec_profile() {
    for (doc, files) in [
        ("petstore-30.yaml", vec!["pets.mjs", "store.mjs"]),
        ("library-20.json", vec!["books.mjs"]),
    ] {
        let out = out_dir(&format!("import-{doc}"));
        let r = flowmcp(&["import", "openapi", &fixture(doc), "--out", &s(&out)]);
        assert_eq!(r.code, 0, "{doc}: {}{}", r.stdout, r.stderr);
        for f in &files {
            assert!(out.join(f).is_file(), "{doc}: {f} missing; {}", r.stderr);
            assert!(r.stderr.contains(&format!("{f}: written;")), "{}", r.stderr);
        }
        let v = flowmcp(&["validate", "--profile", "spec", &s(&out)]);
        assert_eq!(v.code, 0, "{doc}: {}{}", v.stdout, v.stderr);
        assert!(v.stdout.contains("0 errors"), "{}", v.stdout);
    }
}

#[test]
fn i41_an_existing_file_is_never_overwritten_and_the_others_are_written() {
    let out = out_dir("import-existing");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("store.mjs"), "keep me\n").unwrap();
    let r = flowmcp(&[
        "import",
        "openapi",
        &fixture("petstore-30.yaml"),
        "--out",
        &s(&out),
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        std::fs::read_to_string(out.join("store.mjs")).unwrap(),
        "keep me\n"
    );
    assert!(out.join("pets.mjs").is_file());
    assert!(
        r.stderr.contains("store.mjs exists; it is not overwritten"),
        "{}",
        r.stderr
    );
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // store.mjs (kept), pets.mjs and `_lists/` with the shared list of `species`.
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(out.join("_lists/petclinicExampleSpecies.mjs").is_file());
}

#[test]
fn i41_dry_run_prints_the_files_and_writes_nothing() {
    let out = out_dir("import-dry");
    let r = flowmcp(&[
        "import",
        "openapi",
        &fixture("weather-31.json"),
        "--out",
        &s(&out),
        "--dry-run",
        "--tag",
        "forecast",
    ]);
    // weather-31.json's export operation is not tagged `forecast`: everything imports.
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!out.exists());
    assert!(
        r.stdout.contains("forecast.mjs\n// Drafted from"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("forecast-2.mjs\n// Drafted from"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("account"), "{}", r.stdout);
    assert!(r.stderr.contains("not written (--dry-run)"), "{}", r.stderr);
}

#[test]
fn i41_json_report_dropped_operations_exit_0_and_failed_ones_1() {
    let out = out_dir("import-json");
    let r = flowmcp(&[
        "import",
        "openapi",
        &fixture("weather-31.json"),
        "--out",
        &s(&out),
        "--format",
        "json",
    ]);
    // The required array body of `exportData` is something the format cannot express: the
    // operation is dropped (named, with its reason), the rest written, exit 0.
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["namespace"], "skyline-weather-example");
    assert_eq!(v["files"].as_array().unwrap().len(), 4);
    assert_eq!(v["summary"]["tools"], 10);
    assert_eq!(v["summary"]["operations"], 11);
    assert_eq!(v["summary"]["dropped"], 1);
    assert!(
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["written"] == true)
    );
    assert_eq!(v["failed"].as_array().unwrap().len(), 0);
    assert_eq!(v["dropped"][0]["pointer"], "/paths/~1v3~1export/post");
    let forecast = &v["files"][1];
    assert!(forecast["reviewCounts"]["type"].as_u64().unwrap() > 0);
    assert!(out.join("forecast-2.mjs").is_file());

    // A reference out of the document's folder and a broken one fail their operations, named
    // with the document and JSON pointer: exit 1, the good operation written.
    let out = out_dir("import-failed");
    let r = flowmcp(&[
        "import",
        "openapi",
        &fixture("broken-ref.yaml"),
        "--out",
        &s(&out),
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(out.join("good.mjs").is_file());
    assert!(
        r.stderr.contains("broken-ref.yaml#/paths/~1bad/get/parameters/0: `$ref` \"../outside.yaml#/components/parameters/Q\" leaves the document's folder and is refused"),
        "{}",
        r.stderr
    );
}

#[test]
fn i41_a_document_that_is_not_openapi_is_named_and_exits_1() {
    let dir = common::temp_dir("import-bad");
    let doc = dir.join("notes.yaml");
    std::fs::write(&doc, "title: not an API\n").unwrap();
    let r = flowmcp(&["import", "openapi", &s(&doc), "--out", &s(&dir.join("out"))]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("notes.yaml: is not an OpenAPI or Swagger document"),
        "{}",
        r.stderr
    );
    assert!(!dir.join("out").exists());
    let r = flowmcp(&[
        "import",
        "openapi",
        &fixture("petstore-30.yaml"),
        "--out",
        &s(&dir.join("out")),
        "--namespace",
        "Not_Valid",
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("namespace \"Not_Valid\""), "{}", r.stderr);
}

#[test]
fn i41_a_document_for_an_example_provider_round_trips_against_the_demo_upstream() {
    // holidaykit-31.yaml describes the example catalog's HolidayKit API; imported under its
    // namespace, the files validate and their tests pass against the demo upstream.
    let cwd = common::temp_dir("import-round-trip");
    let out = cwd.join("holidaykit");
    let r = flowmcp(&[
        "import",
        "openapi",
        &fixture("holidaykit-31.yaml"),
        "--out",
        &s(&out),
        "--namespace",
        "holidaykit-net",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v = flowmcp(&["validate", "--profile", "spec", &s(&out)]);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    let server = common::demo_upstream(30);
    let upstream = format!("holidaykit-net={}", server.base);
    let t = common::flowmcp_env(
        &["test", &s(&out), "--delay-ms", "0", "--upstream", &upstream],
        &cwd,
        &[],
    );
    assert_eq!(t.code, 0, "{}{}", t.stdout, t.stderr);
    assert!(t.stdout.contains("3 PASS, 0 FAIL, 0 SKIP"), "{}", t.stdout);
}

/// The round trip of the README: each OpenAPI document of `examples/openapi/` (OpenAPI 3.0 YAML,
/// Swagger 2.0 JSON, OpenAPI 3.1 JSON) describes one provider of the example catalog; imported
/// without `--namespace`, it gets that provider's namespace from its host, its files validate
/// under the spec profile, and every tool passes its tests against the demo upstream (with a
/// dummy value for the server parameter its security scheme became).
#[test]
fn i41_the_example_openapi_documents_round_trip_against_the_demo_upstream() {
    let root = common::repo_root();
    for (doc, namespace, tools) in [
        ("holidaykit-net.yaml", "holidaykit-net", 4),
        ("skycast-io.json", "skycast-io", 3),
        ("openshelf-org.json", "openshelf-org", 3),
    ] {
        let cwd = common::temp_dir(&format!("import-example-{namespace}"));
        let out = cwd.join(namespace);
        let doc = root.join("examples/openapi").join(doc);
        let r = flowmcp(&["import", "openapi", &s(&doc), "--out", &s(&out)]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains(&format!("namespace {namespace}")),
            "{}",
            r.stderr
        );
        let v = flowmcp(&["validate", "--profile", "spec", &s(&out)]);
        assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
        let list = flowmcp(&["list", "--json", "--no-cache", &s(&out)]);
        let listed: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
        let params = common::missing_server_params(&listed);
        let env: Vec<(&str, &str)> = params.iter().map(|p| (p.as_str(), "demo")).collect();
        let server = common::demo_upstream(60);
        let upstream = format!("{namespace}={}", server.base);
        let t = common::flowmcp_env(
            &["test", &s(&out), "--delay-ms", "0", "--upstream", &upstream],
            &cwd,
            &env,
        );
        assert_eq!(t.code, 0, "{}{}", t.stdout, t.stderr);
        assert!(
            t.stdout.contains(&format!("{tools} PASS, 0 FAIL, 0 SKIP")),
            "{}",
            t.stdout
        );
        let _ = std::fs::remove_dir_all(&cwd);
    }
}
