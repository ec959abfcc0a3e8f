//! # flowmcp-runtime
//!
//! Calling the tools of validated FlowMCP schemas: tool descriptors (MCP input schemas, wire
//! names), input checks and coercion, the request the specification describes, handlers in the
//! loader's sandbox, server parameters (secrets) that never leak, HTTP through a [`Transport`],
//! the preload cache and the result [`Envelope`]. Synchronous; no async runtime.
//!
//! Schemas come in as [`SchemaSource`]s that the caller has validated (usually
//! `flowmcp-catalog`, which also reads files and finds shared lists).
//!
//! ```
//! use flowmcp_runtime::{Runner, RunnerOptions, SchemaSource, Toolset, ToolsetOptions};
//! use flowmcp_runtime::transport::{TransportConfig, UreqTransport};
//! use flowmcp_spec::model::SchemaMain;
//!
//! let main = SchemaMain::from_value(serde_json::json!({
//!     "namespace": "demo", "name": "Demo", "description": "A demo", "version": "4.2.0",
//!     "root": "https://api.example.com",
//!     "tools": { "ping": { "method": "GET", "path": "/ping", "description": "Ping",
//!                          "parameters": [] } }
//! }))?;
//! let source = SchemaSource {
//!     path: "demo.mjs".into(), display: "demo.mjs".into(), main,
//!     handlers_source: None, lists: None, lists_note: None,
//! };
//! let toolset = Toolset::from_sources(vec![source], Vec::new(), &ToolsetOptions::default());
//! let tool = toolset.tools().first().ok_or("no tool")?;
//! assert_eq!(tool.descriptor.id.to_string(), "demo/tool/ping");
//!
//! // Nothing listens on this port: the call ends with a coded error, not a panic.
//! let mut options = RunnerOptions::default();
//! let mut config = TransportConfig::default();
//! config.allow_http_loopback = options.add_upstream("demo", "http://127.0.0.1:9")?;
//! let transport = UreqTransport::new(config);
//! let runner = Runner::new(&toolset, &transport, options);
//! let envelope = runner.call_json(&tool.descriptor.wire_name, &Default::default());
//! assert!(!envelope.status());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `tls` (default): HTTPS to upstream APIs (rustls in ureq). Without it the transport refuses
//!   `https://` URLs before anything is sent, saying that the feature is off; plain `http://` to a
//!   loopback host works as always.
//! - `redis` (default): the preload cache kept in Redis and shared by replicas
//!   (`cache::RedisCache`, with its own small RESP client: the feature saves code, not
//!   dependencies).
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod auth;
pub mod budget;
pub mod cache;
mod call;
pub mod descriptor;
mod encoding;
mod envelope;
mod generate;
pub mod input;
mod json;
mod limits;
pub mod output;
pub mod request;
mod resource;
mod schema;
pub mod secret;
mod toolset;
pub mod transport;
mod upstream;

// Tools and their descriptors (the rest of the description vocabulary is in [`descriptor`]).
pub use descriptor::{Kind, ToolDescriptor, ToolNames};
pub use schema::LoadedSchema;
pub use toolset::{LoadProblem, SchemaSource, ToolEntry, Toolset, ToolsetOptions};

// Calling them (input checks are in [`input`], requests in [`request`], output checks in
// [`output`], secrets and the redactor in [`secret`]).
pub use call::{CacheMode, LogSink, Runner, RunnerOptions};
pub use envelope::{Envelope, Failure};
pub use limits::{RateError, UpstreamLimits};
pub use resource::{DatabaseFile, ResourceOptions};

// HTTP goes through a [`Transport`]; the default one, its settings and its errors are in
// [`transport`], the preload cache in [`cache`].
pub use transport::Transport;

/// This crate's version (its `Cargo.toml`'s). The catalog's cache of validation results keys its
/// entries by the version of every flowmcp crate a validation runs through, so a fixed rule in a
/// newer release never serves results an older one cached.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
