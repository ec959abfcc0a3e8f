//! `flowmcp catalog hash <dir>`, `flowmcp catalog index <dir> [--check]`,
//! `flowmcp catalog lists <dir> [--check]` (also `flowmcp validate-lists [dir]`) and
//! `flowmcp catalog site <dir> --out <site>` (the pages are [`crate::site`]'s).
//!
//! `hash` prints the `contentHash` of the files `registry.json` references, computed exactly as
//! chapter 15 describes (see [`flowmcp_spec::catalog::content_hash`]).
//!
//! `index` writes `registry.json` from the directory: `_lists/*.mjs` (shared lists),
//! `providers/<ns>/*.mjs` (schemas), `agents/<name>/agent.mjs` (agents) and
//! `selections/<name>/*.mjs` (selections: chapter 15's example and hash algorithm have them, its
//! field table does not). Each file is loaded in the sandbox (profile `compat`) to read what the
//! entry derives from it: a list's `meta.name`; a schema's `main.namespace`, `main.name`,
//! `main.requiredServerParams`, whether it exports `handlers`, and the `ref`s of
//! `main.sharedLists`; an agent's or selection's `description` (only when the entry has none yet).
//! Existing entries whose files still exist outside this layout stay listed. Hand-written members
//! (the top-level `name`, `version`, `description`, `schemaSpec`, entry descriptions, unknown
//! members) are kept; entries are sorted by path; `contentHash` is recomputed. The file is replaced
//! atomically (a temporary file in the same directory, flushed, then renamed over it) and only when
//! its content changes.
//!
//! `index --check` writes nothing: it prints what `index` would change and exits 1 when anything
//! would, 0 when `registry.json` is up to date (for CI). Errors (an unreadable directory, a
//! `registry.json` that is not a JSON object) exit 2.
//!
//! The manifest's `name` must be the directory's name (CAT002), and a copied catalog
//! (`cp -r catalog mycat`) keeps the old one: `index` keeps a hand-written name, so it says so
//! whenever they differ (also when the manifest is otherwise up to date), and `index --rename`
//! sets `name` to the directory's name (with `--check`, a rename counts as a change).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use flowmcp_catalog::manifest::{
    build_index, build_list_registry, catalog_hash, write_index, write_list_registry,
};
use flowmcp_spec::catalog::REGISTRY_FILE;

use crate::advice::catalog_error;
use crate::context::{ResultCacheArg, SourceArgs, open_to_read};
use crate::output::write_stdout;

#[derive(Args, Debug)]
pub(crate) struct CatalogArgs {
    #[command(subcommand)]
    pub command: CatalogCommand,
}

