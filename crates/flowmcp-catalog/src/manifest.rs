//! `registry.json`: reading it, its `contentHash`, and writing it from the directory
//! ([`build_index`], [`write_index`]).
//!
//! The index reads the standard layout: `_lists/*.mjs` (shared lists), `providers/<ns>/*.mjs`
//! (schemas), `agents/<name>/agent.mjs` (agents) and `selections/<name>/*.mjs` (selections). Each
//! file is loaded in the sandbox (profile `compat`) to read what its entry derives from it: a list's
//! `meta.name`; a schema's `main.namespace`, `main.name`, `main.requiredServerParams`, whether it
//! exports `handlers`, and the `ref`s of `main.sharedLists`; an agent's or selection's
//! `description` (only when the entry has none yet). Existing entries whose files still exist
//! outside this layout stay listed. Hand-written members (the top-level `name`, `version`,
//! `description`, `schemaSpec`, entry descriptions, unknown members) are kept; entries are sorted by
//! path; `contentHash` is recomputed. Writing replaces the file atomically, and only when its
//! content changes.

use std::path::{Path, PathBuf};

use flowmcp_files::{EntryKind, PathError, Root};
use flowmcp_loader::Limits;
use flowmcp_loader::walk::load_file_under;
use flowmcp_loader::{FileKind, LoadedFile};
use flowmcp_spec::catalog::{
    AgentEntry, CURRENT_SPEC_VERSION, LISTS_DIR, REGISTRY_FILE, Registry, SchemaEntry, Section,
    SelectionEntry, SharedEntry, check_relative_path, content_hash, describe_changes, merge_index,
    referenced_paths,
};
use flowmcp_spec::{FileReport, Profile, RuleSettings};
use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::CatalogError;

/// The canonical catalog directory (an error when `dir` is not a directory).
pub(crate) fn catalog_root(dir: &Path) -> Result<PathBuf, CatalogError> {
    let root = flowmcp_files::named::canonical(dir).map_err(|e| CatalogError::io(dir, e))?;
    if !flowmcp_files::named::is_dir(&root) {
        return Err(CatalogError::NotADirectory {
            path: dir.display().to_string(),
        });
    }
    Ok(root)
}

/// The largest `registry.json` or `_lists/_registry.json` read (16 MiB).
const MAX_REGISTRY_BYTES: u64 = 16 * 1024 * 1024;

/// The `schemaHash` of the schema file at `path` (shown as `display`): the hash of its `main`
/// when the file loads without errors (read within `options`' limits, judged under its profile)
/// and `main` is an object. Otherwise the file's report, with the load's findings, says why.
pub fn schema_hash_file(
    path: &Path,
    display: &str,
    options: &flowmcp_validate::Options,
) -> Result<String, FileReport> {
    let loaded = flowmcp_loader::load_file(path, display, &options.limits, &options.settings);
    match loaded.exports.as_ref().and_then(|e| e.get("main")) {
        Some(main) if !loaded.has_errors() && main.is_object() => {
            Ok(flowmcp_spec::hash::schema_hash(main))
        }
        _ => Err(FileReport::new(
            display.to_string(),
            loaded.kind,
            loaded.diagnostics,
        )),
    }
}

/// Reads `registry.json`: `None` when there is none, an error when it is not a JSON object, or
/// when it is not a regular file (a symbolic link is never followed: a catalog cannot make
/// `catalog index` copy another file, such as the user's credentials, into its manifest).
pub fn read_registry(path: &Path) -> Result<Option<Map<String, Value>>, CatalogError> {
    let Some(text) = read_registry_text(path)? else {
        return Ok(None);
    };
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let bad = |reason: String| CatalogError::BadRegistry {
        path: path.display().to_string(),
        reason,
    };
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(bad("not a JSON object".into())),
        Err(e) => Err(bad(format!("not valid JSON ({e})"))),
    }
}

