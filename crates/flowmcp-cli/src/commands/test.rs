//! `flowmcp test`: run the tests of tools and resource queries (chapters 10 and 21), print a
//! tree with PASS or FAIL per primitive, capture the responses.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use clap::{Args, ValueEnum};
use flowmcp_catalog::{
    ToolEntry, runtime::Kind, testing::OutputEditError, testing::TestOptions, testing::TestReport,
    testing::Verdict,
};
use flowmcp_spec::{id::IdType, id::PrimitiveId};

use crate::context::{RunArgs, SourceArgs, config, open, plain_validation, profile_of};
use crate::output::{shown, write_stdout};

#[derive(Args, Debug)]
#[command(
    about = "Run the tests of tools and resource queries: PASS or FAIL per primitive",
    long_about = "Run the tests every tool and resource query carries (chapter 10): one real call \
    per test through the catalog, the preload cache bypassed, with a pause between network calls \
    (--delay-ms). A primitive PASSES when at least one of its tests returns a 2xx response whose \
    data matches the declared output.schema, with no handler failure, within the time limit \
    (--timeout-ms, 30 s by default); otherwise it FAILS, with the reason (chapter 21: failing \
    primitives must be removed before production; --prune-report lists them and --prune removes \
    them). Each shape mismatch \
    is listed with its JSON path. A tool whose server parameters have no value is skipped.\n\n\
    TARGET: a schema file or catalog directory (default: --catalog, the configuration's catalog, \
    or the current directory), or an ID of the catalog: a tool or resource \
    (`namespace/tool/name`), or a selection (`namespace/selection/name`, every member tested, \
    `M/N Members PASS`; its prompts and skills by their structural test: every reference in them \
    resolves, i.e. the file that defines each has no error). `flowmcp test single <schema>` is the same as `flowmcp test <schema>`.\n\n\
    Local runs: --upstream NAMESPACE=URL sends a namespace's requests to a local server, as for \
    `flowmcp call`.\n\n\
    --capture DIR writes chapter 10's records, DIR/<timestamp>/<namespace>/<route>-<i>.json, and \
    a metrics.json per namespace (timings, sizes, error codes). --dry-run writes nothing (the \
    tests are still called). --static calls nothing and only lists the tests.\n\n\
    --prune writes the production copy of each file with a failing primitive: its failing tools \
    and resource queries removed (nothing else in the file changes; a `schemaHash` is refreshed), \
    the original kept as `<file>.bak` (a file whose `.bak` exists is not touched). A file whose \
    result would not validate (every tool failed, say) is left as it is. With --dry-run the \
    diff is printed instead.\n\n\
    Exit codes: 0 no primitive failed (with --prune: every failing primitive was removed), 1 a \
    primitive failed (and was not removed) or a file is not callable, 2 usage error."
)]
pub(crate) struct TestArgs {
    /// `single` (optional), then a schema file, a catalog directory, or an ID.
    #[arg(value_name = "TARGET", num_args = 0..=2)]
    target: Vec<String>,
    /// Call nothing: list the tests that would run (the static checks are `flowmcp validate`'s).
    #[arg(long = "static")]
    static_only: bool,
    /// The pause between two network calls, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    delay_ms: u64,
    /// Write the captured responses and metrics under this directory.
    #[arg(long, value_name = "DIR")]
    capture: Option<PathBuf>,
    /// Write nothing (captures); the tests are still called.
    #[arg(long)]
    dry_run: bool,
    /// Print only the list of failing primitives, ready to remove before production.
    #[arg(long)]
    prune_report: bool,
    /// Remove the failing tools and resource queries from their files (the original kept as
    /// `<file>.bak`), as chapter 21 asks before production. With --dry-run, print the diff.
    #[arg(long, conflicts_with_all = ["prune_report", "static_only", "update_output"])]
    prune: bool,
    /// Write each tool's `output` from its responses (the output-schema generator): the value's
    /// text is replaced, or `output` is inserted after `parameters`; descriptions already written
    /// are kept, `schemaHash` is refreshed when present, nothing else in the file changes. A file
    /// whose result would not validate is left as it is. With --dry-run, print the diff instead.
    #[arg(long)]
    update_output: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TestFormat::Text)]
    format: TestFormat,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    source: SourceArgs,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TestFormat {
    /// A tree: schema, primitives, tests.
    Text,
    /// The report as JSON.
    Json,
    /// The report as one self-contained HTML page in the look of `flowmcp catalog site`.
    Html,
}

