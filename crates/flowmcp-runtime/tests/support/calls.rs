//! Loading schemas and calling their tools in tests: schema sources read from files (as a catalog
//! reads them, but without validation: these tests are about the runtime, and hostile schemas must
//! reach it), a transport that allows loopback HTTP, runner options and a runner whose log lines
//! are kept.
#![allow(dead_code)]

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use flowmcp_loader::HandlersExport;
use flowmcp_loader::Limits;
use flowmcp_loader::load_file;
use flowmcp_runtime::{LoadProblem, SchemaSource, Toolset, ToolsetOptions};
use flowmcp_runtime::{Runner, RunnerOptions};
use flowmcp_runtime::{transport::TransportConfig, transport::UreqTransport};
use flowmcp_spec::lists::{ListRef, ListRegistry, SharedList};
use flowmcp_spec::model::SchemaMain;
use flowmcp_spec::{Profile, RuleSettings};
use std::collections::BTreeMap;

/// The shared lists of `<dir>/_lists/`, when there is such a directory.
fn lists_of(dir: &Path, settings: &RuleSettings) -> Option<ListRegistry> {
    let lists_dir = dir.join("_lists");
    let files = flowmcp_files::walk::mjs_files(&lists_dir, &|_| false).ok()?;
    let lists = files
        .iter()
        .filter_map(|p| {
            let loaded = load_file(p, &p.display().to_string(), &Limits::default(), settings);
            let list = loaded.exports.as_ref()?.get("list")?.clone();
            SharedList::from_json(&list, p.display().to_string())
        })
        .collect();
    Some(ListRegistry::new(lists))
}

/// Reads `files` as schema sources (unvalidated), with the lists of `lists_dir/_lists/`.
pub(crate) fn sources(
    files: &[PathBuf],
    lists_dir: &Path,
    profile: Profile,
) -> (Vec<SchemaSource>, Vec<LoadProblem>) {
    let settings = RuleSettings::new(profile);
    let registry = lists_of(lists_dir, &settings);
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for path in files {
        let display = path.display().to_string();
        let loaded = load_file(path, &display, &Limits::default(), &settings);
        let Some(main_json) = loaded.exports.as_ref().and_then(|e| e.get("main")) else {
            if loaded.has_errors() {
                problems.push(LoadProblem::new(
                    display,
                    format!("{:?}", loaded.diagnostics),
                ));
            }
            continue;
        };
        let main = match SchemaMain::from_json(main_json) {
            Ok(m) => m,
            Err(e) => {
                problems.push(LoadProblem::new(display, e.to_string()));
                continue;
            }
        };
        let refs = ListRef::from_main(main_json);
        let lists = registry.as_ref().map(|r| r.resolve(&refs).to_owned_lists());
        let has_handlers = loaded
            .exports
            .as_ref()
            .is_some_and(|e| matches!(e.handlers, HandlersExport::Function { .. }));
        out.push(SchemaSource {
            path: path.clone(),
            display,
            main,
            handlers_source: has_handlers.then(|| loaded.source.clone()).flatten(),
            lists_note: (lists.is_none() && !refs.is_empty())
                .then(|| "its shared lists were not loaded: no _lists/".to_string()),
            lists,
        });
    }
    (out, problems)
}

/// Builds a toolset from `files` with `env` as the whole process environment; asserts that every
/// file loaded.
pub(crate) fn load_files(
    files: &[PathBuf],
    lists_dir: &Path,
    profile: Profile,
    env: BTreeMap<String, String>,
) -> Toolset {
    let (schemas, problems) = sources(files, lists_dir, profile);
    let set = Toolset::from_sources(schemas, problems, &{
        let mut built = ToolsetOptions::default();
        built.profile = profile;
        built.env_override = Some(env);
        built
    });
    assert!(set.problems().is_empty(), "{:?}", set.problems());
    set
}

/// [`load_files`] for the `.mjs` files under `dir` (`_lists/` aside).
pub(crate) fn load(dir: &Path, profile: Profile, env: BTreeMap<String, String>) -> Toolset {
    let files = flowmcp_files::walk::mjs_files(dir, &|name| name == "_lists").expect("walk");
    load_files(&files, dir, profile, env)
}

/// A transport with short limits that may reach loopback over plain HTTP.
pub(crate) fn transport() -> UreqTransport {
    UreqTransport::new({
        let mut built = TransportConfig::default();
        built.connect_timeout = Duration::from_secs(2);
        built.total_timeout = Duration::from_secs(5);
        built.allow_http_loopback = true;
        built
    })
}

/// Runner options with `upstreams` as `(namespace, base URL)` pairs (the profile is the
/// toolset's).
pub(crate) fn opts(upstreams: &[(&str, &str)]) -> RunnerOptions {
    {
        let mut built = RunnerOptions::default();
        for (namespace, url) in upstreams {
            built
                .add_upstream(namespace, url)
                .expect("a test's upstream is https or loopback http");
        }
        built
    }
}

/// Log lines a runner wrote.
pub(crate) type Logs = Rc<RefCell<Vec<String>>>;

/// A runner whose log lines are collected.
pub(crate) fn runner<'t>(
    set: &'t Toolset,
    t: &'t UreqTransport,
    o: RunnerOptions,
) -> (Runner<'t>, Logs) {
    let logs = Rc::new(RefCell::new(Vec::new()));
    let sink = logs.clone();
    let r = Runner::with_log(
        set,
        t,
        o,
        Box::new(move |l: &str| sink.borrow_mut().push(l.to_string())),
    );
    (r, logs)
}
