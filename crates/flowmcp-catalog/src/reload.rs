//! Reloading a catalog after its files changed: only the changed files are read and validated
//! again, and a file that is broken now keeps its previous good version.

use std::collections::HashMap;
use std::path::PathBuf;

use flowmcp_spec::FileReport;

use crate::CatalogError;
use crate::discovery::ListDiscovery;
use crate::open::{
    Callable, Catalog, Contents, FileState, Origin, manifest_stamps, read_one, stamp, tree_files,
};

/// What [`Catalog::reload`] gave.
#[derive(Debug)]
pub struct Reload {
    /// The catalog as it is now.
    pub catalog: Catalog,
    /// Files read again because they are new or changed, as reports name them.
    pub changed: Vec<String>,
    /// Files that are gone.
    pub removed: Vec<String>,
    /// Changed files that now have errors and keep serving their previous good version, with
    /// the report that says what is wrong.
    pub kept: Vec<FileReport>,
}

impl Reload {
    /// Whether the tools may differ from before (something changed or went away).
    pub fn tools_changed(&self) -> bool {
        self.changed.len() > self.kept.len() || !self.removed.is_empty()
    }
}

impl Catalog {
    /// Whether any file of the catalog changed since it was read: a file's modification time or
    /// length, a file added or removed, and for a manifest catalog `registry.json` or a shared
    /// list. Cheap (file metadata only); use it to decide whether to [`Catalog::reload`].
    pub fn is_stale(&self) -> bool {
        match &self.origin {
            Origin::Manifest(stamps) => {
                if manifest_changed(&self.root, stamps) {
                    return true;
                }
            }
            Origin::Tree => match tree_files(&self.root) {
                Ok((paths, _)) => {
                    if paths.len() != self.files.len()
                        || paths.iter().zip(&self.files).any(|(p, f)| *p != f.path)
                    {
                        return true;
                    }
                }
                Err(_) => return true,
            },
            Origin::Files => {}
        }
        self.files.iter().any(|f| stamp(&f.path) != f.stamp)
    }

    /// The catalog as its files are now, or `None` when nothing changed.
    ///
    /// Files whose stamp (modification time and length) is unchanged are not read again. A
    /// changed file is read and validated again; if it now has errors but had a good version
    /// before, the good version keeps serving and the file is listed in [`Reload::kept`]. Both
    /// need a catalog opened [`reloadable`](crate::CatalogOptions::reloadable); otherwise every
    /// valid file is read again and a broken one loses its tools. A
    /// change to a manifest catalog's `registry.json` or shared lists reads the whole catalog
    /// again (with the same fallback per file). Registered prompt and resource sources carry over.
    pub fn reload(&self) -> Result<Option<Reload>, CatalogError> {
        if !self.is_stale() {
            return Ok(None);
        }
        let opts = &self.options;
        let root = self.root.clone();
        let (origin, mut fresh) = match &self.origin {
            Origin::Manifest(stamps) if manifest_changed(&root, stamps) => {
                // The manifest or a shared list changed: everything is read again.
                Catalog::open(&root, opts)?.into_parts()
            }
            origin => {
                let paths: Vec<PathBuf> = match origin {
                    Origin::Tree => tree_files(&root)?.0,
                    _ => self.files.iter().map(|f| f.path.clone()).collect(),
                };
                let old: HashMap<&PathBuf, &FileState> =
                    self.files.iter().map(|f| (&f.path, f)).collect();
                let discovery = ListDiscovery::new();
                let files = paths
                    .iter()
                    .map(|p| match old.get(p) {
                        // Unchanged and kept: not read again.
                        Some(f)
                            if stamp(p) == f.stamp && !matches!(f.callable, Callable::Taken) =>
                        {
                            (*f).clone()
                        }
                        Some(f) => FileState {
                            listed: f.listed,
                            ..read_one(p, opts, &discovery)
                        },
                        None => read_one(p, opts, &discovery),
                    })
                    .collect();
                let problems = match origin {
                    Origin::Tree => tree_files(&root)?.1,
                    _ => Vec::new(),
                };
                let catalog_report = match origin {
                    Origin::Manifest(_) => self.reports().first().cloned(),
                    _ => None,
                };
                (
                    origin.clone(),
                    Contents {
                        catalog_report,
                        files,
                        problems,
                    },
                )
            }
        };

        // What changed, and the fallback to the previous good version of broken files.
        let old: HashMap<&PathBuf, &FileState> = self.files.iter().map(|f| (&f.path, f)).collect();
        let mut changed = Vec::new();
        let mut kept = Vec::new();
        for f in &mut fresh.files {
            let before = old.get(&f.path);
            if before.is_some_and(|b| b.stamp == f.stamp) {
                // Unchanged (read again only because no copy was kept).
                continue;
            }
            changed.push(f.report.file.clone());
            let broken = !matches!(f.callable, Callable::Source(_));
            if let Some(b) = before
                && broken
                && f.listed
                && matches!(b.callable, Callable::Source(_))
            {
                f.callable = b.callable.clone();
                kept.push(f.report.clone());
            }
        }
        let now: std::collections::HashSet<&PathBuf> =
            fresh.files.iter().map(|f| &f.path).collect();
        let removed = self
            .files
            .iter()
            .filter(|f| !now.contains(&f.path))
            .map(|f| f.report.file.clone())
            .collect();
        let mut catalog = Catalog::assemble(root, origin, fresh, opts);
        catalog.carry_primitives(self);
        Ok(Some(Reload {
            catalog,
            changed,
            removed,
            kept,
        }))
    }
}

/// Whether a manifest catalog's `registry.json` or shared lists differ from `stamps` (a file
/// changed, added or removed).
fn manifest_changed(root: &std::path::Path, stamps: &[(PathBuf, crate::open::Stamp)]) -> bool {
    let now = manifest_stamps(root);
    now.len() != stamps.len() || now.iter().zip(stamps).any(|(a, b)| a != b)
}
