//! Opening a catalog: every file validated, and only valid schemas made callable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::discovery::{ListDiscovery, on_disk};
use flowmcp_loader::HandlersExport;
use flowmcp_loader::{FileKind, LoadedFile};
use flowmcp_runtime::Envelope;
use flowmcp_runtime::transport::TransportConfig;
use flowmcp_runtime::{
    LoadProblem, SchemaSource, ToolEntry, ToolNames, Toolset, ToolsetOptions, descriptor::Builtin,
    descriptor::query_wire_name, descriptor::reference_tool_name,
};
use flowmcp_runtime::{LogSink, RunnerOptions};
use flowmcp_spec::catalog::{LISTS_DIR, REGISTRY_FILE, Section};
use flowmcp_spec::id::{IdType, defined_text, legacy_query_key, query_name, wire_name};
use flowmcp_spec::lists::ListScope;
use flowmcp_spec::model::SchemaMain;
use flowmcp_spec::{Code, FileReport, Severity, diagnostic::display_path};
use flowmcp_validate::prompts::{Library, Part, PartKind};
use flowmcp_validate::{catalog::CatalogFile, catalog::validate_catalog_files};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use crate::CatalogError;
use crate::caller::{Caller, Rejected, Tools, code_list};
use crate::documents::Documents;
use crate::primitives::{Primitives, PromptSource, ResourceSource};
use std::sync::Arc;

/// How to open a catalog and call its tools.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct CatalogOptions {
    /// Validation: the profile (which is also the profile tools are called under), rule
    /// overrides, sandbox limits, extra allowed libraries.
    pub validation: flowmcp_validate::Options,
    /// Server parameter values from `--env-file` / `.env` (the process environment wins).
    pub env_file: BTreeMap<String, String>,
    /// Server parameter values from the configuration (the last source).
    pub config_params: BTreeMap<String, String>,
    /// Replaces the process environment (tests, embedding); `None` reads the real one.
    pub env_override: Option<BTreeMap<String, String>>,
    /// The HTTP client used by [`Catalog::call`] and [`Catalog::caller`].
    pub transport: TransportConfig,
    /// Per-call settings: upstreams, cache, limits.
    pub runner: RunnerOptions,
    /// How tools are named on the wire (MCP `tools/list`, listings, lookups by name):
    /// [`ToolNames::Spec`] (`<tool>_<namespace>`, the default) or [`ToolNames::Reference`] (the
    /// JavaScript reference's snake_case names). Primitive-IDs are the same under both.
    pub tool_names: ToolNames,
    /// Keep each valid file's source after opening, so that [`Catalog::reload`] reads only the
    /// files that changed and a file that breaks keeps serving its previous good version. Costs
    /// the memory of a second copy of every schema; without it a reload reads every file again
    /// and a broken file's tools go away.
    pub reloadable: bool,
    /// Where to keep and find each file's validation and exports
    /// ([`ResultCache`](crate::results::ResultCache)); `None` (the default) validates every file
    /// afresh. A file whose bytes, shared lists, options and checked files are unchanged is then
    /// not evaluated nor validated again; what the catalog makes of it is the same.
    pub results: Option<Arc<crate::results::ResultCache>>,
}

impl CatalogOptions {
    /// A discovery of shared lists for one opening, with the result cache when there is one.
    pub(crate) fn discovery(&self) -> ListDiscovery {
        match &self.results {
            Some(r) => ListDiscovery::with_results(Arc::clone(r)),
            None => ListDiscovery::new(),
        }
    }
}

impl CatalogOptions {
    /// These options, with the file checks of `flowmcp-resources` in the validation options when
    /// they give none: a catalog's files are on disk, and the databases they name are checked
    /// (RES020, RES032–RES034).
    fn with_file_checks(&self) -> std::borrow::Cow<'_, CatalogOptions> {
        match on_disk(&self.validation) {
            std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(self),
            std::borrow::Cow::Owned(validation) => std::borrow::Cow::Owned(CatalogOptions {
                validation,
                ..self.clone()
            }),
        }
    }

    /// The values of a `.env` file the user named (`--env-file`, the user's and the project's
    /// `.env`), for the server parameters of [`RunnerOptions`]: one `KEY=VALUE` per line, split at
    /// the first `=`, key and value trimmed, no unquoting; blank lines, `#` lines and lines
    /// without a key skipped; a later line overrides an earlier one; at most 1 MiB. The error
    /// names neither the path nor the content.
    pub fn read_env_file(
        path: &Path,
    ) -> std::io::Result<std::collections::BTreeMap<String, String>> {
        flowmcp_runtime::secret::read_env_file(path)
    }

    /// The defaults under `profile`.
    pub fn new(profile: flowmcp_spec::Profile) -> CatalogOptions {
        CatalogOptions {
            validation: flowmcp_validate::Options::new(profile),
            ..CatalogOptions::default()
        }
    }

    /// Points `namespace` at `base_url` instead of its schemas' `root` (`--upstream NS=URL`):
    /// the URL is checked as the transport will read it (absolute `https://`, or plain `http://`
    /// to a loopback host, without user info, query or fragment), and a loopback `http://` URL
    /// also allows plain HTTP to loopback hosts, so that one call is enough to send a namespace
    /// to a local server. The schema's origin check then applies to the new base.
    pub fn upstream(
        mut self,
        namespace: &str,
        base_url: &str,
    ) -> Result<CatalogOptions, flowmcp_runtime::transport::UpstreamError> {
        self.add_upstream(namespace, base_url)?;
        Ok(self)
    }

    /// [`CatalogOptions::upstream`] on options held by reference.
    pub fn add_upstream(
        &mut self,
        namespace: &str,
        base_url: &str,
    ) -> Result<(), flowmcp_runtime::transport::UpstreamError> {
        if self.runner.add_upstream(namespace, base_url)? {
            self.transport.allow_http_loopback = true;
        }
        Ok(())
    }
}