#[derive(Subcommand, Debug)]
pub(crate) enum CatalogCommand {
    /// Print the catalog's `contentHash` (SHA-256 over the files `registry.json` references).
    Hash {
        /// The catalog directory.
        dir: PathBuf,
    },
    /// Write or update `registry.json` from the catalog directory.
    #[command(
        long_about = "Write or update registry.json from the catalog directory: _lists/*.mjs, \
                      providers/<ns>/*.mjs, agents/<name>/agent.mjs and selections/<name>/*.mjs. \
                      Hand-written fields (name, version, description, schemaSpec, entry descriptions, \
                      unknown fields) are kept, entries are sorted by path and contentHash is \
                      recomputed. The file is replaced atomically.\n\n\
                      With --check nothing is written: the changes are printed and the exit status is \
                      1 when registry.json is out of date, 0 when it is up to date.\n\n\
                      The name must be the directory's name (CAT002); a copied catalog keeps its old \
                      one, which is kept and named in the output. --rename sets it to the \
                      directory's name."
    )]
    Index {
        /// The catalog directory.
        dir: PathBuf,
        /// Print what would change and exit 1 if anything would, without writing.
        #[arg(long)]
        check: bool,
        /// Set the manifest's `name` to the directory's name (CAT002), e.g. after copying a
        /// catalog to a directory of another name.
        #[arg(long)]
        rename: bool,
    },
    /// Write or check `_lists/_registry.json`, the registry of the shared lists.
    #[command(
        long_about = "Write or update _lists/_registry.json from the catalog's _lists/*.mjs: one \
                      entry per list file with its meta.name, meta.version, file, entryCount and \
                      hash (sha256 over the file's bytes), and the specVersion. The file is \
                      generated, not edited by hand; it is replaced atomically.\n\n\
                      With --check nothing is written: every broken invariant is printed (a list \
                      file without an entry, an entry without its file, a hash, name, version or \
                      entry count that is not the file's) and the exit status is 1, or 0 when the \
                      registry is current. `flowmcp validate-lists [dir]` is the same check."
    )]
    Lists {
        /// The catalog directory.
        dir: PathBuf,
        /// Print what is out of date and exit 1 if anything is, without writing.
        #[arg(long)]
        check: bool,
    },
    /// Write a static HTML site of the catalog: an index, a page per schema file, tool and
    /// prompt or skill, and client-side search.
    #[command(
        long_about = "Write a static HTML site of the catalog into --out: index.html (namespaces \
                      with their counts and tags, schema files, tools, prompts and skills, shared \
                      lists and the tools that use them), a page per schema file (its findings), \
                      per tool entry (parameters, ID and MCP name, a ready `flowmcp call` command \
                      and the MCP tools/call request, output schema, example test) and per prompt \
                      or skill, and search that ranks as `flowmcp search` does and forgives a typo.\n\n\
                      The pages need no server and no network: they open from file:// under a strict \
                      Content-Security-Policy, with one stylesheet and one script of our own. Catalog \
                      text is escaped everywhere. Files are written atomically and only when their \
                      bytes change; nothing in --out is deleted (pages of tools that are gone stay)."
    )]
    Site(SiteArgs),
}

/// `catalog site`'s arguments.
#[derive(Args, Debug)]
pub(crate) struct SiteArgs {
    /// The catalog directory.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The directory to write the site into (created when missing).
    #[arg(long, value_name = "SITE")]
    out: PathBuf,
    /// A report of `flowmcp test --format json`: each entry's results on its page.
    #[arg(long, value_name = "FILE")]
    tests: Option<PathBuf>,
    /// A grade report of `flowmcp grade` (a JSON object, or an array of them): each shown on the
    /// page of the schema file it graded. Repeatable.
    #[arg(long = "grades", value_name = "FILE")]
    grades: Vec<PathBuf>,
    /// The rule pages to render into the site (`docs/rules` of flowmcp-rs, made by `cargo xtask
    /// docs`); without it, a rule that a finding names gets a page from the registry.
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
    #[command(flatten)]
    results: ResultCacheArg,
    #[command(flatten)]
    source: SourceArgs,
}

pub(crate) fn run(a: CatalogArgs) -> Result<ExitCode, String> {
    match a.command {
        CatalogCommand::Hash { dir } => hash(&dir),
        CatalogCommand::Index { dir, check, rename } => index(&dir, check, rename),
        CatalogCommand::Lists { dir, check } => lists(&dir, check),
        CatalogCommand::Site(a) => site(&a),
    }
}

