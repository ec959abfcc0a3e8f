//! `flowmcp call`, `flowmcp list`, `flowmcp search` and `flowmcp cache`: running the tools of a
//! catalog.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use flowmcp_catalog::env::{BindingKey, Cache, PreloadCache, RedisCache};
use flowmcp_catalog::runtime::TransportConfig;
use flowmcp_catalog::{Catalog, CatalogOptions};
use flowmcp_catalog::{
    runtime::CacheMode, runtime::Kind, runtime::ResourceOptions, runtime::RunnerOptions,
};
use flowmcp_spec::catalog::REGISTRY_FILE;
use flowmcp_spec::{Code, Profile};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::config::Config;
use crate::{ProfileArg, profile_of, shown, write_stdout};

/// Where the tools come from, shared by `call`, `list` and `search`.
#[derive(Args, Debug)]
pub(crate) struct SourceArgs {
    /// The catalog directory (its `registry.json`, or walked for .mjs schema files; `_lists/`
    /// holds shared lists) or one schema file. Default: `catalog` of the configuration, else the
    /// current directory when it looks like a catalog — a `registry.json`, or a .mjs file at most
    /// two directories down (`providers/<namespace>/<file>.mjs`); such a directory is read whole,
    /// however large. Otherwise the command stops and asks for --catalog (exit 2). The catalog
    /// also decides where the project is (its .flowmcp/config.json, .env and resource folder):
    /// the nearest directory with a .flowmcp/ above the catalog, else above the current
    /// directory, else the catalog's own directory.
    #[arg(long, value_name = "DIR|FILE")]
    catalog: Option<PathBuf>,
    /// `spec` or `compat` (see `flowmcp validate --help`). Default: spec, or the config.
    #[arg(long, value_enum)]
    pub(crate) profile: Option<ProfileArg>,
    /// Read server parameters from this file (`KEY=value` lines). Default: `envFile` of your
    /// ~/.flowmcp/config.json. The order: the process environment, this file, your
    /// configuration's `serverParams`; then, only for names still unset, the project's `.env`
    /// (beside its .flowmcp/; a regular file, not a link) and its configuration's `serverParams`.
    #[arg(long, value_name = "FILE")]
    env_file: Option<PathBuf>,
    /// Also take `upstreams`, `envFile`, `cacheDir`, `libs`, `resourcesBase`, `llm.baseUrl`
    /// and rules that loosen checks from the project's .flowmcp/config.json (by default only your
    /// ~/.flowmcp/config.json may set them: a repository must not redirect your keys, files or
    /// requests).
    #[arg(long)]
    pub(crate) trust_project_config: bool,
    /// How tools are named: `spec` (`getPublicHolidays_holidaykit-net`, chapter 16) or
    /// `reference` (the JavaScript reference's names, `get_public_holidays_holidaykit_net`, for
    /// client configurations written for servers built on it).
    #[arg(long, value_enum, default_value_t = ToolNamesArg::Spec)]
    tool_names: ToolNamesArg,
}

/// `--tool-names`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ToolNamesArg {
    /// `<tool>_<namespace>` as written (chapter 16).
    Spec,
    /// The JavaScript reference's names.
    Reference,
}

#[derive(Args, Debug)]
#[command(
    about = "Call a tool and print its result envelope as JSON",
    long_about = "Call a tool and print its result envelope as JSON: \
    {\"status\": true|false, \"messages\": [...], \"data\": ..., \"warnings\": [...]}. \
    Failures carry a runtime code in `messages` (E001 upstream status, E002 network, E003 timeout, \
    E004 invalid body, E005 handler, E006 missing server parameter, E007 invalid input, \
    E008 response too large, E009 refused request).\n\n\
    Inputs: `--arg key=value` (repeatable; converted to the parameter's type: `5` for numbers, \
    `true` for booleans, JSON text for arrays and objects) or `--input '{\"key\": 5}'` (strict JSON \
    types). Both may be combined for different keys.\n\n\
    Local demo: `flowmcp call skycast-io/tool/getForecast --catalog examples/catalog \
    --upstream skycast-io=http://127.0.0.1:8080 --arg city=Berlin` sends the request to a local \
    server instead of the schema's root (plain http is accepted for loopback hosts only).\n\n\
    Exit codes: 0 status true, 1 status false, 2 usage error."
)]
pub(crate) struct CallArgs {
    /// The tool: its ID (`namespace/tool/name`) or wire name (`name_namespace`, see `flowmcp list`).
    #[arg(value_name = "TOOL")]
    tool: String,
    /// An input value, `key=value`. Repeatable.
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    args: Vec<String>,
    /// All inputs as one JSON object.
    #[arg(long, value_name = "JSON")]
    input: Option<String>,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    source: SourceArgs,
}

