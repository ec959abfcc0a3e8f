//! HTTP resources (chapter 13): a remote SQLite file downloaded into a local cache.
//!
//! An `http` resource names a SQLite database by URL and a `cacheTtl`. This module keeps a
//! verified local copy of it; the copy is then queried like any read-only database
//! ([`Mode::ReadOnly`]). It does no networking and reads no environment of its own: the caller
//! hands it a [`Fetcher`] (the runtime's HTTP transport) and the current time.
//!
//! ```
//! use std::time::{Duration, SystemTime};
//! use flowmcp_resources::http::{FetchFailure, Fetcher, HttpResource};
//!
//! struct Offline;
//! impl Fetcher for Offline {
//!     fn fetch(&self, _url: &str, _max_bytes: u64) -> Result<Vec<u8>, FetchFailure> {
//!         Err(FetchFailure::Network { message: "no network in this example".into() })
//!     }
//! }
//!
//! let base = std::env::temp_dir().join(format!("flowmcp-http-doc-{}", std::process::id()));
//! let resource = HttpResource::new(
//!     "https://cdn.example.com/ofac-sdn.sqlite",
//!     Duration::from_secs(86_400),
//!     &base.join(".flowmcp"),
//! );
//! // No network and no cached copy: a coded error, and no file is created.
//! let err = resource.ensure(&Offline, SystemTime::now()).unwrap_err();
//! assert_eq!(err.code().as_str(), "E002");
//! assert!(!resource.cache().exists());
//! ```
//!
//! # Cache location
//!
//! [`cache_file`] gives the spec's place for a URL's copy:
//! `<project base>/cache/resources/<sha256 of the URL, lowercase hex>.db`, where the project base
//! is the `.flowmcp` directory itself. The caller may choose another file
//! ([`HttpResource::root`] and [`HttpResource::file`]); missing directories are created. The
//! project base and the `cache` and `resources` folders are used only as real directories (a
//! symbolic link in their place is refused, wherever it points), and the copy is read and
//! written through the root's directory handle ([`flowmcp_files::Root`]).
//!
//! # Time to live
//!
//! The age of the copy is read from the cache file's modification time, compared with the `now`
//! the caller passes to [`HttpResource::ensure`]. A copy younger than the TTL is used without
//! fetching. A new download's modification time is set to that `now`, so the age is always
//! measured on the caller's clock. A modification time after `now` counts as age zero.
//!
//! # Offline fallback
//!
//! When the copy is older than the TTL (or missing) the URL is fetched again. If that fails —
//! network, HTTP status, too large, not a SQLite database, or the copy cannot be stored — an
//! existing stale copy is used and [`Fetched::warning`] says how old it is and why the refetch
//! failed. Without a copy the failure is an [`HttpError`] with a stable code. A refused URL is
//! always an error: nothing is fetched and no copy is used.
//!
//! # Verification and atomic replacement
//!
//! A download must start with the 16-byte SQLite header, have a length that is a whole number
//! of its declared pages, and open read-only with its `sqlite_master` readable. It is written to
//! a uniquely named temporary file beside the cache file, flushed to disk (`fsync`), verified,
//! and renamed over the cache file, so the cache file is always either the old copy or a whole,
//! verified new one. A stale copy is replaced only by a verified download, and only a file that
//! is an earlier copy (a regular file starting with the SQLite header) is ever replaced: any
//! other file, a link or a directory in its place fails the download. Nothing but this
//! module's own temporary files is ever deleted, and those are removed on every failure. Two
//! threads or processes ensuring the same URL may both fetch; each rename leaves a whole file.
//!
//! Error and warning texts name the URL without user info, query string or fragment (query
//! strings may carry keys) and never quote a response body.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use flowmcp_spec::Code;
use flowmcp_spec::urls::{self, UrlRefusal};
use url::Url;

use crate::sqlite::{Database, Limits, Mode, OpenError};
use flowmcp_files::Root;

