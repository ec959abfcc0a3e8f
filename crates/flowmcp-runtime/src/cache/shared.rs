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
//! Redis is a help, never a requirement: connecting and every command are bounded as a whole
//! (by a short limit, and for a call never beyond the call's own deadline; the small client in
//! `resp` waits at most that long in total, however the server dribbles its answer), and a
//! failure (connection refused, time-out, an error reply) turns the cache off for a while (1 s,
//! doubling up to 30 s while it keeps failing) — calls then fetch as without a cache. One warning
//! is given per outage (again after ten minutes if it lasts), not one per call. A call whose own
//! deadline cut a command short is no outage.
//!
//! Every process sharing the database binds entries to the server-parameter values with the same
//! [`BindingKey`], given by its deployment ([`RedisCache::with_key`]); without one, nothing is
//! looked up or stored.
//!
//! The URL may hold a password (`redis://:pw@host:6379/0`): this module shows a URL only as
//! [`shown_url`] gives it — `scheme://host[:port]/db` — in errors, warnings and `Debug`.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use super::binding::BindingKey;
use super::resp::{Conn, Failure, Reply, Target};
use super::{
    CacheKey, ClearReport, EntryInfo, Found, Lookup, encode_entry, entry_info, judge_entry,
};

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
/// How long a miss waits for another process's fetch (never beyond the call's deadline), and
/// how often it looks.
const FILL_WAIT: Duration = Duration::from_secs(10);
const FILL_POLL: Duration = Duration::from_millis(50);
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 16;

/// Why a Redis cache URL was refused. The URL is held as [`shown_url`] shows it.
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
    target: Target,
    /// The URL as [`shown_url`] shows it.
    shown: String,
    timeout: Duration,
    key: Option<BindingKey>,
    idle: Mutex<Vec<Conn>>,
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

/// How a cache URL is shown everywhere (errors, warnings, `Debug`, `cache status`):
/// `scheme://host[:port]/db` — never its user, password, query or fragment, and a path only
/// when it is a database number; `<an unparsable URL>` when it does not parse.
pub fn shown_url(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else {
        return "<an unparsable URL>".to_string();
    };
    let mut shown = format!("{}://{}", parsed.scheme(), parsed.host_str().unwrap_or(""));
    if let Some(port) = parsed.port() {
        shown.push_str(&format!(":{port}"));
    }
    if let Some(db) = parsed.path().strip_prefix('/').and_then(database) {
        shown.push_str(&format!("/{db}"));
    }
    shown
}

