//! Catalogs: `registry.json` (CAT001–CAT008), the files it references, and checks across files.
//!
//! A catalog is validated as a whole. [`validate_catalog`] returns one report for the catalog itself
//! (file `<dir>/registry.json`, kind `catalog`) followed by one report per `.mjs` file of the catalog,
//! sorted by path.
//!
//! ## Which code a finding gets
//!
//! The code follows the part of the manifest the finding is about (its JSON pointer's first segment):
//!
//! | part | code |
//! |---|---|
//! | the file itself (missing, unreadable, not JSON, not an object), `version`, `description` | CAT001 |
//! | `name` (missing, not a string, not the directory name) | CAT002 |
//! | `shared` and its entries | CAT003 |
//! | `schemas` and its entries | CAT004 |
//! | `agents` and its entries; `selections` and its entries | CAT005 |
//! | files on disk that no entry lists | CAT006 (warning) |
//! | `schemaSpec` | CAT007 |
//! | `contentHash` (malformed, or not the recomputed hash) | CAT008 |
//!
//! Inside a section the same code covers a missing file, a path that is absolute, has `..`, or leads
//! out of the catalog through a symbolic link, a member with the wrong type, a duplicate entry, and an
//! entry that disagrees with the file it names (a `schemas[].namespace` other than the file's
//! `main.namespace`, a `shared[].name` other than the list's `meta.name`, a stale `hasHandlers`, …).
//! Across files: two schemas that define the same Primitive-ID (`namespace/tool/name`, also for
//! resources and prompts) are CAT004 on the later entry; the reserved namespace `shared` (chapter 16)
//! used by a schema is CAT004, by an agent or selection CAT005.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use flowmcp_loader::walk::load_file_under;
use flowmcp_loader::{FileKind, LoadedFile};
use flowmcp_loader::{locate::Key, locate::locate_paths};
use flowmcp_spec::catalog::{
    self as model, AGENT_MANIFEST, LISTS_DIR, REGISTRY_FILE, Section, check_relative_path,
    content_hash, is_content_hash_syntax, is_known_spec_version, is_namespace,
    is_reserved_namespace,
};
use flowmcp_spec::id::{IdIndex, IdType, PrimitiveId, SchemaFileId};
use flowmcp_spec::{Code, Diagnostic, FileReport, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use crate::Options;
use crate::lists::ListScope;
use crate::rules::{shown, type_name};

/// Validates the catalog directory `dir` and returns the diagnostics of the catalog itself (used by
/// the fixture tests). Files are loaded for the checks across files but not validated one by one.
pub fn validate_catalog_fixture(dir: &Path, opts: &Options) -> Vec<Diagnostic> {
    let display = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| dir.display().to_string());
    run(dir, &display, opts, false).0
}

/// Whether `dir` is a catalog (it has `registry.json`).
pub fn is_catalog(dir: &Path) -> bool {
    flowmcp_files::named::is_file(dir.join(REGISTRY_FILE))
}

/// Whether a `registry.json` is a grading list rather than a catalog manifest: it has none of
/// chapter 15's `name`, `schemaSpec` and `shared`, and its `schemas` is a non-empty array of
/// entries that name their file by `schemaPath` (the scoring protocol's field) instead of
/// `file`. The public schema collection keeps such a list at its root. A catalog manifest is
/// never one: its entries name their files by `file`.
pub fn is_grading_list(registry: &Map<String, Value>) -> bool {
    crate::grading::is_grading_list(registry).unwrap_or(false)
}

/// [`is_grading_list`] of the text of a `registry.json` (after any byte-order mark), read without
/// making its tree: `false` when the text is not a JSON object.
pub fn is_grading_list_text(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    crate::grading::is_grading_list(&mut de).is_ok_and(|graded| graded && de.end().is_ok())
}

/// Validates a whole catalog: one report for the catalog itself (`registry.json`, CAT rules,
/// cross-file checks) and one per `.mjs` file (referenced or not; `_shared/` helper modules,
/// hidden directories and `node_modules` are skipped), sorted by path.
pub fn validate_catalog(dir: &Path, display: &str, opts: &Options) -> Vec<FileReport> {
    let mut v = validate_catalog_files(dir, display, opts);
    // The checks of prompts and skills across files.
    let parts: Vec<crate::prompts::Part> = v
        .files
        .iter()
        .map(|f| crate::prompts::Part::of(&f.rel, &f.loaded))
        .collect();
    let (_, found) = crate::prompts::build(&parts, v.lists.registry(), &opts.settings);
    for (i, diagnostics) in found {
        crate::prompts::attach(
            &mut v.files[i].report,
            diagnostics,
            parts[i].source.as_deref(),
            opts.positions,
        );
    }
    let mut out = Vec::with_capacity(v.files.len() + 1);
    out.push(v.catalog);
    out.extend(v.files.into_iter().map(|f| f.report));
    out
}

/// One `.mjs` file of a validated catalog: its report and its evaluation, for a caller that builds
/// on the same evaluation (a catalog's tools) instead of loading the file again.
#[derive(Debug)]
pub struct CatalogFile {
    /// The path relative to the catalog, with `/` separators.
    pub rel: String,
    /// The file on disk (inside the catalog).
    pub path: PathBuf,
    /// The file's own validation report.
    pub report: FileReport,
    /// The loaded file (exports as validation left them).
    pub loaded: LoadedFile,
}

/// The result of [`validate_catalog_files`].
#[derive(Debug)]
pub struct CatalogValidation {
    /// The report of the catalog itself (`registry.json`, CAT rules, cross-file checks).
    pub catalog: FileReport,
    /// Every `.mjs` file of the catalog, sorted by path.
    pub files: Vec<CatalogFile>,
    /// The paths `registry.json` lists in each section that resolve to files inside the catalog,
    /// relative to it (`schemas`, `shared`, `agents`, `selections`).
    pub listed: Vec<(Section, String)>,
    /// The catalog's shared lists (its `_lists/`), as every file saw them.
    pub lists: ListScope,
}

