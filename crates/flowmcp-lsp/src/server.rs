//! The protocol loop: one thread reads messages, keeps the open documents, checks them
//! (debounced after changes) and answers requests in order.

use std::collections::HashMap;
use std::time::Instant;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    Diagnostic as LspDiagnostic, HoverProviderCapability, OneOf, PositionEncodingKind,
    PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::check::Checker;
use crate::convert::LineIndex;
use crate::state::{Doc, State, file_path};
use crate::{LspError, Options, features};

/// Runs the server on standard input and output until the client asks it to exit. Log lines go
/// to standard error (through `tracing`), never to standard output.
pub fn run_stdio(options: Options) -> Result<(), LspError> {
    let (connection, io_threads) = Connection::stdio();
    run(connection, options)?;
    io_threads.join()?;
    Ok(())
}

/// Runs the server on `connection`: answers `initialize`, then serves until `exit` (or until the
/// connection closes). Bad input never panics: an unknown request gets `MethodNotFound`, a
/// request whose parameters do not decode `InvalidParams`.
pub fn run(connection: Connection, options: Options) -> Result<(), LspError> {
    let capabilities =
        serde_json::to_value(capabilities()).map_err(|e| LspError::Protocol(e.to_string()))?;
    let (id, _params) = connection
        .initialize_start()
        .map_err(|e| LspError::Protocol(e.to_string()))?;
    let result = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": ServerInfo { name: "flowmcp".into(), version: Some(env!("CARGO_PKG_VERSION").into()) },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| LspError::Protocol(e.to_string()))?;
    let mut server = Server {
        connection: &connection,
        state: State {
            checker: Checker::new(options.validation.clone()),
            options,
            docs: HashMap::new(),
        },
        pending: HashMap::new(),
        shutting_down: false,
    };
    server.serve();
    Ok(())
}

/// What the server offers.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(true),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![
                "{".into(),
                ":".into(),
                "'".into(),
                "\"".into(),
                "/".into(),
            ]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::SOURCE_FIX_ALL,
                CodeActionKind::REFACTOR_REWRITE,
            ]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

pub(crate) struct Server<'c> {
    connection: &'c Connection,
    state: State,
    /// Documents changed and not checked yet, with when to check them.
    pending: HashMap<String, Instant>,
    shutting_down: bool,
}

