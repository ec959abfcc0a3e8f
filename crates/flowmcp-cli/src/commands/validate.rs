//! `flowmcp validate`: schema files, directories of them and catalogs checked, one report.

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use std::collections::BTreeMap;

use flowmcp_spec::diagnostic::{Applicability, apply_fixes};
use flowmcp_spec::registry::Family;
use flowmcp_spec::{Code, FileReport, Profile, Report, Severity};
use flowmcp_validate::render::{self, HumanStyle};
use flowmcp_validate::{Limits, Options};
use rayon::prelude::*;

use crate::context::{self, ProfileArg, ValidationFlags};
use crate::output::{shown, stream_stdout, write_stdout};
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
    #[arg(long, value_enum, default_value_t = ValidateFormat::Human)]
    pub(crate) format: ValidateFormat,
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
    /// Apply the safe fixes of the findings to the files (each file written atomically, its
    /// formatting and comments kept; repeated until nothing more applies), say on standard error
    /// what was fixed, then report what is left. `flowmcp rules` shows which codes have fixes.
    #[arg(long, conflicts_with = "id")]
    fix: bool,
    /// Apply the unsafe fixes too (they draft values, rename IDs or drop constraints, and mark
    /// what they drafted with `// REVIEW:` comments). Implies `--fix` unless `--diff` is given.
    #[arg(long, conflicts_with = "id")]
    unsafe_fixes: bool,
    /// Show the fixes as a unified diff on standard output instead of writing them (exit code 1
    /// when there is something to fix).
    #[arg(long, conflicts_with_all = ["id", "fix"])]
    diff: bool,
}

