//! The catalog's own operations on files one by one (issue #40: what programs used to reach
//! through pass-through modules of the lower crates): a schema file's hash, a graded file, the
//! reverse list index of a catalog directory, generated outputs written into a schema's text, the
//! libraries a catalog needs, and `.env` files.

use std::path::PathBuf;

use flowmcp_catalog::grading::{GradeError, GradedFile};
use flowmcp_catalog::libs::{self, InstallRefusal, LibraryState};
use flowmcp_catalog::serde_json::json;
use flowmcp_catalog::testing::{OutputEditError, SchemaTests};
use flowmcp_catalog::{CatalogOptions, ListDiscovery, Profile, ValidationOptions};
use flowmcp_spec::RuleSettings;
use flowmcp_validate::Limits;

use crate::common::examples;
use crate::support::copy_dir;

/// A fresh temporary directory for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flowmcp-ops-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn holidays() -> PathBuf {
    examples().join("providers/holidaykit-net/public-holidays.mjs")
}

#[test]
fn i40_schema_hash_file_is_the_stored_hash_and_reports_load_errors() {
    let opts = ValidationOptions::new(Profile::Compat);
    // The example file stores the hash of its `main`.
    let h = flowmcp_catalog::manifest::schema_hash_file(&holidays(), "p.mjs", &opts).unwrap();
    assert_eq!(h, "a1411451");
    let dir = temp("hash");
    let broken = dir.join("broken.mjs");
    std::fs::write(&broken, "export const main = {").unwrap();
    let report =
        flowmcp_catalog::manifest::schema_hash_file(&broken, "broken.mjs", &opts).unwrap_err();
    assert_eq!(report.file(), "broken.mjs");
    assert!(report.counts().errors > 0, "{:?}", report.diagnostics());
    let array = dir.join("array.mjs");
    std::fs::write(&array, "export const main = [1, 2]").unwrap();
    assert!(flowmcp_catalog::manifest::schema_hash_file(&array, "array.mjs", &opts).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i40_a_graded_file_is_validated_from_its_one_load() {
    let opts = ValidationOptions::new(Profile::Spec);
    let mut graded = GradedFile::load(&holidays(), "public-holidays.mjs", &opts).unwrap();
    assert_eq!(graded.schema().id, "holidaykit-net/public-holidays");
    let report = graded.validate(&opts);
    assert_eq!(report.counts().errors, 0, "{:?}", report.diagnostics());
    // A module without `main` is no schema, named as shown.
    let dir = temp("grade");
    let other = dir.join("list.mjs");
    std::fs::write(&other, "export const list = { meta: {} }").unwrap();
    match GradedFile::load(&other, "shown/list.mjs", &opts) {
        Err(GradeError::NotASchema(shown)) => assert_eq!(shown, "shown/list.mjs"),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i40_index_catalog_skips_underscore_entries_and_names_unloadable_files() {
    let dir = temp("refs");
    copy_dir(&examples(), &dir);
    // Skipped: a `_` folder and a `_` file, though both mention sharedLists and do not load.
    std::fs::create_dir_all(dir.join("providers/x/_drafts")).unwrap();
    std::fs::write(dir.join("providers/x/_drafts/a.mjs"), "sharedLists {").unwrap();
    std::fs::write(dir.join("providers/x/_b.mjs"), "sharedLists {").unwrap();
    // Named: a file that mentions sharedLists and does not load.
    std::fs::write(dir.join("providers/x/c.mjs"), "sharedLists {").unwrap();
    let settings = RuleSettings::new(Profile::Compat);
    let (index, skipped) =
        flowmcp_catalog::reverse::index_catalog(&dir, &settings, &Limits::default()).unwrap();
    assert_eq!(skipped, vec!["providers/x/c.mjs".to_string()]);
    let users: Vec<&str> = index
        .uses_of("countries")
        .iter()
        .map(|u| u.tool_id.as_str())
        .collect();
    assert!(
        users.contains(&"holidaykit-net/tool/getPublicHolidays"),
        "{users:?}"
    );
    assert!(
        flowmcp_catalog::reverse::index_catalog(
            &dir.join("missing"),
            &settings,
            &Limits::default()
        )
        .is_err()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i40_with_outputs_sets_outputs_rehashes_and_refuses_new_errors() {
    let dir = temp("outputs");
    copy_dir(&examples(), &dir);
    let path = dir.join("providers/holidaykit-net/public-holidays.mjs");
    let text = std::fs::read_to_string(&path).unwrap();
    let tests = SchemaTests {
        file: "public-holidays.mjs".into(),
        path: path.clone(),
        namespace: "holidaykit-net".into(),
        primitives: Vec::new(),
    };
    assert!(tests.generated_outputs().is_empty());
    let opts = ValidationOptions::new(Profile::Spec);
    let discovery = ListDiscovery::new();
    let output = json!({"mimeType": "application/json", "schema": {"type": "array", "items": {"type": "string"}}});
    let after = tests
        .with_outputs(&text, &[("listCountries", output)], &opts, &discovery)
        .unwrap();
    assert_ne!(after, text);
    assert!(
        after.contains("items: { type: 'string' }") || after.contains("\"string\""),
        "{after}"
    );
    // The stored hash now describes the new `main`, and everything else is kept.
    std::fs::write(&path, &after).unwrap();
    let hash = flowmcp_catalog::manifest::schema_hash_file(&path, "p.mjs", &opts).unwrap();
    assert_ne!(hash, "a1411451");
    assert!(after.contains(&format!("schemaHash: '{hash}'")), "{after}");
    assert!(after.contains("Lists every supported country"));
    // A tool that is not there, and an output that would not validate.
    let missing = tests.with_outputs(&text, &[("nope", json!({}))], &opts, &discovery);
    assert!(
        matches!(missing, Err(OutputEditError::Tool { ref route, .. }) if route == "nope"),
        "{missing:?}"
    );
    let bad = tests.with_outputs(
        &text,
        &[("listCountries", json!({"mimeType": 5}))],
        &opts,
        &discovery,
    );
    assert!(
        matches!(bad, Err(OutputEditError::Invalid(ref e)) if !e.is_empty()),
        "{bad:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i40_libs_needs_gives_each_librarys_state() {
    let dir = temp("libs");
    let schema = |name: &str, libs: &str| {
        let p = dir.join(name);
        std::fs::write(
            &p,
            format!(
                "export const main = {{ namespace: 'x', requiredLibraries: [{libs}], tools: {{}} }}"
            ),
        )
        .unwrap();
        (p, name.to_string())
    };
    let files = vec![
        schema("a.mjs", "'fs', 'left-pad', 'ethers'"),
        schema("b.mjs", "'ethers'"),
    ];
    let spec = libs::needs(&files, None, &ValidationOptions::new(Profile::Spec));
    assert_eq!(spec["fs"], (1, LibraryState::Builtin));
    assert_eq!(spec["left-pad"], (1, LibraryState::NotAllowlisted));
    assert_eq!(spec["ethers"], (2, LibraryState::Missing));
    // Under compat the allowlist is not asked; an empty library directory has nothing.
    let npm = dir.join("npm");
    std::fs::create_dir_all(npm.join("node_modules")).unwrap();
    let compat = libs::needs(&files, Some(&npm), &ValidationOptions::new(Profile::Compat));
    assert_eq!(compat["left-pad"], (1, LibraryState::Missing));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i40_check_install_refuses_builtins_and_what_is_not_a_registry_package() {
    assert!(libs::check_install("ethers@6.17.0").is_ok());
    assert!(libs::check_install("@scope/pkg").is_ok());
    assert_eq!(
        libs::check_install("node:fs"),
        Err(InstallRefusal::Builtin("node:fs".into()))
    );
    for bad in [
        "--ignore-scripts=false",
        "https://x.test/a.tgz",
        "file:../x",
        "git+ssh://x",
    ] {
        assert!(
            matches!(libs::check_install(bad), Err(InstallRefusal::Spec(_))),
            "{bad}"
        );
    }
}

#[test]
fn i40_read_env_file_reads_key_value_lines() {
    let dir = temp("env");
    let file = dir.join(".env");
    std::fs::write(&file, "# note\nA=1\n B = two words \nnot a pair\nA=3\n").unwrap();
    let values = CatalogOptions::read_env_file(&file).unwrap();
    assert_eq!(values.get("A").map(String::as_str), Some("3"));
    assert_eq!(values.get("B").map(String::as_str), Some("two words"));
    assert_eq!(values.len(), 2);
    assert!(CatalogOptions::read_env_file(&dir.join("missing")).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
