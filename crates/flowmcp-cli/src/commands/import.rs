//! `flowmcp import openapi`: schema files drafted from an OpenAPI or Swagger document (the work
//! is `flowmcp_openapi`; this module writes the files without overwriting any, prints the review
//! report and picks the exit code).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use flowmcp_files::Root;
use flowmcp_openapi::{DraftFile, Import, Options};
use serde_json::{Value, json};

use crate::output::{say, shown, write_stdout};

#[derive(Args, Debug)]
pub(crate) struct ImportArgs {
    #[command(subcommand)]
    command: ImportCommand,
}

#[derive(Subcommand, Debug)]
enum ImportCommand {
    // The help text is on the arguments struct (its `about` and `long_about`).
    Openapi(OpenapiArgs),
}

/// How the report is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// A summary per file on standard error.
    Human,
    /// One JSON object on standard output.
    Json,
}

#[derive(Args, Debug)]
#[command(
    about = "Draft schema files from an OpenAPI 3.0/3.1 or Swagger 2.0 document (JSON or YAML)",
    long_about = "Draft FlowMCP v4.2.0 schema files from a local OpenAPI 3.0 or 3.1 document or a \
                  Swagger 2.0 document, JSON or YAML: one tool per operation (GET, POST, PUT and \
                  DELETE; other methods are listed as dropped), named from its operationId or its \
                  method and path, with path, query and body parameters, z checks from the JSON \
                  Schemas, the output schema of the first JSON 2xx response, meta drafted from the \
                  method and three tests from the document's examples, defaults and enum values. \
                  Security schemes become requiredServerParams used as {{SERVER_PARAM:…}} where the \
                  scheme sends them. Files hold at most 8 tools, grouped by tag, then by path; they \
                  share the namespace (--namespace, else made from the API's host); an enum that \
                  several parameters share becomes a shared list in <DIR>/_lists/.\n\n\
                  Whatever the format cannot say exactly is a `// REVIEW:` line beside it (see \
                  docs/import-review.md); review every one before the files join a catalog, then \
                  run `flowmcp validate --profile spec <DIR>`.\n\n\
                  $ref is followed within the document and to files in its own folder; nothing is \
                  fetched, and a reference out of the folder is refused and named. An operation \
                  that cannot become a tool is reported with its JSON pointer and the others are \
                  imported: dropped when the format cannot express it (PATCH, a required body \
                  that is not an object), failed when the document is wrong there.\n\n\
                  Existing files are never overwritten: such a file fails, named, and the others \
                  are written (each atomically). --dry-run prints the files and writes nothing.\n\n\
                  Exit codes: 0 every file written and no operation failed (dropped ones are \
                  reported), 1 the document or an operation failed or a file was not written, 2 \
                  usage or I/O failure."
)]
pub(crate) struct OpenapiArgs {
    /// The OpenAPI or Swagger document (.json, .yaml or .yml).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The folder the schema files are written to (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The namespace of the files (lower-case letters, digits and hyphens, starting with a
    /// letter); default: made from the API's host, else its title.
    #[arg(long, value_name = "NS")]
    namespace: Option<String>,
    /// Import only the operations with this tag (repeatable; compared without case).
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Print the files to standard output; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// `human`: a summary per file on standard error; `json`: one JSON object on standard
    /// output.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
}

pub(crate) fn run(a: ImportArgs) -> Result<ExitCode, String> {
    match a.command {
        ImportCommand::Openapi(a) => openapi(a),
    }
}

/// What happened to one file.
enum Outcome {
    Written,
    Printed,
    Failed(String),
}

