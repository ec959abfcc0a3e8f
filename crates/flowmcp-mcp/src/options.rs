//! How to serve a catalog ([`ServeOptions`]) and why serving stopped ([`ServeError`]): what the
//! server and the member sets of its endpoints both read.

use std::time::Duration;

use crate::route::RouteError;

/// How to serve a catalog.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ServeOptions {
    /// Serve only what these members name, each read as a member of a route's [`Selector`](crate::Selector): a
    /// namespace (its tools, resource queries and documents), or one tool, resource query or
    /// document (Primitive-ID, lookup key or wire name). Without a selection or agent, the
    /// prompts and skills served are those of the named namespaces (a tool brings none); with
    /// one, its own. Empty serves every exposed entry and every prompt. Whatever the scope, a
    /// prompt or skill whose prefill runs a tool that is not served, and an agent tool whose
    /// agent runs one, are not served either.
    pub only: Vec<String>,
    /// Worker threads for tool calls; 0 means one per available core.
    pub threads: usize,
    /// Lazy mode: `tools/list` holds only the `alwaysLoad` tools and the meta-tools
    /// `search_tools` and `call_tool`; every served tool stays callable.
    pub lazy: bool,
    /// Watch mode: check the catalog's files this often and reload what changed (see
    /// [`McpServer::reload`](crate::McpServer::reload)); stdio clients are told when the tool list changed. Open the
    /// catalog [`reloadable`](flowmcp_catalog::CatalogOptions::reloadable) so that only changed
    /// files are read again and a broken file keeps its previous version.
    pub watch: Option<Duration>,
    /// Serve exactly the members of this selection (its Primitive-ID,
    /// `namespace/selection/name`): its tools, the entries of its resources (queries and
    /// documents), its prompts and skills. `only` then narrows its entries further.
    pub selection: Option<String>,
    /// Serve what activating this agent (its name) brings: its tools, its selections' members,
    /// its prompts and skills and the skills of its tools' namespaces, its resources. Activation
    /// refuses an agent with errors, a missing member or a missing server parameter; a hash that
    /// does not match is logged as a warning. When the manifest enables `elicitation`, a call
    /// that lacks required parameters asks the user for them through the client.
    pub agent: Option<String>,
    /// Serve each of these agents as one MCP tool, named by the agent, that runs its whole loop:
    /// its input is `input` (the request text) or, when the agent declares an `inputSchema`, that
    /// schema's object (sent to the model as JSON); its output is the final answer. A run reports
    /// progress when the client asks for it.
    pub agent_tools: Vec<String>,
    /// The model endpoint agent tools use; `None` reads the environment
    /// ([`flowmcp_agent::Endpoint::from_env`]).
    pub llm: Option<flowmcp_agent::Endpoint>,
    /// How `tools/list` advertises each tool's output schema (and whether results carry
    /// structured content).
    pub output_schema: OutputSchemas,
    /// The most bytes one tool result may take as JSON (its text and structured content
    /// together); `None` sets no bound. A result over it is cut inside the tool's declared output
    /// schema (arrays shortened, long strings cut), says what was cut in
    /// `_meta["flowmcp/cut"]`, and links to the whole, kept for ten minutes and readable page by
    /// page through `resources/read` (`flowmcp-result://…`). An image result is never cut.
    pub max_result_bytes: Option<usize>,
    /// What a result's text block carries next to its structured content.
    pub result_text: ResultText,
    /// Per-client credentials (HTTP only, D142): a request may carry a value for a server
    /// parameter the served tools declare in an `X-FlowMCP-Param-<NAME>` header, used for that
    /// request's calls only, over the server's own value. Tools waiting for a server parameter
    /// are then served; a call without the value fails with E006. A listener serving an
    /// endpoint with this set refuses to start on an address that is not a loopback one (put a
    /// TLS-terminating proxy in front).
    pub client_credentials: bool,
}

/// What the text block of a tool result carries when the result also has structured content
/// (a tool without a declared output schema always returns its data as text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultText {
    /// The data's JSON text, as MCP asks for clients that read only text (the default).
    #[default]
    Full,
    /// One line saying what the structured content holds and its size.
    Summary,
    /// No copy of the data as text: the structured content alone (a cut result keeps its
    /// one-line note and its link).
    None,
}

/// How `tools/list` advertises output schemas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputSchemas {
    /// The schema for validation: it accepts exactly the values the full schema accepts, without
    /// what no validator reads (`description`, `title`, `examples`, `$comment`, an empty
    /// `properties` or `required`), and sibling properties with identical schemas merged into one
    /// `patternProperties` entry (`"^(a|b)$"`). Structured content as with `Full`.
    #[default]
    Compact,
    /// The declared schema as it is (in JSON Schema terms: `nullable` as a `null` type).
    Full,
    /// No `outputSchema`, and results carry text content only (no structured content), as for
    /// a tool without a declared output schema: for clients that do not use either.
    None,
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// [`ServeOptions::only`] (or a route's selector) names something the catalog does not
    /// expose.
    #[error("{0}")]
    Selector(#[from] RouteError),
    /// [`ServeOptions::selection`] names no selection of the catalog, or one that cannot be
    /// activated (a member that does not resolve, a member tool that is hidden).
    #[error("selection {0}")]
    Selection(String),
    /// [`ServeOptions::agent`] names no agent of the catalog, or one that cannot be activated.
    #[error("agent: {0}")]
    Agent(String),
    /// The agent (`agent`, or one of `agent_tools`) cannot be activated.
    #[error("{0}")]
    Activation(flowmcp_catalog::ActivationError),
    /// The async runtime could not start.
    #[error("cannot start the server: {0}")]
    Runtime(#[from] std::io::Error),
    /// The MCP session failed (for example, the client sent no valid `initialize`).
    #[error("MCP session: {0}")]
    Session(String),
    /// Reading the catalog again failed (the catalog directory itself went away, …).
    #[error("reload: {0}")]
    Reload(String),
}
