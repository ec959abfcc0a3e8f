//! The preload cache (specification chapter 11).
//!
//! Routes with `preload.enabled: true` may have their responses cached on disk. This module stores
//! and finds those responses; deciding *whether* to use the cache (`--no-cache`, `--refresh`, tests
//! always bypassing it) is the caller's business.
//!
//! # What is cached
//!
//! The **raw upstream response** — the decoded JSON body before any `postRequest` handler. Chapter
//! 11 allows caching the transformed response instead and asks runtimes to say which they do; this
//! one caches the raw response. Handlers therefore run on every hit, and a change of handler logic
//! never needs an invalidation.
//!
//! # Cache key and file layout
//!
//! A [`CacheKey`] consists of the schema namespace, the tool (route) name, the **effective root**
//! (after an `--upstream` override) and the user parameters. Under the base directory (default
//! `~/.flowmcp/cache/`, see [`Cache::default_base`]):
//!
//! * no parameters (an empty map): `<base>/<namespace>/<tool>.json`;
//! * otherwise: `<base>/<namespace>/<tool>/<paramHash>.json`, where `paramHash` is the first 16
//!   lowercase hex digits of SHA-256 over the RFC 8785 canonical JSON of
//!   `{"params": <params>, "root": <root>}`. Canonical JSON sorts object keys (recursively), so the
//!   order in which parameters were given does not matter.
//!
//! The root is always part of the key: with parameters it is inside the hash, and in every case it
//! is recorded in the entry's `meta.root`. A lookup is a hit only when `meta.namespace`,
//! `meta.tool`, `meta.root`, `meta.paramHash`, `meta.definition` and `meta.valuesMac` all equal
//! the key's; anything
//! else is a [`Lookup::Miss`]. So a parameterless route called with another root misses (and the
//! next store replaces the entry), and a hash or file-name collision can never serve another key's
//! data.
//!
//! # Entries are bound to their writer
//!
//! Namespaces and tool names are not unique across catalogs: a schema of any catalog the user once
//! ran may have the trusted schema's namespace, tool name and root. So a key also carries the hash
//! of the definition that fetches the data ([`CacheKey::with_definition`]; the runtime passes the
//! hash computed once per preloaded tool, on its first cached call, over its `main` tool entry, the schema's root,
//! headers, server-parameter names, libraries, shared lists and handler source). An entry another
//! definition wrote is a miss, and the next fetch overwrites it (the definition is not part of the
//! file's path).
//!
//! # Entries are bound to the server-parameter values
//!
//! The same definition fetches another account's data when it is sent with another API key (a
//! repository's `.env` may hold an attacker's key; two deployments sharing one Redis may use
//! different keys). So a key also carries `valuesMac`, the HMAC-SHA256 of the canonical JSON of
//! the server-parameter values the request is sent with, under the cache's secret
//! [`BindingKey`] ([`PreloadCache::bind`]): an entry fetched with other values is a miss and is
//! overwritten by the next fetch. The key is never part of an entry: a file cache keeps it in
//! its directory ([`KEY_FILE`], created once, owner-only), processes sharing Redis are given one
//! by their deployment ([`RedisCache::with_key`]).
//!
//! A lookup also takes the **reader's own ttl**: an entry expires at the earlier of its own
//! `expiresAt` and `fetchedAt` + the reader's ttl, and an entry fetched in the future has expired.
//! What expiry the writer chose cannot keep data alive longer than the reader allows.
//!
//! Parameters the user omitted must be left out of the map (an optional parameter that was not
//! given is not `null`); a route called with no parameters uses the short file name, as the
//! chapter recommends.
//!
//! # Path safety
//!
//! Namespace and tool names come from schema files, which are untrusted. Each name becomes exactly
//! one path component through [`flowmcp_spec::paths::encode_name`], the encoder every file named
//! after a catalog's names uses: ASCII letters, digits, `-` and `_` are kept; every other byte of
//! the UTF-8 name (including `.`, `/`, `\`, `%` and `:`) becomes `%XX`; an empty name is `%`, a
//! Windows device name gets its first letter escaped, and a long one is cut and ends in a digest.
//! Encoded names therefore never contain `.`, so `..` and a clash between a tool's
//! `<tool>.json` file and another tool's `<tool>/` directory are impossible.
//!
//! # Entry files
//!
//! ```json
//! { "meta": { "fetchedAt": "2026-02-17T12:00:00.000Z", "expiresAt": "2026-02-24T12:00:00.000Z",
//!             "ttl": 604800, "size": 760123, "paramHash": null,
//!             "namespace": "hospitals", "tool": "getLocations", "root": "https://example.org",
//!             "definition": "3f9c…", "valuesMac": "9b1e…" },
//!   "data": { } }
//! ```
//!
//! `definition` and `valuesMac` are `null` for a key without them; entries written before they
//! existed lack them and read as `null`.
//!
//! `size` is the byte length of the compact JSON serialisation of `data`. Timestamps are RFC 3339
//! UTC with milliseconds. An entry expires when `now >= expiresAt` (`expiresAt = fetchedAt + ttl`).
//! Entries are written atomically ([`flowmcp_loader::edit::write_atomic`]: a hidden temporary
//! file in the same directory, then renamed over the entry). A file that cannot be read or parsed is a miss,
//! never an error.
//!
//! # Shared in Redis
//!
//! [`RedisCache`] keeps the same entries in a Redis database that several processes (replicas)
//! share, so they fetch once per ttl between them. Its key is `flowmcp:preload:v1:` followed by
//! the relative path's components without the extension (`<namespace>/<tool>` or
//! `<namespace>/<tool>/<paramHash>`); its value is exactly the entry bytes a file would hold
//! (`encode_entry`), read by exactly the rules above (`judge_entry`), and Redis's own expiry
//! (`SET … PX`) is the entry's. A value that is not an entry, or is another key's or definition's,
//! is a miss. Redis being down, hung or answering errors is a miss too (connecting and each
//! command have a short time limit as a whole, and never outlast the call's deadline), with one
//! warning per outage. Misses of the same entry in several processes at
//! once make one fetch: the first takes a fill lock ([`Fill`]), the others wait for its entry.
//! See [`RedisCache`]. [`PreloadCache`] is what a runner
//! holds: either backend, behind one `lookup` / `store`.
//!
//! # Secrets
//!
//! Cache entries (files or Redis values) must never contain secrets. The key is built only from
//! the user parameters and the root, and the root is stored in plain text in `meta.root`: callers **must pass the root template
//! text**, i.e. the root *before* server-parameter values (`{{API_KEY}}` and the like) are
//! substituted into it. Server params sent as headers or query values are never part of a key;
//! only their keyed hash is (`valuesMac`, see above).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use flowmcp_files::{EntryKind, PathError, Root};
use flowmcp_spec::hash::canonical_sha256;
use flowmcp_spec::paths::encode_name;
use serde_json::{Map, Value, json};

