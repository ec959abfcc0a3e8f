//! Benchmarks of the runtime, run by `cargo xtask bench call` and `cargo xtask bench load` (release
//! build). Not a test: it prints numbers.
//!
//! * `bench_runtime call [--iters N]`: a local HTTP server on 127.0.0.1 answers every request
//!   with the same 1 KiB JSON body. Three ways of fetching it are timed side by side, interleaved
//!   round by round so that machine noise hits them alike: a bare `ureq` GET, `Runner::call_json`
//!   on a tool without handlers, and on a tool with a `postRequest` handler (after a warm-up, so
//!   the handler's sandbox exists). Reported: p50/p90 per way and the p50 overhead over bare ureq.
//! * `bench_runtime load <dir> [--profile compat|spec]`: opens `<dir>` as a catalog — every file
//!   loaded and validated, every tool descriptor built once; prints wall time, tools exposed/hidden
//!   and the peak RSS (VmHWM).
//! * `bench_runtime serve <flowmcp> [--iters N]`: `tools/call` through `flowmcp serve` over stdio
//!   against calling the catalog directly (`cargo xtask bench serve`).
//! * `bench_runtime upstream <dir>`: writes the bench schema to `<dir>/bench.mjs`, starts the
//!   local upstream, prints `upstream http://127.0.0.1:PORT` on stdout and serves until stdin
//!   closes (`cargo xtask bench serve --http`, whose load generator is `flowmcp-mcp`'s
//!   `bench_http` example).
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

/// The allocator of the `flowmcp` binary, so that the numbers are the binary's.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use flowmcp_catalog::{Catalog, CatalogOptions};
use flowmcp_runtime::{Runner, RunnerOptions};
use flowmcp_runtime::{transport::TransportConfig, transport::UreqTransport};
use flowmcp_spec::Profile;
use serde_json::{Map, Value, json};

const SCHEMA: &str = r#"
export const main = {
    namespace: 'bench', name: 'Bench', description: 'Benchmark', version: '4.2.0',
    root: 'https://bench.example',
    tools: {
        plain: { method: 'GET', path: '/data', description: 'No handlers', meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'bench', aliases: [], alwaysLoad: false },
            parameters: [
            { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [ 'optional()' ] } } ],
            tests: [ { _description: 'default' }, { _description: 'query', q: 'x' }, { _description: 'other', q: 'y' } ] },
        post: { method: 'GET', path: '/data', description: 'With postRequest', meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'bench', aliases: [], alwaysLoad: false },
            parameters: [
            { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [ 'optional()' ] } } ],
            tests: [ { _description: 'default' }, { _description: 'query', q: 'x' }, { _description: 'other', q: 'y' } ] }
    }
}
export const handlers = ( { sharedLists, libraries } ) => ( {
    post: { postRequest: async ( { response } ) => ( { response: { count: response.items.length, items: response.items } } ) }
} )
"#;

fn body_1k() -> Vec<u8> {
    let mut items = Vec::new();
    let mut i = 0;
    loop {
        items.push(json!({"id": i, "name": format!("item-{i:04}"), "price": 1.25 * f64::from(i)}));
        let text = json!({"items": items}).to_string();
        if text.len() >= 1024 {
            return text.into_bytes();
        }
        i += 1;
    }
}

