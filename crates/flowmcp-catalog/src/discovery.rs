//! Which shared lists the files on disk see, found once per directory and loaded once per
//! `_lists/` directory.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use flowmcp_spec::lists::{ListRegistry, ListScope};
use flowmcp_spec::{FileReport, Profile, RuleSettings};
use flowmcp_validate::Options;

use flowmcp_loader::LoadedFile;

use crate::results::{Key, Purpose, RawMain, Recorder, ResultCache, hash_dir, options_fingerprint};
use flowmcp_validate::lists::{display_dir, find_lists_dir_with, load_dir, search_start};

/// A registry, loaded by the first thread that asks for it.
type Slot = OnceLock<Arc<ListRegistry>>;

/// Finds and caches the list registry that files on disk see: each directory is walked up once (to
/// the nearest `_lists/`, see [`flowmcp_validate::lists::find_lists_dir`]) and each `_lists/`
/// directory is loaded once per profile.
///
/// Thread-safe: validation runs on many threads, and threads asking for the same registry at once
/// wait for one load. What it has found is never re-checked, so keep one only for as long as the
/// files are not expected to change: a [`Catalog`](crate::Catalog) keeps one while it opens, the
/// CLI one per run; opening again starts afresh.
///
/// ```no_run
/// use flowmcp_catalog::{ListDiscovery, Profile, ValidationOptions};
///
/// let discovery = ListDiscovery::new();
/// let opts = ValidationOptions::new(Profile::Spec);
/// for file in ["providers/a.mjs", "providers/b.mjs"] {
///     let report = discovery.validate_file(file.as_ref(), file, &opts);
///     println!("{file}: {} errors", report.counts().errors);
/// }
/// ```
#[derive(Debug, Default)]
pub struct ListDiscovery {
    /// A file's directory, as given and made canonical → the `_lists/` directory it sees.
    ///
    /// The path caches are keyed by a path's bytes ([`PathKey`]).
    walks: Mutex<HashMap<PathKey, Option<PathBuf>>>,
    /// `_lists/` directory and profile → its registry (loaded on first use).
    registries: Mutex<HashMap<(PathBuf, Profile), Arc<Slot>>>,
    /// Where [`ListDiscovery::validate_file`] keeps and finds its reports, if anywhere.
    results: Option<Arc<ResultCache>>,
    /// `_lists/` directory → the hash of its files (part of a result's key), computed once.
    list_hashes: Mutex<HashMap<PathKey, Option<[u8; 32]>>>,
    /// A directory as given → its canonical path ([`ListDiscovery::canonical_dir`]).
    canonical: Mutex<HashMap<PathKey, Option<PathBuf>>>,
}

