//! Embedding a catalog in your own program with `flowmcp-catalog` alone: open the bundled example
//! catalog, list its tools, search it, and call a tool against the demo upstream.
//!
//! ```sh
//! cargo run -p flowmcp-runtime --example demo_upstream        # terminal 1: the demo APIs on :8080
//! cargo run -p flowmcp-catalog --example embed                # terminal 2
//! cargo run -p flowmcp-catalog --example embed -- 127.0.0.1:9000   # another address
//! ```
//!
//! Without the demo upstream the call fails with a coded E002 envelope (nothing listens), which
//! the example prints too.
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

use flowmcp_catalog::serde_json::{self, Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};

fn main() {
    let upstream = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");

    // Everything is configured once: the profile (validation and calls), the HTTP client and the
    // per-call settings; here the holidaykit-net namespace goes to the local demo upstream.
    let options = match CatalogOptions::new(Profile::Spec)
        .upstream("holidaykit-net", &format!("http://{upstream}"))
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("embed: upstream {upstream}: {e}");
            std::process::exit(2);
        }
    };

    let catalog = match Catalog::open(&dir, &options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("embed: {e}");
            std::process::exit(2);
        }
    };
    if catalog.has_errors() {
        eprintln!("embed: the catalog has validation errors; only valid schemas are callable");
    }

    println!("{} tools:", catalog.list().len());
    for tool in catalog.list() {
        let d = &tool.descriptor;
        let state = if d.is_exposed() {
            ""
        } else {
            " (hidden: a server parameter is missing)"
        };
        println!("  {:<48} {}{state}", d.id.to_string(), d.wire_name);
    }

    println!("\nsearch \"holidays\":");
    for (score, tool) in catalog.search("holidays").into_iter().take(3) {
        println!("  {score:>3}  {}", tool.descriptor.wire_name);
    }

    // A caller belongs to one thread and reuses the JavaScript sandboxes of what it has called.
    let caller = catalog.caller();
    let args = json!({"year": 2026, "countryCode": "DE"});
    let args = args.as_object().cloned().unwrap_or_default();
    let envelope = caller.call_json("holidaykit-net/tool/getPublicHolidays", &args);
    println!(
        "\ncall holidaykit-net/tool/getPublicHolidays {}:\n{}",
        Value::Object(args),
        serde_json::to_string_pretty(&envelope.to_json()).unwrap_or_default()
    );
    std::process::exit(if envelope.status() { 0 } else { 1 });
}
