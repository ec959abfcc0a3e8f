//! `flowmcp serve`: a catalog's tools, prompts and resources to MCP clients over stdio or
//! Streamable HTTP.

use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use flowmcp_mcp::{HttpError, RouteError, ServeError};

use crate::advice::activation_error;
use crate::context::{BudgetArgs, RunArgs, SourceArgs, config, endpoint, open, profile_of};
use crate::output::{SAY_TARGET, print_problems, say, say_as_json_logs, shown};

/// The forms of `--result-text` (see [`flowmcp_mcp::ResultText`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ResultTextArg {
    Full,
    Summary,
    None,
}

/// The forms of `--output-schema` (see [`flowmcp_mcp::OutputSchemas`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OutputSchemaArg {
    Compact,
    Full,
    None,
}

#[derive(Args, Debug)]
#[command(
    about = "Serve a catalog's tools to MCP clients, over stdio or Streamable HTTP",
    long_about = "Serve a catalog's tools to MCP clients (Claude Desktop, Claude Code, \
    Cursor, your own agents). Over stdio (the default) the client starts `flowmcp serve` and speaks \
    MCP on its stdin and stdout. With `--transport http` the server listens on --listen \
    (127.0.0.1:8765) and serves Streamable HTTP at /mcp, statelessly (replicas may sit behind a load \
    balancer); set --auth-token (or FLOWMCP_AUTH_TOKEN) to require `Authorization: Bearer`; a \
    browser Origin other than the server's own or one named with --allow-origin gets 403; \
    GET /healthz answers ok and GET /readyz ready; SIGINT or SIGTERM starts a drain: /readyz \
    answers 503, calls in flight finish within --drain-timeout, new MCP requests get 503 with a \
    retryable JSON-RPC error, and the server exits 0 (1 if the deadline cut calls off). \
    GET /metrics answers Prometheus (calls by tool ID and outcome, latencies, upstream status \
    classes, preload cache hits, sandbox rebuilds, connections, catalog generation, build): to \
    loopback clients that no proxy forwarded, or with --metrics-token to its bearer only. \
    GET /metrics, as /mcp, refuses a Host or Origin it does not serve (403). \
    --log-format json makes every line of stderr one JSON object (start lines, notes and \
    warnings included); at --log-level info one per tool \
    call (route, tool ID, outcome, duration, request id; never arguments or secrets); in the \
    text format, control characters of every field (a client's request id, a tool name) are \
    escaped. Each MCP \
    request's id (the client's x-request-id, else a new one) goes upstream as x-request-id on \
    the tool's own request unless its schema sets that header. On an address that is not \
    loopback (such as 0.0.0.0) it refuses to serve an endpoint without a token or OAuth unless \
    --no-auth is given, and an endpoint without a token or OAuth refuses (403) requests a proxy \
    forwarded (Forwarded, X-Forwarded-For or X-Real-IP) unless --no-auth is given: behind a load \
    balancer that others reach, give it a token. An empty token is an error. Headers must \
    arrive within --header-timeout-ms and bodies within --body-timeout-ms; at most \
    --max-connections connections are open at once, at most --max-connections-per-client of \
    them from one client address; at the cap a connection idle between requests is closed to \
    make room, and only when none is idle does a new one get 503. Answers to requests without a \
    credential (/healthz, /readyz, 401, 403, 404) close their connection.\n\n\
    With --route, --only, --selection or --agent, each endpoint serves its own members only: \
    tools, resource queries and documents (also as resources); the prompts and skills of a \
    selection or agent, or else those of the namespaces a route or --only names. A skill whose \
    prefill runs a tool the endpoint does not serve is not served there.\n\n\
    Clients can complete prompt and skill arguments (completion/complete: values of the enums, \
    shared lists and defaults of the tool parameters an argument is handed to, narrowed by the \
    arguments already chosen), ask for log messages (logging/setLevel: each tool call's phases at \
    info and its outcome line; never arguments or secrets) and get notifications/progress for a \
    tools/call that carries a progress token. Over stateless HTTP a level lasts for its own \
    request only, and a call with a progress token is answered as an event stream (its progress, \
    then its result).\n\n\
    Every exposed tool is listed with its wire name, title, description, input \
    schema, annotations (readOnlyHint, destructiveHint, openWorldHint), _meta (anthropic/alwaysLoad, \
    anthropic/searchHint, flowmcp/aliases, flowmcp/id) and output schema. A failed call is a tool \
    error whose text starts with its code (E001…E009).\n\n\
    Tools whose server parameters have no value are not served; which ones (of those the \
    endpoints would serve), and the variables that would enable them, is written to stderr at \
    start, and calling one answers E006 naming its variable. With --client-credentials (HTTP, \
    loopback only) they are served, and each request may bring its own values in \
    `X-FlowMCP-Param-<NAME>` headers for its own calls. stdout carries only protocol \
    messages.\n\n\
    Claude Code: `claude mcp add flowmcp -- flowmcp serve --catalog /path/to/catalog`."
)]
pub(crate) struct ServeArgs {
    /// The catalog directory, or one or more schema files served together (overrides --catalog).
    #[arg(value_name = "DIR|FILE")]
    paths: Vec<PathBuf>,
    /// Serve only this: a namespace (its tools, resource queries, documents, prompts and
    /// skills), or one tool, resource query or document (ID or wire name; a SQLite resource's
    /// ID names its queries). Repeatable.
    #[arg(long = "only", value_name = "ID")]
    only: Vec<String>,
    /// Serve exactly the members of this selection (`namespace/selection/name`): its tools, its
    /// resources, its prompts and skills. Refused when a member does not resolve or a member
    /// tool lacks a server parameter. With --only, only those of its tools, queries and documents
    /// that --only names.
    #[arg(long, value_name = "ID")]
    selection: Option<String>,
    /// Serve what activating this agent (`agents/<name>/agent.mjs`) brings: its tools, its
    /// selections' members, its prompts and skills (and those of its tools' namespaces), its
    /// resources. Refused when the agent has errors, a member is missing or a server parameter
    /// of an involved schema has no value; a hash mismatch is logged as a warning. Its inline
    /// tools with relative paths need `--upstream <name>=URL`. When the agent enables
    /// `elicitation`, a call missing required parameters asks the user through the client.
    #[arg(long, value_name = "NAME", conflicts_with = "selection")]
    agent: Option<String>,
    /// Also serve this agent as one MCP tool named by the agent, which runs its whole loop (input
    /// `input`, or the agent's `inputSchema`; output: the final answer) and reports progress.
    /// Repeatable. The model endpoint is `--llm-base-url`, `FLOWMCP_LLM_BASE_URL` or OpenRouter's,
    /// with the key from `OPENROUTER_API_KEY`.
    #[arg(long = "agent-tool", value_name = "NAME")]
    agent_tools: Vec<String>,
    /// The OpenAI-compatible API agent tools use (`/chat/completions` is appended).
    #[arg(long, value_name = "URL")]
    llm_base_url: Option<String>,
    /// `stdio` (the client starts the server) or `http` (Streamable HTTP at /mcp).
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    transport: Transport,
    /// HTTP: the address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    listen: std::net::SocketAddr,
    /// HTTP: require `Authorization: Bearer <TOKEN>` (also FLOWMCP_AUTH_TOKEN). An empty token
    /// (an unset variable) is an error.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "FLOWMCP_AUTH_TOKEN",
        hide_env_values = true
    )]
    auth_token: Option<String>,
    /// HTTP: serve endpoints without a token or OAuth on an address that is not loopback (such
    /// as 0.0.0.0), and to requests a proxy forwarded, both refused otherwise. Tokens given still
    /// apply. Also `"noAuth": true` in
    /// ~/.flowmcp/config.json (a project's configuration cannot say it).
    #[arg(long)]
    no_auth: bool,
    /// HTTP: let each client bring its own values of the served tools' server parameters, one
    /// `X-FlowMCP-Param-<NAME>: <value>` request header each, used for that request's calls
    /// only (over the server's own values). Tools waiting for a server parameter are served; a
    /// call without its value fails with E006. Refused on an address that is not loopback: put
    /// a TLS-terminating proxy in front.
    #[arg(long)]
    client_credentials: bool,
    /// HTTP: how long a client may take to send a request's headers (and how long an idle
    /// connection stays open), in milliseconds.
    #[arg(
        long,
        value_name = "MS",
        default_value_t = millis(flowmcp_mcp::HttpOptions::DEFAULT_HEADER_TIMEOUT),
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    header_timeout_ms: u64,
    /// HTTP: how long a client may take to send a request's body once its headers are in, in
    /// milliseconds (then 408).
    #[arg(
        long,
        value_name = "MS",
        default_value_t = millis(flowmcp_mcp::HttpOptions::DEFAULT_BODY_TIMEOUT),
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    body_timeout_ms: u64,
    /// HTTP: how many connections may be open at once. At the cap a new connection takes the
    /// place of one that sits idle between requests; when none is idle it gets 503 and is closed.
    /// Lowered, with a warning, when it does not fit below the limit of open files (the soft
    /// limit is raised toward the hard one at start).
    #[arg(
        long,
        value_name = "N",
        default_value_t = flowmcp_mcp::HttpOptions::DEFAULT_MAX_CONNECTIONS,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
    )]
    max_connections: usize,
    /// HTTP: how many of those connections one client address (an IPv6 /64) may hold; one more
    /// takes the place of that client's own idle connection, or gets 503. Default: a quarter of
    /// --max-connections. Behind a load balancer every connection comes from the balancer: set
    /// it to --max-connections there.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
    )]
    max_connections_per_client: Option<usize>,
    /// HTTP: a browser origin allowed to call the server (`https://app.example.com:443`), besides
    /// the listener's own. Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// HTTP: a host name the server answers to besides localhost (for deployments behind a
    /// proxy). Repeatable.
    #[arg(long = "allow-host", value_name = "HOST")]
    allow_hosts: Vec<String>,
    /// Worker threads for tool calls (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// List only the tools whose `meta` says `alwaysLoad`, plus `search_tools` (ranked search
    /// over every served tool) and `call_tool` (runs any served tool by wire name or ID). Keeps a
    /// large catalog out of the client's context until it is needed.
    #[arg(long)]
    lazy: bool,
    /// How `tools/list` shows each tool's output schema: `compact` (accepts exactly what the
    /// declared schema accepts, without descriptions and with identical sibling properties
    /// merged), `full` (as declared, descriptions included) or `none` (no output schema, and
    /// results as text only, for clients that use neither).
    #[arg(long, value_enum, value_name = "FORM", default_value_t = OutputSchemaArg::Compact)]
    output_schema: OutputSchemaArg,
    /// The result budget: the most a tool result may take as JSON, text and structured content
    /// together. A larger result is cut inside the tool's output schema, says what was cut in
    /// `_meta["flowmcp/cut"]` and in a note, names the call of the tool's own paging that fetches
    /// what follows, and links to the whole, kept for ten minutes and readable page by page
    /// with `resources/read` (`flowmcp-result://…`; in Redis with `--cache redis://…`, so any
    /// replica serves it). Images are never cut. Default: 75000 bytes (about 25,000 tokens).
    #[command(flatten)]
    budget: BudgetArgs,
    /// What a result's text block carries beside its structured content: `full` (the data's
    /// JSON text, as MCP asks for clients that read only text), `summary` (one line saying what
    /// the structured content holds) or `none` (a cut result still says what was cut). A tool without an output schema always returns
    /// its data as text.
    #[arg(long, value_enum, value_name = "FORM", default_value_t = ResultTextArg::Full)]
    result_text: ResultTextArg,
    /// Reload the catalog when its files change: only changed files are validated again, a
    /// file that breaks keeps its previous version (its errors go to the log), and stdio clients
    /// get `notifications/tools/list_changed`.
    #[arg(long)]
    watch: bool,
    /// Watch mode: how often the files are checked, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 500, requires = "watch")]
    watch_interval_ms: u64,
    /// HTTP: serve some tools at their own path, `/path=SELECTOR`, where SELECTOR is a namespace
    /// or a comma-separated list of tool IDs or wire names (repeatable; without it everything is
    /// served at /mcp).
    #[arg(long = "route", value_name = "/PATH=SELECTOR")]
    routes: Vec<String>,
    /// HTTP: the bearer token of one route, `/path=TOKEN` (repeatable; also
    /// FLOWMCP_ROUTE_TOKENS, comma-separated). A route without one takes --auth-token.
    #[arg(
        long = "route-token",
        value_name = "/PATH=TOKEN",
        env = "FLOWMCP_ROUTE_TOKENS",
        value_delimiter = ',',
        hide_env_values = true
    )]
    route_tokens: Vec<String>,
    /// HTTP: accept OAuth 2.1 access tokens (JWT) from this issuer instead of a static token:
    /// signature against the issuer's keys, `iss`, `aud`, expiry and scopes are checked, and
    /// /.well-known/oauth-protected-resource describes the server.
    #[arg(long, value_name = "URL", env = "FLOWMCP_OAUTH_ISSUER", conflicts_with_all = ["auth_token", "route_tokens"])]
    oauth_issuer: Option<String>,
    /// OAuth: the audience tokens must name (default: each endpoint's URL).
    #[arg(long, value_name = "AUD", requires = "oauth_issuer")]
    oauth_audience: Option<String>,
    /// OAuth: the issuer's keys, a JWKS file or URL (default: found through the issuer's
    /// metadata).
    #[arg(long, value_name = "FILE|URL", requires = "oauth_issuer")]
    oauth_jwks: Option<String>,
    /// OAuth: a scope every token must hold (repeatable).
    #[arg(long = "oauth-scope", value_name = "SCOPE", requires = "oauth_issuer")]
    oauth_scopes: Vec<String>,
    /// OAuth: the server's public origin as clients reach it (`https://mcp.example.com`).
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    public_url: Option<String>,
    /// What the server logs to stderr: error, warn, info, debug or trace. `RUST_LOG` (e.g.
    /// `rmcp=debug`) wins when set. At `info`, HTTP serving logs one line per tool call: the
    /// route, the tool's ID, the outcome code, the duration and the request id (never arguments,
    /// results or secrets). At `warn` (and at more verbose levels) the runtime's notes are
    /// shown too (target flowmcp::runtime: preload cache hits and misses, Redis warnings, handler
    /// messages at load).
    #[arg(long, value_name = "LEVEL", default_value = "warn")]
    log_level: String,
    /// How log lines look: `text` (for people; control characters in fields escaped) or `json`
    /// (every line of stderr one JSON object: `timestamp`, `level`, `target`, `message` and the
    /// event's fields, such as `route`, `tool`, `outcome`, `duration_ms` and `request_id` of a
    /// tool call; the start lines, notes and warnings too).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// HTTP: do not serve GET /metrics (and count nothing).
    #[arg(long)]
    no_metrics: bool,
    /// HTTP: the bearer token that reads GET /metrics (also FLOWMCP_METRICS_TOKEN), from any
    /// address. Without it, /metrics answers only clients on a loopback address whose request
    /// no proxy forwarded (no Forwarded, X-Forwarded-For or X-Real-IP header). It must differ
    /// from the MCP tokens, which never read metrics; an empty token is an error.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "FLOWMCP_METRICS_TOKEN",
        hide_env_values = true,
        conflicts_with = "no_metrics"
    )]
    metrics_token: Option<String>,
    /// HTTP: after SIGTERM or SIGINT, how long calls in flight may take to finish, in seconds.
    /// From the signal on, GET /readyz answers 503 and new MCP requests get 503 with a retryable
    /// JSON-RPC error (-32000); the server exits 0 once nothing is in flight, or 1 when the
    /// deadline cut calls off.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    drain_timeout: u64,
    /// HTTP: the shortest drain, in seconds: after SIGTERM or SIGINT keep listening (answering
    /// 503, /readyz unready) at least this long even when nothing is in flight, so that a load
    /// balancer's health check takes the replica out before its port closes (at most
    /// --drain-timeout). Behind a balancer, set it above the check's interval × failures.
    #[arg(long, value_name = "SECS", default_value_t = 0)]
    drain_min: u64,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    source: SourceArgs,
}