/// The text of a registry file at `path` (`registry.json`, `_lists/_registry.json`), read as a
/// regular file in its directory through [`Root::read_regular_file`]; `None` when there is none.
fn read_registry_text(path: &Path) -> Result<Option<String>, CatalogError> {
    let (dir, name) = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => (dir, name),
        (_, Some(name)) => (Path::new("."), name),
        _ => {
            return Err(CatalogError::io(
                path,
                std::io::ErrorKind::InvalidInput.into(),
            ));
        }
    };
    let bad = |reason: String| CatalogError::BadRegistry {
        path: path.display().to_string(),
        reason,
    };
    match Root::new(dir).read_regular_file(Path::new(name), MAX_REGISTRY_BYTES) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| bad("not UTF-8 text".into())),
        Err(PathError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(PathError::Io { source, .. }) => Err(CatalogError::io(path, source)),
        Err(e) => Err(bad(e.to_string())),
    }
}

/// Whether the `registry.json` of `dir` is a grading list, not a catalog manifest
/// ([`flowmcp_validate::catalog::is_grading_list`]); `false` when there is none or it does not parse.
pub fn has_grading_list(dir: &Path) -> bool {
    read_registry_text(&dir.join(REGISTRY_FILE)).is_ok_and(|text| {
        text.is_some_and(|text| {
            let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
            flowmcp_validate::catalog::is_grading_list_text(body)
        })
    })
}

/// What to say about a `registry.json` that is a grading list ([`has_grading_list`]): with
/// `served`, that its directory is read as a directory of schema files (the `compat` profile);
/// otherwise that nothing of it is served (`spec`) and what to do.
pub fn grading_list_note(served: bool) -> String {
    const WHAT: &str =
        "a grading list (schemas named by \"schemaPath\"), not a catalog manifest (chapter 15)";
    if served {
        format!("warning: {WHAT}; the directory is read as a directory of schema files (compat)")
    } else {
        format!(
            "{WHAT} (CAT001): nothing is served under the spec profile; the compat profile \
             reads the directory as a directory of schema files"
        )
    }
}

/// The `contentHash` of the catalog in `dir`: SHA-256 over the files its `registry.json` references
/// (chapter 15).
pub fn catalog_hash(dir: &Path) -> Result<String, CatalogError> {
    let root = catalog_root(dir)?;
    let registry_path = dir.join(REGISTRY_FILE);
    let registry = read_registry(&registry_path)?.ok_or_else(|| CatalogError::NoRegistry {
        path: registry_path.display().to_string(),
        dir: dir.display().to_string(),
    })?;
    let refs = referenced_paths(&Value::Object(registry));
    hash_files(
        &root,
        refs.iter()
            .map(|r| (format!("{}[{}]", r.section.key(), r.index), r.path.as_str())),
    )
}

/// The `contentHash` over the files `items` name (`(label for errors, path relative to root)`),
/// each read from under `root`.
fn hash_files<'p>(
    root: &Path,
    items: impl Iterator<Item = (String, &'p str)>,
) -> Result<String, CatalogError> {
    let mut contents: Vec<(&str, Vec<u8>)> = Vec::new();
    for (label, rel) in items {
        resolve(root, rel).map_err(|e| CatalogError::Entry(format!("{label}: {e}")))?;
        let bytes = read_inside(root, rel)?;
        contents.push((rel, bytes));
    }
    Ok(content_hash(
        contents.iter().map(|(p, b)| (*p, b.as_slice())),
    ))
}

/// The bytes of the file at `rel` (a manifest path already checked by [`resolve`]), read through
/// the catalog's handle: a file swapped for a link out since it was resolved is not read.
fn read_inside(root: &Path, rel: &str) -> Result<Vec<u8>, CatalogError> {
    Root::new(root)
        .read_capped(&rel.split('/').collect::<PathBuf>(), u64::MAX)
        .map_err(|e| match e {
            PathError::Io { source, .. } => CatalogError::io(&root.join(rel), source),
            other => CatalogError::Entry(format!("{rel:?}: {other}")),
        })
}

/// The file a manifest path names, which must lie inside `root` (symbolic links included),
/// resolved by [`Root::resolve`].
pub(crate) fn resolve(root: &Path, rel: &str) -> Result<PathBuf, CatalogError> {
    let entry = |m: String| CatalogError::Entry(m);
    check_relative_path(rel).map_err(|p| entry(format!("invalid path {rel:?}: {p}")))?;
    let real = Root::new(root).resolve(rel).map_err(|e| match e {
        PathError::Escape { .. } => entry(format!("{rel:?} leads outside the catalog")),
        other => entry(format!("{rel:?}: {other}")),
    })?;
    if !flowmcp_files::named::is_file(&real) {
        return Err(entry(format!("{rel:?} is not a file")));
    }
    Ok(real)
}

