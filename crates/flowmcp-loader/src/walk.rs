//! Finding `.mjs` files under a directory.

use std::path::{Path, PathBuf};

/// The `.mjs` files under `dir`, in sorted order (entries sorted by name at every level). Hidden
/// directories, `node_modules`, `target` and every directory for which `skip_dir(name)` is true are
/// not entered; symbolic links to directories are not followed (no loops), symbolic links to files
/// are taken.
pub fn mjs_files(dir: &Path, skip_dir: &dyn Fn(&str) -> bool) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    walk(dir, skip_dir, &mut out)?;
    Ok(out)
}

fn walk(
    dir: &Path,
    skip_dir: &dyn Fn(&str) -> bool,
    out: &mut Vec<PathBuf>,
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
            walk(&path, skip_dir, out)?;
        } else if name.ends_with(".mjs") && (ft.is_file() || (ft.is_symlink() && path.is_file())) {
            out.push(path);
        }
    }
    Ok(())
}
