//! Rule fixtures: `tests/fixtures/<CODE>/{fail,pass}*.mjs`.
//!
//! Each fixture may start with directive comments:
//! - `// profile: compat` — the profile to validate under (default `spec`);
//! - `// max-file-size: N` — the file cap in bytes;
//! - `// database: SQL TARGET` — before validating, the fixture is copied into a fresh temporary
//!   directory and the SQL file `SQL` (a support file beside the fixture, e.g. `_sealed.sql`) is run
//!   into a new SQLite database at `TARGET` there (a path relative to the copy, e.g. `transit.db` or
//!   `resources/tokens.db`). Databases are built at test time, so none is committed;
//! - `// expect: CODE severity LOCATION` — one expected diagnostic of the directory's code, where
//!   LOCATION is a JSON pointer (`/main/version`), `line:col` (`3:1`, or `3:*` for any column) or `-`
//!   (no location).
//!
//! Entries whose names start with `_` (e.g. `fixtures/VAL072/_lists/`) are support files the fixtures
//! use, not fixtures.
//!
//! A fixture may also be a directory (a small catalog, validated with
//! `flowmcp_validate::catalog::validate_catalog_fixture`; its directives live in `fixture.txt` inside
//! it; with `// scope: files` it is validated whole with `flowmcp_validate::validate_catalog`,
//! and the diagnostics of every file count, as for the checks of prompts and skills across
//! files) or a `.id` file (its text is one ID, validated with `flowmcp_validate::validate_id`;
//! directives as in `.mjs` files, on lines starting with `//`).
//!
//! A `fail*` fixture must produce exactly its expected diagnostics of the directory's code; a `pass*`
//! fixture must produce none of that code and no errors at all. Every code the registry marks
//! `implemented` must have both kinds.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flowmcp_spec::{
    Code, Diagnostic, Profile, registry::Family, registry::RULES, registry::Status,
};
use flowmcp_validate::{Options, render};

/// Validates the file at `path` with the shared lists found next to it.
fn validate_path(path: &Path, display: &str, opts: &Options) -> flowmcp_spec::FileReport {
    let scope = flowmcp_validate::lists::scope_near(path, display, &opts.settings, &opts.limits);
    flowmcp_validate::validate_file(path, display, &scope, opts)
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

struct Fixture {
    code: String,
    name: String,
    path: PathBuf,
    profile: Profile,
    max_file_size: Option<u64>,
    expects: Vec<String>,
    /// `(SQL file beside the fixture, database path relative to the copy)`.
    databases: Vec<(String, String)>,
    /// A directory fixture validated whole (`// scope: files`).
    whole: bool,
}

/// Entries whose names start with `_` are support files, not fixtures: e.g. a `_lists/` directory
/// that the fixtures next to it (or below it) find by walking up.
fn is_support(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('_'))
}

fn load_fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !is_support(p))
        .collect();
    dirs.sort();
    for dir in dirs {
        let code = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| !is_support(p))
            .collect();
        files.sort();
        for path in files {
            let directives = if path.is_dir() {
                path.join("fixture.txt")
            } else {
                path.clone()
            };
            let bytes = std::fs::read(&directives).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            let mut f = Fixture {
                code: code.clone(),
                name: if path.is_dir() {
                    path.file_name().unwrap().to_string_lossy().to_string()
                } else {
                    path.file_stem().unwrap().to_string_lossy().to_string()
                },
                path: path.clone(),
                profile: Profile::Spec,
                max_file_size: None,
                expects: Vec::new(),
                databases: Vec::new(),
                whole: false,
            };
            for line in text.lines().take_while(|l| l.starts_with("//")) {
                let body = line.trim_start_matches('/').trim();
                if let Some(p) = body.strip_prefix("profile:") {
                    f.profile = p.trim().parse().unwrap();
                } else if let Some(n) = body.strip_prefix("max-file-size:") {
                    f.max_file_size = Some(n.trim().parse().unwrap());
                } else if let Some(e) = body.strip_prefix("expect:") {
                    f.expects.push(e.trim().to_string());
                } else if let Some(scope) = body.strip_prefix("scope:") {
                    f.whole = scope.trim() == "files";
                } else if let Some(d) = body.strip_prefix("database:") {
                    let (sql, target) = d.trim().split_once(' ').unwrap();
                    f.databases
                        .push((sql.trim().to_string(), target.trim().to_string()));
                }
            }
            out.push(f);
        }
    }
    out
}

