//! `cargo xtask clients`: drive `flowmcp serve` with an MCP client this project did not write, the
//! Python `mcp` package, over stdio and over Streamable HTTP.
//!
//! The client is installed into a scratch virtualenv (`target/clients-venv`, made once); the demo
//! upstream answers the example catalog's holidaykit-net tools on a free local port. The script
//! (`xtask/clients/python_mcp.py`) prints what the client saw and fails when something is off:
//! annotations, `_meta` and output schemas in `tools/list`, a call that succeeds with structured
//! content, a tool error with its E-code, 401 without or with a wrong bearer token, 403 for a
//! foreign Origin; a resource query answered offline with local hints, and the markdown guide
//! listed, templated and read as an MCP resource. `docs/clients.md` records a run.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::workspace_root;

/// The version of the Python client the checks were written against.
const PYTHON_MCP: &str = "mcp==2.3.0";

/// A child process killed when dropped.
/// A child process killed when dropped.
pub(crate) struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `serve`, a `flowmcp serve … --transport http --listen 127.0.0.1:0` command, and waits
/// for the line that says where it listens: the running server and its URL. Earlier lines go to
/// stderr; later ones are read and dropped, so the server never blocks on a full pipe.
pub(crate) fn serve_http(serve: &mut Command) -> Result<(Running, String), String> {
    let mut server = serve
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("flowmcp serve: {e}"))?;
    let err = server.stderr.take();
    let server = Running(server);
    let mut url = String::new();
    if let Some(err) = err {
        let mut lines = BufReader::new(err).lines();
        for line in lines.by_ref() {
            let line = line.map_err(|e| format!("flowmcp serve: {e}"))?;
            if let Some(at) = line.find("http://") {
                url = line[at..]
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                break;
            }
            eprintln!("{line}");
        }
        std::thread::spawn(move || for _ in lines {});
    }
    if url.is_empty() {
        return Err("flowmcp serve --transport http did not say where it listens".into());
    }
    Ok((server, url))
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("{what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// The virtualenv's Python, creating the virtualenv and installing the client when needed.
fn python(root: &Path) -> Result<PathBuf, String> {
    let venv = root.join("target/clients-venv");
    let py = venv.join("bin/python");
    if !py.is_file() {
        run(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv",
        )?;
    }
    run(
        Command::new(&py).args(["-m", "pip", "install", "--quiet", PYTHON_MCP]),
        "pip install mcp",
    )?;
    Ok(py)
}

pub(crate) fn run_clients(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("clients: unexpected argument {a:?}"));
    }
    let root = workspace_root();
    let py = python(&root)?;
    run(
        Command::new("cargo").current_dir(&root).args([
            "build",
            "-q",
            "-p",
            "flowmcp-runtime",
            "--example",
            "demo_upstream",
        ]),
        "cargo build",
    )?;
    run(
        Command::new("cargo")
            .current_dir(&root)
            .args(["build", "-q", "-p", "flowmcp-cli"]),
        "cargo build",
    )?;
    let flowmcp = root.join("target/debug/flowmcp");
    let script = root.join("xtask/clients/python_mcp.py");
    let catalog = root.join("examples/catalog");

    let port = free_port()?;
    let _upstream = Running(
        Command::new(root.join("target/debug/examples/demo_upstream"))
            .arg(port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("demo upstream: {e}"))?,
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let upstream = format!("holidaykit-net=http://127.0.0.1:{port}");

    println!(
        "== stdio: {} serve {} --upstream {upstream}",
        flowmcp.display(),
        catalog.display()
    );
    run(
        Command::new(&py)
            .arg(&script)
            .arg("stdio")
            .arg(&flowmcp)
            .arg(&catalog)
            .arg(&upstream),
        "the Python client over stdio",
    )?;

    println!(
        "== stdio: {} serve {} --agent holiday-planner --upstream {upstream}",
        flowmcp.display(),
        catalog.display()
    );
    run(
        Command::new(&py)
            .arg(&script)
            .arg("agent")
            .arg(&flowmcp)
            .arg(&catalog)
            .arg(&upstream),
        "the Python client against serve --agent",
    )?;

    let token = format!("clients-{}", std::process::id());
    let (server, url) = serve_http(
        Command::new(&flowmcp)
            .arg("serve")
            .arg(&catalog)
            .args([
                "--transport",
                "http",
                "--listen",
                "127.0.0.1:0",
                "--auth-token",
                &token,
            ])
            .args(["--upstream", &upstream]),
    )?;
    println!("== http: {url} (bearer token required)");
    let result = run(
        Command::new(&py)
            .arg(&script)
            .arg("http")
            .arg(&url)
            .arg(&token)
            .arg("https://evil.example"),
        "the Python client over HTTP",
    );
    drop(server);
    result
}
