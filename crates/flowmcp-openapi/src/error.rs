//! What can go wrong when a document is imported.

/// Why a document, or one operation of it, could not be imported. Every variant names the
/// document, and where it helps the JSON pointer into it (`/paths/~1pets/get`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The document could not be read.
    #[error("{document}: cannot be read: {message}")]
    Read {
        /// The document as named.
        document: String,
        /// What the file system said.
        message: String,
    },
    /// The document is neither JSON nor YAML.
    #[error("{document}: is neither JSON nor YAML: {message}")]
    Parse {
        /// The document as named.
        document: String,
        /// What the parser said.
        message: String,
    },
    /// The document has neither an `openapi` nor a `swagger` field at its top.
    #[error(
        "{document}: is not an OpenAPI or Swagger document (no `openapi` or `swagger` field at its top)"
    )]
    NotOpenApi {
        /// The document as named.
        document: String,
    },
    /// The document's version is not 2.0, 3.0.x or 3.1.x.
    #[error("{document}#/{field}: version {version:?} is not supported (2.0, 3.0.x and 3.1.x are)")]
    UnsupportedVersion {
        /// The document as named.
        document: String,
        /// `openapi` or `swagger`.
        field: String,
        /// The version as written.
        version: String,
    },
    /// The namespace (given or derived) does not match the ID grammar.
    #[error("{document}: namespace {namespace:?} is not usable: {reason}")]
    Namespace {
        /// The document as named.
        document: String,
        /// The namespace.
        namespace: String,
        /// What the ID grammar said.
        reason: String,
    },
    /// A `$ref` points out of the document's folder (another folder, a parent, a URL); nothing
    /// is fetched from elsewhere.
    #[error(
        "{document}#{pointer}: `$ref` {reference:?} leaves the document's folder and is refused"
    )]
    RefOutsideFolder {
        /// The document the reference is in.
        document: String,
        /// Where the reference is.
        pointer: String,
        /// The reference as written.
        reference: String,
    },
    /// A `$ref` whose target does not exist or cannot be read.
    #[error("{document}#{pointer}: `$ref` {reference:?} cannot be resolved: {reason}")]
    BrokenRef {
        /// The document the reference is in.
        document: String,
        /// Where the reference is.
        pointer: String,
        /// The reference as written.
        reference: String,
        /// Why.
        reason: String,
    },
    /// One operation cannot become a tool; the others are still imported.
    #[error("{document}#{pointer}: the operation cannot become a tool: {reason}")]
    Operation {
        /// The document as named.
        document: String,
        /// The operation's pointer.
        pointer: String,
        /// Why.
        reason: String,
    },
}
