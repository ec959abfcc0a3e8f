//! The documentation is kept true by running it: every command block of `README.md` and `docs/*.md`
//! that is marked runnable runs here, against the example catalog and a local stand-in for its
//! APIs, with the `flowmcp` of this build first on `PATH` (as `cargo install` puts it there), the
//! repository as the current directory and an empty home directory.
//!
//! A runnable block is a ```` ```sh ```` fence right after a line `<!-- runnable -->`. Each command
//! in it (a line, with `\` continuations) must exit 0, unless its trailing comment says
//! `# exits N`; a trailing `# prints: TEXT` asks that standard output contain TEXT. `127.0.0.1:8080`
//! (where `cargo run -p flowmcp-runtime --example demo_upstream` listens) is replaced by the address
//! of the stand-in. Lines that start with `cargo` are not run (the tests are built by cargo already).
//!
//! The Claude Desktop configuration of the README (the JSON block after `<!-- desktop-config -->`)
//! is started as a desktop client starts it: its `command` with its `args` and `env`, from `/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common;

use common::support::Scratch;
use common::{demo_upstream, repo_root};

/// One command of a runnable block: where it is, the shell text, and what is expected.
#[derive(Debug)]
struct DocCommand {
    file: String,
    line: usize,
    text: String,
    exit: i32,
    prints: Option<String>,
}

/// The runnable commands of one markdown text.
fn runnable_commands(file: &str, text: &str) -> Vec<DocCommand> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "<!-- runnable -->" {
            i += 1;
            continue;
        }
        i += 1;
        while i < lines.len() && lines[i].trim().is_empty() {
            i += 1;
        }
        assert!(
            i < lines.len() && lines[i].trim_start().starts_with("```sh"),
            "{file}:{}: `<!-- runnable -->` must be followed by a ```sh block",
            i + 1
        );
        i += 1;
        let mut pending = String::new();
        let mut start = i;
        while i < lines.len() && !lines[i].trim_start().starts_with("```") {
            let line = lines[i];
            if pending.is_empty() {
                start = i;
            }
            if let Some(head) = line.strip_suffix('\\') {
                pending.push_str(head);
                pending.push(' ');
                i += 1;
                continue;
            }
            pending.push_str(line);
            let command = std::mem::take(&mut pending);
            let trimmed = command.trim();
            i += 1;
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("cargo ") {
                continue;
            }
            let comment = trimmed.split_once(" # ").map(|(_, c)| c.trim());
            let exit = comment
                .and_then(|c| c.strip_prefix("exits "))
                .and_then(|n| n.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let prints = comment
                .and_then(|c| c.strip_prefix("prints: "))
                .map(str::to_string);
            out.push(DocCommand {
                file: file.to_string(),
                line: start + 1,
                text: trimmed.to_string(),
                exit,
                prints,
            });
        }
        i += 1;
    }
    out
}

/// The README and every `docs/*.md` (not the generated rule pages), with their texts.
fn documents() -> Vec<(String, String)> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(&root).unwrap().display().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_parser_reads_blocks_continuations_and_expectations() {
    let md = "text\n<!-- runnable -->\n\n```sh\nflowmcp a \\\n  --b c   # prints: ok\n# a comment\ncargo build\nflowmcp d   # exits 1\n```\n\n```sh\nflowmcp not-runnable\n```\n";
    let c = runnable_commands("x.md", md);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(c[0].text, "flowmcp a    --b c   # prints: ok");
    assert_eq!(
        (c[0].line, c[0].exit, c[0].prints.as_deref()),
        (5, 0, Some("ok"))
    );
    assert_eq!(
        (c[1].text.as_str(), c[1].exit),
        ("flowmcp d   # exits 1", 1)
    );
}

#[test]
fn every_runnable_command_of_the_documentation_works() {
    let commands: Vec<DocCommand> = documents()
        .iter()
        .flat_map(|(name, text)| runnable_commands(name, text))
        .collect();
    assert!(
        commands.len() >= 5,
        "the README has runnable blocks: {commands:?}"
    );
    let home = Scratch::new("docs-home");
    let server = demo_upstream(200);
    let address = server.base.trim_start_matches("http://").to_string();
    let path = common::path_with_flowmcp();
    let mut failures = Vec::new();
    for c in &commands {
        let text = c.text.replace("127.0.0.1:8080", &address);
        let out = Command::new("sh")
            .args(["-c", &text])
            .current_dir(repo_root())
            .env("PATH", &path)
            .env("HOME", home.path())
            .env("NO_COLOR", "1")
            .env_remove("FLOWMCP_AUTH_TOKEN")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let code = out.status.code().unwrap_or(-1);
        let printed = c.prints.as_deref().is_none_or(|p| stdout.contains(p));
        if code != c.exit || !printed {
            failures.push(format!(
                "{}:{}: `{}` exited {code} (expected {}){}\nstdout: {stdout}\nstderr: {}",
                c.file,
                c.line,
                c.text,
                c.exit,
                if printed {
                    ""
                } else {
                    ", and did not print what it says"
                },
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    drop(server);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The Claude Desktop configuration as the README gives it, with its placeholders filled: the
/// server starts from `/` (as desktop clients start it) and answers `initialize` and `tools/list`.
#[test]
fn the_desktop_configuration_of_the_readme_starts_the_server() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let after = readme
        .split_once("<!-- desktop-config -->")
        .expect("the README marks its Claude Desktop configuration")
        .1;
    let json = after
        .split_once("```json")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("a ```json block after the marker")
        .0;
    let bin = PathBuf::from(common::binary());
    let catalog = repo_root().join("examples/catalog");
    let filled = json
        .replace("/home/you/.cargo/bin/flowmcp", &bin.display().to_string())
        .replace(
            "/home/you/flowmcp-rs/examples/catalog",
            &catalog.display().to_string(),
        );
    let config: serde_json::Value = serde_json::from_str(&filled).expect("the snippet is JSON");
    let server = &config["mcpServers"]["flowmcp"];
    let command = server["command"].as_str().unwrap();
    let args: Vec<&str> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let home = Scratch::new("docs-desktop");
    let root_had_flowmcp = Path::new("/.flowmcp").exists();
    let mut cmd = Command::new(command);
    cmd.args(&args)
        .current_dir("/")
        .env_clear()
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(env) = server["env"].as_object() {
        for (k, v) in env {
            cmd.env(k, v.as_str().unwrap());
        }
    }
    let mut child = cmd.spawn().unwrap();
    let answers = exchange(
        &mut child,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"docs-test","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ],
        2,
    );
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let list = answers
        .iter()
        .find(|a| a["id"] == 2)
        .unwrap_or_else(|| panic!("no tools/list answer; stderr: {stderr}"));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .any(|t| t["name"] == "getPublicHolidays_holidaykit-net"),
        "{list}"
    );
    // Started from `/`, it wrote nothing there.
    assert!(
        root_had_flowmcp || !Path::new("/.flowmcp").exists(),
        "{stderr}"
    );
}

/// Writes `requests` to the child's stdin, one per line, and reads answers from its stdout until
/// `wanted` answers with an `id` arrived (at most 60 s).
fn exchange(
    child: &mut std::process::Child,
    requests: &[&str],
    wanted: usize,
) -> Vec<serde_json::Value> {
    use std::io::{BufRead, BufReader, Write};
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut answers = Vec::new();
    while answers
        .iter()
        .filter(|a: &&serde_json::Value| a.get("id").is_some())
        .count()
        < wanted
    {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(v) => answers.push(v),
            Err(_) => break,
        }
    }
    // Keep stdin open until the answers are in, then let it close.
    drop(stdin);
    answers
}
