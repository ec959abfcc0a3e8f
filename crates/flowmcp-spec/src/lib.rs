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
//! use flowmcp_spec::{Code, Level, PrimitiveId};
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

mod diagnostic;
mod level;
mod profile;
mod registry;

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
pub mod zod;

// Rules and their findings.
pub use diagnostic::{
    Collector, Counts, Diagnostic, FileReport, JsonPath, Report, Seg, Severity, Verdict,
    display_path, escape_controls, escape_controls_in_block, json_kind, json_type,
};
pub use level::{Level, SettingError};
pub use profile::{Overrides, Profile, RuleSettings};
pub use registry::{Code, Family, Origin, PROJECT_SECTION, RULES, RuleInfo, Status, Variant};

// The types most signatures use.
pub use id::{IdType, PrimitiveId, SchemaFileId};
pub use lists::{ListRegistry, ListScope, SharedList};
pub use model::{
    Location, Resource, ResourceMode, ResourceOrigin, ResourceParameter, ResourceQuery,
    ResourceSource, SchemaMain,
};
pub use zod::ZType;
