//! `cargo xtask bench validate <dir> [--runs N] [--profile spec|compat]`
//! `cargo xtask bench call [--iters N]`, `cargo xtask bench serve [--iters N]` (`tools/call` over
//! stdio against calling the catalog directly) and `cargo xtask bench load <dir> [--runs N]
//! [--profile P]`:
//! build and run the catalog's `bench_runtime` example in release (see its documentation): per-call
//! overhead over a bare ureq request, and loading a corpus into tool descriptors (each run a fresh
//! process, so the peak RSS is that of one load).
//!
//! `cargo xtask bench serve --http [--secs 10] [--connections 16] [--threads N] [--pin]
//! [--no-metrics]`:
//! throughput of `tools/call` over Streamable HTTP. Three processes share the machine: the local
//! upstream (`bench_runtime upstream`, the fixed 1 KiB JSON body), the release `flowmcp serve
//! --transport http` on it, and the load generator (`flowmcp-mcp`'s `bench_http` example, one
//! tokio thread, keep-alive HTTP/1.1 connections). The generator reports calls/s, p50/p99 and the
//! CPU time each process used in the measured window. `--threads` is the server's worker count
//! (its default otherwise); `--pin` puts the server on core 0 and the upstream and generator on
//! core 1 (`taskset`) instead of letting the scheduler share both cores.
//!
//! Builds the release binary, then runs `flowmcp validate --format json <dir>` N times (default 10),
//! process start included and nothing cached between runs, and reports the median and minimum wall
//! time, files per second and the peak resident set size (read by the binary itself from
//! /proc/self/status when `FLOWMCP_STATS` is set).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::conformance::corpus_files;
use crate::workspace_root;

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("validate") => validate(&args[1..]),
        Some("call") => runtime_example(&["call"], &args[1..], 1),
        Some("serve") if args[1..].iter().any(|a| a == "--http") => serve_http(&args[1..]),
        Some("serve") => {
            // The server is the release `flowmcp` binary, spawned by the example.
            build_release(&["-p", "flowmcp-cli"])?;
            let bin = workspace_root().join("target/release/flowmcp");
            let bin = bin.to_string_lossy().into_owned();
            runtime_example(&["serve", bin.as_str()], &args[1..], 1)
        }
        Some("start") => crate::bench_start::run(&args[1..], build_release),
        Some("reference") => crate::bench_ref::run(&args[1..], build_release),
        Some("growth") => crate::bench_ref::growth(&args[1..], build_release),
        Some("resources") => resources(&args[1..]),
        Some("libraries") => libraries(&args[1..]),
        Some("load") => {
            let mut runs = 5usize;
            let mut rest = Vec::new();
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                if a == "--runs" {
                    runs = crate::parse_runs(it.next())?;
                } else {
                    // Everything else (the directory, `--profile P`) goes to the example as is.
                    rest.push(a.clone());
                }
            }
            runtime_example(&["load"], &rest, runs)
        }
        _ => Err(
            "usage: cargo xtask bench validate <dir> [--runs N] [--profile spec|compat]\n       \
             cargo xtask bench call [--iters N]\n       \
             cargo xtask bench serve [--iters N]\n       \
             cargo xtask bench serve --http [--secs N] [--connections N] [--threads N] [--pin] [--no-metrics]\n       \
             cargo xtask bench load <dir> [--runs N] [--profile spec|compat]\n       \
             cargo xtask bench start <dir> [--runs N] [--profile spec|compat]\n       \
             cargo xtask bench reference --core <flowmcp-core> [--runs N] [--profile P] <dir>\n       \
             cargo xtask bench resources [--iters N]\n       \
             cargo xtask bench libraries --libs DIR [--package NAME] [--runs N]"
                .into(),
        ),
    }
}

/// Builds `flowmcp-catalog`'s `bench_runtime` example in release and runs it `runs` times.
fn runtime_example(first: &[&str], rest: &[String], runs: usize) -> Result<(), String> {
    let root = workspace_root();
    build_release(&["-p", "flowmcp-catalog", "--example", "bench_runtime"])?;
    let bin = root.join("target/release/examples/bench_runtime");
    for _ in 0..runs {
        let status = Command::new(&bin)
            .args(first)
            .args(rest)
            .status()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        if !status.success() {
            return Err(format!("{} failed", bin.display()));
        }
    }
    Ok(())
}

/// Kills a child process when dropped (the bench's upstream and server, also on errors).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `program args…`, under `taskset -c <core>` when `core` is given (taskset execs the program,
/// so the child's pid is the program's).
fn pinned(core: Option<usize>, program: &Path) -> Command {
    match core {
        Some(core) => {
            let mut c = Command::new("taskset");
            c.arg("-c").arg(core.to_string()).arg(program);
            c
        }
        None => Command::new(program),
    }
}