/// What the target names.
enum Target {
    /// Everything in the catalog (a file, a directory, or the default catalog).
    All,
    /// One tool or resource (its ID) or resource query (`ns/resource/<name>-<query>`).
    Primitive(String),
    /// The members of a selection.
    Selection(String),
}

/// Whether `entry` is (part of) the primitive `id`.
fn is_primitive(entry: &ToolEntry, id: &str) -> bool {
    let d = &entry.descriptor;
    d.id.to_string() == id || d.lookup_key() == id || d.wire_name == id
}

pub(crate) fn run(a: TestArgs) -> Result<ExitCode, String> {
    let mut target = a.target.clone();
    if target.first().is_some_and(|t| t == "single") {
        target.remove(0);
    }
    if target.len() > 1 {
        return Err(format!(
            "one target at a time (got {}); `flowmcp test single <schema>` or `flowmcp test <TARGET>`",
            target.join(" ")
        ));
    }
    let (paths, what) = match target.first() {
        None => (Vec::new(), Target::All),
        Some(t) if flowmcp_files::named::exists(Path::new(t)) => {
            (vec![PathBuf::from(t)], Target::All)
        }
        Some(t) => match t.split('.').next().unwrap_or(t).parse::<PrimitiveId>() {
            Ok(id) if id.kind == IdType::Selection => (Vec::new(), Target::Selection(t.clone())),
            Ok(_) => (Vec::new(), Target::Primitive(t.clone())),
            Err(_) => {
                return Err(format!(
                    "{t}: no such file or directory, and not an ID (namespace/tool/name, namespace/selection/name)"
                ));
            }
        },
    };
    let cfg = config(a.source.anchor(&paths))?;
    let (transport, runner) = a.run.settings(&cfg)?;
    let profile = profile_of(a.source.profile, &cfg);
    let catalog = open(&a.source, &paths, false, &cfg, profile, transport, runner)?;
    let members = match &what {
        Target::Selection(id) => {
            let sel = catalog
                .library()
                .selection(id)
                .ok_or_else(|| format!("{id}: no such selection in the catalog"))?;
            if let Some(problem) = sel.problem() {
                return Err(problem);
            }
            Some((sel.tools.clone(), sel.resources.clone()))
        }
        _ => None,
    };
    // A selection's prompts and skills have no API test; their structural test is whether every
    // reference in them resolves, which is what validating the file that defines each says.
    let structural: Vec<Structural> = match &what {
        Target::Selection(id) => catalog
            .library()
            .selection(id)
            .map(|sel| {
                sel.prompts
                    .iter()
                    .chain(&sel.skills)
                    .map(|member| Structural::of(&catalog, member))
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    if let Target::Primitive(id) = &what
        && !catalog.list().iter().any(|e| is_primitive(e, id))
    {
        let why = catalog.rejected(id).map_or_else(
            || "not in the catalog".to_string(),
            |r| format!("{}; {}", r.reason(), crate::advice::rejected(&r.file)),
        );
        return Err(format!("{id}: {why}"));
    }
    let wanted = |e: &ToolEntry| match (&what, &members) {
        (Target::All, _) => true,
        (Target::Primitive(id), _) => is_primitive(e, id),
        (Target::Selection(_), Some((tools, resources))) => {
            let id = e.descriptor.id.to_string();
            match e.descriptor.kind {
                Kind::Tool => tools.contains(&id),
                _ => resources.contains(&id),
            }
        }
        (Target::Selection(_), None) => false,
    };
    let mut opts = TestOptions::default();
    opts.delay = Duration::from_millis(a.delay_ms);
    opts.calls = !a.static_only;
    let started = SystemTime::now();
    let report = catalog.run_tests(&wanted, &opts, &mut |line| {
        eprintln!("flowmcp: {}", shown(line));
    });
    // A schema with nothing to call (only prompts, skills or documents) passes without a test:
    // there is no API to test it against (chapter 21's special rule for static schemas).
    let auto_pass: Vec<String> = match what {
        Target::All => {
            let testable: std::collections::HashSet<usize> = catalog
                .list()
                .iter()
                .filter(|e| {
                    matches!(
                        e.descriptor.kind,
                        Kind::Tool | Kind::Query { builtin: None, .. }
                    )
                })
                .map(|e| e.schema)
                .collect();
            catalog
                .toolset()
                .schemas()
                .iter()
                .enumerate()
                .filter(|(i, _)| !testable.contains(i))
                .map(|(_, s)| s.display.clone())
                .collect()
        }
        _ => Vec::new(),
    };
    // Files of the target that are not callable (errors) are failures too.
    let broken: Vec<String> = match what {
        Target::All => catalog
            .toolset()
            .problems()
            .iter()
            .map(|p| format!("{}: {}", p.file, p.message))
            .collect(),
        _ => Vec::new(),
    };
    if let Some(dir) = &a.capture {
        capture(&report, dir, started, a.dry_run)?;
    }
    if a.update_output {
        let v = plain_validation(&cfg, profile);
        let text = update_outputs(&report, &v, a.dry_run)?;
        write_stdout(&text)?;
    }
    let pruned = if a.prune {
        prune(&report, &plain_validation(&cfg, profile), a.dry_run)?
    } else {
        Vec::new()
    };
    let out = if a.prune_report {
        prune_report(&report)
    } else {
        match a.format {
            TestFormat::Json | TestFormat::Html => {
                let mut v = report.to_json();
                v["notCallable"] = serde_json::json!(broken);
                if let Target::Selection(_) = what {
                    v["structural"] = serde_json::json!(
                        structural
                            .iter()
                            .map(Structural::to_json)
                            .collect::<Vec<_>>()
                    );
                }
                v["autoPass"] = serde_json::json!(auto_pass);
                if a.prune {
                    v["pruned"] =
                        serde_json::json!(pruned.iter().map(Pruned::to_json).collect::<Vec<_>>());
                }
                if a.format == TestFormat::Html {
                    crate::site::report::tests(&v)
                } else {
                    format!(
                        "{}\n",
                        serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                    )
                }
            }
            TestFormat::Text => {
                // --static: what `flowmcp validate` says about the tests, under each file.
                let findings: std::collections::HashMap<String, Vec<String>> = if a.static_only {
                    catalog
                        .reports()
                        .iter()
                        .map(|r| {
                            let lines = r
                                .diagnostics()
                                .iter()
                                .filter(|d| d.code.as_str().starts_with("TST"))
                                .map(|d| {
                                    format!(
                                        "{} {} {}",
                                        d.code.as_str(),
                                        d.severity.as_str(),
                                        shown(&d.message)
                                    )
                                })
                                .collect();
                            (r.file().to_string(), lines)
                        })
                        .collect()
                } else {
                    Default::default()
                };
                let mut text = tree(&report, &broken, &auto_pass, &structural, &what, &findings);
                for p in &pruned {
                    text.push_str(&p.line());
                }
                text
            }
        }
    };
    write_stdout(&out)?;
    let (_, failed, _) = report.counts();
    // With --prune, a failure that was removed from its file no longer fails the run.
    let failing = if a.prune && !a.dry_run {
        pruned.iter().any(|p| p.error.is_some())
    } else {
        failed > 0
    };
    Ok(
        if failing || !broken.is_empty() || structural.iter().any(|m| !m.passed()) {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        },
    )
}

/// Writes (or with `dry_run` only names) the capture files.
fn capture(
    report: &TestReport,
    dir: &Path,
    started: SystemTime,
    dry_run: bool,
) -> Result<(), String> {
    // A timestamp that is a valid file name everywhere.
    let stamp = flowmcp_catalog::timestamp(started).replace(':', "-");
    let files: Vec<std::path::PathBuf> = if dry_run {
        let files = report
            .capture_files(dir, &stamp)
            .map_err(|e| format!("--capture: {e}"))?;
        for (path, _) in &files {
            eprintln!("flowmcp: would write {}", path.display());
        }
        files.into_iter().map(|(path, _)| path).collect()
    } else {
        report
            .write_captures(dir, &stamp)
            .map_err(|e| format!("--capture: {e}"))?
    };
    if !dry_run {
        eprintln!(
            "flowmcp: captured {} files under {}",
            files.len(),
            dir.join(&stamp).display()
        );
    }
    Ok(())
}

/// Writes (or, with `dry_run`, shows as a unified diff) the generated `output` of every tool with
/// a successful call into its schema file. Returns what to print.
fn update_outputs(
    report: &TestReport,
    opts: &flowmcp_validate::Options,
    dry_run: bool,
) -> Result<String, String> {
    let discovery = flowmcp_catalog::ListDiscovery::new();
    let mut out = String::new();
    for s in &report.schemas {
        // Each tool with a successful call whose output would change.
        let updates = s.generated_outputs();
        if updates.is_empty() {
            continue;
        }
        // Read and rewritten through its directory's handle: a link in its place is not
        // written through.
        let (dir, name) = match (s.path.parent(), s.path.file_name()) {
            (Some(dir), Some(name)) => (flowmcp_files::Root::new(dir), Path::new(name)),
            _ => return Err(format!("{}: not a file path", s.path.display())),
        };
        let before = dir
            .read_capped(name, opts.limits.max_file_bytes)
            .map_err(|e| e.to_string())?;
        let before = String::from_utf8(before)
            .map_err(|e| format!("{}: not UTF-8: {e}", s.path.display()))?;
        // The new text must validate: no error that the file did not have already.
        let after = match s.with_outputs(&before, &updates, opts, &discovery) {
            Ok(after) => after,
            Err(OutputEditError::SchemaHash(e)) => {
                return Err(format!("{}: schemaHash: {e}", s.file));
            }
            Err(OutputEditError::Invalid(added)) => {
                out.push_str(&format!(
                    "not updated: {}: the result would not validate: {}\n",
                    shown(&s.file),
                    shown(&added.join("; "))
                ));
                continue;
            }
            // A tool whose `output` cannot be set.
            Err(e) => {
                out.push_str(&format!(
                    "not updated: {}\n",
                    shown(&format!("{}: {e}", s.file))
                ));
                continue;
            }
        };
        let routes: Vec<&str> = updates.iter().map(|(r, _)| *r).collect();
        if dry_run {
            let diff = similar::TextDiff::from_lines(&before, &after);
            out.push_str(
                &diff
                    .unified_diff()
                    .header(&format!("a/{}", s.file), &format!("b/{}", s.file))
                    .to_string(),
            );
        } else {
            dir.write_atomic(name, after.as_bytes(), &|_| true)
                .map_err(|e| e.to_string())?;
            out.push_str(&format!(
                "updated {}: output of {}\n",
                shown(&s.file),
                shown(&routes.join(", "))
            ));
        }
    }
    if out.is_empty() {
        out.push_str("no output to update (no tool call succeeded, or every output is current)\n");
    }
    Ok(out)
}

/// What `--prune` did to one file.
struct Pruned {
    /// The file as the report names it.
    file: String,
    /// The routes removed (or, with --dry-run, that would be).
    removed: Vec<String>,
    /// Why the file was left as it is.
    error: Option<String>,
    /// With --dry-run, the unified diff.
    diff: Option<String>,
}

impl Pruned {
    fn line(&self) -> String {
        let removed = shown(&self.removed.join(", ")).into_owned();
        let file = shown(&self.file);
        match (&self.error, &self.diff) {
            (Some(e), _) => format!("not pruned: {file}: {}\n", shown(e)),
            (None, Some(diff)) => format!("would remove from {file}: {removed}\n{diff}"),
            (None, None) => {
                format!("pruned {file}: removed {removed} (original kept as {file}.bak)\n")
            }
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"file": self.file, "removed": self.removed, "error": self.error,
                           "diff": self.diff})
    }
}

/// Removes the failing primitives of each file from it (`--prune`), keeping the original as
/// `<file>.bak`; with `dry_run` only computes the diffs. Each file's new text must validate on its
/// own; a file inside a catalog (a directory with a `registry.json` above it) must also leave
/// that catalog without new errors (a prompt, skill, selection or agent naming a removed tool):
/// the catalog is validated again with the written files, and when it has new errors every file
/// of that catalog is put back as it was and its backup removed. A file that cannot be pruned
/// is reported and left as it is; an I/O failure stops.
fn prune(
    report: &TestReport,
    opts: &flowmcp_validate::Options,
    dry_run: bool,
) -> Result<Vec<Pruned>, String> {
    let discovery = flowmcp_catalog::ListDiscovery::new();
    let mut out = Vec::new();
    // Per catalog root (None: outside any catalog), its written files: their index in `out`,
    // path and original text.
    let mut locator = flowmcp_catalog::manifest::CatalogLocator::new(&discovery);
    let mut written: std::collections::BTreeMap<Option<PathBuf>, Vec<(usize, &Path, String)>> =
        Default::default();
    let mut before_errors: std::collections::BTreeMap<PathBuf, Vec<String>> = Default::default();
    for s in &report.schemas {
        let removed: Vec<String> = s.failed_routes().into_iter().map(String::from).collect();
        if removed.is_empty() {
            continue;
        }
        let (dir, name) = crate::output::in_dir(&s.path)?;
        let before = dir
            .read_capped(&name, opts.limits.max_file_bytes)
            .map_err(|e| e.to_string())?;
        let before = String::from_utf8(before)
            .map_err(|e| format!("{}: not UTF-8: {e}", s.path.display()))?;
        let mut done = Pruned {
            file: s.file.clone(),
            removed,
            error: None,
            diff: None,
        };
        match s.pruned(&before, opts, &discovery) {
            Ok(Some(after)) if dry_run => {
                let diff = similar::TextDiff::from_lines(&before, &after);
                done.diff = Some(
                    diff.unified_diff()
                        .header(&format!("a/{}", s.file), &format!("b/{}", s.file))
                        .to_string(),
                );
            }
            Ok(Some(after)) => {
                let root = locator.locate(&s.path).map(|(root, _)| root);
                if let Some(root) = &root
                    && !before_errors.contains_key(root)
                {
                    before_errors.insert(root.clone(), catalog_errors(root, opts)?);
                }
                match crate::output::write_with_backup(&s.path, &before, &after) {
                    Ok(()) => written
                        .entry(root)
                        .or_default()
                        .push((out.len(), &s.path, before)),
                    Err(e) => done.error = Some(e),
                }
            }
            Ok(None) => continue,
            Err(e) => done.error = Some(e.to_string()),
        }
        out.push(done);
    }
    for (root, files) in written {
        let Some(root) = root else { continue };
        let old = before_errors.get(&root).cloned().unwrap_or_default();
        let (rehash, new): (Vec<String>, Vec<String>) = catalog_errors(&root, opts)?
            .into_iter()
            .filter(|e| !old.contains(e))
            .partition(|e| e.contains(": CAT008 "));
        if new.is_empty() {
            // The registry's contentHash covers the files just changed: registering the
            // production copy is the next step, and the user's to take.
            if !rehash.is_empty() {
                eprintln!(
                    "flowmcp: {}: registry.json's contentHash no longer matches the pruned files; \
                     `flowmcp catalog index {}` updates it",
                    shown(&root.display().to_string()),
                    shown(&root.display().to_string())
                );
            }
            continue;
        }
        for (i, path, original) in files {
            let (dir, name) = crate::output::in_dir(path)?;
            dir.write_atomic(&name, original.as_bytes(), &|_| true)
                .map_err(|e| format!("cannot restore {}: {e}", path.display()))?;
            let mut backup = name.into_os_string();
            backup.push(".bak");
            dir.remove_file(Path::new(&backup))
                .map_err(|e| format!("cannot remove {}.bak: {e}", path.display()))?;
            out[i].error = Some(format!(
                "removing them would break the catalog {} (the file is back as it was): {}",
                root.display(),
                new.join("; ")
            ));
        }
    }
    Ok(out)
}

/// The errors of the catalog at `root` as `file: CODE message`, as `flowmcp validate` finds them.
fn catalog_errors(root: &Path, opts: &flowmcp_validate::Options) -> Result<Vec<String>, String> {
    let catalog = flowmcp_catalog::Catalog::open(root, &crate::context::validation_catalog(opts))
        .map_err(|e| e.to_string())?;
    Ok(catalog
        .reports()
        .iter()
        .flat_map(|r| {
            r.diagnostics()
                .iter()
                .filter(|d| d.severity == flowmcp_spec::Severity::Error)
                .map(|d| format!("{}: {} {}", r.file(), d.code.as_str(), d.message))
                .collect::<Vec<_>>()
        })
        .collect())
}

/// The failing primitives, one per line, grouped by file: what to remove before production.
fn prune_report(report: &TestReport) -> String {
    let mut out = String::new();
    for s in &report.schemas {
        let failed: Vec<_> = s
            .primitives
            .iter()
            .filter(|p| p.verdict == Verdict::Fail)
            .collect();
        if failed.is_empty() {
            continue;
        }
        out.push_str(&format!("{}\n", shown(&s.file)));
        for p in failed {
            out.push_str(&format!(
                "  remove {} {} — {}\n",
                p.kind,
                shown(&p.route),
                shown(p.reason.as_deref().unwrap_or("failed"))
            ));
        }
    }
    if out.is_empty() {
        out.push_str("nothing to remove: no primitive failed\n");
    }
    out
}

/// The text report: schema → primitives → tests, then the counts.
fn tree(
    report: &TestReport,
    broken: &[String],
    auto_pass: &[String],
    structural: &[Structural],
    what: &Target,
    findings: &std::collections::HashMap<String, Vec<String>>,
) -> String {
    let mut out = String::new();
    for s in &report.schemas {
        out.push_str(&format!("{} ({})\n", shown(&s.file), shown(&s.namespace)));
        for f in findings.get(&s.file).into_iter().flatten() {
            out.push_str(&format!("  {}\n", shown(f)));
        }
        for p in &s.primitives {
            let reason = p
                .reason
                .as_deref()
                .map(|r| format!(" — {}", shown(r)))
                .unwrap_or_default();
            out.push_str(&format!(
                "  {}  {} {}{reason}\n",
                p.verdict.as_str(),
                p.kind,
                shown(&p.route)
            ));
            for t in &p.tests {
                let Some(o) = &t.outcome else {
                    out.push_str(&format!("      -  {} {}\n", t.index, shown(&t.description)));
                    continue;
                };
                let mark = if o.passed { "ok" } else { "failed" };
                let why = o
                    .messages
                    .first()
                    .map(|m| format!(" — {}", shown(m)))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "      {mark:<6} {} {} ({} ms){why}\n",
                    t.index,
                    shown(&t.description),
                    o.millis
                ));
                for m in &o.mismatches {
                    out.push_str(&format!("             warning: {}\n", shown(m)));
                }
            }
        }
    }
    for file in auto_pass {
        out.push_str(&format!(
            "AUTO-PASS  {}: nothing to call (only prompts, skills or documents), so no API test\n",
            shown(file)
        ));
    }
    for b in broken {
        out.push_str(&format!("FAIL  not callable: {}\n", shown(b)));
    }
    for m in structural {
        out.push_str(&m.line());
    }
    let (pass, fail, skip) = report.counts();
    // The structural tests count as tests of their members.
    let structural_pass = structural.iter().filter(|m| m.passed()).count();
    let (pass, fail) = (
        pass + structural_pass,
        fail + structural.len() - structural_pass,
    );
    if let Target::Selection(id) = what {
        let total = pass + fail + skip;
        out.push_str(&format!("{id}: {pass}/{total} Members PASS\n"));
    }
    out.push_str(&format!(
        "{pass} PASS, {fail} FAIL, {skip} SKIP{}{}\n",
        if auto_pass.is_empty() {
            String::new()
        } else {
            format!(", {} AUTO-PASS", auto_pass.len())
        },
        if broken.is_empty() {
            String::new()
        } else {
            format!(", {} files not callable", broken.len())
        }
    ));
    out
}

