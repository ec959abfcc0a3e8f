//! SQLite resources: opening a database by mode and origin, and running one statement at a time
//! safely.
//!
//! ```
//! use flowmcp_resources::sqlite::{Database, Limits, Mode, QueryLimits};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("flowmcp-sqlite-doc-{}", std::process::id()));
//! let path = dir.join("resources").join("demo-tokens.db");
//! # let _ = std::fs::remove_file(&path);
//! // A file-based database is created explicitly from its schema SQL…
//! let db = Database::create(
//!     &path,
//!     "CREATE TABLE tokens (symbol TEXT, decimals INTEGER);
//!      INSERT INTO tokens VALUES ('USDC', 6), ('WETH', 18);",
//!     &Limits::default(),
//! )?;
//! drop(db);
//! // …and can then be opened read-only, as `in-memory` resources are.
//! let db = Database::open(&path, Mode::ReadOnly, &Limits::default())?;
//! let rows = db.query(
//!     "SELECT symbol, decimals FROM tokens WHERE decimals > ?",
//!     &[json!(10)],
//!     &QueryLimits::default(),
//! )?;
//! assert_eq!(rows.rows, vec![json!({"symbol": "WETH", "decimals": 18}).as_object().cloned().unwrap_or_default()]);
//! assert!(!rows.truncated);
//! // Writes are refused on a read-only resource, by SQLite's authorizer, not by reading the SQL.
//! let refused = db.query("DELETE FROM tokens", &[], &QueryLimits::default()).unwrap_err();
//! assert_eq!(refused.code().as_str(), "E009");
//! # drop(db);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! # How the guarantees are built
//!
//! - **Read-only** ([`Mode::ReadOnly`]): see [`Mode::ReadOnly`] for why the file is opened in
//!   place, read-only and immutable, rather than copied into memory.
//! - **One statement per call.** SQLite compiles the first statement and reports what follows
//!   it; anything but whitespace and comments after it is refused, never run.
//! - **An authorizer** decides, while SQLite compiles a statement, which actions it may take: no
//!   `ATTACH`/`DETACH`, no `load_extension`, only pragmas that report, no transaction control,
//!   and on read-only resources no write of any kind (including `WITH … INSERT`). In addition,
//!   a connection may attach no database at all (SQLite's attached-database limit is 0, which
//!   also stops `VACUUM INTO` a file elsewhere), runs in SQLite's defensive mode, and does not
//!   trust functions in the database's schema.
//! - **Limits** ([`QueryLimits`]): rows are counted while the statement is stepped, never by
//!   editing the SQL; a progress handler interrupts a statement that runs past its time; and
//!   the result's approximate JSON size is capped.
//!
//! # Values
//!
//! Parameters are JSON scalars bound by position: a string binds as TEXT, a number that is a
//! whole `i64` as INTEGER, any other number as REAL, `true`/`false` as 1/0, `null` as NULL.
//! Arrays, objects and whole numbers above `i64::MAX` are [`SqlError::InvalidInput`].
//!
//! Column values come back as: NULL → `null`; INTEGER → a JSON number when it lies within
//! ±(2^53 − 1), which every JSON reader holds exactly, otherwise a string of its decimal digits
//! (`"9007199254740993"`); REAL → a number, with ±infinity (which JSON cannot write) as the
//! strings `"Infinity"` / `"-Infinity"`; TEXT → a string (bytes that are not UTF-8 become
//! U+FFFD); BLOB → `{"$blob": "<base64>"}` ([`BLOB_KEY`], standard alphabet with padding).

mod error;
mod guard;
mod origin;
mod value;

use std::cell::Cell;
use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::limits::Limit;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use serde_json::{Map, Value};

pub use error::{OpenError, SqlError};
pub use flowmcp_files::PathError;
pub use origin::{DEFAULT_BASE, Locations, Origin, schema_sql_file};
pub use value::BLOB_KEY;

use guard::{Denial, Policy};

/// Rows a query returns when the caller asks for no particular number (`runSql`'s default).
pub const DEFAULT_ROWS: usize = 100;

