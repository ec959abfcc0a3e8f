//! Loading a set of schema files into callable tools: every tool's [`ToolDescriptor`], computed
//! once, with the schema data a call needs.
//!
//! * Files go through the sandboxed loader (static scan, QuickJS evaluation); a file with a
//!   loader error (for example SEC001, a dynamic import) is not loaded and is reported in
//!   [`Toolset::problems`]. Shared lists (`_lists/` found walking up from each file) are resolved
//!   for `enum({{list:field}})` parameters and for the handlers factory; when a schema's lists
//!   cannot be found its list-backed parameters accept any string and the descriptor carries a
//!   warning.
//! * Wire names are assigned over the whole set (collisions across schemas get hash suffixes).
//! * Server parameters are resolved once for every name any schema requires (process
//!   environment, then the env file, then the config); tools with a missing one are kept but not
//!   exposed ([`ToolDescriptor::missing_server_params`]).
//! * Handler factories are not built here: a schema's source is kept when it exports `handlers`,
//!   and [`crate::call::Runner`] builds the factory on the schema's first handler call.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use flowmcp_loader::HandlersExport;
use flowmcp_loader::eval::Limits;
use flowmcp_loader::file::{FileKind, load_file};
use flowmcp_spec::model::SchemaMain;
use flowmcp_spec::{Profile, RuleSettings};
use flowmcp_validate::lists::ListRef;
use indexmap::IndexMap;
use rayon::prelude::*;
use serde_json::Value;

use crate::descriptor::{DescribeOptions, ToolDescriptor, assign_wire_names, describe_tool};
use crate::secret::ServerParams;

/// How to load a toolset.
#[derive(Clone, Debug, Default)]
pub struct ToolsetOptions {
    pub profile: Profile,
    pub limits: Limits,
    /// Values from `--env-file` / `.env`.
    pub env_file: IndexMap<String, String>,
    /// Values from the configuration (`serverParams`).
    pub config_params: IndexMap<String, String>,
    /// Replaces the process environment (tests); `None` reads the real environment.
    pub env_override: Option<IndexMap<String, String>>,
}

/// One loaded schema file.
#[derive(Debug)]
pub struct LoadedSchema {
    /// The file on disk.
    pub path: PathBuf,
    /// The name messages use.
    pub display: String,
    /// The typed `main`, without the tools' `tests` and with `output.schema` set to `null` (the
    /// descriptors hold the output schemas; tests are not needed to call tools).
    pub main: SchemaMain,
    /// The module source, kept when the module exports `handlers`.
    pub handlers_source: Option<String>,
    /// The resolved shared lists (`{ name: [entries…] }`), as the handlers factory receives them.
    pub shared_lists: Value,
    /// Why some of the schema's shared lists are missing from [`LoadedSchema::shared_lists`]
    /// (no `_lists/` found, a list or version not found); `None` when all resolved.
    pub lists_note: Option<String>,
}

impl LoadedSchema {
    /// True when the module exports a `handlers` factory.
    pub fn has_handlers(&self) -> bool {
        self.handlers_source.is_some()
    }
}

/// A tool and the index of its schema in [`Toolset::schemas`].
#[derive(Clone, Debug)]
pub struct ToolEntry {
    pub schema: usize,
    pub descriptor: ToolDescriptor,
}

/// A file or tool that could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadProblem {
    /// The file's display name.
    pub file: String,
    /// What went wrong (for loader errors, the first error diagnostic as `CODE message`).
    pub message: String,
}

/// Loaded schemas and their tools.
#[derive(Debug, Default)]
pub struct Toolset {
    /// The profile the toolset was loaded under; calls run under the same one.
    pub profile: Profile,
    pub schemas: Vec<LoadedSchema>,
    /// Every tool, exposed or not, in file then declaration order.
    pub tools: Vec<ToolEntry>,
    pub problems: Vec<LoadProblem>,
    /// Server parameter values for every name the schemas require.
    pub server_params: ServerParams,
    by_name: HashMap<String, usize>,
}

