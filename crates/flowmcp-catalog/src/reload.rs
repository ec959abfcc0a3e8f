//! Reloading a catalog after its files changed: only the changed files are read and validated
//! again, and a file that is broken now keeps its previous good version.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use flowmcp_runtime::LoadProblem;
use flowmcp_spec::FileReport;
use rayon::prelude::*;

use crate::CatalogError;
use crate::open::{
    Callable, Catalog, Contents, Origin, ReadFile, Stamp, manifest_stamps, read_stamped, stamp,
    tree_files,
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
    /// Changed files that now have errors and keep serving their previous good version whole
    /// (tools, resources, prompts, skills, a selection or an agent), with the report that says
    /// what is wrong.
    pub kept: Vec<FileReport>,
}

impl Reload {
    /// Whether the tools may differ from before (something changed or went away).
    pub fn tools_changed(&self) -> bool {
        self.changed.len() > self.kept.len() || !self.removed.is_empty()
    }
}

/// A catalog's files as they are on disk now.
struct OnDisk {
    /// A manifest catalog's `registry.json` or a shared list changed (or came or went).
    manifest_changed: bool,
    /// Every file with its stamp now, in the catalog's order.
    files: Vec<(PathBuf, Stamp)>,
    /// Links out of a plain directory that were not followed.
    problems: Vec<LoadProblem>,
}

impl Catalog {
    /// What is on disk now: one look at each file's metadata (and a walk of a plain directory).
    fn on_disk(&self) -> Result<OnDisk, CatalogError> {
        let manifest_changed = match &self.origin {
            Origin::Manifest(stamps) => manifest_changed(&self.root, stamps),
            _ => false,
        };
        let (paths, problems) = match &self.origin {
            Origin::Tree => tree_files(&self.root)?,
            _ => (
                self.files.iter().map(|f| f.path.clone()).collect(),
                Vec::new(),
            ),
        };
        let files = paths
            .into_iter()
            .map(|p| {
                let s = stamp(&p);
                (p, s)
            })
            .collect();
        Ok(OnDisk {
            manifest_changed,
            files,
            problems,
        })
    }

    /// Whether `now` differs from what the catalog read.
    fn differs(&self, now: &OnDisk) -> bool {
        now.manifest_changed
            || now.files.len() != self.files.len()
            || now
                .files
                .iter()
                .zip(&self.files)
                .any(|((p, s), f)| *p != f.path || *s != f.stamp)
    }

    /// Whether any file of the catalog changed since it was read: a file's modification time or
    /// length, a file added or removed, and for a manifest catalog `registry.json` or a shared
    /// list. Cheap (file metadata only); [`Catalog::reload`] makes the same check itself.
    pub fn is_stale(&self) -> bool {
        self.on_disk().map_or(true, |now| self.differs(&now))
    }

    /// The catalog as its files are now, or `None` when nothing changed.
    ///
    /// Files whose stamp (modification time and length) is unchanged are not read again. A
    /// changed file is read and validated again; if it now has errors but had a good version
    /// before, the good version keeps serving — everything it gave: tools and resources, prompts
    /// and skills, a selection, an agent — and the file is listed in [`Reload::kept`]. Both need a
    /// catalog opened [`reloadable`](crate::CatalogOptions::reloadable); otherwise every file is
    /// read again and a broken one loses what it gave. A change to a manifest catalog's
    /// `registry.json` or shared lists reads the whole catalog again (with the same fallback per
    /// file). Registered prompt and resource sources carry over.
    pub fn reload(&self) -> Result<Option<Reload>, CatalogError> {
        let now = self.on_disk()?;
        if !self.differs(&now) {
            return Ok(None);
        }
        let opts = &self.options;
        let old: HashMap<&PathBuf, usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (&f.path, i))
            .collect();
        let (origin, mut fresh) = if now.manifest_changed {
            // The manifest or a shared list changed: everything is read again.
            Catalog::open(&self.root, opts)?.into_parts()
        } else {
            let discovery = opts.discovery();
            let files = now
                .files
                .par_iter()
                .map(|(p, s)| {
                    let before = old.get(p).map(|&i| (&self.files[i], self.file_report(i)));
                    match before {
                        // Unchanged and kept: not read again.
                        Some((f, Some(report)))
                            if *s == f.stamp && !matches!(f.callable, Callable::Taken) =>
                        {
                            ReadFile {
                                state: f.clone(),
                                report: report.clone(),
                            }
                        }
                        _ => {
                            let mut read = read_stamped(&self.root, p, *s, opts, &discovery);
                            read.state.listed = before.is_none_or(|(f, _)| f.listed);
                            read
                        }
                    }
                })
                .collect();
            let catalog_report = if self.has_manifest() {
                self.reports().first().cloned()
            } else {
                None
            };
            let contents = Contents {
                catalog_report,
                files,
                problems: now.problems,
                lists: self.lists().clone(),
            };
            (self.origin.clone(), contents)
        };

        // What changed, and the fallback to the previous good version of broken files: whole —
        // its tools and resources, and its prompts, skills, selection or agent (issue #28 7j).
        let mut changed = Vec::new();
        let mut kept = Vec::new();
        for f in &mut fresh.files {
            let before = old.get(&f.state.path).map(|&i| &self.files[i]);
            if before.is_some_and(|b| b.stamp == f.state.stamp) {
                // Unchanged (read again only because no copy was kept).
                continue;
            }
            changed.push(f.report.file().to_string());
            let broken = !f.state.good
                || before.is_some_and(|b| {
                    matches!(b.callable, Callable::Source(_))
                        && !matches!(f.state.callable, Callable::Source(_))
                });
            if let Some(b) = before
                && broken
                && b.good
                && !matches!(b.callable, Callable::Taken)
            {
                f.state.callable = b.callable.clone();
                f.state.part = b.part.clone();
                f.state.good = true;
                kept.push(f.report.clone());
            }
        }
        let present: HashSet<&PathBuf> = fresh.files.iter().map(|f| &f.state.path).collect();
        let removed = self
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| !present.contains(&f.path))
            .filter_map(|(i, _)| self.file_report(i).map(|r| r.file().to_string()))
            .collect();
        let mut catalog = Catalog::assemble(self.root.clone(), origin, fresh, opts);
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
fn manifest_changed(root: &std::path::Path, stamps: &[(PathBuf, Stamp)]) -> bool {
    let now = manifest_stamps(root);
    now.len() != stamps.len() || now.iter().zip(stamps).any(|(a, b)| a != b)
}
