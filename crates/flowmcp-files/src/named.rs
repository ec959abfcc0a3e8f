//! Paths the user named: a command-line argument, the user's configuration file, a folder an
//! environment variable the user set points at, or a directory flowmcp created for itself (a
//! temporary folder, the user's cache folder).
//!
//! These are used as given, symbolic links followed, because the user chose them. Nothing read
//! from a catalog, a project or a repository (a schema's `path`, a list's name, a folder inside
//! a catalog) may reach these functions: such a file is opened through a [`Root`](crate::Root)
//! anchored at the directory the user named. The functions are thin on purpose; their point is
//! that every ambient file access of the workspace is one call into this module, where it can be
//! found and reviewed.

use std::fs::{File, Metadata, ReadDir};
use std::io;
use std::path::{Path, PathBuf};

pub use crate::atomic::{ReadCappedError, read_capped, write_atomic, write_cache_file};

/// The bytes of the file at `path`.
pub fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    std::fs::read(path.as_ref())
}

/// The text of the file at `path` (UTF-8).
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    std::fs::read_to_string(path.as_ref())
}

/// The file at `path`, opened for reading.
pub fn open(path: impl AsRef<Path>) -> io::Result<File> {
    File::open(path.as_ref())
}

/// The metadata of what `path` names, links followed.
pub fn metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    std::fs::metadata(path.as_ref())
}

/// The metadata of what `path` names, a link itself reported as a link.
pub fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    std::fs::symlink_metadata(path.as_ref())
}

/// Whether `path` names a regular file (links followed).
pub fn is_file(path: impl AsRef<Path>) -> bool {
    path.as_ref().is_file()
}

/// Whether `path` names a directory (links followed).
pub fn is_dir(path: impl AsRef<Path>) -> bool {
    path.as_ref().is_dir()
}

/// Whether anything is at `path` (a link that points nowhere counts as nothing).
pub fn exists(path: impl AsRef<Path>) -> bool {
    path.as_ref().exists()
}

/// Whether anything is at `path`, a link counted even when it points nowhere.
pub fn occupied(path: impl AsRef<Path>) -> bool {
    std::fs::symlink_metadata(path.as_ref()).is_ok()
}

/// `path` made absolute with every link resolved.
pub fn canonical(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    std::fs::canonicalize(path.as_ref())
}

/// The entries of the directory at `path`.
pub fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    std::fs::read_dir(path.as_ref())
}

/// Creates the directory at `path` and the missing ones above it.
pub fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::create_dir_all(path.as_ref())
}

/// Removes the directory at `path` and everything in it. Only for a directory this process
/// created for itself (a temporary folder): flowmcp never deletes what it did not write.
pub fn remove_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::remove_dir_all(path.as_ref())
}

/// Removes the file at `path`. Only for a file this process wrote (a temporary file).
pub fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::remove_file(path.as_ref())
}

/// Removes the directory at `path` when it is empty. Only for a directory this process made.
pub fn remove_empty_dir(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::remove_dir(path.as_ref())
}

/// The text of the file at `path` when it has at most `limit` bytes and is UTF-8 (a configuration
/// or `.env` file the user named, a schema's SQL): a larger file, or a device that never ends
/// such as `/dev/zero`, is an error naming the limit, not a memory hog. The error names neither
/// the path nor the content: "larger than `limit` bytes", "not UTF-8 text", or the system's.
pub fn read_capped_text(path: &Path, limit: u64) -> io::Result<String> {
    let bytes = read_capped(path, limit).map_err(|e| match e {
        ReadCappedError::Io(e) => e,
        ReadCappedError::TooLarge(_) => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {limit} bytes"),
        ),
    })?;
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}
