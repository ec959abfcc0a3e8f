//! The MCP server handler: `initialize`, `tools/list` (paginated) and `tools/call` over a catalog.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use flowmcp_catalog::serde_json::{Map, Value};
use flowmcp_catalog::{Catalog, Code, Envelope, runtime::Failure};
use rayon::prelude::*;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock as Content, CustomRequest, CustomResult, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, Reference,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::client_params::ClientParams;
use crate::complete::{self, Completions};
use crate::elicit::{self, Elicitation, Rounds, Step};
use crate::lazy;
use crate::malformed;
use crate::members::{Members, Served};
#[cfg(feature = "metrics")]
use crate::metrics::Metrics;
use crate::names::PromptNames;
use crate::options::{ServeError, ServeOptions};
use crate::pool::{Pool, Requester};
use crate::projection::{self, Output};
use crate::registry;
use crate::request::RUNTIME_NOTES;
use crate::results::{self, Kept, PageError};
use crate::tasks::{Events, Host, Support, Tasks};
use crate::watch::{Levels, LogLevel, Watch};

/// How many entries one page of `tools/list` (and of the prompt and resource lists) holds
/// ([`McpServer::PAGE_SIZE`]).
const PAGE_SIZE: usize = 500;

/// An MCP server over one catalog. Cheap to share: everything is behind an `Arc`.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
    /// The session this handler serves (a stdio connection, or one stateless HTTP request).
    session: Arc<Session>,
}

/// What one MCP session keeps: the elicitation rounds it used, and whether server-to-client
/// requests can reach its client (not over stateless HTTP).
#[derive(Debug, Default)]
struct Session {
    rounds: Rounds,
    requests: bool,
    /// The level of log messages the client asked for (`logging/setLevel`).
    level: LogLevel,
}

struct Inner {
    /// What is served now; a reload replaces it whole.
    state: RwLock<Arc<State>>,
    opts: ServeOptions,
    /// Whether the catalog had prompts, and resources, to serve when the server started (the
    /// capabilities advertised).
    prompts: bool,
    resources: bool,
    pool: Pool,
    /// The MCP tasks of every session of this server (D131).
    tasks: Tasks,
    /// The log levels principals asked for over HTTP (D135).
    levels: Levels,
    /// Whole results of cut ones, readable page by page (D140).
    kept: Kept,
}

/// One entry of `tools/list`: a served member (by its place in [`Members::order`]), whose MCP
/// entry is made on first use, or an entry made already (a meta-tool, an agent).
enum Listed {
    Served(usize),
    Fixed(Box<Tool>),
}

/// The catalog and what is served from it.
pub(crate) struct State {
    pub(crate) catalog: Arc<Catalog>,
    /// What this endpoint serves.
    members: Members,
    /// What `tools/list` returns, in order (every served tool, or in lazy mode the `alwaysLoad`
    /// ones and the meta-tools; then the agents served as tools).
    listed: Vec<Listed>,
    /// With `--agent`: the agent's elicitation settings, when it enables elicitation.
    elicitation: Option<Elicitation>,
    /// What `completion/complete` offers for the prompts' arguments, computed with the state.
    completions: Completions,
    /// The names clients see for the prompts and skills (flat under the reference's names).
    prompt_names: PromptNames,
}

impl State {
    /// What `opts` serves of `catalog` (`strict`: a member that is not there is an error;
    /// otherwise it is left out).
    fn build(
        catalog: Arc<Catalog>,
        opts: &ServeOptions,
        strict: bool,
    ) -> Result<State, ServeError> {
        let members = Members::of(&catalog, opts, strict)?;
        let mut listed: Vec<Listed> = members
            .order()
            .iter()
            .enumerate()
            .filter(|(_, wire)| {
                members
                    .served(wire)
                    .is_some_and(|s| !opts.lazy || s.always_load)
            })
            .map(|(i, _)| Listed::Served(i))
            .collect();
        if opts.lazy {
            listed.extend(
                lazy::meta_tools()
                    .iter()
                    .map(|t| Listed::Fixed(Box::new(t.clone()))),
            );
        }
        listed.extend(
            members
                .agent_entries()
                .iter()
                .map(|t| Listed::Fixed(Box::new(t.clone()))),
        );
        let elicitation = opts
            .agent
            .as_deref()
            .and_then(|name| catalog.agent_manifest(name))
            .and_then(|agent| Elicitation::of(&agent));
        let completions = Completions::of(&catalog);
        let prompt_names = PromptNames::of(
            catalog.toolset().tool_names(),
            catalog
                .primitives()
                .prompts()
                .iter()
                .map(|p| p.name.as_str()),
        );
        Ok(State {
            catalog,
            members,
            listed,
            elicitation,
            completions,
            prompt_names,
        })
    }

