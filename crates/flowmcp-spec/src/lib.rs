//! # flowmcp-spec
//!
//! The shared vocabulary of flowmcp-rs: the rule registry (every code of the FlowMCP v4.2.0
//! specification plus this project's own), diagnostics and reports, profiles and per-rule
//! overrides, the typed model of a schema's `main`, Primitive-IDs, the `{{…}}` placeholder and `z`
//! parameter grammars, the shared-list model, and canonical JSON hashing.
//!
//! This crate does no I/O and runs no JavaScript: everything here is a pure function of its input.
//!
//! ```
//! use flowmcp_spec::zod::ZType;
//! use flowmcp_spec::id::PrimitiveId;
//! use flowmcp_spec::{Code, Level};
//!
//! // Every rule code, with its level under each profile.
//! let rule = Code::parse("val014").ok_or("unknown code")?;
//! assert_eq!(rule.as_str(), "VAL014");
//! assert_eq!(rule.info().spec, Level::Error);
//!
//! // IDs and parameter types.
//! let id: PrimitiveId = "coingecko/tool/simplePrice".parse()?;
//! assert_eq!(id.namespace, "coingecko");
//! let z = ZType::parse("number()", &["min(1)"], false)?;
//! assert!(z.validate(&serde_json::json!(0)).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod diagnostic;
mod level;
mod profile;
pub mod registry;

pub mod catalog;
pub mod files;
pub mod gtfs;
pub mod hash;
pub mod id;
pub mod js;
pub mod lists;
pub mod model;
pub mod paths;
pub mod placeholder;
pub mod urls;
pub mod zod;

// Findings and reports (helpers for rendering them are in [`diagnostic`]).
pub use diagnostic::{Diagnostic, FileReport, Fix, JsonPath, Report, Severity, Verdict};
// Rule codes, their levels and the profiles that pick them (the registry's tables are in
// [`registry`]).
pub use level::{Level, SettingError};
pub use profile::{Overrides, Profile, RuleSettings};
pub use registry::Code;

/// This crate's version (its `Cargo.toml`'s). The catalog's cache of validation results keys its
/// entries by the version of every flowmcp crate a validation runs through, so a fixed rule in a
/// newer release never serves results an older one cached.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
