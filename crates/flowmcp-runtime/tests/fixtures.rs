//! Runtime rule fixtures: `tests/fixtures/<CODE>/{fail,pass}*.mjs`, one schema each, called once
//! against a local upstream. `cargo xtask docs` shows them on the rule pages.
//!
//! Directives (the comment lines at the top of the file, read by `support/directives.rs`):
//!
//! - `// call: <wire name> <JSON input>` — the call to make (required);
//! - `// upstream: <status> <content type> <body>` — what the local server answers, or
//!   `// upstream: sleep <ms>` (answers `{}` after that long), or `// upstream-size: <bytes>` (a
//!   `text/plain` body of that size); without one, nothing listens;
//! - `// upstream-url: <url>` — the base URL instead (`refused`: a loopback port nobody listens on);
//! - `// profile: compat`, `// env: KEY=value`, `// timeout-ms: <ms>` (transport total timeout),
//!   `// max-body: <bytes>`;
//! - `// expect: ok` (status true) or `// expect: <CODE> <text>` — the first message starts with
//!   `<CODE> <tool>: <text>`; a SEC code is reported inside an E005 message, so `// expect: E005
//!   postRequest SEC101` is how SEC fixtures read.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::calls;
use crate::directives;
use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use flowmcp_runtime::{Runner, RunnerOptions};
use flowmcp_runtime::{Toolset, ToolsetOptions};
use flowmcp_runtime::{transport::TransportConfig, transport::UreqTransport};
use flowmcp_spec::Profile;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use support::{Seen, TestServer, reply};

#[derive(Debug, Default)]
struct Directives {
    tool: String,
    input: Map<String, Value>,
    upstream: Option<Upstream>,
    upstream_url: Option<String>,
    profile: Profile,
    env: BTreeMap<String, String>,
    timeout_ms: Option<u64>,
    max_body: Option<u64>,
    expect: Option<(String, String)>,
}

#[derive(Debug, Clone)]
enum Upstream {
    Reply(u16, String, String),
    Sleep(u64),
    Size(usize),
}

fn parse(path: &Path) -> Directives {
    let text = std::fs::read_to_string(path).expect("fixture is UTF-8");
    let mut d = Directives::default();
    let (header, _) = directives::split(&text);
    for (key, value) in &header {
        let value = value.as_str();
        match key.as_str() {
            "call" => {
                let (tool, input) = value.split_once(' ').unwrap_or((value, "{}"));
                d.tool = tool.to_string();
                d.input = match serde_json::from_str(input) {
                    Ok(Value::Object(m)) => m,
                    _ => panic!("{}: `call` input is not a JSON object", path.display()),
                };
            }
            "upstream" => {
                let mut parts = value.splitn(3, ' ');
                let first = parts.next().unwrap_or_default();
                d.upstream = Some(if first == "sleep" {
                    Upstream::Sleep(parts.next().and_then(|n| n.parse().ok()).expect("sleep ms"))
                } else {
                    Upstream::Reply(
                        first.parse().expect("status"),
                        parts.next().unwrap_or_default().to_string(),
                        parts.next().unwrap_or_default().to_string(),
                    )
                });
            }
            "upstream-size" => d.upstream = Some(Upstream::Size(value.parse().expect("size"))),
            "upstream-url" => d.upstream_url = Some(value.to_string()),
            "profile" => d.profile = value.parse().expect("profile"),
            "env" => {
                let (k, v) = value.split_once('=').expect("env KEY=value");
                d.env.insert(k.to_string(), v.to_string());
            }
            "timeout-ms" => d.timeout_ms = Some(value.parse().expect("timeout-ms")),
            "max-body" => d.max_body = Some(value.parse().expect("max-body")),
            "expect" => {
                let (code, text) = value.split_once(' ').unwrap_or((value, ""));
                d.expect = Some((code.to_string(), text.trim().to_string()));
            }
            other => panic!("{}: unknown directive `{other}`", path.display()),
        }
    }
    assert!(!d.tool.is_empty(), "{}: no `// call:`", path.display());
    assert!(d.expect.is_some(), "{}: no `// expect:`", path.display());
    d
}