    /// The MCP entries of `listed`, made in parallel where they are made for the first time.
    fn tools(&self, listed: &[Listed]) -> Vec<Tool> {
        let served = |l: &Listed| match l {
            Listed::Served(i) => self
                .members
                .order()
                .get(*i)
                .and_then(|wire| self.members.served(wire)),
            Listed::Fixed(_) => None,
        };
        listed
            .par_iter()
            .filter_map(|l| match l {
                Listed::Fixed(t) => Some(Tool::clone(t)),
                Listed::Served(_) => served(l).map(|s| s.tool(&self.catalog)),
            })
            .collect()
    }

    /// The prompts and skills served, with the names clients see.
    fn prompts(&self) -> Vec<flowmcp_catalog::primitives::PromptInfo> {
        let mut all = self.catalog.primitives().prompts();
        all.retain(|p| self.members.prompt(&p.name));
        for p in &mut all {
            let wire = self.prompt_names.wire(&p.name);
            if wire != p.name {
                p.name = wire.to_string();
            }
        }
        all
    }
}

impl McpServer {
    /// How many entries one page of `tools/list` (and of the prompt and resource lists) holds.
    pub const PAGE_SIZE: usize = PAGE_SIZE;

    /// Prepares the tools of `catalog` (the exposed ones, or those `opts.only` names) and starts
    /// the worker threads.
    pub fn new(catalog: Catalog, opts: &ServeOptions) -> Result<McpServer, ServeError> {
        McpServer::shared(Arc::new(catalog), opts)
    }

    /// [`McpServer::new`] over a catalog that other servers share (several endpoints over one
    /// catalog, each with its own tool set).
    pub fn shared(catalog: Arc<Catalog>, opts: &ServeOptions) -> Result<McpServer, ServeError> {
        let state = State::build(catalog, opts, true)?;
        let threads = if opts.threads == 0 {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        } else {
            opts.threads
        };
        let prompts = !state.prompts().is_empty();
        let resources = state
            .catalog
            .primitives()
            .resources()
            .iter()
            .any(|r| state.members.resource(&r.uri))
            || state
                .catalog
                .primitives()
                .resource_templates()
                .iter()
                .any(|t| state.members.resource(&t.uri_template));
        // With the preload cache in Redis, tasks live there too: every replica reads them (D131).
        // And so do the log levels principals asked for over HTTP (D135).
        // So are the whole results of cut ones (D140).
        let (tasks, levels, kept) = match state.catalog.preload_cache() {
            #[cfg(feature = "redis")]
            Some(flowmcp_catalog::runtime::PreloadCache::Redis(redis)) => (
                Tasks::shared_in(redis.clone()),
                Levels::shared_in(redis.clone()),
                Kept::shared_in(redis.clone()),
            ),
            _ => (Tasks::default(), Levels::default(), Kept::default()),
        };
        // A cut result's whole is read as a resource.
        let resources = resources || opts.max_result_bytes.is_some();
        Ok(McpServer {
            inner: Arc::new(Inner {
                state: RwLock::new(Arc::new(state)),
                opts: opts.clone(),
                prompts,
                resources,
                pool: Pool::start(threads),
                tasks,
                levels,
                kept,
            }),
            session: Arc::new(Session {
                rounds: Rounds::default(),
                requests: true,
                level: LogLevel::default(),
            }),
        })
    }

    /// This server for one stateless HTTP request: a session of its own, which server-to-client
    /// requests cannot reach.
    #[cfg(feature = "http")]
    pub(crate) fn stateless_session(&self) -> McpServer {
        McpServer {
            inner: Arc::clone(&self.inner),
            session: Arc::new(Session::default()),
        }
    }