/// `cargo xtask bench serve --http`: see the module documentation.
fn serve_http(args: &[String]) -> Result<(), String> {
    let mut secs = "10".to_string();
    let mut connections = "16".to_string();
    let mut threads: Option<String> = None;
    let mut pin = false;
    let mut no_metrics = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut number = |flag: &str| -> Result<String, String> {
            it.next()
                .filter(|n| n.parse::<u32>().is_ok_and(|n| n > 0))
                .cloned()
                .ok_or_else(|| format!("{flag} needs a positive number"))
        };
        match a.as_str() {
            "--http" => {}
            "--secs" => secs = number("--secs")?,
            "--connections" => connections = number("--connections")?,
            "--threads" => threads = Some(number("--threads")?),
            "--pin" => pin = true,
            // The server without `/metrics` and its counting: run both, side by side.
            "--no-metrics" => no_metrics = true,
            other => return Err(format!("bench serve --http: unknown option {other}")),
        }
    }
    let root = workspace_root();
    // Three separate builds, so that the generator's hyper client does not end up in the server.
    build_release(&["-p", "flowmcp-cli"])?;
    build_release(&["-p", "flowmcp-catalog", "--example", "bench_runtime"])?;
    build_release(&["-p", "flowmcp-mcp", "--example", "bench_http"])?;
    let flowmcp = root.join("target/release/flowmcp");
    let runtime = root.join("target/release/examples/bench_runtime");
    let generator = root.join("target/release/examples/bench_http");
    let (server_core, other_core) = if pin {
        (Some(0), Some(1))
    } else {
        (None, None)
    };

    let dir = std::env::temp_dir().join(format!("flowmcp-bench-http-{}", std::process::id()));
    let result = (|| {
        // The upstream writes the bench schema into `dir`, then prints its URL.
        let mut upstream = Reaped(
            pinned(other_core, &runtime)
                .arg("upstream")
                .arg(&dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|e| format!("{}: {e}", runtime.display()))?,
        );
        let mut line = String::new();
        BufReader::new(upstream.0.stdout.take().ok_or("no stdout")?)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        let base = line
            .trim()
            .strip_prefix("upstream ")
            .ok_or_else(|| format!("the upstream did not start: {line:?}"))?
            .to_string();

        let mut server = pinned(server_core, &flowmcp);
        server
            .arg("serve")
            .arg(&dir)
            .args(["--transport", "http", "--listen", "127.0.0.1:0"])
            .args(["--upstream", &format!("bench={base}"), "--no-cache"]);
        if let Some(n) = &threads {
            server.args(["--threads", n]);
        }
        if no_metrics {
            server.arg("--no-metrics");
        }
        let mut server = Reaped(
            server
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("{}: {e}", flowmcp.display()))?,
        );
        let mut stderr = BufReader::new(server.0.stderr.take().ok_or("no stderr")?);
        let url = loop {
            line.clear();
            if stderr.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("the server stopped before it listened".to_string());
            }
            if let Some(url) = line
                .split(" tools at ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
            {
                eprint!("{line}");
                break url.to_string();
            }
            eprint!("server: {line}");
        };
        // Keep reading the server's log so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            for l in stderr.lines().map_while(Result::ok) {
                eprintln!("server: {l}");
            }
        });
        println!(
            "bench serve --http: release flowmcp ({} call threads), {}",
            threads.as_deref().unwrap_or("default"),
            if pin {
                "pinned: server on core 0, upstream and generator on core 1"
            } else {
                "not pinned: the scheduler shares the cores among the three processes"
            }
        );
        let status = pinned(other_core, &generator)
            .arg(&url)
            .args(["--secs", &secs, "--connections", &connections])
            // The first item of the upstream's body: the data went through the server.
            .args(["--expect", "item-0000"])
            .args(["--pid", &format!("server={}", server.0.id())])
            .args(["--pid", &format!("upstream={}", upstream.0.id())])
            .status()
            .map_err(|e| format!("{}: {e}", generator.display()))?;
        // Closing its stdin stops the upstream; the server is killed when dropped.
        drop(upstream.0.stdin.take());
        if status.success() {
            Ok(())
        } else {
            Err("the HTTP benchmark failed".to_string())
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// `cargo build --release --quiet <what>` in the workspace.
fn build_release(what: &[&str]) -> Result<(), String> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet"])
        .args(what)
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("cargo build --release failed".into())
    }
}

