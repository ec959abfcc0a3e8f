#![allow(clippy::unwrap_used, clippy::expect_used)]
//! HTTP resources: the cache file's place, the TTL by modification time, verification of a
//! download, atomic replacement and the offline fallback. Most tests use a fake fetcher; one runs
//! against a real HTTP server on 127.0.0.1 with a `ureq` fetcher.

use crate::common;

use common::TempDir;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use flowmcp_resources::http::{
    DEFAULT_MAX_BYTES, FetchFailure, Fetched, Fetcher, HttpError, HttpResource, cache_file,
};
use flowmcp_resources::sqlite::{Database, Limits, Mode, QueryLimits};

/// The bytes of a small SQLite database made with plain rusqlite.
fn db_bytes(sql: &str) -> Vec<u8> {
    let dir = TempDir::new("http-make");
    let path = dir.0.join("made.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(sql).unwrap();
    conn.close().unwrap();
    std::fs::read(&path).unwrap()
}

fn tokens_v1() -> Vec<u8> {
    db_bytes(
        "CREATE TABLE tokens (symbol TEXT, decimals INTEGER);
         INSERT INTO tokens VALUES ('USDC', 6), ('WETH', 18);",
    )
}

fn tokens_v2() -> Vec<u8> {
    db_bytes(
        "CREATE TABLE tokens (symbol TEXT, decimals INTEGER);
         INSERT INTO tokens VALUES ('USDC', 6), ('WETH', 18), ('WBTC', 8);",
    )
}

/// A fetcher that answers every call with the same reply and counts the calls.
struct FakeFetcher {
    reply: Mutex<Result<Vec<u8>, FetchFailure>>,
    calls: AtomicUsize,
}

impl FakeFetcher {
    fn new(reply: Result<Vec<u8>, FetchFailure>) -> FakeFetcher {
        FakeFetcher {
            reply: Mutex::new(reply),
            calls: AtomicUsize::new(0),
        }
    }

    fn set(&self, reply: Result<Vec<u8>, FetchFailure>) {
        *self.reply.lock().unwrap() = reply;
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl Fetcher for FakeFetcher {
    fn fetch(&self, _url: &str, _max_bytes: u64) -> Result<Vec<u8>, FetchFailure> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.reply.lock().unwrap().clone()
    }
}

fn offline() -> FetchFailure {
    FetchFailure::Network {
        message: "connection refused".to_owned(),
    }
}

const URL: &str = "https://cdn.example.com/data/tokens.sqlite?key=SECRET-QUERY";
const HOUR: Duration = Duration::from_secs(3_600);

fn resource(dir: &TempDir) -> HttpResource {
    HttpResource::new(URL, HOUR, &dir.base())
}

/// The names in the cache file's directory (none if it does not exist).
fn names_beside(path: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(path.parent().unwrap()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts that the cache directory holds exactly the cache file (or nothing): no temporary
/// file or journal was left behind.
fn assert_only_cache_file(res: &HttpResource, present: bool) {
    let expected: Vec<String> = if present {
        vec![
            res.cache()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        ]
    } else {
        Vec::new()
    };
    assert_eq!(
        names_beside(&res.cache()),
        expected,
        "unexpected files beside the cache file"
    );
}

fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

fn sha256(path: &Path) -> String {
    flowmcp_spec::hash::sha256_hex(std::fs::read(path).unwrap())
}

fn ensure(res: &HttpResource, fetcher: &dyn Fetcher, now: SystemTime) -> Fetched {
    res.ensure(fetcher, now).unwrap()
}

#[test]
fn cache_file_is_the_sha256_of_the_url_under_cache_resources() {
    let base = Path::new("/proj/.flowmcp");
    let path = cache_file(base, "https://cdn.example.com/ofac-sdn.sqlite");
    let hex = flowmcp_spec::hash::sha256_hex("https://cdn.example.com/ofac-sdn.sqlite");
    assert_eq!(
        path,
        base.join("cache")
            .join("resources")
            .join(format!("{hex}.db"))
    );
    let name = path.file_name().unwrap().to_str().unwrap();
    assert_eq!(name.len(), 64 + 3);
    assert!(
        name[..64]
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    );
    // The URL text is the key exactly as written.
    assert_ne!(
        path,
        cache_file(base, "https://cdn.example.com/ofac-sdn.sqlite?v=2")
    );
    let res = HttpResource::new("https://cdn.example.com/ofac-sdn.sqlite", HOUR, base);
    assert_eq!(res.cache(), path);
    assert_eq!(res.max_bytes, DEFAULT_MAX_BYTES);
    assert!(!res.allow_http_loopback);
}

#[test]
fn first_download_creates_the_cache_file_with_the_bytes() {
    let dir = TempDir::new("http-first");
    let res = resource(&dir);
    let bytes = tokens_v1();
    let fetcher = FakeFetcher::new(Ok(bytes.clone()));
    let now = SystemTime::now();
    let got = ensure(&res, &fetcher, now);
    assert_eq!(
        got,
        Fetched {
            path: res.cache().clone(),
            fetched: true,
            warning: None
        }
    );
    assert_eq!(fetcher.calls(), 1);
    assert_eq!(std::fs::read(res.cache()).unwrap(), bytes);
    // The modification time records the fetch on the caller's clock.
    let mtime = std::fs::metadata(res.cache()).unwrap().modified().unwrap();
    assert_eq!(mtime, now);
    assert_only_cache_file(&res, true);
    // The copy is a database the engine opens read-only.
    let db = Database::open(&got.path, Mode::ReadOnly, &Limits::default()).unwrap();
    let rows = db
        .query(
            "SELECT count(*) AS n FROM tokens",
            &[],
            &QueryLimits::default(),
        )
        .unwrap();
    assert_eq!(rows.rows[0]["n"], serde_json::json!(2));
}

#[test]
fn within_the_ttl_the_copy_is_used_without_fetching() {
    let dir = TempDir::new("http-fresh");
    let res = resource(&dir);
    let fetcher = FakeFetcher::new(Ok(tokens_v1()));
    let now = SystemTime::now();
    ensure(&res, &fetcher, now);
    fetcher.set(Ok(tokens_v2()));
    for later in [
        Duration::ZERO,
        Duration::from_secs(1),
        HOUR - Duration::from_secs(1),
    ] {
        let got = ensure(&res, &fetcher, now + later);
        assert!(!got.fetched);
        assert_eq!(got.warning, None);
        assert_eq!(got.path, res.cache());
    }
    assert_eq!(fetcher.calls(), 1);
    assert_eq!(std::fs::read(res.cache()).unwrap(), tokens_v1());
    // A modification time after `now` counts as age zero.
    let got = ensure(&res, &fetcher, now - HOUR);
    assert!(!got.fetched);
    assert_eq!(fetcher.calls(), 1);
    assert_only_cache_file(&res, true);
}

#[test]
fn after_the_ttl_the_copy_is_fetched_again() {
    let dir = TempDir::new("http-expired");
    let res = resource(&dir);
    let fetcher = FakeFetcher::new(Ok(tokens_v1()));
    let now = SystemTime::now();
    ensure(&res, &fetcher, now);
    fetcher.set(Ok(tokens_v2()));
    let later = now + HOUR;
    let got = ensure(&res, &fetcher, later);
    assert!(got.fetched);
    assert_eq!(got.warning, None);
    assert_eq!(fetcher.calls(), 2);
    assert_eq!(std::fs::read(res.cache()).unwrap(), tokens_v2());
    assert_eq!(
        std::fs::metadata(res.cache()).unwrap().modified().unwrap(),
        later
    );
    // The new copy is fresh again on the same clock.
    assert!(!ensure(&res, &fetcher, later + Duration::from_secs(60)).fetched);
    assert_eq!(fetcher.calls(), 2);
    assert_only_cache_file(&res, true);
}

#[test]
fn a_zero_ttl_fetches_every_time() {
    let dir = TempDir::new("http-zero");
    let mut res = resource(&dir);
    res.ttl = Duration::ZERO;
    let fetcher = FakeFetcher::new(Ok(tokens_v1()));
    let now = SystemTime::now();
    assert!(ensure(&res, &fetcher, now).fetched);
    assert!(ensure(&res, &fetcher, now).fetched);
    assert_eq!(fetcher.calls(), 2);
    assert_only_cache_file(&res, true);
}

#[test]
fn offline_with_a_stale_copy_uses_it_with_a_warning() {
    let dir = TempDir::new("http-stale");
    let res = resource(&dir);
    let fetcher = FakeFetcher::new(Ok(tokens_v1()));
    let now = SystemTime::now();
    ensure(&res, &fetcher, now);
    let before = sha256(&res.cache());
    fetcher.set(Err(offline()));
    let later = now + Duration::from_secs(2 * 86_400 + 3 * 3_600);
    let got = ensure(&res, &fetcher, later);
    assert_eq!(got.path, res.cache());
    assert!(!got.fetched);
    let warning = got.warning.expect("a warning for the stale copy");
    assert!(warning.contains("2 d 3 h old"), "{warning}");
    assert!(warning.contains("1 h 0 min"), "{warning}");
    assert!(warning.contains("connection refused"), "{warning}");
    assert!(
        warning.contains("https://cdn.example.com/data/tokens.sqlite"),
        "{warning}"
    );
    assert!(!warning.contains("SECRET-QUERY"), "{warning}");
    assert_eq!(fetcher.calls(), 2);
    assert_eq!(sha256(&res.cache()), before);
    // The stale copy keeps its age: the next call tries again.
    ensure(&res, &fetcher, later);
    assert_eq!(fetcher.calls(), 3);
    assert_only_cache_file(&res, true);
}

#[test]
fn a_stale_copy_written_by_someone_else_is_used_when_the_server_fails() {
    let dir = TempDir::new("http-stale-status");
    let res = resource(&dir);
    std::fs::create_dir_all(res.cache().parent().unwrap()).unwrap();
    std::fs::write(res.cache(), tokens_v1()).unwrap();
    let now = SystemTime::now();
    set_mtime(&res.cache(), now - Duration::from_secs(90 * 60));
    let fetcher = FakeFetcher::new(Err(FetchFailure::Status { status: 503 }));
    let got = ensure(&res, &fetcher, now);
    assert!(!got.fetched);
    let warning = got.warning.unwrap();
    assert!(warning.contains("1 h 30 min old"), "{warning}");
    assert!(warning.contains("HTTP 503"), "{warning}");
    assert_eq!(std::fs::read(res.cache()).unwrap(), tokens_v1());
    assert_only_cache_file(&res, true);
}

#[test]
fn offline_without_a_copy_is_a_coded_error_and_creates_no_file() {
    let cases = [
        (offline(), "E002"),
        (FetchFailure::Status { status: 404 }, "E001"),
        (
            FetchFailure::Timeout {
                message: "after 30 s".to_owned(),
            },
            "E003",
        ),
        (FetchFailure::TooLarge { max_bytes: 10 }, "E008"),
    ];
    for (failure, code) in cases {
        let dir = TempDir::new("http-nocache");
        let res = resource(&dir);
        let fetcher = FakeFetcher::new(Err(failure.clone()));
        let err = res.ensure(&fetcher, SystemTime::now()).unwrap_err();
        assert_eq!(err.code().as_str(), code, "{err}");
        assert!(
            matches!(&err, HttpError::Fetch { failure: f, .. } if *f == failure),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("https://cdn.example.com/data/tokens.sqlite"),
            "{text}"
        );
        assert!(!text.contains("SECRET-QUERY"), "{text}");
        assert_eq!(fetcher.calls(), 1);
        assert!(!res.cache().exists());
        assert_only_cache_file(&res, false);
    }
}

#[test]
fn a_download_that_is_not_sqlite_leaves_the_old_copy_unchanged() {
    let dir = TempDir::new("http-notdb");
    let res = resource(&dir);
    let fetcher = FakeFetcher::new(Ok(tokens_v1()));
    let now = SystemTime::now();
    ensure(&res, &fetcher, now);
    let before = sha256(&res.cache());
    let mtime = std::fs::metadata(res.cache()).unwrap().modified().unwrap();

    let page = b"<html>SECRET-BODY-TEXT: maintenance</html>".to_vec();
    // A bad page size (caught before SQLite) and a whole-page file SQLite cannot read.
    let mut bad_page_size = tokens_v1();
    bad_page_size[16..].fill(0xAB);
    let mut unreadable = tokens_v1();
    unreadable[100..].fill(0xAB);
    let truncated = {
        let mut b = tokens_v2();
        b.truncate(b.len() - 100);
        b
    };
    let cases = [
        (page, "it does not start with the SQLite header"),
        (bad_page_size, "invalid page size"),
        (unreadable, "malformed"),
        (truncated, "not a whole number of pages"),
        (Vec::new(), "it does not start with the SQLite header"),
    ];
    for (bad, reason) in cases {
        fetcher.set(Ok(bad));
        let got = ensure(&res, &fetcher, now + 2 * HOUR);
        assert!(!got.fetched);
        let warning = got.warning.unwrap();
        assert!(warning.contains("not a SQLite database"), "{warning}");
        assert!(!warning.contains("SECRET-BODY-TEXT"), "{warning}");
        assert!(warning.contains(reason), "{warning}");
        assert_eq!(sha256(&res.cache()), before);
        assert_eq!(
            std::fs::metadata(res.cache()).unwrap().modified().unwrap(),
            mtime
        );
        assert_only_cache_file(&res, true);
    }
    assert_eq!(fetcher.calls(), 6);
}

#[test]
fn a_download_that_is_not_sqlite_without_a_copy_is_res033() {
    let dir = TempDir::new("http-notdb-nocache");
    let res = resource(&dir);
    let mut broken = tokens_v1();
    broken[100..].fill(0xAB);
    for bad in [b"SECRET-BODY-TEXT".to_vec(), broken] {
        let fetcher = FakeFetcher::new(Ok(bad));
        let err = res.ensure(&fetcher, SystemTime::now()).unwrap_err();
        assert!(matches!(err, HttpError::NotSqlite { .. }), "{err:?}");
        assert_eq!(err.code().as_str(), "RES033");
        assert!(!err.to_string().contains("SECRET-BODY-TEXT"));
        assert!(!res.cache().exists());
        assert_only_cache_file(&res, false);
    }
}

#[test]
fn a_download_over_the_cap_is_refused_even_if_the_fetcher_returns_it() {
    let dir = TempDir::new("http-cap");
    let mut res = resource(&dir);
    let bytes = tokens_v1();
    res.max_bytes = u64::try_from(bytes.len()).unwrap() - 1;
    let fetcher = FakeFetcher::new(Ok(bytes));
    let err = res.ensure(&fetcher, SystemTime::now()).unwrap_err();
    assert_eq!(err.code().as_str(), "E008");
    assert_only_cache_file(&res, false);
}

/// Issue #39: a download replaces only an earlier copy. A file in the copy's place that is not a
/// SQLite database (a file of the user's, say) is neither used nor replaced, online or not.
#[test]
fn a_cached_file_that_is_not_sqlite_is_never_replaced() {
    let dir = TempDir::new("http-badcache");
    let res = resource(&dir);
    std::fs::create_dir_all(res.cache().parent().unwrap()).unwrap();
    std::fs::write(res.cache(), b"not a database").unwrap();
    let now = SystemTime::now();
    // Unusable and offline: an error, and the file is left alone.
    let fetcher = FakeFetcher::new(Err(offline()));
    let err = res.ensure(&fetcher, now).unwrap_err();
    assert_eq!(err.code().as_str(), "E002");
    assert_eq!(std::fs::read(res.cache()).unwrap(), b"not a database");
    // Online: the download is verified, but the file is not an earlier copy, so it stays.
    fetcher.set(Ok(tokens_v1()));
    let err = res.ensure(&fetcher, now).unwrap_err();
    assert_eq!(err.code().as_str(), "E009", "{err}");
    assert!(err.to_string().contains("not an earlier copy"), "{err}");
    assert_eq!(std::fs::read(res.cache()).unwrap(), b"not a database");
    assert_only_cache_file(&res, true);
    // Once the user moves it away, the copy is downloaded.
    std::fs::remove_file(res.cache()).unwrap();
    assert!(ensure(&res, &fetcher, now).fetched);
    assert_eq!(std::fs::read(res.cache()).unwrap(), tokens_v1());
}

#[test]
fn urls_other_than_https_are_refused_without_fetching() {
    let dir = TempDir::new("http-refused");
    let fetcher = FakeFetcher::new(Ok(tokens_v1()));
    let refused = [
        ("http://cdn.example.com/tokens.sqlite", true),
        ("http://10.0.0.1/tokens.sqlite", true),
        ("http://localhost.example.com/tokens.sqlite", true),
        ("http://localhost:1@example.com/tokens.sqlite", true),
        ("https://user:pw@cdn.example.com/tokens.sqlite", true),
        ("http://127.0.0.1:8080/tokens.sqlite", false),
        ("http://localhost/tokens.sqlite", false),
        ("ftp://cdn.example.com/tokens.sqlite", true),
        ("file:///etc/passwd", true),
        ("cdn.example.com/tokens.sqlite", true),
    ];
    for (url, allow) in refused {
        let mut res = HttpResource::new(url, HOUR, &dir.base());
        res.allow_http_loopback = allow;
        let err = res.ensure(&fetcher, SystemTime::now()).unwrap_err();
        assert!(matches!(err, HttpError::Refused { .. }), "{url}: {err:?}");
        assert_eq!(err.code().as_str(), "E009", "{url}");
        assert!(!err.to_string().contains("pw@"), "{err}");
        assert!(!res.cache().exists());
    }
    assert_eq!(fetcher.calls(), 0);
    // A refused URL is refused even when a copy is cached.
    let res = HttpResource::new("http://cdn.example.com/tokens.sqlite", HOUR, &dir.base());
    std::fs::create_dir_all(res.cache().parent().unwrap()).unwrap();
    std::fs::write(res.cache(), tokens_v1()).unwrap();
    let now = SystemTime::now();
    set_mtime(&res.cache(), now - 2 * HOUR);
    assert_eq!(
        res.ensure(&fetcher, now).unwrap_err().code().as_str(),
        "E009"
    );
    assert_eq!(fetcher.calls(), 0);
    // Loopback hosts are accepted over plain http when the caller allows it.
    for url in [
        "http://127.0.0.1:8080/tokens.sqlite",
        "http://[::1]:8080/tokens.sqlite",
        "http://LOCALHOST/tokens.sqlite",
    ] {
        let mut res = HttpResource::new(url, HOUR, &dir.base());
        res.allow_http_loopback = true;
        assert!(ensure(&res, &fetcher, now).fetched, "{url}");
    }
    assert_eq!(fetcher.calls(), 3);
}

#[test]
fn concurrent_ensures_leave_one_whole_file() {
    let dir = TempDir::new("http-threads");
    let res = resource(&dir);
    let bytes = tokens_v2();
    let fetcher = FakeFetcher::new(Ok(bytes.clone()));
    let now = SystemTime::now();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let got = ensure(&res, &fetcher, now);
                assert_eq!(got.path, res.cache());
                assert_eq!(got.warning, None);
            });
        }
    });
    assert!((1..=4).contains(&fetcher.calls()));
    assert_eq!(std::fs::read(res.cache()).unwrap(), bytes);
    assert_only_cache_file(&res, true);
}

