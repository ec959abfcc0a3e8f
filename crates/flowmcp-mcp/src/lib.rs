//! # flowmcp-mcp
//!
//! The MCP server of a FlowMCP catalog, on the official Rust SDK (`rmcp`): `tools/list` with
//! every exposed tool (wire name, title, description, input schema, annotations, `_meta` and output
//! schema; paginated) and `tools/call` through the catalog, on worker threads of their own. Tools
//! whose `meta` says `isConcurrencySafe: false` run one at a time. A failed call is a tool error
//! (`isError: true`) whose text starts with its code (`E007 …`), never a protocol error. A call to
//! a tool the endpoint would serve if a server parameter had a value is `E006 <tool>: not served
//! until <KEY> is set` (the variable's name, never a value); any other name the endpoint does not
//! serve is `E007 <name>: unknown tool`, with the closest served name when one is close. A request
//! of a method the server serves whose `params` do not decode (a `tools/call` without `params`,
//! with a `name` that is not a string or `arguments` that are not an object) is `-32602` invalid
//! params saying what is wrong; only an unknown method is `-32601`.
//!
//! Prompts and resources come from the catalog's primitive registry
//! ([`Catalog::primitives`](flowmcp_catalog::Catalog::primitives)): `prompts/list`,
//! `prompts/get`, `resources/list`, `resources/templates/list` and `resources/read` ask it, on the
//! worker threads as calls are, and the `prompts` and `resources` capabilities are advertised only
//! when it has something to serve. A new kind of primitive registers a source with the catalog;
//! the server does not change.
//!
//! Every endpoint serves its own members only, computed once from its scope (the catalog,
//! [`ServeOptions::selection`] or [`ServeOptions::agent`]) and its selector
//! ([`ServeOptions::only`] or a route's): tools, resource queries, documents, prompts, skills and
//! resources; every list, get, read and call asks them, and nothing served (a skill's prefill, an
//! agent tool) runs a tool the endpoint does not serve.
//!
//! Over HTTP ([`McpServer::serve_http`], [`Endpoints`]) one listener serves one endpoint at
//! [`http::MCP_PATH`] or several [`Route`]s, each with what its [`Selector`] names and its own bearer
//! token; or, with [`OAuthOptions`], it is an OAuth 2.1 resource server that accepts the JWT
//! access tokens of one identity provider and publishes RFC 9728 metadata. Header and body
//! deadlines, a connection cap and a back-off on failed accepts keep the listener up against
//! clients that do not play along ([`HttpOptions`]); an endpoint without authentication is
//! served only on loopback unless [`HttpOptions::no_auth`] is set.
//!
//! To mount the endpoints in an HTTP server of your own (your listener, runtime and shutdown),
//! [`Endpoints::service`] gives a [`McpService`]: a cloneable `tower_service::Service` for
//! `http::Request`s with any `Send` body (an `http_body::Body`: hyper's `Incoming` among them), which answers
//! every path and applies every check [`Endpoints::run`] does — tokens or OAuth, Host and Origin,
//! body size and deadline, concurrency, request ids, `/healthz`, `/readyz`, `/metrics`, the OAuth
//! metadata — and drains with [`McpService::shutdown`]. `Endpoints::run` is an accept loop around
//! it that adds what belongs to a listener: the header deadline, the connection cap and the
//! accept back-off. `examples/embed_service.rs` mounts it in a small hyper server.
//!
//! An agent served with [`ServeOptions::agent`] whose manifest enables `elicitation` asks the
//! user for a call's missing required parameters through the client (`elicitation/create`: inside
//! an `InputRequiredResult` on protocol 2026-07-28 and later, as a server-to-client request on
//! older ones), at most `maxRounds` times per session.
//!
//! tokio and rmcp live only in this crate (and the CLI); the catalog below is synchronous.
//!
//! # Features
//!
//! All five are on by default. An embedder that serves a catalog in-process or over stdio
//! ([`McpServer::serve_io`], [`McpServer::serve_stdio`], `examples/in_process.rs`) needs none
//! of `http`, `oauth` and `metrics`, and `tls` only for `https://` upstreams:
//! `flowmcp-mcp = { version = "…", default-features = false, features = ["tls"] }`.
//!
//! - `http` — Streamable HTTP: the [`http`] module, [`Endpoints`], [`HttpOptions`],
//!   [`HttpError`], [`Access`], [`McpService`], [`McpServer::serve_http`]. Turning it off
//!   removes these, and hyper, hyper-util, http-body-util, tower-service and rmcp's Streamable
//!   HTTP server transport from the build.
//! - `oauth` (needs `http`) — the OAuth 2.1 resource-server mode: the [`oauth`] module,
//!   [`OAuthOptions`], [`JwksSource`], [`OAuthError`], `HttpOptions::oauth`, the RFC 9728
//!   metadata documents and `HttpError::OAuth` / `HttpError::TokenWithOAuth`. Turning it off
//!   removes jsonwebtoken with its RSA, P-256, P-384 and Ed25519 crates (ureq and `url` stay:
//!   the catalog's requests use them). [`Access::OAuth`] stays, so that a `match` on it compiles
//!   in every combination; without the feature no endpoint has it.
//! - `metrics` (needs `http`) — `GET /metrics`: [`http::Metrics`], `HttpOptions::metrics` and
//!   `metrics_token`, [`http::METRICS_PATH`] and `HttpError::MetricsTokenReused`. Turning it off
//!   removes prometheus-client; `/metrics` is then answered as any unknown path (404), as when
//!   no metrics are given. Request ids, their log line and [`http::RequestIds`] stay with `http`.
//!
//! - `tls` — HTTPS to upstream APIs and model endpoints (the catalog's and the agent's `tls`,
//!   rustls). Without it `https://` calls fail with E002 before anything is sent, saying why.
//!   `oauth` turns it on (the issuer's keys are fetched over HTTPS).
//! - `redis` — the preload cache shared in Redis by replicas (the catalog's `redis`).
//!
//! [`RUNTIME_NOTES`], the log target of the runtime's notes, is there in every combination.
//!
//! ```
//! use flowmcp_mcp::{Catalog, CatalogOptions, McpServer, Profile, ServeOptions};
//!
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/catalog");
//! let catalog = Catalog::open(dir.as_ref(), &CatalogOptions::new(Profile::Spec))?;
//! let server = McpServer::new(catalog, &ServeOptions::default())?;
//! assert!(server.tools().iter().any(|t| t.name == "getPublicHolidays_holidaykit-net"));
//! // `server.serve_stdio()?` serves it to a client that started this process;
//! // `server.serve_io(stream).await` to one in the same process (examples/in_process.rs).
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]
// The docs link to what every feature adds; with a feature off, those links have no target.
#![cfg_attr(
    not(all(feature = "http", feature = "oauth", feature = "metrics")),
    allow(rustdoc::broken_intra_doc_links)
)]