mod binding;
#[cfg(feature = "redis")]
mod resp;
#[cfg(feature = "redis")]
mod shared;
pub(crate) use binding::hmac;
pub use binding::{BindingKey, BindingKeyError, KEY_FILE};
#[cfg(feature = "redis")]
pub use shared::{Fill, RedisCache, RedisUrlError, shown_url};

/// Number of hex digits of the parameter hash.
const PARAM_HASH_LEN: usize = 16;
/// Extension of entry files.
const ENTRY_EXT: &str = ".json";
/// The largest entry file the file cache reads (far above any response the client accepts).
const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// What one cached response is filed under.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheKey {
    namespace: String,
    tool: String,
    root: String,
    param_hash: Option<String>,
    /// The hash of the definition that fetches the data (not part of the path).
    definition: Option<String>,
    /// The keyed hash of the server-parameter values the data is fetched with (not part of the
    /// path; see [`PreloadCache::bind`]).
    values_mac: Option<String>,
}

impl CacheKey {
    /// A key for `tool` of `namespace` called against the effective `root` with the user `params`.
    ///
    /// `root` must be the root *template* — without server-parameter values substituted (see the
    /// module documentation); it is stored in plain text. `params` holds only the parameters the
    /// user gave.
    pub fn new(
        namespace: impl Into<String>,
        tool: impl Into<String>,
        root: impl Into<String>,
        params: Map<String, Value>,
    ) -> CacheKey {
        let root = root.into();
        let param_hash = if params.is_empty() {
            None
        } else {
            let mut input = Map::new();
            input.insert("params".to_string(), Value::Object(params));
            input.insert("root".to_string(), Value::String(root.clone()));
            let hex = canonical_sha256(&Value::Object(input));
            Some(hex[..PARAM_HASH_LEN].to_string())
        };
        CacheKey {
            namespace: namespace.into(),
            tool: tool.into(),
            root,
            param_hash,
            definition: None,
            values_mac: None,
        }
    }

    /// The key bound to the server-parameter values whose keyed hash is `mac`: an entry fetched
    /// with other values (or written without) is a miss for it.
    fn with_values_mac(mut self, mac: String) -> CacheKey {
        self.values_mac = Some(mac);
        self
    }

    /// The key filed apart by the server-parameter values it is bound to: its parameter hash
    /// covers their keyed hash too, so entries fetched with other values live beside it instead
    /// of replacing it (see [`PreloadCache::bind_apart`]).
    fn apart(mut self) -> CacheKey {
        if let Some(mac) = &self.values_mac {
            let input = json!({"paramHash": self.param_hash, "valuesMac": mac});
            let hex = canonical_sha256(&input);
            self.param_hash = Some(hex[..PARAM_HASH_LEN].to_string());
        }
        self
    }

    /// The key bound to the definition whose hash is `definition`: an entry written under another
    /// definition (or none) is a miss for it, and is overwritten by its next store.
    pub fn with_definition(mut self, definition: impl Into<String>) -> CacheKey {
        self.definition = Some(definition.into());
        self
    }

    /// The hash of the definition the key is bound to, if any.
    pub fn definition(&self) -> Option<&str> {
        self.definition.as_deref()
    }

    /// The schema namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The tool (route) name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The effective root (template text).
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The parameter hash (16 hex digits over the canonical parameters and the root), `None` when
    /// there are no parameters.
    pub fn param_hash(&self) -> Option<&str> {
        self.param_hash.as_deref()
    }

    /// The entry's path relative to the cache base directory.
    pub fn relative_path(&self) -> PathBuf {
        let (namespace, tool, hash) = self.name_parts();
        match hash {
            None => PathBuf::from(namespace).join(format!("{tool}{ENTRY_EXT}")),
            Some(hash) => PathBuf::from(namespace)
                .join(tool)
                .join(format!("{hash}{ENTRY_EXT}")),
        }
    }