    /// What is served now.
    pub(crate) fn state(&self) -> Arc<State> {
        Arc::clone(
            &self
                .inner
                .state
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// How many tools are served.
    pub fn tool_count(&self) -> usize {
        self.state().members.order().len()
    }

    /// The tools this server would serve if their server parameters had values: each variable
    /// without a value, with the wire names of the tools that wait for it (in catalog order).
    /// Only this server's own members are named: with [`ServeOptions::only`], a selection or an
    /// agent, a tool outside them is not.
    pub fn waiting(&self) -> BTreeMap<String, Vec<String>> {
        let st = self.state();
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (wire, keys) in st.members.waiting() {
            for key in keys {
                out.entry(key.clone()).or_default().push(wire.clone());
            }
        }
        out
    }

    /// The served tools, in catalog order.
    pub fn tools(&self) -> Vec<Tool> {
        let st = self.state();
        st.members
            .order()
            .iter()
            .filter_map(|n| st.members.served(n).map(|s| s.tool(&st.catalog)))
            .collect()
    }

    /// How often the catalog's files are checked, in watch mode.
    /// Whether its HTTP requests may bring server-parameter values
    /// ([`ServeOptions::client_credentials`]).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn client_credentials(&self) -> bool {
        self.inner.opts.client_credentials
    }

    pub(crate) fn watch_interval(&self) -> Option<Duration> {
        self.inner.opts.watch
    }

    /// The catalog served now.
    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.state().catalog)
    }

    /// Reads the catalog again if its files changed ([`Catalog::reload`]) and serves what it
    /// gives from then on: calls already running finish on the previous version. Returns what
    /// the reload found, or `None` when nothing changed. Blocks while files are read.
    pub fn reload(&self) -> Result<Option<ReloadReport>, ServeError> {
        let current = self.state();
        let Some(r) = current
            .catalog
            .reload()
            .map_err(|e| ServeError::Reload(e.to_string()))?
        else {
            return Ok(None);
        };
        let report = ReloadReport {
            changed: r.changed.clone(),
            removed: r.removed.clone(),
            kept: r.kept.clone(),
            tools_changed: r.tools_changed(),
            prompts_changed: current.catalog.prompts() != r.catalog.prompts(),
        };
        let state = State::build(Arc::new(r.catalog), &self.inner.opts, false)?;
        *self
            .inner
            .state
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(state);
        Ok(Some(report))
    }

    /// Serves MCP over this process's stdin and stdout until the client closes stdin. Only
    /// protocol messages are written to stdout.
    ///
    /// When both are pipes (as MCP clients start servers) they are read and written on the
    /// async reactor, without a hand-off to a blocking thread per message; anything else (a
    /// terminal, a file) falls back to blocking reads and writes. With
    /// [`ServeOptions::watch`], the catalog is reloaded when its files change and the client is
    /// told that the tool list changed.
    pub fn serve_stdio(self) -> Result<(), ServeError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async move {
            // The pipes register with the runtime, so they are made inside it.
            let (stdin, stdout) = rmcp::transport::stdio_pipes();
            self.serve_io(tokio::io::join(stdin, stdout)).await
        })
    }

    /// Serves one MCP session over `io`, any byte stream carrying newline-delimited JSON-RPC
    /// (the stdio transport's framing): one end of a [`tokio::io::duplex`] pipe for a client in
    /// the same process, a socket, a child's pipes. Returns when the client closes the stream
    /// (or the session fails). With [`ServeOptions::watch`] the catalog is reloaded as on stdio
    /// and the client told when its lists changed. Needs a tokio runtime with I/O and time
    /// enabled; calls still run on the server's own worker threads.
    ///
    /// ```no_run
    /// use flowmcp_mcp::{Catalog, CatalogOptions, McpServer, Profile, ServeOptions};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let catalog = Catalog::open("examples/catalog".as_ref(), &CatalogOptions::new(Profile::Spec))?;
    /// let server = McpServer::new(catalog, &ServeOptions::default())?;
    /// let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    /// tokio::spawn(server.serve_io(server_end));
    /// // … a client speaks MCP over `client_end`.
    /// # drop(client_end);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve_io<T>(self, io: T) -> Result<(), ServeError>
    where
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
    {
        let watch = self.watch_interval();
        // rmcp speaks over one end of a pipe; a pump between the client's stream and the other
        // end answers the MCP task requests and completes `initialize` and `tools/list` (D131).
        let (inner, outer) = tokio::io::duplex(1 << 16);
        let pump = tokio::spawn(crate::tasks::pump(self.clone(), io, outer));
        let running = match ServiceExt::serve(self.clone(), inner).await {
            Ok(r) => r,
            Err(e) => {
                pump.abort();
                return Err(ServeError::Session(e.to_string()));
            }
        };
        let watcher = watch.map(|every| {
            let peer = running.peer().clone();
            tokio::spawn(self.watch(every, Some(peer), |_| {}))
        });
        let ended = running
            .waiting()
            .await
            .map_err(|e| ServeError::Session(e.to_string()));
        if let Some(w) = watcher {
            w.abort();
        }
        // What rmcp wrote last reaches the client before the stream is given up.
        let _ = tokio::time::timeout(Duration::from_secs(5), pump).await;
        ended.map(|_| ())
    }

    /// Checks the catalog's files every `every` and reloads when they changed; the diagnostics
    /// of broken files go to the log, `reloaded` hears of each reload (`true`: it changed what
    /// is served; `false`: it failed and the previous catalog stays), and `peer` (when there is
    /// one) is told that the tool list changed (and, when the listed prompts differ, that the
    /// prompt list changed). Runs until the task is dropped.
    pub(crate) async fn watch(
        self,
        every: Duration,
        peer: Option<Peer<RoleServer>>,
        reloaded: impl Fn(bool) + Send + 'static,
    ) {
        loop {
            tokio::time::sleep(every).await;
            let server = self.clone();
            let outcome = tokio::task::spawn_blocking(move || server.reload()).await;
            let report = match outcome {
                Ok(Ok(Some(r))) => r,
                Ok(Ok(None)) => continue,
                Ok(Err(e)) => {
                    tracing::error!("reload: {e}");
                    reloaded(false);
                    continue;
                }
                Err(e) => {
                    tracing::error!("reload: {e}");
                    reloaded(false);
                    continue;
                }
            };
            reloaded(true);
            report.log();
            if report.tools_changed
                && let Some(p) = &peer
                && let Err(e) = p.notify_tool_list_changed().await
            {
                tracing::warn!("could not tell the client that the tool list changed: {e}");
            }
            if report.prompts_changed
                && let Some(p) = &peer
                && let Err(e) = p.notify_prompt_list_changed().await
            {
                tracing::warn!("could not tell the client that the prompt list changed: {e}");
            }
        }
    }
}

