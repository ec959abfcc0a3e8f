//! A content-addressed cache of per-file validation results, so that validating an unchanged file
//! again costs a hash and a small read instead of a scan, an evaluation and every rule.
//!
//! **The key** of an entry is the SHA-256 of everything the file's report depends on:
//!
//! - the build (`build_key`): `FLOWMCP_BUILD_ID` (made by this crate's build script from the
//!   sources of every crate a validation runs through and `Cargo.lock`, in the workspace; this
//!   crate's version in a published package), the version of every flowmcp crate a validation
//!   runs through (spec, files, loader, resources, validate, runtime, catalog: a rule fixed in a
//!   newer `flowmcp-validate` is a new key even when this crate is the same release), and the
//!   digest of the rule registry (every registered code with its levels, status and variants);
//! - the validation options as a whole (profile, rule overrides, limits, allowed libraries, the home
//!   directory and resources variable, whether positions are wanted);
//! - the file's path, its canonical path and the name diagnostics give it;
//! - the bytes of every file in the `_lists/` directory the file sees (their names and contents);
//! - the file's own bytes.
//!
//! Checks that look at other files (a database beside a schema, the seal of a GTFS database) are
//! asked through [`FileChecks`]; their questions and answers are kept with the entry and asked
//! again when it is read: a different answer makes the entry a miss.
//!
//! **Entries are never trusted.** An entry is read only through its key: a file at the key's place
//! whose stored key differs, that does not parse, or that names a rule variant this build does
//! not know is ignored (and validation runs as if there were none). Entries are written whole
//! (temporary file, then rename; not flushed to disk, since a damaged entry is only a miss) and the cache is bounded ([`ResultCache::with_max_bytes`]; the
//! oldest entries go first, [`ResultCache::trim`]). [`ResultCache::clear`] removes only files this
//! cache wrote.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use flowmcp_files::{EntryKind, PathError, Root};
use flowmcp_loader::eval::{Exports, HandlersExport};
use flowmcp_loader::{FileKind, LoadedFile, PathItem, Unserializable, UnserializableKind};
use flowmcp_spec::diagnostic::{Applicability, Edit, Fix, JsonPath, Seg};
use flowmcp_spec::files::FileChecks;
use flowmcp_spec::gtfs::{Seal, SealError};
use flowmcp_spec::{Code, Diagnostic, FileReport, Severity};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The layout of the entries; a new one starts in a new directory.
const FORMAT: &str = "v1";
/// The largest entry (or `_lists/` file) read; a larger one is not used.
const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// The default bound of the cache's size on disk.
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;

/// The identity of this build's sources (see the module documentation).
const BUILD_ID: &str = env!("FLOWMCP_BUILD_ID");

/// The flowmcp crates a validation runs through, with the version of each that this build links.
const CRATE_VERSIONS: [(&str, &str); 7] = [
    ("flowmcp-spec", flowmcp_spec::VERSION),
    ("flowmcp-files", flowmcp_files::VERSION),
    ("flowmcp-loader", flowmcp_loader::VERSION),
    ("flowmcp-resources", flowmcp_resources::VERSION),
    ("flowmcp-validate", flowmcp_validate::VERSION),
    ("flowmcp-runtime", flowmcp_runtime::VERSION),
    ("flowmcp-catalog", env!("CARGO_PKG_VERSION")),
];

/// The part of every key that names the code doing the validation: [`build_key_of`] this build's
/// id, crate versions and rule registry, computed once.
fn build_key() -> &'static [u8; 32] {
    static KEY: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    KEY.get_or_init(|| build_key_of(BUILD_ID, &CRATE_VERSIONS, flowmcp_spec::registry::RULES))
}

/// The build's part of a key from its parts: the build id, each crate's name and version, and a
/// digest of the rule registry (every field of every rule: code, family, origin, section, levels,
/// status, summary and variants).
fn build_key_of(
    build_id: &str,
    versions: &[(&str, &str)],
    rules: &[flowmcp_spec::registry::RuleInfo],
) -> [u8; 32] {
    let mut h = Sha256::new();
    part(&mut h, b"flowmcp-build");
    part(&mut h, build_id.as_bytes());
    for (name, version) in versions {
        part(&mut h, name.as_bytes());
        part(&mut h, version.as_bytes());
    }
    let mut registry = Sha256::new();
    for rule in rules {
        part(&mut registry, format!("{rule:?}").as_bytes());
    }
    part(&mut h, &registry.finalize());
    h.finalize().into()
}