/// The `.mjs` files under `dir`, sorted, skipping hidden directories, `node_modules`, `target` and
/// `_lists` (shared lists are found by the schemas that use them), and symbolic links that lead
/// outside `dir`.
pub fn schema_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    flowmcp_loader::walk::mjs_files(dir, &|name| name == "_lists")
}

enum FileOutcome {
    Schema(Box<LoadedSchema>, Vec<ToolDescriptor>, Vec<LoadProblem>),
    Skipped,
    Failed(LoadProblem),
}

impl Toolset {
    /// Loads `files` (each a path and its display name). Files that are not schemas (lists,
    /// skills, …) are skipped silently.
    pub fn load(files: &[(PathBuf, String)], opts: &ToolsetOptions) -> Toolset {
        let settings = RuleSettings::new(opts.profile);
        let vopts = flowmcp_validate::Options::new(opts.profile);
        // First pass: load every file (in parallel) and read its model.
        let loaded: Vec<FileOutcome> = files
            .par_iter()
            .map(|(path, display)| load_one(path, display, opts, &settings, &vopts))
            .collect();
        let mut set = Toolset {
            profile: opts.profile,
            ..Toolset::default()
        };
        let mut descriptors: Vec<(usize, ToolDescriptor)> = Vec::new();
        for outcome in loaded {
            match outcome {
                FileOutcome::Schema(schema, ds, problems) => {
                    let idx = set.schemas.len();
                    set.schemas.push(*schema);
                    descriptors.extend(ds.into_iter().map(|d| (idx, d)));
                    set.problems.extend(problems);
                }
                FileOutcome::Skipped => {}
                FileOutcome::Failed(p) => set.problems.push(p),
            }
        }
        // Server parameters, once for all names (repeated names are looked up once).
        let names: Vec<&str> = set
            .schemas
            .iter()
            .flat_map(|s| s.main.required_server_params.iter().map(String::as_str))
            .collect();
        set.server_params = match &opts.env_override {
            Some(env) => ServerParams::resolve(
                names.iter().copied(),
                |k| env.get(k).cloned(),
                &opts.env_file,
                &opts.config_params,
            ),
            None => ServerParams::from_process(
                names.iter().copied(),
                &opts.env_file,
                &opts.config_params,
            ),
        };
        // A load problem may quote a file's text (say, a `.env` file given a `.mjs` name): every
        // value the env file and the configuration hold is hidden, as are the resolved parameters.
        if !set.problems.is_empty() {
            let mut hide = set.server_params.clone();
            for (k, v) in opts.env_file.iter().chain(opts.config_params.iter()) {
                hide.insert(format!("{k} (file)"), v.clone());
            }
            for p in &mut set.problems {
                p.message = hide.redact(&p.message);
            }
        }
        let (idx, mut ds): (Vec<usize>, Vec<ToolDescriptor>) = descriptors.into_iter().unzip();
        for d in &mut ds {
            d.missing_server_params = set
                .server_params
                .missing(d.required_server_params.iter().map(String::as_str));
        }
        assign_wire_names(&mut ds);
        set.tools = idx
            .into_iter()
            .zip(ds)
            .map(|(schema, descriptor)| ToolEntry { schema, descriptor })
            .collect();
        for (i, t) in set.tools.iter().enumerate() {
            set.by_name
                .entry(t.descriptor.wire_name.clone())
                .or_insert(i);
            set.by_name.entry(t.descriptor.id.to_string()).or_insert(i);
        }
        set
    }

