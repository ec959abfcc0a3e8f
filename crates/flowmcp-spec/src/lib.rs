//! # flowmcp-spec
//!
//! The shared vocabulary of flowmcp-rs: the rule registry (every code of the FlowMCP v4.2.0 specification
//! plus the project extensions of `RULINGS.md`), diagnostics and reports, profiles and per-rule overrides,
//! the typed model of a schema `main`, the `z` parameter grammar, and canonical JSON hashing.
//!
//! Architecture invariant: this crate does no I/O and knows nothing about JavaScript.

pub mod diagnostic;
pub mod profile;
pub mod registry;

pub use diagnostic::{
    Collector, Counts, Diagnostic, FileReport, JsonPath, Report, Seg, Severity, Verdict,
    display_path, escape_controls, json_type,
};
pub use profile::{Level, Overrides, Profile, RuleSettings};
pub use registry::{Code, Family, Origin, RULES, RuleInfo, Status, Variant};
pub mod catalog;
pub mod hash;
pub mod id;
pub mod js;
pub mod lists;
pub mod model;
pub mod placeholder;
pub mod zod;
