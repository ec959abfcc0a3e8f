//! [`Root`]: an anchor the caller vouches for, the folders flowmcp owns below it, and every
//! operation on the files inside through a directory handle.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, OpenOptions};
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
    /// A folder flowmcp owns by name (such as a project's `.flowmcp`) is a symbolic link or not
    /// a directory; it is never used, wherever it points.
    #[error(
        "{} is {what}; flowmcp uses it only as a real directory (a repository may not point it \
         at other files)",
        path.display()
    )]
    LinkedFolder {
        /// The folder.
        path: PathBuf,
        /// What is there instead, in words ("a symbolic link", "not a directory").
        what: &'static str,
    },
    /// A file that would be replaced is not one flowmcp may replace (a symbolic link, a
    /// directory, or a file that is not an earlier copy).
    #[error("{} {reason}; it is left as it is", path.display())]
    NotReplaceable {
        /// The file.
        path: PathBuf,
        /// Why it is not replaced.
        reason: &'static str,
    },
    /// A file that is read only as a regular file is a symbolic link, a directory or another
    /// kind of file.
    #[error("{} {what}; it is read only as a regular file", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What is there instead, in words ("is a symbolic link", "is not a regular file").
        what: &'static str,
    },
    /// A file is larger than the limit its reader allows.
    #[error("{} is larger than the limit ({size} bytes)", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, or the bytes seen when it grew while being read.
        size: u64,
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

impl From<PathError> for io::Error {
    /// The I/O error behind a [`PathError::Io`] as it was (its kind kept); any other path error
    /// as an error of kind `Other` with the path error's message.
    fn from(e: PathError) -> io::Error {
        match e {
            PathError::Io { source, .. } => source,
            other => io::Error::other(other.to_string()),
        }
    }
}

/// A directory that files may be read from or written to on behalf of a catalog: an anchor the
/// caller vouches for and the fixed folders below it (each a real directory). Every path handed
/// out lies inside it after symbolic links are followed; every file it opens is opened through a
/// directory handle that cannot be left. The folders need not exist yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    anchor: PathBuf,
    folders: Vec<OsString>,
}

/// What every temporary file name contains (after a leading `.`): `.<name>.tmp-<pid>-<n>`.
const TEMP_MARK: &str = ".tmp-";
static COUNTER: AtomicU64 = AtomicU64::new(0);

impl Root {
    /// The root at `dir`, a directory the caller vouches for (the user named it, or it is the
    /// directory of a schema file the catalog walk reached without leaving the catalog).
    pub fn new(dir: impl Into<PathBuf>) -> Root {
        Root {
            anchor: dir.into(),
            folders: Vec::new(),
        }
    }

