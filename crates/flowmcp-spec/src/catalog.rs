//! The catalog manifest `registry.json` (chapter 15) and its `contentHash`.
//!
//! Pure data and functions: nothing here reads the file system. Callers pass in the JSON they read and
//! the bytes of the files it references.
//!
//! * [`Registry`] and its entry types are the typed model of `registry.json`. Unknown members are kept
//!   in `extra`, so reading and writing a manifest loses nothing.
//! * [`Section`] names the four reference lists (`shared`, `schemas`, `agents` and `selections`,
//!   which chapter 15's field table leaves out but its example and hash algorithm use) and the
//!   member that holds each entry's path.
//! * [`check_relative_path`] decides whether a path may appear in a manifest: relative, forward
//!   slashes, no `.`/`..` or empty segments (chapter 15: "Absolute paths and paths that escape the
//!   catalog directory are forbidden").
//! * [`content_hash`] is the `contentHash` exactly as chapter 15 defines it: the referenced files
//!   sorted by path, `path:content\n` for each over the raw file contents, SHA-256, written
//!   `sha256:<64 hex>`.
//! * [`merge_index`] and [`describe_changes`] are the pure halves of `flowmcp catalog index`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The manifest's file name in the catalog root.
pub const REGISTRY_FILE: &str = "registry.json";

/// The prefix of a `contentHash` value.
pub(crate) const CONTENT_HASH_PREFIX: &str = "sha256:";

/// The directory that holds the shared lists (chapter 15, "Shared List Ownership Rule").
pub const LISTS_DIR: &str = "_lists";

/// The file name every agent manifest has (CAT005).
pub const AGENT_MANIFEST: &str = "agent.mjs";

/// Namespaces no provider, agent or selection may use (chapter 16, "Reserved Namespaces").
pub const RESERVED_NAMESPACES: &[&str] = &["shared"];

/// The FlowMCP specification versions a catalog's `schemaSpec` may name (CAT007): the releases in the
/// overview's version history, plus 4.1.0, whose directory layout the ID and selection chapters use.
pub const KNOWN_SPEC_VERSIONS: &[&str] = &[
    "1.0.0", "1.2.0", "2.0.0", "3.0.0", "3.1.0", "4.0.0", "4.1.0", "4.2.0",
];

/// The `schemaSpec` a new manifest gets.
pub const CURRENT_SPEC_VERSION: &str = "4.2.0";

/// Whether `v` is one of [`KNOWN_SPEC_VERSIONS`].
pub fn is_known_spec_version(v: &str) -> bool {
    KNOWN_SPEC_VERSIONS.contains(&v)
}

/// The model key flowmcp sends (as a bearer token) to its chat endpoint in `flowmcp agent` and
/// `flowmcp grade --llm`.
pub const MODEL_KEY: &str = "OPENROUTER_API_KEY";

/// The prefix of flowmcp's own variables (`FLOWMCP_AUTH_TOKEN`, `FLOWMCP_ROUTE_TOKENS`,
/// `FLOWMCP_OAUTH_ISSUER`, `FLOWMCP_LLM_BASE_URL`, `FLOWMCP_LIBS`, …).
pub const PRODUCT_PREFIX: &str = "FLOWMCP_";

/// Whether `name` is reserved for flowmcp itself ([`MODEL_KEY`], or a name starting with
/// [`PRODUCT_PREFIX`]; ASCII case is ignored, as environment names are on Windows). A reserved name
/// is never a server parameter: no source gives a schema its value.
pub fn is_reserved_name(name: &str) -> bool {
    name.eq_ignore_ascii_case(MODEL_KEY)
        || name
            .get(..PRODUCT_PREFIX.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(PRODUCT_PREFIX))
}

/// Whether `ns` is a reserved namespace.
pub fn is_reserved_namespace(ns: &str) -> bool {
    RESERVED_NAMESPACES.contains(&ns)
}

/// Whether `s` matches the namespace pattern `^[a-z][a-z0-9-]*$` (chapter 16; tags follow it too).
pub fn is_namespace(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Whether `text` is exactly `YYYY-MM-DD` and names a day that exists. Such strings compare in
/// date order as text (a GTFS seal's revision, a terms-of-service check date).
pub fn is_iso_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = text.get(range)?;
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// One of the reference lists of a manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    Shared,
    Schemas,
    Agents,
    /// Not in chapter 15's field table, but in its example and hash algorithm: supported.
    Selections,
}

