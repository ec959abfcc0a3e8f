//! Which shared lists the files on disk see, found once per directory and loaded once per
//! `_lists/` directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::SystemTime;

use flowmcp_spec::lists::{ListRegistry, ListScope};
use flowmcp_spec::{FileReport, Profile, RuleSettings};
use flowmcp_validate::Options;
use flowmcp_validate::lists::{display_dir, find_lists_dir, load_dir, search_start};

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

/// Finds and caches the list registry that files on disk see: each file's directory is walked up
/// once (to the nearest `_lists/`, see [`flowmcp_validate::lists::find_lists_dir`]) and each
/// `_lists/` directory is loaded once per profile, and again when its files change.
///
/// Thread-safe: validation runs on many threads. Keep one for as long as the files are not
/// expected to move (a [`Catalog`](crate::Catalog) keeps one while it opens; the CLI one per run).
///
/// ```no_run
/// use flowmcp_catalog::ListDiscovery;
/// use flowmcp_catalog::validate::{Options, Profile};
///
/// let discovery = ListDiscovery::new();
/// let opts = Options::new(Profile::Spec);
/// for file in ["providers/a.mjs", "providers/b.mjs"] {
///     let report = discovery.validate_file(file.as_ref(), file, &opts);
///     println!("{file}: {} errors", report.counts.errors);
/// }
/// ```
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
    /// An empty cache.
    pub fn new() -> ListDiscovery {
        ListDiscovery::default()
    }

    /// The `_lists/` directory the file at `file` sees (its directory's walk is cached).
    pub fn lists_dir_for(&self, file: &Path) -> Option<PathBuf> {
        let start = search_start(file);
        if let Some(found) = lock(&self.walks).get(&start) {
            return found.clone();
        }
        let found = find_lists_dir(&start);
        lock(&self.walks).insert(start, found.clone());
        found
    }

    /// The registry of the `_lists/` directory `dir` under `opts`' profile (loaded once per directory and
    /// profile, re-read when the directory's list files change). Lists are loaded with the
    /// profile's default rule settings, so rule overrides cannot change which lists exist.
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
        let registry = slot
            .registry
            .get_or_init(|| Arc::new(load_dir(dir, &RuleSettings::new(profile), &opts.limits)));
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

    /// Validates the file at `path` (named `display` in diagnostics) with the shared lists it sees.
    pub fn validate_file(&self, path: &Path, display: &str, opts: &Options) -> FileReport {
        let scope = self.scope_for(path, display, opts);
        flowmcp_validate::validate_file(path, display, &scope, opts)
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
