//! `cargo xtask fuzz <target> [--secs N] [-- <libFuzzer args>…]`: runs one cargo-fuzz target of
//! `fuzz/` for N seconds (default 60) and prints a one-line summary.
//! `cargo xtask fuzz list`: lists the targets (the files of `fuzz/fuzz_targets/`).
//!
//! The run is
//!
//! ```text
//! cargo +nightly fuzz run <target> --fuzz-dir <root>/fuzz <root>/fuzz/corpus/<target> [<root>/fuzz/seeds/<target>] \
//!     -- -max_total_time=N -print_final_stats=1 -timeout=10 [-dict=<root>/fuzz/dicts/<target>.dict] \
//!     [<libFuzzer args>…]
//! ```
//!
//! New inputs go to `fuzz/corpus/<target>` (git-ignored); the committed seeds and dictionary are
//! used when they exist. A single input running longer than 10 seconds counts as a timeout (pass
//! `-- -timeout=S` to change it). Anything after `--` goes to libFuzzer unchanged, e.g.
//! `cargo xtask fuzz scan --secs 300 -- -max_len=65536`. One fuzzing process, no `-jobs`/`-workers`.
//!
//! libFuzzer's output streams through; at the end the summary line gives the target, the seconds,
//! the total executions (from `Done N runs in S second(s)`, else libFuzzer's final
//! `stat::number_of_executed_units`, which it also prints after a crash, else the last `#N` status
//! line) and the final coverage. When libFuzzer wrote a crash, leak, timeout or out-of-memory artifact, the line
//! names it with the commands to reproduce and minimise it, and the command fails.
//!
//! Needs the nightly toolchain (`rustup toolchain install nightly`) and cargo-fuzz
//! (`cargo install cargo-fuzz --locked`); a clear error says which is missing.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::workspace_root;

/// Default run length in seconds.
const DEFAULT_SECS: u64 = 60;
/// libFuzzer's per-input time limit, in seconds, unless the caller passes `-timeout=`.
const DEFAULT_TIMEOUT: u64 = 10;

const USAGE: &str = "usage: cargo xtask fuzz <target> [--secs N] [-- <libFuzzer args>...]\n       \
                     cargo xtask fuzz list";

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let fuzz_dir = workspace_root().join("fuzz");
    match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => {
            println!("{USAGE}\n\ntargets: {}", targets(&fuzz_dir)?.join(", "));
            Ok(())
        }
        Some("list") => {
            for t in targets(&fuzz_dir)? {
                println!("{t}");
            }
            Ok(())
        }
        Some(target) => {
            let opts = parse_options(&args[1..])?;
            let known = targets(&fuzz_dir)?;
            if !known.iter().any(|t| t == target) {
                return Err(format!(
                    "unknown fuzz target {target:?}; targets: {}",
                    known.join(", ")
                ));
            }
            check_tools()?;
            fuzz(&fuzz_dir, target, &opts)
        }
    }
}

struct Options {
    secs: u64,
    /// Arguments after `--`, for libFuzzer.
    extra: Vec<String>,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut opts = Options {
        secs: DEFAULT_SECS,
        extra: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--secs" => {
                let value = it
                    .next()
                    .ok_or_else(|| format!("--secs needs a number of seconds\n{USAGE}"))?;
                opts.secs = value
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--secs {value:?}: expected a positive integer"))?;
            }
            "--" => {
                opts.extra.extend(it.by_ref().cloned());
            }
            other => return Err(format!("unexpected argument {other:?}\n{USAGE}")),
        }
    }
    Ok(opts)
}

/// The fuzz targets: the `.rs` files of `fuzz/fuzz_targets/`, sorted.
fn targets(fuzz_dir: &Path) -> Result<Vec<String>, String> {
    let dir = fuzz_dir.join("fuzz_targets");
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_string))
        .collect();
    out.sort();
    Ok(out)
}

