//! Validating a string with `flowmcp-validate` alone: no file, no other crate, no disk walk.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use flowmcp_validate::{Code, ListScope, Options, Profile, Severity, validate_str};

const VALID: &str = r#"export const main = {
    namespace: 'weatherdemo',
    name: 'Weather demo',
    description: 'Current weather for a city',
    version: '4.2.0',
    root: 'https://api.example.com',
    tools: {
        getCurrent: {
            method: 'GET',
            path: '/current',
            description: 'Current weather for a city',
            parameters: [
                { position: { key: 'city', value: '{{USER_PARAM}}', location: 'query' },
                  z: { primitive: 'string()', options: [ 'min(1)' ] } }
            ],
            tests: [ { _description: 'Berlin', city: 'Berlin' } ]
        }
    }
}
"#;

fn errors(report: &flowmcp_validate::FileReport) -> Vec<Code> {
    report
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code)
        .collect()
}

#[test]
fn a_schema_without_errors_under_compat() {
    let report = validate_str(
        VALID,
        "weather.mjs",
        &ListScope::NotSearched,
        &Options::new(Profile::Compat),
    );
    assert_eq!(errors(&report), Vec::<Code>::new(), "{report:?}");
    assert_eq!(report.file(), "weather.mjs");
}

#[test]
fn errors_are_found_and_filtered_by_severity() {
    let broken = VALID.replace("version: '4.2.0'", "version: '1.0.0'");
    let report = validate_str(
        &broken,
        "weather.mjs",
        &ListScope::NotSearched,
        &Options::new(Profile::Compat),
    );
    let errors = errors(&report);
    assert_eq!(errors, vec![Code::VAL014], "{report:?}");
    // Warnings are reported too (no output schema, fewer than three tests), and are not errors.
    let warnings: Vec<Code> = report
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.code)
        .collect();
    assert_eq!(warnings, vec![Code::VAL036, Code::TST001], "{report:?}");
    let d = report
        .diagnostics()
        .iter()
        .find(|d| d.code == Code::VAL014)
        .unwrap();
    assert_eq!(d.line, Some(5), "the finding points at the version line");
}

#[test]
fn a_hostile_string_is_a_finding_not_a_crash() {
    let report = validate_str(
        "import fs from 'fs'\nexport const main = {}",
        "x.mjs",
        &ListScope::NotSearched,
        &Options::new(Profile::Spec),
    );
    assert!(errors(&report).contains(&Code::SEC001), "{report:?}");
}

/// Issue 29, item 2 (lean validator): `flowmcp-validate` is a lean leaf. Its normal dependencies
/// hold no SQLite, `url` or `base64` (the checks that open databases come in
/// `Options::files`), and its sources read no environment (`HOME` and `FLOWMCP_RESOURCES` come
/// in `Options`).
#[test]
fn i29_2_flowmcp_validate_pulls_no_sqlite_url_or_base64_and_reads_no_environment() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(&workspace)
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "flowmcp-validate",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let heavy: Vec<&str> = tree
        .lines()
        .filter(|l| {
            let name = l.split_whitespace().next().unwrap_or("");
            [
                "rusqlite",
                "libsqlite3-sys",
                "url",
                "base64",
                "flowmcp-resources",
            ]
            .contains(&name)
        })
        .collect();
    assert!(heavy.is_empty(), "{heavy:?}");

    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    sources(&workspace.join("crates/flowmcp-validate/src"), &mut files);
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        // A file's unit-test module (its last item) may use a temporary directory; the product
        // code before it may not read the environment.
        let product = text
            .find("#[cfg(test)]\nmod tests {")
            .map_or(text.as_str(), |at| &text[..at]);
        assert!(
            !product.contains("std::env"),
            "{} reads the environment",
            f.display()
        );
    }
}

/// Issue #40 (features): with the JavaScript engine (the default, and any build that unifies
/// features with a crate that needs it, as `cargo test --workspace` does) a module with handlers is
/// evaluated and checked in full; without it (`cargo test -p validate-alone` builds
/// flowmcp-validate with its defaults off) it gets LDR009 after the static scan, and nothing else,
/// while a data-only module is checked the same either way.
#[test]
fn i40_a_module_with_code_is_checked_in_full_only_with_the_engine() {
    let with_handlers = VALID.replace("version: '4.2.0'", "version: '1.0.0'")
        + "\nexport const handlers = ({ sharedLists, libraries }) => ({})\n";
    let report = validate_str(
        &with_handlers,
        "weather.mjs",
        &ListScope::NotSearched,
        &Options::new(Profile::Compat),
    );
    let codes: Vec<Code> = report.diagnostics().iter().map(|d| d.code).collect();
    if flowmcp_validate::JAVASCRIPT_ENGINE {
        assert!(!codes.contains(&Code::LDR009), "{report:?}");
        assert!(codes.contains(&Code::VAL014), "{report:?}");
    } else {
        assert_eq!(errors(&report), vec![Code::LDR009], "{report:?}");
        let d = &report.diagnostics()[0];
        assert!(d.message.contains("quickjs"), "{}", d.message);
        assert!(
            d.message.contains("SEC017"),
            "the skipped checks are named: {}",
            d.message
        );
    }
    // The static scan runs in both builds.
    let hostile = format!("import fs from 'fs'\n{with_handlers}");
    let report = validate_str(
        &hostile,
        "x.mjs",
        &ListScope::NotSearched,
        &Options::new(Profile::Spec),
    );
    assert!(
        errors(&report)
            .iter()
            .any(|c| c.as_str().starts_with("SEC")),
        "{report:?}"
    );
    assert!(
        !errors(&report).contains(&Code::LDR009),
        "a file that fails the scan is not evaluated in any build: {report:?}"
    );
    // A data-only module: the same findings in both builds (VAL014 only, as above).
    let broken = VALID.replace("version: '4.2.0'", "version: '1.0.0'");
    let report = validate_str(
        &broken,
        "weather.mjs",
        &ListScope::NotSearched,
        &Options::new(Profile::Compat),
    );
    assert_eq!(errors(&report), vec![Code::VAL014], "{report:?}");
}
