//! Resource rules that look at files beside or outside the schema (RES020, RES032–RES035), the
//! shape of resource-query parameters (VAL040–VAL042) and TST001 for resource queries. Every
//! database is made at test time from SQL, in a temporary directory.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::{Path, PathBuf};
use std::sync::Arc;

use flowmcp_resources::LocalFiles;
use flowmcp_spec::Level;
use flowmcp_validate::{
    Code, Diagnostic, FileReport, ListScope, Options, Profile, validate_file, validate_str,
};

struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "flowmcp-validate-res-{label}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn make_db(path: &Path, sql: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(sql).unwrap();
    conn.close().unwrap();
}

/// The keys a sealed database's `meta` table must hold (the vocabulary's own list).
const REQUIRED: [&str; 10] = flowmcp_spec::gtfs::REQUIRED_META_KEYS;

/// A `meta` table (with the given column declaration) holding every required key;
/// `revision` is `specRevision`'s value.
fn sealed_sql(columns: &str, revision: &str) -> String {
    let mut sql = format!("CREATE TABLE meta ({columns});\n");
    for key in REQUIRED {
        let value = match key {
            "qualitySeal" => "sqlite-gtfs",
            "specRevision" => revision,
            _ => "x",
        };
        sql.push_str(&format!("INSERT INTO meta VALUES ('{key}', '{value}');\n"));
    }
    sql
}

/// A schema with a `sqlite-gtfs` resource at `path`.
fn gtfs_schema(path: &str) -> String {
    format!(
        "export const main = {{
    namespace: 'demo', name: 'Demo', description: 'Transit', version: '4.2.0', tools: {{}},
    resources: {{
        transit: {{ source: 'sqlite-gtfs', mode: 'file-based', path: '{path}',
            addon: 'gtfs-sqlite-toolkit', description: 'Transit timetable' }}
    }}
}}
"
    )
}

/// A schema with an in-memory `sqlite` resource at `origin`, whose query has `params` (JS text)
/// and `tests` test objects.
fn sqlite_schema(origin: &str, params: &str, tests: usize) -> String {
    let tests: Vec<String> = (0..tests)
        .map(|i| format!("{{ _description: 'Test {i}' }}"))
        .collect();
    format!(
        "export const main = {{
    namespace: 'demo', name: 'Demo', description: 'Tokens', version: '4.2.0', tools: {{}},
    resources: {{
        tokens: {{
            source: 'sqlite', mode: 'in-memory', origin: '{origin}', name: 'demo-tokens.db',
            description: 'Token metadata',
            queries: {{
                all: {{
                    sql: 'SELECT * FROM tokens',
                    description: 'Every token',
                    parameters: [{params}],
                    output: {{ mimeType: 'application/json', schema: {{ type: 'array' }} }},
                    tests: [{}]
                }}
            }}
        }}
    }}
}}
",
        tests.join(", ")
    )
}

/// The options of a validation of files on disk, as the catalog and the CLI give them: the file
/// checks of `flowmcp-resources`, no home directory and no `FLOWMCP_RESOURCES`.
fn disk_options() -> Options {
    {
        let mut built = Options::new(Profile::Spec);
        built.files = Some(Arc::new(LocalFiles));
        built
    }
}

fn write_and_validate(dir: &Path, source: &str) -> FileReport {
    write_and_validate_with(dir, source, &disk_options())
}

fn write_and_validate_with(dir: &Path, source: &str, opts: &Options) -> FileReport {
    let file = dir.join("demo.mjs");
    std::fs::write(&file, source).unwrap();
    validate_file(&file, "demo.mjs", &ListScope::NotSearched, opts)
}

fn of<'a>(report: &'a FileReport, code: &str) -> Vec<&'a Diagnostic> {
    report
        .diagnostics()
        .iter()
        .filter(|d| d.code.as_str() == code)
        .collect()
}

