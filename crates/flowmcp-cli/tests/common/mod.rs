//! Shared helpers for the CLI tests: run the `flowmcp` binary with a generous watchdog.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The outcome of one `flowmcp` run.
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary in `cwd`; a run that takes longer than 180 s fails the test (no timing
/// assertions otherwise).
pub(crate) fn flowmcp(args: &[&str], cwd: &Path) -> Run {
    flowmcp_env(args, cwd, &[])
}

/// The binary under test: this build's, or the one `FLOWMCP_TEST_BIN` names (to run the same
/// tests against another build, e.g. to see a regression test fail on a build without its fix).
pub(crate) fn binary() -> std::ffi::OsString {
    std::env::var_os("FLOWMCP_TEST_BIN")
        .unwrap_or_else(|| std::ffi::OsString::from(env!("CARGO_BIN_EXE_flowmcp")))
}

/// A `PATH` whose first directory holds the binary under test as `flowmcp` (a link to
/// [`binary`]), as `cargo install` puts it on a user's `PATH`, followed by the process's own.
pub(crate) fn path_with_flowmcp() -> String {
    let dir = std::env::temp_dir().join(format!("flowmcp-test-bin-{}", std::process::id()));
    let link = dir.join("flowmcp");
    if std::fs::symlink_metadata(&link).is_err() {
        std::fs::create_dir_all(&dir).unwrap();
        // Another test of this process may have made it meanwhile.
        let _ = std::os::unix::fs::symlink(binary(), &link);
    }
    match std::env::var("PATH") {
        Ok(p) => format!("{}:{p}", dir.display()),
        Err(_) => dir.display().to_string(),
    }
}

/// The home directory the binary sees unless a test gives its own: one per test process, so that
/// nothing a run writes in the user's directories (the result cache, the preload cache) lands in
/// the real home, and nothing from the real home's configuration changes a test.
pub(crate) fn test_home() -> PathBuf {
    let home = std::env::temp_dir().join(format!("flowmcp-test-home-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&home);
    home
}

/// As [`flowmcp`], with extra environment variables.
pub(crate) fn flowmcp_env(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(binary())
        .args(args)
        .current_dir(cwd)
        .env("HOME", test_home())
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn flowmcp");
    // Drain both pipes on their own threads so a large output cannot fill a pipe and stall the child.
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut b);
        b
    });
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("flowmcp {args:?} did not finish within 180 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out_reader.join().expect("stdout reader")).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned(),
    }
}

/// The workspace root.
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// Whether the running process `pid` may be given transparent huge pages, as Linux reports it
/// (`THP_enabled` in `/proc/<pid>/status`; `None` elsewhere or on kernels that do not say).
pub(crate) fn huge_pages_enabled(pid: u32) -> Option<bool> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
    Some(line.trim_start_matches("THP_enabled:").trim() != "0")
}

/// A fresh temporary directory for one test.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flowmcp-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The runtime's test helpers (a local HTTP server, scratch directories, copying directories).
#[path = "../../../flowmcp-runtime/tests/support/mod.rs"]
pub(crate) mod support;
#[allow(unused_imports)] // not every test file copies directories
pub(crate) use support::copy_dir;

/// A local stand-in for the example catalog's APIs, as `cargo run -p flowmcp-runtime --example
/// demo_upstream` serves them: the request path names a file of `examples/demo-upstream/` (the
/// query string ignored), 404 otherwise; at most `max` requests.
pub(crate) fn demo_upstream(max: usize) -> support::TestServer {
    let dir = repo_root().join("examples/demo-upstream");
    support::TestServer::start(max, move |seen| {
        let path = seen.url.split('?').next().unwrap_or_default();
        let file = dir.join(path.trim_start_matches('/'));
        match std::fs::read(&file) {
            Ok(body) if !path.contains("..") => support::reply(200, Some("application/json"), body),
            _ => support::reply(404, Some("application/json"), "{}"),
        }
    })
}

/// The server parameters the tools of a `flowmcp list --json` output still miss, sorted, each once.
pub(crate) fn missing_server_params(listed: &serde_json::Value) -> Vec<String> {
    let mut params: Vec<String> = listed["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| {
            t["missingServerParams"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|p| p.as_str().map(String::from))
        .collect();
    params.sort();
    params.dedup();
    params
}
