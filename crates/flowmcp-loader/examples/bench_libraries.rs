//! Sandbox start with npm libraries: how long a handler sandbox takes to load a schema whose
//! handlers need a library, from nothing to the first handler call, with and without the
//! bytecode cache. Run by `cargo xtask bench libraries --libs DIR [--package NAME] [--runs N]`
//! (release build), or directly:
//!
//! ```text
//! cargo run --release -p flowmcp-loader --example bench_libraries -- DIR [PACKAGE] [RUNS]
//! ```
//!
//! `DIR` is a library directory (an npm prefix) with `PACKAGE` (default `ethers`) installed. Each
//! sample builds a fresh sandbox (QuickJS runtime, prelude, the library, the module, the factory)
//! and makes one call. Reported: a sandbox without libraries (the floor), every start compiling
//! the library from source (no cache), the first start with the cache (it fills it) and the
//! starts after it (warm).
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use flowmcp_loader::libs::LibraryDir;
use flowmcp_loader::{
    HandlerHost, HostConfig, Libraries, host::FetchError, host::FetchRequest, host::FetchResponse,
    host::HostBridge, host::Phase,
};
use serde_json::json;

struct Quiet;

impl HostBridge for Quiet {
    fn fetch(&mut self, _req: FetchRequest) -> Result<FetchResponse, FetchError> {
        Err("no network in this benchmark".into())
    }
    fn log(&mut self, _level: &str, _text: &str) {}
}

/// One sandbox start and one call; the time taken and the modules compiled from source.
fn start(package: &str, dir: Option<&LibraryDir>) -> Result<(Duration, usize), String> {
    let source = format!(
        "export const main = {{ namespace: 'bench', tools: {{}} }};\n\
         export const handlers = ({{ libraries }}) => ({{\n\
           t: {{ postRequest: () => ({{ response: typeof libraries[{name}] }}) }}\n\
         }});",
        name = serde_json::to_string(package).map_err(|e| e.to_string())?
    );
    let names = if dir.is_some() {
        vec![package.to_string()]
    } else {
        Vec::new()
    };
    let started = Instant::now();
    let mut host = HandlerHost::load(
        "bench.mjs",
        &source,
        &json!({}),
        Libraries::new(&names, dir),
        &["t".to_string()],
        HostConfig::spec(),
    )
    .map_err(|e| e.to_string())?;
    let out = host
        .call(
            "t",
            Phase::PostRequest,
            &json!({ "response": null, "struct": {}, "payload": {} }),
            &mut Quiet,
        )
        .map_err(|e| e.to_string())?;
    let took = started.elapsed();
    let expected = if dir.is_some() { "undefined" } else { "" };
    if out["response"] == expected {
        return Err(format!("the library was not delivered: {out}"));
    }
    Ok((took, host.compiled_library_modules()))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `runs` starts: median and minimum in milliseconds, and the modules compiled by the last one.
fn series(
    runs: usize,
    package: &str,
    dir: Option<&LibraryDir>,
) -> Result<(f64, f64, usize), String> {
    let mut times = Vec::with_capacity(runs);
    let mut compiled = 0;
    for _ in 0..runs {
        let (t, c) = start(package, dir)?;
        times.push(ms(t));
        compiled = c;
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], times[0], compiled))
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or("usage: bench_libraries DIR [PACKAGE] [RUNS]")?,
    );
    let package = args.next().unwrap_or_else(|| "ethers".into());
    let runs: usize = match args.next() {
        Some(n) => n.parse().map_err(|_| format!("{n:?} is not a number"))?,
        None => 10,
    };
    let runs = runs.max(1);
    let libs = LibraryDir::new(&dir).map_err(|e| e.to_string())?;
    let version = std::fs::read_to_string(
        libs.package_dir(&package)
            .map_err(|e| e.to_string())?
            .join("package.json"),
    )
    .ok()
    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    .and_then(|v| v["version"].as_str().map(str::to_string))
    .unwrap_or_default();
    println!("sandbox start with {package} {version}, {runs} runs each (median / min, ms)");

    let (median, min, _) = series(runs, &package, None)?;
    println!("  no library (floor)           {median:8.2} / {min:8.2}");

    let uncached = libs.clone().without_cache();
    let (median, min, compiled) = series(runs, &package, Some(&uncached))?;
    println!(
        "  {package}, no cache           {median:8.2} / {min:8.2}   ({compiled} modules compiled per start)"
    );

    let (first, compiled) = start(&package, Some(&libs))?;
    println!(
        "  {package}, cache, first start {:8.2}            ({compiled} modules compiled, cache filled)",
        ms(first)
    );
    let (median, min, compiled) = series(runs, &package, Some(&libs))?;
    println!(
        "  {package}, cache, warm        {median:8.2} / {min:8.2}   ({compiled} modules compiled per start)"
    );
    Ok(())
}
