//! Prompts and resources reach MCP clients through the catalog's primitive registry alone: a
//! source registered with the catalog is listed, rendered and read, its errors become the
//! protocol's, and the capabilities are advertised only when there is something to serve.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::PathBuf;
use std::sync::Arc;

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{
    Caller, Catalog, CatalogOptions, Profile, primitives::PrimitiveError,
    primitives::PromptArgument, primitives::PromptInfo, primitives::PromptMessage,
    primitives::PromptSource, primitives::RenderedPrompt, primitives::ResourceBody,
    primitives::ResourceContent, primitives::ResourceInfo, primitives::ResourceSource,
    primitives::ResourceTemplateInfo, primitives::Speaker,
};
use flowmcp_mcp::{McpServer, ServeOptions};
use rmcp::ServiceExt;
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use rmcp::service::ServiceError;

/// An empty catalog directory of its own.
fn empty_catalog(tag: &str) -> (PathBuf, Catalog) {
    let dir = std::env::temp_dir().join(format!("flowmcp-mcp-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let catalog = Catalog::open(&dir, &CatalogOptions::new(Profile::Spec)).unwrap();
    (dir, catalog)
}

struct Greetings;

impl PromptSource for Greetings {
    fn prompts(&self) -> Vec<PromptInfo> {
        let mut meta = Map::new();
        meta.insert("flowmcp/id".into(), json!("demo/prompt/greet"));
        vec![PromptInfo {
            name: "greet".into(),
            title: Some("Greet".into()),
            description: Some("Greets someone".into()),
            arguments: vec![PromptArgument {
                name: "who".into(),
                description: Some("whom to greet".into()),
                required: true,
            }],
            meta,
        }]
    }

    fn render(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        caller: &Caller<'_>,
    ) -> Result<Option<RenderedPrompt>, PrimitiveError> {
        if name != "greet" {
            return Ok(None);
        }
        let who = arguments
            .get("who")
            .and_then(Value::as_str)
            .ok_or_else(|| PrimitiveError::InvalidArguments("greet needs \"who\"".into()))?;
        // The source runs on a worker with that thread's caller (prefill calls tools this way).
        let envelope = caller.call_json("nothing_here", &Map::new());
        Ok(Some(RenderedPrompt {
            description: None,
            messages: vec![
                PromptMessage {
                    speaker: Speaker::User,
                    text: format!("Say hello to {who}."),
                },
                PromptMessage {
                    speaker: Speaker::Assistant,
                    text: envelope.messages().join(" "),
                },
            ],
        }))
    }
}

struct Memos;

impl ResourceSource for Memos {
    fn resources(&self) -> Vec<ResourceInfo> {
        vec![
            ResourceInfo {
                uri: "memo://text".into(),
                name: "text".into(),
                mime_type: Some("text/markdown".into()),
                ..ResourceInfo::default()
            },
            ResourceInfo {
                uri: "memo://bytes".into(),
                name: "bytes".into(),
                ..ResourceInfo::default()
            },
        ]
    }

    fn templates(&self) -> Vec<ResourceTemplateInfo> {
        vec![ResourceTemplateInfo {
            uri_template: "memo://{name}".into(),
            name: "memo".into(),
            ..ResourceTemplateInfo::default()
        }]
    }

    fn read(
        &self,
        uri: &str,
        _caller: &Caller<'_>,
    ) -> Result<Option<Vec<ResourceContent>>, PrimitiveError> {
        let body = match uri {
            "memo://text" => ResourceBody::Text("# Memo".into()),
            "memo://bytes" => ResourceBody::Blob(vec![0, 159, 146, 150]),
            "memo://broken" => return Err(PrimitiveError::Failed("the store is closed".into())),
            _ => return Ok(None),
        };
        Ok(Some(vec![ResourceContent {
            uri: uri.into(),
            mime_type: None,
            body,
        }]))
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The JSON-RPC error code of a failed request.
fn code(e: ServiceError) -> i32 {
    match e {
        ServiceError::McpError(d) => d.code.0,
        other => panic!("not a protocol error: {other}"),
    }
}

#[test]
fn registered_prompts_and_resources_are_served_through_the_registry() {
    let (dir, mut catalog) = empty_catalog("registry");
    catalog.register_prompts(Arc::new(Greetings));
    catalog.register_resources(Arc::new(Memos));
    let server = McpServer::new(catalog, &ServeOptions::default()).unwrap();
    runtime().block_on(async move {
        let (a, b) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(async move {
            let running = server.serve(a).await.unwrap();
            running.waiting().await.unwrap();
        });
        let client = ().serve(b).await.unwrap();
        let info = client.peer_info().unwrap();
        assert!(info.capabilities.prompts.is_some());
        assert!(info.capabilities.resources.is_some());

        let prompts = client.list_all_prompts().await.unwrap();
        assert_eq!(prompts.len(), 1);
        let listed = serde_json::to_value(&prompts[0]).unwrap();
        assert_eq!(listed["name"], json!("greet"));
        assert_eq!(listed["title"], json!("Greet"));
        assert_eq!(listed["arguments"][0]["required"], json!(true));
        assert_eq!(listed["_meta"]["flowmcp/id"], json!("demo/prompt/greet"));

        let mut args = Map::new();
        args.insert("who".into(), json!("Ada"));
        let got = client
            .get_prompt(GetPromptRequestParams::new("greet").with_arguments(args))
            .await
            .unwrap();
        let got = serde_json::to_value(&got).unwrap();
        assert_eq!(got["messages"][0]["role"], json!("user"));
        assert_eq!(
            got["messages"][0]["content"]["text"],
            json!("Say hello to Ada.")
        );
        assert_eq!(got["messages"][1]["role"], json!("assistant"));
        let prefilled = got["messages"][1]["content"]["text"].as_str().unwrap();
        assert!(prefilled.starts_with("E007"), "{prefilled}");

        // Missing arguments and unknown prompts are invalid parameters (-32602).
        let e = client
            .get_prompt(GetPromptRequestParams::new("greet"))
            .await
            .unwrap_err();
        assert_eq!(code(e), -32602);
        let e = client
            .get_prompt(GetPromptRequestParams::new("nope"))
            .await
            .unwrap_err();
        assert_eq!(code(e), -32602);

        let resources = client.list_all_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["memo://text", "memo://bytes"]);
        assert_eq!(resources[0].mime_type.as_deref(), Some("text/markdown"));
        let templates = client.list_all_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "memo://{name}");

        let read = client
            .read_resource(ReadResourceRequestParams::new("memo://text"))
            .await
            .unwrap();
        match &read.contents[0] {
            ResourceContents::TextResourceContents { text, .. } => assert_eq!(text, "# Memo"),
            other => panic!("{other:?}"),
        }
        let read = client
            .read_resource(ReadResourceRequestParams::new("memo://bytes"))
            .await
            .unwrap();
        match &read.contents[0] {
            ResourceContents::BlobResourceContents { blob, .. } => assert_eq!(blob, "AJ+Slg=="),
            other => panic!("{other:?}"),
        }
        // An unknown URI is "resource not found" (-32002); a failing source an internal error.
        let e = client
            .read_resource(ReadResourceRequestParams::new("memo://missing"))
            .await
            .unwrap_err();
        assert_eq!(code(e), -32002);
        let e = client
            .read_resource(ReadResourceRequestParams::new("memo://broken"))
            .await
            .unwrap_err();
        assert_eq!(code(e), -32603);

        client.cancel().await.unwrap();
        serving.await.unwrap();
    });
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn without_prompts_or_resources_only_tools_are_advertised() {
    let (dir, catalog) = empty_catalog("tools-only");
    let server = McpServer::new(catalog, &ServeOptions::default()).unwrap();
    runtime().block_on(async move {
        let (a, b) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(async move {
            let running = server.serve(a).await.unwrap();
            running.waiting().await.unwrap();
        });
        let client = ().serve(b).await.unwrap();
        let info = client.peer_info().unwrap();
        assert!(info.capabilities.tools.is_some());
        assert!(info.capabilities.prompts.is_none());
        assert!(info.capabilities.resources.is_none());
        client.cancel().await.unwrap();
        serving.await.unwrap();
    });
    let _ = std::fs::remove_dir_all(dir);
}