/// `d` in whole milliseconds (for the defaults `--help` shows).
const fn millis(d: Duration) -> u64 {
    d.as_secs() * 1000 + d.subsec_millis() as u64
}

/// The forms of `--log-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// How `flowmcp serve` talks to its client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Transport {
    /// MCP over stdin/stdout (the client starts the server).
    Stdio,
    /// MCP over Streamable HTTP at /mcp (stateless: replicas may sit behind a load balancer).
    Http,
}

pub(crate) fn serve(a: ServeArgs) -> Result<ExitCode, String> {
    // Logs go to stderr: in stdio mode stdout carries only protocol messages.
    let rust_log = std::env::var("RUST_LOG")
        .ok()
        .filter(|spec| !spec.trim().is_empty());
    // The runtime's notes (target `flowmcp::runtime`: preload cache hits and misses, Redis
    // warnings, handler messages at load) show at the default level, as they always did.
    let spec = match &rust_log {
        Some(spec) => spec.clone(),
        None if a.log_level.eq_ignore_ascii_case("warn") => {
            format!("{},{}=info", a.log_level, flowmcp_mcp::http::RUNTIME_NOTES)
        }
        None => a.log_level.clone(),
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&spec)
        .map_err(|e| format!("--log-level / RUST_LOG: {e}"))?
        // The CLI's own lines (where it listens, notes, warnings) whatever the level.
        .add_directive(
            format!("{}=trace", SAY_TARGET)
                .parse()
                .map_err(|e| format!("--log-level / RUST_LOG: {e}"))?,
        );
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match a.log_format {
        LogFormat::Text => logs
            .with_ansi(std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none())
            .fmt_fields(ShownFields)
            .try_init(),
        LogFormat::Json => {
            say_as_json_logs();
            logs.json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .try_init()
        }
    };
    // The arguments are checked before the catalog is read.
    let cfg = config(a.source.anchor(&a.paths))?;
    let http = http_setup(&a, cfg.no_auth)?;
    let (transport, mut runner) = a.run.settings(&cfg)?;
    // One set of metrics for the listener and every runner of the catalog; without metrics, an
    // observer that still passes each request's id on to the upstream.
    if let Some((_, h)) = &http {
        let observer: std::sync::Arc<dyn flowmcp_catalog::runtime::Observer> = match &h.metrics {
            Some(m) => std::sync::Arc::new(m.clone()),
            None => std::sync::Arc::new(flowmcp_mcp::http::RequestIds),
        };
        runner.observer = Some(observer);
    }
    let profile = profile_of(a.source.profile, &cfg);
    let started = std::time::Instant::now();
    let catalog = open(
        &a.source, &a.paths, a.watch, &cfg, profile, transport, runner,
    )?;
    tracing::info!(
        "catalog read: {} files, {} tools, in {} ms",
        catalog.reports().len(),
        catalog.list().len(),
        started.elapsed().as_millis()
    );
    print_problems(&catalog);
    let mut opts = flowmcp_mcp::ServeOptions::default();
    opts.only = a.only.clone();
    opts.threads = a.threads;
    opts.lazy = a.lazy;
    opts.output_schema = match a.output_schema {
        OutputSchemaArg::Compact => flowmcp_mcp::OutputSchemas::Compact,
        OutputSchemaArg::Full => flowmcp_mcp::OutputSchemas::Full,
        OutputSchemaArg::None => flowmcp_mcp::OutputSchemas::None,
    };
    opts.max_result_bytes = a
        .budget
        .bytes(cfg.max_result_bytes.or(Some(BudgetArgs::DEFAULT_BYTES)));
    opts.result_text = match a.result_text {
        ResultTextArg::Full => flowmcp_mcp::ResultText::Full,
        ResultTextArg::Summary => flowmcp_mcp::ResultText::Summary,
        ResultTextArg::None => flowmcp_mcp::ResultText::None,
    };
    opts.watch = a
        .watch
        .then(|| Duration::from_millis(a.watch_interval_ms.max(50)));
    opts.selection = a.selection.clone();
    opts.agent = a.agent.clone();
    opts.agent_tools = a.agent_tools.clone();
    opts.llm = Some(endpoint(a.llm_base_url.as_deref(), &cfg));
    opts.client_credentials = a.client_credentials;
    match http {
        None => {
            let server =
                flowmcp_mcp::McpServer::new(catalog, &opts).map_err(|e| serve_error(&e))?;
            print_waiting([&server]);
            tracing::info!("ready after {} ms", started.elapsed().as_millis());
            say(
                tracing::Level::INFO,
                &format!("flowmcp: serving {} over stdio", tools(server.tool_count())),
            );
            server.serve_stdio().map_err(|e| serve_error(&e))?;
        }
        Some((routes, http)) => {
            let endpoints =
                flowmcp_mcp::Endpoints::routes(&std::sync::Arc::new(catalog), &routes, &opts)
                    .map_err(|e| http_error(&e))?;
            print_waiting(endpoints.access(&http).map(|(_, server, _)| server));
            let lines: Vec<(String, usize, &str)> = endpoints
                .access(&http)
                .map(|(path, server, access)| {
                    (path.to_string(), server.tool_count(), access.describe())
                })
                .collect();
            let metrics_line = http.metrics.as_ref().map(|_| {
                if http.metrics_token.is_some() {
                    "metrics token required"
                } else {
                    "loopback clients only"
                }
            });
            let served = endpoints.serve(&http, |addr| {
                for (path, count, auth) in &lines {
                    say(
                        tracing::Level::INFO,
                        &format!(
                            "flowmcp: serving {} at http://{addr}{path} ({auth})",
                            tools(*count)
                        ),
                    );
                }
                if let Some(access) = metrics_line {
                    say(
                        tracing::Level::INFO,
                        &format!("flowmcp: metrics at http://{addr}/metrics ({access})"),
                    );
                }
            });
            match served {
                Ok(()) => {}
                Err(e @ HttpError::DrainCut(_)) => {
                    say(tracing::Level::ERROR, &format!("flowmcp: {e}"));
                    return Ok(ExitCode::from(1));
                }
                Err(e) => return Err(http_error(&e)),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The fields of a text log line — the message and every field, ours and those of the libraries
/// (rmcp's request ids) — with control characters escaped as [`shown`] escapes them, so
/// that a client's text (a JSON-RPC id, a tool name) cannot forge a line or reach a terminal as
/// an escape sequence. (The JSON format escapes them itself.)
struct ShownFields;

impl<'w> tracing_subscriber::fmt::FormatFields<'w> for ShownFields {
    fn format_fields<R: tracing_subscriber::field::RecordFields>(
        &self,
        mut writer: tracing_subscriber::fmt::format::Writer<'w>,
        fields: R,
    ) -> std::fmt::Result {
        let mut shown = Shown(&mut writer);
        tracing_subscriber::fmt::format::DefaultFields::new().format_fields(
            tracing_subscriber::fmt::format::Writer::new(&mut shown),
            fields,
        )
    }
}

/// Writes through [`shown`].
struct Shown<'a, 'w>(&'a mut tracing_subscriber::fmt::format::Writer<'w>);

impl std::fmt::Write for Shown<'_, '_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write_str(&shown(s))
    }
}

/// A server error as `serve` prints it: the option that asked for what failed in front.
fn serve_error(e: &ServeError) -> String {
    match e {
        ServeError::Selector(r) => format!("--only: {}", route_error(r)),
        ServeError::Selection(why) => format!("--selection {why}"),
        ServeError::Agent(why) => format!("--agent: {why}"),
        ServeError::Activation(a) => format!("--agent: {}", activation_error(a)),
        _ => e.to_string(),
    }
}

/// A route or selector error as `serve` prints it, with the option or command that helps.
fn route_error(e: &RouteError) -> String {
    match e {
        RouteError::OnlyWithRoutes => {
            "--only cannot be combined with routes: each route selects its own tools".to_string()
        }
        RouteError::UnknownTool(_) => format!("{e} (see `flowmcp list`)"),
        _ => e.to_string(),
    }
}

/// An HTTP serving error as `serve` prints it, naming the options that resolve it.
fn http_error(e: &HttpError) -> String {
    match e {
        HttpError::Serve(e) => serve_error(e),
        HttpError::Route(e) => route_error(e),
        HttpError::MetricsTokenReused => format!(
            "--metrics-token: {e} (it must differ from --auth-token and every --route-token)"
        ),
        HttpError::EmptyToken(Some(p)) if p == flowmcp_mcp::http::METRICS_PATH => {
            "--metrics-token / FLOWMCP_METRICS_TOKEN is empty (an unset variable?): give a token, \
             or leave it out to serve metrics to loopback clients only"
                .to_string()
        }
        HttpError::Unauthenticated { addr, paths } => format!(
            "refusing to serve {paths} without authentication on {addr}, which is not a loopback \
             address: set a bearer token (--auth-token or FLOWMCP_AUTH_TOKEN, --route-token) or \
             --oauth-issuer, or pass --no-auth to serve without authentication"
        ),
        _ => e.to_string(),
    }
}

/// `1 tool`, `3 tools`.
fn tools(count: usize) -> String {
    if count == 1 {
        "1 tool".to_string()
    } else {
        format!("{count} tools")
    }
}

/// Writes to stderr, per variable without a value, the tools that `servers` would serve once it
/// has one: only their own members (a tool that `--only`, a selection, an agent or every route
/// leaves out is not named), each once.
fn print_waiting<'s>(servers: impl IntoIterator<Item = &'s flowmcp_mcp::McpServer>) {
    let mut waiting: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for server in servers {
        for (var, tools) in server.waiting() {
            for t in tools {
                if seen.insert((var.clone(), t.clone())) {
                    waiting.entry(var.clone()).or_default().push(t);
                }
            }
        }
    }
    for (var, tools) in &waiting {
        say(
            tracing::Level::WARN,
            &format!(
                "flowmcp: not served until {var} is set: {}",
                tools.join(", ")
            ),
        );
    }
}

/// The HTTP routes and options `a` asks for; `None` for stdio, where the HTTP-only options are
/// an error.
/// `user_no_auth` is `noAuth` of the user's configuration (a project's does not count).
fn http_setup(
    a: &ServeArgs,
    user_no_auth: bool,
) -> Result<Option<(Vec<flowmcp_mcp::Route>, flowmcp_mcp::HttpOptions)>, String> {
    // An empty FLOWMCP_OAUTH_ISSUER counts as unset.
    let oauth_issuer = a.oauth_issuer.clone().filter(|i| !i.is_empty());
    if a.client_credentials && a.transport == Transport::Stdio {
        return Err("--client-credentials needs --transport http".into());
    }
    if a.client_credentials && !a.listen.ip().is_loopback() {
        return Err(format!(
            "refusing to take per-client credentials on {}, which is not a loopback address: \
             clients would send their keys without TLS; listen on a loopback address behind a \
             TLS-terminating proxy",
            a.listen
        ));
    }
    if a.transport == Transport::Stdio {
        if !a.routes.is_empty()
            || !a.route_tokens.is_empty()
            || oauth_issuer.is_some()
            || a.no_auth
            || a.metrics_token.is_some()
        {
            return Err(
                "--route, --route-token, --no-auth, --metrics-token and --oauth-* need \
                 --transport http"
                    .into(),
            );
        }
        return Ok(None);
    }
    let mut routes = a
        .routes
        .iter()
        .map(|r| flowmcp_mcp::Route::parse(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| route_error(&e))?;
    for t in &a.route_tokens {
        let (path, token) =
            flowmcp_mcp::route::parse_route_token(t).map_err(|e| route_error(&e))?;
        match routes.iter_mut().find(|r| r.path == path) {
            Some(r) => r.auth_token = Some(token),
            None => {
                return Err(flowmcp_mcp::RouteError::TokenWithoutRoute(path).to_string());
            }
        }
    }
    let oauth = oauth_issuer.map(|issuer| {
        let mut built = flowmcp_mcp::OAuthOptions::new(
            issuer,
            match &a.oauth_jwks {
                None => flowmcp_mcp::JwksSource::Discover,
                Some(u) if u.starts_with("http://") || u.starts_with("https://") => {
                    flowmcp_mcp::JwksSource::Url(u.clone())
                }
                Some(f) => flowmcp_mcp::JwksSource::File(PathBuf::from(f)),
            },
        );
        built.audience = a.oauth_audience.clone();
        built.required_scopes = a.oauth_scopes.clone();
        built.public_url = a.public_url.clone();
        built
    });
    let mut http = flowmcp_mcp::HttpOptions::default();
    http.listen = a.listen;
    // An empty token stays empty: `check` refuses it rather than serve without one.
    http.auth_token = a.auth_token.clone();
    http.allowed_origins = a.allow_origins.clone();
    http.allowed_hosts = a.allow_hosts.clone();
    http.oauth = oauth;
    http.header_timeout = Duration::from_millis(a.header_timeout_ms);
    http.body_timeout = Duration::from_millis(a.body_timeout_ms);
    http.max_connections = a.max_connections;
    http.max_connections_per_peer = a.max_connections_per_client;
    http.no_auth = a.no_auth || user_no_auth;
    http.metrics = (!a.no_metrics).then(flowmcp_mcp::http::Metrics::new);
    // An empty token stays empty: `check` refuses it.
    http.metrics_token = a.metrics_token.clone();
    http.grace = Duration::from_secs(a.drain_timeout);
    http.drain_min = Duration::from_secs(a.drain_min);
    // Before the catalog is read: an empty token, or an open endpoint off loopback.
    http.check(&routes).map_err(|e| http_error(&e))?;
    Ok(Some((routes, http)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Line {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn setup(args: &[&str]) -> Result<bool, String> {
        let line = Line::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        http_setup(&line.serve, false).map(|h| h.is_some())
    }

    #[test]
    fn i44_client_credentials_need_http_on_loopback() {
        let on_any = setup(&[
            "--transport",
            "http",
            "--client-credentials",
            "--listen",
            "0.0.0.0:8765",
            "--auth-token",
            "t",
        ]);
        assert!(
            on_any.as_ref().is_err_and(|e| e.contains("not a loopback")),
            "{on_any:?}"
        );
        let stdio = setup(&["--client-credentials"]);
        assert!(
            stdio
                .as_ref()
                .is_err_and(|e| e.contains("--transport http")),
            "{stdio:?}"
        );
        assert_eq!(
            setup(&["--transport", "http", "--client-credentials"]),
            Ok(true)
        );
    }
}
