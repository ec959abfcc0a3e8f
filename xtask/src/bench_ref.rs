//! `cargo xtask bench reference --core <flowmcp-core> [--runs N] [--profile P] <dir>`: ours side by
//! side with the JavaScript reference (a checkout of `FlowMCP/flowmcp-core`) on one corpus.
//!
//! Three measures, each a fresh process per sample:
//! 1. **validate** the corpus: ours `flowmcp validate --format json`; the reference scans, imports
//!    and checks every file with its `SecurityScanner`, `SchemaLoader` and `MainValidator`.
//! 2. **load** the corpus and build the tool descriptors: ours `flowmcp list --json`; the reference
//!    runs `Pipeline.load` on every file and prepares one server tool per route.
//! 3. **start**: an MCP server over stdio, from process start to the answer of the first
//!    `tools/list` (initialize included): ours `flowmcp serve`; the reference registers the core's
//!    tools on the official TypeScript SDK's `McpServer`.
//!
//! The reference side is a small driver of our own (`ref/bench_ref.mjs`), written at run time into
//! a scratch directory whose `node_modules` links to the checkout's. Ours runs cold (`--no-cache`)
//! and warm (the result cache of a home directory of the bench's own, filled by one untimed run).
//! Per round the three (ours cold, ours warm, reference) run one after the other, so that machine
//! noise hits them alike. Each sample records the wall time, the CPU time (user + system) and the
//! peak RSS: for 1 and 2 from `/usr/bin/time` around the process, for 3 from `/proc/<pid>` at the
//! moment the first `tools/list` answer has been read. Reported: medians and the factor by which
//! ours is faster/smaller (reference ÷ ours).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

use crate::workspace_root;

/// The reference driver (our own code), written into the scratch directory at run time.
const DRIVER: &str = include_str!("ref/bench_ref.mjs");

const SETUP: &str = "\
bench reference needs a checkout of the JavaScript reference, FlowMCP/flowmcp-core, with its
dependencies and the official MCP TypeScript SDK installed (Node.js and npm on PATH):

    git clone https://github.com/FlowMCP/flowmcp-core /path/to/flowmcp-core
    cd /path/to/flowmcp-core && git checkout 8dab10b     # the commit of issue #30's table
    npm install --ignore-scripts
    npm install --no-save --ignore-scripts @modelcontextprotocol/sdk

then:

    cargo xtask bench reference --core /path/to/flowmcp-core [--runs N] <schema dir>

(see README.md, \"Side by side with the JavaScript reference\").";

/// One sample: wall time, CPU time (user + system) in seconds, peak RSS in KiB.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    wall: f64,
    cpu: f64,
    kib: u64,
}