/// A catalog opened as one whole: the reports of every file, and the tools of the valid ones.
///
/// `Catalog` is `Send + Sync`: one catalog can serve many threads. A call runs JavaScript
/// sandboxes, which are tied to a thread, so calling goes through a [`Caller`] made on (and kept
/// by) each thread that calls — [`Catalog::caller`] — which reuses the sandboxes of the schemas
/// it has called. [`Catalog::call`] is a one-off convenience that makes a caller for one call.
#[derive(Debug)]
pub struct Catalog {
    pub(crate) root: PathBuf,
    manifest: bool,
    reports: Vec<FileReport>,
    /// Every file read, with what it gave (kept for [`Catalog::reload`]).
    pub(crate) files: Vec<FileState>,
    /// Where the files came from (how to find them again).
    pub(crate) origin: Origin,
    /// The options the catalog was opened with.
    pub(crate) options: CatalogOptions,
    /// The tools: the valid files', the refused ones, and how calls go out.
    tools: Tools,
    /// The reports the prompt library added findings to, as the files' own rules left them (a
    /// reload builds the library again from these), by index in `reports`.
    own_reports: HashMap<usize, FileReport>,
    /// The shared lists prompts and skills see.
    lists: ListScope,
    /// The catalog's prompts and skills.
    library: Arc<Library>,
    primitives: Primitives,
}

/// What one file gives the catalog after validation.
#[derive(Clone, Debug)]
pub(crate) enum Callable {
    /// A valid schema.
    Source(Box<SchemaSource>),
    /// A schema with errors: its tools by Primitive-ID and wire name, and the problem to show.
    Rejected(Vec<(String, Rejected)>, LoadProblem),
    /// A problem that leaves nothing to call.
    Problem(LoadProblem),
    /// Not a schema.
    Nothing,
    /// What the file gave went to the tools without a copy being kept (the catalog was not
    /// opened [`reloadable`](CatalogOptions::reloadable)); a reload reads the file again.
    Taken,
}

/// When a file was last changed, as far as a reload needs to know: its modification time and
/// length (`None` when it could not be read).
pub(crate) type Stamp = Option<(std::time::SystemTime, u64)>;