/// The default cap on a download, in bytes (256 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Fetches the bytes behind a URL; implemented by the caller with its HTTP transport.
///
/// The implementation decides timeouts, redirects and TLS. It must stop reading once the body
/// passes `max_bytes` and report [`FetchFailure::TooLarge`] (a longer answer is refused here
/// too), and it must not put the response body into any message.
pub trait Fetcher {
    /// Fetches `url` with a GET request and returns the whole body of a successful answer.
    fn fetch(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchFailure>;
}

/// Why a [`Fetcher`] could not deliver the body.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchFailure {
    /// The server answered with a status that is not a success (code `E001`).
    #[error("the server answered HTTP {status}")]
    Status {
        /// The HTTP status code.
        status: u16,
    },
    /// The request failed on the network: DNS, connection, TLS, protocol (code `E002`).
    #[error("{message}")]
    Network {
        /// What failed, in a sentence; never the response body.
        message: String,
    },
    /// The request did not finish in time (code `E003`).
    #[error("{message}")]
    Timeout {
        /// What timed out, in a sentence.
        message: String,
    },
    /// The body is larger than the cap (code `E008`).
    #[error("the download is larger than the cap of {max_bytes} bytes")]
    TooLarge {
        /// The cap, in bytes.
        max_bytes: u64,
    },
}

/// Why [`HttpResource::ensure`] has no database to offer.
///
/// | variant | code |
/// |---|---|
/// | [`Refused`](HttpError::Refused) | `E009` (refused request) |
/// | [`Fetch`](HttpError::Fetch) | by the [`FetchFailure`]: `E001` status, `E002` network, `E003` timeout, `E008` too large |
/// | [`NotSqlite`](HttpError::NotSqlite), [`Io`](HttpError::Io) | `RES033` (database cannot be read) |
/// | [`Place`](HttpError::Place) | `E009` (refused: the copy's place is not flowmcp's to write) |
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The URL is not allowed; nothing was fetched and no cached copy was looked at.
    #[error("refused to fetch {url}: {reason}")]
    Refused {
        /// The URL as shown in messages (see the [module](self) docs).
        url: String,
        /// Why, in a sentence.
        reason: String,
    },
    /// The download failed and there is no cached copy.
    #[error("cannot download {url}: {failure}")]
    Fetch {
        /// The URL as shown in messages.
        url: String,
        /// What the fetcher reported.
        failure: FetchFailure,
    },
    /// The download is not a SQLite database, and there is no cached copy.
    #[error("the download from {url} is not a SQLite database: {reason}")]
    NotSqlite {
        /// The URL as shown in messages.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The copy's place is refused (a linked folder, a link out of its root, a file there that
    /// is not an earlier copy), and there is no cached copy.
    #[error("cannot keep the download from {url}: {source}")]
    Place {
        /// The URL as shown in messages.
        url: String,
        /// Why the place is refused.
        source: flowmcp_files::PathError,
    },
    /// The download could not be stored, and there is no cached copy.
    #[error("cannot store the download from {url} at {}: {source}", path.display())]
    Io {
        /// The URL as shown in messages.
        url: String,
        /// The file or directory the operation was on.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl HttpError {
    /// The stable code of this error (see the table on [`HttpError`]).
    pub fn code(&self) -> Code {
        match self {
            HttpError::Refused { .. } => Code::E009,
            HttpError::Fetch { failure, .. } => match failure {
                FetchFailure::Status { .. } => Code::E001,
                FetchFailure::Network { .. } => Code::E002,
                FetchFailure::Timeout { .. } => Code::E003,
                FetchFailure::TooLarge { .. } => Code::E008,
            },
            HttpError::NotSqlite { .. } | HttpError::Io { .. } => Code::RES033,
            HttpError::Place { .. } => Code::E009,
        }
    }
}

/// The database file [`HttpResource::ensure`] settled on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// The cache file to open (read-only).
    pub path: PathBuf,
    /// Whether it was downloaded by this call (`false`: a cached copy is used).
    pub fetched: bool,
    /// Set when a stale copy is used because the refetch failed: its age and the failure.
    pub warning: Option<String>,
}

/// One remote SQLite database and where its copy is kept.
#[derive(Clone, Debug)]
pub struct HttpResource {
    /// The URL, as written in the schema. Only `https://` is fetched, or `http://` to a loopback
    /// host when [`allow_http_loopback`](Self::allow_http_loopback) is set.
    pub url: String,
    /// How long a copy is used before it is fetched again (the resource's `cacheTtl`).
    pub ttl: Duration,
    /// The root the copy is kept in; every read and write of it goes through the root's handle.
    pub root: Root,
    /// The copy's path inside [`root`](Self::root): plain components, checked by the caller
    /// ([`Root::resolve`] refuses anything else).
    pub file: PathBuf,
    /// The largest download accepted, in bytes; passed to the [`Fetcher`].
    pub max_bytes: u64,
    /// Accept plain `http://` to loopback hosts (`127.0.0.0/8`, `::1`, `localhost`): local tests
    /// and demos. Off by default.
    pub allow_http_loopback: bool,
}

