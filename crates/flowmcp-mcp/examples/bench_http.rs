//! The load generator of `cargo xtask bench serve --http`: `tools/call` over Streamable HTTP at a
//! running server, from concurrent keep-alive HTTP/1.1 connections. Not a test: it prints numbers.
//!
//! ```text
//! bench_http <http://ADDR/mcp> [--secs 10] [--warmup-secs 2] [--connections 16] [--tool NAME]
//!            [--threads 1] [--expect TEXT] [--pid LABEL=PID]...
//! ```
//!
//! Every connection sends `POST` requests one after the other (a stateless server needs no
//! `initialize`: each request carries `MCP-Protocol-Version`) and checks every answer: status 200
//! and a JSON-RPC result whose `isError` is `false` (and, with `--expect`, whose body holds
//! `TEXT`: proof that the upstream's data came through). After the warm-up, calls that start and end
//! within the measured window are counted; reported are calls, calls/s, p50, p90, p99 and max
//! latency. Any failed call, in the warm-up or after, makes the run fail (exit status 1).
//!
//! `--pid LABEL=PID` names another process (the server, the upstream) whose CPU time during the
//! measured window is reported next to the generator's own and the whole machine's (from
//! `/proc`), so that one can see how the cores were shared.
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper::{Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

struct Args {
    addr: SocketAddr,
    host: String,
    path: String,
    secs: f64,
    warmup: f64,
    connections: usize,
    threads: usize,
    tool: String,
    expect: Option<String>,
    pids: Vec<(String, u32)>,
}

fn parse_args() -> Result<Args, String> {
    let mut url = None;
    let mut secs = 10.0;
    let mut warmup = 2.0;
    let mut connections = 16usize;
    let mut threads = 1usize;
    let mut tool = "plain_bench".to_string();
    let mut expect = None;
    let mut pids = Vec::new();
    let mut it = std::env::args().skip(1);
    let number = |flag: &str, v: Option<String>| -> Result<f64, String> {
        v.and_then(|v| v.parse::<f64>().ok())
            .filter(|n| n.is_finite() && *n >= 0.0)
            .ok_or_else(|| format!("{flag} needs a number"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--secs" => secs = number("--secs", it.next())?.max(0.1),
            "--warmup-secs" => warmup = number("--warmup-secs", it.next())?,
            "--connections" => connections = number("--connections", it.next())?.max(1.0) as usize,
            "--threads" => threads = number("--threads", it.next())?.max(1.0) as usize,
            "--tool" => tool = it.next().ok_or("--tool needs a name")?,
            "--expect" => expect = Some(it.next().ok_or("--expect needs a text")?),
            "--pid" => {
                let v = it.next().ok_or("--pid needs LABEL=PID")?;
                let (label, pid) = v.split_once('=').ok_or("--pid needs LABEL=PID")?;
                let pid = pid.parse().map_err(|_| format!("--pid {v}: not a pid"))?;
                pids.push((label.to_string(), pid));
            }
            other if other.starts_with("--") => return Err(format!("unknown option {other}")),
            other => url = Some(other.to_string()),
        }
    }
    let url = url.ok_or("usage: bench_http <http://ADDR/mcp> [--secs N] [--connections N]")?;
    let rest = url
        .strip_prefix("http://")
        .ok_or("the URL must start with http://")?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let addr: SocketAddr = host
        .parse()
        .map_err(|_| format!("{host}: give the server as IP:PORT"))?;
    Ok(Args {
        addr,
        host: host.to_string(),
        path: path.to_string(),
        secs,
        warmup,
        connections,
        threads,
        tool,
        expect,
        pids,
    })
}

/// What one connection saw.
#[derive(Default)]
struct Seen {
    /// Latencies of the calls inside the measured window.
    latencies: Vec<Duration>,
    /// Calls, warm-up included.
    calls: u64,
    failures: u64,
    first_failure: Option<String>,
    /// Size of the last answer's body.
    body_bytes: usize,
}

/// Whether `body` is the JSON-RPC answer of a successful `tools/call`; else why not.
fn check(status: StatusCode, body: &[u8], expect: Option<&str>) -> Result<(), String> {
    let text = || String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
    if status != StatusCode::OK {
        return Err(format!("status {status}: {}", text()));
    }
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("{e}: {}", text()))?;
    if v["result"]["isError"] != json!(false) || v["result"]["content"].is_null() {
        return Err(format!("not a successful call: {}", text()));
    }
    if let Some(expect) = expect
        && !v["result"].to_string().contains(expect)
    {
        return Err(format!("{expect:?} is not in the answer: {}", text()));
    }
    Ok(())
}

/// One keep-alive connection sending calls back to back until `end`; records the calls that
/// start after `start` and finish before `end`.
async fn connection(
    args: Arc<Args>,
    body: Bytes,
    start: Instant,
    end: Instant,
) -> Result<Seen, String> {
    let stream = tokio::net::TcpStream::connect(args.addr)
        .await
        .map_err(|e| format!("connect {}: {e}", args.addr))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (mut send, conn) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    let driver = tokio::spawn(conn);
    let mut seen = Seen::default();
    loop {
        let began = Instant::now();
        if began >= end {
            break;
        }
        let req = Request::post(args.path.as_str())
            .header(header::HOST, args.host.as_str())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18")
            .body(Full::new(body.clone()))
            .map_err(|e| e.to_string())?;
        send.ready()
            .await
            .map_err(|e| format!("connection closed: {e}"))?;
        let resp = send
            .send_request(req)
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let status = resp.status();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("reading the answer: {e}"))?
            .to_bytes();
        let done = Instant::now();
        seen.calls += 1;
        seen.body_bytes = bytes.len();
        if let Err(why) = check(status, &bytes, args.expect.as_deref()) {
            seen.failures += 1;
            seen.first_failure.get_or_insert(why);
        } else if began >= start && done <= end {
            seen.latencies.push(done - began);
        }
    }
    drop(send);
    let _ = driver.await;
    Ok(seen)
}