mod client_params;
mod complete;
mod elicit;
#[cfg(feature = "http")]
pub mod http;
pub mod lazy;
#[cfg(feature = "http")]
mod listener;
mod malformed;
mod members;
#[cfg(feature = "metrics")]
mod metrics;
mod names;
#[cfg(feature = "oauth")]
pub mod oauth;
mod options;
mod paging;
mod pool;
mod projection;
mod registry;
#[cfg(feature = "http")]
mod reply;
mod request;
mod results;
pub mod route;
mod server;
#[cfg(feature = "http")]
mod service;
#[cfg(feature = "http")]
mod slots;
mod tasks;
mod unknown;
mod watch;

#[cfg(feature = "http")]
pub use http::{Access, Endpoints, HttpError, HttpOptions};
#[cfg(feature = "oauth")]
pub use oauth::{JwksSource, OAuthError, OAuthOptions};
pub use options::{OutputSchemas, ResultText, ServeError, ServeOptions};
pub use request::RUNTIME_NOTES;
pub use route::{Route, RouteError, Selector, SelectorItem};
pub use server::McpServer;
#[cfg(feature = "http")]
pub use service::McpService;

// What the signatures above name, so that serving needs no other crate of this workspace.
pub use flowmcp_agent::Endpoint;
pub use flowmcp_catalog::{Catalog, CatalogError, CatalogOptions, Profile, serde_json};