    /// The root at `anchor/folders…`: `anchor` is vouched for by the caller, each of `folders`
    /// (plain names) is owned by flowmcp and used only as a real directory, never through a
    /// symbolic link ([`PathError::LinkedFolder`]).
    pub fn with_folders<'n>(
        anchor: impl Into<PathBuf>,
        folders: impl IntoIterator<Item = &'n str>,
    ) -> Root {
        Root {
            anchor: anchor.into(),
            folders: folders.into_iter().map(OsString::from).collect(),
        }
    }

    /// The root at `folder`, whose parent is vouched for and whose last component is a folder
    /// flowmcp owns (a project's `.flowmcp`): [`Root::with_folders`] of the parent and the name.
    pub fn owned_folder(folder: &Path) -> Root {
        match (folder.parent(), folder.file_name()) {
            (Some(parent), Some(name)) => Root {
                anchor: parent.to_path_buf(),
                folders: vec![name.to_os_string()],
            },
            _ => Root::new(folder),
        }
    }

    /// The root one owned folder deeper (`name`, a plain name, must be a real directory too).
    pub fn folder(&self, name: &str) -> Root {
        let mut deeper = self.clone();
        deeper.folders.push(OsString::from(name));
        deeper
    }

    /// The directory, as given (anchor and folders, nothing resolved).
    pub fn dir(&self) -> PathBuf {
        let mut dir = self.anchor.clone();
        dir.extend(&self.folders);
        dir
    }

    /// `relative` (a path written in a file) inside this root: refused when
    /// [`check_relative`] refuses it, when a folder of the root is a link, or when it leads
    /// outside through a symbolic link.
    pub fn resolve(&self, relative: &str) -> Result<PathBuf, PathError> {
        check_relative(relative).map_err(|fault| PathError::Relative {
            path: relative.to_owned(),
            fault,
        })?;
        self.locate(Path::new(relative))
    }

    /// The path made of `names` (any text: each becomes one component through
    /// [`encode_name`]) inside this root; refused only when a folder of the root is a link or a
    /// symbolic link already on disk leads outside.
    pub fn join_names<'n>(
        &self,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<PathBuf, PathError> {
        let relative: PathBuf = names.into_iter().map(encode_name).collect();
        self.locate(&relative)
    }

    /// `candidate` (built by the caller from [`Root::dir`] and checked parts) with its existing
    /// part canonicalized, when it stays inside the root.
    pub fn inside(&self, candidate: &Path) -> Result<PathBuf, PathError> {
        let dir = self.dir();
        let canonical = self.canonical_dir()?;
        let relative = candidate
            .strip_prefix(&dir)
            .or_else(|_| candidate.strip_prefix(&canonical))
            .ok()
            .filter(|rest| is_plain(rest))
            .ok_or_else(|| PathError::Escape {
                path: candidate.to_path_buf(),
                root: dir.clone(),
            })?;
        self.locate(relative)
    }

    /// `relative` (plain components only, as built by flowmcp from checked parts) inside this
    /// root, like [`Root::resolve`].
    pub fn resolve_plain(&self, relative: &Path) -> Result<PathBuf, PathError> {
        if !is_plain(relative) {
            return Err(PathError::Escape {
                path: relative.to_path_buf(),
                root: self.dir(),
            });
        }
        self.locate(relative)
    }

    /// The bytes of the regular file at `relative` when it has at most `cap` bytes, read
    /// through the handle.
    pub fn read_capped(&self, relative: &Path, cap: u64) -> Result<Vec<u8>, PathError> {
        let dir = self.open(false)?;
        let file = dir
            .open(relative)
            .map_err(|e| self.io_error(relative, e))?
            .into_std();
        let meta = file.metadata().map_err(|e| self.io_error(relative, e))?;
        if !meta.is_file() {
            return Err(self.not_regular(relative, "is not a regular file"));
        }
        crate::atomic::read_open_sized(file, meta.len(), cap).map_err(|e| match e {
            crate::named::ReadCappedError::TooLarge(size) => PathError::TooLarge {
                path: self.dir().join(relative),
                size,
            },
            crate::named::ReadCappedError::Io(e) => self.io_error(relative, e),
        })
    }

    /// [`Root::read_capped`] of a file that must be a regular file itself: a symbolic link in
    /// its place is refused ([`PathError::NotRegular`]) even when it points inside the root.
    /// For files whose place is fixed by name, such as a catalog's `registry.json`.
    pub fn read_regular_file(&self, relative: &Path, cap: u64) -> Result<Vec<u8>, PathError> {
        let dir = self.open(false)?;
        match dir.symlink_metadata(relative) {
            Ok(m) if m.file_type().is_symlink() => {
                Err(self.not_regular(relative, "is a symbolic link"))
            }
            Ok(m) if !m.is_file() => Err(self.not_regular(relative, "is not a regular file")),
            Ok(_) => self.read_capped(relative, cap),
            Err(e) => Err(self.io_error(relative, e)),
        }
    }

    /// Creates the folders of the root and the directories of `relative` (plain components),
    /// each as a real directory.
    pub fn create_dirs(&self, relative: &Path) -> Result<(), PathError> {
        let dir = self.open(true)?;
        if !relative.as_os_str().is_empty() {
            dir.create_dir_all(relative)
                .map_err(|e| self.io_error(relative, e))?;
        }
        Ok(())
    }

    /// Replaces the file at `relative` with `bytes` atomically, through the handle: a new
    /// temporary file beside it, written and flushed, then renamed over it ([`Root::stage`],
    /// [`Staged::commit`]). Missing folders and directories are created. `may_replace` is asked
    /// about an existing regular file before it is replaced (given its first bytes, at most 64);
    /// a symbolic link or a directory in the file's place is never replaced.
    pub fn write_atomic(
        &self,
        relative: &Path,
        bytes: &[u8],
        may_replace: &dyn Fn(&[u8]) -> bool,
    ) -> Result<(), PathError> {
        let mut staged = self.stage(relative)?;
        staged
            .file()
            .and_then(|f| f.write_all(bytes).and_then(|()| f.sync_all()))
            .map_err(|e| self.io_error(relative, e))?;
        staged.commit(may_replace)
    }

    /// [`Root::write_atomic`] for a cache entry: any regular file in its place is replaced, and
    /// nothing is flushed to disk, so readers see the old file, the new one or none, never a
    /// part, but a crash may lose what was written. For caches whose reader checks every entry
    /// it reads; it saves two disk flushes per file.
    pub fn write_cache_file(&self, relative: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let mut staged = self.stage(relative)?;
        staged
            .file()
            .and_then(|f| f.write_all(bytes))
            .map_err(|e| self.io_error(relative, e))?;
        staged.durable = false;
        staged.commit(&|_| true)
    }

    /// A new temporary file beside `relative` (hidden, uniquely named, created through the
    /// handle; missing folders and directories are created), to be filled and then renamed
    /// over `relative` with [`Staged::commit`]. Dropped without a commit, it is removed.
    pub fn stage(&self, relative: &Path) -> Result<Staged, PathError> {
        let (dir, name) = self.parent_handle(relative)?;
        let mut last = None;
        // A name may be taken by a file left behind by a crashed process with the same id.
        for _ in 0..16 {
            let temp = temp_name(&name);
            let mut opts = OpenOptions::new();
            opts.write(true).create_new(true);
            match dir.open_with(&temp, &opts) {
                Ok(file) => {
                    let folder = self.locate(relative.parent().unwrap_or(Path::new("")))?;
                    return Ok(Staged {
                        path: folder.join(&temp),
                        target: self.dir().join(relative),
                        file: Some(file.into_std()),
                        dir,
                        temp,
                        name,
                        placed: false,
                        durable: true,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(self.io_error(relative, e)),
            }
        }
        Err(self.io_error(
            relative,
            last.unwrap_or_else(|| io::Error::other("no free temporary name")),
        ))
    }

    /// The regular file at `relative`, opened for reading through the handle (links followed
    /// only while they stay inside).
    pub fn open_file(&self, relative: &Path) -> Result<std::fs::File, PathError> {
        let dir = self.open(false)?;
        let file = dir
            .open(relative)
            .map_err(|e| self.io_error(relative, e))?
            .into_std();
        match file.metadata() {
            Ok(m) if m.is_file() => Ok(file),
            Ok(_) => Err(self.not_regular(relative, "is not a regular file")),
            Err(e) => Err(self.io_error(relative, e)),
        }
    }

    /// Writes a new file at `relative` through the handle; an existing file (or link) there
    /// fails with `AlreadyExists` and is left as it is. Missing directories are created.
    pub fn write_new(&self, relative: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let (dir, name) = self.parent_handle(relative)?;
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        let mut file = dir
            .open_with(&name, &opts)
            .map_err(|e| self.io_error(relative, e))?
            .into_std();
        let done = file.write_all(bytes).and_then(|()| file.sync_all());
        if let Err(e) = done {
            drop(file);
            let _ = dir.remove_file(&name);
            return Err(self.io_error(relative, e));
        }
        Ok(())
    }

    /// Places a new file holding `bytes` at `relative`, readable and writable by its owner only,
    /// unless something is already there: the bytes go to a temporary file first, which is then
    /// linked into place, so a reader never sees a part and processes racing to create the same
    /// file agree on one. `Ok(false)` when the place was taken (what is there is left as it
    /// is). For secrets flowmcp keeps for itself, such as the cache's binding key.
    pub fn place_private(&self, relative: &Path, bytes: &[u8]) -> Result<bool, PathError> {
        let (dir, name) = self.parent_handle(relative)?;
        let temp = temp_name(&name);
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        cap_std::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let written = (|| {
            let mut file = dir.open_with(&temp, &opts)?.into_std();
            file.write_all(bytes)?;
            file.sync_all()?;
            match dir.hard_link(&temp, &dir, &name) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(e),
            }
        })();
        let _ = dir.remove_file(&temp);
        written.map_err(|e| self.io_error(relative, e))
    }

    /// The entries of the directory at `relative` (empty for the root itself), sorted by name,
    /// read through the handle. Links among them are reported as links ([`EntryKind::Link`]),
    /// never followed.
    pub fn list(&self, relative: &Path) -> Result<Vec<Entry>, PathError> {
        let root = self.open(false)?;
        let dir = if relative.as_os_str().is_empty() {
            root
        } else {
            root.open_dir(relative)
                .map_err(|e| self.io_error(relative, e))?
        };
        self.entries(&dir, relative)
    }

    /// The root's handle, for a walk that lists directory after directory through the handles
    /// of their parents ([`Root::child_dir`], [`Root::entries`]) instead of resolving each one
    /// from the anchor again.
    pub(crate) fn handle(&self) -> Result<Dir, PathError> {
        self.open(false)
    }

    /// The directory `name` (one plain component) inside `parent`, the handle of the directory at
    /// `relative` in the root: opened through `parent`, so it cannot lie outside it.
    pub(crate) fn child_dir(
        &self,
        parent: &Dir,
        name: &std::ffi::OsStr,
        relative: &Path,
    ) -> Result<Dir, PathError> {
        parent
            .open_dir(name)
            .map_err(|e| self.io_error(&relative.join(name), e))
    }

    /// [`Root::list`] of `dir`, the handle of the directory at `relative` in the root.
    pub(crate) fn entries(&self, dir: &Dir, relative: &Path) -> Result<Vec<Entry>, PathError> {
        let mut out = Vec::new();
        for entry in dir.entries().map_err(|e| self.io_error(relative, e))? {
            let entry = entry.map_err(|e| self.io_error(relative, e))?;
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => EntryKind::Link,
                Ok(t) if t.is_dir() => EntryKind::Dir,
                Ok(t) if t.is_file() => EntryKind::File,
                _ => EntryKind::Other,
            };
            out.push(Entry {
                name: entry.file_name(),
                kind,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Where the symbolic link at `relative` leads, every link on the way resolved (absolute
    /// links included): `Ok(Some(file))` for a regular file inside the root, `Ok(None)` when it
    /// points nowhere or at something that is not a regular file, [`PathError::Escape`] when it
    /// leads out. For listings that report links (the catalog walk); a file it finds is to be read
    /// through [`Root::read_capped`] or by the path returned.
    pub fn follow_link(&self, relative: &Path) -> Result<Option<PathBuf>, PathError> {
        let base = self.canonical_dir()?;
        let Ok(real) = std::fs::canonicalize(self.dir().join(relative)) else {
            return Ok(None);
        };
        if !real.starts_with(&base) {
            return Err(PathError::Escape {
                path: self.dir().join(relative),
                root: base,
            });
        }
        Ok(std::fs::metadata(&real)
            .is_ok_and(|m| m.is_file())
            .then_some(real))
    }

    /// What is at `relative`, through the handle, a link reported as a link (not followed).
    /// `None` when nothing is there (or a folder of the root is missing).
    pub fn kind(&self, relative: &Path) -> Result<Option<EntryKind>, PathError> {
        let dir = match self.open(false) {
            Ok(dir) => dir,
            Err(PathError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let target = if relative.as_os_str().is_empty() {
            Path::new(".")
        } else {
            relative
        };
        match dir.symlink_metadata(target) {
            Ok(m) if m.file_type().is_symlink() => Ok(Some(EntryKind::Link)),
            Ok(m) if m.is_dir() => Ok(Some(EntryKind::Dir)),
            Ok(m) if m.is_file() => Ok(Some(EntryKind::File)),
            Ok(_) => Ok(Some(EntryKind::Other)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.io_error(relative, e)),
        }
    }

    /// The metadata of the regular file at `relative` (links followed while they stay inside),
    /// through the handle: its size and modification time.
    pub fn file_metadata(&self, relative: &Path) -> Result<std::fs::Metadata, PathError> {
        let file = self.open_file(relative)?;
        file.metadata().map_err(|e| self.io_error(relative, e))
    }

    /// Removes the file (or link) at `relative`, through the handle; a directory is not
    /// removed.
    pub fn remove_file(&self, relative: &Path) -> Result<(), PathError> {
        let dir = self.open(false)?;
        dir.remove_file(relative)
            .map_err(|e| self.io_error(relative, e))
    }

    /// Removes the directory at `relative` when it is empty, through the handle.
    pub fn remove_empty_dir(&self, relative: &Path) -> Result<(), PathError> {
        let dir = self.open(false)?;
        dir.remove_dir(relative)
            .map_err(|e| self.io_error(relative, e))
    }

    /// The handle of the directory that holds `relative` (created when missing) and the file's
    /// name.
    fn parent_handle(&self, relative: &Path) -> Result<(Dir, OsString), PathError> {
        let name = relative
            .file_name()
            .filter(|_| is_plain(relative))
            .ok_or_else(|| {
                self.io_error(
                    relative,
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "not a plain relative file path",
                    ),
                )
            })?;
        let root = self.open(true)?;
        let dir = match relative.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(parent) => {
                root.create_dir_all(parent)
                    .map_err(|e| self.io_error(parent, e))?;
                root.open_dir(parent)
                    .map_err(|e| self.io_error(parent, e))?
            }
            None => root,
        };
        Ok((dir, name.to_os_string()))
    }

    /// The handle of the root: the anchor opened as the caller gave it, then each folder opened
    /// through the previous handle, refused when it is a link or not a directory, and created
    /// (as a real directory) when `create` is set and it is missing.
    fn open(&self, create: bool) -> Result<Dir, PathError> {
        if create {
            std::fs::create_dir_all(self.anchor_dir()).map_err(|e| PathError::Io {
                path: self.anchor.clone(),
                source: e,
            })?;
        }
        let mut dir = Dir::open_ambient_dir(self.anchor_dir(), cap_std::ambient_authority())
            .map_err(|e| PathError::Io {
                path: self.anchor.clone(),
                source: e,
            })?;
        let mut path = self.anchor.clone();
        for folder in &self.folders {
            path.push(folder);
            match dir.symlink_metadata(folder) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(PathError::LinkedFolder {
                        path,
                        what: "a symbolic link",
                    });
                }
                Ok(m) if !m.is_dir() => {
                    return Err(PathError::LinkedFolder {
                        path,
                        what: "not a directory",
                    });
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                    match dir.create_dir(folder) {
                        Ok(()) => {}
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(PathError::Io { path, source: e }),
                    }
                }
                Err(e) => return Err(PathError::Io { path, source: e }),
            }
            dir = dir.open_dir(folder).map_err(|e| PathError::Io {
                path: path.clone(),
                source: e,
            })?;
        }
        Ok(dir)
    }

    /// `relative` (plain components) inside the root, its existing part resolved through the
    /// handle (links followed only while they stay inside), as an absolute path.
    fn locate(&self, relative: &Path) -> Result<PathBuf, PathError> {
        let base = self.canonical_dir()?;
        let dir = match self.open(false) {
            Ok(dir) => dir,
            // A folder that does not exist yet holds nothing to resolve.
            Err(PathError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                return Ok(base.join(relative));
            }
            Err(e) => return Err(e),
        };
        let mut existing: &Path = relative;
        let mut rest: Vec<OsString> = Vec::new();
        loop {
            if existing.as_os_str().is_empty() {
                return Ok(append(base, &rest));
            }
            match canonical_in(&dir, existing) {
                Ok(found) => return Ok(append(base.join(found), &rest)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if dir.symlink_metadata(existing).is_ok() {
                        // Something is there but cannot be followed: a dangling link.
                        return Err(PathError::DanglingLink {
                            path: base.join(existing),
                        });
                    }
                    let mut components = existing.components();
                    match components.next_back() {
                        Some(Component::Normal(part)) => rest.push(part.to_os_string()),
                        _ => return Err(self.io_error(existing, e)),
                    }
                    existing = components.as_path();
                }
                // cap-std refuses a path that leads outside the handle's directory.
                Err(_) => {
                    return Err(PathError::Escape {
                        path: base.join(existing),
                        root: base,
                    });
                }
            }
        }
    }

    /// The root's directory with the anchor canonicalized (the folders are real directories,
    /// so nothing below it needs resolving).
    fn canonical_dir(&self) -> Result<PathBuf, PathError> {
        let anchor = std::path::absolute(self.anchor_dir()).map_err(|e| PathError::Io {
            path: self.anchor.clone(),
            source: e,
        })?;
        let mut dir = std::fs::canonicalize(&anchor).unwrap_or(anchor);
        dir.extend(&self.folders);
        Ok(dir)
    }

    /// The anchor as a directory to open: the current directory when it is empty (the parent
    /// of a bare file name).
    fn anchor_dir(&self) -> &Path {
        if self.anchor.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.anchor
        }
    }

    fn io_error(&self, relative: &Path, source: io::Error) -> PathError {
        PathError::Io {
            path: self.dir().join(relative),
            source,
        }
    }

    fn not_regular(&self, relative: &Path, what: &'static str) -> PathError {
        PathError::NotRegular {
            path: self.dir().join(relative),
            what,
        }
    }
}

/// One entry of a directory listed by [`Root::list`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name (one component).
    pub name: OsString,
    /// What it is, links not followed.
    pub kind: EntryKind,
}

/// What a directory entry is, symbolic links not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (wherever it points).
    Link,
    /// Anything else (a socket, a device, a FIFO).
    Other,
}