impl HttpResource {
    /// A resource for `url` cached at [`cache_file`]`(project_base, url)` (through
    /// [`cache_root`]), with [`DEFAULT_MAX_BYTES`] and plain HTTP refused.
    pub fn new(url: impl Into<String>, ttl: Duration, project_base: &Path) -> HttpResource {
        let url = url.into();
        HttpResource {
            root: cache_root(project_base),
            file: PathBuf::from(cache_name(&url)),
            url,
            ttl,
            max_bytes: DEFAULT_MAX_BYTES,
            allow_http_loopback: false,
        }
    }

    /// The cache file, as a path (for messages and for opening the verified copy).
    pub fn cache(&self) -> PathBuf {
        self.root.dir().join(&self.file)
    }

    /// Makes sure a usable copy of the database is at [`cache`](Self::cache), fetching it with
    /// `fetcher` when the copy is missing or at least [`ttl`](Self::ttl) old at `now`.
    ///
    /// See the [module](self) docs for the TTL, the offline fallback and how a download is
    /// verified and stored. A cached file that does not start with the SQLite header is not
    /// used (it is replaced by a verified download, never deleted).
    pub fn ensure(&self, fetcher: &dyn Fetcher, now: SystemTime) -> Result<Fetched, HttpError> {
        let shown = check_url(&self.url, self.allow_http_loopback)?;
        let cached = cached_age(&self.root, &self.file, now);
        let located = || {
            self.root
                .resolve_plain(&self.file)
                .map_err(|e| HttpError::Place {
                    url: shown.clone(),
                    source: e,
                })
        };
        if let Some(age) = cached
            && age < self.ttl
        {
            return Ok(Fetched {
                path: located()?,
                fetched: false,
                warning: None,
            });
        }
        match self.download(fetcher, &shown, now) {
            Ok(()) => Ok(Fetched {
                path: located()?,
                fetched: true,
                warning: None,
            }),
            Err(error) => match cached {
                Some(age) => Ok(Fetched {
                    path: located()?,
                    fetched: false,
                    warning: Some(format!(
                        "using the cached copy of {shown}, {} old (its TTL is {}): \
                         refetching failed: {error}",
                        human_duration(age),
                        human_duration(self.ttl),
                    )),
                }),
                None => Err(error),
            },
        }
    }

    /// Fetches, verifies and stores a new copy; on any failure the cache file is untouched.
    fn download(
        &self,
        fetcher: &dyn Fetcher,
        shown: &str,
        now: SystemTime,
    ) -> Result<(), HttpError> {
        let fetch_failed = |failure| HttpError::Fetch {
            url: shown.to_owned(),
            failure,
        };
        let not_sqlite = |reason: String| HttpError::NotSqlite {
            url: shown.to_owned(),
            reason,
        };
        let bytes = fetcher
            .fetch(&self.url, self.max_bytes)
            .map_err(fetch_failed)?;
        if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > self.max_bytes {
            return Err(fetch_failed(FetchFailure::TooLarge {
                max_bytes: self.max_bytes,
            }));
        }
        check_shape(&bytes).map_err(|reason| not_sqlite(reason.to_owned()))?;

        let place = |source| HttpError::Place {
            url: shown.to_owned(),
            source,
        };
        let mut staged = self.root.stage(&self.file).map_err(place)?;
        let cache = self.cache();
        staged
            .file()
            .and_then(|file| fill(file, &bytes, now))
            .map_err(|source| HttpError::Io {
                url: shown.to_owned(),
                path: cache.clone(),
                source,
            })?;
        staged.close();
        verify_database(staged.path()).map_err(not_sqlite)?;
        // Only an earlier copy is ever replaced: a file there that is not a SQLite database
        // (or a link, or a directory) is left as it is, and the download fails.
        staged
            .commit(&|head| head.starts_with(SQLITE_HEADER))
            .map_err(place)?;
        Ok(())
    }
}

/// The root of the spec's cache folder of downloaded copies, `<project_base>/cache/resources`:
/// `project_base` (a project's `.flowmcp`), `cache` and `resources` are folders flowmcp owns,
/// used only as real directories.
pub fn cache_root(project_base: &Path) -> Root {
    Root::owned_folder(project_base)
        .folder("cache")
        .folder("resources")
}

/// The file name of `url`'s copy in [`cache_root`]: the SHA-256 of the URL text exactly as
/// written, in lowercase hexadecimal, and `.db`.
fn cache_name(url: &str) -> String {
    format!("{}.db", flowmcp_spec::hash::sha256_hex(url))
}

