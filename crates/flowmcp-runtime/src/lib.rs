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
//! use flowmcp_runtime::{TransportConfig, UreqTransport};
//! use flowmcp_spec::SchemaMain;
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
//! let tool = toolset.tools.first().ok_or("no tool")?;
//! assert_eq!(tool.descriptor.id.to_string(), "demo/tool/ping");
//!
//! // Nothing listens on this port: the call ends with a coded error, not a panic.
//! let mut options = RunnerOptions::default();
//! options.upstreams.insert("demo".into(), "http://127.0.0.1:9".into());
//! let transport = UreqTransport::new(TransportConfig { allow_http_loopback: true, ..TransportConfig::default() });
//! let runner = Runner::new(&toolset, &transport, options);
//! let envelope = runner.call_json(&tool.descriptor.wire_name, &Default::default());
//! assert!(!envelope.status);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cache;
mod call;
mod descriptor;
mod encoding;
mod envelope;
mod generate;
mod input;
mod json;
mod output;
mod request;
mod resource;
mod schema;
mod secret;
mod toolset;
pub mod transport;

// A toolset from validated schemas, and what it knows about each tool.
pub use descriptor::{
    Builtin, DescribeOptions, DescriptorError, Kind, REFERENCE_NAME_MAX, ToolDescriptor, ToolNames,
    UserParam, WIRE_NAME_MAX, assign_wire_names, assign_wire_names_with, describe_schema,
    describe_tool, reference_tool_name,
};
pub use schema::LoadedSchema;
pub use toolset::{LoadProblem, SchemaSource, ToolEntry, Toolset, ToolsetOptions};

// Calling a tool.
pub use call::{CacheMode, LogSink, Runner, RunnerOptions};
pub use envelope::{Envelope, Failure};
pub use generate::{generate_output_schema, mime_type_for};
pub use input::{InputError, Inputs, validate_json, validate_strings};
pub use output::{check_output, is_output_mismatch};
pub use request::{
    FinalRequest, PreparedRequest, RequestError, SecretSlots, StructError, build_request, finalize,
    query_text,
};
pub use resource::{DatabaseFile, ResourceOptions};

// HTTP (the details — limits, body decoding, redaction — are in [`transport`]).
pub use encoding::base64_encode;
pub use transport::{
    HeaderValue, HttpRequest, HttpResponse, Method, Transport, TransportConfig, TransportError,
    UpstreamError, UreqTransport, check_upstream,
};

// Server parameters, flowmcp's own credentials and the redactor; the preload cache (its details
// are in [`cache`]).
pub use cache::{Cache, ClearReport};
pub use secret::{
    MAX_ENV_FILE_BYTES, MODEL_KEY, PRODUCT_CREDENTIALS, PRODUCT_PREFIX, ParamSource, Redactor,
    Secret, ServerParams, is_placeholder, is_reserved_name, parse_env_file, read_capped_text,
    read_env_file,
};
