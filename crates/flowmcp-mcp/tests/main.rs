//! The integration tests of this crate, compiled as one test binary (one link instead of one
//! per file); each file below is a module. `cargo test -p <crate> --test integration <module>::`
//! runs one file's tests.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

#[path = "../../flowmcp-catalog/tests/common/mod.rs"]
mod common;
#[path = "../../flowmcp-runtime/tests/support/mod.rs"]
mod runtime_support;
mod support;

mod agent_tool;
mod elicitation;
mod http_oauth;
mod http_routes;
mod prompts;
mod registry;
mod resources;
