//! The SARIF renderer: structural checks of SARIF 2.1.0 on real fixtures, and a snapshot.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use flowmcp_spec::{FileReport, Profile, Report};
use flowmcp_validate::{Options, render};
use serde_json::Value;

/// Validates the file at `path` with the shared lists found next to it.
fn validate_path(path: &Path, display: &str, opts: &Options) -> flowmcp_spec::FileReport {
    let scope = flowmcp_validate::lists::scope_near(path, display, &opts.settings, &opts.limits);
    flowmcp_validate::validate_file(path, display, &scope, opts)
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(rel)
}

/// Validates fixtures under `profile`, naming each `fixtures/<rel>` so the output is stable.
fn report(profile: Profile, rels: &[&str]) -> Report {
    let opts = Options::new(profile);
    let reports: Vec<FileReport> = rels
        .iter()
        .map(|rel| validate_path(&fixture(rel), &format!("fixtures/{rel}"), &opts))
        .collect();
    Report::new(profile, reports)
}

/// Checks what SARIF 2.1.0 requires of the parts flowmcp writes; returns the parsed log.
fn check_structure(text: &str) -> Value {
    let log: Value = serde_json::from_str(text).expect("SARIF output is JSON");
    assert_eq!(log["version"], "2.1.0");
    assert!(
        log["$schema"]
            .as_str()
            .is_some_and(|s| s.starts_with("https://") && s.contains("sarif")),
        "$schema names the SARIF schema"
    );
    let runs = log["runs"].as_array().expect("runs is an array");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "flowmcp");
    assert!(driver["version"].is_string());
    assert!(driver["informationUri"].is_string());

    let rules = driver["rules"]
        .as_array()
        .expect("driver.rules is an array");
    let mut ids = HashSet::new();
    for rule in rules {
        let id = rule["id"].as_str().expect("rule id");
        assert!(ids.insert(id), "rule {id} listed twice");
        assert!(rule["shortDescription"]["text"].is_string());
        let help = rule["helpUri"].as_str().expect("helpUri");
        assert!(
            help.starts_with("https://") && help.ends_with(&format!("docs/rules/{id}.md")),
            "{help}"
        );
        let level = rule["defaultConfiguration"]["level"].as_str().unwrap();
        assert!(["error", "warning", "note", "none"].contains(&level));
        for key in [
            "family",
            "section",
            "origin",
            "specSeverity",
            "compatSeverity",
        ] {
            assert!(
                rule["properties"][key].is_string(),
                "{id}: properties.{key}"
            );
        }
    }

    let results = run["results"].as_array().expect("results is an array");
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert!(index < rules.len(), "ruleIndex {index} out of range");
        assert_eq!(rules[index]["id"], id, "ruleIndex points at its rule");
        let level = r["level"].as_str().expect("level");
        assert!(["error", "warning", "note", "none"].contains(&level));
        assert!(r["message"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        for loc in r["locations"].as_array().into_iter().flatten() {
            if let Some(phys) = loc.get("physicalLocation") {
                let uri = phys["artifactLocation"]["uri"].as_str().expect("uri");
                assert!(!uri.contains(' ') && !uri.contains('\\'), "{uri}");
                if let Some(region) = phys.get("region") {
                    assert!(region["startLine"].as_u64().expect("startLine") >= 1);
                    if let Some(col) = region.get("startColumn") {
                        assert!(col.as_u64().expect("startColumn") >= 1);
                    }
                }
            }
            for logical in loc["logicalLocations"].as_array().into_iter().flatten() {
                assert!(logical["fullyQualifiedName"].is_string());
                assert_eq!(logical["kind"], "member");
            }
        }
    }
    // Every rule listed is used by some result ("one descriptor per code in the results").
    let used: HashSet<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(used, ids);
    log
}

#[test]
fn sarif_of_failing_fixtures_is_well_formed() {
    let report = report(
        Profile::Spec,
        &[
            "VAL014/fail_wrong_major.mjs",
            "SEC001/fail.mjs",
            "LDR005/fail_infinite_loop.mjs",
            "VAL014/pass.mjs",
        ],
    );
    let text = render::sarif(&report);
    let log = check_structure(&text);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        report.counts().errors + report.counts().warnings
    );

    // A diagnostic with a JSON path: logical location and pointer.
    let val014 = results.iter().find(|r| r["ruleId"] == "VAL014").unwrap();
    let loc = &val014["locations"][0];
    assert_eq!(
        loc["physicalLocation"]["artifactLocation"]["uri"],
        "fixtures/VAL014/fail_wrong_major.mjs"
    );
    assert_eq!(
        loc["logicalLocations"][0]["fullyQualifiedName"],
        "main.version"
    );
    assert_eq!(val014["properties"]["pointer"], "/main/version");

    // A diagnostic with a line and column.
    let sec001 = results.iter().find(|r| r["ruleId"] == "SEC001").unwrap();
    let region = &sec001["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 2);
    assert_eq!(region["startColumn"], 1);

    // A diagnostic with a file but no position: no region.
    let ldr005 = results.iter().find(|r| r["ruleId"] == "LDR005").unwrap();
    assert!(
        ldr005["locations"][0]["physicalLocation"]
            .get("region")
            .is_none()
    );
}

#[test]
fn sarif_levels_follow_the_profile_and_variants() {
    // VAL014 `v3` is a warning; SEC020 is a warning under compat.
    let report = report(
        Profile::Compat,
        &[
            "VAL014/fail_v3_deprecated.mjs",
            "SEC020/fail_unknown_library_compat.mjs",
        ],
    );
    let log = check_structure(&render::sarif(&report));
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["profile"], "compat");
    let results = run["results"].as_array().unwrap();
    let v3 = results.iter().find(|r| r["ruleId"] == "VAL014").unwrap();
    assert_eq!(v3["level"], "warning");
    assert_eq!(v3["properties"]["variant"], "v3");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let sec020 = rules.iter().find(|r| r["id"] == "SEC020").unwrap();
    assert_eq!(sec020["defaultConfiguration"]["level"], "warning");
    assert_eq!(sec020["properties"]["specSeverity"], "error");
}

#[test]
fn sarif_without_files_or_results() {
    // Diagnostics without a file still produce results, with no physical location.
    let d = flowmcp_spec::Diagnostic {
        code: flowmcp_spec::Code::LDR008,
        variant: None,
        severity: flowmcp_spec::Severity::Error,
        message: "No recognised export".into(),
        file: None,
        line: None,
        column: None,
        pointer: None,
        path: None,
        help: None,
        fix: None,
    };
    let report = Report::new(
        Profile::Spec,
        vec![FileReport::new(
            "<stdin>",
            flowmcp_spec::catalog::FileKind::Unknown,
            vec![d],
        )],
    );
    let log = check_structure(&render::sarif(&report));
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "LDR008");
    assert!(result.get("locations").is_none());

    let empty = Report::new(Profile::Spec, Vec::new());
    let log = check_structure(&render::sarif(&empty));
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn sarif_snapshot() {
    let report = report(
        Profile::Spec,
        &[
            "VAL014/fail_wrong_major.mjs",
            "SEC001/fail.mjs",
            "LDR005/fail_infinite_loop.mjs",
        ],
    );
    // The version changes with every release; the snapshot should not.
    let version = format!("\"{}\"", env!("CARGO_PKG_VERSION"));
    let text = render::sarif(&report).replace(&version, "\"[version]\"");
    insta::assert_snapshot!("spec_failing_fixtures", text);
}
