//! The one place where a file flowmcp reads or writes on behalf of a catalog gets its path.
//!
//! A catalog names files in several ways: a resource's `name` under its origin's folder, an
//! `http` resource's `path` for its downloaded copy, a FlowMCP 3.0 `database`, and names (a
//! namespace, a tool, a test's route) that become parts of the file names of captures and cache
//! entries. Every such path is resolved by a [`Root`]: a directory the user's configuration or
//! the layout of the catalog gives (the schema's directory, the project's `.flowmcp/`, the user's
//! `~/.flowmcp/`, the cache directory, a capture directory). Text from a file is either
//!
//! * a relative path, checked by [`flowmcp_spec::paths::check_relative`] (no `..`, not absolute,
//!   no `~`) and then resolved with [`Root::resolve`], or
//! * a name, turned into one harmless component by [`flowmcp_spec::paths::encode_name`] and
//!   joined with [`Root::join_names`].
//!
//! Either way the result has its existing part canonicalized (symbolic links followed) and must
//! still lie inside the root, so a link in the catalog that leads elsewhere is refused too.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use flowmcp_resources::paths::{PathError, Root};
//!
//! let dir = std::env::temp_dir().join(format!("flowmcp-paths-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let root = Root::new(&dir);
//! assert!(root.resolve("copies/data.db")?.ends_with("copies/data.db"));
//! assert!(matches!(root.resolve("../.bashrc"), Err(PathError::Relative { .. })));
//! assert!(root.join_names(["../x", "y"])?.ends_with("%2E%2E%2Fx/y"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use flowmcp_spec::paths::{PathFault, check_relative, encode_name};

/// Why a path cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// A resource name is not a plain file name ending in `.db` or `.md`.
    #[error("resource name {name:?} {reason}")]
    BadName {
        /// The name as given.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The base folder name for `project`/`global` is not a plain name.
    #[error("base folder name {base:?} must be a plain name without separators")]
    BadBase {
        /// The base as given.
        base: String,
    },
    /// The directory this origin needs was not given by the caller.
    #[error("no {what} was given, so origin `{origin}` cannot be resolved")]
    NoLocation {
        /// The origin.
        origin: &'static str,
        /// The missing directory, in words.
        what: &'static str,
    },
    /// A relative path from a file is not usable ([`check_relative`]).
    #[error("path {path:?} {fault}")]
    Relative {
        /// The path as written.
        path: String,
        /// What is wrong with it.
        fault: PathFault,
    },
    /// The path leads out of its root (through a symbolic link or `..`).
    #[error("{} leads outside {}", path.display(), root.display())]
    Escape {
        /// The path as resolved.
        path: PathBuf,
        /// The root it must stay in.
        root: PathBuf,
    },
    /// A symbolic link on the way points nowhere, so where it leads cannot be checked.
    #[error("{} is a symbolic link that points nowhere", path.display())]
    DanglingLink {
        /// The link.
        path: PathBuf,
    },
    /// A file-system operation failed while resolving.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path the operation was on.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

/// A directory that files may be read from or written to on behalf of a catalog. Every path
/// handed out lies inside it after symbolic links are followed. The directory itself need not
/// exist yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// The root at `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Root {
        Root { dir: dir.into() }
    }

    /// The directory, as given.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `relative` (a path written in a file) inside this root: refused when
    /// [`check_relative`] refuses it, or when it leads outside through a symbolic link.
    pub fn resolve(&self, relative: &str) -> Result<PathBuf, PathError> {
        check_relative(relative).map_err(|fault| PathError::Relative {
            path: relative.to_owned(),
            fault,
        })?;
        self.inside(&self.dir.join(relative))
    }

    /// The path made of `names` (any text: each becomes one component through
    /// [`encode_name`]) inside this root; refused only when a symbolic link already on disk
    /// leads outside.
    pub fn join_names<'n>(
        &self,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<PathBuf, PathError> {
        let mut path = self.dir.clone();
        for name in names {
            path.push(encode_name(name));
        }
        self.inside(&path)
    }

    /// `candidate` (built by the caller from this root and checked parts) with its existing part
    /// canonicalized, when it stays inside the root.
    pub fn inside(&self, candidate: &Path) -> Result<PathBuf, PathError> {
        let root = canonical_prefix(&self.dir)?;
        let resolved = canonical_prefix(candidate)?;
        if resolved.starts_with(&root) {
            Ok(resolved)
        } else {
            Err(PathError::Escape {
                path: resolved,
                root,
            })
        }
    }
}