impl Host for McpServer {
    type Info = RequestInfo;

    /// The MCP tasks of this server.
    fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// Whether the tool `name` may, must or must not be called as a task: a served tool's
    /// reserved `async` field says ([`Support::of`]); the meta-tools and agents run only as
    /// plain calls; a name not served is `optional` (its call, a tool error, is the same either
    /// way).
    fn task_support(&self, name: &str) -> Support {
        if self.inner.opts.lazy && (name == lazy::SEARCH_TOOLS || name == lazy::CALL_TOOL) {
            return Support::Forbidden;
        }
        let st = self.state();
        if st.members.agent(name).is_some() {
            return Support::Forbidden;
        }
        let Some((_, served)) = st.members.tool(&st.catalog, name) else {
            return Support::Optional;
        };
        let declared = served
            .entry
            .and_then(|i| st.catalog.list().get(i))
            .and_then(|entry| {
                let schema = st.catalog.toolset().schemas().get(entry.schema)?;
                schema.main.tools.get(&entry.descriptor.tool)
            })
            .and_then(|tool| tool.async_.as_ref());
        Support::of(declared)
    }

    /// Runs the tool call `name` of a task on the worker path of a plain call (without
    /// elicitation or progress: a task has no request to report on) and gives the
    /// `CallToolResult` as JSON; `None` when `stop` is signalled first (the task was cancelled:
    /// the result is not waited for), `Err` when the result cannot be written.
    async fn call_for_task(
        &self,
        name: &str,
        args: Map<String, Value>,
        info: Option<RequestInfo>,
        stop: Arc<tokio::sync::Notify>,
    ) -> Option<Result<Value, String>> {
        let started = std::time::Instant::now();
        let st = self.state();
        let result = match st.members.tool(&st.catalog, name) {
            None => {
                let meta = lazy::meta_tools().iter().filter(|_| self.inner.opts.lazy);
                let e = st
                    .members
                    .not_served(&st.catalog, name, meta.map(|t| t.name.as_ref()));
                finished(info.as_ref(), &Arc::from(UNKNOWN_TOOL), &e, started);
                projection::result(e, &Output::None, projection::Media::Json)
            }
            Some((wire, served)) => {
                let scope = flowmcp_catalog::runtime::CancelScope::new();
                let run = Requester {
                    request_id: info.as_ref().map(|i| Arc::clone(&i.id)),
                    phases: None,
                    scope: Some(scope.clone()),
                    params: info.as_ref().and_then(|i| i.params.clone()),
                };
                let current = paging_value(served, &args);
                let Some(envelope) = self
                    .run_served(&st, wire, served, args, run, stop.notified())
                    .await
                else {
                    // The upstream requests in flight are ended (their connections close).
                    scope.cancel();
                    return None;
                };
                finished(info.as_ref(), &served.id, &envelope, started);
                self.shaped(
                    &st.catalog,
                    envelope,
                    served,
                    info.as_ref(),
                    current.as_ref(),
                )
            }
        };
        let mut value = match flowmcp_catalog::serde_json::to_value(&result) {
            Ok(v) => v,
            Err(e) => return Some(Err(e.to_string())),
        };
        // `resultType` belongs to the SEP-2663 protocol; rmcp leaves it out of a plain call's
        // answer under 2025-11-25, and so does the task's result.
        if let Some(obj) = value.as_object_mut() {
            obj.remove("resultType");
        }
        Some(Ok(value))
    }

    fn events(info: Option<&RequestInfo>) -> Events {
        Events::new(
            #[cfg(feature = "metrics")]
            info.and_then(|i| i.metrics.clone()),
            info.map(|i| Arc::clone(&i.route)),
        )
    }
}