/// The stamp of `path` now.
pub(crate) fn stamp(path: &Path) -> Stamp {
    let m = flowmcp_files::named::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// One file of a catalog: where it is, its stamp when it was read, and what it gave (its report
/// is kept once, in [`Catalog::reports`]).
#[derive(Clone, Debug)]
pub(crate) struct FileState {
    pub(crate) path: PathBuf,
    pub(crate) stamp: Stamp,
    pub(crate) callable: Callable,
    /// Whether the file may give tools (a manifest lists it as a schema, or there is no manifest).
    pub(crate) listed: bool,
    /// What the file gives the catalog's prompts and skills.
    pub(crate) part: Part,
    /// Whether what the file gives (`callable` and `part`) is a version without errors: the one
    /// on disk, or the one a reload kept when the file broke.
    pub(crate) good: bool,
}

/// Where a catalog's files come from.
#[derive(Clone, Debug)]
pub(crate) enum Origin {
    /// Schema files named one by one.
    Files,
    /// Every `.mjs` file under the root (`_lists/` aside).
    Tree,
    /// The root's `registry.json`; the stamps are those of the manifest and of every shared-list
    /// file when the catalog was read (a change to any of them reads the catalog again whole).
    Manifest(Vec<(PathBuf, Stamp)>),
}

/// One file just read: its state and its report.
pub(crate) struct ReadFile {
    pub(crate) state: FileState,
    pub(crate) report: FileReport,
}

/// What reading a catalog gave: the manifest's report (when there is one), every file, and
/// problems met on the way.
#[derive(Default)]
pub(crate) struct Contents {
    pub(crate) catalog_report: Option<FileReport>,
    pub(crate) files: Vec<ReadFile>,
    pub(crate) problems: Vec<LoadProblem>,
    /// The catalog's shared lists, for `{{listName:field}}` in prompts and skills.
    pub(crate) lists: ListScope,
}

impl Catalog {
    /// Opens the catalog at `path`: a directory with `registry.json` (the manifest: only the
    /// schemas it lists become callable; a listed file that is missing and a schema file it does not
    /// list are reported), a directory without one (every `.mjs` file under it, `_lists/` aside,
    /// is read; links leading outside are not followed), or a single schema file.
    ///
    /// A `registry.json` that is a grading list, not a manifest
    /// ([`flowmcp_validate::catalog::is_grading_list`]; the public schema collection has one at its root),
    /// is named in one problem: under `compat` the directory is read as a directory without a
    /// manifest; under `spec` it is a catalog whose manifest has an error (CAT001), which serves
    /// nothing.
    ///
    /// Every file is validated before its tools become callable, from the same evaluation that
    /// gives the tools. A file with errors exposes nothing callable; calling one of its tools fails
    /// with a message naming the file and its error codes. Fails only when `path` cannot be read.
    pub fn open(path: &Path, opts: &CatalogOptions) -> Result<Catalog, CatalogError> {
        let opts = &*opts.with_file_checks();
        let meta = flowmcp_files::named::metadata(path).map_err(|e| CatalogError::io(path, e))?;
        let manifest = meta.is_dir() && flowmcp_files::named::is_file(path.join(REGISTRY_FILE));
        let grading = manifest && crate::manifest::has_grading_list(path);
        let compat = opts.validation.settings.profile == flowmcp_spec::Profile::Compat;
        let (origin, contents) = if !meta.is_dir() {
            let files = vec![path.to_path_buf()];
            let root = path.parent().unwrap_or(Path::new("."));
            let contents = read_files(root, &files, opts);
            (Origin::Files, contents)
        } else if manifest && !(grading && compat) {
            // Stamped before reading: a change made while reading is seen by the next reload.
            let stamps = manifest_stamps(path);
            let mut contents = read_manifest(path, &display_path(path), opts);
            if grading {
                contents.problems.push(grading_problem(path, false));
            }
            (Origin::Manifest(stamps), contents)
        } else {
            (Origin::Tree, read_tree(path, opts)?)
        };
        Ok(Catalog::assemble(
            path.to_path_buf(),
            origin,
            contents,
            opts,
        ))
    }

    /// Opens the schema files `paths` as one catalog (no manifest; each file sees the shared lists
    /// found walking up from it, as a single file does). A file named twice is read once. Fails
    /// when `paths` is empty or one of them is not a readable file; [`Catalog::root`] is then the
    /// deepest directory holding all of them.
    pub fn open_files(paths: &[PathBuf], opts: &CatalogOptions) -> Result<Catalog, CatalogError> {
        let opts = &*opts.with_file_checks();
        let mut unique: Vec<PathBuf> = Vec::with_capacity(paths.len());
        let mut seen = std::collections::HashSet::new();
        for p in paths {
            let meta = flowmcp_files::named::metadata(p).map_err(|e| CatalogError::io(p, e))?;
            if meta.is_dir() {
                return Err(CatalogError::Entry(format!(
                    "{}: a directory; give one catalog directory, or schema files",
                    p.display()
                )));
            }
            let key = flowmcp_files::named::canonical(p).map_err(|e| CatalogError::io(p, e))?;
            if seen.insert(key) {
                unique.push(p.clone());
            }
        }
        let root = common_dir(&unique).ok_or_else(|| {
            CatalogError::Entry("no schema files given; name at least one".into())
        })?;
        let contents = read_files(&root, &unique, opts);
        Ok(Catalog::assemble(root, Origin::Files, contents, opts))
    }

    /// The catalog from what reading it gave.
    pub(crate) fn assemble(
        root: PathBuf,
        origin: Origin,
        contents: Contents,
        opts: &CatalogOptions,
    ) -> Catalog {
        let Contents {
            catalog_report,
            files,
            mut problems,
            lists,
        } = contents;
        let manifest = catalog_report.is_some();
        let mut reports = Vec::with_capacity(files.len() + 1);
        reports.extend(catalog_report);
        let profile = opts.validation.settings.profile;
        let mut sources = Vec::new();
        let mut rejected = HashMap::new();
        let mut unloaded = Vec::new();
        let mut states = Vec::with_capacity(files.len());
        for ReadFile { mut state, report } in files {
            if state.listed
                && let PartKind::Unloaded(u) = &state.part.kind
                && let Some(ns) = &u.namespace
            {
                unloaded.push((
                    ns.clone(),
                    Rejected {
                        tool: String::new(),
                        file: report.file().to_string(),
                        codes: error_codes(&report),
                        cause: None,
                    },
                ));
            }
            reports.push(report);
            if state.listed {
                // A reloadable catalog keeps a copy of what each file gave; otherwise it moves.
                let callable = if opts.reloadable {
                    state.callable.clone()
                } else {
                    std::mem::replace(&mut state.callable, Callable::Taken)
                };
                match callable {
                    Callable::Source(s) => sources.push(*s),
                    Callable::Rejected(tools, problem) => {
                        for (key, r) in tools {
                            rejected.entry(key).or_insert(r);
                        }
                        problems.push(problem);
                    }
                    Callable::Problem(p) => problems.push(p),
                    Callable::Nothing | Callable::Taken => {}
                }
            }
            states.push(state);
        }
        let tools = Toolset::from_sources(sources, problems, &{
            let mut built = ToolsetOptions::default();
            built.profile = profile;
            built.env_file = opts.env_file.clone();
            built.config_params = opts.config_params.clone();
            built.env_override = opts.env_override.clone();
            built.tool_names = opts.tool_names;
            built
        });
        // Why each of them cannot be loaded, as the (redacted) load problems say it.
        for (_, r) in &mut unloaded {
            r.cause = tools
                .problems()
                .iter()
                .find(|p| p.file == r.file)
                .map(|p| p.message.clone());
        }
        let mut primitives = Primitives::default();
        let documents = Documents::of(&tools);
        if !documents.is_empty() {
            primitives.set_documents(Arc::new(documents));
        }
        // Prompts and skills, with the findings that need the whole catalog.
        let parts: Vec<Part> = states.iter().map(|s| s.part.clone()).collect();
        let (library, found) =
            flowmcp_validate::prompts::build(&parts, lists.registry(), &opts.validation.settings);
        let mut own_reports = HashMap::new();
        let offset = usize::from(manifest);
        for (i, diagnostics) in found {
            let Some(report) = reports.get_mut(i + offset) else {
                continue;
            };
            own_reports.insert(i + offset, report.clone());
            flowmcp_validate::prompts::attach(
                report,
                diagnostics,
                parts[i].source.as_deref(),
                opts.validation.positions,
            );
        }
        let library = Arc::new(library);
        if !library.is_empty() {
            primitives.set_library(Arc::new(crate::prompts::CatalogPrompts::new(
                Arc::clone(&library),
                lists.clone(),
            )));
        }
        Catalog {
            root,
            manifest,
            reports,
            files: states,
            origin,
            options: opts.clone(),
            tools: Tools::new(
                tools,
                rejected,
                unloaded,
                &opts.transport,
                opts.runner.clone(),
            ),
            own_reports,
            lists,
            library,
            primitives,
        }
    }

    /// Where the files came from and what reading them gave, to read the catalog again.
    pub(crate) fn into_parts(mut self) -> (Origin, Contents) {
        for (i, own) in std::mem::take(&mut self.own_reports) {
            if let Some(r) = self.reports.get_mut(i) {
                *r = own;
            }
        }
        let mut reports = self.reports.into_iter();
        let catalog_report = if self.manifest { reports.next() } else { None };
        let files = self
            .files
            .into_iter()
            .zip(reports)
            .map(|(state, report)| ReadFile { state, report })
            .collect();
        let contents = Contents {
            catalog_report,
            files,
            problems: Vec::new(),
            lists: self.lists,
        };
        (self.origin, contents)
    }

    /// The report of the file at `index` in [`Catalog::files`], as its own rules left it
    /// (without what the prompt library added).
    pub(crate) fn file_report(&self, index: usize) -> Option<&FileReport> {
        let at = index + usize::from(self.manifest);
        self.own_reports.get(&at).or_else(|| self.reports.get(at))
    }

    /// The shared lists the catalog's prompts and skills see.
    pub(crate) fn lists(&self) -> &ListScope {
        &self.lists
    }

    /// Takes over the prompt and resource sources registered with `before` (a reload keeps
    /// them; the catalog's own documents are those of the files read now).
    pub(crate) fn carry_primitives(&mut self, before: &Catalog) {
        self.primitives.carry_registered(&before.primitives);
    }

    /// The path the catalog was opened from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the catalog has a `registry.json` manifest.
    pub fn has_manifest(&self) -> bool {
        self.manifest
    }

    /// The validation reports: the manifest's first (when there is one), then every file's.
    pub fn reports(&self) -> &[FileReport] {
        &self.reports
    }

    /// Whether any report has an error.
    pub fn has_errors(&self) -> bool {
        self.reports.iter().any(|r| r.counts().errors > 0)
    }

    /// The callable tools and everything known about them (descriptors, problems, server
    /// parameters).
    pub fn toolset(&self) -> &Toolset {
        self.tools.toolset()
    }

    /// The callable tools, without the rest of the catalog (for a caller that manages runners
    /// itself).
    pub fn into_toolset(self) -> Toolset {
        self.tools.into_toolset()
    }

    /// Every callable tool (exposed or hidden by a missing server parameter), in file then
    /// declaration order.
    pub fn list(&self) -> &[ToolEntry] {
        self.tools.toolset().tools()
    }

    /// Tools ranked by how well they match `query` (name, aliases, search hint, tags, namespace,
    /// description).
    pub fn search(&self, query: &str) -> Vec<(u32, &ToolEntry)> {
        self.tools.toolset().search(query)
    }

    /// The callable tool with this Primitive-ID or wire name.
    pub fn find(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.find(name)
    }

    /// The tool of an invalid file with this Primitive-ID or wire name, if any: a tool its `main`
    /// names, or — for a file that cannot be loaded at all — any tool of the namespace its text
    /// shows that no valid file gives.
    pub fn rejected(&self, name: &str) -> Option<Rejected> {
        self.tools.rejected(name)
    }

    /// A caller for the current thread, logging to standard error. Keep it for the thread's calls:
    /// it reuses the JavaScript sandboxes of the schemas it has called.
    pub fn caller(&self) -> Caller<'_> {
        self.tools.caller()
    }

    /// A caller that neither reads nor writes the preload cache (tests bypass it, chapter 11)
    /// and drops handler log lines; with `resources`, resources are placed there instead.
    pub(crate) fn caller_without_cache(
        &self,
        resources: Option<flowmcp_runtime::ResourceOptions>,
    ) -> Caller<'_> {
        self.tools.caller_without_cache(resources)
    }

    /// [`Catalog::caller`] with its own log sink (handler `console.*`, cache messages).
    pub fn caller_with_log(&self, log: LogSink) -> Caller<'_> {
        self.tools.caller_with_log(log)
    }

    /// The preload cache the catalog's calls use, if any (a directory, or Redis shared by
    /// replicas).
    pub fn preload_cache(&self) -> Option<&flowmcp_runtime::cache::PreloadCache> {
        self.runner().cache.as_ref()
    }

    /// The options every caller's runner starts from (the catalog's `runner` options).
    pub(crate) fn runner(&self) -> &RunnerOptions {
        self.tools.runner()
    }

    /// The catalog's prompts and resources: every source registered with it.
    pub fn primitives(&self) -> &Primitives {
        &self.primitives
    }

    /// The catalog's own prompts and skills: provider prompts (`main.prompts` with their
    /// content files), agent prompts, and skills, by ID. A prompt or skill whose references do
    /// not resolve is still here (and renders them as `[ERROR: …]`); its file's report names
    /// them.
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// The catalog's prompts and skills ranked by how well they match `query` (ID and name
    /// first, then `whenToUse`, then the description); the best first.
    pub fn search_prompts(&self, query: &str) -> Vec<(u32, &crate::prompts::PromptEntry)> {
        crate::prompts::search(&self.library, query)
    }

    /// Every prompt and skill to serve, as MCP lists them (the catalog's own first, then those
    /// of registered sources): named by ID (`{owner}/prompt/{name}`, `{owner}/skill/{name}`),
    /// with their arguments.
    pub fn prompts(&self) -> Vec<crate::primitives::PromptInfo> {
        self.primitives.prompts()
    }

    /// Renders the prompt or skill `id` with `arguments` (text or typed JSON per input): a
    /// skill's prefill runs first, through a caller made for this rendering, then every
    /// placeholder is replaced. Fails when `id` is unknown, a required argument is missing or
    /// an argument does not fit its input; a reference that does not resolve renders as
    /// `[ERROR: …]` text instead of failing.
    pub fn render_prompt(
        &self,
        id: &str,
        arguments: &Map<String, Value>,
    ) -> Result<crate::primitives::RenderedPrompt, crate::primitives::PrimitiveError> {
        self.primitives.render_prompt(id, arguments, &self.caller())
    }

    /// Registers a source of prompts (provider prompts, skills, agent prompts, or an embedding's
    /// own): whoever serves the catalog lists and renders them with the rest.
    pub fn register_prompts(&mut self, source: Arc<dyn PromptSource>) {
        self.primitives.add_prompts(source);
    }

    /// Registers a source of resources: whoever serves the catalog lists and reads them with the
    /// rest.
    pub fn register_resources(&mut self, source: Arc<dyn ResourceSource>) {
        self.primitives.add_resources(source);
    }

    /// Calls a tool once with JSON inputs, through a caller made for this call (see
    /// [`Catalog::caller`] for repeated calls).
    pub fn call(&self, name: &str, args: &Map<String, Value>) -> Envelope {
        self.caller().call_json(name, args)
    }
}