    /// The entry's name in a shared store (after its prefix): `<namespace>/<tool>` or
    /// `<namespace>/<tool>/<paramHash>`, with the names encoded as in [`CacheKey::relative_path`]
    /// (so it holds no `/`, `*`, `?`, `[` or `\` of its own).
    #[cfg(feature = "redis")]
    pub(crate) fn shared_name(&self) -> String {
        let (namespace, tool, hash) = self.name_parts();
        match hash {
            None => format!("{namespace}/{tool}"),
            Some(hash) => format!("{namespace}/{tool}/{hash}"),
        }
    }

    /// The encoded namespace, the encoded tool and the parameter hash: what every place an entry
    /// is kept is named after.
    fn name_parts(&self) -> (String, String, Option<&str>) {
        (
            encode_name(&self.namespace),
            encode_name(&self.tool),
            self.param_hash.as_deref(),
        )
    }
}

/// The result of [`Cache::lookup`].
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// A fresh entry: the raw response and its timestamps (RFC 3339 UTC).
    Hit {
        data: Value,
        fetched_at: String,
        expires_at: String,
    },
    /// An entry for this key exists but its TTL has run out.
    Expired,
    /// No usable entry (absent, for another root, unreadable or corrupt).
    Miss,
}

/// One entry as listed by [`Cache::status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    pub namespace: String,
    pub tool: String,
    pub root: String,
    pub param_hash: Option<String>,
    pub path: PathBuf,
    /// Bytes of the cached data's JSON (`meta.size`).
    pub size: u64,
    pub ttl: u64,
    pub fetched_at: String,
    pub expires_at: String,
    pub expired: bool,
    /// The entry is kept under another name (file path or Redis key) than its own meta gives:
    /// it was not put there by this program, is never served for that name and is not removed
    /// by `clear`.
    pub mismatched: bool,
}

/// The on-disk preload cache rooted at one base directory.
#[derive(Debug, Clone)]
pub struct Cache {
    base: PathBuf,
    /// The key entries are bound to server-parameter values with ([`KEY_FILE`] in `base`),
    /// read or created on first use.
    key: Arc<OnceLock<Result<BindingKey, String>>>,
}

impl PartialEq for Cache {
    fn eq(&self, other: &Cache) -> bool {
        self.base == other.base
    }
}

impl Eq for Cache {}

impl Cache {
    /// A cache under `base` (created on the first store).
    pub fn new(base: impl Into<PathBuf>) -> Cache {
        Cache {
            base: base.into(),
            key: Arc::default(),
        }
    }

    /// The key entries are bound with: [`KEY_FILE`] in the base directory, created on first
    /// use ([`BindingKey::load_or_create`]). `Err` says why there is none.
    pub fn key(&self) -> Result<&BindingKey, String> {
        self.key
            .get_or_init(|| {
                BindingKey::load_or_create(&self.base).map_err(|e| {
                    format!("the cache key in {} is unusable: {e}", self.base.display())
                })
            })
            .as_ref()
            .map_err(String::clone)
    }

    /// `$HOME/.flowmcp/cache` (`%USERPROFILE%` when `HOME` is unset), `None` when neither is set.
    pub fn default_base() -> Option<PathBuf> {
        ["HOME", "USERPROFILE"]
            .iter()
            .filter_map(std::env::var_os)
            .find(|home| !home.is_empty())
            .map(|home| PathBuf::from(home).join(".flowmcp").join("cache"))
    }

    /// The base directory.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Where the entry for `key` lives.
    pub fn path_for(&self, key: &CacheKey) -> PathBuf {
        self.base.join(key.relative_path())
    }

    /// Looks `key` up as of `now` for a reader whose ttl is `ttl_secs`: a fresh entry is one that
    /// has reached neither its own `expiresAt` nor `fetchedAt` + `ttl_secs`, and was not fetched
    /// after `now`. Never fails: anything unusable is a [`Lookup::Miss`].
    pub fn lookup(&self, key: &CacheKey, ttl_secs: u64, now: SystemTime) -> Lookup {
        self.lookup_with_warning(key, ttl_secs, now).0
    }

    /// Like [`Cache::lookup`], plus a warning when an entry file exists but could not be read or
    /// parsed (the lookup is then a miss).
    pub fn lookup_with_warning(
        &self,
        key: &CacheKey,
        ttl_secs: u64,
        now: SystemTime,
    ) -> (Lookup, Option<String>) {
        let path = self.path_for(key);
        let bytes = match self
            .root()
            .read_capped(&key.relative_path(), MAX_ENTRY_BYTES)
        {
            Ok(bytes) => bytes,
            Err(PathError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                return (Lookup::Miss, None);
            }
            Err(err) => {
                let warning = format!("Ignoring unreadable cache file {}: {err}", path.display());
                return (Lookup::Miss, Some(warning));
            }
        };
        match judge_entry(key, ttl_secs, now, &bytes) {
            Ok(lookup) => (lookup, None),
            Err(reason) => {
                let warning = format!("Ignoring corrupt cache file {}: {reason}", path.display());
                (Lookup::Miss, Some(warning))
            }
        }
    }

    /// Stores the raw response `data` for `key`, fetched at `now`, valid for `ttl_secs` seconds.
    /// Creates directories as needed and replaces any previous entry atomically. Returns the
    /// entry's path.
    pub fn store(
        &self,
        key: &CacheKey,
        ttl_secs: u64,
        data: &Value,
        now: SystemTime,
    ) -> io::Result<PathBuf> {
        let (bytes, _) = encode_entry(key, ttl_secs, data, now).map_err(io::Error::other)?;
        self.root()
            .write_atomic(&key.relative_path(), &bytes, &|_| true)
            .map_err(io::Error::from)?;
        Ok(self.path_for(key))
    }