    /// Loads every schema file under `dir` (see [`schema_files`]); a symbolic link leading
    /// outside `dir` is not followed and is reported as a problem.
    pub fn load_dir(dir: &Path, opts: &ToolsetOptions) -> std::io::Result<Toolset> {
        let walk = flowmcp_loader::walk::walk_mjs(dir, &|name| name == "_lists")?;
        let files: Vec<(PathBuf, String)> = walk
            .files
            .into_iter()
            .map(|p| {
                let display = flowmcp_spec::display_path(&p);
                (p, display)
            })
            .collect();
        let mut set = Toolset::load(&files, opts);
        for link in walk.outside_links {
            set.problems.push(LoadProblem {
                file: flowmcp_spec::display_path(&link),
                message: "a symbolic link that leads outside the catalog; not followed".into(),
            });
        }
        Ok(set)
    }

    /// The tool with this wire name or Primitive-ID (`namespace/tool/name`).
    pub fn find(&self, name: &str) -> Option<&ToolEntry> {
        self.by_name.get(name).and_then(|&i| self.tools.get(i))
    }

    /// The schema a tool belongs to.
    pub fn schema_of(&self, entry: &ToolEntry) -> &LoadedSchema {
        &self.schemas[entry.schema]
    }

    /// Exposed tools only.
    pub fn exposed(&self) -> impl Iterator<Item = &ToolEntry> {
        self.tools.iter().filter(|t| t.descriptor.is_exposed())
    }

    /// Tools ranked by how well they match `query` (see [`score`]); ties in wire-name order.
    /// Tools that match no term are left out.
    pub fn search(&self, query: &str) -> Vec<(u32, &ToolEntry)> {
        let terms: Vec<String> = query
            .split_whitespace()
            .map(str::to_lowercase)
            .filter(|t| !t.is_empty())
            .collect();
        let mut hits: Vec<(u32, &ToolEntry)> = self
            .tools
            .iter()
            .map(|t| (score(&terms, t, &self.schemas[t.schema].main), t))
            .filter(|(s, _)| *s > 0)
            .collect();
        hits.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| a.1.descriptor.wire_name.cmp(&b.1.descriptor.wire_name))
        });
        hits
    }

    /// How many tools are exposed and hidden, and the hidden ones' missing variables.
    pub fn exposure(&self) -> (usize, usize, BTreeMap<String, usize>) {
        let mut missing = BTreeMap::new();
        let mut exposed = 0;
        let mut hidden = 0;
        for t in &self.tools {
            if t.descriptor.is_exposed() {
                exposed += 1;
            } else {
                hidden += 1;
                for m in &t.descriptor.missing_server_params {
                    *missing.entry(m.clone()).or_insert(0) += 1;
                }
            }
        }
        (exposed, hidden, missing)
    }
}

/// The relevance of a tool for lower-cased query `terms`: per term, the best of tool name equal
/// (12) or containing it (6), an alias equal (10) or containing it (5), the search hint (4),
/// a schema tag (3), the namespace (2), the description (1). Terms add up; a tool matching no term
/// scores 0.
pub fn score(terms: &[String], t: &ToolEntry, main: &SchemaMain) -> u32 {
    let d = &t.descriptor;
    let name = d.tool.to_lowercase();
    let desc = d.description.to_lowercase();
    let (hint, aliases) = match main.tools.get(&d.tool).and_then(|tool| tool.meta.as_ref()) {
        Some(m) => (
            m.search_hint.to_lowercase(),
            m.aliases
                .iter()
                .map(|a| a.to_lowercase())
                .collect::<Vec<_>>(),
        ),
        None => (String::new(), Vec::new()),
    };
    let tags: Vec<String> = main.tags.iter().map(|t| t.to_lowercase()).collect();
    let ns = d.namespace.to_lowercase();
    let mut total = 0;
    for term in terms {
        let mut best = 0;
        let mut take = |s: u32| best = best.max(s);
        if name == *term {
            take(12);
        } else if name.contains(term.as_str()) {
            take(6);
        }
        if aliases.iter().any(|a| a == term) {
            take(10);
        } else if aliases.iter().any(|a| a.contains(term.as_str())) {
            take(5);
        }
        if hint.contains(term.as_str()) {
            take(4);
        }
        if tags.iter().any(|t| t.contains(term.as_str())) {
            take(3);
        }
        if ns.contains(term.as_str()) {
            take(2);
        }
        if desc.contains(term.as_str()) {
            take(1);
        }
        total += best;
    }
    total
}

