//! `cargo xtask <command>`: project automation.
//!
//! - `docs [--check]` — generate `docs/rules/<CODE>.md` and the index from the registry, the rule prose
//!   (the `/// CODE:` doc comments next to the checks) and the fixtures.
//! - `conformance <dir> [--profile P] [--expect FILE] [--write FILE]` — validate a corpus and compare.
//! - `mcp-conformance [--suite-bin PATH] [--catalog DIR]…` — the official MCP conformance suite's
//!   server scenarios against `flowmcp serve` over HTTP, compared with the expected failures.
//! - `bench validate <dir>` — time the release binary on a corpus.
//! - `bench call` / `bench load <dir>` — runtime per-call overhead and corpus load (release).
//! - `bench serve [--http]` — `tools/call` over stdio (latency) or Streamable HTTP (throughput).
//! - `bench reference --core <flowmcp-core> <dir>` — validate, load and stdio start side by side with
//!   the JavaScript reference (medians of interleaved runs, ratios).
//! - `bench libraries --libs DIR` — sandbox start with an npm library, with and without the bytecode cache.
//! - `fuzz <target> [--secs N]` — run one cargo-fuzz target (nightly toolchain) and report.
//! - `sweep <dir>` — call every tool of a catalog against a local echo upstream, hunting leaks.
//! - `features` — `cargo check` each member with features without its defaults and with each single feature.
//! - `hack [--check]` — keep the workspace-hack crate's unified features complete.
//! - `tidy` — crate edges, module cycles, registered codes, IDs formatted in one place,
//!   no CLI wording in library texts, file calls.
//! - `api [--check | --bless]` — every public item of every library crate in `api/<crate>.txt`
//!   (from rustdoc JSON), compared or rewritten, and each crate's count against its budget.
// The project's own tooling, not product code: the capability rule does not bind it.
#![allow(clippy::disallowed_methods)]

mod api;
mod bench;
mod bench_ref;
mod bench_start;
mod clients;
mod conformance;
mod docs;
mod features;
mod fuzz;
mod hack;
mod mcp_conformance;
mod sweep;
mod tidy;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Its own exit codes: 1 for an unexpected result, 2 when the suite is missing.
    if args.first().map(String::as_str) == Some("mcp-conformance") {
        return mcp_conformance::run(&args[1..]);
    }
    let result = match args.first().map(String::as_str) {
        Some("docs") => docs::run(&args[1..]),
        Some("conformance") => conformance::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("sweep") => sweep::run(&args[1..]),
        Some("clients") => clients::run_clients(&args[1..]),
        Some("features") => features::run(&args[1..]),
        Some("hack") => hack::run(&args[1..]),
        Some("tidy") => tidy::run(&args[1..]),
        Some("api") => api::run(&args[1..]),
        Some("help") | Some("--help") | Some("-h") | None => {
            println!(
                "usage: cargo xtask <command>\n\n\
                 commands:\n  \
                 docs [--check]                                   generate docs/rules/ (or check it is current)\n  \
                 conformance <dir> [--profile spec|compat] [--expect FILE] [--write FILE]\n  \
                 mcp-conformance [--suite-bin PATH] [--catalog DIR]...\n  \
                 {pad}the MCP conformance suite's server scenarios over\n  \
                 {pad}HTTP against examples/conformance and examples/catalog\n  \
                 {pad}(suite from FLOWMCP_CONFORMANCE; exit 1 unexpected, 2 no suite)\n  \
                 bench validate <dir> [--runs N]                  time the release binary on a corpus\n  \
                 bench call [--iters N]                           runtime per-call overhead vs bare ureq\n  \
                 bench serve [--iters N]                          tools/call over stdio vs the catalog directly\n  \
                 bench serve --http [--secs N] [--connections N]  tools/call/s over Streamable HTTP, p50/p99,\n  \
                 {pad}[--threads N] [--pin]                  CPU time of server, upstream and generator\n  \
                 bench load <dir> [--runs N] [--profile P]        load a corpus into tool descriptors\n  \
                 bench start <dir> [--runs N] [--profile P]       serve: start to first tools/list, RSS, list size\n  \
                 bench reference --core DIR <dir> [--runs N]      validate, load, start vs the JavaScript reference\n  \
                 bench resources [--iters N]                      SQLite query vs bare rusqlite, describeTables, markdown search\n  \
                 bench libraries --libs DIR [--package P]         sandbox start with an npm library, with/without bytecode cache\n  \
                 fuzz list | <target> [--secs N]                  run a cargo-fuzz target (nightly), report executions\n  \
                 sweep <dir> [--profile P] [--json FILE]          call every tool against a local echo upstream:\n  \
                 {pad}[--timeout-ms N] [--only TEXT]        outcomes, panics, hangs, leaks\n  \
                 {pad}[--workers N] [--no-hostile] [--libs DIR]\n  \
                 features                                         check each crate with no default features and with\n  \
                 {pad}each single feature (warnings are errors)\n  \
                 hack [--check]                                   keep crates/flowmcp-workspace-hack complete\n  \
                 {pad}(so tests, examples and xtask share one build of each dependency)\n  \
                 tidy                                             crate edges, module cycles, registered codes,\n  \
                 {pad}IDs formatted in one place, no CLI wording in\n  \
                 {pad}library texts, file calls\n  \
                 api [--check | --bless]                          every public item of each library crate against\n  \
                 {pad}api/*.txt (rustdoc JSON), and its budget\n  \
                 clients                                          drive `flowmcp serve` with the Python mcp client\n  \
                 {pad}(stdio and HTTP; installs it into target/clients-venv)",
                pad = " ".repeat(11)
            );
            Ok(())
        }
        Some(other) => Err(format!(
            "unknown command {other:?} (try `cargo xtask help`)"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The `cargo` that runs this xtask (`$CARGO`), else `cargo` from `PATH`.
pub(crate) fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// `cargo metadata --no-deps` of the workspace at `root`, as JSON.
pub(crate) fn cargo_metadata(root: &std::path::Path) -> Result<serde_json::Value, String> {
    let out = std::process::Command::new(cargo())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))
}

/// Reads the value of `--runs`: a positive number of repetitions for a bench.
pub(crate) fn parse_runs(value: Option<&String>) -> Result<usize, String> {
    value
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| "--runs needs a positive number".to_string())
}

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> std::path::PathBuf {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}