/// How calls run, shared by `call`, `prompt get` and `serve`.
#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// Send a namespace's requests to another base URL, `namespace=URL` (repeatable; also
    /// `upstreams` in the config). HTTPS, or plain http to 127.0.0.1, ::1 or localhost.
    #[arg(long = "upstream", value_name = "NS=URL")]
    upstreams: Vec<String>,
    /// Neither read nor write the preload cache.
    #[arg(long, conflicts_with = "refresh")]
    no_cache: bool,
    /// Fetch fresh data and update the preload cache.
    #[arg(long)]
    refresh: bool,
    /// The preload cache directory. Default: `cacheDir` of the config, else ~/.flowmcp/cache.
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    #[command(flatten)]
    shared: SharedCacheArg,
    /// Time limit of the whole call, in milliseconds: handlers, their fetches and timers, and the
    /// HTTP request together (E003 when it passes).
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    timeout_ms: u64,
    /// Time limit of one handler call, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1_000)]
    handler_timeout_ms: u64,
    #[command(flatten)]
    places: ResourcePlaces,
    /// Time limit of one SQL statement of a resource query, in milliseconds (E003 when it passes).
    #[arg(long, value_name = "MS", default_value_t = 5_000)]
    query_timeout_ms: u64,
    /// The library directory (an npm prefix, see `flowmcp libs`) that the npm packages of
    /// `requiredLibraries` are loaded from into the sandbox. Default: FLOWMCP_LIBS, `libs` of the
    /// configuration, else ~/.flowmcp/allowed-libraries.
    #[arg(long, value_name = "DIR")]
    libs: Option<PathBuf>,
}

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
        // Each upstream is checked, and loopback HTTP allowed for it, by the catalog's one rule.
        let mut pointed = CatalogOptions::default();
        for (ns, url) in &upstreams {
            pointed
                .add_upstream(ns, url)
                .map_err(|e| format!("upstream {ns}={url}: {e}"))?;
        }
        let timeout = Duration::from_millis(self.timeout_ms);
        let transport = {
            let mut built = pointed.transport;
            built.total_timeout = timeout;
            built
        };
        let runner = {
            let mut built = RunnerOptions::default();
            built.upstreams = pointed.runner.upstreams;
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
            built.libraries = crate::config::open_library_dir(self.libs.as_deref(), cfg)?;
            built
        };
        Ok((transport, runner))
    }
}

/// `--cache URL`: the preload cache in Redis, shared by several processes.
#[derive(Args, Debug)]
pub(crate) struct SharedCacheArg {
    /// Keep preload entries in Redis instead of the cache directory, shared by every process
    /// (replica) that names the same database: `redis://[:PASSWORD@]HOST[:PORT][/DB]` (no TLS:
    /// `rediss://` is refused; the URL is shown only as `redis://HOST[:PORT]/DB`). Entries, keys
    /// and ttl rules are the file cache's, under the keys `flowmcp:preload:v1:*`; an entry serves
    /// only calls with the server-parameter values (API keys) it was fetched with, bound by the
    /// key in FLOWMCP_CACHE_KEY (at least 16 characters, the same for every replica; without it,
    /// the key file of the user's cache directory, shared only on this machine). Connecting and
    /// each Redis command have a 500 ms limit in all and never outlast --timeout-ms, and while
    /// Redis is unavailable calls fetch without a cache (one warning per outage). Default:
    /// `cache` of the user configuration (a project's only with --trust-project-config).
    #[arg(long = "cache", value_name = "URL", conflicts_with = "cache_dir")]
    cache: Option<String>,
}