/// The spec's cache file for `url`: `<project_base>/cache/resources/<hex>.db`, where `<hex>` is
/// the SHA-256 of the URL text exactly as written, in lowercase hexadecimal.
///
/// `project_base` is the `.flowmcp` directory itself (for example `/proj/.flowmcp`).
pub fn cache_file(project_base: &Path, url: &str) -> PathBuf {
    cache_root(project_base).dir().join(cache_name(url))
}

/// Checks the URL before anything is fetched and returns it as shown in messages.
fn check_url(text: &str, allow_http_loopback: bool) -> Result<String, HttpError> {
    let refused = |url: String, reason: &str| HttpError::Refused {
        url,
        reason: reason.to_owned(),
    };
    let url = Url::parse(text).map_err(|e| {
        refused(
            "[invalid URL]".to_owned(),
            &format!("not an absolute URL ({e})"),
        )
    })?;
    let shown = shown_url(&url);
    match urls::check(
        urls::UrlParts::from_parsed(url.scheme(), url.host_str(), url.username(), url.password()),
        allow_http_loopback,
    ) {
        Ok(()) => Ok(shown),
        Err(UrlRefusal::Credentials) => Err(refused(shown, "the URL carries user info (`user@`)")),
        Err(UrlRefusal::HttpNotAllowed) => Err(refused(
            shown,
            "plain http:// is not allowed here (only https://)",
        )),
        Err(UrlRefusal::HttpNotLoopback) => Err(refused(
            shown,
            "plain http:// is accepted only for loopback hosts, and https:// is required otherwise",
        )),
        Err(_) => Err(refused(shown, "the URL must start with https://")),
    }
}

/// `scheme://host[:port]/path`: no user info, query string or fragment.
fn shown_url(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{}://{host}:{port}{}", url.scheme(), url.path()),
        None => format!("{}://{host}{}", url.scheme(), url.path()),
    }
}

/// The age at `now` of a cached copy, if there is a regular file at `file` inside `root` that
/// starts with the SQLite header (read through the root's handle).
fn cached_age(root: &Root, file: &Path, now: SystemTime) -> Option<Duration> {
    let mut file = root.open_file(file).ok()?;
    let meta = file.metadata().ok()?;
    let mut header = [0u8; 16];
    io::Read::read_exact(&mut file, &mut header).ok()?;
    if &header != SQLITE_HEADER {
        return None;
    }
    let modified = meta.modified().ok()?;
    Some(now.duration_since(modified).unwrap_or(Duration::ZERO))
}

/// The checks that need no SQLite: the header, a valid page size, and a length that is a whole
/// number of pages (a truncated download fails here).
fn check_shape(bytes: &[u8]) -> Result<(), &'static str> {
    if !bytes.starts_with(SQLITE_HEADER) {
        return Err("it does not start with the SQLite header");
    }
    let page_size = match bytes.get(16..18) {
        Some(&[1, 0]) => 65_536,
        Some(&[hi, lo]) => usize::from(u16::from_be_bytes([hi, lo])),
        _ => return Err("it is shorter than the SQLite header"),
    };
    if !(512..=65_536).contains(&page_size) || !page_size.is_power_of_two() {
        return Err("its header declares an invalid page size");
    }
    if bytes.len() < page_size || !bytes.len().is_multiple_of(page_size) {
        return Err("its length is not a whole number of pages (truncated?)");
    }
    Ok(())
}

/// Opens the file as read-only resources are opened and reads `sqlite_master`.
fn verify_database(path: &Path) -> Result<(), String> {
    match Database::open(path, Mode::ReadOnly, &Limits::default()) {
        Ok(_) => Ok(()),
        Err(OpenError::Sqlite { message, .. }) => Err(message),
        Err(other) => Err(other.to_string()),
    }
}

/// Formats a duration for people: `42 s`, `5 min 3 s`, `2 h 10 min`, `3 d 4 h`.
fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3_600 => format!("{} min {} s", s / 60, s % 60),
        3_600..86_400 => format!("{} h {} min", s / 3_600, s % 3_600 / 60),
        _ => format!("{} d {} h", s / 86_400, s % 86_400 / 3_600),
    }
}

/// Writes `bytes`, sets the modification time to `now` (best effort: where that fails, the time
/// of writing stands) and flushes the file to disk.
fn fill(file: &mut fs::File, bytes: &[u8], now: SystemTime) -> io::Result<()> {
    file.write_all(bytes)?;
    let _ = file.set_modified(now);
    file.sync_all()
}