/// A file found for the index, before loading.
struct Found {
    section: Section,
    rel: String,
    file: PathBuf,
}

/// What [`build_index`] computed.
#[derive(Clone, Debug)]
pub struct Index {
    /// Where `registry.json` is (or will be).
    pub path: PathBuf,
    /// The manifest as it is now, if there is one.
    pub existing: Option<Value>,
    /// The manifest the directory gives, merged over the existing one.
    pub merged: Value,
    /// What changes, one line each (`+ …`, `- …`, `~ …`); empty when up to date.
    pub changes: Vec<String>,
    /// Remarks about files (left out, not loading, entries dropped).
    pub notes: Vec<String>,
    /// Entries per section of the new manifest: shared lists, schemas, agents, selections.
    pub counts: [usize; 4],
    /// The name of the catalog's directory, which the manifest's `name` must equal (CAT002).
    pub dir_name: String,
}

impl Index {
    /// Whether `registry.json` already says what the directory gives.
    pub fn is_current(&self) -> bool {
        self.existing.as_ref() == Some(&self.merged)
    }

    /// The manifest's `name` (as JSON text) when it is not the directory's name (CAT002): a
    /// copied catalog keeps its old name, and the index keeps a hand-written name unless asked
    /// to [`rename`](Index::rename).
    pub fn misnamed(&self) -> Option<String> {
        match self.merged.get("name") {
            Some(Value::String(n)) if *n == self.dir_name => None,
            Some(other) => Some(other.to_string()),
            None => Some("(none)".into()),
        }
    }

    /// Sets the manifest's `name` to the directory's name (`flowmcp catalog index --rename`) and
    /// says so in [`Index::changes`].
    pub fn rename(&mut self) {
        if self.misnamed().is_none() {
            return;
        }
        if let Value::Object(m) = &mut self.merged {
            m.insert("name".into(), Value::String(self.dir_name.clone()));
        }
        if let Some(old) = &self.existing {
            self.changes = describe_changes(old, &self.merged);
        }
    }
}

