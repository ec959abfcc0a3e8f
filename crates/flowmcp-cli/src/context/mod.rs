//! The one place where configuration becomes library options: the flags of [`args`], the
//! configuration files and the environment ([`config::Config`], decided once per command)
//! turn into `flowmcp_validate::Options`, `CatalogOptions`, the call settings, the caches'
//! locations, the model endpoint, and the opened catalog. Commands ask here and never build
//! those options themselves.

pub(crate) mod args;
pub(crate) mod config;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use flowmcp_catalog::runtime::TransportConfig;
use flowmcp_catalog::runtime::{BindingKey, Cache, PreloadCache, RedisCache, UpstreamLimits};
use flowmcp_catalog::{Catalog, CatalogOptions};
use flowmcp_catalog::{runtime::CacheMode, runtime::ResourceOptions, runtime::RunnerOptions};
use flowmcp_spec::catalog::REGISTRY_FILE;
use flowmcp_spec::{Level, Overrides, Profile, RuleSettings, registry::RULES};
use flowmcp_validate::Limits;

pub(crate) use args::{
    BudgetArgs, ModelArgs, ProfileArg, ResourcePlaces, ResultCacheArg, RunArgs, SharedCacheArg,
    SourceArgs, ToolNamesArg,
};
pub(crate) use config::Config;

use crate::output::{say, shown};

impl RunArgs {
    /// The transport and runner settings these arguments and the configuration give.
    pub(crate) fn settings(
        &self,
        cfg: &Config,
    ) -> Result<(TransportConfig, RunnerOptions), String> {
        let mut upstreams: BTreeMap<String, String> = cfg.upstreams.clone();
        for u in &self.upstreams {
            let (ns, url) = u
                .split_once('=')
                .filter(|(ns, url)| !ns.is_empty() && !url.is_empty())
                .ok_or_else(|| format!("--upstream {u:?}: expected NAMESPACE=URL"))?;
            upstreams.insert(ns.to_string(), url.to_string());
        }
        let timeout = Duration::from_millis(self.timeout_ms);
        let mut transport = TransportConfig::default();
        transport.total_timeout = timeout;
        let runner = {
            let mut built = RunnerOptions::default();
            // Each upstream is checked, and loopback HTTP allowed for it, by the runtime's one
            // rule (the one `CatalogOptions::add_upstream` applies).
            for (ns, url) in &upstreams {
                if built
                    .add_upstream(ns, url)
                    .map_err(|e| format!("upstream {ns}={url}: {e}"))?
                {
                    transport.allow_http_loopback = true;
                }
            }
            built.cache = cache_of(self.cache_dir.clone(), &self.shared, cfg, true)?;
            built.cache_mode = if self.no_cache {
                CacheMode::Off
            } else if self.refresh {
                CacheMode::Refresh
            } else {
                CacheMode::Use
            };
            built.call_timeout = Duration::from_millis(self.handler_timeout_ms);
            built.timeout = timeout;
            built.resources = {
                let mut built = self.places.options(cfg)?;
                built.query_timeout = Duration::from_millis(self.query_timeout_ms);
                built
            };
            built.libraries = config::open_library_dir(self.libs.as_deref(), cfg)?;
            if let Some(n) = self.upstream_attempts.or(cfg.upstream_attempts) {
                built.max_attempts = n;
            }
            built.limits = self.limits(cfg)?;
            built
        };
        Ok((transport, runner))
    }