/// The tools of an invalid schema's `main`, by Primitive-ID and by wire name (the spec's, and the
/// reference's when `names` asks for it), and its resource entries by the names they would have:
/// the IDs as a valid file's would be made ([`flowmcp_spec::id::defined_text`], names sanitised under
/// `compat`), or the text as written when no ID can be made of it.
fn rejected_tools(
    main: &Value,
    file: &str,
    codes: &[Code],
    names: ToolNames,
    compat: bool,
) -> Vec<(String, Rejected)> {
    let Some(ns) = main.get("namespace").and_then(Value::as_str) else {
        return Vec::new();
    };
    let tools = main
        .get("tools")
        .or_else(|| main.get("routes"))
        .and_then(Value::as_object);
    let mut out = Vec::with_capacity(tools.map_or(0, |t| t.len() * 2));
    let id_of = |kind: IdType, name: &str| defined_text(ns, kind, name, compat);
    // Resource entries are refused the same way, by the names they would have.
    if let Some(resources) = main.get("resources").and_then(Value::as_object) {
        for (resource, def) in resources {
            let r = |entry: &str| Rejected {
                tool: entry.to_string(),
                file: file.to_string(),
                codes: codes.to_vec(),
                cause: None,
            };
            match def.get("queries").and_then(Value::as_object) {
                Some(queries) => {
                    let builtins = Builtin::ALL.map(Builtin::name);
                    for q in queries.keys().map(String::as_str).chain(builtins) {
                        out.push((id_of(IdType::Resource, &query_name(resource, q)), r(q)));
                        let resource_id = id_of(IdType::Resource, resource);
                        out.push((legacy_query_key(&resource_id, q), r(q)));
                        out.push((query_wire_name(ToolNames::Spec, q, ns), r(q)));
                    }
                }
                None => {
                    out.push((id_of(IdType::Resource, resource), r(resource)));
                    out.push((wire_name(resource, ns), r(resource)));
                }
            }
        }
    }
    for tool in tools.into_iter().flat_map(|t| t.keys()) {
        let r = Rejected {
            tool: tool.clone(),
            file: file.to_string(),
            codes: codes.to_vec(),
            cause: None,
        };
        out.push((id_of(IdType::Tool, tool), r.clone()));
        if names == ToolNames::Reference {
            out.push((reference_tool_name(tool, ns), r.clone()));
        }
        out.push((wire_name(tool, ns), r));
    }
    out
}

