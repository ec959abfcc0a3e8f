//! The entry points: one file (on disk, in a string, or already loaded) through every rule that
//! applies to its kind, with source positions added to the findings.

use std::path::{Path, PathBuf};

use flowmcp_loader::{FileKind, LoadedFile, load_file, load_source};
use flowmcp_loader::{locate::Key, locate::locate_paths, locate::locate_paths_blanked};
use flowmcp_spec::{Code, Diagnostic, FileReport, RuleSettings, diagnostic::Collector};

use crate::{Options, lists, rules};

/// Validates the file at `path`; `display` is the name diagnostics carry. `lists` is the shared
/// lists the file sees: [`lists::scope_near`] finds them next to the file, a catalog passes its
/// own, [`lists::ListScope::NotSearched`] validates without (list references are then not checked
/// against any list).
pub fn validate_file(
    path: &Path,
    display: &str,
    lists: &lists::ListScope,
    opts: &Options,
) -> FileReport {
    let loaded = load_file(path, display, &opts.limits, &opts.settings);
    let report = validate_loaded_in(loaded, opts, lists, Some(path));
    mark_validated_alone(report, &opts.settings)
}

/// Validates `source` as a file named `name` (the name diagnostics carry; it also decides the
/// kind of a file that exports nothing recognisable, as a path would), without touching the disk:
/// `lists` is the shared lists it sees, as for [`validate_file`]. The name is only a name: no rule
/// looks beside it or resolves it against the current directory (a list is told apart from the
/// registry's list files by the name as given), so the findings do not depend on where the
/// process runs.
///
/// ```
/// use flowmcp_validate::{ListScope, Options, Profile, Severity, validate_str};
///
/// let source = "export const main = { namespace: 'demo' }";
/// let report = validate_str(source, "demo.mjs", &ListScope::NotSearched, &Options::new(Profile::Spec));
/// let errors = report.diagnostics().iter().filter(|d| d.severity == Severity::Error).count();
/// assert!(errors > 0);
/// ```
pub fn validate_str(
    source: &str,
    name: &str,
    lists: &lists::ListScope,
    opts: &Options,
) -> FileReport {
    let path = Path::new(name);
    let mut loaded = load_source(path, name, source, &opts.limits, &opts.settings);
    report_named(&mut loaded, path, lists, opts, rules::Trace::None)
}

/// What the schema rules of one validation read and reported, rule by rule
/// ([`validate_loaded_traced`]). Given to [`validate_edited`] with the file it was made of, it
/// lets the validation of an edited text take, for every rule that read none of the members of
/// `main` the edits changed, what that rule reported before, instead of running it again: a
/// rule reaches its input only through accessors that note what it read.
#[derive(Clone, Debug, Default)]
pub struct RuleTrace<'s> {
    /// The settings and the shared lists the rules ran with, when they were a schema's rules.
    made: Option<(RuleSettings, &'s lists::ListScope)>,
    runs: Vec<Option<rules::Ran>>,
}