fn display_name(f: &Fixture) -> String {
    match f.path.extension().and_then(|e| e.to_str()) {
        Some(ext) => format!("fixtures/{}/{}.{ext}", f.code, f.name),
        None => format!("fixtures/{}/{}", f.code, f.name),
    }
}

fn run(f: &Fixture) -> flowmcp_spec::FileReport {
    // Files on disk are checked as the catalog and the CLI check them.
    let mut opts = Options::new(f.profile);
    opts.files = Some(std::sync::Arc::new(flowmcp_resources::LocalFiles));
    if let Some(n) = f.max_file_size {
        opts.limits.max_file_bytes = n;
    }
    if f.path.is_dir() && f.whole {
        let reports = flowmcp_validate::validate_catalog(&f.path, &display_name(f), &opts);
        let diags = reports
            .into_iter()
            .flat_map(|r| r.into_diagnostics())
            .collect();
        return flowmcp_spec::FileReport::new(
            display_name(f),
            flowmcp_spec::diagnostic::ReportKind::Catalog,
            diags,
        );
    }
    if f.path.is_dir() {
        let diags = flowmcp_validate::catalog::validate_catalog_fixture(&f.path, &opts);
        return flowmcp_spec::FileReport::new(
            display_name(f),
            flowmcp_spec::diagnostic::ReportKind::Catalog,
            diags,
        );
    }
    if f.path.extension().is_some_and(|e| e == "id") {
        let text = std::fs::read_to_string(&f.path).unwrap();
        let id: String = text
            .lines()
            .filter(|l| !l.starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        return flowmcp_validate::validate_id(id.trim_end_matches('\n'), &opts);
    }
    if f.databases.is_empty() {
        return validate_path(&f.path, &display_name(f), &opts);
    }
    // A copy beside its databases, in a directory of its own.
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "flowmcp-fixture-{}-{}-{}",
        f.code,
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join(f.path.file_name().unwrap());
    std::fs::copy(&f.path, &copy).unwrap();
    for (sql, target) in &f.databases {
        let sql = std::fs::read_to_string(f.path.parent().unwrap().join(sql)).unwrap();
        let db = dir.join(target);
        std::fs::create_dir_all(db.parent().unwrap()).unwrap();
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(&sql).unwrap();
        conn.close().unwrap();
    }
    let report = validate_path(&copy, &display_name(f), &opts);
    let _ = std::fs::remove_dir_all(&dir);
    report
}

/// The location part of an expectation for a diagnostic.
fn matches(expect: &str, d: &Diagnostic) -> bool {
    let mut parts = expect.split_whitespace();
    let (Some(code), Some(sev), Some(loc)) = (parts.next(), parts.next(), parts.next()) else {
        panic!("malformed expectation {expect:?}");
    };
    if d.code.as_str() != code || d.severity.as_str() != sev {
        return false;
    }
    if loc == "-" {
        return d.pointer.is_none() && d.line.is_none();
    }
    if loc.starts_with('/') {
        return d.pointer.as_ref().map(|p| p.pointer()).as_deref() == Some(loc);
    }
    let (l, c) = loc.split_once(':').unwrap_or((loc, "*"));
    let line_ok = d.line.map(|x| x.to_string()).as_deref() == Some(l);
    let col_ok = c == "*" || d.column.map(|x| x.to_string()).as_deref() == Some(c);
    line_ok && col_ok
}

#[test]
fn every_fixture_behaves() {
    let mut failures = Vec::new();
    for f in load_fixtures() {
        let report = run(&f);
        let of_code: Vec<&Diagnostic> = report
            .diagnostics()
            .iter()
            .filter(|d| d.code.as_str() == f.code)
            .collect();
        let render = render::human(std::slice::from_ref(&report), render::HumanStyle::default());
        if f.name.starts_with("fail") {
            assert!(
                !f.expects.is_empty(),
                "{}: a fail fixture needs `// expect:` lines",
                display_name(&f)
            );
            let mut unmatched: Vec<&Diagnostic> = of_code.clone();
            for e in &f.expects {
                match unmatched.iter().position(|d| matches(e, d)) {
                    Some(i) => {
                        unmatched.remove(i);
                    }
                    None => failures.push(format!(
                        "{}: expected `{e}`, got:\n{render}",
                        display_name(&f)
                    )),
                }
            }
            for d in unmatched {
                failures.push(format!(
                    "{}: unexpected {:?}\n{render}",
                    display_name(&f),
                    d
                ));
            }
        } else if f.name.starts_with("pass") {
            if !of_code.is_empty() || report.counts().errors > 0 {
                failures.push(format!("{}: should pass, got:\n{render}", display_name(&f)));
            }
        } else {
            failures.push(format!(
                "{}: fixture names start with fail or pass",
                display_name(&f)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_implemented_code_has_fail_and_pass_fixtures() {
    let mut by_code: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for f in load_fixtures() {
        let e = by_code.entry(f.code.clone()).or_default();
        if f.name.starts_with("fail") {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    // Runtime codes (E001–E009, SEC100–SEC104) have their fixtures in the runtime crate, run by
    // its `fixtures` test; `tests/runtime-fixtures` is a link to them (a copy in the package).
    let runtime_dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime-fixtures");
    for code_dir in std::fs::read_dir(&runtime_dir)
        .expect("runtime fixtures")
        .flatten()
    {
        let code = code_dir.file_name().to_string_lossy().into_owned();
        let e = by_code.entry(code).or_default();
        for f in std::fs::read_dir(code_dir.path())
            .expect("code dir")
            .flatten()
        {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.starts_with("fail") && name.ends_with(".mjs") {
                e.0 += 1;
            } else if name.starts_with("pass") && name.ends_with(".mjs") {
                e.1 += 1;
            }
        }
    }
    let mut missing = Vec::new();
    // The markdown engine's codes (MD…) need a document and the agent runner's (AGENT…) a model
    // endpoint; their crates' tests check them (the rule pages say which).
    // LDR009 needs a build without the JavaScript engine, which this workspace's unified build is
    // not: `tests/validate-alone` checks it (`cargo test -p validate-alone` builds
    // flowmcp-validate with its `quickjs` feature off).
    let checked_elsewhere = |r: &&flowmcp_spec::registry::RuleInfo| {
        matches!(r.family, Family::Md | Family::Agent) || r.code == Code::LDR009
    };
    for r in RULES
        .iter()
        .filter(|r| r.status == Status::Implemented)
        .filter(|r| !checked_elsewhere(r))
    {
        match by_code.get(r.code.as_str()) {
            Some((fail, pass)) if *fail > 0 && *pass > 0 => {}
            other => missing.push(format!("{} {:?}", r.code, other)),
        }
    }
    assert!(
        missing.is_empty(),
        "implemented codes without fail+pass fixtures: {missing:?}"
    );
    for code in by_code.keys() {
        let c = Code::parse(code)
            .unwrap_or_else(|| panic!("fixture directory {code} is not a registry code"));
        assert_eq!(
            c.info().status,
            Status::Implemented,
            "{code} has fixtures but is not marked implemented"
        );
    }
}

#[test]
fn rendered_fail_fixtures_snapshot() {
    for f in load_fixtures()
        .into_iter()
        .filter(|f| f.name.starts_with("fail"))
    {
        let report = run(&f);
        let text = render::human(std::slice::from_ref(&report), render::HumanStyle::default());
        insta::assert_snapshot!(format!("{}__{}", f.code, f.name), text);
    }
}

/// Issue #29, scope 3 (D74): the validator's help texts state the action in the
/// specification's terms and name no `flowmcp` command or flag (a program that embeds the
/// validator has no `flowmcp` CLI; the CLI adds its commands when it renders).
#[test]
fn i29_3_no_help_text_names_a_cli_command_or_flag() {
    let mut seen = 0;
    for f in load_fixtures() {
        let report = run(&f);
        for d in report.diagnostics() {
            let Some(help) = &d.help else {
                continue;
            };
            seen += 1;
            assert!(
                !help.contains("`flowmcp ")
                    && !help.contains("flowmcp catalog")
                    && !help.contains(" --"),
                "{}: {} help names the CLI: {help}",
                display_name(&f),
                d.code
            );
        }
    }
    assert!(seen > 10, "only {seen} help texts seen");
}

#[test]
fn fifty_mib_file_is_ldr002() {
    let dir = std::env::temp_dir().join(format!("flowmcp-ldr002-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.mjs");
    let mut text = String::from("export const main = { data: '");
    text.push_str(&"x".repeat(50 * 1024 * 1024));
    text.push_str("' }\n");
    std::fs::write(&path, text).unwrap();
    let report = validate_path(&path, "huge.mjs", &Options::default());
    let _ = std::fs::remove_dir_all(&dir);
    let codes: Vec<_> = report.diagnostics().iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::LDR002]);
    assert_eq!(report.counts().errors, 1);
}
