#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The SQLite engine: modes, origins, the authorizer, limits, value representation and backups.
//! Every database is made at test time from SQL, in a temporary directory.

use crate::common;

use common::{TempDir, make_db};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use flowmcp_resources::sqlite::{
    Cut, Database, Limits, Locations, Mode, OpenError, Origin, PathError, QueryLimits, SqlError,
};
use serde_json::{Value, json};

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A database for read-only tests; `check` asserts the file is byte-for-byte unchanged and
/// that nothing appeared beside it.
struct ReadOnlyFixture {
    _dir: TempDir,
    path: PathBuf,
    bytes: Vec<u8>,
    names: Vec<String>,
}

impl ReadOnlyFixture {
    fn new(label: &str, sql: &str) -> ReadOnlyFixture {
        let dir = TempDir::new(label);
        let path = dir.0.join("ref-data.db");
        make_db(&path, sql);
        let bytes = std::fs::read(&path).unwrap();
        let names = names_in(&dir.0);
        assert_eq!(names, vec!["ref-data.db".to_owned()]);
        ReadOnlyFixture {
            _dir: dir,
            path,
            bytes,
            names,
        }
    }

    fn open(&self) -> Database {
        Database::open(&self.path, Mode::ReadOnly, &Limits::default()).unwrap()
    }

    fn check(&self) {
        assert_eq!(
            std::fs::read(&self.path).unwrap(),
            self.bytes,
            "the read-only file changed"
        );
        let dir = self.path.parent().unwrap();
        assert_eq!(
            names_in(dir),
            self.names,
            "files appeared beside the read-only database"
        );
        for suffix in ["-wal", "-shm", "-journal"] {
            assert!(!dir.join(format!("ref-data.db{suffix}")).exists());
        }
    }
}

const TOKENS: &str = "CREATE TABLE tokens (symbol TEXT, decimals INTEGER, price REAL);
    INSERT INTO tokens VALUES ('USDC', 6, 1.0), ('WETH', 18, 3000.5), ('WBTC', 8, 60000.25);";

fn q() -> QueryLimits {
    QueryLimits::default()
}