/// [`validate_str`] of the text of `first` with `edits` applied (byte ranges of its text, sorted
/// by position, not overlapping), named `name`, when [`flowmcp_loader::reload_edited`] can load
/// that text from `first` without reading it whole (every edit is inside `first`'s literal
/// `main`; see there): the same report, for less work. `None` when it cannot. `first` must have
/// been loaded with the limits and the profile of `opts`; it lends its exports to the edited
/// file and has them back as they were.
///
/// With `trace`, the [`RuleTrace`] of `first`'s validation under settings of which
/// `opts.settings` turns at most some codes off (the profile the same), a rule that read nothing
/// of what the edits changed is not run again: what it reported then is reported. The trace is
/// used only when it was made with this very `lists`.
///
/// ```
/// use flowmcp_validate::{ListScope, Options, Profile, validate_edited, validate_str};
/// use flowmcp_spec::diagnostic::Edit;
///
/// let source = "export const main = {\n    namespace: 'Demo',\n    tags: [ 'x' ]\n}\n";
/// let opts = Options::new(Profile::Spec);
/// let mut first = flowmcp_loader::load_source("d.mjs".as_ref(), "d.mjs", source, &opts.limits, &opts.settings);
/// let at = source.find("'Demo'").unwrap();
/// let edit = Edit { start: at, end: at + 6, text: "'demo'".into() };
/// let scope = ListScope::NotSearched;
/// let again = validate_edited(&mut first, None, &[&edit], "d.mjs", &scope, &opts).unwrap();
/// let edited = source.replace("'Demo'", "'demo'");
/// assert_eq!(again, validate_str(&edited, "d.mjs", &scope, &opts));
/// ```
pub fn validate_edited(
    first: &mut LoadedFile,
    trace: Option<&RuleTrace<'_>>,
    edits: &[&flowmcp_spec::diagnostic::Edit],
    name: &str,
    lists: &lists::ListScope,
    opts: &Options,
) -> Option<FileReport> {
    let path = Path::new(name);
    // A v3 agent's `main` is read as an agent, which would change the borrowed exports.
    if named_agent(path) {
        return None;
    }
    let mut again =
        flowmcp_loader::reload_edited(first, path, edits, &opts.limits, &opts.settings)?;
    let changed = again
        .replaced()
        .fold(rules::Reads::default(), |all, (member, old, new)| {
            all.with(rules::Reads::replaced(member, old, new))
        });
    let trace = trace.filter(|t| t.made.as_ref().is_some_and(|m| std::ptr::eq(m.1, lists)));
    let reuse = match trace {
        Some(RuleTrace {
            made: Some((settings, _)),
            runs,
        }) => rules::Trace::Reuse {
            runs,
            settings,
            changed,
        },
        _ => rules::Trace::None,
    };
    let report = report_named(again.file(), path, lists, opts, reuse);
    again.give_back(first);
    // Every test that checks a fix checks this too: what was taken is what running gives.
    #[cfg(debug_assertions)]
    if trace.is_some() {
        let ran = validate_edited(first, None, edits, name, lists, opts);
        debug_assert_eq!(
            ran.as_ref(),
            Some(&report),
            "a rule's findings were taken from before an edit that changed what it reads"
        );
    }
    Some(report)
}

/// The report of `loaded`, a text validated as a file named `path` ([`validate_str`]).
fn report_named(
    loaded: &mut LoadedFile,
    path: &Path,
    lists: &lists::ListScope,
    opts: &Options,
    trace: rules::Trace<'_>,
) -> FileReport {
    let report = validate_at(loaded, opts, lists, Some(path), false, trace);
    mark_validated_alone(report, &opts.settings)
}

/// Runs the rules that apply to an already loaded file, with the shared lists of `lists` (e.g. the
/// registry of the catalog being validated). `path` is the file on disk, which tells a list file
/// apart from the registry's other files (LST002, LST009–LST011).
pub fn validate_loaded_in(
    mut loaded: LoadedFile,
    opts: &Options,
    lists: &lists::ListScope,
    path: Option<&Path>,
) -> FileReport {
    validate_loaded_mut(&mut loaded, opts, lists, path)
}

/// [`validate_loaded_in`] that leaves the file to the caller (a catalog builds its tools from the
/// same evaluation). When the schema's lists resolve and its `handlers` factory had thrown without
/// them, the factory's shape is read again with the lists (see the crate documentation), and
/// `loaded.exports` is updated.
pub fn validate_loaded_mut(
    loaded: &mut LoadedFile,
    opts: &Options,
    lists: &lists::ListScope,
    path: Option<&Path>,
) -> FileReport {
    validate_at(loaded, opts, lists, path, true, rules::Trace::None)
}

/// [`validate_loaded_mut`], with what each schema rule read and reported: the [`RuleTrace`] that
/// lets [`validate_edited`] of an edit of the file's `main` run only the rules it concerns.
pub fn validate_loaded_traced<'s>(
    loaded: &mut LoadedFile,
    opts: &Options,
    lists: &'s lists::ListScope,
    path: Option<&Path>,
) -> (FileReport, RuleTrace<'s>) {
    let mut trace = RuleTrace::default();
    let report = validate_at(
        loaded,
        opts,
        lists,
        path,
        true,
        rules::Trace::Record(&mut trace.runs),
    );
    if !trace.runs.is_empty() {
        trace.made = Some((opts.settings.clone(), lists));
    }
    (report, trace)
}

