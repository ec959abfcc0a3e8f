//! The MCP server handler: `initialize`, `tools/list` (paginated) and `tools/call` over a catalog.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use flowmcp_catalog::{Catalog, ECode, Envelope, ToolEntry};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::lazy;
use crate::pool::Pool;
use crate::projection::{self, Output};
use crate::registry;

/// How many entries one page of `tools/list` (and of the prompt and resource lists) holds.
pub const PAGE_SIZE: usize = 500;

/// How to serve a catalog.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Serve only these tools (Primitive-IDs or wire names); empty serves every exposed tool.
    pub only: Vec<String>,
    /// Worker threads for tool calls; 0 means one per available core.
    pub threads: usize,
    /// Lazy mode: `tools/list` holds only the `alwaysLoad` tools and the meta-tools
    /// `search_tools` and `call_tool`; every served tool stays callable.
    pub lazy: bool,
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// `--only` names a tool the catalog does not expose.
    #[error("--only {0}: no such exposed tool in the catalog (see `flowmcp list`)")]
    UnknownTool(String),
    /// The async runtime could not start.
    #[error("cannot start the server: {0}")]
    Runtime(#[from] std::io::Error),
    /// The MCP session failed (for example, the client sent no valid `initialize`).
    #[error("MCP session: {0}")]
    Session(String),
}

/// One served tool: its MCP entry and how its results are carried.
struct Served {
    tool: Tool,
    output: Output,
}

/// An MCP server over one catalog. Cheap to share: everything is behind an `Arc`.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    catalog: Arc<Catalog>,
    /// Served tools in catalog order.
    order: Vec<String>,
    /// What `tools/list` returns, in order (every served tool, or in lazy mode the `alwaysLoad`
    /// ones and the meta-tools).
    listed: Vec<Tool>,
    lazy: bool,
    /// Wire name → served tool.
    tools: HashMap<String, Served>,
    /// Whether the catalog had prompts, and resources, to serve when the server started (the
    /// capabilities advertised).
    prompts: bool,
    resources: bool,
    pool: Pool,
}

impl McpServer {
    /// Prepares the tools of `catalog` (the exposed ones, or those `opts.only` names) and starts
    /// the worker threads.
    pub fn new(catalog: Catalog, opts: &ServeOptions) -> Result<McpServer, ServeError> {
        McpServer::shared(Arc::new(catalog), opts)
    }

    /// [`McpServer::new`] over a catalog that other servers share (several endpoints over one
    /// catalog, each with its own tool set).
    pub fn shared(catalog: Arc<Catalog>, opts: &ServeOptions) -> Result<McpServer, ServeError> {
        let mut wanted: Vec<&ToolEntry> = Vec::new();
        if opts.only.is_empty() {
            wanted.extend(catalog.list().iter().filter(|e| e.descriptor.is_exposed()));
        } else {
            for name in &opts.only {
                match catalog.find(name).filter(|e| e.descriptor.is_exposed()) {
                    Some(e) => wanted.push(e),
                    None => return Err(ServeError::UnknownTool(name.clone())),
                }
            }
        }
        let mut order = Vec::new();
        let mut listed = Vec::new();
        let mut tools = HashMap::new();
        let mut serial = HashSet::new();
        for entry in wanted {
            let d = &entry.descriptor;
            if tools.contains_key(&d.wire_name) {
                continue;
            }
            // The tool's `meta` (a tool without one is concurrency-safe and not always loaded).
            let meta = catalog
                .toolset()
                .schema_of(entry)
                .main
                .tools
                .get(&d.tool)
                .and_then(|t| t.meta.as_ref());
            if meta.is_some_and(|m| !m.is_concurrency_safe) {
                serial.insert(d.wire_name.clone());
            }
            let output = Output::of(d.output_schema.as_ref());
            let tool = projection::tool(entry, &output);
            if !opts.lazy || meta.is_some_and(|m| m.always_load) {
                listed.push(tool.clone());
            }
            order.push(d.wire_name.clone());
            tools.insert(d.wire_name.clone(), Served { tool, output });
        }
        if opts.lazy {
            listed.extend(lazy::meta_tools());
        }
        let threads = if opts.threads == 0 {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        } else {
            opts.threads
        };
        let prompts = catalog.primitives().has_prompts();
        let resources = catalog.primitives().has_resources();
        let pool = Pool::start(Arc::clone(&catalog), threads, serial);
        Ok(McpServer {
            inner: Arc::new(Inner {
                catalog,
                order,
                listed,
                lazy: opts.lazy,
                tools,
                prompts,
                resources,
                pool,
            }),
        })
    }

    /// The served tools, in `tools/list` order.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.inner
            .order
            .iter()
            .filter_map(|n| self.inner.tools.get(n).map(|s| &s.tool))
    }

    /// Serves MCP over this process's stdin and stdout until the client closes stdin. Only
    /// protocol messages are written to stdout.
    ///
    /// When both are pipes (as MCP clients start servers) they are read and written on the
    /// async reactor, without a hand-off to a blocking thread per message; anything else (a
    /// terminal, a file) falls back to blocking reads and writes.
    pub fn serve_stdio(self) -> Result<(), ServeError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async move {
            let running = self
                .serve(rmcp::transport::stdio_pipes())
                .await
                .map_err(|e| ServeError::Session(e.to_string()))?;
            running
                .waiting()
                .await
                .map_err(|e| ServeError::Session(e.to_string()))?;
            Ok(())
        })
    }

    /// The served tool that `name` (a wire name or a Primitive-ID) refers to.
    fn resolve(&self, name: &str) -> Option<(&str, &Served)> {
        if let Some((k, s)) = self.inner.tools.get_key_value(name) {
            return Some((k.as_str(), s));
        }
        let entry = self.inner.catalog.find(name)?;
        let (k, s) = self
            .inner
            .tools
            .get_key_value(&entry.descriptor.wire_name)?;
        Some((k.as_str(), s))
    }
}