/// The most rows a query returns, whatever the caller asks for; a larger request is lowered to
/// this.
pub const MAX_ROWS: usize = 1000;

/// The statement behind `describeTables`, as the resources chapter gives it: one row
/// `{table_name, column, type}` per column of every table.
pub const DESCRIBE_TABLES_SQL: &str = "SELECT m.name as table_name, p.name as column, p.type FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'";

/// How a database is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The spec's `in-memory` mode, also used for downloaded `http` resources: reading only.
    ///
    /// The file is opened in place with `SQLITE_OPEN_READONLY`, as the URI
    /// `file:…?mode=ro&immutable=1`, with `PRAGMA query_only` on and the read-only authorizer.
    /// It is not copied into memory with the backup API, because:
    ///
    /// - opening costs the same for a 40 MB reference database as for a tiny one, and pages are
    ///   read on demand instead of all being held in RAM for the life of the server;
    /// - `immutable=1` tells SQLite the file cannot change, so it takes no locks and never
    ///   creates a `-wal`, `-shm` or `-journal` file beside it, and the read-only open means
    ///   no write can reach the file even if every other layer failed.
    ///
    /// The price of `immutable`: the file must not be changed in place while it is open (one
    /// replaced by rename, as downloads are, is fine: the open file keeps its old contents),
    /// and changes that another program still holds in a `-wal` file are not seen.
    ReadOnly,
    /// The spec's `file-based` mode: reading and writing, WAL journal. Before the first write
    /// to a file in this process, a copy of it is saved as `<name>.bak` (see
    /// [`Database::query`]).
    FileBased,
}

impl Mode {
    /// Reads the spelling used in schemas: `in-memory` or `file-based`.
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "in-memory" => Some(Mode::ReadOnly),
            "file-based" => Some(Mode::FileBased),
            _ => None,
        }
    }
}

/// Limits fixed when a database is opened.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Limits {
    /// The longest statement SQLite accepts, in bytes (`SQLITE_LIMIT_SQL_LENGTH`).
    pub max_sql_length: usize,
    /// The largest string or BLOB a statement may produce, in bytes (`SQLITE_LIMIT_LENGTH`).
    pub max_value_length: usize,
    /// How long a write waits for another connection's lock before failing with
    /// [`SqlError::Busy`].
    pub busy_timeout: Duration,
    /// How many compiled statements are kept for reuse.
    pub statement_cache: usize,
    /// The time limit for the schema SQL run by [`Database::create`].
    pub schema_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sql_length: 1_000_000,
            max_value_length: 16 * 1024 * 1024,
            busy_timeout: Duration::from_secs(2),
            statement_cache: 32,
            schema_timeout: Duration::from_secs(30),
        }
    }
}

/// Limits for one query.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct QueryLimits {
    /// The most rows returned; above [`MAX_ROWS`] counts as [`MAX_ROWS`]. Default
    /// [`DEFAULT_ROWS`].
    pub rows: usize,
    /// How long the statement may run before it is interrupted ([`SqlError::Timeout`]).
    /// Default 5 s.
    pub timeout: Duration,
    /// The cap on the result's size as JSON, approximately, in bytes. Rows stop at the last
    /// whole row under the cap ([`Cut::Bytes`]); a first row alone over the cap is
    /// [`SqlError::TooLarge`]. Default 4 MiB.
    pub max_bytes: usize,
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            rows: DEFAULT_ROWS,
            timeout: Duration::from_secs(5),
            max_bytes: 4 * 1024 * 1024,
        }
    }
}

impl QueryLimits {
    /// The default limits with `rows` set from a caller's optional request (`runSql`'s
    /// `limit`): none gives [`DEFAULT_ROWS`], more than [`MAX_ROWS`] gives [`MAX_ROWS`].
    pub fn with_requested_rows(requested: Option<u64>) -> QueryLimits {
        let rows = requested.map_or(DEFAULT_ROWS, |n| {
            usize::try_from(n).unwrap_or(MAX_ROWS).min(MAX_ROWS)
        });
        QueryLimits {
            rows,
            ..QueryLimits::default()
        }
    }
}

