//! The `flowmcp` binary end to end. Every run has a generous watchdog: a hang fails the test instead of
//! blocking the suite (no timing assertions otherwise).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use std::path::PathBuf;

use serde_json::Value;

use common::{flowmcp, repo_root, temp_dir};

fn fixtures() -> PathBuf {
    repo_root().join("crates/flowmcp-validate/tests/fixtures")
}

#[test]
fn examples_catalog_is_valid_under_spec() {
    let r = flowmcp(&["validate", "examples/catalog"], &repo_root());
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("0 errors"), "{}", r.stdout);
    assert!(r.stdout.trim_end().ends_with("are valid"), "{}", r.stdout);
}

/// Every hostile input of the foundation issue, validated in one run: each file gets its own report
/// with the expected code, and the process exits 1.
#[test]
fn hostile_files_in_one_run() {
    let dir = temp_dir("hostile");
    let cases: &[(&str, &str, &str)] = &[
        ("LDR005/fail_infinite_loop.mjs", "loop.mjs", "LDR005"),
        ("LDR006/fail_allocation.mjs", "alloc.mjs", "LDR006"),
        ("LDR006/fail_recursion.mjs", "recursion.mjs", "LDR006"),
        ("LDR003/fail_syntax.mjs", "syntax.mjs", "LDR003"),
        ("LDR001/fail_latin1.mjs", "latin1.mjs", "LDR001"),
        ("SEC017/fail_cycle.mjs", "cycle.mjs", "SEC017"),
        ("SEC017/fail_getter_throws.mjs", "getter.mjs", "SEC017"),
        ("SEC017/fail_values.mjs", "values.mjs", "SEC017"),
        ("LDR008/fail_default_export.mjs", "default.mjs", "LDR008"),
        ("LDR008/fail_empty.mjs", "empty.mjs", "LDR008"),
        ("LDR007/fail_await_forever.mjs", "tla.mjs", "LDR007"),
        ("SEC001/fail.mjs", "static-import.mjs", "SEC001"),
        (
            "SEC001/fail_dynamic_import.mjs",
            "dynamic-import.mjs",
            "SEC001",
        ),
        ("SEC006/fail.mjs", "process.mjs", "SEC006"),
        ("SEC002/fail.mjs", "require.mjs", "SEC002"),
        ("LDR004/fail_fetch_at_top_level.mjs", "fetch.mjs", "LDR004"),
        ("LDR005/fail_proxy_trap_loop.mjs", "proxy.mjs", "LDR005"),
    ];
    for (src, dst, _) in cases {
        std::fs::copy(fixtures().join(src), dir.join(dst)).unwrap();
    }
    let mut big = String::from("export const main = { data: '");
    big.push_str(&"x".repeat(50 * 1024 * 1024));
    big.push_str("' }\n");
    std::fs::write(dir.join("huge.mjs"), big).unwrap();

    let r = flowmcp(
        &["validate", "--format", "json", dir.to_str().unwrap()],
        &repo_root(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON report");
    let reports = v["reports"].as_array().unwrap();
    assert_eq!(reports.len(), cases.len() + 1);
    let mut expected: Vec<(&str, &str)> = cases.iter().map(|(_, d, c)| (*d, *c)).collect();
    expected.push(("huge.mjs", "LDR002"));
    for (file, code) in expected {
        let rep = reports
            .iter()
            .find(|r| r["file"].as_str().unwrap().ends_with(file))
            .unwrap_or_else(|| panic!("no report for {file}"));
        assert_eq!(rep["verdict"], "invalid", "{file}");
        let codes: Vec<&str> = rep["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert!(
            codes.contains(&code),
            "{file}: expected {code}, got {codes:?}"
        );
    }
}

#[test]
fn rules_lists_every_code_and_explains_one() {
    let r = flowmcp(&["rules"], &repo_root());
    assert_eq!(r.code, 0);
    let rows = r
        .stdout
        .lines()
        .filter(|l| l.len() > 6 && l.as_bytes()[0].is_ascii_uppercase() && !l.starts_with("CODE"))
        .count();
    assert_eq!(rows, flowmcp_spec::registry::RULES.len());
    for code in [
        "VAL001", "SEC204", "LDR008", "PRE006", "E009", "AGT031", "TST013", "CAT007", "ID006",
    ] {
        assert!(
            r.stdout.lines().any(|l| l.starts_with(code)),
            "{code} missing"
        );
    }
    let one = flowmcp(&["rules", "val014"], &repo_root());
    assert_eq!(one.code, 0);
    assert!(
        one.stdout.contains("VAL014")
            && one.stdout.contains("\"v3\"")
            && one.stdout.contains("implemented")
    );
    let bad = flowmcp(&["rules", "NOPE001"], &repo_root());
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unknown rule code"));
    let json = flowmcp(&["rules", "--format", "json"], &repo_root());
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        v.as_array().unwrap().len(),
        flowmcp_spec::registry::RULES.len()
    );
}

/// Issue 29, item 1: the codes of markdown resources and of the agent runner are registry codes,
/// so `flowmcp rules` explains them (they were "unknown rule code").
#[test]
fn i29_1_rules_explains_markdown_and_agent_codes() {
    for (code, summary) in [
        ("MD004", "Requested markdown section does not exist"),
        ("AGENT001", "Agent cannot be activated"),
        (
            "AGENT005",
            "Agent still asked for tools after maxRounds rounds",
        ),
    ] {
        let r = flowmcp(&["rules", code], &repo_root());
        assert_eq!(r.code, 0, "{code}: {}", r.stderr);
        assert!(
            r.stdout.starts_with(&format!("{code}: {summary}")),
            "{code}: {}",
            r.stdout
        );
        assert!(r.stdout.contains("never by validation"), "{}", r.stdout);
    }
    let all = flowmcp(&["rules"], &repo_root());
    assert!(all.stdout.lines().any(|l| l.starts_with("MD007 ")));
    assert!(all.stdout.lines().any(|l| l.starts_with("AGENT003 ")));
}

#[test]
fn usage_and_io_errors_exit_2() {
    let root = repo_root();
    assert_eq!(flowmcp(&["validate", "does/not/exist.mjs"], &root).code, 2);
    assert_eq!(flowmcp(&["validate"], &root).code, 2);
    assert_eq!(
        flowmcp(&["validate", "--profile", "loose", "examples"], &root).code,
        2
    );
    let r = flowmcp(&["validate", "--rule", "VAL999=off", "examples"], &root);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("VAL999"));
    assert_eq!(flowmcp(&["bogus"], &root).code, 2);
    assert_eq!(flowmcp(&["--help"], &root).code, 0);
}