    /// Each namespace's upstream limits: the configuration's `limits`, each flag over them.
    fn limits(&self, cfg: &Config) -> Result<UpstreamLimits, String> {
        let mut limits = UpstreamLimits::default();
        let pair = |flag: &str, text: &str| -> Result<(String, String), String> {
            text.split_once('=')
                .filter(|(ns, v)| !ns.is_empty() && !v.is_empty())
                .map(|(ns, v)| (ns.to_string(), v.to_string()))
                .ok_or_else(|| format!("--{flag} {text:?}: expected NAMESPACE=VALUE"))
        };
        for (ns, entry) in &cfg.limits {
            if let Some(rate) = &entry.rate {
                limits
                    .set_rate(ns, rate)
                    .map_err(|e| format!("limits.{ns} of the configuration: {e}"))?;
            }
            // The configuration's reader took only caps of at least 1.
            if let Some(cap) = entry.concurrency.and_then(std::num::NonZeroU32::new) {
                limits.set_concurrency(ns, cap);
            }
        }
        for text in &self.rate_limits {
            let (ns, rate) = pair("rate-limit", text)?;
            limits
                .set_rate(&ns, &rate)
                .map_err(|e| format!("--rate-limit {text:?}: {e}"))?;
        }
        for text in &self.concurrency_limits {
            let (ns, cap) = pair("concurrency-limit", text)?;
            let cap: std::num::NonZeroU32 = cap.parse().map_err(|_| {
                format!("--concurrency-limit {text:?}: not a whole number of at least 1")
            })?;
            limits.set_concurrency(&ns, cap);
        }
        Ok(limits)
    }
}

impl ResourcePlaces {
    /// The base folder name, the project base (the project's `.<base>/`, see
    /// [`config::Project`]) and the home directory (from `HOME`).
    pub(crate) fn options(&self, cfg: &Config) -> Result<ResourceOptions, String> {
        let mut built = ResourceOptions::default();
        if let Some(base) = self.resources_base.as_ref().or(cfg.resources_base.as_ref()) {
            built
                .set_base(base)
                .map_err(|e| format!("resources base: {e}"))?;
        }
        built.project_base = Some(cfg.project.folder(&built.base));
        built.home = cfg.home.clone();
        Ok(built)
    }
}

impl ResultCacheArg {
    /// Options for a catalog that is only looked at: no calls, so only the result cache counts.
    pub(crate) fn runner(&self) -> RunnerOptions {
        let mut built = RunnerOptions::default();
        if self.no_cache {
            built.cache_mode = CacheMode::Off;
        }
        built
    }
}

impl ModelArgs {
    pub(crate) fn endpoint(&self, cfg: &Config) -> flowmcp_agent::Endpoint {
        let mut e = endpoint(self.llm_base_url.as_deref(), cfg);
        e.timeout = std::time::Duration::from_secs(self.llm_timeout_secs.max(1));
        e
    }
}

/// The model endpoint: the base URL from `flag`, else the configuration's (`FLOWMCP_LLM_BASE_URL`,
/// else `llm.baseUrl`), else OpenRouter's; the key as the configuration decided it
/// (`OPENROUTER_API_KEY`, else the user's `llm.apiKey`, else the project's).
pub(crate) fn endpoint(flag: Option<&str>, cfg: &Config) -> flowmcp_agent::Endpoint {
    let mut e = flowmcp_agent::Endpoint::from_env();
    e.base_url = flag
        .map(str::to_string)
        .or_else(|| cfg.llm_base_url.clone())
        .unwrap_or_else(|| flowmcp_agent::DEFAULT_BASE_URL.to_string());
    e.api_key = cfg.llm_api_key.clone();
    e
}

/// Where a command's project is found from ([`config::Project`]): the catalog it opens
/// (as the user named it, or the user configuration's `catalog`) and the current directory, or,
/// for a command that opens no catalog, the current directory alone; with the user's
/// `--trust-project-config`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Anchor<'a> {
    /// The catalog named on the command line.
    catalog: Option<&'a Path>,
    /// Whether the user configuration's `catalog` counts when there is none.
    user_catalog: bool,
    /// `--trust-project-config`.
    trust: bool,
}

/// A command that opens no catalog: the current directory, and the consent flag.
impl From<bool> for Anchor<'_> {
    fn from(trust: bool) -> Self {
        Anchor {
            trust,
            ..Anchor::default()
        }
    }
}

