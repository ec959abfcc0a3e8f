//! Scaffolding shared by the resource engines' tests: a temporary directory removed when dropped,
//! and databases made with plain rusqlite.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system's temporary directory, removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    /// `flowmcp-<label>-<pid>-<n>`, empty.
    pub(crate) fn new(label: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "flowmcp-{label}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// The `.flowmcp` project base inside this directory.
    pub(crate) fn base(&self) -> PathBuf {
        self.0.join(".flowmcp")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes a database at `path` with plain rusqlite (rollback journal), as a user's file would be.
pub(crate) fn make_db(path: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(sql).unwrap();
    conn.close().unwrap();
}