/// A `cargo` command with the nightly toolchain selected, free of the toolchain choice of the
/// `cargo xtask` that runs it.
fn nightly_cargo() -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg("+nightly").env_remove("RUSTUP_TOOLCHAIN");
    cmd
}

/// Fails with the install command when the nightly toolchain or cargo-fuzz is missing.
fn check_tools() -> Result<(), String> {
    let quiet = |mut cmd: Command| {
        cmd.stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut nightly = nightly_cargo();
    nightly.arg("--version");
    if !quiet(nightly) {
        return Err(
            "the nightly toolchain is missing (`cargo +nightly` does not run); \
                    install it with `rustup toolchain install nightly`"
                .into(),
        );
    }
    let mut fuzz = nightly_cargo();
    fuzz.args(["fuzz", "--version"]);
    if !quiet(fuzz) {
        return Err(
            "cargo-fuzz is missing (`cargo +nightly fuzz` does not run); install it with \
                    `cargo install cargo-fuzz --locked`"
                .into(),
        );
    }
    Ok(())
}

fn fuzz(fuzz_dir: &Path, target: &str, opts: &Options) -> Result<(), String> {
    let corpus = fuzz_dir.join("corpus").join(target);
    std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let seeds = fuzz_dir.join("seeds").join(target);
    let dict = fuzz_dir.join("dicts").join(format!("{target}.dict"));

    let mut cmd = nightly_cargo();
    cmd.args(["fuzz", "run", target, "--fuzz-dir"])
        .arg(fuzz_dir)
        .arg(&corpus);
    if seeds.is_dir() {
        cmd.arg(&seeds);
    }
    cmd.arg("--")
        .arg(format!("-max_total_time={}", opts.secs))
        .arg("-print_final_stats=1");
    if !opts.extra.iter().any(|a| a.starts_with("-timeout=")) {
        cmd.arg(format!("-timeout={DEFAULT_TIMEOUT}"));
    }
    if dict.is_file() && !opts.extra.iter().any(|a| a.starts_with("-dict=")) {
        cmd.arg(format!("-dict={}", dict.display()));
    }
    cmd.args(&opts.extra);
    cmd.current_dir(fuzz_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped());

    eprintln!("xtask: running {}", show(&cmd));
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run cargo +nightly fuzz: {e}"))?;
    // libFuzzer reports on stderr: pass every line through and keep what the summary needs.
    let mut report = Report::default();
    if let Some(stderr) = child.stderr.take() {
        let mut err = std::io::stderr();
        for line in BufReader::new(stderr).split(b'\n').map_while(Result::ok) {
            let line = String::from_utf8_lossy(&line);
            let _ = writeln!(err, "{line}");
            report.read_line(&line);
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for cargo fuzz: {e}"))?;
    let wall = started.elapsed().as_secs();

    let secs = report.secs.unwrap_or(wall);
    let mut summary = format!("fuzz {target}: {secs} s, ");
    match report.runs_total() {
        Some(runs) => summary.push_str(&format!("{runs} executions")),
        None => summary.push_str("executions unknown"),
    }
    if let Some(rate) = report.exec_per_sec {
        summary.push_str(&format!(" ({rate} exec/s)"));
    }
    if let Some(cov) = &report.coverage {
        summary.push_str(&format!(", {cov}"));
    }
    if let Some(artifact) = &report.artifact {
        let path = resolve(fuzz_dir, artifact);
        let kind = artifact_kind(&path);
        summary.push_str(&format!(
            ": {kind} artifact {}\n  reproduce: cargo +nightly fuzz run {target} --fuzz-dir {} {}\n  minimise:  cargo +nightly fuzz tmin {target} --fuzz-dir {} {}",
            path.display(),
            fuzz_dir.display(),
            path.display(),
            fuzz_dir.display(),
            path.display(),
        ));
        println!("{summary}");
        return Err(format!("fuzz target {target} produced a {kind} artifact"));
    }
    if !status.success() {
        println!("{summary}: failed ({status})");
        return Err(format!(
            "cargo fuzz run {target} failed ({status}) without an artifact; see the output above"
        ));
    }
    summary.push_str(": no crash, leak or timeout");
    println!("{summary}");
    Ok(())
}

/// What the summary needs from libFuzzer's output.
#[derive(Default, Debug)]
struct Report {
    /// From `Done N runs in S second(s)`, else `stat::number_of_executed_units: N`, else the last
    /// `#N` status line.
    runs: Option<u64>,
    /// The executions reported by `-print_final_stats=1`.
    final_stat: Option<u64>,
    secs: Option<u64>,
    exec_per_sec: Option<u64>,
    /// `cov: … ft: … corp: …` of the last status line.
    coverage: Option<String>,
    /// The path after `Test unit written to ` (crash, leak, timeout, oom).
    artifact: Option<String>,
}

impl Report {
    /// The best count of executions: `Done`'s, the final stat, the last status line.
    fn runs_total(&self) -> Option<u64> {
        if self.secs.is_some() {
            self.runs
        } else {
            self.final_stat.or(self.runs)
        }
    }

    fn read_line(&mut self, line: &str) {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("Done ") {
            // `Done 123456 runs in 61 second(s)`
            let mut words = rest.split_whitespace();
            if let Some(runs) = words.next().and_then(|n| n.parse().ok()) {
                self.runs = Some(runs);
            }
            self.secs = words.nth(2).and_then(|s| s.parse().ok()).or(self.secs);
        } else if let Some(rest) = line.strip_prefix('#') {
            // `#123456	DONE   cov: 1294 ft: 3889 corp: 1127/23Kb lim: 116 exec/s: 13168 rss: 484Mb`
            let mut words = rest.split_whitespace();
            let Some(runs) = words.next().and_then(|n| n.parse::<u64>().ok()) else {
                return;
            };
            // A `Done` line is final; status lines only fill in until then.
            if self.secs.is_none() {
                self.runs = Some(runs);
            }
            let words: Vec<&str> = words.collect();
            let value = |key: &str| {
                words
                    .iter()
                    .position(|w| *w == key)
                    .and_then(|i| words.get(i + 1))
                    .copied()
            };
            if let Some(rate) = value("exec/s:").and_then(|r| r.parse().ok()) {
                self.exec_per_sec = Some(rate);
            }
            if let (Some(cov), Some(ft), Some(corp)) = (value("cov:"), value("ft:"), value("corp:"))
            {
                self.coverage = Some(format!("cov {cov}, ft {ft}, corpus {corp}"));
            }
        } else if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
            self.final_stat = n.trim().parse().ok();
        } else if let Some(n) = line.strip_prefix("stat::average_exec_per_sec:") {
            self.exec_per_sec = n.trim().parse().ok().or(self.exec_per_sec);
        } else if let Some(at) = line.find("Test unit written to ") {
            let path = line[at + "Test unit written to ".len()..].trim();
            if !path.is_empty() {
                self.artifact = Some(path.to_string());
            }
        }
    }
}

/// An artifact path as printed by libFuzzer (relative to the fuzz directory, where it runs).
fn resolve(fuzz_dir: &Path, artifact: &str) -> PathBuf {
    let p = Path::new(artifact);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        fuzz_dir.join(p.strip_prefix("./").unwrap_or(p))
    }
}

/// `crash`, `leak`, `timeout`, `oom`, … from libFuzzer's artifact file name (`crash-<sha1>`).
fn artifact_kind(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('-').next())
        .filter(|k| !k.is_empty())
        .unwrap_or("crash")
        .to_string()
}