/// What a reload found: the files read again, those gone, and the broken ones that keep
/// serving their previous version.
#[derive(Clone, Debug)]
pub struct ReloadReport {
    /// Files read again because they are new or changed.
    pub changed: Vec<String>,
    /// Files that are gone.
    pub removed: Vec<String>,
    /// Changed files that have errors now and keep serving their previous good version.
    pub kept: Vec<flowmcp_catalog::FileReport>,
    /// Whether the served tools may differ (clients are told the list changed).
    pub tools_changed: bool,
    /// Whether the listed prompts differ (clients are told the list changed).
    pub prompts_changed: bool,
}

impl ReloadReport {
    /// Writes the reload to the log: what changed at `info`, each broken file's errors at `warn`.
    fn log(&self) {
        for f in &self.changed {
            tracing::info!("reloaded {f}");
        }
        for f in &self.removed {
            tracing::info!("removed {f}");
        }
        for r in &self.kept {
            let errors: Vec<String> = r
                .diagnostics()
                .iter()
                .filter(|d| d.severity == flowmcp_spec::Severity::Error)
                .map(|d| {
                    let at = d.line.map(|l| format!(":{l}")).unwrap_or_default();
                    format!("{}{at} {} {}", r.file(), d.code.as_str(), d.message)
                })
                .collect();
            tracing::warn!(
                "{} has errors; its previous version keeps serving: {}",
                r.file(),
                errors.join("; ")
            );
        }
    }
}

/// The page of `items` that `request`'s cursor asks for (the cursor is the index of the page's
/// first item), and the cursor of the next page when there is one.
fn page<T>(
    items: &[T],
    request: Option<PaginatedRequestParams>,
) -> Result<(&[T], Option<String>), ErrorData> {
    let (start, end, next) = bounds(items.len(), request)?;
    Ok((&items[start..end], next))
}

/// [`page`] of a list the registry just built, each item moved into its MCP entry by `entry`.
fn page_of<T, U>(
    items: Vec<T>,
    request: Option<PaginatedRequestParams>,
    entry: impl FnMut(T) -> U,
) -> Result<(Vec<U>, Option<String>), ErrorData> {
    let (start, end, next) = bounds(items.len(), request)?;
    let entries = items.into_iter().skip(start).take(end - start).map(entry);
    Ok((entries.collect(), next))
}

/// The start and end of the page of a list of `len` items that `request`'s cursor asks for, and
/// the next page's cursor.
fn bounds(
    len: usize,
    request: Option<PaginatedRequestParams>,
) -> Result<(usize, usize, Option<String>), ErrorData> {
    let start = match request.and_then(|r| r.cursor) {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= len)
            .ok_or_else(|| ErrorData::invalid_params("unknown cursor", None))?,
    };
    let end = (start + PAGE_SIZE).min(len);
    Ok((start, end, (end < len).then(|| end.to_string())))
}

impl McpServer {
    /// `search_tools`: the served tools that best match `query` (the ranking of
    /// [`Catalog::search`]), at most `limit`.
    fn search(&self, query: &str, limit: usize) -> rmcp::model::CallToolResult {
        let st = self.state();
        let found = st
            .catalog
            .search(query)
            .into_iter()
            .filter_map(|(_, e)| st.members.served(&e.descriptor.wire_name))
            .map(|s| s.tool(&st.catalog))
            .take(limit)
            .collect();
        lazy::found(found)
    }

    /// Runs `f` with `catalog` on a worker (prompts and resources may block), or gives up when
    /// the client cancels the request.
    async fn on_worker<T, F>(
        &self,
        catalog: &Arc<Catalog>,
        context: &RequestContext<RoleServer>,
        f: F,
    ) -> Result<T, ErrorData>
    where
        T: Send + 'static,
        F: FnOnce(&Catalog, &flowmcp_catalog::Caller<'_>) -> T + Send + 'static,
    {
        let reply = self.inner.pool.run(Arc::clone(catalog), f);
        tokio::select! {
            r = reply => r.map_err(|_| ErrorData::internal_error("the request failed internally", None)),
            () = context.ct.cancelled() => {
                Err(ErrorData::internal_error("cancelled by the client", None))
            }
        }
    }
}

impl McpServer {
    /// The `tools/call` result of `envelope`, a call of `served` by `info`'s principal, shaped by
    /// the server's result budget and text setting (D140).
    fn shaped(
        &self,
        catalog: &Catalog,
        envelope: Envelope,
        served: &Served,
        info: Option<&RequestInfo>,
        current: Option<&Value>,
    ) -> rmcp::model::CallToolResult {
        let owner = info.map_or(STDIO_OWNER, |i| &*i.owner);
        let keep = |text: String, page_bytes: usize| self.inner.kept.keep(owner, text, page_bytes);
        let shape = projection::Shape {
            max_bytes: self.inner.opts.max_result_bytes,
            text: self.inner.opts.result_text,
            keep: Some(&keep),
            paging: served.paging.as_ref().map(|p| (p, current)),
        };
        projection::shaped(envelope, &served.output(catalog), served.media, &shape)
    }

