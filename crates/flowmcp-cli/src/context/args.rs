//! The command-line arguments several commands share: where the catalog is and how it is read
//! ([`SourceArgs`]), how calls run ([`RunArgs`]), the caches, the resource places, the model
//! endpoint. Only data: what they become is decided in [`super`], the one place where flags,
//! the configuration and the environment turn into library options.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProfileArg {
    Spec,
    Compat,
}

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
    pub(super) catalog: Option<PathBuf>,
    /// `spec` or `compat` (see `flowmcp validate --help`). Default: spec, or the config.
    #[arg(long, value_enum)]
    pub(crate) profile: Option<ProfileArg>,
    /// Read server parameters from this file (`KEY=value` lines). Default: `envFile` of your
    /// ~/.flowmcp/config.json. The order: the process environment, this file, your
    /// configuration's `serverParams`; then, only for names still unset, the project's `.env`
    /// (beside its .flowmcp/; a regular file, not a link) and its configuration's `serverParams`.
    #[arg(long, value_name = "FILE")]
    pub(super) env_file: Option<PathBuf>,
    /// Also take `upstreams`, `envFile`, `cacheDir`, `libs`, `resourcesBase`, `llm.baseUrl`
    /// and rules that loosen checks from the project's .flowmcp/config.json (by default only your
    /// ~/.flowmcp/config.json may set them: a repository must not redirect your keys, files or
    /// requests).
    #[arg(long)]
    pub(crate) trust_project_config: bool,
    /// How tools are named: `spec` (`getPublicHolidays_holidaykit-net`, chapter 16) or
    /// `reference` (the JavaScript reference's names, `get_public_holidays_holidaykit_net`, for
    /// client configurations written for servers built on it; `serve` then gives prompts and
    /// skills flat names the same way, `bridge_days_holidaykit_net`).
    #[arg(long, value_enum, default_value_t = ToolNamesArg::Spec)]
    pub(super) tool_names: ToolNamesArg,
}

/// `--tool-names`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ToolNamesArg {
    /// `<tool>_<namespace>` as written (chapter 16).
    Spec,
    /// The JavaScript reference's names.
    Reference,
}

/// The result budget of `serve`, `call` and `agent run` (D140): the most bytes of JSON one tool
/// result may take, given in bytes or in tokens.
#[derive(Args, Debug, Clone, Copy)]
pub(crate) struct BudgetArgs {
    /// The most bytes of JSON one tool result may take (0: no bound). A larger result is cut
    /// inside the tool's output schema: arrays shortened, long strings cut, and a note says what
    /// was cut.
    #[arg(long, value_name = "BYTES", conflicts_with = "max_result_tokens")]
    max_result_bytes: Option<usize>,
    /// The result budget in tokens, reckoned at 3 bytes of JSON per token (0: no bound).
    #[arg(long, value_name = "TOKENS")]
    max_result_tokens: Option<usize>,
}

impl BudgetArgs {
    /// The budget of `serve` and `agent run` when none is given: 25,000 tokens (where Claude Code
    /// cuts a tool result) at [`BYTES_PER_TOKEN`](flowmcp_catalog::runtime::budget::BYTES_PER_TOKEN).
    pub(crate) const DEFAULT_BYTES: usize = 75_000;

    /// The budget in bytes: as given, else `default` (the configuration's `maxResultBytes`, else
    /// the command's own default); `None` when there is none (or it is 0).
    pub(crate) fn bytes(&self, default: Option<usize>) -> Option<usize> {
        let per_token = flowmcp_catalog::runtime::budget::BYTES_PER_TOKEN;
        let given = self
            .max_result_bytes
            .or(self.max_result_tokens.map(|t| t.saturating_mul(per_token)));
        given.or(default).filter(|b| *b > 0)
    }
}