/// Where resources live (`--resources-base`), shared by the commands that reach resources.
#[derive(Args, Debug)]
pub(crate) struct ResourcePlaces {
    /// The base folder name of resources: `project` resources live in `.<NAME>/resources/` of
    /// the project (the nearest such folder above the catalog, else above the current directory,
    /// else in the project directory; see --catalog) and `global` ones in
    /// `~/.<NAME>/resources/`. Default: `resourcesBase` of the config, else `flowmcp`.
    #[arg(long, value_name = "NAME")]
    resources_base: Option<String>,
}

impl ResourcePlaces {
    /// The base folder name, the project base (the project's `.<base>/`, see
    /// [`crate::config::Project`]) and the home directory (from `HOME`).
    pub(crate) fn options(&self, cfg: &Config) -> Result<ResourceOptions, String> {
        let base = self
            .resources_base
            .clone()
            .or_else(|| cfg.resources_base.clone())
            .unwrap_or_else(|| flowmcp_catalog::resources::DEFAULT_BASE.to_string());
        flowmcp_catalog::resources::Locations::check_base(&base)
            .map_err(|e| format!("resources base: {e}"))?;
        Ok({
            let mut built = ResourceOptions::default();
            built.project_base = Some(cfg.project.folder(&base));
            built.home = cfg.home.clone();
            built.base = base;
            built
        })
    }
}

/// How `--json` listings name an entry's kind: `tool`, `query` (a resource query) or `document`
/// (a markdown resource).
fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Tool => "tool",
        Kind::Query { .. } => "query",
        Kind::Document { .. } => "document",
    }
}

#[derive(Args, Debug)]
#[command(
    about = "List the tools of a catalog with IDs, wire names and exposure",
    long_about = "List the tools of a catalog: ID, wire name, and whether the tool is exposed. \
    A tool is hidden when a server parameter it needs has no value; the missing variables are shown. \
    Load problems (files that cannot be loaded) are printed to stderr."
)]
pub(crate) struct ListArgs {
    /// The catalog directory, or one or more schema files (overrides --catalog).
    #[arg(value_name = "DIR|FILE")]
    paths: Vec<PathBuf>,
    /// Print JSON (one object with `tools` and `problems`).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    results: ResultCacheArg,
    #[command(flatten)]
    source: SourceArgs,
}

/// `--no-cache` of the commands that open a catalog without calling anything.
#[derive(Args, Debug)]
pub(crate) struct ResultCacheArg {
    /// Read every file afresh: neither read nor write the validation result cache
    /// (`<cache dir>/.results/`; `flowmcp cache clear` empties it).
    #[arg(long)]
    no_cache: bool,
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

#[derive(Args, Debug)]
#[command(
    about = "Search tools by name, aliases, search hint, tags and description",
    long_about = "Search the tools of a catalog by name, aliases, search hint, tags, namespace and \
    description. Results are ranked: an exact name beats an alias, which beats the search hint, tags, \
    namespace and description; every query word adds to the score."
)]
pub(crate) struct SearchArgs {
    /// Words to search for.
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// At most this many results.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    results: ResultCacheArg,
    #[command(flatten)]
    source: SourceArgs,
}

#[derive(Args, Debug)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    command: CacheCommand,
    /// The preload cache directory. Default: `cacheDir` of the config, else ~/.flowmcp/cache.
    #[arg(long, value_name = "DIR", global = true)]
    cache_dir: Option<PathBuf>,
    /// The preload cache in Redis (see `flowmcp call --help`): status and clear look only at the
    /// keys `flowmcp:preload:v1:*`. Default: `cache` of the configuration.
    #[arg(
        long = "cache",
        value_name = "URL",
        global = true,
        conflicts_with = "cache_dir"
    )]
    cache: Option<String>,
    /// Also take `cacheDir` and `cache` from the project's .flowmcp/config.json (see
    /// `flowmcp call --help`).
    #[arg(long, global = true)]
    trust_project_config: bool,
}