/// A directory of per-file validation results (see the [module documentation](self)).
///
/// Shared by the threads that validate: lookups and writes need only `&self`.
#[derive(Debug)]
pub struct ResultCache {
    dir: PathBuf,
    /// `dir`, through which every entry is read, written and removed.
    root: Root,
    max_bytes: u64,
    hits: AtomicUsize,
    misses: AtomicUsize,
    stored: AtomicUsize,
}

/// What a cache did in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Reports read from the cache.
    pub hits: usize,
    /// Files validated because no usable entry was there.
    pub misses: usize,
    /// Entries written.
    pub stored: usize,
}

impl ResultCache {
    /// The cache under `base`, the user's flowmcp cache directory (entries go to
    /// `<base>/.results/`, beside and hidden from the preload cache's namespaces).
    pub fn new(base: impl AsRef<Path>) -> ResultCache {
        let dir = base.as_ref().join(".results").join(FORMAT);
        ResultCache {
            root: Root::new(&dir),
            dir,
            max_bytes: DEFAULT_MAX_BYTES,
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            stored: AtomicUsize::new(0),
        }
    }

    /// Bounds the entries' total size ([`ResultCache::trim`] enforces it).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> ResultCache {
        self.max_bytes = max_bytes;
        self
    }

    /// Where the entries are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Hits, misses and writes so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            stored: self.stored.load(Ordering::Relaxed),
        }
    }

    /// Removes every entry this cache wrote (files named `<sha-256>.json` in its two-letter
    /// directories that parse as an entry of that key, and the directories once empty); anything
    /// else is left alone. Returns how many entries were removed.
    pub fn clear(&self) -> std::io::Result<usize> {
        let mut removed = 0;
        for (rel, _, _) in self.entries()? {
            if self.root.remove_file(&rel).is_ok() {
                removed += 1;
            }
        }
        self.remove_empty_dirs();
        Ok(removed)
    }

    /// Removes the oldest entries until the rest fit the size bound.
    pub fn trim(&self) -> std::io::Result<()> {
        let mut entries = self.entries()?;
        let mut total: u64 = entries.iter().map(|(_, size, _)| size).sum();
        if total <= self.max_bytes {
            return Ok(());
        }
        entries.sort_by_key(|(_, _, modified)| *modified);
        for (rel, size, _) in entries {
            if total <= self.max_bytes {
                break;
            }
            if self.root.remove_file(&rel).is_ok() {
                total = total.saturating_sub(size);
            }
        }
        self.remove_empty_dirs();
        Ok(())
    }

    /// The entries on disk: path (relative to the cache's directory), size, modification time.
    fn entries(&self) -> std::io::Result<Vec<(PathBuf, u64, std::time::SystemTime)>> {
        let mut out = Vec::new();
        let top = match self.root.list(Path::new("")) {
            Ok(t) => t,
            Err(PathError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(out);
            }
            Err(e) => return Err(e.into()),
        };
        for sub in top {
            let is_shard = sub.kind == EntryKind::Dir
                && sub.name.len() == 2
                && sub.name.to_str().is_some_and(is_lower_hex);
            if !is_shard {
                continue;
            }
            let Ok(files) = self.root.list(Path::new(&sub.name)) else {
                continue;
            };
            for f in files {
                let Some(stem) = f
                    .name
                    .to_str()
                    .and_then(|n| n.strip_suffix(".json"))
                    .filter(|stem| stem.len() == 64 && is_lower_hex(stem))
                else {
                    continue;
                };
                if f.kind != EntryKind::File {
                    continue;
                }
                let rel = Path::new(&sub.name).join(&f.name);
                let Ok(meta) = self.root.file_metadata(&rel) else {
                    continue;
                };
                // Ours: a regular file that parses as an entry of the key its name gives.
                let ours = self
                    .root
                    .read_capped(&rel, MAX_ENTRY_BYTES)
                    .ok()
                    .and_then(|b| serde_json::from_slice::<Entry<ReadData>>(&b).ok())
                    .is_some_and(|e| e.key == stem);
                if ours {
                    let modified = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                    out.push((rel, meta.len(), modified));
                }
            }
        }
        Ok(out)
    }

    fn remove_empty_dirs(&self) {
        if let Ok(top) = self.root.list(Path::new("")) {
            for sub in top.into_iter().filter(|s| s.kind == EntryKind::Dir) {
                // Only an empty directory is removed.
                let _ = self.root.remove_empty_dir(Path::new(&sub.name));
            }
        }
    }

    /// The stored report for `key`, if there is one whose file checks still answer the same.
    pub(crate) fn get(&self, key: &Key, checks: &dyn FileChecks) -> Option<FileReport> {
        self.counted(self.read(key, checks).map(|(report, _)| report))
    }

    /// The stored report and loaded file for `key` (a catalog's file, named `display`, whose text
    /// is `source`), if there is such an entry whose file checks still answer the same and whose
    /// loaded file can be restored (its `main` apart, as text).
    pub(crate) fn get_file(
        &self,
        key: &Key,
        checks: &dyn FileChecks,
        display: &str,
        source: Option<String>,
    ) -> Option<(FileReport, LoadedFile, Option<RawMain>)> {
        let found = self.read(key, checks).and_then(|(report, loaded)| {
            let (loaded, main) = loaded?.restore(display, source)?;
            Some((report, loaded, main))
        });
        self.counted(found)
    }

    /// `found`, counted as a hit when there is something, else as a miss.
    fn counted<T>(&self, found: Option<T>) -> Option<T> {
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    fn read(
        &self,
        key: &Key,
        checks: &dyn FileChecks,
    ) -> Option<(FileReport, Option<StoredLoaded<ReadData>>)> {
        let bytes = self
            .root
            .read_capped(&Self::relative(key), MAX_ENTRY_BYTES)
            .ok()?;
        let entry: Entry<ReadData> = serde_json::from_slice(&bytes).ok()?;
        if entry.key != key.hex {
            return None;
        }
        if !entry.checks.iter().all(|c| c.still_holds(checks)) {
            return None;
        }
        let diagnostics = entry
            .diagnostics
            .into_iter()
            .map(StoredDiagnostic::restore)
            .collect::<Option<Vec<_>>>()?;
        // A kind this build does not name is an entry it did not write.
        let kind = flowmcp_spec::diagnostic::ReportKind::parse(&entry.kind)?;
        Some((FileReport::new(entry.file, kind, diagnostics), entry.loaded))
    }

    /// Stores `report` under `key` with the file checks it asked; a failure to write only means
    /// the next run validates the file again.
    pub(crate) fn put(
        &self,
        key: &Key,
        checks: Vec<Check>,
        report: &FileReport,
        loaded: Option<&LoadedFile>,
    ) {
        let entry: Entry<WrittenData> = Entry {
            loaded: loaded.map(StoredLoaded::of),
            key: key.hex.clone(),
            checks,
            file: report.file().to_string(),
            kind: report.kind().as_str().to_string(),
            diagnostics: report
                .diagnostics()
                .iter()
                .map(StoredDiagnostic::of)
                .collect(),
        };
        let Ok(text) = serde_json::to_vec(&entry) else {
            return;
        };
        if self
            .root
            .write_cache_file(&Self::relative(key), &text)
            .is_ok()
        {
            self.stored.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Where the entry for `key` is, relative to the cache's directory.
    fn relative(key: &Key) -> PathBuf {
        PathBuf::from(key.hex.get(..2).unwrap_or("00")).join(format!("{}.json", key.hex))
    }
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The hash of a directory's files (names and bytes, in name order; links followed only while
/// they stay inside it): what a `_lists/` directory gives the files that see it. `None` when it
/// cannot be read (then nothing is cached).
pub(crate) fn hash_dir(dir: &Path) -> Option<[u8; 32]> {
    let root = Root::new(dir);
    let mut h = Sha256::new();
    for entry in root.list(Path::new("")).ok()? {
        if entry.kind == EntryKind::Dir {
            continue;
        }
        let bytes = root
            .read_capped(Path::new(&entry.name), MAX_ENTRY_BYTES)
            .ok()?;
        part(&mut h, entry.name.to_string_lossy().as_bytes());
        part(&mut h, &bytes);
    }
    Some(h.finalize().into())
}

/// Feeds one length-prefixed part to a hash, so that parts cannot run into each other.
fn part(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// What an entry holds: a report alone (`validate`), or also what a catalog needs of the loaded
/// file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    Report,
    /// A report with the fixes of [`crate::migrate::attach_fixes`] (they validate the file's
    /// text again, once per offer, so they are worth keeping).
    FixedReport,
    CatalogFile,
}

/// The key of one file's report: the SHA-256 of everything it depends on, in hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    hex: String,
}

impl Key {
    /// The key for the file at `path` (canonical path `canonical`, named `display`) with `bytes`,
    /// validated with options whose fingerprint is `options` and seeing the lists whose hash is
    /// `lists` (`None`: it sees none).
    pub(crate) fn new(
        purpose: Purpose,
        options: &[u8; 32],
        lists: Option<&[u8; 32]>,
        path: &Path,
        canonical: &Path,
        display: &str,
        bytes: &[u8],
    ) -> Key {
        let mut h = Sha256::new();
        part(&mut h, b"flowmcp-result");
        part(&mut h, FORMAT.as_bytes());
        part(
            &mut h,
            match purpose {
                Purpose::Report => b"report",
                Purpose::FixedReport => b"fixed-report",
                Purpose::CatalogFile => b"file",
            },
        );
        part(&mut h, build_key());
        part(&mut h, options);
        match lists {
            Some(l) => part(&mut h, l),
            None => part(&mut h, b""),
        }
        part(&mut h, path.as_os_str().as_encoded_bytes());
        part(&mut h, canonical.as_os_str().as_encoded_bytes());
        part(&mut h, display.as_bytes());
        part(&mut h, bytes);
        let digest: [u8; 32] = h.finalize().into();
        Key {
            hex: digest.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }
}

/// The fingerprint of validation options: every field, with the file checks left out (they are
/// asked again on every read instead).
pub(crate) fn options_fingerprint(opts: &flowmcp_validate::Options) -> [u8; 32] {
    let mut plain = opts.clone();
    plain.files = None;
    let mut h = Sha256::new();
    part(&mut h, format!("{plain:?}").as_bytes());
    h.finalize().into()
}

/// One question a validation asked through [`FileChecks`], with its answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "camelCase")]
pub(crate) enum Check {
    InlineDatabase {
        dir: PathBuf,
        name: String,
        present: Option<bool>,
    },
    GtfsSeal {
        db: PathBuf,
        answer: String,
    },
}

impl Check {
    fn still_holds(&self, checks: &dyn FileChecks) -> bool {
        match self {
            Check::InlineDatabase { dir, name, present } => {
                checks.inline_database_present(dir, name) == *present
            }
            Check::GtfsSeal { db, answer } => seal_text(&checks.gtfs_seal(db)) == *answer,
        }
    }
}

fn seal_text(r: &Result<Seal, SealError>) -> String {
    format!("{r:?}")
}

/// [`FileChecks`] that records every question and answer of one file's validation.
#[derive(Debug)]
pub(crate) struct Recorder {
    inner: Arc<dyn FileChecks>,
    asked: Mutex<Vec<Check>>,
}

impl Recorder {
    pub(crate) fn new(inner: Arc<dyn FileChecks>) -> Recorder {
        Recorder {
            inner,
            asked: Mutex::new(Vec::new()),
        }
    }

    /// The questions asked so far, each once.
    pub(crate) fn asked(&self) -> Vec<Check> {
        self.asked.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn note(&self, check: Check) {
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        if !asked.contains(&check) {
            asked.push(check);
        }
    }
}

impl FileChecks for Recorder {
    fn inline_database_present(&self, schema_dir: &Path, name: &str) -> Option<bool> {
        let present = self.inner.inline_database_present(schema_dir, name);
        self.note(Check::InlineDatabase {
            dir: schema_dir.to_path_buf(),
            name: name.to_string(),
            present,
        });
        present
    }

    fn gtfs_seal(&self, db: &Path) -> Result<Seal, SealError> {
        let answer = self.inner.gtfs_seal(db);
        self.note(Check::GtfsSeal {
            db: db.to_path_buf(),
            answer: seal_text(&answer),
        });
        answer
    }
}

/// An entry on disk.
#[derive(Serialize, Deserialize)]
struct Entry<D> {
    key: String,
    checks: Vec<Check>,
    file: String,
    kind: String,
    diagnostics: Vec<StoredDiagnostic>,
    /// For a catalog's file, what it needs of the loaded file besides its report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    loaded: Option<StoredLoaded<D>>,
}

/// The exports' data as an entry is written: borrowed from the loaded file, not copied.
type WrittenData<'a> = &'a indexmap::IndexMap<String, serde_json::Value>;

/// The exports' data as an entry is read: each export's JSON text, made a value only when
/// asked (a schema's `main` may be typed straight from its text, [`RawMain`]).
type ReadData = indexmap::IndexMap<String, Box<serde_json::value::RawValue>>;

/// The `main` export of a file restored from the cache, as the JSON text it was stored as, and
/// where it stood among the exports. A catalog that types it as a schema's model reads it from
/// the text once, without building a value tree first; anything else puts it back
/// ([`RawMain::put_back`]) and sees the file as a fresh load gives it.
pub(crate) struct RawMain {
    index: usize,
    raw: Box<serde_json::value::RawValue>,
}

/// serde_json reads at most 127 levels of nesting, and a stored `main` sits four levels deep in
/// its entry (entry, loaded file, exports, data): an entry whose `main` nests deeper than this
/// could not be read as a whole, so it is not restored (the file is validated again), whether
/// `main` is later read as a value or typed.
const MAX_MAIN_NESTING: usize = 123;

/// How deep the JSON text `raw` nests: the most brackets open at once outside strings.
///
/// A string is skipped to its closing quote with a byte search (its escapes jumped over), since
/// strings are most of a schema's text; every `main` restored from the cache is measured, and
/// the byte-by-byte loop this replaces was a tenth of a warm start's work on a file (D172). An
/// unterminated string ends the count, as it would have.
fn nesting(raw: &str) -> usize {
    let b = raw.as_bytes();
    let (mut at, mut depth, mut most) = (0usize, 0usize, 0usize);
    while let Some(&c) = b.get(at) {
        match c {
            b'"' => loop {
                let Some(found) = b
                    .get(at + 1..)
                    .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
                else {
                    return most;
                };
                at += 1 + found;
                if b.get(at) == Some(&b'"') {
                    break;
                }
                // A backslash: the byte after it is part of the string whatever it is.
                at += 1;
            },
            b'[' | b'{' => {
                depth += 1;
                most = most.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    most
}

impl RawMain {
    /// The export's JSON text.
    pub(crate) fn text(&self) -> &str {
        self.raw.get()
    }

    /// Puts the export back into `loaded`'s exports as a value, where it stood.
    pub(crate) fn put_back(self, loaded: &mut LoadedFile) {
        let value = serde_json::from_str(self.raw.get()).unwrap_or(serde_json::Value::Null);
        if let Some(e) = loaded.exports.as_mut() {
            let at = self.index.min(e.data.len());
            e.data.shift_insert(at, "main".to_string(), value);
        }
    }
}

/// Every file kind, to read one back by name.
const FILE_KINDS: [FileKind; 8] = [
    FileKind::Schema,
    FileKind::List,
    FileKind::Skill,
    FileKind::Prompt,
    FileKind::Agent,
    FileKind::Selection,
    FileKind::Content,
    FileKind::Unknown,
];

/// Every kind of value that is not JSON, to read one back by name.
const UNSERIALIZABLE_KINDS: [UnserializableKind; 10] = [
    UnserializableKind::Function,
    UnserializableKind::Undefined,
    UnserializableKind::Symbol,
    UnserializableKind::SymbolKey,
    UnserializableKind::BigInt,
    UnserializableKind::Number,
    UnserializableKind::NonPlain,
    UnserializableKind::Cycle,
    UnserializableKind::TooDeep,
    UnserializableKind::GetterThrew,
];

/// Fails to compile when a kind is added and the lists above do not have it yet (an entry with
/// an unknown kind would only be a miss, but a kind that is never stored would never be a hit).
#[allow(dead_code)]
fn every_kind_is_listed(f: FileKind, u: UnserializableKind) {
    match f {
        FileKind::Schema
        | FileKind::List
        | FileKind::Skill
        | FileKind::Prompt
        | FileKind::Agent
        | FileKind::Selection
        | FileKind::Content
        | FileKind::Unknown => {}
    }
    match u {
        UnserializableKind::Function
        | UnserializableKind::Undefined
        | UnserializableKind::Symbol
        | UnserializableKind::SymbolKey
        | UnserializableKind::BigInt
        | UnserializableKind::Number
        | UnserializableKind::NonPlain
        | UnserializableKind::Cycle
        | UnserializableKind::TooDeep
        | UnserializableKind::GetterThrew => {}
    }
}

/// The parts of a [`LoadedFile`] a catalog reads after validation: its kind and its exports (as
/// validation left them). The source comes from the bytes the key was made of.
#[derive(Serialize, Deserialize)]
struct StoredLoaded<D> {
    kind: String,
    exports: Option<StoredExports<D>>,
}

#[derive(Serialize, Deserialize)]
struct StoredExports<D> {
    names: Vec<String>,
    data: D,
    handlers: StoredHandlers,
    unserializable: Vec<StoredUnserializable>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "camelCase")]
enum StoredHandlers {
    Absent,
    NotFunction {
        what: String,
    },
    Function {
        shape: Result<Vec<(String, Vec<String>)>, String>,
    },
}

#[derive(Serialize, Deserialize)]
struct StoredUnserializable {
    export: String,
    path: Vec<StoredSeg>,
    kind: String,
    detail: String,
}

impl<'a> StoredLoaded<WrittenData<'a>> {
    fn of(loaded: &'a LoadedFile) -> StoredLoaded<WrittenData<'a>> {
        StoredLoaded {
            kind: loaded.kind.as_str().to_string(),
            exports: loaded.exports.as_ref().map(|e| StoredExports {
                names: e.names.clone(),
                data: &e.data,
                handlers: match &e.handlers {
                    HandlersExport::Absent => StoredHandlers::Absent,
                    HandlersExport::NotFunction(what) => {
                        StoredHandlers::NotFunction { what: what.clone() }
                    }
                    HandlersExport::Function { shape } => StoredHandlers::Function {
                        shape: shape.clone(),
                    },
                },
                unserializable: e
                    .unserializable
                    .iter()
                    .map(|u| StoredUnserializable {
                        export: u.export.clone(),
                        path: u
                            .path
                            .iter()
                            .map(|p| match p {
                                PathItem::Key(k) => StoredSeg::Key(k.clone()),
                                PathItem::Index(i) => StoredSeg::Index(*i),
                            })
                            .collect(),
                        kind: u.kind.as_str().to_string(),
                        detail: u.detail.clone(),
                    })
                    .collect(),
            }),
        }
    }
}

impl StoredLoaded<ReadData> {
    /// The loaded file again, named `display`, with `source` as its text (read from the file:
    /// a byte-order mark is taken off as the loader takes it off), and its `main` export apart
    /// as text; `None` when a kind is not one this build knows or an export is not JSON.
    fn restore(
        self,
        display: &str,
        mut source: Option<String>,
    ) -> Option<(LoadedFile, Option<RawMain>)> {
        let bom = source.as_mut().is_some_and(flowmcp_loader::take_mark);
        let kind = FILE_KINDS.into_iter().find(|k| k.as_str() == self.kind)?;
        let mut main = None;
        let exports = match self.exports {
            None => None,
            Some(e) => Some(Exports {
                names: e.names,
                data: {
                    let mut data = indexmap::IndexMap::with_capacity(e.data.len());
                    for (index, (name, raw)) in e.data.into_iter().enumerate() {
                        if name == "main" {
                            // Deeper than a whole entry could be read before: not restored.
                            if nesting(raw.get()) > MAX_MAIN_NESTING {
                                return None;
                            }
                            main = Some(RawMain { index, raw });
                        } else {
                            data.insert(name, serde_json::from_str(raw.get()).ok()?);
                        }
                    }
                    data
                },
                handlers: match e.handlers {
                    StoredHandlers::Absent => HandlersExport::Absent,
                    StoredHandlers::NotFunction { what } => HandlersExport::NotFunction(what),
                    StoredHandlers::Function { shape } => HandlersExport::Function { shape },
                },
                unserializable: e
                    .unserializable
                    .into_iter()
                    .map(|u| {
                        Some(Unserializable {
                            export: u.export,
                            path: u
                                .path
                                .into_iter()
                                .map(|s| match s {
                                    StoredSeg::Key(k) => PathItem::Key(k),
                                    StoredSeg::Index(i) => PathItem::Index(i),
                                })
                                .collect(),
                            kind: UNSERIALIZABLE_KINDS
                                .into_iter()
                                .find(|k| k.as_str() == u.kind)?,
                            detail: u.detail,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?,
            }),
        };
        let loaded = LoadedFile {
            display: display.to_string(),
            source,
            blanked: None,
            kind,
            exports,
            diagnostics: Vec::new(),
            bom,
            main_literal: None,
        };
        Some((loaded, main))
    }
}

/// A diagnostic as stored: its code and variant by name, its pointer as segments.
#[derive(Serialize, Deserialize)]
struct StoredDiagnostic {
    code: String,
    variant: Option<String>,
    severity: Severity,
    message: String,
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    pointer: Option<Vec<StoredSeg>>,
    path: Option<String>,
    help: Option<String>,
    /// Absent in entries of diagnostics without a fix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fix: Option<StoredFix>,
}

/// A diagnostic's fix as stored: whether it is unsafe, and its edits as `[start, end, text]`.
#[derive(Serialize, Deserialize)]
struct StoredFix {
    #[serde(rename = "unsafe")]
    is_unsafe: bool,
    edits: Vec<(usize, usize, String)>,
}

/// A pointer segment as stored: a number is an index, a string a key.
#[derive(Serialize)]
#[serde(untagged)]
enum StoredSeg {
    Index(usize),
    Key(String),
}

/// Read by the JSON token's type. A derived untagged reader would buffer every segment and try
/// each variant in turn; restoring a warm catalog reads one for each step of every stored
/// pointer, so that showed in the profile of a warm `list` (issue #46).
impl<'de> Deserialize<'de> for StoredSeg {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StoredSeg, D::Error> {
        struct Segment;
        impl serde::de::Visitor<'_> for Segment {
            type Value = StoredSeg;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an index or a key")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<StoredSeg, E> {
                usize::try_from(n)
                    .map(StoredSeg::Index)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(n), &self))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<StoredSeg, E> {
                usize::try_from(n)
                    .map(StoredSeg::Index)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(n), &self))
            }
            fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<StoredSeg, E> {
                Ok(StoredSeg::Key(k.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, k: String) -> Result<StoredSeg, E> {
                Ok(StoredSeg::Key(k))
            }
        }
        d.deserialize_any(Segment)
    }
}

impl StoredDiagnostic {
    fn of(d: &Diagnostic) -> StoredDiagnostic {
        StoredDiagnostic {
            code: d.code.as_str().to_string(),
            variant: d.variant.map(str::to_string),
            severity: d.severity,
            message: d.message.clone(),
            file: d.file.clone(),
            line: d.line,
            column: d.column,
            pointer: d.pointer.as_ref().map(|p| {
                p.segments()
                    .into_iter()
                    .map(|s| match s {
                        Seg::Key(k) => StoredSeg::Key(k),
                        Seg::Index(i) => StoredSeg::Index(i),
                    })
                    .collect()
            }),
            path: d.path.clone(),
            help: d.help.clone(),
            fix: d.fix.as_ref().map(|f| StoredFix {
                is_unsafe: f.applicability == Applicability::Unsafe,
                edits: f
                    .edits
                    .iter()
                    .map(|e| (e.start, e.end, e.text.clone()))
                    .collect(),
            }),
        }
    }

    /// The diagnostic again; `None` when the code or variant is not one this build knows.
    fn restore(self) -> Option<Diagnostic> {
        let code = Code::parse(&self.code)?;
        let variant = match &self.variant {
            Some(v) => Some(code.info().variant(v)?.name),
            None => None,
        };
        Some(Diagnostic {
            code,
            variant,
            severity: self.severity,
            message: self.message,
            file: self.file,
            line: self.line,
            column: self.column,
            pointer: self.pointer.map(|segs| {
                JsonPath::from_segments(segs.into_iter().map(|s| match s {
                    StoredSeg::Key(k) => Seg::Key(k),
                    StoredSeg::Index(i) => Seg::Index(i),
                }))
            }),
            path: self.path,
            help: self.help,
            fix: self.fix.map(|f| Fix {
                applicability: if f.is_unsafe {
                    Applicability::Unsafe
                } else {
                    Applicability::Safe
                },
                edits: f
                    .edits
                    .into_iter()
                    .map(|(start, end, text)| Edit { start, end, text })
                    .collect(),
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46: nesting counts brackets outside strings only, and a `main` put back stands
    /// where it stood among the exports.
    #[test]
    fn i46_nesting_and_a_main_put_back_in_its_place() {
        assert_eq!(nesting("1"), 0);
        assert_eq!(nesting(r#"{"a":[1,{"b":[]}]}"#), 4);
        assert_eq!(nesting(r#"["[[[", "\\", "\"{{", {}]"#), 2);
        // The same count as reading byte by byte, on every text of up to six bytes from the
        // bytes that matter.
        fn byte_by_byte(raw: &str) -> usize {
            let (mut depth, mut most, mut in_string, mut escaped) = (0usize, 0usize, false, false);
            for b in raw.bytes() {
                if in_string {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                    }
                    continue;
                }
                match b {
                    b'"' => in_string = true,
                    b'[' | b'{' => {
                        depth += 1;
                        most = most.max(depth);
                    }
                    b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            most
        }
        let alphabet = [b'"', b'\\', b'[', b'{', b'}', b'x'];
        let mut text = Vec::new();
        for len in 0..=6u32 {
            for mut n in 0..alphabet.len().pow(len) {
                text.clear();
                for _ in 0..len {
                    text.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                let s = std::str::from_utf8(&text).unwrap();
                assert_eq!(nesting(s), byte_by_byte(s), "{s}");
            }
        }
        let entry: StoredLoaded<ReadData> = serde_json::from_str(
            r#"{"kind":"schema","exports":{"names":["a","main","z"],
                "data":{"a":1,"main":{"namespace":"x","t":[1,2]},"z":[true]},
                "handlers":{"is":"absent"},"unserializable":[]}}"#,
        )
        .unwrap();
        let (mut loaded, main) = entry.restore("f.mjs", None).unwrap();
        let main = main.unwrap();
        assert_eq!(main.text(), r#"{"namespace":"x","t":[1,2]}"#);
        let keys = |l: &LoadedFile| -> Vec<String> {
            l.exports.as_ref().unwrap().data.keys().cloned().collect()
        };
        assert_eq!(keys(&loaded), ["a", "z"]);
        main.put_back(&mut loaded);
        assert_eq!(keys(&loaded), ["a", "main", "z"]);
        assert_eq!(
            loaded.exports.as_ref().unwrap().data["main"],
            serde_json::json!({"namespace": "x", "t": [1, 2]})
        );
    }

    /// Issue 46: a stored pointer segment reads back as it was written (an index as an index, a
    /// key as a key, a key made of digits as a key) and anything else is refused, as the derived
    /// untagged reader it replaces did.
    #[test]
    fn i46_a_stored_segment_reads_back_by_its_type() {
        let segs = vec![
            StoredSeg::Index(0),
            StoredSeg::Index(usize::MAX),
            StoredSeg::Key("tools".into()),
            StoredSeg::Key("12".into()),
            StoredSeg::Key("é \"q\"".into()),
        ];
        let text = serde_json::to_string(&segs).unwrap();
        let back: Vec<StoredSeg> = serde_json::from_str(&text).unwrap();
        let shown = |v: &[StoredSeg]| -> Vec<String> {
            v.iter()
                .map(|s| match s {
                    StoredSeg::Index(i) => format!("#{i}"),
                    StoredSeg::Key(k) => format!("k{k}"),
                })
                .collect()
        };
        assert_eq!(shown(&back), shown(&segs));
        for bad in [
            "-1",
            "1.5",
            "true",
            "null",
            "[]",
            "{}",
            "18446744073709551616",
        ] {
            assert!(
                serde_json::from_str::<StoredSeg>(bad).is_err(),
                "{bad} was read as a segment"
            );
        }
    }

    /// Issue 40, scope 1: the build's part of a result key changes with the version of any
    /// flowmcp crate a validation runs through and with any change of the rule registry, so a
    /// newer release of a dependency never reads results an older one cached.
    #[test]
    fn i40_the_build_key_covers_every_crate_version_and_the_registry() {
        let rules = flowmcp_spec::registry::RULES;
        let names: Vec<&str> = CRATE_VERSIONS.iter().map(|(n, _)| *n).collect();
        for name in [
            "flowmcp-spec",
            "flowmcp-files",
            "flowmcp-loader",
            "flowmcp-resources",
            "flowmcp-validate",
            "flowmcp-runtime",
            "flowmcp-catalog",
        ] {
            assert!(names.contains(&name), "{name} is not part of the key");
        }
        let base = build_key_of("id", &CRATE_VERSIONS, rules);
        assert_eq!(base, build_key_of("id", &CRATE_VERSIONS, rules));
        assert_eq!(*build_key(), build_key_of(BUILD_ID, &CRATE_VERSIONS, rules));
        assert_ne!(base, build_key_of("other", &CRATE_VERSIONS, rules));
        // A newer release of any one crate is another key.
        for i in 0..CRATE_VERSIONS.len() {
            let mut bumped = CRATE_VERSIONS;
            bumped[i].1 = "999.0.0";
            assert_ne!(base, build_key_of("id", &bumped, rules), "{}", bumped[i].0);
        }
        // A rule whose level, summary or status changed, or a rule added or removed.
        let mut changed = rules.to_vec();
        changed[0].spec = flowmcp_spec::Level::Off;
        assert_ne!(base, build_key_of("id", &CRATE_VERSIONS, &changed));
        let mut changed = rules.to_vec();
        changed[1].summary = "another summary";
        assert_ne!(base, build_key_of("id", &CRATE_VERSIONS, &changed));
        let mut changed = rules.to_vec();
        changed[2].status = flowmcp_spec::registry::Status::Planned(40);
        assert_ne!(base, build_key_of("id", &CRATE_VERSIONS, &changed));
        assert_ne!(
            base,
            build_key_of("id", &CRATE_VERSIONS, &rules[..rules.len() - 1])
        );
    }

    /// Issue 39, scope 1: a `_lists/` directory is hashed through its handle, so a list file
    /// that is a link out of it makes the directory unreadable (nothing is cached) rather than
    /// reading whatever it points at; a link that stays inside is read.
    #[test]
    fn i39_9_a_lists_directory_is_hashed_without_leaving_it() {
        let base = std::env::temp_dir().join(format!("flowmcp-hashdir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let lists = base.join("_lists");
        std::fs::create_dir_all(&lists).unwrap();
        std::fs::write(lists.join("a.mjs"), "export const list = {}").unwrap();
        std::os::unix::fs::symlink("a.mjs", lists.join("b.mjs")).unwrap();
        let inside = hash_dir(&lists);
        assert!(inside.is_some());
        std::fs::write(base.join("secret.txt"), "token").unwrap();
        std::os::unix::fs::symlink(base.join("secret.txt"), lists.join("c.mjs")).unwrap();
        assert_eq!(hash_dir(&lists), None);
        let _ = std::fs::remove_dir_all(&base);
    }
}