/// Which limit cut a result short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The row limit: more rows followed.
    Rows,
    /// The byte cap: the next row would have passed it.
    Bytes,
}

/// The result of one statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// The result's column names, in statement order.
    pub columns: Vec<String>,
    /// One object per row, keys in column order. When two columns share a name, the later
    /// value is kept. Values are represented as the module documentation's *Values* section
    /// says: integers beyond ±(2^53 − 1) as decimal strings, BLOBs as `{"$blob": "<base64>"}`.
    pub rows: Vec<Map<String, Value>>,
    /// Whether more rows existed than were returned.
    pub truncated: bool,
    /// Which limit cut the result (`Some` exactly when `truncated`).
    pub cut: Option<Cut>,
    /// Rows inserted, updated or deleted by the statement, including by triggers; 0 for a
    /// statement that only reads.
    pub changes: u64,
}

impl Rows {
    /// The rows as one JSON array.
    pub fn into_json(self) -> Value {
        Value::Array(self.rows.into_iter().map(Value::Object).collect())
    }
}

/// The point in time a running statement must finish by, checked by SQLite's progress handler.
struct Deadline {
    base: Instant,
    /// Nanoseconds after `base`, or [`Deadline::NONE`].
    at: AtomicU64,
}

impl Deadline {
    const NONE: u64 = u64::MAX;

    fn now(&self) -> u64 {
        u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(Self::NONE - 1)
    }

    fn passed(&self) -> bool {
        let at = self.at.load(Ordering::Relaxed);
        at != Self::NONE && self.now() >= at
    }

    fn arm(&self, timeout: Duration) -> Armed<'_> {
        let span = u64::try_from(timeout.as_nanos()).unwrap_or(Self::NONE - 1);
        self.at.store(
            self.now().saturating_add(span).min(Self::NONE - 1),
            Ordering::Relaxed,
        );
        Armed(self)
    }
}

/// Disarms the deadline when dropped.
struct Armed<'a>(&'a Deadline);

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        self.0.at.store(Deadline::NONE, Ordering::Relaxed);
    }
}

/// How many SQLite virtual-machine steps pass between two deadline checks.
const PROGRESS_STEPS: i32 = 1000;

/// An open SQLite resource database.
///
/// A `Database` is `Send` but not `Sync`: use it from one thread at a time (wrap it in a mutex
/// to share it).
pub struct Database {
    conn: Connection,
    mode: Mode,
    path: PathBuf,
    deadline: Arc<Deadline>,
    denial: Denial,
    /// Whether this handle already knows the file was backed up in this process.
    backed_up: Cell<bool>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.path)
            .field("mode", &self.mode)
            .finish()
    }
}

