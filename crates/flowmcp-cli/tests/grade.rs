//! `flowmcp grade`: prompts.json is deterministic, scores.json is checked, the grade report has
//! the chapter's shape.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

mod common;

use common::{flowmcp, repo_root, temp_dir};
use serde_json::{Value, json};

fn scores(protocol: &str, slug: &str, when: f64, params: f64) -> String {
    json!({
        "schemaIdSlug": slug, "scoringProtocol": protocol,
        "creator": {"skill": "grade-score-single", "skillVersion": "1.0.0", "session": "test"},
        "harness": {"name": "test", "version": "1", "model": "none"},
        "timestamp": "2026-11-25T10:00:00Z",
        "scores": [
            {"dimension": "whenToUse", "score": when, "reasoning": "r1"},
            {"dimension": "parameters", "score": params, "reasoning": "r2"}
        ]
    })
    .to_string()
}

#[test]
fn prompts_are_byte_identical_and_scores_become_a_grade_report() {
    let dir = temp_dir("grade");
    let schema = repo_root().join("examples/catalog/providers/holidaykit-net/public-holidays.mjs");
    let schema = schema.display().to_string();
    let out = dir.display().to_string();
    let run = flowmcp(&["grade", "--emit-prompts", &schema, "--out", &out], &dir);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let first = std::fs::read(dir.join("prompts.json")).unwrap();
    let run = flowmcp(&["grade", "--emit-prompts", &schema, "--out", &out], &dir);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read(dir.join("prompts.json")).unwrap(), first);
    let prompts: Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(prompts["schemaId"], "holidaykit-net/public-holidays");
    assert_eq!(prompts["schemaIdSlug"], "holidaykit-net_public-holidays");
    assert_eq!(prompts["scoringProtocol"], "v1");
    assert_eq!(prompts["prompts"][0]["dimension"], "whenToUse");
    assert!(
        prompts["prompts"][1]["prompt"]
            .as_str()
            .unwrap()
            .contains("countryCode")
    );

    let good = dir.join("scores.json");
    std::fs::write(
        &good,
        scores("v1", "holidaykit-net_public-holidays", 3.5, 2.5),
    )
    .unwrap();
    let good = good.display().to_string();
    let run = flowmcp(
        &["grade", "--consume-scores", &good, &schema, "--out", &out],
        &dir,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("grade B (score 3.0"), "{}", run.stdout);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("holidaykit-net_public-holidays.grade.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["grade"], "B");
    assert_eq!(report["score"], 3.0);
    assert_eq!(report["validationPassed"], true);
    assert_eq!(report["validationErrors"], json!([]));
    assert!(
        report["schemaHash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(report["timestamps"]["scoredAt"], "2026-11-25T10:00:00Z");
    assert_eq!(report["dimensions"].as_array().unwrap().len(), 2);
    assert_eq!(report["harness"]["name"], "test");

    // Refused: an unknown protocol, another schema, a score out of range.
    for (text, why) in [
        (
            scores("v2", "holidaykit-net_public-holidays", 3.0, 3.0),
            "unknown scoringProtocol \"v2\"",
        ),
        (
            scores("v1", "other_schema", 3.0, 3.0),
            "is for \"other_schema\"",
        ),
        (
            scores("v1", "holidaykit-net_public-holidays", 7.0, 3.0),
            "from 1.0 to 5.0",
        ),
    ] {
        let bad = dir.join("bad.json");
        std::fs::write(&bad, text).unwrap();
        let bad = bad.display().to_string();
        let run = flowmcp(
            &["grade", "--consume-scores", &bad, &schema, "--out", &out],
            &dir,
        );
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(run.stderr.contains(why), "{}", run.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_schema_with_errors_grades_f() {
    let dir = temp_dir("grade-f");
    let schema = dir.join("broken.mjs");
    std::fs::write(
        &schema,
        "export const main = { namespace: 'demo-api', name: 'Broken', description: 'No version, no root', tools: {} }\n",
    )
    .unwrap();
    let scores_file = dir.join("scores.json");
    std::fs::write(&scores_file, scores("v1", "demo-api_broken", 5.0, 5.0)).unwrap();
    let run = flowmcp(
        &[
            "grade",
            "--consume-scores",
            &scores_file.display().to_string(),
            &schema.display().to_string(),
            "--out",
            &dir.display().to_string(),
        ],
        &dir,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("demo-api_broken.grade.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["grade"], "F");
    assert_eq!(report["validationPassed"], false);
    assert!(!report["validationErrors"].as_array().unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