/// A path as the key of a cache: its bytes. `Path`'s own hash walks the path a component at a
/// time (so that `a//b` and `a/b` hash alike), several times the cost of hashing the bytes. Two
/// spellings of one directory are then two entries with the same answer, each worked out once.
pub(crate) type PathKey = std::ffi::OsString;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl ListDiscovery {
    /// An empty cache.
    pub fn new() -> ListDiscovery {
        ListDiscovery::default()
    }

    /// The same, with [`ListDiscovery::validate_file`] reading and writing reports in `results`
    /// (a file whose bytes, lists, options and file checks are unchanged is not validated again).
    pub fn with_results(results: Arc<ResultCache>) -> ListDiscovery {
        ListDiscovery {
            results: Some(results),
            ..ListDiscovery::default()
        }
    }

    /// The canonical path of the directory `dir` (symbolic links followed; `None` when it does not
    /// exist), remembered: once its parent's is known, a directory costs one `lstat`, not a
    /// look-up of every component of its path. The empty path is the current directory.
    pub fn canonical_dir(&self, dir: &Path) -> Option<PathBuf> {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Some(known) = lock(&self.canonical).get(dir.as_os_str()) {
            return known.clone();
        }
        let found = match (dir.parent(), dir.components().next_back()) {
            (Some(parent), Some(Component::Normal(name))) => {
                self.canonical_dir(parent).and_then(|base| {
                    let joined = base.join(name);
                    match flowmcp_files::named::symlink_metadata(&joined) {
                        Ok(m) if m.file_type().is_symlink() => {
                            flowmcp_files::named::canonical(&joined).ok()
                        }
                        Ok(_) => Some(joined),
                        Err(_) => None,
                    }
                })
            }
            // The root, `.`, `..` and prefixes: asked of the system.
            _ => flowmcp_files::named::canonical(dir).ok(),
        };
        lock(&self.canonical).insert(dir.as_os_str().to_owned(), found.clone());
        found
    }

    /// The canonical path of the file at `path` (`None` when it does not exist): its directory's
    /// through [`ListDiscovery::canonical_dir`], then its name; a symbolic link is followed.
    pub fn canonical_file(&self, path: &Path) -> Option<PathBuf> {
        match (path.parent(), path.components().next_back()) {
            (Some(parent), Some(Component::Normal(name)))
                if !flowmcp_files::named::symlink_metadata(path)
                    .ok()?
                    .file_type()
                    .is_symlink() =>
            {
                Some(self.canonical_dir(parent)?.join(name))
            }
            _ => flowmcp_files::named::canonical(path).ok(),
        }
    }

    /// The `_lists/` directory the file at `file` sees (each directory is walked once).
    pub fn lists_dir_for(&self, file: &Path) -> Option<PathBuf> {
        let given = file.parent().unwrap_or(Path::new("")).to_path_buf();
        if let Some(found) = lock(&self.walks).get(given.as_os_str()) {
            return found.clone();
        }
        let start = self
            .canonical_dir(&given)
            .unwrap_or_else(|| search_start(file));
        // Directories walked through share the answer: siblings stop at their common parent.
        let (found, walked) =
            find_lists_dir_with(&start, |d| lock(&self.walks).get(d.as_os_str()).cloned());
        let mut walks = lock(&self.walks);
        for d in walked {
            walks.insert(d.into_os_string(), found.clone());
        }
        walks.insert(start.into_os_string(), found.clone());
        walks.insert(given.into_os_string(), found.clone());
        found
    }

    /// The registry of the `_lists/` directory `dir` under `opts`' profile, loaded once. Lists are
    /// loaded with the profile's default rule settings, so rule overrides cannot change which lists
    /// exist.
    pub fn registry(&self, dir: &Path, opts: &Options) -> Arc<ListRegistry> {
        let profile = opts.settings.profile;
        let slot = Arc::clone(
            lock(&self.registries)
                .entry((dir.to_path_buf(), profile))
                .or_default(),
        );
        let registry =
            slot.get_or_init(|| Arc::new(load_dir(dir, &RuleSettings::new(profile), &opts.limits)));
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

    /// Validates the file at `path` (named `display` in diagnostics) with the shared lists it sees,
    /// and with the file checks of `flowmcp-resources` when `opts` gives none.
    pub fn validate_file(&self, path: &Path, display: &str, opts: &Options) -> FileReport {
        self.validate_file_under(None, path, display, opts)
    }

    /// [`ListDiscovery::validate_file`] of a file a walk found under `anchor` (the directory the
    /// user named): read through the anchor's directory handle
    /// ([`flowmcp_files::read_found`]), so a file or folder swapped for a link that leads out
    /// since the walk is not read. `None` reads `path` as the user named it.
    pub fn validate_file_under(
        &self,
        anchor: Option<&Path>,
        path: &Path,
        display: &str,
        opts: &Options,
    ) -> FileReport {
        self.report_under(Purpose::Report, anchor, path, display, opts)
    }

    /// [`ListDiscovery::validate_file_under`] with the fixes that the mechanical rewrites of the
    /// 3 → 4 migration make ([`crate::migrate::attach_fixes`]) given to the findings they cure.
    /// Finding them validates the file's text again per offer, so the report with its fixes is
    /// kept in the result cache as a whole.
    pub fn validate_file_fixed_under(
        &self,
        anchor: Option<&Path>,
        path: &Path,
        display: &str,
        opts: &Options,
    ) -> FileReport {
        self.report_under(Purpose::FixedReport, anchor, path, display, opts)
    }

    /// A file's report for `purpose` ([`Purpose::Report`] or [`Purpose::FixedReport`]), through
    /// the result cache when there is one.
    fn report_under(
        &self,
        purpose: Purpose,
        anchor: Option<&Path>,
        path: &Path,
        display: &str,
        opts: &Options,
    ) -> FileReport {
        if let Some(results) = &self.results
            && let Some(Cached::Report(report)) =
                self.cached(results, purpose, anchor, path, display, opts)
        {
            return report;
        }
        let scope = self.scope_for(path, display, opts);
        let disk = on_disk(opts);
        let mut loaded = flowmcp_loader::walk::load_file_under(
            anchor,
            path,
            display,
            &disk.limits,
            &disk.settings,
        );
        let (report, trace) = validate_for(purpose, &mut loaded, &disk, &scope, path);
        let mut report = flowmcp_validate::catalog::mark_validated_alone(report, &disk.settings);
        if purpose == Purpose::FixedReport
            && crate::migrate::has_fixable(&report)
            && let Some(source) = text_as_read(&loaded)
        {
            crate::migrate::attach_fixes_loaded(
                &mut report,
                &source,
                Some((&mut loaded, &trace)),
                display,
                &scope,
                opts,
            );
        }
        report
    }

    /// The hash of the `_lists/` directory `dir` ([`hash_dir`]), computed once.
    fn lists_hash(&self, dir: &Path) -> Option<[u8; 32]> {
        if let Some(h) = lock(&self.list_hashes).get(dir.as_os_str()) {
            return *h;
        }
        let h = hash_dir(dir);
        lock(&self.list_hashes).insert(dir.as_os_str().to_owned(), h);
        h
    }

    /// Loads and validates the file at `path` (named `display`) for a catalog: the loaded file
    /// as validation left it (its exports, for the tools), and its report. Through the result
    /// cache when there is one: a file restored from it has its `main` export apart, as the
    /// text it was stored as ([`RawMain`]; the caller types it or puts it back).
    pub(crate) fn load_validated(
        &self,
        anchor: Option<&Path>,
        path: &Path,
        display: &str,
        opts: &Options,
    ) -> (LoadedFile, FileReport, Option<RawMain>) {
        if let Some(results) = &self.results
            && let Some(Cached::File(loaded, report, main)) =
                self.cached(results, Purpose::CatalogFile, anchor, path, display, opts)
        {
            return (*loaded, report, main);
        }
        let mut loaded = flowmcp_loader::walk::load_file_under(
            anchor,
            path,
            display,
            &opts.limits,
            &opts.settings,
        );
        let scope = self.scope_for(path, display, opts);
        let report = flowmcp_validate::validate_loaded_mut(&mut loaded, opts, &scope, Some(path));
        (loaded, report, None)
    }

    /// [`ListDiscovery::validate_file`] or [`ListDiscovery::load_validated`] through `results`:
    /// what is stored under the key of exactly the bytes read here, or the validation of those
    /// bytes, stored. `None` when the file cannot be read whole within the limit (the uncached
    /// path reports why).
    fn cached(
        &self,
        results: &ResultCache,
        purpose: Purpose,
        anchor: Option<&Path>,
        path: &Path,
        display: &str,
        opts: &Options,
    ) -> Option<Cached> {
        let bytes = flowmcp_files::read_found(anchor, path, opts.limits.max_file_bytes).ok()?;
        let canonical = self.canonical_file(path)?;
        let lists = match self.lists_dir_for(path) {
            Some(dir) => Some(self.lists_hash(&dir)?),
            None => None,
        };
        let key = Key::new(
            purpose,
            &options_fingerprint(opts),
            lists.as_ref(),
            path,
            &canonical,
            display,
            &bytes,
        );
        let given = opts;
        let opts = on_disk(opts).into_owned();
        let checks = opts.files.clone()?;
        match purpose {
            Purpose::Report | Purpose::FixedReport => {
                if let Some(report) = results.get(&key, checks.as_ref()) {
                    return Some(Cached::Report(report));
                }
            }
            Purpose::CatalogFile => {
                let source = std::str::from_utf8(&bytes).ok().map(str::to_string);
                if let Some((report, loaded, main)) =
                    results.get_file(&key, checks.as_ref(), display, source)
                {
                    return Some(Cached::File(Box::new(loaded), report, main));
                }
            }
        }
        let recorder = Arc::new(Recorder::new(checks));
        let mut recorded = opts;
        recorded.files = Some(recorder.clone());
        let scope = self.scope_for(path, display, &recorded);
        let mut loaded = flowmcp_loader::load_file_bytes(
            path,
            display,
            bytes,
            &recorded.limits,
            &recorded.settings,
        );
        let (report, trace) = validate_for(purpose, &mut loaded, &recorded, &scope, path);
        Some(match purpose {
            Purpose::Report | Purpose::FixedReport => {
                // As `flowmcp_validate::validate_file` reports a file validated alone.
                let mut report =
                    flowmcp_validate::catalog::mark_validated_alone(report, &recorded.settings);
                let fixed = purpose == Purpose::FixedReport;
                if let Some(source) = text_as_read(&loaded).filter(|_| fixed) {
                    // The fixed texts are validated as the caller asked; file checks the
                    // caller gave are recorded with the entry's.
                    let check = if given.files.is_some() {
                        &recorded
                    } else {
                        given
                    };
                    crate::migrate::attach_fixes_loaded(
                        &mut report,
                        &source,
                        Some((&mut loaded, &trace)),
                        display,
                        &scope,
                        check,
                    );
                }
                results.put(&key, recorder.asked(), &report, None);
                Cached::Report(report)
            }
            Purpose::CatalogFile => {
                results.put(&key, recorder.asked(), &report, Some(&loaded));
                Cached::File(Box::new(loaded), report, None)
            }
        })
    }
}

/// What [`ListDiscovery::cached`] gives for each purpose.
enum Cached {
    Report(FileReport),
    File(Box<LoadedFile>, FileReport, Option<RawMain>),
}

/// A loaded file's text as it was read, byte-order mark included: the fixes' edits are offsets
/// in it, and the loader's `source` starts after the mark. Taken from the load rather than read
/// again, so it is the text the report was made from.
fn text_as_read(loaded: &flowmcp_loader::LoadedFile) -> Option<String> {
    let source = loaded.source.as_deref()?;
    Some(if loaded.bom {
        format!("\u{feff}{source}")
    } else {
        source.to_string()
    })
}

/// The report of `loaded`, the file at `path`, validated with `opts` and the shared lists of
/// `scope`, and what its rules read and reported: noted only when `purpose` will have fixes
/// checked (D186), empty otherwise.
fn validate_for<'s>(
    purpose: Purpose,
    loaded: &mut LoadedFile,
    opts: &Options,
    scope: &'s ListScope,
    path: &Path,
) -> (FileReport, flowmcp_validate::RuleTrace<'s>) {
    if purpose == Purpose::FixedReport {
        flowmcp_validate::validate_loaded_traced(loaded, opts, scope, Some(path))
    } else {
        let report = flowmcp_validate::validate_loaded_mut(loaded, opts, scope, Some(path));
        (report, flowmcp_validate::RuleTrace::default())
    }
}