/// How calls run, shared by `call`, `prompt get` and `serve`.
#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// Send a namespace's requests to another base URL, `namespace=URL` (repeatable; also
    /// `upstreams` in the config). HTTPS, or plain http to 127.0.0.1, ::1 or localhost.
    #[arg(long = "upstream", value_name = "NS=URL")]
    pub(super) upstreams: Vec<String>,
    /// Neither read nor write the preload cache.
    #[arg(long, conflicts_with = "refresh")]
    pub(super) no_cache: bool,
    /// Fetch fresh data and update the preload cache.
    #[arg(long)]
    pub(super) refresh: bool,
    /// The preload cache directory. Default: `cacheDir` of the config, else ~/.flowmcp/cache.
    #[arg(long, value_name = "DIR")]
    pub(super) cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub(super) shared: SharedCacheArg,
    /// Time limit of the whole call, in milliseconds: handlers, their fetches and timers, and the
    /// HTTP request together (E003 when it passes).
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    pub(super) timeout_ms: u64,
    /// Time limit of one handler call, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1_000)]
    pub(super) handler_timeout_ms: u64,
    /// Attempts of a tool's GET or HEAD request that the upstream answered 429, 502, 503 or 504
    /// or that failed on the network, the first included, within the time limit (`Retry-After`
    /// honoured when it fits). 1 sends it once; other methods are always sent once. Default:
    /// `upstreamAttempts` of the config, else 3.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10))]
    pub(super) upstream_attempts: Option<u32>,
    /// At most so many requests of a namespace start per second, minute or hour,
    /// `namespace=10/s` (or `/min`, `/h`; repeatable; also `limits` in the config). Shared by
    /// the replicas whose preload cache is the same Redis (`--cache redis://…`).
    #[arg(long = "rate-limit", value_name = "NS=RATE")]
    pub(super) rate_limits: Vec<String>,
    /// At most so many requests of a namespace in flight at once in this process,
    /// `namespace=4` (repeatable; also `limits` in the config).
    #[arg(long = "concurrency-limit", value_name = "NS=N")]
    pub(super) concurrency_limits: Vec<String>,
    #[command(flatten)]
    pub(super) places: ResourcePlaces,
    /// Time limit of one SQL statement of a resource query, in milliseconds (E003 when it passes).
    #[arg(long, value_name = "MS", default_value_t = 5_000)]
    pub(super) query_timeout_ms: u64,
    /// The library directory (an npm prefix, see `flowmcp libs`) that the npm packages of
    /// `requiredLibraries` are loaded from into the sandbox. Default: FLOWMCP_LIBS, `libs` of the
    /// configuration, else ~/.flowmcp/allowed-libraries.
    #[arg(long, value_name = "DIR")]
    pub(super) libs: Option<PathBuf>,
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
    pub(super) cache: Option<String>,
}

/// Where resources live (`--resources-base`), shared by the commands that reach resources.
#[derive(Args, Debug)]
pub(crate) struct ResourcePlaces {
    /// The base folder name of resources: `project` resources live in `.<NAME>/resources/` of
    /// the project (the nearest such folder above the catalog, else above the current directory,
    /// else in the project directory; see --catalog) and `global` ones in
    /// `~/.<NAME>/resources/`. Default: `resourcesBase` of the config, else `flowmcp`.
    #[arg(long, value_name = "NAME")]
    pub(super) resources_base: Option<String>,
}

/// `--no-cache` of the commands that open a catalog without calling anything.
#[derive(Args, Debug)]
pub(crate) struct ResultCacheArg {
    /// Read every file afresh: neither read nor write the validation result cache
    /// (`<cache dir>/.results/`; `flowmcp cache clear` empties it).
    #[arg(long)]
    pub(super) no_cache: bool,
}

/// Where the model is, shared by `agent run`, `agent test` and `grade --llm`.
#[derive(Args, Debug)]
pub(crate) struct ModelArgs {
    /// The OpenAI-compatible API's base URL (`/chat/completions` is appended). Default:
    /// `FLOWMCP_LLM_BASE_URL`, else `llm.baseUrl` of the configuration, else OpenRouter's
    /// `https://openrouter.ai/api/v1`. The key is read from `OPENROUTER_API_KEY` (else
    /// `llm.apiKey`) and sent as a bearer token.
    #[arg(long, value_name = "URL")]
    pub(super) llm_base_url: Option<String>,
    /// How long one model request may take, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub(super) llm_timeout_secs: u64,
}
