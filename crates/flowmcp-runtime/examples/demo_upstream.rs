//! A local stand-in for the example catalog's APIs: serves the files of `examples/demo-upstream/`
//! on 127.0.0.1 (default port 8080) as JSON, the request path naming the file (query strings are
//! ignored, `..` is refused). For the README's local demo:
//!
//! ```sh
//! cargo run -p flowmcp-runtime --example demo_upstream            # terminal 1
//! cargo run -p flowmcp-cli -- call listCountries_holidaykit-net \
//!     --catalog examples/catalog --upstream holidaykit-net=http://127.0.0.1:8080   # terminal 2
//! ```
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(8080);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/demo-upstream");
    let server = match tiny_http::Server::http(("127.0.0.1", port)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("demo_upstream: cannot listen on 127.0.0.1:{port}: {e}");
            std::process::exit(2);
        }
    };
    eprintln!(
        "demo_upstream: serving {} on http://127.0.0.1:{port}",
        dir.display()
    );
    for req in server.incoming_requests() {
        let path = req.url().split('?').next().unwrap_or_default().to_string();
        let safe = path
            .split('/')
            .filter(|s| !s.is_empty())
            .all(|s| s != ".." && s != "." && !s.contains('\\'));
        let file = dir.join(path.trim_start_matches('/'));
        let body = if safe && file.is_file() {
            std::fs::read(&file).ok()
        } else {
            None
        };
        eprintln!(
            "demo_upstream: {} {path} -> {}",
            req.method(),
            if body.is_some() { 200 } else { 404 }
        );
        let response = match body {
            Some(b) => tiny_http::Response::from_data(b).with_status_code(200),
            None => tiny_http::Response::from_data(b"{\"error\":\"not found\"}".to_vec())
                .with_status_code(404),
        };
        let response =
            match tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"application/json"[..]) {
                Ok(h) => response.with_header(h),
                Err(()) => response,
            };
        let _ = req.respond(response);
    }
}
