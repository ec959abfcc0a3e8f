//! Finding files (the `.mjs` files of a catalog, say) under a directory, never outside it.

use std::path::{Path, PathBuf};

use crate::{EntryKind, PathError, Root};

/// What [`walk_mjs`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MjsWalk {
    /// The `.mjs` files inside the directory, in sorted order.
    pub files: Vec<PathBuf>,
    /// `.mjs` entries that are symbolic links leading outside the directory (not followed).
    pub outside_links: Vec<PathBuf>,
}

/// The `.mjs` files under `dir`, in sorted order (entries sorted by name at every level). Hidden
/// directories, `node_modules`, `target` and every directory for which `skip_dir(name)` is true are
/// not entered; symbolic links to directories are not followed (no loops). A symbolic link to a file
/// is taken only when its target lies inside `dir` (after resolving every link): a catalog cannot
/// make the walk read a file outside it, such as `../.env` behind `secrets.mjs`. Such links are
/// listed in [`MjsWalk::outside_links`].
pub fn walk_mjs(dir: &Path, skip_dir: &(dyn Fn(&str) -> bool + Sync)) -> std::io::Result<MjsWalk> {
    walk_files(dir, skip_dir, &|name| name.ends_with(".mjs"))
}

/// [`walk_mjs`] for the files whose name `take` accepts (`manifest.json`, say) instead of the
/// `.mjs` files, with the same rules for directories and links.
pub fn walk_files(
    dir: &Path,
    skip_dir: &(dyn Fn(&str) -> bool + Sync),
    take: &(dyn Fn(&str) -> bool + Sync),
) -> std::io::Result<MjsWalk> {
    let root = Root::new(dir);
    // The catalog directory itself must be there; below it everything is read through its handle,
    // each directory opened through its parent's.
    let handle = root.handle().map_err(std::io::Error::from)?;
    walk(dir, &root, &handle, Path::new(""), skip_dir, take)
}

/// [`walk_mjs`]'s files only.
pub fn mjs_files(
    dir: &Path,
    skip_dir: &(dyn Fn(&str) -> bool + Sync),
) -> std::io::Result<Vec<PathBuf>> {
    walk_mjs(dir, skip_dir).map(|w| w.files)
}

/// What one entry of a directory adds to a walk.
enum Found {
    /// A directory entered: its own walk.
    Dir(MjsWalk),
    /// A file taken.
    File(PathBuf),
    /// A link to a file outside the catalog.
    Outside(PathBuf),
    Nothing,
}

/// Walks `handle`, the directory `rel` of the catalog at `dir` (whose handle `root` gives): real
/// directories are entered, links to directories never; a link to a file counts when it stays
/// inside the catalog and is reported in [`MjsWalk::outside_links`] when it leads out.
///
/// The directories of one level are walked at the same time (a catalog's providers are hundreds
/// of small directories, and the walk is the first thing a command does before any file can be
/// read: D172); what they find is put together in the order of their names, so the result, and
/// the first error when there is one, is that of walking them one after the other.
fn walk(
    dir: &Path,
    root: &Root,
    handle: &cap_std::fs::Dir,
    rel: &Path,
    skip_dir: &(dyn Fn(&str) -> bool + Sync),
    take: &(dyn Fn(&str) -> bool + Sync),
) -> std::io::Result<MjsWalk> {
    use rayon::prelude::*;
    let entries = root.entries(handle, rel).map_err(std::io::Error::from)?;
    let found: Vec<std::io::Result<Found>> = entries
        .par_iter()
        .map(|e| {
            let name = e.name.to_string_lossy();
            let child = rel.join(&e.name);
            Ok(match e.kind {
                EntryKind::Dir => {
                    if name.starts_with('.')
                        || name == "node_modules"
                        || name == "target"
                        || skip_dir(&name)
                    {
                        return Ok(Found::Nothing);
                    }
                    let inner = root
                        .child_dir(handle, &e.name, rel)
                        .map_err(std::io::Error::from)?;
                    Found::Dir(walk(dir, root, &inner, &child, skip_dir, take)?)
                }
                EntryKind::File if take(&name) => Found::File(dir.join(&child)),
                EntryKind::Link if take(&name) => match root.follow_link(&child) {
                    Ok(Some(_)) => Found::File(dir.join(&child)),
                    Err(PathError::Escape { .. }) => Found::Outside(dir.join(&child)),
                    // A dangling link or a link to something else: nothing to read.
                    _ => Found::Nothing,
                },
                _ => Found::Nothing,
            })
        })
        .collect();
    let mut out = MjsWalk::default();
    for f in found {
        match f? {
            Found::Dir(inner) => {
                out.files.extend(inner.files);
                out.outside_links.extend(inner.outside_links);
            }
            Found::File(p) => out.files.push(p),
            Found::Outside(p) => out.outside_links.push(p),
            Found::Nothing => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn i40_a_walk_never_leaves_its_directory() {
        let base = std::env::temp_dir().join(format!("flowmcp-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let cat = base.join("cat");
        std::fs::create_dir_all(cat.join("p")).expect("dirs");
        std::fs::write(base.join(".env"), "SECRET=x").expect("env");
        std::fs::write(cat.join("p/a.mjs"), "export const main = {}").expect("a");
        std::os::unix::fs::symlink(cat.join("p/a.mjs"), cat.join("p/b.mjs")).expect("link in");
        std::os::unix::fs::symlink(base.join(".env"), cat.join("p/secrets.mjs")).expect("out");
        std::os::unix::fs::symlink("../../nowhere", cat.join("p/dangling.mjs")).expect("dangle");
        let w = walk_mjs(&cat, &|_| false).expect("walk");
        assert_eq!(w.files, vec![cat.join("p/a.mjs"), cat.join("p/b.mjs")]);
        assert_eq!(w.outside_links, vec![cat.join("p/secrets.mjs")]);
        let _ = std::fs::remove_dir_all(&base);
    }

    /// The directories of a level are walked at once (D172): what they find still comes back in
    /// the order of the names at every level, as a walk one directory after the other gives it.
    #[test]
    fn i46_directories_walked_at_once_come_back_in_name_order() {
        let base = std::env::temp_dir().join(format!("flowmcp-walk-order-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let rels: Vec<String> = [
            "a.mjs",
            "b/x.mjs",
            "b/a/y.mjs",
            "b/a/c/z.mjs",
            "b/b.mjs",
            "c/d/e/f.mjs",
            "c.mjs",
            "d/n.txt",
            "m/m.mjs",
            "m/a.mjs",
            "z/1.mjs",
            "z/0/2.mjs",
        ]
        .iter()
        .map(|r| r.to_string())
        .chain((0..40).map(|n| format!("p/{n:02}/s.mjs")))
        .collect();
        for rel in &rels {
            let path = base.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
            std::fs::write(&path, "export const main = {}").expect("file");
        }
        // A path sorts component by component, which is the order of names at every level.
        let mut expected: Vec<PathBuf> = rels
            .iter()
            .filter(|r| r.ends_with(".mjs"))
            .map(|r| base.join(r))
            .collect();
        expected.sort();
        assert_eq!(expected.len(), 51);
        assert_eq!(expected.get(1), Some(&base.join("b/a/c/z.mjs")));
        assert_eq!(walk_mjs(&base, &|_| false).expect("walk").files, expected);
        let _ = std::fs::remove_dir_all(&base);
    }
}