impl Section {
    /// Every section, in manifest order.
    pub const ALL: [Section; 4] = [
        Section::Shared,
        Section::Schemas,
        Section::Agents,
        Section::Selections,
    ];

    /// The top-level member that holds the list.
    pub fn key(self) -> &'static str {
        match self {
            Section::Shared => "shared",
            Section::Schemas => "schemas",
            Section::Agents => "agents",
            Section::Selections => "selections",
        }
    }

    /// The entry member that holds the referenced file's path.
    pub fn path_key(self) -> &'static str {
        match self {
            Section::Agents => "manifest",
            _ => "file",
        }
    }

    /// Whether chapter 15 requires the list (`selections` is optional).
    pub fn required(self) -> bool {
        self != Section::Selections
    }

    /// The entry members in the order a generated manifest writes them.
    pub fn known_keys(self) -> &'static [&'static str] {
        match self {
            Section::Shared => &["file", "name"],
            Section::Schemas => &[
                "namespace",
                "file",
                "name",
                "requiredServerParams",
                "hasHandlers",
                "sharedLists",
            ],
            Section::Agents => &["name", "description", "manifest"],
            Section::Selections => &["name", "description", "file"],
        }
    }

    /// The members `flowmcp catalog index` keeps from an existing entry when they hold a non-empty
    /// string (hand-written text); every other known member is derived from the files.
    pub fn hand_written_keys(self) -> &'static [&'static str] {
        match self {
            Section::Agents | Section::Selections => &["description"],
            _ => &[],
        }
    }
}

/// The top-level members in the order a generated manifest writes them.
pub const TOP_LEVEL_KEYS: &[&str] = &[
    "name",
    "version",
    "description",
    "schemaSpec",
    "contentHash",
    "shared",
    "schemas",
    "agents",
    "selections",
];

/// `registry.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Registry {
    /// The catalog name; equals the catalog directory name (CAT002).
    pub name: String,
    /// The catalog's own version (semver).
    pub version: String,
    pub description: String,
    /// The specification version the catalog follows (CAT007).
    pub schema_spec: String,
    /// `sha256:<64 hex digits>` over the referenced files ([`content_hash`]); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    pub shared: Vec<SharedEntry>,
    pub schemas: Vec<SchemaEntry>,
    pub agents: Vec<AgentEntry>,
    /// Optional (chapter 15's field table leaves it out); `None` when the member is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selections: Option<Vec<SelectionEntry>>,
    /// Members this model does not know, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A `shared[]` entry: one shared list file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SharedEntry {
    /// Relative path of the `.mjs` list file (under `_lists/`).
    pub file: String,
    /// The list's `meta.name`.
    pub name: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A `schemas[]` entry: one provider schema file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaEntry {
    /// The schema's `main.namespace`.
    pub namespace: String,
    /// Relative path of the `.mjs` schema file.
    pub file: String,
    /// The schema's `main.name`.
    pub name: String,
    /// The schema's `main.requiredServerParams`.
    pub required_server_params: Vec<String>,
    /// Whether the file exports `handlers`.
    pub has_handlers: bool,
    /// The `ref`s of the schema's `main.sharedLists`.
    pub shared_lists: Vec<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An `agents[]` entry. `prompts`, `skills` and `resources` (optional objects) live in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentEntry {
    /// The agent's directory name.
    pub name: String,
    pub description: String,
    /// Relative path of the agent's `agent.mjs`.
    pub manifest: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A `selections[]` entry (from chapter 15's example: `{ name, description, file }`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelectionEntry {
    pub name: String,
    pub description: String,
    /// Relative path of the selection file.
    pub file: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Registry {
    /// Reads a manifest. Fails (with serde's message) when a required member is missing or has the
    /// wrong type; validation reports such problems one by one instead.
    pub fn from_json(value: &Value) -> Result<Registry, serde_json::Error> {
        Registry::deserialize(value)
    }

    /// The manifest as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Every referenced path with its section, in manifest order (duplicates included).
    pub fn referenced_paths(&self) -> Vec<(Section, &str)> {
        let mut out: Vec<(Section, &str)> = Vec::new();
        out.extend(
            self.shared
                .iter()
                .map(|e| (Section::Shared, e.file.as_str())),
        );
        out.extend(
            self.schemas
                .iter()
                .map(|e| (Section::Schemas, e.file.as_str())),
        );
        out.extend(
            self.agents
                .iter()
                .map(|e| (Section::Agents, e.manifest.as_str())),
        );
        out.extend(
            self.selections
                .iter()
                .flatten()
                .map(|e| (Section::Selections, e.file.as_str())),
        );
        out
    }
}

/// A referenced path read leniently from manifest JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRef {
    pub section: Section,
    /// The entry's index in its section.
    pub index: usize,
    pub path: String,
}

/// Every string path in `registry` (`shared[].file`, `schemas[].file`, `agents[].manifest`,
/// `selections[].file`), in manifest order, skipping entries that are not objects or whose path is not a
/// string. Works on manifests that do not satisfy [`Registry`].
pub fn referenced_paths(registry: &Value) -> Vec<PathRef> {
    let mut out = Vec::new();
    for section in Section::ALL {
        let Some(Value::Array(entries)) = registry.get(section.key()) else {
            continue;
        };
        for (index, entry) in entries.iter().enumerate() {
            if let Some(Value::String(path)) = entry.get(section.path_key()) {
                out.push(PathRef {
                    section,
                    index,
                    path: path.clone(),
                });
            }
        }
    }
    out
}

/// Why a path may not appear in a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathProblem {
    Empty,
    /// Starts with `/` or `\`, or with a drive letter (`C:`).
    Absolute,
    /// Has a `..` segment.
    Escapes,
    /// Uses `\` as a separator.
    Backslash,
    /// Has an empty segment (`a//b`, a trailing `/`) or a `.` segment.
    NotNormalized,
    /// Contains a NUL or another control character.
    ControlCharacter,
}

impl std::fmt::Display for PathProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PathProblem::Empty => "the path is empty",
            PathProblem::Absolute => {
                "absolute paths are forbidden; paths are relative to the catalog root"
            }
            PathProblem::Escapes => {
                "`..` segments are forbidden; the path must stay inside the catalog"
            }
            PathProblem::Backslash => "paths use `/` as the separator, not `\\`",
            PathProblem::NotNormalized => "the path has an empty or `.` segment",
            PathProblem::ControlCharacter => "the path contains a control character",
        })
    }
}