/// A temporary file made by [`Root::stage`], beside the file it is to replace.
#[derive(Debug)]
pub struct Staged {
    dir: Dir,
    temp: OsString,
    name: OsString,
    path: PathBuf,
    target: PathBuf,
    file: Option<std::fs::File>,
    placed: bool,
    durable: bool,
}

impl Staged {
    /// The temporary file, open for writing (opened again, to append, after [`Staged::close`]).
    pub fn file(&mut self) -> io::Result<&mut std::fs::File> {
        if self.file.is_none() {
            let mut opts = OpenOptions::new();
            opts.write(true).append(true);
            self.file = Some(self.dir.open_with(&self.temp, &opts)?.into_std());
        }
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the temporary file is not open"))
    }

    /// Closes the temporary file (so that another reader, such as SQLite, may open it).
    pub fn close(&mut self) {
        self.file = None;
    }

    /// Where the temporary file is (for readers that open files by name).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the temporary file over the target through the handle. An existing regular file
    /// there is replaced only when `may_replace` accepts its first bytes (at most 64); a
    /// symbolic link or a directory is never replaced. On failure the target is untouched and
    /// the temporary file is removed.
    pub fn commit(mut self, may_replace: &dyn Fn(&[u8]) -> bool) -> Result<(), PathError> {
        self.file = None;
        let refuse = |reason| PathError::NotReplaceable {
            path: self.target.clone(),
            reason,
        };
        let io_err = |source| PathError::Io {
            path: self.target.clone(),
            source,
        };
        match self.dir.symlink_metadata(&self.name) {
            Ok(m) if m.file_type().is_symlink() => return Err(refuse("is a symbolic link")),
            Ok(m) if !m.is_file() => return Err(refuse("is not a regular file")),
            Ok(_) => {
                let mut head = [0u8; 64];
                let n = self
                    .dir
                    .open(&self.name)
                    .and_then(|f| read_head(f.into_std(), &mut head))
                    .map_err(io_err)?;
                if !may_replace(head.get(..n).unwrap_or_default()) {
                    return Err(refuse("is not an earlier copy"));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(e)),
        }
        self.dir
            .rename(&self.temp, &self.dir, &self.name)
            .map_err(io_err)?;
        self.placed = true;
        // Make the rename itself durable where directories can be synced (best effort).
        if self.durable {
            let _ = self.dir.open(".").map(|d| d.into_std().sync_all());
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if self.placed {
            return;
        }
        self.file = None;
        // A reader such as SQLite may have left a journal beside it; those are this file's.
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let mut name = self.temp.clone();
            name.push(suffix);
            let _ = self.dir.remove_file(&name);
        }
    }
}

/// `relative` (an existing entry) with its links resolved through `dir`, relative to `dir`. A
/// regular file or directory is not opened itself: only its parent is resolved and its name
/// appended, so a file replaced by a rename at that moment still gives its path (resolving the
/// file itself reads the path of the open, now unlinked, file: `… (deleted)`). A symbolic link
/// is resolved whole.
fn canonical_in(dir: &Dir, relative: &Path) -> io::Result<PathBuf> {
    if dir.symlink_metadata(relative)?.file_type().is_symlink() {
        return dir.canonicalize(relative);
    }
    match (relative.parent(), relative.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => {
            Ok(dir.canonicalize(parent)?.join(name))
        }
        (_, Some(name)) => Ok(PathBuf::from(name)),
        _ => dir.canonicalize(relative),
    }
}

/// Whether `relative` is made of plain names only (no root, prefix, `.` or `..`).
fn is_plain(relative: &Path) -> bool {
    relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
}

/// `base` with `rest` (collected from the end) appended in order.
fn append(mut base: PathBuf, rest: &[OsString]) -> PathBuf {
    for part in rest.iter().rev() {
        base.push(part);
    }
    base
}

/// Reads up to `buf.len()` bytes from the start of `file`.
fn read_head(mut file: std::fs::File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(buf.get_mut(n..).unwrap_or_default())? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// `.<name>.tmp-<pid>-<n>`: unique in this process, hidden, and recognisable.
fn temp_name(name: &std::ffi::OsStr) -> OsString {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!("{TEMP_MARK}{}-{n}", std::process::id()));
    temp
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("flowmcp-paths-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
        d
    }

    /// A file replaced by a rename while it is being resolved still resolves to its own path
    /// (resolving the file itself used to give the open file's path, `… (deleted)`, which a
    /// download racing another then reported as where its copy is).
    #[test]
    fn a_file_replaced_while_it_is_resolved_keeps_its_path() {
        let base = temp("replaced");
        let root = Root::new(&base);
        fs::create_dir_all(base.join("sub")).unwrap_or_else(|e| panic!("{e}"));
        fs::write(base.join("sub/a.db"), b"1").unwrap_or_else(|e| panic!("{e}"));
        let want = root.resolve("sub/a.db").unwrap_or_else(|e| panic!("{e}"));
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let temp = base.join(format!("sub/.a.db.tmp-{n}"));
                    let _ = fs::write(&temp, b"2");
                    let _ = fs::rename(&temp, base.join("sub/a.db"));
                    n += 1;
                }
            });
            // Collected first, checked after the writer stopped (a failed check inside the scope
            // would leave the writer running).
            let seen: Vec<Result<PathBuf, String>> = (0..3000)
                .map(|_| root.resolve("sub/a.db").map_err(|e| e.to_string()))
                .collect();
            stop.store(true, Ordering::Relaxed);
            for got in seen {
                assert_eq!(got.as_ref(), Ok(&want));
            }
        });
        let _ = fs::remove_dir_all(&base);
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
        // A dangling link cannot be checked, so it is refused: one that points outside as a
        // link out, one that points inside as a dangling link.
        std::os::unix::fs::symlink(base.join("nowhere"), root_dir.join("dangling"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            root.resolve("dangling"),
            Err(PathError::Escape { .. } | PathError::DanglingLink { .. })
        ));
        std::os::unix::fs::symlink("sub/missing.db", root_dir.join("dangling-in"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            root.resolve("dangling-in"),
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

    /// A folder that was checked and then replaced by a link out (between check and use) is not
    /// written or read through: the handle resolves the path when the file is opened.
    #[test]
    fn a_folder_replaced_by_a_link_after_the_check_is_not_followed() {
        let base = temp("replaced");
        let root_dir = base.join("root");
        let outside = base.join("outside");
        fs::create_dir_all(root_dir.join("copies")).unwrap_or_else(|e| panic!("{e}"));
        fs::create_dir_all(&outside).unwrap_or_else(|e| panic!("{e}"));
        fs::write(outside.join("data.db"), "outside").unwrap_or_else(|e| panic!("{e}"));
        let root = Root::new(&root_dir);
        // The check passes while `copies` is a real directory.
        assert!(root.resolve("copies/data.db").is_ok());
        // Then it is swapped for a link out.
        fs::remove_dir(root_dir.join("copies")).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(&outside, root_dir.join("copies"))
            .unwrap_or_else(|e| panic!("{e}"));
        let rel = Path::new("copies/data.db");
        assert!(root.read_capped(rel, 1 << 20).is_err());
        assert!(root.write_atomic(rel, b"new", &|_| true).is_err());
        assert!(
            root.write_new(Path::new("copies/other.db"), b"new")
                .is_err()
        );
        assert!(root.stage(rel).is_err());
        assert_eq!(
            fs::read_to_string(outside.join("data.db")).unwrap_or_default(),
            "outside"
        );
        assert!(!outside.join("other.db").exists());
        // A folder flowmcp owns that becomes a link is refused by name, wherever it points.
        let owned = Root::with_folders(&root_dir, ["copies"]);
        assert!(matches!(
            owned.resolve("data.db"),
            Err(PathError::LinkedFolder { .. })
        ));
        // A link in the file's own place is never replaced, even one that stays inside.
        fs::write(root_dir.join("real.db"), "real").unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink("real.db", root_dir.join("alias.db"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            root.write_atomic(Path::new("alias.db"), b"x", &|_| true),
            Err(PathError::NotReplaceable { .. })
        ));
        assert!(matches!(
            root.read_regular_file(Path::new("alias.db"), 100),
            Err(PathError::NotRegular { .. })
        ));
        assert_eq!(
            fs::read_to_string(root_dir.join("real.db")).unwrap_or_default(),
            "real"
        );
        let _ = fs::remove_dir_all(&base);
    }
}

/// Properties over arbitrary input (issue #27): whatever a catalog writes, a resolved path stays
/// inside its root, with symbolic links in, out of and nowhere on the way.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use std::fs;

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
            let _ = std::os::unix::fs::symlink("sub", root_dir.join("in-rel"));
            let _ = fs::write(base.join("outside/secret.txt"), SECRET);
            let _ = std::os::unix::fs::symlink(base.join("outside/secret.txt"), root_dir.join("f"));
        }
        let canonical = fs::canonicalize(&root_dir).unwrap_or(root_dir.clone());
        (canonical, Root::new(root_dir))
    }

    /// What the file outside the root holds; no read through the root may return it.
    const SECRET: &str = "outside-secret-5d1c";

    /// The files under the tree's `outside/` folder, with their bytes.
    fn outside_files() -> Vec<(PathBuf, Vec<u8>)> {
        let base = std::env::temp_dir().join(format!("flowmcp-paths-prop-{}", std::process::id()));
        let mut out: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(base.join("outside"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| (e.path(), fs::read(e.path()).unwrap_or_default()))
            .collect();
        out.sort();
        out
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
        fn handle_reads_and_writes_never_leave_their_root(text in relative(), n in 0u32..1_000_000) {
            let (_, root) = tree();
            let before = outside_files();
            if check_relative(&text).is_ok() {
                let rel = Path::new(&text);
                if let Ok(bytes) = root.read_capped(rel, 1 << 20) {
                    prop_assert!(!String::from_utf8_lossy(&bytes).contains(SECRET), "{text:?}");
                }
                if let Ok(bytes) = root.read_regular_file(rel, 1 << 20) {
                    prop_assert!(!String::from_utf8_lossy(&bytes).contains(SECRET), "{text:?}");
                }
                let file = rel.join(format!("w{n}.txt"));
                let _ = root.write_new(&file, b"written");
                let _ = root.write_atomic(&file, b"replaced", &|_| true);
                let _ = root.create_dirs(rel);
            }
            prop_assert_eq!(outside_files(), before, "{:?} wrote outside", text);
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
