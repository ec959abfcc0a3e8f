//! `cargo xtask bench start <dir> [--runs N] [--profile P]`: how fast `flowmcp serve` answers
//! its first `tools/list` on a corpus, how much memory it took by then, and how large `tools/list`
//! is with and without `--lazy`.
//!
//! Each run is a fresh release process over stdio: the clock starts before the process is spawned
//! and stops when the first `tools/list` page has been read (initialize and its answer included).
//! The peak RSS is the server's `VmHWM` from /proc after the whole list has been read. Every
//! server parameter the corpus asks for is set to a placeholder value, so that every tool is
//! served (nothing is called). The list size is the JSON text of all `tools` entries, over every
//! page; tokens are estimated as bytes / 4.
//!
//! Each mode is measured cold (`--no-cache`: every file evaluated and validated) and warm (the
//! validation result cache of a home directory of the bench's own, filled by one untimed run
//! first), cold and warm runs alternating.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::workspace_root;

struct Run {
    first_list: Duration,
    peak_kib: u64,
    tools: usize,
    bytes: usize,
}

pub(crate) fn run(
    args: &[String],
    build: impl Fn(&[&str]) -> Result<(), String>,
) -> Result<(), String> {
    let mut dir = None;
    let mut runs = 5usize;
    let mut profile = "compat".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = crate::parse_runs(it.next())?,
            "--profile" => profile = it.next().ok_or("--profile needs a value")?.clone(),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => dir = Some(other.to_string()),
        }
    }
    let dir = dir.ok_or("usage: cargo xtask bench start <dir> [--runs N] [--profile P]")?;
    build(&["-p", "flowmcp-cli"])?;
    let bin = workspace_root().join("target/release/flowmcp");
    let env = server_params(&bin, &dir, &profile)?;
    println!(
        "bench start {dir} (profile {profile}, {runs} runs each, release, stdio, {} server parameters set to placeholders)",
        env.len()
    );
    let home = std::env::temp_dir().join(format!("flowmcp-bench-start-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    let result = (|| -> Result<(), String> {
        for lazy in [false, true] {
            // Fills the cache (untimed).
            one(&bin, &dir, &profile, lazy, &env, Some(&home))?;
            let (mut cold, mut warm) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
            for _ in 0..runs {
                cold.push(one(&bin, &dir, &profile, lazy, &env, None)?);
                warm.push(one(&bin, &dir, &profile, lazy, &env, Some(&home))?);
            }
            for (what, all) in [("cold", &mut cold), ("warm", &mut warm)] {
                all.sort_by_key(|r| r.first_list);
                let median = &all[all.len() / 2];
                let peak = all.iter().map(|r| r.peak_kib).max().unwrap_or(0);
                println!(
                    "{:<5} {what} start to first tools/list: median {:6.1} ms, min {:6.1} ms, max {:6.1} ms; peak RSS {:5.1} MiB",
                    if lazy { "lazy" } else { "full" },
                    ms(median.first_list),
                    ms(all[0].first_list),
                    ms(all[all.len() - 1].first_list),
                    peak as f64 / 1024.0
                );
            }
            let median = &cold[cold.len() / 2];
            println!(
                "      tools/list: {} tools, {} bytes (~{} tokens)",
                median.tools,
                median.bytes,
                median.bytes / 4
            );
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&home);
    result
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Every server parameter the corpus's tools miss, each with a placeholder value.
pub(crate) fn server_params(
    bin: &Path,
    dir: &str,
    profile: &str,
) -> Result<Vec<(String, String)>, String> {
    let out = Command::new(bin)
        .args(["list", "--json", "--no-cache", "--profile", profile, dir])
        .env("HOME", std::env::temp_dir())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let listed: Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("flowmcp list --json: {e}"))?;
    let mut names: Vec<String> = listed["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["missingServerParams"].as_array().into_iter().flatten())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    Ok(names
        .into_iter()
        .map(|n| (n, "bench-placeholder".to_string()))
        .collect())
}

/// One server process: start, initialize, list every page, read the peak RSS, end.
fn one(
    bin: &Path,
    dir: &str,
    profile: &str,
    lazy: bool,
    env: &[(String, String)],
    cache_home: Option<&Path>,
) -> Result<Run, String> {
    let started = Instant::now();
    let mut cmd = Command::new(bin);
    cmd.args(["serve", dir, "--profile", profile]);
    match cache_home {
        Some(home) => cmd.env("HOME", home),
        None => cmd.arg("--no-cache").env("HOME", std::env::temp_dir()),
    };
    cmd.envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if lazy {
        cmd.arg("--lazy");
    }
    let mut child = cmd.spawn().map_err(|e| format!("{}: {e}", bin.display()))?;
    let result = talk(&mut child, started);
    // End of input: the server exits.
    drop(child.stdin.take());
    let _ = child.wait();
    result
}

fn talk(child: &mut Child, started: Instant) -> Result<Run, String> {
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut send = |msg: Value| -> Result<(), String> {
        let mut text = msg.to_string();
        text.push('\n');
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())
    };
    let mut line = String::new();
    let mut read = |line: &mut String| -> Result<Value, String> {
        line.clear();
        stdout.read_line(line).map_err(|e| e.to_string())?;
        serde_json::from_str(line).map_err(|e| format!("{e}: {line:.200}"))
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}),
    )?;
    read(&mut line)?;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let mut first = None;
    let mut cursor: Option<String> = None;
    let mut tools = 0usize;
    let mut bytes = 0usize;
    for id in 1.. {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}))?;
        let answer = read(&mut line)?;
        first.get_or_insert_with(|| started.elapsed());
        let page = answer["result"]["tools"]
            .as_array()
            .ok_or_else(|| format!("tools/list failed: {answer}"))?;
        tools += page.len();
        bytes += page.iter().map(|t| t.to_string().len()).sum::<usize>();
        match answer["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let peak_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Ok(Run {
        first_list: first.unwrap_or_default(),
        peak_kib,
        tools,
        bytes,
    })
}
