//! What the MCP tests share: the example catalog, a server on 127.0.0.1 that stops when dropped,
//! a small MCP client over plain HTTP POSTs, and a real rmcp client over an in-memory pipe.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // each test file uses a part

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use flowmcp_catalog::{Catalog, CatalogOptions, Profile};
use flowmcp_mcp::McpServer;
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient, ServiceExt};

// The helpers that serve over HTTP and talk to the server with plain POSTs.
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
pub(crate) use http::*;

/// Serves `server` to an rmcp client with `handler` over an in-memory pipe, runs `f` with the
/// client, then closes both; returns what `f` returned.
pub(crate) fn with_client<H: ClientHandler, T>(
    server: McpServer,
    handler: H,
    f: impl AsyncFnOnce(&RunningService<RoleClient, H>) -> T,
) -> T {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let (a, b) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(async move {
            let running = server.serve(a).await.unwrap();
            running.waiting().await.unwrap();
        });
        let client = handler.serve(b).await.unwrap();
        let out = f(&client).await;
        client.cancel().await.unwrap();
        serving.await.unwrap();
        out
    })
}

/// The example catalog, with the API keys its skycast-io and openshelf-org tools need (nothing
/// is called upstream in these tests).
pub(crate) fn catalog() -> Arc<Catalog> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut opts = CatalogOptions::new(Profile::Spec);
    opts.env_override = Some(BTreeMap::from([
        ("SKYCAST_API_KEY".to_string(), "test-key".to_string()),
        ("OPENSHELF_API_KEY".to_string(), "test-key".to_string()),
    ]));
    Arc::new(Catalog::open(&dir, &opts).unwrap())
}
