//! Which list registry a file on disk sees: walk up to the nearest `_lists/` directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::SystemTime;

use flowmcp_spec::{Profile, RuleSettings};

use super::{ListRegistry, ListScope};
use crate::Options;

/// The name of the directory that holds a catalog's shared lists.
pub use flowmcp_spec::catalog::LISTS_DIR;

/// How many parents of a file's directory are searched for `_lists/` (the JavaScript CLI's limit).
pub const MAX_WALK_UP: usize = 10;

/// The `.mjs` files of a `_lists/` directory: name, size, modification time. A registry is re-read
/// when this changes.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp(Vec<(String, u64, Option<SystemTime>)>);

impl Stamp {
    fn read(dir: &Path) -> Stamp {
        let mut files: Vec<(String, u64, Option<SystemTime>)> = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if !name.ends_with(".mjs") {
                        return None;
                    }
                    let meta = e.metadata().ok()?;
                    Some((name, meta.len(), meta.modified().ok()))
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        files.sort();
        Stamp(files)
    }
}

/// A registry being loaded or loaded, for one directory, profile and stamp. Threads asking for the
/// same registry at once wait for one load.
#[derive(Debug)]
struct Slot {
    stamp: Stamp,
    registry: OnceLock<Arc<ListRegistry>>,
}

/// Finds and caches the list registry of files on disk. Thread-safe: validation runs on many
/// threads, and each directory is walked and each `_lists/` loaded once.
#[derive(Debug, Default)]
pub struct ListDiscovery {
    /// A file's directory → the `_lists/` directory it sees.
    walks: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// `_lists/` directory and profile → its registry.
    registries: Mutex<HashMap<(PathBuf, Profile), Arc<Slot>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl ListDiscovery {
    pub fn new() -> ListDiscovery {
        ListDiscovery::default()
    }

    /// The process-wide instance [`crate::validate_path`] uses.
    pub fn global() -> &'static ListDiscovery {
        static GLOBAL: OnceLock<ListDiscovery> = OnceLock::new();
        GLOBAL.get_or_init(ListDiscovery::new)
    }

    /// Forgets every cached walk and registry.
    pub fn clear(&self) {
        lock(&self.walks).clear();
        lock(&self.registries).clear();
    }

    /// The `_lists/` directory the file at `file` sees: the file's directory when that is itself
    /// `_lists/`, else the first of the directory and its parents (at most [`MAX_WALK_UP`]) that
    /// has a `_lists/` sub-directory. The walk stops early at a directory with `registry.json` (a
    /// catalog root without lists).
    pub fn lists_dir_for(&self, file: &Path) -> Option<PathBuf> {
        let parent = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let start = std::fs::canonicalize(&parent)
            .or_else(|_| std::path::absolute(&parent))
            .unwrap_or(parent);
        if let Some(found) = lock(&self.walks).get(&start) {
            return found.clone();
        }
        let found = walk_up(&start);
        lock(&self.walks).insert(start, found.clone());
        found
    }

    /// The registry of the `_lists/` directory `dir` under `opts` (loaded once per directory and
    /// profile, re-read when the directory's list files change).
    pub fn registry(&self, dir: &Path, opts: &Options) -> Arc<ListRegistry> {
        let profile = opts.settings.profile;
        let stamp = Stamp::read(dir);
        let slot = {
            let mut map = lock(&self.registries);
            let key = (dir.to_path_buf(), profile);
            match map.get(&key) {
                Some(slot) if slot.stamp == stamp => Arc::clone(slot),
                _ => {
                    let slot = Arc::new(Slot {
                        stamp,
                        registry: OnceLock::new(),
                    });
                    map.insert(key, Arc::clone(&slot));
                    slot
                }
            }
        };
        // Lists are loaded with the profile's default settings, so rule overrides cannot change
        // which lists exist.
        let registry = slot.registry.get_or_init(|| {
            Arc::new(super::load_dir(
                dir,
                &RuleSettings::new(profile),
                &opts.limits,
            ))
        });
        Arc::clone(registry)
    }

    /// The scope of the file at `path`, named `display` in messages.
    pub fn scope_for(&self, path: &Path, display: &str, opts: &Options) -> ListScope {
        match self.lists_dir_for(path) {
            Some(dir) => ListScope::Found(self.registry(&dir, opts)),
            None => ListScope::NotFound {
                searched_from: display_dir(display),
            },
        }
    }
}

fn walk_up(start: &Path) -> Option<PathBuf> {
    if start.file_name().is_some_and(|n| n == LISTS_DIR) {
        return Some(start.to_path_buf());
    }
    for dir in start.ancestors().take(MAX_WALK_UP + 1) {
        let candidate = dir.join(LISTS_DIR);
        if candidate.is_dir() {
            return Some(candidate);
        }
        if dir.join("registry.json").is_file() {
            return None;
        }
    }
    None
}

/// The directory part of a display name (`.` when there is none).
fn display_dir(display: &str) -> String {
    match Path::new(display).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_string_lossy().into_owned(),
        _ => ".".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("flowmcp-lists-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const LIST: &str = "export const list = { meta: { name: 'abc', version: '1.0.0', description: 'd', fields: [ { key: 'a', type: 'string', description: 'a' } ] }, entries: [ { a: 'x' } ] }\n";

    #[test]
    fn walks_up_and_reloads_on_change() {
        let root = temp("walk");
        std::fs::create_dir_all(root.join("_lists")).unwrap();
        std::fs::create_dir_all(root.join("providers/x/deep")).unwrap();
        std::fs::write(root.join("_lists/abc.mjs"), LIST).unwrap();
        let d = ListDiscovery::new();
        let opts = Options::default();
        let file = root.join("providers/x/deep/schema.mjs");
        let lists = d.lists_dir_for(&file).unwrap();
        assert!(lists.ends_with("_lists"));
        assert_eq!(
            d.lists_dir_for(&root.join("_lists/abc.mjs")).unwrap(),
            lists
        );
        let reg = d.registry(&lists, &opts);
        assert_eq!(reg.names(), vec!["abc"]);
        assert!(Arc::ptr_eq(&reg, &d.registry(&lists, &opts)));
        // A different size re-reads the directory.
        std::fs::write(root.join("_lists/abc.mjs"), LIST.replace("'abc'", "'abcd'")).unwrap();
        assert_eq!(d.registry(&lists, &opts).names(), vec!["abcd"]);
        match d.scope_for(&file, "providers/x/deep/schema.mjs", &opts) {
            ListScope::Found(r) => assert_eq!(r.len(), 1),
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn stops_at_a_catalog_root_without_lists() {
        let root = temp("stop");
        std::fs::create_dir_all(root.join("_lists")).unwrap();
        std::fs::create_dir_all(root.join("cat/providers")).unwrap();
        std::fs::write(root.join("cat/registry.json"), "{}").unwrap();
        let d = ListDiscovery::new();
        assert_eq!(d.lists_dir_for(&root.join("cat/providers/s.mjs")), None);
        match d.scope_for(
            &root.join("cat/providers/s.mjs"),
            "cat/providers/s.mjs",
            &Options::default(),
        ) {
            ListScope::NotFound { searched_from } => assert_eq!(searched_from, "cat/providers"),
            other => panic!("{other:?}"),
        }
        assert_eq!(display_dir("s.mjs"), ".");
        let _ = std::fs::remove_dir_all(&root);
    }
}
