//! An agent's inline tools and resources: checked by the schema rules (findings on the manifest),
//! loaded as the agent's own schema (`<agent>/tool/<key>`, `<agent>/resource/<key>`), served by
//! activation, and called like any tool — relative paths only through the agent's upstream.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};

const AGENT: &str = r#"export const agent = {
    name: 'desk',
    version: 'flowmcp/4.0.0',
    description: 'Answers from a desk service and a small notes database.',
    model: 'anthropic/claude-sonnet-4-5',
    systemPrompt: 'Look every word up before you answer.',
    tools: {
        lookup: {
            method: 'GET',
            path: '/lookup',
            description: 'Looks a word up in the desk service',
            parameters: [
                { position: { key: 'word', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: PRIMITIVE, options: [] } }
            ],
            output: { mimeType: 'application/json', schema: { type: 'object', properties: { meaning: { type: 'string' } } } },
            tests: [ { _description: 'A word', word: 'ephemeral' }, { _description: 'Another', word: 'quorum' }, { _description: 'A third', word: 'serendipity' } ],
            meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'word meaning', aliases: [], alwaysLoad: false }
        }
    },
    resources: {
        notes: {
            source: 'sqlite',
            mode: 'in-memory',
            origin: 'inline',
            name: 'desk-notes.db',
            description: 'The desk notes',
            queries: {
                all: {
                    sql: 'SELECT text FROM notes ORDER BY id',
                    description: 'Every note',
                    parameters: [],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: { text: { type: 'string' } } } } },
                    tests: [ { _description: 'Every note' }, { _description: 'The notes again' }, { _description: 'And once more' } ]
                }
            }
        }
    },
    prompts: {
        guide: { file: './prompts/guide.mjs' }
    },
    tests: [
        { input: 'What does ephemeral mean?', expectedTools: [ 'desk/tool/lookup' ] },
        { input: 'Look up serendipity', expectedTools: [ 'desk/tool/lookup' ] },
        { input: 'Define quorum', expectedTools: [ 'desk/tool/lookup' ] }
    ]
}
"#;

/// A catalog folder holding only the agent `desk` (its tool's `z.primitive` given) and the SQL of
/// its notes database.
fn catalog_dir(tag: &str, primitive: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flowmcp-inline-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let agent_dir = dir.join("agents/desk");
    std::fs::create_dir_all(agent_dir.join("resources")).unwrap();
    std::fs::write(
        agent_dir.join("agent.mjs"),
        AGENT.replace("PRIMITIVE", primitive),
    )
    .unwrap();
    std::fs::create_dir_all(agent_dir.join("prompts")).unwrap();
    std::fs::write(
        agent_dir.join("prompts/guide.mjs"),
        "export const content = 'Look words up with {{tool:desk/tool/lookup}}; the notes are in {{resource:desk/resource/notes}}.'\n",
    )
    .unwrap();
    std::fs::write(
        agent_dir.join("resources/desk-notes.sql"),
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);\nINSERT INTO notes (text) VALUES ('call the printer service'), ('order paper');\n",
    )
    .unwrap();
    dir
}

/// Local options (spec) with the project's resources under `home` and `desk` sent to `upstream`.
fn options(upstream: Option<&str>, home: &Path) -> CatalogOptions {
    let upstreams: Vec<(&str, &str)> = upstream.map(|u| ("desk", u)).into_iter().collect();
    let mut o = common::local_options(Profile::Spec, &upstreams);
    o.runner.resources.project_base = Some(home.join(".flowmcp"));
    o
}

fn no_args() -> Map<String, Value> {
    Map::new()
}

#[test]
fn inline_resources_are_served_and_relative_tools_wait_for_an_upstream() {
    let dir = catalog_dir("noup", "'string()'");
    let catalog = Catalog::open(&dir, &options(None, &dir)).unwrap();
    let report = &catalog.reports()[0];
    assert_eq!(report.counts().errors, 0, "{:#?}", report.diagnostics());
    let act = catalog.activate_agent("desk").unwrap();
    assert!(act.tools.is_empty(), "{:?}", act.tools);
    assert_eq!(act.resources, ["desk/resource/notes"]);
    assert!(
        act.warnings
            .iter()
            .any(|w| w.contains("inline tool \"lookup\"")
                && w.contains("no upstream is set for desk")),
        "{:?}",
        act.warnings
    );
    let rows = catalog.call("desk/resource/notes.all", &no_args());
    assert!(rows.status(), "{rows:?}");
    assert!(rows.data().to_string().contains("order paper"), "{rows:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_an_upstream_the_inline_tool_is_served_and_called() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let asked = std::thread::spawn(move || {
        let request = server.recv_timeout(Duration::from_secs(5)).ok().flatten()?;
        let url = request.url().to_string();
        let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
        let _ = request.respond(
            tiny_http::Response::from_string(r#"{"meaning": "lasting a very short time"}"#)
                .with_header(header),
        );
        Some(url)
    });
    let dir = catalog_dir("up", "'string()'");
    let upstream = format!("http://127.0.0.1:{port}");
    let catalog = Catalog::open(&dir, &options(Some(&upstream), &dir)).unwrap();
    let act = catalog.activate_agent("desk").unwrap();
    assert_eq!(act.tools, ["desk/tool/lookup"]);
    assert!(
        !act.warnings.iter().any(|w| w.contains("inline")),
        "{:?}",
        act.warnings
    );
    // The agent's prompt names its inline tool and resource: both resolve.
    assert!(act.prompts.contains(&"desk/prompt/guide".to_string()));
    let rendered = catalog
        .render_prompt("desk/prompt/guide", &Map::new())
        .unwrap();
    let text = format!("{rendered:?}");
    assert!(!text.contains("[ERROR"), "{text}");
    assert!(text.contains("lookup_desk"), "{text}");
    let args = json!({"word": "ephemeral"}).as_object().cloned().unwrap();
    let answer = catalog.call("desk/tool/lookup", &args);
    assert!(answer.status(), "{answer:?}");
    assert_eq!(
        asked.join().unwrap().as_deref(),
        Some("/lookup?word=ephemeral")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_inline_tool_is_named_on_the_manifest_and_stops_activation() {
    let dir = catalog_dir("broken", "'strin()'");
    let catalog = Catalog::open(&dir, &options(None, &dir)).unwrap();
    let report = &catalog.reports()[0];
    let found = report
        .diagnostics()
        .iter()
        .find(|d| d.severity == flowmcp_spec::Severity::Error)
        .expect("an error for the broken primitive");
    let pointer = found.pointer.as_ref().unwrap().pointer();
    assert!(
        pointer.starts_with("/agent/tools/lookup/parameters/0"),
        "{pointer}"
    );
    assert!(
        found.message.starts_with("inline tool \"lookup\": "),
        "{}",
        found.message
    );
    assert!(
        found.line.is_some(),
        "the finding has a line in the manifest"
    );
    let refused = catalog.activate_agent("desk").unwrap_err();
    // Facts only: the file, its codes; what to run about it is the CLI's to say (issue 29).
    assert!(
        matches!(&refused, flowmcp_catalog::ActivationError::ManifestErrors { file, codes, .. }
            if file.ends_with(".mjs") && !codes.is_empty()),
        "{refused:?}"
    );
    assert!(!refused.to_string().contains("flowmcp "), "{refused}");
    assert!(catalog.find("desk/resource/notes.all").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
