//! `sqlite-gtfs` resources (chapter 13), the part that is pure: the `${FLOWMCP_RESOURCES}` path
//! variable ([`resolve_path`]), the quality seal's vocabulary ([`Seal`], [`SealError`],
//! [`REQUIRED_META_KEYS`]) and the specification revisions a seal may name
//! ([`spec_revision_in_range`]). Reading a database's seal opens SQLite and lives in
//! `flowmcp-resources` (`gtfs::check_seal`), which re-exports everything here.
//!
//! Nothing here reads the environment: the caller passes the value of `FLOWMCP_RESOURCES` and the
//! home directory.
//!
//! ```
//! use std::path::{Path, PathBuf};
//! use flowmcp_spec::gtfs::{resolve_path, spec_revision_in_range, SUPPORTED_SPEC_REVISION};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let from_env = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", Some("/data/flowmcp"), None)?;
//! assert_eq!(from_env, PathBuf::from("/data/flowmcp/gtfs-de.db"));
//! let from_home = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", None, Some(Path::new("/home/ada")))?;
//! assert_eq!(from_home, PathBuf::from("/home/ada/.flowmcp/resources/gtfs-de.db"));
//! let unresolved = resolve_path("${FLOWMCP_RESOURCES}/gtfs-de.db", None, None).unwrap_err();
//! assert_eq!(unresolved.code().as_str(), "RES035");
//! assert!(spec_revision_in_range(SUPPORTED_SPEC_REVISION));
//! assert!(!spec_revision_in_range("2031-01-01"));
//! # Ok(())
//! # }
//! ```

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::Code;

/// The one path variable chapter 13 defines.
pub const PATH_VARIABLE: &str = "FLOWMCP_RESOURCES";

/// The value of the `qualitySeal` meta key that marks a `sqlite-gtfs` database.
pub const QUALITY_SEAL: &str = "sqlite-gtfs";

/// The keys the `meta` table of a sealed database must hold, in the order chapter 13 lists them.
pub const REQUIRED_META_KEYS: [&str; 10] = [
    "qualitySeal",
    "specRevision",
    "specUrl",
    "converterVersion",
    "capabilities",
    "validationReport",
    "buildDate",
    "rowCounts",
    "sourceUrl",
    "sourceHash",
];

/// The newest specification revision this implementation supports: the revision chapter 13 of
/// FlowMCP v4.2.0 names as the one converters target.
pub const SUPPORTED_SPEC_REVISION: &str = "2026-04-27";

/// The oldest specification revision a sealed database may name. The `sqlite-gtfs` contract
/// (seal, ten meta keys) first appears in revision [`SUPPORTED_SPEC_REVISION`], so a seal that
/// claims an earlier revision predates the contract it claims to meet. While only one revision
/// is known the range holds that one date; it widens when [`SUPPORTED_SPEC_REVISION`] moves on.
pub const EARLIEST_SPEC_REVISION: &str = "2026-04-27";

/// Whether a database's `meta.specRevision` lies in the range this implementation expects.
///
/// A revision is an ISO calendar date `YYYY-MM-DD` (a real date: month 01–12, a day that exists
/// in that month), compared as a date. It is in range when it is neither before
/// [`EARLIEST_SPEC_REVISION`] nor after [`SUPPORTED_SPEC_REVISION`]: an older one predates the
/// `sqlite-gtfs` contract, a newer one was written for a specification this implementation does
/// not know yet (the spec drift `RES034` warns about). Anything that is not such a date is out
/// of range.
pub fn spec_revision_in_range(revision: &str) -> bool {
    crate::catalog::is_iso_date(revision)
        && revision >= EARLIEST_SPEC_REVISION
        && revision <= SUPPORTED_SPEC_REVISION
}

/// Why a `path` could not be resolved. Every variant is `RES035`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathVarError {
    /// `${FLOWMCP_RESOURCES}` is used, but the variable is not set (or empty) and there is no
    /// home directory to take the default `~/.flowmcp/resources` from.
    #[error(
        "`${{FLOWMCP_RESOURCES}}` cannot be resolved: the environment variable is not set and there is no home directory for the default ~/.flowmcp/resources"
    )]
    Unresolved,
    /// A `${…}` variable other than `${FLOWMCP_RESOURCES}`: no other path variable is defined.
    #[error("unknown path variable `${{{name}}}`: only `${{FLOWMCP_RESOURCES}}` is defined")]
    Unknown {
        /// The variable's name as written.
        name: String,
    },
    /// `${` without a closing `}`.
    #[error("unterminated path variable: `${{` without a closing `}}`")]
    Unterminated,
}