#[derive(Subcommand, Debug)]
enum CacheCommand {
    /// List cached responses with size, age and expiry. An entry kept under another file name or
    /// Redis key than its own key gives is marked `mismatched` with where it is (it was not put
    /// there by flowmcp, is never served and is not removed by `cache clear`), and counted.
    Status {
        /// Only this namespace.
        namespace: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove cached responses (all, or one namespace) and, without a namespace, the validation
    /// result cache. Only files that parse as entries this program wrote, at the place their own
    /// key gives, are removed; anything else is kept and counted.
    Clear {
        /// Only this namespace.
        namespace: Option<String>,
    },
}

/// Where a command's project is found from ([`crate::config::Project`]): the catalog it opens
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
        &crate::cwd()?,
        a.catalog,
        a.user_catalog,
        a.trust,
        crate::config::Env::from_process(),
    )?;
    if let Some(note) = cfg.ignored_note() {
        crate::say(tracing::Level::WARN, &note);
    }
    if let Some(note) = cfg.project.refused_note() {
        eprintln!("{note}");
    }
    Ok(cfg)
}

/// The validation options of a command under `profile`: the configuration's rule overrides
/// (a note on standard error names project rules that were not applied) and allowed libraries.
pub(crate) fn validation_options(cfg: &Config, profile: Profile) -> flowmcp_validate::Options {
    let mut validation = flowmcp_validate::Options::new(profile);
    validation.allowed_libraries = cfg.allowed_libraries.clone();
    let (overrides, note) = cfg.overrides(profile, &[]);
    if let Some(note) = note {
        crate::say(tracing::Level::WARN, &note);
    }
    validation.settings.overrides = overrides;
    on_this_machine(cfg, &mut validation);
    validation
}