/// `bench libraries --libs DIR [--package NAME] [--runs N]`: sandbox start for a schema whose
/// handlers need an npm library (default `ethers`), with and without the bytecode cache — the
/// loader's `bench_libraries` example in release.
fn libraries(args: &[String]) -> Result<(), String> {
    let mut libs = None;
    let mut package = "ethers".to_string();
    let mut runs = 10usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--libs" => libs = it.next().cloned(),
            "--package" => package = it.next().cloned().ok_or("--package needs a name")?,
            "--runs" => runs = crate::parse_runs(it.next())?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let libs = libs.ok_or(
        "--libs DIR is needed: a library directory with the package installed \
         (flowmcp libs install --libs DIR ethers)",
    )?;
    build_release(&["-p", "flowmcp-loader", "--example", "bench_libraries"])?;
    let bin = workspace_root().join("target/release/examples/bench_libraries");
    let status = Command::new(&bin)
        .args([libs, package, runs.to_string()])
        .status()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed", bin.display()))
    }
}

/// The value of `--runs`: a positive number.
fn validate(args: &[String]) -> Result<(), String> {
    let mut dir: Option<PathBuf> = None;
    let mut runs = 10usize;
    let mut profile = "compat".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = crate::parse_runs(it.next())?,
            "--profile" => profile = it.next().ok_or("--profile needs a value")?.clone(),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => dir = Some(PathBuf::from(other)),
        }
    }
    let dir = dir.ok_or("usage: cargo xtask bench validate <dir>")?;
    let files = corpus_files(&dir)?.len();

    let root = workspace_root();
    build_release(&["-p", "flowmcp-cli"])?;
    let bin = root.join("target/release/flowmcp");

    // Cold runs validate every file (`--no-cache`); warm runs read the result cache of a home
    // directory of the bench's own, filled by one untimed run first. They alternate.
    let home = std::env::temp_dir().join(format!("flowmcp-bench-validate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    let one = |warm: bool| -> Result<(Duration, Option<u64>), String> {
        let started = Instant::now();
        let mut cmd = Command::new(&bin);
        cmd.args(["validate", "--format", "json", "--profile", &profile])
            .arg(&dir)
            .env("FLOWMCP_STATS", "1")
            .env("HOME", &home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if !warm {
            cmd.arg("--no-cache");
        }
        let out = cmd
            .output()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        let took = started.elapsed();
        let code = out.status.code().unwrap_or(-1);
        if code != 0 && code != 1 {
            return Err(format!(
                "flowmcp exited with {code}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let kib = stderr
            .lines()
            .find_map(|l| l.split("peak RSS ").nth(1))
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok());
        Ok((took, kib))
    };
    let measured = (|| -> Result<[(Vec<Duration>, u64); 2], String> {
        one(true)?;
        let mut out = [
            (Vec::with_capacity(runs), 0u64),
            (Vec::with_capacity(runs), 0u64),
        ];
        for _ in 0..runs {
            for (i, warm) in [false, true].into_iter().enumerate() {
                let (took, kib) = one(warm)?;
                out[i].0.push(took);
                out[i].1 = out[i].1.max(kib.unwrap_or(0));
            }
        }
        Ok(out)
    })();
    let _ = std::fs::remove_dir_all(&home);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "bench validate {} (profile {profile}, {runs} runs each, release, process start included)",
        dir.display()
    );
    println!("files:      {files}");
    for (what, (mut times, peak_kib)) in ["cold", "warm"].into_iter().zip(measured?) {
        times.sort();
        let median = if runs % 2 == 1 {
            times[runs / 2]
        } else {
            (times[runs / 2 - 1] + times[runs / 2]) / 2
        };
        println!(
            "{what}:       wall median {:.1} ms, min {:.1} ms, max {:.1} ms; {:.0} files/s; peak RSS {:.1} MiB",
            ms(median),
            ms(times[0]),
            ms(times[runs - 1]),
            files as f64 / median.as_secs_f64().max(1e-9),
            peak_kib as f64 / 1024.0
        );
    }
    Ok(())
}

/// `cargo xtask bench resources [--iters N]`: in release, one after the other: a parameterised
/// resource query called through the catalog against the same prepared query with bare rusqlite
/// (interleaved); the engine alone against bare rusqlite and `describeTables` on 50 tables; then
/// markdown search, section and lines on a 2 MB document.
fn resources(args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    build_release(&[
        "-p",
        "flowmcp-resources",
        "--example",
        "bench_resources",
        "--example",
        "bench_markdown",
        "-p",
        "flowmcp-catalog",
        "--example",
        "bench_resource_call",
    ])?;
    for example in ["bench_resource_call", "bench_resources", "bench_markdown"] {
        let bin = root.join("target/release/examples").join(example);
        let status = Command::new(&bin)
            .args(args)
            .status()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        if !status.success() {
            return Err(format!("{} failed", bin.display()));
        }
    }
    Ok(())
}