impl SourceArgs {
    /// The anchor of a command that opens the catalog of these arguments, or `paths` when given
    /// (as [`open`] does).
    pub(crate) fn anchor<'a>(&'a self, paths: &'a [PathBuf]) -> Anchor<'a> {
        Anchor {
            catalog: paths
                .first()
                .or(self.catalog.as_ref())
                .map(PathBuf::as_path),
            user_catalog: true,
            trust: self.trust_project_config,
        }
    }
}

/// The decided configuration ([`Config::discover`]), with the project found from `anchor`
/// (`config(trust)` for a command that opens no catalog; `config(source.anchor(paths))` for
/// one that does). Keys a project may not set without consent are reported on standard error.
pub(crate) fn config<'a>(anchor: impl Into<Anchor<'a>>) -> Result<Config, String> {
    let a = anchor.into();
    let cfg = Config::discover(
        &cwd()?,
        a.catalog,
        a.user_catalog,
        a.trust,
        config::Env::from_process(),
    )?;
    if let Some(note) = cfg.ignored_note() {
        say(tracing::Level::WARN, &note);
    }
    if let Some(note) = cfg.project.refused_note() {
        eprintln!("{note}");
    }
    Ok(cfg)
}

/// The validation options of a command under `profile`: the configuration's rule overrides
/// (a note on standard error names project rules that were not applied) and allowed libraries.
pub(crate) fn validation_options(cfg: &Config, profile: Profile) -> flowmcp_validate::Options {
    let (overrides, note) = cfg.overrides(profile, &[]);
    if let Some(note) = note {
        say(tracing::Level::WARN, &note);
    }
    let mut settings = RuleSettings::new(profile);
    settings.overrides = overrides;
    let mut validation = on_this_machine(cfg, flowmcp_validate::Options::with_settings(settings));
    validation.allowed_libraries = cfg.allowed_libraries.clone();
    validation
}

/// Gives validation what it needs of this machine, as `cfg` decided it: the home directory and
/// `FLOWMCP_RESOURCES` (for `${FLOWMCP_RESOURCES}` in `sqlite-gtfs` paths) and the file checks of
/// `flowmcp-resources` (databases beside a schema, `sqlite-gtfs` seals), as the catalog re-exports them.
fn on_this_machine(
    cfg: &Config,
    validation: flowmcp_validate::Options,
) -> flowmcp_validate::Options {
    validation.on_machine(
        cfg.home.clone(),
        cfg.resources_variable.clone(),
        flowmcp_catalog::local_file_checks(),
    )
}

/// Opens the catalog for a command that only reads it: the configuration found from `source`
/// and `paths`, the profile of `--profile` or the configuration, the default transport, no
/// reloading. Commands that call upstreams or reload build their options and call [`open`].
pub(crate) fn open_to_read(
    source: &SourceArgs,
    paths: &[PathBuf],
    runner: RunnerOptions,
) -> Result<Catalog, String> {
    let cfg = config(source.anchor(paths))?;
    let profile = profile_of(source.profile, &cfg);
    open(
        source,
        paths,
        false,
        &cfg,
        profile,
        TransportConfig::default(),
        runner,
    )
}

