//! Drives the language server through an in-memory connection: initialize, open a schema with
//! an error, print the diagnostics it publishes, shut down.
//!
//! `cargo run -p flowmcp-lsp --example in_memory`

use flowmcp_lsp::{Options, run};
use flowmcp_validate::Profile;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (server, client) = Connection::memory();
    let handle = std::thread::spawn(move || {
        run(
            server,
            Options::new(flowmcp_validate::Options::new(Profile::Spec)),
        )
    });
    let send = |m: Message| client.sender.send(m).map_err(|_| "the server is gone");
    send(Message::Request(Request::new(
        RequestId::from(1),
        "initialize".into(),
        json!({ "capabilities": {} }),
    )))?;
    // The answer to initialize.
    let _ = client.receiver.recv()?;
    send(Message::Notification(Notification::new(
        "initialized".into(),
        json!({}),
    )))?;
    // A buffer that is no file on disk: checked on its own.
    send(Message::Notification(Notification::new(
        "textDocument/didOpen".into(),
        json!({ "textDocument": {
            "uri": "untitled:demo.mjs", "languageId": "javascript", "version": 1,
            "text": "export const main = { namespace: 'demo', version: '4.2.0' }\n"
        } }),
    )))?;
    if let Message::Notification(n) = client.receiver.recv()? {
        for d in n.params["diagnostics"].as_array().into_iter().flatten() {
            println!("{} {}", d["code"], d["message"]);
        }
    }
    send(Message::Request(Request::new(
        RequestId::from(2),
        "shutdown".into(),
        json!(null),
    )))?;
    let _ = client.receiver.recv()?;
    send(Message::Notification(Notification::new(
        "exit".into(),
        json!(null),
    )))?;
    handle.join().map_err(|_| "the server thread panicked")??;
    Ok(())
}
