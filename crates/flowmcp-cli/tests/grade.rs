//! `flowmcp grade`: prompts.json is deterministic, scores.json is checked, the grade report has
//! the chapter's shape.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

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
    // Issue #31, item 6: the validation-strategy chapter's fields are there too.
    assert_eq!(report["validatorVersion"], "validation/4.2");
    assert_eq!(report["timestamp"], report["timestamps"]["gradedAt"]);
    assert_eq!(report["deterministic"]["status"], "PASS");
    assert_eq!(report["deterministic"]["errors"], json!([]));
    assert!(report["deterministic"]["warnings"].is_array());
    assert_eq!(report["probabilistic"]["score"], 3.0);
    let primitives = report["primitives"].as_array().unwrap();
    assert!(
        primitives.contains(&json!("holidaykit-net/tool/getPublicHolidays")),
        "{primitives:?}"
    );
    assert!(
        primitives
            .iter()
            .all(|p| p.as_str().unwrap().matches('/').count() == 2)
    );
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
    assert_eq!(report["deterministic"]["status"], "FAIL");
    assert_eq!(
        report["deterministic"]["errors"],
        report["validationErrors"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 29, item 2: the validator opens no database itself, so `flowmcp grade` hands it the file
/// checks (and `HOME`, `FLOWMCP_RESOURCES`): a schema whose `sqlite-gtfs` database is missing
/// fails validation with RES033 and grades F, as when the validator opened files on its own.
#[test]
fn i29_2_grade_checks_the_database_a_schema_names() {
    let dir = temp_dir("grade-i29");
    let schema = dir.join("transit.mjs");
    std::fs::write(
        &schema,
        "export const main = { namespace: 'demo-api', name: 'Transit', description: 'Transit', version: '4.2.0', tools: {},
    resources: { timetable: { source: 'sqlite-gtfs', mode: 'file-based', path: 'missing.db',
        addon: 'gtfs-sqlite-toolkit', description: 'Transit timetable' } } }\n",
    )
    .unwrap();
    let scores_file = dir.join("scores.json");
    std::fs::write(&scores_file, scores("v1", "demo-api_transit", 5.0, 5.0)).unwrap();
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
        &std::fs::read_to_string(dir.join("demo-api_transit.grade.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["grade"], "F", "{report}");
    assert!(
        report["validationErrors"].to_string().contains("RES033"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn chat_reply(content: &str) -> common::support::Reply {
    let body = json!({"choices": [{"message": {"role": "assistant", "content": content}}]});
    common::support::reply(200, Some("application/json"), body.to_string())
}

#[test]
fn grade_llm_scores_each_prompt_on_its_own_and_writes_both_files() {
    let dir = temp_dir("grade-llm");
    let schema = repo_root().join("examples/catalog/providers/holidaykit-net/public-holidays.mjs");
    let replies = std::sync::Mutex::new(vec![
        r#"```json
[ { "dimension": "parameters", "score": 3.5, "reasoning": "Types and formats are named." } ]
```"#
            .to_string(),
        r#"[ { "dimension": "whenToUse", "score": 4.5, "reasoning": "Clear scope." } ]"#
            .to_string(),
    ]);
    let server = common::support::TestServer::start(2, move |_| {
        chat_reply(&replies.lock().unwrap().pop().unwrap_or_default())
    });
    let base = format!("{}/v1", server.base);
    let run = common::flowmcp_env(
        &[
            "grade",
            "--llm",
            &schema.display().to_string(),
            "--llm-base-url",
            &base,
            "--model",
            "test/model",
            "--out",
            &dir.display().to_string(),
        ],
        &dir,
        &[("OPENROUTER_API_KEY", "sk-test-grade")],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("grade A (score 4.0"), "{}", run.stdout);
    let seen = server.finish();
    assert_eq!(seen.len(), 2);
    for s in &seen {
        assert_eq!(s.url, "/v1/chat/completions");
        assert_eq!(s.header("authorization"), Some("Bearer sk-test-grade"));
        let body: Value = serde_json::from_slice(&s.body).unwrap();
        assert_eq!(body["model"], "test/model");
        // Each prompt on its own: the instructions and one prompt.
        assert_eq!(body["messages"].as_array().unwrap().len(), 2);
    }
    let scores: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("scores.json")).unwrap()).unwrap();
    assert_eq!(scores["scoringProtocol"], "v1");
    assert_eq!(scores["harness"]["model"], "test/model");
    assert_eq!(scores["scores"][1]["score"], 3.5);
    let text =
        std::fs::read_to_string(dir.join("holidaykit-net_public-holidays.grade.json")).unwrap();
    assert!(!text.contains("sk-test-grade"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grade_llm_refuses_an_answer_without_a_score() {
    let dir = temp_dir("grade-llm-bad");
    let schema = repo_root().join("examples/catalog/providers/holidaykit-net/public-holidays.mjs");
    let server = common::support::TestServer::start(1, |_| chat_reply("I would rate it highly."));
    let base = format!("{}/v1", server.base);
    let run = common::flowmcp(
        &[
            "grade",
            "--llm",
            &schema.display().to_string(),
            "--llm-base-url",
            &base,
            "--out",
            &dir.display().to_string(),
        ],
        &dir,
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("AGENT004"), "{}", run.stderr);
    assert!(!dir.join("scores.json").exists());
    let _ = server.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #27 item 7: `grade --llm` writes nothing of the key a gateway echoes back: not into
/// scores.json, the grade report or an error.
#[test]
fn item07_grade_llm_never_writes_the_key_the_endpoint_echoes() {
    const KEY: &str = "sk-grade-secret-5151";
    let dir = temp_dir("grade-llm-echo");
    let schema = repo_root().join("examples/catalog/providers/holidaykit-net/public-holidays.mjs");
    let server = common::support::TestServer::start(2, |seen| {
        let body: Value = serde_json::from_slice(&seen.body).unwrap_or_default();
        let dimension = if body.to_string().contains("parameters") {
            "parameters"
        } else {
            "whenToUse"
        };
        chat_reply(
            &json!([{"dimension": dimension, "score": 4.0,
                     "reasoning": format!("You sent Bearer {KEY}")}])
            .to_string(),
        )
    });
    let base = format!("{}/v1", server.base);
    let out = dir.display().to_string();
    let run = common::flowmcp_env(
        &[
            "grade",
            "--llm",
            &schema.display().to_string(),
            "--llm-base-url",
            &base,
            "--out",
            &out,
        ],
        &dir,
        &[("OPENROUTER_API_KEY", KEY)],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let scores = std::fs::read_to_string(dir.join("scores.json")).unwrap();
    assert!(!scores.contains(KEY), "{scores}");
    assert!(scores.contains("You sent Bearer [redacted]"), "{scores}");
    let report =
        std::fs::read_to_string(dir.join("holidaykit-net_public-holidays.grade.json")).unwrap();
    assert!(!report.contains(KEY), "{report}");
    server.finish();

    // An answer that is not a score quotes the model's text: without the key.
    let server = common::support::TestServer::start(1, |_| chat_reply(&format!("No. {KEY}")));
    let base = format!("{}/v1", server.base);
    let run = common::flowmcp_env(
        &[
            "grade",
            "--llm",
            &schema.display().to_string(),
            "--llm-base-url",
            &base,
            "--out",
            &out,
        ],
        &dir,
        &[("OPENROUTER_API_KEY", KEY)],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("AGENT004"), "{}", run.stderr);
    assert!(!run.stderr.contains(KEY), "{}", run.stderr);
    server.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #45, scope 3: `flowmcp grade DIR` grades every schema file under a directory, each into
/// `OUT/<slug>/`, passing over files without a `main`; scores come from `SCORES/<slug>/`, and
/// `OUT/grades.json` has a row per file, a refused one with its reason.
#[test]
fn i45_grade_takes_a_directory() {
    let dir = temp_dir("grade-dir");
    let catalog = repo_root().join("examples/catalog").display().to_string();
    let out = dir.join("out");
    let out_arg = out.display().to_string();
    let run = flowmcp(
        &["grade", "--emit-prompts", &catalog, "--out", &out_arg],
        &dir,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut slugs: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    slugs.sort();
    assert_eq!(
        slugs,
        [
            "atlasdata-org_countries",
            "fieldnotes-app_notes",
            "holidaykit-net_public-holidays",
            "openshelf-org_books",
            "skycast-io_forecast"
        ],
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .starts_with("5 schema files with prompts written, 0 refused, "),
        "{}",
        run.stdout
    );
    // The same bytes as one file's prompts.json.
    let single = dir.join("single");
    let holidays =
        repo_root().join("examples/catalog/providers/holidaykit-net/public-holidays.mjs");
    let run = flowmcp(
        &[
            "grade",
            "--emit-prompts",
            &holidays.display().to_string(),
            "--out",
            &single.display().to_string(),
        ],
        &dir,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read(single.join("prompts.json")).unwrap(),
        std::fs::read(out.join("holidaykit-net_public-holidays/prompts.json")).unwrap()
    );

    // Scores for all but one: four graded, one refused, exit 1.
    let scores_dir = dir.join("scores");
    for slug in &slugs[1..] {
        std::fs::create_dir_all(scores_dir.join(slug)).unwrap();
        std::fs::write(
            scores_dir.join(slug).join("scores.json"),
            scores("v1", slug, 4.5, 4.0),
        )
        .unwrap();
    }
    let graded = dir.join("graded");
    let grade = |scores: &std::path::Path| {
        flowmcp(
            &[
                "grade",
                "--consume-scores",
                &scores.display().to_string(),
                &catalog,
                "--out",
                &graded.display().to_string(),
            ],
            &dir,
        )
    };
    let run = grade(&scores_dir);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("4 schema files graded, 1 refused, "),
        "{}",
        run.stdout
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(graded.join("grades.json")).unwrap())
            .unwrap();
    let rows = summary["grades"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{summary}");
    let refused: Vec<&Value> = rows.iter().filter(|r| r.get("error").is_some()).collect();
    assert_eq!(refused.len(), 1, "{summary}");
    assert_eq!(refused[0]["id"], "atlasdata-org/countries");
    let holidays_row = rows
        .iter()
        .find(|r| r["id"] == "holidaykit-net/public-holidays")
        .unwrap();
    assert_eq!(holidays_row["grade"], "A", "{summary}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(
            graded.join("holidaykit-net_public-holidays/holidaykit-net_public-holidays.grade.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(report["score"], 4.25);
    // A file as --consume-scores with a directory as SCHEMA is a usage error.
    let file = scores_dir.join("skycast-io_forecast/scores.json");
    let run = grade(&file);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("must name a directory too"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}