/// [`validate_loaded_mut`] for a file at `path`, which is on disk only when `on_disk` says so: a
/// source given as a string (`validate_str`) has a path that is only its name, and then no rule
/// looks beside it or resolves it against the current directory.
pub(crate) fn validate_at(
    loaded: &mut LoadedFile,
    opts: &Options,
    lists: &lists::ListScope,
    path: Option<&Path>,
    on_disk: bool,
    trace: rules::Trace<'_>,
) -> FileReport {
    let disk = path.filter(|_| on_disk);
    rerun_factory_with_lists(loaded, opts, lists);
    let v3_agent = opts.settings.profile.is_compat() && read_v3_agent(loaded, path);
    let mut c = Collector::new(&opts.settings, Some(loaded.display.clone()));
    let mut list_file = false;
    let mut inline_findings = Vec::new();
    if let Some(exports) = &loaded.exports {
        match loaded.kind {
            FileKind::Schema | FileKind::Unknown => {
                let ctx = rules::SchemaCtx::new(exports, opts, loaded)
                    .with_lists(lists)
                    .with_file(disk);
                rules::run_schema_rules(&ctx, &mut c, trace);
            }
            FileKind::List => {
                list_file = true;
                // The registry's lists are known by their canonical paths.
                let canonical: Option<PathBuf> = match (path, on_disk) {
                    (Some(p), true) => {
                        Some(flowmcp_files::named::canonical(p).unwrap_or_else(|_| p.into()))
                    }
                    (p, _) => p.map(Path::to_path_buf),
                };
                lists::check_list_file(
                    exports,
                    lists,
                    canonical.as_deref(),
                    &loaded.display,
                    &mut c,
                );
            }
            FileKind::Skill => {
                let ctx = rules::SchemaCtx::new(exports, opts, loaded).with_file(disk);
                rules::run_skill_rules(&ctx, &mut c);
            }
            FileKind::Prompt => {
                let ctx = rules::SchemaCtx::new(exports, opts, loaded).with_file(disk);
                rules::run_prompt_file_rules(&ctx, &mut c);
            }
            FileKind::Content => {
                let ctx = rules::SchemaCtx::new(exports, opts, loaded).with_file(disk);
                rules::run_content_rules(&ctx, &mut c);
            }
            FileKind::Selection => {
                let ctx = rules::SchemaCtx::new(exports, opts, loaded).with_file(disk);
                rules::run_selection_rules(&ctx, &mut c);
            }
            FileKind::Agent => {
                let ctx = rules::SchemaCtx::new(exports, opts, loaded).with_file(disk);
                rules::run_agent_rules(&ctx, &mut c);
                if let Some(agent) = exports.get("agent") {
                    inline_findings =
                        crate::inline::findings(agent, &loaded.display, opts, |made| {
                            validate_at(made, opts, lists, path, on_disk, rules::Trace::None)
                        });
                }
            }
        }
    }
    let mut diagnostics: Vec<Diagnostic> = loaded.diagnostics.clone();
    diagnostics.extend(c.finish());
    diagnostics.extend(inline_findings);
    drop_duplicate_sec017(&mut diagnostics);
    if list_file {
        drop_ldr008_for_lists(&mut diagnostics);
    }
    if loaded.source.is_some() && opts.positions {
        // A 3.0 agent manifest's `/agent/…` is `/main/…` in its source.
        let rename = |d: &mut Diagnostic, from: &str, to: &str| {
            if let Some(p) = d.pointer.as_mut() {
                let mut segs = p.segments();
                if segs.first() == Some(&flowmcp_spec::diagnostic::Seg::Key(from.to_string())) {
                    segs[0] = flowmcp_spec::diagnostic::Seg::Key(to.to_string());
                    *p = flowmcp_spec::JsonPath::from_segments(segs);
                }
            }
        };
        if v3_agent {
            diagnostics
                .iter_mut()
                .for_each(|d| rename(d, "agent", "main"));
        }
        // The file's own locator: a literal `main` read with its index is not read again.
        add_positions(&mut diagnostics, |paths| loaded.locate_paths(paths));
        if v3_agent {
            diagnostics
                .iter_mut()
                .for_each(|d| rename(d, "main", "agent"));
        }
    }
    // The rules' fixes are offsets in `source`; a report's are offsets in the text read.
    let shift = loaded.mark_len();
    if shift > 0 {
        for edit in diagnostics
            .iter_mut()
            .filter_map(|d| d.fix.as_mut())
            .flat_map(|f| f.edits.iter_mut())
        {
            edit.start += shift;
            edit.end += shift;
        }
    }
    FileReport::new(loaded.display.clone(), loaded.kind, diagnostics)
}