/// A database number as a URL's path gives it (`0`, `12`); `None` for anything else.
fn database(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 6 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl RedisCache {
    /// A cache in the Redis database `url` names. Nothing is connected yet: a server that is
    /// down only makes the cache unavailable until it is back. It is used only once it has a
    /// key ([`RedisCache::with_key`]).
    pub fn open(url: &str) -> Result<RedisCache, RedisUrlError> {
        let shown = shown_url(url);
        let invalid = |why: &str| RedisUrlError::Invalid(shown.clone(), why.to_string());
        let parsed = url::Url::parse(url).map_err(|e| invalid(&e.to_string()))?;
        match parsed.scheme() {
            "redis" => {}
            "rediss" => return Err(RedisUrlError::TlsUnsupported(shown)),
            _ => return Err(RedisUrlError::NotRedis(shown)),
        }
        let host = parsed
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| invalid("no host"))?;
        // `[::1]` is connected to as `::1`.
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
            .to_string();
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(invalid("a query or fragment is not supported"));
        }
        let db = match parsed.path() {
            "" | "/" => 0,
            path => path
                .strip_prefix('/')
                .and_then(database)
                .ok_or_else(|| invalid("the path must be a database number"))?,
        };
        let decode = |text: &str| {
            Some(
                percent_encoding::percent_decode_str(text)
                    .decode_utf8_lossy()
                    .into_owned(),
            )
            .filter(|t| !t.is_empty())
        };
        let target = Target {
            host,
            port: parsed.port().unwrap_or(6379),
            db,
            username: decode(parsed.username()),
            password: parsed.password().and_then(decode),
        };
        Ok(RedisCache::build(target, shown, DEFAULT_TIMEOUT, None))
    }

    /// The same cache with another time limit for connecting and for each command (default
    /// 500 ms; a call's command never waits beyond the call's deadline either).
    pub fn with_timeout(self, timeout: Duration) -> RedisCache {
        let inner = &self.inner;
        RedisCache::build(
            inner.target.clone(),
            inner.shown.clone(),
            timeout,
            inner.key.clone(),
        )
    }

    /// The same cache binding entries to server-parameter values with `key`: every process
    /// sharing the database must be given the same key to share entries.
    pub fn with_key(self, key: BindingKey) -> RedisCache {
        let inner = &self.inner;
        RedisCache::build(
            inner.target.clone(),
            inner.shown.clone(),
            inner.timeout,
            Some(key),
        )
    }

    fn build(
        target: Target,
        shown: String,
        timeout: Duration,
        key: Option<BindingKey>,
    ) -> RedisCache {
        RedisCache {
            inner: Arc::new(Inner {
                target,
                shown,
                timeout,
                key,
                idle: Mutex::new(Vec::new()),
                health: Mutex::new(Health::default()),
            }),
        }
    }

    /// The URL as [`shown_url`] shows it.
    pub fn shown_url(&self) -> &str {
        &self.inner.shown
    }

    /// The key entries are bound with, if the cache was given one.
    pub(crate) fn key(&self) -> Option<&BindingKey> {
        self.inner.key.as_ref()
    }

    /// [`super::Cache::lookup`] against Redis, plus a warning when Redis just became
    /// unavailable (the lookup is then a miss). A value that is not an entry, or is another
    /// key's or another definition's, is a miss, as in the file cache. Nothing waits beyond
    /// `deadline`.
    ///
    /// Single flight: on a miss, the first caller of any process takes the key's fill lock and
    /// gets a [`Fill`] (it fetches and stores); the others wait for its entry, polling, at most
    /// [`FILL_WAIT`] and never beyond `deadline` (then, or when the lock is released without an
    /// entry, they try again or go on without it).
    pub(crate) fn lookup(
        &self,
        key: &CacheKey,
        ttl_secs: u64,
        now: SystemTime,
        deadline: Instant,
    ) -> Found {
        let name = redis_key(key);
        let lock = fill_key(key);
        let started = Instant::now();
        let wait_until = deadline.min(started + FILL_WAIT);
        let mut first: Option<Lookup> = None;
        // The entry as Redis holds it now. Later polls judge as of their own time: an entry
        // fetched meanwhile is not "from the future".
        let get = || -> Result<Lookup, Option<String>> {
            let at = now + started.elapsed();
            match self.run(&[b"GET", name.as_bytes()], deadline)? {
                Reply::Bulk(bytes) => {
                    Ok(judge_entry(key, ttl_secs, at, &bytes).unwrap_or(Lookup::Miss))
                }
                _ => Ok(Lookup::Miss),
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
            let px = duration_ms(FILL_LOCK).to_string();
            let taken = self.run(
                &[
                    b"SET",
                    lock.as_bytes(),
                    token.as_bytes(),
                    b"NX",
                    b"PX",
                    px.as_bytes(),
                ],
                deadline,
            );
            match taken {
                Ok(Reply::Status(_)) => {
                    // Another process may have stored the entry and released its lock between
                    // the look above and taking the lock: look once more before fetching.
                    if let Ok(found @ Lookup::Hit { .. }) = get() {
                        self.release(&lock, &token, deadline);
                        return hit(found);
                    }
                    let fill = Fill {
                        cache: self.clone(),
                        lock,
                        token,
                        deadline,
                    };
                    return Found {
                        lookup: first,
                        warning: None,
                        fill: Some(fill),
                    };
                }
                Ok(_) => {
                    let Some(left) = wait_until.checked_duration_since(Instant::now()) else {
                        return Found::miss(Some(first), None);
                    };
                    if left.is_zero() {
                        return Found::miss(Some(first), None);
                    }
                    std::thread::sleep(left.min(FILL_POLL));
                }
                Err(warning) => return Found::miss(Some(first), warning),
            }
        }
    }

    /// Releases `lock` if it still holds `token`, by `deadline`; quietly: a failure here is no
    /// outage warning (the lock expires by itself).
    fn release(&self, lock: &str, token: &str, deadline: Instant) {
        if self.paused() {
            return;
        }
        let held = self.command(&[b"GET", lock.as_bytes()], self.until(Some(deadline)));
        if held.is_ok_and(|r| r == Reply::Bulk(token.as_bytes().to_vec())) {
            let _ = self.command(&[b"DEL", lock.as_bytes()], self.until(Some(deadline)));
        }
    }

    /// Stores `data` for `key` as [`super::Cache::store`] would, with a Redis expiry equal to
    /// the entry's, by `deadline`. `Ok(false)`: not stored, the entry had already expired (ttl
    /// 0). `Err`: Redis is unavailable, with the warning to give, if this is the first failure
    /// of an outage.
    pub(crate) fn store(
        &self,
        key: &CacheKey,
        ttl_secs: u64,
        data: &Value,
        now: SystemTime,
        deadline: Instant,
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
        let px = px.to_string();
        self.run(
            &[b"SET", name.as_bytes(), &bytes, b"PX", px.as_bytes()],
            deadline,
        )?;
        Ok(true)
    }

    /// The entries (all, or those of one namespace) with expiry as of `now`, sorted like the
    /// file cache's; `path` holds the Redis key, and an entry whose key is not the one its own
    /// meta gives is marked [`EntryInfo::mismatched`]. Values that are not entries are left
    /// out.
    pub(crate) fn status_at(
        &self,
        namespace: Option<&str>,
        now: SystemTime,
    ) -> io::Result<Vec<EntryInfo>> {
        let mut infos = Vec::new();
        for (name, bytes) in self.scan(namespace)? {
            let Some(info) = entry_info(&bytes, PathBuf::from(&name), now, redis_place) else {
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
            let ours = entry_info(&bytes, PathBuf::from(&name), SystemTime::now(), redis_place)
                .is_some_and(|info| {
                    !info.mismatched && namespace.is_none_or(|ns| ns == info.namespace)
                });
            if !ours {
                report.kept.push(PathBuf::from(name));
                continue;
            }
            let removed = self
                .command(&[b"DEL", name.as_bytes()], self.until(None))
                .map_err(|e| io::Error::other(self.reason(&e)))?;
            if let Reply::Int(n) = removed {
                report.removed += usize::try_from(n).unwrap_or(0);
            }
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
        let count = SCAN_COUNT.to_string();
        let mut names = Vec::new();
        let mut cursor = "0".to_string();
        loop {
            let reply = self
                .command(
                    &[
                        b"SCAN",
                        cursor.as_bytes(),
                        b"MATCH",
                        pattern.as_bytes(),
                        b"COUNT",
                        count.as_bytes(),
                    ],
                    self.until(None),
                )
                .map_err(|e| io::Error::other(self.reason(&e)))?;
            let Reply::Array(parts) = reply else {
                return Err(io::Error::other("SCAN did not answer an array"));
            };
            let [Reply::Bulk(next), Reply::Array(batch)] = parts.as_slice() else {
                return Err(io::Error::other("SCAN did not answer a cursor and keys"));
            };
            for key in batch {
                if let Reply::Bulk(key) = key
                    && let Ok(key) = String::from_utf8(key.clone())
                {
                    names.push(key);
                }
            }
            cursor = String::from_utf8_lossy(next).into_owned();
            if cursor == "0" {
                break;
            }
        }
        names.sort();
        names.dedup();
        let mut out = Vec::new();
        for name in names {
            if let Ok(Reply::Bulk(bytes)) =
                self.command(&[b"GET", name.as_bytes()], self.until(None))
            {
                out.push((name, bytes));
            }
        }
        Ok(out)
    }

    /// Runs one command for a call, by `deadline`: skipped while Redis is paused after a
    /// failure; a failure pauses it and gives the outage's warning once. A command the call's
    /// deadline cut short is a miss, not an outage.
    fn run(&self, args: &[&[u8]], deadline: Instant) -> Result<Reply, Option<String>> {
        if self.paused() {
            return Err(None);
        }
        let until = self.until(Some(deadline));
        match self.command(args, until) {
            Ok(value) => {
                let mut health = self.health();
                health.warned_at = None;
                health.paused_until = None;
                health.pause = Duration::ZERO;
                Ok(value)
            }
            Err(Failure::TimedOut) if until >= deadline => Err(None),
            Err(failure) => Err(self.failed(&self.reason(&failure))),
        }
    }

    /// The instant a command started now must be done by: the time limit, and never after
    /// `deadline`.
    fn until(&self, deadline: Option<Instant>) -> Instant {
        let limit = Instant::now() + self.inner.timeout;
        deadline.map_or(limit, |d| d.min(limit))
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

    /// One command on an idle connection (or a new one), connect included, done by `until`.
    /// A connection is kept for reuse only after a command that went right.
    fn command(&self, args: &[&[u8]], until: Instant) -> Result<Reply, Failure> {
        let idle = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut con = match idle {
            Some(con) => con,
            None => Conn::connect(&self.inner.target, until)?,
        };
        let reply = con.command(args, until)?;
        if con.is_clean() {
            let mut idle = self
                .inner
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if idle.len() < MAX_IDLE {
                idle.push(con);
            }
        }
        Ok(reply)
    }

    /// One command outside the preload cache's keys (no pause, no warning), within the time
    /// limit; an error says why without the password.
    fn plain(&self, args: &[&[u8]]) -> io::Result<Reply> {
        self.command(args, self.until(None))
            .map_err(|f| io::Error::other(self.reason(&f)))
    }

    /// Stores `value` at `key` for `ttl` (`SET key value PX ms`). For values that other parts of
    /// a server keep beside the preload cache (the MCP server's tasks), under their own prefix.
    pub fn put_value(&self, key: &str, value: &[u8], ttl: Duration) -> io::Result<()> {
        let px = ttl.as_millis().max(1).to_string();
        self.plain(&[b"SET", key.as_bytes(), value, b"PX", px.as_bytes()])
            .map(|_| ())
    }

    /// The value at `key` ([`RedisCache::put_value`]), `None` when there is none (or it expired).
    pub fn get_value(&self, key: &str) -> io::Result<Option<Vec<u8>>> {
        match self.plain(&[b"GET", key.as_bytes()])? {
            Reply::Bulk(bytes) => Ok(Some(bytes)),
            _ => Ok(None),
        }
    }

    /// Adds `member` to the set at `key`, which expires `ttl` from now (`SADD`, `PEXPIRE`).
    pub fn add_member(&self, key: &str, member: &str, ttl: Duration) -> io::Result<()> {
        self.plain(&[b"SADD", key.as_bytes(), member.as_bytes()])?;
        let px = ttl.as_millis().max(1).to_string();
        self.plain(&[b"PEXPIRE", key.as_bytes(), px.as_bytes()])
            .map(|_| ())
    }

    /// The members of the set at `key` (`SMEMBERS`), in no order.
    pub fn members(&self, key: &str) -> io::Result<Vec<String>> {
        match self.plain(&[b"SMEMBERS", key.as_bytes()])? {
            Reply::Array(items) => Ok(items
                .into_iter()
                .filter_map(|r| match r {
                    Reply::Bulk(b) => String::from_utf8(b).ok(),
                    _ => None,
                })
                .collect()),
            _ => Ok(Vec::new()),
        }
    }

    /// Counts one more at `key` (`INCR`), which expires `ttl` after the first count (`PEXPIRE`):
    /// the shared counter of an upstream rate limit ([`crate::UpstreamLimits`]). For a call, by
    /// `deadline`, like a lookup: `Err` while Redis is paused or when it fails (with the outage's
    /// warning once), and the caller counts without it.
    pub(crate) fn count(
        &self,
        key: &str,
        ttl: Duration,
        deadline: Instant,
    ) -> Result<i64, Option<String>> {
        let n = match self.run(&[b"INCR", key.as_bytes()], deadline)? {
            Reply::Int(n) => n,
            _ => return Err(self.failed("INCR did not answer a number")),
        };
        if n == 1 {
            let px = ttl.as_millis().max(1).to_string();
            self.run(&[b"PEXPIRE", key.as_bytes(), px.as_bytes()], deadline)?;
        }
        Ok(n)
    }

    /// Why a command failed, in words without the password.
    fn reason(&self, failure: &Failure) -> String {
        let text = match failure {
            Failure::TimedOut => format!("no answer within {} ms", self.inner.timeout.as_millis()),
            Failure::Other(text) => text.clone(),
        };
        match &self.inner.target.password {
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

/// Where an entry with `key` is kept in Redis: its key, as a path (what [`EntryInfo::path`]
/// holds).
fn redis_place(key: &CacheKey) -> PathBuf {
    PathBuf::from(redis_key(key))
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

/// A claim on fetching one entry for every process sharing the Redis cache (see [`Found::fill`]).
/// Released on drop.
pub struct Fill {
    cache: RedisCache,
    lock: String,
    token: String,
    /// The call's deadline: releasing waits no longer.
    deadline: Instant,
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
        self.cache.release(&self.lock, &self.token, self.deadline);
    }
}