/// Opens the catalog, with `transport` and `runner` for calls: `paths` when given (one directory
/// or file, or several schema files), else `--catalog`, the configuration's `catalog`, or the
/// current directory when it looks like a catalog ([`looks_like_catalog`]; otherwise a usage
/// error saying what to do). Server parameters come from `cfg` (the project's `.env` is the one
/// beside the project `cfg` was decided for).
pub(crate) fn open(
    source: &SourceArgs,
    paths: &[PathBuf],
    reloadable: bool,
    cfg: &Config,
    profile: Profile,
    transport: TransportConfig,
    runner: RunnerOptions,
) -> Result<Catalog, String> {
    let mut notes = Vec::new();
    let path = match paths {
        [] => Some(default_catalog(source, cfg)?),
        _ => None,
    };
    let params = cfg.server_params(source.env_file.as_deref(), &mut notes)?;
    for note in notes {
        say(tracing::Level::WARN, &note);
    }
    let mut validation = validation_options(cfg, profile);
    // The run commands show which files are not callable and their codes, not where each finding
    // is: no need to locate them in the sources.
    validation.positions = false;
    let mut opts = CatalogOptions::default();
    opts.validation = validation;
    opts.env_file = params.user;
    opts.config_params = params.project;
    opts.env_override = Some(params.env);
    // `--no-cache` leaves both caches alone: the preload cache and the validation result cache.
    if runner.cache_mode != CacheMode::Off {
        opts.results = result_cache(cfg).map(std::sync::Arc::new);
    }
    opts.transport = transport;
    opts.runner = runner;
    opts.reloadable = reloadable;
    opts.tool_names = match source.tool_names {
        ToolNamesArg::Spec => flowmcp_catalog::runtime::ToolNames::Spec,
        ToolNamesArg::Reference => flowmcp_catalog::runtime::ToolNames::Reference,
    };
    let catalog = match (paths, path) {
        (_, Some(path)) => Catalog::open(&path, &opts),
        ([one], None) => Catalog::open(one, &opts),
        (files, None) => Catalog::open_files(files, &opts),
    }
    .map_err(|e| crate::advice::catalog_error(&e))?;
    // A value such as `…` or `YOUR_KEY` left in a configuration is not a key (issue #28, item 4).
    for name in catalog.toolset().server_params().placeholders() {
        say(
            tracing::Level::WARN,
            &format!(
                "flowmcp: {} holds a placeholder, not a key: the tools that need it are not served until it is set",
                shown(name)
            ),
        );
    }
    Ok(catalog)
}

/// The catalog when no path is given: `--catalog`, the configuration's `catalog`, else the
/// current directory when it looks like one; otherwise a one-line usage error (issue #28, 7h:
/// forgetting `--catalog` at a repository's root must not walk every file under it).
fn default_catalog(source: &SourceArgs, cfg: &Config) -> Result<PathBuf, String> {
    if let Some(path) = source.catalog.clone().or_else(|| cfg.catalog.clone()) {
        return Ok(path);
    }
    let cwd = cwd()?;
    if looks_like_catalog(&cwd, cfg.home.as_deref()) {
        return Ok(PathBuf::from("."));
    }
    Err(format!(
        "no catalog: none was given and the current directory ({}) is not one (no {REGISTRY_FILE}, \
         no .mjs file at most two directories down); give --catalog DIR or a path, or set \
         \"catalog\" in .flowmcp/config.json",
        cwd.display()
    ))
}

/// How many directory entries [`looks_like_catalog`] reads at most before it gives up.
const CATALOG_PROBE_ENTRIES: usize = 10_000;

/// Whether `dir` looks like a catalog: it has a `registry.json`, or a `.mjs` file at most two
/// directories down (`x.mjs`, `a/x.mjs`, `a/b/x.mjs`; `providers/<namespace>/<file>.mjs` is
/// where a catalog keeps its schemas). Hidden directories and `node_modules` are skipped, links
/// to directories are not followed, and after [`CATALOG_PROBE_ENTRIES`] entries without a
/// `.mjs` file the answer is no. The file system's root and the home directory (`home`) count
/// only with a `registry.json` (a client started in `/` or `~` must not walk them).
fn looks_like_catalog(dir: &Path, home: Option<&Path>) -> bool {
    if flowmcp_files::named::is_file(dir.join(REGISTRY_FILE)) {
        return true;
    }
    let same = |a: &Path, b: &Path| {
        flowmcp_files::named::canonical(a).ok() == flowmcp_files::named::canonical(b).ok()
    };
    if dir.parent().is_none() || home.is_some_and(|h| same(dir, h)) {
        return false;
    }
    let mut level = vec![dir.to_path_buf()];
    let mut budget = CATALOG_PROBE_ENTRIES;
    for depth in 0..3 {
        let mut next = Vec::new();
        for d in &level {
            let Ok(entries) = flowmcp_files::named::read_dir(d) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                if budget == 0 {
                    return false;
                }
                budget -= 1;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with('.') {
                    continue;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if name.ends_with(".mjs") && !kind.is_dir() {
                    return true;
                }
                if kind.is_dir() && depth < 2 && name != "node_modules" {
                    next.push(entry.path());
                }
            }
        }
        level = next;
    }
    false
}