    /// Lists the entries (all, or those of one namespace) with expiry as of the current time.
    pub fn status(&self, namespace: Option<&str>) -> io::Result<Vec<EntryInfo>> {
        self.status_at(namespace, SystemTime::now())
    }

    /// Lists the entries (all, or those of one namespace) with expiry as of `now`, sorted by
    /// namespace, tool and path; an entry whose file is not where its own key puts it is marked
    /// [`EntryInfo::mismatched`]. Temporary files and files that cannot be parsed are left out.
    pub fn status_at(
        &self,
        namespace: Option<&str>,
        now: SystemTime,
    ) -> io::Result<Vec<EntryInfo>> {
        let mut infos = Vec::new();
        for rel in self.entry_files(namespace)? {
            let Ok(bytes) = self.root().read_capped(&rel, MAX_ENTRY_BYTES) else {
                continue;
            };
            let path = self.base.join(&rel);
            let Some(info) = entry_info(&bytes, path, now, |k| self.path_for(k)) else {
                continue;
            };
            if namespace.is_some_and(|ns| ns != info.namespace) {
                continue;
            }
            infos.push(info);
        }
        infos.sort_by(|a, b| {
            (&a.namespace, &a.tool, &a.path).cmp(&(&b.namespace, &b.tool, &b.path))
        });
        Ok(infos)
    }

    /// Removes the entries (all, or those of one namespace). A file is removed only when it parses
    /// as an entry this cache wrote and lies exactly where that entry's own key puts it, so a
    /// mistaken base directory (`--cache-dir .`) loses nothing: every other file, corrupt entries
    /// and leftover temporary files included, is kept and listed in [`ClearReport::kept`].
    /// Directories are removed only when they end up empty.
    pub fn clear(&self, namespace: Option<&str>) -> io::Result<ClearReport> {
        let mut report = ClearReport::default();
        for rel in self.entry_files(namespace)? {
            let path = self.base.join(&rel);
            let ours = self
                .root()
                .read_capped(&rel, MAX_ENTRY_BYTES)
                .ok()
                .and_then(|bytes| {
                    entry_info(&bytes, path.clone(), SystemTime::now(), |k| {
                        self.path_for(k)
                    })
                })
                .is_some_and(|info| !info.mismatched);
            if !ours {
                report.kept.push(path);
                continue;
            }
            match self.root().remove_file(&rel) {
                Ok(()) => report.removed += 1,
                Err(PathError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {}
                Err(err) => return Err(err.into()),
            }
        }
        for dir in self.namespace_dirs(namespace)? {
            for child in self.children(&dir)? {
                if child.is_dir {
                    report.kept.extend(self.other_files(&child.rel)?);
                    let _ = self.root().remove_empty_dir(&child.rel);
                }
            }
            report.kept.extend(self.other_files(&dir)?);
            let _ = self.root().remove_empty_dir(&dir);
        }
        report.kept.sort();
        report.kept.dedup();
        Ok(report)
    }

    /// The root every entry file is opened through: the base directory, as given.
    fn root(&self) -> Root {
        Root::new(&self.base)
    }

    /// The namespace directories to look at, relative to the base.
    fn namespace_dirs(&self, namespace: Option<&str>) -> io::Result<Vec<PathBuf>> {
        match namespace {
            Some(ns) => {
                let dir = PathBuf::from(encode_name(ns));
                let is_dir = matches!(self.root().kind(&dir), Ok(Some(EntryKind::Dir)));
                Ok(if is_dir { vec![dir] } else { Vec::new() })
            }
            None => Ok(self
                .children(Path::new(""))?
                .into_iter()
                .filter(|child| child.is_dir && !child.hidden)
                .map(|child| child.rel)
                .collect()),
        }
    }

    /// The children of the directory at `rel` (relative to the base), sorted by name, listed
    /// through the root's handle (an absent directory has none). Symbolic links are never
    /// treated as directories; names that are not UTF-8 are skipped.
    fn children(&self, rel: &Path) -> io::Result<Vec<Child>> {
        let entries = match self.root().list(rel) {
            Ok(entries) => entries,
            Err(PathError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                return Ok(Vec::new());
            }
            Err(err) => return Err(err.into()),
        };
        Ok(entries
            .into_iter()
            .filter_map(|e| {
                let name = e.name.into_string().ok()?;
                Some(Child {
                    rel: rel.join(&name),
                    hidden: name.starts_with('.'),
                    is_dir: e.kind == EntryKind::Dir,
                    name,
                })
            })
            .collect())
    }

    /// The files directly inside `rel` that are not `*.json` entry candidates (hidden files,
    /// temporary files, other names): what [`Cache::clear`] keeps and reports, as paths.
    fn other_files(&self, rel: &Path) -> io::Result<Vec<PathBuf>> {
        Ok(self
            .children(rel)?
            .into_iter()
            .filter(|c| !c.is_dir && !c.is_entry_file())
            .map(|c| self.base.join(c.rel))
            .collect())
    }

    /// Every file laid out like an entry: `<ns>/<tool>.json` and `<ns>/<tool>/<hash>.json`.
    fn entry_files(&self, namespace: Option<&str>) -> io::Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for dir in self.namespace_dirs(namespace)? {
            for child in self.children(&dir)? {
                if child.hidden {
                    continue;
                }
                if child.is_dir {
                    files.extend(
                        self.children(&child.rel)?
                            .into_iter()
                            .filter(|c| c.is_entry_file())
                            .map(|c| c.rel),
                    );
                } else if child.is_entry_file() {
                    files.push(child.rel);
                }
            }
        }
        Ok(files)
    }
}

