//! Serving a catalog over MCP inside your own program, with `flowmcp-mcp` and `tokio` only: the
//! server and a client share one process and talk over an in-memory pipe.
//!
//! ```sh
//! cargo run -p flowmcp-mcp --example in_process
//! ```
//!
//! It opens the bundled example catalog with the `holidaykit-net` namespace pointed at a small
//! local stand-in for its API (started here, on a free port of 127.0.0.1, serving
//! `examples/demo-upstream/`), serves it with [`McpServer::serve_io`] on one end of a
//! [`tokio::io::duplex`] pipe, and speaks plain JSON-RPC on the other end: `initialize`,
//! `tools/list`, then `tools/call` of `getPublicHolidays_holidaykit-net`. A real program would put
//! an MCP client (or its own agent loop) on the client end.
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use flowmcp_mcp::serde_json::{Value, json};
use flowmcp_mcp::{Catalog, CatalogOptions, McpServer, Profile, ServeOptions};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// What the session showed: how many tools were listed and the text of the call's result.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// `tools/list`'s length.
    pub(crate) tools: usize,
    /// Whether the call was a tool error.
    pub(crate) is_error: bool,
    /// The call's text content.
    pub(crate) text: String,
}

/// Runs the whole example; `root` holds `examples/catalog` and `examples/demo-upstream` (this
/// crate's folder: links to the workspace's examples, copies in the package).
pub(crate) async fn run(root: &Path) -> Result<Outcome, Box<dyn std::error::Error>> {
    // A stand-in for the API, on a port the system picks.
    let upstream = TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", upstream.local_addr()?);
    tokio::spawn(serve_files(upstream, root.join("examples/demo-upstream")));

    // One call points the namespace at it (and allows plain HTTP to loopback for it).
    let options = CatalogOptions::new(Profile::Spec).upstream("holidaykit-net", &base)?;
    let catalog = Catalog::open(&root.join("examples/catalog"), &options)?;
    let server = McpServer::new(catalog, &ServeOptions::default())?;

    let (server_end, client_end) = tokio::io::duplex(256 * 1024);
    let session = tokio::spawn(server.serve_io(server_end));

    let (read, mut write) = tokio::io::split(client_end);
    let mut lines = BufReader::new(read).lines();
    let mut ask =
        async |id: u64, method: &str, params: Value| -> Result<Value, Box<dyn std::error::Error>> {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            write.write_all(format!("{request}\n").as_bytes()).await?;
            if method == "initialize" {
                let answer = next_answer(&mut lines, id).await?;
                let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                write.write_all(format!("{note}\n").as_bytes()).await?;
                return Ok(answer);
            }
            next_answer(&mut lines, id).await
        };

    let init = ask(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "in-process-example", "version": "1.0.0"}
        }),
    )
    .await?;
    println!("server: {}", init["result"]["serverInfo"]);

    let listed = ask(2, "tools/list", json!({})).await?;
    let tools = listed["result"]["tools"].as_array().map_or(0, Vec::len);
    println!("tools/list: {tools} tools");

    let called = ask(
        3,
        "tools/call",
        json!({
            "name": "getPublicHolidays_holidaykit-net",
            "arguments": {"year": 2026, "countryCode": "DE"}
        }),
    )
    .await?;
    let result = &called["result"];
    let is_error = result["isError"].as_bool().unwrap_or(false);
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    println!("tools/call getPublicHolidays_holidaykit-net (isError: {is_error}):");
    println!("{}", text.chars().take(400).collect::<String>());

    // Closing the client's end ends the session.
    drop(lines);
    drop(write);
    session.await??;
    Ok(Outcome {
        tools,
        is_error,
        text,
    })
}

/// The next answer to request `id` (notifications and other messages are skipped).
async fn next_answer<R: tokio::io::AsyncBufRead + Unpin>(
    lines: &mut tokio::io::Lines<R>,
    id: u64,
) -> Result<Value, Box<dyn std::error::Error>> {
    while let Some(line) = lines.next_line().await? {
        let message: Value = flowmcp_mcp::serde_json::from_str(&line)?;
        if message["id"] == json!(id) {
            return Ok(message);
        }
    }
    Err("the server closed the session".into())
}

/// A minimal HTTP/1.1 file server: the request path names a file under `dir` (no `..`).
async fn serve_files(listener: TcpListener, dir: PathBuf) {
    while let Ok((mut socket, _)) = listener.accept().await {
        let dir = dir.clone();
        tokio::spawn(async move {
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&head);
            let path = head.split_whitespace().nth(1).unwrap_or("/");
            let path = path.split('?').next().unwrap_or_default();
            let safe = path.split('/').all(|s| s != ".." && !s.contains('\\'));
            let file = dir.join(path.trim_start_matches('/'));
            let (status, body) = match safe.then(|| std::fs::read(&file)) {
                Some(Ok(body)) => ("200 OK", body),
                _ => ("404 Not Found", b"{\"error\":\"not found\"}".to_vec()),
            };
            let header = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(header.as_bytes()).await;
            let _ = socket.write_all(&body).await;
        });
    }
}

#[allow(dead_code)]
#[tokio::main]
async fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    match run(&root).await {
        Ok(outcome) if !outcome.is_error => println!(
            "done: {} tools listed, a {}-byte result",
            outcome.tools,
            outcome.text.len()
        ),
        Ok(_) => std::process::exit(1),
        Err(e) => {
            eprintln!("in_process: {e}");
            std::process::exit(2);
        }
    }
}
