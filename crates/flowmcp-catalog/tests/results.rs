//! The validation result cache (issue #30, scope 1): a report read from the cache is the report a
//! fresh validation gives, and every input it depends on — the file's bytes, its shared lists, the
//! options, the files its checks look at — makes a changed input validate afresh.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use flowmcp_catalog::ListDiscovery;
use flowmcp_catalog::results::ResultCache;
use flowmcp_catalog::{FileReport, Profile, ValidationOptions as Options};

/// A copy of the example catalog and an empty cache directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("flowmcp-results-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&crate::common::examples(), &dir.join("cat"));
        std::fs::create_dir_all(dir.join("cache")).unwrap();
        Scratch(dir)
    }
    fn file(&self, rel: &str) -> PathBuf {
        self.0.join("cat").join(rel)
    }
    fn edit(&self, rel: &str, from: &str, to: &str) {
        let path = self.file(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{rel} has no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
    fn cache(&self) -> Arc<ResultCache> {
        Arc::new(ResultCache::new(self.0.join("cache")))
    }
    /// Catalog options of the spec profile without a result cache and with one (in this
    /// scratch's cache directory), and that cache.
    fn catalog_options(
        &self,
    ) -> (
        flowmcp_catalog::CatalogOptions,
        flowmcp_catalog::CatalogOptions,
        Arc<ResultCache>,
    ) {
        let plain = crate::common::local_options(Profile::Spec, &[]);
        let mut cached = plain.clone();
        let cache = self.cache();
        cached.results = Some(Arc::clone(&cache));
        (plain, cached, cache)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Validates `rel` through a fresh discovery with `cache` (`None`: no cache).
fn validate(
    s: &Scratch,
    rel: &str,
    opts: &Options,
    cache: Option<&Arc<ResultCache>>,
) -> FileReport {
    let discovery = match cache {
        Some(c) => ListDiscovery::with_results(Arc::clone(c)),
        None => ListDiscovery::new(),
    };
    discovery.validate_file(&s.file(rel), rel, opts)
}

fn codes(r: &FileReport) -> Vec<&str> {
    r.diagnostics().iter().map(|d| d.code.as_str()).collect()
}

const HOLIDAYS: &str = "providers/holidaykit-net/public-holidays.mjs";
const COUNTRIES: &str = "providers/atlasdata-org/countries.mjs";

#[test]
fn i30_1_a_cached_report_is_the_fresh_one_and_every_input_counts() {
    let s = Scratch::new("inputs");
    let opts = Options::new(Profile::Spec);
    let cache = s.cache();

    // First run fills, second run reads; both equal a validation without the cache.
    let fresh = validate(&s, HOLIDAYS, &opts, None);
    assert_eq!(validate(&s, HOLIDAYS, &opts, Some(&cache)), fresh);
    assert_eq!(cache.stats().stored, 1);
    let again = validate(&s, HOLIDAYS, &opts, Some(&cache));
    assert_eq!(again, fresh);
    assert_eq!(cache.stats().hits, 1, "the second run reads the entry");
    assert_eq!(
        serde_json::to_string(&again).unwrap(),
        serde_json::to_string(&fresh).unwrap(),
        "the JSON is byte for byte the same"
    );

    // One byte of the file: a 3.x version.
    s.edit(HOLIDAYS, "version: '4.2.0'", "version: '3.2.0'");
    let changed = validate(&s, HOLIDAYS, &opts, Some(&cache));
    assert_eq!(changed, validate(&s, HOLIDAYS, &opts, None));
    assert!(codes(&changed).contains(&"VAL014"), "{:?}", codes(&changed));
    s.edit(HOLIDAYS, "version: '3.2.0'", "version: '4.2.0'");
    assert_eq!(validate(&s, HOLIDAYS, &opts, Some(&cache)), fresh);

    // One byte of a shared list the schema uses: the list is renamed away.
    s.edit(
        "_lists/countries.mjs",
        "name: 'countries'",
        "name: 'countriez'",
    );
    let listless = validate(&s, HOLIDAYS, &opts, Some(&cache));
    assert_eq!(listless, validate(&s, HOLIDAYS, &opts, None));
    assert_ne!(listless, fresh, "the missing list is reported");
    s.edit(
        "_lists/countries.mjs",
        "name: 'countriez'",
        "name: 'countries'",
    );
    assert_eq!(validate(&s, HOLIDAYS, &opts, Some(&cache)), fresh);

    // A rule override: the version rule made an info.
    s.edit(HOLIDAYS, "version: '4.2.0'", "version: '3.2.0'");
    let mut relaxed = opts.clone();
    relaxed
        .settings
        .overrides
        .set(flowmcp_catalog::Code::VAL014, flowmcp_spec::Level::Info);
    let warm = validate(&s, HOLIDAYS, &opts, Some(&cache));
    let overridden = validate(&s, HOLIDAYS, &relaxed, Some(&cache));
    assert_eq!(overridden, validate(&s, HOLIDAYS, &relaxed, None));
    assert_ne!(overridden, warm, "the override changes the severity");
}

#[test]
fn i30_1_a_file_a_check_looked_at_counts_too() {
    let s = Scratch::new("checks");
    let opts = Options::new(Profile::Spec);
    let cache = s.cache();
    let present = validate(&s, COUNTRIES, &opts, Some(&cache));
    assert!(
        !codes(&present).contains(&"RES020"),
        "{:?}",
        codes(&present)
    );
    // The inline database (built on first use, so a fresh checkout may not have it) and the SQL
    // it is built from go away: RES020, though the schema's bytes did not change.
    for f in ["atlasdata-org-countries.db", "atlasdata-org-countries.sql"] {
        match std::fs::remove_file(s.file("providers/atlasdata-org/resources").join(f)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => panic!("{f}: {e}"),
            _ => {}
        }
    }
    let missing = validate(&s, COUNTRIES, &opts, Some(&cache));
    assert_eq!(missing, validate(&s, COUNTRIES, &opts, None));
    assert!(codes(&missing).contains(&"RES020"), "{:?}", codes(&missing));
}

#[test]
fn i30_1_corrupt_and_foreign_entries_are_ignored_and_clear_removes_only_entries() {
    let s = Scratch::new("corrupt");
    let opts = Options::new(Profile::Spec);
    let cache = s.cache();
    let fresh = validate(&s, HOLIDAYS, &opts, Some(&cache));
    let entries: Vec<PathBuf> = walk(cache.dir());
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];

    // A corrupt entry: validation runs again and gives the same report.
    std::fs::write(entry, b"{ not json").unwrap();
    assert_eq!(validate(&s, HOLIDAYS, &opts, Some(&cache)), fresh);
    // A foreign entry at the key's place (another key inside, another report): ignored.
    let text = std::fs::read_to_string(entry).unwrap();
    let other = "0".repeat(64);
    let key = entry.file_stem().unwrap().to_str().unwrap().to_string();
    let foreign = text.replace(&key, &other).replace(
        "\"diagnostics\":[",
        "\"diagnostics\":[{\"code\":\"VAL014\",\"severity\":\"error\",\"message\":\"planted\"},",
    );
    std::fs::write(entry, foreign).unwrap();
    let read = validate(&s, HOLIDAYS, &opts, Some(&cache));
    assert_eq!(read, fresh);
    assert!(!read.diagnostics().iter().any(|d| d.message == "planted"));
    // The same entry under its own key is believed: the key is the whole defence, so the test
    // shows the planted finding is what such an entry would give.
    let planted = text.replace(
        "\"diagnostics\":[",
        "\"diagnostics\":[{\"code\":\"VAL014\",\"severity\":\"error\",\"message\":\"planted\"},",
    );
    std::fs::write(entry, planted).unwrap();
    let believed = validate(&s, HOLIDAYS, &opts, Some(&cache));
    assert!(
        believed
            .diagnostics()
            .iter()
            .any(|d| d.message == "planted")
    );

    // `clear` removes the entries and nothing else: not another file, not even one named like an
    // entry.
    let stranger = cache.dir().join("notes.txt");
    std::fs::write(&stranger, "mine").unwrap();
    let lookalike = cache
        .dir()
        .join("ab")
        .join(format!("ab{}.json", "c".repeat(62)));
    std::fs::create_dir_all(lookalike.parent().unwrap()).unwrap();
    std::fs::write(&lookalike, "{\"mine\": true}").unwrap();
    assert_eq!(cache.clear().unwrap(), 1);
    assert_eq!(walk(cache.dir()), vec![lookalike.clone()]);
    assert!(stranger.is_file());
}

#[test]
fn i30_1_trim_keeps_the_cache_within_its_bound() {
    let s = Scratch::new("trim");
    let opts = Options::new(Profile::Spec);
    let cache = Arc::new(ResultCache::new(s.0.join("cache")).with_max_bytes(1));
    validate(&s, HOLIDAYS, &opts, Some(&cache));
    validate(&s, COUNTRIES, &opts, Some(&cache));
    assert_eq!(walk(cache.dir()).len(), 2);
    cache.trim().unwrap();
    assert!(walk(cache.dir()).is_empty());
}

/// The entry files under `dir` (`<2 hex>/<64 hex>.json`).
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if sub.file_type().unwrap().is_dir() {
            for f in std::fs::read_dir(sub.path()).unwrap().flatten() {
                out.push(f.path());
            }
        }
    }
    out
}

