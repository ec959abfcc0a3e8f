//! Prompts and resources as MCP sees them: the catalog's primitive registry projected onto the
//! protocol's types. The server asks the registry only; which source answers is not its concern.

use base64::Engine;
use flowmcp_catalog::{
    primitives::PrimitiveError, primitives::PromptInfo, primitives::RenderedPrompt,
    primitives::ResourceBody, primitives::ResourceContent, primitives::ResourceInfo,
    primitives::ResourceTemplateInfo, primitives::Speaker,
};
use rmcp::ErrorData;
use rmcp::model::{
    GetPromptResult, MetaObject, Prompt, PromptArgument, PromptMessage, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, Role,
};

/// The MCP entry of a prompt.
pub(crate) fn prompt(p: PromptInfo) -> Prompt {
    let arguments = p
        .arguments
        .into_iter()
        .map(|a| {
            let mut arg = PromptArgument::new(a.name);
            arg.description = a.description;
            arg.required = Some(a.required);
            arg
        })
        .collect::<Vec<_>>();
    let mut out = Prompt::new(p.name, p.description, Some(arguments));
    out.title = p.title;
    if !p.meta.is_empty() {
        out.meta = Some(MetaObject(p.meta));
    }
    out
}

/// The `prompts/get` result of a rendered prompt.
pub(crate) fn rendered(r: RenderedPrompt) -> GetPromptResult {
    let messages = r
        .messages
        .into_iter()
        .map(|m| {
            let role = match m.speaker {
                Speaker::User => Role::User,
                Speaker::Assistant => Role::Assistant,
            };
            PromptMessage::new_text(role, m.text)
        })
        .collect();
    let mut out = GetPromptResult::new(messages);
    out.description = r.description;
    out
}

/// The MCP entry of a resource.
pub(crate) fn resource(r: ResourceInfo) -> Resource {
    let mut out = Resource::new(r.uri, r.name);
    out.title = r.title;
    out.description = r.description;
    out.mime_type = r.mime_type;
    out
}

/// The MCP entry of a resource template.
pub(crate) fn template(t: ResourceTemplateInfo) -> ResourceTemplate {
    let mut out = ResourceTemplate::new(t.uri_template, t.name);
    out.title = t.title;
    out.description = t.description;
    out.mime_type = t.mime_type;
    out
}

/// The `resources/read` result of a read resource (bytes travel as base64, as MCP says).
pub(crate) fn contents(parts: Vec<ResourceContent>) -> ReadResourceResult {
    let contents = parts
        .into_iter()
        .map(|c| match c.body {
            ResourceBody::Text(text) => ResourceContents::TextResourceContents {
                uri: c.uri,
                mime_type: c.mime_type,
                text,
                meta: None,
            },
            ResourceBody::Blob(bytes) => ResourceContents::BlobResourceContents {
                uri: c.uri,
                mime_type: c.mime_type,
                blob: base64::engine::general_purpose::STANDARD.encode(bytes),
                meta: None,
            },
        })
        .collect();
    ReadResourceResult::new(contents)
}

/// The protocol error for a failed `prompts/get` or `resources/read`: an unknown prompt and bad
/// arguments are invalid parameters, an unknown resource is "resource not found" (-32002).
pub(crate) fn error(e: PrimitiveError, resource: bool) -> ErrorData {
    let message = e.to_string();
    match e {
        PrimitiveError::NotFound(_) if resource => ErrorData::resource_not_found(message, None),
        PrimitiveError::NotFound(_) | PrimitiveError::InvalidArguments(_) => {
            ErrorData::invalid_params(message, None)
        }
        PrimitiveError::Failed(_) => ErrorData::internal_error(message, None),
    }
}
