//! `flowmcp list`: the tools, resource entries and prompts of a catalog.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use flowmcp_catalog::runtime::Kind;
use serde::Serialize;
use serde_json::Value;

use crate::context::{ResultCacheArg, SourceArgs, open_to_read};
use crate::listing::kind_name;
use crate::output::{print_problems, shown, stream_stdout, write_stdout};

#[derive(Args, Debug)]
#[command(
    about = "List the tools of a catalog with IDs, wire names and exposure",
    long_about = "List the tools of a catalog: ID, wire name, and whether the tool is exposed. \
    A tool is hidden when a server parameter it needs has no value; the missing variables are shown. \
    Load problems (files that cannot be loaded) are printed to stderr."
)]
pub(crate) struct ListArgs {
    /// The catalog directory, or one or more schema files (overrides --catalog).
    #[arg(value_name = "DIR|FILE")]
    paths: Vec<PathBuf>,
    /// Print JSON (one object with `tools` and `problems`).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    results: ResultCacheArg,
    #[command(flatten)]
    source: SourceArgs,
}

pub(crate) fn run(a: ListArgs) -> Result<ExitCode, String> {
    let catalog = open_to_read(&a.source, &a.paths, a.results.runner())?;
    print_problems(&catalog);
    let set = catalog.toolset();
    if a.json {
        let listing = JsonListing {
            tools: set
                .tools()
                .iter()
                .map(|t| {
                    let d = &t.descriptor;
                    JsonTool {
                        id: d.id.to_string(),
                        name: d.lookup_key(),
                        kind: kind_name(&d.kind),
                        wire_name: &d.wire_name,
                        exposed: d.is_exposed(),
                        missing_server_params: &d.missing_server_params,
                        description: &d.description,
                        file: &set.schema_of(t).display,
                        warnings: &d.warnings,
                    }
                })
                .collect(),
            prompts: catalog
                .prompts()
                .iter()
                .map(crate::listing::prompt_json)
                .collect(),
            problems: set
                .problems()
                .iter()
                .map(|p| JsonProblem {
                    file: &p.file,
                    message: &p.message,
                })
                .collect(),
        };
        // Streamed: the public collection's listing is megabytes.
        stream_stdout(&mut |w| {
            serde_json::to_writer_pretty(&mut *w, &listing)?;
            w.write_all(b"\n")
        })?;
        drop(listing);
        finish(catalog);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    let width = set
        .tools()
        .iter()
        .map(|t| t.descriptor.lookup_key().len())
        .max()
        .unwrap_or(0);
    let wire_width = set
        .tools()
        .iter()
        .map(|t| t.descriptor.wire_name.len())
        .max()
        .unwrap_or(0);
    for t in set.tools() {
        let d = &t.descriptor;
        let state = if d.is_exposed() {
            "exposed".to_string()
        } else {
            let names: Vec<String> = d
                .missing_server_params
                .iter()
                .map(|n| {
                    if flowmcp_spec::catalog::is_reserved_name(n) {
                        format!("{} (reserved for flowmcp itself)", shown(n))
                    } else {
                        shown(n).into_owned()
                    }
                })
                .collect();
            format!("hidden (missing {})", names.join(", "))
        };
        out.push_str(&format!(
            "{:<width$}  {:<wire_width$}  {state}\n",
            shown(&d.lookup_key()),
            shown(&d.wire_name)
        ));
    }
    let (exposed, hidden, _) = set.exposure();
    let resource_entries = set
        .tools()
        .iter()
        .filter(|t| t.descriptor.kind != Kind::Tool)
        .count();
    let what = if resource_entries == 0 {
        format!("{} tools", set.tools().len())
    } else {
        format!(
            "{} tools and {resource_entries} resource entries",
            set.tools().len() - resource_entries
        )
    };
    out.push_str(&format!(
        "{what} in {} schemas: {exposed} exposed, {hidden} hidden{}\n",
        set.schemas().len(),
        if set.problems().is_empty() {
            String::new()
        } else {
            format!(", {} load problems", set.problems().len())
        }
    ));
    let prompts = catalog.prompts();
    if !prompts.is_empty() {
        out.push('\n');
        out.push_str(&crate::listing::listing(&catalog, &prompts));
    }
    write_stdout(&out)?;
    finish(catalog);
    Ok(ExitCode::SUCCESS)
}

/// Ends the use of `catalog` without freeing it: the process exits right after, and taking a
/// whole catalog apart piece by piece was a tenth of a warm `list` of the public collection
/// (D148). The catalog holds nothing that must be flushed or closed.
fn finish(catalog: flowmcp_catalog::Catalog) {
    std::mem::forget(catalog);
}

/// `list --json`: the tools, then the prompts, then the load problems.
#[derive(Serialize)]
struct JsonListing<'a> {
    tools: Vec<JsonTool<'a>>,
    prompts: Vec<Value>,
    problems: Vec<JsonProblem<'a>>,
}

/// One tool or resource entry of `list --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonTool<'a> {
    id: String,
    name: String,
    kind: &'a str,
    wire_name: &'a str,
    exposed: bool,
    missing_server_params: &'a [String],
    description: &'a str,
    file: &'a str,
    warnings: &'a [String],
}

/// A file that could not be loaded, in `list --json`.
#[derive(Serialize)]
struct JsonProblem<'a> {
    file: &'a str,
    message: &'a str,
}