    /// Runs the served tool `wire` with `args` on the worker threads, for `run`: its envelope,
    /// or `None` when `stop` came first (a plain call and a task's call alike).
    async fn run_served(
        &self,
        st: &State,
        wire: &str,
        served: &Served,
        args: Map<String, Value>,
        run: Requester,
        stop: impl std::future::Future<Output = ()>,
    ) -> Option<Envelope> {
        let reply = self.inner.pool.submit(
            Arc::clone(&st.catalog),
            wire.to_string(),
            served.entry,
            served.serial,
            args,
            run,
        );
        tokio::select! {
            r = reply => Some(r.unwrap_or_else(|_| {
                Envelope::error(Code::E005, wire, "the call failed internally")
            })),
            () = stop => None,
        }
    }

    async fn run_agent(
        &self,
        catalog: &Arc<Catalog>,
        agent: String,
        schema_input: bool,
        args: Map<String, Value>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let input = if schema_input {
            Value::Object(args).to_string()
        } else {
            match args.get("input").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => {
                    let failure =
                        Failure::new(Code::E007, agent, "`input` (the request text) is required");
                    return Ok(
                        CallToolResult::error(vec![Content::text(failure.to_string())]).into(),
                    );
                }
            }
        };
        let endpoint = self
            .inner
            .opts
            .llm
            .clone()
            .unwrap_or_else(flowmcp_agent::Endpoint::from_env);
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let forward = tokio::spawn(async move {
            let mut step = 0.0;
            while let Some(message) = rx.recv().await {
                if let Some(t) = &token {
                    step += 1.0;
                    let _ = peer
                        .notify_progress(
                            ProgressNotificationParam::new(t.clone(), step).with_message(message),
                        )
                        .await;
                }
            }
        });
        let budget = self.inner.opts.max_result_bytes;
        let result = self
            .on_worker(catalog, &context, move |catalog, _caller| {
                // The tool calls' notes go to the server's log, in its format (JSON or text).
                let runner = flowmcp_agent::AgentRunner::new(catalog, &agent, endpoint)?
                    .with_notes(|line| {
                        tracing::info!(target: RUNTIME_NOTES, "{line}");
                    })
                    .with_result_budget(budget);
                runner.run_observed(&input, &mut |m| {
                    let _ = tx.send(m.to_string());
                })
            })
            .await?;
        let _ = forward.await;
        Ok(match result {
            Ok(outcome) => CallToolResult::success(vec![Content::text(outcome.answer)]),
            Err(e) => CallToolResult::error(vec![Content::text(e.to_string())]),
        }
        .into())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let tools = ServerCapabilities::builder().enable_tools();
        let mut caps = if self.inner.opts.watch.is_some() {
            tools.enable_tool_list_changed()
        } else {
            tools
        }
        .build();
        // Prompts and resources are advertised only when the catalog has some.
        let all = ServerCapabilities::builder()
            .enable_prompts()
            .enable_resources()
            .build();
        if self.inner.prompts {
            caps.prompts = if self.inner.opts.watch.is_some() {
                ServerCapabilities::builder()
                    .enable_prompts()
                    .enable_prompts_list_changed()
                    .build()
                    .prompts
            } else {
                all.prompts
            };
        }
        if self.inner.resources {
            caps.resources = all.resources;
        }
        // Completion of prompt arguments (D128) and log messages at the client's level (D129).
        caps.completions = Some(Default::default());
        caps.logging = Some(Default::default());
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("flowmcp", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let st = self.state();
        let (listed, next) = page(&st.listed, request)?;
        let mut result = ListToolsResult::with_all_items(st.tools(listed));
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let all = self.state().prompts();
        let (items, next) = page_of(all, request, registry::prompt)?;
        let mut result = ListPromptsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        // One snapshot: the catalog that renders is the one whose members were checked.
        let st = self.state();
        let name = st.prompt_names.catalog(&request.name).to_string();
        if !st.members.prompt(&name) {
            return Err(registry::error(
                flowmcp_catalog::primitives::PrimitiveError::NotFound(name),
                false,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let rendered = self
            .on_worker(&st.catalog, &context, move |catalog, caller| {
                catalog.primitives().render_prompt(&name, &args, caller)
            })
            .await?;
        rendered
            .map(|r| registry::rendered(r).into())
            .map_err(|e| registry::error(e, false))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let st = self.state();
        let all: Vec<_> = st
            .catalog
            .primitives()
            .resources()
            .into_iter()
            .filter(|r| st.members.resource(&r.uri))
            .collect();
        let (items, next) = page_of(all, request, registry::resource)?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let st = self.state();
        let all: Vec<_> = st
            .catalog
            .primitives()
            .resource_templates()
            .into_iter()
            .filter(|t| st.members.resource(&t.uri_template))
            .collect();
        let (items, next) = page_of(all, request, registry::template)?;
        let mut result = ListResourceTemplatesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        if uri.starts_with(results::SCHEME) {
            let owner = RequestInfo::of(&context).map(|i| i.owner);
            let owner = owner.as_deref().unwrap_or(STDIO_OWNER);
            return match self.inner.kept.read(&uri, owner) {
                Ok(r) => Ok(r.into()),
                Err(PageError::Unknown) => Err(ErrorData::resource_not_found(
                    format!("no kept result at {uri} (results are kept for ten minutes)"),
                    None,
                )),
                Err(PageError::NoSuchPage(n)) => Err(ErrorData::invalid_params(
                    format!("the kept result has no page {n}"),
                    None,
                )),
            };
        }
        let st = self.state();
        if !st.members.resource(&uri) {
            return Err(registry::error(
                flowmcp_catalog::primitives::PrimitiveError::NotFound(uri),
                true,
            ));
        }
        let read = self
            .on_worker(&st.catalog, &context, move |catalog, caller| {
                catalog.primitives().read_resource(&uri, caller)
            })
            .await?;
        read.map(|c| registry::contents(c).into())
            .map_err(|e| registry::error(e, true))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let context = request.context.as_ref().and_then(|c| c.arguments.as_ref());
        let completion = match &request.r#ref {
            Reference::Prompt(p) => {
                let st = self.state();
                // A prompt this server does not have completes to nothing, as an unknown
                // argument does (MCP says an error SHOULD be given; the conformance suite asks
                // for a prompt a server need not have and wants a result: D128).
                let name = st.prompt_names.catalog(&p.name);
                if !st.members.prompt(name) {
                    return Ok(CompleteResult::new(complete::rank(
                        &[],
                        &request.argument.value,
                    )));
                }
                st.completions.prompt(
                    name,
                    &request.argument.name,
                    &request.argument.value,
                    context,
                )
            }
            // A document's parts (`section`, `lines`, `search`) are free text (D128).
            _ => complete::rank(&[], &request.argument.value),
        };
        Ok(CompleteResult::new(completion))
    }

    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); the protocol has it.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Over stateless HTTP the session is the request: the level is remembered for the
        // request's principal instead (D135).
        if let Some(info) = RequestInfo::of(&context) {
            self.inner.levels.set(&info.owner, request.level);
        }
        self.session.level.set(request.level);
        Ok(())
    }

