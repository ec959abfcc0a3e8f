//! `flowmcp test` on the example catalog against a local stand-in for its APIs (the files of
//! `examples/demo-upstream/`, as the demo upstream serves them): PASS per primitive, captures,
//! JSON, the prune report, `single` and selections.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use common::support::{TestServer, reply};
use common::{demo_upstream, flowmcp_env, repo_root, temp_dir};

const KEYS: [(&str, &str); 2] = [
    ("SKYCAST_API_KEY", "demo-skycast-key"),
    ("OPENSHELF_API_KEY", "demo-openshelf-key"),
];

fn upstream_args(base: &str) -> Vec<String> {
    ["holidaykit-net", "skycast-io", "openshelf-org"]
        .iter()
        .flat_map(|ns| ["--upstream".to_string(), format!("{ns}={base}")])
        .collect()
}

#[test]
fn the_example_catalog_passes_against_the_demo_upstream_and_is_captured() {
    let server = demo_upstream(60);
    let cwd = temp_dir("test-cmd-example");
    let catalog = repo_root().join("examples/catalog");
    let capture = cwd.join("capture");
    let mut args = vec![
        "test".to_string(),
        catalog.display().to_string(),
        "--delay-ms".into(),
        "0".into(),
        "--capture".into(),
        capture.display().to_string(),
    ];
    args.extend(upstream_args(&server.base));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = flowmcp_env(&args, &cwd, &KEYS);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("16 PASS, 0 FAIL, 0 SKIP"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  PASS  tool getPublicHolidays\n"),
        "{}",
        run.stdout
    );
    // The writable notes database: its queries, the write too, ran against a scratch database
    // built from the schema's SQL; the project's own database was never created or touched.
    for line in [
        "  PASS  query notes.addNote\n",
        "  PASS  query notes.byTopic\n",
    ] {
        assert!(run.stdout.contains(line), "{}", run.stdout);
    }
    assert!(!cwd.join(".flowmcp").exists());
    // The capture: one run folder, a record per called test, metrics per namespace.
    let runs: Vec<_> = std::fs::read_dir(&capture).unwrap().collect();
    assert_eq!(runs.len(), 1);
    let run_dir = runs[0].as_ref().unwrap().path();
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir.join("holidaykit-net/getPublicHolidays-0.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        record["userParams"],
        serde_json::json!({"year": 2025, "countryCode": "DE"})
    );
    assert_eq!(record["response"]["data"][1]["name"], "German Unity Day");
    let metrics: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir.join("holidaykit-net/metrics.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(metrics["calls"], 12);
    // No file of the run holds a key.
    for ns in ["skycast-io", "openshelf-org"] {
        for f in std::fs::read_dir(run_dir.join(ns)).unwrap() {
            let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
            assert!(!text.contains("demo-skycast-key") && !text.contains("demo-openshelf-key"));
        }
    }
    let _ = server.finish();
    let _ = std::fs::remove_dir_all(&cwd);
}

#[test]
fn failures_exit_1_and_the_prune_report_lists_them() {
    // An upstream that knows nothing: every tool fails with E001 404.
    let server = TestServer::start(20, |_| reply(404, Some("application/json"), "{}"));
    let cwd = temp_dir("test-cmd-prune");
    let schema = repo_root().join("examples/catalog/providers/holidaykit-net/public-holidays.mjs");
    let mut args = vec![
        "test".to_string(),
        "single".into(),
        schema.display().to_string(),
        "--delay-ms".into(),
        "0".into(),
        "--prune-report".into(),
    ];
    args.extend(upstream_args(&server.base));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = flowmcp_env(&args, &cwd, &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("public-holidays.mjs\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  remove tool getPublicHolidays — no test passed; test 0: E001 getPublicHolidays: API returned 404"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout.matches("  remove tool ").count(),
        4,
        "{}",
        run.stdout
    );
    let _ = server.finish();
    let _ = std::fs::remove_dir_all(&cwd);
}

#[test]
fn json_output_static_runs_and_selections() {
    let cwd = temp_dir("test-cmd-json");
    let catalog = repo_root().join("examples/catalog");
    let catalog = catalog.display().to_string();
    // --static: nothing is called, every test is listed.
    let run = flowmcp_env(
        &[
            "test",
            "holidaykit-net/tool/checkWorkingDay",
            "--catalog",
            &catalog,
            "--static",
            "--format",
            "json",
        ],
        &cwd,
        &[],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let p = &v["schemas"][0]["primitives"][0];
    assert_eq!(p["id"], "holidaykit-net/tool/checkWorkingDay");
    assert_eq!(p["verdict"], "SKIP");
    assert_eq!(p["tests"].as_array().unwrap().len(), 3);
    assert_eq!(v["schemas"].as_array().unwrap().len(), 1);
    // A selection: its members only, with the members line.
    let server = demo_upstream(30);
    let mut args = vec![
        "test".to_string(),
        "trip-planning/selection/days-off".into(),
        "--catalog".into(),
        catalog.clone(),
        "--delay-ms".into(),
        "0".into(),
    ];
    args.extend(upstream_args(&server.base));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = flowmcp_env(&args, &cwd, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("Members PASS"), "{}", run.stdout);
    assert!(!run.stdout.contains("openshelf"), "{}", run.stdout);
    // An unknown ID is a usage error.
    let run = flowmcp_env(
        &["test", "nope/tool/none", "--catalog", &catalog],
        &cwd,
        &[],
    );
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let _ = server.finish();
    let _ = std::fs::remove_dir_all(&cwd);
}

#[test]
fn update_output_inserts_the_generated_output_and_the_file_still_validates() {
    let cwd = temp_dir("test-cmd-update");
    common::copy_dir(&repo_root().join("examples/catalog"), &cwd.join("catalog"));
    let file = cwd.join("catalog/providers/holidaykit-net/public-holidays.mjs");
    // The copy's checkWorkingDay loses its output.
    let text = std::fs::read_to_string(&file).unwrap();
    let tool = text.find("        checkWorkingDay: {").unwrap();
    let output = tool + text[tool..].find("            output: {").unwrap();
    let tests = output + text[output..].find("            tests: [").unwrap();
    let without = format!("{}{}", &text[..output], &text[tests..]);
    std::fs::write(&file, &without).unwrap();
    let file_arg = file.display().to_string();
    let server = demo_upstream(40);
    let upstream = format!("holidaykit-net={}", server.base);
    let base = [
        "test",
        file_arg.as_str(),
        "--delay-ms",
        "0",
        "--update-output",
        "--upstream",
        upstream.as_str(),
    ];
    // --dry-run: the diff, and the file unchanged.
    let mut dry = base.to_vec();
    dry.push("--dry-run");
    let run = flowmcp_env(&dry, &cwd, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("+            output: {\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "+                        isWorkingDay: { type: 'boolean', description: '' },\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("-    schemaHash: 'a1411451',\n"),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), without);
    // Written: the output sits after `parameters`, the file validates, the hash is current.
    let run = flowmcp_env(&base, &cwd, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("output of checkWorkingDay"),
        "{}",
        run.stdout
    );
    let written = std::fs::read_to_string(&file).unwrap();
    let params_end = written.find(
        "            ],\n            output: {\n                mimeType: 'application/json',",
    );
    assert!(params_end.is_some(), "{written}");
    let check = flowmcp_env(&["validate", file_arg.as_str()], &cwd, &[]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    assert!(check.stdout.contains("0 errors"), "{}", check.stdout);
    let hash = flowmcp_env(&["hash", file_arg.as_str()], &cwd, &[]);
    assert!(
        written.contains(&format!("schemaHash: '{}'", hash.stdout.trim())),
        "{}",
        hash.stdout
    );
    // Again: nothing left to update.
    let run = flowmcp_env(&base, &cwd, &[]);
    assert!(run.stdout.contains("no output to update"), "{}", run.stdout);
    let _ = server.finish();
    let _ = std::fs::remove_dir_all(&cwd);
}

/// A temporary directory with `repo/catalog/<file>` holding `text`; returns the directory and the
/// repository.
fn repo_with(tag: &str, file: &str, text: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = temp_dir(tag);
    let repo = root.join("repo");
    let schema = repo.join("catalog").join(file);
    std::fs::create_dir_all(schema.parent().unwrap()).unwrap();
    std::fs::write(&schema, text).unwrap();
    (root, repo)
}

/// Issue #27, item 5: `--capture DIR` names record files after encoded tool keys, so a compat
/// tool key with `/` and `../` writes (and creates) nothing outside DIR.
#[test]
fn item05_captures_stay_inside_their_directory() {
    let (root, repo) = repo_with(
        "test-cmd-capture-escape",
        "esc.mjs",
        "export const main = { namespace: 'esc', name: 'Esc', description: 'Escapes', \
         version: '4.2.0', root: 'https://esc.example', tools: { '../../../escaped/x': { \
         method: 'GET', path: '/x', description: 'X', parameters: [], tests: [ \
         { _description: 'a' }, { _description: 'b' }, { _description: 'c' } ] } } }\n",
    );
    let server = TestServer::start(3, |_| reply(200, Some("application/json"), "{\"ok\":1}"));
    let upstream = format!("esc={}", server.base);
    let run = flowmcp_env(
        &[
            "test",
            "catalog",
            "--profile",
            "compat",
            "--delay-ms",
            "0",
            "--capture",
            "cap",
            "--upstream",
            &upstream,
        ],
        &repo,
        &[("HOME", &root.display().to_string())],
    );
    assert!(
        run.stdout.contains("1 PASS, 0 FAIL"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!root.join("escaped").exists() && !repo.join("escaped").exists());
    // Everything written is under cap/<stamp>/esc/.
    let runs: Vec<_> = std::fs::read_dir(repo.join("cap")).unwrap().collect();
    assert_eq!(runs.len(), 1);
    let ns_dir = runs[0].as_ref().unwrap().path().join("esc");
    let mut files: Vec<String> = std::fs::read_dir(&ns_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "%2E%2E%2F%2E%2E%2F%2E%2E%2Fescaped%2Fx-0.json",
            "%2E%2E%2F%2E%2E%2F%2E%2E%2Fescaped%2Fx-1.json",
            "%2E%2E%2F%2E%2E%2F%2E%2E%2Fescaped%2Fx-2.json",
            "metrics.json"
        ]
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue #27, item 15: text from a catalog or a response (tool keys, test descriptions, messages,
/// descriptions) is shown with its control characters escaped, so a hostile catalog cannot forge
/// "1 PASS, 0 FAIL" or recolour the terminal in `test`, `list` or `search`.
#[test]
fn item15_catalog_text_cannot_forge_lines_in_human_output() {
    let forged = "\\u001b[2K\\r1 PASS, 0 FAIL, 0 SKIP\\n";
    let (root, repo) = repo_with(
        "test-cmd-forge",
        "forge.mjs",
        &format!(
            "export const main = {{ namespace: 'forge', name: 'Forge', description: 'Forges', \
             version: '4.2.0', root: 'https://forge.example', tools: {{ 'ok{forged}': {{ \
             method: 'GET', path: '/x', description: 'Looks fine{forged}', parameters: [], \
             tests: [ {{ _description: 'a{forged}' }}, {{ _description: 'b{forged}' }}, \
             {{ _description: 'c{forged}' }} ] }} }} }}\n"
        ),
    );
    let server = TestServer::start(3, |_| {
        reply(
            500,
            Some("text/plain"),
            "\u{1b}[2K\r1 PASS, 0 FAIL, 0 SKIP\n",
        )
    });
    let upstream = format!("forge={}", server.base);
    let home = root.display().to_string();
    let env = [("HOME", home.as_str())];
    let runs = [
        flowmcp_env(
            &[
                "test",
                "catalog",
                "--profile",
                "compat",
                "--delay-ms",
                "0",
                "--upstream",
                &upstream,
            ],
            &repo,
            &env,
        ),
        flowmcp_env(&["list", "catalog", "--profile", "compat"], &repo, &env),
        flowmcp_env(
            &[
                "search",
                "fine",
                "--catalog",
                "catalog",
                "--profile",
                "compat",
            ],
            &repo,
            &env,
        ),
    ];
    for run in &runs {
        for text in [&run.stdout, &run.stderr] {
            assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
            assert!(
                !text.lines().any(|l| l.starts_with("1 PASS")),
                "a forged line: {text}"
            );
        }
    }
    assert!(
        runs[0]
            .stdout
            .lines()
            .any(|l| l == "0 PASS, 1 FAIL, 0 SKIP"),
        "{}",
        runs[0].stdout
    );
    assert_eq!(runs[0].code, 1);
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue #31, item 6: a schema with nothing to call (here only a prompt) passes the API test
/// without one, as the lifecycle chapter's rule for static schemas says; it used to print
/// "0 PASS, 0 FAIL".
#[test]
fn i31_6_a_schema_with_only_prompts_passes_without_an_api_test() {
    let dir = temp_dir("test-cmd-static");
    std::fs::create_dir_all(dir.join("prompts")).unwrap();
    std::fs::copy(
        repo_root().join("examples/catalog/providers/holidaykit-net/prompts/about.mjs"),
        dir.join("prompts/about.mjs"),
    )
    .unwrap();
    std::fs::write(
        dir.join("guide.mjs"),
        r#"export const main = {
    namespace: 'guidebook',
    name: 'Guide',
    description: 'Only prompts: a guide to planning days off.',
    version: '4.2.0',
    tools: {},
    prompts: {
        about: {
            name: 'about',
            version: 'flowmcp-prompt/1.0.0',
            namespace: 'guidebook',
            description: 'How to plan days off',
            dependsOn: [],
            references: [],
            contentFile: './prompts/about.mjs'
        }
    }
}
"#,
    )
    .unwrap();
    let env = [("HOME", dir.to_str().unwrap())];
    let run = flowmcp_env(&["test", "guide.mjs"], &dir, &env);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("AUTO-PASS  guide.mjs"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1 AUTO-PASS"), "{}", run.stdout);
    let json = flowmcp_env(&["test", "guide.mjs", "--format", "json"], &dir, &env);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["autoPass"], serde_json::json!(["guide.mjs"]));
}

/// Issue #31, item 6: testing a selection tests its prompts and skills too, by their structural
/// test (every reference resolves: the file that defines each has no error). A skill whose
/// content names a tool its schema does not have fails, and with it the selection's test.
#[test]
fn i31_6_a_selection_test_covers_its_prompts_and_skills() {
    let cwd = temp_dir("test-cmd-structural");
    common::copy_dir(&repo_root().join("examples/catalog"), &cwd.join("catalog"));
    let run = |home: &std::path::Path| {
        flowmcp_env(
            &[
                "test",
                "trip-planning/selection/days-off",
                "--catalog",
                "catalog",
                "--static",
            ],
            &cwd,
            &[("HOME", home.to_str().unwrap())],
        )
    };
    let ok = run(&cwd);
    assert_eq!(ok.code, 0, "{}\n{}", ok.stdout, ok.stderr);
    for id in [
        "holidaykit-net/prompt/bridge-days",
        "holidaykit-net/skill/plan-long-weekends",
    ] {
        assert!(
            ok.stdout
                .contains(&format!("PASS  {id} (structural: its references resolve)")),
            "{}",
            ok.stdout
        );
    }
    assert!(ok.stdout.contains("2/6 Members PASS"), "{}", ok.stdout);

    let skill = cwd.join("catalog/providers/holidaykit-net/skills/plan-long-weekends.mjs");
    let text = std::fs::read_to_string(&skill).unwrap();
    std::fs::write(
        &skill,
        text.replacen("{{tool:getPublicHolidays}}", "{{tool:noSuchTool}}", 1),
    )
    .unwrap();
    let bad = run(&cwd);
    assert_eq!(bad.code, 1, "{}\n{}", bad.stdout, bad.stderr);
    assert!(
        bad.stdout
            .contains("FAIL  holidaykit-net/skill/plan-long-weekends"),
        "{}",
        bad.stdout
    );
    let _ = std::fs::remove_dir_all(&cwd);
}

/// Issue #45, scope 3: `flowmcp test --prune` removes the failing tools from their file (the
/// original kept as `<file>.bak`, every other byte as it was), and the pruned file validates;
/// `--dry-run` only shows the diff; a file whose result would not validate is left alone.
#[test]
fn i45_prune_removes_failing_tools_and_keeps_the_original() {
    let cwd = temp_dir("test-cmd-prune-write");
    common::copy_dir(&repo_root().join("examples/catalog"), &cwd.join("catalog"));
    let file = cwd.join("catalog/providers/skycast-io/forecast.mjs");
    let original = std::fs::read_to_string(&file).unwrap();
    // The demo upstream, but the weather alerts are gone.
    let dir = repo_root().join("examples/demo-upstream");
    let server = TestServer::start(100, move |seen| {
        let path = seen.url.split('?').next().unwrap_or_default().to_string();
        match std::fs::read(dir.join(path.trim_start_matches('/'))) {
            Ok(body) if !path.starts_with("/alerts") => reply(200, Some("application/json"), body),
            _ => reply(404, Some("application/json"), "{}"),
        }
    });
    let file_arg = file.display().to_string();
    let upstream = format!("skycast-io={}", server.base);
    let base = [
        "test",
        file_arg.as_str(),
        "--delay-ms",
        "0",
        "--prune",
        "--upstream",
        upstream.as_str(),
    ];
    let mut dry = base.to_vec();
    dry.push("--dry-run");
    let run = flowmcp_env(&dry, &cwd, &KEYS);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("would remove from ")
            && run.stdout.contains("-        getWeatherAlerts: {\n"),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert!(
        !cwd.join("catalog/providers/skycast-io/forecast.mjs.bak")
            .exists()
    );

    let run = flowmcp_env(&base, &cwd, &KEYS);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("  FAIL  tool getWeatherAlerts")
            && run
                .stdout
                .contains(": removed getWeatherAlerts (original kept as "),
        "{}",
        run.stdout
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join("catalog/providers/skycast-io/forecast.mjs.bak")).unwrap(),
        original
    );
    let pruned = std::fs::read_to_string(&file).unwrap();
    assert!(!pruned.contains("getWeatherAlerts"), "{pruned}");
    // Only the tool's own lines went.
    let start = original.find("        getWeatherAlerts: {\n").unwrap();
    let tools_end = original[start..].find("\n    }").unwrap() + start;
    let mut expected = original[..start].to_string();
    expected.push_str(&original[tools_end + 1..]);
    assert_eq!(pruned.trim_end(), expected.trim_end(), "{pruned}");
    assert!(
        run.stderr
            .contains("registry.json's contentHash no longer matches the pruned files"),
        "{}",
        run.stderr
    );
    let index = flowmcp_env(
        &[
            "catalog",
            "index",
            &cwd.join("catalog").display().to_string(),
        ],
        &cwd,
        &[],
    );
    assert_eq!(index.code, 0, "{}\n{}", index.stdout, index.stderr);
    let check = flowmcp_env(&["validate", file_arg.as_str()], &cwd, &[]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    // Run again: nothing fails, nothing to prune, the backup is not touched.
    let run = flowmcp_env(&base, &cwd, &KEYS);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("pruned "), "{}", run.stdout);
    let _ = server.finish();

    // Every tool of the holidays file fails: removing them all would break the catalog (its
    // prompts, a skill and a selection name them), so the file is put back as it was, its backup
    // removed, and the run fails.
    let holidays = cwd.join("catalog/providers/holidaykit-net/public-holidays.mjs");
    let before = std::fs::read_to_string(&holidays).unwrap();
    let nothing = TestServer::start(20, |_| reply(404, Some("application/json"), "{}"));
    let holidays_arg = holidays.display().to_string();
    let upstream = format!("holidaykit-net={}", nothing.base);
    let run = flowmcp_env(
        &[
            "test",
            &holidays_arg,
            "--delay-ms",
            "0",
            "--prune",
            "--upstream",
            &upstream,
        ],
        &cwd,
        &[],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("not pruned: ")
            && run
                .stdout
                .contains("removing them would break the catalog ")
            && run.stdout.contains("SEL003"),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read_to_string(&holidays).unwrap(), before);
    assert!(
        !cwd.join("catalog/providers/holidaykit-net/public-holidays.mjs.bak")
            .exists()
    );
    let _ = nothing.finish();
    let _ = std::fs::remove_dir_all(&cwd);
}