fn refused(result: Result<flowmcp_resources::sqlite::Rows, SqlError>) -> String {
    match result {
        Err(e @ SqlError::Refused { .. }) => {
            assert_eq!(e.code().as_str(), "E009");
            e.to_string()
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn read_only_select_returns_row_objects_in_column_order() {
    let fx = ReadOnlyFixture::new("select", TOKENS);
    let db = fx.open();
    assert_eq!(db.mode(), Mode::ReadOnly);
    let rows = db
        .query(
            "SELECT symbol, decimals, price FROM tokens WHERE decimals < ? ORDER BY decimals",
            &[json!(10)],
            &q(),
        )
        .unwrap();
    assert_eq!(rows.columns, vec!["symbol", "decimals", "price"]);
    assert_eq!(
        rows.clone().into_json(),
        json!([{"symbol": "USDC", "decimals": 6, "price": 1.0}, {"symbol": "WBTC", "decimals": 8, "price": 60000.25}])
    );
    let keys: Vec<&String> = rows.rows[0].keys().collect();
    assert_eq!(keys, vec!["symbol", "decimals", "price"]);
    assert!(!rows.truncated);
    assert_eq!(rows.cut, None);
    assert_eq!(rows.changes, 0);
    drop(db);
    fx.check();
}

#[test]
fn each_json_scalar_binds_as_its_sqlite_type() {
    let fx = ReadOnlyFixture::new("bind", TOKENS);
    let db = fx.open();
    let rows = db
        .query(
            "SELECT typeof(?) AS a, typeof(?) AS b, typeof(?) AS c, typeof(?) AS d, typeof(?) AS e, ? AS t, ? AS f",
            &[json!("x"), json!(42), json!(1.5), json!(true), Value::Null, json!(true), json!(false)],
            &q(),
        )
        .unwrap();
    assert_eq!(
        Value::Object(rows.rows[0].clone()),
        json!({"a": "text", "b": "integer", "c": "real", "d": "integer", "e": "null", "t": 1, "f": 0})
    );
    // A string parameter compares as text, a number as a number.
    let by_symbol = db
        .query(
            "SELECT decimals FROM tokens WHERE symbol = ?",
            &[json!("WETH")],
            &q(),
        )
        .unwrap();
    assert_eq!(by_symbol.into_json(), json!([{"decimals": 18}]));
    let by_price = db
        .query(
            "SELECT symbol FROM tokens WHERE price > ?",
            &[json!(50000.0)],
            &q(),
        )
        .unwrap();
    assert_eq!(by_price.into_json(), json!([{"symbol": "WBTC"}]));
    drop(db);
    fx.check();
}

#[test]
fn parameters_that_cannot_bind_are_invalid_input() {
    let fx = ReadOnlyFixture::new("badparams", TOKENS);
    let db = fx.open();
    for params in [
        vec![json!([1, 2])],
        vec![json!({"a": 1})],
        vec![json!(u64::MAX)],
        vec![],
        vec![json!(1), json!(2)],
    ] {
        let err = db.query("SELECT ?", &params, &q()).unwrap_err();
        assert!(
            matches!(err, SqlError::InvalidInput { .. }),
            "{params:?}: {err:?}"
        );
        assert_eq!(err.code().as_str(), "E007");
    }
    let err = db.query("SELEC 1", &[], &q()).unwrap_err();
    assert!(matches!(err, SqlError::Sql { .. }), "{err:?}");
    assert_eq!(err.code().as_str(), "E007");
    let err = db.query("SELECT * FROM nowhere", &[], &q()).unwrap_err();
    assert!(err.to_string().contains("nowhere"), "{err}");
    drop(db);
    fx.check();
}

#[test]
fn read_only_refuses_every_write_through_the_authorizer() {
    let fx = ReadOnlyFixture::new(
        "rowrites",
        &format!("{TOKENS} CREATE INDEX by_symbol ON tokens(symbol);"),
    );
    let db = fx.open();
    let outside = fx.path.parent().unwrap().join("copy.db");
    let writes = [
        "INSERT INTO tokens VALUES ('DAI', 18, 1.0)".to_owned(),
        "UPDATE tokens SET decimals = 0".to_owned(),
        "DELETE FROM tokens".to_owned(),
        "CREATE TABLE t2 (a)".to_owned(),
        "CREATE TEMP TABLE t3 (a)".to_owned(),
        "CREATE INDEX i ON tokens(decimals)".to_owned(),
        "CREATE VIEW v AS SELECT 1".to_owned(),
        "DROP TABLE tokens".to_owned(),
        "ALTER TABLE tokens ADD COLUMN x".to_owned(),
        "WITH x AS (SELECT 1) INSERT INTO tokens SELECT 'Z', 1, 1.0 FROM x".to_owned(),
        "INSERT INTO tokens VALUES ('R', 1, 1.0) RETURNING symbol".to_owned(),
        "REINDEX".to_owned(),
        "REINDEX by_symbol".to_owned(),
        "DROP INDEX by_symbol".to_owned(),
        "ANALYZE".to_owned(),
        "VACUUM".to_owned(),
        format!("VACUUM INTO '{}'", outside.display()),
    ];
    for sql in &writes {
        let message = refused(db.query(sql, &[], &q()));
        assert!(!message.is_empty(), "{sql}");
    }
    assert!(refused(db.query("DELETE FROM tokens", &[], &q())).contains("read-only"));
    assert!(!outside.exists(), "VACUUM INTO wrote a file");
    let count = db
        .query("SELECT count(*) AS n FROM tokens", &[], &q())
        .unwrap();
    assert_eq!(count.into_json(), json!([{"n": 3}]));
    drop(db);
    fx.check();
}

#[test]
fn attach_extensions_pragma_writes_and_transactions_are_refused_in_both_modes() {
    let dir = TempDir::new("sqlite-attach");
    let other = dir.0.join("other.db");
    make_db(
        &other,
        "CREATE TABLE secret (x); INSERT INTO secret VALUES ('s');",
    );
    let fx = ReadOnlyFixture::new("attach-ro", TOKENS);
    let rw_path = dir.0.join("rw.db");
    make_db(&rw_path, TOKENS);
    let read_only = fx.open();
    let file_based = Database::open(&rw_path, Mode::FileBased, &Limits::default()).unwrap();
    let statements = [
        format!("ATTACH DATABASE '{}' AS o", other.display()),
        "ATTACH DATABASE ':memory:' AS m".to_owned(),
        "DETACH DATABASE main".to_owned(),
        "SELECT load_extension('/nonexistent/lib')".to_owned(),
        "PRAGMA writable_schema=ON".to_owned(),
        "PRAGMA writable_schema".to_owned(),
        "PRAGMA journal_mode=DELETE".to_owned(),
        "PRAGMA query_only=OFF".to_owned(),
        "PRAGMA user_version=7".to_owned(),
        "PRAGMA database_list".to_owned(),
        "BEGIN".to_owned(),
        "COMMIT".to_owned(),
        "SAVEPOINT s".to_owned(),
    ];
    for db in [&read_only, &file_based] {
        for sql in &statements {
            refused(db.query(sql, &[], &q()));
        }
        assert!(refused(db.query(&statements[0], &[], &q())).contains("ATTACH"));
        assert!(refused(db.query(&statements[3], &[], &q())).contains("extension"));
        assert!(refused(db.query(&statements[4], &[], &q())).contains("writable_schema"));
        // Reporting pragmas are fine: describeTables relies on table_info.
        let info = db.query("PRAGMA table_info(tokens)", &[], &q()).unwrap();
        assert_eq!(info.rows.len(), 3);
        let version = db.query("PRAGMA user_version", &[], &q()).unwrap();
        assert_eq!(version.into_json(), json!([{"user_version": 0}]));
    }
    // A file-based database cannot reach another file with VACUUM INTO either.
    let copy = dir.0.join("copy.db");
    refused(file_based.query(&format!("VACUUM INTO '{}'", copy.display()), &[], &q()));
    assert!(!copy.exists());
    drop(read_only);
    fx.check();
}

#[test]
fn exactly_one_statement_runs_per_call() {
    let dir = TempDir::new("sqlite-onestmt");
    let path = dir.0.join("rw.db");
    make_db(&path, TOKENS);
    let db = Database::open(&path, Mode::FileBased, &Limits::default()).unwrap();
    let message = refused(db.query(
        "INSERT INTO tokens VALUES ('A', 1, 1.0); INSERT INTO tokens VALUES ('B', 1, 1.0)",
        &[],
        &q(),
    ));
    assert!(message.contains("one statement"), "{message}");
    refused(db.query("SELECT 1; DELETE FROM tokens", &[], &q()));
    let count = db
        .query("SELECT count(*) AS n FROM tokens", &[], &q())
        .unwrap();
    assert_eq!(
        count.into_json(),
        json!([{"n": 3}]),
        "a refused batch ran in part"
    );
    // A trailing semicolon, whitespace and comments are one statement.
    for sql in [
        "SELECT 1 AS one;",
        "SELECT 1 AS one ;  \n",
        "SELECT 1 AS one; -- done\n /* really */ ",
    ] {
        assert_eq!(
            db.query(sql, &[], &q()).unwrap().into_json(),
            json!([{"one": 1}]),
            "{sql}"
        );
    }
    for sql in ["", "   ", "-- nothing\n", ";"] {
        let err = db.query(sql, &[], &q()).unwrap_err();
        assert!(
            matches!(err, SqlError::InvalidInput { .. } | SqlError::Sql { .. }),
            "{sql:?}: {err:?}"
        );
        assert_eq!(err.code().as_str(), "E007");
    }
}

fn numbers_db(label: &str, n: usize) -> ReadOnlyFixture {
    ReadOnlyFixture::new(
        label,
        &format!(
            "CREATE TABLE n (i INTEGER);
             WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < {n}) INSERT INTO n SELECT x FROM c;"
        ),
    )
}

#[test]
fn row_limit_defaults_to_100_and_is_clamped_to_1000() {
    let fx = numbers_db("rows", 1500);
    let db = fx.open();
    let rows = db.query("SELECT i FROM n", &[], &q()).unwrap();
    assert_eq!(rows.rows.len(), 100);
    assert!(rows.truncated);
    assert_eq!(rows.cut, Some(Cut::Rows));
    assert_eq!(rows.rows[99].get("i"), Some(&json!(100)));

    let asked = {
        let mut v = q();
        v.rows = 5000;
        v
    };
    let rows = db.query("SELECT i FROM n", &[], &asked).unwrap();
    assert_eq!(rows.rows.len(), 1000);
    assert!(rows.truncated);

    assert_eq!(QueryLimits::with_requested_rows(None).rows, 100);
    assert_eq!(QueryLimits::with_requested_rows(Some(5000)).rows, 1000);
    assert_eq!(QueryLimits::with_requested_rows(Some(u64::MAX)).rows, 1000);
    assert_eq!(QueryLimits::with_requested_rows(Some(3)).rows, 3);
    let rows = db
        .query(
            "SELECT i FROM n",
            &[],
            &QueryLimits::with_requested_rows(Some(3)),
        )
        .unwrap();
    assert_eq!(rows.into_json(), json!([{"i": 1}, {"i": 2}, {"i": 3}]));
    drop(db);
    fx.check();
}

#[test]
fn an_authors_limit_is_respected_and_exact_fits_are_not_truncated() {
    let fx = numbers_db("authorlimit", 150);
    let db = fx.open();
    let rows = db
        .query("SELECT i FROM n ORDER BY i LIMIT 7", &[], &q())
        .unwrap();
    assert_eq!(rows.rows.len(), 7);
    assert!(!rows.truncated, "the author's LIMIT is not a cut");
    let rows = db
        .query("SELECT i FROM n LIMIT ?", &[json!(120)], &q())
        .unwrap();
    assert_eq!(rows.rows.len(), 100, "the smaller limit wins");
    assert!(rows.truncated);
    let rows = db
        .query("SELECT i FROM n WHERE i <= 100", &[], &q())
        .unwrap();
    assert_eq!(rows.rows.len(), 100);
    assert!(!rows.truncated, "exactly the limit is not truncated");
    let zero = db
        .query("SELECT i FROM n", &[], &{
            let mut v = q();
            v.rows = 0;
            v
        })
        .unwrap();
    assert!(zero.rows.is_empty() && zero.truncated);
    drop(db);
    fx.check();
}

#[test]
fn an_endless_recursive_query_ends_with_a_timeout() {
    let fx = ReadOnlyFixture::new("timeout", TOKENS);
    let db = fx.open();
    let limits = {
        let mut v = q();
        v.timeout = Duration::from_millis(200);
        v
    };
    let start = Instant::now();
    let err = db
        .query(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c",
            &[],
            &limits,
        )
        .unwrap_err();
    let took = start.elapsed();
    assert!(
        matches!(err, SqlError::Timeout { limit_ms: 200 }),
        "{err:?}"
    );
    assert_eq!(err.code().as_str(), "E003");
    assert!(
        took >= Duration::from_millis(190),
        "stopped early: {took:?}"
    );
    assert!(took < Duration::from_secs(5), "stopped late: {took:?}");
    // The connection is usable afterwards, and the deadline is not left armed.
    std::thread::sleep(Duration::from_millis(250));
    let rows = db
        .query("SELECT count(*) AS n FROM tokens", &[], &limits)
        .unwrap();
    assert_eq!(rows.into_json(), json!([{"n": 3}]));
    drop(db);
    fx.check();
}

#[test]
fn the_byte_cap_cuts_at_a_whole_row_or_refuses_a_single_huge_row() {
    let fx = ReadOnlyFixture::new(
        "bytes",
        "CREATE TABLE docs (id INTEGER, body TEXT);
         WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50)
         INSERT INTO docs SELECT x, printf('%.1000c', 'a') FROM c;",
    );
    let db = fx.open();
    let limits = {
        let mut v = q();
        v.max_bytes = 10_000;
        v
    };
    let rows = db
        .query("SELECT id, body FROM docs ORDER BY id", &[], &limits)
        .unwrap();
    assert!(rows.truncated);
    assert_eq!(rows.cut, Some(Cut::Bytes));
    assert!(
        (5..10).contains(&rows.rows.len()),
        "{} rows",
        rows.rows.len()
    );
    let json_len = serde_json::to_string(&rows.clone().into_json())
        .unwrap()
        .len();
    assert!(json_len <= 10_000, "{json_len}");
    assert_eq!(
        rows.rows[0]
            .get("body")
            .and_then(Value::as_str)
            .map(str::len),
        Some(1000)
    );

    let err = db
        .query("SELECT body FROM docs", &[], &{
            let mut v = q();
            v.max_bytes = 500;
            v
        })
        .unwrap_err();
    assert!(
        matches!(err, SqlError::TooLarge { max_bytes: 500 }),
        "{err:?}"
    );
    assert_eq!(err.code().as_str(), "E008");
    drop(db);
    fx.check();
}

#[test]
fn big_integers_and_blobs_have_a_lossless_representation() {
    let fx = ReadOnlyFixture::new(
        "values",
        "CREATE TABLE v (name TEXT, value);
         INSERT INTO v VALUES
           ('safe_max', 9007199254740991), ('safe_min', -9007199254740991),
           ('above', 9007199254740992), ('i64_max', 9223372036854775807), ('i64_min', -9223372036854775808),
           ('blob', x'00ff10'), ('empty_blob', x''), ('real', 2.5), ('inf', 1e999), ('neg_inf', -1e999),
           ('text', 'héllo'), ('null', NULL);",
    );
    let db = fx.open();
    let rows = db.query("SELECT name, value FROM v", &[], &q()).unwrap();
    let got: serde_json::Map<String, Value> = rows
        .rows
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_owned(), r["value"].clone()))
        .collect();
    assert_eq!(
        Value::Object(got),
        json!({
            "safe_max": 9007199254740991_i64, "safe_min": -9007199254740991_i64,
            "above": "9007199254740992", "i64_max": "9223372036854775807", "i64_min": "-9223372036854775808",
            "blob": {"$blob": "AP8Q"}, "empty_blob": {"$blob": ""}, "real": 2.5,
            "inf": "Infinity", "neg_inf": "-Infinity", "text": "héllo", "null": null
        })
    );
    // The string form reads back to the same integer.
    let back = db
        .query("SELECT value FROM v WHERE name = 'i64_max'", &[], &q())
        .unwrap();
    let text = back.rows[0]["value"].as_str().unwrap();
    assert_eq!(text.parse::<i64>().unwrap(), i64::MAX);
    // Binding a big integer finds the row.
    let found = db
        .query(
            "SELECT name FROM v WHERE value = ?",
            &[json!(i64::MAX)],
            &q(),
        )
        .unwrap();
    assert_eq!(found.into_json(), json!([{"name": "i64_max"}]));
    drop(db);
    fx.check();
}

