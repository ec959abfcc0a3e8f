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
pub fn walk_mjs(dir: &Path, skip_dir: &dyn Fn(&str) -> bool) -> std::io::Result<MjsWalk> {
    walk_files(dir, skip_dir, &|name| name.ends_with(".mjs"))
}

/// [`walk_mjs`] for the files whose name `take` accepts (`manifest.json`, say) instead of the
/// `.mjs` files, with the same rules for directories and links.
pub fn walk_files(
    dir: &Path,
    skip_dir: &dyn Fn(&str) -> bool,
    take: &dyn Fn(&str) -> bool,
) -> std::io::Result<MjsWalk> {
    let root = Root::new(dir);
    // The catalog directory itself must be there; below it everything is read through its handle,
    // each directory opened through its parent's.
    let handle = root.handle().map_err(std::io::Error::from)?;
    let mut out = MjsWalk::default();
    walk(dir, &root, &handle, Path::new(""), skip_dir, take, &mut out)?;
    Ok(out)
}

/// [`walk_mjs`]'s files only.
pub fn mjs_files(dir: &Path, skip_dir: &dyn Fn(&str) -> bool) -> std::io::Result<Vec<PathBuf>> {
    walk_mjs(dir, skip_dir).map(|w| w.files)
}

/// Walks `handle`, the directory `rel` of the catalog at `dir` (whose handle `root` gives): real
/// directories are entered, links to directories never; a link to a file counts when it stays
/// inside the catalog and is reported in [`MjsWalk::outside_links`] when it leads out.
fn walk(
    dir: &Path,
    root: &Root,
    handle: &cap_std::fs::Dir,
    rel: &Path,
    skip_dir: &dyn Fn(&str) -> bool,
    take: &dyn Fn(&str) -> bool,
    out: &mut MjsWalk,
) -> std::io::Result<()> {
    for e in root.entries(handle, rel).map_err(std::io::Error::from)? {
        let name = e.name.to_string_lossy();
        let child = rel.join(&e.name);
        match e.kind {
            EntryKind::Dir => {
                if name.starts_with('.')
                    || name == "node_modules"
                    || name == "target"
                    || skip_dir(&name)
                {
                    continue;
                }
                let inner = root
                    .child_dir(handle, &e.name, rel)
                    .map_err(std::io::Error::from)?;
                walk(dir, root, &inner, &child, skip_dir, take, out)?;
            }
            EntryKind::File if take(&name) => out.files.push(dir.join(&child)),
            EntryKind::Link if take(&name) => match root.follow_link(&child) {
                Ok(Some(_)) => out.files.push(dir.join(&child)),
                Err(PathError::Escape { .. }) => out.outside_links.push(dir.join(&child)),
                // A dangling link or a link to something else: nothing to read.
                _ => {}
            },
            _ => {}
        }
    }
    Ok(())
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
}
