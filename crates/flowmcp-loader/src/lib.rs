//! # flowmcp-loader
//!
//! Reads FlowMCP `.mjs` files without trusting them: UTF-8 and size checks, the static security scan
//! (SEC0xx / SEC2xx) on blanked source text, and evaluation of the module inside a sandboxed QuickJS
//! runtime with memory, stack and time limits. Exports come out as JSON. [`host::HandlerHost`] keeps a
//! module loaded to run its `handlers` at call time.

pub mod eval;
mod extract;
pub mod host;
pub mod literal;
pub mod scan;
pub mod walk;

pub use eval::{
    EvalFailure, Exports, HandlersExport, Limits, PathItem, Unserializable, UnserializableKind,
    evaluate,
};
pub use host::{
    FetchError, FetchRequest, FetchResponse, HandlerHost, HostBridge, HostConfig, HostError, Phase,
};
pub mod file;
pub mod fsutil;
pub mod locate;