/// Checks that `path` is a normalised relative path inside the catalog: not empty, not absolute,
/// segments separated by `/`, none of them empty, `.` or `..`. (Whether the file exists, and whether a
/// symbolic link leads out of the catalog, only the file system can tell.)
pub fn check_relative_path(path: &str) -> Result<(), PathProblem> {
    if path.is_empty() {
        return Err(PathProblem::Empty);
    }
    if path.chars().any(char::is_control) {
        return Err(PathProblem::ControlCharacter);
    }
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if path.starts_with('/') || path.starts_with('\\') || drive {
        return Err(PathProblem::Absolute);
    }
    if path.split(['/', '\\']).any(|s| s == "..") {
        return Err(PathProblem::Escapes);
    }
    if path.contains('\\') {
        return Err(PathProblem::Backslash);
    }
    if path.split('/').any(|s| s.is_empty() || s == ".") {
        return Err(PathProblem::NotNormalized);
    }
    Ok(())
}

/// The `contentHash` over `files` (path as written in the manifest, raw file contents): the files sorted
/// by path (byte order of the UTF-8 paths), a path listed twice counted once, then SHA-256 over the
/// concatenation of `{path}:{content}\n`, written `sha256:` followed by 64 lowercase hex digits.
pub fn content_hash<'a, I>(files: I) -> String
where
    I: IntoIterator<Item = (&'a str, &'a [u8])>,
{
    let mut files: Vec<(&str, &[u8])> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    files.dedup_by(|a, b| a.0 == b.0);
    let mut h = Sha256::new();
    for (path, content) in files {
        h.update(path.as_bytes());
        h.update(b":");
        h.update(content);
        h.update(b"\n");
    }
    let digest = h.finalize();
    let mut out = String::with_capacity(CONTENT_HASH_PREFIX.len() + 64);
    out.push_str(CONTENT_HASH_PREFIX);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Whether `s` has the form of a `contentHash`: `sha256:` and 64 lowercase hex digits.
pub fn is_content_hash_syntax(s: &str) -> bool {
    s.strip_prefix(CONTENT_HASH_PREFIX).is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The manifest `flowmcp catalog index` writes: `fresh` (built from the directory) merged into
/// `existing` (the manifest on disk, when there is one).
///
/// * Top level: `name`, `version`, `description` and `schemaSpec` are kept from `existing` when present
///   (they are written by hand); `contentHash` and the sections come from `fresh`; unknown members of
///   `existing` are kept. `selections` is written when `fresh` has some or `existing` had the member.
/// * Entries are matched by path. A matched entry keeps its unknown members (`prompts`, notes, …) and
///   its hand-written [`Section::hand_written_keys`] when they are non-empty strings; every other known
///   member is taken from `fresh`.
/// * Order is stable: known members in [`TOP_LEVEL_KEYS`] / [`Section::known_keys`] order, then unknown
///   members in their existing order; entries sorted by path.
pub fn merge_index(existing: Option<&Map<String, Value>>, fresh: &Registry) -> Map<String, Value> {
    let fresh_json = fresh.to_json();
    let empty = Map::new();
    let old = existing.unwrap_or(&empty);
    let new = fresh_json.as_object().unwrap_or(&empty);
    let mut out = Map::new();
    for key in TOP_LEVEL_KEYS {
        let value = match *key {
            "name" | "version" | "description" | "schemaSpec" => {
                old.get(*key).or_else(|| new.get(*key)).cloned()
            }
            "contentHash" => new.get(*key).cloned(),
            _ => {
                let Some(section) = Section::ALL.into_iter().find(|s| s.key() == *key) else {
                    continue;
                };
                let entries = new
                    .get(*key)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                if section == Section::Selections && entries.is_empty() && !old.contains_key(*key) {
                    continue;
                }
                Some(Value::Array(merge_section(section, old.get(*key), entries)))
            }
        };
        if let Some(v) = value {
            out.insert((*key).to_string(), v);
        }
    }
    for (key, value) in old {
        if !TOP_LEVEL_KEYS.contains(&key.as_str()) {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

fn entry_path(section: Section, entry: &Value) -> Option<&str> {
    entry.get(section.path_key()).and_then(Value::as_str)
}

fn merge_section(section: Section, old: Option<&Value>, fresh: Vec<Value>) -> Vec<Value> {
    let old_entries: Vec<&Map<String, Value>> = old
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default();
    let mut out: Vec<Value> = fresh
        .into_iter()
        .filter_map(|entry| {
            let Value::Object(new) = entry else {
                return None;
            };
            let path = new.get(section.path_key()).and_then(Value::as_str);
            let matched = old_entries
                .iter()
                .find(|o| o.get(section.path_key()).and_then(Value::as_str) == path);
            Some(Value::Object(merge_entry(section, matched.copied(), &new)))
        })
        .collect();
    out.sort_by(|a, b| entry_path(section, a).cmp(&entry_path(section, b)));
    out
}

fn merge_entry(
    section: Section,
    old: Option<&Map<String, Value>>,
    new: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for key in section.known_keys() {
        let kept = old
            .filter(|_| section.hand_written_keys().contains(key))
            .and_then(|o| o.get(*key))
            .filter(|v| v.as_str().is_some_and(|s| !s.trim().is_empty()));
        if let Some(v) = kept.or_else(|| new.get(*key)) {
            out.insert((*key).to_string(), v.clone());
        }
    }
    // Unknown members of the fresh entry (none today), then those written by hand.
    for (key, value) in new {
        if !out.contains_key(key) {
            out.insert(key.clone(), value.clone());
        }
    }
    if let Some(old) = old {
        for (key, value) in old {
            if !section.known_keys().contains(&key.as_str()) && !out.contains_key(key) {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out
}

/// What would change from `old` to `new` (two manifests), one line per change:
/// `+ schemas: providers/x/y.mjs`, `- shared: _lists/old.mjs`,
/// `~ schemas[providers/x/y.mjs].hasHandlers: false -> true`, `~ contentHash: "…" -> "…"`.
/// Empty when the two are equal (member order inside objects does not count).
pub fn describe_changes(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        if old != new {
            out.push(format!("~ (whole file): {} -> {}", brief(old), brief(new)));
        }
        return out;
    };
    let mut keys: Vec<&String> = o.keys().collect();
    keys.extend(n.keys().filter(|k| !o.contains_key(*k)));
    for key in keys {
        let section = Section::ALL.into_iter().find(|s| s.key() == key);
        match (o.get(key), n.get(key), section) {
            (Some(a), Some(b), _) if a == b => {}
            (Some(Value::Array(a)), Some(Value::Array(b)), Some(s)) => {
                section_changes(s, a, b, &mut out);
            }
            (Some(a), Some(b), _) => {
                out.push(format!("~ {key}: {} -> {}", brief(a), brief(b)));
            }
            (None, Some(b), _) => out.push(format!("+ {key}: {}", brief(b))),
            (Some(a), None, _) => out.push(format!("- {key}: {}", brief(a))),
            (None, None, _) => {}
        }
    }
    out
}

fn section_changes(section: Section, old: &[Value], new: &[Value], out: &mut Vec<String>) {
    let key = section.key();
    let label = |i: usize, e: &Value| match entry_path(section, e) {
        Some(p) => p.to_string(),
        None => format!("#{i}"),
    };
    let before = out.len();
    for (i, a) in old.iter().enumerate() {
        let la = label(i, a);
        match new
            .iter()
            .enumerate()
            .find(|(j, b)| label(*j, b) == la && entry_path(section, a).is_some())
        {
            None => out.push(format!("- {key}: {la}")),
            Some((_, b)) if a == b => {}
            Some((_, b)) => match (a.as_object(), b.as_object()) {
                (Some(ma), Some(mb)) => {
                    let mut members: Vec<&String> = ma.keys().collect();
                    members.extend(mb.keys().filter(|k| !ma.contains_key(*k)));
                    for m in members {
                        match (ma.get(m), mb.get(m)) {
                            (Some(x), Some(y)) if x == y => {}
                            (Some(x), Some(y)) => {
                                out.push(format!("~ {key}[{la}].{m}: {} -> {}", brief(x), brief(y)))
                            }
                            (None, Some(y)) => out.push(format!("+ {key}[{la}].{m}: {}", brief(y))),
                            (Some(x), None) => out.push(format!("- {key}[{la}].{m}: {}", brief(x))),
                            (None, None) => {}
                        }
                    }
                }
                _ => out.push(format!("~ {key}[{la}]: {} -> {}", brief(a), brief(b))),
            },
        }
    }
    for (j, b) in new.iter().enumerate() {
        let lb = label(j, b);
        let known = entry_path(section, b).is_some()
            && old
                .iter()
                .enumerate()
                .any(|(i, a)| entry_path(section, a).is_some() && label(i, a) == lb);
        if !known {
            out.push(format!("+ {key}: {lb}"));
        }
    }
    if out.len() == before && old != new {
        out.push(format!("~ {key}: entries reordered (sorted by path)"));
    }
}

/// A value shortened for a one-line message.
fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// What a file of a catalog is, judged from its exports (or, for a shared list, its location and
/// text): the vocabulary the loader, the validator and the catalog share. The loader decides it
/// (`flowmcp_loader::LoadedFile::kind`) and re-exports it as `flowmcp_loader::FileKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A schema: exports `main`.
    Schema,
    /// A shared list: exports `list`.
    List,
    /// A skill: exports `skill`.
    Skill,
    /// A prompt: exports `prompt`.
    Prompt,
    /// An agent manifest: exports `agent`.
    Agent,
    /// A selection: exports `selection`.
    Selection,
    /// A prompt's content: exports `content`.
    Content,
    /// None of these.
    Unknown,
}

impl FileKind {
    /// The export that makes a file each kind, in the order they are looked for: a file exporting
    /// more than one of them is the first kind here.
    pub const BY_EXPORT: [(&'static str, FileKind); 7] = [
        ("main", FileKind::Schema),
        ("list", FileKind::List),
        ("skill", FileKind::Skill),
        ("prompt", FileKind::Prompt),
        ("agent", FileKind::Agent),
        ("selection", FileKind::Selection),
        ("content", FileKind::Content),
    ];

    /// The kind's name as reports print it (`schema`, `list`, …, `unknown`).
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Schema => "schema",
            FileKind::List => "list",
            FileKind::Skill => "skill",
            FileKind::Prompt => "prompt",
            FileKind::Agent => "agent",
            FileKind::Selection => "selection",
            FileKind::Content => "content",
            FileKind::Unknown => "unknown",
        }
    }

    /// The kind of a file whose exports `has` tells about: the first of [`FileKind::BY_EXPORT`]
    /// it exports, else [`FileKind::Unknown`].
    pub fn from_exports(has: impl Fn(&str) -> bool) -> FileKind {
        FileKind::BY_EXPORT
            .iter()
            .find(|(name, _)| has(name))
            .map_or(FileKind::Unknown, |(_, kind)| *kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #40: the names reserved for flowmcp itself are the model key and every name with the
    /// product prefix, whatever their ASCII case, and nothing else.
    #[test]
    fn i40_reserved_names_are_model_key_and_the_product_prefix() {
        for name in [
            "OPENROUTER_API_KEY",
            "openrouter_api_key",
            "FLOWMCP_AUTH_TOKEN",
            "flowmcp_x",
        ] {
            assert!(is_reserved_name(name), "{name}");
        }
        for name in [
            "OPENROUTER_API_KEYS",
            "FLOWMCP",
            "MY_FLOWMCP_KEY",
            "API_KEY",
            "",
        ] {
            assert!(!is_reserved_name(name), "{name}");
        }
    }

    #[test]
    fn i40_file_kind_is_judged_by_the_first_export_of_its_table() {
        assert_eq!(FileKind::from_exports(|n| n == "agent"), FileKind::Agent);
        assert_eq!(
            FileKind::from_exports(|n| n == "content" || n == "main"),
            FileKind::Schema
        );
        assert_eq!(FileKind::from_exports(|_| false), FileKind::Unknown);
        assert_eq!(FileKind::Selection.as_str(), "selection");
    }

    #[test]
    fn iso_dates_are_checked_as_dates() {
        assert!(is_iso_date("2026-04-27"));
        assert!(is_iso_date("2024-02-29"));
        assert!(!is_iso_date("2026-02-29"));
        assert!(!is_iso_date("1900-02-29"));
        assert!(is_iso_date("2000-02-29"));
        assert!(!is_iso_date("2026-13-01"));
        assert!(!is_iso_date("2026-04-31"));
        assert!(!is_iso_date("2026-04-00"));
        assert!(!is_iso_date("2026-4-27"));
        assert!(!is_iso_date("2026-04-27T00:00:00Z"));
        assert!(!is_iso_date("+026-04-27"));
        assert!(!is_iso_date("２０２６-04-27"));
    }

    use serde_json::json;

    /// Expected values computed independently with Python:
    /// `hashlib.sha256(b"".join(p.encode() + b":" + c + b"\n" for p, c in sorted(files))).hexdigest()`.
    #[test]
    fn content_hash_matches_an_independent_computation() {
        let files: [(&str, &[u8]); 3] = [
            (
                "providers/b-ns/x.mjs",
                b"export const main = { namespace: 'b-ns' }\n",
            ),
            (
                "_lists/countries.mjs",
                b"export const list = { meta: { name: 'countries' } }\n",
            ),
            (
                "agents/helper/agent.mjs",
                "export const agent = { description: 'gr\u{fc}\u{df}e' }".as_bytes(),
            ),
        ];
        assert_eq!(
            content_hash(files),
            "sha256:74dd41413b1402c9c2a0ba543a3be2ec925890fe428310dd7d5a0c7f260844c4"
        );
        // The order of the input does not matter; a path listed twice counts once.
        let mut reversed = files.to_vec();
        reversed.reverse();
        reversed.push(files[0]);
        assert_eq!(content_hash(reversed), content_hash(files));
        // No files: SHA-256 of the empty string.
        assert_eq!(
            content_hash(std::iter::empty::<(&str, &[u8])>()),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        // Raw bytes: a CRLF file hashes differently from its LF twin.
        let one: [(&str, &[u8]); 1] = [("a.mjs", b"x\r\n")];
        assert_eq!(
            content_hash(one),
            "sha256:475b87aac91eae0ab14a8c4ea919b5bd0d4de34db8e711ffd3d54555feaedf5c"
        );
    }

    #[test]
    fn content_hash_syntax() {
        assert!(is_content_hash_syntax(&format!(
            "sha256:{}",
            "0a".repeat(32)
        )));
        assert!(!is_content_hash_syntax(&format!(
            "sha256:{}",
            "0A".repeat(32)
        )));
        assert!(!is_content_hash_syntax(&format!(
            "sha1:{}",
            "0a".repeat(32)
        )));
        assert!(!is_content_hash_syntax("sha256:abc"));
    }

    #[test]
    fn paths_must_stay_inside() {
        assert_eq!(check_relative_path("providers/x/y.mjs"), Ok(()));
        assert_eq!(check_relative_path("_lists/a.mjs"), Ok(()));
        assert_eq!(check_relative_path("a..b/c.mjs"), Ok(()));
        assert_eq!(check_relative_path(""), Err(PathProblem::Empty));
        assert_eq!(
            check_relative_path("/etc/passwd"),
            Err(PathProblem::Absolute)
        );
        assert_eq!(
            check_relative_path("\\\\server\\x.mjs"),
            Err(PathProblem::Absolute)
        );
        assert_eq!(check_relative_path("C:/x.mjs"), Err(PathProblem::Absolute));
        assert_eq!(
            check_relative_path("../other/x.mjs"),
            Err(PathProblem::Escapes)
        );
        assert_eq!(
            check_relative_path("providers/../../x.mjs"),
            Err(PathProblem::Escapes)
        );
        assert_eq!(
            check_relative_path("providers\\..\\x.mjs"),
            Err(PathProblem::Escapes)
        );
        assert_eq!(
            check_relative_path("providers\\x.mjs"),
            Err(PathProblem::Backslash)
        );
        assert_eq!(
            check_relative_path("./providers/x.mjs"),
            Err(PathProblem::NotNormalized)
        );
        assert_eq!(
            check_relative_path("providers//x.mjs"),
            Err(PathProblem::NotNormalized)
        );
        assert_eq!(
            check_relative_path("a\u{0}.mjs"),
            Err(PathProblem::ControlCharacter)
        );
    }

    #[test]
    fn registry_round_trips_and_keeps_unknown_members() {
        let v = json!({
            "name": "cat", "version": "1.0.0", "description": "d", "schemaSpec": "4.2.0",
            "shared": [ { "file": "_lists/a.mjs", "name": "a" } ],
            "schemas": [ { "namespace": "x", "file": "providers/x/s.mjs", "name": "S",
                           "requiredServerParams": [], "hasHandlers": false, "sharedLists": ["a"],
                           "note": "kept" } ],
            "agents": [ { "name": "ag", "description": "", "manifest": "agents/ag/agent.mjs",
                          "prompts": {} } ],
            "homepage": "https://example.org"
        });
        let r = Registry::from_json(&v).unwrap();
        assert_eq!(r.schemas[0].extra["note"], "kept");
        assert_eq!(r.agents[0].extra["prompts"], json!({}));
        assert_eq!(r.selections, None);
        assert_eq!(r.to_json(), v);
        assert_eq!(
            r.referenced_paths(),
            vec![
                (Section::Shared, "_lists/a.mjs"),
                (Section::Schemas, "providers/x/s.mjs"),
                (Section::Agents, "agents/ag/agent.mjs"),
            ]
        );
        assert!(Registry::from_json(&json!({ "name": "x" })).is_err());
    }

    #[test]
    fn lenient_paths_skip_broken_entries() {
        let v = json!({
            "shared": [ { "file": "_lists/a.mjs" }, 3, { "file": 4 } ],
            "schemas": "nope",
            "selections": [ { "file": "selections/s/selection.mjs" } ]
        });
        let refs: Vec<(Section, usize, String)> = referenced_paths(&v)
            .into_iter()
            .map(|r| (r.section, r.index, r.path))
            .collect();
        assert_eq!(
            refs,
            vec![
                (Section::Shared, 0, "_lists/a.mjs".to_string()),
                (
                    Section::Selections,
                    0,
                    "selections/s/selection.mjs".to_string()
                )
            ]
        );
    }

    fn fresh() -> Registry {
        Registry {
            name: "cat".into(),
            version: "1.0.0".into(),
            description: String::new(),
            schema_spec: CURRENT_SPEC_VERSION.into(),
            content_hash: Some(format!("sha256:{}", "1".repeat(64))),
            shared: vec![],
            schemas: vec![
                SchemaEntry {
                    namespace: "b".into(),
                    file: "providers/b/s.mjs".into(),
                    name: "B".into(),
                    required_server_params: vec!["KEY".into()],
                    has_handlers: true,
                    shared_lists: vec![],
                    extra: Map::new(),
                },
                SchemaEntry {
                    namespace: "a".into(),
                    file: "providers/a/s.mjs".into(),
                    name: "A".into(),
                    ..SchemaEntry::default()
                },
            ],
            agents: vec![AgentEntry {
                name: "helper".into(),
                description: "from the file".into(),
                manifest: "agents/helper/agent.mjs".into(),
                extra: Map::new(),
            }],
            selections: None,
            extra: Map::new(),
        }
    }

    #[test]
    fn merge_keeps_hand_written_members_and_sorts() {
        let existing = json!({
            "homepage": "https://example.org",
            "name": "cat",
            "description": "Written by hand",
            "version": "2.1.0",
            "schemaSpec": "4.0.0",
            "contentHash": "sha256:old",
            "shared": [ { "file": "_lists/gone.mjs", "name": "gone" } ],
            "schemas": [ { "namespace": "b", "file": "providers/b/s.mjs", "name": "Old name",
                           "requiredServerParams": [], "hasHandlers": false, "sharedLists": [],
                           "note": "keep me" } ],
            "agents": [ { "name": "helper", "description": "Hand-written summary",
                          "manifest": "agents/helper/agent.mjs", "prompts": { "p": "x" } } ]
        });
        let merged = Value::Object(merge_index(existing.as_object(), &fresh()));
        let expected = json!({
            "name": "cat",
            "version": "2.1.0",
            "description": "Written by hand",
            "schemaSpec": "4.0.0",
            "contentHash": format!("sha256:{}", "1".repeat(64)),
            "shared": [],
            "schemas": [
                { "namespace": "a", "file": "providers/a/s.mjs", "name": "A",
                  "requiredServerParams": [], "hasHandlers": false, "sharedLists": [] },
                { "namespace": "b", "file": "providers/b/s.mjs", "name": "B",
                  "requiredServerParams": ["KEY"], "hasHandlers": true, "sharedLists": [],
                  "note": "keep me" }
            ],
            "agents": [ { "name": "helper", "description": "Hand-written summary",
                          "manifest": "agents/helper/agent.mjs", "prompts": { "p": "x" } } ],
            "homepage": "https://example.org"
        });
        assert_eq!(merged, expected);
        // Key order is stable: known members first, unknown ones after.
        let keys: Vec<&str> = merged
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "name",
                "version",
                "description",
                "schemaSpec",
                "contentHash",
                "shared",
                "schemas",
                "agents",
                "homepage"
            ]
        );
        // Merging again changes nothing.
        let again = Value::Object(merge_index(merged.as_object(), &fresh()));
        assert_eq!(again, merged);
        assert!(describe_changes(&merged, &again).is_empty());

        let changes = describe_changes(&existing, &merged);
        assert_eq!(
            changes,
            vec![
                format!(
                    "~ contentHash: \"sha256:old\" -> \"sha256:{}\"",
                    "1".repeat(64)
                ),
                "- shared: _lists/gone.mjs".to_string(),
                "~ schemas[providers/b/s.mjs].name: \"Old name\" -> \"B\"".to_string(),
                "~ schemas[providers/b/s.mjs].requiredServerParams: [] -> [\"KEY\"]".to_string(),
                "~ schemas[providers/b/s.mjs].hasHandlers: false -> true".to_string(),
                "+ schemas: providers/a/s.mjs".to_string(),
            ]
        );
    }

    #[test]
    fn merge_without_existing_uses_fresh_values() {
        let merged = Value::Object(merge_index(None, &fresh()));
        assert_eq!(merged["name"], "cat");
        assert_eq!(merged["schemaSpec"], CURRENT_SPEC_VERSION);
        assert_eq!(merged["agents"][0]["description"], "from the file");
        assert!(merged.get("selections").is_none());
        assert_eq!(merged["schemas"][0]["file"], "providers/a/s.mjs");
    }

    #[test]
    fn reordering_is_a_change() {
        let a = json!({ "shared": [ { "file": "a", "name": "a" }, { "file": "b", "name": "b" } ] });
        let b = json!({ "shared": [ { "file": "b", "name": "b" }, { "file": "a", "name": "a" } ] });
        assert_eq!(
            describe_changes(&a, &b),
            vec!["~ shared: entries reordered (sorted by path)"]
        );
        assert!(describe_changes(&a, &a).is_empty());
    }

    #[test]
    fn spec_versions_and_namespaces() {
        assert!(is_known_spec_version("4.2.0"));
        assert!(is_known_spec_version("3.0.0"));
        assert!(!is_known_spec_version("latest"));
        assert!(!is_known_spec_version("2.x"));
        assert!(!is_known_spec_version("4.3.0"));
        assert!(is_namespace("skycast-io"));
        assert!(!is_namespace("Skycast"));
        assert!(!is_namespace("1abc"));
        assert!(is_reserved_namespace("shared"));
    }
}