/// [`validate_catalog`], keeping each file's evaluation and what the manifest lists.
pub fn validate_catalog_files(dir: &Path, display: &str, opts: &Options) -> CatalogValidation {
    let display = display.trim_end_matches('/');
    let display = if display.is_empty() { "." } else { display };
    let (diagnostics, files, listed, lists) = run(dir, display, opts, true);
    CatalogValidation {
        catalog: FileReport::new(
            format!("{display}/{REGISTRY_FILE}"),
            flowmcp_spec::diagnostic::ReportKind::Catalog,
            diagnostics,
        ),
        files,
        listed,
        lists,
    }
}

/// What the checks across files need to know about one loaded file.
#[derive(Clone, Debug, Default)]
struct Facts {
    kind: Option<FileKind>,
    /// `main.namespace`, when a string.
    namespace: Option<String>,
    /// `main.requiredServerParams`, when an array of strings (absent: empty).
    server_params: Option<Vec<String>>,
    /// The `ref`s of `main.sharedLists`, when it is an array (absent: empty).
    shared_lists: Option<Vec<String>>,
    has_handlers: bool,
    /// `(type, name)` of every tool (or route), resource and prompt.
    primitives: Vec<(IdType, String)>,
    /// `list.meta.name`, when a string.
    list_name: Option<String>,
}

