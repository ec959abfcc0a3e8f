//! Shared lists on disk and their rules: reading a `_lists/` directory ([`load_dir`]), which
//! `_lists/` a file sees ([`find_lists_dir`], [`scope_near`]) and the LST rules of a list file.
//! The list model itself (lists, references, filters, resolution) is [`flowmcp_spec::lists`],
//! re-exported here.
//!
//! Nothing here caches: a caller that validates many files keeps the scope it found (a catalog
//! does, per `_lists/` directory).

mod check;

use std::path::{Path, PathBuf};

use flowmcp_loader::Limits;
use flowmcp_loader::walk::load_file_under;
use flowmcp_spec::RuleSettings;

pub use flowmcp_spec::lists::*;

pub(crate) use check::check_list_file;
/// The name of the directory that holds a catalog's shared lists.
pub use flowmcp_spec::catalog::LISTS_DIR;

/// How many parents of a file's directory are searched for `_lists/` (the JavaScript CLI's limit).
pub const MAX_WALK_UP: usize = 10;

/// The `_lists/` directory a file in `dir` sees: `dir` itself when it is a `_lists/` directory,
/// else the first of `dir` and its parents (at most [`MAX_WALK_UP`]) that has a `_lists/`
/// sub-directory. The walk stops early at a directory with `registry.json` (a catalog root without
/// lists). `dir` should be absolute (canonical), so that the walk sees the real parents.
pub fn find_lists_dir(dir: &Path) -> Option<PathBuf> {
    find_lists_dir_with(dir, |_| None).0
}

/// [`find_lists_dir`], asking `known` at each directory before looking into it: a directory whose
/// answer is known ends the walk with that answer. Also returns the directories the walk went
/// through that have the same answer, to remember: all of them, except when the walk ended at
/// its limit (a directory higher up could look further than the one it started from).
pub fn find_lists_dir_with(
    dir: &Path,
    known: impl Fn(&Path) -> Option<Option<PathBuf>>,
) -> (Option<PathBuf>, Vec<PathBuf>) {
    if dir.file_name().is_some_and(|n| n == LISTS_DIR) {
        return (Some(dir.to_path_buf()), Vec::new());
    }
    let mut walked = Vec::new();
    for d in dir.ancestors().take(MAX_WALK_UP + 1) {
        if let Some(answer) = known(d) {
            return (answer, walked);
        }
        walked.push(d.to_path_buf());
        let candidate = d.join(LISTS_DIR);
        if flowmcp_files::named::is_dir(&candidate) {
            return (Some(candidate), walked);
        }
        if flowmcp_files::named::is_file(d.join(flowmcp_spec::catalog::REGISTRY_FILE)) {
            return (None, walked);
        }
    }
    if walked.len() > MAX_WALK_UP {
        walked.clear();
    }
    (None, walked)
}

/// The directory a file's list search starts from: its parent directory, made canonical (or
/// absolute when it does not exist).
pub fn search_start(file: &Path) -> PathBuf {
    let parent = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    flowmcp_files::named::canonical(&parent)
        .or_else(|_| std::path::absolute(&parent))
        .unwrap_or(parent)
}

/// The shared lists the file at `path` (named `display` in messages) sees: the registry of the
/// `_lists/` directory [`find_lists_dir`] finds from its directory, loaded now (nothing is
/// cached), or [`ListScope::NotFound`].
pub fn scope_near(
    path: &Path,
    display: &str,
    settings: &RuleSettings,
    limits: &Limits,
) -> ListScope {
    match find_lists_dir(&search_start(path)) {
        Some(dir) => ListScope::Found(std::sync::Arc::new(load_dir(
            &dir,
            &RuleSettings::new(settings.profile),
            limits,
        ))),
        None => ListScope::NotFound {
            searched_from: display_dir(display),
        },
    }
}

/// The directory part of a display name (`.` when there is none).
pub fn display_dir(display: &str) -> String {
    match Path::new(display).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_string_lossy().into_owned(),
        _ => ".".to_string(),
    }
}

/// Loads every `*.mjs` file directly inside `dir` (a `_lists/` directory), in file-name order,
/// with the loader (scan, sandbox, extraction). Files that cannot be read or do not give a list
/// are remembered in [`ListRegistry::unloaded`]; the diagnostics of each list file are reported
/// when that file itself is validated.
pub fn load_dir(dir: &Path, settings: &RuleSettings, limits: &Limits) -> ListRegistry {
    // Listed and read through the directory's handle: a list file that is a link counts only
    // while it stays inside.
    let root = flowmcp_files::Root::new(dir);
    let mut files: Vec<(String, PathBuf)> = match root.list(Path::new("")) {
        Ok(entries) => entries
            .into_iter()
            .filter(|e| e.kind != flowmcp_files::EntryKind::Dir)
            .map(|e| {
                let name = e.name.to_string_lossy().into_owned();
                let path = dir.join(&e.name);
                (name, path)
            })
            .filter(|(name, _)| name.ends_with(".mjs"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut lists = Vec::with_capacity(files.len());
    let mut unloaded = Vec::new();
    for (name, path) in files {
        let display = format!("{LISTS_DIR}/{name}");
        let loaded = load_file_under(Some(dir), &path, &display, limits, settings);
        let list = loaded
            .exports
            .as_ref()
            .and_then(|e| e.get("list"))
            .and_then(|v| SharedList::from_json(v, display.clone()));
        match list {
            Some(mut l) => {
                l.file = Some(flowmcp_files::named::canonical(&path).unwrap_or(path));
                lists.push(l);
            }
            None => {
                let name = loaded.source.as_deref().and_then(|text| {
                    let path = ["list", "meta", "name"]
                        .map(|k| flowmcp_loader::locate::Key::Name(k.into()));
                    flowmcp_loader::locate::string_at(text, &path)
                });
                unloaded.push((display, name));
            }
        }
    }
    ListRegistry::from_dir(dir.to_path_buf(), lists, unloaded)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The walk with remembered answers gives what the plain walk gives, from every directory it
    /// went through, and a known answer ends it.
    #[test]
    fn remembered_walks_give_the_same_answers() {
        // In the temporary directory: a packaged crate's tests write nothing outside it.
        let root = std::env::temp_dir().join(format!("flowmcp-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let deep = root.join("cat/providers/ns/sub");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(root.join("cat/_lists")).unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        let deep = root.join("cat/providers/ns/sub");
        let (found, walked) = find_lists_dir_with(&deep, |_| None);
        assert_eq!(found, Some(root.join("cat/_lists")));
        assert_eq!(found, find_lists_dir(&deep));
        assert_eq!(walked.len(), 4, "{walked:?}");
        for d in &walked {
            assert_eq!(find_lists_dir(d), found, "{}", d.display());
        }
        // A known answer at `providers` ends the walk there.
        let providers = root.join("cat/providers");
        let (answer, walked) = find_lists_dir_with(&deep, |d| {
            (d == providers).then(|| Some(PathBuf::from("/known")))
        });
        assert_eq!(answer, Some(PathBuf::from("/known")));
        assert_eq!(walked, vec![deep.clone(), root.join("cat/providers/ns")]);
        let _ = std::fs::remove_dir_all(&root);
    }
}
