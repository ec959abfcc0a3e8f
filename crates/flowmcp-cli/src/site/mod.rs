//! A static site of a catalog (`flowmcp catalog site`): an index page, a page per schema file,
//! tool entry and prompt or skill, a prebuilt search index and our own stylesheet and script.
//!
//! Pages work from `file://` under a strict Content-Security-Policy ([`html::CSP`]): no inline
//! script or style; the search index is a script that assigns data. All catalog text goes
//! through [`html::esc`]; page names come from [`names::Names`]. Files are written atomically
//! and only when their bytes change; nothing in the output directory is ever deleted.

mod html;
mod index;
mod md;
mod names;
mod pages;
pub(crate) mod report;

use std::collections::BTreeMap;
use std::path::Path;

use flowmcp_catalog::Catalog;

/// Our stylesheet: the site's file, and inlined in each HTML report ([`report`]).
const SITE_CSS: &str = include_str!("assets/site.css");

/// Our stylesheet, script and their file names.
const ASSETS: [(&str, &str); 2] = [
    ("site.css", SITE_CSS),
    ("site.js", include_str!("assets/site.js")),
];

/// What a build wrote.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Files written because they were new or their bytes changed.
    pub changed: usize,
    /// Files left alone because their bytes were already these.
    pub unchanged: usize,
}

/// Builds the site of `catalog` into `out` (created when missing). `catalog_arg` is how commands
/// on the pages name the catalog (`--catalog <catalog_arg>`); `tests`, a report of `flowmcp test
/// --format json`, adds each entry's results to its page, `grades` (grade reports) each file's
/// grade to its page; `rules`, a directory of rule pages
/// (`docs/rules`: `<CODE>.md` made by `cargo xtask docs`), is rendered into a page per rule.
pub(crate) fn build(
    catalog: &Catalog,
    catalog_arg: &str,
    tests: Option<&serde_json::Value>,
    grades: &[serde_json::Value],
    rules: Option<&Path>,
    out: &Path,
) -> Result<Written, String> {
    if flowmcp_files::named::exists(out) && !flowmcp_files::named::is_dir(out) {
        return Err(format!("{}: not a directory", out.display()));
    }
    flowmcp_files::named::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut rule_docs = BTreeMap::new();
    if let Some(dir) = rules {
        if !flowmcp_files::named::is_dir(dir) {
            return Err(format!("{}: not a directory of rule pages", dir.display()));
        }
        for r in flowmcp_spec::registry::RULES {
            let path = dir.join(format!("{}.md", r.code.as_str()));
            match flowmcp_files::named::read_capped_text(&path, 1 << 20) {
                Ok(text) => {
                    rule_docs.insert(r.code.as_str().to_string(), text);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
    }
    let mut written = Written::default();
    for (name, text) in ASSETS {
        put(out, name, text.as_bytes(), &mut written)?;
    }
    pages::render(
        catalog,
        catalog_arg,
        tests,
        grades,
        &rule_docs,
        &mut |name, text| put(out, &name, text.as_bytes(), &mut written),
    )?;
    Ok(written)
}

/// Writes `bytes` to `out/name` unless the file already holds exactly them. Each page replaces
/// the old one atomically (a reader sees the old page or the new one, never a part) but is not
/// flushed to disk: the site is made again from the catalog, and a page a crash damaged differs
/// from what the next run makes, so that run writes it again. Flushing each of the public
/// collection's 1,951 files took 2.6 s of the 3 s a first build took (D143).
fn put(out: &Path, name: &str, bytes: &[u8], written: &mut Written) -> Result<(), String> {
    let path = out.join(name);
    if flowmcp_files::named::read(&path).is_ok_and(|old| old == bytes) {
        written.unchanged += 1;
        return Ok(());
    }
    flowmcp_files::named::write_cache_file(&path, bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    written.changed += 1;
    Ok(())
}
