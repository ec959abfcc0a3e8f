//! Finding the files to validate.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A file to validate and the name diagnostics use for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileEntry {
    pub path: PathBuf,
    pub display: String,
    /// The directory the user named in which a walk found the file (it is read through that
    /// directory's handle); `None` for a file the user named itself.
    pub anchor: Option<PathBuf>,
}

/// Expands `paths`: files are taken as given (whatever their extension), directories are walked for
/// `.mjs` files in sorted order, skipping `node_modules` and hidden directories. Symbolic links to
/// directories are not followed (no loops), nor links to files outside the directory walked (a note
/// on stderr names them). A path that does not exist is an error.
pub(crate) fn collect(paths: &[PathBuf]) -> Result<Vec<FileEntry>, String> {
    let mut out = Vec::new();
    for p in paths {
        let meta =
            flowmcp_files::named::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_dir() {
            walk_dir(p, &mut out).map_err(|e| format!("{}: {e}", p.display()))?;
        } else {
            out.push(FileEntry {
                path: p.clone(),
                display: flowmcp_spec::diagnostic::display_path(p),
                anchor: None,
            });
        }
    }
    Ok(out)
}

fn walk_dir(dir: &Path, out: &mut Vec<FileEntry>) -> std::io::Result<()> {
    let walk = flowmcp_files::walk::walk_mjs(dir, &|_| false)?;
    for link in &walk.outside_links {
        eprintln!(
            "flowmcp: skipping {}: a symbolic link that leads outside {}",
            flowmcp_spec::diagnostic::display_path(link),
            flowmcp_spec::diagnostic::display_path(dir)
        );
    }
    for path in walk.files {
        out.push(FileEntry {
            display: flowmcp_spec::diagnostic::display_path(&path),
            path,
            anchor: Some(dir.to_path_buf()),
        });
    }
    Ok(())
}

/// `flowmcp validate --odd.mjs` should validate the file `--odd.mjs` when it exists and is not an
/// option: such arguments are moved behind a `--` so the parser takes them as paths.
pub(crate) fn reorder_dash_paths(args: Vec<OsString>) -> Vec<OsString> {
    if args.get(1).and_then(|a| a.to_str()) != Some("validate") || args.iter().any(|a| a == "--") {
        return args;
    }
    let known = [
        "--format",
        "--profile",
        "--rule",
        "--quiet",
        "-q",
        "--max-file-size",
        "--timeout-ms",
        "--memory-mib",
        "--id",
        "--help",
        "-h",
    ];
    let mut kept = Vec::new();
    let mut moved = Vec::new();
    for a in args {
        let s = a.to_string_lossy();
        let is_option = known
            .iter()
            .any(|k| s == *k || s.starts_with(&format!("{k}=")));
        if s.starts_with('-') && !is_option && flowmcp_files::named::exists(Path::new(&a)) {
            moved.push(a);
        } else {
            kept.push(a);
        }
    }
    if !moved.is_empty() {
        kept.push(OsString::from("--"));
        kept.extend(moved);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_sorted_and_skips() {
        let dir = std::env::temp_dir().join(format!("flowmcp-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::create_dir_all(dir.join("node_modules/x")).unwrap();
        std::fs::create_dir_all(dir.join(".hidden")).unwrap();
        for f in [
            "b/z.mjs",
            "a.mjs",
            "--odd.mjs",
            "note.txt",
            "node_modules/x/y.mjs",
            ".hidden/h.mjs",
        ] {
            std::fs::write(dir.join(f), "export const main = {};").unwrap();
        }
        let files = collect(std::slice::from_ref(&dir)).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|f| f.path.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        assert_eq!(names, vec!["--odd.mjs", "a.mjs", "b/z.mjs"]);
        assert!(collect(&[dir.join("missing")]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