/// What a validated file gives: a schema source when it is a valid schema (the evaluation is
/// turned into the typed model, its `main` moved rather than copied, and then dropped), its tools as
/// rejected when it has errors.
fn settle(
    path: PathBuf,
    report: &FileReport,
    mut loaded: LoadedFile,
    scope: &ListScope,
    names: ToolNames,
    compat: bool,
) -> Callable {
    if !matches!(loaded.kind, FileKind::Schema | FileKind::Unknown) {
        return Callable::Nothing;
    }
    let codes = error_codes(report);
    if !codes.is_empty() {
        let tools = loaded
            .exports
            .as_ref()
            .and_then(|e| e.get("main"))
            .map(|m| rejected_tools(m, report.file(), &codes, names, compat))
            .unwrap_or_default();
        // A file that did not load says why (its first error, with its position).
        let first = report
            .diagnostics()
            .iter()
            .find(|d| d.severity == Severity::Error);
        let message = match first {
            Some(d) if loaded.exports.is_none() => format!("cannot be loaded: {}", d.brief()),
            _ => format!("not callable: it has errors ({})", code_list(&codes)),
        };
        let problem = LoadProblem::new(report.file().to_string(), message);
        return Callable::Rejected(tools, problem);
    }
    main_source(
        path,
        report.file(),
        &mut loaded,
        scope,
        "main cannot be read",
    )
}