/// `validation` for files on disk: with the file checks of `flowmcp-resources`
/// ([`flowmcp_resources::LocalFiles`]) when it gives none.
pub(crate) fn on_disk(
    validation: &flowmcp_validate::Options,
) -> std::borrow::Cow<'_, flowmcp_validate::Options> {
    if validation.files.is_some() {
        return std::borrow::Cow::Borrowed(validation);
    }
    std::borrow::Cow::Owned({
        let mut built = validation.clone();
        built.files = Some(Arc::new(flowmcp_resources::LocalFiles));
        built
    })
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

    /// The caches are keyed by a path's bytes: other spellings of one directory (a doubled
    /// separator, a `.` component, a trailing separator) are other entries, and get the same
    /// answers as the plain spelling, whichever is asked first.
    #[test]
    fn i46_spellings_of_one_directory_get_the_same_answers() {
        let root = temp("spellings");
        std::fs::create_dir_all(root.join("_lists")).unwrap();
        std::fs::create_dir_all(root.join("providers/x")).unwrap();
        std::fs::write(root.join("_lists/abc.mjs"), LIST).unwrap();
        std::fs::write(root.join("registry.json"), r#"{"name":"c","schemas":[]}"#).unwrap();
        std::fs::write(root.join("providers/x/s.mjs"), "").unwrap();
        let base = root.to_string_lossy().into_owned();
        let spellings = [
            format!("{base}/providers/x"),
            format!("{base}//providers/./x"),
            format!("{base}/providers/x/"),
            format!("{base}/./providers//x//"),
        ];
        for first in 0..spellings.len() {
            let d = ListDiscovery::new();
            let mut locator = crate::manifest::CatalogLocator::new(&d);
            let order = (0..spellings.len()).map(|i| (first + i) % spellings.len());
            let mut answers = Vec::new();
            for i in order {
                let dir = Path::new(&spellings[i]);
                let file = dir.join("s.mjs");
                answers.push((
                    d.canonical_dir(dir),
                    d.lists_dir_for(&file),
                    d.canonical_file(&file),
                    locator.locate(&file),
                ));
            }
            let canonical_root = std::fs::canonicalize(&root).unwrap();
            let want = (
                Some(canonical_root.join("providers/x")),
                Some(canonical_root.join("_lists")),
                Some(canonical_root.join("providers/x/s.mjs")),
                Some((canonical_root.clone(), "providers/x/s.mjs".to_string())),
            );
            for got in answers {
                assert_eq!(got, want, "first asked: {}", spellings[first]);
            }
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn walks_up_and_loads_each_lists_directory_once() {
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
        // What was found stays as found; a new discovery sees the change.
        std::fs::write(root.join("_lists/abc.mjs"), LIST.replace("'abc'", "'abcd'")).unwrap();
        assert_eq!(d.registry(&lists, &opts).names(), vec!["abc"]);
        assert_eq!(
            ListDiscovery::new().registry(&lists, &opts).names(),
            vec!["abcd"]
        );
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