/// Computes `registry.json` for the catalog in `dir` (see the module documentation); writes
/// nothing.
pub fn build_index(dir: &Path) -> Result<Index, CatalogError> {
    let root = catalog_root(dir)?;
    let registry_path = dir.join(REGISTRY_FILE);
    let existing = read_registry(&registry_path)?;
    let dir_name = root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();

    let mut notes: Vec<String> = Vec::new();
    let mut found = discover(&root, &mut notes);
    // Entries of the existing manifest whose files still exist outside the standard layout stay.
    if let Some(old) = &existing {
        for r in referenced_paths(&Value::Object(old.clone())) {
            if found.iter().any(|f| f.rel == r.path) {
                continue;
            }
            match resolve(&root, &r.path) {
                Ok(file) if r.path.ends_with(".mjs") => found.push(Found {
                    section: r.section,
                    rel: r.path,
                    file,
                }),
                Ok(_) => notes.push(format!("{}: not a .mjs file; entry dropped", r.path)),
                Err(e) => notes.push(format!("{e}; entry dropped")),
            }
        }
    }

    let settings = RuleSettings::new(Profile::Compat);
    let limits = Limits::default();
    let loaded: Vec<(Found, LoadedFile)> = found
        .into_par_iter()
        .map(|f| {
            // Read through the catalog's handle (the files were resolved inside `root`).
            let anchor = f.file.starts_with(&root).then_some(root.as_path());
            let loaded = load_file_under(anchor, &f.file, &f.rel, &limits, &settings);
            (f, loaded)
        })
        .collect();

    let old_entry = |section: Section, rel: &str| -> Option<Map<String, Value>> {
        existing
            .as_ref()?
            .get(section.key())?
            .as_array()?
            .iter()
            .filter_map(Value::as_object)
            .find(|e| e.get(section.path_key()).and_then(Value::as_str) == Some(rel))
            .cloned()
    };

    let mut fresh = Registry {
        name: dir_name,
        version: "1.0.0".into(),
        description: String::new(),
        schema_spec: CURRENT_SPEC_VERSION.into(),
        ..Registry::default()
    };
    let mut selections: Vec<SelectionEntry> = Vec::new();
    for (f, loaded) in &loaded {
        let old = old_entry(f.section, &f.rel);
        let old_str = |key: &str| -> Option<String> {
            old.as_ref()
                .and_then(|o| o.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let exports = loaded.exports.as_ref();
        if exports.is_none() {
            notes.push(format!(
                "{}: does not load ({}); its entry keeps the values already listed",
                f.rel,
                first_error(loaded)
            ));
        }
        let export = |name: &str| exports.and_then(|e| e.get(name)).and_then(Value::as_object);
        let member = |obj: Option<&Map<String, Value>>, key: &str| -> Option<String> {
            obj.and_then(|o| o.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let stem = file_stem(&f.rel);
        match f.section {
            Section::Shared => {
                if exports.is_some() && loaded.kind != FileKind::List {
                    notes.push(format!("{}: exports no `list`; left out", f.rel));
                    continue;
                }
                let meta = export("list")
                    .and_then(|l| l.get("meta"))
                    .and_then(Value::as_object);
                fresh.shared.push(SharedEntry {
                    file: f.rel.clone(),
                    name: member(meta, "name")
                        .or_else(|| old_str("name"))
                        .unwrap_or_else(|| camel_case(&stem)),
                    extra: Map::new(),
                });
            }
            Section::Schemas => {
                if exports.is_some() && loaded.kind != FileKind::Schema {
                    notes.push(format!("{}: exports no `main`; left out", f.rel));
                    continue;
                }
                fresh.schemas.push(schema_entry(f, loaded, old.as_ref()));
            }
            Section::Agents => {
                if exports.is_some() && loaded.kind != FileKind::Agent {
                    notes.push(format!("{}: exports no `agent`; left out", f.rel));
                    continue;
                }
                let name = f.rel.rsplit('/').nth(1).map(str::to_string).unwrap_or(stem);
                fresh.agents.push(AgentEntry {
                    name,
                    description: member(export("agent"), "description").unwrap_or_default(),
                    manifest: f.rel.clone(),
                    extra: Map::new(),
                });
            }
            Section::Selections => {
                if exports.is_some() && loaded.kind != FileKind::Selection {
                    // Skills and prompts next to a selection are not selections.
                    continue;
                }
                let sel = export("selection");
                selections.push(SelectionEntry {
                    name: member(sel, "name")
                        .or_else(|| old_str("name"))
                        .unwrap_or(stem),
                    description: member(sel, "description").unwrap_or_default(),
                    file: f.rel.clone(),
                    extra: Map::new(),
                });
            }
        }
    }
    if !selections.is_empty() {
        fresh.selections = Some(selections);
    }

    // contentHash over the files the new manifest lists.
    let hash = hash_files(
        &root,
        fresh
            .referenced_paths()
            .into_iter()
            .map(|(section, rel)| (section.key().to_string(), rel)),
    )?;
    fresh.content_hash = Some(hash);

    let merged = Value::Object(merge_index(existing.as_ref(), &fresh));
    let existing = existing.map(Value::Object);
    let changes = match &existing {
        Some(old) if old == &merged => Vec::new(),
        Some(old) => describe_changes(old, &merged),
        None => vec![format!("+ {REGISTRY_FILE} (new file)")],
    };
    Ok(Index {
        path: registry_path,
        existing,
        merged,
        changes,
        notes,
        counts: [
            fresh.shared.len(),
            fresh.schemas.len(),
            fresh.agents.len(),
            fresh.selections.as_ref().map_or(0, Vec::len),
        ],
        dir_name: fresh.name,
    })
}

/// Writes the manifest of `index` (pretty JSON and a final newline), atomically; does nothing when
/// it is current.
pub fn write_index(index: &Index) -> Result<(), CatalogError> {
    if index.is_current() {
        return Ok(());
    }
    let mut text = serde_json::to_string_pretty(&index.merged)
        .map_err(|e| CatalogError::Entry(format!("cannot serialise {REGISTRY_FILE}: {e}")))?;
    text.push('\n');
    flowmcp_loader::edit::write_atomic(&index.path, text.as_bytes())
        .map_err(|e| CatalogError::io(&index.path, e))
}

/// The entry of one schema file: derived from `main` when the file loads, otherwise kept from the
/// existing entry (or defaults).
fn schema_entry(f: &Found, loaded: &LoadedFile, old: Option<&Map<String, Value>>) -> SchemaEntry {
    let main = loaded
        .exports
        .as_ref()
        .and_then(|e| e.get("main"))
        .and_then(Value::as_object);
    let old_typed: Option<SchemaEntry> =
        old.and_then(|o| serde_json::from_value(Value::Object(o.clone())).ok());
    let str_of = |o: Option<&Map<String, Value>>, key: &str| {
        o.and_then(|o| o.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let strings = |v: Option<&Value>| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in v
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !out.iter().any(|x| x == s) {
                out.push(s.to_string());
            }
        }
        out
    };
    // `providers/<ns>/<file>.mjs`: the directory names the namespace when `main` cannot.
    let dir_ns = f
        .rel
        .strip_prefix("providers/")
        .and_then(|r| r.split_once('/'))
        .map(|(ns, _)| ns.to_string());
    match main {
        Some(m) => SchemaEntry {
            namespace: str_of(Some(m), "namespace")
                .or_else(|| str_of(old, "namespace"))
                .or(dir_ns)
                .unwrap_or_default(),
            file: f.rel.clone(),
            name: str_of(Some(m), "name")
                .or_else(|| str_of(old, "name"))
                .unwrap_or_else(|| file_stem(&f.rel)),
            required_server_params: strings(m.get("requiredServerParams")),
            has_handlers: loaded.exports.as_ref().is_some_and(|e| e.has("handlers")),
            shared_lists: strings(
                m.get("sharedLists")
                    .and_then(Value::as_array)
                    .map(|a| Value::Array(a.iter().filter_map(|e| e.get("ref").cloned()).collect()))
                    .as_ref(),
            ),
            extra: Map::new(),
        },
        None => match old_typed {
            Some(mut e) => {
                e.extra = Map::new();
                e
            }
            None => SchemaEntry {
                namespace: str_of(old, "namespace").or(dir_ns).unwrap_or_default(),
                file: f.rel.clone(),
                name: str_of(old, "name").unwrap_or_else(|| file_stem(&f.rel)),
                ..SchemaEntry::default()
            },
        },
    }
}

fn first_error(loaded: &LoadedFile) -> String {
    loaded
        .diagnostics
        .iter()
        .find(|d| d.severity == flowmcp_spec::Severity::Error)
        .map(|d| format!("{} {}", d.code, d.message))
        .unwrap_or_else(|| "no recognised export".into())
}

fn file_stem(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.strip_suffix(".mjs").unwrap_or(name).to_string()
}

/// `evm-chains` → `evmChains` (chapter 03: the file name is the kebab-case form of the list name).
fn camel_case(kebab: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for ch in kebab.chars() {
        if ch == '-' || ch == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.extend(ch.to_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// The files of the standard layout, in a stable order.
/// The file of the shared-list registry inside `_lists/`.
pub const LIST_REGISTRY_FILE: &str = "_registry.json";

/// `_lists/_registry.json` as the directory gives it, next to what is on disk ([`build_list_registry`]).
#[derive(Clone, Debug)]
pub struct ListRegistryFile {
    /// Where the registry is (or will be).
    pub path: PathBuf,
    /// The registry on disk, if there is one and it is JSON.
    pub existing: Option<Value>,
    /// The registry the `_lists/*.mjs` files give: `specVersion` and one entry per list file
    /// (`name`, `version`, `file`, `entryCount`, `hash` = `sha256:` over the file's bytes), in
    /// file order.
    pub computed: Value,
    /// Where the registry on disk breaks the invariants, one line each: a list file without an
    /// entry, an entry whose file is missing, an entry whose `hash`, `name`, `version` or
    /// `entryCount` is not the file's. Empty when it is current.
    pub problems: Vec<String>,
    /// List files that do not load (their entries carry what could be read).
    pub notes: Vec<String>,
}

impl ListRegistryFile {
    /// Whether the registry on disk is exactly what the files give.
    pub fn is_current(&self) -> bool {
        self.existing.as_ref() == Some(&self.computed)
    }
}

/// Computes `_lists/_registry.json` for the catalog in `dir` (chapter 03's list registry) and
/// compares it with the one on disk; writes nothing. The list files are read as validation reads
/// them (profile `compat`): an entry's `name`, `version` and `entryCount` are its list's
/// `meta.name`, `meta.version` and number of entries.
pub fn build_list_registry(dir: &Path) -> Result<ListRegistryFile, CatalogError> {
    let root = catalog_root(dir)?;
    let lists = root.join(LISTS_DIR);
    let path = lists.join(LIST_REGISTRY_FILE);
    let existing = match read_registry_text(&path)? {
        Some(text) => Some(
            serde_json::from_str::<Value>(&text)
                .map_err(|e| CatalogError::Entry(format!("{}: not JSON: {e}", path.display())))?,
        ),
        None => None,
    };
    // The lists as validation reads them: one reading of `meta` for both.
    let read = flowmcp_validate::lists::load_dir(
        &lists,
        &RuleSettings::new(Profile::Compat),
        &Limits::default(),
    );
    let mut files: Vec<(&str, Option<&flowmcp_spec::lists::SharedList>)> = read
        .lists()
        .iter()
        .map(|l| (l.display.as_str(), Some(l)))
        .chain(read.unloaded().iter().map(|d| (d.as_str(), None)))
        .collect();
    files.sort_by_key(|(rel, _)| *rel);
    let mut notes = Vec::new();
    let mut entries = Vec::new();
    for (rel, list) in files {
        resolve(&root, rel)?;
        let bytes = read_inside(&root, rel)?;
        if list.is_none() {
            notes.push(format!(
                "{rel}: gives no list (no `list` export with a `meta.name`); its entry has no name"
            ));
        }
        let text = |v: Option<&String>| v.map_or(Value::Null, |s| Value::String(s.clone()));
        let mut entry = Map::new();
        entry.insert("name".into(), text(list.map(|l| &l.name)));
        entry.insert(
            "version".into(),
            text(list.and_then(|l| l.version.as_ref())),
        );
        entry.insert("file".into(), Value::String(rel.to_string()));
        entry.insert(
            "entryCount".into(),
            list.map_or(Value::Null, |l| Value::from(l.entries.len())),
        );
        entry.insert(
            "hash".into(),
            Value::String(format!("sha256:{}", flowmcp_spec::hash::sha256_hex(&bytes))),
        );
        entries.push(Value::Object(entry));
    }
    let mut computed = Map::new();
    computed.insert(
        "specVersion".into(),
        Value::String(LIST_REGISTRY_SPEC_VERSION.to_string()),
    );
    computed.insert("lists".into(), Value::Array(entries));
    let computed = Value::Object(computed);
    let problems = match &existing {
        None => vec![format!("{}: missing", path.display())],
        Some(old) => list_registry_problems(old, &computed),
    };
    Ok(ListRegistryFile {
        path,
        existing,
        computed,
        problems,
        notes,
    })
}

/// The `specVersion` written into `_lists/_registry.json`: the specification this project
/// implements.
const LIST_REGISTRY_SPEC_VERSION: &str = "4.2.0";

/// Where the registry `old` breaks chapter 03's invariants against what the files give (`new`).
fn list_registry_problems(old: &Value, new: &Value) -> Vec<String> {
    let by_file = |v: &Value| -> Vec<(String, Map<String, Value>)> {
        v.get("lists")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .filter_map(|e| Some((e.get("file")?.as_str()?.to_string(), e.clone())))
            .collect()
    };
    let (old, new) = (by_file(old), by_file(new));
    let mut out = Vec::new();
    for (file, entry) in &new {
        match old.iter().find(|(f, _)| f == file) {
            None => out.push(format!("{file}: no entry in {LIST_REGISTRY_FILE}")),
            Some((_, was)) => {
                for key in ["hash", "name", "version", "entryCount"] {
                    if was.get(key) != entry.get(key) {
                        out.push(format!(
                            "{file}: {key} is {} in {LIST_REGISTRY_FILE}, {} in the file",
                            was.get(key).map_or("missing".into(), Value::to_string),
                            entry.get(key).map_or("missing".into(), Value::to_string)
                        ));
                    }
                }
            }
        }
    }
    for (file, _) in &old {
        if !new.iter().any(|(f, _)| f == file) {
            out.push(format!(
                "{file}: listed in {LIST_REGISTRY_FILE}, but there is no such file"
            ));
        }
    }
    out
}

/// Writes the registry of `registry` (pretty JSON and a final newline), atomically; does nothing
/// when it is current.
pub fn write_list_registry(registry: &ListRegistryFile) -> Result<(), CatalogError> {
    if registry.is_current() {
        return Ok(());
    }
    let mut text = serde_json::to_string_pretty(&registry.computed)
        .map_err(|e| CatalogError::Entry(format!("cannot serialise {LIST_REGISTRY_FILE}: {e}")))?;
    text.push('\n');
    flowmcp_loader::edit::write_atomic(&registry.path, text.as_bytes())
        .map_err(|e| CatalogError::io(&registry.path, e))
}

fn discover(root: &Path, notes: &mut Vec<String>) -> Vec<Found> {
    let mut out = Vec::new();
    let mut add = |section: Section, rel: String, notes: &mut Vec<String>| match resolve(root, &rel)
    {
        Ok(file) => out.push(Found { section, rel, file }),
        Err(e) => notes.push(format!("{e}; skipped")),
    };
    for name in mjs_files(&root.join(LISTS_DIR)) {
        add(Section::Shared, format!("{LISTS_DIR}/{name}"), notes);
    }
    for ns in subdirs(&root.join("providers")) {
        for name in mjs_files(&root.join("providers").join(&ns)) {
            add(Section::Schemas, format!("providers/{ns}/{name}"), notes);
        }
    }
    for agent in subdirs(&root.join("agents")) {
        if flowmcp_files::named::exists(root.join("agents").join(&agent).join("agent.mjs")) {
            add(Section::Agents, format!("agents/{agent}/agent.mjs"), notes);
        }
    }
    for sel in subdirs(&root.join("selections")) {
        for name in mjs_files(&root.join("selections").join(&sel)) {
            add(
                Section::Selections,
                format!("selections/{sel}/{name}"),
                notes,
            );
        }
    }
    out
}

/// Names of the visible subdirectories of `dir` (not symbolic links), sorted; none when `dir` is
/// missing. Listed through the directory's handle.
fn subdirs(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = Root::new(dir)
        .list(Path::new(""))
        .into_iter()
        .flatten()
        .filter(|e| e.kind == EntryKind::Dir)
        .filter_map(|e| e.name.to_str().map(str::to_string))
        .filter(|n| !n.starts_with('.') && n != "node_modules")
        .collect();
    out.sort();
    out
}

/// Names of the `.mjs` files directly in `dir` (following file symbolic links while they stay
/// inside it), sorted. Listed through the directory's handle.
fn mjs_files(dir: &Path) -> Vec<String> {
    let root = Root::new(dir);
    let mut out: Vec<String> = root
        .list(Path::new(""))
        .into_iter()
        .flatten()
        .filter(|e| match e.kind {
            EntryKind::File => true,
            EntryKind::Link => root.file_metadata(Path::new(&e.name)).is_ok(),
            _ => false,
        })
        .filter_map(|e| e.name.to_str().map(str::to_string))
        .filter(|n| n.ends_with(".mjs") && !n.starts_with('.'))
        .collect();
    out.sort();
    out
}

/// Finds the catalog a file lies in, remembering every folder it has answered for, so many files
/// of one tree are located with one walk up per folder.
///
/// A catalog root is a folder [`flowmcp_validate::catalog::is_catalog`] accepts that is not a
/// grading folder (one with a grading list, see [`has_grading_list`]).
#[derive(Debug)]
pub struct CatalogLocator<'a> {
    discovery: &'a crate::ListDiscovery,
    /// Folder (its bytes, [`crate::discovery::PathKey`]) → the catalog root it lies in.
    known: std::collections::HashMap<crate::discovery::PathKey, Option<PathBuf>>,
}

impl<'a> CatalogLocator<'a> {
    /// A locator that canonicalises paths through `discovery`'s folder cache.
    pub fn new(discovery: &'a crate::ListDiscovery) -> Self {
        Self {
            discovery,
            known: std::collections::HashMap::new(),
        }
    }

    /// The root of the catalog `path` lies in and the file's path inside it (`/`-separated);
    /// `None` when the file does not exist or no folder above it is a catalog.
    pub fn locate(&mut self, path: &Path) -> Option<(PathBuf, String)> {
        let file = self.discovery.canonical_file(path)?;
        let start = file.parent()?.to_path_buf();
        // Up from the file's directory to the first catalog; every directory passed on the way has
        // the same answer, and a directory answered before ends the walk.
        let mut walked = Vec::new();
        let mut root = None;
        for d in start.ancestors() {
            if let Some(found) = self.known.get(d.as_os_str()) {
                root = found.clone();
                break;
            }
            walked.push(d.to_path_buf());
            if flowmcp_validate::catalog::is_catalog(d) && !has_grading_list(d) {
                root = Some(d.to_path_buf());
                break;
            }
        }
        for d in walked {
            self.known.insert(d.into_os_string(), root.clone());
        }
        let root = root?;
        let rel = file
            .strip_prefix(&root)
            .ok()?
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        Some((root, rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("flowmcp-manifest-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Issue #40, scope 5 (D109): a file is placed in the nearest catalog above it, with its
    /// path inside; a file outside any catalog has none.
    #[test]
    fn i40_the_locator_finds_the_nearest_catalog_and_the_files_path_in_it() {
        let d = temp_dir("locate");
        std::fs::create_dir_all(d.join("cat/schemas/deep")).unwrap();
        std::fs::create_dir_all(d.join("loose")).unwrap();
        std::fs::write(d.join("cat/registry.json"), r#"{"name":"c","schemas":[]}"#).unwrap();
        std::fs::write(d.join("cat/schemas/deep/a.mjs"), "").unwrap();
        std::fs::write(d.join("cat/schemas/b.mjs"), "").unwrap();
        std::fs::write(d.join("loose/c.mjs"), "").unwrap();
        let discovery = crate::ListDiscovery::new();
        let mut locator = CatalogLocator::new(&discovery);
        let root = std::fs::canonicalize(d.join("cat")).unwrap();
        assert_eq!(
            locator.locate(&d.join("cat/schemas/deep/a.mjs")),
            Some((root.clone(), "schemas/deep/a.mjs".to_string()))
        );
        assert_eq!(
            locator.locate(&d.join("cat/schemas/b.mjs")),
            Some((root, "schemas/b.mjs".to_string()))
        );
        assert_eq!(locator.locate(&d.join("loose/c.mjs")), None);
        assert_eq!(locator.locate(&d.join("cat/missing.mjs")), None);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Issue #29, scope 3 (D74): the note names the profile, not the CLI's flag.
    #[test]
    fn i29_3_the_grading_list_note_names_no_cli_flag() {
        let note = grading_list_note(false);
        assert!(note.contains("the compat profile reads"), "{note}");
        assert!(!note.contains("--profile"), "{note}");
    }

    #[test]
    fn names() {
        assert_eq!(camel_case("evm-chains"), "evmChains");
        assert_eq!(camel_case("countries"), "countries");
        assert_eq!(camel_case("iso-country-codes"), "isoCountryCodes");
        assert_eq!(file_stem("_lists/evm-chains.mjs"), "evm-chains");
    }

    #[test]
    fn resolve_keeps_paths_inside() {
        let d = temp_dir("resolve");
        std::fs::create_dir_all(d.join("providers/x")).unwrap();
        std::fs::write(d.join("providers/x/a.mjs"), "").unwrap();
        let root = d.canonicalize().unwrap();
        assert!(resolve(&root, "providers/x/a.mjs").is_ok());
        assert!(resolve(&root, "../a.mjs").is_err());
        assert!(resolve(&root, "/etc/hostname").is_err());
        assert!(resolve(&root, "providers/x/missing.mjs").is_err());
        assert!(resolve(&root, "providers/x").is_err());
        #[cfg(unix)]
        {
            let outside = temp_dir("resolve-outside");
            std::fs::write(outside.join("o.mjs"), "").unwrap();
            std::os::unix::fs::symlink(outside.join("o.mjs"), d.join("providers/x/link.mjs"))
                .unwrap();
            let err = resolve(&root, "providers/x/link.mjs").unwrap_err();
            assert!(err.to_string().contains("outside"), "{err}");
            let _ = std::fs::remove_dir_all(&outside);
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
