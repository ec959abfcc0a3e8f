//! Where a resource's database file lives: `inline`, `project` or `global`, plus its name.

use std::path::{Path, PathBuf};

use flowmcp_files::{PathError, Root};

/// The base folder name used by `project` and `global` when none is configured.
pub use flowmcp_spec::paths::DEFAULT_BASE;

/// The storage location of a resource file (the `origin` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Beside the schema: `{schema dir}/resources/{name}`.
    Inline,
    /// In the project: `{project base}/resources/{name}`, the project base being for example
    /// the nearest `.flowmcp/` directory.
    Project,
    /// In the user's home: `{home}/.{base}/resources/{name}`.
    Global,
}

impl Origin {
    /// Reads the spelling used in schemas: `inline`, `project` or `global`.
    pub fn parse(text: &str) -> Option<Origin> {
        match text {
            "inline" => Some(Origin::Inline),
            "project" => Some(Origin::Project),
            "global" => Some(Origin::Global),
            _ => None,
        }
    }

    /// The spelling used in schemas.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Inline => "inline",
            Origin::Project => "project",
            Origin::Global => "global",
        }
    }
}

/// The directories the three origins resolve against, given by the caller (the library reads
/// no environment). Start from [`Locations::default`] and set fields.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Locations {
    /// The directory of the schema file, for `inline`.
    pub schema_dir: Option<PathBuf>,
    /// The project base directory (for example the nearest `.flowmcp/`), for `project`.
    pub project_base: Option<PathBuf>,
    /// The user's home directory, for `global`.
    pub home: Option<PathBuf>,
    /// The base folder name: `global` uses `{home}/.{base}`. Default [`DEFAULT_BASE`].
    pub base: String,
}

impl Default for Locations {
    fn default() -> Self {
        Locations {
            schema_dir: None,
            project_base: None,
            home: None,
            base: DEFAULT_BASE.to_owned(),
        }
    }
}

/// The schema SQL committed for the database `name` of a schema in `schema_dir`:
/// `<schema_dir>/resources/<name stem>.sql` (`tokens.sql` for `tokens.db`), when that file
/// exists. An inline read-only database that is missing is built from it on first use, and
/// `flowmcp resource init` creates a file-based database from it.
pub fn schema_sql_file(schema_dir: &Path, name: &str) -> Option<PathBuf> {
    let stem = name.strip_suffix(".db").filter(|s| !s.is_empty())?;
    let file = schema_dir.join("resources").join(format!("{stem}.sql"));
    flowmcp_files::named::is_file(&file).then_some(file)
}

impl Locations {
    /// Checks a base folder name: a plain name (the folder is `.{base}`), with no separator and
    /// no `..`. [`Locations::resolve`] refuses others with [`PathError::BadBase`].
    pub fn check_base(base: &str) -> Result<(), PathError> {
        if is_plain(base) {
            Ok(())
        } else {
            Err(PathError::BadBase {
                base: base.to_owned(),
            })
        }
    }

    /// Resolves `name` under `origin`.
    ///
    /// `name` must be a plain file name ending in `.db` or `.md`: no path separator, no `..`, not
    /// hidden. The result has its existing part canonicalized (symbolic links followed) and
    /// must stay inside the origin's root directory (the schema directory, the project base, or
    /// `{home}/.{base}`), so a link that leads elsewhere, or a `resources` directory that is such
    /// a link, is refused. The file itself need not exist; a dangling link in its place is
    /// refused.
    pub fn resolve(&self, origin: Origin, name: &str) -> Result<PathBuf, PathError> {
        let (root, relative) = self.place(origin, name)?;
        root.resolve(&relative)
    }

    /// Where `name` under `origin` lives, unresolved: the origin's [`Root`] and the file's path
    /// relative to it (checked as for [`Locations::resolve`]), so that the file can be opened
    /// through the root's directory handle ([`Root::open_file`]).
    pub fn place(&self, origin: Origin, name: &str) -> Result<(Root, String), PathError> {
        check_name(name)?;
        let root = match origin {
            // The schema's directory is the catalog's; links inside it are followed while they
            // stay inside.
            Origin::Inline => Root::new(self.schema_dir.clone().ok_or(PathError::NoLocation {
                origin: "inline",
                what: "schema directory",
            })?),
            // The project's folder is the repository's: it and its `resources` must be real
            // directories.
            Origin::Project => {
                Root::owned_folder(self.project_base.as_deref().ok_or(PathError::NoLocation {
                    origin: "project",
                    what: "project base directory",
                })?)
                .folder("resources")
            }
            Origin::Global => {
                let home = self.home.as_ref().ok_or(PathError::NoLocation {
                    origin: "global",
                    what: "home directory",
                })?;
                if !is_plain(&self.base) {
                    return Err(PathError::BadBase {
                        base: self.base.clone(),
                    });
                }
                Root::new(home.join(format!(".{}", self.base)))
            }
        };
        let relative = match origin {
            Origin::Project => name.to_owned(),
            Origin::Inline | Origin::Global => format!("resources/{name}"),
        };
        Ok((root, relative))
    }
}

fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && text != "."
        && text != ".."
        && !text.contains(['/', '\\', '\0'])
        && !text.contains("..")
}

fn check_name(name: &str) -> Result<(), PathError> {
    let bad = |reason| {
        Err(PathError::BadName {
            name: name.to_owned(),
            reason,
        })
    };
    if name.contains(['/', '\\']) {
        return bad("must not contain a path separator");
    }
    if name.contains("..") {
        return bad("must not contain `..`");
    }
    if name.contains(['\0', ':']) {
        return bad("must not contain NUL or `:`");
    }
    if name.starts_with('.') {
        return bad("must not start with a dot");
    }
    let stem_of = |ext: &str| name.strip_suffix(ext).filter(|stem| !stem.is_empty());
    if stem_of(".db").is_none() && stem_of(".md").is_none() {
        return bad("must be a file name ending in `.db` (SQLite) or `.md` (markdown)");
    }
    Ok(())
}
