#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `sqlite-gtfs`: resolving `${FLOWMCP_RESOURCES}`, checking the seal of a database, and the
//! expected range of `specRevision`. Every database is made at test time from SQL, in a
//! temporary directory.

use crate::common;

use common::{TempDir, make_db};
use std::path::{Path, PathBuf};

use flowmcp_resources::gtfs::{
    EARLIEST_SPEC_REVISION, PathVarError, REQUIRED_META_KEYS, SUPPORTED_SPEC_REVISION, SealError,
    check_seal, resolve_path, spec_revision_in_range,
};

/// SQL for a `meta (key, value)` table with every required key; `seal` and `revision` replace
/// the two values that are checked, and keys in `skip` are left out.
fn meta_sql(seal: &str, revision: &str, skip: &[&str]) -> String {
    let mut sql = String::from("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);\n");
    for key in REQUIRED_META_KEYS {
        if skip.contains(&key) {
            continue;
        }
        let value = match key {
            "qualitySeal" => seal.to_owned(),
            "specRevision" => revision.to_owned(),
            other => format!("'{other} value'"),
        };
        sql.push_str(&format!("INSERT INTO meta VALUES ('{key}', {value});\n"));
    }
    sql.push_str("CREATE TABLE stops (stop_id TEXT, stop_name TEXT);\n");
    sql
}

fn sealed_sql() -> String {
    meta_sql("'sqlite-gtfs'", "'2026-04-27'", &[])
}

#[test]
fn the_variable_comes_from_the_given_value_first() {
    let p = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", Some("/srv/data"), None).unwrap();
    assert_eq!(p, PathBuf::from("/srv/data/gtfs-de.db"));
    // The home directory does not matter when the value is given.
    let p = resolve_path(
        "${FLOWMCP_RESOURCES}/gtfs-de.db",
        Some("/srv/data"),
        Some(Path::new("/home/ada")),
    )
    .unwrap();
    assert_eq!(p, PathBuf::from("/srv/data/gtfs-de.db"));
}

#[test]
fn an_unset_or_empty_variable_falls_back_to_the_home_default() {
    let home = Path::new("/home/ada");
    let expected = PathBuf::from("/home/ada/.flowmcp/resources/gtfs-de.db");
    for env in [None, Some("")] {
        let p = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", env, Some(home)).unwrap();
        assert_eq!(p, expected, "{env:?}");
    }
}

#[test]
fn no_variable_and_no_home_is_res035() {
    for env in [None, Some("")] {
        let e = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", env, None).unwrap_err();
        assert_eq!(e, PathVarError::Unresolved);
        assert_eq!(e.code().as_str(), "RES035");
        assert!(e.to_string().contains("${FLOWMCP_RESOURCES}"), "{e}");
    }
}

#[test]
fn other_variables_and_unclosed_ones_are_res035() {
    let e = resolve_path("${NOT_A_VAR}/gtfs.db", Some("/srv"), None).unwrap_err();
    assert_eq!(
        e,
        PathVarError::Unknown {
            name: "NOT_A_VAR".into()
        }
    );
    assert_eq!(e.code().as_str(), "RES035");
    assert!(e.to_string().contains("${NOT_A_VAR}"), "{e}");
    // The name is matched exactly, case included.
    let e = resolve_path("${flowmcp_resources}/gtfs.db", Some("/srv"), None).unwrap_err();
    assert_eq!(e.code().as_str(), "RES035");
    // A second variable is checked too.
    let e = resolve_path("${FLOWMCP_RESOURCES}/${HOME}/x.db", Some("/srv"), None).unwrap_err();
    assert!(matches!(e, PathVarError::Unknown { .. }), "{e:?}");
    let e = resolve_path("${FLOWMCP_RESOURCES/x.db", Some("/srv"), None).unwrap_err();
    assert_eq!(e, PathVarError::Unterminated);
    assert_eq!(e.code().as_str(), "RES035");
    let e = resolve_path("${}/x.db", Some("/srv"), None).unwrap_err();
    assert_eq!(e, PathVarError::Unknown { name: "".into() });
}