impl Database {
    /// Opens the database at `path` in `mode`.
    ///
    /// The file must exist: a missing one is [`OpenError::Missing`], naming the path (a
    /// file-based database is made with [`Database::create`]). The file is checked to be a
    /// SQLite database before this returns.
    #[expect(
        clippy::disallowed_methods,
        reason = "SQLite opens its files by name; the path was resolved by flowmcp_files::Root (SECURITY.md, \"Files\")"
    )]
    pub fn open(path: &Path, mode: Mode, limits: &Limits) -> Result<Database, OpenError> {
        let path = existing_file(path)?;
        let sqlite_err = |e: rusqlite::Error| OpenError::Sqlite {
            path: path.clone(),
            message: e.to_string(),
        };
        let conn = match mode {
            Mode::ReadOnly => {
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                let conn =
                    Connection::open_with_flags(file_uri(&path), flags).map_err(sqlite_err)?;
                conn.pragma_update(None, "query_only", true)
                    .map_err(sqlite_err)?;
                conn
            }
            Mode::FileBased => {
                let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                let conn = Connection::open_with_flags(&path, flags).map_err(sqlite_err)?;
                conn.busy_timeout(limits.busy_timeout).map_err(sqlite_err)?;
                conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| {
                    row.get::<_, String>(0)
                })
                .map_err(sqlite_err)?;
                conn
            }
        };
        let policy = match mode {
            Mode::ReadOnly => Policy::ReadOnly,
            Mode::FileBased => Policy::ReadWrite,
        };
        let (conn, deadline, denial) =
            prepare_connection(conn, policy, limits).map_err(sqlite_err)?;
        // Reading the schema proves the file is a database (SQLite opens lazily).
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |row| {
            row.get::<_, i64>(0)
        })
        .map_err(sqlite_err)?;
        Ok(Database {
            conn,
            mode,
            path,
            deadline,
            denial,
            backed_up: Cell::new(false),
        })
    }

    /// Creates a file-based database at `path` from the author's schema SQL (for example the
    /// `CREATE TABLE` statements behind `getSchema`) and opens it in [`Mode::FileBased`].
    ///
    /// The schema SQL may hold several statements; they run in one transaction, under the same
    /// authorizer as writes (no `ATTACH`, no extensions, only `user_version` and
    /// `application_id` may be set), within [`Limits::schema_timeout`]. The database is built in
    /// a temporary file beside `path` and linked into place only when complete, so `path` is
    /// either absent or whole. An existing file is never replaced
    /// ([`OpenError::AlreadyExists`]). Missing parent directories are created. A database
    /// created in this process counts as backed up: its first write makes no `.bak`.
    #[expect(
        clippy::disallowed_methods,
        reason = "SQLite opens its files by name; the path was resolved by flowmcp_files::Root (SECURITY.md, \"Files\")"
    )]
    pub fn create(path: &Path, schema_sql: &str, limits: &Limits) -> Result<Database, OpenError> {
        if flowmcp_files::named::symlink_metadata(path).is_ok() {
            return Err(OpenError::AlreadyExists {
                path: path.to_path_buf(),
            });
        }
        let io_err = |source| OpenError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file_name = path.file_name().ok_or_else(|| {
            io_err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path has no file name",
            ))
        })?;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        flowmcp_files::named::create_dir_all(&dir).map_err(io_err)?;
        let temp = dir.join(temp_name(file_name, "create"));
        if let Err(message) = build_schema(&temp, schema_sql, limits) {
            remove_own_database(&temp);
            return Err(OpenError::Schema {
                path: path.to_path_buf(),
                message,
            });
        }
        let placed = match fs::hard_link(&temp, path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(OpenError::AlreadyExists {
                path: path.to_path_buf(),
            }),
            // A file system without hard links: rename, after checking again that the place is free.
            Err(_) if flowmcp_files::named::symlink_metadata(path).is_err() => {
                fs::rename(&temp, path).map_err(io_err)
            }
            Err(_) => Err(OpenError::AlreadyExists {
                path: path.to_path_buf(),
            }),
        };
        remove_own_database(&temp);
        placed?;
        let canonical = flowmcp_files::named::canonical(path).map_err(io_err)?;
        backed_up_files()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(canonical);
        Database::open(path, Mode::FileBased, limits)
    }

    /// The mode the database was opened in.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The database file (canonical path).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs one statement with `params` bound by position (`?` placeholders, first value to the
    /// first placeholder) and returns its rows.
    ///
    /// This is both `runSql` and the schema-defined queries. The statement must be exactly
    /// one: a trailing `;`, whitespace and comments are fine, a second statement is
    /// [`SqlError::Refused`] and nothing runs. What the statement may do is decided by the
    /// mode's authorizer (see the module documentation). Rows stop at
    /// `limits.rows` (at most [`MAX_ROWS`]) or at the byte cap, whichever comes first, and
    /// [`Rows::truncated`] says whether rows were left; an author's own `LIMIT` applies as
    /// written, so the smaller limit wins.
    ///
    /// In [`Mode::FileBased`], the first statement that may write (as SQLite classifies it)
    /// first saves a consistent copy of the database as `<name>.bak` beside it (temporary file,
    /// then rename, replacing an older `.bak`). This happens once per file per process — the
    /// process being the session — whichever `Database` handle writes first; if the copy fails,
    /// the write is not run ([`SqlError::Backup`]).
    pub fn query(
        &self,
        sql: &str,
        params: &[Value],
        limits: &QueryLimits,
    ) -> Result<Rows, SqlError> {
        self.run(sql, params, limits.rows.min(MAX_ROWS), limits)
    }

    /// `describeTables`: one row `{table_name, column, type}` for every column of every table,
    /// from [`DESCRIBE_TABLES_SQL`]. Every column is returned (no row limit); the time limit and
    /// byte cap of `limits` apply.
    pub fn describe_tables(&self, limits: &QueryLimits) -> Result<Rows, SqlError> {
        self.run(DESCRIBE_TABLES_SQL, &[], usize::MAX, limits)
    }

    fn run(
        &self,
        sql: &str,
        params: &[Value],
        row_cap: usize,
        limits: &QueryLimits,
    ) -> Result<Rows, SqlError> {
        self.take_denial();
        let mut stmt = self
            .conn
            .prepare_cached(sql)
            .map_err(|e| self.error(e, limits))?;
        let width = stmt.column_count();
        if width == 0 && stmt.expanded_sql().is_none() {
            return Err(SqlError::InvalidInput {
                reason: "there is no SQL statement, only whitespace or comments".to_owned(),
            });
        }
        let writes = !stmt.readonly();
        if writes && self.mode == Mode::ReadOnly {
            return Err(SqlError::Refused {
                reason: READ_ONLY.to_owned(),
            });
        }
        let expected = stmt.parameter_count();
        if expected != params.len() {
            return Err(SqlError::InvalidInput {
                reason: format!(
                    "the statement has {expected} parameter(s) but {} value(s) were given",
                    params.len()
                ),
            });
        }
        value::bind(&mut stmt, params).map_err(|reason| SqlError::InvalidInput { reason })?;
        if writes {
            self.ensure_backup()?;
        }
        let columns: Vec<String> = (0..width)
            .map(|i| {
                stmt.column_name(i)
                    .map_or_else(|_| format!("column{}", i + 1), str::to_owned)
            })
            .collect();
        let changes_before = self.conn.total_changes();
        let mut out: Vec<Map<String, Value>> = Vec::new();
        let mut cut = None;
        {
            let _armed = self.deadline.arm(limits.timeout);
            let mut bytes = 2usize;
            let mut rows = stmt.raw_query();
            loop {
                let row = match rows.next() {
                    Ok(Some(row)) => row,
                    Ok(None) => break,
                    Err(e) => return Err(self.error(e, limits)),
                };
                if out.len() >= row_cap {
                    cut = Some(Cut::Rows);
                    break;
                }
                let mut object = Map::with_capacity(width);
                let mut size = 3usize;
                for (i, name) in columns.iter().enumerate() {
                    let cell = row.get_ref(i).map_err(|e| self.error(e, limits))?;
                    let (json, len) = value::to_json(cell);
                    size += name.len() + 4 + len;
                    object.insert(name.clone(), json);
                }
                if bytes.saturating_add(size) > limits.max_bytes {
                    if out.is_empty() {
                        return Err(SqlError::TooLarge {
                            max_bytes: limits.max_bytes,
                        });
                    }
                    cut = Some(Cut::Bytes);
                    break;
                }
                bytes += size;
                out.push(object);
            }
        }
        let changes = if writes {
            self.conn.total_changes().saturating_sub(changes_before)
        } else {
            0
        };
        Ok(Rows {
            columns,
            rows: out,
            truncated: cut.is_some(),
            cut,
            changes,
        })
    }

    /// Saves `<name>.bak` unless this file was already backed up in this process.
    fn ensure_backup(&self) -> Result<(), SqlError> {
        if self.backed_up.get() {
            return Ok(());
        }
        let mut done = backed_up_files()
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !done.contains(&self.path) {
            write_backup(&self.conn, &self.path)?;
            done.insert(self.path.clone());
        }
        self.backed_up.set(true);
        Ok(())
    }

    fn take_denial(&self) -> Option<String> {
        self.denial
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn error(&self, e: rusqlite::Error, limits: &QueryLimits) -> SqlError {
        // A statement the authorizer denied fails to compile; SQLite reports some denials (of
        // functions, for one) as plain errors, so the authorizer's own record decides.
        if let Some(reason) = self.take_denial() {
            return SqlError::Refused { reason };
        }
        let (code, message) = match e {
            rusqlite::Error::SqliteFailure(f, msg) => {
                (f.code, msg.unwrap_or_else(|| f.to_string()))
            }
            rusqlite::Error::SqlInputError {
                error, msg, offset, ..
            } => (
                error.code,
                format!("{msg} (at byte {offset} of the statement)"),
            ),
            rusqlite::Error::MultipleStatement => {
                return SqlError::Refused {
                    reason: "only one statement may run per call, and the SQL holds more than one"
                        .to_owned(),
                };
            }
            rusqlite::Error::NulError(_) => {
                return SqlError::InvalidInput {
                    reason: "the SQL contains a NUL character".to_owned(),
                };
            }
            other => {
                return SqlError::Sql {
                    message: other.to_string(),
                };
            }
        };
        match code {
            ErrorCode::OperationInterrupted => SqlError::Timeout {
                limit_ms: limits.timeout.as_millis(),
            },
            ErrorCode::AuthorizationForStatementDenied => SqlError::Refused { reason: message },
            ErrorCode::ReadOnly => SqlError::Refused {
                reason: READ_ONLY.to_owned(),
            },
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => SqlError::Busy,
            ErrorCode::DatabaseCorrupt
            | ErrorCode::NotADatabase
            | ErrorCode::SystemIoFailure
            | ErrorCode::CannotOpen
            | ErrorCode::DiskFull => SqlError::Unreadable { message },
            // The attached-database limit is 0; SQLite says so when a statement (VACUUM) tries.
            _ if message.contains("too many attached databases") => SqlError::Refused {
                reason:
                    "statements that open another database file (ATTACH, VACUUM) are not allowed"
                        .to_owned(),
            },
            _ => SqlError::Sql { message },
        }
    }
}