/// Under `compat`, reads a 3.0 agent manifest as an agent: a file named `agent.mjs` whose `main`
/// export has a `systemPrompt` and no `namespace` (the 3.0 community catalog's form). Its `main`
/// becomes the `agent` export, and `tools` given as an array of IDs becomes the object of
/// `ID: null` the agents chapter defines. Returns whether it did.
fn read_v3_agent(loaded: &mut LoadedFile, path: Option<&Path>) -> bool {
    let named = named_agent(path.unwrap_or(Path::new(&loaded.display)));
    if !named || loaded.kind != FileKind::Schema {
        return false;
    }
    let Some(exports) = loaded.exports.as_mut() else {
        return false;
    };
    let is_v3_agent = exports
        .get("main")
        .and_then(serde_json::Value::as_object)
        .is_some_and(|m| m.contains_key("systemPrompt") && !m.contains_key("namespace"));
    if !is_v3_agent {
        return false;
    }
    let Some(mut main) = exports.data.shift_remove("main") else {
        return false;
    };
    if let Some(serde_json::Value::Array(ids)) = main.get("tools").cloned() {
        let as_object: serde_json::Map<String, serde_json::Value> = ids
            .iter()
            .filter_map(|id| id.as_str())
            .map(|id| (id.to_string(), serde_json::Value::Null))
            .collect();
        main["tools"] = serde_json::Value::Object(as_object);
    }
    exports.data.insert("agent".to_string(), main);
    exports.names.retain(|n| n != "main");
    exports.names.push("agent".to_string());
    loaded.kind = FileKind::Agent;
    loaded.main_literal = None;
    true
}

/// Whether a file at `path` is named as an agent manifest (`agent.mjs`), which a v3 agent's
/// `main` is read as under compat ([`read_v3_agent`]).
fn named_agent(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "agent.mjs")
}

/// A list file without a `list` export gets LST001; the loader's LDR008 (no recognised export) for the
/// same defect is dropped.
fn drop_ldr008_for_lists(diagnostics: &mut Vec<Diagnostic>) {
    if diagnostics.iter().any(|d| d.code == Code::LST001) {
        diagnostics.retain(|d| d.code != Code::LDR008);
    }
}

/// The loader calls a `handlers` factory with empty `sharedLists`; a factory that reads its lists
/// throws there. When the schema's lists can be resolved, the module is evaluated once more with them
/// (deep-frozen, as the runtime will pass them) so that VAL005 sees what the factory really returns.
fn rerun_factory_with_lists(loaded: &mut LoadedFile, opts: &Options, lists: &lists::ListScope) {
    let Some(exports) = &loaded.exports else {
        return;
    };
    if !matches!(
        exports.handlers,
        flowmcp_loader::HandlersExport::Function { shape: Err(_) }
    ) {
        return;
    }
    let (Some(registry), Some(main), Some(source)) =
        (lists.registry(), exports.get("main"), &loaded.source)
    else {
        return;
    };
    let refs = lists::ListRef::from_main(main);
    if refs.is_empty() {
        return;
    }
    let shared = registry.resolve(&refs).to_json();
    if let Ok(again) = flowmcp_loader::eval::evaluate_in(
        &loaded.display,
        source,
        loaded.blanked.as_deref(),
        &opts.limits,
        Some(&shared),
        // As the first evaluation (`load_file`): timers under compat.
        opts.settings.profile.is_compat(),
    ) && let Some(exports) = loaded.exports.as_mut()
    {
        exports.handlers = again.handlers;
        loaded.main_literal = None;
    }
}

/// A non-serialisable value inside a tool test is reported as TST005 (inside a resource query test,
/// RES023); the loader's SEC017 for the same place is dropped so one defect is reported once.
fn drop_duplicate_sec017(diagnostics: &mut Vec<Diagnostic>) {
    let tst005: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.code == Code::TST005 || d.code == Code::RES023)
        .filter_map(|d| d.pointer.as_ref().map(|p| p.pointer()))
        .collect();
    if tst005.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        d.code != Code::SEC017
            || !d.pointer.as_ref().is_some_and(|p| {
                let p = p.pointer();
                tst005
                    .iter()
                    .any(|t| p == *t || p.starts_with(&format!("{t}/")))
            })
    });
}

/// Gives every diagnostic that has a JSON path but no line the position of that value in the source
/// (or of its nearest enclosing value that can be found).
pub(crate) fn add_source_positions(
    source: &str,
    blanked: Option<&str>,
    diagnostics: &mut [Diagnostic],
) {
    add_positions(diagnostics, |paths| match blanked {
        Some(b) => locate_paths_blanked(source, b, paths),
        None => locate_paths(source, paths),
    });
}

