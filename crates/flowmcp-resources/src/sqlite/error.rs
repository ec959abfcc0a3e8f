//! The errors of the SQLite engine, each with a stable code from the registry.

use std::path::PathBuf;

use flowmcp_spec::Code;

/// Why a query was refused, failed or stopped.
///
/// Every variant has a stable code ([`SqlError::code`]). The engine reuses the runtime's call
/// codes, so a resource call fails the way a tool call does:
///
/// | variant | code |
/// |---|---|
/// | [`Timeout`](SqlError::Timeout), [`Busy`](SqlError::Busy) | `E003` (timeout) |
/// | [`InvalidInput`](SqlError::InvalidInput), [`Sql`](SqlError::Sql) | `E007` (invalid input) |
/// | [`TooLarge`](SqlError::TooLarge) | `E008` (response too large) |
/// | [`Refused`](SqlError::Refused), [`Backup`](SqlError::Backup) | `E009` (refused request) |
/// | [`Unreadable`](SqlError::Unreadable) | `RES033` (database cannot be read) |
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SqlError {
    /// The statement ran past its time limit and was interrupted; nothing of it is returned.
    #[error("the query was stopped after its time limit of {limit_ms} ms")]
    Timeout {
        /// The time limit, in milliseconds.
        limit_ms: u128,
    },
    /// The database stayed locked by another connection for longer than the busy timeout.
    #[error("the database is locked by another connection")]
    Busy,
    /// The statement is not allowed here: a write on a read-only resource, ATTACH, extension
    /// loading, a pragma that changes settings, transaction control, or more than one statement.
    #[error("refused: {reason}")]
    Refused {
        /// What was refused, in a sentence.
        reason: String,
    },
    /// The arguments do not fit the statement: wrong number of parameters, a value that is not
    /// a JSON scalar, or no statement at all.
    #[error("invalid input: {reason}")]
    InvalidInput {
        /// What is wrong, in a sentence.
        reason: String,
    },
    /// SQLite rejected the statement (syntax, unknown table or column, constraint, …).
    #[error("SQL error: {message}")]
    Sql {
        /// SQLite's message.
        message: String,
    },
    /// A single row is larger than the result byte cap, so not even one row can be returned.
    #[error("one row is larger than the result cap of {max_bytes} bytes")]
    TooLarge {
        /// The cap, in bytes of JSON (approximately).
        max_bytes: usize,
    },
    /// The backup copy could not be written, so the write that needed it was not run.
    #[error("the write was not run: the backup {} could not be written: {message}", path.display())]
    Backup {
        /// The backup file that was to be written.
        path: PathBuf,
        /// The cause.
        message: String,
    },
    /// The database file cannot be read (corrupt, not a database, I/O error).
    #[error("the database file cannot be read: {message}")]
    Unreadable {
        /// SQLite's message.
        message: String,
    },
}

impl SqlError {
    /// The stable code of this error (see the table on [`SqlError`]).
    pub fn code(&self) -> Code {
        match self {
            SqlError::Timeout { .. } | SqlError::Busy => Code::E003,
            SqlError::InvalidInput { .. } | SqlError::Sql { .. } => Code::E007,
            SqlError::TooLarge { .. } => Code::E008,
            SqlError::Refused { .. } | SqlError::Backup { .. } => Code::E009,
            SqlError::Unreadable { .. } => Code::RES033,
        }
    }
}

/// Why a database could not be opened or created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// There is no file at the expected place.
    #[error(
        "no database file at {}: create it first (a file-based resource is created from its schema SQL)",
        path.display()
    )]
    Missing {
        /// The path where the database was expected.
        path: PathBuf,
    },
    /// [`Database::create`](super::Database::create) found a file already there; it is left
    /// alone.
    #[error("a file already exists at {}; it is not replaced", path.display())]
    AlreadyExists {
        /// The existing file.
        path: PathBuf,
    },
    /// Something other than a regular file is at the path.
    #[error("{} is not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// SQLite could not open or read the file (not a database, corrupt, no permission).
    #[error("cannot open the database {}: {message}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// SQLite's message.
        message: String,
    },
    /// The schema SQL given to [`Database::create`](super::Database::create) failed; no file
    /// was created.
    #[error("the schema SQL for {} failed, nothing was created: {message}", path.display())]
    Schema {
        /// The database that was to be created.
        path: PathBuf,
        /// SQLite's message, or the refusal.
        message: String,
    },
    /// A file-system operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path the operation was on.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl OpenError {
    /// The stable code of this error: `RES020` for a missing file, `E007` for failing schema
    /// SQL, `RES033` for the rest.
    pub fn code(&self) -> Code {
        match self {
            OpenError::Missing { .. } => Code::RES020,
            OpenError::Schema { .. } => Code::E007,
            _ => Code::RES033,
        }
    }
}