impl Facts {
    fn of(loaded: &LoadedFile) -> Facts {
        let Some(exports) = &loaded.exports else {
            return Facts::default();
        };
        let mut f = Facts {
            kind: Some(loaded.kind),
            has_handlers: exports.has("handlers"),
            ..Facts::default()
        };
        if let Some(main) = exports.get("main").and_then(Value::as_object) {
            f.namespace = main
                .get("namespace")
                .and_then(Value::as_str)
                .map(str::to_string);
            f.server_params = match main.get("requiredServerParams") {
                None => Some(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>(),
                Some(_) => None,
            };
            f.shared_lists = match main.get("sharedLists") {
                None => Some(Vec::new()),
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .filter_map(|e| e.get("ref").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect(),
                ),
                Some(_) => None,
            };
            for (member, kind) in [
                ("tools", IdType::Tool),
                ("routes", IdType::Tool),
                ("resources", IdType::Resource),
                ("prompts", IdType::Prompt),
            ] {
                if let Some(Value::Object(items)) = main.get(member) {
                    f.primitives
                        .extend(items.keys().map(|k| (kind, k.to_string())));
                }
            }
        }
        f.list_name = exports
            .get("list")
            .and_then(|l| l.get("meta"))
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        f
    }

    fn exports(&self, name: &str) -> bool {
        matches!(
            (self.kind, name),
            (Some(FileKind::Schema), "main")
                | (Some(FileKind::List), "list")
                | (Some(FileKind::Agent), "agent")
                | (Some(FileKind::Selection), "selection")
        )
    }
}

/// One entry's referenced file, once its path has been checked.
struct Target {
    section: Section,
    index: usize,
    rel: String,
    /// The resolved file (inside the catalog).
    file: PathBuf,
}

/// The catalog code for a section.
///
/// CAT003: `shared` is not an array, or one of its entries is wrong: not an object `{ file, name
/// }`; a `file` that does not exist, is absolute, leaves the catalog, lies outside `_lists/`, is
/// listed twice or is not a shared list; or a `name` that differs from the list's `meta.name`.
///
/// # Why
///
/// Schemas in the catalog get their lists through these entries, and shared lists live only in the
/// catalog's root `_lists/` directory. A broken entry usually means the manifest was not
/// regenerated after files changed; `flowmcp catalog index` rewrites it.
///
/// CAT004: An entry of `schemas` is wrong: a member is missing or has the wrong type; its `file`
/// does not exist, is absolute, uses `\` or leaves the catalog, is listed twice, or is not a
/// schema; or the entry disagrees with the file (`namespace` and `main.namespace`,
/// `requiredServerParams`, `hasHandlers`, `sharedLists`). A schema in the reserved namespace
/// `shared`, and a second schema defining an ID that another already defines, are reported here
/// too.
///
/// # Why
///
/// The runtime loads schemas through these entries, and tools trust the derived members (which API
/// keys are needed, whether handlers run) without opening the files. A stale entry misinforms them,
/// and a duplicate ID would make `namespace/tool/name` ambiguous.
///
/// CAT005: An entry of `agents` is wrong: a member is missing or has the wrong type; its `manifest`
/// does not exist, is not the `agent.mjs` in the agent's own directory (`agents/<name>/agent.mjs`),
/// leaves the catalog, or does not export `agent`; or the agent is named `shared`. Entries of
/// `selections` are checked here the same way.
///
/// # Why
///
/// Agents are activated from their manifest, so one that cannot be found cannot be imported.
/// Chapter 15 makes the agent's name its directory name, so that the layout alone tells where an
/// agent lives.
fn section_code(section: Section) -> Code {
    match section {
        Section::Shared => Code::CAT003,
        Section::Schemas => Code::CAT004,
        Section::Agents | Section::Selections => Code::CAT005,
    }
}

fn entry_path(section: Section, index: usize) -> JsonPath {
    JsonPath::root(section.key()).index(index)
}

/// Runs everything. Returns the catalog's diagnostics and (when `validate_files`) one report per file.
/// What [`run`] gives: the catalog's diagnostics, the files (validated ones only), what the manifest
/// lists, and the lists every file saw.
type RunResult = (
    Vec<Diagnostic>,
    Vec<CatalogFile>,
    Vec<(Section, String)>,
    ListScope,
);

fn run(dir: &Path, display: &str, opts: &Options, validate_files: bool) -> RunResult {
    let label = format!("{display}/{REGISTRY_FILE}");
    let mut c = Collector::new(&opts.settings, Some(label));
    let canon_dir = flowmcp_files::named::canonical(dir).ok();

    let registry_text = read_registry(dir, opts, &mut c);
    let registry = registry_text
        .as_deref()
        .and_then(|text| parse_registry(text, &mut c));

    // A grading list is not a manifest: one finding that says so, instead of one per entry.
    let registry = registry.filter(|r| match r.as_object() {
        Some(reg) if is_grading_list(reg) => {
            grading_list_found(&mut c);
            false
        }
        _ => true,
    });
    let mut targets: Vec<Target> = Vec::new();
    if let Some(reg) = registry.as_ref().and_then(Value::as_object) {
        check_top_level(reg, dir, canon_dir.as_deref(), &mut c);
        for section in Section::ALL {
            check_section(
                section,
                reg,
                dir,
                canon_dir.as_deref(),
                &mut targets,
                &mut c,
            );
        }
        check_duplicates(reg, &mut c);
    }

    // Load the referenced files (and, for full validation, every other `.mjs` file of the catalog).
    let mut rels: BTreeMap<String, PathBuf> = targets
        .iter()
        .map(|t| (t.rel.clone(), t.file.clone()))
        .collect();
    let tree = catalog_files(dir);
    if validate_files {
        for rel in &tree {
            // A symbolic link that leads out of the catalog is not followed.
            let inside = flowmcp_files::named::canonical(dir.join(rel_to_path(rel)))
                .ok()
                .filter(|real| {
                    canon_dir
                        .as_deref()
                        .is_none_or(|root| real.starts_with(root))
                });
            if let Some(real) = inside {
                rels.entry(rel.clone()).or_insert(real);
            }
        }
    }
    // Every file sees the catalog's own `_lists/` (an empty registry when there is none).
    let scope = if validate_files {
        let root = flowmcp_files::named::canonical(dir).unwrap_or_else(|_| dir.to_path_buf());
        ListScope::Found(std::sync::Arc::new(crate::lists::load_dir(
            &root.join(LISTS_DIR),
            &flowmcp_spec::RuleSettings::new(opts.settings.profile),
            &opts.limits,
        )))
    } else {
        ListScope::NotSearched
    };
    // Read through the catalog's handle (the paths are canonical, inside `canon_dir`).
    let loaded = load_all(
        canon_dir.as_deref(),
        &rels,
        display,
        opts,
        validate_files.then_some(&scope),
    );
    let facts: HashMap<&str, &Facts> = loaded.iter().map(|(r, _, f, _)| (r.as_str(), f)).collect();

    if let Some(reg) = registry.as_ref().and_then(Value::as_object) {
        check_against_files(reg, &targets, &facts, &mut c);
        check_primitive_ids(&targets, &facts, &mut c);
        check_content_hash(dir, reg, &targets, &mut c);
        check_orphans(&tree, &targets, &mut c);
    }

    let mut diagnostics = c.finish();
    if let Some(text) = &registry_text {
        add_json_positions(text, &mut diagnostics);
    }
    let listed = targets.into_iter().map(|t| (t.section, t.rel)).collect();
    let files = loaded
        .into_iter()
        .filter_map(|(rel, path, _, kept)| {
            kept.map(|(report, loaded)| CatalogFile {
                rel,
                path,
                report,
                loaded,
            })
        })
        .collect();
    (diagnostics, files, listed, scope)
}

/// Reads `registry.json` (CAT001 when it is missing, unreadable, too large or not UTF-8).
///
/// CAT001: The catalog directory has no `registry.json`, or the file cannot be read, is not valid
/// JSON or not a JSON object, or its `version` (semver) or `description` (a string) is missing or
/// malformed.
///
/// # Why
///
/// `registry.json` is the entry point of a catalog: the runtime and the import commands read the
/// manifest instead of scanning directories. A directory without one is not a catalog, and a
/// manifest without a version and a description cannot be published.
fn read_registry(dir: &Path, opts: &Options, c: &mut Collector<'_>) -> Option<String> {
    // Read through the catalog's handle, and only as a regular file: a symbolic link in its
    // place is not followed, wherever it points.
    let root = flowmcp_files::Root::new(dir);
    let name = Path::new(REGISTRY_FILE);
    let bytes = match root.read_regular_file(name, opts.limits.max_file_bytes) {
        Ok(b) => b,
        Err(flowmcp_files::PathError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            c.emit_help(
                Code::CAT001,
                None,
                format!("{REGISTRY_FILE} not found in the catalog directory"),
                Some(format!(
                    "create {REGISTRY_FILE}, the manifest that lists the catalog's files"
                )),
            );
            return None;
        }
        Err(flowmcp_files::PathError::NotRegular { .. }) => {
            let link = matches!(root.kind(name), Ok(Some(flowmcp_files::EntryKind::Link)));
            c.emit(
                Code::CAT001,
                None,
                if link {
                    format!("{REGISTRY_FILE} is a symbolic link; it is read only as a regular file")
                } else {
                    format!("{REGISTRY_FILE} is not a regular file")
                },
            );
            return None;
        }
        Err(flowmcp_files::PathError::TooLarge { size, .. }) => {
            c.emit(
                Code::CAT001,
                None,
                format!(
                    "{REGISTRY_FILE} is {size} bytes; the limit is {} bytes",
                    opts.limits.max_file_bytes
                ),
            );
            return None;
        }
        Err(flowmcp_files::PathError::Io { source, .. }) => {
            c.emit(
                Code::CAT001,
                None,
                format!("{REGISTRY_FILE} cannot be read: {source}"),
            );
            return None;
        }
        Err(e) => {
            c.emit(
                Code::CAT001,
                None,
                format!("{REGISTRY_FILE} cannot be read: {e}"),
            );
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(e) => {
            c.emit(
                Code::CAT001,
                None,
                format!(
                    "{REGISTRY_FILE} is not valid UTF-8 (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            );
            None
        }
    }
}

/// The CAT001 of a `registry.json` that is a grading list ([`is_grading_list`]), with what to do.
fn grading_list_found(c: &mut Collector<'_>) {
    c.emit_help(
        Code::CAT001,
        None,
        format!(
            "{REGISTRY_FILE} is a grading list (its schemas are named by \"schemaPath\"), not a \
             catalog manifest (chapter 15)"
        ),
        Some(
            "the compat profile reads such a directory as a directory of schema files; or \
             validate the schema files themselves, or give a directory whose registry.json is a \
             catalog manifest"
                .into(),
        ),
    );
}

/// Parses the manifest (CAT001 when it is not JSON or not an object).
fn parse_registry(text: &str, c: &mut Collector<'_>) -> Option<Value> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Value>(body) {
        Ok(v @ Value::Object(_)) => Some(v),
        Ok(other) => {
            c.emit(
                Code::CAT001,
                None,
                format!(
                    "{REGISTRY_FILE} must hold a JSON object (found {})",
                    type_name(&other)
                ),
            );
            None
        }
        Err(e) => {
            let line = u32::try_from(e.line()).unwrap_or(u32::MAX);
            let column = u32::try_from(e.column()).unwrap_or(u32::MAX);
            // serde's message ends in " at line L column C"; the position goes into the diagnostic.
            let text = e.to_string();
            let message = match text.rfind(" at line ") {
                Some(i) if line > 0 => &text[..i],
                _ => text.as_str(),
            };
            if let Some(d) = c.emit(
                Code::CAT001,
                None,
                format!("{REGISTRY_FILE} is not valid JSON: {message}"),
            ) && line > 0
            {
                d.line = Some(line);
                d.column = Some(column.max(1));
            }
            None
        }
    }
}

/// A required string member; reports `code` and returns `None` when it is missing or not a string.
fn required_string<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    path: &JsonPath,
    code: Code,
    c: &mut Collector<'_>,
) -> Option<&'v str> {
    match obj.get(key) {
        Some(Value::String(s)) => Some(s),
        None => {
            c.emit(
                code,
                Some(path),
                format!("Missing required field \"{key}\""),
            );
            None
        }
        Some(other) => {
            c.emit(
                code,
                Some(&path.key(key)),
                format!("Must be a string (found {})", type_name(other)),
            );
            None
        }
    }
}

/// `name` (CAT002), `version` and `description` (CAT001), `schemaSpec` (CAT007), the form of
/// `contentHash` (CAT008).
///
/// CAT002: `name` in `registry.json` is missing, not a string, or not exactly the name of the
/// catalog's directory.
///
/// # Why
///
/// Several catalogs can sit side by side, and the runtime qualifies tool names with the catalog
/// name to keep them apart. A manifest whose name differs from its directory leaves it unclear
/// which catalog is meant.
///
/// CAT007: `schemaSpec` is missing or is not a released FlowMCP specification version: tags such as
/// `latest`, ranges such as `2.x` and versions that do not exist yet are rejected. The message
/// lists the known versions.
///
/// # Why
///
/// The runtime chooses validation rules and loading behaviour by this version, so it must name one
/// concrete edition of the specification. A moving target would change what the catalog means
/// without anyone editing it.
fn check_top_level(
    reg: &Map<String, Value>,
    dir: &Path,
    canon_dir: Option<&Path>,
    c: &mut Collector<'_>,
) {
    let root = JsonPath::default();
    if let Some(name) = required_string(reg, "name", &root, Code::CAT002, c) {
        let dir_name = canon_dir
            .unwrap_or(dir)
            .file_name()
            .map(|n| n.to_string_lossy().to_string());
        if let Some(dir_name) = dir_name
            && name != dir_name
        {
            // A copied catalog (`cp -r catalog mycat`) keeps its old name: say how to fix it.
            c.emit_help(
                Code::CAT002,
                Some(&JsonPath::root("name")),
                format!(
                    "Must equal the catalog directory name \"{dir_name}\" (found {})",
                    shown(&Value::String(name.to_string()))
                ),
                Some(format!(
                    "set \"name\" to \"{dir_name}\", or name the directory {}",
                    shown(&Value::String(name.to_string()))
                )),
            );
        }
    }
    if let Some(version) = required_string(reg, "version", &root, Code::CAT001, c)
        && semver::Version::parse(version).is_err()
    {
        c.emit(
            Code::CAT001,
            Some(&JsonPath::root("version")),
            format!(
                "Must be semver such as \"1.0.0\" (found {})",
                shown(&Value::String(version.to_string()))
            ),
        );
    }
    required_string(reg, "description", &root, Code::CAT001, c);
    if let Some(spec) = required_string(reg, "schemaSpec", &root, Code::CAT007, c)
        && !is_known_spec_version(spec)
    {
        c.emit(
            Code::CAT007,
            Some(&JsonPath::root("schemaSpec")),
            format!(
                "Must be a known FlowMCP specification version ({}) (found {})",
                model::KNOWN_SPEC_VERSIONS.join(", "),
                shown(&Value::String(spec.to_string()))
            ),
        );
    }
    match reg.get("contentHash") {
        None => {}
        Some(Value::String(h)) if is_content_hash_syntax(h) => {}
        Some(other) => {
            c.emit(
                Code::CAT008,
                Some(&JsonPath::root("contentHash")),
                format!(
                    "Must be \"sha256:\" followed by 64 lowercase hex digits (found {})",
                    shown(other)
                ),
            );
        }
    }
}

/// The type and shape checks of one section, and its paths; collects each resolvable file.
fn check_section(
    section: Section,
    reg: &Map<String, Value>,
    dir: &Path,
    canon_dir: Option<&Path>,
    targets: &mut Vec<Target>,
    c: &mut Collector<'_>,
) {
    let code = section_code(section);
    let key = section.key();
    let entries = match reg.get(key) {
        Some(Value::Array(a)) => a,
        None if !section.required() => return,
        None => {
            c.emit_help(
                code,
                None,
                format!("Missing required field \"{key}\""),
                Some(format!("write \"{key}\": [] when the catalog has none")),
            );
            return;
        }
        Some(other) => {
            c.emit(
                code,
                Some(&JsonPath::root(key)),
                format!("Must be an array (found {})", type_name(other)),
            );
            return;
        }
    };
    for (index, entry) in entries.iter().enumerate() {
        let path = entry_path(section, index);
        let Some(obj) = entry.as_object() else {
            c.emit(
                code,
                Some(&path),
                format!(
                    "Must be an object {{ {} }} (found {})",
                    section.known_keys().join(", "),
                    type_name(entry)
                ),
            );
            continue;
        };
        check_entry_members(section, obj, &path, c);
        if let Some(rel) = required_string(obj, section.path_key(), &path, code, c)
            && let Some(file) = check_entry_path(section, obj, rel, &path, dir, canon_dir, c)
        {
            targets.push(Target {
                section,
                index,
                rel: rel.to_string(),
                file,
            });
        }
    }
}

/// The members of one entry other than its path.
fn check_entry_members(
    section: Section,
    obj: &Map<String, Value>,
    path: &JsonPath,
    c: &mut Collector<'_>,
) {
    let code = section_code(section);
    match section {
        Section::Shared => {
            if let Some(name) = required_string(obj, "name", path, code, c)
                && name.is_empty()
            {
                c.emit(code, Some(&path.key("name")), "Must not be empty");
            }
        }
        Section::Schemas => {
            if let Some(ns) = required_string(obj, "namespace", path, code, c) {
                check_namespace(code, ns, &path.key("namespace"), "Schema namespace", c);
            }
            required_string(obj, "name", path, code, c);
            for key in ["requiredServerParams", "sharedLists"] {
                match obj.get(key) {
                    None => {
                        c.emit(
                            code,
                            Some(path),
                            format!("Missing required field \"{key}\" (may be [])"),
                        );
                    }
                    Some(Value::Array(items)) => {
                        for (i, item) in items.iter().enumerate() {
                            if !item.is_string() {
                                c.emit(
                                    code,
                                    Some(&path.key(key).index(i)),
                                    format!("Must be a string (found {})", type_name(item)),
                                );
                            }
                        }
                    }
                    Some(other) => {
                        c.emit(
                            code,
                            Some(&path.key(key)),
                            format!("Must be an array of strings (found {})", type_name(other)),
                        );
                    }
                }
            }
            match obj.get("hasHandlers") {
                Some(Value::Bool(_)) => {}
                None => {
                    c.emit(code, Some(path), "Missing required field \"hasHandlers\"");
                }
                Some(other) => {
                    c.emit(
                        code,
                        Some(&path.key("hasHandlers")),
                        format!("Must be a boolean (found {})", type_name(other)),
                    );
                }
            }
        }
        Section::Agents | Section::Selections => {
            let what = if section == Section::Agents {
                "Agent name"
            } else {
                "Selection name"
            };
            if let Some(name) = required_string(obj, "name", path, code, c) {
                check_namespace(code, name, &path.key("name"), what, c);
            }
            required_string(obj, "description", path, code, c);
            if section == Section::Agents {
                for key in ["prompts", "skills", "resources"] {
                    if let Some(v) = obj.get(key)
                        && !v.is_object()
                    {
                        c.emit(
                            code,
                            Some(&path.key(key)),
                            format!("Must be an object (found {})", type_name(v)),
                        );
                    }
                }
            }
        }
    }
}

/// A namespace-like name: the pattern of chapter 16 and not reserved.
fn check_namespace(code: Code, name: &str, at: &JsonPath, what: &str, c: &mut Collector<'_>) {
    if !is_namespace(name) {
        c.emit(
            code,
            Some(at),
            format!(
                "Must match ^[a-z][a-z0-9-]*$ (found {})",
                shown(&Value::String(name.to_string()))
            ),
        );
    } else if is_reserved_namespace(name) {
        c.emit(
            code,
            Some(at),
            format!("{what} \"{name}\" is reserved for shared lists (chapter 16)"),
        );
    }
}

/// The path of one entry: its form, its location by section, and that it names a file inside the
/// catalog. Returns the resolved file.
fn check_entry_path(
    section: Section,
    obj: &Map<String, Value>,
    rel: &str,
    path: &JsonPath,
    dir: &Path,
    canon_dir: Option<&Path>,
    c: &mut Collector<'_>,
) -> Option<PathBuf> {
    let code = section_code(section);
    let at = path.key(section.path_key());
    let quoted = shown(&Value::String(rel.to_string()));
    if let Err(problem) = check_relative_path(rel) {
        c.emit(code, Some(&at), format!("Invalid path {quoted}: {problem}"));
        return None;
    }
    if !rel.ends_with(".mjs") {
        c.emit(
            code,
            Some(&at),
            format!("Must name a .mjs file (found {quoted})"),
        );
        return None;
    }
    match section {
        Section::Shared if !rel.starts_with(&format!("{LISTS_DIR}/")) => {
            c.emit(
                code,
                Some(&at),
                format!(
                    "Shared lists live in the catalog's {LISTS_DIR}/ directory (found {quoted})"
                ),
            );
        }
        Section::Agents => {
            let mut segs = rel.rsplit('/');
            let file = segs.next().unwrap_or_default();
            let parent = segs.next();
            if file != AGENT_MANIFEST {
                c.emit(
                    code,
                    Some(&at),
                    format!("Must name the agent's {AGENT_MANIFEST} (found {quoted})"),
                );
            } else if let Some(name) = obj.get("name").and_then(Value::as_str)
                && parent != Some(name)
            {
                c.emit(
                    code,
                    Some(&at),
                    format!(
                        "Must lie in the agent's directory \"{name}\" (found {quoted}); the agent name equals its directory name"
                    ),
                );
            }
        }
        _ => {}
    }
    let full = dir.join(rel_to_path(rel));
    match flowmcp_files::named::canonical(full) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            c.emit(
                code,
                Some(&at),
                format!("File {quoted} does not exist in the catalog"),
            );
            None
        }
        Err(e) => {
            c.emit(
                code,
                Some(&at),
                format!("File {quoted} cannot be resolved: {e}"),
            );
            None
        }
        Ok(real) => {
            if let Some(root) = canon_dir
                && !real.starts_with(root)
            {
                c.emit(
                    code,
                    Some(&at),
                    format!(
                        "File {quoted} leads outside the catalog (through a symbolic link); paths must stay inside the catalog"
                    ),
                );
                return None;
            }
            if !flowmcp_files::named::is_file(&real) {
                c.emit(code, Some(&at), format!("{quoted} is not a file"));
                return None;
            }
            Some(real)
        }
    }
}