/// The command as one line, for the log.
fn show(cmd: &Command) -> String {
    let mut out = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        out.push(' ');
        out.push_str(&a.to_string_lossy());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Report {
        let mut r = Report::default();
        for l in lines {
            r.read_line(l);
        }
        r
    }

    #[test]
    fn parses_a_clean_run() {
        let r = read(&[
            "#2\tINITED cov: 10 ft: 11 corp: 1/1b exec/s: 0 rss: 30Mb",
            "#210689\tDONE   cov: 1294 ft: 3889 corp: 1127/23Kb lim: 116 exec/s: 13168 rss: 484Mb",
            "Done 210689 runs in 16 second(s)",
        ]);
        assert_eq!(r.runs_total(), Some(210_689));
        assert_eq!(r.secs, Some(16));
        assert_eq!(r.exec_per_sec, Some(13_168));
        assert_eq!(
            r.coverage.as_deref(),
            Some("cov 1294, ft 3889, corpus 1127/23Kb")
        );
        assert_eq!(r.artifact, None);
    }

    #[test]
    fn parses_a_crash() {
        let r = read(&[
            "#4096\tpulse  cov: 5 ft: 6 corp: 2/3b exec/s: 2048 rss: 40Mb",
            "stat::number_of_executed_units: 5000",
            "stat::average_exec_per_sec:     2500",
            "artifact_prefix='./artifacts/request/'; Test unit written to ./artifacts/request/crash-5e9f77be",
        ]);
        assert_eq!(r.runs, Some(4096));
        assert_eq!(r.runs_total(), Some(5000));
        assert_eq!(r.exec_per_sec, Some(2500));
        assert_eq!(r.secs, None);
        let path = resolve(Path::new("/r/fuzz"), r.artifact.as_deref().unwrap_or(""));
        assert_eq!(path, Path::new("/r/fuzz/artifacts/request/crash-5e9f77be"));
        assert_eq!(artifact_kind(&path), "crash");
        assert_eq!(artifact_kind(Path::new("a/timeout-12")), "timeout");
    }

    /// What a finding of `fuzz/regressions/` shows today: fixed findings agree with JavaScript,
    /// open ones still differ (when one starts to agree, move it to the fixed ones and say so in
    /// `fuzz/regressions/README.md`).
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Finding {
        Fixed,
        Open,
        /// A check of the fuzz target itself, not of product code: only `cargo fuzz` replays it.
        TargetOnly,
    }

    const FINDINGS: [(&str, Finding); 15] = [
        ("literal/nul-key-collides.txt", Finding::Fixed),
        ("literal/nul-key-extractor-truncates.txt", Finding::Fixed),
        ("regex/accepts-unmatched-close-paren.txt", Finding::Fixed),
        ("regex/accepts-double-quantifier.txt", Finding::Open),
        ("regex/accepts-inline-flags.txt", Finding::Open),
        ("regex/accepts-quantified-assertion.txt", Finding::Open),
        ("regex/astral-code-units.txt", Finding::Open),
        ("regex/identity-escape-letter.txt", Finding::Open),
        ("regex/ignore-case-long-s.txt", Finding::Open),
        ("regex/multiline-cr.txt", Finding::Open),
        (
            "regex/oracle-quirk-quickjs-rejects-incomplete-brace.txt",
            Finding::Open,
        ),
        ("regex/space-class-feff.txt", Finding::Open),
        ("regex/space-class-nel.txt", Finding::Open),
        ("regex/u-brace-escape.txt", Finding::Open),
        (
            "request/handler-writes-a-secret-split-by-line-breaks.bin",
            Finding::TargetOnly,
        ),
    ];

    /// A regular expression's answer: `None` when it does not compile (JsRegex refuses it, or
    /// JavaScript throws a SyntaxError).
    fn ours_on_regex(pattern: &str, flags: &str, subject: &str) -> Option<bool> {
        flowmcp_spec::zod::JsRegex::new(&format!("/{pattern}/{flags}"))
            .ok()
            .map(|re| re.is_match(subject))
    }

    fn js_on_regex(pattern: &str, flags: &str, subject: &str) -> Option<bool> {
        let quote = |s: &str| serde_json::to_string(s).unwrap();
        let source = format!(
            "let r = 3;\ntry {{ r = new RegExp({}, {}).test({}) ? 1 : 0; }}\n\
             catch (e) {{ r = e instanceof SyntaxError ? 2 : 3; }}\nexport const main = {{ r }};\n",
            quote(pattern),
            quote(flags),
            quote(subject)
        );
        let exports = flowmcp_loader::eval::evaluate(
            "regex.mjs",
            &source,
            &flowmcp_loader::Limits::default(),
        )
        .unwrap();
        match exports
            .get("main")
            .and_then(|m| m.get("r"))
            .and_then(|r| r.as_i64())
        {
            Some(0) => Some(false),
            Some(1) => Some(true),
            Some(2) => None,
            other => panic!("QuickJS gave no answer: {other:?}"),
        }
    }

    /// Issue #40 (docs): every minimised finding of `fuzz/regressions/` is replayed by the normal
    /// tests, with the property its fuzz target checks, and each is classified (a new file must be
    /// added to [`FINDINGS`]).
    #[test]
    fn i40_every_fuzz_regression_is_replayed() {
        let dir = workspace_root().join("fuzz/regressions");
        let mut on_disk = Vec::new();
        for target in std::fs::read_dir(&dir).unwrap() {
            let target = target.unwrap().path();
            if !target.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&target).unwrap() {
                let file = file.unwrap().path();
                let rel = file
                    .strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                on_disk.push(rel);
            }
        }
        on_disk.sort();
        let mut listed: Vec<String> = FINDINGS.iter().map(|(f, _)| f.to_string()).collect();
        listed.sort();
        assert_eq!(
            on_disk, listed,
            "every finding file is classified in FINDINGS"
        );

        for (file, finding) in FINDINGS {
            let bytes = std::fs::read(dir.join(file)).unwrap();
            let agrees = if file.starts_with("regex/") {
                let text = String::from_utf8(bytes).unwrap();
                let mut parts = text.splitn(3, '\0');
                let (flag_text, pattern, subject) = (
                    parts.next().unwrap(),
                    parts.next().unwrap(),
                    parts.next().unwrap(),
                );
                let mut flags = String::new();
                for c in flag_text.chars() {
                    if "gimsy".contains(c) && !flags.contains(c) {
                        flags.push(c);
                    }
                }
                ours_on_regex(pattern, &flags, subject) == js_on_regex(pattern, &flags, subject)
            } else if file.starts_with("literal/") {
                // Exact or silent: the pure-data reader and QuickJS read the same `main`.
                let text = String::from_utf8(bytes).unwrap();
                let wrapped = format!("export const main = {text};");
                let blanked = flowmcp_loader::scan::blank(&wrapped);
                let read =
                    flowmcp_loader::literal::try_read_data_export(&wrapped, &blanked, "main")
                        .unwrap()
                        .value;
                let exports = flowmcp_loader::eval::evaluate(
                    "fuzz.mjs",
                    &wrapped,
                    &flowmcp_loader::Limits::default(),
                )
                .unwrap();
                exports.get("main") == Some(&read)
            } else {
                assert_eq!(finding, Finding::TargetOnly, "{file}");
                continue;
            };
            match finding {
                Finding::Fixed => assert!(agrees, "{file}: a fixed finding is back"),
                Finding::Open => assert!(
                    !agrees,
                    "{file}: now agrees with JavaScript; mark it fixed (here and in the README)"
                ),
                Finding::TargetOnly => unreachable!(),
            }
        }
    }

    #[test]
    fn options() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = parse_options(&args(&["--secs", "5", "--", "-max_len=9", "-runs=3"]))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.secs, 5);
        assert_eq!(o.extra, ["-max_len=9", "-runs=3"]);
        assert!(parse_options(&args(&["--secs", "0"])).is_err());
        assert!(parse_options(&args(&["--secs"])).is_err());
        assert!(parse_options(&args(&["--bogus"])).is_err());
    }
}
