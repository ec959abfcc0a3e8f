//! The preload cache kept in Redis, shared by every replica that names the same server.
//!
//! Entries are the same bytes the file cache writes ([`super::encode_entry`]), read by the same
//! rules ([`super::judge_entry`]), under the key `flowmcp:preload:v1:` + the entry's name
//! ([`CacheKey::shared_name`]); each is written with `SET … PX` set to the entry's own expiry, so
//! Redis drops old entries itself.
//!
//! A miss takes the entry's fill lock (`flowmcp:preload-fill:v1:` + the name, `SET … NX PX`,
//! released by [`Fill`]'s drop when it still holds its token) before fetching; a process that
//! finds the lock taken polls for the entry instead, so replicas missing at once fetch once.
//!
//! Redis is a help, never a requirement: every operation has a short time limit, and a failure
//! (connection refused, time-out, an error reply) turns the cache off for a while (1 s, doubling
//! up to 30 s while it keeps failing) — calls then fetch as without a cache. One warning is given
//! per outage (again after ten minutes if it lasts), not one per call.
//!
//! The URL may hold a password (`redis://:pw@host:6379/0`): nothing this module shows — errors,
//! warnings, `Debug` — contains it.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use super::{CacheKey, ClearReport, EntryInfo, Lookup, encode_entry, entry_info, judge_entry};

/// What every key of ours starts with; nothing else in the database is touched.
pub(crate) const KEY_PREFIX: &str = "flowmcp:preload:v1:";
/// Default time limit of connecting and of each command.
const DEFAULT_TIMEOUT: Duration = Duration::from_millis(500);
/// First pause after a failure; it doubles up to [`MAX_PAUSE`] while Redis keeps failing.
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const MAX_PAUSE: Duration = Duration::from_secs(30);
/// A lasting outage is warned about again after this long.
const REWARN_AFTER: Duration = Duration::from_secs(600);
/// Keys asked for per `SCAN` step.
const SCAN_COUNT: usize = 200;
/// Fill locks start with this.
const FILL_PREFIX: &str = "flowmcp:preload-fill:v1:";
/// A fill lock expires after this (a fetcher that died does not block the others longer).
const FILL_LOCK: Duration = Duration::from_secs(10);
/// How long a miss waits for another process's fetch, and how often it looks.
const FILL_WAIT: Duration = Duration::from_secs(10);
const FILL_POLL: Duration = Duration::from_millis(50);
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 16;

/// Why a Redis cache URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedisUrlError {
    /// `rediss://` (Redis over TLS).
    #[error("{0}: TLS (rediss://) is not supported; use redis:// on a trusted network")]
    TlsUnsupported(String),
    /// Not a `redis://` URL.
    #[error("{0}: not a Redis URL; expected redis://[:password@]host[:port][/db]")]
    NotRedis(String),
    /// A `redis://` URL the client cannot use.
    #[error("{0}: invalid Redis URL: {1}")]
    Invalid(String, String),
}

/// The preload cache in one Redis database (`redis://[user][:password@]host[:port][/db]`).
/// Cloning shares the connections and the outage state.
#[derive(Clone)]
pub struct RedisCache {
    inner: Arc<Inner>,
}

struct Inner {
    client: redis::Client,
    /// The URL with its password replaced by `***`.
    shown: String,
    /// The password, scrubbed from any text the client produces.
    password: Option<String>,
    timeout: Duration,
    idle: Mutex<Vec<redis::Connection>>,
    health: Mutex<Health>,
}

/// The outage state.
#[derive(Default)]
struct Health {
    /// Redis is not asked before this instant.
    paused_until: Option<Instant>,
    /// The current pause (doubles while failing).
    pause: Duration,
    /// When this outage was last warned about; `None` while Redis works.
    warned_at: Option<Instant>,
}

impl fmt::Debug for RedisCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisCache")
            .field("url", &self.inner.shown)
            .field("timeout", &self.inner.timeout)
            .finish_non_exhaustive()
    }
}

/// `url` with its password (if any) replaced by `***`; anything that does not parse is not shown.
pub(crate) fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            if parsed.password().is_some() && parsed.set_password(Some("***")).is_err() {
                return format!("{}://<redacted>", parsed.scheme());
            }
            parsed.to_string()
        }
        Err(_) => "<an unparsable URL>".to_string(),
    }
}