/// [`add_source_positions`] with the paths answered by `locate` (one position, or none, for each
/// path asked, in order).
fn add_positions(
    diagnostics: &mut [Diagnostic],
    locate: impl FnOnce(&[Vec<Key>]) -> Vec<Option<flowmcp_loader::locate::Pos>>,
) {
    let wanted: Vec<usize> = diagnostics
        .iter()
        .enumerate()
        .filter(|(_, d)| d.line.is_none() && d.pointer.is_some())
        .map(|(i, _)| i)
        .collect();
    if wanted.is_empty() {
        return;
    }
    let paths: Vec<Vec<Key>> = wanted
        .iter()
        .map(|&i| {
            diagnostics[i]
                .pointer
                .iter()
                .flat_map(|p| p.segments())
                .map(Key::from)
                .collect()
        })
        .collect();
    let found = locate(&paths);
    for (&i, pos) in wanted.iter().zip(found) {
        if let Some(pos) = pos {
            diagnostics[i].line = Some(pos.line);
            diagnostics[i].column = Some(pos.column);
        }
    }
}

/// The checks across files that a file of `kind` gets only in its catalog: a selection's members
/// (SEL003), an agent's tools, files and selections (AGT007, AGT016, AGT030), a skill's required
/// tools and resources and the skills it names (SKL005, SKL006, SKL022), a prompt's
/// `dependsOn` and `references` (PRM006, PRM007).
fn checks_across_files(kind: &str) -> Option<&'static str> {
    match kind {
        "selection" => Some("SEL003"),
        "agent" => Some("AGT007, AGT016, AGT030"),
        "skill" => Some("SKL005, SKL006, SKL022"),
        "prompt" => Some("PRM006, PRM007"),
        _ => None,
    }
}

/// CAT010: a selection, agent, skill or prompt file validated alone — outside a catalog, or by
/// a single-file entry point — gets one info saying which checks across files were not run, so
/// that "valid" is never read as "valid in its catalog". `report` is the file's report under
/// `settings`; the info is added to it (unless the rule is off).
///
/// # Why
///
/// Whether a selection's members exist, or an agent's tools, can only be known from the catalog
/// around the file. Validated on its own such a file has nothing to find wrong there, and a bare
/// "Selection is valid" would hide that the most likely mistakes were not looked for.
pub fn mark_validated_alone(
    report: FileReport,
    settings: &flowmcp_spec::RuleSettings,
) -> FileReport {
    let Some(codes) = checks_across_files(report.kind().as_str()) else {
        return report;
    };
    let mut c = Collector::new(settings, Some(report.file().to_string()));
    c.emit(
        Code::CAT010,
        None,
        format!(
            "Checks across files were not run ({codes}): the {} was validated alone; validate \
             its catalog (the directory with registry.json) for them",
            report.kind()
        ),
    );
    let added = c.finish();
    if added.is_empty() {
        return report;
    }
    let mut report = report;
    report.extend(added);
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowmcp_spec::diagnostic::Edit;

    /// An edit that writes, or removes, a string holding a prompt placeholder in a member no
    /// rule reads by name (the tags) still runs PH004 again: the strings holding a `{{` are a
    /// read of their own, changed by such an edit and by no other (D189). With a trace, the
    /// report is the one of the edited text validated from scratch.
    #[test]
    fn i46_an_edit_that_writes_or_removes_a_placeholder_runs_ph004_again() {
        let opts = Options::new(flowmcp_spec::Profile::Spec);
        let scope = lists::ListScope::NotSearched;
        let plain = "[ 'alpha', 'beta' ]";
        let placed = "[ 'alpha', '{{input:query}}' ]";
        for (before, after, ph004) in [
            (plain, placed, 1),
            (placed, plain, 0),
            (plain, "[ 'alpha', 'gamma' ]", 0),
        ] {
            let source = format!(
                "export const main = {{\n    namespace: 'demo',\n    name: 'Demo',\n    \
                 description: 'A demo',\n    version: '4.2.0',\n    tags: {before},\n    \
                 root: 'https://example.org',\n    tools: {{}}\n}}\n"
            );
            let mut first = flowmcp_loader::load_source(
                "d.mjs".as_ref(),
                "d.mjs",
                &source,
                &opts.limits,
                &opts.settings,
            );
            let (_, trace) = validate_loaded_traced(&mut first, &opts, &scope, None);
            let at = source.find(before).unwrap();
            let edit = Edit {
                start: at,
                end: at + before.len(),
                text: after.into(),
            };
            let again = validate_edited(&mut first, Some(&trace), &[&edit], "d.mjs", &scope, &opts)
                .expect("an edit inside main is loaded from the first load");
            let edited = source.replace(before, after);
            let fresh = validate_str(&edited, "d.mjs", &scope, &opts);
            assert_eq!(again, fresh, "{before} → {after}");
            let found = again
                .diagnostics()
                .iter()
                .filter(|d| d.code == Code::PH004)
                .count();
            assert_eq!(found, ph004, "{before} → {after}");
        }
    }
}