fn rel_to_path(rel: &str) -> PathBuf {
    rel.split('/').collect()
}

/// Entries listed twice: the same path anywhere in the manifest, the same shared-list name, the same
/// schema namespace + name, the same agent or selection name. Reported on the later entry.
fn check_duplicates(reg: &Map<String, Value>, c: &mut Collector<'_>) {
    let mut paths: HashMap<String, JsonPath> = HashMap::new();
    for section in Section::ALL {
        let Some(Value::Array(entries)) = reg.get(section.key()) else {
            continue;
        };
        let mut names: HashMap<String, JsonPath> = HashMap::new();
        for (index, entry) in entries.iter().enumerate() {
            let path = entry_path(section, index);
            if let Some(p) = entry.get(section.path_key()).and_then(Value::as_str) {
                let at = path.key(section.path_key());
                match paths.get(p) {
                    Some(first) => {
                        c.emit(
                            section_code(section),
                            Some(&at),
                            format!(
                                "File \"{p}\" is listed twice (also at {}); each file is listed once",
                                first.dotted()
                            ),
                        );
                    }
                    None => {
                        paths.insert(p.to_string(), at);
                    }
                }
            }
            let name = entry.get("name").and_then(Value::as_str);
            let (key, label) = match section {
                Section::Schemas => {
                    let ns = entry.get("namespace").and_then(Value::as_str);
                    match (ns, name) {
                        (Some(ns), Some(n)) => (format!("{ns}\u{0}{n}"), format!("{ns} / {n}")),
                        _ => continue,
                    }
                }
                _ => match name {
                    Some(n) => (n.to_string(), n.to_string()),
                    None => continue,
                },
            };
            let at = path.key("name");
            match names.get(&key) {
                Some(first) => {
                    let what = match section {
                        Section::Shared => "Shared list name",
                        Section::Schemas => "Schema namespace and name",
                        Section::Agents => "Agent name",
                        Section::Selections => "Selection name",
                    };
                    c.emit(
                        section_code(section),
                        Some(&at),
                        format!(
                            "{what} \"{label}\" is listed twice (also at {})",
                            first.dotted()
                        ),
                    );
                }
                None => {
                    names.insert(key, path);
                }
            }
        }
    }
}