    /// A request rmcp could not decode as any it knows arrives here: for a known method (a
    /// `tools/call` without `params`, with a `name` that is not a string, …) the answer is
    /// `-32602` invalid params saying what is wrong; only an unknown method is `-32601`.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(malformed::error(&request.method, request.params.as_ref()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        if self.inner.opts.lazy && (name == lazy::SEARCH_TOOLS || name == lazy::CALL_TOOL) {
            return lazy::meta_tools().iter().find(|t| t.name == name).cloned();
        }
        let st = self.state();
        st.members
            .tool(&st.catalog, name)
            .map(|(_, s)| s.tool(&st.catalog))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = std::time::Instant::now();
        let info = RequestInfo::of(&context);
        let answers = request.input_responses.clone();
        let args = request.arguments.unwrap_or_default();
        // In lazy mode the meta-tools come first: `search_tools` answers here, `call_tool` names
        // the tool to run.
        let (name, args) = match request.name.as_ref() {
            lazy::SEARCH_TOOLS if self.inner.opts.lazy => {
                return Ok(match lazy::search_args(&args) {
                    Ok((query, limit)) => self.search(&query, limit),
                    Err(e) => lazy::input_error(lazy::SEARCH_TOOLS, &e),
                }
                .into());
            }
            lazy::CALL_TOOL if self.inner.opts.lazy => match lazy::call_args(args) {
                Ok(named) => named,
                Err(e) => return Ok(lazy::input_error(lazy::CALL_TOOL, &e).into()),
            },
            _ => (request.name.to_string(), args),
        };
        let st = self.state();
        if let Some((agent, schema_input)) = st.members.agent(&name).cloned() {
            return self
                .run_agent(&st.catalog, agent, schema_input, args, context)
                .await;
        }
        let Some((wire, served)) = st.members.tool(&st.catalog, &name) else {
            // Unknown and waiting tools are tool errors, as input errors are.
            let meta = lazy::meta_tools().iter().filter(|_| self.inner.opts.lazy);
            let e = st
                .members
                .not_served(&st.catalog, &name, meta.map(|t| t.name.as_ref()));
            finished(info.as_ref(), &Arc::from(UNKNOWN_TOOL), &e, started);
            return Ok(projection::result(e, &Output::None, projection::Media::Json).into());
        };
        // An agent that enables elicitation asks the user for missing required parameters.
        let (args, note) = match &st.elicitation {
            None => (args, None),
            Some(el) => {
                let modern = context
                    .protocol_version()
                    .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
                let capabilities = context.client_capabilities();
                let client = elicit::Client {
                    answers: answers.as_ref(),
                    capabilities: capabilities.as_ref(),
                    modern,
                    requests: self.session.requests,
                };
                let input = served.input_schema(&st.catalog);
                let step = el.step(wire, &input, args, &client, &self.session.rounds);
                match step {
                    Step::Run(args, note) => (args, note),
                    Step::Ask(ask) => return Ok(ask.into()),
                    Step::Request(form, mut args) => {
                        let answer = tokio::select! {
                            r = context.peer.create_elicitation(form) => r,
                            () = context.ct.cancelled() => {
                                return Err(ErrorData::internal_error("cancelled by the client", None));
                            }
                        };
                        let note = match answer {
                            Ok(result) => elicit::apply(&input, &mut args, result),
                            Err(e) => {
                                Some(format!("the client did not answer the elicitation: {e}"))
                            }
                        };
                        (args, note)
                    }
                }
            }
        };
        // The request's own level, else (over HTTP) the one its principal asked for, else the
        // session's (D135).
        let asked = context
            .meta
            .log_level()
            .or_else(|| info.as_ref().and_then(|i| self.inner.levels.get(&i.owner)));
        let level = self.session.level.for_request(asked);
        let watch = Watch::start(
            &context.peer,
            context.meta.get_progress_token(),
            &level,
            &served.id,
        );
        let (watch, phases) = watch.map_or((None, None), |(w, p)| (Some(w), Some(p)));
        let run = Requester {
            request_id: info.as_ref().map(|i| Arc::clone(&i.id)),
            phases,
            scope: None,
            params: info.as_ref().and_then(|i| i.params.clone()),
        };
        let current = paging_value(served, &args);
        let Some(envelope) = self
            .run_served(&st, wire, served, args, run, context.ct.cancelled())
            .await
        else {
            return Err(ErrorData::internal_error("cancelled by the client", None));
        };
        let envelope = match note {
            Some(note) => envelope.with_message(note),
            None => envelope,
        };
        finished(info.as_ref(), &served.id, &envelope, started);
        if let Some(w) = watch {
            w.end(envelope.code().map(Code::as_str), started.elapsed())
                .await;
        }
        Ok(self
            .shaped(
                &st.catalog,
                envelope,
                served,
                info.as_ref(),
                current.as_ref(),
            )
            .into())
    }
}

