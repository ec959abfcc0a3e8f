//! FlowMCP's one door to the file system.
//!
//! Every file flowmcp reads, writes, lists or removes goes through this crate, by one of two
//! doors, and nothing else in the workspace may touch the file system by path (clippy's
//! `disallowed-methods`, configured in the workspace's `clippy.toml`, refuses it, and
//! `cargo xtask tidy` keeps the exceptions to this crate):
//!
//! * [`Root`]: a directory the caller vouches for (a catalog the user named, the project, the
//!   user's cache or capture folder) plus the folders flowmcp owns below it. Every file inside
//!   is opened through a directory handle ([`cap_std::fs::Dir`]) that the kernel does not let a
//!   path leave: `..`, absolute names and symbolic links that lead outside fail when the file is
//!   opened, not when a path string is compared. A catalog, a project or a repository decides
//!   what is inside its folder, never what is outside it.
//! * [`named`]: a path the *user* named (a command-line argument, the user's configuration, an
//!   environment variable the user set). It is used as given, links followed, because the user
//!   chose it; nothing read from a catalog or project may reach these functions.
//!
//! A catalog names files in several ways: a resource's `name` under its origin's folder, an
//! `http` resource's `path` for its downloaded copy, a FlowMCP 3.0 `database`, and names (a
//! namespace, a tool, a test's route) that become parts of the file names of captures and cache
//! entries. Text from a file is either
//!
//! * a relative path, checked by [`flowmcp_spec::paths::check_relative`] (no `..`, not absolute,
//!   no `~`) and then resolved with [`Root::resolve`] or opened with [`Root::read_capped`], or
//! * a name, turned into one harmless component by [`flowmcp_spec::paths::encode_name`] and
//!   joined with [`Root::join_names`].
//!
//! A root's *folders* (`.flowmcp`, `resources`, `cache`) must be real directories: a symbolic
//! link in a folder's place is refused and named ([`PathError::LinkedFolder`]), whatever it
//! points at, so a repository that ships `.flowmcp -> ../.ssh` gets no root at all. The paths
//! [`Root::resolve`] and [`Root::join_names`] return are for SQLite (which opens files by name)
//! and for messages.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use flowmcp_files::{named, PathError, Root};
//!
//! let dir = std::env::temp_dir().join(format!("flowmcp-files-doc-{}", std::process::id()));
//! named::create_dir_all(&dir)?;
//! let root = Root::new(&dir);
//! root.write_atomic("copies/data.txt".as_ref(), b"hello", &|_| true)?;
//! assert_eq!(root.read_capped("copies/data.txt".as_ref(), 1024)?, b"hello");
//! assert!(root.resolve("copies/data.txt")?.ends_with("copies/data.txt"));
//! assert!(matches!(root.resolve("../.bashrc"), Err(PathError::Relative { .. })));
//! assert!(root.join_names(["../x", "y"])?.ends_with("%2E%2E%2Fx/y"));
//!
//! // A folder flowmcp owns may not be a link, wherever it points.
//! named::create_dir_all(&dir.join("elsewhere"))?;
//! # #[allow(clippy::disallowed_methods)]
//! std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join(".flowmcp"))?;
//! let project = Root::with_folders(&dir, [".flowmcp"]);
//! assert!(matches!(project.resolve("copy.db"), Err(PathError::LinkedFolder { .. })));
//! # named::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

// The one crate that may call the path-taking file functions clippy refuses elsewhere.
#![allow(clippy::disallowed_methods)]

mod atomic;
pub mod named;
mod root;
pub mod walk;

pub use root::{Entry, EntryKind, PathError, Root, Staged};

use std::path::Path;

/// The bytes of the file at `path` when it has at most `cap` bytes. With an `anchor` (the
/// directory the user named, in which a walk found `path`), the file is read through the
/// anchor's handle ([`Root::read_capped`]), so a file or folder swapped for a link that leads
/// out since the walk is not read; without one (a file the user named), by its path
/// ([`named::read_capped`]). A path outside its anchor is an error.
pub fn read_found(
    anchor: Option<&Path>,
    path: &Path,
    cap: u64,
) -> Result<Vec<u8>, named::ReadCappedError> {
    use named::ReadCappedError;
    let Some(anchor) = anchor else {
        return named::read_capped(path, cap);
    };
    let relative = path.strip_prefix(anchor).map_err(|_| {
        ReadCappedError::Io(std::io::Error::other(format!(
            "{} is not inside {}",
            path.display(),
            anchor.display()
        )))
    })?;
    Root::new(anchor)
        .read_capped(relative, cap)
        .map_err(|e| match e {
            PathError::TooLarge { size, .. } => ReadCappedError::TooLarge(size),
            PathError::Io { source, .. } => ReadCappedError::Io(source),
            other => ReadCappedError::Io(std::io::Error::other(other.to_string())),
        })
}

/// This crate's version (its `Cargo.toml`'s). The catalog's cache of validation results keys its
/// entries by the version of every flowmcp crate a validation runs through, so a fixed rule in a
/// newer release never serves results an older one cached.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
