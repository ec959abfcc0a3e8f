//! `flowmcp lsp`: its help, and the server over real pipes (initialize, a diagnostic, shutdown).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{binary, flowmcp, huge_pages_enabled, temp_dir, test_home};

#[test]
fn i42_lsp_help_says_what_it_is_and_how_editors_start_it() {
    let dir = temp_dir("lsp-help");
    let r = flowmcp(&["lsp", "--help"], &dir);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Language Server"), "{}", r.stdout);
    assert!(r.stdout.contains("vim.lsp.config"), "{}", r.stdout);
    assert!(r.stdout.contains("--profile"), "{}", r.stdout);
    let r = flowmcp(&["--help"], &dir);
    assert!(r.stdout.contains("lsp"), "{}", r.stdout);
}

/// Writes one framed message.
fn send(stdin: &mut impl Write, message: &Value) {
    let body = message.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    stdin.flush().unwrap();
}

/// Reads framed messages from `out` into a channel until the stream ends.
fn frames(out: impl Read + Send + 'static) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(out);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                // Standard output holds protocol messages only.
                let (name, value) = line.split_once(": ").expect("a header line");
                if name.eq_ignore_ascii_case("Content-Length") {
                    length = value.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("a Content-Length header")];
            reader.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        }
    });
    rx
}

#[test]
fn i42_lsp_over_stdio_initializes_publishes_and_shuts_down() {
    let dir = temp_dir("lsp-stdio");
    let mut child = Command::new(binary())
        .arg("lsp")
        .current_dir(&dir)
        .env("HOME", test_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rx = frames(child.stdout.take().unwrap());
    let next = || {
        rx.recv_timeout(Duration::from_secs(120))
            .expect("a message")
    };
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
    );
    let init = next();
    assert_eq!(init["id"], 1);
    // A long-lived process keeps its memory in small pages (D195).
    assert_ne!(huge_pages_enabled(child.id()), Some(true));
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["result"]["serverInfo"]["name"], "flowmcp");
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
    );
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": {
            "uri": "untitled:demo.mjs", "languageId": "javascript", "version": 1,
            "text": "export const main = { namespace: 'demo', version: 'x' }\n" } } }),
    );
    let published = next();
    assert_eq!(published["method"], "textDocument/publishDiagnostics");
    let text = published["params"]["diagnostics"].to_string();
    assert!(text.contains("VAL014"), "{text}");
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" }),
    );
    let down = next();
    assert_eq!(down["id"], 2);
    assert!(down["result"].is_null(), "{down}");
    send(&mut stdin, &json!({ "jsonrpc": "2.0", "method": "exit" }));
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