/// The preload cache: Redis when `--cache` or `cache` of the configuration names it (not when
/// `--cache-dir` is given), else the directory `dir` (`--cache-dir`), else `cacheDir` of the
/// configuration, else `~/.flowmcp/cache`. A Redis cache that calls use (`keyed`) gets its key
/// from `FLOWMCP_CACHE_KEY`, else from the key file of the user's cache directory (which only
/// processes of this machine share); a file cache keeps its key in its own directory.
fn cache_of(
    dir: Option<PathBuf>,
    shared: &SharedCacheArg,
    cfg: &Config,
    keyed: bool,
) -> Result<Option<PreloadCache>, String> {
    let url = shared
        .cache
        .as_deref()
        .or_else(|| dir.is_none().then_some(cfg.cache.as_deref()).flatten());
    let Some(url) = url else {
        return Ok(cache_base(dir, cfg).map(|base| Cache::new(base).into()));
    };
    let cache = RedisCache::open(url).map_err(|e| format!("the preload cache: {e}"))?;
    if !keyed {
        return Ok(Some(cache.into()));
    }
    let key = match &cfg.cache_key {
        Some(text) => {
            BindingKey::from_text(text).map_err(|e| format!("{}: {e}", config::vars::CACHE_KEY))?
        }
        None => {
            let base = cache_base(None, cfg).ok_or_else(|| {
                format!(
                    "the preload cache {} needs a key: set {} (the same for every process \
                     sharing it)",
                    cache.shown_url(),
                    config::vars::CACHE_KEY
                )
            })?;
            Cache::new(base).key()?.clone()
        }
    };
    Ok(Some(cache.with_key(key).into()))
}

/// The user's flowmcp cache directory: `dir` if given, else the user configuration's `cacheDir`,
/// else `~/.flowmcp/cache` (the project's configuration cannot move it).
fn cache_base(dir: Option<PathBuf>, cfg: &Config) -> Option<PathBuf> {
    dir.or_else(|| cfg.cache_dir.clone())
        .or_else(|| cfg.home.as_ref().map(|h| h.join(".flowmcp").join("cache")))
}

/// The catalog options of `validate`: its validation options and nothing else (a catalog opened
/// to be validated calls nothing and reads no result cache).
pub(crate) fn validation_catalog(validation: &flowmcp_validate::Options) -> CatalogOptions {
    let mut opts = CatalogOptions::default();
    opts.validation = validation.clone();
    opts
}

/// `validate`'s result cache (when `cached` and there is a cache directory) and the discovery of
/// shared lists that reads and fills it.
pub(crate) fn validation_discovery(
    cfg: &Config,
    cached: bool,
) -> (
    Option<std::sync::Arc<flowmcp_catalog::results::ResultCache>>,
    flowmcp_catalog::ListDiscovery,
) {
    let results = if cached {
        result_cache(cfg).map(std::sync::Arc::new)
    } else {
        None
    };
    let discovery = match &results {
        Some(r) => flowmcp_catalog::ListDiscovery::with_results(std::sync::Arc::clone(r)),
        None => flowmcp_catalog::ListDiscovery::new(),
    };
    (results, discovery)
}

/// The validation result cache in the user's flowmcp cache directory, if there is one.
pub(crate) fn result_cache(cfg: &Config) -> Option<flowmcp_catalog::results::ResultCache> {
    result_cache_at(None, cfg)
}

/// The validation result cache in the cache directory `dir` (`--cache-dir`), else in the user's.
pub(crate) fn result_cache_at(
    dir: Option<PathBuf>,
    cfg: &Config,
) -> Option<flowmcp_catalog::results::ResultCache> {
    cache_base(dir, cfg).map(flowmcp_catalog::results::ResultCache::new)
}

