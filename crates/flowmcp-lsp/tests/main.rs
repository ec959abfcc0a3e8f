//! The language server driven through an in-memory connection, on copies of the example catalog.
// Tests and their fixtures make files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use flowmcp_lsp::{LspError, Options, run};
use flowmcp_validate::Profile;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

/// A copy of `examples/catalog` in a fresh temporary folder.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("flowmcp-lsp-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/catalog");
        copy_dir(&from, &dir.join("catalog"));
        Scratch(dir.join("catalog"))
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    fn text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(parent) = self.0.parent() {
            let _ = std::fs::remove_dir_all(parent);
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn uri(path: &Path) -> String {
    url::Url::from_file_path(path).unwrap().to_string()
}

/// The client side of a server running on a thread.
struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), LspError>>>,
    next: i32,
    /// Notifications received while waiting for something else.
    seen: Vec<Notification>,
    capabilities: Value,
}

impl Client {
    fn start() -> Client {
        Client::start_with(Options::new(flowmcp_validate::Options::new(Profile::Spec)))
    }

    fn start_with(options: Options) -> Client {
        let (server, conn) = Connection::memory();
        let handle = std::thread::spawn(move || run(server, options));
        let mut c = Client {
            conn,
            server: Some(handle),
            next: 0,
            seen: Vec::new(),
            capabilities: Value::Null,
        };
        let init = c.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        c.capabilities = init["capabilities"].clone();
        c.notify("initialized", json!({}));
        c
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .unwrap();
    }

    fn recv(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers within a minute")
    }

    /// Sends a request and returns its result (panics on an error response).
    fn request(&mut self, method: &str, params: Value) -> Value {
        match self.request_raw(method, params).response_result {
            Ok(v) => v,
            Err(e) => panic!("{method}: {e:?}"),
        }
    }

