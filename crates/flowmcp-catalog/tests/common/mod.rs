//! What the catalog's tests (and the MCP crate's, which include this file) share: the example
//! catalog, options that read nothing from the real environment and may reach local servers, and
//! a small local upstream.

#![allow(dead_code)] // each test file uses what it needs

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use flowmcp_catalog::{Catalog, CatalogOptions, Profile};

/// The repository's example catalog.
pub(crate) fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog")
}

/// Options under `profile` with an empty environment, plain HTTP to loopback allowed, and each
/// `(namespace, base URL)` of `upstreams` replacing that namespace's root.
pub(crate) fn local_options(profile: Profile, upstreams: &[(&str, &str)]) -> CatalogOptions {
    let mut o = CatalogOptions::new(profile);
    o.env_override = Some(BTreeMap::new());
    o.transport.allow_http_loopback = true;
    for (ns, url) in upstreams {
        o.add_upstream(ns, url)
            .expect("a test's upstream is https or loopback http");
    }
    o
}

/// The example catalog under `spec` with local options and `holidaykit-net` sent to `upstream`.
pub(crate) fn examples_at(upstream: &str) -> Catalog {
    let o = local_options(Profile::Spec, &[("holidaykit-net", upstream)]);
    Catalog::open(&examples(), &o).expect("the example catalog opens")
}

/// A local upstream answering up to `n` requests with the JSON `body`, each within 5 s of the
/// last; returns its base URL and a handle whose result is the URLs it was asked for.
pub(crate) fn json_upstream(n: usize, body: &'static str) -> (String, JoinHandle<Vec<String>>) {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("a local port");
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .expect("an IP address");
    let handle = std::thread::spawn(move || {
        let mut urls = Vec::new();
        for _ in 0..n {
            let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(5)) else {
                break;
            };
            urls.push(request.url().to_string());
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json")
                .expect("a valid header");
            let _ = request.respond(tiny_http::Response::from_string(body).with_header(header));
        }
        urls
    });
    (format!("http://127.0.0.1:{port}"), handle)
}