impl Server<'_> {
    fn serve(&mut self) {
        loop {
            let next = self.pending.values().min().copied();
            let received = match next {
                Some(due) => {
                    let wait = due.saturating_duration_since(Instant::now());
                    match self.connection.receiver.recv_timeout(wait) {
                        Ok(m) => Some(m),
                        Err(e) if e.is_timeout() => None,
                        Err(_) => return,
                    }
                }
                None => match self.connection.receiver.recv() {
                    Ok(m) => Some(m),
                    Err(_) => return,
                },
            };
            match received {
                None => self.check_due(false),
                Some(Message::Request(req)) => {
                    // Answers see the documents as the client has them.
                    self.check_due(true);
                    self.request(req);
                }
                Some(Message::Notification(n)) => {
                    if n.method == "exit" {
                        return;
                    }
                    self.notification(n);
                }
                Some(Message::Response(_)) => {}
            }
        }
    }

    /// Checks the pending documents that are due (`all`: every pending one).
    fn check_due(&mut self, all: bool) {
        let now = Instant::now();
        let due: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, at)| all || **at <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for key in due {
            self.pending.remove(&key);
            self.check(&key);
        }
    }

    fn send(&self, message: Message) {
        if self.connection.sender.send(message).is_err() {
            tracing::debug!("the client is gone");
        }
    }

    fn reply(&self, id: RequestId, result: Result<Value, (ErrorCode, String)>) {
        let response = match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        self.send(Message::Response(response));
    }

    /// Answers one request.
    fn request(&mut self, req: Request) {
        if req.method == "shutdown" {
            self.shutting_down = true;
            self.reply(req.id, Ok(Value::Null));
            return;
        }
        if self.shutting_down {
            self.reply(
                req.id,
                Err((
                    ErrorCode::InvalidRequest,
                    "the server is shutting down".into(),
                )),
            );
            return;
        }
        let id = req.id.clone();
        let result = match req.method.as_str() {
            "textDocument/hover" => {
                params(req.params).map(|p| to_json(features::hover(&mut self.state, p)))
            }
            "textDocument/completion" => {
                params(req.params).map(|p| to_json(features::completion(&mut self.state, p)))
            }
            "textDocument/definition" => {
                params(req.params).map(|p| to_json(features::definition(&mut self.state, p)))
            }
            "textDocument/codeAction" => {
                params(req.params).map(|p| to_json(features::code_actions(&mut self.state, p)))
            }
            other => Err((
                ErrorCode::MethodNotFound,
                format!("unknown request {other}"),
            )),
        };
        self.reply(id, result);
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = params::<lsp_types::DidOpenTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    let path = file_path(&p.text_document.uri);
                    self.state.docs.insert(
                        key.clone(),
                        Doc {
                            uri: p.text_document.uri,
                            path,
                            text: p.text_document.text,
                            version: p.text_document.version,
                            findings: Vec::new(),
                            report: None,
                            fixes_attached: false,
                        },
                    );
                    self.check(&key);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = params::<lsp_types::DidChangeTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    if let Some(doc) = self.state.docs.get_mut(&key) {
                        for change in p.content_changes {
                            match change.range {
                                None => doc.text = change.text,
                                Some(range) => {
                                    let index = LineIndex::new(&doc.text);
                                    let (s, e) =
                                        (index.offset(range.start), index.offset(range.end));
                                    if s <= e {
                                        doc.text.replace_range(s..e, &change.text);
                                    }
                                }
                            }
                        }
                        doc.version = p.text_document.version;
                        self.pending
                            .insert(key, Instant::now() + self.state.options.debounce);
                    }
                }
            }
            "textDocument/didSave" => {
                if let Ok(p) = params::<lsp_types::DidSaveTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    if let (Some(doc), Some(text)) = (self.state.docs.get_mut(&key), p.text) {
                        doc.text = text;
                    }
                    self.pending.remove(&key);
                    self.saved(&key);
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = params::<lsp_types::DidCloseTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    self.pending.remove(&key);
                    if self.state.docs.remove(&key).is_some() {
                        self.publish(p.text_document.uri, Vec::new(), None);
                    }
                }
            }
            "workspace/didChangeWatchedFiles" => {
                self.state.checker.forget();
                let keys: Vec<String> = self.state.docs.keys().cloned().collect();
                for key in keys {
                    self.check(&key);
                }
            }
            _ => {}
        }
    }

    /// After a save: what was read from disk is read again, and the saved document and every
    /// other open document of the same catalog (or that sees the same shared lists) is checked.
    fn saved(&mut self, key: &str) {
        self.state.checker.forget();
        let Some(path) = self.state.docs.get(key).and_then(|d| d.path.clone()) else {
            self.check(key);
            return;
        };
        let root = self.state.checker.place(&path).map(|p| p.root);
        let lists = self.state.checker.lists_dir(&path);
        let mut keys = vec![key.to_string()];
        for (k, d) in &self.state.docs {
            if k == key {
                continue;
            }
            let Some(other) = &d.path else { continue };
            let same_catalog =
                root.is_some() && self.state.checker.place(other).map(|p| p.root) == root;
            let same_lists = lists.is_some() && self.state.checker.lists_dir(other) == lists;
            if same_catalog || same_lists {
                keys.push(k.clone());
            }
        }
        for k in keys {
            self.check(&k);
        }
    }

    /// Checks one document and publishes its findings.
    fn check(&mut self, key: &str) {
        let Some(doc) = self.state.docs.get(key) else {
            return;
        };
        let root = doc
            .path
            .as_deref()
            .and_then(|p| self.state.checker.place(p))
            .map(|p| p.root);
        // A JavaScript file outside any catalog that exports none of FlowMCP's names is not ours:
        // an editor starts the server for every JavaScript buffer.
        if root.is_none() && !exports_flowmcp_name(&doc.text) {
            let (uri, version) = (doc.uri.clone(), doc.version);
            if let Some(doc) = self.state.docs.get_mut(key) {
                doc.findings.clear();
                doc.report = None;
            }
            self.publish(uri, Vec::new(), Some(version));
            return;
        }
        let started = Instant::now();
        let name = doc.name();
        let report = self
            .state
            .checker
            .check(doc.path.as_deref(), &name, &doc.text);
        let findings = features::to_lsp(doc, &report, root.as_deref());
        tracing::debug!(
            "checked {} in {:.1} ms: {} findings",
            doc.uri.as_str(),
            started.elapsed().as_secs_f64() * 1000.0,
            findings.len()
        );
        let (uri, version) = (doc.uri.clone(), doc.version);
        let published = findings.iter().map(|(d, _)| d.clone()).collect();
        if let Some(doc) = self.state.docs.get_mut(key) {
            doc.findings = findings;
            doc.report = Some(report);
            doc.fixes_attached = false;
        }
        self.publish(uri, published, Some(version));
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<LspDiagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        match serde_json::to_value(params) {
            Ok(p) => self.send(Message::Notification(Notification::new(
                "textDocument/publishDiagnostics".into(),
                p,
            ))),
            Err(e) => tracing::warn!("diagnostics not sent: {e}"),
        }
    }
}

/// Whether `text` exports (or re-exports) one of the names that make a FlowMCP file
/// (`FileKind::BY_EXPORT`: `main`, `list`, `skill`, `prompt`, `agent`, `selection`, `content`).
fn exports_flowmcp_name(text: &str) -> bool {
    if text.contains("export {") || text.contains("export{") {
        return true;
    }
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(3).any(|w| {
        w[0] == "export"
            && matches!(w[1], "const" | "let" | "var" | "function" | "async")
            && flowmcp_spec::catalog::FileKind::BY_EXPORT
                .iter()
                .any(|(name, _)| w[2] == *name)
    })
}

fn params<T: DeserializeOwned>(value: Value) -> Result<T, (ErrorCode, String)> {
    serde_json::from_value(value).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::exports_flowmcp_name;

    #[test]
    fn i42_only_files_with_a_flowmcp_export_are_checked_outside_catalogs() {
        assert!(exports_flowmcp_name("export const main = {}"));
        assert!(exports_flowmcp_name("export  const\n list = {}"));
        assert!(exports_flowmcp_name("const main = {}; export { main }"));
        assert!(!exports_flowmcp_name(
            "export const mainly = 1; export default main"
        ));
        assert!(!exports_flowmcp_name("import x from 'y'; console.log(x)"));
    }
}