pub(crate) fn run(
    args: &[String],
    build: impl Fn(&[&str]) -> Result<(), String>,
) -> Result<(), String> {
    let mut core: Option<PathBuf> = None;
    let mut dir: Option<String> = None;
    let mut runs = 5usize;
    let mut profile = "compat".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--core" => core = Some(PathBuf::from(it.next().ok_or("--core needs a path")?)),
            "--runs" => runs = crate::parse_runs(it.next())?,
            "--profile" => profile = it.next().ok_or("--profile needs a value")?.clone(),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => dir = Some(other.to_string()),
        }
    }
    let Some(core) = core else {
        println!("{SETUP}");
        return Ok(());
    };
    let dir = dir.ok_or(
        "usage: cargo xtask bench reference --core <flowmcp-core> [--runs N] [--profile P] <dir>",
    )?;
    let core = std::fs::canonicalize(&core).map_err(|e| format!("{}: {e}", core.display()))?;
    for needed in [
        "src/index.mjs",
        "node_modules/zod",
        "node_modules/@modelcontextprotocol/sdk",
    ] {
        if !core.join(needed).exists() {
            return Err(format!(
                "{} has no {needed}: not a prepared flowmcp-core checkout\n\n{SETUP}",
                core.display()
            ));
        }
    }
    if !Path::new("/usr/bin/time").exists() {
        return Err(
            "/usr/bin/time is needed (the `time` package) for CPU time and peak RSS".into(),
        );
    }

    build(&["-p", "flowmcp-cli"])?;
    let bin = workspace_root().join("target/release/flowmcp");
    let scratch = std::env::temp_dir().join(format!("flowmcp-bench-ref-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let result = (|| {
        std::fs::create_dir_all(scratch.join("home"))
            .map_err(|e| format!("{}: {e}", scratch.display()))?;
        let driver = scratch.join("bench_ref.mjs");
        std::fs::write(&driver, DRIVER).map_err(|e| format!("{}: {e}", driver.display()))?;
        std::os::unix::fs::symlink(core.join("node_modules"), scratch.join("node_modules"))
            .map_err(|e| format!("{}: {e}", scratch.display()))?;
        let bench = Bench {
            bin: &bin,
            driver: &driver,
            core: &core,
            dir: &dir,
            profile: &profile,
            home: &scratch.join("home"),
            timing: &scratch.join("time.txt"),
            env: crate::bench_start::server_params(&bin, &dir, &profile)?,
        };
        bench.all(runs)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

#[derive(Clone, Copy, PartialEq)]
enum Measure {
    Validate,
    Load,
    Start,
}

#[derive(Clone, Copy, PartialEq)]
enum Side {
    Cold,
    Warm,
    Reference,
}

struct Bench<'a> {
    bin: &'a Path,
    /// The reference driver and the flowmcp-core checkout it runs (unused by `bench growth`).
    driver: &'a Path,
    core: &'a Path,
    dir: &'a str,
    profile: &'a str,
    home: &'a Path,
    /// Where `/usr/bin/time -o` writes.
    timing: &'a Path,
    /// Placeholder values for every server parameter, so that our server lists every tool.
    env: Vec<(String, String)>,
}

impl Bench<'_> {
    fn all(&self, runs: usize) -> Result<(), String> {
        println!(
            "bench reference {} (profile {}, {runs} interleaved rounds, release, process start included)",
            self.dir, self.profile
        );
        println!("reference: {}", self.core.display());
        println!(
            "× = reference ÷ ours (how many times faster / smaller ours is); medians of {runs} runs"
        );
        println!(
            "{:<34} {:<10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}",
            "measure", "side", "wall ms", "CPU ms", "peak MiB", "wall ×", "CPU ×", "RSS ×"
        );
        let mut notes = Vec::new();
        for (measure, title) in [
            (Measure::Validate, "validate the collection"),
            (Measure::Load, "load + build tool descriptors"),
            (Measure::Start, "stdio start → first tools/list"),
        ] {
            // Untimed: fills our cache and the file system cache, and checks both sides work.
            notes.push(self.sample(measure, Side::Warm)?.1);
            notes.push(self.sample(measure, Side::Reference)?.1);
            let mut samples: [Vec<Sample>; 3] = Default::default();
            for _ in 0..runs {
                for (i, side) in [Side::Cold, Side::Warm, Side::Reference]
                    .into_iter()
                    .enumerate()
                {
                    samples[i].push(self.sample(measure, side)?.0);
                }
            }
            let medians = samples.map(|s| Medians::of(&s));
            let reference = medians[2];
            for (i, (side, m)) in ["reference", "ours cold", "ours warm"]
                .into_iter()
                .zip([medians[2], medians[0], medians[1]])
                .enumerate()
            {
                let ratio = |ours: f64, theirs: f64| {
                    if i == 0 || ours <= 0.0 {
                        String::new()
                    } else {
                        format!("{:.1}×", theirs / ours)
                    }
                };
                println!(
                    "{:<34} {side:<10} {:>10.1} {:>10.1} {:>10.1} {:>8} {:>8} {:>8}",
                    if i == 0 { title } else { "" },
                    m.wall * 1e3,
                    m.cpu * 1e3,
                    m.mib,
                    ratio(m.wall, reference.wall),
                    ratio(m.cpu, reference.cpu),
                    ratio(m.mib, reference.mib),
                );
            }
        }
        for note in notes.into_iter().filter(|n| !n.is_empty()) {
            println!("{note}");
        }
        Ok(())
    }

    /// One process of `side` for `measure`; also returns the reference driver's summary line.
    fn sample(&self, measure: Measure, side: Side) -> Result<(Sample, String), String> {
        if measure == Measure::Start {
            return self.start(side);
        }
        let mut cmd = Command::new("/usr/bin/time");
        cmd.arg("-f").arg("%U %S %M").arg("-o").arg(self.timing);
        match side {
            Side::Reference => {
                let mode = if measure == Measure::Validate {
                    "validate"
                } else {
                    "load"
                };
                cmd.arg("node")
                    .arg(self.driver)
                    .arg(mode)
                    .arg(self.core)
                    .arg(self.dir);
            }
            Side::Cold | Side::Warm => {
                cmd.arg(self.bin);
                if measure == Measure::Validate {
                    cmd.args(["validate", "--format", "json"]);
                } else {
                    cmd.args(["list", "--json"]);
                }
                cmd.args(["--profile", self.profile]).arg(self.dir);
                if side == Side::Cold {
                    cmd.arg("--no-cache");
                }
                cmd.env("HOME", self.home);
            }
        }
        let started = Instant::now();
        let out = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("/usr/bin/time: {e}"))?;
        let wall = started.elapsed().as_secs_f64();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Ours exits 1 when a file has errors; that is a result, not a failure.
        if !matches!(out.status.code(), Some(0 | 1)) {
            return Err(format!("{cmd:?} failed ({}): {stderr:.2000}", out.status));
        }
        let timing = std::fs::read_to_string(self.timing)
            .map_err(|e| format!("{}: {e}", self.timing.display()))?;
        let (cpu, kib) = parse_time_output(&timing)
            .ok_or_else(|| format!("unexpected /usr/bin/time output: {timing:?}"))?;
        let note = if side == Side::Reference {
            stderr
                .lines()
                .filter(|l| l.starts_with("reference "))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            String::new()
        };
        Ok((Sample { wall, cpu, kib }, note))
    }

    /// One stdio server: start, initialize, the first `tools/list` page; CPU and peak RSS read
    /// from /proc at that moment.
    fn start(&self, side: Side) -> Result<(Sample, String), String> {
        let mut cmd;
        match side {
            Side::Reference => {
                cmd = Command::new("node");
                cmd.arg(self.driver)
                    .arg("serve")
                    .arg(self.core)
                    .arg(self.dir);
            }
            Side::Cold | Side::Warm => {
                cmd = Command::new(self.bin);
                cmd.args(["serve", self.dir, "--profile", self.profile])
                    .env("HOME", self.home)
                    .envs(self.env.iter().map(|(k, v)| (k, v)));
                if side == Side::Cold {
                    cmd.arg("--no-cache");
                }
            }
        }
        let started = Instant::now();
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{cmd:?}: {e}"))?;
        let pid = child.id();
        let talked = (|| -> Result<(Sample, usize), String> {
            let mut stdin = child.stdin.take().ok_or("no stdin")?;
            let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
            let mut send = |msg: Value| -> Result<(), String> {
                let mut text = msg.to_string();
                text.push('\n');
                stdin
                    .write_all(text.as_bytes())
                    .and_then(|()| stdin.flush())
                    .map_err(|e| e.to_string())
            };
            let mut line = String::new();
            let mut read = |line: &mut String| -> Result<Value, String> {
                line.clear();
                stdout.read_line(line).map_err(|e| e.to_string())?;
                serde_json::from_str(line).map_err(|e| format!("{e}: {line:.200}"))
            };
            send(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}}}),
            )?;
            read(&mut line)?;
            send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
            send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}))?;
            let answer = read(&mut line)?;
            let wall = started.elapsed().as_secs_f64();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
            let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
                .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
            let ticks = parse_proc_stat_ticks(&stat).ok_or("unexpected /proc/<pid>/stat")?;
            let kib = parse_vm_hwm(&status).ok_or("no VmHWM in /proc/<pid>/status")?;
            let tools = answer["result"]["tools"]
                .as_array()
                .ok_or_else(|| format!("tools/list failed: {answer:.500}"))?
                .len();
            Ok((
                Sample {
                    wall,
                    cpu: ticks as f64 / clock_ticks_per_second(),
                    kib,
                },
                tools,
            ))
        })();
        // Measured: the server is not needed any more.
        let _ = child.kill();
        let _ = child.wait();
        let (sample, tools) = talked?;
        let who = if side == Side::Reference {
            "reference"
        } else {
            "ours"
        };
        Ok((
            sample,
            format!("{who} serve: {tools} tools on the first tools/list page"),
        ))
    }
}