/// CPU time (user + system, in clock ticks) of process `pid`, from `/proc/<pid>/stat`.
fn cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields are counted after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Field 3 of the stat line (state) is fields[0]; utime (14) and stime (15) follow.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Busy and total clock ticks of the whole machine, over all cores, from `/proc/stat`.
fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = cpu
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is already in user).
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3)? + v.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// The machine's cores, from the `cpuN` lines of `/proc/stat`.
fn online_cores() -> usize {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .map(|s| {
            s.lines()
                .filter(|l| {
                    l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit)
                })
                .count()
        })
        .filter(|n| *n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Clock ticks per second (`getconf CLK_TCK`, 100 on Linux almost everywhere).
fn clock_ticks_per_sec() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|n| *n > 0.0)
        .unwrap_or(100.0)
}

/// CPU counters of the processes being watched, the generator's own and the machine's.
struct Snapshot {
    procs: Vec<Option<u64>>,
    machine: Option<(u64, u64)>,
}

fn snapshot(watched: &[(String, String)]) -> Snapshot {
    Snapshot {
        procs: watched.iter().map(|(_, pid)| cpu_ticks(pid)).collect(),
        machine: machine_ticks(),
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

async fn run(args: Args) -> Result<(), String> {
    let args = Arc::new(args);
    let body = Bytes::from(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": args.tool, "arguments": {"q": "x"}}})
        .to_string(),
    );
    let mut watched: Vec<(String, String)> = args
        .pids
        .iter()
        .map(|(label, pid)| (label.clone(), pid.to_string()))
        .collect();
    watched.push(("generator".into(), "self".into()));
    let hz = clock_ticks_per_sec();

    let t0 = Instant::now();
    let start = t0 + Duration::from_secs_f64(args.warmup);
    let end = start + Duration::from_secs_f64(args.secs);
    let tasks: Vec<_> = (0..args.connections)
        .map(|_| tokio::spawn(connection(Arc::clone(&args), body.clone(), start, end)))
        .collect();
    tokio::time::sleep_until(start.into()).await;
    let before = snapshot(&watched);
    tokio::time::sleep_until(end.into()).await;
    let after = snapshot(&watched);
    let window = end - start;

    let mut latencies = Vec::new();
    let (mut calls, mut failures, mut first_failure, mut body_bytes) = (0u64, 0u64, None, 0);
    for t in tasks {
        let seen = t.await.map_err(|e| e.to_string())??;
        latencies.extend(seen.latencies);
        calls += seen.calls;
        failures += seen.failures;
        if first_failure.is_none() {
            first_failure = seen.first_failure;
        }
        body_bytes = body_bytes.max(seen.body_bytes);
    }
    latencies.sort();
    let n = latencies.len();
    println!(
        "tools/call over Streamable HTTP: {} keep-alive connections, {:.0} s warm-up, {:.0} s measured",
        args.connections,
        args.warmup,
        window.as_secs_f64()
    );
    println!(
        "  calls      {n} in the window ({calls} in all, {failures} failed; answers of {body_bytes} bytes)"
    );
    println!(
        "  throughput {:.0} calls/s",
        n as f64 / window.as_secs_f64()
    );
    println!(
        "  latency    p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        ms(pct(&latencies, 0.5)),
        ms(pct(&latencies, 0.9)),
        ms(pct(&latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default())
    );
    // All the machine's cores, not only those this process may run on (`taskset`).
    let cores = online_cores();
    let secs = window.as_secs_f64();
    println!(
        "  CPU in the window ({cores} cores = {:.1} core-seconds):",
        secs * cores as f64
    );
    let mut ours = 0.0;
    for (i, (label, _)) in watched.iter().enumerate() {
        match (before.procs[i], after.procs[i]) {
            (Some(a), Some(b)) => {
                let used = b.saturating_sub(a) as f64 / hz;
                ours += used;
                println!(
                    "    {label:<10} {used:6.2} s  ({:5.1} % of one core)",
                    100.0 * used / secs
                );
            }
            _ => println!("    {label:<10} (not readable)"),
        }
    }
    if let (Some((busy0, total0)), Some((busy1, total1))) = (before.machine, after.machine) {
        let total = total1.saturating_sub(total0) as f64 / hz;
        let busy = busy1.saturating_sub(busy0) as f64 / hz;
        println!(
            "    {:<10} {:6.2} s  (other processes and the kernel's own work)",
            "the rest",
            (busy - ours).max(0.0)
        );
        println!(
            "    {:<10} {:6.2} s  (machine busy {:.0} %)",
            "idle",
            (total - busy).max(0.0),
            100.0 * busy / total.max(1e-9)
        );
    }
    if failures > 0 {
        return Err(format!(
            "{failures} of {calls} calls failed; the first: {}",
            first_failure.unwrap_or_default()
        ));
    }
    if n == 0 {
        return Err("no call finished in the measured window".into());
    }
    Ok(())
}

fn main() {
    let result = parse_args().and_then(|args| {
        let rt = if args.threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        } else {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(args.threads)
                .enable_all()
                .build()
        }
        .map_err(|e| e.to_string())?;
        rt.block_on(run(args))
    });
    if let Err(e) = result {
        eprintln!("bench_http: {e}");
        std::process::exit(1);
    }
}
