//! The example catalog's prompts and skills over MCP, with a real client: `prompts/list` names
//! them by ID with their arguments, and `prompts/get` renders a skill with its prefill run
//! against a local upstream.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;
use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use flowmcp_catalog::serde_json::{Map, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};
#[cfg(feature = "http")]
use flowmcp_mcp::{Endpoints, Route};
use flowmcp_mcp::{McpServer, ServeOptions};
use rmcp::RoleClient;
use rmcp::model::GetPromptRequestParams;
use rmcp::service::{RunningService, ServiceError};

/// Serves `server` to a client over an in-memory pipe, runs `f` with the client, then closes
/// both.
fn with_client(server: McpServer, f: impl AsyncFnOnce(&RunningService<RoleClient, ()>)) {
    support::with_client(server, (), f);
}

#[test]
fn prompts_and_skills_are_listed_and_rendered_over_mcp() {
    let (base, server_thread) =
        common::json_upstream(1, r#"[{"date": "2026-10-03", "name": "German Unity Day"}]"#);
    let server = McpServer::new(common::examples_at(&base), &ServeOptions::default()).unwrap();
    with_client(server, async |client| {
        assert!(client.peer_info().unwrap().capabilities.prompts.is_some());

        let prompts = client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "holidaykit-net/prompt/about",
                "holidaykit-net/prompt/bridge-days",
                "holidaykit-net/skill/plan-long-weekends"
            ]
        );
        let skill = serde_json::to_value(&prompts[2]).unwrap();
        assert_eq!(skill["title"], json!("plan-long-weekends"));
        assert_eq!(skill["arguments"][0]["name"], json!("year"));
        assert_eq!(skill["arguments"][0]["required"], json!(true));
        assert_eq!(skill["arguments"][2]["required"], json!(false));
        assert_eq!(skill["_meta"]["flowmcp/kind"], json!("skill"));

        let mut args = Map::new();
        args.insert("year".into(), json!("2026"));
        args.insert("countryCode".into(), json!("DE"));
        let got = client
            .get_prompt(
                GetPromptRequestParams::new("holidaykit-net/skill/plan-long-weekends")
                    .with_arguments(args),
            )
            .await
            .unwrap();
        let got = serde_json::to_value(&got).unwrap();
        assert_eq!(got["messages"][0]["role"], json!("user"));
        let text = got["messages"][0]["content"]["text"].as_str().unwrap();
        assert!(text.contains("German Unity Day"), "{text}");
        assert!(text.contains("(MCP tool `getPublicHolidays_holidaykit-net`)"));
        assert!(!text.contains("{{"), "{text}");

        // A missing required argument is invalid params.
        let e = client
            .get_prompt(GetPromptRequestParams::new(
                "holidaykit-net/skill/plan-long-weekends",
            ))
            .await
            .unwrap_err();
        match e {
            ServiceError::McpError(d) => assert_eq!(d.code.0, -32602),
            other => panic!("{other}"),
        }
    });
    assert_eq!(server_thread.join().unwrap(), ["/holidays/2026/DE"]);
}

