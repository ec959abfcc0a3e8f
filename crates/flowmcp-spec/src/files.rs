//! The checks of files a schema names that need more than its own text: a database beside the
//! schema (found through a resolver that follows links and stays inside its root) and the
//! quality seal of a `sqlite-gtfs` database (read with SQLite).
//!
//! Validation asks them through [`FileChecks`], so that the validator itself opens no database
//! and depends on no engine: `flowmcp-resources` implements it (`flowmcp_resources::LocalFiles`),
//! and whoever validates files on disk (the catalog, the CLI) passes that in. Without one, the
//! checks of RES020, RES032, RES033 and RES034 do not run, as for a schema validated from a
//! string.

use std::path::Path;

use crate::gtfs::{Seal, SealError};

/// The file checks validation delegates (see the module documentation).
pub trait FileChecks: Send + Sync + std::fmt::Debug {
    /// Whether the `inline` SQLite database `name` of a schema in `schema_dir` is there or can be
    /// built: a regular file at `<schema_dir>/resources/<name>`, or, when nothing is at that
    /// place, the schema SQL `<schema_dir>/resources/<name stem>.sql` it is built from. `None`
    /// when `name` cannot name such a database or its place leaves the schema's directory (other
    /// rules report the name).
    fn inline_database_present(&self, schema_dir: &Path, name: &str) -> Option<bool>;

    /// The quality seal of the `sqlite-gtfs` database at `db`, opened read-only without changing
    /// it.
    fn gtfs_seal(&self, db: &Path) -> Result<Seal, SealError>;
}