/// A fetcher over `ureq`, as the runtime's transport would be (test only).
struct UreqFetcher(ureq::Agent);

impl Fetcher for UreqFetcher {
    fn fetch(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchFailure> {
        match self.0.get(url).call() {
            Ok(mut response) => response
                .body_mut()
                .with_config()
                .limit(max_bytes)
                .read_to_vec()
                .map_err(|e| match e {
                    ureq::Error::BodyExceedsLimit(_) => FetchFailure::TooLarge { max_bytes },
                    other => FetchFailure::Network {
                        message: other.to_string(),
                    },
                }),
            Err(ureq::Error::StatusCode(status)) => Err(FetchFailure::Status { status }),
            Err(other) => Err(FetchFailure::Network {
                message: other.to_string(),
            }),
        }
    }
}

#[test]
fn a_real_local_server_is_downloaded_from_and_its_failures_fall_back() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let db = tokens_v1();
    let served = db.clone();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        while let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(5)) {
            let url = request.url().to_owned();
            seen.push(url.clone());
            let response = match url.as_str() {
                "/tokens.sqlite" => tiny_http::Response::from_data(served.clone()),
                "/page" => {
                    tiny_http::Response::from_data(b"<html>SECRET-BODY-TEXT</html>".to_vec())
                }
                _ => tiny_http::Response::from_data(b"SECRET-BODY-TEXT".to_vec())
                    .with_status_code(404),
            };
            let _ = request.respond(response);
            if url == "/stop" {
                break;
            }
        }
        seen
    });
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let fetcher = UreqFetcher(agent);
    let dir = TempDir::new("http-server");
    let at = |path: &str| {
        let mut res =
            HttpResource::new(format!("http://127.0.0.1:{port}{path}"), HOUR, &dir.base());
        res.allow_http_loopback = true;
        res
    };
    let now = SystemTime::now();

    // Downloaded, stored whole, then reused within the TTL.
    let res = at("/tokens.sqlite");
    assert!(ensure(&res, &fetcher, now).fetched);
    assert_eq!(std::fs::read(res.cache()).unwrap(), db);
    assert!(!ensure(&res, &fetcher, now + Duration::from_secs(5)).fetched);
    assert_only_cache_file(&res, true);

    // A 404 without a copy: E001, no file.
    let missing = at("/missing.sqlite");
    let err = missing.ensure(&fetcher, now).unwrap_err();
    assert_eq!(err.code().as_str(), "E001", "{err}");
    assert!(err.to_string().contains("404"), "{err}");
    assert!(!err.to_string().contains("SECRET-BODY-TEXT"), "{err}");
    assert!(!missing.cache().exists());

    // An HTML page where the database should be, with a stale copy in place: the copy stays.
    let page = at("/page");
    std::fs::write(page.cache(), tokens_v2()).unwrap();
    set_mtime(&page.cache(), now - 3 * HOUR);
    let got = ensure(&page, &fetcher, now);
    assert!(!got.fetched);
    let warning = got.warning.unwrap();
    assert!(warning.contains("3 h 0 min old"), "{warning}");
    assert!(warning.contains("not a SQLite database"), "{warning}");
    assert!(!warning.contains("SECRET-BODY-TEXT"), "{warning}");
    assert_eq!(std::fs::read(page.cache()).unwrap(), tokens_v2());

    // A cap smaller than the database: E008.
    let mut capped = at("/tokens.sqlite");
    capped.root = flowmcp_resources::Root::new(dir.0.join("capped"));
    capped.file = "copy.db".into();
    capped.max_bytes = 1_000;
    let err = capped.ensure(&fetcher, now).unwrap_err();
    assert_eq!(err.code().as_str(), "E008", "{err}");
    assert!(!capped.cache().exists());
    assert_eq!(names_beside(&capped.cache()), Vec::<String>::new());

    let _ = fetcher.fetch(&format!("http://127.0.0.1:{port}/stop"), 100);
    let seen = handle.join().unwrap();
    assert_eq!(
        seen,
        [
            "/tokens.sqlite",
            "/missing.sqlite",
            "/page",
            "/tokens.sqlite",
            "/stop"
        ]
    );
    let mut names = names_beside(&res.cache());
    names.sort();
    let mut expected = vec![
        res.cache()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        page.cache()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
    ];
    expected.sort();
    assert_eq!(names, expected, "no temporary file is left behind");
}