/// The structural test of a selection's prompt or skill (chapter 10): every reference in it
/// resolves. It passes when the file that defines it has no error; the one-shot test of a skill
/// needs a model and is not run here.
struct Structural {
    id: String,
    /// The file that defines it, when the catalog has it.
    file: Option<String>,
    /// The error codes of that file (empty: passed), or why the member is missing.
    problems: Vec<String>,
}

impl Structural {
    fn of(catalog: &flowmcp_catalog::Catalog, id: &str) -> Structural {
        let Some(entry) = catalog.library().get(id) else {
            return Structural {
                id: id.to_string(),
                file: None,
                problems: vec!["not in the catalog".to_string()],
            };
        };
        let mut problems: Vec<String> = catalog
            .reports()
            .iter()
            .filter(|r| r.file() == entry.file)
            .flat_map(|r| r.diagnostics())
            .filter(|d| d.severity == flowmcp_spec::Severity::Error)
            .map(|d| d.code.as_str().to_string())
            .collect();
        problems.dedup();
        Structural {
            id: id.to_string(),
            file: Some(entry.file.clone()),
            problems,
        }
    }

    fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    fn line(&self) -> String {
        match (self.passed(), &self.file) {
            (true, _) => format!(
                "PASS  {} (structural: its references resolve)\n",
                shown(&self.id)
            ),
            (false, Some(file)) => format!(
                "FAIL  {} (structural): {} in {}\n",
                shown(&self.id),
                self.problems.join(", "),
                shown(file)
            ),
            (false, None) => format!("FAIL  {}: {}\n", shown(&self.id), self.problems.join(", ")),
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
            "file": self.file,
            "verdict": if self.passed() { "PASS" } else { "FAIL" },
            "problems": self.problems,
        })
    }
}
