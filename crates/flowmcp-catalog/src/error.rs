//! The catalog layer's errors: what stops a catalog from being read at all. Everything about the
//! files themselves is a diagnostic in the catalog's report, not an error.

use std::path::Path;

/// Why a catalog (or its manifest) could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// Reading or writing a file or directory failed.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The catalog path is not a directory.
    #[error("{path}: not a directory")]
    NotADirectory { path: String },
    /// `registry.json` exists but is not a JSON object.
    #[error("{path}: {reason}; fix or remove it first")]
    BadRegistry { path: String, reason: String },
    /// `registry.json` is needed and missing.
    #[error("{path}: not found")]
    NoRegistry {
        /// The `registry.json` that is missing.
        path: String,
        /// The catalog directory it should be in.
        dir: String,
    },
    /// A manifest entry names a path that cannot be used (outside the catalog, not a file, …).
    #[error("{0}")]
    Entry(String),
    /// A file to be written would lie outside its folder (a symbolic link leads out).
    #[error(transparent)]
    Path(#[from] flowmcp_files::PathError),
}

impl CatalogError {
    /// An I/O error at `path`.
    pub(crate) fn io(path: &Path, source: std::io::Error) -> CatalogError {
        CatalogError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 29, item 4: the library states the facts; the CLI adds the command that fixes them.
    #[test]
    fn i29_4_no_registry_names_no_cli_command() {
        let e = CatalogError::NoRegistry {
            path: "cat/registry.json".into(),
            dir: "cat".into(),
        };
        assert_eq!(e.to_string(), "cat/registry.json: not found");
    }
}