#[test]
fn paths_without_variables_are_kept_as_written() {
    for path in [
        "/data/gtfs.db",
        "relative/gtfs.db",
        "/data/$HOME/x.db",
        "/a/$/b{c}.db",
    ] {
        assert_eq!(
            resolve_path(path, None, None).unwrap(),
            PathBuf::from(path),
            "{path}"
        );
    }
    // The variable may appear anywhere, and more than once.
    let p = resolve_path(
        "/x/${FLOWMCP_RESOURCES}/y-${FLOWMCP_RESOURCES}.db",
        Some("v"),
        None,
    )
    .unwrap();
    assert_eq!(p, PathBuf::from("/x/v/y-v.db"));
}

#[test]
fn a_sealed_database_passes_and_gives_its_revision() {
    let dir = TempDir::new("gtfs-sealed");
    let db = dir.0.join("transit.db");
    make_db(&db, &sealed_sql());
    let seal = check_seal(&db).unwrap();
    assert_eq!(seal.spec_revision, "2026-04-27");
    assert_eq!(seal.found, REQUIRED_META_KEYS.to_vec());
    assert!(spec_revision_in_range(&seal.spec_revision));
}

#[test]
fn checking_the_seal_changes_nothing_on_disk() {
    let dir = TempDir::new("gtfs-untouched");
    let db = dir.0.join("transit.db");
    make_db(&db, &sealed_sql());
    let before = std::fs::read(&db).unwrap();
    check_seal(&db).unwrap();
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["transit.db".to_string()]);
}

#[test]
fn a_wrong_or_null_seal_is_res032() {
    let dir = TempDir::new("gtfs-unsealed");
    for (seal, found) in [
        ("'gtfs'", Some("gtfs")),
        ("NULL", None),
        ("'SQLITE-GTFS'", Some("SQLITE-GTFS")),
    ] {
        let db = dir.0.join(format!("t{}.db", seal.len()));
        make_db(&db, &meta_sql(seal, "'2026-04-27'", &[]));
        let e = check_seal(&db).unwrap_err();
        assert_eq!(
            e,
            SealError::NotSealed {
                found: found.map(str::to_owned)
            }
        );
        assert_eq!(e.code().as_str(), "RES032");
    }
    let db = dir.0.join("no-seal-row.db");
    make_db(&db, &meta_sql("''", "'2026-04-27'", &["qualitySeal"]));
    assert_eq!(
        check_seal(&db).unwrap_err(),
        SealError::NotSealed { found: None }
    );
}

#[test]
fn missing_required_keys_are_res032_with_the_list() {
    let dir = TempDir::new("gtfs-keys");
    let db = dir.0.join("transit.db");
    make_db(
        &db,
        &meta_sql("'sqlite-gtfs'", "'2026-04-27'", &["sourceHash", "specUrl"]),
    );
    let e = check_seal(&db).unwrap_err();
    assert_eq!(
        e,
        SealError::MissingKeys {
            missing: vec!["specUrl", "sourceHash"]
        }
    );
    assert_eq!(e.code().as_str(), "RES032");
    assert!(e.to_string().contains("specUrl, sourceHash"), "{e}");
    // A key whose value is NULL counts as missing.
    let db = dir.0.join("null.db");
    make_db(&db, &meta_sql("'sqlite-gtfs'", "NULL", &[]));
    assert_eq!(
        check_seal(&db).unwrap_err(),
        SealError::MissingKeys {
            missing: vec!["specRevision"]
        }
    );
}

#[test]
fn a_database_without_a_meta_table_is_res032() {
    let dir = TempDir::new("gtfs-nometa");
    let db = dir.0.join("plain.db");
    make_db(&db, "CREATE TABLE stops (stop_id TEXT);");
    let e = check_seal(&db).unwrap_err();
    assert_eq!(e, SealError::NoMetaTable);
    assert_eq!(e.code().as_str(), "RES032");
    // An empty file is an empty database to SQLite: it opens, and has no meta table.
    let empty = dir.0.join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(check_seal(&empty).unwrap_err(), SealError::NoMetaTable);
}

