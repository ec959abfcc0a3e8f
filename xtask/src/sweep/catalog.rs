//! What a sweep reads from the schema files besides the [`Toolset`]: the tools' `tests` (the
//! loaded model drops them), the server parameters every schema names, and where each tool's
//! static request (root, headers, path, parameter values) uses a server parameter. Then the list
//! of calls: every tool once per test and once with `{}`, grouped by schema.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use flowmcp_catalog::{Catalog, CatalogOptions};
use flowmcp_loader::HandlersExport;
use flowmcp_loader::Limits;
use flowmcp_loader::load_file;
use flowmcp_runtime::{LoadProblem, SchemaSource, Toolset, ToolsetOptions};
use flowmcp_spec::model::SchemaMain;
use flowmcp_spec::{Profile, RuleSettings};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One schema file, read directly.
#[derive(Clone, Debug, Default)]
pub(super) struct FileInfo {
    /// `main.requiredServerParams`.
    pub declared: Vec<String>,
    /// Every name in a `{{SERVER_PARAM:NAME}}` anywhere in `main`.
    pub referenced: Vec<String>,
    /// Per tool: its tests and the text of its static request.
    pub tools: HashMap<String, ToolInfo>,
    /// The source mentions `executeRequest` (its handlers may fetch with any declared parameter).
    pub may_execute: bool,
}

/// One tool of a [`FileInfo`].
#[derive(Clone, Debug, Default)]
pub(super) struct ToolInfo {
    pub tests: Vec<Map<String, Value>>,
    /// `root`, the schema's and the tool's headers, the path and the parameters' positions, as
    /// JSON text: the places a server parameter may be put without handlers.
    pub request_text: String,
}

impl FileInfo {
    /// Whether the tool's static request uses `param` (as `{{SERVER_PARAM:P}}`, or `{{P}}` under
    /// compat).
    pub(super) fn static_use(&self, tool: &str, param: &str, profile: Profile) -> bool {
        let Some(t) = self.tools.get(tool) else {
            return false;
        };
        t.request_text
            .contains(&format!("{{{{SERVER_PARAM:{param}}}}}"))
            || (profile.is_compat() && t.request_text.contains(&format!("{{{{{param}}}}}")))
    }
}

/// Reads every schema file under `dir` (in parallel), keyed by path.
pub(super) fn read_files(
    dir: &Path,
    profile: Profile,
) -> Result<HashMap<PathBuf, FileInfo>, String> {
    let files = flowmcp_files::walk::mjs_files(dir, &|name| name == "_lists")
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let settings = RuleSettings::new(profile);
    let limits = Limits::default();
    Ok(files
        .par_iter()
        .filter_map(|path| {
            let display = path.display().to_string();
            let loaded = load_file(path, &display, &limits, &settings);
            let main = loaded.exports.as_ref()?.get("main")?;
            let may_execute = loaded
                .source
                .as_deref()
                .is_some_and(|s| s.contains("executeRequest"));
            Some((canonical(path), file_info(main, may_execute)))
        })
        .collect())
}

fn file_info(main: &Value, may_execute: bool) -> FileInfo {
    let declared = main
        .get("requiredServerParams")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut tools = HashMap::new();
    for key in ["routes", "tools"] {
        if let Some(map) = main.get(key).and_then(Value::as_object) {
            for (name, tool) in map {
                tools.insert(name.clone(), tool_info(main, tool));
            }
        }
    }
    FileInfo {
        declared,
        referenced: server_param_names(&main.to_string()),
        tools,
        may_execute,
    }
}

fn tool_info(main: &Value, tool: &Value) -> ToolInfo {
    let tests = tool
        .get("tests")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|t| t.as_object().cloned()).collect())
        .unwrap_or_default();
    let positions: Vec<Value> = tool
        .get("parameters")
        .and_then(Value::as_array)
        .map(|ps| {
            ps.iter()
                .filter_map(|p| p.get("position").cloned())
                .collect()
        })
        .unwrap_or_default();
    let parts = [
        main.get("root").cloned(),
        main.get("headers").cloned(),
        tool.get("path").cloned(),
        tool.get("headers").cloned(),
        Some(Value::Array(positions)),
    ];
    let request_text = parts
        .iter()
        .flatten()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    ToolInfo {
        tests,
        request_text,
    }
}

/// The `NAME`s of `{{SERVER_PARAM:NAME}}` in `text`, each once.
fn server_param_names(text: &str) -> Vec<String> {
    const OPEN: &str = "{{SERVER_PARAM:";
    let mut out: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        rest = &rest[i + OPEN.len()..];
        let Some(end) = rest.find("}}") else { break };
        let name = rest[..end].trim();
        let plausible = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if plausible && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
        rest = &rest[end..];
    }
    out
}