/// The codes of `report`'s errors, in order, without duplicates.
fn error_codes(report: &FileReport) -> Vec<Code> {
    let mut codes: Vec<Code> = Vec::new();
    for d in report
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
    {
        if !codes.contains(&d.code) {
            codes.push(d.code);
        }
    }
    codes
}

/// The schema source of `loaded`'s `main` (moved out of it), or why it cannot be read.
fn main_source(
    path: PathBuf,
    display: &str,
    loaded: &mut LoadedFile,
    scope: &ListScope,
    unreadable: &str,
) -> Callable {
    let Some(main_json) = loaded
        .exports
        .as_mut()
        .and_then(|e| e.data.shift_remove("main"))
    else {
        return Callable::Nothing;
    };
    match SchemaMain::from_value(main_json) {
        Ok(main) => Callable::Source(Box::new(source(path, display, main, loaded, scope))),
        Err(e) => Callable::Problem(LoadProblem::new(display, format!("{unreadable}: {e}"))),
    }
}

/// What an agent manifest gives: its inline tools and resources, as the schema of its own that
/// validation checked (see [`flowmcp_validate::inline::inline_schema`]), when the manifest has no errors.
/// Inline tools with relative paths are left out unless an upstream is set for the agent (there is
/// nowhere else to send them; activation says so); its resources stay.
fn inline_callable(
    path: &Path,
    report: &FileReport,
    loaded: &LoadedFile,
    opts: &CatalogOptions,
    scope: &ListScope,
) -> Callable {
    if report.counts().errors > 0 {
        return Callable::Nothing;
    }
    let Some(Some(Ok(schema))) = loaded
        .exports
        .as_ref()
        .and_then(|e| e.get("agent"))
        .map(flowmcp_validate::inline::inline_schema)
    else {
        return Callable::Nothing;
    };
    let schema =
        if schema.needs_upstream && !opts.runner.upstreams().contains_key(&schema.namespace) {
            if schema.resources.is_empty() {
                return Callable::Nothing;
            }
            schema.without_tools()
        } else {
            schema
        };
    let mut made = flowmcp_validate::inline::load_inline(report.file(), &schema);
    main_source(
        path.to_path_buf(),
        report.file(),
        &mut made,
        scope,
        "its inline tools cannot be read",
    )
}