/// Where a runner keeps preload entries: a directory ([`Cache`]) or a Redis database shared by
/// several processes ([`RedisCache`]). Both file the same entries under the same keys and read
/// them by the same rules; only where the bytes go differs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PreloadCache {
    /// Files under a base directory.
    File(Cache),
    /// Keys under `flowmcp:preload:v1:` in one Redis database.
    #[cfg(feature = "redis")]
    Redis(RedisCache),
}

impl From<Cache> for PreloadCache {
    fn from(cache: Cache) -> PreloadCache {
        PreloadCache::File(cache)
    }
}

#[cfg(feature = "redis")]
impl From<RedisCache> for PreloadCache {
    fn from(cache: RedisCache) -> PreloadCache {
        PreloadCache::Redis(cache)
    }
}

/// What [`PreloadCache::store`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// The entry was stored.
    Yes,
    /// Not stored: the reason, for the call's warnings (a file that could not be written).
    Failed(String),
    /// Not stored: the shared store is unavailable; the warning to log, given once per outage.
    Unavailable(Option<String>),
}

/// What [`PreloadCache::lookup`] found.
#[derive(Debug)]
pub struct Found {
    /// The entry, or why there is none.
    pub lookup: Lookup,
    /// A warning to log: Redis just became unavailable (the lookup is then a miss).
    pub warning: Option<String>,
    /// Held while this process fetches the entry (Redis only): replicas that miss meanwhile wait
    /// for its store instead of fetching too. Keep it until the entry is stored (or the fetch
    /// failed); dropping it releases the lock.
    pub fill: Option<Fill>,
}

impl Found {
    #[cfg(feature = "redis")]
    pub(crate) fn miss(first: Option<Lookup>, warning: Option<String>) -> Found {
        Found {
            lookup: first.unwrap_or(Lookup::Miss),
            warning,
            fill: None,
        }
    }
}

impl From<(Lookup, Option<String>)> for Found {
    fn from((lookup, warning): (Lookup, Option<String>)) -> Found {
        Found {
            lookup,
            warning,
            fill: None,
        }
    }
}

/// Without the `redis` feature there is no store shared between processes, so no process ever
/// holds a claim on fetching an entry: this type has no values ([`Found::fill`] is always `None`).
#[cfg(not(feature = "redis"))]
#[derive(Debug)]
pub struct Fill {
    never: std::convert::Infallible,
}

#[cfg(not(feature = "redis"))]
impl Fill {
    /// Never called: there is no value to call it on.
    #[allow(dead_code)]
    fn unreachable(&self) -> ! {
        match self.never {}
    }
}

impl PreloadCache {
    /// Looks `key` up as [`Cache::lookup`] does. Never fails: anything unusable, Redis being
    /// unavailable included, is a [`Lookup::Miss`], with a warning to log when Redis just became
    /// unavailable. In Redis, a miss either waits for another process that is fetching the same
    /// entry, or comes with the [`Fill`] that makes the others wait for this one's store. Nothing
    /// waits beyond `deadline` (the call's): connecting, each command and the wait for another
    /// process's fetch.
    pub fn lookup(
        &self,
        key: &CacheKey,
        ttl_secs: u64,
        now: SystemTime,
        deadline: Instant,
    ) -> Found {
        #[cfg(not(feature = "redis"))]
        let _ = deadline;
        match self {
            PreloadCache::File(cache) => (cache.lookup(key, ttl_secs, now), None).into(),
            #[cfg(feature = "redis")]
            PreloadCache::Redis(cache) => cache.lookup(key, ttl_secs, now, deadline),
        }
    }

    /// Stores the raw response `data` for `key`, fetched at `now`, valid for `ttl_secs` seconds;
    /// in Redis by `deadline` (the call's).
    pub fn store(
        &self,
        key: &CacheKey,
        ttl_secs: u64,
        data: &Value,
        now: SystemTime,
        deadline: Instant,
    ) -> Stored {
        #[cfg(not(feature = "redis"))]
        let _ = deadline;
        match self {
            PreloadCache::File(cache) => match cache.store(key, ttl_secs, data, now) {
                Ok(_) => Stored::Yes,
                Err(e) => Stored::Failed(e.to_string()),
            },
            #[cfg(feature = "redis")]
            PreloadCache::Redis(cache) => match cache.store(key, ttl_secs, data, now, deadline) {
                Ok(_) => Stored::Yes,
                Err(warning) => Stored::Unavailable(warning),
            },
        }
    }

    /// `key` bound to the server-parameter `values` the call sends (an object of name → value):
    /// the entry records their HMAC-SHA256 under this cache's [`BindingKey`] (never the key,
    /// never a value), so a call with other values misses it and overwrites it. `Err` says why
    /// the cache has no key (it is then not used for this call).
    pub fn bind(&self, key: CacheKey, values: &Value) -> Result<CacheKey, String> {
        let binding = match self {
            PreloadCache::File(cache) => cache.key()?,
            #[cfg(feature = "redis")]
            PreloadCache::Redis(cache) => cache.key().ok_or_else(|| {
                format!("the Redis preload cache {} has no key", cache.shown_url())
            })?,
        };
        Ok(key.with_values_mac(binding.mac(values)))
    }