/// The page of `items` that `request`'s cursor asks for (the cursor is the index of the page's
/// first item), and the cursor of the next page when there is one.
fn page<T>(
    items: &[T],
    request: Option<PaginatedRequestParams>,
) -> Result<(&[T], Option<String>), ErrorData> {
    let start = match request.and_then(|r| r.cursor) {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= items.len())
            .ok_or_else(|| ErrorData::invalid_params("unknown cursor", None))?,
    };
    let end = (start + PAGE_SIZE).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((&items[start..end], next))
}

impl McpServer {
    /// `search_tools`: the served tools that best match `query` (the ranking of
    /// [`Catalog::search`]), at most `limit`.
    fn search(&self, query: &str, limit: usize) -> rmcp::model::CallToolResult {
        let found = self
            .inner
            .catalog
            .search(query)
            .into_iter()
            .filter_map(|(_, e)| self.inner.tools.get(&e.descriptor.wire_name))
            .map(|s| &s.tool)
            .take(limit)
            .collect();
        lazy::found(found)
    }

    /// Runs `f` on a worker (prompts and resources may block), or gives up when the client
    /// cancels the request.
    async fn on_worker<T, F>(
        &self,
        context: &RequestContext<RoleServer>,
        f: F,
    ) -> Result<T, ErrorData>
    where
        T: Send + 'static,
        F: FnOnce(&Catalog, &flowmcp_catalog::Caller<'_>) -> T + Send + 'static,
    {
        let reply = self.inner.pool.run(f);
        tokio::select! {
            r = reply => r.map_err(|_| ErrorData::internal_error("the request failed internally", None)),
            () = context.ct.cancelled() => {
                Err(ErrorData::internal_error("cancelled by the client", None))
            }
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder().enable_tools();
        // Prompts and resources are advertised only when the catalog has some.
        let caps = match (self.inner.prompts, self.inner.resources) {
            (true, true) => caps.enable_prompts().enable_resources().build(),
            (true, false) => caps.enable_prompts().build(),
            (false, true) => caps.enable_resources().build(),
            (false, false) => caps.build(),
        };
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("flowmcp", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let (tools, next) = page(&self.inner.listed, request)?;
        let mut result = ListToolsResult::with_all_items(tools.to_vec());
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let all = self.inner.catalog.primitives().prompts();
        let (items, next) = page(&all, request)?;
        let mut result = ListPromptsResult::with_all_items(
            items.iter().cloned().map(registry::prompt).collect(),
        );
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let name = request.name;
        let args = request.arguments.unwrap_or_default();
        let rendered = self
            .on_worker(&context, move |catalog, caller| {
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
        let all = self.inner.catalog.primitives().resources();
        let (items, next) = page(&all, request)?;
        let mut result = ListResourcesResult::with_all_items(
            items.iter().cloned().map(registry::resource).collect(),
        );
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let all = self.inner.catalog.primitives().resource_templates();
        let (items, next) = page(&all, request)?;
        let mut result = ListResourceTemplatesResult::with_all_items(
            items.iter().cloned().map(registry::template).collect(),
        );
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let read = self
            .on_worker(&context, move |catalog, caller| {
                catalog.primitives().read_resource(&uri, caller)
            })
            .await?;
        read.map(|c| registry::contents(c).into())
            .map_err(|e| registry::error(e, true))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        if self.inner.lazy && (name == lazy::SEARCH_TOOLS || name == lazy::CALL_TOOL) {
            return lazy::meta_tools().into_iter().find(|t| t.name == name);
        }
        self.resolve(name).map(|(_, s)| s.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        // In lazy mode the meta-tools come first: `search_tools` answers here, `call_tool` names
        // the tool to run.
        let (name, args) = match request.name.as_ref() {
            lazy::SEARCH_TOOLS if self.inner.lazy => {
                return Ok(match lazy::search_args(&args) {
                    Ok((query, limit)) => self.search(&query, limit),
                    Err(e) => e,
                }
                .into());
            }
            lazy::CALL_TOOL if self.inner.lazy => match lazy::call_args(args) {
                Ok(named) => named,
                Err(e) => return Ok(e.into()),
            },
            _ => (request.name.to_string(), args),
        };
        let Some((wire, served)) = self.resolve(&name) else {
            // Unknown and hidden tools are tool errors, as input errors are.
            let e = Envelope::error(ECode::E007, &name, "unknown tool");
            return Ok(projection::result(e, &Output::None).into());
        };
        let reply = self.inner.pool.submit(wire.to_string(), args);
        let envelope = tokio::select! {
            r = reply => r.unwrap_or_else(|_| {
                Envelope::error(ECode::E005, wire, "the call failed internally")
            }),
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("cancelled by the client", None));
            }
        };
        Ok(projection::result(envelope, &served.output).into())
    }
}
