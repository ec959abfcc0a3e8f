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
    /// The report of the last check (its findings in the same order).
    pub(crate) report: Option<flowmcp_spec::FileReport>,
    /// Whether the findings have the fixes of the catalog's rewrites already.
    pub(crate) fixes_attached: bool,
}

impl Doc {
    /// The name a buffer without a file is checked under (its URI's last segment).
    pub(crate) fn name(&self) -> String {
        self.path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .or_else(|| {
                self.uri
                    .as_str()
                    .rsplit(['/', ':'])
                    .next()
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "untitled.mjs".into())
    }
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

impl State {
    /// Gives the document `key`'s findings the fixes of the catalog's rewrites, once per check.
    pub(crate) fn ensure_fixes(&mut self, key: &str) {
        let State { docs, checker, .. } = self;
        let Some(doc) = docs.get_mut(key) else {
            return;
        };
        if doc.fixes_attached {
            return;
        }
        let Some(mut report) = doc.report.take() else {
            return;
        };
        let name = doc.name();
        checker.attach_fixes(doc.path.as_deref(), &name, &doc.text, &mut report);
        for (finding, d) in doc.findings.iter_mut().zip(report.diagnostics()) {
            if finding.1.code == d.code && finding.1.fix.is_none() {
                finding.1.fix = d.fix.clone();
            }
        }
        doc.report = Some(report);
        doc.fixes_attached = true;
    }
}