/// Issue #30, scope 1: a catalog opened with the result cache (`CatalogOptions::results`) reads
/// unchanged files from it and is the same catalog: the same reports, the same tools, and calls
/// that run the schema's handlers from the file's text.
#[test]
fn i30_1_a_catalog_opened_from_the_cache_is_the_same_catalog() {
    let s = Scratch::new("catalog");
    // Without its manifest the copy is a directory of files, each read on its own.
    std::fs::remove_file(s.file("registry.json")).unwrap();
    let dir = s.0.join("cat");
    let (plain, cached, cache) = s.catalog_options();
    let fresh = flowmcp_catalog::Catalog::open(&dir, &plain).unwrap();
    let filled = flowmcp_catalog::Catalog::open(&dir, &cached).unwrap();
    let stored = cache.stats().stored;
    assert!(stored > 5, "{:?}", cache.stats());
    let warm = flowmcp_catalog::Catalog::open(&dir, &cached).unwrap();
    assert_eq!(cache.stats().hits, stored, "{:?}", cache.stats());
    for c in [&filled, &warm] {
        assert_eq!(c.reports(), fresh.reports());
        let tools = |c: &flowmcp_catalog::Catalog| {
            c.list()
                .iter()
                .map(|e| e.descriptor.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(tools(c), tools(&fresh));
    }
    // A tool whose schema has handlers runs them from the cached catalog too, with the same
    // result as from the fresh one.
    let body = r#"{"location":{"name":"Oslo"},"daily":[{"date":"2026-05-01","temperature":{"min":3,"max":9},"summary":"Rain"}]}"#;
    let (url, served) = crate::common::json_upstream(2, body);
    let mut with_key = crate::common::local_options(Profile::Spec, &[("skycast-io", url.as_str())]);
    with_key.env_override = Some([("SKYCAST_API_KEY".to_string(), "k".to_string())].into());
    let mut with_key_cached = with_key.clone();
    with_key_cached.results = Some(Arc::clone(&cache));
    let args = serde_json::json!({"latitude": 59.9, "longitude": 10.7});
    let name = "skycast-io/tool/getDailyForecast";
    let mut data = Vec::new();
    for o in [&with_key, &with_key_cached] {
        let c = flowmcp_catalog::Catalog::open(&dir, o).unwrap();
        let e = c.call(name, args.as_object().unwrap());
        assert!(e.status(), "{e:?}");
        data.push(e.into_data());
    }
    assert_eq!(data[0], data[1]);
    assert_eq!(data[0]["days"][0]["condition"], "Rain", "{}", data[0]);
    assert_eq!(served.join().unwrap().len(), 2);
}

/// Issue 46: a report read from the cache keeps its fixes. Both kinds: VAL087's own (a stale
/// `schemaHash`, found by the rule) and the migration's rewrites that `validate --format json`
/// shows ([`ListDiscovery::validate_file_fixed_under`]). Before, the cache dropped the first, and
/// the second were found again on every run by validating each file's text once per offer.
#[test]
fn i46_fixes_are_kept_in_the_cache() {
    let s = Scratch::new("fixes");
    let files = fixable_fixtures(&s.0.join("fx"), "");
    let cache = s.cache();
    let (mut fixed, mut own) = (0, 0);
    for path in &files {
        let (opts, display) = fixture_options(path);
        let fresh = ListDiscovery::new().validate_file_fixed_under(None, path, &display, &opts);
        let plain_fresh = ListDiscovery::new().validate_file(path, &display, &opts);
        for round in ["cold", "warm"] {
            let d = ListDiscovery::with_results(Arc::clone(&cache));
            let r = d.validate_file_fixed_under(None, path, &display, &opts);
            assert_eq!(r, fresh, "{display} ({round}, with fixes)");
            let r = d.validate_file(path, &display, &opts);
            assert_eq!(r, plain_fresh, "{display} ({round}, report)");
        }
        fixed += fresh
            .diagnostics()
            .iter()
            .filter(|d| d.fix.is_some())
            .count();
        own += plain_fresh
            .diagnostics()
            .iter()
            .filter(|d| d.fix.is_some())
            .count();
    }
    assert!(own > 0, "no fixture has a fix of its own (VAL087)");
    assert!(fixed > own, "no fixture has a migration fix");
    assert!(cache.stats().hits >= 2 * files.len(), "{:?}", cache.stats());
}

/// Copies the failing fixtures of every code the fix table lists into `dir`, each text after
/// `prefix`, and returns their paths.
fn fixable_fixtures(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../flowmcp-validate/tests/fixtures");
    std::fs::create_dir_all(dir).unwrap();
    let mut files = Vec::new();
    for f in flowmcp_spec::registry::fixes::FIXES {
        let Ok(entries) = std::fs::read_dir(fixtures.join(f.code.as_str())) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name.starts_with("fail") && name.ends_with(".mjs") {
                let to = dir.join(format!("{}-{name}", f.code.as_str()));
                let text = std::fs::read_to_string(e.path()).unwrap();
                std::fs::write(&to, format!("{prefix}{text}")).unwrap();
                files.push(to);
            }
        }
    }
    files.sort();
    files.dedup();
    assert!(files.len() > 5, "fixtures of fixable codes: {files:?}");
    files
}

/// The options a fixture is validated with (its `// profile: compat` line, else `spec`) and its
/// file name.
fn fixture_options(path: &Path) -> (Options, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let profile = if text.contains("// profile: compat") {
        Profile::Compat
    } else {
        Profile::Spec
    };
    let display = path.file_name().unwrap().to_string_lossy().to_string();
    (Options::new(profile), display)
}

/// Issue 46: a fix's edits are byte offsets in the file as it is on disk, with or without the
/// cache. The loader drops a byte-order mark, so a file that starts with one gets the edits of
/// the same file without it, each 3 bytes later (before, `--no-cache` gave the offsets of the
/// text without the mark, and the cache those of the file).
#[test]
fn i46_fixes_count_a_byte_order_mark_with_and_without_the_cache() {
    let s = Scratch::new("fixes-bom");
    let plain = fixable_fixtures(&s.0.join("plain"), "");
    let marked = fixable_fixtures(&s.0.join("bom"), "\u{feff}");
    let cache = s.cache();
    let (mut shifted, mut rule_fixes) = (0, 0);
    for (a, b) in plain.iter().zip(&marked) {
        let (opts, display) = fixture_options(a);
        // The migration's fixes and the rules' own (VAL087's is made from the loader's text,
        // which leaves the mark out: D151).
        let fixes = |r: &FileReport| -> Vec<Vec<(usize, usize, String)>> {
            r.diagnostics()
                .iter()
                .filter_map(|d| d.fix.as_ref())
                .map(|f| {
                    f.edits
                        .iter()
                        .map(|e| (e.start, e.end, e.text.clone()))
                        .collect()
                })
                .collect()
        };
        let want: Vec<Vec<_>> =
            fixes(&ListDiscovery::new().validate_file_fixed_under(None, a, &display, &opts))
                .into_iter()
                .map(|f| f.into_iter().map(|(s, e, t)| (s + 3, e + 3, t)).collect())
                .collect();
        let fresh = ListDiscovery::new().validate_file_fixed_under(None, b, &display, &opts);
        assert_eq!(fixes(&fresh), want, "{display} with a mark, no cache");
        let cached = ListDiscovery::with_results(Arc::clone(&cache))
            .validate_file_fixed_under(None, b, &display, &opts);
        assert_eq!(cached, fresh, "{display} with a mark, through the cache");
        shifted += want.len();
        if display.starts_with("VAL087") && !want.is_empty() {
            rule_fixes += 1;
        }
    }
    assert!(shifted > 0, "no fixture has a fix");
    assert!(rule_fixes > 0, "no VAL087 fixture has its rule's fix");
}

/// Issue 46: a catalog opened warm types each clean schema straight from the JSON text its entry
/// stored for `main`, and gives every other file its `main` back as a value. Either way it is
/// the catalog a fresh open gives: the same reports, tools, prompts and library, for clean
/// schemas, a schema with errors (its tools listed as rejected) and a schema whose `main` nests
/// deeper than a stored entry can be read back (never restored: validated again each time).
#[test]
fn i46_a_catalog_typed_from_the_stored_text_is_the_same_catalog() {
    let s = Scratch::new("typed");
    std::fs::remove_file(s.file("registry.json")).unwrap();
    let dir = s.0.join("cat");
    let holidays = "providers/holidaykit-net/public-holidays.mjs";
    let text = std::fs::read_to_string(s.file(holidays)).unwrap();
    // A copy with an error: its namespace is not one.
    let broken = text.replacen("namespace: 'holidaykit-net'", "namespace: 'Broken_NS'", 1);
    assert_ne!(broken, text, "the fixture's namespace changed");
    std::fs::create_dir_all(s.file("providers/broken")).unwrap();
    std::fs::write(s.file("providers/broken/broken.mjs"), broken).unwrap();
    // A copy whose `main` nests 150 levels deep in one member.
    let deep = format!("{}{}", "[".repeat(150), "]".repeat(150));
    let deeper = text
        .replacen("namespace: 'holidaykit-net'", "namespace: 'deepkit-net'", 1)
        .replacen("tags: [", &format!("nested: {deep},\n    tags: ["), 1);
    assert!(deeper.contains("nested: [[["), "the fixture has tags");
    std::fs::create_dir_all(s.file("providers/deepkit-net")).unwrap();
    std::fs::write(s.file("providers/deepkit-net/deep.mjs"), deeper).unwrap();

    let (plain, cached, cache) = s.catalog_options();
    let fresh = flowmcp_catalog::Catalog::open(&dir, &plain).unwrap();
    let filled = flowmcp_catalog::Catalog::open(&dir, &cached).unwrap();
    let stored = cache.stats().stored;
    let misses = cache.stats().misses;
    let warm = flowmcp_catalog::Catalog::open(&dir, &cached).unwrap();
    // Every entry but the deep schema's was read back; that one was validated and stored again.
    let stats = cache.stats();
    assert_eq!(
        (stats.hits, stats.misses, stats.stored),
        (stored - 1, misses + 1, stored + 1),
        "{stats:?}"
    );
    let shown = |c: &flowmcp_catalog::Catalog| {
        let tools: Vec<_> = c.list().iter().map(|e| e.descriptor.clone()).collect();
        (
            tools,
            c.prompts(),
            format!("{:?}", c.library().entries()),
            format!("{:?}", c.library().selections()),
            ["Broken_NS", "deepkit-net", "holidaykit-net"].map(|ns| {
                ["getPublicHolidays", "listCountries"]
                    .map(|t| c.library().has_tool(&format!("{ns}/tool/{t}")))
            }),
            format!("{:?}", c.toolset().problems()),
        )
    };
    for c in [&filled, &warm] {
        assert_eq!(c.reports(), fresh.reports());
        assert_eq!(shown(c), shown(&fresh));
    }
    let report = |c: &flowmcp_catalog::Catalog, file: &str| {
        c.reports()
            .iter()
            .find(|r| r.file().ends_with(file))
            .map(|r| r.counts().errors)
    };
    // Both copies are rejected for their own errors, warm as cold (the problems compared above).
    assert!(report(&warm, "broken.mjs").is_some_and(|e| e > 0));
    assert!(report(&warm, "deep.mjs").is_some_and(|e| e > 0));
    assert!(
        warm.reports().iter().any(|r| r.file().ends_with("deep.mjs")
            && r.diagnostics().iter().any(|d| d.code.as_str() == "VAL003")),
        "the deep schema's unknown member is reported"
    );
}