/// Each entry against the file it names: the export it must have, and the members derived from the
/// file (`shared[].name` = `meta.name`; `schemas[]` namespace, server params, handlers, lists).
fn check_against_files(
    reg: &Map<String, Value>,
    targets: &[Target],
    facts: &HashMap<&str, &Facts>,
    c: &mut Collector<'_>,
) {
    for t in targets {
        let Some(f) = facts.get(t.rel.as_str()) else {
            continue;
        };
        if f.kind.is_none() {
            // The file did not load; its own report says why.
            continue;
        }
        let code = section_code(t.section);
        let path = entry_path(t.section, t.index);
        let Some(entry) = reg
            .get(t.section.key())
            .and_then(|s| s.get(t.index))
            .and_then(Value::as_object)
        else {
            continue;
        };
        let export = match t.section {
            Section::Shared => "list",
            Section::Schemas => "main",
            Section::Agents => "agent",
            Section::Selections => "selection",
        };
        if !f.exports(export) {
            c.emit(
                code,
                Some(&path.key(t.section.path_key())),
                format!(
                    "File \"{}\" must export `{export}` (it is a {} file)",
                    t.rel,
                    f.kind.map(FileKind::as_str).unwrap_or("unknown")
                ),
            );
            continue;
        }
        match t.section {
            Section::Shared => {
                if let (Some(name), Some(meta)) =
                    (entry.get("name").and_then(Value::as_str), &f.list_name)
                    && !name.is_empty()
                    && name != meta
                {
                    c.emit(
                        code,
                        Some(&path.key("name")),
                        format!("Must equal the list's meta.name \"{meta}\" (found \"{name}\")"),
                    );
                }
            }
            Section::Schemas => check_schema_entry(entry, &path, t, f, c),
            Section::Agents | Section::Selections => {}
        }
    }
}