/// The schema source of a valid file: its typed `main`, handlers source and resolved lists.
fn source(
    path: PathBuf,
    display: &str,
    main: SchemaMain,
    loaded: &mut LoadedFile,
    scope: &ListScope,
) -> SchemaSource {
    let has_handlers = loaded
        .exports
        .as_ref()
        .is_some_and(|e| matches!(e.handlers, HandlersExport::Function { .. }));
    let refs = &main.shared_lists;
    let (lists, lists_note) = if refs.is_empty() {
        (None, None)
    } else {
        match scope.registry() {
            None => (
                None,
                Some(format!(
                    "its shared lists were not loaded: {}",
                    scope
                        .missing_reason()
                        .unwrap_or_else(|| "no list registry".to_string())
                )),
            ),
            Some(registry) => {
                let resolved = registry.resolve(refs);
                let note = (!resolved.is_ok()).then(|| {
                    let errors: Vec<String> =
                        resolved.errors.iter().map(ToString::to_string).collect();
                    format!(
                        "some of its shared lists were not loaded: {}",
                        errors.join("; ")
                    )
                });
                (Some(resolved.to_owned_lists()), note)
            }
        }
    };
    SchemaSource {
        path,
        display: display.to_string(),
        main,
        handlers_source: if has_handlers {
            loaded.source.take()
        } else {
            None
        },
        lists,
        lists_note,
    }
}

/// A single file: loaded, validated with the lists found walking up from it, settled.
pub(crate) fn read_one(
    root: &Path,
    path: &Path,
    opts: &CatalogOptions,
    discovery: &ListDiscovery,
) -> ReadFile {
    // Stamped before reading: a change made while reading is seen by the next reload.
    read_stamped(root, path, stamp(path), opts, discovery)
}

/// `path` relative to `root`, with `/` separators (the file name alone when it is not under it).
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let rel = path
        .strip_prefix(root)
        .ok()
        .filter(|r| !r.as_os_str().is_empty())
        .unwrap_or_else(|| path.file_name().map_or(path, Path::new));
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// [`read_one`] for a file whose stamp was just taken.
pub(crate) fn read_stamped(
    root: &Path,
    path: &Path,
    stamp: Stamp,
    opts: &CatalogOptions,
    discovery: &ListDiscovery,
) -> ReadFile {
    let display = display_path(path);
    let v = &opts.validation;
    // A file under the catalog's root is read through the root's handle.
    let anchor = path.starts_with(root).then_some(root);
    let (mut loaded, report, main) = discovery.load_validated(anchor, path, &display, v);
    let scope = discovery.scope_for(path, &display, v);
    let rel = relative(root, path);
    let good = report.counts().errors == 0;
    // A schema without errors restored from the result cache is typed straight from the JSON
    // text of its `main`, without building its value first; anything else (or a text that does
    // not give both the part and the model) gets its `main` back as a value, as a fresh load
    // gives it.
    let typed = main.and_then(|main| {
        let typed = (loaded.kind == FileKind::Schema && good)
            .then(|| Part::of_schema_json(&rel, &loaded, main.text()))
            .flatten()
            .and_then(|part| Some((part, serde_json::from_str::<SchemaMain>(main.text()).ok()?)));
        if typed.is_none() {
            main.put_back(&mut loaded);
        }
        typed
    });
    let (part, callable) = match typed {
        Some((part, model)) => {
            let schema = source(
                path.to_path_buf(),
                report.file(),
                model,
                &mut loaded,
                &scope,
            );
            (part, Callable::Source(Box::new(schema)))
        }
        None => {
            let part = Part::of(&rel, &loaded);
            let callable = if loaded.kind == FileKind::Agent {
                inline_callable(path, &report, &loaded, opts, &scope)
            } else {
                settle(
                    path.to_path_buf(),
                    &report,
                    loaded,
                    &scope,
                    opts.tool_names,
                    v.settings.profile.is_compat(),
                )
            };
            (part, callable)
        }
    };
    ReadFile {
        state: FileState {
            path: path.to_path_buf(),
            stamp,
            callable,
            listed: true,
            part,
            good,
        },
        report,
    }
}

/// Single files, in parallel, each with the lists found walking up from it (one discovery, so
/// files in the same folder share the lookup).
fn read_files(root: &Path, paths: &[PathBuf], opts: &CatalogOptions) -> Contents {
    let discovery = opts.discovery();
    let mut files: Vec<ReadFile> = paths
        .par_iter()
        .map(|p| read_one(root, p, opts, &discovery))
        .collect();
    // The content files of the schemas' provider prompts come along (they give no tools).
    let named: std::collections::HashSet<PathBuf> = paths.iter().cloned().collect();
    let mut extra: Vec<PathBuf> = Vec::new();
    for f in &files {
        let PartKind::Schema {
            prompts: Some(Value::Object(prompts)),
            ..
        } = &f.state.part.kind
        else {
            continue;
        };
        let dir = f.state.path.parent().unwrap_or(Path::new("."));
        for file in prompts
            .values()
            .filter_map(|d| d.get("contentFile").and_then(Value::as_str))
            .filter(|f| !f.starts_with('/') && f.ends_with(".mjs"))
        {
            let path = dir.join(file);
            if flowmcp_files::named::is_file(&path)
                && !named.contains(&path)
                && !extra.contains(&path)
            {
                extra.push(path);
            }
        }
    }
    files.par_extend(extra.par_iter().map(|p| {
        let mut read = read_one(root, p, opts, &discovery);
        read.state.listed = false;
        read
    }));
    Contents {
        files,
        lists: lists_near(root, opts),
        ..Contents::default()
    }
}

