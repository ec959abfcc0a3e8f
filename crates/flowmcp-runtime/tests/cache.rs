//! Tests of `flowmcp_runtime::cache` (the preload cache, chapter 11) in temporary directories.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flowmcp_runtime::cache::{
    Cache, CacheKey, Lookup, cached_for_message, expired_message, fetching_message, hit_message,
    human_duration, refreshing_message,
};
use serde_json::{Map, Value, json};

const ROOT: &str = "https://api.example.org/v1";

/// A call deadline far enough away not to matter.
fn far() -> std::time::Instant {
    std::time::Instant::now() + Duration::from_secs(60)
}

/// A unique directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "flowmcp-cache-test-{label}-{}-{nanos}-{n}",
            std::process::id()
        ));
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    fn cache(&self) -> Cache {
        Cache::new(self.0.join("cache"))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn params(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

/// 2026-02-17T12:00:00Z
const T0: u64 = 1_771_329_600;

/// A reader's ttl that caps nothing: the entry's own expiry decides.
const ANY_TTL: u64 = u64::MAX;

/// All files below `dir`, relative, sorted.
fn files_below(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(reader) = fs::read_dir(dir) else {
            return;
        };
        for entry in reader.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if let Ok(rel) = path.strip_prefix(base) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn cache_miss_then_store_then_hit_with_same_data() {
    let tmp = TempDir::new("hit");
    let cache = tmp.cache();
    let key = CacheKey::new("hospitals", "getLocations", ROOT, Map::new());
    assert_eq!(cache.lookup(&key, ANY_TTL, at(T0)), Lookup::Miss);

    let data = json!({ "items": [{ "id": 1, "name": "Charité" }], "count": 1 });
    let path = cache
        .store(&key, 604_800, &data, at(T0))
        .expect("store entry");
    assert_eq!(
        path,
        cache.base().join("hospitals").join("getLocations.json")
    );
    assert!(path.is_file());

    match cache.lookup(&key, ANY_TTL, at(T0 + 10)) {
        Lookup::Hit {
            data: cached,
            fetched_at,
            expires_at,
        } => {
            assert_eq!(cached, data);
            assert_eq!(fetched_at, "2026-02-17T12:00:00.000Z");
            assert_eq!(expires_at, "2026-02-24T12:00:00.000Z");
        }
        other => panic!("expected a hit, got {other:?}"),
    }

    // The entry file has the chapter's shape.
    let text = fs::read_to_string(&path).expect("read entry");
    let entry: Value = serde_json::from_str(&text).expect("entry is JSON");
    let meta = &entry["meta"];
    assert_eq!(meta["fetchedAt"], "2026-02-17T12:00:00.000Z");
    assert_eq!(meta["expiresAt"], "2026-02-24T12:00:00.000Z");
    assert_eq!(meta["ttl"], 604_800);
    assert_eq!(
        meta["size"],
        serde_json::to_vec(&data).expect("serialise").len()
    );
    assert_eq!(meta["paramHash"], Value::Null);
    assert_eq!(meta["namespace"], "hospitals");
    assert_eq!(meta["tool"], "getLocations");
    assert_eq!(meta["root"], ROOT);
    assert_eq!(entry["data"], data);
}

#[test]
fn cache_fetched_at_keeps_milliseconds() {
    let tmp = TempDir::new("millis");
    let cache = tmp.cache();
    let key = CacheKey::new("ns", "tool", ROOT, Map::new());
    let now = at(T0) + Duration::from_millis(123);
    cache.store(&key, 90, &json!(1), now).expect("store");
    match cache.lookup(&key, ANY_TTL, now) {
        Lookup::Hit {
            fetched_at,
            expires_at,
            ..
        } => {
            assert_eq!(fetched_at, "2026-02-17T12:00:00.123Z");
            assert_eq!(expires_at, "2026-02-17T12:01:30.123Z");
        }
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn cache_different_params_use_different_files() {
    let tmp = TempDir::new("params");
    let cache = tmp.cache();
    let a = CacheKey::new(
        "coins",
        "getPrice",
        ROOT,
        params(json!({ "id": "bitcoin" })),
    );
    let b = CacheKey::new(
        "coins",
        "getPrice",
        ROOT,
        params(json!({ "id": "ethereum" })),
    );
    let hash_a = a.param_hash().expect("hash for params").to_string();
    assert_eq!(hash_a.len(), 16);
    assert!(hash_a.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a.param_hash(), b.param_hash());

    let path_a = cache
        .store(&a, 60, &json!({ "p": 1 }), at(T0))
        .expect("store a");
    let path_b = cache
        .store(&b, 60, &json!({ "p": 2 }), at(T0))
        .expect("store b");
    assert_ne!(path_a, path_b);
    assert_eq!(
        path_a,
        cache
            .base()
            .join("coins")
            .join("getPrice")
            .join(format!("{hash_a}.json"))
    );

    let data = |key: &CacheKey| match cache.lookup(key, ANY_TTL, at(T0)) {
        Lookup::Hit { data, .. } => data,
        other => panic!("expected a hit, got {other:?}"),
    };
    assert_eq!(data(&a), json!({ "p": 1 }));
    assert_eq!(data(&b), json!({ "p": 2 }));
    let entry: Value =
        serde_json::from_str(&fs::read_to_string(&path_a).expect("read")).expect("json");
    assert_eq!(entry["meta"]["paramHash"], hash_a.as_str());
}

#[test]
fn cache_param_order_does_not_matter() {
    let tmp = TempDir::new("order");
    let cache = tmp.cache();
    let mut first = Map::new();
    first.insert("b".into(), json!(2));
    first.insert("a".into(), json!({ "y": 1, "x": [1, 2] }));
    let mut second = Map::new();
    second.insert("a".into(), json!({ "x": [1, 2], "y": 1 }));
    second.insert("b".into(), json!(2));
    let k1 = CacheKey::new("ns", "tool", ROOT, first);
    let k2 = CacheKey::new("ns", "tool", ROOT, second);
    assert_eq!(k1.param_hash(), k2.param_hash());
    assert_eq!(cache.path_for(&k1), cache.path_for(&k2));

    cache.store(&k1, 60, &json!("x"), at(T0)).expect("store");
    assert!(matches!(
        cache.lookup(&k2, ANY_TTL, at(T0)),
        Lookup::Hit { .. }
    ));
}

#[test]
fn cache_different_root_is_a_miss() {
    let tmp = TempDir::new("root");
    let cache = tmp.cache();
    let other_root = "http://127.0.0.1:8080/v1";

    // Without params: same file, but the recorded root must match.
    let plain = CacheKey::new("ns", "all", ROOT, Map::new());
    let plain_other = CacheKey::new("ns", "all", other_root, Map::new());
    cache.store(&plain, 60, &json!([1]), at(T0)).expect("store");
    assert_eq!(cache.lookup(&plain_other, ANY_TTL, at(T0)), Lookup::Miss);
    assert!(matches!(
        cache.lookup(&plain, ANY_TTL, at(T0)),
        Lookup::Hit { .. }
    ));

    // With params: the root is part of the hash.
    let p = params(json!({ "q": "x" }));
    let with = CacheKey::new("ns", "find", ROOT, p.clone());
    let with_other = CacheKey::new("ns", "find", other_root, p);
    assert_ne!(with.param_hash(), with_other.param_hash());
    cache.store(&with, 60, &json!([2]), at(T0)).expect("store");
    assert_eq!(cache.lookup(&with_other, ANY_TTL, at(T0)), Lookup::Miss);

    // Storing for the other root replaces the parameterless entry.
    cache
        .store(&plain_other, 60, &json!([3]), at(T0))
        .expect("store");
    assert_eq!(cache.lookup(&plain, ANY_TTL, at(T0)), Lookup::Miss);
    match cache.lookup(&plain_other, ANY_TTL, at(T0)) {
        Lookup::Hit { data, .. } => assert_eq!(data, json!([3])),
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn cache_entries_expire_after_ttl() {
    let tmp = TempDir::new("expiry");
    let cache = tmp.cache();
    let key = CacheKey::new("ns", "tool", ROOT, Map::new());
    cache.store(&key, 3600, &json!({}), at(T0)).expect("store");
    assert!(matches!(
        cache.lookup(&key, ANY_TTL, at(T0 + 3599)),
        Lookup::Hit { .. }
    ));
    assert_eq!(cache.lookup(&key, ANY_TTL, at(T0 + 3600)), Lookup::Expired);
    assert_eq!(
        cache.lookup(&key, ANY_TTL, at(T0 + 86_400 * 365)),
        Lookup::Expired
    );

    // A refresh replaces the expired entry.
    cache
        .store(&key, 3600, &json!({ "new": true }), at(T0 + 4000))
        .expect("store");
    match cache.lookup(&key, ANY_TTL, at(T0 + 4000)) {
        Lookup::Hit { data, .. } => assert_eq!(data, json!({ "new": true })),
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn cache_huge_ttl_is_clamped_not_overflowing() {
    let tmp = TempDir::new("hugettl");
    let cache = tmp.cache();
    let key = CacheKey::new("ns", "tool", ROOT, Map::new());
    cache
        .store(&key, u64::MAX, &json!(0), at(T0))
        .expect("store");
    match cache.lookup(&key, ANY_TTL, at(T0)) {
        Lookup::Hit { expires_at, .. } => assert_eq!(expires_at, "9999-12-31T23:59:59.999Z"),
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn cache_atomic_store_leaves_no_temp_files() {
    let tmp = TempDir::new("atomic");
    let cache = tmp.cache();
    let key = CacheKey::new("ns", "tool", ROOT, params(json!({ "a": 1 })));
    for i in 0..5 {
        cache
            .store(&key, 60, &json!({ "i": i }), at(T0))
            .expect("store");
    }
    let plain = CacheKey::new("ns", "other", ROOT, Map::new());
    cache
        .store(&plain, 60, &json!(null), at(T0))
        .expect("store");
    let files = files_below(cache.base());
    let hash = key.param_hash().expect("hash");
    assert_eq!(
        files,
        vec!["ns/other.json".to_string(), format!("ns/tool/{hash}.json")]
    );
    match cache.lookup(&key, ANY_TTL, at(T0)) {
        Lookup::Hit { data, .. } => assert_eq!(data, json!({ "i": 4 })),
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn cache_status_lists_entries_and_marks_expired() {
    let tmp = TempDir::new("status");
    let cache = tmp.cache();
    assert!(
        cache
            .status(None)
            .expect("status of absent base")
            .is_empty()
    );

    let short = CacheKey::new("beta", "short", ROOT, Map::new());
    let long = CacheKey::new("alpha", "long", ROOT, params(json!({ "x": 1 })));
    cache
        .store(&short, 60, &json!([1, 2, 3]), at(T0))
        .expect("store");
    cache
        .store(&long, 86_400, &json!("abc"), at(T0))
        .expect("store");
    // Stray temp file and a corrupt entry are not listed.
    fs::write(cache.base().join("beta").join(".short.json.1.2.tmp"), b"{").expect("write temp");
    fs::write(cache.base().join("beta").join("broken.json"), b"not json").expect("write corrupt");

    let infos = cache.status_at(None, at(T0 + 120)).expect("status");
    assert_eq!(infos.len(), 2);
    assert_eq!(infos[0].namespace, "alpha");
    assert_eq!(infos[0].tool, "long");
    assert!(!infos[0].expired);
    assert_eq!(infos[0].size, 5);
    assert_eq!(infos[0].ttl, 86_400);
    assert_eq!(infos[0].param_hash.as_deref(), long.param_hash());
    assert_eq!(infos[0].path, cache.path_for(&long));
    assert_eq!(infos[1].namespace, "beta");
    assert_eq!(infos[1].tool, "short");
    assert!(infos[1].expired);
    assert_eq!(infos[1].size, 7);
    assert_eq!(infos[1].fetched_at, "2026-02-17T12:00:00.000Z");
    assert_eq!(infos[1].expires_at, "2026-02-17T12:01:00.000Z");
    assert_eq!(infos[1].root, ROOT);

    let only_beta = cache.status_at(Some("beta"), at(T0)).expect("status");
    assert_eq!(only_beta.len(), 1);
    assert_eq!(only_beta[0].tool, "short");
    assert!(!only_beta[0].expired);
    assert!(cache.status(Some("gamma")).expect("status").is_empty());
}

#[test]
fn cache_clear_one_namespace_or_all() {
    let tmp = TempDir::new("clear");
    let cache = tmp.cache();
    let a1 = CacheKey::new("a", "one", ROOT, Map::new());
    let a2 = CacheKey::new("a", "two", ROOT, params(json!({ "k": "v" })));
    let b1 = CacheKey::new("b", "one", ROOT, Map::new());
    for key in [&a1, &a2, &b1] {
        cache.store(key, 60, &json!(1), at(T0)).expect("store");
    }
    // A file that is not laid out like an entry survives every clear.
    let keep = cache.base().join("README.txt");
    fs::write(&keep, b"keep me").expect("write");

    assert_eq!(cache.clear(Some("a")).expect("clear a").removed, 2);
    assert_eq!(cache.lookup(&a1, ANY_TTL, at(T0)), Lookup::Miss);
    assert_eq!(cache.lookup(&a2, ANY_TTL, at(T0)), Lookup::Miss);
    assert!(matches!(
        cache.lookup(&b1, ANY_TTL, at(T0)),
        Lookup::Hit { .. }
    ));
    assert!(
        !cache.base().join("a").exists(),
        "empty namespace dir removed"
    );
    assert_eq!(cache.clear(Some("a")).expect("clear a again").removed, 0);

    cache.store(&a1, 60, &json!(1), at(T0)).expect("store");
    fs::write(cache.base().join("b").join("corrupt.json"), b"{").expect("write");
    fs::write(cache.base().join("b").join(".one.json.9.9.tmp"), b"").expect("write");
    let report = cache.clear(None).expect("clear all");
    assert_eq!(report.removed, 2);
    // Only entries are removed: a corrupt file and a temporary file are kept and reported.
    assert_eq!(
        report.kept,
        vec![
            cache.base().join("b").join(".one.json.9.9.tmp"),
            cache.base().join("b").join("corrupt.json"),
        ]
    );
    assert!(cache.status_at(None, at(T0)).expect("status").is_empty());
    assert_eq!(
        files_below(cache.base()),
        vec![
            "README.txt".to_string(),
            "b/.one.json.9.9.tmp".to_string(),
            "b/corrupt.json".to_string()
        ]
    );
    assert!(keep.is_file());

    let absent = Cache::new(tmp.0.join("never-created"));
    assert_eq!(absent.clear(None).expect("clear absent").removed, 0);
}

#[test]
fn cache_hostile_names_stay_inside_base() {
    let tmp = TempDir::new("hostile");
    let cache = tmp.cache();
    let hostile = [
        ("..", ".."),
        ("../../etc", "passwd"),
        ("/abs", "/abs/tool"),
        ("ns", "../escape"),
        ("a\\b", "c:d"),
        ("", ""),
        (".", ".json"),
        ("CON", "nul"),
    ];
    let base = cache.base().to_path_buf();
    for (i, (ns, tool)) in hostile.iter().enumerate() {
        for p in [Map::new(), params(json!({ "i": i }))] {
            let key = CacheKey::new(*ns, *tool, ROOT, p);
            let path = cache.store(&key, 60, &json!(i), at(T0)).expect("store");
            assert!(path.starts_with(&base), "{path:?} escapes {base:?}");
            let rel = path.strip_prefix(&base).expect("inside base");
            assert!(
                rel.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{rel:?}"
            );
            match cache.lookup(&key, ANY_TTL, at(T0)) {
                Lookup::Hit { data, .. } => assert_eq!(data, json!(i)),
                other => panic!("expected a hit for {ns:?}/{tool:?}, got {other:?}"),
            }
        }
    }
    // Nothing was written next to the base directory.
    let mut siblings: Vec<String> = fs::read_dir(&tmp.0)
        .expect("read temp dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    siblings.sort();
    assert_eq!(siblings, vec!["cache".to_string()]);

    // `a.json`-like tool names cannot collide with another tool's directory.
    let t1 = CacheKey::new("ns", "a", ROOT, params(json!({ "x": 1 })));
    let t2 = CacheKey::new("ns", "a.json", ROOT, Map::new());
    cache.store(&t1, 60, &json!(1), at(T0)).expect("store");
    cache.store(&t2, 60, &json!(2), at(T0)).expect("store");
    assert!(matches!(
        cache.lookup(&t1, ANY_TTL, at(T0)),
        Lookup::Hit { .. }
    ));
    assert!(matches!(
        cache.lookup(&t2, ANY_TTL, at(T0)),
        Lookup::Hit { .. }
    ));

    // Status reports the original names from the entries.
    let names: Vec<(String, String)> = cache
        .status_at(Some("../../etc"), at(T0))
        .expect("status")
        .into_iter()
        .map(|e| (e.namespace, e.tool))
        .collect();
    assert_eq!(
        names,
        vec![
            ("../../etc".to_string(), "passwd".to_string()),
            ("../../etc".to_string(), "passwd".to_string())
        ]
    );
}

#[test]
fn cache_corrupt_entries_are_misses() {
    let tmp = TempDir::new("corrupt");
    let cache = tmp.cache();
    let key = CacheKey::new("ns", "tool", ROOT, Map::new());
    let path = cache
        .store(&key, 60, &json!({ "ok": true }), at(T0))
        .expect("store");

    let bad_contents: [&[u8]; 7] = [
        b"",
        b"not json",
        b"[1,2]",
        b"{\"meta\":{}}",
        b"{\"meta\":{\"fetchedAt\":\"yesterday\",\"expiresAt\":\"tomorrow\",\"ttl\":1,\"size\":1,\"paramHash\":null,\"namespace\":\"ns\",\"tool\":\"tool\",\"root\":\"https://api.example.org/v1\"},\"data\":1}",
        b"{\"data\":1}",
        &[0xff, 0xfe, 0x00],
    ];
    for bad in bad_contents {
        fs::write(&path, bad).expect("corrupt the entry");
        let (lookup, warning) = cache.lookup_with_warning(&key, ANY_TTL, at(T0));
        assert_eq!(lookup, Lookup::Miss);
        assert!(
            warning.as_deref().is_some_and(|w| w.contains("corrupt")),
            "{warning:?}"
        );
        assert_eq!(cache.lookup(&key, ANY_TTL, at(T0)), Lookup::Miss);
    }

    // A directory where the entry file should be: still a miss, not a panic.
    fs::remove_file(&path).expect("remove");
    fs::create_dir_all(&path).expect("dir in place of entry");
    assert_eq!(cache.lookup(&key, ANY_TTL, at(T0)), Lookup::Miss);

    // A plain absent entry gives no warning.
    let absent = CacheKey::new("ns", "absent", ROOT, Map::new());
    assert_eq!(
        cache.lookup_with_warning(&absent, ANY_TTL, at(T0)),
        (Lookup::Miss, None)
    );
}

#[test]
fn cache_human_durations() {
    assert_eq!(human_duration(3600), "1 hour");
    assert_eq!(human_duration(7200), "2 hours");
    assert_eq!(human_duration(86_400), "1 day");
    assert_eq!(human_duration(604_800), "7 days");
    assert_eq!(human_duration(2_592_000), "30 days");
    assert_eq!(human_duration(90), "90 seconds");
    assert_eq!(human_duration(60), "1 minute");
    assert_eq!(human_duration(5400), "90 minutes");
    assert_eq!(human_duration(1), "1 second");
    assert_eq!(human_duration(0), "0 seconds");
    assert_eq!(human_duration(86_401), "86401 seconds");
}

#[test]
fn cache_user_messages() {
    assert_eq!(
        hit_message("2026-02-17T12:00:00.000Z", "2026-02-24T12:00:00.000Z", None),
        "Cached (fetched: 2026-02-17T12:00:00.000Z, expires: 2026-02-24T12:00:00.000Z)"
    );
    assert_eq!(
        hit_message(
            "2026-02-17",
            "2026-02-24",
            Some("15,000 stations, updated daily")
        ),
        "Cached (fetched: 2026-02-17, expires: 2026-02-24) — 15,000 stations, updated daily"
    );
    assert_eq!(fetching_message(), "Fetching fresh data...");
    assert_eq!(cached_for_message(604_800), "Cached for 7 days");
    assert_eq!(expired_message(), "Cache expired, refreshing...");
    assert_eq!(refreshing_message(), "Refreshing cache...");
}

#[test]
fn cache_default_base_ends_in_flowmcp_cache() {
    if let Some(base) = Cache::default_base() {
        assert!(base.ends_with(Path::new(".flowmcp").join("cache")));
    }
}

/// Issue #27 item 8: an entry is bound to the definition that wrote it (another definition's
/// entry is a miss, in the same file, so the next store replaces it), and the reader's ttl caps
/// the writer's expiry; an entry fetched in the future has expired. Status and clear still see
/// every entry, also one written before entries named their definition.
#[test]
fn item08_entries_are_bound_to_their_writer_and_capped_by_the_readers_ttl() {
    let tmp = TempDir::new("writer");
    let cache = tmp.cache();
    let trusted = CacheKey::new("ns", "tool", ROOT, Map::new()).with_definition("aaaa");
    let planted = CacheKey::new("ns", "tool", ROOT, Map::new()).with_definition("bbbb");
    let bare = CacheKey::new("ns", "tool", ROOT, Map::new());
    assert_eq!(trusted.definition(), Some("aaaa"));
    let path = cache
        .store(&planted, 315_360_000, &json!("planted"), at(T0))
        .expect("store");
    assert_eq!(cache.path_for(&trusted), path);
    assert_eq!(cache.lookup(&trusted, 60, at(T0)), Lookup::Miss);
    assert_eq!(cache.lookup(&bare, 60, at(T0)), Lookup::Miss);
    assert!(matches!(
        cache.lookup(&planted, ANY_TTL, at(T0)),
        Lookup::Hit { .. }
    ));
    cache
        .store(&trusted, 60, &json!("real"), at(T0))
        .expect("store");
    assert_eq!(cache.lookup(&planted, ANY_TTL, at(T0)), Lookup::Miss);
    match cache.lookup(&trusted, 60, at(T0 + 10)) {
        Lookup::Hit { data, .. } => assert_eq!(data, json!("real")),
        other => panic!("expected a hit, got {other:?}"),
    }
    let entry: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(entry["meta"]["definition"], "aaaa");

    // Written for ten years, read by a tool whose ttl is a minute.
    let long = CacheKey::new("ns", "long", ROOT, Map::new()).with_definition("aaaa");
    cache
        .store(&long, 315_360_000, &json!(1), at(T0))
        .expect("store");
    match cache.lookup(&long, 60, at(T0 + 59)) {
        Lookup::Hit { expires_at, .. } => assert_eq!(expires_at, "2026-02-17T12:01:00.000Z"),
        other => panic!("expected a hit, got {other:?}"),
    }
    assert_eq!(cache.lookup(&long, 60, at(T0 + 60)), Lookup::Expired);
    assert_eq!(cache.lookup(&long, ANY_TTL, at(T0 - 1)), Lookup::Expired);

    // An entry without `meta.definition` (an older writer): a miss for a bound key, listed and
    // cleared like any other.
    let old = CacheKey::new("ns", "old", ROOT, Map::new());
    let old_path = cache.store(&old, 60, &json!(2), at(T0)).expect("store");
    let mut entry: Value =
        serde_json::from_str(&fs::read_to_string(&old_path).expect("read")).expect("json");
    entry["meta"]
        .as_object_mut()
        .expect("meta")
        .remove("definition");
    fs::write(&old_path, entry.to_string()).expect("write");
    assert!(matches!(
        cache.lookup(&old, ANY_TTL, at(T0)),
        Lookup::Hit { .. }
    ));
    let bound_old = CacheKey::new("ns", "old", ROOT, Map::new()).with_definition("aaaa");
    assert_eq!(cache.lookup(&bound_old, ANY_TTL, at(T0)), Lookup::Miss);
    assert_eq!(cache.status_at(None, at(T0)).expect("status").len(), 3);
    let report = cache.clear(None).expect("clear");
    assert_eq!(report.removed, 3);
    assert!(report.kept.is_empty(), "{:?}", report.kept);
}

/// Issue #32, item 4: a Redis URL's password is never shown — not in a refused URL's error, not
/// in `Debug` or `Display`, not in the warning of a failed authentication or of a server that is
/// down — and `rediss://` is refused as unsupported rather than failing later.
#[test]
fn i32_4_the_redis_password_is_redacted_in_every_message() {
    use flowmcp_runtime::cache::{Found, PreloadCache, RedisCache};
    let pw = "pa55-w0rd-canary";
    let tls = RedisCache::open(&format!("rediss://:{pw}@127.0.0.1:6380/0")).expect_err("TLS");
    let text = tls.to_string();
    assert!(
        text.contains("not supported") && text.contains("rediss://127.0.0.1:6380/0"),
        "{text}"
    );
    assert!(!text.contains(pw), "{text}");
    let other = RedisCache::open(&format!("http://:{pw}@127.0.0.1/")).expect_err("not Redis");
    assert!(!other.to_string().contains(pw), "{other}");
    // A closed port: the lookup is a miss with one warning, the store is skipped silently.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let cache: PreloadCache = RedisCache::open(&format!("redis://:{pw}@127.0.0.1:{closed}/0"))
        .expect("a redis:// URL")
        .into();
    for shown in [format!("{cache:?}"), cache.to_string()] {
        assert!(
            !shown.contains(pw) && shown.contains("redis://127.0.0.1:"),
            "{shown}"
        );
    }
    let k = CacheKey::new("weather", "forecast", ROOT, Map::new());
    let Found {
        lookup, warning, ..
    } = cache.lookup(&k, 60, SystemTime::now(), far());
    assert_eq!(lookup, Lookup::Miss);
    let warning = warning.expect("a warning for the outage");
    assert!(
        !warning.contains(pw) && warning.contains("redis://127.0.0.1:"),
        "{warning}"
    );
    assert_eq!(
        cache.store(&k, 60, &json!(1), SystemTime::now(), far()),
        flowmcp_runtime::cache::Stored::Unavailable(None),
        "the outage was already warned about"
    );
    // A server that refuses the password.
    let Some(redis) = crate::support::RedisServer::start_with(Some("the-real-one")) else {
        return;
    };
    let wrong = RedisCache::open(&format!("redis://:{pw}@127.0.0.1:{}/0", redis.port))
        .expect("a redis:// URL")
        .with_timeout(Duration::from_secs(10));
    let Found {
        lookup, warning, ..
    } = PreloadCache::from(wrong).lookup(&k, 60, SystemTime::now(), far());
    assert_eq!(lookup, Lookup::Miss);
    let warning = warning.expect("a warning for the refused password");
    assert!(!warning.contains(pw), "{warning}");
}

/// Issue #32, item 4: a Redis that accepts connections but never answers does not stall a call
/// beyond the time limit: the lookup is a miss with a warning, and the next one is not even tried.
#[test]
fn i32_4_a_hung_redis_is_a_miss_within_the_time_limit() {
    use flowmcp_runtime::cache::{Found, PreloadCache, RedisCache};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    // Accepts and holds connections, never replies.
    let held = std::thread::spawn(move || {
        let mut conns = Vec::new();
        listener.set_nonblocking(true).expect("nonblocking");
        let until = std::time::Instant::now() + Duration::from_secs(30);
        while std::time::Instant::now() < until && conns.len() < 4 {
            match listener.accept() {
                Ok((c, _)) => conns.push(c),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        std::thread::sleep(Duration::from_secs(3));
        conns.len()
    });
    let cache: PreloadCache = RedisCache::open(&format!("redis://127.0.0.1:{port}/0"))
        .expect("a redis:// URL")
        .with_timeout(Duration::from_millis(300))
        .into();
    let k = CacheKey::new("weather", "forecast", ROOT, Map::new());
    let started = std::time::Instant::now();
    let Found {
        lookup, warning, ..
    } = cache.lookup(&k, 60, SystemTime::now(), far());
    // Bounded by the limit (generously: a loaded machine), not by the hung server.
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(lookup, Lookup::Miss);
    assert!(warning.is_some_and(|w| w.contains("unavailable")));
    // Paused after the failure: the next lookup does not wait again, and warns no more.
    let again = cache.lookup(&k, 60, SystemTime::now(), far());
    assert_eq!((again.lookup, again.warning), (Lookup::Miss, None));
    let _ = held.join();
}

/// Issue #39, finding 3: a cache URL is shown only as `scheme://host[:port]/db`: no refusal
/// (`rediss://`, `redis+unix://…?pass=`, `unix://`, another scheme, a URL that does not parse)
/// and no accepted URL's `Debug` or display shows a password, user or query.
#[test]
fn i39_3_refused_cache_urls_never_show_their_password() {
    use flowmcp_runtime::cache::{PreloadCache, RedisCache};
    let pw = "pw-canary-39";
    let refused = [
        format!("rediss://:{pw}@127.0.0.1:6380/0"),
        format!("redis+unix:///tmp/x.sock?pass={pw}"),
        format!("redis+unix:///tmp/x.sock?db=0&password={pw}"),
        format!("unix:///tmp/x.sock?pass={pw}"),
        format!("http://user:{pw}@127.0.0.1/"),
        format!("redis://user:{pw}@127.0.0.1:notaport/0"),
        format!("user:{pw}@127.0.0.1:6379"),
        format!("redis://:{pw}@127.0.0.1:6379/0?password={pw}"),
        format!("redis://:{pw}@127.0.0.1:6379/x{pw}"),
    ];
    for url in &refused {
        match RedisCache::open(url) {
            Err(e) => {
                let text = e.to_string();
                let debug = format!("{e:?}");
                assert!(!text.contains(pw), "{url} → {text}");
                assert!(!debug.contains(pw), "{url} → {debug}");
            }
            Ok(cache) => {
                let cache = PreloadCache::from(cache);
                for shown in [format!("{cache:?}"), cache.to_string()] {
                    assert!(!shown.contains(pw), "{url} → {shown}");
                }
            }
        }
    }
    let cache = PreloadCache::from(
        RedisCache::open(&format!("redis://admin:{pw}@127.0.0.1:6379/2")).expect("redis://"),
    );
    assert_eq!(cache.to_string(), "redis://127.0.0.1:6379/2");
    assert!(!format!("{cache:?}").contains(pw));
}

/// Issue 39, scope 1: the cache's entries are read through a handle on its folder, so an entry
/// file that is a symbolic link out of it (to an entry another cache wrote, here) is never read
/// or listed, and `clear` leaves what it points at alone.
#[test]
fn i39_7_an_entry_linked_out_of_the_cache_is_never_read() {
    let tmp = TempDir::new("linked-entry");
    let cache = tmp.cache();
    let elsewhere = Cache::new(tmp.0.join("elsewhere"));
    let key = CacheKey::new("ns", "tool", ROOT, Map::new());
    let target = elsewhere
        .store(&key, 604_800, &json!({ "secret": 1 }), at(T0))
        .expect("store elsewhere");
    assert!(matches!(
        elsewhere.lookup(&key, ANY_TTL, at(T0 + 1)),
        Lookup::Hit { .. }
    ));
    let place = cache.path_for(&key);
    fs::create_dir_all(place.parent().expect("parent")).expect("ns dir");
    std::os::unix::fs::symlink(&target, &place).expect("link");
    assert_eq!(cache.lookup(&key, ANY_TTL, at(T0 + 1)), Lookup::Miss);
    assert!(cache.status(None).expect("status").is_empty());
    cache.clear(None).expect("clear");
    assert!(target.is_file(), "the linked-to entry is left alone");
}
