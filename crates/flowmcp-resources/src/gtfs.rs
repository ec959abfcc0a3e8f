//! `sqlite-gtfs` resources (chapter 13): the `${FLOWMCP_RESOURCES}` path variable and the seal.
//!
//! A `sqlite-gtfs` resource names a SQLite database made by an add-on's converter. Its `path`
//! may start from the variable `${FLOWMCP_RESOURCES}` ([`resolve_path`]), and the database must
//! carry the quality seal in its `meta` table ([`check_seal`]): `qualitySeal = 'sqlite-gtfs'`
//! and the ten [`REQUIRED_META_KEYS`]. The `specRevision` the converter targeted is compared
//! with the revisions this implementation knows ([`spec_revision_in_range`]).
//!
//! Like the rest of the crate, this module reads no environment: the caller passes the value of
//! `FLOWMCP_RESOURCES` and the home directory.
//!
//! ```
//! use std::path::{Path, PathBuf};
//! use flowmcp_resources::gtfs::{resolve_path, spec_revision_in_range, SUPPORTED_SPEC_REVISION};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let from_env = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", Some("/data/flowmcp"), None)?;
//! assert_eq!(from_env, PathBuf::from("/data/flowmcp/gtfs-de.db"));
//! let from_home = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", None, Some(Path::new("/home/ada")))?;
//! assert_eq!(from_home, PathBuf::from("/home/ada/.flowmcp/resources/gtfs-de.db"));
//! // Neither the variable nor a home directory: nothing to resolve against.
//! let unresolved = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", None, None).unwrap_err();
//! assert_eq!(unresolved.code().as_str(), "RES035");
//! assert!(spec_revision_in_range(SUPPORTED_SPEC_REVISION));
//! assert!(!spec_revision_in_range("2031-01-01"));
//! # Ok(())
//! # }
//! ```

use std::path::Path;

use serde_json::Value;

pub use flowmcp_spec::gtfs::{
    EARLIEST_SPEC_REVISION, PATH_VARIABLE, PathVarError, QUALITY_SEAL, REQUIRED_META_KEYS,
    SUPPORTED_SPEC_REVISION, Seal, SealError, resolve_path, spec_revision_in_range,
};

use crate::sqlite::{Database, Limits, Mode, OpenError, QueryLimits};

/// The most characters of `qualitySeal` and `specRevision` read; longer values are cut (they are
/// wrong either way).
const VALUE_CHARS: usize = 200;

/// Checks the quality seal of the database at `db`.
///
/// The file is opened as [`Mode::ReadOnly`] resources are (read-only, immutable, under the
/// read-only authorizer), so the check never changes it and leaves no journal beside it. The
/// `meta` table is read by its `key` and `value` columns (matched without regard to case), or,
/// when it has no such columns, by its first and second column if it has exactly two. A key
/// counts as present when a row holds it with a value that is not NULL; when a key appears in
/// several rows, the first row read wins.
///
/// The seal is valid when `qualitySeal` is `'sqlite-gtfs'` and all ten
/// [`REQUIRED_META_KEYS`] are present. A file that cannot be opened or read is
/// [`SealError::Unopenable`] (`RES033`); a database without a `meta` table, with a `meta` table
/// of another shape, without the seal or with missing keys is `RES032`, because such a database
/// opens fine but does not carry the seal.
pub fn check_seal(db: &Path) -> Result<Seal, SealError> {
    let database = Database::open(db, Mode::ReadOnly, &Limits::default()).map_err(unopenable)?;
    let read = |sql: &str| {
        database
            .query(sql, &[], &QueryLimits::default())
            .map_err(|e| SealError::Unopenable {
                reason: e.to_string(),
            })
    };
    let columns: Vec<String> = read("SELECT name FROM pragma_table_info('meta')")?
        .rows
        .iter()
        .filter_map(|row| row.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect();
    if columns.is_empty() {
        return Err(SealError::NoMetaTable);
    }
    let named = |wanted: &str| columns.iter().find(|c| c.eq_ignore_ascii_case(wanted));
    let (key, value) = match (named("key"), named("value")) {
        (Some(k), Some(v)) => (k.clone(), v.clone()),
        _ if columns.len() == 2 => (columns[0].clone(), columns[1].clone()),
        _ => return Err(SealError::MetaShape { columns }),
    };
    let wanted = REQUIRED_META_KEYS
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let (key, value) = (quote_identifier(&key), quote_identifier(&value));
    let sql = format!(
        "SELECT CAST({key} AS TEXT) AS k, \
                substr(CAST({value} AS TEXT), 1, {VALUE_CHARS}) AS v \
         FROM meta WHERE CAST({key} AS TEXT) IN ({wanted})"
    );
    let mut values: Vec<(&'static str, Option<String>)> = Vec::new();
    for row in read(&sql)?.rows {
        let Some(k) = row.get("k").and_then(Value::as_str) else {
            continue;
        };
        let Some(&known) = REQUIRED_META_KEYS.iter().find(|r| **r == k) else {
            continue;
        };
        if values.iter().any(|(seen, _)| *seen == known) {
            continue;
        }
        let v = row.get("v").and_then(Value::as_str).map(str::to_owned);
        values.push((known, v));
    }
    let value_of = |k: &str| {
        values
            .iter()
            .find(|(seen, _)| *seen == k)
            .and_then(|(_, v)| v.clone())
    };
    let seal = value_of("qualitySeal");
    if seal.as_deref() != Some(QUALITY_SEAL) {
        return Err(SealError::NotSealed { found: seal });
    }
    let missing: Vec<&'static str> = REQUIRED_META_KEYS
        .into_iter()
        .filter(|k| value_of(k).is_none())
        .collect();
    if !missing.is_empty() {
        return Err(SealError::MissingKeys { missing });
    }
    Ok(Seal::complete(value_of("specRevision").unwrap_or_default()))
}

/// An identifier quoted for SQL: in double quotes, inner double quotes doubled.
fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The reason an open failed, in words without the path (the caller names the path as the
/// schema wrote it).
fn unopenable(e: OpenError) -> SealError {
    let reason = match e {
        OpenError::Missing { .. } => "no file exists at this path".to_owned(),
        OpenError::NotAFile { .. } => "the path is not a regular file".to_owned(),
        OpenError::Sqlite { message, .. } => message,
        OpenError::Io { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    SealError::Unopenable { reason }
}