fn check_schema_entry(
    entry: &Map<String, Value>,
    path: &JsonPath,
    t: &Target,
    f: &Facts,
    c: &mut Collector<'_>,
) {
    let code = Code::CAT004;
    if let Some(ns) = &f.namespace {
        match entry.get("namespace").and_then(Value::as_str) {
            Some(listed) if listed != ns && is_namespace(listed) => {
                c.emit(
                    code,
                    Some(&path.key("namespace")),
                    format!("Must equal the schema's main.namespace \"{ns}\" (found \"{listed}\")"),
                );
            }
            _ => {}
        }
        if is_reserved_namespace(ns) && entry.get("namespace").and_then(Value::as_str) != Some(ns) {
            c.emit(
                code,
                Some(&path.key("file")),
                format!(
                    "Schema \"{}\" uses the namespace \"{ns}\", which is reserved for shared lists (chapter 16)",
                    t.rel
                ),
            );
        }
    }
    let string_set = |v: Option<&Value>| -> Option<BTreeSet<String>> {
        v.and_then(Value::as_array).and_then(|a| {
            a.iter()
                .map(|x| x.as_str().map(str::to_string))
                .collect::<Option<BTreeSet<_>>>()
        })
    };
    for (key, actual, source) in [
        (
            "requiredServerParams",
            &f.server_params,
            "main.requiredServerParams",
        ),
        ("sharedLists", &f.shared_lists, "main.sharedLists (refs)"),
    ] {
        let (Some(listed), Some(actual)) = (string_set(entry.get(key)), actual) else {
            continue;
        };
        let actual_set: BTreeSet<String> = actual.iter().cloned().collect();
        if listed != actual_set {
            c.emit_help(
                code,
                Some(&path.key(key)),
                format!(
                    "Does not match the schema file, which declares {} in {source} (found {})",
                    Value::from(actual.clone()),
                    Value::from(listed.into_iter().collect::<Vec<_>>())
                ),
                Some("update the manifest entry from the schema file".into()),
            );
        }
    }
    if let Some(listed) = entry.get("hasHandlers").and_then(Value::as_bool)
        && listed != f.has_handlers
    {
        c.emit_help(
            code,
            Some(&path.key("hasHandlers")),
            format!(
                "Does not match the schema file: it {} `handlers` (found {listed})",
                if f.has_handlers {
                    "exports"
                } else {
                    "does not export"
                }
            ),
            Some("update the manifest entry from the schema file".into()),
        );
    }
}

