//! What the catalog's tests share: the example catalog, and options that read nothing from the
//! real environment and may reach local servers.

#![allow(dead_code)] // each test file uses what it needs

use std::collections::BTreeMap;
use std::path::PathBuf;

use flowmcp_catalog::{CatalogOptions, Profile, TransportConfig};

/// The repository's example catalog.
pub(crate) fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/catalog")
}

/// Options under `profile` with an empty environment, plain HTTP to loopback allowed, and each
/// `(namespace, base URL)` of `upstreams` replacing that namespace's root.
pub(crate) fn local_options(profile: Profile, upstreams: &[(&str, &str)]) -> CatalogOptions {
    let mut o = CatalogOptions {
        env_override: Some(BTreeMap::new()),
        transport: TransportConfig {
            allow_http_loopback: true,
            ..TransportConfig::default()
        },
        ..CatalogOptions::new(profile)
    };
    for (ns, url) in upstreams {
        o.runner.upstreams.insert(ns.to_string(), url.to_string());
    }
    o
}