const READ_ONLY: &str =
    "this resource is read-only: statements that change the database are not allowed";

/// Applies the hardening every connection gets, the time-limit handler and the authorizer.
fn prepare_connection(
    mut conn: Connection,
    policy: Policy,
    limits: &Limits,
) -> rusqlite::Result<(Connection, Arc<Deadline>, Denial)> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
    conn.set_limit(
        Limit::SQLITE_LIMIT_SQL_LENGTH,
        clamp_i32(limits.max_sql_length),
    )?;
    conn.set_limit(
        Limit::SQLITE_LIMIT_LENGTH,
        clamp_i32(limits.max_value_length),
    )?;
    conn.set_prepared_statement_cache_capacity(limits.statement_cache);
    let deadline = Arc::new(Deadline {
        base: Instant::now(),
        at: AtomicU64::new(Deadline::NONE),
    });
    let watched = Arc::clone(&deadline);
    conn.progress_handler(PROGRESS_STEPS, Some(move || watched.passed()))?;
    let denial: Denial = Arc::new(Mutex::new(None));
    guard::install(&mut conn, policy, Arc::clone(&denial))?;
    Ok((conn, deadline, denial))
}

fn clamp_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Builds a new database at `temp` from `schema_sql` in one transaction.
#[expect(
    clippy::disallowed_methods,
    reason = "SQLite opens its files by name; the path was resolved by flowmcp_files::Root (SECURITY.md, \"Files\")"
)]
fn build_schema(temp: &Path, schema_sql: &str, limits: &Limits) -> Result<(), String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(temp, flags).map_err(|e| e.to_string())?;
    let (mut conn, deadline, denial) =
        prepare_connection(conn, Policy::Schema, limits).map_err(|e| e.to_string())?;
    let explain = |e: rusqlite::Error| {
        let denied = denial.lock().unwrap_or_else(PoisonError::into_inner).take();
        match e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::OperationInterrupted => {
                format!(
                    "the schema SQL ran past its time limit of {} ms",
                    limits.schema_timeout.as_millis()
                )
            }
            other => {
                denied.map_or_else(|| other.to_string(), |reason| format!("refused: {reason}"))
            }
        }
    };
    {
        let _armed = deadline.arm(limits.schema_timeout);
        let tx = conn.transaction().map_err(explain)?;
        tx.execute_batch(schema_sql).map_err(explain)?;
        tx.commit().map_err(explain)?;
    }
    conn.close().map_err(|(_, e)| e.to_string())?;
    flowmcp_files::named::open(temp)
        .and_then(|f| f.sync_all())
        .map_err(|e| e.to_string())
}

