//! `flowmcp validate`: schema files, directories of them and catalogs checked, one report.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use flowmcp_spec::{Profile, Report};
use flowmcp_validate::render::{self, HumanStyle};
use flowmcp_validate::{Limits, Options};
use rayon::prelude::*;

use crate::context::{self, ProfileArg, ValidationFlags};
use crate::output::{Format, shown, stream_stdout, write_stdout};
use crate::{advice, walk};

#[derive(Args, Debug)]
pub(crate) struct ValidateArgs {
    /// Files or directories to validate. A directory with a `registry.json` is validated as a catalog.
    #[arg(required_unless_present = "id", value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Validate an ID (`namespace/type/name` or `namespace/schema-name`) instead of files.
    #[arg(long, value_name = "ID", conflicts_with = "paths")]
    pub(crate) id: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
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

impl ValidateArgs {
    /// The flags that decide how files are checked (also for `--id`).
    pub(crate) fn flags(&self) -> ValidationFlags<'_> {
        ValidationFlags {
            profile: self.profile,
            rules: &self.rules,
            security: self.security,
            max_file_size: self.max_file_size,
            timeout_ms: self.timeout_ms,
            memory_mib: self.memory_mib,
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
        let copts = context::validation_catalog(opts);
        let catalog = flowmcp_catalog::Catalog::open(&root, &copts).map_err(|e| e.to_string())?;
        let display = flowmcp_spec::diagnostic::display_path(&root);
        for (f, rel) in members {
            let wanted = format!("{display}/{rel}");
            match catalog.reports().iter().find(|r| r.file() == wanted) {
                Some(r) => reports.push(r.clone().renamed(f.display.clone())),
                None => alone.push(f),
            }
        }
    }
    Ok((alone, reports))
}

pub(crate) fn run(a: ValidateArgs) -> Result<ExitCode, String> {
    let (cfg, profile, opts) = context::validation(&a.flags())?;

    let started = std::time::Instant::now();
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
        let copts = context::validation_catalog(&opts);
        let catalog = flowmcp_catalog::Catalog::open(d, &copts).map_err(|e| e.to_string())?;
        reports.extend(catalog.reports().iter().cloned());
    }
    let (results, discovery) = context::validation_discovery(&cfg, !a.no_cache);
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
            report.files(),
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
            let mut style = HumanStyle::default();
            style.color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            style.quiet = a.quiet;
            style.advice = Some(advice::validate);
            render::human(report.reports(), style)
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
    Ok(if report.counts().errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Peak resident set size of this process in KiB (Linux: `VmHWM` in /proc/self/status).
fn peak_rss() -> Option<u64> {
    let status = flowmcp_files::named::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
