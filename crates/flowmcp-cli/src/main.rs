//! `flowmcp`: validate FlowMCP schemas, list the rules, call tools.
//!
//! Exit codes: 0 = no errors, 1 = at least one error-level diagnostic, 2 = usage or I/O failure.
//!
//! The crate's rooms: `main.rs` parses the arguments and dispatches; `commands/<name>.rs` holds
//! one command each (its arguments, its work, its output), and no command file imports another;
//! `site` renders a catalog as static HTML pages; `context` is the one place where flags, configuration files and the environment become
//! library options (validation options, catalog options, call settings, caches, the opened
//! catalog); `output`, `advice`, `listing` and `walk` are what several commands share.
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

mod advice;
mod commands;
mod context;
mod listing;
mod output;
mod site;
mod walk;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use commands::{
    agent, cache, call, catalog, grade, hash, ids, import, libs, list, lists, lsp, migrate, prompt,
    resource, rules, search, serve, test, validate,
};
use output::{say, shown};

#[derive(Parser, Debug)]
#[command(
    name = "flowmcp",
    version,
    about = "Validate and run FlowMCP v4.2.0 schemas",
    long_about = "flowmcp checks FlowMCP schema files (.mjs modules exporting `main`) against the \
                  FlowMCP specification v4.2.0 and runs their tools. Every finding carries a rule code \
                  (see `flowmcp rules`), a severity and a location; every failed call a runtime code \
                  (E001–E009).\n\nExit codes: 0 success (no errors, or `status: true`), 1 errors found \
                  (or `status: false`), 2 usage or I/O failure."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate schema files or directories of them.
    #[command(
        long_about = "Validate schema files. Directories are walked recursively for .mjs files \
                      (node_modules and hidden directories are skipped). Files are checked in parallel.\n\n\
                      Each diagnostic is printed as `CODE severity file[:line:col] [json.path]: message`, \
                      followed by the counts and a verdict.\n\n\
                      Settings are read from .flowmcp/config.json in the current directory or the nearest \
                      parent that has one: {\"profile\": \"compat\", \"rules\": {\"VAL036\": \"off\"}, \
                      \"security\": {\"allowedLibraries\": [\"my-lib\"]}}. Command-line options win.\n\n\
                      A file whose name starts with `-` can be given after `--`: `flowmcp validate -- --odd.mjs`.\n\n\
                      The specification's spellings `flowmcp validate-agent <agent dir>` and \
                      `flowmcp validate-catalog <catalog dir>` are this command under other names: \
                      a directory is checked as what it is.",
        visible_aliases = ["validate-agent", "validate-catalog"]
    )]
    Validate(validate::ValidateArgs),
    /// List the rule registry, or explain one rule.
    Rules(rules::RulesArgs),
    /// Print which tools use a shared list (the reverse index of `{{list:field}}` references).
    ListRefs(lists::ListRefsArgs),
    /// Catalog maintenance: content hash, registry.json index, the shared-list registry, a static site.
    Catalog(catalog::CatalogArgs),
    /// Check `_lists/_registry.json` against the shared lists (`flowmcp catalog lists --check`).
    ValidateLists {
        /// The catalog directory (default: the current directory).
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    // The help text is on the arguments struct (its `about` and `long_about`).
    Call(call::CallArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    List(list::ListArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Search(search::SearchArgs),
    /// Show or clear the preload cache.
    Cache(cache::CacheArgs),
    /// Resources: create the database of a file-based SQLite resource (`resource init`).
    Resource(resource::ResourceArgs),
    /// Prompts and skills: list them (`prompt list`), render one with arguments (`prompt get`).
    Prompt(prompt::PromptArgs),
    /// Run the tests of tools and resource queries: PASS or FAIL per primitive, captures.
    Test(Box<test::TestArgs>),
    /// Grading (scoring protocol v1): emit prompts.json, grade from a grader's scores.json.
    Grade(grade::GradeArgs),
    /// The specification's `flowmcp dev …` spellings: `dev test`, `dev grade` and `dev validate`
    /// are `test`, `grade` and `validate`.
    Dev(DevArgs),
    /// The npm libraries of `requiredLibraries`: their state (`libs status`), installing them
    /// (`libs install`).
    Libs(libs::LibsArgs),
    /// Agents: integrity hashes (`agent verify`, `agent rehash`), a run (`agent run`), tests
    /// (`agent test`).
    Agent(agent::AgentArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Serve(Box<serve::ServeArgs>),
    /// Print the `schemaHash` of schema files (first 8 hex digits of SHA-256 over the canonical JSON of
    /// `main` without its `schemaHash`), for pasting into `main.schemaHash`.
    Hash(hash::HashArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Migrate(migrate::MigrateArgs),
    /// Draft schema files from an API description (`import openapi`).
    Import(import::ImportArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Lsp(lsp::LspArgs),
}

#[derive(Args, Debug)]
struct DevArgs {
    #[command(subcommand)]
    command: DevCommand,
}

/// The commands `flowmcp dev` takes: the same as without it.
#[derive(Subcommand, Debug)]
enum DevCommand {
    /// Run the tests of tools, resource queries and selections (as `flowmcp test`).
    Test(Box<test::TestArgs>),
    /// Grading: emit prompts.json, grade from scores.json (as `flowmcp grade`).
    Grade(grade::GradeArgs),
    /// Validate schema files or directories of them (as `flowmcp validate`).
    Validate(validate::ValidateArgs),
}

/// jemalloc instead of the system allocator: loading and validating a catalog allocates a great
/// deal from several threads, where glibc's allocator spent about a third of the time.
///
/// It keeps its default options: asking the kernel for transparent huge pages on its heap saved
/// page faults but, where the kernel compacts memory to grant them, cost more CPU than it saved
/// (docs/decisions.md, D196). Where the system gives huge pages to every process, `serve` and
/// `lsp` turn them off for themselves first ([`small_pages_only`]): a long-lived process would
/// keep more memory resident with them.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let args = walk::reorder_dash_paths(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if matches!(cli.command, Command::Serve(_) | Command::Lsp(_)) {
        small_pages_only();
    }
    // The shared worker threads load modules: with the stack the loader asks for, reading a
    // module's `handlers` factory never maps a stack of its own (D197). Address space only.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(flowmcp_loader::THREAD_STACK_BYTES)
        .build_global();
    let result = match cli.command {
        Command::Validate(a)
        | Command::Dev(DevArgs {
            command: DevCommand::Validate(a),
        }) => validate_or_id(a),
        Command::Rules(a) => rules::run(a),
        Command::Hash(a) => hash::run(a),
        Command::ListRefs(a) => lists::run(a),
        Command::Catalog(a) => catalog::run(a),
        Command::ValidateLists { dir } => catalog::lists(&dir, true),
        Command::Call(a) => call::run(a),
        Command::List(a) => list::run(a),
        Command::Serve(a) => serve::serve(*a),
        Command::Search(a) => search::run(a),
        Command::Cache(a) => cache::run(a),
        Command::Resource(a) => resource::run(a),
        Command::Prompt(a) => prompt::run(a),
        Command::Test(a)
        | Command::Dev(DevArgs {
            command: DevCommand::Test(a),
        }) => test::run(*a),
        Command::Grade(a)
        | Command::Dev(DevArgs {
            command: DevCommand::Grade(a),
        }) => grade::run(a),
        Command::Libs(a) => libs::run(a),
        Command::Agent(a) => agent::run(a),
        Command::Migrate(a) => migrate::run(a),
        Command::Import(a) => import::run(a),
        Command::Lsp(a) => lsp::run(a),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            say(tracing::Level::ERROR, &format!("flowmcp: {}", shown(&msg)));
            ExitCode::from(2)
        }
    }
}

/// Turns transparent huge pages off for this process (`prctl(PR_SET_THP_DISABLE)`, Linux): a
/// server holding a large catalog then grows in 4 KiB pages, not in 2 MiB ones. Memory touched
/// before this call (about 4 MiB, while the program starts) keeps the pages it got. Elsewhere, or
/// if the call fails, nothing changes but the memory the process keeps.
fn small_pages_only() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
        tracing::debug!("transparent huge pages stay on: {e}");
    }
}

/// `validate`, or with `--id` the check of one ID under the same flags.
fn validate_or_id(a: validate::ValidateArgs) -> Result<ExitCode, String> {
    match &a.id {
        Some(id) => ids::run(id, a.format != validate::ValidateFormat::Human, &a.flags()),
        None => validate::run(a),
    }
}
