//! # flowmcp-openapi
//!
//! Drafts FlowMCP v4.2.0 schema files from an OpenAPI 3.0 or 3.1 document or a Swagger 2.0
//! document (JSON or YAML): one tool per operation, with parameters, `z` checks, output schemas,
//! `meta` and tests, at most 8 tools per file. Whatever the schema format cannot say exactly is
//! written as a `// REVIEW:` comment line beside the part it concerns, so that a person reviews
//! the draft before it joins a catalog; nothing is weakened silently.
//!
//! ```
//! use flowmcp_openapi::{Options, import_str};
//!
//! let doc = r#"{
//!   "openapi": "3.0.3",
//!   "info": { "title": "Pets", "version": "1" },
//!   "servers": [ { "url": "https://api.pets.example/v1" } ],
//!   "paths": { "/pets/{petId}": { "get": {
//!     "operationId": "get_pet",
//!     "parameters": [ { "name": "petId", "in": "path", "required": true,
//!                       "schema": { "type": "string", "example": "rex" } } ],
//!     "responses": { "200": { "description": "ok" } } } } }
//! }"#;
//! let import = import_str(doc, "pets.json", &Options::new())?;
//! assert_eq!(import.namespace(), "pets-example");
//! let file = &import.files()[0];
//! assert_eq!(file.tools(), ["getPet"]);
//! assert!(file.text().contains("path: '/pets/{{petId}}'"));
//! # Ok::<(), flowmcp_openapi::ImportError>(())
//! ```
//!
//! Documents are read through `flowmcp-files`; a `$ref` may name a pointer in the same
//! document or a file in the document's own folder, and nothing else (nothing is fetched).

mod convert;
mod doc;
mod emit;
mod error;
mod shape;
mod zmap;

use std::path::Path;

pub use error::ImportError;

/// How to import.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// The namespace of the schemas; when `None` it is made from the API's host (or title).
    pub namespace: Option<String>,
    /// Only the operations with one of these tags (compared without case); all when empty.
    pub tags: Vec<String>,
}

impl Options {
    /// Every operation, the namespace made from the document.
    pub fn new() -> Options {
        Options::default()
    }

    /// The same options with `namespace`.
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Options {
        self.namespace = Some(namespace.into());
        self
    }

    /// The same options with only the operations tagged with one of `tags`.
    pub fn with_tags(mut self, tags: Vec<String>) -> Options {
        self.tags = tags;
        self
    }
}

/// What a review note is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ReviewKind {
    /// A check the `z` grammar cannot express (integers, patterns, formats, array items, …).
    Type,
    /// A test value the document does not give.
    Test,
    /// A header parameter, a cookie or a body that cannot be a parameter.
    Parameter,
    /// Two parameters of the same name in different places.
    Collision,
    /// A security scheme: optional, alternatives, OAuth2/OpenID flows, basic credentials.
    Security,
    /// The server address (relative, plain `http`, templated).
    Server,
    /// A reference cycle that was cut.
    Ref,
    /// Part of a response the output schema cannot describe.
    Output,
}

impl ReviewKind {
    /// Every kind, in the order of the REVIEW markers' page.
    pub const ALL: [ReviewKind; 8] = [
        ReviewKind::Type,
        ReviewKind::Test,
        ReviewKind::Parameter,
        ReviewKind::Collision,
        ReviewKind::Security,
        ReviewKind::Server,
        ReviewKind::Ref,
        ReviewKind::Output,
    ];

    /// The kind's name in reports (`type`, `test`, …), as in the REVIEW markers' page.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewKind::Type => "type",
            ReviewKind::Test => "test",
            ReviewKind::Parameter => "parameter",
            ReviewKind::Collision => "collision",
            ReviewKind::Security => "security",
            ReviewKind::Server => "server",
            ReviewKind::Ref => "ref",
            ReviewKind::Output => "output",
        }
    }
}

/// One `// REVIEW:` line of a drafted file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review {
    /// What it is about.
    pub kind: ReviewKind,
    /// The tool it is in (`None` for the file's `main` fields).
    pub tool: Option<String>,
    /// The line's text after `// REVIEW: `.
    pub text: String,
}

/// An operation that was left out on purpose (not an error), and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// The operation's JSON pointer in the document.
    pub pointer: String,
    /// Why.
    pub reason: String,
}

/// One drafted schema file.
#[derive(Clone, Debug)]
pub struct DraftFile {
    name: String,
    text: String,
    tools: Vec<String>,
    reviews: Vec<Review>,
}

impl DraftFile {
    /// The file's name (`<group>.mjs`), to be placed in the output folder.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The module's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its tools' names, in order.
    pub fn tools(&self) -> &[String] {
        &self.tools
    }

    /// Its `// REVIEW:` lines.
    pub fn reviews(&self) -> &[Review] {
        &self.reviews
    }
}

/// The result of importing one document: the files, what was left out and what failed.
#[derive(Clone, Debug)]
pub struct Import {
    document: String,
    namespace: String,
    files: Vec<DraftFile>,
    dropped: Vec<Dropped>,
    failed: Vec<String>,
}

impl Import {
    /// The document as named.
    pub fn document(&self) -> &str {
        &self.document
    }

    /// The namespace every file shares.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The drafted files.
    pub fn files(&self) -> &[DraftFile] {
        &self.files
    }

    /// Operations the format cannot express, left out with the reason: a method other than
    /// `GET`, `POST`, `PUT` and `DELETE`, a required body on `GET`/`DELETE` or one that is not an
    /// object with members. (Operations without a tag asked for are not listed.)
    pub fn dropped(&self) -> &[Dropped] {
        &self.dropped
    }

    /// Operations that failed because the document is wrong there (a broken or refused `$ref`,
    /// a parameter without `name` or `in`), each an [`ImportError`]'s message naming the
    /// document and the JSON pointer; the others were imported.
    pub fn failed(&self) -> &[String] {
        &self.failed
    }
}

/// Imports the document at `path` (JSON or YAML). References to other files are read from the
/// document's folder.
pub fn import_file(path: &Path, options: &Options) -> Result<Import, ImportError> {
    let document = path.display().to_string();
    let bytes =
        flowmcp_files::named::read_capped(path, doc::MAX_BYTES).map_err(|e| ImportError::Read {
            document: document.clone(),
            message: e.to_string(),
        })?;
    let text = String::from_utf8(bytes).map_err(|_| ImportError::Parse {
        document: document.clone(),
        message: "not UTF-8 text".to_string(),
    })?;
    let folder = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .map(flowmcp_files::Root::new);
    let short = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| document.clone());
    convert::run(&text, &document, &short, folder, options)
}

/// Imports a document given as text; `document` names it in errors and notes. A reference to
/// another file is refused (there is no folder to read it from).
pub fn import_str(text: &str, document: &str, options: &Options) -> Result<Import, ImportError> {
    convert::run(text, document, document, None, options)
}