/// The call's value of `served`'s paging parameter, kept before the arguments go to the call.
fn paging_value(served: &Served, args: &Map<String, Value>) -> Option<Value> {
    served
        .paging
        .as_ref()
        .and_then(|p| args.get(p.param()))
        .cloned()
}

/// The owner of what a stdio client leaves on the server (its kept results): the process serves
/// that one client.
const STDIO_OWNER: &str = "stdio";

/// What the listener knows of one MCP request, handed to the server in the request's extensions:
/// its id, its endpoint's path, whose it is and the metrics to count it in.
#[derive(Clone, Debug)]
pub(crate) struct RequestInfo {
    pub(crate) id: Arc<str>,
    pub(crate) route: Arc<str>,
    /// The principal: a digest of the endpoint and the request's credential (D131). Its tasks
    /// and its remembered log level are its own.
    pub(crate) owner: Arc<str>,
    /// The server-parameter values the request brought, when its endpoint takes them
    /// ([`ServeOptions::client_credentials`], D142).
    pub(crate) params: Option<ClientParams>,
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Option<Metrics>,
}

impl RequestInfo {
    /// What the HTTP listener put into the extensions of the request `context` answers (nothing
    /// over stdio).
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Option<RequestInfo> {
        context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.extensions.get::<RequestInfo>())
            .cloned()
    }
}

/// The `tool` label and log field of a call to a name the endpoint does not serve (the name came
/// from the client and is not repeated).
const UNKNOWN_TOOL: &str = "unknown";

/// A tool call over HTTP ended: counts it in the listener's metrics and writes its log line (at
/// `info`: the route, the tool's ID, the outcome code, the duration and the request id; never an
/// argument or a result).
fn finished(
    info: Option<&RequestInfo>,
    tool: &Arc<str>,
    envelope: &Envelope,
    started: std::time::Instant,
) {
    let Some(info) = info else { return };
    let took = started.elapsed();
    let outcome = envelope.code().map(Code::as_str);
    #[cfg(feature = "metrics")]
    if let Some(m) = &info.metrics {
        m.call(&info.route, tool, outcome, took);
    }
    tracing::info!(
        target: "flowmcp::call",
        route = &*info.route,
        tool = &**tool,
        outcome = outcome.unwrap_or("ok"),
        duration_ms = took.as_secs_f64() * 1000.0,
        request_id = &*info.id,
        "tool call"
    );
}