fn refused_base() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("probe port");
    format!("http://127.0.0.1:{port}")
}

/// Runs one fixture; returns the problem, if any.
fn run(path: &Path) -> Result<(), String> {
    let d = parse(path);
    let server = d.upstream.clone().map(|u| {
        TestServer::start(1, move |_: &Seen| match &u {
            Upstream::Reply(status, ct, body) => reply(*status, Some(ct), body.clone()),
            Upstream::Sleep(ms) => {
                std::thread::sleep(Duration::from_millis(*ms));
                reply(200, Some("application/json"), "{}")
            }
            Upstream::Size(n) => reply(200, Some("text/plain"), vec![b'x'; *n]),
        })
    });
    let base = match (&d.upstream_url, &server) {
        (Some(u), _) if u == "refused" => refused_base(),
        (Some(u), _) => u.clone(),
        (None, Some(s)) => s.base.clone(),
        (None, None) => refused_base(),
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let (schemas, problems) = calls::sources(&[path.to_path_buf()], dir, d.profile);
    if !problems.is_empty() {
        return Err(format!("load problems: {problems:?}"));
    }
    let set = Toolset::from_sources(schemas, problems, &{
        let mut built = ToolsetOptions::default();
        built.profile = d.profile;
        built.env_override = Some(d.env.clone());
        built
    });
    let mut config = TransportConfig::default();
    config.connect_timeout = Duration::from_secs(2);
    config.total_timeout = Duration::from_millis(d.timeout_ms.unwrap_or(5000));
    config.allow_http_loopback = true;
    if let Some(m) = d.max_body {
        config.max_body_bytes = m;
    }
    let transport = UreqTransport::new(config);
    let mut opts = RunnerOptions::default();
    opts.add_upstream("fx", &base).unwrap();
    let runner = Runner::with_log(&set, &transport, opts, Box::new(|_| {}));
    let envelope = runner.call_json(&d.tool, &d.input);
    drop(runner);
    if let Some(s) = server {
        let _ = s.finish();
    }
    let (code, text) = d.expect.unwrap_or_default();
    let first = envelope.messages().first().cloned().unwrap_or_default();
    if code == "ok" {
        return if envelope.status() {
            Ok(())
        } else {
            Err(format!("expected success, got {:?}", envelope.messages()))
        };
    }
    let tool = set
        .find(&d.tool)
        .map(|t| t.descriptor.tool.clone())
        .unwrap_or_else(|| d.tool.clone());
    let want = format!("{code} {tool}: {text}");
    if envelope.status() || !first.starts_with(&want) {
        return Err(format!(
            "expected a message starting with {want:?}, got {first:?}"
        ));
    }
    Ok(())
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every fixture file, as (code, file name, path).
fn fixtures() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    let mut codes: Vec<_> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures dir")
        .flatten()
        .collect();
    codes.sort_by_key(|e| e.file_name());
    for c in codes {
        let code = c.file_name().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(c.path())
            .expect("code dir")
            .flatten()
            .collect();
        files.sort_by_key(|e| e.file_name());
        for f in files {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.ends_with(".mjs") {
                out.push((code.clone(), name, f.path()));
            }
        }
    }
    out
}

#[test]
fn runtime_fixtures_behave_as_they_say() {
    let all = fixtures();
    assert!(all.len() >= 28, "fixtures found: {}", all.len());
    // Two at a time: some wait on timeouts.
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(all.len().div_ceil(2))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|(code, name, path)| {
                            run(path).err().map(|e| format!("{code}/{name}: {e}"))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("fixture thread"))
            .collect()
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn fail_fixtures_name_their_code() {
    for (code, name, path) in fixtures() {
        let d = parse(&path);
        let (expected, text) = d.expect.unwrap_or_default();
        if name.starts_with("fail") {
            assert!(
                expected == code || (code.starts_with("SEC") && text.contains(code.as_str())),
                "{code}/{name} expects {expected} {text}"
            );
        } else {
            assert_eq!(expected, "ok", "{code}/{name}");
        }
    }
}