/// Every server parameter name the files declare or reference, in a stable order.
pub(super) fn param_names(files: &HashMap<PathBuf, FileInfo>) -> Vec<String> {
    let mut names: Vec<String> = files
        .values()
        .flat_map(|f| f.declared.iter().chain(&f.referenced).cloned())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Opens `dir` as a catalog (every file validated; only valid schemas are callable) with `env` as
/// the whole environment, and takes its tools.
pub(super) fn load_toolset(
    dir: &Path,
    profile: Profile,
    env: BTreeMap<String, String>,
) -> Result<Toolset, String> {
    let mut opts = CatalogOptions::new(profile);
    opts.env_override = Some(env);
    Catalog::open(dir, &opts)
        .map(Catalog::into_toolset)
        .map_err(|e| format!("cannot load {}: {e}", dir.display()))
}

/// Builds a toolset from every schema file under `dir` without validating it (nor resolving
/// shared lists): hostile schemas must reach the runtime even where validation would stop them, so
/// that its own defences are tested. Files that do not load are left out.
pub(super) fn load_unvalidated(
    dir: &Path,
    profile: Profile,
    env: BTreeMap<String, String>,
) -> Result<Toolset, String> {
    let files = flowmcp_files::walk::mjs_files(dir, &|name| name == "_lists")
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let settings = RuleSettings::new(profile);
    let mut sources = Vec::new();
    let mut problems = Vec::new();
    for path in files {
        let display = path.display().to_string();
        let loaded = load_file(&path, &display, &Limits::default(), &settings);
        let Some(main) = loaded.exports.as_ref().and_then(|e| e.get("main")) else {
            continue;
        };
        match SchemaMain::from_json(main) {
            Ok(main) => {
                let has_handlers = loaded
                    .exports
                    .as_ref()
                    .is_some_and(|e| matches!(e.handlers, HandlersExport::Function { .. }));
                sources.push(SchemaSource {
                    path: canonical(&path),
                    display,
                    main,
                    handlers_source: has_handlers.then(|| loaded.source.clone()).flatten(),
                    lists: None,
                    lists_note: None,
                });
            }
            Err(e) => problems.push(LoadProblem::new(display, e.to_string())),
        }
    }
    Ok(Toolset::from_sources(sources, problems, &{
        let mut built = ToolsetOptions::default();
        built.profile = profile;
        built.env_override = Some(env);
        built
    }))
}

/// `path` with every link and `.`/`..` resolved (as a catalog names its files), or as it is.
pub(super) fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// One tool call of a sweep.
#[derive(Clone, Debug)]
pub(super) struct Job {
    /// Unique over the whole sweep; tags the call's requests.
    pub id: u64,
    /// Index in [`Toolset::tools`].
    pub tool: usize,
    /// Index in [`Toolset::schemas`].
    pub schema: usize,
    pub wire: String,
    pub inputs: Map<String, Value>,
    /// `test 2 (description)` or `{}`.
    pub label: String,
}

/// The calls for every tool whose ID or file contains `only` (all without it), grouped by schema
/// in load order. Numbers start at `*next_id`.
pub(super) fn jobs(
    set: &Toolset,
    files: &HashMap<PathBuf, FileInfo>,
    only: Option<&str>,
    next_id: &mut u64,
) -> Vec<Vec<Job>> {
    let mut groups: Vec<Vec<Job>> = set.schemas().iter().map(|_| Vec::new()).collect();
    for (i, entry) in set.tools().iter().enumerate() {
        let d = &entry.descriptor;
        let schema = set.schema_of(entry);
        let id = d.id.to_string();
        if only.is_some_and(|o| !id.contains(o) && !schema.display.contains(o)) {
            continue;
        }
        let tests = files
            .get(&canonical(&schema.path))
            .and_then(|f| f.tools.get(&d.tool))
            .map(|t| t.tests.as_slice())
            .unwrap_or_default();
        let mut inputs: Vec<(Map<String, Value>, String)> = tests
            .iter()
            .enumerate()
            .map(|(n, t)| {
                let label = match t.get("_description").and_then(Value::as_str) {
                    Some(desc) => format!("test {} ({desc})", n + 1),
                    None => format!("test {}", n + 1),
                };
                let kept = t
                    .iter()
                    .filter(|(k, _)| !k.starts_with('_') || d.param(k).is_some())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                (kept, label)
            })
            .collect();
        inputs.push((Map::new(), "{}".to_string()));
        let Some(group) = groups.get_mut(entry.schema) else {
            continue;
        };
        for (inputs, label) in inputs {
            group.push(Job {
                id: *next_id,
                tool: i,
                schema: entry.schema,
                wire: d.wire_name.clone(),
                inputs,
                label,
            });
            *next_id += 1;
        }
    }
    groups.retain(|g| !g.is_empty());
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_param_names_are_found_once() {
        let t = r#"{"h":"Bearer {{SERVER_PARAM:A_KEY}}","q":"{{SERVER_PARAM:B}}{{SERVER_PARAM:A_KEY}}","x":"{{SERVER_PARAM:bad name}}"}"#;
        assert_eq!(server_param_names(t), vec!["A_KEY", "B"]);
    }

    #[test]
    fn static_use_reads_the_request_parts() {
        let main = serde_json::json!({
            "root": "https://x", "headers": {"K": "{{SERVER_PARAM:A}}"},
            "tools": {"t": {"path": "/p", "parameters": [
                {"position": {"key": "k", "value": "{{B}}", "location": "query"}}],
                "tests": [{"_description": "d", "k": 1}]}}
        });
        let f = file_info(&main, false);
        assert!(f.static_use("t", "A", Profile::Spec));
        assert!(!f.static_use("t", "B", Profile::Spec));
        assert!(f.static_use("t", "B", Profile::Compat));
        assert_eq!(f.tools["t"].tests.len(), 1);
        assert_eq!(f.referenced, vec!["A"]);
    }
}