/// Writes a consistent copy of the open database to `<path>.bak`: the backup API into a
/// temporary file beside it, then a rename.
#[expect(
    clippy::disallowed_methods,
    reason = "SQLite opens its files by name; the path was resolved by flowmcp_files::Root (SECURITY.md, \"Files\")"
)]
fn write_backup(conn: &Connection, path: &Path) -> Result<(), SqlError> {
    let mut bak_name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    bak_name.push(".bak");
    let bak = path.with_file_name(&bak_name);
    let failed = |message: String| SqlError::Backup {
        path: bak.clone(),
        message,
    };
    let temp = path.with_file_name(temp_name(&bak_name, "backup"));
    let copied = conn
        .backup(
            rusqlite::MAIN_DB,
            &temp,
            None::<fn(rusqlite::backup::Progress)>,
        )
        .map_err(|e| failed(e.to_string()))
        .and_then(|()| {
            flowmcp_files::named::open(&temp)
                .and_then(|f| f.sync_all())
                .map_err(|e| failed(e.to_string()))
        })
        .and_then(|()| fs::rename(&temp, &bak).map_err(|e| failed(e.to_string())));
    if copied.is_err() {
        remove_own_database(&temp);
    }
    copied
}

/// The files backed up in this process (canonical paths).
fn backed_up_files() -> &'static Mutex<HashSet<PathBuf>> {
    static FILES: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    FILES.get_or_init(|| Mutex::new(HashSet::new()))
}

