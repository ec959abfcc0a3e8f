//! Catalogs: `registry.json`, CAT rules, content hash, cross-file checks. (Being written for the
//! catalog issue.)

use std::path::Path;

use flowmcp_spec::Diagnostic;

use crate::Options;

/// Validates the catalog directory `dir` and returns every diagnostic (used by the fixture tests).
pub fn validate_catalog_fixture(_dir: &Path, _opts: &Options) -> Vec<Diagnostic> {
    Vec::new()
}

/// Whether `dir` is a catalog (it has `registry.json`).
pub fn is_catalog(dir: &Path) -> bool {
    dir.join("registry.json").is_file()
}

/// Validates a whole catalog: one report for the catalog itself (`registry.json`, CAT rules,
/// cross-file checks) and one per file, with shared lists resolved.
pub fn validate_catalog(
    dir: &Path,
    display: &str,
    opts: &Options,
) -> Vec<flowmcp_spec::FileReport> {
    let _ = (dir, opts);
    vec![flowmcp_spec::FileReport::new(
        format!("{display}/registry.json"),
        "catalog",
        Vec::new(),
    )]
}
