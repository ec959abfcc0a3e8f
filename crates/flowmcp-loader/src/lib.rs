//! # flowmcp-loader
//!
//! Reads FlowMCP `.mjs` files without trusting them: UTF-8 and size checks, the static security scan
//! (SEC0xx / SEC2xx) on blanked source text, and evaluation of the module inside a sandboxed QuickJS
//! runtime with memory, stack and time limits. Exports come out as JSON. [`HandlerHost`] keeps a
//! module loaded to run its `handlers` at call time, with the npm libraries of `requiredLibraries`
//! loaded into the same sandbox ([`Libraries`]); [`libs`] resolves them inside one library
//! directory, confined to it.
//!
//! ```
//! use flowmcp_loader::{FileKind, Limits, RuleSettings, load_source};
//!
//! let source = "export const main = { namespace: 'demo', tools: {} }";
//! let file = load_source("demo.mjs".as_ref(), "demo.mjs", source, &Limits::default(), &RuleSettings::default());
//! assert_eq!(file.kind, FileKind::Schema);
//! let main = file.exports.as_ref().and_then(|e| e.get("main")).ok_or("no main")?;
//! assert_eq!(main["namespace"], "demo");
//!
//! // Nothing that reaches outside runs: the static scan stops it before evaluation.
//! let hostile = "import fs from 'fs'\nexport const main = {}";
//! let file = load_source("x.mjs".as_ref(), "x.mjs", hostile, &Limits::default(), &RuleSettings::default());
//! assert!(file.exports.is_none());
//! assert_eq!(file.diagnostics[0].code.as_str(), "SEC001");
//! # Ok::<(), &str>(())
//! ```
//!
//! # Features
//!
//! - `quickjs` (default): the sandboxed JavaScript engine (QuickJS, built from C by its build
//!   script): modules with code, `handlers` and their libraries ([`HandlerHost`], [`Libraries`],
//!   [`host`]). Without it the crate builds no C and runs nothing: modules that are nothing but
//!   `export const` data declarations load as before (the static scan included), any other module
//!   gets LDR009 ("not evaluated") instead of its exports.
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

mod bytes;
pub mod edit;
#[cfg(feature = "quickjs")]
mod engine;
pub mod eval;
mod evaluated;
#[cfg(feature = "quickjs")]
mod extract;
#[cfg(feature = "quickjs")]
mod factory;
mod file;
#[cfg(feature = "quickjs")]
pub mod host;
pub mod libs;
pub mod literal;
pub mod locate;
#[cfg(feature = "quickjs")]
mod modules;
pub mod scan;
mod unserializable;
pub mod walk;

#[cfg(test)]
mod test_texts;

// Reading a file: size and UTF-8 checks, scan, evaluation, exports.
pub use file::{
    FileKind, LoadedFile, Reloaded, load_file, load_file_bytes, load_source, reload_edited,
    take_mark,
};
pub use flowmcp_spec::RuleSettings;

// What a loaded file's exports are, and the limits of evaluating one. The steps on their own
// (`evaluate`, `scan`, `locate_paths`) are in their modules.
pub use eval::{EvalFailure, Exports, HandlersExport, Limits};
pub use unserializable::{PathItem, Unserializable, UnserializableKind};

// Running handlers at call time.
#[cfg(feature = "quickjs")]
pub use host::{HandlerHost, HostConfig, HostError, Libraries};

// Editing and writing files are in [`edit`], finding `.mjs` files in [`walk`].

/// Whether this build evaluates modules in the JavaScript engine (the `quickjs` feature). Without
/// it, modules that are more than data declarations are reported as LDR009, not evaluated.
pub const JAVASCRIPT_ENGINE: bool = cfg!(feature = "quickjs");

/// This crate's version (its `Cargo.toml`'s). The catalog's cache of validation results keys its
/// entries by the version of every flowmcp crate a validation runs through, so a fixed rule in a
/// newer release never serves results an older one cached.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The stack a thread that loads modules should be given (40 MiB of address space, used only as
/// far as it is touched). A module's `handlers` factory is read by a parser that recurses as
/// deep as the text nests, on a stack sized from the text; on a thread with less room each such
/// read maps a stack of its own and unmaps it after, which costs a cold run of many files about
/// a tenth of its CPU time (D197). Below this, reads need no stack of their own.
pub const THREAD_STACK_BYTES: usize = 40 << 20;
