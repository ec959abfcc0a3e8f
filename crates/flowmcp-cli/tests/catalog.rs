//! `flowmcp validate <catalog>`, `flowmcp catalog hash` and `flowmcp catalog index [--check]` end to
//! end, on the example catalog and on copies of it in temporary directories.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use common::{copy_dir, repo_root, temp_dir};

fn flowmcp(args: &[&str], cwd: &Path) -> common::Run {
    common::flowmcp(args, cwd)
}

/// A copy of `examples/catalog` at `<tmp>/catalog` (the directory name is the catalog's name).
fn example_copy(test: &str) -> (PathBuf, PathBuf) {
    let base = temp_dir(test);
    let cat = base.join("catalog");
    copy_dir(&repo_root().join("examples/catalog"), &cat);
    (base, cat)
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn example_catalog_validates_under_spec() {
    let root = repo_root();
    let r = flowmcp(
        &["validate", "--profile", "spec", "examples/catalog"],
        &root,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // The one warning is RES040: the example's country database is inline on purpose (its
    // README says why).
    assert!(r.stdout.contains("0 errors, 1 warning,"), "{}", r.stdout);
    assert!(r.stdout.contains("RES040 warning"), "{}", r.stdout);

    let r = flowmcp(&["validate", "--format", "json", "examples/catalog"], &root);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let reports = v["reports"].as_array().unwrap();
    let files: Vec<(&str, &str)> = reports
        .iter()
        .map(|r| (r["file"].as_str().unwrap(), r["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        vec![
            ("examples/catalog/registry.json", "catalog"),
            ("examples/catalog/_lists/countries.mjs", "list"),
            ("examples/catalog/_lists/languages.mjs", "list"),
            ("examples/catalog/_lists/subdivisions.mjs", "list"),
            ("examples/catalog/agents/holiday-planner/agent.mjs", "agent"),
            (
                "examples/catalog/providers/atlasdata-org/countries.mjs",
                "schema"
            ),
            (
                "examples/catalog/providers/fieldnotes-app/notes.mjs",
                "schema"
            ),
            (
                "examples/catalog/providers/holidaykit-net/prompts/about.mjs",
                "content"
            ),
            (
                "examples/catalog/providers/holidaykit-net/prompts/bridge-days.mjs",
                "content"
            ),
            (
                "examples/catalog/providers/holidaykit-net/public-holidays.mjs",
                "schema"
            ),
            (
                "examples/catalog/providers/holidaykit-net/skills/plan-long-weekends.mjs",
                "skill"
            ),
            (
                "examples/catalog/providers/openshelf-org/books.mjs",
                "schema"
            ),
            (
                "examples/catalog/providers/skycast-io/forecast.mjs",
                "schema"
            ),
            (
                "examples/catalog/selections/days-off/selection.mjs",
                "selection"
            ),
        ]
    );
    assert!(reports.iter().all(|r| r["verdict"] == "valid"));
    assert_eq!(v["errors"], 0);
}

#[test]
fn example_catalog_index_is_current() {
    let root = repo_root();
    let r = flowmcp(&["catalog", "index", "--check", "examples/catalog"], &root);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("is up to date"), "{}", r.stdout);

    let r = flowmcp(&["catalog", "hash", "examples/catalog"], &root);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let registry = read_json(&root.join("examples/catalog/registry.json"));
    assert_eq!(r.stdout.trim(), registry["contentHash"].as_str().unwrap());
}

/// The example's contentHash, recomputed here from the chapter's recipe (independently of the
/// implementation's sorting and concatenation).
#[test]
fn example_content_hash_follows_the_recipe() {
    let root = repo_root().join("examples/catalog");
    let registry = read_json(&root.join("registry.json"));
    let mut paths: Vec<String> = Vec::new();
    for (section, key) in [
        ("shared", "file"),
        ("schemas", "file"),
        ("agents", "manifest"),
        ("selections", "file"),
    ] {
        for e in registry[section].as_array().into_iter().flatten() {
            paths.push(e[key].as_str().unwrap().to_string());
        }
    }
    paths.sort();
    let mut input = Vec::new();
    for p in &paths {
        input.extend_from_slice(p.as_bytes());
        input.push(b':');
        input.extend_from_slice(&std::fs::read(root.join(p)).unwrap());
        input.push(b'\n');
    }
    let r = flowmcp(&["catalog", "hash", s(&root)], &repo_root());
    assert_eq!(r.code, 0, "{}", r.stderr);
    // sha256sum of the concatenation, when the tool is available, as a second opinion.
    if let Ok(mut child) = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        let hex = String::from_utf8_lossy(&out.stdout);
        let hex = hex.split_whitespace().next().unwrap_or_default();
        assert_eq!(r.stdout.trim(), format!("sha256:{hex}"));
    }
}

#[test]
fn check_reports_changes_without_writing_and_index_fixes_them() {
    let (base, cat) = example_copy("check");
    let registry = cat.join("registry.json");
    let before = std::fs::read(&registry).unwrap();

    // A changed schema file: the contentHash is stale (CAT008), a new file is unlisted (CAT006).
    let schema = cat.join("providers/openshelf-org/books.mjs");
    let text = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(&schema, text.replace("Search words", "Words to search for")).unwrap();
    std::fs::copy(
        cat.join("providers/skycast-io/forecast.mjs"),
        cat.join("providers/skycast-io/forecast-extra.mjs"),
    )
    .unwrap();

    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let expected_hash = flowmcp(&["catalog", "hash", s(&cat)], &base);
    assert!(
        r.stdout
            .contains(&format!("CAT008 error {}/registry.json", cat.display()))
            && r.stdout.contains(expected_hash.stdout.trim()),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "File \"providers/skycast-io/forecast-extra.mjs\" is in the catalog but not listed"
        ),
        "{}",
        r.stdout
    );

    let r = flowmcp(&["catalog", "index", "--check", s(&cat)], &base);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("is out of date"), "{}", r.stdout);
    assert!(r.stdout.contains("~ contentHash:"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("+ schemas: providers/skycast-io/forecast-extra.mjs"),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read(&registry).unwrap(), before, "--check wrote");

    // The copy duplicates every tool ID of the original: index lists it, validation rejects it.
    let r = flowmcp(&["catalog", "index", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("Wrote"), "{}", r.stdout);
    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("Tool ID \"skycast-io/tool/getCurrentConditions\""),
        "{}",
        r.stdout
    );

    std::fs::remove_file(cat.join("providers/skycast-io/forecast-extra.mjs")).unwrap();
    let r = flowmcp(&["catalog", "index", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("- schemas: providers/skycast-io/forecast-extra.mjs"),
        "{}",
        r.stdout
    );
    let after = read_json(&registry);
    let original: Value = serde_json::from_slice(&before).unwrap();
    // Hand-written fields survive; only the hash changed.
    assert_eq!(after["description"], original["description"]);
    assert_ne!(after["contentHash"], original["contentHash"]);
    let r = flowmcp(&["catalog", "index", "--check", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let leftovers: Vec<_> = std::fs::read_dir(&cat)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn index_creates_a_registry_and_keeps_hand_written_fields() {
    let (base, cat) = example_copy("create");
    std::fs::remove_file(cat.join("registry.json")).unwrap();
    let r = flowmcp(&["catalog", "index", "--check", s(&cat)], &base);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(!cat.join("registry.json").exists());

    let r = flowmcp(&["catalog", "index", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let created = read_json(&cat.join("registry.json"));
    assert_eq!(created["name"], "catalog");
    assert_eq!(created["schemaSpec"], "4.2.0");
    let example = read_json(&repo_root().join("examples/catalog/registry.json"));
    for key in ["shared", "schemas", "agents", "contentHash"] {
        assert_eq!(created[key], example[key], "{key}");
    }

    // Hand edits: a description, an unknown field on an entry and on the top level.
    let mut edited = created.clone();
    edited["description"] = "Mine".into();
    edited["schemas"][0]["notes"] = "reviewed".into();
    edited["homepage"] = "https://example.org".into();
    std::fs::write(
        cat.join("registry.json"),
        serde_json::to_string(&edited).unwrap(),
    )
    .unwrap();
    // Formatting differs from what index writes, the content does not: nothing to do.
    let r = flowmcp(&["catalog", "index", "--check", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = flowmcp(&["catalog", "index", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("is up to date"), "{}", r.stdout);
    assert_eq!(read_json(&cat.join("registry.json")), edited);
    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn index_refuses_an_unreadable_registry() {
    let (base, cat) = example_copy("broken");
    std::fs::write(cat.join("registry.json"), "{ \"name\": ").unwrap();
    for args in [
        &["catalog", "index"][..],
        &["catalog", "index", "--check"][..],
    ] {
        let mut a = args.to_vec();
        a.push(s(&cat));
        let r = flowmcp(&a, &base);
        assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains("not valid JSON"), "{}", r.stderr);
    }
    assert_eq!(
        std::fs::read_to_string(cat.join("registry.json")).unwrap(),
        "{ \"name\": "
    );
    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("CAT001 error"), "{}", r.stdout);

    let missing = base.join("nowhere");
    assert_eq!(flowmcp(&["catalog", "index", s(&missing)], &base).code, 2);
    assert_eq!(flowmcp(&["catalog", "hash", s(&missing)], &base).code, 2);
    let empty = base.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let r = flowmcp(&["catalog", "hash", s(&empty)], &base);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);
    // Issue 29, item 4: the advice is the CLI's, and still printed.
    assert!(
        r.stderr.contains("(create it with `flowmcp catalog index "),
        "{}",
        r.stderr
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn paths_that_leave_the_catalog_are_errors() {
    let (base, cat) = example_copy("escape");
    std::fs::write(
        base.join("outside.mjs"),
        "export const list = { meta: {} }\n",
    )
    .unwrap();
    let registry = cat.join("registry.json");
    let mut v = read_json(&registry);
    v["shared"][0]["file"] = "../outside.mjs".into();
    v["schemas"][0]["file"] = s(&base.join("outside.mjs")).into();
    std::fs::write(&registry, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("CAT003 error")
            && r.stdout
                .contains("shared[0].file: Invalid path \"../outside.mjs\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("CAT004 error") && r.stdout.contains("absolute paths are forbidden"),
        "{}",
        r.stdout
    );
    let r = flowmcp(&["catalog", "hash", s(&cat)], &base);
    assert_eq!(r.code, 2, "{}", r.stdout);

    #[cfg(unix)]
    {
        // A symbolic link inside the catalog that leads out of it.
        let (base2, cat2) = example_copy("escape-link");
        std::fs::write(
            base2.join("outside.mjs"),
            "export const list = { meta: {} }\n",
        )
        .unwrap();
        std::os::unix::fs::symlink(base2.join("outside.mjs"), cat2.join("_lists/linked.mjs"))
            .unwrap();
        let registry = cat2.join("registry.json");
        let mut v = read_json(&registry);
        v["shared"][0]["file"] = "_lists/linked.mjs".into();
        std::fs::write(&registry, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        let r = flowmcp(&["validate", s(&cat2)], &base2);
        assert_eq!(r.code, 1, "{}", r.stdout);
        assert!(
            r.stdout.contains("leads outside the catalog"),
            "{}",
            r.stdout
        );
        // index leaves the link out (with a note) instead of listing it.
        let r = flowmcp(&["catalog", "index", s(&cat2)], &base2);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("leads outside the catalog"),
            "{}",
            r.stderr
        );
        let v = read_json(&registry);
        assert!(
            !v["shared"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["file"] == "_lists/linked.mjs"),
            "{v}"
        );
        let _ = std::fs::remove_dir_all(&base2);
    }
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_renamed_catalog_directory_is_cat002() {
    let base = temp_dir("rename");
    let cat = base.join("my-catalog");
    copy_dir(&repo_root().join("examples/catalog"), &cat);
    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "name: Must equal the catalog directory name \"my-catalog\" (found \"catalog\")"
        ),
        "{}",
        r.stdout
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// Issue #28, item 5: a copied catalog (`cp -r examples/catalog mycat`) keeps the name
/// "catalog". CAT002 says how to fix it; `catalog index` no longer answers "up to date" without
/// a word about it; `catalog index --rename` fixes it (and `--check --rename` reports it).
#[test]
fn i28_5_a_copied_catalog_is_explained_and_index_rename_fixes_it() {
    let base = temp_dir("i28-5-copy");
    let cat = base.join("mycat");
    copy_dir(&repo_root().join("examples/catalog"), &cat);
    let r = flowmcp(&["validate", "mycat"], &base);
    assert_eq!(r.code, 1, "{}", r.stdout);
    // Issue #29, scope 3 (D74): the validator's help states the fix; the CLI adds its command.
    assert!(
        r.stdout.contains(
            "help: set \"name\" to \"mycat\", or name the directory \"catalog\"\n    \
             run: `flowmcp catalog index mycat --rename` sets the name"
        ),
        "{}",
        r.stdout
    );
    let json = flowmcp(&["validate", "--format", "json", "mycat"], &base);
    assert_eq!(json.code, 1, "{}", json.stdout);
    assert!(
        json.stdout
            .contains("\"help\": \"set \\\"name\\\" to \\\"mycat\\\", or name the directory")
            && !json.stdout.contains("flowmcp catalog"),
        "{}",
        json.stdout
    );

    let r = flowmcp(&["catalog", "index", "mycat"], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("is up to date, but"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("\"catalog\", not the directory's name \"mycat\" (CAT002)")
            && r.stdout.contains("flowmcp catalog index mycat --rename"),
        "{}",
        r.stdout
    );
    assert_eq!(read_json(&cat.join("registry.json"))["name"], "catalog");

    let r = flowmcp(&["catalog", "index", "mycat", "--check", "--rename"], &base);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("~ name: \"catalog\" -> \"mycat\""),
        "{}",
        r.stdout
    );
    assert_eq!(read_json(&cat.join("registry.json"))["name"], "catalog");

    let r = flowmcp(&["catalog", "index", "mycat", "--rename"], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("Wrote "), "{}", r.stdout);
    let registry = read_json(&cat.join("registry.json"));
    assert_eq!(registry["name"], "mycat");
    // Only the name changed.
    let mut original = read_json(&repo_root().join("examples/catalog/registry.json"));
    original["name"] = Value::from("mycat");
    assert_eq!(registry, original);
    let r = flowmcp(&["validate", "mycat"], &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = flowmcp(&["catalog", "index", "mycat", "--check"], &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        r.stdout.trim_end(),
        format!(
            "{} is up to date",
            s(&Path::new("mycat").join("registry.json"))
        )
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// A directory laid out like the public schema collection's clone: a grading list as
/// `registry.json` at its root (the scoring protocol's fields, not chapter 15's) and the schema
/// files under `schemas/v4.0.0/providers/`. Two schemas with two tools and one with one.
fn grading_root(test: &str) -> (PathBuf, PathBuf) {
    let base = temp_dir(test);
    let root = base.join("flowmcp-schemas-public");
    let schema = |ns: &str, tools: &[&str]| {
        let tools: Vec<String> = tools
            .iter()
            .map(|t| {
                format!(
                    "{t}: {{ method: 'GET', path: '/{t}', description: 'Calls {t}', \
                     parameters: [], tests: [ {{ _description: 'a' }}, {{ _description: 'b' }}, \
                     {{ _description: 'c' }} ], meta: {{ isReadOnly: true, \
                     isConcurrencySafe: true, isDestructive: false, searchHint: 'x', \
                     aliases: [], alwaysLoad: false }} }}"
                )
            })
            .collect();
        format!(
            "export const main = {{ namespace: '{ns}', name: 'Demo', description: 'A demo', \
             version: '4.2.0', root: 'https://{ns}.example', tools: {{ {} }} }}\n",
            tools.join(", ")
        )
    };
    for (ns, tools) in [
        ("alpha", &["a1", "a2"][..]),
        ("beta", &["b1", "b2"]),
        ("gamma", &["g1"]),
    ] {
        let f = root.join(format!("schemas/v4.0.0/providers/{ns}/{ns}.mjs"));
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, schema(ns, tools)).unwrap();
    }
    let entries: Vec<Value> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|ns| {
            serde_json::json!({
                "schemaId": format!("{ns}/{ns}"),
                "schemaPath": format!("schemas/v4.0.0/providers/{ns}/{ns}.mjs"),
                "grade": "A", "score": 5, "scoringProtocol": "v1",
                "dimensions": [{"dimension": "whenToUse", "score": 5, "reasoning": "fine"}],
                "validationPassed": true
            })
        })
        .collect();
    std::fs::write(
        root.join("registry.json"),
        serde_json::to_string_pretty(&serde_json::json!({
            "version": "v4.0.0", "generatedAt": "2026-05-18T14:49:32.530Z", "totalSchemas": 3,
            "distribution": {"A": 3}, "schemas": entries
        }))
        .unwrap(),
    )
    .unwrap();
    (base, root)
}

/// Issue #28, item 6: the public collection's root (its `registry.json` is a grading list, not
/// a chapter-15 catalog) is served under `compat` as a directory of schemas, with one warning
/// that names the grading `registry.json`; under `spec` nothing is served and the problem names
/// the file and what to do, and `validate` says it once (CAT001) instead of once per entry.
#[test]
fn i28_6_a_grading_registry_is_read_as_a_directory_of_schemas_under_compat() {
    let (base, root) = grading_root("i28-6-grading");
    let dir = s(&root);
    let registry = root.join("registry.json");
    let named = |text: &str| {
        text.contains(s(&registry)) || text.contains("flowmcp-schemas-public/registry.json")
    };

    let r = flowmcp(&["list", "--json", "--profile", "compat", dir], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["tools"].as_array().unwrap().len(), 5, "{}", r.stdout);
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{}", r.stdout);
    assert!(named(problems[0]["file"].as_str().unwrap()), "{}", r.stdout);
    assert!(
        problems[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("warning: a grading list"),
        "{}",
        r.stdout
    );
    // Human output: the tools, and the one warning on standard error.
    let r = flowmcp(&["list", "--profile", "compat", dir], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("5 tools in 3 schemas"), "{}", r.stdout);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        named(&r.stderr) && r.stderr.contains("grading list"),
        "{}",
        r.stderr
    );

    // Under spec: nothing is served, and the problem says why and what to do.
    let r = flowmcp(&["list", "--json", dir], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["tools"].as_array().unwrap().len(), 0, "{}", r.stdout);
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{}", r.stdout);
    let message = problems[0]["message"].as_str().unwrap();
    assert!(named(problems[0]["file"].as_str().unwrap()), "{}", r.stdout);
    assert!(
        // Issue #29, scope 3 (D74): JSON carries the library's facts (the profile, not the flag).
        message.contains("grading list") && message.contains("the compat profile reads"),
        "{message}"
    );

    // validate under spec: one CAT001 naming the file and what to do, not one CAT004 per entry.
    let r = flowmcp(&["validate", "--format", "json", dir], &base);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let catalog = &v["reports"][0];
    assert!(named(catalog["file"].as_str().unwrap()), "{}", r.stdout);
    let diagnostics = catalog["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{}", r.stdout);
    assert_eq!(diagnostics[0]["code"], "CAT001");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("grading list"),
        "{}",
        r.stdout
    );
    assert!(
        diagnostics[0]["help"]
            .as_str()
            .unwrap()
            .contains("the compat profile reads"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("CAT004"), "{}", r.stdout);
    // Human output: the CLI adds its commands after the help (D74).
    let r = flowmcp(&["validate", dir], &base);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("    run: `flowmcp catalog index ")
            && r.stdout.contains("`flowmcp list --profile compat "),
        "{}",
        r.stdout
    );
    // validate under compat: the schema files, and the one warning.
    let r = flowmcp(&["validate", "--profile", "compat", dir], &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("CAT0"), "{}", r.stdout);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        named(&r.stderr) && r.stderr.contains("grading list"),
        "{}",
        r.stderr
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// Issue #39, finding 5: `registry.json` (and `_lists/_registry.json`) are read only as regular
/// files inside the catalog. Before the fix `catalog index` followed a `registry.json` that links
/// to a file of the user's (here a stand-in for `~/.docker/config.json`) and kept its unknown
/// members, so the user's credentials ended up in the manifest the user then commits.
#[test]
fn i39_5_a_linked_registry_is_never_read_into_the_index() {
    let (base, cat) = example_copy("linked-registry");
    let creds = base.join("docker-config.json");
    std::fs::write(
        &creds,
        r#"{"auths": {"registry.example": {"auth": "dXNlcjpTRUNSRVQtVE9LRU4="}}}"#,
    )
    .unwrap();
    std::fs::remove_file(cat.join("registry.json")).unwrap();
    std::os::unix::fs::symlink(&creds, cat.join("registry.json")).unwrap();
    let r = flowmcp(&["catalog", "index", s(&cat)], &base);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("symbolic link"), "{}", r.stderr);
    assert!(
        cat.join("registry.json")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
    assert!(!std::fs::read_to_string(&creds).unwrap().contains("schemas"));
    for entry in std::fs::read_dir(&cat).unwrap() {
        let path = entry.unwrap().path();
        if path.symlink_metadata().unwrap().is_file() {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                !text.contains("dXNlcjpTRUNSRVQtVE9LRU4="),
                "{}",
                path.display()
            );
        }
    }
    // Validation does not follow it either.
    let r = flowmcp(&["validate", s(&cat)], &base);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("CAT001"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("dXNlcjpTRUNSRVQtVE9LRU4="),
        "{}",
        r.stdout
    );

    // The list registry likewise.
    std::fs::remove_file(cat.join("registry.json")).unwrap();
    let lists = cat.join("_lists/_registry.json");
    let _ = std::fs::remove_file(&lists);
    std::os::unix::fs::symlink(&creds, &lists).unwrap();
    let r = flowmcp(&["catalog", "lists", s(&cat)], &base);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("symbolic link"), "{}", r.stderr);
    assert!(lists.symlink_metadata().unwrap().file_type().is_symlink());
    let _ = std::fs::remove_dir_all(&base);
}
