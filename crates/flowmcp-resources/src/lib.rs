//! # flowmcp-resources
//!
//! The engines behind FlowMCP resources (chapter 13): SQLite databases queried safely
//! ([`sqlite`]) and markdown documents read by section, line range or search ([`markdown`]).
//! They know nothing of catalogs or MCP; the catalog registers resources built on them.

mod files;
pub mod gtfs;
pub mod http;
pub mod markdown;
pub mod paths;
pub mod sqlite;

pub use files::LocalFiles;