    /// [`PreloadCache::bind`], with the entry filed apart: under a name of its own for these
    /// values, so that entries fetched with different values live side by side instead of
    /// replacing each other. For values each client brings (`serve --client-credentials`,
    /// D142), where one entry per tool would only be overwritten call after call.
    pub fn bind_apart(&self, key: CacheKey, values: &Value) -> Result<CacheKey, String> {
        self.bind(key, values).map(CacheKey::apart)
    }

    /// Lists the entries (all, or those of one namespace) with expiry as of the current time;
    /// for Redis, [`EntryInfo::path`] holds the key.
    pub fn status(&self, namespace: Option<&str>) -> io::Result<Vec<EntryInfo>> {
        match self {
            PreloadCache::File(cache) => cache.status(namespace),
            #[cfg(feature = "redis")]
            PreloadCache::Redis(cache) => cache.status_at(namespace, SystemTime::now()),
        }
    }

    /// Removes the entries (all, or those of one namespace): only what parses as an entry kept
    /// exactly where its own key puts it ([`Cache::clear`]); in Redis only keys under our prefix
    /// are looked at (`SCAN … MATCH`, never `FLUSHDB`).
    pub fn clear(&self, namespace: Option<&str>) -> io::Result<ClearReport> {
        match self {
            PreloadCache::File(cache) => cache.clear(namespace),
            #[cfg(feature = "redis")]
            PreloadCache::Redis(cache) => cache.clear(namespace),
        }
    }
}

impl fmt::Display for PreloadCache {
    /// The directory, or the Redis URL as [`shown_url`] shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PreloadCache::File(cache) => write!(f, "{}", cache.base().display()),
            #[cfg(feature = "redis")]
            PreloadCache::Redis(cache) => f.write_str(cache.shown_url()),
        }
    }
}

/// The hash a preloaded tool's entries are bound to ([`CacheKey::with_definition`]): the
/// lowercase hex SHA-256 of the canonical JSON of the tool's name and `main` entry and of what the
/// schema adds to every request or handler — namespace, root, headers, server-parameter names,
/// libraries, the shared lists the handlers receive, the handler source and `main.auth`. Anything that can
/// change the raw response a tool fetches changes the hash.
pub(crate) fn definition_hash(
    main: &flowmcp_spec::model::SchemaMain,
    tool: &str,
    entry: &Value,
    shared_lists: &Value,
    handlers_source: Option<&str>,
) -> String {
    let mut definition = json!({
        "namespace": main.namespace,
        "tool": tool,
        "entry": entry,
        "root": main.root,
        "headers": main.headers,
        "requiredServerParams": main.required_server_params,
        "requiredLibraries": main.required_libraries,
        "sharedLists": shared_lists,
        "handlers": handlers_source,
    });
    // `main.auth` (D139) only when declared, so the hashes of every other schema stay as they were.
    if let (Some(auth), Some(obj)) = (&main.auth, definition.as_object_mut()) {
        obj.insert("auth".into(), auth.clone());
    }
    canonical_sha256(&definition)
}

/// The stored form of an entry — `{"meta": {…}, "data": …}` as the module documentation shows —
/// for `key`'s raw response `data`, fetched at `now` and valid for `ttl_secs`, with its expiry in
/// milliseconds since the epoch. Every backend stores exactly these bytes.
pub(crate) fn encode_entry(
    key: &CacheKey,
    ttl_secs: u64,
    data: &Value,
    now: SystemTime,
) -> Result<(Vec<u8>, i128), serde_json::Error> {
    // The data is serialised once: for `size` and for the entry.
    let data_text = serde_json::to_string(data)?;
    let fetched_ms = clamp_ms(system_time_ms(now));
    let expires_ms = clamp_ms(fetched_ms.saturating_add(i128::from(ttl_secs) * 1000));
    let meta = json!({
        "fetchedAt": format_rfc3339_ms(fetched_ms),
        "expiresAt": format_rfc3339_ms(expires_ms),
        "ttl": ttl_secs,
        "size": data_text.len(),
        "paramHash": key.param_hash(),
        "namespace": key.namespace,
        "tool": key.tool,
        "root": key.root,
        "definition": key.definition,
        "valuesMac": key.values_mac,
    });
    let bytes = format!("{{\"meta\":{meta},\"data\":{data_text}}}").into_bytes();
    Ok((bytes, expires_ms))
}

/// What the stored entry `bytes` is for a reader of `key` whose ttl is `ttl_secs`, as of `now`:
/// an entry for another key (namespace, tool, root, parameter hash or definition) is a miss; an
/// entry past the earlier of its own expiry and `fetchedAt` + the reader's ttl, or fetched after
/// `now`, has expired. `Err` names why the bytes are not an entry (every backend ignores it).
pub(crate) fn judge_entry(
    key: &CacheKey,
    ttl_secs: u64,
    now: SystemTime,
    bytes: &[u8],
) -> Result<Lookup, String> {
    let entry = parse_entry(bytes)?;
    if entry.namespace != key.namespace
        || entry.tool != key.tool
        || entry.root != key.root
        || entry.param_hash.as_deref() != key.param_hash()
        || entry.definition != key.definition
        || entry.values_mac != key.values_mac
    {
        return Ok(Lookup::Miss);
    }
    // The reader's ttl caps the writer's expiry; an entry from the future is not believed.
    let now_ms = system_time_ms(now);
    let readers_expiry = clamp_ms(entry.fetched_ms.saturating_add(i128::from(ttl_secs) * 1000));
    let expires_ms = entry.expires_ms.min(readers_expiry);
    if now_ms >= expires_ms || entry.fetched_ms > now_ms {
        return Ok(Lookup::Expired);
    }
    Ok(Lookup::Hit {
        data: entry.data,
        fetched_at: entry.fetched_at,
        expires_at: format_rfc3339_ms(expires_ms),
    })
}