/// The shared lists found walking up from `dir` (what prompts and skills of a catalog without a
/// manifest see).
pub(crate) fn lists_near(dir: &Path, opts: &CatalogOptions) -> ListScope {
    let v = &opts.validation;
    flowmcp_validate::lists::scope_near(
        &dir.join(REGISTRY_FILE),
        &display_path(dir),
        &v.settings,
        &v.limits,
    )
}

/// The deepest directory that holds every one of `files`; `None` when there are none.
fn common_dir(files: &[PathBuf]) -> Option<PathBuf> {
    let parent = |p: &PathBuf| {
        p.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let mut dir = parent(files.first()?);
    for f in &files[1..] {
        let other = parent(f);
        while !other.starts_with(&dir) {
            match dir.parent().filter(|d| !d.as_os_str().is_empty()) {
                Some(up) => dir = up.to_path_buf(),
                None => return Some(PathBuf::from(if dir.is_absolute() { "/" } else { "." })),
            }
        }
    }
    Some(dir)
}

/// A directory without a manifest: every `.mjs` file under it (`_lists/` aside), in parallel.
fn read_tree(dir: &Path, opts: &CatalogOptions) -> Result<Contents, CatalogError> {
    let (paths, problems) = tree_files(dir)?;
    let discovery = opts.discovery();
    Ok(Contents {
        files: paths
            .par_iter()
            .map(|p| read_one(dir, p, opts, &discovery))
            .collect(),
        problems,
        lists: lists_near(dir, opts),
        ..Contents::default()
    })
}

/// The schema files of a directory without a manifest (`_lists/` aside), and the links that
/// lead outside it; for a directory whose `registry.json` is a grading list (read this way under
/// `compat`), a problem that names it.
pub(crate) fn tree_files(dir: &Path) -> Result<(Vec<PathBuf>, Vec<LoadProblem>), CatalogError> {
    let walk = flowmcp_files::walk::walk_mjs(dir, &|name| name == LISTS_DIR)
        .map_err(|e| CatalogError::io(dir, e))?;
    let mut problems: Vec<LoadProblem> = walk
        .outside_links
        .iter()
        .map(|link| {
            LoadProblem::new(
                display_path(link),
                "a symbolic link that leads outside the catalog; not followed",
            )
        })
        .collect();
    if flowmcp_files::named::is_file(dir.join(REGISTRY_FILE))
        && crate::manifest::has_grading_list(dir)
    {
        problems.insert(0, grading_problem(dir, true));
    }
    Ok((walk.files, problems))
}

/// The problem that names the grading list `dir/registry.json` (issue #28, item 6; the text is
/// [`crate::manifest::grading_list_note`]).
fn grading_problem(dir: &Path, served: bool) -> LoadProblem {
    LoadProblem::new(
        display_path(&dir.join(REGISTRY_FILE)),
        crate::manifest::grading_list_note(served),
    )
}

/// The stamps of a manifest catalog's `registry.json` and of every file under its `_lists/`.
pub(crate) fn manifest_stamps(dir: &Path) -> Vec<(PathBuf, Stamp)> {
    let registry = dir.join(REGISTRY_FILE);
    let mut out = vec![(registry.clone(), stamp(&registry))];
    if let Ok(walk) = flowmcp_files::walk::walk_mjs(&dir.join(LISTS_DIR), &|_| false) {
        out.extend(walk.files.into_iter().map(|p| {
            let s = stamp(&p);
            (p, s)
        }));
    }
    out
}

/// A directory with a manifest: the catalog validated as a whole; the schemas it lists are
/// settled.
fn read_manifest(dir: &Path, display: &str, opts: &CatalogOptions) -> Contents {
    let v = validate_catalog_files(dir, display, &opts.validation);
    let listed: Vec<&str> = v
        .listed
        .iter()
        .filter(|(s, _)| *s == Section::Schemas)
        .map(|(_, rel)| rel.as_str())
        .collect();
    let scope = &v.lists;
    let files = v
        .files
        .into_par_iter()
        .map(|f: CatalogFile| {
            let listed = listed.contains(&f.rel.as_str());
            let stamp = stamp(&f.path);
            let part = Part::of(&f.rel, &f.loaded);
            let callable = if listed {
                settle(
                    f.path.clone(),
                    &f.report,
                    f.loaded,
                    scope,
                    opts.tool_names,
                    opts.validation.settings.profile.is_compat(),
                )
            } else {
                Callable::Nothing
            };
            ReadFile {
                state: FileState {
                    path: f.path,
                    stamp,
                    callable,
                    listed,
                    part,
                    good: f.report.counts().errors == 0,
                },
                report: f.report,
            }
        })
        .collect();
    Contents {
        catalog_report: Some(v.catalog),
        files,
        problems: Vec::new(),
        lists: v.lists,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catalog_can_be_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Catalog>();
    }
}