#[test]
fn a_reload_that_changes_the_prompts_says_so() {
    let dir = std::env::temp_dir().join(format!("flowmcp-mcp-prompts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("demo/skills")).unwrap();
    std::fs::write(
        dir.join("demo/demo.mjs"),
        "export const main = { namespace: 'demo', name: 'Demo', description: 'Demo', version: '4.2.0', \
         root: 'https://api.example.org', tools: { ping: { method: 'GET', path: '/ping', \
         description: 'Ping', parameters: [] } } }\n",
    )
    .unwrap();
    let mut o = CatalogOptions::new(Profile::Spec);
    o.env_override = Some(BTreeMap::new());
    o.reloadable = true;
    let server =
        McpServer::new(Catalog::open(&dir, &o).unwrap(), &ServeOptions::default()).unwrap();
    std::fs::write(
        dir.join("demo/skills/check.mjs"),
        "export const skill = { name: 'check', version: 'flowmcp/4.0.0', type: 'namespace', \
         description: 'Checks', whenToUse: 'Always', output: 'A line', \
         requires: { tools: [ 'ping' ] }, content: 'Call {{tool:ping}}.' }\n",
    )
    .unwrap();
    let report = server.reload().unwrap().expect("a file was added");
    assert!(report.prompts_changed);
    // Touching the schema changes no prompt.
    std::thread::sleep(Duration::from_millis(20));
    let schema = std::fs::read_to_string(dir.join("demo/demo.mjs")).unwrap();
    std::fs::write(dir.join("demo/demo.mjs"), format!("{schema}\n")).unwrap();
    let report = server.reload().unwrap().expect("a file changed");
    assert!(!report.prompts_changed);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_selection_serves_exactly_its_members() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut o = CatalogOptions::new(Profile::Spec);
    o.env_override = Some(BTreeMap::new());
    let opts = |id: &str| {
        let mut built = ServeOptions::default();
        built.selection = Some(id.into());
        built
    };
    let unknown = McpServer::new(
        Catalog::open(&dir, &o).unwrap(),
        &opts("trip-planning/selection/nope"),
    );
    let Err(e) = unknown else {
        panic!("an unknown selection is refused")
    };
    assert!(
        e.to_string()
            .contains("no such selection in the catalog (it has trip-planning/selection/days-off)"),
        "{e}"
    );
    let server = McpServer::new(
        Catalog::open(&dir, &o).unwrap(),
        &opts("trip-planning/selection/days-off"),
    )
    .unwrap();
    with_client(server, async |client| {
        let caps = client.peer_info().unwrap().capabilities.clone();
        assert!(caps.prompts.is_some());
        // Its resource is a SQLite database: queries are tools, and there is no document.
        assert!(caps.resources.is_none());
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "byCode_atlasdata-org",
                "byContinent_atlasdata-org",
                "runSql_atlasdata-org",
                "describeTables_atlasdata-org",
                "getPublicHolidays_holidaykit-net",
                "checkWorkingDay_holidaykit-net"
            ]
        );
        let prompts = client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "holidaykit-net/prompt/bridge-days",
                "holidaykit-net/skill/plan-long-weekends"
            ]
        );
        // A prompt of the catalog that is not a member is not there.
        let e = client
            .get_prompt(GetPromptRequestParams::new("holidaykit-net/prompt/about"))
            .await
            .unwrap_err();
        match e {
            ServiceError::McpError(d) => assert_eq!(d.code.0, -32602),
            other => panic!("{other}"),
        }
    });
}