/// The [`EntryInfo`] of the stored entry `bytes` kept at `path` (a file, or a shared store's
/// key), with expiry as of `now`; `place` gives where an entry of a key belongs, and an entry
/// kept elsewhere is [`EntryInfo::mismatched`] (the one rule `status` and `clear` of every
/// backend apply). `None` when the bytes are not an entry.
pub(crate) fn entry_info(
    bytes: &[u8],
    path: PathBuf,
    now: SystemTime,
    place: impl FnOnce(&CacheKey) -> PathBuf,
) -> Option<EntryInfo> {
    let entry = parse_entry(bytes).ok()?;
    let mismatched = place(&entry.key()) != path;
    let mut info = entry.info(path, system_time_ms(now));
    info.mismatched = mismatched;
    Some(info)
}

/// What [`Cache::clear`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClearReport {
    /// Entry files removed.
    pub removed: usize,
    /// Files found in the cache's namespace directories that are not entries this cache wrote
    /// (kept).
    pub kept: Vec<PathBuf>,
}

/// `Cached (fetched: {date}, expires: {date})` — shown on a cache hit, followed by the tool's
/// `preload.description` when it has one (`… — Full list of 15,000 stations, updated daily`).
pub fn hit_message(fetched_at: &str, expires_at: &str, note: Option<&str>) -> String {
    match note {
        Some(note) => format!("Cached (fetched: {fetched_at}, expires: {expires_at}) — {note}"),
        None => format!("Cached (fetched: {fetched_at}, expires: {expires_at})"),
    }
}

/// `Fetching fresh data...` — shown on a cache miss, before fetching.
pub fn fetching_message() -> String {
    "Fetching fresh data...".to_string()
}

/// `Cached for {ttl human}` — shown after a miss once the response is stored.
pub fn cached_for_message(ttl_secs: u64) -> String {
    format!("Cached for {}", human_duration(ttl_secs))
}

/// `Cache expired, refreshing...` — shown when the entry has expired.
pub fn expired_message() -> String {
    "Cache expired, refreshing...".to_string()
}

/// `Refreshing cache...` — shown for `--refresh`.
pub fn refreshing_message() -> String {
    "Refreshing cache...".to_string()
}

/// A TTL in words, in the largest unit (day, hour, minute, second) that divides it exactly:
/// `3600` → `1 hour`, `604800` → `7 days`, `90` → `90 seconds`, `5400` → `90 minutes`.
pub fn human_duration(secs: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(86_400, "day"), (3_600, "hour"), (60, "minute")];
    let (count, unit) = UNITS
        .iter()
        .find(|(size, _)| secs > 0 && secs.is_multiple_of(*size))
        .map_or((secs, "second"), |(size, unit)| (secs / size, *unit));
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} {unit}{plural}")
}

/// A parsed entry file.
struct Entry {
    fetched_at: String,
    fetched_ms: i128,
    expires_at: String,
    expires_ms: i128,
    ttl: u64,
    size: u64,
    param_hash: Option<String>,
    namespace: String,
    tool: String,
    root: String,
    definition: Option<String>,
    values_mac: Option<String>,
    data: Value,
}

impl Entry {
    /// The key an entry with this meta is filed under (without its definition, which is not part
    /// of where it lives).
    fn key(&self) -> CacheKey {
        CacheKey {
            namespace: self.namespace.clone(),
            tool: self.tool.clone(),
            root: self.root.clone(),
            param_hash: self.param_hash.clone(),
            definition: None,
            values_mac: None,
        }
    }

    /// What [`Cache::status`] lists for this entry, kept at `path`, as of `now_ms`.
    fn info(self, path: PathBuf, now_ms: i128) -> EntryInfo {
        EntryInfo {
            expired: now_ms >= self.expires_ms,
            namespace: self.namespace,
            tool: self.tool,
            root: self.root,
            param_hash: self.param_hash,
            path,
            size: self.size,
            ttl: self.ttl,
            fetched_at: self.fetched_at,
            expires_at: self.expires_at,
            mismatched: false,
        }
    }
}

/// Parses and checks an entry file.
fn parse_entry(bytes: &[u8]) -> Result<Entry, String> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(mut top) = value else {
        return Err("not a JSON object".to_string());
    };
    let data = top.remove("data").ok_or("no \"data\"")?;
    let meta = top
        .get("meta")
        .and_then(Value::as_object)
        .ok_or("no \"meta\" object")?;
    let text = |name: &str| -> Result<String, String> {
        meta.get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("meta.{name} is not a string"))
    };
    let number = |name: &str| -> Result<u64, String> {
        meta.get(name)
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("meta.{name} is not a non-negative integer"))
    };
    let fetched_at = text("fetchedAt")?;
    let expires_at = text("expiresAt")?;
    let fetched_ms =
        parse_rfc3339_ms(&fetched_at).ok_or("meta.fetchedAt is not a valid timestamp")?;
    let expires_ms =
        parse_rfc3339_ms(&expires_at).ok_or("meta.expiresAt is not a valid timestamp")?;
    let param_hash = match meta.get("paramHash") {
        Some(Value::Null) => None,
        Some(Value::String(hash)) => Some(hash.clone()),
        _ => return Err("meta.paramHash is neither null nor a string".to_string()),
    };
    let optional_text = |name: &str| match meta.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(hash)) => Ok(Some(hash.clone())),
        _ => Err(format!("meta.{name} is neither null nor a string")),
    };
    let definition = optional_text("definition")?;
    let values_mac = optional_text("valuesMac")?;
    Ok(Entry {
        fetched_at,
        fetched_ms,
        expires_at,
        expires_ms,
        ttl: number("ttl")?,
        size: number("size")?,
        param_hash,
        namespace: text("namespace")?,
        tool: text("tool")?,
        root: text("root")?,
        definition,
        values_mac,
        data,
    })
}

