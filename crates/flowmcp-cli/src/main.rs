//! `flowmcp`: validate FlowMCP schemas, list the rules, call tools.
//!
//! Exit codes: 0 = no errors, 1 = at least one error-level diagnostic, 2 = usage or I/O failure.
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

mod advice;
mod agent_cmd;
mod catalog_cmd;
mod config;
mod grade_cmd;
mod ids_cmd;
mod libs_cmd;
mod lists_cmd;
mod migrate_cmd;
mod prompt_cmd;
mod prompt_list;
mod resource_cmd;
mod run_cmd;
mod serve_cmd;
mod test_cmd;
mod walk;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use flowmcp_spec::{
    Code, Level, Overrides, Profile, Report, RuleSettings, registry::RULES, registry::Status,
};
use flowmcp_validate::render::{self, HumanStyle};
use flowmcp_validate::{Limits, Options};
use rayon::prelude::*;

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
    Validate(ValidateArgs),
    /// List the rule registry, or explain one rule.
    Rules(RulesArgs),
    /// Print which tools use a shared list (the reverse index of `{{list:field}}` references).
    ListRefs(lists_cmd::ListRefsArgs),
    /// Catalog maintenance: content hash, registry.json index, the shared-list registry.
    Catalog(catalog_cmd::CatalogArgs),
    /// Check `_lists/_registry.json` against the shared lists (`flowmcp catalog lists --check`).
    ValidateLists {
        /// The catalog directory (default: the current directory).
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    // The help text is on the arguments struct (its `about` and `long_about`).
    Call(run_cmd::CallArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    List(run_cmd::ListArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Search(run_cmd::SearchArgs),
    /// Show or clear the preload cache.
    Cache(run_cmd::CacheArgs),
    /// Resources: create the database of a file-based SQLite resource (`resource init`).
    Resource(resource_cmd::ResourceArgs),
    /// Prompts and skills: list them (`prompt list`), render one with arguments (`prompt get`).
    Prompt(prompt_cmd::PromptArgs),
    /// Run the tests of tools and resource queries: PASS or FAIL per primitive, captures.
    Test(Box<test_cmd::TestArgs>),
    /// Grading (scoring protocol v1): emit prompts.json, grade from a grader's scores.json.
    Grade(grade_cmd::GradeArgs),
    /// The specification's `flowmcp dev …` spellings: `dev test`, `dev grade` and `dev validate`
    /// are `test`, `grade` and `validate`.
    Dev(DevArgs),
    /// The npm libraries of `requiredLibraries`: their state (`libs status`), installing them
    /// (`libs install`).
    Libs(libs_cmd::LibsArgs),
    /// Agents: integrity hashes (`agent verify`, `agent rehash`), a run (`agent run`), tests
    /// (`agent test`).
    Agent(agent_cmd::AgentArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Serve(Box<serve_cmd::ServeArgs>),
    /// Print the `schemaHash` of schema files (first 8 hex digits of SHA-256 over the canonical JSON of
    /// `main` without its `schemaHash`), for pasting into `main.schemaHash`.
    Hash(HashArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Migrate(migrate_cmd::MigrateArgs),
}

#[derive(Args, Debug)]
struct HashArgs {
    /// Schema files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One line per finding, then counts and a verdict.
    Human,
    /// The report as JSON (shape documented in flowmcp-spec's `diagnostic` module).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProfileArg {
    Spec,
    Compat,
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
    Test(Box<test_cmd::TestArgs>),
    /// Grading: emit prompts.json, grade from scores.json (as `flowmcp grade`).
    Grade(grade_cmd::GradeArgs),
    /// Validate schema files or directories of them (as `flowmcp validate`).
    Validate(ValidateArgs),
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// Files or directories to validate. A directory with a `registry.json` is validated as a catalog.
    #[arg(required_unless_present = "id", value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Validate an ID (`namespace/type/name` or `namespace/schema-name`) instead of files.
    #[arg(long, value_name = "ID", conflicts_with = "paths")]
    id: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Which reading of the specification to apply: `spec` (as written; where it contradicts
    /// itself, as `flowmcp rules CODE` explains) or `compat` (accepts what catalogs written for the
    /// JavaScript reference rely on). Default: spec, or the config.
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
    /// Override one rule's level, e.g. `--rule VAL036=off` (error, warning, info, off). Repeatable.
    #[arg(long = "rule", value_name = "CODE=LEVEL")]
    rules: Vec<String>,
    /// Print only errors and the summary.
    #[arg(long, short)]
    quiet: bool,
    /// Largest file to read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_file_bytes)]
    max_file_size: u64,
    /// Time limit for evaluating one file, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = Limits::default().eval_timeout.as_millis() as u64)]
    timeout_ms: u64,
    /// Memory limit for evaluating one file, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = (Limits::default().memory_bytes >> 20) as u64)]
    memory_mib: u64,
    /// Validate every file afresh: neither read nor write the result cache
    /// (`<cache dir>/.results/`, where a file whose bytes, shared lists, options and checked
    /// files are unchanged keeps its report; `flowmcp cache clear` empties it).
    #[arg(long)]
    no_cache: bool,
    /// Report only the security findings (the SEC codes: the static scan of the source and the
    /// checks of what evaluation exported) and whether each file could be loaded at all (LDR);
    /// every other rule is off, so the verdict is the security verdict.
    #[arg(long)]
    security: bool,
}

#[derive(Args, Debug)]
struct RulesArgs {
    /// A rule code to explain (e.g. VAL014). Without it, every rule is listed.
    code: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// jemalloc instead of the system allocator: loading and validating a catalog allocates a great
/// deal from several threads, where glibc's allocator spent about a third of the time.
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
    let result = match cli.command {
        Command::Validate(a) => validate(a),
        Command::Rules(a) => rules(a),
        Command::Hash(a) => hash(a),
        Command::ListRefs(a) => lists_cmd::run(a),
        Command::Catalog(a) => catalog_cmd::run(a),
        Command::ValidateLists { dir } => catalog_cmd::lists(&dir, true),
        Command::Call(a) => run_cmd::call(a),
        Command::List(a) => run_cmd::list(a),
        Command::Serve(a) => serve_cmd::serve(*a),
        Command::Search(a) => run_cmd::search(a),
        Command::Cache(a) => run_cmd::cache(a),
        Command::Resource(a) => resource_cmd::run(a),
        Command::Prompt(a) => prompt_cmd::run(a),
        Command::Test(a) => test_cmd::run(*a),
        Command::Grade(a)
        | Command::Dev(DevArgs {
            command: DevCommand::Grade(a),
        }) => grade_cmd::run(a),
        Command::Dev(DevArgs {
            command: DevCommand::Test(a),
        }) => test_cmd::run(*a),
        Command::Dev(DevArgs {
            command: DevCommand::Validate(a),
        }) => validate(a),
        Command::Libs(a) => libs_cmd::run(a),
        Command::Agent(a) => agent_cmd::run(a),
        Command::Migrate(a) => migrate_cmd::run(a),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            say(tracing::Level::ERROR, &format!("flowmcp: {}", shown(&msg)));
            ExitCode::from(2)
        }
    }
}

/// Splits `files` into those outside any catalog and the reports of those inside one: each
/// catalog a file lies in (the nearest directory above it with a `registry.json` that is not a
/// grading list) is validated as a whole, once, and each named file's report is taken from it,
/// under the name the user gave. A file the catalog does not validate (a `_shared/` helper, for
/// instance) stays with the files outside.
fn with_their_catalogs(
    files: Vec<walk::FileEntry>,
    opts: &Options,
    discovery: &flowmcp_catalog::ListDiscovery,
) -> Result<(Vec<walk::FileEntry>, Vec<flowmcp_spec::FileReport>), String> {
    let mut roots = flowmcp_catalog::manifest::CatalogLocator::new(discovery);
    let mut by_root: std::collections::BTreeMap<PathBuf, Vec<(walk::FileEntry, String)>> =
        Default::default();
    let mut alone = Vec::new();
    for f in files {
        match roots.locate(&f.path) {
            Some((root, rel)) => by_root.entry(root).or_default().push((f, rel)),
            None => alone.push(f),
        }
    }
    let mut reports = Vec::new();
    for (root, members) in by_root {
        let mut copts = flowmcp_catalog::CatalogOptions::default();
        copts.validation = opts.clone();
        let catalog = flowmcp_catalog::Catalog::open(&root, &copts).map_err(|e| e.to_string())?;
        let display = flowmcp_spec::diagnostic::display_path(&root);
        for (f, rel) in members {
            let wanted = format!("{display}/{rel}");
            match catalog.reports().iter().find(|r| r.file == wanted) {
                Some(r) => {
                    let mut r = r.clone();
                    r.file = f.display.clone();
                    for d in &mut r.diagnostics {
                        if d.file.as_deref() == Some(wanted.as_str()) {
                            d.file = Some(f.display.clone());
                        }
                    }
                    reports.push(r);
                }
                None => alone.push(f),
            }
        }
    }
    Ok((alone, reports))
}

fn validate(a: ValidateArgs) -> Result<ExitCode, String> {
    let cfg = run_cmd::config(false)?;

    let profile = profile_of(a.profile, &cfg);
    let mut flags = a
        .rules
        .iter()
        .map(|item| Overrides::parse_item(item).map_err(|e| format!("--rule {item}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if a.security {
        // After the user's own overrides: `--security` wins over them.
        flags.extend(
            RULES
                .iter()
                .filter(|r| {
                    !matches!(
                        r.family,
                        flowmcp_spec::registry::Family::Sec | flowmcp_spec::registry::Family::Ldr
                    )
                })
                .map(|r| (r.code, Level::Off)),
        );
    }
    let (overrides, note) = cfg.overrides(profile, &flags);
    if let Some(note) = note {
        eprintln!("{note}");
    }
    if a.timeout_ms == 0 || a.memory_mib == 0 || a.max_file_size == 0 {
        return Err("--timeout-ms, --memory-mib and --max-file-size must be greater than 0".into());
    }
    let mut opts = Options::default();
    opts.settings = RuleSettings::new(profile);
    opts.settings.overrides = overrides;
    opts.limits = Limits::default();
    opts.limits.max_file_bytes = a.max_file_size;
    opts.limits.memory_bytes =
        usize::try_from(a.memory_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    opts.limits.eval_timeout = Duration::from_millis(a.timeout_ms);
    opts.allowed_libraries = cfg.allowed_libraries.clone();
    run_cmd::on_this_machine(&cfg, &mut opts);

    let started = std::time::Instant::now();
    if let Some(id) = &a.id {
        return ids_cmd::run(id, a.format != Format::Human, &opts);
    }
    // Catalog directories are validated as a whole; everything else file by file. Under compat, a
    // directory whose registry.json is a grading list (the public collection's root) is a
    // directory of schema files, with one warning that names the list (issue #28, item 6).
    let (mut catalogs, mut plain) = (Vec::new(), Vec::new());
    for p in &a.paths {
        if !(flowmcp_files::named::is_dir(p) && flowmcp_validate::catalog::is_catalog(p)) {
            plain.push(p.clone());
        } else if profile == Profile::Compat && flowmcp_catalog::manifest::has_grading_list(p) {
            eprintln!(
                "flowmcp: {}: {}",
                shown(&flowmcp_spec::diagnostic::display_path(
                    &p.join(flowmcp_spec::catalog::REGISTRY_FILE)
                )),
                flowmcp_catalog::manifest::grading_list_note(true)
            );
            plain.push(p.clone());
        } else {
            catalogs.push(p.clone());
        }
    }
    let files = walk::collect(&plain)?;
    if files.is_empty() && catalogs.is_empty() {
        return Err(format!(
            "no .mjs files found in {}",
            a.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }

    let show_progress =
        a.format == Format::Human && files.len() > 8 && std::io::stderr().is_terminal();
    let bar = if show_progress {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let mut reports = Vec::new();
    for d in &catalogs {
        let mut copts = flowmcp_catalog::CatalogOptions::default();
        copts.validation = opts.clone();
        let catalog = flowmcp_catalog::Catalog::open(d, &copts).map_err(|e| e.to_string())?;
        reports.extend(catalog.reports().iter().cloned());
    }
    let results = if a.no_cache {
        None
    } else {
        run_cmd::result_cache(&cfg).map(std::sync::Arc::new)
    };
    let discovery = match &results {
        Some(r) => flowmcp_catalog::ListDiscovery::with_results(std::sync::Arc::clone(r)),
        None => flowmcp_catalog::ListDiscovery::new(),
    };
    // A file inside a catalog is validated with its catalog, so that the checks across files
    // (selections, agents, skills and prompts that reference other files) run for it too.
    let (files, in_catalogs) = with_their_catalogs(files, &opts, &discovery)?;
    reports.extend(in_catalogs);
    let file_reports: Vec<_> = files
        .par_iter()
        .map(|f| {
            let r = discovery.validate_file_under(f.anchor.as_deref(), &f.path, &f.display, &opts);
            if let Some(b) = &bar {
                b.inc(1);
            }
            r
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    reports.extend(file_reports);
    if let Some(r) = &results
        && r.stats().stored > 0
        && let Err(e) = r.trim()
    {
        eprintln!(
            "flowmcp: the result cache {} could not be trimmed: {e}",
            r.dir().display()
        );
    }

    let report = Report::new(profile, reports);
    if std::env::var_os("FLOWMCP_STATS").is_some() {
        let cached = results.as_ref().map(|r| r.stats()).unwrap_or_default();
        eprintln!(
            "flowmcp: {} files in {:.1} ms, peak RSS {}, result cache {} hits, {} misses, {} stored",
            report.files,
            started.elapsed().as_secs_f64() * 1000.0,
            peak_rss()
                .map(|kb| format!("{} KiB", kb))
                .unwrap_or_else(|| "unknown".into()),
            cached.hits,
            cached.misses,
            cached.stored
        );
    }
    let text = match a.format {
        Format::Human => {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let mut style = HumanStyle::default();
            style.color = color;
            style.quiet = a.quiet;
            style.advice = Some(advice::validate);
            render::human(&report.reports, style)
        }
        Format::Json => {
            // Streamed: the collection's report is megabytes, which need not be built first.
            stream_stdout(&mut |w| {
                render::write_json(&report, w)?;
                w.write_all(b"\n")
            })?;
            String::new()
        }
        Format::Sarif => {
            let mut s = render::sarif(&report);
            s.push('\n');
            s
        }
    };
    write_stdout(&text)?;
    Ok(if report.counts.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn hash(a: HashArgs) -> Result<ExitCode, String> {
    let settings = RuleSettings::new(Profile::Compat);
    let limits = Limits::default();
    let mut out = String::new();
    let mut failed = false;
    for f in &a.files {
        if !flowmcp_files::named::is_file(f) {
            return Err(format!("{}: not a file", f.display()));
        }
        let display = flowmcp_spec::diagnostic::display_path(f);
        let loaded = flowmcp_catalog::files::load_file(f, &display, &limits, &settings);
        let main = loaded.exports.as_ref().and_then(|e| e.get("main"));
        match main {
            Some(main) if !loaded.has_errors() && main.is_object() => {
                let h = flowmcp_spec::hash::schema_hash(main);
                if a.files.len() == 1 {
                    out.push_str(&format!("{h}\n"));
                } else {
                    out.push_str(&format!("{h}  {display}\n"));
                }
            }
            _ => {
                failed = true;
                let report = flowmcp_spec::FileReport::new(
                    display.clone(),
                    loaded.kind.as_str(),
                    loaded.diagnostics,
                );
                for d in report
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == flowmcp_spec::Severity::Error)
                {
                    eprintln!("{}", render::diagnostic_line(d, false));
                }
                eprintln!(
                    "{display}: no hash (the file does not load as a schema with an object `main`)"
                );
            }
        }
    }
    write_stdout(&out)?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The current directory, for configuration look-up.
pub(crate) fn cwd() -> Result<PathBuf, String> {
    std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))
}

/// The profile: the command line's, else the configuration's, else `spec`.
pub(crate) fn profile_of(arg: Option<ProfileArg>, cfg: &config::Config) -> Profile {
    match arg {
        Some(ProfileArg::Spec) => Profile::Spec,
        Some(ProfileArg::Compat) => Profile::Compat,
        None => cfg.profile.unwrap_or_default(),
    }
}

/// Writes `value` as pretty JSON with a final newline, atomically.
pub(crate) fn write_json(path: &std::path::Path, value: &serde_json::Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    flowmcp_catalog::files::write_atomic(path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Text that comes from a catalog, a response or a model, as human output shows it: control
/// characters (newlines, carriage returns, escape sequences) escaped, so that no value can forge,
/// hide or recolour a line. Every such field of human output goes through this one function;
/// JSON output needs none (its encoder escapes them).
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    flowmcp_spec::diagnostic::escape_controls(text)
}

/// Whether stderr carries JSON log lines (`serve --log-format json`): then [`say`] writes every
/// line of the CLI's own there as a JSON log event too.
static JSON_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The target of [`say`]'s log events, which the log filter of `serve` always lets through (they
/// are written whatever the log level, as the lines of other commands are).
pub(crate) const SAY_TARGET: &str = "flowmcp::stderr";

/// From now on, [`say`] writes log events (the logger writes them as JSON objects).
pub(crate) fn say_as_json_logs() {
    JSON_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Writes one line of the CLI's own (a note, a warning, an error, where `serve` listens) to
/// stderr: as it is, or under `serve --log-format json` as a log event at `level` (target
/// [`SAY_TARGET`]), so that every line of stderr is one JSON object. Every line a command that
/// may serve writes to stderr goes through here.
pub(crate) fn say(level: tracing::Level, line: &str) {
    if !JSON_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("{line}");
    } else if level == tracing::Level::ERROR {
        tracing::error!(target: SAY_TARGET, "{line}");
    } else if level == tracing::Level::WARN {
        tracing::warn!(target: SAY_TARGET, "{line}");
    } else {
        tracing::info!(target: SAY_TARGET, "{line}");
    }
}

/// [`shown`] for a block of text that is the output itself (a rendered prompt, a model's
/// answer): its lines and tabs stay, every other control character is escaped.
pub(crate) fn shown_block(text: &str) -> std::borrow::Cow<'_, str> {
    flowmcp_spec::diagnostic::escape_controls_in_block(text)
}

pub(crate) fn write_stdout(text: &str) -> Result<(), String> {
    stream_stdout(&mut |w| w.write_all(text.as_bytes()))
}

/// Standard output, buffered, for `write` to fill; flushed at the end. A closed pipe (`flowmcp …
/// | head`) is not an error worth reporting.
pub(crate) fn stream_stdout(
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write output: {e}")),
    }
}

/// The status for the table of all rules: a not-emitted code's reason is left to
/// `flowmcp rules CODE`, so that the column stays narrow.
fn status_short(s: Status) -> String {
    match s {
        Status::NotEmitted(_) => s.label().to_string(),
        other => other.to_string(),
    }
}

fn rules(a: RulesArgs) -> Result<ExitCode, String> {
    let selected: Vec<_> = match &a.code {
        Some(code) => {
            let c = Code::parse(code)
                .ok_or_else(|| format!("unknown rule code {code:?} (see `flowmcp rules`)"))?;
            vec![c.info()]
        }
        None => RULES.iter().collect(),
    };
    if a.format != Format::Human {
        let s = serde_json::to_string_pretty(&selected).map_err(|e| e.to_string())?;
        write_stdout(&format!("{s}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    if let [one] = selected.as_slice()
        && a.code.is_some()
    {
        out.push_str(&format!("{}: {}\n\n", one.code, one.summary));
        out.push_str(&format!("  family:   {}\n", one.family.as_str()));
        out.push_str(&format!(
            "  origin:   {}\n",
            match one.origin {
                flowmcp_spec::registry::Origin::Spec => "specification v4.2.0",
                flowmcp_spec::registry::Origin::Extension => "project extension",
            }
        ));
        if one.defined_by_project() {
            out.push_str(&format!(
                "  section:  {} (not part of the specification)\n",
                one.section
            ));
        } else {
            out.push_str(&format!("  section:  {}\n", one.section));
        }
        out.push_str(&format!(
            "  severity: {} (spec), {} (compat)\n",
            one.spec, one.compat
        ));
        for v in one.variants {
            out.push_str(&format!(
                "  variant {:?}: {} (spec), {} (compat) — {}\n",
                v.name, v.spec, v.compat, v.summary
            ));
        }
        out.push_str(&format!("  status:   {}\n", one.status));
        if one.is_runtime() {
            out.push_str(
                "\nReported when a call or an agent runs, never by validation: `--rule` does not \
                 change it.\n",
            );
        } else {
            out.push_str(&format!(
                "\nOverride it with `--rule {}=off|info|warning|error`.\n",
                one.code
            ));
        }
    } else {
        // The longest code (`AGENT001`) sets the first column's width.
        let width = RULES
            .iter()
            .map(|r| r.code.as_str().len())
            .max()
            .unwrap_or(7);
        out.push_str(&format!(
            "{:<width$} {:<8} {:<8} {:<24} {}\n",
            "CODE", "SPEC", "COMPAT", "STATUS", "SUMMARY"
        ));
        for r in &selected {
            let lvl = |l: Level| {
                if r.variants.is_empty() {
                    l.to_string()
                } else {
                    format!("{l}*")
                }
            };
            out.push_str(&format!(
                "{:<width$} {:<8} {:<8} {:<24} {}\n",
                r.code.as_str(),
                lvl(r.spec),
                lvl(r.compat),
                status_short(r.status),
                r.summary
            ));
        }
        let implemented = selected
            .iter()
            .filter(|r| r.status == Status::Implemented)
            .count();
        out.push_str(&format!(
            "\n{} rules, {implemented} implemented. * = has variants with other severities (`flowmcp rules CODE`).\n",
            selected.len()
        ));
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Peak resident set size of this process in KiB (Linux: `VmHWM` in /proc/self/status).
fn peak_rss() -> Option<u64> {
    let status = flowmcp_files::named::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
