//! The catalog's registry of primitives besides tools: prompts (provider prompts, skills, agent
//! prompts) and resources. Each kind of primitive plugs in as a source; whoever serves the
//! catalog (the MCP server, an embedding agent) asks the registry and never needs to know which
//! source answers.
//!
//! Sources are plain Rust objects with no tie to a protocol: they describe what they have
//! ([`PromptInfo`], [`ResourceInfo`], [`ResourceTemplateInfo`]) and render or read on request.
//! Rendering and reading may block (a SQLite query, a prefill that calls tools), so they get the
//! calling thread's [`Caller`] and are run off any async thread by the server.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::caller::Caller;

/// Why a prompt could not be rendered or a resource not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrimitiveError {
    /// No source has a prompt with this name or a resource with this URI.
    #[error("{0}: not found")]
    NotFound(String),
    /// The arguments do not fit the prompt (a required one missing, a wrong type, …).
    #[error("{0}")]
    InvalidArguments(String),
    /// The source failed while rendering or reading (the message has a code where one applies).
    #[error("{0}")]
    Failed(String),
}

/// One argument of a prompt.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptArgument {
    /// The argument's name.
    pub name: String,
    /// What to give.
    pub description: Option<String>,
    /// Whether rendering fails without it.
    pub required: bool,
}

/// A prompt as it is listed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptInfo {
    /// The name clients use (unique across the catalog).
    pub name: String,
    /// A display title.
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
    /// Further facts for clients (`flowmcp/id`, …), served as the prompt's `_meta`.
    pub meta: Map<String, Value>,
}

/// Who speaks a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    /// The user (instructions, context).
    User,
    /// The assistant (a prefilled answer).
    Assistant,
}

/// One message of a rendered prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMessage {
    /// Who speaks it.
    pub speaker: Speaker,
    /// Its text.
    pub text: String,
}

/// A prompt rendered with its arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderedPrompt {
    /// A description of this rendering, when it differs from the prompt's.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

/// A resource with a fixed URI, as it is listed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceInfo {
    /// Its URI (unique across the catalog).
    pub uri: String,
    /// A short name.
    pub name: String,
    /// A display title.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// The media type of its contents.
    pub mime_type: Option<String>,
}

/// A family of resources whose URIs follow a template (RFC 6570), as it is listed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceTemplateInfo {
    /// The URI template.
    pub uri_template: String,
    /// A short name.
    pub name: String,
    /// A display title.
    pub title: Option<String>,
    /// What its resources hold.
    pub description: Option<String>,
    /// The media type of their contents.
    pub mime_type: Option<String>,
}

/// The contents of a resource.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceBody {
    /// Text (JSON, markdown, CSV, …).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// One part of a read resource.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceContent {
    /// The URI this part belongs to.
    pub uri: String,
    /// Its media type.
    pub mime_type: Option<String>,
    /// The contents.
    pub body: ResourceBody,
}

/// Something that has prompts: renders them on request.
pub trait PromptSource: Send + Sync {
    /// Its prompts, in the order to list them.
    fn prompts(&self) -> Vec<PromptInfo>;
    /// Renders the prompt `name` with `arguments`; `Ok(None)` when it has no such prompt.
    /// `caller` runs tools (prefill) on the current thread.
    fn render(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        caller: &Caller<'_>,
    ) -> Result<Option<RenderedPrompt>, PrimitiveError>;
}

/// Something that has resources: reads them on request.
pub trait ResourceSource: Send + Sync {
    /// Its resources with fixed URIs, in the order to list them.
    fn resources(&self) -> Vec<ResourceInfo>;
    /// Its resource templates (none by default).
    fn templates(&self) -> Vec<ResourceTemplateInfo> {
        Vec::new()
    }
    /// Reads the resource at `uri`; `Ok(None)` when the URI is not one of its.
    fn read(
        &self,
        uri: &str,
        caller: &Caller<'_>,
    ) -> Result<Option<Vec<ResourceContent>>, PrimitiveError>;
}