/// Primitive-IDs (`namespace/tool/name`, `…/resource/…`, `…/prompt/…`) and Schema-File-IDs
/// (`namespace/schema-name`) must be unique across the catalog's schemas (CAT004 on the later entry).
/// Valid IDs go into an [`IdIndex`]; names that are not valid ID parts (reported in their own files)
/// are compared as text.
fn check_primitive_ids(targets: &[Target], facts: &HashMap<&str, &Facts>, c: &mut Collector<'_>) {
    let mut index = IdIndex::new();
    let mut invalid: HashMap<String, String> = HashMap::new();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for t in targets.iter().filter(|t| t.section == Section::Schemas) {
        if !done.insert(t.rel.as_str()) {
            continue;
        }
        let Some(f) = facts.get(t.rel.as_str()) else {
            continue;
        };
        let Some(ns) = &f.namespace else { continue };
        let at = entry_path(t.section, t.index).key("file");
        let duplicate = |what: &str, id: String, first: String, c: &mut Collector<'_>| {
            c.emit(
                Code::CAT004,
                Some(&at),
                format!(
                    "{what} \"{id}\" of \"{}\" is already defined by \"{first}\"; IDs must be unique in the catalog",
                    t.rel
                ),
            );
        };
        let stem = t
            .rel
            .rsplit('/')
            .next()
            .and_then(|n| n.strip_suffix(".mjs"))
            .unwrap_or_default();
        if let Ok(id) = SchemaFileId::new(ns.as_str(), stem)
            && let Err(d) = index.insert_schema_file(id, t.rel.as_str())
        {
            duplicate("Schema-File-ID", d.id, d.first, c);
        }
        for (kind, name) in &f.primitives {
            let member = match kind {
                IdType::Tool => "tools",
                IdType::Resource => "resources",
                _ => "prompts",
            };
            let label = format!("{} ID", capitalised(kind.as_str()));
            match PrimitiveId::new(ns.as_str(), *kind, name.as_str()) {
                Ok(id) => {
                    if let Err(d) =
                        index.insert(id, t.rel.as_str(), format!("main.{member}.{name}"))
                    {
                        duplicate(&label, d.id, d.first, c);
                    }
                }
                Err(_) => {
                    let id = format!("{ns}/{kind}/{name}");
                    match invalid.get(&id) {
                        Some(first) => duplicate(&label, id, first.clone(), c),
                        None => {
                            invalid.insert(id, t.rel.clone());
                        }
                    }
                }
            }
        }
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// CAT008: `contentHash` in `registry.json` is present but is not `sha256:` followed by 64
/// lowercase hex digits, or differs from the hash recomputed from the files the manifest references
/// (chapter 15's algorithm: the files sorted by path, `path:content` for each, SHA-256). A manifest
/// without `contentHash` is not checked, and the hash is compared only when every referenced path
/// resolved (otherwise CAT003–CAT005 already say what is missing).
///
/// # Why
///
/// The hash lets importers and the runtime notice that a referenced file changed since the manifest
/// was written, which means the catalog needs validating again. Chapter 15 defines the hash but no
/// code for a mismatch; this project extension makes the integrity check actually happen.
fn check_content_hash(
    dir: &Path,
    reg: &Map<String, Value>,
    targets: &[Target],
    c: &mut Collector<'_>,
) {
    let Some(found) = reg.get("contentHash").and_then(Value::as_str) else {
        return;
    };
    if !is_content_hash_syntax(found) {
        return;
    }
    let listed = model::referenced_paths(&Value::Object(reg.clone()));
    let resolved: BTreeSet<(Section, usize)> =
        targets.iter().map(|t| (t.section, t.index)).collect();
    if listed
        .iter()
        .any(|r| !resolved.contains(&(r.section, r.index)))
    {
        return;
    }
    let mut contents: Vec<(&str, Vec<u8>)> = Vec::with_capacity(targets.len());
    // Read through the catalog's handle: a file swapped for a link out since it was resolved is
    // not read.
    let root = flowmcp_files::Root::new(dir);
    for t in targets {
        match root.read_capped(&rel_to_path(&t.rel), u64::MAX) {
            Ok(bytes) => contents.push((t.rel.as_str(), bytes)),
            Err(_) => return,
        }
    }
    let expected = content_hash(contents.iter().map(|(p, b)| (*p, b.as_slice())));
    if expected != found {
        c.emit_help(
            Code::CAT008,
            Some(&JsonPath::root("contentHash")),
            format!(
                "Does not match the referenced files: expected \"{expected}\" (found \"{found}\")"
            ),
            Some(
                "a referenced file changed since the hash was written; re-validate, then \
                 recompute the contentHash over the referenced files"
                    .into(),
            ),
        );
    }
}

/// CAT006: A `.mjs` file in the catalog that no entry of `registry.json` lists; a warning. Files in
/// a subdirectory of a listed schema's, agent's or selection's directory (such as its `prompts/`,
/// `skills/` or `resources/`) belong to that entry, and `_shared/` helper modules and hidden
/// directories are skipped.
///
/// # Why
///
/// A file nobody lists is invisible to the runtime: often a schema someone forgot to register, or a
/// leftover from development. The catalog still works, hence a warning; `flowmcp catalog index`
/// lists the file, or it can be removed.
fn check_orphans(tree: &[String], targets: &[Target], c: &mut Collector<'_>) {
    let listed: BTreeSet<&str> = targets.iter().map(|t| t.rel.as_str()).collect();
    let owners: Vec<String> = targets
        .iter()
        .filter(|t| t.section != Section::Shared)
        .filter_map(|t| t.rel.rsplit_once('/').map(|(dir, _)| format!("{dir}/")))
        .collect();
    for rel in tree {
        if listed.contains(rel.as_str()) {
            continue;
        }
        let owned = owners.iter().any(|o| {
            rel.strip_prefix(o.as_str())
                .is_some_and(|rest| rest.contains('/'))
        });
        if owned {
            continue;
        }
        c.emit_help(
            Code::CAT006,
            None,
            format!("File \"{rel}\" is in the catalog but not listed in {REGISTRY_FILE}"),
            Some(format!("list it in {REGISTRY_FILE}, or remove it")),
        );
    }
}

/// The `.mjs` files of the catalog, relative (with `/`), sorted. Skips hidden directories,
/// `node_modules`, `target` and the top-level `_shared/` (helper modules); does not follow symbolic
/// links to directories.
fn catalog_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    walk(dir, "", &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    walk_in(&flowmcp_files::Root::new(dir), prefix, out);
}

/// [`walk`] through the catalog's handle: a link to a file counts when it stays inside.
fn walk_in(root: &flowmcp_files::Root, prefix: &str, out: &mut Vec<String>) {
    use flowmcp_files::EntryKind;
    let Ok(entries) = root.list(Path::new(prefix)) else {
        return;
    };
    for e in entries {
        let Some(name) = e.name.to_str() else {
            continue;
        };
        let rel = format!("{prefix}{name}");
        match e.kind {
            EntryKind::Dir => {
                if name.starts_with('.')
                    || name == "node_modules"
                    || name == "target"
                    || (prefix.is_empty() && name == "_shared")
                {
                    continue;
                }
                walk_in(root, &format!("{rel}/"), out);
            }
            EntryKind::File if name.ends_with(".mjs") => out.push(rel),
            EntryKind::Link
                if name.ends_with(".mjs")
                    && matches!(root.follow_link(Path::new(&rel)), Ok(Some(_))) =>
            {
                out.push(rel);
            }
            _ => {}
        }
    }
}

/// A loaded file: its path relative to the catalog, on disk, its facts and, when validated, its
/// report and evaluation.
type Loaded = (String, PathBuf, Facts, Option<(FileReport, LoadedFile)>);

/// Loads every file (in parallel), extracts its facts and, with a list scope, validates it.
fn load_all(
    anchor: Option<&Path>,
    files: &BTreeMap<String, PathBuf>,
    display: &str,
    opts: &Options,
    scope: Option<&ListScope>,
) -> Vec<Loaded> {
    let items: Vec<(&String, &PathBuf)> = files.iter().collect();
    if items.is_empty() {
        return Vec::new();
    }
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16);
    let chunk = items.len().div_ceil(threads).max(1);
    let one = |rel: &String, file: &PathBuf| -> Loaded {
        let shown = format!("{display}/{rel}");
        let mut loaded = load_file_under(anchor, file, &shown, &opts.limits, &opts.settings);
        match scope {
            // The facts of the file as validation left it (a 3.0 agent manifest read as an agent
            // under compat).
            Some(scope) => {
                let report = crate::validate_loaded_mut(&mut loaded, opts, scope, Some(file));
                let facts = Facts::of(&loaded);
                (rel.clone(), file.clone(), facts, Some((report, loaded)))
            }
            None => (rel.clone(), file.clone(), Facts::of(&loaded), None),
        }
    };
    let mut out = Vec::with_capacity(items.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                let one = &one;
                std::thread::Builder::new()
                    .stack_size(flowmcp_loader::THREAD_STACK_BYTES)
                    .spawn_scoped(s, move || {
                        part.iter()
                            .map(|(rel, file)| one(rel, file))
                            .collect::<Vec<_>>()
                    })
            })
            .collect();
        for (h, part) in handles.into_iter().zip(items.chunks(chunk)) {
            match h.map_err(|_| ()).and_then(|h| h.join().map_err(|_| ())) {
                Ok(v) => out.extend(v),
                // A thread that could not start (or failed): do its part here.
                Err(()) => out.extend(part.iter().map(|(rel, file)| one(rel, file))),
            }
        }
    });
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Gives the catalog's diagnostics that have a JSON pointer the line and column of that value in
/// `registry.json` (JSON is an object literal, so the schema locator can read it).
fn add_json_positions(text: &str, diagnostics: &mut [Diagnostic]) {
    let wanted: Vec<usize> = diagnostics
        .iter()
        .enumerate()
        .filter(|(_, d)| d.line.is_none() && d.pointer.is_some())
        .map(|(i, _)| i)
        .collect();
    if wanted.is_empty() {
        return;
    }
    // `const registry =` on a line of its own, so positions are one line further down.
    let source = format!(
        "const registry =\n{}",
        text.strip_prefix('\u{feff}').unwrap_or(text)
    );
    let paths: Vec<Vec<Key>> = wanted
        .iter()
        .map(|&i| {
            std::iter::once(Key::Name("registry".into()))
                .chain(
                    diagnostics[i]
                        .pointer
                        .iter()
                        .flat_map(|p| p.segments())
                        .map(Key::from),
                )
                .collect()
        })
        .collect();
    for (&i, pos) in wanted.iter().zip(locate_paths(&source, &paths)) {
        if let Some(pos) = pos
            && pos.line > 1
        {
            diagnostics[i].line = Some(pos.line - 1);
            diagnostics[i].column = Some(pos.column);
        }
    }
}

