//! # flowmcp-catalog
//!
//! A FlowMCP catalog as one resolved whole, for the CLI, the MCP server and agents that embed a
//! catalog: open it once, then list, search and call anything in it by Primitive-ID or wire name.
//!
//! - [`Catalog::open`] reads a catalog — a directory with `registry.json` (the manifest decides
//!   which schemas are part of it), a directory without one, or one schema file — validates every
//!   file, and makes the tools of the valid schemas callable, from the same evaluation of each file.
//!   A file with errors exposes nothing callable; calling one of its tools fails with a message
//!   naming the file and its error codes.
//! - [`Catalog::list`], [`Catalog::search`], [`Catalog::find`]: the callable tools, with their
//!   IDs, wire names and descriptors computed once. Wire names are the spec's `<tool>_<namespace>`
//!   unless [`CatalogOptions::tool_names`] asks for the reference's ([`ToolNames::Reference`](runtime::ToolNames::Reference)).
//! - [`Catalog::caller`] → [`Caller`]: calls from one thread (JavaScript sandboxes are per thread);
//!   [`Catalog::call`] for a one-off call.
//! - [`Catalog::prompts`], [`Catalog::render_prompt`], [`Catalog::library`]: the catalog's own
//!   prompts and skills (provider prompts with their content files, agent prompts, skills), by ID
//!   (`{owner}/prompt/{name}`, `{owner}/skill/{name}`); rendering runs a skill's prefill through a
//!   [`Caller`] and replaces every placeholder (see `examples/skill.rs`).
//! - [`Primitives`](crate::primitives::Primitives): the catalog's prompts and resources. Each kind plugs in as a
//!   [`PromptSource`](crate::primitives::PromptSource) or [`ResourceSource`](crate::primitives::ResourceSource) ([`Catalog::register_prompts`],
//!   [`Catalog::register_resources`]); servers list, render and read through the registry only.
//! - [`Catalog::run_tests`] → [`TestReport`](crate::testing::TestReport): the tests of tools and resource queries run for
//!   real (chapters 10 and 21), PASS or FAIL per primitive, captures
//!   ([`TestReport::capture_files`](crate::testing::TestReport::capture_files)) and generated outputs ([`PrimitiveTests::generated_output`](crate::testing::PrimitiveTests::generated_output)).
//! - [`grading`]: the scoring protocol v1 transport (`prompts.json`, the grade report).
//! - [`manifest`]: `registry.json` — its `contentHash`, and writing it from the directory.
//! - [`reverse`]: which tools use which shared list (`flowmcp list-refs`).
//! - [`ListDiscovery`]: which shared lists files on disk see, cached; also validates files one by
//!   one outside a catalog (`flowmcp validate <file>`).
//!
//! Everything an embedding needs is re-exported here ([`Profile`], [`Envelope`], [`ToolEntry`],
//! [`serde_json`]), so `flowmcp-catalog` is the one dependency to add.
//!
//! ```
//! use flowmcp_catalog::serde_json::json;
//! use flowmcp_catalog::{Catalog, CatalogOptions, Code, Profile};
//!
//! // The bundled example catalog (a directory with registry.json, schemas and shared lists).
//! let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
//! let mut options = CatalogOptions::new(Profile::Spec);
//! // Send the holidaykit-net tools to a local address where nothing listens (checked: https, or
//! // plain http to a loopback host, which the transport then allows).
//! options.add_upstream("holidaykit-net", "http://127.0.0.1:9")?;
//!
//! let catalog = Catalog::open(&dir, &options)?;
//! assert!(!catalog.has_errors());
//! for tool in catalog.list() {
//!     println!("{} {}", tool.descriptor.id, tool.descriptor.wire_name);
//! }
//! let tool = catalog.find("holidaykit-net/tool/getPublicHolidays").ok_or("not found")?;
//!
//! // One caller per thread; a failed call is an envelope with a code, never a panic.
//! let caller = catalog.caller();
//! let args = json!({"year": 2026, "countryCode": "DE"});
//! let envelope = caller.call_json(&tool.descriptor.wire_name, args.as_object().ok_or("args")?);
//! assert!(!envelope.status());
//! assert_eq!(envelope.code(), Some(Code::E002));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `tls` (default): HTTPS to upstream APIs (flowmcp-runtime's `tls`). Without it `https://`
//!   calls fail with E002 before anything is sent, saying why; resources and loopback upstreams
//!   work as always.
//! - `redis` (default): the preload cache shared in Redis (`runtime::RedisCache`).
//!
//! The JavaScript engine (the loader's `quickjs`) is always on here: a catalog runs handlers.
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

mod activation;
mod caller;
mod discovery;
mod documents;
mod error;
pub mod grading;
pub mod integrity;
pub mod libs;
pub mod manifest;
pub mod migrate;
mod open;
pub mod primitives;
pub mod prompts;
mod reload;
pub mod results;
pub mod reverse;
pub mod testing;

pub use activation::{Activation, ActivationError};
pub use discovery::ListDiscovery;
pub use error::CatalogError;

// What the catalog's signatures use most, so that this crate is the one dependency to add (the
// rest of the runtime's vocabulary is in [`runtime`]).
pub use caller::{Caller, Rejected};
pub use flowmcp_runtime::{Envelope, ToolEntry};
pub use flowmcp_spec::{Code, FileReport, Profile};
/// How the catalog validates its files ([`CatalogOptions::validation`], every
/// [`ListDiscovery`] method): the profile, limits and allowed libraries.
pub use flowmcp_validate::Options as ValidationOptions;
pub use open::{Catalog, CatalogOptions};
pub use reload::Reload;
pub use serde_json;

/// The time `t` as the catalog writes it in test captures, grade reports and cache entries:
/// RFC 3339 in UTC, to the millisecond (`2026-11-29T06:30:00.123Z`).
pub fn timestamp(t: std::time::SystemTime) -> String {
    flowmcp_runtime::cache::rfc3339(t)
}

/// The checks of the files a schema on disk names (RES020, RES032–RES034: resource databases
/// and documents), made on this machine's file system; for
/// [`ValidationOptions::on_machine`]. [`Catalog::open`] uses them when the validation options
/// give none.
pub fn local_file_checks() -> std::sync::Arc<dyn flowmcp_spec::files::FileChecks> {
    std::sync::Arc::new(flowmcp_resources::LocalFiles)
}

/// The runtime's vocabulary that the catalog's own types are made of, beyond [`Envelope`] and
/// [`ToolEntry`]: the options of calls, transport, resources and the preload cache
/// ([`CatalogOptions`]' fields), how tools are named and described, a failure as data, what a
/// toolset reports, the request ID an [`Observer`](runtime::Observer) sees, server parameters
/// ([`ServerParams`](runtime::ServerParams), one client's laid over the catalog's), and how a result is
/// fitted into a size budget ([`budget`](runtime::budget)).
pub mod runtime {
    pub use flowmcp_runtime::budget;
    #[cfg(feature = "redis")]
    pub use flowmcp_runtime::cache::RedisCache;
    pub use flowmcp_runtime::cache::{BindingKey, Cache, PreloadCache};
    pub use flowmcp_runtime::secret::ServerParams;
    pub use flowmcp_runtime::transport::{
        CancelScope, Observer, REQUEST_ID_HEADER, TransportConfig, is_request_id,
    };
    pub use flowmcp_runtime::{
        CacheMode, Failure, Kind, LogSink, RateError, ResourceOptions, RunnerOptions,
        ToolDescriptor, ToolNames, Toolset, UpstreamLimits, descriptor::Builtin,
    };
}