/// Every prompt and resource source of a catalog, asked in registration order (the catalog's
/// own markdown resources first).
#[derive(Clone, Default)]
pub struct Primitives {
    prompts: Vec<Arc<dyn PromptSource>>,
    resources: Vec<Arc<dyn ResourceSource>>,
    /// The catalog's markdown resources (made from its schemas, not registered).
    documents: Option<Arc<dyn ResourceSource>>,
    /// The catalog's own prompts and skills (made from its files, not registered).
    library: Option<Arc<dyn PromptSource>>,
}

impl std::fmt::Debug for Primitives {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Primitives")
            .field("prompt_sources", &self.prompts.len())
            .field("resource_sources", &self.resources.len())
            .field("documents", &self.documents.is_some())
            .field("library", &self.library.is_some())
            .finish()
    }
}

impl Primitives {
    /// Adds a prompt source; its prompts come after those of the sources added before it.
    pub fn add_prompts(&mut self, source: Arc<dyn PromptSource>) {
        self.prompts.push(source);
    }

    /// Adds a resource source; its resources come after those of the sources added before it.
    pub fn add_resources(&mut self, source: Arc<dyn ResourceSource>) {
        self.resources.push(source);
    }

    /// Sets the catalog's own prompts and skills, asked first.
    pub(crate) fn set_library(&mut self, source: Arc<dyn PromptSource>) {
        self.library = Some(source);
    }

    /// Sets the catalog's own resources (its schemas' markdown documents), asked first.
    pub(crate) fn set_documents(&mut self, source: Arc<dyn ResourceSource>) {
        self.documents = Some(source);
    }

    /// Takes over the sources registered with `other`, keeping this catalog's own documents.
    pub(crate) fn carry_registered(&mut self, other: &Primitives) {
        self.prompts = other.prompts.clone();
        self.resources = other.resources.clone();
    }

    /// The prompt sources in the order they are asked: the catalog's library, then the
    /// registered ones.
    fn prompt_sources(&self) -> impl Iterator<Item = &Arc<dyn PromptSource>> {
        self.library.iter().chain(self.prompts.iter())
    }

    /// The resource sources in the order they are asked: the catalog's documents, then the
    /// registered ones.
    fn resource_sources(&self) -> impl Iterator<Item = &Arc<dyn ResourceSource>> {
        self.documents.iter().chain(self.resources.iter())
    }

    /// Every prompt of every source. A name that an earlier source already has is left out (the
    /// earlier source also answers for it when rendering).
    pub fn prompts(&self) -> Vec<PromptInfo> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for p in self.prompt_sources().flat_map(|s| s.prompts()) {
            if seen.insert(p.name.clone()) {
                out.push(p);
            }
        }
        out
    }

    /// Whether there is any prompt to serve.
    pub fn has_prompts(&self) -> bool {
        self.prompt_sources().any(|s| !s.prompts().is_empty())
    }

    /// Renders the prompt `name`: the first source that has it answers.
    pub fn render_prompt(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        caller: &Caller<'_>,
    ) -> Result<RenderedPrompt, PrimitiveError> {
        for s in self.prompt_sources() {
            if let Some(r) = s.render(name, arguments, caller)? {
                return Ok(r);
            }
        }
        Err(PrimitiveError::NotFound(name.to_string()))
    }

    /// Every resource with a fixed URI, of every source (a URI listed before is left out).
    pub fn resources(&self) -> Vec<ResourceInfo> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for r in self.resource_sources().flat_map(|s| s.resources()) {
            if seen.insert(r.uri.clone()) {
                out.push(r);
            }
        }
        out
    }

    /// Every resource template of every source.
    pub fn resource_templates(&self) -> Vec<ResourceTemplateInfo> {
        self.resource_sources()
            .flat_map(|s| s.templates())
            .collect()
    }

    /// Whether there is any resource or resource template to serve.
    pub fn has_resources(&self) -> bool {
        self.resource_sources()
            .any(|s| !s.resources().is_empty() || !s.templates().is_empty())
    }

    /// Reads the resource at `uri`: the first source that has it answers.
    pub fn read_resource(
        &self,
        uri: &str,
        caller: &Caller<'_>,
    ) -> Result<Vec<ResourceContent>, PrimitiveError> {
        for s in self.resource_sources() {
            if let Some(c) = s.read(uri, caller)? {
                return Ok(c);
            }
        }
        Err(PrimitiveError::NotFound(uri.to_string()))
    }
}
