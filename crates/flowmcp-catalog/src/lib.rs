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
//!   IDs, wire names and descriptors computed once.
//! - [`Catalog::caller`] → [`Caller`]: calls from one thread (JavaScript sandboxes are per thread);
//!   [`Catalog::call`] for a one-off call.
//! - [`manifest`]: `registry.json` — its `contentHash`, and writing it from the directory.
//! - [`reverse`]: which tools use which shared list (`flowmcp list-refs`).
//! - [`ListDiscovery`]: which shared lists files on disk see, cached; also validates files one by
//!   one outside a catalog (`flowmcp validate <file>`).
//!
//! Everything an embedding needs is re-exported here ([`Profile`], [`Envelope`], [`ToolEntry`],
//! [`serde_json`]), so `flowmcp-catalog` is the one dependency to add.
//!
//! ```no_run
//! use flowmcp_catalog::{Catalog, CatalogOptions, Profile};
//!
//! let catalog = Catalog::open("examples/catalog".as_ref(), &CatalogOptions::new(Profile::Spec))?;
//! for tool in catalog.list() {
//!     println!("{} {}", tool.descriptor.id, tool.descriptor.wire_name);
//! }
//! let caller = catalog.caller();
//! let args = flowmcp_catalog::serde_json::json!({"year": 2026, "countryCode": "DE"});
//! let envelope = caller.call_json("getPublicHolidays_holidaykit-net", args.as_object().unwrap());
//! println!("{}", envelope.to_json());
//! # Ok::<(), flowmcp_catalog::CatalogError>(())
//! ```

mod discovery;
mod error;
pub mod manifest;
mod open;
pub mod reverse;

pub use discovery::ListDiscovery;
pub use error::CatalogError;
pub use flowmcp_runtime::envelope::Envelope;
pub use flowmcp_runtime::toolset::ToolEntry;
pub use flowmcp_spec::Profile;
/// The validator the catalog runs on every file (its [`Options`](flowmcp_validate::Options) are
/// [`CatalogOptions::validation`]).
pub use flowmcp_validate as validate;
pub use open::{Caller, Catalog, CatalogOptions, Rejected};
pub use serde_json;
