//! [`LocalFiles`]: the file checks validation delegates (`flowmcp_spec::files::FileChecks`),
//! answered from the local file system with this crate's resolver and SQLite engine.

use std::path::Path;

use flowmcp_spec::files::FileChecks;

use crate::gtfs::{Seal, SealError, check_seal};
use crate::sqlite::{Locations, Origin, schema_sql_file};

/// The file checks of validation on the local file system: an `inline` database is looked for
/// with [`Locations::resolve`] (inside the schema's directory, links followed) and a
/// `sqlite-gtfs` seal is read with [`check_seal`].
///
/// ```
/// use std::path::Path;
/// use flowmcp_resources::LocalFiles;
/// use flowmcp_spec::files::FileChecks;
///
/// let dir = Path::new("/nonexistent-flowmcp-dir");
/// assert_eq!(LocalFiles.inline_database_present(dir, "tokens.db"), Some(false));
/// assert_eq!(LocalFiles.inline_database_present(dir, "../tokens.db"), None);
/// assert_eq!(LocalFiles.gtfs_seal(&dir.join("x.db")).unwrap_err().code().as_str(), "RES033");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalFiles;

impl FileChecks for LocalFiles {
    fn inline_database_present(&self, schema_dir: &Path, name: &str) -> Option<bool> {
        let locations = Locations {
            schema_dir: Some(schema_dir.to_path_buf()),
            ..Locations::default()
        };
        let file = locations.resolve(Origin::Inline, name).ok()?;
        // The runtime builds a missing inline database from `resources/<name stem>.sql`.
        let buildable = flowmcp_files::named::symlink_metadata(&file).is_err()
            && schema_sql_file(schema_dir, name).is_some();
        Some(flowmcp_files::named::is_file(file) || buildable)
    }

    fn gtfs_seal(&self, db: &Path) -> Result<Seal, SealError> {
        check_seal(db)
    }
}
