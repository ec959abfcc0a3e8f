//! # flowmcp-resources
//!
//! The engines behind FlowMCP resources (chapter 13), with no tie to catalogs or MCP (the catalog
//! registers resources built on them):
//!
//! - [`Database`]: a SQLite database opened by mode ([`Mode`]: read-only, or file-based and
//!   writable) and queried safely: one statement, through an authorizer, with row, time and byte
//!   limits applied by the engine and values returned losslessly; `describeTables` included.
//! - [`Document`]: a markdown document read whole, by section, by line range or by search.
//! - [`Root`]: the one resolver of every file read or written on behalf of a catalog — a path
//!   written in a file is resolved inside its root, links followed, or refused.
//! - [`LocalFiles`]: the file checks validation uses on this machine (a database beside a schema,
//!   the sqlite-gtfs seal), implementing `flowmcp_spec::files::FileChecks`.
//!
//! The modules hold the rest of each engine's vocabulary (limits, results, errors) and the
//! sqlite-gtfs and HTTP-download helpers.
//!
//! ```
//! use flowmcp_resources::{Database, Document, Limits, QueryLimits};
//!
//! // A database created from its schema SQL, then queried with parameters.
//! let dir = std::env::temp_dir().join(format!("flowmcp-resources-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("notes.db");
//! # let _ = std::fs::remove_file(&path);
//! let db = Database::create(&path, "CREATE TABLE notes (id INTEGER, title TEXT);", &Limits::default())?;
//! let rows = db.query("SELECT count(*) AS n FROM notes WHERE id > ?", &[1.into()], &QueryLimits::default())?;
//! assert_eq!(rows.into_json()[0]["n"], 0);
//! // Only one statement, and nothing that writes outside the rules: a second statement is refused.
//! assert!(db.query("SELECT 1; DROP TABLE notes", &[], &QueryLimits::default()).is_err());
//! # std::fs::remove_dir_all(&dir)?;
//!
//! // A markdown document, read by section.
//! let doc = Document::new("# Guide\n\nIntro.\n\n## Setup\n\nRun it.\n");
//! assert_eq!(doc.headings().len(), 2);
//! assert!(doc.section("Setup")?.to_value().to_string().contains("Run it."));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

mod files;
pub mod gtfs;
pub mod http;
pub mod markdown;
pub mod sqlite;

pub use files::LocalFiles;
pub use flowmcp_files::{PathError, Root};
pub use markdown::{Document, MarkdownError};
pub use sqlite::{Database, Limits, Mode, QueryLimits, Rows};

/// This crate's version (its `Cargo.toml`'s). The catalog's cache of validation results keys its
/// entries by the version of every flowmcp crate a validation runs through, so a fixed rule in a
/// newer release never serves results an older one cached.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