fn load_one(
    path: &Path,
    display: &str,
    opts: &ToolsetOptions,
    settings: &RuleSettings,
    vopts: &flowmcp_validate::Options,
) -> FileOutcome {
    let loaded = load_file(path, display, &opts.limits, settings);
    if !matches!(loaded.kind, FileKind::Schema | FileKind::Unknown) {
        return FileOutcome::Skipped;
    }
    if loaded.has_errors() {
        let first = loaded
            .diagnostics
            .iter()
            .find(|d| d.severity == flowmcp_spec::Severity::Error);
        return FileOutcome::Failed(LoadProblem {
            file: display.to_string(),
            message: first.map_or_else(
                || "the file could not be loaded".to_string(),
                |d| format!("{} {}", d.code.as_str(), d.message),
            ),
        });
    }
    let Some(exports) = loaded.exports.as_ref() else {
        return FileOutcome::Skipped;
    };
    let Some(main_json) = exports.get("main") else {
        return FileOutcome::Skipped;
    };
    let mut main = match SchemaMain::from_json(main_json) {
        Ok(m) => m,
        Err(e) => {
            return FileOutcome::Failed(LoadProblem {
                file: display.to_string(),
                message: format!("main cannot be read: {e}"),
            });
        }
    };
    let has_handlers = matches!(exports.handlers, HandlersExport::Function { .. });
    let refs = ListRef::from_main(main_json);
    let scope = if refs.is_empty() {
        None
    } else {
        Some(flowmcp_validate::lists::ListDiscovery::global().scope_for(path, display, vopts))
    };
    let registry = scope.as_ref().and_then(|s| s.registry());
    let resolved = registry.map(|r| r.resolve(&refs));
    let shared_lists = resolved
        .as_ref()
        .map_or_else(|| Value::Object(Default::default()), |r| r.to_json());
    let resolver = |l: &str, f: &str| resolved.as_ref().and_then(|r| r.field_values(l, f));
    let lists: Option<&crate::descriptor::ListResolver<'_>> = if resolved.is_some() {
        Some(&resolver)
    } else {
        None
    };
    let dopts = DescribeOptions {
        profile: opts.profile,
        lists,
    };
    let mut descriptors = Vec::new();
    let mut problems = Vec::new();
    let empty = ServerParams::new();
    for name in main.tools.keys() {
        match describe_tool(&main, name, &empty, dopts) {
            Ok(d) => descriptors.push(d),
            Err(e) => problems.push(LoadProblem {
                file: display.to_string(),
                message: e.to_string(),
            }),
        }
    }
    // Test cases are not needed to call tools, and the output schemas live on in the descriptors:
    // together they are most of a catalog's data.
    for tool in main.tools.values_mut() {
        tool.tests = Vec::new();
        if let Some(o) = tool.output.as_mut() {
            o.schema = Value::Null;
        }
    }
    let handlers_source = if has_handlers {
        loaded.source.clone()
    } else {
        None
    };
    let lists_note = match (&scope, &resolved) {
        (Some(scope), None) => Some(format!(
            "its shared lists were not loaded: {}",
            scope
                .missing_reason()
                .unwrap_or_else(|| "no list registry".to_string())
        )),
        (_, Some(r)) if !r.is_ok() => Some(format!(
            "some of its shared lists were not loaded: {}",
            r.errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )),
        _ => None,
    };
    FileOutcome::Schema(
        Box::new(LoadedSchema {
            path: path.to_path_buf(),
            display: display.to_string(),
            main,
            handlers_source,
            shared_lists,
            lists_note,
        }),
        descriptors,
        problems,
    )
}