fn openapi(a: OpenapiArgs) -> Result<ExitCode, String> {
    let mut options = Options::new().with_tags(a.tags.clone());
    if let Some(ns) = &a.namespace {
        options = options.with_namespace(ns.clone());
    }
    let import = match flowmcp_openapi::import_file(&a.file, &options) {
        Ok(i) => i,
        Err(e) => {
            if a.format == ReportFormat::Json {
                let v = json!({ "document": a.file.display().to_string(), "error": e.to_string() });
                write_stdout(&format!("{}\n", pretty(&v)))?;
            } else {
                say(
                    tracing::Level::ERROR,
                    &format!("error: {}", shown(&e.to_string())),
                );
            }
            return Ok(ExitCode::from(1));
        }
    };
    let mut outcomes = Vec::new();
    if a.dry_run {
        let mut out = String::new();
        for f in import.files() {
            if a.format == ReportFormat::Human {
                out.push_str(&format!(
                    "// ---- {}\n{}\n",
                    a.out.join(f.name()).display(),
                    f.text()
                ));
            }
            outcomes.push(Outcome::Printed);
        }
        write_stdout(&out)?;
    } else if !import.files().is_empty() {
        flowmcp_files::named::create_dir_all(&a.out)
            .map_err(|e| format!("{}: {e}", a.out.display()))?;
        let root = Root::new(&a.out);
        for f in import.files() {
            outcomes.push(match write_new(&root, f) {
                Ok(()) => Outcome::Written,
                Err(e) => Outcome::Failed(e),
            });
        }
    }
    let failed =
        !import.failed().is_empty() || outcomes.iter().any(|o| matches!(o, Outcome::Failed(_)));
    match a.format {
        ReportFormat::Json => write_stdout(&format!(
            "{}\n",
            pretty(&report_json(&import, &outcomes, &a))
        ))?,
        ReportFormat::Human => report_human(&import, &outcomes, &a.out),
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes a new file atomically (a temporary file renamed into place); an existing one is left
/// as it is and named.
fn write_new(root: &Root, f: &DraftFile) -> Result<(), String> {
    let rel = Path::new(f.name());
    let shown_path = root.dir().join(rel).display().to_string();
    if root.kind(rel).map_err(|e| e.to_string())?.is_some() {
        return Err(format!("{shown_path} exists; it is not overwritten"));
    }
    let mut staged = root.stage(rel).map_err(|e| e.to_string())?;
    staged
        .file()
        .and_then(|file| std::io::Write::write_all(file, f.text().as_bytes()))
        .map_err(|e| format!("{shown_path}: {e}"))?;
    staged
        .commit(&|_| false)
        .map_err(|e| format!("{shown_path}: {e}"))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// The REVIEW lines of a file counted by kind.
fn counts(f: &DraftFile) -> BTreeMap<&'static str, usize> {
    let mut by_kind = BTreeMap::new();
    for r in f.reviews() {
        *by_kind.entry(r.kind.as_str()).or_insert(0) += 1;
    }
    by_kind
}

fn report_human(import: &Import, outcomes: &[Outcome], out: &Path) {
    for (f, outcome) in import.files().iter().zip(outcomes) {
        let path = out.join(f.name()).display().to_string();
        let reviews: Vec<String> = counts(f).iter().map(|(k, n)| format!("{n} {k}")).collect();
        let reviews = if reviews.is_empty() {
            "none".to_string()
        } else {
            reviews.join(", ")
        };
        let what = match outcome {
            Outcome::Written => "written",
            Outcome::Printed => "not written (--dry-run)",
            Outcome::Failed(_) => "FAILED",
        };
        let line = if f.tools().is_empty() {
            format!("{}: {what}; a shared list", shown(&path))
        } else {
            format!(
                "{}: {what}; {} tool(s): {}; REVIEW: {reviews}",
                shown(&path),
                f.tools().len(),
                f.tools().join(", ")
            )
        };
        say(tracing::Level::INFO, &line);
        if let Outcome::Failed(e) = outcome {
            say(tracing::Level::ERROR, &format!("  error: {}", shown(e)));
        }
    }
    for d in import.dropped() {
        say(
            tracing::Level::INFO,
            &format!(
                "{}#{}: dropped: {}",
                shown(import.document()),
                shown(&d.pointer),
                shown(&d.reason)
            ),
        );
    }
    for e in import.failed() {
        say(tracing::Level::ERROR, &format!("error: {}", shown(e)));
    }
    let tools: usize = import.files().iter().map(|f| f.tools().len()).sum();
    let reviews: usize = import.files().iter().map(|f| f.reviews().len()).sum();
    say(
        tracing::Level::INFO,
        &format!(
            "{}: namespace {}; {} file(s), {tools} tool(s), {reviews} REVIEW line(s), {} operation(s) dropped, {} failed",
            shown(import.document()),
            shown(import.namespace()),
            import.files().len(),
            import.dropped().len(),
            import.failed().len()
        ),
    );
}

fn report_json(import: &Import, outcomes: &[Outcome], a: &OpenapiArgs) -> Value {
    let files: Vec<Value> = import
        .files()
        .iter()
        .zip(outcomes)
        .map(|(f, outcome)| {
            let reviews: Vec<Value> = f
                .reviews()
                .iter()
                .map(|r| json!({ "kind": r.kind.as_str(), "tool": r.tool, "text": r.text }))
                .collect();
            let mut v = json!({
                "file": a.out.join(f.name()).display().to_string(),
                "written": matches!(outcome, Outcome::Written),
                "tools": f.tools(),
                "reviewCounts": counts(f),
                "reviews": reviews,
            });
            if let Outcome::Failed(e) = outcome {
                v["error"] = json!(e);
            }
            if a.dry_run {
                v["text"] = json!(f.text());
            }
            v
        })
        .collect();
    let dropped: Vec<Value> = import
        .dropped()
        .iter()
        .map(|d| json!({ "pointer": d.pointer, "reason": d.reason }))
        .collect();
    let tools: usize = import.files().iter().map(|f| f.tools().len()).sum();
    let reviews: usize = import.files().iter().map(|f| f.reviews().len()).sum();
    let summary = json!({
        "operations": tools + import.dropped().len() + import.failed().len(),
        "tools": tools,
        "dropped": import.dropped().len(),
        "failed": import.failed().len(),
        "files": import.files().len(),
        "reviews": reviews,
    });
    json!({
        "document": import.document(),
        "summary": summary,
        "namespace": import.namespace(),
        "dryRun": a.dry_run,
        "files": files,
        "dropped": dropped,
        "failed": import.failed(),
    })
}