/// The formats of `validate`'s report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ValidateFormat {
    /// One line per finding, then counts and a verdict.
    Human,
    /// The report as JSON (shape documented in flowmcp-spec's `diagnostic` module).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow commands: one annotation per finding, with its file, line, column
    /// and the rule's title.
    Github,
    /// One self-contained HTML page in the look of `flowmcp catalog site` (no script, nothing
    /// loaded): the counts, then each file's findings as a table.
    Html,
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
    if a.fix || a.unsafe_fixes || a.diff {
        let changed = fix_files(&a, &opts)?;
        if a.diff {
            return Ok(if changed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            });
        }
    }

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
        a.format == ValidateFormat::Human && files.len() > 8 && std::io::stderr().is_terminal();
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
            // The JSON report carries the fixes the catalog's rewrites make.
            let r = if a.format == ValidateFormat::Json {
                discovery.validate_file_fixed_under(f.anchor.as_deref(), &f.path, &f.display, &opts)
            } else {
                discovery.validate_file_under(f.anchor.as_deref(), &f.path, &f.display, &opts)
            };
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
        ValidateFormat::Human => {
            let mut style = HumanStyle::default();
            style.color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            style.quiet = a.quiet;
            style.advice = Some(advice::validate);
            render::human(report.reports(), style)
        }
        ValidateFormat::Json => {
            // Streamed: the collection's report is megabytes, which need not be built first.
            stream_stdout(&mut |w| {
                render::write_json(&report, w)?;
                w.write_all(b"\n")
            })?;
            String::new()
        }
        ValidateFormat::Sarif => {
            let mut s = render::sarif(&report);
            s.push('\n');
            s
        }
        ValidateFormat::Github => render::github(&report),
        ValidateFormat::Html => crate::site::report::validation(&report),
    };
    write_stdout(&text)?;
    Ok(if report.counts().errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// How many rounds of fixes one file gets at most (a round applies the fixes that do not overlap;
/// the next validates the new text again, so that fixes left out and findings such as a stale
/// `schemaHash` that the first round's edits caused are fixed too).
const MAX_FIX_ROUNDS: usize = 8;

/// One file's fixes: its text before and after, and how many findings of each code were fixed.
struct FileFixes {
    entry: walk::FileEntry,
    before: String,
    after: String,
    fixed: BTreeMap<Code, usize>,
    /// Findings left with only an unsafe fix (when unsafe fixes were not asked for).
    unsafe_left: usize,
}

/// `--fix`, `--unsafe-fixes` and `--diff`: the fixes of every file under `a.paths`, written (or
/// shown as a diff), with a summary on standard error. Whether a file changed (or would).
fn fix_files(a: &ValidateArgs, opts: &Options) -> Result<bool, String> {
    let files = walk::collect(&a.paths)?;
    let discovery = flowmcp_catalog::ListDiscovery::new();
    let results: Vec<Result<FileFixes, String>> = files
        .into_par_iter()
        .map(|entry| fix_file(entry, &discovery, opts, a.unsafe_fixes))
        .collect();
    let mut fixed: BTreeMap<Code, usize> = BTreeMap::new();
    let (mut changed, mut unsafe_left) = (0usize, 0usize);
    let mut diff = String::new();
    for r in results {
        let f = match r {
            Ok(f) => f,
            Err(e) => {
                eprintln!("flowmcp: {}", shown(&e));
                continue;
            }
        };
        unsafe_left += f.unsafe_left;
        if f.after == f.before {
            continue;
        }
        if a.diff {
            let d = similar::TextDiff::from_lines(&f.before, &f.after);
            diff.push_str(
                &d.unified_diff()
                    .header(
                        &format!("a/{}", f.entry.display),
                        &format!("b/{}", f.entry.display),
                    )
                    .to_string(),
            );
        } else if let Err(e) = flowmcp_files::named::write_atomic(&f.entry.path, f.after.as_bytes())
        {
            eprintln!("flowmcp: {}: not fixed: {e}", shown(&f.entry.display));
            continue;
        }
        changed += 1;
        for (code, n) in f.fixed {
            *fixed.entry(code).or_default() += n;
        }
    }
    if a.diff {
        write_stdout(&diff)?;
    }
    let total: usize = fixed.values().sum();
    let by_code: Vec<String> = fixed.iter().map(|(c, n)| format!("{c} {n}")).collect();
    let verb = if a.diff { "would fix" } else { "fixed" };
    if total == 0 {
        eprintln!("flowmcp: nothing to fix");
    } else {
        eprintln!(
            "flowmcp: {verb} {total} finding(s) in {changed} file(s): {}",
            by_code.join(", ")
        );
    }
    if unsafe_left > 0 {
        eprintln!(
            "flowmcp: {unsafe_left} finding(s) have only an unsafe fix (apply with --unsafe-fixes, after reading them with --diff --unsafe-fixes)"
        );
    }
    Ok(changed > 0)
}

/// The fixes of one file, round after round, from its text in memory; the text is kept as it
/// was when the fixes would leave more errors than it had, or a file that loaded would not load.
fn fix_file(
    entry: walk::FileEntry,
    discovery: &flowmcp_catalog::ListDiscovery,
    opts: &Options,
    unsafe_ok: bool,
) -> Result<FileFixes, String> {
    let before = flowmcp_files::named::read_capped_text(&entry.path, opts.limits.max_file_bytes)
        .map_err(|e| format!("{}: {e}", entry.display))?;
    let scope = discovery.scope_for(&entry.path, &entry.display, opts);
    let plain = |text: &str| flowmcp_validate::validate_str(text, &entry.display, &scope, opts);
    let check = |text: &str| {
        let mut report = plain(text);
        flowmcp_catalog::migrate::attach_fixes(&mut report, text, &entry.display, &scope, opts);
        report
    };
    let first = check(&before);
    let errors_before = first.counts().errors;
    // A file that loaded must still load: fixes that trade a finding for a load failure (an
    // edit in the wrong place, say) leave no more errors in number, and are declined too.
    let load_failure = |r: &FileReport| {
        r.diagnostics()
            .iter()
            .any(|d| d.severity == Severity::Error && d.code.info().family == Family::Ldr)
    };
    let loaded_before = !load_failure(&first);
    let mut report = first;
    let mut text = before.clone();
    // Each finding by code and place, once however many rounds fixed it (a `schemaHash` the
    // first round's edits made stale again is one finding).
    let mut places: std::collections::BTreeSet<(Code, String)> = Default::default();
    for _ in 0..MAX_FIX_ROUNDS {
        let wanted: Vec<&flowmcp_spec::Diagnostic> = report
            .diagnostics()
            .iter()
            .filter(|d| {
                d.fix
                    .as_ref()
                    .is_some_and(|f| unsafe_ok || f.applicability == Applicability::Safe)
            })
            .collect();
        let (new, applied) = apply_fixes(&text, wanted.iter().filter_map(|d| d.fix.as_ref()));
        if new == text {
            break;
        }
        for (d, ok) in wanted.iter().zip(applied) {
            if ok {
                let place = d.pointer.as_ref().map(|p| p.pointer()).unwrap_or_default();
                places.insert((d.code, place));
            }
        }
        text = new;
        report = check(&text);
    }
    let worse = report.counts().errors > errors_before;
    if worse || (loaded_before && load_failure(&report)) {
        if worse {
            eprintln!(
                "flowmcp: {}: not fixed: its fixes would leave more errors ({} before, {} after)",
                shown(&entry.display),
                errors_before,
                report.counts().errors
            );
        } else {
            eprintln!(
                "flowmcp: {}: not fixed: with its fixes the file would no longer load",
                shown(&entry.display)
            );
        }
        return Ok(FileFixes {
            entry,
            after: before.clone(),
            before,
            fixed: BTreeMap::new(),
            unsafe_left: 0,
        });
    }
    let mut fixed: BTreeMap<Code, usize> = BTreeMap::new();
    for (code, _) in places {
        *fixed.entry(code).or_default() += 1;
    }
    let unsafe_left = report
        .diagnostics()
        .iter()
        .filter(|d| {
            !unsafe_ok
                && d.fix
                    .as_ref()
                    .is_some_and(|f| f.applicability == Applicability::Unsafe)
        })
        .count();
    Ok(FileFixes {
        entry,
        before,
        after: text,
        fixed,
        unsafe_left,
    })
}

/// Peak resident set size of this process in KiB (Linux: `VmHWM` in /proc/self/status).
fn peak_rss() -> Option<u64> {
    let status = flowmcp_files::named::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