impl PathVarError {
    /// The stable code of this error: always `RES035`.
    pub fn code(&self) -> Code {
        Code::RES035
    }
}

/// Resolves the path variables in a `sqlite-gtfs` `path`.
///
/// Each `${FLOWMCP_RESOURCES}` becomes `env_value` (the caller's `FLOWMCP_RESOURCES`) when it is
/// given and not empty, otherwise `<home>/.flowmcp/resources`. No variable and no home directory
/// is [`PathVarError::Unresolved`]; any other `${NAME}` is [`PathVarError::Unknown`] (only one
/// variable is defined, and an unknown one would silently resolve to nothing); a `${` that is not
/// closed is [`PathVarError::Unterminated`]. A `$` that does not start `${` is kept as written,
/// as is a path without variables. The result is not made absolute and not checked on disk.
pub fn resolve_path(
    path: &str,
    env_value: Option<&str>,
    home: Option<&Path>,
) -> Result<PathBuf, PathVarError> {
    let mut out = OsString::with_capacity(path.len());
    let mut rest = path;
    while let Some(start) = rest.find("${") {
        out.push(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or(PathVarError::Unterminated)?;
        let name = &after[..end];
        if name != PATH_VARIABLE {
            return Err(PathVarError::Unknown {
                name: name.to_owned(),
            });
        }
        match (env_value.filter(|v| !v.is_empty()), home) {
            (Some(value), _) => out.push(value),
            (None, Some(home)) => out.push(home.join(".flowmcp").join("resources")),
            (None, None) => return Err(PathVarError::Unresolved),
        }
        rest = &after[end + 1..];
    }
    out.push(rest);
    Ok(PathBuf::from(out))
}

/// What a sealed database's `meta` table holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Seal {
    /// `meta.specRevision` as text (check it with [`spec_revision_in_range`]).
    pub spec_revision: String,
    /// The required keys found: all of [`REQUIRED_META_KEYS`], as the check succeeded.
    pub found: Vec<&'static str>,
}

impl Seal {
    /// The seal of a database whose `meta` table holds all [`REQUIRED_META_KEYS`] with
    /// `qualitySeal = 'sqlite-gtfs'` and the given `specRevision`.
    pub fn complete(spec_revision: String) -> Seal {
        Seal {
            spec_revision,
            found: REQUIRED_META_KEYS.to_vec(),
        }
    }
}

/// Why a database does not carry a usable seal.
///
/// | variant | code |
/// |---|---|
/// | [`Unopenable`](SealError::Unopenable) | `RES033` (missing, not a regular file, not a database, corrupt) |
/// | every other variant | `RES032` (the seal is absent or incomplete) |
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SealError {
    /// The file cannot be opened or read as a SQLite database.
    #[error("the database cannot be opened: {reason}")]
    Unopenable {
        /// What went wrong, in words (without the path).
        reason: String,
    },
    /// The database opens but has no `meta` table: it was not made by a sealing converter.
    #[error("the database has no `meta` table, so it carries no quality seal")]
    NoMetaTable,
    /// The `meta` table has neither `key`/`value` columns nor exactly two columns.
    #[error("the `meta` table has no key/value columns (found: {})", columns.join(", "))]
    MetaShape {
        /// The columns the table has.
        columns: Vec<String>,
    },
    /// `meta.qualitySeal` is missing, null or not `'sqlite-gtfs'`.
    #[error("{}", not_sealed(found.as_deref()))]
    NotSealed {
        /// The value found, when the key is there with a value.
        found: Option<String>,
    },
    /// The seal is there, but required meta keys are missing (or null).
    #[error("the `meta` table lacks required keys: {}", missing.join(", "))]
    MissingKeys {
        /// The missing keys, in the order of [`REQUIRED_META_KEYS`].
        missing: Vec<&'static str>,
    },
}

fn not_sealed(found: Option<&str>) -> String {
    match found {
        None => "`meta.qualitySeal` is missing or null (a failed or partial conversion)".to_owned(),
        Some(value) => format!("`meta.qualitySeal` is {value:?}, not {QUALITY_SEAL:?}"),
    }
}

impl SealError {
    /// The stable code of this error (see the table on [`SealError`]).
    pub fn code(&self) -> Code {
        match self {
            SealError::Unopenable { .. } => Code::RES033,
            _ => Code::RES032,
        }
    }
}
