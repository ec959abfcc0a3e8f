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

/// The in-process serving example, run as a test (so the documented example keeps working).
#[path = "../examples/in_process.rs"]
mod in_process_example;

#[test]
fn i29_the_in_process_example_serves_and_calls_with_flowmcp_mcp_and_tokio_only() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = rt.block_on(in_process_example::run(&root)).unwrap();
    assert!(outcome.tools >= 10, "{outcome:?}");
    assert!(!outcome.is_error, "{outcome:?}");
    // The data of examples/demo-upstream/holidays/2026/DE, through the catalog's tool.
    assert!(
        outcome.text.contains("\"date\":\"2026-01-01\""),
        "{outcome:?}"
    );
}