impl RedisCache {
    /// A cache in the Redis database `url` names. Nothing is connected yet: a server that is
    /// down only makes the cache unavailable until it is back.
    pub fn open(url: &str) -> Result<RedisCache, RedisUrlError> {
        let shown = redact_url(url);
        let parsed = url::Url::parse(url)
            .map_err(|e| RedisUrlError::Invalid(shown.clone(), e.to_string()))?;
        match parsed.scheme() {
            "redis" => {}
            "rediss" => return Err(RedisUrlError::TlsUnsupported(shown)),
            _ => return Err(RedisUrlError::NotRedis(shown)),
        }
        let password = parsed
            .password()
            .map(|p| {
                percent_encoding::percent_decode_str(p)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .filter(|p| !p.is_empty());
        let scrub = |text: String| match &password {
            Some(p) => text.replace(p.as_str(), "***"),
            None => text,
        };
        let client = redis::Client::open(url)
            .map_err(|e| RedisUrlError::Invalid(shown.clone(), scrub(e.to_string())))?;
        Ok(RedisCache::build(client, shown, password, DEFAULT_TIMEOUT))
    }

    /// The same cache with another time limit for connecting and for each command (default
    /// 500 ms).
    pub fn with_timeout(self, timeout: Duration) -> RedisCache {
        let inner = &self.inner;
        RedisCache::build(
            inner.client.clone(),
            inner.shown.clone(),
            inner.password.clone(),
            timeout,
        )
    }

    fn build(
        client: redis::Client,
        shown: String,
        password: Option<String>,
        timeout: Duration,
    ) -> RedisCache {
        RedisCache {
            inner: Arc::new(Inner {
                client,
                shown,
                password,
                timeout,
                idle: Mutex::new(Vec::new()),
                health: Mutex::new(Health::default()),
            }),
        }
    }

    /// The URL, its password replaced by `***`.
    pub fn shown_url(&self) -> &str {
        &self.inner.shown
    }

    /// [`super::Cache::lookup`] against Redis, plus a warning when Redis just became
    /// unavailable (the lookup is then a miss). A value that is not an entry, or is another
    /// key's or another definition's, is a miss, as in the file cache.
    ///
    /// Single flight: on a miss, the first caller of any process takes the key's fill lock and
    /// gets a [`Fill`] (it fetches and stores); the others wait for its entry, polling, at most
    /// [`FILL_WAIT`] (then, or when the lock is released without an entry, they try again).
    pub(crate) fn lookup(&self, key: &CacheKey, ttl_secs: u64, now: SystemTime) -> Found {
        let name = redis_key(key);
        let lock = fill_key(key);
        let started = Instant::now();
        let mut first: Option<Lookup> = None;
        // The entry as Redis holds it now. Later polls judge as of their own time: an entry
        // fetched meanwhile is not "from the future".
        let get = || -> Result<Lookup, Option<String>> {
            let at = now + started.elapsed();
            match self.run(|con| redis::cmd("GET").arg(&name).query::<Option<Vec<u8>>>(con))? {
                Some(bytes) => Ok(judge_entry(key, ttl_secs, at, &bytes).unwrap_or(Lookup::Miss)),
                None => Ok(Lookup::Miss),
            }
        };
        let hit = |lookup: Lookup| Found {
            lookup,
            warning: None,
            fill: None,
        };
        loop {
            let found = match get() {
                Ok(found) => found,
                Err(warning) => return Found::miss(first, warning),
            };
            if matches!(found, Lookup::Hit { .. }) {
                return hit(found);
            }
            let first = first.get_or_insert(found).clone();
            let token = fill_token();
            let taken = self.run(|con| {
                redis::cmd("SET")
                    .arg(&lock)
                    .arg(&token)
                    .arg("NX")
                    .arg("PX")
                    .arg(duration_ms(FILL_LOCK))
                    .query::<Option<String>>(con)
            });
            match taken {
                Ok(Some(_)) => {
                    // Another process may have stored the entry and released its lock between
                    // the look above and taking the lock: look once more before fetching.
                    if let Ok(found @ Lookup::Hit { .. }) = get() {
                        self.release(&lock, &token);
                        return hit(found);
                    }
                    let fill = Fill {
                        cache: self.clone(),
                        lock,
                        token,
                    };
                    return Found {
                        lookup: first,
                        warning: None,
                        fill: Some(fill),
                    };
                }
                Ok(None) if started.elapsed() < FILL_WAIT => std::thread::sleep(FILL_POLL),
                Ok(None) => return Found::miss(Some(first), None),
                Err(warning) => return Found::miss(Some(first), warning),
            }
        }
    }

    /// Releases `lock` if it still holds `token`; quietly: a failure here is no outage warning
    /// (the lock expires by itself).
    fn release(&self, lock: &str, token: &str) {
        if self.paused() {
            return;
        }
        let _ = self.command(|con| {
            let held: Option<String> = redis::cmd("GET").arg(lock).query(con)?;
            if held.as_deref() == Some(token) {
                redis::cmd("DEL").arg(lock).query::<u64>(con)?;
            }
            Ok(())
        });
    }

    /// Stores `data` for `key` as [`super::Cache::store`] would, with a Redis expiry equal to
    /// the entry's. `Ok(false)`: not stored, the entry had already expired (ttl 0). `Err`: Redis
    /// is unavailable, with the warning to give, if this is the first failure of an outage.
    pub(crate) fn store(
        &self,
        key: &CacheKey,
        ttl_secs: u64,
        data: &Value,
        now: SystemTime,
    ) -> Result<bool, Option<String>> {
        let (bytes, expires_ms) = encode_entry(key, ttl_secs, data, now)
            .map_err(|e| Some(format!("the response could not be cached: {e}")))?;
        let now_ms = super::system_time_ms(now);
        let Ok(px) = u64::try_from(expires_ms - now_ms) else {
            return Ok(false);
        };
        if px == 0 {
            return Ok(false);
        }
        let name = redis_key(key);
        self.run(|con| {
            redis::cmd("SET")
                .arg(&name)
                .arg(&bytes)
                .arg("PX")
                .arg(px)
                .query::<()>(con)
        })?;
        Ok(true)
    }

    /// The entries (all, or those of one namespace) with expiry as of `now`, sorted like the
    /// file cache's; `path` holds the Redis key. Values that are not entries are left out.
    pub(crate) fn status_at(
        &self,
        namespace: Option<&str>,
        now: SystemTime,
    ) -> io::Result<Vec<EntryInfo>> {
        let mut infos = Vec::new();
        for (name, bytes) in self.scan(namespace)? {
            let Some((info, _)) = entry_info(&bytes, PathBuf::from(&name), now) else {
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

    /// Removes the entries (all, or those of one namespace): only keys under our prefix whose
    /// value is an entry filed exactly under that key; the other keys under the prefix are kept
    /// and listed. Nothing outside the prefix is looked at.
    pub(crate) fn clear(&self, namespace: Option<&str>) -> io::Result<ClearReport> {
        let mut report = ClearReport::default();
        for (name, bytes) in self.scan(namespace)? {
            let ours = entry_info(&bytes, PathBuf::new(), SystemTime::now()).is_some_and(
                |(info, shared)| {
                    format!("{KEY_PREFIX}{shared}") == name
                        && namespace.is_none_or(|ns| ns == info.namespace)
                },
            );
            if !ours {
                report.kept.push(PathBuf::from(name));
                continue;
            }
            let removed: u64 = self
                .command(|con| redis::cmd("DEL").arg(&name).query(con))
                .map_err(io::Error::other)?;
            report.removed += usize::try_from(removed).unwrap_or(0);
        }
        report.kept.sort();
        Ok(report)
    }

    /// Every key under our prefix (of one namespace) with its value (keys that vanish or hold
    /// another type meanwhile are skipped), found with `SCAN … MATCH`.
    fn scan(&self, namespace: Option<&str>) -> io::Result<Vec<(String, Vec<u8>)>> {
        let pattern = match namespace {
            Some(ns) => format!("{KEY_PREFIX}{}/*", flowmcp_spec::paths::encode_name(ns)),
            None => format!("{KEY_PREFIX}*"),
        };
        let mut names = Vec::new();
        let mut cursor: u64 = 0;
        loop {
            let (next, batch): (u64, Vec<String>) = self
                .command(|con| {
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(&pattern)
                        .arg("COUNT")
                        .arg(SCAN_COUNT)
                        .query(con)
                })
                .map_err(io::Error::other)?;
            names.extend(batch);
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
        names.sort();
        names.dedup();
        let mut out = Vec::new();
        for name in names {
            let value: Option<Vec<u8>> = self
                .command(|con| redis::cmd("GET").arg(&name).query(con))
                .unwrap_or(None);
            if let Some(bytes) = value {
                out.push((name, bytes));
            }
        }
        Ok(out)
    }

    /// Runs one command for a call: skipped while Redis is paused after a failure; a failure
    /// pauses it and gives the outage's warning once.
    fn run<T>(
        &self,
        op: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, Option<String>> {
        if self.paused() {
            return Err(None);
        }
        match self.command(op) {
            Ok(value) => {
                let mut health = self.health();
                health.warned_at = None;
                health.paused_until = None;
                health.pause = Duration::ZERO;
                Ok(value)
            }
            Err(reason) => Err(self.failed(&reason)),
        }
    }

    /// Records a failure: pauses Redis and returns the warning when this outage has not been
    /// warned about (recently).
    fn failed(&self, reason: &str) -> Option<String> {
        let now = Instant::now();
        let mut health = self.health();
        health.pause = (health.pause * 2).clamp(FIRST_PAUSE, MAX_PAUSE);
        health.paused_until = Some(now + health.pause);
        if health
            .warned_at
            .is_some_and(|at| now.duration_since(at) < REWARN_AFTER)
        {
            return None;
        }
        health.warned_at = Some(now);
        Some(format!(
            "warning: the Redis preload cache {} is unavailable ({reason}); calls fetch without \
             it until it is back",
            self.inner.shown
        ))
    }

    /// One command on an idle connection (or a new one), within the time limit; the error text
    /// never holds the password.
    fn command<T>(
        &self,
        op: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        let idle = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut con = match idle {
            Some(con) => con,
            None => self.connect().map_err(|e| self.scrub(&e))?,
        };
        let value = op(&mut con).map_err(|e| self.scrub(&e))?;
        let mut idle = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if idle.len() < MAX_IDLE {
            idle.push(con);
        }
        Ok(value)
    }

    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let timeout = self.inner.timeout;
        let con = self.inner.client.get_connection_with_timeout(timeout)?;
        con.set_read_timeout(Some(timeout))?;
        con.set_write_timeout(Some(timeout))?;
        Ok(con)
    }

    /// The error's text without the password.
    fn scrub(&self, err: &redis::RedisError) -> String {
        let text = err.to_string();
        match &self.inner.password {
            Some(p) => text.replace(p.as_str(), "***"),
            None => text,
        }
    }

    /// Whether Redis is paused after a failure.
    fn paused(&self) -> bool {
        self.health()
            .paused_until
            .is_some_and(|t| Instant::now() < t)
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.inner
            .health
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The Redis key of `key`'s entry.
fn redis_key(key: &CacheKey) -> String {
    format!("{KEY_PREFIX}{}", key.shared_name())
}

/// The Redis key of `key`'s fill lock (outside [`KEY_PREFIX`]: never listed or cleared as an
/// entry; it expires by itself).
fn fill_key(key: &CacheKey) -> String {
    format!("{FILL_PREFIX}{}", key.shared_name())
}

/// A value no other holder of a fill lock has: process, counter and time.
fn fill_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What [`super::PreloadCache::lookup`] found.
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
    fn miss(first: Option<Lookup>, warning: Option<String>) -> Found {
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

/// A claim on fetching one entry for every process sharing the Redis cache (see [`Found::fill`]).
/// Released on drop.
pub struct Fill {
    cache: RedisCache,
    lock: String,
    token: String,
}

impl fmt::Debug for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fill")
            .field("lock", &self.lock)
            .finish_non_exhaustive()
    }
}

impl Drop for Fill {
    fn drop(&mut self) {
        self.cache.release(&self.lock, &self.token);
    }
}