/// A hidden temporary name beside the file, unique in this process.
fn temp_name(file_name: &std::ffi::OsStr, purpose: &str) -> std::ffi::OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut name = std::ffi::OsString::from(".");
    name.push(file_name);
    name.push(format!(".{purpose}-{}-{n}.tmp", std::process::id()));
    name
}

/// Removes a temporary database this engine made, with the journal files SQLite may have left
/// beside it. Only ever called on names from [`temp_name`].
fn remove_own_database(temp: &Path) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut name = temp.as_os_str().to_os_string();
        name.push(suffix);
        let _ = flowmcp_files::named::remove_file(PathBuf::from(name));
    }
}

/// The canonical path of an existing regular file.
fn existing_file(path: &Path) -> Result<PathBuf, OpenError> {
    match flowmcp_files::named::metadata(path) {
        Ok(meta) if meta.is_file() => {
            flowmcp_files::named::canonical(path).map_err(|source| OpenError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
        Ok(_) => Err(OpenError::NotAFile {
            path: path.to_path_buf(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(OpenError::Missing {
            path: path.to_path_buf(),
        }),
        Err(source) => Err(OpenError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// `file:` URI for a read-only, immutable open of an absolute path; every byte other than
/// unreserved characters and `/` is percent-encoded, so `?`, `#` and `%` in names are safe.
fn file_uri(path: &Path) -> String {
    let raw = path.as_os_str().as_encoded_bytes();
    // A canonical Windows path starts with the verbatim prefix `\\?\`, which URIs do not take.
    let raw = if cfg!(windows) {
        raw.strip_prefix(br"\\?\").unwrap_or(raw)
    } else {
        raw
    };
    let mut uri = String::with_capacity(raw.len() + 32);
    uri.push_str("file:");
    if cfg!(windows) {
        uri.push('/');
    }
    for &byte in raw {
        let byte = if cfg!(windows) && byte == b'\\' {
            b'/'
        } else {
            byte
        };
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.push_str("?mode=ro&immutable=1");
    uri
}