/// CAT010, added by the single-file entry points (see there).
pub use crate::entry::mark_validated_alone;

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 39, scope 1: the catalog walk lists through the catalog's handle, so a `.mjs` link
    /// that leads out of the catalog is not one of its files, while a link that stays inside is.
    #[cfg(unix)]
    #[test]
    fn i39_8_the_catalog_walk_lists_no_file_outside_the_catalog() {
        // (Not the environment's temporary folder: this crate's sources read no environment.)
        let base = PathBuf::from("/tmp").join(format!("flowmcp-catwalk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let cat = base.join("cat");
        std::fs::create_dir_all(cat.join("providers/x")).unwrap();
        std::fs::write(cat.join("providers/x/a.mjs"), "export const main = {}").unwrap();
        std::fs::write(base.join("secret.mjs"), "export const main = {}").unwrap();
        std::os::unix::fs::symlink(base.join("secret.mjs"), cat.join("providers/x/out.mjs"))
            .unwrap();
        std::os::unix::fs::symlink("a.mjs", cat.join("providers/x/in.mjs")).unwrap();
        assert_eq!(
            catalog_files(&cat),
            vec!["providers/x/a.mjs", "providers/x/in.mjs"]
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn json_positions() {
        let text = "{\n  \"name\": \"x\",\n  \"schemas\": [\n    { \"file\": \"a.mjs\" }\n  ]\n}\n";
        let settings = flowmcp_spec::RuleSettings::default();
        let mut c = Collector::new(&settings, None);
        c.emit(Code::CAT002, Some(&JsonPath::root("name")), "x");
        c.emit(
            Code::CAT004,
            Some(&JsonPath::root("schemas").index(0).key("file")),
            "y",
        );
        let mut d = c.finish();
        add_json_positions(text, &mut d);
        assert_eq!((d[0].line, d[0].column), (Some(2), Some(11)));
        assert_eq!((d[1].line, d[1].column), (Some(4), Some(15)));
    }
}