#[test]
fn a_sealed_database_gives_no_finding_and_stays_unchanged() {
    let dir = TempDir::new("sealed");
    let db = dir.0.join("data/transit.db");
    make_db(&db, &sealed_sql("key TEXT, value TEXT", "2026-04-27"));
    let before = std::fs::read(&db).unwrap();
    // Relative to the schema's directory, and absolute.
    for path in ["./data/transit.db".to_string(), db.display().to_string()] {
        let report = write_and_validate(&dir.0, &gtfs_schema(&path));
        for code in ["RES032", "RES033", "RES034", "RES035"] {
            assert!(of(&report, code).is_empty(), "{path}: {report:?}");
        }
        assert_eq!(report.counts().errors, 0, "{path}: {report:?}");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn seal_findings_name_the_path_as_written() {
    let dir = TempDir::new("seal");
    // Two columns with other names are read as key and value.
    make_db(
        &dir.0.join("positional.db"),
        &sealed_sql("k, v", "2026-04-27"),
    );
    let report = write_and_validate(&dir.0, &gtfs_schema("positional.db"));
    assert!(of(&report, "RES032").is_empty(), "{report:?}");

    make_db(
        &dir.0.join("other.db"),
        &sealed_sql("key, value", "2026-04-27").replace("'sqlite-gtfs'", "'netex'"),
    );
    let report = write_and_validate(&dir.0, &gtfs_schema("other.db"));
    let found = of(&report, "RES032");
    assert_eq!(found.len(), 1, "{report:?}");
    assert_eq!(
        found[0].path.as_deref(),
        Some("main.resources.transit.path")
    );
    assert!(found[0].message.contains("\"other.db\""), "{found:?}");
    assert!(found[0].message.contains("\"netex\""), "{found:?}");

    make_db(
        &dir.0.join("old.db"),
        &sealed_sql("key, value", "2025-06-01"),
    );
    let report = write_and_validate(&dir.0, &gtfs_schema("old.db"));
    let found = of(&report, "RES034");
    assert_eq!(found.len(), 1, "{report:?}");
    assert_eq!(found[0].severity.as_str(), "warning");
    assert_eq!(report.counts().errors, 0, "{report:?}");
}

#[test]
fn an_unopenable_database_is_res033_and_a_variable_shows_where_it_led() {
    let dir = TempDir::new("unopenable");
    let report = write_and_validate(&dir.0, &gtfs_schema("missing.db"));
    let found = of(&report, "RES033");
    assert_eq!(found.len(), 1, "{report:?}");
    assert!(found[0].message.contains("no file exists"), "{found:?}");
    assert!(found[0].help.is_none(), "{found:?}");
    // Nothing was created in its place.
    assert!(!dir.0.join("missing.db").exists());

    // `${FLOWMCP_RESOURCES}` resolves from what the options give: the variable, else the home
    // directory's default, else nothing (RES035).
    let schema = gtfs_schema("${FLOWMCP_RESOURCES}/flowmcp-test-surely-missing-7f3a.db");
    let variable = {
        let mut built = disk_options();
        built.resources_variable = Some(dir.0.join("from-variable").display().to_string());
        built
    };
    let home = {
        let mut built = disk_options();
        built.home = Some(dir.0.join("home"));
        built
    };
    for (opts, place) in [
        (&variable, "from-variable"),
        (&home, "home/.flowmcp/resources"),
    ] {
        let report = write_and_validate_with(&dir.0, &schema, opts);
        assert!(of(&report, "RES035").is_empty(), "{report:?}");
        let found = of(&report, "RES033");
        assert_eq!(found.len(), 1, "{report:?}");
        let help = found[0].help.as_deref().unwrap();
        assert!(
            help.ends_with(&format!("{place}/flowmcp-test-surely-missing-7f3a.db")),
            "{help}"
        );
    }
    let report = write_and_validate(&dir.0, &schema);
    assert_eq!(of(&report, "RES035").len(), 1, "{report:?}");
    assert!(of(&report, "RES033").is_empty(), "{report:?}");
}

#[test]
fn rules_that_are_off_leave_the_database_alone() {
    let dir = TempDir::new("off");
    let file = dir.0.join("demo.mjs");
    std::fs::write(&file, gtfs_schema("missing.db")).unwrap();
    let mut opts = disk_options();
    for code in [Code::RES032, Code::RES033, Code::RES034] {
        opts.settings.overrides.set(code, Level::Off);
    }
    let report = validate_file(&file, "demo.mjs", &ListScope::NotSearched, &opts);
    assert_eq!(report.counts().errors, 0, "{report:?}");
}

#[test]
fn a_schema_from_a_string_touches_no_files() {
    let opts = disk_options();
    let report = validate_str(
        &gtfs_schema("/nonexistent-flowmcp-test/transit.db"),
        "demo.mjs",
        &ListScope::NotSearched,
        &opts,
    );
    assert_eq!(report.counts().errors, 0, "{report:?}");
    let report = validate_str(
        &sqlite_schema("inline", "", 3),
        "demo.mjs",
        &ListScope::NotSearched,
        &opts,
    );
    assert!(of(&report, "RES020").is_empty(), "{report:?}");
    // The path variable needs no file: an unknown one is reported all the same.
    let report = validate_str(
        &gtfs_schema("${NOT_A_VAR}/transit.db"),
        "demo.mjs",
        &ListScope::NotSearched,
        &opts,
    );
    assert_eq!(of(&report, "RES035").len(), 1, "{report:?}");
}

#[test]
fn only_inline_databases_are_looked_for() {
    let dir = TempDir::new("inline");
    let report = write_and_validate(&dir.0, &sqlite_schema("inline", "", 3));
    let found = of(&report, "RES020");
    assert_eq!(found.len(), 1, "{report:?}");
    assert_eq!(found[0].severity.as_str(), "warning");
    assert!(
        found[0].message.contains("resources/demo-tokens.db"),
        "{found:?}"
    );
    make_db(
        &dir.0.join("resources/demo-tokens.db"),
        "CREATE TABLE tokens (symbol TEXT);",
    );
    let report = write_and_validate(&dir.0, &sqlite_schema("inline", "", 3));
    assert!(of(&report, "RES020").is_empty(), "{report:?}");
    // The SQL the runtime builds a missing inline database from is enough.
    let dir3 = TempDir::new("inline-sql");
    std::fs::create_dir_all(dir3.0.join("resources")).unwrap();
    std::fs::write(
        dir3.0.join("resources/demo-tokens.sql"),
        "CREATE TABLE tokens (symbol TEXT);",
    )
    .unwrap();
    let report = write_and_validate(&dir3.0, &sqlite_schema("inline", "", 3));
    assert!(of(&report, "RES020").is_empty(), "{report:?}");
    // A directory where the database should be is not a database.
    let dir2 = TempDir::new("inline-dir");
    std::fs::create_dir_all(dir2.0.join("resources/demo-tokens.db")).unwrap();
    let report = write_and_validate(&dir2.0, &sqlite_schema("inline", "", 3));
    assert_eq!(of(&report, "RES020").len(), 1, "{report:?}");
    // Global and project databases live on the machine that runs the schema: not checked.
    for origin in ["global", "project"] {
        let report = write_and_validate(&dir2.0, &sqlite_schema(origin, "", 3));
        assert!(of(&report, "RES020").is_empty(), "{origin}: {report:?}");
    }
}

#[test]
fn resource_parameters_need_a_position_with_string_key_and_value() {
    let opts = Options::new(Profile::Spec);
    let check = |params: &str| {
        let source = sqlite_schema("global", params, 3).replace(
            "SELECT * FROM tokens",
            &format!(
                "SELECT * FROM tokens WHERE {}",
                vec!["1 = ?"; params.matches("z:").count().max(1)].join(" AND ")
            ),
        );
        validate_str(&source, "demo.mjs", &ListScope::NotSearched, &opts)
    };
    let z = "z: { primitive: 'string()', options: [] }";
    let codes = |r: &FileReport| -> Vec<(String, String)> {
        r.diagnostics()
            .iter()
            .filter(|d| d.code.as_str().starts_with("VAL04"))
            .map(|d| {
                (
                    d.code.as_str().to_string(),
                    d.pointer.as_ref().unwrap().pointer(),
                )
            })
            .collect()
    };
    let base = "/main/resources/tokens/queries/all/parameters/0";
    let r = check(&format!(
        "{{ position: {{ key: 5, value: '{{{{USER_PARAM}}}}' }}, {z} }}"
    ));
    assert_eq!(
        codes(&r),
        vec![("VAL041".into(), format!("{base}/position/key"))]
    );
    let r = check(&format!(
        "{{ position: {{ key: '', value: '{{{{USER_PARAM}}}}' }}, {z} }}"
    ));
    assert_eq!(
        codes(&r),
        vec![("VAL041".into(), format!("{base}/position/key"))]
    );
    let r = check(&format!(
        "{{ position: {{ value: '{{{{USER_PARAM}}}}' }}, {z} }}"
    ));
    assert_eq!(
        codes(&r),
        vec![("VAL041".into(), format!("{base}/position/key"))]
    );
    let r = check(&format!(
        "{{ position: {{ key: 'symbol', value: 7 }}, {z} }}"
    ));
    assert_eq!(
        codes(&r),
        vec![("VAL042".into(), format!("{base}/position/value"))]
    );
    let r = check(&format!("{{ position: {{ key: 'symbol' }}, {z} }}"));
    assert_eq!(
        codes(&r),
        vec![("VAL042".into(), format!("{base}/position/value"))]
    );
    let r = check(&format!("{{ {z} }}"));
    assert_eq!(
        codes(&r),
        vec![("VAL040".into(), format!("{base}/position"))]
    );
    let r = check(&format!("{{ position: 'symbol', {z} }}"));
    assert_eq!(
        codes(&r),
        vec![("VAL040".into(), format!("{base}/position"))]
    );
    let r = check("'symbol'");
    assert_eq!(codes(&r), vec![("VAL040".into(), base.to_string())]);
    let r = check(&format!(
        "{{ position: {{ key: 'symbol', value: '{{{{USER_PARAM}}}}' }}, {z} }}"
    ));
    assert!(codes(&r).is_empty(), "{r:?}");
}

#[test]
fn queries_need_three_tests_and_none_at_all_is_res011_only() {
    let run = |tests: usize, profile: Profile| {
        validate_str(
            &sqlite_schema("global", "", tests),
            "demo.mjs",
            &ListScope::NotSearched,
            &Options::new(profile),
        )
    };
    for n in [1, 2] {
        let r = run(n, Profile::Spec);
        let found = of(&r, "TST001");
        assert_eq!(found.len(), 1, "{r:?}");
        assert_eq!(found[0].severity.as_str(), "error");
        assert_eq!(
            found[0].pointer.as_ref().unwrap().pointer(),
            "/main/resources/tokens/queries/all/tests"
        );
        let r = run(n, Profile::Compat);
        assert_eq!(of(&r, "TST001")[0].severity.as_str(), "warning");
    }
    let r = run(0, Profile::Spec);
    assert!(of(&r, "TST001").is_empty(), "{r:?}");
    assert_eq!(of(&r, "RES011").len(), 1, "{r:?}");
    let r = run(3, Profile::Spec);
    assert!(of(&r, "TST001").is_empty(), "{r:?}");
    assert_eq!(r.counts().errors, 0, "{r:?}");
}

/// Issue 29, item 2 (lean validator): `validate_str` never looks beside a file, so a schema of the
/// same name in the current directory (or at the name, when it is a path) changes nothing; before,
/// it gave an extra RES020.
#[test]
fn i29_2_validate_str_gives_the_same_findings_whatever_the_current_directory_holds() {
    let source = sqlite_schema("inline", "", 3);
    let opts = disk_options();
    let cwd = std::env::current_dir().unwrap();
    let name = format!("i29-same-name-{}.mjs", std::process::id());
    let before = validate_str(&source, &name, &ListScope::NotSearched, &opts);
    assert!(of(&before, "RES020").is_empty(), "{before:?}");

    // The same schema, same-named, in the current directory (its inline database is missing).
    struct Remove(PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let beside = Remove(cwd.join(&name));
    std::fs::write(&beside.0, &source).unwrap();
    let after = validate_str(&source, &name, &ListScope::NotSearched, &opts);
    assert_eq!(after.diagnostics(), before.diagnostics());

    // A name that is the path of that file is still only a name.
    let dir = TempDir::new("i29-name");
    let file = dir.0.join("demo.mjs");
    std::fs::write(&file, &source).unwrap();
    let as_name = file.display().to_string();
    let named = validate_str(&source, &as_name, &ListScope::NotSearched, &opts);
    assert!(of(&named, "RES020").is_empty(), "{named:?}");
    // The file itself, validated as a file, does get it.
    assert_eq!(of(&write_and_validate(&dir.0, &source), "RES020").len(), 1);
}

/// Issue 29, item 2: the validator reads no environment. `${FLOWMCP_RESOURCES}` resolves only
/// from `Options::resources_variable` and `Options::home`; without them it is RES035, whatever
/// `HOME` and `FLOWMCP_RESOURCES` of this process are.
#[test]
fn i29_2_the_path_variable_comes_from_the_options_not_the_environment() {
    let schema = gtfs_schema("${FLOWMCP_RESOURCES}/transit.db");
    let report = validate_str(
        &schema,
        "demo.mjs",
        &ListScope::NotSearched,
        &disk_options(),
    );
    assert_eq!(of(&report, "RES035").len(), 1, "{report:?}");
    for opts in [
        {
            let mut built = disk_options();
            built.home = Some(PathBuf::from("/home/ada"));
            built
        },
        {
            let mut built = disk_options();
            built.resources_variable = Some("/srv/data".to_string());
            built
        },
    ] {
        let report = validate_str(&schema, "demo.mjs", &ListScope::NotSearched, &opts);
        assert!(of(&report, "RES035").is_empty(), "{report:?}");
    }
    // An empty home directory or variable counts as unset, as an empty `HOME` did.
    let mut empty = disk_options();
    empty.home = Some(PathBuf::new());
    empty.resources_variable = Some(String::new());
    let report = validate_str(&schema, "demo.mjs", &ListScope::NotSearched, &empty);
    assert_eq!(of(&report, "RES035").len(), 1, "{report:?}");
}

/// Issue 29, item 2: without file checks in the options (`Options::files`), the checks that open
/// a database or look for one beside the schema do not run, even for a file on disk.
#[test]
fn i29_2_without_file_checks_no_database_is_looked_at() {
    let dir = TempDir::new("i29-no-checks");
    let plain = Options::new(Profile::Spec);
    let report = write_and_validate_with(&dir.0, &gtfs_schema("missing.db"), &plain);
    assert!(of(&report, "RES033").is_empty(), "{report:?}");
    let report = write_and_validate_with(&dir.0, &sqlite_schema("inline", "", 3), &plain);
    assert!(of(&report, "RES020").is_empty(), "{report:?}");
}