#[test]
fn describe_tables_gives_one_row_per_column_under_the_authorizer() {
    let fx = ReadOnlyFixture::new(
        "describe",
        "CREATE TABLE pools (pool_address TEXT, token0 TEXT, token1 TEXT);
         CREATE TABLE tokens (symbol TEXT, decimals INTEGER);
         CREATE INDEX tokens_symbol ON tokens(symbol);
         CREATE VIEW v AS SELECT symbol FROM tokens;",
    );
    let db = fx.open();
    let rows = db.describe_tables(&q()).unwrap();
    assert_eq!(rows.columns, vec!["table_name", "column", "type"]);
    assert_eq!(
        rows.into_json(),
        json!([
            {"table_name": "pools", "column": "pool_address", "type": "TEXT"},
            {"table_name": "pools", "column": "token0", "type": "TEXT"},
            {"table_name": "pools", "column": "token1", "type": "TEXT"},
            {"table_name": "tokens", "column": "symbol", "type": "TEXT"},
            {"table_name": "tokens", "column": "decimals", "type": "INTEGER"}
        ])
    );
    drop(db);
    fx.check();
}

#[test]
fn describe_tables_is_not_cut_by_the_row_limit() {
    let sql: String = (0..30)
        .map(|t| format!("CREATE TABLE t{t} (a TEXT, b INTEGER, c REAL, d BLOB, e);"))
        .collect();
    let fx = ReadOnlyFixture::new("describe-wide", &sql);
    let db = fx.open();
    let rows = db.describe_tables(&q()).unwrap();
    assert_eq!(rows.rows.len(), 150);
    assert!(!rows.truncated);
    drop(db);
    fx.check();
}

