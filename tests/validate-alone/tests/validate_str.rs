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
        .diagnostics
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
    assert_eq!(report.file, "weather.mjs");
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
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.code)
        .collect();
    assert_eq!(warnings, vec![Code::VAL036, Code::TST001], "{report:?}");
    let d = report
        .diagnostics
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