/// The preload cache `flowmcp cache` shows and clears: the Redis database `url` (`--cache`),
/// else the directory `dir` (`--cache-dir`), else the configuration's (see [`cache_of`]); no key
/// is needed to look at it.
pub(crate) fn cache_to_inspect(
    dir: Option<PathBuf>,
    url: Option<String>,
    cfg: &Config,
) -> Result<Option<PreloadCache>, String> {
    cache_of(dir, &SharedCacheArg { cache: url }, cfg, false)
}

/// The current directory, for configuration look-up.
pub(crate) fn cwd() -> Result<PathBuf, String> {
    std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))
}

/// The profile: the command line's, else the configuration's, else `spec`.
pub(crate) fn profile_of(arg: Option<ProfileArg>, cfg: &Config) -> Profile {
    match arg {
        Some(ProfileArg::Spec) => Profile::Spec,
        Some(ProfileArg::Compat) => Profile::Compat,
        None => cfg.profile.unwrap_or_default(),
    }
}

/// The flags of `flowmcp validate` (also with `--id`) that decide how files are checked.
pub(crate) struct ValidationFlags<'a> {
    /// `--profile`.
    pub(crate) profile: Option<ProfileArg>,
    /// `--rule CODE=LEVEL`, as given.
    pub(crate) rules: &'a [String],
    /// `--security`: every rule off but the SEC and LDR codes.
    pub(crate) security: bool,
    /// `--max-file-size`, in bytes.
    pub(crate) max_file_size: u64,
    /// `--timeout-ms`.
    pub(crate) timeout_ms: u64,
    /// `--memory-mib`.
    pub(crate) memory_mib: u64,
}

/// `flowmcp validate`'s configuration (for a command that opens no catalog), profile and
/// validation options: the profile and rule levels of `flags` over the configuration's (a note on
/// standard error names project rules that were not applied), the limits of `flags`, the
/// configuration's allowed libraries, and this machine ([`on_this_machine`]).
pub(crate) fn validation(
    flags: &ValidationFlags<'_>,
) -> Result<(Config, Profile, flowmcp_validate::Options), String> {
    let cfg = config(false)?;

    let profile = profile_of(flags.profile, &cfg);
    let mut rules = flags
        .rules
        .iter()
        .map(|item| Overrides::parse_item(item).map_err(|e| format!("--rule {item}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if flags.security {
        // After the user's own overrides: `--security` wins over them.
        rules.extend(
            RULES
                .iter()
                .filter(|r| {
                    !matches!(
                        r.family,
                        flowmcp_spec::registry::Family::Sec | flowmcp_spec::registry::Family::Ldr
                    )
                })
                .map(|r| (r.code, Level::Off)),
        );
    }
    let (overrides, note) = cfg.overrides(profile, &rules);
    if let Some(note) = note {
        eprintln!("{note}");
    }
    if flags.timeout_ms == 0 || flags.memory_mib == 0 || flags.max_file_size == 0 {
        return Err("--timeout-ms, --memory-mib and --max-file-size must be greater than 0".into());
    }
    let mut settings = RuleSettings::new(profile);
    settings.overrides = overrides;
    let mut opts = on_this_machine(&cfg, flowmcp_validate::Options::with_settings(settings));
    opts.limits = Limits::default();
    opts.limits.max_file_bytes = flags.max_file_size;
    opts.limits.memory_bytes =
        usize::try_from(flags.memory_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    opts.limits.eval_timeout = Duration::from_millis(flags.timeout_ms);
    opts.allowed_libraries = cfg.allowed_libraries.clone();
    Ok((cfg, profile, opts))
}

/// The validation options under `profile` alone, on this machine: no rule levels and no allowed
/// libraries of the configuration (what `grade` records and `test --update-output` checks with).
pub(crate) fn plain_validation(cfg: &Config, profile: Profile) -> flowmcp_validate::Options {
    on_this_machine(cfg, flowmcp_validate::Options::new(profile))
}