/// The path with its longest existing prefix canonicalized and the rest appended as it is.
/// A missing tail must be plain names (no `..`), and a dangling link is an error.
fn canonical_prefix(path: &Path) -> Result<PathBuf, PathError> {
    let io_err = |source| PathError::Io {
        path: path.to_path_buf(),
        source,
    };
    let absolute = std::path::absolute(path).map_err(io_err)?;
    let mut existing: &Path = &absolute;
    let mut rest: Vec<OsString> = Vec::new();
    loop {
        match fs::canonicalize(existing) {
            Ok(mut found) => {
                for part in rest.iter().rev() {
                    found.push(part);
                }
                return Ok(found);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if fs::symlink_metadata(existing).is_ok() {
                    // Something is there but cannot be followed: a dangling link.
                    return Err(PathError::DanglingLink {
                        path: existing.to_path_buf(),
                    });
                }
                let mut components = existing.components();
                match components.next_back() {
                    Some(Component::Normal(part)) => rest.push(part.to_os_string()),
                    _ => return Err(io_err(e)),
                }
                existing = components.as_path();
            }
            Err(e) => return Err(io_err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("flowmcp-paths-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
        d
    }

    #[test]
    fn relative_paths_and_links_stay_inside() {
        let base = temp("links");
        let root_dir = base.join("root");
        fs::create_dir_all(root_dir.join("sub")).unwrap_or_else(|e| panic!("{e}"));
        let root = Root::new(&root_dir);
        assert!(root.resolve("sub/a.db").is_ok());
        assert!(root.resolve("new/dir/a.db").is_ok());
        for bad in ["../a.db", "/etc/passwd", "~/x", "sub/../../a"] {
            assert!(
                matches!(root.resolve(bad), Err(PathError::Relative { .. })),
                "{bad}"
            );
        }
        // A link inside the root that leads out is refused, for paths and for names.
        std::os::unix::fs::symlink(&base, root_dir.join("out")).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            root.resolve("out/x.db"),
            Err(PathError::Escape { .. })
        ));
        assert!(matches!(
            root.join_names(["out", "x"]),
            Err(PathError::Escape { .. })
        ));
        // A relative link deeper in the tree that climbs out is refused too.
        std::os::unix::fs::symlink("../..", root_dir.join("sub/up"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            root.resolve("sub/up/x.db"),
            Err(PathError::Escape { .. })
        ));
        // A dangling link cannot be checked, so it is refused.
        std::os::unix::fs::symlink(base.join("nowhere"), root_dir.join("dangling"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            root.resolve("dangling"),
            Err(PathError::DanglingLink { .. })
        ));
        // Names never climb.
        let p = root
            .join_names(["..", "../..", "a/b"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(p.starts_with(fs::canonicalize(&root_dir).unwrap_or_else(|e| panic!("{e}"))));
        assert_eq!(p.components().count(), root_dir.components().count() + 3);
        let _ = fs::remove_dir_all(&base);
    }
}

/// Properties over arbitrary input (issue #27): whatever a catalog writes, a resolved path stays
/// inside its root, with symbolic links in, out of and nowhere on the way.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A tree with a real directory, a link inside, a link out and a dangling link.
    fn tree() -> (PathBuf, Root) {
        let base = std::env::temp_dir().join(format!("flowmcp-paths-prop-{}", std::process::id()));
        let root_dir = base.join("root");
        if !root_dir.join("in").exists() {
            let _ = fs::create_dir_all(root_dir.join("sub/deeper"));
            let _ = fs::create_dir_all(base.join("outside"));
            let _ = std::os::unix::fs::symlink(root_dir.join("sub"), root_dir.join("in"));
            let _ = std::os::unix::fs::symlink(base.join("outside"), root_dir.join("out"));
            let _ = std::os::unix::fs::symlink(base.join("gone"), root_dir.join("dangling"));
            let _ = std::os::unix::fs::symlink("../../outside", root_dir.join("sub/up"));
        }
        let canonical = fs::canonicalize(&root_dir).unwrap_or(root_dir.clone());
        (canonical, Root::new(root_dir))
    }

    /// Path segments a hostile catalog might write.
    fn segment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("..".to_string()),
            Just(".".to_string()),
            Just(String::new()),
            Just("~".to_string()),
            Just("in".to_string()),
            Just("out".to_string()),
            Just("up".to_string()),
            Just("dangling".to_string()),
            Just("sub".to_string()),
            Just("deeper".to_string()),
            Just("C:".to_string()),
            "[a-z.~:\\\\\\x00-\\x1f%]{1,6}",
            "\\PC{1,4}",
        ]
    }

    fn relative() -> impl Strategy<Value = String> {
        (prop::bool::ANY, prop::collection::vec(segment(), 0..6)).prop_map(|(lead, parts)| {
            let joined = parts.join("/");
            if lead { format!("/{joined}") } else { joined }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn a_resolved_path_never_leaves_its_root(text in relative()) {
            let (canonical, root) = tree();
            if let Ok(path) = root.resolve(&text) {
                prop_assert!(path.starts_with(&canonical), "{text:?} -> {}", path.display());
                prop_assert!(!path.components().any(|c| c == Component::ParentDir));
                prop_assert!(flowmcp_spec::paths::check_relative(&text).is_ok());
            }
        }

        #[test]
        fn names_never_leave_their_root(names in prop::collection::vec(segment(), 1..5)) {
            let (canonical, root) = tree();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            if let Ok(path) = root.join_names(refs) {
                prop_assert!(path.starts_with(&canonical), "{names:?} -> {}", path.display());
                prop_assert_eq!(
                    path.components().count(),
                    canonical.components().count() + names.len()
                );
            }
        }
    }
}