#[test]
fn meta_columns_are_found_by_name_or_by_position() {
    let dir = TempDir::new("gtfs-columns");
    // Named columns in another order and case, with a third column.
    let db = dir.0.join("named.db");
    let mut sql = String::from("CREATE TABLE meta (note TEXT, VALUE TEXT, Key TEXT);\n");
    for key in REQUIRED_META_KEYS {
        let value = match key {
            "qualitySeal" => "sqlite-gtfs",
            "specRevision" => "2026-04-27",
            _ => "x",
        };
        sql.push_str(&format!(
            "INSERT INTO meta VALUES ('n', '{value}', '{key}');\n"
        ));
    }
    make_db(&db, &sql);
    assert_eq!(check_seal(&db).unwrap().spec_revision, "2026-04-27");
    // Two columns with other names: the first is the key, the second the value.
    let db = dir.0.join("positional.db");
    make_db(
        &db,
        &sealed_sql().replace("meta (key TEXT PRIMARY KEY, value TEXT)", "meta (k, v)"),
    );
    assert_eq!(check_seal(&db).unwrap().spec_revision, "2026-04-27");
    // Neither: the seal cannot be read.
    let db = dir.0.join("shape.db");
    make_db(&db, "CREATE TABLE meta (a TEXT, b TEXT, c TEXT);");
    let e = check_seal(&db).unwrap_err();
    assert_eq!(
        e,
        SealError::MetaShape {
            columns: vec!["a".into(), "b".into(), "c".into()]
        }
    );
    assert_eq!(e.code().as_str(), "RES032");
}

#[test]
fn odd_values_do_not_break_the_check() {
    let dir = TempDir::new("gtfs-values");
    // Non-text values, a duplicate key (the first row wins) and a very long value.
    let db = dir.0.join("odd.db");
    let sql = format!(
        "CREATE TABLE meta (key, value);
         INSERT INTO meta VALUES ('qualitySeal', 'sqlite-gtfs'), ('qualitySeal', 'other');
         INSERT INTO meta VALUES ('specRevision', '{}');
         INSERT INTO meta VALUES ('specUrl', 1), ('converterVersion', 2.5), ('capabilities', x'00ff'),
            ('validationReport', '{{}}'), ('buildDate', 'd'), ('rowCounts', '{{}}'),
            ('sourceUrl', 'u'), ('sourceHash', 'h');",
        "9".repeat(100_000)
    );
    make_db(&db, &sql);
    let seal = check_seal(&db).unwrap();
    assert_eq!(seal.spec_revision.len(), 200);
    assert!(!spec_revision_in_range(&seal.spec_revision));
}

#[test]
fn files_that_are_not_databases_are_res033() {
    let dir = TempDir::new("gtfs-unopenable");
    let missing = dir.0.join("missing.db");
    let e = check_seal(&missing).unwrap_err();
    assert!(matches!(e, SealError::Unopenable { .. }), "{e:?}");
    assert_eq!(e.code().as_str(), "RES033");
    assert!(e.to_string().contains("no file exists"), "{e}");
    // Nothing was created in its place.
    assert!(!missing.exists());

    let text = dir.0.join("text.db");
    std::fs::write(
        &text,
        "this is not a database, only some text that is long enough ".repeat(40),
    )
    .unwrap();
    let e = check_seal(&text).unwrap_err();
    assert_eq!(e.code().as_str(), "RES033", "{e:?}");
    assert!(e.to_string().contains("not a database"), "{e}");

    let e = check_seal(&dir.0).unwrap_err();
    assert_eq!(e.code().as_str(), "RES033", "{e:?}");
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn the_expected_revision_range_is_documented_by_its_bounds() {
    assert!(EARLIEST_SPEC_REVISION <= SUPPORTED_SPEC_REVISION);
    assert!(spec_revision_in_range(EARLIEST_SPEC_REVISION));
    assert!(spec_revision_in_range(SUPPORTED_SPEC_REVISION));
    assert_eq!(SUPPORTED_SPEC_REVISION, "2026-04-27");
    // Newer than the supported revision, older than the earliest, or not a date.
    for rev in [
        "2026-04-28",
        "2027-01-01",
        "2026-04-26",
        "2025-12-31",
        "",
        "latest",
        "2026-04-27 ",
        "2026/04/27",
        "2026-02-30",
        "v4.2.0",
    ] {
        assert!(!spec_revision_in_range(rev), "{rev:?}");
    }
}