/// A minimal keep-alive HTTP/1.1 server: every request (GET, no body) gets the same response,
/// written in one `write_all` on a socket with `TCP_NODELAY`, as production servers do. (tiny_http
/// writes head and body separately without `TCP_NODELAY`, which with delayed ACKs adds ~40 ms to
/// back-to-back requests on one connection and would hide what is measured here.)
fn serve() -> String {
    let listener = match std::net::TcpListener::bind("127.0.0.1:0") {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot bind: {e}");
            std::process::exit(2);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let body = body_1k();
    eprintln!("upstream body: {} bytes of JSON", body.len());
    let mut response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    let response = std::sync::Arc::new(response);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let response = response.clone();
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut stream = stream;
                let _ = stream.set_nodelay(true);
                let mut buf = Vec::with_capacity(4096);
                let mut chunk = [0u8; 4096];
                loop {
                    let Ok(n) = stream.read(&mut chunk) else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        if stream.write_all(&response).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// One line of p50 and p99 of sorted timings.
fn print_p50_p99(label: &str, sorted: &[Duration], note: &str) {
    println!(
        "  {label} p50 {:8.1} µs  p99 {:8.1} µs{note}",
        micros(pct(sorted, 0.5)),
        micros(pct(sorted, 0.99))
    );
}

/// The value of `--iters` (default 2000).
fn iters_arg(args: &[String]) -> usize {
    args.iter()
        .position(|a| a == "--iters")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn call(iters: usize) -> Result<(), String> {
    let base = serve();
    let dir = std::env::temp_dir().join(format!("flowmcp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("bench.mjs"), SCHEMA).map_err(|e| e.to_string())?;
    let catalog =
        Catalog::open(&dir, &CatalogOptions::new(Profile::Spec)).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    let set = catalog.toolset();
    let transport = UreqTransport::new({
        let mut built = TransportConfig::default();
        built.allow_http_loopback = true;
        built
    });
    let mut opts = RunnerOptions::default();
    opts.add_upstream("bench", &base)
        .map_err(|e| e.to_string())?;
    let runner = Runner::with_log(set, &transport, opts, Box::new(|_| {}));
    let bare = ureq::Agent::new_with_defaults();
    let url = format!("{base}/data?q=x");
    let mut input = Map::new();
    input.insert("q".into(), Value::String("x".into()));

    // First calls: the first postRequest call builds the schema's handler sandbox.
    let s = Instant::now();
    let first_plain = runner.call_json("plain_bench", &input);
    let first_plain_t = s.elapsed();
    let s = Instant::now();
    let first_post = runner.call_json("post_bench", &input);
    let first_post_t = s.elapsed();
    if !(first_plain.status() && first_post.status()) {
        return Err(format!(
            "first calls failed: {:?} {:?}",
            first_plain.messages(),
            first_post.messages()
        ));
    }
    println!(
        "first calls: no handlers {:.1} µs (new connection), postRequest {:.1} µs (builds the handler sandbox)",
        micros(first_plain_t),
        micros(first_post_t)
    );
    // Warm-up: connections, the handler sandbox, caches.
    for _ in 0..200 {
        let _ = bare
            .get(&url)
            .call()
            .map(|mut r| r.body_mut().read_to_vec());
        let e = runner.call_json("plain_bench", &input);
        if !e.status() {
            return Err(format!("plain call failed: {:?}", e.messages()));
        }
        let e = runner.call_json("post_bench", &input);
        if !e.status() {
            return Err(format!("post call failed: {:?}", e.messages()));
        }
    }
    let mut t_bare = Vec::with_capacity(iters);
    let mut t_plain = Vec::with_capacity(iters);
    let mut t_post = Vec::with_capacity(iters);
    let mut t_transport = Vec::with_capacity(iters);
    let treq = flowmcp_runtime::transport::HttpRequest::new(
        flowmcp_runtime::transport::Method::Get,
        url.clone(),
    );
    for _ in 0..iters {
        let s = Instant::now();
        let resp =
            flowmcp_runtime::Transport::send(&transport, &treq).map_err(|e| e.to_string())?;
        std::hint::black_box(resp);
        t_transport.push(s.elapsed());
        let s = Instant::now();
        let body = bare
            .get(&url)
            .call()
            .and_then(|mut r| r.body_mut().read_to_vec())
            .map_err(|e| e.to_string())?;
        // The bare client parses the JSON too, as any caller would.
        let _: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        t_bare.push(s.elapsed());
        let s = Instant::now();
        let e = runner.call_json("plain_bench", &input);
        t_plain.push(s.elapsed());
        std::hint::black_box(e);
        let s = Instant::now();
        let e = runner.call_json("post_bench", &input);
        t_post.push(s.elapsed());
        std::hint::black_box(e);
    }
    for v in [&mut t_bare, &mut t_plain, &mut t_post, &mut t_transport] {
        v.sort();
    }
    let p50_bare = pct(&t_bare, 0.5);
    println!("per-call time over {iters} interleaved rounds (1 KiB JSON, local upstream):");
    for (name, v) in [
        ("bare ureq GET + JSON parse", &t_bare),
        ("runtime transport only", &t_transport),
        ("runtime, no handlers", &t_plain),
        ("runtime, postRequest handler", &t_post),
    ] {
        println!(
            "  {name:<30} p50 {:>8.1} µs   p90 {:>8.1} µs   overhead p50 {:>+8.1} µs",
            micros(pct(v, 0.5)),
            micros(pct(v, 0.9)),
            micros(pct(v, 0.5)) - micros(p50_bare)
        );
    }
    Ok(())
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
}

fn load(dir: &str, profile: Profile) -> Result<(), String> {
    let started = Instant::now();
    // As `flowmcp list` opens it: reports without source positions.
    let mut opts = CatalogOptions::new(profile);
    opts.validation.positions = false;
    let catalog =
        Catalog::open(std::path::Path::new(dir), &opts).map_err(|e| format!("{dir}: {e}"))?;
    let wall = started.elapsed();
    let set = catalog.toolset();
    let (exposed, hidden, _) = set.exposure();
    let list_fallback = set
        .tools()
        .iter()
        .filter(|t| {
            t.descriptor
                .warnings
                .iter()
                .any(|w| w.contains("any string is accepted"))
        })
        .count();
    println!(
        "load: {:.1} ms wall, {} schemas, {} load problems, {} tools ({exposed} exposed, {hidden} hidden by missing server params), peak RSS {} KiB",
        wall.as_secs_f64() * 1e3,
        set.schemas().len(),
        set.problems().len(),
        set.tools().len(),
        peak_rss_kib().map_or("?".into(), |k| k.to_string()),
    );
    println!(
        "  {list_fallback} tools have list-backed parameters whose shared lists were not found (accepted as plain strings, with a warning)"
    );
    for p in set.problems() {
        println!("  problem: {}: {}", p.file, p.message);
    }
    Ok(())
}

/// `tools/call` through `flowmcp serve` over stdio against calling the catalog directly, side by
/// side in one run: the same tool, inputs and local upstream (1 KiB JSON body). `flowmcp` is the
/// release binary to spawn.
fn serve_bench(flowmcp: &str, iters: usize) -> Result<(), String> {
    use std::io::{BufRead, BufReader, Write};
    let base = serve();
    let dir = std::env::temp_dir().join(format!("flowmcp-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("bench.mjs"), SCHEMA).map_err(|e| e.to_string())?;
    let mut opts = CatalogOptions::new(Profile::Spec);
    opts.add_upstream("bench", &base)
        .map_err(|e| e.to_string())?;
    let catalog = Catalog::open(&dir, &opts).map_err(|e| e.to_string())?;
    let caller = catalog.caller();
    let mut input = Map::new();
    input.insert("q".into(), Value::String("x".into()));

    let mut child = std::process::Command::new(flowmcp)
        .arg("serve")
        .arg(&dir)
        .args([
            "--upstream",
            &format!("bench={base}"),
            "--no-cache",
            "--threads",
            "1",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("{flowmcp}: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    let mut send = |msg: &Value, answer: bool| -> Result<Value, String> {
        let mut text = msg.to_string();
        text.push('\n');
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())?;
        if !answer {
            return Ok(Value::Null);
        }
        line.clear();
        stdout.read_line(&mut line).map_err(|e| e.to_string())?;
        serde_json::from_str(&line).map_err(|e| format!("{e}: {line}"))
    };
    send(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}),
        true,
    )?;
    send(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
    )?;
    let call = |id: usize| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "plain_bench", "arguments": {"q": "x"}}})
    };

    // Warm-up of both paths.
    for i in 0..300 {
        let r = send(&call(i + 1), true)?;
        if r["result"]["isError"] != json!(false) {
            return Err(format!("the MCP call failed: {r}"));
        }
        let e = caller.call_json("plain_bench", &input);
        if !e.status() {
            return Err(format!("the direct call failed: {:?}", e.messages()));
        }
    }
    let mut direct = Vec::with_capacity(iters);
    let mut mcp = Vec::with_capacity(iters);
    let mut ping = Vec::with_capacity(iters);
    for i in 0..iters {
        // The protocol's own round trip, for scale: pipes, framing and the SDK, no tool.
        let s = Instant::now();
        let r = send(
            &json!({"jsonrpc": "2.0", "id": 100_000 + i, "method": "ping"}),
            true,
        )?;
        ping.push(s.elapsed());
        std::hint::black_box(r);
        // Interleaved, so that both see the same machine.
        let s = Instant::now();
        let e = caller.call_json("plain_bench", &input);
        direct.push(s.elapsed());
        std::hint::black_box(e);
        let s = Instant::now();
        let r = send(&call(1000 + i), true)?;
        mcp.push(s.elapsed());
        std::hint::black_box(r);
    }
    // End of input: the server exits.
    drop(stdin);
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    direct.sort();
    mcp.sort();
    ping.sort();
    println!(
        "tools/call over stdio vs the catalog directly ({iters} interleaved calls, 1 KiB JSON upstream on 127.0.0.1):"
    );
    print_p50_p99("direct   ", &direct, "");
    print_p50_p99("MCP stdio", &mcp, "");
    print_p50_p99("MCP ping ", &ping, "   (no tool: pipes, framing, the SDK)");
    println!(
        "  added     p50 {:8.1} µs  p99 {:8.1} µs",
        micros(pct(&mcp, 0.5)) - micros(pct(&direct, 0.5)),
        micros(pct(&mcp, 0.99)) - micros(pct(&direct, 0.99))
    );
    Ok(())
}

/// The upstream of `cargo xtask bench serve --http`, in a process of its own so that its CPU time
/// is counted apart from the server's and the load generator's.
fn upstream(dir: &str) -> Result<(), String> {
    use std::io::{Read, Write};
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(dir.join("bench.mjs"), SCHEMA).map_err(|e| e.to_string())?;
    let base = serve();
    let mut out = std::io::stdout();
    writeln!(out, "upstream {base}").map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    // Serve until whoever started us closes our stdin (or goes away).
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("call") => call(iters_arg(&args)),
        Some("serve") => match args.get(1).filter(|a| !a.starts_with("--")) {
            Some(bin) => serve_bench(bin, iters_arg(&args)),
            None => Err("serve needs the path of the flowmcp binary".into()),
        },
        Some("upstream") => match args.get(1) {
            Some(dir) => upstream(dir),
            None => Err("usage: bench_runtime upstream <dir>".into()),
        },
        Some("load") => {
            let mut dir = None;
            let mut profile = Profile::Compat;
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                if a == "--profile" {
                    profile = match it.next().map(String::as_str) {
                        Some("spec") => Profile::Spec,
                        Some("compat") => Profile::Compat,
                        _ => {
                            eprintln!("bench_runtime: --profile needs spec or compat");
                            std::process::exit(2);
                        }
                    };
                } else {
                    dir = Some(a.clone());
                }
            }
            match dir {
                Some(dir) => load(&dir, profile),
                None => Err("usage: bench_runtime load <dir> [--profile spec|compat]".into()),
            }
        }
        _ => Err(
            "usage: bench_runtime call [--iters N] | serve <flowmcp> [--iters N] | \
                 upstream <dir> | load <dir> [--profile spec|compat]"
                .into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("bench_runtime: {e}");
        std::process::exit(2);
    }
}