/// Gives validation what it needs of this machine, as `cfg` decided it: the home directory and
/// `FLOWMCP_RESOURCES` (for `${FLOWMCP_RESOURCES}` in `sqlite-gtfs` paths) and the file checks of
/// `flowmcp-resources` (databases beside a schema, `sqlite-gtfs` seals), as the catalog re-exports them.
pub(crate) fn on_this_machine(cfg: &Config, validation: &mut flowmcp_validate::Options) {
    validation.home = cfg.home.clone();
    validation.resources_variable = cfg.resources_variable.clone();
    validation.files = Some(std::sync::Arc::new(flowmcp_catalog::resources::LocalFiles));
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
        crate::say(tracing::Level::WARN, &note);
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
    .map_err(|e| crate::catalog_cmd::catalog_error(&e))?;
    // A value such as `…` or `YOUR_KEY` left in a configuration is not a key (issue #28, item 4).
    for name in catalog.toolset().server_params().placeholders() {
        crate::say(
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
    let cwd = crate::cwd()?;
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

/// Prints the catalog's load problems (files that are not callable, and why) to stderr.
pub(crate) fn print_problems(catalog: &Catalog) {
    for p in catalog.toolset().problems() {
        crate::say(
            tracing::Level::WARN,
            &format!("flowmcp: {}: {}", shown(&p.file), shown(&p.message)),
        );
    }
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
        Some(text) => BindingKey::from_text(text)
            .map_err(|e| format!("{}: {e}", crate::config::vars::CACHE_KEY))?,
        None => {
            let base = cache_base(None, cfg).ok_or_else(|| {
                format!(
                    "the preload cache {} needs a key: set {} (the same for every process \
                     sharing it)",
                    cache.shown_url(),
                    crate::config::vars::CACHE_KEY
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

/// The validation result cache in the user's flowmcp cache directory, if there is one.
pub(crate) fn result_cache(cfg: &Config) -> Option<flowmcp_catalog::results::ResultCache> {
    cache_base(None, cfg).map(flowmcp_catalog::results::ResultCache::new)
}

pub(crate) fn call(a: CallArgs) -> Result<ExitCode, String> {
    let cfg = config(a.source.anchor(&[]))?;
    let (transport, runner) = a.run.settings(&cfg)?;
    let resources = runner.resources.clone();
    let mut inputs: Map<String, Value> = match &a.input {
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err("--input must be a JSON object".into()),
            Err(e) => return Err(format!("--input is not valid JSON: {e}")),
        },
        None => Map::new(),
    };
    let mut text_args: IndexMap<String, String> = IndexMap::new();
    for kv in &a.args {
        let (k, v) = kv
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| format!("--arg {kv:?}: expected KEY=VALUE"))?;
        if inputs.contains_key(k) {
            return Err(format!(
                "input \"{k}\" is given twice, by --input and by --arg; give it once"
            ));
        }
        if text_args.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!("--arg {k} is given more than once"));
        }
    }
    let profile = profile_of(a.source.profile, &cfg);
    let libraries = runner.libraries.clone();
    let catalog = open(&a.source, &[], false, &cfg, profile, transport, runner)?;
    let entry = catalog.find(&a.tool);
    if entry.is_none() && catalog.rejected(&a.tool).is_none() {
        let hint = catalog
            .search(&a.tool)
            .first()
            .map(|(_, t)| format!(" (did you mean {}?)", t.descriptor.wire_name))
            .unwrap_or_default();
        print_problems(&catalog);
        let why = catalog.toolset().explain_unknown(&a.tool);
        return Err(format!("{why} in the catalog{hint}"));
    }
    let caller = catalog.caller();
    let envelope = if text_args.is_empty() {
        caller.call_json(&a.tool, &inputs)
    } else if inputs.is_empty() {
        caller.call_strings(&a.tool, &text_args)
    } else {
        // Both, for different keys: text values are converted by the tool's types.
        for (k, v) in &text_args {
            let value = match entry.and_then(|e| e.descriptor.param(k)) {
                Some(p) => {
                    p.z.coerce_str(v)
                        .unwrap_or_else(|_| Value::String(v.clone()))
                }
                None => Value::String(v.clone()),
            };
            inputs.insert(k.clone(), value);
        }
        caller.call_json(&a.tool, &inputs)
    };
    let text = serde_json::to_string_pretty(&envelope.to_json())
        .map_err(|e| format!("cannot print the envelope: {e}"))?;
    write_stdout(&format!("{text}\n"))?;
    // A tool of a file with errors (E007, facts only): the command that shows the findings.
    if entry.is_none()
        && let Some(r) = catalog.rejected(&a.tool)
    {
        eprintln!("flowmcp: {}", crate::advice::rejected(&r.file));
    }
    // A library the schema requires that cannot be found (SEC103 in the envelope, facts only):
    // how to choose the library directory and install into it.
    if !envelope.status()
        && let Some(entry) = entry
        && catalog
            .toolset()
            .schema_of(entry)
            .main
            .required_libraries
            .iter()
            .any(|name| {
                libraries
                    .as_ref()
                    .is_none_or(|dir| dir.package_dir(name).is_err())
            })
    {
        eprintln!("flowmcp: {}", crate::advice::LIBS);
    }
    // A file-based database that does not exist yet: the command that creates it.
    if let Some(entry) = entry
        && envelope.code() == Some(Code::RES020)
        && let Ok(file) = catalog
            .toolset()
            .database_file(&entry.descriptor.id.to_string(), &resources)
        && file.writable
        && flowmcp_files::named::symlink_metadata(&file.path).is_err()
    {
        eprintln!(
            "flowmcp: create it with `flowmcp resource init {}`",
            file.id
        );
    }
    Ok(if envelope.status() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

pub(crate) fn list(a: ListArgs) -> Result<ExitCode, String> {
    let cfg = config(a.source.anchor(&a.paths))?;
    let catalog = open(
        &a.source,
        &a.paths,
        false,
        &cfg,
        profile_of(a.source.profile, &cfg),
        TransportConfig::default(),
        a.results.runner(),
    )?;
    print_problems(&catalog);
    let set = catalog.toolset();
    if a.json {
        let tools: Vec<Value> = set
            .tools()
            .iter()
            .map(|t| {
                let d = &t.descriptor;
                json!({
                    "id": d.id.to_string(),
                    "name": d.lookup_key(),
                    "kind": kind_name(&d.kind),
                    "wireName": d.wire_name,
                    "exposed": d.is_exposed(),
                    "missingServerParams": d.missing_server_params,
                    "description": d.description,
                    "file": set.schema_of(t).display,
                    "warnings": d.warnings,
                })
            })
            .collect();
        let problems: Vec<Value> = set
            .problems()
            .iter()
            .map(|p| json!({"file": p.file, "message": p.message}))
            .collect();
        let prompts: Vec<Value> = catalog
            .prompts()
            .iter()
            .map(crate::prompt_list::prompt_json)
            .collect();
        let text = serde_json::to_string_pretty(
            &json!({"tools": tools, "prompts": prompts, "problems": problems}),
        )
        .map_err(|e| e.to_string())?;
        write_stdout(&format!("{text}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    let width = set
        .tools()
        .iter()
        .map(|t| t.descriptor.lookup_key().len())
        .max()
        .unwrap_or(0);
    let wire_width = set
        .tools()
        .iter()
        .map(|t| t.descriptor.wire_name.len())
        .max()
        .unwrap_or(0);
    for t in set.tools() {
        let d = &t.descriptor;
        let state = if d.is_exposed() {
            "exposed".to_string()
        } else {
            let names: Vec<String> = d
                .missing_server_params
                .iter()
                .map(|n| {
                    if flowmcp_catalog::env::is_reserved_name(n) {
                        format!("{} (reserved for flowmcp itself)", shown(n))
                    } else {
                        shown(n).into_owned()
                    }
                })
                .collect();
            format!("hidden (missing {})", names.join(", "))
        };
        out.push_str(&format!(
            "{:<width$}  {:<wire_width$}  {state}\n",
            shown(&d.lookup_key()),
            shown(&d.wire_name)
        ));
    }
    let (exposed, hidden, _) = set.exposure();
    let resource_entries = set
        .tools()
        .iter()
        .filter(|t| t.descriptor.kind != Kind::Tool)
        .count();
    let what = if resource_entries == 0 {
        format!("{} tools", set.tools().len())
    } else {
        format!(
            "{} tools and {resource_entries} resource entries",
            set.tools().len() - resource_entries
        )
    };
    out.push_str(&format!(
        "{what} in {} schemas: {exposed} exposed, {hidden} hidden{}\n",
        set.schemas().len(),
        if set.problems().is_empty() {
            String::new()
        } else {
            format!(", {} load problems", set.problems().len())
        }
    ));
    let prompts = catalog.prompts();
    if !prompts.is_empty() {
        out.push('\n');
        out.push_str(&crate::prompt_list::listing(&catalog, &prompts));
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn search(a: SearchArgs) -> Result<ExitCode, String> {
    let cfg = config(a.source.anchor(&[]))?;
    let catalog = open(
        &a.source,
        &[],
        false,
        &cfg,
        profile_of(a.source.profile, &cfg),
        TransportConfig::default(),
        a.results.runner(),
    )?;
    let query = a.query.join(" ");
    let hits = catalog.search(&query);
    let prompt_hits = catalog.search_prompts(&query);
    if a.json {
        let mut items: Vec<Value> = hits
            .iter()
            .take(a.limit)
            .map(|(score, t)| {
                let d = &t.descriptor;
                json!({"id": d.id.to_string(), "name": d.lookup_key(), "kind": kind_name(&d.kind),
                       "wireName": d.wire_name, "score": score,
                       "exposed": d.is_exposed(), "description": d.description})
            })
            .collect();
        items.extend(prompt_hits.iter().take(a.limit).map(|(score, e)| {
            json!({"id": e.id, "name": e.name, "kind": e.kind.id_type(), "score": score,
                   "description": e.description})
        }));
        let text = serde_json::to_string_pretty(&Value::Array(items)).map_err(|e| e.to_string())?;
        write_stdout(&format!("{text}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for (score, t) in hits.iter().take(a.limit) {
        let d = &t.descriptor;
        let hidden = if d.is_exposed() { "" } else { " [hidden]" };
        let first_line = d.description.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "{score:>3}  {}  {}{hidden}\n     {}\n",
            shown(&d.lookup_key()),
            shown(&d.wire_name),
            shown(first_line)
        ));
    }
    if !prompt_hits.is_empty() {
        out.push_str("prompts and skills:\n");
    }
    for (score, e) in prompt_hits.iter().take(a.limit) {
        let first_line = e.description.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "{score:>3}  {}  ({})\n     {}\n",
            shown(&e.id),
            e.kind.id_type(),
            shown(first_line)
        ));
    }
    if hits.is_empty() && prompt_hits.is_empty() {
        out.push_str(&format!(
            "no tool, prompt or skill matches \"{}\"\n",
            shown(&query)
        ));
    }
    write_stdout(&out)?;
    Ok(if hits.is_empty() && prompt_hits.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub(crate) fn cache(a: CacheArgs) -> Result<ExitCode, String> {
    let cfg = config(a.trust_project_config)?;
    let shared = SharedCacheArg { cache: a.cache };
    let cache = cache_of(a.cache_dir.clone(), &shared, &cfg, false)?
        .ok_or("no cache directory: HOME is not set; give --cache-dir")?;
    match a.command {
        CacheCommand::Status { namespace, json } => {
            let entries = cache
                .status(namespace.as_deref())
                .map_err(|e| format!("{cache}: {e}"))?;
            if json {
                let items: Vec<Value> = entries
                    .iter()
                    .map(|e| {
                        json!({"namespace": e.namespace, "tool": e.tool, "paramHash": e.param_hash,
                               "size": e.size, "ttl": e.ttl, "fetchedAt": e.fetched_at,
                               "expiresAt": e.expires_at, "expired": e.expired,
                               "mismatched": e.mismatched,
                               "path": e.path.display().to_string()})
                    })
                    .collect();
                let text = serde_json::to_string_pretty(&Value::Array(items))
                    .map_err(|e| e.to_string())?;
                write_stdout(&format!("{text}\n"))?;
            } else {
                let mut out = String::new();
                for e in &entries {
                    let id = match &e.param_hash {
                        Some(h) => format!("{}/{} [{h}]", shown(&e.namespace), shown(&e.tool)),
                        None => format!("{}/{}", shown(&e.namespace), shown(&e.tool)),
                    };
                    let mismatched = if e.mismatched {
                        format!(
                            "  mismatched: kept at {}",
                            flowmcp_spec::diagnostic::display_path(&e.path)
                        )
                    } else {
                        String::new()
                    };
                    out.push_str(&format!(
                        "{id}  {} bytes  fetched {}  {} {}{mismatched}\n",
                        e.size,
                        e.fetched_at,
                        if e.expired { "expired" } else { "expires" },
                        e.expires_at
                    ));
                }
                let mismatched = entries.iter().filter(|e| e.mismatched).count();
                out.push_str(&format!("{} cached responses in {cache}", entries.len()));
                if mismatched > 0 {
                    out.push_str(&format!(" ({mismatched} mismatched)"));
                }
                out.push('\n');
                write_stdout(&out)?;
            }
        }
        CacheCommand::Clear { namespace } => {
            let report = cache
                .clear(namespace.as_deref())
                .map_err(|e| format!("{cache}: {e}"))?;
            let mut out = format!("removed {} cached responses\n", report.removed);
            if !report.kept.is_empty() {
                let one = report.kept.len() == 1;
                out.push_str(&format!(
                    "kept {} {}{} that {} not {} written by flowmcp:\n",
                    report.kept.len(),
                    match cache {
                        PreloadCache::Redis(_) => "key",
                        _ => "file",
                    },
                    if one { "" } else { "s" },
                    if one { "is" } else { "are" },
                    if one {
                        "a cache entry"
                    } else {
                        "cache entries"
                    },
                ));
                for p in &report.kept {
                    out.push_str(&format!(
                        "  {}\n",
                        flowmcp_spec::diagnostic::display_path(p)
                    ));
                }
            }
            // The validation result cache is this machine's, in the cache directory.
            if namespace.is_none()
                && let Some(base) = cache_base(a.cache_dir, &cfg)
            {
                let results = flowmcp_catalog::results::ResultCache::new(base);
                let removed = results
                    .clear()
                    .map_err(|e| format!("{}: {e}", results.dir().display()))?;
                out.push_str(&format!("removed {removed} cached validation results\n"));
            }
            write_stdout(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
