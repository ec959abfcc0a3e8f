//! `flowmcp resource init`: creates the database of a `file-based` SQLite resource from its
//! schema SQL, after asking.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use flowmcp_catalog::{runtime::RunnerOptions, runtime::TransportConfig};

use crate::context::{ResourcePlaces, SourceArgs, config, open, profile_of};

/// The largest schema SQL file read, in bytes.
const MAX_SQL_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Args, Debug)]
pub(crate) struct ResourceArgs {
    #[command(subcommand)]
    command: ResourceCommand,
}

#[derive(Subcommand, Debug)]
enum ResourceCommand {
    // The help text is on the arguments struct (its `about` and `long_about`).
    Init(InitArgs),
}

#[derive(Args, Debug)]
#[command(
    about = "Create the database of a file-based SQLite resource from its schema SQL",
    long_about = "Create the database of a `file-based` SQLite resource (origin `project`: \
    `.flowmcp/resources/<name>`) from its schema SQL: the CREATE statements in --sql FILE, or in \
    `resources/<name>.sql` beside the schema (`tokens.sql` for `tokens.db`). The statements run in \
    one transaction under the resource's safety rules (no ATTACH, no extensions); the file appears \
    only when they all succeed, and an existing database is never replaced.\n\n\
    You are asked before anything is created; --yes answers for you (needed when standard input \
    is not a terminal).\n\n\
    Read-only (`in-memory`) resources with origin `inline` need no command: when their file is \
    missing and `resources/<name>.sql` is beside the schema, the first call builds it.\n\n\
    Exit codes: 0 created (or already there), 1 declined, 2 error."
)]
struct InitArgs {
    /// The resource: `namespace/resource/name` (see `flowmcp list`).
    #[arg(value_name = "ID")]
    id: String,
    /// The schema SQL (CREATE TABLE … statements). Default: `resources/<name>.sql` beside the
    /// schema file.
    #[arg(long, value_name = "FILE")]
    sql: Option<PathBuf>,
    /// Create without asking.
    #[arg(long, short = 'y')]
    yes: bool,
    #[command(flatten)]
    places: ResourcePlaces,
    #[command(flatten)]
    source: SourceArgs,
}

pub(crate) fn run(a: ResourceArgs) -> Result<ExitCode, String> {
    match a.command {
        ResourceCommand::Init(a) => init(a),
    }
}

fn init(a: InitArgs) -> Result<ExitCode, String> {
    let cfg = config(a.source.anchor(&[]))?;
    let resources = a.places.options(&cfg)?;
    let mut runner = RunnerOptions::default();
    runner.resources = resources.clone();
    let profile = profile_of(a.source.profile, &cfg);
    let catalog = open(
        &a.source,
        &[],
        false,
        &cfg,
        profile,
        TransportConfig::default(),
        runner,
    )?;
    let file = catalog.toolset().database_file(&a.id, &resources)?;
    if !file.writable {
        return Err(format!(
            "{} is read-only (`in-memory`): only `file-based` resources are created here; its database belongs at {}",
            file.id,
            file.path.display()
        ));
    }
    if flowmcp_files::named::symlink_metadata(&file.path).is_ok() {
        println!(
            "{} already exists; nothing to do",
            flowmcp_spec::diagnostic::display_path(&file.path)
        );
        return Ok(ExitCode::SUCCESS);
    }
    let sql_file = a.sql.clone().or(file.schema_sql.clone()).ok_or_else(|| {
        format!(
            "no schema SQL for {}: give --sql FILE, or put the CREATE statements in resources/<name>.sql beside the schema",
            file.id
        )
    })?;
    let sql = flowmcp_files::named::read_capped_text(&sql_file, MAX_SQL_BYTES)
        .map_err(|e| format!("{}: {e}", sql_file.display()))?;
    if !a.yes
        && !confirm(&format!(
            "Create the database of {} at {} from {}?",
            file.id,
            file.path.display(),
            sql_file.display()
        ))?
    {
        eprintln!("nothing was created");
        return Ok(ExitCode::from(1));
    }
    let tables = file
        .create(&sql)
        .map_err(|e| format!("{} ({})", e.message(), e.code().as_str()))?;
    println!(
        "created {} ({tables} table{})",
        flowmcp_spec::diagnostic::display_path(&file.path),
        if tables == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

/// Asks `question` on standard error and reads y/yes from standard input; refuses to guess when
/// standard input is not a terminal.
fn confirm(question: &str) -> Result<bool, String> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(format!(
            "{question} Standard input is not a terminal: pass --yes to create it"
        ));
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "{question} [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    stdin
        .lock()
        .read_line(&mut answer)
        .map_err(|e| format!("reading the answer: {e}"))?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}