#[test]
fn rule_overrides_and_profiles() {
    let root = repo_root();
    let file = fixtures().join("VAL036/fail_no_output.mjs");
    let f = file.to_str().unwrap();
    let r = flowmcp(&["validate", f], &root);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("VAL036 warning"));
    assert!(
        r.stdout.contains("0 errors, 1 warning\nSchema is valid"),
        "{}",
        r.stdout
    );
    let r = flowmcp(&["validate", "--rule", "VAL036=error", f], &root);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("Schema cannot be loaded (has errors)"));
    let r = flowmcp(&["validate", "--rule", "VAL036=off", f], &root);
    assert!(!r.stdout.contains("VAL036"));

    let name = fixtures().join("VAL030/fail_name.mjs");
    assert_eq!(
        flowmcp(&["validate", name.to_str().unwrap()], &root).code,
        1
    );
    assert_eq!(
        flowmcp(
            &["validate", "--profile", "compat", name.to_str().unwrap()],
            &root
        )
        .code,
        0
    );
}

#[test]
fn config_file_sets_profile_and_rules() {
    let dir = temp_dir("config");
    std::fs::create_dir_all(dir.join(".flowmcp")).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::copy(
        fixtures().join("VAL030/fail_name.mjs"),
        dir.join("sub/a.mjs"),
    )
    .unwrap();
    std::fs::write(
        dir.join(".flowmcp/config.json"),
        r#"{"profile":"compat","rules":{"VAL036":"error"}}"#,
    )
    .unwrap();
    let r = flowmcp(&["validate", "a.mjs"], &dir.join("sub"));
    assert!(r.stdout.contains("VAL030 warning"), "{}", r.stdout);
    std::fs::write(dir.join(".flowmcp/config.json"), "{ not json").unwrap();
    let r = flowmcp(&["validate", "a.mjs"], &dir.join("sub"));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("config.json"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dash_named_files_work() {
    let dir = temp_dir("dash");
    std::fs::copy(fixtures().join("VAL014/pass.mjs"), dir.join("--odd.mjs")).unwrap();
    let r = flowmcp(&["validate", "--", "--odd.mjs"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = flowmcp(&["validate", "--odd.mjs"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = flowmcp(&["validate", "."], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("Schema is valid"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_report_shape() {
    let file = fixtures().join("VAL014/fail_wrong_major.mjs");
    let r = flowmcp(
        &["validate", "--format", "json", file.to_str().unwrap()],
        &repo_root(),
    );
    assert_eq!(r.code, 1);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["profile"], "spec");
    assert_eq!(v["verdict"], "invalid");
    assert_eq!(v["files"], 1);
    assert_eq!(v["errors"], 1);
    let d = &v["reports"][0]["diagnostics"][0];
    assert_eq!(d["code"], "VAL014");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["pointer"], "/main/version");
    assert_eq!(d["path"], "main.version");
    assert_eq!(v["reports"][0]["kind"], "schema");
}

#[test]
fn hash_prints_the_schema_hash() {
    let root = repo_root();
    let r = flowmcp(
        &[
            "hash",
            "examples/catalog/providers/holidaykit-net/public-holidays.mjs",
        ],
        &root,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let h = r.stdout.trim();
    assert_eq!(h.len(), 8);
    let text = std::fs::read_to_string(
        root.join("examples/catalog/providers/holidaykit-net/public-holidays.mjs"),
    )
    .unwrap();
    assert!(
        text.contains(&format!("schemaHash: '{h}'")),
        "the example's schemaHash is not {h}"
    );
    let bad = flowmcp(
        &[
            "hash",
            fixtures().join("LDR003/fail_syntax.mjs").to_str().unwrap(),
        ],
        &root,
    );
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("LDR003"));
    assert_eq!(flowmcp(&["hash", "nope.mjs"], &root).code, 2);
}

#[test]
fn sarif_output_is_sarif() {
    let file = fixtures().join("VAL014/fail_wrong_major.mjs");
    let r = flowmcp(
        &["validate", "--format", "sarif", file.to_str().unwrap()],
        &repo_root(),
    );
    assert_eq!(r.code, 1);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let result = &v["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "VAL014");
    assert_eq!(result["level"], "error");
    assert!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
            >= 1
    );
}

#[test]
fn each_command_shows_its_long_help() {
    for (command, says) in [
        ("call", "E001 upstream status"),
        ("list", "the missing variables are shown"),
        ("search", "an exact name beats an alias"),
        ("serve", "Streamable HTTP at /mcp"),
        ("validate", "Directories are walked recursively"),
    ] {
        let run = flowmcp(&[command, "--help"], &repo_root());
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        let text = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(says), "{command} --help:\n{}", run.stdout);
    }
}

/// A schema that needs two server parameters, `A_KEY` and `B_KEY`.
const KEYED: &str = "export const main = { namespace: 'keyed', name: 'Keyed', description: 'Needs \
    keys', version: '4.2.0', root: 'https://keyed.example', requiredServerParams: ['A_KEY', \
    'B_KEY'], headers: { 'X-A': '{{SERVER_PARAM:A_KEY}}', 'X-B': '{{SERVER_PARAM:B_KEY}}' }, \
    tools: { ping: { method: 'GET', path: '/ping', description: 'Ping', parameters: [], tests: [ \
    { _description: 'a' }, { _description: 'b' }, { _description: 'c' } ] } } }\n";

/// The server parameters `list --json` says the one tool of [`KEYED`] is missing.
fn missing_keys(run: &common::Run) -> Vec<String> {
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    v["tools"][0]["missingServerParams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// Issue #28, items 3/4: with the current directory `/` (as a desktop client starts flowmcp)
/// and the catalog by absolute path, the project's configuration and `.env` are found from the
/// catalog: the nearest `.flowmcp/` above it.
#[test]
fn i28_3_the_projects_config_and_env_are_found_from_the_catalog_not_the_cwd() {
    let dir = temp_dir("i28-3-project");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let proj = dir.join("proj");
    std::fs::create_dir_all(proj.join(".flowmcp")).unwrap();
    std::fs::create_dir_all(proj.join("cat")).unwrap();
    std::fs::write(proj.join("cat/keyed.mjs"), KEYED).unwrap();
    std::fs::write(
        proj.join(".flowmcp/config.json"),
        r#"{"serverParams": {"A_KEY": "from-config"}}"#,
    )
    .unwrap();
    std::fs::write(proj.join(".env"), "B_KEY=from-dot-env\n").unwrap();
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("A_KEY", ""),
        ("B_KEY", ""),
    ];
    let cat = proj.join("cat");
    let list = |cwd: &std::path::Path| {
        common::flowmcp_env(
            &[
                "list",
                "--json",
                "--profile",
                "compat",
                "--catalog",
                cat.to_str().unwrap(),
            ],
            cwd,
            &env,
        )
    };
    // From `/`, and from anywhere else, the same project.
    assert_eq!(
        missing_keys(&list(std::path::Path::new("/"))),
        Vec::<String>::new()
    );
    assert_eq!(missing_keys(&list(&home)), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue #28, items 3/4: a repository cannot move the project. The `catalog` its configuration
/// names is opened, but the project (its `.env`, resource folder) stays the one found from the
/// current directory: a catalog elsewhere does not bring that place's `.env` along. A catalog the
/// user names on the command line is the user's choice and does.
#[test]
fn i28_3_a_projects_catalog_setting_does_not_move_the_project() {
    let dir = temp_dir("i28-3-no-move");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let other = dir.join("other");
    std::fs::create_dir_all(other.join(".flowmcp")).unwrap();
    std::fs::create_dir_all(other.join("cat")).unwrap();
    std::fs::write(other.join("cat/keyed.mjs"), KEYED).unwrap();
    std::fs::write(other.join(".env"), "A_KEY=other-a\nB_KEY=other-b\n").unwrap();
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join(".flowmcp")).unwrap();
    std::fs::write(
        repo.join(".flowmcp/config.json"),
        serde_json::json!({"catalog": other.join("cat").to_str(), "profile": "compat"}).to_string(),
    )
    .unwrap();
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("A_KEY", ""),
        ("B_KEY", ""),
    ];
    let run = common::flowmcp_env(&["list", "--json"], &repo, &env);
    assert_eq!(missing_keys(&run), vec!["A_KEY", "B_KEY"]);
    // The user names it: its project is `other/` (which does not say compat; the flag does).
    let cat = other.join("cat");
    let run = common::flowmcp_env(
        &[
            "list",
            "--json",
            "--profile",
            "compat",
            "--catalog",
            cat.to_str().unwrap(),
        ],
        &repo,
        &env,
    );
    assert_eq!(missing_keys(&run), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue #28, item 7h: without a catalog (no --catalog, no path, no `catalog` in the
/// configuration) in a directory that is not one, the command says so in one line and what to
/// do (exit 2) instead of walking every file under it. A directory that is one (a `.mjs` file at
/// most two directories down, or a `registry.json`) is read as before.
#[test]
fn i28_7h_without_a_catalog_a_directory_that_is_not_one_is_refused_in_one_line() {
    let dir = temp_dir("i28-7h");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let repo = dir.join("repo");
    // Like a repository's test fixtures: schemas three directories down and deeper.
    for deep in ["crates/x/tests/a.mjs", "crates/y/tests/fixtures/b.mjs"] {
        let f = repo.join(deep);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, KEYED).unwrap();
    }
    let env = [("HOME", home.to_str().unwrap())];
    for args in [&["list"][..], &["call", "ping_keyed"], &["search", "ping"]] {
        let run = common::flowmcp_env(args, &repo, &env);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr.contains("no catalog") && run.stderr.contains("--catalog"),
            "{}",
            run.stderr
        );
    }
    // Named, it is read.
    let run = common::flowmcp_env(&["list", "--catalog", "."], &repo, &env);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // A catalog's own layout is recognised: providers/<namespace>/<file>.mjs.
    let cat = dir.join("cat");
    std::fs::create_dir_all(cat.join("providers/keyed")).unwrap();
    std::fs::write(cat.join("providers/keyed/keyed.mjs"), KEYED).unwrap();
    let run = common::flowmcp_env(&["list", "--profile", "compat"], &cat, &env);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("ping_keyed"), "{}", run.stdout);
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue #30, scope 1: `validate` keeps each file's report in the result cache of the user's
/// cache directory; the second run reads them, the output is byte for byte the one `--no-cache`
/// gives, and `flowmcp cache clear` empties it.
#[test]
fn i30_1_validate_reads_unchanged_files_from_the_result_cache() {
    let home = temp_dir("results-home");
    let env = [("HOME", home.to_str().unwrap()), ("FLOWMCP_STATS", "1")];
    let dir = fixtures().join("VAL014");
    let dir = dir.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["validate", "--format", "json", dir];
        args.extend_from_slice(extra);
        common::flowmcp_env(&args, &repo_root(), &env)
    };
    let first = run(&[]);
    assert!(first.stderr.contains("0 hits"), "{}", first.stderr);
    let second = run(&[]);
    assert!(second.stderr.contains(" 0 misses"), "{}", second.stderr);
    assert!(!second.stderr.contains(" 0 hits"), "{}", second.stderr);
    let fresh = run(&["--no-cache"]);
    assert!(
        fresh.stderr.contains("0 hits, 0 misses, 0 stored"),
        "{}",
        fresh.stderr
    );
    assert_eq!(first.stdout, fresh.stdout);
    assert_eq!(second.stdout, fresh.stdout);
    assert_eq!((first.code, second.code), (fresh.code, fresh.code));

    let results = home.join(".flowmcp/cache/.results");
    assert!(results.is_dir());
    let cleared = common::flowmcp_env(&["cache", "clear"], &repo_root(), &env);
    assert_eq!(cleared.code, 0, "{}", cleared.stderr);
    assert!(
        cleared.stdout.contains("cached validation results"),
        "{}",
        cleared.stdout
    );
    let third = run(&[]);
    assert!(third.stderr.contains("0 hits"), "{}", third.stderr);
}

/// Issue #31, item 2: a file inside a catalog is validated with its catalog, so the checks across
/// files run for it: a selection, an agent, an agent's prompt file and a skill that name what the
/// catalog does not have get the catalog's findings (SEL003; AGT007, AGT030, AGT016; PRM006;
/// SKL005), where they used to be "valid" alone; the whole catalog's validation has the same.
#[test]
fn i31_2_a_file_inside_a_catalog_gets_the_checks_across_files() {
    let dir = temp_dir("single-in-catalog");
    let cat = dir.join("cat");
    copy_tree(&repo_root().join("examples/catalog"), &cat);
    let edit = |rel: &str, from: &str, to: &str| {
        let p = cat.join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{rel}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    };
    edit(
        "selections/days-off/selection.mjs",
        "'holidaykit-net/tool/checkWorkingDay'",
        "'holidaykit-net/tool/noSuchTool'",
    );
    edit(
        "agents/holiday-planner/agent.mjs",
        "'holidaykit-net/tool/checkWorkingDay': null",
        "'holidaykit-net/tool/noSuchTool': null",
    );
    // The agent names a selection that does not exist, a prompt file that does not exist, and
    // one that does, whose `dependsOn` names a tool the catalog lacks.
    edit(
        "agents/holiday-planner/agent.mjs",
        "selections: [ 'trip-planning/selection/days-off' ]",
        "selections: [ 'trip-planning/selection/days-off', 'trip-planning/selection/gone' ]",
    );
    edit(
        "agents/holiday-planner/agent.mjs",
        "'holidaykit-net/prompt/about': null",
        "'holidaykit-net/prompt/about': null, plan: { file: './prompts/plan.mjs' }, gone: { file: './prompts/gone.mjs' }",
    );
    std::fs::create_dir_all(cat.join("agents/holiday-planner/prompts")).unwrap();
    std::fs::write(
        cat.join("agents/holiday-planner/prompts/plan.mjs"),
        "export const prompt = {\n    name: 'plan',\n    version: 'flowmcp-prompt/1.0.0',\n    agent: 'holiday-planner',\n    description: 'Plan the days off of a year',\n    testedWith: 'anthropic/claude-sonnet-4-5-20250929',\n    dependsOn: [ 'holidaykit-net/tool/noSuchTool' ],\n    references: [],\n    content: 'Use {{tool:holidaykit-net/getPublicHolidays}} for {{input:year}}.'\n}\n",
    )
    .unwrap();
    // The skill requires a tool its schema does not define.
    edit(
        "providers/holidaykit-net/skills/plan-long-weekends.mjs",
        "tools: [ 'getPublicHolidays', 'checkWorkingDay' ]",
        "tools: [ 'getPublicHolidays', 'noSuchTool' ]",
    );
    let env = [("HOME", dir.to_str().unwrap())];
    let cases: [(&str, &[&str]); 4] = [
        ("selections/days-off/selection.mjs", &["SEL003"]),
        (
            "agents/holiday-planner/agent.mjs",
            &["AGT007", "AGT030", "AGT016"],
        ),
        ("agents/holiday-planner/prompts/plan.mjs", &["PRM006"]),
        (
            "providers/holidaykit-net/skills/plan-long-weekends.mjs",
            &["SKL005"],
        ),
    ];
    for (rel, codes) in cases {
        let one = common::flowmcp_env(&["validate", &format!("cat/{rel}")], &dir, &env);
        assert_eq!(one.code, 1, "{rel}: {}{}", one.stdout, one.stderr);
        // From inside its directory, named as given.
        let name = rel.rsplit('/').next().unwrap();
        let here = cat.join(rel).parent().unwrap().to_path_buf();
        let inside = common::flowmcp_env(&["validate", name], &here, &env);
        for code in codes {
            assert!(
                one.stdout.contains(&format!("{code} error cat/{rel}")),
                "{rel}: {}",
                one.stdout
            );
            assert!(
                inside.stdout.contains(&format!("{code} error {name}")),
                "{rel}: {}",
                inside.stdout
            );
        }
    }
    let whole = common::flowmcp_env(&["validate", "--format", "json", "cat"], &dir, &env);
    for code in ["SEL003", "AGT007", "AGT030", "AGT016", "PRM006", "SKL005"] {
        assert!(whole.stdout.contains(code), "{code}: {}", whole.stdout);
    }
    // A file outside any catalog is validated alone, as before.
    let alone = common::flowmcp_env(
        &[
            "validate",
            "crates/flowmcp-validate/tests/fixtures/VAL014/pass.mjs",
        ],
        &repo_root(),
        &env,
    );
    assert_eq!(alone.code, 0, "{}{}", alone.stdout, alone.stderr);
    // A selection outside any catalog is valid alone, and says which checks it did not get
    // (CAT010), rather than a bare "valid".
    std::fs::copy(
        cat.join("selections/days-off/selection.mjs"),
        dir.join("selection.mjs"),
    )
    .unwrap();
    let outside = common::flowmcp_env(&["validate", "selection.mjs"], &dir, &env);
    assert_eq!(outside.code, 0, "{}{}", outside.stdout, outside.stderr);
    assert!(
        outside
            .stdout
            .contains("CAT010 info selection.mjs: Checks across files were not run (SEL003)"),
        "{}",
        outside.stdout
    );
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Issue #30, scope 1: `list` (and the other commands that open a catalog) keep each file's
/// validation in the result cache, and `--no-cache` leaves it alone.
#[test]
fn i30_1_list_uses_the_result_cache_unless_no_cache() {
    let home = temp_dir("results-list-home");
    let env = [("HOME", home.to_str().unwrap())];
    let dir = fixtures().join("VAL014");
    let dir = dir.to_str().unwrap();
    let results = home.join(".flowmcp/cache/.results");
    let off = common::flowmcp_env(&["list", "--json", "--no-cache", dir], &repo_root(), &env);
    assert_eq!(off.code, 0, "{}", off.stderr);
    assert!(!results.exists(), "--no-cache wrote {}", results.display());
    let on = common::flowmcp_env(&["list", "--json", dir], &repo_root(), &env);
    assert_eq!(on.code, 0, "{}", on.stderr);
    assert!(results.is_dir());
    assert_eq!(on.stdout, off.stdout);
}

/// Issue #31, item 6: the command forms the specification shows. `validate --security` reports
/// only what the security scan and loading find (SEC001 for an import; nothing for a file whose
/// findings are all VAL); `validate-agent` and `validate-catalog` are `validate`; `flowmcp dev test|grade|validate`
/// are the commands without `dev`.
#[test]
fn i31_6_the_specifications_command_forms() {
    let dir = temp_dir("command-forms");
    std::fs::write(
        dir.join("bad.mjs"),
        "import fs from 'node:fs'\nexport const main = { namespace: 'Bad', name: 'x' }\n",
    )
    .unwrap();
    let env = [("HOME", dir.to_str().unwrap())];
    let security = common::flowmcp_env(&["validate", "--security", "bad.mjs"], &dir, &env);
    assert_eq!(security.code, 1, "{}{}", security.stdout, security.stderr);
    assert!(
        security.stdout.contains("SEC001 error"),
        "{}",
        security.stdout
    );
    // A file with other findings but none of security: invalid in full, clean under `--security`.
    std::fs::write(
        dir.join("plain.mjs"),
        "export const main = { namespace: 'Bad', name: 'x' }\n",
    )
    .unwrap();
    let full = common::flowmcp_env(&["validate", "plain.mjs"], &dir, &env);
    assert_eq!(full.code, 1, "{}{}", full.stdout, full.stderr);
    assert!(full.stdout.contains("VAL0"), "{}", full.stdout);
    let clean = common::flowmcp_env(&["validate", "--security", "plain.mjs"], &dir, &env);
    assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);
    assert!(!clean.stdout.contains("VAL0"), "{}", clean.stdout);

    let catalog = repo_root().join("examples/catalog");
    let catalog = catalog.to_str().unwrap();
    let plain = common::flowmcp_env(&["validate", "--format", "json", catalog], &dir, &env);
    for form in [
        vec!["validate-catalog", "--format", "json", catalog],
        vec!["validate-agent", "--format", "json", catalog],
        vec!["dev", "validate", "--format", "json", catalog],
    ] {
        let out = common::flowmcp_env(&form, &dir, &env);
        assert_eq!(out.code, plain.code, "{form:?}: {}", out.stderr);
        assert_eq!(out.stdout, plain.stdout, "{form:?}");
    }
    let help = common::flowmcp_env(&["dev", "test", "--help"], &dir, &env);
    assert_eq!(help.code, 0, "{}", help.stderr);
    assert!(
        help.stdout.contains("Usage: flowmcp dev test"),
        "{}",
        help.stdout
    );
    let grade = common::flowmcp_env(&["dev", "grade", "--help"], &dir, &env);
    assert_eq!(grade.code, 0, "{}", grade.stderr);
}

/// Issue #31, item 6: `_lists/_registry.json` is written from the list files and checked
/// against chapter 03's three invariants — every list file has an entry, every entry has its
/// file, every hash is the file's — by `catalog lists --check` and `validate-lists`.
#[test]
fn i31_6_the_shared_list_registry_is_written_and_checked() {
    let dir = temp_dir("list-registry");
    let cat = dir.join("catalog");
    copy_tree(&repo_root().join("examples/catalog"), &cat);
    let registry = cat.join("_lists/_registry.json");
    let env = [("HOME", dir.to_str().unwrap())];
    // The example catalog ships a current registry.
    let shipped = common::flowmcp_env(&["validate-lists", "catalog"], &dir, &env);
    assert_eq!(shipped.code, 0, "{}{}", shipped.stdout, shipped.stderr);
    std::fs::remove_file(&registry).unwrap();
    let missing = common::flowmcp_env(&["validate-lists", "catalog"], &dir, &env);
    assert_eq!(missing.code, 1, "{}", missing.stdout);
    assert!(missing.stdout.contains("missing"), "{}", missing.stdout);
    assert!(!registry.exists(), "--check wrote");
    let wrote = common::flowmcp_env(&["catalog", "lists", "catalog"], &dir, &env);
    assert_eq!(wrote.code, 0, "{}{}", wrote.stdout, wrote.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&registry).unwrap()).unwrap();
    assert_eq!(v["lists"][0]["name"], "countries");
    assert_eq!(v["lists"][0]["file"], "_lists/countries.mjs");
    assert!(
        v["lists"][0]["hash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert!(v["lists"][0]["entryCount"].as_u64().unwrap() > 0);
    let current = common::flowmcp_env(&["catalog", "lists", "catalog", "--check"], &dir, &env);
    assert_eq!(current.code, 0, "{}", current.stdout);

    // A changed list, a new one, a removed one: each named.
    let languages = cat.join("_lists/languages.mjs");
    let text = std::fs::read_to_string(&languages).unwrap();
    std::fs::write(&languages, format!("{text}\n// edited\n")).unwrap();
    std::fs::copy(
        cat.join("_lists/countries.mjs"),
        cat.join("_lists/extra.mjs"),
    )
    .unwrap();
    std::fs::remove_file(cat.join("_lists/subdivisions.mjs")).unwrap();
    let broken = common::flowmcp_env(&["validate-lists", "catalog"], &dir, &env);
    assert_eq!(broken.code, 1, "{}", broken.stdout);
    for needle in [
        "_lists/languages.mjs: hash is",
        "_lists/extra.mjs: no entry in _registry.json",
        "_lists/subdivisions.mjs: listed in _registry.json, but there is no such file",
    ] {
        assert!(
            broken.stdout.contains(needle),
            "{needle}: {}",
            broken.stdout
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue #31 item 1: `flowmcp migrate`.

const MIGRATE_V1: &str = "// a 1.2.0 schema\nexport const schema = {\n    namespace: \"demo\",\n    name: \"Demo\",\n    description: \"A demo\",\n    flowMCP: \"1.2.0\",\n    root: \"https://api.example.com\",\n    routes: {\n        getThing: {\n            requestMethod: \"GET\",\n            description: \"Get a thing\",\n            route: \"/thing\",\n            parameters: [],\n            tests: [ { _description: \"one\" }, { _description: \"two\" }, { _description: \"three\" } ]\n        }\n    }\n}\n";
const MIGRATE_V2: &str = "export const main = {\n    namespace: 'demo',\n    name: 'Demo',\n    description: 'A demo',\n    version: '2.0.0',\n    root: 'https://api.example.com',\n    routes: {\n        getThing: {\n            method: 'GET',\n            description: 'Get a thing',\n            path: '/thing',\n            parameters: [],\n            tests: [ { _description: 'one' }, { _description: 'two' }, { _description: 'three' } ]\n        }\n    }\n}\n";

fn migrate_dir(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    std::fs::create_dir_all(dir.join("p/demo")).unwrap();
    std::fs::write(dir.join("p/demo/one.mjs"), MIGRATE_V1).unwrap();
    std::fs::write(dir.join("p/demo/two.mjs"), MIGRATE_V2).unwrap();
    std::fs::write(
        dir.join("p/demo/list.mjs"),
        "export const list = { meta: {}, entries: [] }\n",
    )
    .unwrap();
    dir
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn i31_1_migrate_all_reaches_a_valid_v4_schema_with_backups() {
    let dir = migrate_dir("migrate-all");
    let r = flowmcp(&["migrate", "--all", "p"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("p/demo/one.mjs: version 1 → 4"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("p/demo/two.mjs: version 2 → 4"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("  changed: `main.routes` became `main.tools`"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("review: meta drafted by migration"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "2 files migrated, 0 already at version 4 or newer, 1 skipped (not schema files), 0 failed"
        ),
        "{}",
        r.stdout
    );
    // The originals are kept, byte for byte.
    assert_eq!(
        std::fs::read_to_string(dir.join("p/demo/one.mjs.bak")).unwrap(),
        MIGRATE_V1
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("p/demo/two.mjs.bak")).unwrap(),
        MIGRATE_V2
    );
    let one = std::fs::read_to_string(dir.join("p/demo/one.mjs")).unwrap();
    assert!(
        one.starts_with("// a 1.2.0 schema\nexport const main = {\n"),
        "{one}"
    );
    assert!(one.contains("// REVIEW: meta drafted"), "{one}");
    // Both validate under spec (the drafted meta included).
    let v = flowmcp(&["validate", "p/demo/one.mjs", "p/demo/two.mjs"], &dir);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    // A second run has nothing to do.
    let again = flowmcp(&["migrate", "--all", "p"], &dir);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert!(
        again
            .stdout
            .contains("0 files migrated, 2 already at version 4"),
        "{}",
        again.stdout
    );
}

#[test]
fn i31_1_migrate_dry_run_prints_a_diff_and_changes_no_byte() {
    let dir = migrate_dir("migrate-dry");
    let before = snapshot(&dir);
    let r = flowmcp(&["migrate", "--all", "--dry-run", "p"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("--- p/demo/one.mjs\n+++ p/demo/one.mjs (migrated)\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("-export const schema = {\n+export const main = {\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("(dry run: nothing written)"),
        "{}",
        r.stdout
    );
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn i31_1_migrate_to_3_stops_before_meta() {
    let dir = migrate_dir("migrate-to3");
    let r = flowmcp(&["migrate", "--to", "3", "p/demo/two.mjs"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let two = std::fs::read_to_string(dir.join("p/demo/two.mjs")).unwrap();
    assert_eq!(
        two,
        MIGRATE_V2
            .replace("'2.0.0'", "'3.0.0'")
            .replace("routes:", "tools:")
    );
    // A file newer than the target is left alone, and is no failure.
    let r = flowmcp(&["migrate", "--to", "2", "p/demo/two.mjs"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("1 already at version 2 or newer"),
        "{}",
        r.stdout
    );
}

#[test]
fn i31_1_migrate_exits_1_when_a_file_cannot_be_migrated() {
    let dir = migrate_dir("migrate-fail");
    // A backup from an earlier run is never overwritten.
    std::fs::write(dir.join("p/demo/two.mjs.bak"), "old backup").unwrap();
    // Both `routes` and `tools`: a person has to merge them.
    std::fs::write(
        dir.join("p/demo/both.mjs"),
        MIGRATE_V2.replace("    routes:", "    tools: {},\n    routes:"),
    )
    .unwrap();
    let r = flowmcp(&["migrate", "--all", "p"], &dir);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("p/demo/both.mjs: FAILED: `main` has both `routes` and `tools`"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("p/demo/two.mjs: FAILED: p/demo/two.mjs.bak exists already"),
        "{}",
        r.stdout
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("p/demo/two.mjs")).unwrap(),
        MIGRATE_V2
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("p/demo/two.mjs.bak")).unwrap(),
        "old backup"
    );
    // A directory without --all is a usage error; a named non-schema file a failure.
    assert_eq!(flowmcp(&["migrate", "p"], &dir).code, 2);
    assert_eq!(flowmcp(&["migrate", "p/demo/list.mjs"], &dir).code, 1);
}

/// The 1.x handlers keep working after migration: the factory hands them the 1.x argument shape
/// (`payload` the request, `userParams` the inputs, `struct.data` the response).
/// Issue #31 item 1: a 1.x schema whose module-level code uses an imported list gets the list's
/// data copied in (only from inside the directory migrate runs in), and a schema with more than 8
/// tools is split into `-partN` files; every result validates under `compat`. A part file that
/// exists already stops the file, and nothing is written for it.
#[test]
fn i31_1_migrate_copies_imported_data_and_splits_large_schemas() {
    let dir = temp_dir("migrate-split");
    let p = dir.join("p");
    std::fs::create_dir_all(p.join("_shared")).unwrap();
    std::fs::create_dir_all(p.join("big")).unwrap();
    std::fs::write(
        p.join("_shared/chains.mjs"),
        "// chains\nconst CHAINS = [\n    { alias: 'ETH' },\n    { alias: 'BASE' }\n]\n\nexport { CHAINS }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("secret.mjs"),
        "const SECRET = [ 'not-for-migrate' ]\nexport { SECRET }\n",
    )
    .unwrap();
    let routes: String = (0..10)
        .map(|i| {
            format!(
                "        get{i}: {{\n            requestMethod: 'GET',\n            description: 'Thing {i} on a chain',\n            route: '/thing/{i}',\n            parameters: [ {{ position: {{ key: 'chain', value: '{{{{USER_PARAM}}}}', location: 'query' }}, z: {{ primitive: chainEnum, options: [] }} }} ],\n            tests: [ {{ _description: 'a', chain: 'ETH' }}, {{ _description: 'b', chain: 'BASE' }}, {{ _description: 'c', chain: 'ETH' }} ]\n        }}{}\n",
                if i < 9 { "," } else { "" }
            )
        })
        .collect();
    let big = format!(
        "import {{ CHAINS }} from '../_shared/chains.mjs'\n\nconst chainEnum = 'enum(' + CHAINS.map( ( c ) => c.alias ).join( ',' ) + ')'\n\nexport const schema = {{\n    namespace: 'big',\n    name: 'Big',\n    description: 'Ten tools',\n    flowMCP: '1.2.0',\n    root: 'https://api.example.com',\n    routes: {{\n{routes}    }}\n}}\n"
    );
    std::fs::write(p.join("big/big.mjs"), &big).unwrap();
    let leak = "import { SECRET } from '../../secret.mjs'\n\nexport const schema = {\n    namespace: 'leak',\n    name: 'Leak',\n    description: 'Imports from outside',\n    flowMCP: '1.2.0',\n    root: 'https://api.example.com',\n    routes: {}\n}\n";
    std::fs::create_dir_all(p.join("leak")).unwrap();
    std::fs::write(p.join("leak/leak.mjs"), leak).unwrap();

    let r = flowmcp(&["migrate", "--all", "."], &p);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("wrote ./big/big-part2.mjs (split off)"),
        "{}",
        r.stdout
    );
    let one = std::fs::read_to_string(p.join("big/big.mjs")).unwrap();
    let two = std::fs::read_to_string(p.join("big/big-part2.mjs")).unwrap();
    assert!(
        one.contains("const CHAINS = [\n    { alias: 'ETH' },"),
        "{one}"
    );
    assert!(
        two.contains("const CHAINS = [\n    { alias: 'ETH' },"),
        "{two}"
    );
    assert!(
        one.contains("        get4: {") && !one.contains("        get5: {"),
        "{one}"
    );
    assert!(
        two.contains("        get5: {") && !two.contains("        get4: {"),
        "{two}"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("big/big.mjs.bak")).unwrap(),
        big
    );
    // Nothing from outside the directory migrate runs in is copied.
    let leaked = std::fs::read_to_string(p.join("leak/leak.mjs")).unwrap();
    assert!(!leaked.contains("not-for-migrate"), "{leaked}");
    assert!(
        leaked.contains("// Original: import { SECRET } from '../../secret.mjs'"),
        "{leaked}"
    );

    let v = flowmcp(
        &["validate", "--no-cache", "--profile", "compat", "big"],
        &p,
    );
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);

    // A part file in the way: the file fails, and nothing of it is written.
    std::fs::write(p.join("big/big.mjs"), &big).unwrap();
    std::fs::remove_file(p.join("big/big.mjs.bak")).unwrap();
    std::fs::write(p.join("big/big-part2.mjs"), "// mine\n").unwrap();
    let r = flowmcp(&["migrate", "big/big.mjs"], &p);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("big-part2.mjs exists already"),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read_to_string(p.join("big/big.mjs")).unwrap(), big);
    assert_eq!(
        std::fs::read_to_string(p.join("big/big-part2.mjs")).unwrap(),
        "// mine\n"
    );
    assert!(!p.join("big/big.mjs.bak").exists());
}

/// Issue #31 item 1, chapter 08 steps 6 and 7: `migrate --all` writes `agent.mjs` next to a 2.x
/// agent `manifest.json` (kept), and rewrites `[[…]]` placeholders in prompt files; a second run
/// finds nothing to do.
#[test]
fn i31_1_migrate_converts_agent_manifests_and_prompt_placeholders() {
    let dir = temp_dir("migrate-agents");
    let agent_dir = dir.join("agents/crypto");
    std::fs::create_dir_all(agent_dir.join("prompts")).unwrap();
    let manifest = r#"{ "name": "crypto", "description": "Crypto", "model": "m", "version": "2.0.0", "systemPrompt": "You are…", "tools": [ "etherscan/getContractAbi" ], "prompts": [ { "name": "about", "file": "./prompts/about.mjs" } ], "tests": [ "a", "b", "c" ] }"#;
    std::fs::write(agent_dir.join("manifest.json"), manifest).unwrap();
    let prompt = "export const prompt = {\n    name: 'about',\n    content: 'Use [[etherscan/getContractAbi]] on [[address]]'\n}\n";
    std::fs::write(agent_dir.join("prompts/about.mjs"), prompt).unwrap();

    let r = flowmcp(&["migrate", "--all", "agents"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "agents/crypto/manifest.json: became agents/crypto/agent.mjs (the manifest is kept)"
        ),
        "{}",
        r.stdout
    );
    let agent = std::fs::read_to_string(agent_dir.join("agent.mjs")).unwrap();
    assert!(
        agent.contains("tools: { 'etherscan/tool/getContractAbi': null }"),
        "{agent}"
    );
    assert!(agent.contains("version: 'flowmcp/4.0.0'"), "{agent}");
    assert_eq!(
        std::fs::read_to_string(agent_dir.join("manifest.json")).unwrap(),
        manifest
    );
    let about = std::fs::read_to_string(agent_dir.join("prompts/about.mjs")).unwrap();
    assert!(
        about.contains("content: 'Use {{tool:etherscan/getContractAbi}} on {{input:address}}'"),
        "{about}"
    );
    assert_eq!(
        std::fs::read_to_string(agent_dir.join("prompts/about.mjs.bak")).unwrap(),
        prompt
    );
    let again = flowmcp(&["migrate", "--all", "agents"], &dir);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert!(
        again.stdout.starts_with("0 files migrated"),
        "{}",
        again.stdout
    );
}

#[test]
fn i31_1_migrated_v1_handlers_still_run() {
    use common::support::{Seen, TestServer, reply};
    let dir = temp_dir("migrate-run");
    std::fs::create_dir_all(dir.join("cat/demo")).unwrap();
    let v1 = "export const schema = {\n    namespace: \"demo\",\n    name: \"Demo\",\n    description: \"A demo\",\n    flowMCP: \"1.2.0\",\n    root: \"https://api.example.com\",\n    routes: {\n        getThing: {\n            requestMethod: \"GET\",\n            description: \"Get a thing\",\n            route: \"/thing\",\n            parameters: [\n                { position: { key: \"id\", value: \"{{USER_PARAM}}\", location: \"query\" }, z: { primitive: \"string()\", options: [] } }\n            ],\n            tests: [ { _description: \"one\", id: \"1\" }, { _description: \"two\", id: \"2\" }, { _description: \"three\", id: \"3\" } ],\n            modifiers: [ { phase: \"pre\", handlerName: \"tag\" }, { phase: \"post\", handlerName: \"shape\" } ]\n        }\n    },\n    handlers: {\n        tag: async ( { struct, payload, userParams } ) => {\n            payload.url = payload.url + '&from=' + userParams.id\n            return { struct, payload }\n        },\n        shape: async ( { struct, payload } ) => {\n            struct.data = { seen: struct.data.url, ok: struct.status }\n            return { struct, payload }\n        }\n    }\n}\n";
    std::fs::write(dir.join("cat/demo/thing.mjs"), v1).unwrap();
    let r = flowmcp(&["migrate", "cat/demo/thing.mjs"], &dir);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let server = TestServer::start(1, |seen: &Seen| {
        reply(
            200,
            Some("application/json"),
            serde_json::json!({ "url": seen.url }).to_string(),
        )
    });
    let upstream = format!("demo={}", server.base);
    let run = common::flowmcp_env(
        &[
            "call",
            "getThing_demo",
            "--catalog",
            "cat",
            "--upstream",
            &upstream,
            "--arg",
            "id=7",
        ],
        &dir,
        &[],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let e: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(e["data"]["seen"], "/thing?id=7&from=7", "{}", run.stdout);
    assert_eq!(e["data"]["ok"], true, "{}", run.stdout);
}

/// Issue #39, finding 6 (migrate): imported data is copied into a migrated file only from inside
/// the directory being migrated, wherever migrate runs. Before the fix the limit was the
/// *current* directory: run from above the catalog, migrate copied a module from outside it;
/// run from elsewhere with an absolute path, it copied nothing from inside it.
#[test]
fn i39_6_migrate_copies_imports_only_from_inside_the_migrated_directory() {
    let dir = temp_dir("i39-6-migrate-anchor");
    let with_import = |spec: &str| {
        MIGRATE_V1.replace(
            "// a 1.2.0 schema\n",
            &format!("import {{ EVM_CHAINS }} from '{spec}'\n// a 1.2.0 schema\n"),
        )
    };
    let module = "const EVM_CHAINS = [ { alias: 'ETH' } ]\nexport { EVM_CHAINS }\n";
    std::fs::create_dir_all(dir.join("work/p/demo")).unwrap();
    std::fs::create_dir_all(dir.join("work/p/_shared")).unwrap();
    std::fs::create_dir_all(dir.join("work/_outside")).unwrap();
    std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
    std::fs::write(dir.join("work/p/_shared/inside.mjs"), module).unwrap();
    std::fs::write(dir.join("work/_outside/outside.mjs"), module).unwrap();
    std::fs::write(
        dir.join("work/p/demo/in.mjs"),
        with_import("../_shared/inside.mjs"),
    )
    .unwrap();
    std::fs::write(
        dir.join("work/p/demo/out.mjs"),
        with_import("../../_outside/outside.mjs"),
    )
    .unwrap();
    let p = dir.join("work/p");
    let copied = |stdout: &str, file: &str| {
        stdout
            .split("\n--- ")
            .any(|part| part.contains(file) && part.contains("the data below was copied from"))
    };
    // From above the catalog (the outside module is under the current directory).
    let r = flowmcp(&["migrate", "--all", "--dry-run", "p"], &dir.join("work"));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(copied(&r.stdout, "in.mjs"), "{}", r.stdout);
    assert!(!copied(&r.stdout, "out.mjs"), "{}", r.stdout);
    // From an unrelated directory, with the catalog's absolute path: the same result.
    let r2 = flowmcp(
        &["migrate", "--all", "--dry-run", p.to_str().unwrap()],
        &dir.join("elsewhere"),
    );
    assert_eq!(r2.code, 0, "{}{}", r2.stdout, r2.stderr);
    assert!(copied(&r2.stdout, "in.mjs"), "{}", r2.stdout);
    assert!(!copied(&r2.stdout, "out.mjs"), "{}", r2.stdout);
}

/// Issue #39, finding 6 (migrate): the loader's cap on a file's size applies. Before the fix
/// migrate read a file of any size whole.
#[test]
fn i39_6_migrate_refuses_a_file_over_the_size_cap() {
    let dir = temp_dir("i39-6-migrate-cap");
    std::fs::create_dir_all(dir.join("p")).unwrap();
    let mut big = MIGRATE_V1.to_string();
    big.push_str(&"// padding\n".repeat(500_000));
    std::fs::write(dir.join("p/big.mjs"), &big).unwrap();
    let r = flowmcp(&["migrate", "p/big.mjs"], &dir);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("larger than the limit"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(dir.join("p/big.mjs")).unwrap(), big);
    assert!(!dir.join("p/big.mjs.bak").exists());
}