/// A directory child.
struct Child {
    /// Relative to the cache's base.
    rel: PathBuf,
    name: String,
    is_dir: bool,
    hidden: bool,
}

impl Child {
    /// A regular (non-hidden) file named `*.json`.
    fn is_entry_file(&self) -> bool {
        !self.is_dir && !self.hidden && self.name.ends_with(ENTRY_EXT)
    }
}

/// Milliseconds since the Unix epoch (negative before it).
fn system_time_ms(time: SystemTime) -> i128 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i128::try_from(after.as_millis()).unwrap_or(i128::MAX),
        Err(before) => i128::try_from(before.duration().as_millis()).map_or(i128::MIN, |ms| -ms),
    }
}

/// The last representable millisecond: 9999-12-31T23:59:59.999Z.
fn max_ms() -> i128 {
    i128::from(days_from_civil(9999, 12, 31)) * 86_400_000 + 86_399_999
}

/// Clamps to the range the timestamp format can show (1970 … 9999).
fn clamp_ms(ms: i128) -> i128 {
    ms.clamp(0, max_ms())
}

/// `time` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, clamped to 1970 … 9999), as cache entries,
/// captures and reports write timestamps.
pub fn rfc3339(time: SystemTime) -> String {
    format_rfc3339_ms(system_time_ms(time))
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the epoch (clamped to 1970 … 9999).
fn format_rfc3339_ms(ms: i128) -> String {
    let ms = clamp_ms(ms);
    // In range after clamping: days fit an i64 and the remainders are small.
    let days = i64::try_from(ms.div_euclid(86_400_000)).unwrap_or(0);
    let in_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let hour = in_day / 3_600_000;
    let minute = in_day / 60_000 % 60;
    let second = in_day / 1000 % 60;
    let milli = in_day % 1000;
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}

/// Parses exactly the format [`format_rfc3339_ms`] writes.
fn parse_rfc3339_ms(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    if b.len() != 24 {
        return None;
    }
    for (i, expected) in [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
        (23, b'Z'),
    ] {
        if b[i] != expected {
            return None;
        }
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        b[from..to].iter().try_fold(0_i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, minute, second, milli) = (num(11, 13)?, num(14, 16)?, num(17, 19)?, num(20, 23)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(
        i128::from(days) * 86_400_000
            + i128::from(hour * 3_600_000 + minute * 60_000 + second * 1000 + milli),
    )
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i44_keys_bound_apart_are_filed_by_their_values() {
        let key = || CacheKey::new("ns", "tool", "https://x.example", Map::new());
        let a = key().with_values_mac("mac-a".into()).apart();
        let a2 = key().with_values_mac("mac-a".into()).apart();
        let b = key().with_values_mac("mac-b".into()).apart();
        assert_eq!(a.relative_path(), a2.relative_path());
        assert_ne!(a.relative_path(), b.relative_path());
        // Bound the usual way, every value shares the tool's one entry.
        let shared = key().with_values_mac("mac-a".into());
        assert_eq!(shared.relative_path(), key().relative_path());
        assert_ne!(a.relative_path(), shared.relative_path());
        // The entry's own meta names where it lives: not mismatched.
        let (bytes, _) = encode_entry(&a, 60, &json!(1), SystemTime::now()).unwrap();
        let place = |k: &CacheKey| k.relative_path();
        let info = entry_info(&bytes, a.relative_path(), SystemTime::now(), place).unwrap();
        assert!(!info.mismatched);
    }

    #[test]
    fn timestamps_round_trip() {
        for ms in [0_i128, 1, 951_782_400_000, 1_771_329_600_000, max_ms()] {
            let text = format_rfc3339_ms(ms);
            assert_eq!(parse_rfc3339_ms(&text), Some(ms), "{text}");
        }
        assert_eq!(
            format_rfc3339_ms(1_771_329_600_000),
            "2026-02-17T12:00:00.000Z"
        );
        assert_eq!(
            format_rfc3339_ms(951_782_400_123),
            "2000-02-29T00:00:00.123Z"
        );
        assert_eq!(format_rfc3339_ms(-5), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339_ms(i128::MAX), "9999-12-31T23:59:59.999Z");
        for bad in [
            "2026-02-30T00:00:00.000Z",
            "2026-13-01T00:00:00.000Z",
            "2026-02-17T24:00:00.000Z",
            "2026-02-17T12:00:00Z",
            "2026-02-17 12:00:00.000Z",
            "2026-0a-17T12:00:00.000Z",
        ] {
            assert_eq!(parse_rfc3339_ms(bad), None, "{bad}");
        }
    }
}