#[test]
fn an_agent_serves_what_its_activation_brings() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut o = CatalogOptions::new(Profile::Spec);
    o.env_override = Some(BTreeMap::new());
    let mut opts = ServeOptions::default();
    opts.agent = Some("holiday-planner".into());
    let server = McpServer::new(Catalog::open(&dir, &o).unwrap(), &opts).unwrap();
    with_client(server, async |client| {
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        // Its three tools and, through its selection, the country database's queries.
        assert_eq!(
            names,
            [
                "byCode_atlasdata-org",
                "byContinent_atlasdata-org",
                "runSql_atlasdata-org",
                "describeTables_atlasdata-org",
                "listCountries_holidaykit-net",
                "getPublicHolidays_holidaykit-net",
                "checkWorkingDay_holidaykit-net"
            ]
        );
        let prompts = client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        // The selection's prompt and skill, the referenced about prompt; the namespace skill is
        // the selection's skill already.
        assert_eq!(
            names,
            [
                "holidaykit-net/prompt/about",
                "holidaykit-net/prompt/bridge-days",
                "holidaykit-net/skill/plan-long-weekends"
            ]
        );
    });

    // An agent whose tools need a key that is not set is not activated; the report names it.
    let scratch = std::env::temp_dir().join(format!("flowmcp-mcp-agent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("agents/reader")).unwrap();
    std::fs::create_dir_all(scratch.join("providers")).unwrap();
    std::fs::copy(
        dir.join("providers/openshelf-org/books.mjs"),
        scratch.join("providers/books.mjs"),
    )
    .unwrap();
    std::fs::write(
        scratch.join("agents/reader/agent.mjs"),
        "export const agent = { name: 'reader', version: 'flowmcp/4.0.0', description: 'Finds books', \
         model: 'openai/gpt-4o', systemPrompt: 'Find books.', \
         tools: { 'openshelf-org/tool/searchBooks': null, 'openshelf-org/tool/getBook': null }, \
         tests: [ { _description: 'a', input: 'Dune', expectedTools: [ 'openshelf-org/tool/searchBooks' ] }, \
         { _description: 'b', input: 'ISBN 1', expectedTools: [ 'openshelf-org/tool/getBook' ] }, \
         { _description: 'c', input: 'Dune details', expectedTools: [ 'openshelf-org/tool/searchBooks', 'openshelf-org/tool/getBook' ] } ] }\n",
    )
    .unwrap();
    let catalog = Catalog::open(&scratch, &o).unwrap();
    let mut opts = ServeOptions::default();
    opts.agent = Some("reader".into());
    let Err(e) = McpServer::new(catalog, &opts) else {
        panic!("a missing server parameter refuses the agent")
    };
    let text = e.to_string();
    assert!(
        text.contains(
            "Agent \"reader\" requires:\n  - OPENSHELF_API_KEY (from openshelf-org schemas)"
        ),
        "{text}"
    );
    assert!(text.contains("OPENSHELF_API_KEY=missing"), "{text}");
    // Issue 29: the library says what is missing; where to set it is the CLI's to say.
    assert!(!text.contains("--env-file"), "{text}");
    let _ = std::fs::remove_dir_all(scratch);
}

/// Item 09: a skill is served only where every tool its prefill runs is served, so that one
/// endpoint's client cannot run another endpoint's tool by rendering a skill. The skill
/// `plan-long-weekends` prefills `getPublicHolidays`: a route that serves only `checkWorkingDay`
/// and a selection narrowed to it do not serve the skill, and nothing reaches the upstream; where
/// `getPublicHolidays` is served the prefill runs.
#[cfg(feature = "http")]
#[test]
fn item09_a_prefill_never_runs_a_tool_its_endpoint_does_not_serve() {
    let (base, upstream) = common::json_upstream(3, "[]");
    let catalog = std::sync::Arc::new(common::examples_at(&base));
    let skill = "holidaykit-net/skill/plan-long-weekends";
    let get = || {
        let mut args = Map::new();
        args.insert("year".into(), json!("2026"));
        args.insert("countryCode".into(), json!("DE"));
        GetPromptRequestParams::new(skill).with_arguments(args)
    };
    let routes = [Route::parse("/weekday=holidaykit-net/tool/checkWorkingDay").unwrap()];
    let endpoints = Endpoints::routes(&catalog, &routes, &ServeOptions::default()).unwrap();
    let (_, route) = endpoints.iter().next().unwrap();
    let narrowed = McpServer::shared(std::sync::Arc::clone(&catalog), &{
        let mut built = ServeOptions::default();
        built.selection = Some("trip-planning/selection/days-off".into());
        built.only = vec!["holidaykit-net/tool/checkWorkingDay".into()];
        built
    })
    .unwrap();
    for (server, prompts) in [
        (route.clone(), vec![]),
        (narrowed, vec!["holidaykit-net/prompt/bridge-days"]),
    ] {
        with_client(server, async |client| {
            let listed = client.list_all_prompts().await.unwrap();
            let names: Vec<&str> = listed.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, prompts);
            match client.get_prompt(get()).await.unwrap_err() {
                ServiceError::McpError(d) => assert_eq!(d.code.0, -32602),
                other => panic!("{other}"),
            }
        });
    }
    // Where the tool is served, the skill is, and its prefill runs.
    let whole = McpServer::shared(catalog, &ServeOptions::default()).unwrap();
    with_client(whole, async |client| {
        let got = client.get_prompt(get()).await.unwrap();
        assert_eq!(got.messages.len(), 1);
    });
    assert_eq!(upstream.join().unwrap(), ["/holidays/2026/DE"]);
}
