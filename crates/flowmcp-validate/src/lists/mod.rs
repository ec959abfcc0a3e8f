//! Shared lists on disk and their rules: reading a `_lists/` directory ([`load_dir`]), which
//! registry a file sees ([`ListDiscovery`]) and the LST rules of a list file. The list model
//! itself (lists, references, filters, resolution) is [`flowmcp_spec::lists`], re-exported here.

mod check;
mod discovery;

use std::path::{Path, PathBuf};

use flowmcp_loader::Limits;
use flowmcp_loader::file::load_file;
use flowmcp_spec::RuleSettings;

pub use flowmcp_spec::lists::*;

pub(crate) use check::check_list_file;
pub use discovery::{LISTS_DIR, ListDiscovery, MAX_WALK_UP};

/// Loads every `*.mjs` file directly inside `dir` (a `_lists/` directory), in file-name order,
/// with the loader (scan, sandbox, extraction). Files that cannot be read or do not give a list
/// are remembered in [`ListRegistry::unloaded`]; the diagnostics of each list file are reported
/// when that file itself is validated.
pub fn load_dir(dir: &Path, settings: &RuleSettings, limits: &Limits) -> ListRegistry {
    let mut files: Vec<(String, PathBuf)> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .filter(|(name, _)| name.ends_with(".mjs"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut lists = Vec::with_capacity(files.len());
    let mut unloaded = Vec::new();
    for (name, path) in files {
        let display = format!("{LISTS_DIR}/{name}");
        let loaded = load_file(&path, &display, limits, settings);
        let list = loaded
            .exports
            .as_ref()
            .and_then(|e| e.get("list"))
            .and_then(|v| SharedList::from_json(v, display.clone()));
        match list {
            Some(mut l) => {
                l.file = Some(std::fs::canonicalize(&path).unwrap_or(path));
                lists.push(l);
            }
            None => unloaded.push(display),
        }
    }
    ListRegistry::from_dir(dir.to_path_buf(), lists, unloaded)
}