#[test]
fn a_wal_database_opened_read_only_leaves_no_files_beside_it() {
    let dir = TempDir::new("sqlite-walro");
    let path = dir.0.join("ref-data.db");
    drop(Database::create(&path, TOKENS, &Limits::default()).unwrap());
    let db = Database::open(&path, Mode::FileBased, &Limits::default()).unwrap();
    let journal = db.query("PRAGMA journal_mode", &[], &q()).unwrap();
    assert_eq!(journal.into_json(), json!([{"journal_mode": "wal"}]));
    drop(db);
    assert_eq!(names_in(&dir.0), vec!["ref-data.db"]);
    let bytes = std::fs::read(&path).unwrap();
    let db = Database::open(&path, Mode::ReadOnly, &Limits::default()).unwrap();
    let rows = db
        .query("SELECT count(*) AS n FROM tokens", &[], &q())
        .unwrap();
    assert_eq!(rows.into_json(), json!([{"n": 3}]));
    refused(db.query("DELETE FROM tokens", &[], &q()));
    drop(db);
    assert_eq!(names_in(&dir.0), vec!["ref-data.db"]);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn a_read_only_file_with_special_characters_in_its_name_opens() {
    let dir = TempDir::new("sqlite-uri");
    let sub = dir.0.join("a dir?#%");
    std::fs::create_dir_all(&sub).unwrap();
    let path = sub.join("odd name#1.db");
    make_db(&path, TOKENS);
    let db = Database::open(&path, Mode::ReadOnly, &Limits::default()).unwrap();
    let rows = db
        .query("SELECT count(*) AS n FROM tokens", &[], &q())
        .unwrap();
    assert_eq!(rows.into_json(), json!([{"n": 3}]));
    assert_eq!(db.path(), std::fs::canonicalize(&path).unwrap());
    drop(db);
    assert_eq!(names_in(&sub), vec!["odd name#1.db"]);
}

#[test]
fn a_missing_file_is_an_error_naming_the_expected_path() {
    let dir = TempDir::new("sqlite-missing");
    let path = dir.0.join("resources").join("absent-data.db");
    for mode in [Mode::ReadOnly, Mode::FileBased] {
        let err = Database::open(&path, mode, &Limits::default()).unwrap_err();
        assert!(matches!(err, OpenError::Missing { .. }), "{err:?}");
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        assert_eq!(err.code().as_str(), "RES020");
    }
    assert!(!path.exists(), "opening created the file");
    assert!(!dir.0.join("resources").exists());
    let not_db = dir.0.join("text.db");
    std::fs::write(
        &not_db,
        "this is not a database, just some text that is long enough to fill a header",
    )
    .unwrap();
    let err = Database::open(&not_db, Mode::ReadOnly, &Limits::default()).unwrap_err();
    assert!(matches!(err, OpenError::Sqlite { .. }), "{err:?}");
    let err = Database::open(&dir.0, Mode::ReadOnly, &Limits::default()).unwrap_err();
    assert!(matches!(err, OpenError::NotAFile { .. }), "{err:?}");
}

#[test]
fn create_runs_the_schema_atomically_and_never_replaces_a_file() {
    let dir = TempDir::new("sqlite-create");
    let path = dir
        .0
        .join(".flowmcp")
        .join("resources")
        .join("agent-notes.db");
    let db = Database::create(
        &path,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
         CREATE INDEX notes_body ON notes(body);
         PRAGMA user_version = 2;",
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(db.mode(), Mode::FileBased);
    let inserted = db
        .query(
            "INSERT INTO notes (body) VALUES (?)",
            &[json!("first")],
            &q(),
        )
        .unwrap();
    assert_eq!(inserted.changes, 1);
    assert_eq!(
        db.query("PRAGMA user_version", &[], &q())
            .unwrap()
            .into_json(),
        json!([{"user_version": 2}])
    );
    drop(db);
    let resources = path.parent().unwrap();
    assert_eq!(
        names_in(resources),
        vec!["agent-notes.db"],
        "a database created in this process gets no .bak"
    );

    let before = std::fs::read(&path).unwrap();
    let err = Database::create(&path, "CREATE TABLE other (x);", &Limits::default()).unwrap_err();
    assert!(matches!(err, OpenError::AlreadyExists { .. }), "{err:?}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // Failing schema SQL leaves nothing behind: no database, no temporary file.
    let broken = resources.join("broken-notes.db");
    let err = Database::create(
        &broken,
        "CREATE TABLE a (x); CREATE TABLE a (x);",
        &Limits::default(),
    )
    .unwrap_err();
    assert!(matches!(err, OpenError::Schema { .. }), "{err:?}");
    assert!(err.to_string().contains("already exists"), "{err}");
    let attach = Database::create(
        &broken,
        "ATTACH DATABASE ':memory:' AS m; CREATE TABLE a (x);",
        &Limits::default(),
    )
    .unwrap_err();
    assert!(attach.to_string().contains("ATTACH"), "{attach}");
    let endless = {
        let mut v = Limits::default();
        v.schema_timeout = Duration::from_millis(100);
        v
    };
    let err = Database::create(
        &broken,
        "CREATE TABLE a (x); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) INSERT INTO a SELECT x FROM c;",
        &endless,
    )
    .unwrap_err();
    assert!(err.to_string().contains("time limit"), "{err}");
    assert_eq!(names_in(resources), vec!["agent-notes.db"]);
}

#[test]
fn file_based_writes_persist_and_the_first_write_makes_one_backup() {
    let dir = TempDir::new("sqlite-backup");
    let path = dir.0.join("results.db");
    make_db(&path, TOKENS);
    let original = std::fs::read(&path).unwrap();
    let bak = dir.0.join("results.db.bak");

    let db = Database::open(&path, Mode::FileBased, &Limits::default()).unwrap();
    db.query("SELECT * FROM tokens", &[], &q()).unwrap();
    assert!(!bak.exists(), "a read made a backup");

    let inserted = db
        .query(
            "INSERT INTO tokens VALUES (?, ?, ?)",
            &[json!("DAI"), json!(18), json!(1.0)],
            &q(),
        )
        .unwrap();
    assert_eq!(inserted.changes, 1);
    assert!(bak.exists(), "the first write made no backup");
    let backup_bytes = std::fs::read(&bak).unwrap();
    let check =
        rusqlite::Connection::open_with_flags(&bak, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let n: i64 = check
        .query_row("SELECT count(*) FROM tokens", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3, "the backup holds the state before the first write");
    drop(check);

    let updated = db
        .query("UPDATE tokens SET price = price * 2", &[], &q())
        .unwrap();
    assert_eq!(updated.changes, 4);
    db.query("CREATE TABLE runs (at TEXT)", &[], &q()).unwrap();
    let returning = db
        .query(
            "DELETE FROM tokens WHERE symbol = ? RETURNING symbol",
            &[json!("DAI")],
            &q(),
        )
        .unwrap();
    assert_eq!(returning.into_json(), json!([{"symbol": "DAI"}]));
    assert_eq!(
        std::fs::read(&bak).unwrap(),
        backup_bytes,
        "a later write replaced the backup"
    );

    // Another handle on the same file in the same process makes no second backup.
    let second = Database::open(&path, Mode::FileBased, &Limits::default()).unwrap();
    second
        .query("INSERT INTO runs VALUES ('now')", &[], &q())
        .unwrap();
    assert_eq!(std::fs::read(&bak).unwrap(), backup_bytes);
    drop(second);
    drop(db);

    let names = names_in(&dir.0);
    assert!(
        names.iter().all(|n| !n.ends_with(".tmp")),
        "temporary files left: {names:?}"
    );
    let reopened = rusqlite::Connection::open(&path).unwrap();
    let n: i64 = reopened
        .query_row("SELECT count(*) FROM tokens", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);
    let runs: i64 = reopened
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 1);
    assert_ne!(std::fs::read(&path).unwrap(), original);
}

#[test]
fn a_refused_write_makes_no_backup() {
    let dir = TempDir::new("sqlite-nobak");
    let path = dir.0.join("results.db");
    make_db(&path, TOKENS);
    let db = Database::open(&path, Mode::FileBased, &Limits::default()).unwrap();
    refused(db.query("ATTACH DATABASE ':memory:' AS m", &[], &q()));
    refused(db.query(
        "INSERT INTO tokens VALUES ('A', 1, 1.0); SELECT 1",
        &[],
        &q(),
    ));
    assert!(!dir.0.join("results.db.bak").exists());
}

#[test]
fn origins_resolve_to_their_resources_folders() {
    let dir = TempDir::new("sqlite-origins");
    let schema_dir = dir.0.join("providers").join("tranco");
    let project = dir.0.join("work").join(".flowmcp");
    let home = dir.0.join("home");
    for d in [&schema_dir, &project, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    let mut locations = Locations::default();
    locations.schema_dir = Some(schema_dir.clone());
    locations.project_base = Some(project.clone());
    locations.home = Some(home.clone());
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap();
    assert_eq!(
        locations
            .resolve(Origin::Inline, "tranco-ranking.db")
            .unwrap(),
        canon(&schema_dir)
            .join("resources")
            .join("tranco-ranking.db")
    );
    assert_eq!(
        locations
            .resolve(Origin::Project, "tranco-ranking.db")
            .unwrap(),
        canon(&project).join("resources").join("tranco-ranking.db")
    );
    assert_eq!(
        locations
            .resolve(Origin::Global, "tranco-ranking.db")
            .unwrap(),
        canon(&home)
            .join(".flowmcp")
            .join("resources")
            .join("tranco-ranking.db")
    );
    let mut custom = locations.clone();
    custom.base = "myagent".to_owned();
    assert_eq!(
        custom.resolve(Origin::Global, "a.db").unwrap(),
        canon(&home).join(".myagent").join("resources").join("a.db")
    );
    // An existing file resolves the same way.
    std::fs::create_dir_all(schema_dir.join("resources")).unwrap();
    make_db(&schema_dir.join("resources").join("here.db"), TOKENS);
    let here = locations.resolve(Origin::Inline, "here.db").unwrap();
    assert!(Database::open(&here, Mode::ReadOnly, &Limits::default()).is_ok());

    assert_eq!(Origin::parse("global"), Some(Origin::Global));
    assert_eq!(Origin::parse("remote"), None);
    assert_eq!(Mode::parse("in-memory"), Some(Mode::ReadOnly));
    assert_eq!(Mode::parse("file-based"), Some(Mode::FileBased));

    let nothing = Locations::default();
    for origin in [Origin::Inline, Origin::Project, Origin::Global] {
        let err = nothing.resolve(origin, "a.db").unwrap_err();
        assert!(matches!(err, PathError::NoLocation { .. }), "{err:?}");
    }
    let mut bad_base = locations.clone();
    bad_base.base = "../x".to_owned();
    assert!(matches!(
        bad_base.resolve(Origin::Global, "a.db"),
        Err(PathError::BadBase { .. })
    ));
}

#[test]
fn resource_names_must_be_plain_db_file_names() {
    let dir = TempDir::new("sqlite-names");
    let mut locations = Locations::default();
    locations.project_base = Some(dir.0.clone());
    for name in [
        "../escape.db",
        "sub/a.db",
        "sub\\a.db",
        "a..db",
        "..",
        ".db",
        ".hidden.db",
        "data.sqlite",
        "",
        "a.db/",
        "c:a.db",
        "/etc/passwd.db",
    ] {
        let err = locations.resolve(Origin::Project, name).unwrap_err();
        assert!(
            matches!(err, PathError::BadName { .. }),
            "{name:?}: {err:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn symbolic_links_may_not_lead_out_of_the_root() {
    use std::os::unix::fs::symlink;
    let dir = TempDir::new("sqlite-escape");
    let outside = dir.0.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    make_db(&outside.join("secret.db"), TOKENS);

    // A file link leading out of the resources folder.
    let project = dir.0.join("p1");
    std::fs::create_dir_all(project.join("resources")).unwrap();
    symlink(
        outside.join("secret.db"),
        project.join("resources").join("evil.db"),
    )
    .unwrap();
    let mut locations = Locations::default();
    locations.project_base = Some(project.clone());
    let err = locations.resolve(Origin::Project, "evil.db").unwrap_err();
    assert!(matches!(err, PathError::Escape { .. }), "{err:?}");

    // A relative link inside the root is fine; an absolute one is refused even when it points
    // inside (the directory handle resolves links only relative to itself).
    make_db(&project.join("resources").join("real.db"), TOKENS);
    symlink("real.db", project.join("resources").join("alias.db")).unwrap();
    assert_eq!(
        locations.resolve(Origin::Project, "alias.db").unwrap(),
        std::fs::canonicalize(project.join("resources").join("real.db")).unwrap()
    );
    symlink(
        project.join("resources").join("real.db"),
        project.join("resources").join("absolute.db"),
    )
    .unwrap();
    let err = locations
        .resolve(Origin::Project, "absolute.db")
        .unwrap_err();
    assert!(matches!(err, PathError::Escape { .. }), "{err:?}");

    // A dangling link cannot be checked, so it is refused.
    symlink("nowhere.db", project.join("resources").join("dangling.db")).unwrap();
    let err = locations
        .resolve(Origin::Project, "dangling.db")
        .unwrap_err();
    assert!(matches!(err, PathError::DanglingLink { .. }), "{err:?}");

    // The resources folder itself as a link leading out.
    let schema_dir = dir.0.join("p2");
    std::fs::create_dir_all(&schema_dir).unwrap();
    symlink(&outside, schema_dir.join("resources")).unwrap();
    let mut inline = Locations::default();
    inline.schema_dir = Some(schema_dir);
    let err = inline.resolve(Origin::Inline, "secret.db").unwrap_err();
    assert!(matches!(err, PathError::Escape { .. }), "{err:?}");
    let err = inline
        .resolve(Origin::Inline, "not-there-yet.db")
        .unwrap_err();
    assert!(matches!(err, PathError::Escape { .. }), "{err:?}");

    // A global base folder that is a link (dotfiles kept elsewhere) is the user's choice.
    let home = dir.0.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let real_base = dir.0.join("dotfiles-flowmcp");
    std::fs::create_dir_all(real_base.join("resources")).unwrap();
    symlink(&real_base, home.join(".flowmcp")).unwrap();
    let mut global = Locations::default();
    global.home = Some(home);
    assert_eq!(
        global.resolve(Origin::Global, "x.db").unwrap(),
        std::fs::canonicalize(&real_base)
            .unwrap()
            .join("resources")
            .join("x.db")
    );
}
