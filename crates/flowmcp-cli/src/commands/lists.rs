//! `flowmcp list-refs <listName> [--catalog DIR] [--json]`: which tools use a shared list (chapter
//! 03, "Reverse-Lookup Index" and "CLI Access").
//!
//! The catalog is `--catalog DIR` (a catalog root, or its `_lists/` directory), or else the nearest
//! directory, from the current one upwards, that has a `_lists/` directory or a `registry.json`. Its
//! lists are read from `_lists/`; its schemas are every `.mjs` file below the root that mentions
//! `sharedLists`, skipping directories and files whose names start with `_` or `.`, `node_modules`
//! and `target` (as the JavaScript CLI skips `_` entries). Files that cannot be loaded are skipped
//! with a note on stderr.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use flowmcp_catalog::reverse::index_catalog;
use flowmcp_spec::{Profile, RuleSettings};
use flowmcp_validate::Limits;
use flowmcp_validate::lists::LISTS_DIR;

#[derive(Args, Debug)]
pub(crate) struct ListRefsArgs {
    /// The shared list's name (e.g. `evmChains`).
    pub list: String,
    /// The catalog directory (default: the nearest directory, from the current one upwards, with a
    /// `_lists/` directory or a `registry.json`).
    #[arg(long, value_name = "DIR")]
    pub catalog: Option<PathBuf>,
    /// Print JSON: `{ list, version, entries, fields, referencedBy: [ { tool, field, filter, schema } ],
    /// index: { "list:field": [ tool IDs ] } }`.
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn run(a: ListRefsArgs) -> Result<ExitCode, String> {
    let root = match &a.catalog {
        Some(dir) => catalog_root(dir)?,
        None => {
            let cwd = crate::context::cwd()?;
            find_catalog_root(&cwd).ok_or_else(|| {
                format!(
                    "no catalog found: neither {} nor a parent has a `{LISTS_DIR}/` directory or a registry.json (use --catalog DIR)",
                    cwd.display()
                )
            })?
        }
    };
    let lists_dir = root.join(LISTS_DIR);
    if !flowmcp_files::named::is_dir(&lists_dir) {
        return Err(format!(
            "{}: the catalog has no `{LISTS_DIR}/` directory",
            root.display()
        ));
    }
    let settings = RuleSettings::new(Profile::Compat);
    let limits = Limits::default();
    let registry = flowmcp_validate::lists::load_dir(&lists_dir, &settings, &limits);
    let Some(list) = registry.get(&a.list) else {
        let names = registry.names();
        let available = if names.is_empty() {
            "it holds no loadable lists".to_string()
        } else {
            format!("available: {}", names.join(", "))
        };
        return Err(format!(
            "no shared list named \"{}\" in {} ({available})",
            a.list,
            lists_dir.display()
        ));
    };

    let (index, skipped) = index_catalog(&root, &settings, &limits)
        .map_err(|e| format!("{}: cannot read the catalog: {e}", root.display()))?;
    if !skipped.is_empty() {
        eprintln!(
            "flowmcp: {} schema file(s) that mention sharedLists could not be loaded and were skipped: {}",
            skipped.len(),
            crate::output::shown(&skipped.join(", "))
        );
    }
    let text = if a.json {
        let mut s =
            serde_json::to_string_pretty(&index.render_json(list)).map_err(|e| e.to_string())?;
        s.push('\n');
        s
    } else {
        index.render(list)
    };
    crate::output::write_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The catalog root for `--catalog DIR`: `DIR`, or its parent when `DIR` is the `_lists/` directory.
fn catalog_root(dir: &Path) -> Result<PathBuf, String> {
    if !flowmcp_files::named::is_dir(dir) {
        return Err(format!("{}: not a directory", dir.display()));
    }
    if dir.file_name().is_some_and(|n| n == LISTS_DIR) {
        return Ok(dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.to_path_buf()));
    }
    Ok(dir.to_path_buf())
}

/// The nearest of `start` and its parents that has `_lists/` or `registry.json`.
fn find_catalog_root(start: &Path) -> Option<PathBuf> {
    if start.file_name().is_some_and(|n| n == LISTS_DIR) {
        return start.parent().map(Path::to_path_buf);
    }
    start
        .ancestors()
        .find(|d| {
            flowmcp_files::named::is_dir(d.join(LISTS_DIR))
                || flowmcp_files::named::is_file(d.join("registry.json"))
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_catalog_root() {
        let dir = std::env::temp_dir().join(format!("flowmcp-listrefs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("_lists")).unwrap();
        std::fs::create_dir_all(dir.join("providers/x/_skip")).unwrap();
        std::fs::write(dir.join("providers/x/a.mjs"), "export const main = {}").unwrap();
        std::fs::write(dir.join("providers/x/_skip/b.mjs"), "").unwrap();
        std::fs::write(dir.join("providers/x/_c.mjs"), "").unwrap();
        assert_eq!(find_catalog_root(&dir.join("providers/x")).unwrap(), dir);
        assert_eq!(find_catalog_root(&dir.join("_lists")).unwrap(), dir);
        assert_eq!(catalog_root(&dir.join("_lists")).unwrap(), dir);
        assert!(catalog_root(&dir.join("missing")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
