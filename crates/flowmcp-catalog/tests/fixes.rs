//! Issue 42: the fixes of every fixable code, tried on the validator's failing fixtures.
//!
//! For each `fail*.mjs` fixture of a code the registry's fix table lists: validate it (under the
//! fixture's profile), give the findings their fixes ([`migrate::attach_fixes`]) and apply every
//! fix, safe and unsafe, round after round as `validate --fix --unsafe-fixes` does. Where a
//! finding of the code had a fix, the fixed text must still load, have fewer findings of the code
//! and no more errors, and leave nothing more to fix; every code of the table must be fixed in at
//! least one fixture.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use flowmcp_catalog::migrate;
use flowmcp_spec::diagnostic::apply_fixes;
use flowmcp_spec::registry::fixes::FIXES;
use flowmcp_spec::{Code, FileReport, Profile, Severity};
use flowmcp_validate::Options;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../flowmcp-validate/tests/fixtures")
}

fn check(text: &str, path: &Path, opts: &Options) -> FileReport {
    let display = path.display().to_string();
    let scope = flowmcp_validate::lists::scope_near(path, &display, &opts.settings, &opts.limits);
    let mut report = flowmcp_validate::validate_str(text, &display, &scope, opts);
    migrate::attach_fixes(&mut report, text, &display, &scope, opts);
    report
}

fn of(report: &FileReport, code: Code) -> usize {
    report
        .diagnostics()
        .iter()
        .filter(|d| d.code == code)
        .count()
}

#[test]
fn i42_every_fixable_code_is_fixed_in_a_failing_fixture() {
    let codes: BTreeSet<Code> = FIXES.iter().map(|f| f.code).collect();
    let mut fixed_codes = BTreeSet::new();
    for code in &codes {
        let dir = fixtures().join(code.as_str());
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "mjs")
                    && p.file_name().unwrap().to_string_lossy().starts_with("fail")
            })
            .collect();
        files.sort();
        for path in files {
            let source = std::fs::read_to_string(&path).unwrap();
            let profile = if source.contains("// profile: compat") {
                Profile::Compat
            } else {
                Profile::Spec
            };
            let opts = Options::new(profile);
            let first = check(&source, &path, &opts);
            let with_fix = first
                .diagnostics()
                .iter()
                .filter(|d| d.code == *code && d.fix.is_some())
                .count();
            if with_fix == 0 {
                continue;
            }
            let mut text = source.clone();
            let mut report = first.clone();
            for _ in 0..8 {
                let (new, _) = apply_fixes(
                    &text,
                    report.diagnostics().iter().filter_map(|d| d.fix.as_ref()),
                );
                if new == text {
                    break;
                }
                text = new;
                report = check(&text, &path, &opts);
            }
            let name = path.display();
            assert_ne!(text, source, "{name}: nothing changed");
            assert!(
                of(&report, *code) < of(&first, *code),
                "{name}: {code} not fewer:\n{text}\n{:?}",
                report.diagnostics()
            );
            assert!(
                !report
                    .diagnostics()
                    .iter()
                    .any(|d| d.code.as_str().starts_with("LDR") && d.severity == Severity::Error),
                "{name}: does not load after its fixes:\n{text}"
            );
            assert!(
                report.counts().errors <= first.counts().errors,
                "{name}: more errors after its fixes:\n{text}\n{:?}",
                report.diagnostics()
            );
            assert!(
                report.diagnostics().iter().all(|d| d.fix.is_none()),
                "{name}: still something to fix:\n{text}\n{:?}",
                report.diagnostics()
            );
            fixed_codes.insert(*code);
        }
    }
    let missing: Vec<&Code> = codes.difference(&fixed_codes).collect();
    assert!(
        missing.is_empty(),
        "no failing fixture fixed for {missing:?}"
    );
}
