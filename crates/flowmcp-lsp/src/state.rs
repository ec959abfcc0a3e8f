//! What the server knows between messages: the open documents, the validation state and the
//! options. The protocol loop (`server`) owns it; the answers (`features`) read it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::{Diagnostic as LspDiagnostic, Uri};

use crate::Options;
use crate::check::Checker;

/// One open document.
pub(crate) struct Doc {
    pub(crate) uri: Uri,
    /// The file behind it (`None` for a buffer that is not a `file:` URI).
    pub(crate) path: Option<PathBuf>,
    pub(crate) text: String,
    pub(crate) version: i32,
    /// The findings of the last check, as published, each with the finding it came from.
    pub(crate) findings: Vec<(LspDiagnostic, flowmcp_spec::Diagnostic)>,
}

/// The open documents by URI, the checker and the options.
pub(crate) struct State {
    pub(crate) checker: Checker,
    pub(crate) options: Options,
    pub(crate) docs: HashMap<String, Doc>,
}

/// The file of a `file:` URI.
pub(crate) fn file_path(uri: &Uri) -> Option<PathBuf> {
    url::Url::parse(uri.as_str()).ok()?.to_file_path().ok()
}

/// The `file:` URI of `path`.
pub(crate) fn file_uri(path: &Path) -> Option<Uri> {
    let url = url::Url::from_file_path(path).ok()?;
    url.as_str().parse().ok()
}