/// `getconf CLK_TCK` (the unit of the CPU times in `/proc/<pid>/stat`), 100 when unknown.
fn clock_ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .filter(|t| *t > 0.0)
        .unwrap_or(100.0)
}

#[derive(Clone, Copy)]
struct Medians {
    wall: f64,
    cpu: f64,
    mib: f64,
}

impl Medians {
    fn of(samples: &[Sample]) -> Medians {
        let pick = |f: &dyn Fn(&Sample) -> f64| median(samples.iter().map(f).collect());
        Medians {
            wall: pick(&|s| s.wall),
            cpu: pick(&|s| s.cpu),
            mib: pick(&|s| s.kib as f64 / 1024.0),
        }
    }
}

/// The median (the mean of the middle two for an even count); 0 when empty.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// `/usr/bin/time -f "%U %S %M"` output: user + system seconds and the peak RSS in KiB. The
/// figures are on the last line (a non-zero exit adds a line before them).
fn parse_time_output(text: &str) -> Option<(f64, u64)> {
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let mut fields = last.split_whitespace();
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    let kib: u64 = fields.next()?.parse().ok()?;
    Some((user + system, kib))
}

/// utime + stime (clock ticks) from `/proc/<pid>/stat`. The command name (field 2) may hold
/// spaces and parentheses, so the fields are counted after its last `)`: utime and stime are
/// fields 14 and 15, the 12th and 13th after it.
fn parse_proc_stat_ticks(stat: &str) -> Option<u64> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// The `VmHWM` (peak RSS) of a `/proc/<pid>/status`, in KiB.
fn parse_vm_hwm(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// `cargo xtask bench growth <dir> [--copies 1,3,10] [--runs N] [--profile P]`: how validate and
/// server start grow with the size of a catalog. For each count k, a scratch directory holds k
/// copies of `<dir>` in which every copy after the first has its namespaces renamed
/// (`namespace: 'x'` becomes `namespace: 'xc2'`, …), so that all tools are distinct. Each count
/// is measured cold (`--no-cache`) and warm (after one untimed run filled the cache) like
/// `bench reference` measures ours; reported are the medians, the time per file and, for the
/// server, the peak RSS per listed tool, each next to its value at the first count.
pub(crate) fn growth(
    args: &[String],
    build: impl Fn(&[&str]) -> Result<(), String>,
) -> Result<(), String> {
    let mut dir: Option<String> = None;
    let mut runs = 5usize;
    let mut copies = vec![1usize, 3, 10];
    let mut profile = "compat".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = crate::parse_runs(it.next())?,
            "--profile" => profile = it.next().ok_or("--profile needs a value")?.clone(),
            "--copies" => copies = parse_copies(it.next())?,
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => dir = Some(other.to_string()),
        }
    }
    let dir = dir.ok_or(
        "usage: cargo xtask bench growth <dir> [--copies 1,3,10] [--runs N] [--profile P]",
    )?;
    if !Path::new("/usr/bin/time").exists() {
        return Err(
            "/usr/bin/time is needed (the `time` package) for CPU time and peak RSS".into(),
        );
    }
    build(&["-p", "flowmcp-cli"])?;
    let bin = workspace_root().join("target/release/flowmcp");
    let source = PathBuf::from(&dir);
    let files = regular_files(&source)?;
    if files.is_empty() {
        return Err(format!("{dir}: no files"));
    }
    let scratch = std::env::temp_dir().join(format!("flowmcp-bench-growth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let result = (|| {
        println!(
            "bench growth {dir} (profile {profile}, copies {copies:?}, {runs} runs each, release, process start included)"
        );
        println!(
            "{:<7} {:>6} {:<22} {:>9} {:>9} {:>9} {:>11} {:>9}",
            "copies", "files", "measure", "wall ms", "CPU ms", "peak MiB", "µs per file", "vs 1st"
        );
        let mut first: Vec<f64> = Vec::new();
        for &k in &copies {
            let corpus = scratch.join(format!("x{k}"));
            let home = scratch.join(format!("home{k}"));
            std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
            let written = make_copies(&source, &files, &corpus, k)?;
            let corpus_text = corpus.to_string_lossy().into_owned();
            let bench = Bench {
                bin: &bin,
                driver: Path::new(""),
                core: Path::new(""),
                dir: &corpus_text,
                profile: &profile,
                home: &home,
                timing: &scratch.join("time.txt"),
                env: crate::bench_start::server_params(&bin, &corpus_text, &profile)?,
            };
            let mut row = 0;
            for (measure, title) in [
                (Measure::Validate, "validate"),
                (Measure::Start, "start → tools/list"),
            ] {
                bench.sample(measure, Side::Warm)?;
                let mut samples: [Vec<Sample>; 2] = Default::default();
                for _ in 0..runs {
                    samples[0].push(bench.sample(measure, Side::Cold)?.0);
                    samples[1].push(bench.sample(measure, Side::Warm)?.0);
                }
                for (side, all) in ["cold", "warm"].into_iter().zip(&samples) {
                    let m = Medians::of(all);
                    let per_file = m.wall * 1e6 / written as f64;
                    if first.len() <= row {
                        first.push(per_file);
                    }
                    println!(
                        "{:<7} {:>6} {:<22} {:>9.1} {:>9.1} {:>9.1} {:>11.0} {:>8.2}×",
                        k,
                        written,
                        format!("{title} {side}"),
                        m.wall * 1e3,
                        m.cpu * 1e3,
                        m.mib,
                        per_file,
                        per_file / first[row]
                    );
                    row += 1;
                }
            }
            let _ = std::fs::remove_dir_all(&corpus);
        }
        println!(
            "µs per file at k copies ÷ µs per file at the first count: 1.00× or less is linear growth or better"
        );
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Every regular file under `dir` (symbolic links are not followed), in name order.
fn regular_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => out.push(entry.path()),
                _ => {}
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `--copies 1,3,10`: positive counts.
fn parse_copies(value: Option<&String>) -> Result<Vec<usize>, String> {
    let text = value.ok_or("--copies needs a list such as 1,3,10")?;
    text.split(',')
        .map(|n| n.trim().parse::<usize>().ok().filter(|n| *n > 0))
        .collect::<Option<Vec<_>>>()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| format!("--copies {text}: expected positive counts such as 1,3,10"))
}

/// Writes `k` copies of the corpus `files` (under `source`) into `into/c1 … c<k>`, renaming the
/// namespaces of every copy after the first; returns how many files were written.
fn make_copies(source: &Path, files: &[PathBuf], into: &Path, k: usize) -> Result<usize, String> {
    let mut written = 0;
    for copy in 1..=k {
        for file in files {
            let rel = file.strip_prefix(source).unwrap_or(file);
            let to = into.join(format!("c{copy}")).join(rel);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let bytes = match (copy, String::from_utf8(bytes)) {
                (1, Ok(text)) => text.into_bytes(),
                (_, Ok(text)) => rename_namespaces(&text, copy).into_bytes(),
                (_, Err(e)) => e.into_bytes(),
            };
            std::fs::write(&to, bytes).map_err(|e| format!("{}: {e}", to.display()))?;
            written += 1;
        }
    }
    Ok(written)
}

/// `namespace: 'x'` (either quote) becomes `namespace: 'xc<copy>'`.
fn rename_namespaces(text: &str, copy: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find("namespace:") {
        let (head, tail) = rest.split_at(at + "namespace:".len());
        out.push_str(head);
        let value_at = tail.len() - tail.trim_start().len();
        let quoted = tail[value_at..]
            .chars()
            .next()
            .filter(|q| *q == '\'' || *q == '"');
        match quoted.and_then(|q| tail[value_at + 1..].find(q).map(|end| (q, end))) {
            Some((_, end)) => {
                let close = value_at + 1 + end;
                out.push_str(&tail[..close]);
                out.push_str(&format!("c{copy}"));
                rest = &tail[close..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue #30, growth: every copy after the first gets namespaces of its own.
    #[test]
    fn i30_growth_copies_rename_namespaces() {
        let text =
            "export const main = { namespace: 'nina', x: 1 }\nconst o = { namespace:\"b-2\" }";
        assert_eq!(
            rename_namespaces(text, 3),
            "export const main = { namespace: 'ninac3', x: 1 }\nconst o = { namespace:\"b-2c3\" }"
        );
        assert_eq!(rename_namespaces("namespace: x", 2), "namespace: x");
        assert_eq!(
            parse_copies(Some(&"1, 3,10".to_string())),
            Ok(vec![1, 3, 10])
        );
        assert!(parse_copies(Some(&"1,0".to_string())).is_err());
    }

    // Issue #30, scope 5: the helpers of `bench reference`.
    #[test]
    fn i30_5_median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(Vec::new()), 0.0);
    }

    #[test]
    fn i30_5_time_output_after_a_non_zero_exit() {
        let (cpu, kib) = parse_time_output("0.81 0.17 108544\n").unwrap_or_default();
        assert!((cpu - 0.98).abs() < 1e-9);
        assert_eq!(kib, 108_544);
        let failed = "Command exited with non-zero status 1\n0.25 0.05 23000\n";
        let (cpu, kib) = parse_time_output(failed).unwrap_or_default();
        assert!((cpu - 0.30).abs() < 1e-9);
        assert_eq!(kib, 23000);
        assert_eq!(parse_time_output("garbage"), None);
    }

    #[test]
    fn i30_5_proc_stat_with_a_command_name_holding_parentheses() {
        let stat = "4242 (node (x) y) S 1 4242 4242 0 -1 4194304 9000 0 0 0 87 13 0 0 20 0 11 0";
        assert_eq!(parse_proc_stat_ticks(stat), Some(100));
        assert_eq!(parse_proc_stat_ticks("4242 node S"), None);
        let status = "Name:\tnode\nVmPeak:\t 999 kB\nVmHWM:\t  150376 kB\nVmRSS:\t 1 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(150_376));
    }
}
