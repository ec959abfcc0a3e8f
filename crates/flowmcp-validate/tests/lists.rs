//! Shared lists end to end: list files under `_lists/`, and the acceptance check against the older
//! community catalog (FlowMCP/flowmcp-schemas `schemas/v3.0.0/flowmcp-community/`), which runs when
//! that catalog is on disk (`FLOWMCP_COMMUNITY_DIR`, default `/work/scratch/community`) and is
//! skipped silently otherwise.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flowmcp_spec::{Code, Profile, RuleSettings};
use flowmcp_validate::lists::ListRef;
use flowmcp_validate::{Limits, Options};

/// Validates the file at `path` with the shared lists found next to it.
fn validate_path(path: &Path, display: &str, opts: &Options) -> flowmcp_spec::FileReport {
    let scope = flowmcp_validate::lists::scope_near(path, display, &opts.settings, &opts.limits);
    flowmcp_validate::validate_file(path, display, &scope, opts)
}

#[test]
fn a_list_file_without_a_list_export_is_lst001_not_ldr008() {
    let source = "export const items = { meta: {}, entries: [] }\n";
    let report = flowmcp_validate::validate_str(
        source,
        "catalog/_lists/items.mjs",
        &flowmcp_validate::ListScope::NotSearched,
        &Options::new(Profile::Spec),
    );
    let codes: Vec<Code> = report.diagnostics().iter().map(|d| d.code).collect();
    assert_eq!(report.kind().as_str(), "list");
    assert!(codes.contains(&Code::LST001), "{codes:?}");
    assert!(!codes.contains(&Code::LDR008), "{codes:?}");
}

fn community_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FLOWMCP_COMMUNITY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/scratch/community"));
    dir.join("_lists").is_dir().then_some(dir)
}

fn mjs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mjs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mjs") {
            out.push(p);
        }
    }
}

