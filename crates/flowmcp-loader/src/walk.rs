//! Finding `.mjs` files under a directory, never outside it.

use std::path::{Path, PathBuf};

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
    let root = dir.canonicalize()?;
    let mut out = MjsWalk::default();
    walk(dir, &root, skip_dir, take, &mut out)?;
    Ok(out)
}

/// [`walk_mjs`]'s files only.
pub fn mjs_files(dir: &Path, skip_dir: &dyn Fn(&str) -> bool) -> std::io::Result<Vec<PathBuf>> {
    walk_mjs(dir, skip_dir).map(|w| w.files)
}

fn walk(
    dir: &Path,
    root: &Path,
    skip_dir: &dyn Fn(&str) -> bool,
    take: &dyn Fn(&str) -> bool,
    out: &mut MjsWalk,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let ft = e.file_type()?;
        let path = e.path();
        if ft.is_dir() {
            if name.starts_with('.')
                || name == "node_modules"
                || name == "target"
                || skip_dir(&name)
            {
                continue;
            }
            walk(&path, root, skip_dir, take, out)?;
        } else if take(&name) {
            if ft.is_file() {
                out.files.push(path);
            } else if ft.is_symlink() {
                match path.canonicalize() {
                    Ok(real) if real.starts_with(root) => {
                        if real.is_file() {
                            out.files.push(path);
                        }
                    }
                    Ok(_) => out.outside_links.push(path),
                    // A dangling link: nothing to read.
                    Err(_) => {}
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn links_inside_are_taken_links_outside_are_not() {
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