    fn request_raw(&mut self, method: &str, params: Value) -> lsp_server::Response {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.into(),
                params,
            )))
            .unwrap();
        loop {
            match self.recv() {
                Message::Response(r) if r.id == id => return r,
                Message::Notification(n) => self.seen.push(n),
                _ => {}
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let is_for = |n: &Notification| {
            n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri
        };
        if let Some(i) = self.seen.iter().position(is_for) {
            let n = self.seen.remove(i);
            return n.params["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
        }
        loop {
            if let Message::Notification(n) = self.recv() {
                if is_for(&n) {
                    return n.params["diagnostics"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                }
                self.seen.push(n);
            }
        }
    }

    fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "javascript", "version": 1, "text": text } }),
        );
        self.diagnostics(uri)
    }

    fn change(&mut self, uri: &str, version: i32, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [ { "text": text } ] }),
        );
        self.diagnostics(uri)
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        self.request(
            method,
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
        )
    }

    fn stop(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r, Value::Null);
        self.notify("exit", Value::Null);
        let server = self.server.take().unwrap();
        assert!(server.join().unwrap().is_ok());
    }
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The 0-based line and UTF-16 column of the first `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count() as u32;
    let start = text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, text[start..at].encode_utf16().count() as u32)
}

const SCHEMA: &str = "providers/holidaykit-net/public-holidays.mjs";

#[test]
fn i42_initialize_announces_the_capabilities() {
    let client = Client::start();
    let caps = client.capabilities.clone();
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 1);
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert!(caps["completionProvider"].is_object());
    let kinds = caps["codeActionProvider"]["codeActionKinds"].to_string();
    assert!(
        kinds.contains("quickfix") && kinds.contains("source.fixAll"),
        "{kinds}"
    );
    client.stop();
}

#[test]
fn i42_an_error_is_published_with_its_code_range_and_page_and_cleared_when_fixed() {
    let scratch = Scratch::new("errors");
    let mut client = Client::start();
    let u = uri(&scratch.path(SCHEMA));
    let text = scratch.text(SCHEMA);
    let first = client.open(&u, &text);
    assert!(
        !first.iter().any(|d| d["severity"] == 1),
        "the example schema has no errors: {first:?}"
    );
    // A version the specification does not know, after a non-ASCII comment on the same line.
    let broken = text.replace("version: '4.2.0',", "/* é😀 */ version: 'x4.2',");
    let found = client.change(&u, 2, &broken);
    let d = found
        .iter()
        .find(|d| d["code"] == "VAL014")
        .unwrap_or_else(|| panic!("VAL014 in {found:?}"));
    let (line, col) = position_of(&broken, "'x4.2'");
    assert_eq!(
        d["range"]["start"],
        json!({ "line": line, "character": col })
    );
    // The string with its quotes: six UTF-16 units.
    assert_eq!(
        d["range"]["end"],
        json!({ "line": line, "character": col + 6 })
    );
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "flowmcp");
    assert!(
        d["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .ends_with("docs/rules/VAL014.md")
    );
    let cleared = client.change(&u, 3, &text);
    assert!(
        !codes(&cleared).contains(&"VAL014".to_string()),
        "{cleared:?}"
    );
    assert_eq!(codes(&cleared), codes(&first));
    client.stop();
}

#[test]
fn i42_hover_explains_placeholders_lists_rule_codes_and_tools() {
    let scratch = Scratch::new("hover");
    let mut client = Client::start();
    let u = uri(&scratch.path(SCHEMA));
    let text = scratch.text(SCHEMA);
    client.open(&u, &text);
    let (line, col) = position_of(&text, "{{countries:alpha2}}");
    let hover = client.at("textDocument/hover", &u, line, col + 4);
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.contains("Shared list `countries`"), "{value}");
    assert!(value.contains("`alpha2`: string"), "{value}");
    let (line, col) = position_of(&text, "{{USER_PARAM}}");
    let hover = client.at("textDocument/hover", &u, line, col + 3);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("user parameter")
    );
    // A rule code written in a comment: its why and the failing example's marked line.
    let with_code = format!("// see VAL087\n{text}");
    client.change(&u, 2, &with_code);
    let hover = client.at("textDocument/hover", &u, 0, 9);
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.starts_with("**VAL087**"), "{value}");
    assert!(value.contains("A stale hash means"), "{value}");
    assert!(
        value.contains(">   8 |     schemaHash: 12345678,"),
        "{value}"
    );
    assert!(value.contains("docs/rules/VAL087.md"), "{value}");
    // A tool ID in a selection: its description and parameters.
    let sel = "selections/days-off/selection.mjs";
    let su = uri(&scratch.path(sel));
    let stext = scratch.text(sel);
    client.open(&su, &stext);
    let (line, col) = position_of(&stext, "holidaykit-net/tool/getPublicHolidays");
    let hover = client.at("textDocument/hover", &su, line, col + 3);
    let value = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(
        value.contains("Returns all holidays of a country"),
        "{value}"
    );
    assert!(value.contains("`year`"), "{value}");
    client.stop();
}

#[test]
fn i42_completion_offers_placeholder_kinds_lists_and_fields() {
    let scratch = Scratch::new("completion");
    let mut client = Client::start();
    let u = uri(&scratch.path(SCHEMA));
    let text = format!("{}\n// '{{{{\n// '{{{{countries:\n", scratch.text(SCHEMA));
    client.open(&u, &text);
    let lines = text.lines().count() as u32;
    let items = client.at("textDocument/completion", &u, lines - 2, 6);
    let labels: Vec<&str> = items
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for want in ["USER_PARAM", "SERVER_PARAM:", "countries", "subdivisions"] {
        assert!(labels.contains(&want), "{want} in {labels:?}");
    }
    let items = client.at("textDocument/completion", &u, lines - 1, 16);
    let labels: Vec<&str> = items
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert!(
        labels.contains(&"alpha2") && labels.contains(&"holidays"),
        "{labels:?}"
    );
    client.stop();
}

#[test]
fn i42_definition_leads_from_a_list_reference_to_the_list_and_from_an_id_to_the_tool() {
    let scratch = Scratch::new("definition");
    let mut client = Client::start();
    let u = uri(&scratch.path(SCHEMA));
    let text = scratch.text(SCHEMA);
    client.open(&u, &text);
    let (line, col) = position_of(&text, "{{countries:alpha2}}");
    let found = client.at("textDocument/definition", &u, line, col + 4);
    assert!(
        found["uri"]
            .as_str()
            .unwrap()
            .ends_with("/_lists/countries.mjs"),
        "{found}"
    );
    let sel = "selections/days-off/selection.mjs";
    let su = uri(&scratch.path(sel));
    let stext = scratch.text(sel);
    client.open(&su, &stext);
    let (line, col) = position_of(&stext, "holidaykit-net/tool/getPublicHolidays");
    let found = client.at("textDocument/definition", &su, line, col + 3);
    assert_eq!(found["uri"], u.as_str());
    let (tline, _) = position_of(&text, "getPublicHolidays: {");
    assert_eq!(found["range"]["start"]["line"], tline);
    client.stop();
}

#[test]
fn i42_a_code_action_applies_the_findings_fix() {
    let scratch = Scratch::new("actions");
    let mut client = Client::start();
    let u = uri(&scratch.path(SCHEMA));
    let text = scratch.text(SCHEMA);
    client.open(&u, &text);
    // A changed description makes `schemaHash` stale: VAL087, whose fix is the new hash.
    let edited = text.replace(
        "Public holidays, upcoming days off",
        "Public holidays, the upcoming days off",
    );
    let found = client.change(&u, 2, &edited);
    let d = found
        .iter()
        .find(|d| d["code"] == "VAL087")
        .unwrap_or_else(|| panic!("VAL087 in {found:?}"))
        .clone();
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": d["range"], "context": { "diagnostics": [d] } }),
    );
    let actions = actions.as_array().unwrap();
    let fix = actions
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .unwrap_or_else(|| panic!("a quick fix in {actions:?}"));
    assert_eq!(fix["isPreferred"], true);
    let edits = fix["edit"]["changes"][u.as_str()].as_array().unwrap();
    assert_eq!(edits.len(), 1);
    let new_hash = edits[0]["newText"].as_str().unwrap();
    assert_ne!(new_hash, "'a1411451'");
    // Applied, the finding is gone.
    let fixed = edited.replace("'a1411451'", new_hash);
    assert_ne!(fixed, edited);
    let after = client.change(&u, 3, &fixed);
    assert!(!codes(&after).contains(&"VAL087".to_string()), "{after:?}");
    // "Fix all safe problems" makes the same change.
    client.change(&u, 4, &edited);
    let all = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": d["range"], "context": { "diagnostics": [], "only": ["source.fixAll"] } }),
    );
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 1, "{all:?}");
    let whole = all[0]["edit"]["changes"][u.as_str()][0]["newText"]
        .as_str()
        .unwrap();
    assert_eq!(whole, fixed);
    client.stop();
}

#[test]
fn i42_saving_a_shared_list_checks_the_open_files_that_use_it() {
    let scratch = Scratch::new("lists");
    let mut client = Client::start();
    let u = uri(&scratch.path(SCHEMA));
    let text = scratch.text(SCHEMA);
    let before = client.open(&u, &text);
    assert!(!before.iter().any(|d| d["severity"] == 1), "{before:?}");
    let list = "_lists/countries.mjs";
    let lu = uri(&scratch.path(list));
    let ltext = scratch.text(list);
    client.open(&lu, &ltext);
    // The field the schema's enum reads is renamed.
    let renamed = ltext.replace("alpha2", "iso2");
    std::fs::write(scratch.path(list), &renamed).unwrap();
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": lu }, "text": renamed }),
    );
    let after = client.diagnostics(&u);
    assert!(
        after
            .iter()
            .any(|d| d["severity"] == 1 && d["message"].as_str().unwrap_or("").contains("alpha2")),
        "{after:?}"
    );
    client.stop();
}

#[test]
fn i42_unknown_requests_and_bad_parameters_are_answered_with_errors() {
    let mut client = Client::start();
    let r = client.request_raw("flowmcp/nothing", json!({}));
    assert_eq!(r.response_result.err().map(|e| e.code), Some(-32601));
    let r = client.request_raw("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(r.response_result.err().map(|e| e.code), Some(-32602));
    // A document nobody opened: no answer, no crash.
    let none = client.at("textDocument/hover", "file:///nowhere.mjs", 0, 0);
    assert_eq!(none, Value::Null);
    // Plain JavaScript outside any catalog is not a FlowMCP file: nothing is reported.
    let plain = client.open(
        "untitled:app.js",
        "export default function () { return 1 }\n",
    );
    assert!(plain.is_empty(), "{plain:?}");
    let ours = client.open("untitled:s.mjs", "export const main = {}\n");
    assert!(!ours.is_empty());
    client.stop();
}

#[test]
fn i42_a_file_of_an_older_version_offers_its_migration() {
    let mut client = Client::start();
    let u = "untitled:old.mjs";
    let old = "export const main = {\n    namespace: 'demo',\n    version: '3.0.0',\n    root: 'https://api.example.com',\n    tools: {\n        getUser: {\n            method: 'GET',\n            path: '/users/:id',\n            description: 'Get a user',\n            parameters: []\n        }\n    }\n}\n";
    let found = client.open(u, old);
    assert!(codes(&found).contains(&"VAL014".to_string()), "{found:?}");
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "context": { "diagnostics": [] } }),
    );
    let migrate = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "refactor.rewrite")
        .unwrap_or_else(|| panic!("a migration in {actions}"));
    assert!(
        migrate["title"]
            .as_str()
            .unwrap()
            .contains("3.x to version 4")
    );
    let edits = migrate["edit"]["changes"][u].as_array().unwrap();
    let new = edits[0]["newText"].as_str().unwrap();
    assert!(new.contains("version: '4.0.0'"), "{new}");
    assert!(new.contains("/users/{{id}}"), "{new}");
    // The edit replaces the whole buffer: 13 lines, the end after the last line break.
    assert_eq!(
        edits[0]["range"]["end"],
        json!({ "line": 13, "character": 0 })
    );
    client.stop();
}

#[test]
fn i42_a_server_parameter_hover_says_whether_it_is_declared_and_set_never_its_value() {
    let mut options = Options::new(flowmcp_validate::Options::new(Profile::Spec));
    options.server_param_set = Some(std::sync::Arc::new(|key: &str| key == "API_KEY"));
    let mut client = Client::start_with(options);
    let u = "untitled:keys.mjs";
    let text = "export const main = {\n    namespace: 'demo',\n    requiredServerParams: [ 'API_KEY' ],\n    headers: { 'X-Key': '{{SERVER_PARAM:API_KEY}}', 'X-Other': '{{SERVER_PARAM:OTHER}}' }\n}\n";
    client.open(u, text);
    let (line, col) = position_of(text, "{{SERVER_PARAM:API_KEY}}");
    let hover = client.at("textDocument/hover", u, line, col + 5);
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.contains("Declared in `main.requiredServerParams`"),
        "{value}"
    );
    assert!(value.contains("Set on this machine"), "{value}");
    let (line, col) = position_of(text, "{{SERVER_PARAM:OTHER}}");
    let hover = client.at("textDocument/hover", u, line, col + 5);
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.contains("**Not declared**"), "{value}");
    assert!(value.contains("**Not set**"), "{value}");
    client.stop();
}

#[test]
fn i42_code_actions_offer_the_rewrites_of_old_forms_and_z_words_are_completed() {
    let scratch = Scratch::new("rewrites");
    let mut client = Client::start();
    let u = uri(&scratch.path(SCHEMA));
    let text = scratch.text(SCHEMA);
    client.open(&u, &text);
    // A 3.x path insert in a file that says 4.2.0: the catalog's rewrite is the fix.
    let old = text.replace(
        "path: '/holidays/{{year}}/{{countryCode}}'",
        "path: '/holidays/:year/{{countryCode}}'",
    );
    assert_ne!(old, text);
    let found = client.change(&u, 2, &old);
    assert!(!found.is_empty());
    let everything =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 9999, "character": 0 } });
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": everything, "context": { "diagnostics": [], "only": ["quickfix"] } }),
    );
    let edits: Vec<String> = actions
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| {
            a["edit"]["changes"][u.as_str()]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|e| e["newText"].as_str().map(str::to_string))
        .collect();
    assert!(edits.iter().any(|t| t.contains("{{year}}")), "{actions}");
    // `z` primitives in a `primitive:` string, options in an `options:` one.
    let (line, col) = position_of(&text, "'number()'");
    let items = client.at("textDocument/completion", &u, line, col + 1);
    assert!(items.to_string().contains("\"enum(a,b)\""), "{items}");
    let (line, col) = position_of(&text, "'min(1900)'");
    let items = client.at("textDocument/completion", &u, line, col + 1);
    assert!(items.to_string().contains("\"optional()\""), "{items}");
    client.stop();
}