/// `catalog site`: the catalog opened as `list` opens it, its site written.
fn site(a: &SiteArgs) -> Result<ExitCode, String> {
    let catalog = open_to_read(&a.source, std::slice::from_ref(&a.dir), a.results.runner())?;
    crate::output::print_problems(&catalog);
    let tests = match &a.tests {
        Some(path) => {
            let text = flowmcp_files::named::read_capped_text(path, 256 << 20)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let report: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not a test report (JSON): {e}", path.display()))?;
            Some(report)
        }
        None => None,
    };
    let mut grades = Vec::new();
    for path in &a.grades {
        let text = flowmcp_files::named::read_capped_text(path, 64 << 20)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        match serde_json::from_str(&text) {
            Ok(serde_json::Value::Array(reports)) => grades.extend(reports),
            Ok(report @ serde_json::Value::Object(_)) => grades.push(report),
            _ => return Err(format!("{}: not a grade report (JSON)", path.display())),
        }
    }
    let shown_dir = a.dir.display().to_string();
    let written = crate::site::build(
        &catalog,
        &shown_dir,
        tests.as_ref(),
        &grades,
        a.rules.as_deref(),
        &a.out,
    )?;
    write_stdout(&format!(
        "wrote {} {} to {} ({} unchanged)\n",
        written.changed,
        if written.changed == 1 {
            "file"
        } else {
            "files"
        },
        crate::output::shown(&a.out.display().to_string()),
        written.unchanged
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `catalog lists` / `validate-lists`: the shared-list registry, written or checked.
pub(crate) fn lists(dir: &Path, check: bool) -> Result<ExitCode, String> {
    let registry = build_list_registry(dir).map_err(|e| catalog_error(&e))?;
    for n in &registry.notes {
        eprintln!("flowmcp: {}", crate::output::shown(n));
    }
    let shown = registry.path.display().to_string();
    if registry.is_current() {
        write_stdout(&format!("{shown} is up to date\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    if check {
        let mut out = format!("{shown} is out of date:\n");
        for p in &registry.problems {
            out.push_str(&format!("  {}\n", crate::output::shown(p)));
        }
        if registry.problems.is_empty() {
            // Only its layout differs (order, formatting of a hand edit).
            out.push_str("  it is not as generated (run without --check to write it)\n");
        }
        write_stdout(&out)?;
        return Ok(ExitCode::from(1));
    }
    write_list_registry(&registry).map_err(|e| e.to_string())?;
    let count = registry.computed["lists"].as_array().map_or(0, Vec::len);
    write_stdout(&format!("wrote {shown} ({count} lists)\n"))?;
    Ok(ExitCode::SUCCESS)
}

fn hash(dir: &Path) -> Result<ExitCode, String> {
    let h = catalog_hash(dir).map_err(|e| catalog_error(&e))?;
    write_stdout(&format!("{h}\n"))?;
    Ok(ExitCode::SUCCESS)
}

fn index(dir: &Path, check: bool, rename: bool) -> Result<ExitCode, String> {
    let mut index = build_index(dir).map_err(|e| e.to_string())?;
    if rename {
        index.rename();
    }
    for n in &index.notes {
        eprintln!("flowmcp: {}", crate::output::shown(n));
    }
    // Issue #28, item 5: a name that is not the directory's (CAT002) is never passed over.
    let misnamed = index.misnamed().map(|name| {
        format!(
            "its \"name\" is {}, not the directory's name \"{}\" (CAT002): `flowmcp catalog \
             index {} --rename` sets it, or name the directory {}\n",
            crate::output::shown(&name),
            crate::output::shown(&index.dir_name),
            dir.display(),
            crate::output::shown(&name)
        )
    });
    let shown = index.path.display().to_string();
    if index.is_current() {
        let mut out = format!("{shown} is up to date");
        match &misnamed {
            Some(m) => out.push_str(&format!(", but {m}")),
            None => out.push('\n'),
        }
        write_stdout(&out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    if check {
        out.push_str(&format!(
            "{shown} is out of date; `flowmcp catalog index {}{}` would change:\n",
            dir.display(),
            if rename { " --rename" } else { "" }
        ));
    } else {
        write_index(&index).map_err(|e| format!("cannot write {REGISTRY_FILE}: {e}"))?;
        let [shared, schemas, agents, selections] = index.counts;
        out.push_str(&format!(
            "Wrote {shown}: {shared} shared lists, {schemas} schemas, {agents} agents, {selections} selections\n"
        ));
    }
    for c in &index.changes {
        out.push_str(&format!("  {}\n", crate::output::shown(c)));
    }
    if let Some(m) = &misnamed {
        out.push_str(&format!("note: {m}"));
    }
    write_stdout(&out)?;
    Ok(if check {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
