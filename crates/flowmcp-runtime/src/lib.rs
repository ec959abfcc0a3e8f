//! # flowmcp-runtime
//!
//! Executing FlowMCP tools (work in progress for the runtime issue): tool descriptors, input
//! validation, request building with server parameters that never leak, HTTP through a `Transport`,
//! and the response envelope. Synchronous; no async runtime.

pub mod cache;
pub mod call;
pub mod descriptor;
pub mod envelope;
pub mod input;
mod json;
pub mod output;
pub mod request;
pub mod secret;
pub mod toolset;
pub mod transport;