/// Every schema of the community catalog that declares shared lists resolves them from its
/// `_lists/`, with no list-registry diagnostic (VAL049, VAL072, VAL073, VAL088).
#[test]
fn community_schemas_resolve_their_shared_lists() {
    let Some(dir) = community_dir() else {
        return;
    };
    let registry = flowmcp_validate::lists::load_dir(
        &dir.join("_lists"),
        &RuleSettings::new(Profile::Compat),
        &Limits::default(),
    );
    assert!(registry.unloaded().is_empty(), "{:?}", registry.unloaded());
    let mut files = Vec::new();
    mjs_files(&dir.join("providers"), &mut files);
    let opts = Options::new(Profile::Compat);
    let mut declaring = 0;
    let mut problems = Vec::new();
    for path in &files {
        // A schema that declares shared lists names the key.
        if !std::fs::read_to_string(path).is_ok_and(|t| t.contains("sharedLists")) {
            continue;
        }
        let display = path.display().to_string();
        let report = validate_path(path, &display, &opts);
        if report.kind().as_str() != "schema" {
            continue;
        }
        let Some(main) = flowmcp_loader::load_file(
            path,
            &display,
            &Limits::default(),
            &RuleSettings::new(Profile::Compat),
        )
        .exports
        .and_then(|e| e.get("main").cloned()) else {
            continue;
        };
        let refs = ListRef::from_main(&main);
        if refs.is_empty() {
            continue;
        }
        declaring += 1;
        for d in report.diagnostics() {
            if matches!(
                d.code,
                Code::VAL049 | Code::VAL072 | Code::VAL073 | Code::VAL088
            ) {
                problems.push(format!("{display}: {} {}", d.code, d.message));
            }
        }
        let resolved = registry.resolve(&refs);
        if !resolved.is_ok() {
            problems.push(format!("{display}: {:?}", resolved.errors));
        }
        for r in &refs {
            if resolved.entries(&r.list).is_none_or(<[_]>::is_empty) {
                problems.push(format!("{display}: {} resolves to no entries", r.list));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(declaring, 34, "schemas declaring shared lists");
}

/// The community's list files (written for 3.x) pass LST001–LST011 except for one known defect:
/// their `meta.fields` entries have no `description` (LST005), which chapter 03 requires.
#[test]
fn community_lists_fail_only_on_field_descriptions() {
    let Some(dir) = community_dir() else {
        return;
    };
    let mut files = Vec::new();
    mjs_files(&dir.join("_lists"), &mut files);
    assert_eq!(files.len(), 7);
    let opts = Options::new(Profile::Spec);
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    for path in &files {
        let display = path.display().to_string();
        let report = validate_path(path, &display, &opts);
        assert_eq!(report.kind().as_str(), "list", "{display}");
        for d in report.diagnostics() {
            assert!(
                d.code == Code::LST005 && d.message == "Missing required field \"description\"",
                "{display}: unexpected {} {}",
                d.code,
                d.message
            );
            *per_file.entry(display.clone()).or_default() += 1;
        }
    }
    let total: usize = per_file.values().sum();
    assert_eq!(total, 37, "{per_file:?}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Issue #28 item 7b: a shared list with a missing comma cannot be loaded; every schema, list and
/// prompt that uses it still has its finding (a schema without its list is not callable), and each
/// names the file that would define the list as the cause.
#[test]
fn i28_7b_a_list_that_does_not_load_is_named_where_it_is_missing() {
    let home = std::env::temp_dir().join(format!("flowmcp-i28-7b-lists-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let dir = home.join("catalog");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/catalog"),
        &dir,
    );
    let list = dir.join("_lists/countries.mjs");
    let text = std::fs::read_to_string(&list).unwrap();
    std::fs::write(
        &list,
        text.replacen("version: '1.0.0',", "version: '1.0.0'", 1),
    )
    .unwrap();
    let reports = flowmcp_validate::validate_catalog(&dir, "catalog", &Options::new(Profile::Spec));
    let _ = std::fs::remove_dir_all(&home);
    let mut named = BTreeMap::new();
    for r in &reports {
        for d in r.diagnostics() {
            let text = format!("{} {}", d.message, d.help.as_deref().unwrap_or_default());
            if matches!(d.code, Code::VAL072 | Code::LST009 | Code::PRM009) {
                assert!(
                    text.contains("_lists/countries.mjs would define it, but it cannot be loaded"),
                    "{} {}: {text}",
                    d.code.as_str(),
                    r.file()
                );
                *named.entry(d.code.as_str()).or_insert(0) += 1;
            }
        }
    }
    assert_eq!(
        named,
        BTreeMap::from([("LST009", 1), ("PRM009", 1), ("VAL072", 2)])
    );
}

/// Issue 29, item 2 (lean validator): `validate_str` resolves nothing against the current
/// directory. A list given as a string is compared with the registry's list files by its name as
/// given; before, a relative name that led to the registry's file from the current directory made
/// the list that file, so LST002 depended on where the process ran.
#[test]
fn i29_2_a_list_from_a_string_is_not_found_through_the_current_directory() {
    // Cargo runs the tests in the crate's directory, so this name leads to the file from there.
    let rel = "tests/fixtures/VAL073/_lists/evm-chains.mjs";
    assert!(Path::new(rel).is_file());
    let source = std::fs::read_to_string(rel).unwrap();
    let opts = Options::new(Profile::Spec);
    let scope =
        flowmcp_validate::lists::scope_near(Path::new(rel), rel, &opts.settings, &opts.limits);
    let findings = |r: flowmcp_spec::FileReport| -> Vec<(Code, String)> {
        r.into_diagnostics()
            .into_iter()
            .map(|d| (d.code, d.message))
            .collect()
    };
    let here = flowmcp_validate::validate_str(&source, rel, &scope, &opts);
    let elsewhere =
        flowmcp_validate::validate_str(&source, "elsewhere/_lists/evm-chains.mjs", &scope, &opts);
    assert_eq!(findings(here), findings(elsewhere));
    // The file itself, validated as a file, is the registry's own list.
    let on_disk = flowmcp_validate::validate_file(Path::new(rel), rel, &scope, &opts);
    assert!(
        !on_disk.diagnostics().iter().any(|d| d.code == Code::LST002),
        "{on_disk:?}"
    );
}

/// Issue #31 item 5: a `handlers` factory that reads its lists is called once more with them
/// (VAL005 sees what it returns); under compat that evaluation has the load-time timers too, so a
/// module using `setTimeout` at its top level is checked like any other.
#[test]
fn i31_5_the_factory_rerun_with_lists_has_timers_under_compat() {
    let home = std::env::temp_dir().join(format!("flowmcp-i31-5-lists-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(home.join("_lists")).unwrap();
    std::fs::write(
        home.join("_lists/colors.mjs"),
        "export const list = {\n    meta: { name: 'colors', version: '1.0.0', description: 'Colors', \
         fields: [ { key: 'name', type: 'string', description: 'Name' } ] },\n    \
         entries: [ { name: 'red' }, { name: 'green' } ]\n}\n",
    )
    .unwrap();
    let schema = home.join("timers.mjs");
    std::fs::write(
        &schema,
        "await new Promise( ( resolve ) => setTimeout( resolve, 1 ) )\n\
         export const main = { namespace: 'tmr', name: 'T', description: 'd', version: '4.2.0',\n    \
         root: 'https://api.example.com', sharedLists: [ { ref: 'colors', version: '1.0.0' } ],\n    \
         tools: { get: { method: 'GET', path: '/get', description: 'd', parameters: [] } } }\n\
         export const handlers = ( { sharedLists } ) => {\n    \
         const first = sharedLists.colors[ 0 ].name\n    \
         return { [ first + 'Tool' ]: { postRequest: async ( { response } ) => ( { response } ) } }\n}\n",
    )
    .unwrap();
    let report = validate_path(&schema, "timers.mjs", &Options::new(Profile::Compat));
    let _ = std::fs::remove_dir_all(&home);
    let val005: Vec<&str> = report
        .diagnostics()
        .iter()
        .filter(|d| d.code == Code::VAL005)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        val005,
        vec![
            "Handler \"redTool\" does not match any tool in main.tools or resource in main.resources"
        ],
        "{:?}",
        report.diagnostics()
    );
}
