//! A catalog's prompts and skills as one library (chapters 12, 14 and 18): which files give which
//! prompt or skill, under which ID, and the checks that need more than one file — what a
//! `contentFile` holds, whether `dependsOn`, `references[]`, `requires` and every placeholder
//! resolve, skill registrations, one-level-deep composition.
//!
//! The same library serves validation and rendering: [`build`] returns the entries and the
//! diagnostics together, and [`PromptEntry::target_id`] is the one place a placeholder's
//! reference becomes a Primitive-ID.
//!
//! Where the files are decides what they are, relative to the catalog:
//! - `…/<dir>/skills/<name>.mjs`: a skill of the namespace whose schemas sit in `<dir>`
//!   (`agents/<a>/skills/` and `selections/<s>/skills/`: of that agent or selection);
//! - a schema's `main.prompts` entry: a provider prompt, its text in the `contentFile` it names;
//! - `agents/<a>/prompts/<name>.mjs` exporting `prompt` (or only `content`): a prompt of agent
//!   `<a>`; any other file exporting `prompt` that no `contentFile` names is a prompt of the owner
//!   it declares (the 3.0 layout keeps provider prompts that way).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use flowmcp_loader::{FileKind, LoadedFile, locate::Key};
use flowmcp_spec::id::{IdType, id_text};
use flowmcp_spec::lists::ListRegistry;
use flowmcp_spec::placeholder::{ContentPlaceholder, ContentType, TargetRef, find_interpolations};
use flowmcp_spec::{Code, Diagnostic, FileReport, JsonPath, RuleSettings, diagnostic::Collector};
use serde_json::{Map, Value};

use crate::rules::prompts::{is_prompt_name, prompt_owner};

/// What one file of a catalog gives its prompts and skills.
#[derive(Clone, Debug)]
pub struct Part {
    /// The path relative to the catalog, with `/` separators.
    pub rel: String,
    /// The file as reports name it.
    pub display: String,
    /// What the file exports, as far as prompts and skills care.
    pub kind: PartKind,
    /// The source, for files whose findings [`attach`] places on lines (prompt, skill and
    /// content files, and schemas with `main.prompts`).
    pub source: Option<Arc<str>>,
}

/// What a file exports, as far as prompts and skills care.
#[derive(Clone, Debug)]
pub enum PartKind {
    /// A schema: its namespace, tool and resource names, and `main.prompts` as written.
    Schema {
        /// `main.namespace`.
        namespace: String,
        /// The keys of `main.tools` (and `main.routes`).
        tools: Vec<String>,
        /// The keys of `main.resources`.
        resources: Vec<String>,
        /// `main.prompts`, when present.
        prompts: Option<Value>,
    },
    /// `export const skill`.
    Skill(Value),
    /// `export const prompt`.
    Prompt(Value),
    /// `export const content` (and no export above it).
    Content(Value),
    /// `export const agent`.
    Agent(Value),
    /// `export const selection`.
    Selection(Value),
    /// Any other export (or none that is recognised).
    Other,
    /// A file that did not load (its own report says why), with the names its text still shows.
    Unloaded(Unloaded),
}

/// What the text of a file that did not load still says about what it would give, read without
/// running it ([`flowmcp_loader::locate::string_at`]): findings elsewhere that refer to it are left out
/// while it does not load (CAT009).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unloaded {
    /// `main.namespace`: the file would give that namespace's tools, resources and prompts.
    pub namespace: Option<String>,
    /// `selection.namespace` and `selection.name`, as the selection's ID.
    pub selection: Option<String>,
}

impl Unloaded {
    /// What `source` (the text of a file that did not load) still shows.
    pub fn of(source: Option<&str>) -> Unloaded {
        let Some(source) = source else {
            return Unloaded::default();
        };
        let read = |path: &[&str]| {
            let keys: Vec<Key> = path.iter().map(|k| Key::Name((*k).to_string())).collect();
            flowmcp_loader::locate::string_at(source, &keys).filter(|v| is_id_segment(v))
        };
        Unloaded {
            namespace: read(&["main", "namespace"]),
            selection: read(&["selection", "namespace"])
                .zip(read(&["selection", "name"]))
                .map(|(ns, name)| id_text(&ns, IdType::Selection, &name)),
        }
    }
}

/// Whether `text` can be one segment of an ID (a namespace or a name: `^[a-z][a-z0-9-]*$`, as
/// far as telling apart what a broken file would give needs).
fn is_id_segment(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

impl Part {
    /// What `loaded` (at `rel` in its catalog) gives.
    pub fn of(rel: &str, loaded: &LoadedFile) -> Part {
        // Borrowed: a schema's `main` is large, and only its names and prompts are kept.
        let get = |name: &str| loaded.exports.as_ref().and_then(|e| e.get(name));
        let kind = match (loaded.kind, get(loaded.kind.as_str())) {
            (FileKind::Schema, _) => match get("main").and_then(Value::as_object) {
                Some(main) => {
                    let names = |key: &str| -> Vec<String> {
                        main.get(key)
                            .and_then(Value::as_object)
                            .map(|o| o.keys().cloned().collect())
                            .unwrap_or_default()
                    };
                    schema_kind(SchemaNames {
                        namespace: main
                            .get("namespace")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        tools: names("tools"),
                        routes: names("routes"),
                        resources: names("resources"),
                        prompts: main.get("prompts").cloned(),
                    })
                }
                None => PartKind::Other,
            },
            (FileKind::Skill, Some(v)) => PartKind::Skill(v.clone()),
            (FileKind::Prompt, Some(v)) => PartKind::Prompt(v.clone()),
            (FileKind::Content, Some(v)) => PartKind::Content(v.clone()),
            (FileKind::Agent, Some(v)) => PartKind::Agent(v.clone()),
            (FileKind::Selection, Some(v)) => PartKind::Selection(v.clone()),
            _ if loaded.exports.is_none() => {
                PartKind::Unloaded(Unloaded::of(loaded.source.as_deref()))
            }
            _ => PartKind::Other,
        };
        Part::with_kind(rel, loaded, kind)
    }

    /// [`Part::of`] a schema (`loaded`, of kind [`FileKind::Schema`]) whose `main` export is the
    /// JSON text `main` rather than a value among its exports: the same part, read from the text
    /// without building the value (only the names and `main.prompts` are kept). `None` when
    /// `main` is not a JSON object.
    pub fn of_schema_json(rel: &str, loaded: &LoadedFile, main: &str) -> Option<Part> {
        let names = serde_json::from_str::<MainNames>(main).ok()?.0?;
        Some(Part::with_kind(rel, loaded, schema_kind(names)))
    }

    /// The part of `loaded` at `rel` that gives `kind`, with the source kept when findings may
    /// be placed on its lines.
    fn with_kind(rel: &str, loaded: &LoadedFile, kind: PartKind) -> Part {
        let keep_source = match &kind {
            PartKind::Schema { prompts, .. } => prompts.is_some(),
            PartKind::Other | PartKind::Unloaded(_) => false,
            _ => true,
        };
        Part {
            rel: rel.to_string(),
            display: loaded.display.clone(),
            kind,
            source: if keep_source {
                loaded.source.as_deref().map(Arc::from)
            } else {
                None
            },
        }
    }
}

/// What a schema's `main` says that its part keeps: read from its value ([`Part::of`]) or from
/// its JSON text ([`Part::of_schema_json`]).
#[derive(Default)]
struct SchemaNames {
    /// `main.namespace` when it is a string.
    namespace: Option<String>,
    /// The keys of `main.tools`, `main.routes` and `main.resources` (empty when not objects).
    tools: Vec<String>,
    routes: Vec<String>,
    resources: Vec<String>,
    /// `main.prompts` as written, `null` included.
    prompts: Option<Value>,
}

/// The kind of part a schema whose `main` says `names` is.
fn schema_kind(names: SchemaNames) -> PartKind {
    let SchemaNames {
        namespace,
        mut tools,
        routes,
        resources,
        prompts,
    } = names;
    tools.extend(routes);
    match namespace {
        Some(namespace) => PartKind::Schema {
            namespace,
            tools,
            resources,
            prompts,
        },
        None => PartKind::Other,
    }
}

/// `main` read from JSON text as [`Part::of`] reads it from a value: `None` for anything but
/// an object; in an object, a later member of the same name wins, as it does in a value.
#[derive(Default)]
struct MainNames(Option<SchemaNames>);

impl FromObject for MainNames {
    fn from_object<'de, A: serde::de::MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut names = SchemaNames::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "namespace" => {
                    names.namespace = match map.next_value::<Value>()? {
                        Value::String(s) => Some(s),
                        _ => None,
                    };
                }
                "tools" => names.tools = map.next_value::<Keys>()?.0,
                "routes" => names.routes = map.next_value::<Keys>()?.0,
                "resources" => names.resources = map.next_value::<Keys>()?.0,
                "prompts" => names.prompts = Some(map.next_value::<Value>()?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(MainNames(Some(names)))
    }
}

/// The keys of a JSON object, in order and each once (a later member of the same name keeps
/// the first one's place, as in a value); empty for anything else.
#[derive(Default)]
struct Keys(Vec<String>);

impl FromObject for Keys {
    fn from_object<'de, A: serde::de::MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut keys: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<serde::de::IgnoredAny>()?;
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        Ok(Keys(keys))
    }
}

/// What is read from a JSON object member by member, and is its default for any other value
/// (as `Value::as_object` gives nothing for one).
trait FromObject: Default {
    /// Reads it from the members of an object.
    fn from_object<'de, A: serde::de::MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

/// Reads a [`FromObject`] from any JSON value: an object by its members, anything else skipped.
struct ObjectOr<T>(std::marker::PhantomData<T>);

impl<'de, T: FromObject> serde::de::Visitor<'de> for ObjectOr<T> {
    type Value = T;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_object(map)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }
    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::default())
    }
}

impl<'de> serde::Deserialize<'de> for MainNames {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectOr(std::marker::PhantomData))
    }
}

impl<'de> serde::Deserialize<'de> for Keys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectOr(std::marker::PhantomData))
    }
}

/// What a library entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A provider prompt (`main.prompts`, or a 3.0 provider prompt file).
    ProviderPrompt,
    /// An agent prompt (`agents/<a>/prompts/`).
    AgentPrompt,
    /// A skill.
    Skill,
}

impl EntryKind {
    /// `prompt` or `skill`: the ID type.
    pub fn id_type(self) -> &'static str {
        match self {
            EntryKind::Skill => "skill",
            _ => "prompt",
        }
    }
}

/// One input a skill declares (prompts take the `{{input:…}}` keys of their content, all
/// required strings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillInput {
    /// The key.
    pub key: String,
    /// `string`, `number`, `boolean` or `enum`.
    pub ty: String,
    /// What to give.
    pub description: String,
    /// Whether rendering needs it.
    pub required: bool,
    /// The values an `enum` input takes.
    pub values: Vec<String>,
}

/// One `prefill[]` entry of a skill: a tool run before the skill is delivered.
#[derive(Clone, Debug, PartialEq)]
pub struct PrefillCall {
    /// The tool's Primitive-ID.
    pub tool: String,
    /// Its arguments, `{{input:…}}` not yet substituted.
    pub params: Map<String, Value>,
}

/// A prompt or skill of the catalog.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptEntry {
    /// `{owner}/prompt/{name}` or `{owner}/skill/{name}`.
    pub id: String,
    /// What it is.
    pub kind: EntryKind,
    /// The namespace, agent or selection it belongs to (bare references resolve there).
    pub owner: String,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its text, placeholders unresolved.
    pub content: String,
    /// Its inputs, in order.
    pub inputs: Vec<SkillInput>,
    /// The prompts it composes (`references[]`), as written.
    pub references: Vec<String>,
    /// The tools a skill runs before delivery.
    pub prefill: Vec<PrefillCall>,
    /// A skill's `output`.
    pub output: Option<String>,
    /// A skill's `whenToUse`.
    pub when_to_use: Option<String>,
    /// An agent prompt's `testedWith`.
    pub tested_with: Option<String>,
    /// The file that defines it, as reports name it.
    pub file: String,
}

impl PromptEntry {
    /// The Primitive-ID a placeholder's reference names from this entry: a bare name in the
    /// entry's own namespace, agent or selection; `ns/name` and `ns/type/name` in the catalog.
    pub fn target_id(&self, ty: ContentType, target: &TargetRef<'_>) -> String {
        let id_type = ty.id_type().unwrap_or("input");
        let owner = target.namespace.unwrap_or(&self.owner);
        format!("{owner}/{id_type}/{}", target.name)
    }

    /// Whether the content names another skill (`{{skill:…}}`).
    pub fn references_skills(&self) -> bool {
        find_interpolations(&self.content).iter().any(|f| {
            matches!(
                ContentPlaceholder::of(&f.inner),
                Some(ContentPlaceholder::Reference {
                    ty: ContentType::Skill,
                    ..
                })
            )
        })
    }
}

/// A selection of the catalog (chapter 17): a named set of primitives, by ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectionEntry {
    /// `{namespace}/selection/{name}`.
    pub id: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// What it provides.
    pub description: String,
    /// When an agent should activate it.
    pub when_to_use: String,
    /// Its tools, by Primitive-ID.
    pub tools: Vec<String>,
    /// Its resources, by Primitive-ID.
    pub resources: Vec<String>,
    /// Its prompts, by Primitive-ID.
    pub prompts: Vec<String>,
    /// Its skills, by Primitive-ID: those it lists, and those it registers (`skills` as an object
    /// of `{ file }`, under `{selection}/skill/{name}`).
    pub skills: Vec<String>,
    /// Members that do not resolve in the catalog (SEL003), as written.
    pub unresolved: Vec<String>,
    /// The file that defines it, as reports name it.
    pub file: String,
}

impl SelectionEntry {
    /// Whether every member resolves; a selection that does not cannot be activated.
    pub fn is_complete(&self) -> bool {
        self.unresolved.is_empty()
    }

    /// Why the selection cannot be activated (the chapter's message for its first unresolved
    /// member), or `None`.
    pub fn problem(&self) -> Option<String> {
        self.unresolved
            .first()
            .map(|m| format!("Selection {}: Reference '{m}' not found", self.id))
    }
}

/// Every prompt and skill of a catalog, by ID, in catalog order (provider prompts and skills by
/// file, then agent prompts), and its selections.
#[derive(Clone, Debug, Default)]
pub struct Library {
    entries: Vec<PromptEntry>,
    by_id: HashMap<String, usize>,
    tools: HashSet<String>,
    resources: HashSet<String>,
    selections: Vec<SelectionEntry>,
}

impl Library {
    /// The entries, in order.
    pub fn entries(&self) -> &[PromptEntry] {
        &self.entries
    }

    /// The entry with this ID.
    pub fn get(&self, id: &str) -> Option<&PromptEntry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether some schema of the catalog defines the tool `id` (valid or not).
    pub fn has_tool(&self, id: &str) -> bool {
        self.tools.contains(id)
    }

    /// Whether some schema of the catalog defines the resource `id` (valid or not).
    pub fn has_resource(&self, id: &str) -> bool {
        self.resources.contains(id)
    }

    /// The catalog's selections, in path order.
    pub fn selections(&self) -> &[SelectionEntry] {
        &self.selections
    }

    /// The selection with this ID.
    pub fn selection(&self, id: &str) -> Option<&SelectionEntry> {
        self.selections.iter().find(|s| s.id == id)
    }
}

/// Where a file sits, as far as prompts and skills care.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Place {
    /// `…/<dir>/skills/<file>`: the owner's directory (relative path) and its kind.
    Skills { dir: String, owner: OwnerDir },
    /// `agents/<a>/prompts/<file>`.
    AgentPrompts(String),
    /// Anywhere else.
    Elsewhere,
}

/// The kind of directory a `skills/` folder sits in.
#[derive(Clone, Debug, PartialEq, Eq)]
enum OwnerDir {
    Namespace,
    Agent(String),
    Selection(String),
}

fn place(rel: &str) -> Place {
    let segs: Vec<&str> = rel.split('/').collect();
    let n = segs.len();
    if n >= 3 && segs[n - 2] == "skills" {
        let dir = segs[..n - 2].join("/");
        let name = segs[n - 3].to_string();
        let owner = match n.checked_sub(4).map(|i| segs[i]) {
            Some("agents") => OwnerDir::Agent(name),
            Some("selections") => OwnerDir::Selection(name),
            _ => OwnerDir::Namespace,
        };
        return Place::Skills { dir, owner };
    }
    if n >= 4 && segs[n - 2] == "prompts" && segs[n - 4] == "agents" {
        return Place::AgentPrompts(segs[n - 3].to_string());
    }
    Place::Elsewhere
}

/// Whose skills a `skills/` directory in `dir` holds: the namespace of the schemas beside it, or
/// the agent or selection it belongs to.
fn owner_of_skills(
    owner: &OwnerDir,
    dir: &str,
    namespace_of_dir: &dyn Fn(&str) -> String,
) -> String {
    match owner {
        OwnerDir::Namespace => namespace_of_dir(dir),
        OwnerDir::Agent(a) | OwnerDir::Selection(a) => a.clone(),
    }
}

/// The directory part of a relative path (`""` at the root).
fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The file name without `.mjs`.
fn stem(rel: &str) -> &str {
    let name = rel.rsplit_once('/').map_or(rel, |(_, n)| n);
    name.strip_suffix(".mjs").unwrap_or(name)
}

/// `file` relative to the directory `dir` (both `/`-separated, relative to the catalog);
/// `None` when it leaves the catalog.
fn join(dir: &str, file: &str) -> Option<String> {
    let mut out: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in file.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

/// Diagnostics per file, under the run's settings.
struct Sinks<'s> {
    settings: &'s RuleSettings,
    parts: &'s [Part],
    by_part: BTreeMap<usize, Collector<'s>>,
    /// What files that did not load would give, by their part: a finding about a reference to it
    /// is left out (CAT009).
    owned: Vec<(usize, Owned)>,
    /// The findings left out: per part that did not load, the parts whose findings referred to it
    /// and how many.
    left_out: BTreeMap<usize, BTreeMap<usize, usize>>,
}

/// What a file that did not load would give.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Owned {
    /// Every tool, resource and prompt of a namespace (`{namespace}/…`).
    Namespace(String),
    /// One primitive, by ID.
    Id(String),
}

impl Owned {
    fn covers(&self, id: &str) -> bool {
        match self {
            Owned::Namespace(ns) => id
                .strip_prefix(ns.as_str())
                .is_some_and(|rest| rest.starts_with('/')),
            Owned::Id(own) => own == id,
        }
    }
}

impl<'s> Sinks<'s> {
    /// Records that the file of `part`, which did not load, would give `what`.
    fn own(&mut self, part: usize, what: Owned) {
        if !self.owned.contains(&(part, what.clone())) {
            self.owned.push((part, what));
        }
    }

    /// Emits a finding about the reference to `target` (a Primitive-ID), unless a file that did
    /// not load would give `target`: then the finding is only counted, for that file's CAT009.
    fn emit_ref(
        &mut self,
        part: usize,
        code: Code,
        path: &JsonPath,
        message: String,
        target: &str,
    ) {
        let owner = self
            .owned
            .iter()
            .find(|(at, what)| *at != part && what.covers(target))
            .map(|(at, _)| *at);
        match owner {
            Some(at) => {
                if self.settings.level(code, None) != flowmcp_spec::Level::Off {
                    *self
                        .left_out
                        .entry(at)
                        .or_default()
                        .entry(part)
                        .or_default() += 1;
                }
            }
            None => self.emit(part, code, path, message),
        }
    }

    /// CAT009 on each file that did not load and that other files' findings referred to.
    ///
    /// CAT009: A file that cannot be loaded defines something other files refer to: the findings
    /// those references would give (a tool, resource, prompt, skill or selection not found) are
    /// left out, and this one line on the broken file counts them and names the files they are in.
    /// They are checked again once the file loads. What a broken file would define is read from
    /// its text without running it: `main.namespace` (its tools, resources and prompts), a
    /// selection's `namespace` and `name`, and where it is (a skill in `skills/`, an agent prompt,
    /// a content file a prompt names); when its text does not show it, the findings stay.
    ///
    /// # Why
    ///
    /// One missing comma in a schema used to give an error for every skill, selection, prompt and
    /// agent that uses its tools, with the one real error buried among them. The report leads
    /// with the cause: the file that does not load (its LDR finding), and one line saying what
    /// depends on it.
    fn fold_left_out(&mut self) {
        let left_out = std::mem::take(&mut self.left_out);
        for (at, by) in left_out {
            let total: usize = by.values().sum();
            let files: Vec<String> = by
                .iter()
                .map(|(p, n)| format!("{} ({n})", self.parts[*p].display))
                .collect();
            let what = self
                .owned
                .iter()
                .filter(|(p, _)| *p == at)
                .map(|(_, o)| match o {
                    Owned::Namespace(ns) => format!("namespace {ns}"),
                    Owned::Id(id) => id.clone(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let (one, many) = (files.len() == 1, total != 1);
            self.at(at).emit(
                Code::CAT009,
                None,
                format!(
                    "{} file{} to what this file would define ({what}): {}; the {total} finding{} about {} left out until it loads",
                    files.len(),
                    if one { " refers" } else { "s refer" },
                    files.join(", "),
                    if many { "s" } else { "" },
                    if many { "those references are" } else { "that reference is" },
                ),
            );
        }
    }

    fn at(&mut self, part: usize) -> &mut Collector<'s> {
        let settings = self.settings;
        let display = self.parts[part].display.clone();
        self.by_part
            .entry(part)
            .or_insert_with(|| Collector::new(settings, Some(display)))
    }

    fn emit(&mut self, part: usize, code: Code, path: &JsonPath, message: String) {
        self.at(part).emit(code, Some(path), message);
    }
}

/// Where an entry's parts are, for its findings.
#[derive(Clone, Debug)]
struct Origin {
    /// The part that defines it, and the path of the definition (`/main/prompts/x`, `/prompt`,
    /// `/skill`, or the root for a content-only agent prompt).
    def_part: usize,
    def_path: JsonPath,
    /// The part that holds its text, and the path of the text.
    text_part: usize,
    text_path: JsonPath,
    /// `dependsOn`, as written.
    depends_on: Vec<Value>,
    /// A skill's `requires.tools` and `requires.resources`, as written.
    requires_tools: Vec<Value>,
    requires_resources: Vec<Value>,
}

/// Builds the library of the catalog whose files are `parts`, with the findings that need more
/// than one file, per part index.
///
/// SKL001: A file in a `skills/` directory (of a provider, an agent or a selection) does not
/// export `skill`.
///
/// # Why
///
/// Everything in a `skills/` directory is loaded as a skill; a file there that is something
/// else is either misplaced or a skill whose export was misspelled, and it would silently be
/// missing from the catalog.
///
/// SKL003: A skill's `name` is not its file's name (without `.mjs`) — or, for a skill an agent
/// or a selection registers, not the key it is registered under; or two skills of one scope have
/// the same name.
///
/// # Why
///
/// The name is the last segment of the skill's ID (`{owner}/skill/{name}`): a name that differs
/// from where the skill is found makes the ID and the file disagree, and the same name twice
/// makes the ID ambiguous. `lists` are the catalog's shared lists (for
/// `{{listName:field}}`).
pub fn build(
    parts: &[Part],
    lists: Option<&ListRegistry>,
    settings: &RuleSettings,
) -> (Library, Vec<(usize, Vec<Diagnostic>)>) {
    let compat = settings.profile.is_compat();
    let mut sinks = Sinks {
        settings,
        parts,
        by_part: BTreeMap::new(),
        owned: Vec::new(),
        left_out: BTreeMap::new(),
    };
    let by_rel: HashMap<&str, usize> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| (p.rel.as_str(), i))
        .collect();
    let mut lib = Library::default();
    // The namespaces of the schemas in each directory.
    let mut dir_namespaces: HashMap<&str, Vec<&str>> = HashMap::new();
    for p in parts {
        if let PartKind::Schema {
            namespace,
            tools,
            resources,
            ..
        } = &p.kind
        {
            lib.tools
                .extend(tools.iter().map(|t| id_text(namespace, IdType::Tool, t)));
            lib.resources.extend(
                resources
                    .iter()
                    .map(|r| id_text(namespace, IdType::Resource, r)),
            );
            let dir = dir_namespaces.entry(parent(&p.rel)).or_default();
            if !dir.contains(&namespace.as_str()) {
                dir.push(namespace);
            }
        }
        // An agent's inline tools and resources are its own schema's.
        if let PartKind::Agent(agent) = &p.kind
            && let Some(Ok(inline)) = crate::inline::inline_schema(agent)
        {
            let ns = &inline.namespace;
            lib.tools
                .extend(inline.tools.iter().map(|t| id_text(ns, IdType::Tool, t)));
            lib.resources.extend(
                inline
                    .resources
                    .iter()
                    .map(|r| id_text(ns, IdType::Resource, r)),
            );
        }
    }
    let namespace_of_dir = |dir: &str| -> String {
        match dir_namespaces.get(dir).map(Vec::as_slice) {
            Some([one]) => one.to_string(),
            _ => dir.rsplit('/').next().unwrap_or(dir).to_string(),
        }
    };

    // Skill registrations of agents and selections: the registered file → (key, manifest).
    let mut registered: HashMap<String, (String, usize)> = HashMap::new();
    for (i, p) in parts.iter().enumerate() {
        let (root, manifest) = match &p.kind {
            PartKind::Agent(v) => ("agent", v),
            PartKind::Selection(v) => ("selection", v),
            _ => continue,
        };
        check_registrations(i, p, root, manifest, &by_rel, &mut registered, &mut sinks);
    }

    // What the files that did not load would give (content files: where a prompt names them).
    for (i, p) in parts.iter().enumerate() {
        let PartKind::Unloaded(u) = &p.kind else {
            continue;
        };
        match place(&p.rel) {
            Place::Skills { dir, owner } => {
                // Named by its file, or by the key an agent or selection registers it under.
                let name = registered
                    .get(&p.rel)
                    .map_or_else(|| stem(&p.rel).to_string(), |(key, _)| key.clone());
                let owner_name = owner_of_skills(&owner, &dir, &namespace_of_dir);
                sinks.own(i, Owned::Id(id_text(&owner_name, IdType::Skill, &name)));
            }
            Place::AgentPrompts(agent) => {
                sinks.own(i, Owned::Id(id_text(&agent, IdType::Prompt, stem(&p.rel))));
            }
            Place::Elsewhere => {
                if let Some(ns) = &u.namespace {
                    sinks.own(i, Owned::Namespace(ns.clone()));
                }
                if let Some(id) = &u.selection {
                    sinks.own(i, Owned::Id(id.clone()));
                }
            }
        }
    }

    let mut origins: Vec<Origin> = Vec::new();
    let mut used_as_content: HashSet<usize> = HashSet::new();
    let mut push = |lib: &mut Library,
                    sinks: &mut Sinks<'_>,
                    entry: PromptEntry,
                    origin: Origin,
                    dup_code: Code| {
        if let Some(&first) = lib.by_id.get(&entry.id) {
            let other = lib.entries[first].file.clone();
            sinks.emit(
                origin.def_part,
                dup_code,
                &origin.def_path.key("name"),
                format!("{} is defined twice; {other} defines it first", entry.id),
            );
            return;
        }
        lib.by_id.insert(entry.id.clone(), lib.entries.len());
        lib.entries.push(entry);
        origins.push(origin);
    };

    for (i, p) in parts.iter().enumerate() {
        match &p.kind {
            PartKind::Schema {
                namespace,
                prompts: Some(Value::Object(prompts)),
                ..
            } => {
                for (key, def) in prompts {
                    let Some(def) = def.as_object() else { continue };
                    let def_path = JsonPath::root("main").key("prompts").key(key);
                    let Some(name) = def
                        .get("name")
                        .and_then(Value::as_str)
                        .filter(|n| is_prompt_name(n))
                    else {
                        continue;
                    };
                    if prompt_owner(def, compat).0 != Some(namespace.as_str()) {
                        continue;
                    }
                    let id = id_text(namespace, IdType::Prompt, name);
                    let Some((text_part, content)) =
                        content_file(i, p, def, (&def_path, &id), parts, &by_rel, &mut sinks)
                    else {
                        continue;
                    };
                    used_as_content.insert(text_part);
                    let text_path = match &parts[text_part].kind {
                        PartKind::Content(_) => JsonPath::root("content"),
                        _ => JsonPath::root("prompt").key("content"),
                    };
                    push(
                        &mut lib,
                        &mut sinks,
                        prompt_entry(def, namespace, name, EntryKind::ProviderPrompt, content, p),
                        Origin {
                            def_part: i,
                            def_path,
                            text_part,
                            text_path,
                            depends_on: array(def.get("dependsOn")),
                            requires_tools: Vec::new(),
                            requires_resources: Vec::new(),
                        },
                        Code::PRM001,
                    );
                }
            }
            PartKind::Skill(skill) => {
                let Place::Skills { dir, owner } = place(&p.rel) else {
                    continue;
                };
                let Some(s) = skill.as_object() else { continue };
                let Some(name) = s.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let owner_name = owner_of_skills(&owner, &dir, &namespace_of_dir);
                // SKL003: the name is the file's stem, or the key it is registered under.
                let (expected, under) = match registered.get(&p.rel) {
                    Some((key, m)) => (key.clone(), format!("its key in {}", parts[*m].display)),
                    None => (stem(&p.rel).to_string(), "the file's name".to_string()),
                };
                if name != expected {
                    sinks.emit(
                        i,
                        Code::SKL003,
                        &JsonPath::root("skill").key("name"),
                        format!("Is {name:?}, but {under} is {expected:?}; they must be the same"),
                    );
                }
                let Some(content) = s.get("content").and_then(Value::as_str) else {
                    continue;
                };
                let entry = PromptEntry {
                    id: id_text(&owner_name, IdType::Skill, name),
                    kind: EntryKind::Skill,
                    owner: owner_name,
                    name: name.to_string(),
                    description: text(s.get("description")),
                    content: content.to_string(),
                    inputs: skill_inputs(s),
                    references: Vec::new(),
                    prefill: prefill_calls(s),
                    output: s.get("output").and_then(Value::as_str).map(str::to_string),
                    when_to_use: s
                        .get("whenToUse")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    tested_with: None,
                    file: p.display.clone(),
                };
                let requires = s.get("requires");
                push(
                    &mut lib,
                    &mut sinks,
                    entry,
                    Origin {
                        def_part: i,
                        def_path: JsonPath::root("skill"),
                        text_part: i,
                        text_path: JsonPath::root("skill").key("content"),
                        depends_on: Vec::new(),
                        requires_tools: array(requires.and_then(|r| r.get("tools"))),
                        requires_resources: array(requires.and_then(|r| r.get("resources"))),
                    },
                    Code::SKL003,
                );
            }
            PartKind::Unloaded(_) => {}
            _ if matches!(place(&p.rel), Place::Skills { .. }) => {
                sinks.emit(
                    i,
                    Code::SKL001,
                    &JsonPath::default(),
                    "A file in a skills/ directory must `export const skill`".to_string(),
                );
            }
            _ => {}
        }
    }

    // Prompt files, and agent content files, that no contentFile names.
    for (i, p) in parts.iter().enumerate() {
        if used_as_content.contains(&i) {
            continue;
        }
        let agent_dir = match place(&p.rel) {
            Place::AgentPrompts(a) => Some(a),
            _ => None,
        };
        match (&p.kind, &agent_dir) {
            (PartKind::Prompt(def), _) => {
                let Some(def) = def.as_object() else { continue };
                let Some(name) = def
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| is_prompt_name(n))
                else {
                    continue;
                };
                let (namespace, agent) = prompt_owner(def, compat);
                let (owner, kind) = match (namespace, agent) {
                    (None, Some(a)) => (a, EntryKind::AgentPrompt),
                    (Some(ns), None) => (ns, EntryKind::ProviderPrompt),
                    _ => continue,
                };
                if let (Some(dir), EntryKind::AgentPrompt) = (&agent_dir, kind)
                    && dir != owner
                {
                    sinks.emit(
                        i,
                        Code::PRM003,
                        &JsonPath::root("prompt").key("agent"),
                        format!("Is {owner:?}, but the file is in the prompts of agent {dir:?}"),
                    );
                }
                let Some(content) = def.get("content").and_then(Value::as_str) else {
                    continue;
                };
                push(
                    &mut lib,
                    &mut sinks,
                    prompt_entry(def, owner, name, kind, content.to_string(), p),
                    Origin {
                        def_part: i,
                        def_path: JsonPath::root("prompt"),
                        text_part: i,
                        text_path: JsonPath::root("prompt").key("content"),
                        depends_on: array(def.get("dependsOn")),
                        requires_tools: Vec::new(),
                        requires_resources: Vec::new(),
                    },
                    Code::PRM001,
                );
            }
            (PartKind::Content(Value::String(content)), Some(agent)) => {
                let name = stem(&p.rel);
                if !is_prompt_name(name) {
                    sinks.emit(
                        i,
                        Code::PRM001,
                        &JsonPath::root("content"),
                        format!(
                            "An agent prompt exporting only `content` is named by its file; {name:?} does not match ^[a-z][a-z0-9-]*$"
                        ),
                    );
                    continue;
                }
                let entry = PromptEntry {
                    id: id_text(agent, IdType::Prompt, name),
                    kind: EntryKind::AgentPrompt,
                    owner: agent.clone(),
                    name: name.to_string(),
                    description: String::new(),
                    content: content.clone(),
                    inputs: input_keys(content),
                    references: Vec::new(),
                    prefill: Vec::new(),
                    output: None,
                    when_to_use: None,
                    tested_with: None,
                    file: p.display.clone(),
                };
                push(
                    &mut lib,
                    &mut sinks,
                    entry,
                    Origin {
                        def_part: i,
                        def_path: JsonPath::default(),
                        text_part: i,
                        text_path: JsonPath::root("content"),
                        depends_on: Vec::new(),
                        requires_tools: Vec::new(),
                        requires_resources: Vec::new(),
                    },
                    Code::PRM001,
                );
            }
            _ => {}
        }
    }

    for (entry, origin) in lib.entries.iter().zip(&origins) {
        check_entry(entry, origin, &lib, lists, compat, &mut sinks);
    }
    // Selections, once every prompt and skill is known; then agents, which may use them.
    for (i, p) in parts.iter().enumerate() {
        if let PartKind::Selection(Value::Object(s)) = &p.kind
            && let Some(entry) = selection_entry(i, p, s, &lib, &mut sinks)
        {
            lib.selections.push(entry);
        }
    }
    for (i, p) in parts.iter().enumerate() {
        if let PartKind::Agent(Value::Object(a)) = &p.kind {
            check_agent(i, p, a, parts, &by_rel, &lib, &mut sinks);
        }
    }

    sinks.fold_left_out();
    let diagnostics = sinks
        .by_part
        .into_iter()
        .map(|(i, c)| (i, c.finish()))
        .filter(|(_, d)| !d.is_empty())
        .collect();
    (lib, diagnostics)
}

/// The selection a file defines, with SEL003 for each member that does not resolve; `None`
/// when its `namespace` or `name` is not a string (there is no ID to give it).
///
/// SEL003: A member of a selection (an entry of `tools`, `resources`, `prompts` or `skills`)
/// is not the Primitive-ID of a primitive of that type in the catalog.
///
/// # Why
///
/// A selection that names something missing cannot be activated: the runtime refuses it with
/// "Selection <id>: Reference '<member>' not found", and an agent that uses it does not start.
fn selection_entry(
    i: usize,
    p: &Part,
    s: &Map<String, Value>,
    lib: &Library,
    sinks: &mut Sinks<'_>,
) -> Option<SelectionEntry> {
    let namespace = s.get("namespace")?.as_str()?;
    let name = s.get("name")?.as_str()?;
    let id = id_text(namespace, IdType::Selection, name);
    let mut entry = SelectionEntry {
        id: id.clone(),
        namespace: namespace.to_string(),
        name: name.to_string(),
        description: text(s.get("description")),
        when_to_use: text(s.get("whenToUse")),
        tools: Vec::new(),
        resources: Vec::new(),
        prompts: Vec::new(),
        skills: Vec::new(),
        unresolved: Vec::new(),
        file: p.display.clone(),
    };
    // Its registered skills live in `skills/` beside it and belong to its directory's name.
    let owner = parent(&p.rel)
        .rsplit('/')
        .next()
        .filter(|d| !d.is_empty())
        .unwrap_or(name);
    for key in crate::rules::selections::MEMBER_LISTS {
        let path = JsonPath::root("selection").key(key);
        match s.get(key) {
            Some(Value::Array(items)) => {
                for (k, item) in items.iter().enumerate() {
                    let Some(member) = item.as_str() else {
                        if !(key == "skills" && item.is_object()) {
                            entry.unresolved.push(item.to_string());
                            sinks.emit(
                                i,
                                Code::SEL003,
                                &path.index(k),
                                format!(
                                    "Must be a Primitive-ID (found {})",
                                    crate::rules::shown(item)
                                ),
                            );
                        }
                        continue; // an inline skill: checked by the file's own rules (SEL004)
                    };
                    let found = match key {
                        "tools" => lib.has_tool(member),
                        "resources" => lib.has_resource(member),
                        "prompts" => lib.get(member).is_some_and(|e| e.kind != EntryKind::Skill),
                        _ => lib.get(member).is_some_and(|e| e.kind == EntryKind::Skill),
                    };
                    if !found {
                        sinks.emit_ref(
                            i,
                            Code::SEL003,
                            &path.index(k),
                            format!("Selection {id}: Reference '{member}' not found"),
                            member,
                        );
                        entry.unresolved.push(member.to_string());
                        continue;
                    }
                    let list = match key {
                        "tools" => &mut entry.tools,
                        "resources" => &mut entry.resources,
                        "prompts" => &mut entry.prompts,
                        _ => &mut entry.skills,
                    };
                    if !list.iter().any(|m| m == member) {
                        list.push(member.to_string());
                    }
                }
            }
            // Registered skill files (the object form): `{selection}/skill/{key}`.
            Some(Value::Object(registered)) if key == "skills" => {
                for k in registered.keys() {
                    let member = id_text(owner, IdType::Skill, k);
                    if lib.get(&member).is_some() {
                        entry.skills.push(member);
                    }
                }
            }
            _ => {}
        }
    }
    Some(entry)
}

/// The references of an agent manifest that need the catalog.
///
/// AGT016: A prompt file the agent registers (`prompts: { name: { file } }`) does not end in
/// `.mjs` or does not exist. (Skill files are SKL016 and SKL017.)
///
/// # Why
///
/// Prompt files are modules loaded through the static scan and the sandbox; one that is not
/// there leaves the agent without the instructions it was tested with.
///
/// AGT017: A registered prompt file exports neither `prompt` (an object) nor `content` (a
/// string).
///
/// # Why
///
/// Agent prompt files take either form (the agents chapter shows `content`, the prompts chapter
/// `prompt`); anything else has no text to deliver.
///
/// AGT018: A registered skill file does not export `skill`.
///
/// # Why
///
/// The agent would activate a skill that is not there.
///
/// AGT030: An entry of `selections` is not the ID of a selection of the catalog, or names one
/// that cannot be activated.
///
/// # Why
///
/// The agent's startup loads its selections and fails when one cannot be loaded.
fn check_agent(
    i: usize,
    p: &Part,
    a: &Map<String, Value>,
    parts: &[Part],
    by_rel: &HashMap<&str, usize>,
    lib: &Library,
    sinks: &mut Sinks<'_>,
) {
    let root = JsonPath::root("agent");
    // AGT007: external tools resolve.
    if let Some(Value::Object(tools)) = a.get("tools") {
        for key in tools.keys().filter(|k| k.matches('/').count() == 2) {
            let Some((ns, _)) = key.split_once('/') else {
                continue;
            };
            if !key.contains("/tool/") || lib.has_tool(key) {
                continue;
            }
            let known_ns = lib.tools.iter().any(|t| t.starts_with(&format!("{ns}/")));
            sinks.emit_ref(
                i,
                Code::AGT007,
                &root.key("tools").key(key),
                if known_ns {
                    format!("{key}: tool not found in namespace {ns:?}")
                } else {
                    format!("{key}: namespace {ns:?} is not registered in the catalog")
                },
                key,
            );
        }
    }
    // AGT016, AGT017: the agent's prompt files.
    if let Some(Value::Object(prompts)) = a.get("prompts") {
        for (key, def) in prompts.iter().filter(|(k, _)| !k.contains('/')) {
            let Some(file) = def.get("file").and_then(Value::as_str) else {
                continue; // AGT013
            };
            let path = root.key("prompts").key(key).key("file");
            if !file.ends_with(".mjs") {
                sinks.emit(
                    i,
                    Code::AGT016,
                    &path,
                    format!("Must end with .mjs (found {file:?})"),
                );
                continue;
            }
            let Some(&at) = join(parent(&p.rel), file)
                .as_deref()
                .and_then(|rel| by_rel.get(rel))
            else {
                sinks.emit(
                    i,
                    Code::AGT016,
                    &path,
                    format!("{file:?} does not exist in the catalog"),
                );
                continue;
            };
            let ok = match &parts[at].kind {
                PartKind::Prompt(v) => v.is_object(),
                PartKind::Content(v) => v.is_string(),
                PartKind::Unloaded(_) => true, // its own report says why
                _ => false,
            };
            if !ok {
                sinks.emit(
                    i,
                    Code::AGT017,
                    &path,
                    format!(
                        "{file:?} exports neither `prompt` (an object) nor `content` (a string)"
                    ),
                );
            }
        }
    }
    // AGT018: the agent's skill files.
    if let Some(Value::Object(skills)) = a.get("skills") {
        for (key, def) in skills.iter().filter(|(k, _)| !k.contains('/')) {
            let Some(file) = def.get("file").and_then(Value::as_str) else {
                continue; // SKL016
            };
            let Some(&at) = join(parent(&p.rel), file)
                .as_deref()
                .and_then(|rel| by_rel.get(rel))
            else {
                continue; // SKL017
            };
            if !matches!(parts[at].kind, PartKind::Skill(_) | PartKind::Unloaded(_)) {
                sinks.emit(
                    i,
                    Code::AGT018,
                    &root.key("skills").key(key).key("file"),
                    format!("{file:?} does not export `skill`"),
                );
            }
        }
    }
    // AGT030: selections.
    match a.get("selections") {
        None => {}
        Some(Value::Array(ids)) => {
            for (k, id) in ids.iter().enumerate() {
                let path = root.key("selections").index(k);
                let Some(id) = id.as_str() else {
                    sinks.emit(
                        i,
                        Code::AGT030,
                        &path,
                        format!("Must be a selection ID (found {})", crate::rules::shown(id)),
                    );
                    continue;
                };
                match lib.selection(id) {
                    None => sinks.emit_ref(
                        i,
                        Code::AGT030,
                        &path,
                        format!("{id}: no such selection in the catalog"),
                        id,
                    ),
                    Some(s) => {
                        if let (Some(problem), Some(member)) = (s.problem(), s.unresolved.first()) {
                            sinks.emit_ref(i, Code::AGT030, &path, problem, member);
                        }
                    }
                }
            }
        }
        Some(other) => sinks.emit(
            i,
            Code::AGT030,
            &root.key("selections"),
            format!(
                "Must be an array of selection IDs (found {})",
                crate::rules::type_name(other)
            ),
        ),
    }
}

/// An array's items (nothing when it is not one).
fn array(v: Option<&Value>) -> Vec<Value> {
    v.and_then(Value::as_array).cloned().unwrap_or_default()
}

/// A string member, or the empty string.
fn text(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or_default().to_string()
}

/// The entry of a prompt definition.
fn prompt_entry(
    def: &Map<String, Value>,
    owner: &str,
    name: &str,
    kind: EntryKind,
    content: String,
    p: &Part,
) -> PromptEntry {
    PromptEntry {
        id: id_text(owner, IdType::Prompt, name),
        kind,
        owner: owner.to_string(),
        name: name.to_string(),
        description: text(def.get("description")),
        inputs: input_keys(&content),
        content,
        references: array(def.get("references"))
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        prefill: Vec::new(),
        output: None,
        when_to_use: None,
        tested_with: def
            .get("testedWith")
            .and_then(Value::as_str)
            .map(str::to_string),
        file: p.display.clone(),
    }
}

/// A prompt's inputs: the `{{input:…}}` keys of its content, in order of first use, each a
/// required string (the text needs it: without it, "Find the bridge days of {{input:countryCode}}"
/// would read "Find the bridge days of ").
fn input_keys(content: &str) -> Vec<SkillInput> {
    let mut out: Vec<SkillInput> = Vec::new();
    for f in find_interpolations(content) {
        if let Some(ContentPlaceholder::Input(key)) = ContentPlaceholder::of(&f.inner)
            && !out.iter().any(|i| i.key == key)
        {
            out.push(SkillInput {
                key: key.to_string(),
                ty: "string".into(),
                description: String::new(),
                required: true,
                values: Vec::new(),
            });
        }
    }
    out
}

/// A skill's well-formed `input` entries (the file's own rules report the others).
fn skill_inputs(s: &Map<String, Value>) -> Vec<SkillInput> {
    array(s.get("input"))
        .iter()
        .filter_map(|i| {
            let key = i.get("key")?.as_str()?;
            Some(SkillInput {
                key: key.to_string(),
                ty: i
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("string")
                    .to_string(),
                description: text(i.get("description")),
                required: i.get("required").and_then(Value::as_bool).unwrap_or(false),
                values: array(i.get("values"))
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            })
        })
        .collect()
}

/// A skill's `prefill[]` entries with a string `tool`.
fn prefill_calls(s: &Map<String, Value>) -> Vec<PrefillCall> {
    array(s.get("prefill"))
        .iter()
        .filter_map(|e| {
            Some(PrefillCall {
                tool: e.get("tool")?.as_str()?.to_string(),
                params: e
                    .get("params")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// The text a provider prompt's `contentFile` holds, and the part holding it; reports what is
/// wrong with the file. The prompt (`id`, defined at `def_path`) is what a content file that did
/// not load would give.
///
/// PRM012: A provider prompt's `contentFile` does not export a non-empty string `content` (it
/// exports `prompt`, something else, or an empty text).
///
/// # Why
///
/// Content files and agent prompt files must not be confused: a content file holds only text,
/// named `content`; `prompt` is the export of a standalone prompt with its own definition.
fn content_file(
    i: usize,
    p: &Part,
    def: &Map<String, Value>,
    (def_path, id): (&JsonPath, &str),
    parts: &[Part],
    by_rel: &HashMap<&str, usize>,
    sinks: &mut Sinks<'_>,
) -> Option<(usize, String)> {
    let file = def.get("contentFile")?.as_str()?;
    if crate::rules::prompts::content_file_problem(file).is_some() {
        return None; // the schema's own rules report it
    }
    let path = def_path.key("contentFile");
    let Some(rel) = join(parent(&p.rel), file) else {
        sinks.emit(
            i,
            Code::PRM011,
            &path,
            format!("{file:?} leads outside the catalog"),
        );
        return None;
    };
    let Some(&at) = by_rel.get(rel.as_str()) else {
        sinks.emit(
            i,
            Code::PRM011,
            &path,
            format!("{file:?} does not exist (looked for {rel})"),
        );
        return None;
    };
    match &parts[at].kind {
        PartKind::Content(Value::String(s)) if !s.trim().is_empty() => Some((at, s.clone())),
        PartKind::Content(Value::String(_)) => {
            sinks.emit(
                i,
                Code::PRM012,
                &path,
                format!("{rel} exports an empty `content`"),
            );
            None
        }
        PartKind::Prompt(_) => {
            sinks.emit(
                i,
                Code::PRM012,
                &path,
                format!(
                    "{rel} exports `prompt`; a content file exports only its text, as `content`"
                ),
            );
            None
        }
        PartKind::Unloaded(_) => {
            // Its own report says why; references to the prompt wait for it (CAT009).
            sinks.own(at, Owned::Id(id.to_string()));
            None
        }
        _ => {
            sinks.emit(
                i,
                Code::PRM012,
                &path,
                format!("{rel} does not export a string `content`"),
            );
            None
        }
    }
}

/// SKL016–SKL018 on the `skills` of an agent or selection manifest; records each registered
/// file under its key.
///
/// SKL016: A skill registration's `file` is missing, not a string, or does not end in `.mjs`.
///
/// # Why
///
/// Skill files are modules loaded through the static scan and the sandbox like every `.mjs`
/// file; anything else is not a skill.
///
/// SKL017: A skill registration's `file` does not exist (relative to the manifest) or leads
/// outside the catalog.
///
/// # Why
///
/// A registered skill that is not there cannot be delivered; the agent or selection would
/// silently lack it.
///
/// SKL018: An agent or selection registers more than 4 skills.
///
/// # Why
///
/// The chapter caps a scope at 4 skills: more means the scope does too much and should be split.
fn check_registrations(
    i: usize,
    p: &Part,
    root: &str,
    manifest: &Value,
    by_rel: &HashMap<&str, usize>,
    registered: &mut HashMap<String, (String, usize)>,
    sinks: &mut Sinks<'_>,
) {
    let Some(skills) = manifest.get("skills").and_then(Value::as_object) else {
        return;
    };
    let base = JsonPath::root(root).key("skills");
    if skills.len() > 4 {
        sinks.emit(
            i,
            Code::SKL018,
            &base,
            format!(
                "Registers {} skills; a {root} has at most 4 (split it)",
                skills.len()
            ),
        );
    }
    for (key, reg) in skills {
        let path = base.key(key).key("file");
        let Some(file) = reg.get("file").and_then(Value::as_str) else {
            sinks.emit(
                i,
                Code::SKL016,
                &base.key(key),
                "Missing required string \"file\" (a relative path to the skill's .mjs file)"
                    .into(),
            );
            continue;
        };
        if !file.ends_with(".mjs") {
            sinks.emit(
                i,
                Code::SKL016,
                &path,
                format!("Must end with .mjs (found {file:?})"),
            );
            continue;
        }
        match join(parent(&p.rel), file).filter(|r| by_rel.contains_key(r.as_str())) {
            Some(rel) => {
                registered.insert(rel, (key.clone(), i));
            }
            None => sinks.emit(
                i,
                Code::SKL017,
                &path,
                format!("{file:?} does not exist in the catalog"),
            ),
        }
    }
}

/// The references of one entry: `dependsOn`, `references[]`, `requires`, `prefill[]` and every
/// placeholder of its text.
///
/// PRM006: A `dependsOn` entry names no tool of the catalog (a provider prompt names its
/// namespace's tools by bare name, an agent prompt by full ID).
///
/// # Why
///
/// `dependsOn` is how a catalog checks that a prompt's workflow can run: a tool that is not
/// there means the instructions send the agent to nothing.
///
/// PRM007: A `references[]` entry is not the full ID of a prompt of the catalog, or one it may
/// not compose (a provider prompt composes only prompts of its own namespace).
///
/// # Why
///
/// Referenced prompts are delivered with the prompt as context; one that is missing silently
/// drops that context. Provider prompts stay model-neutral, so they cannot pull in an agent's
/// model-specific prompt or another provider's.
///
/// PRM008: A prompt in `references[]` has references of its own.
///
/// # Why
///
/// Composition is one level deep: no chains, no cycles, no context that grows with each level.
///
/// PRM009: A `{{tool:…}}`, `{{resource:…}}`, `{{prompt:…}}`, `{{skill:…}}` or
/// `{{listName:field}}` in a prompt's content does not resolve in the catalog.
///
/// # Why
///
/// The renderer replaces each reference with what it names (a tool block, a resource, a prompt);
/// one that does not resolve is delivered as `[ERROR: …]` text instead.
///
/// SKL005: A `requires.tools` entry names no tool of the skill's namespace (or, with `/`, of the
/// catalog).
///
/// # Why
///
/// `requires` is what lets a host check a skill's tools before offering it.
///
/// SKL006: A `requires.resources` entry names no resource of the skill's namespace.
///
/// # Why
///
/// As SKL005, for resources.
///
/// SKL020: A `{{tool:…}}` in a skill's content that resolves is not listed in `requires.tools`.
///
/// # Why
///
/// `requires` should say everything the skill uses, so a host can check it without reading the
/// text.
///
/// SKL021: A `{{resource:…}}` in a skill's content is not listed in `requires.resources`.
///
/// # Why
///
/// As SKL020, for resources.
///
/// SKL022: A `{{skill:…}}` names no skill of the same namespace, agent or selection.
///
/// # Why
///
/// A skill composes only skills registered in its own scope; anything else renders as
/// `[ERROR: …]`.
///
/// SKL023: A skill (or prompt) references a skill that itself references skills.
///
/// # Why
///
/// Skill-to-skill references are one level deep: no cycles and no unbounded nesting.
///
/// SKL024: A `requires.tools` entry is never referenced with `{{tool:…}}` in the content.
///
/// # Why
///
/// A required tool the instructions never mention is either dead weight or a step the author
/// forgot to write.
///
/// SKL025: A `requires.resources` entry is never referenced with `{{resource:…}}`.
///
/// # Why
///
/// As SKL024, for resources.
fn check_entry(
    entry: &PromptEntry,
    origin: &Origin,
    lib: &Library,
    lists: Option<&ListRegistry>,
    compat: bool,
    sinks: &mut Sinks<'_>,
) {
    let skill = entry.kind == EntryKind::Skill;
    let (dp, tp) = (origin.def_part, origin.text_part);
    // dependsOn (PRM006)
    for (k, dep) in origin.depends_on.iter().enumerate() {
        let Some(dep) = dep.as_str() else { continue };
        let path = origin.def_path.key("dependsOn").index(k);
        let id = match (entry.kind, dep.matches('/').count()) {
            (_, 2) => Some(dep.to_string()),
            (EntryKind::ProviderPrompt, 0) if compat && dep.contains('.') => dep
                .split_once('.')
                .map(|(ns, t)| id_text(ns, IdType::Tool, t)),
            (EntryKind::ProviderPrompt, 0) => Some(id_text(&entry.owner, IdType::Tool, dep)),
            _ => None,
        };
        match id {
            Some(id) if lib.has_tool(&id) => {}
            Some(id) => sinks.emit_ref(
                dp,
                Code::PRM006,
                &path,
                format!("{dep:?} does not resolve: no tool {id} in the catalog"),
                &id,
            ),
            None => sinks.emit(
                dp,
                Code::PRM006,
                &path,
                format!(
                    "{dep:?} is not a tool ID; {} names tools as namespace/tool/name",
                    if entry.kind == EntryKind::AgentPrompt {
                        "an agent prompt"
                    } else {
                        "a prompt"
                    }
                ),
            ),
        }
    }
    // references (PRM007, PRM008)
    for (k, r) in entry.references.iter().enumerate() {
        let path = origin.def_path.key("references").index(k);
        let Some(target) = lib.get(r).filter(|t| t.kind != EntryKind::Skill) else {
            sinks.emit_ref(
                dp,
                Code::PRM007,
                &path,
                format!("{r:?} is not the ID of a prompt in the catalog (namespace/prompt/name)"),
                r,
            );
            continue;
        };
        if entry.kind == EntryKind::ProviderPrompt
            && (target.kind == EntryKind::AgentPrompt || target.owner != entry.owner)
        {
            sinks.emit(
                dp,
                Code::PRM007,
                &path,
                format!(
                    "A provider prompt composes only prompts of its own namespace ({}); {r} is not one",
                    entry.owner
                ),
            );
            continue;
        }
        if !target.references.is_empty() {
            sinks.emit(
                dp,
                Code::PRM008,
                &path,
                format!(
                    "{r} has references of its own ({}); composition is one level deep",
                    target.references.join(", ")
                ),
            );
        }
    }
    // requires (SKL005, SKL006)
    let required_tools = required(
        entry,
        &origin.requires_tools,
        ("tools", "tool"),
        |id| lib.has_tool(id),
        Code::SKL005,
        dp,
        sinks,
    );
    let required_resources = required(
        entry,
        &origin.requires_resources,
        ("resources", "resource"),
        |id| lib.has_resource(id),
        Code::SKL006,
        dp,
        sinks,
    );
    // prefill[] tools
    for (k, call) in entry.prefill.iter().enumerate() {
        if !lib.has_tool(&call.tool) {
            sinks.emit_ref(
                dp,
                Code::PH002,
                &JsonPath::root("skill")
                    .key("prefill")
                    .index(k)
                    .key("tool"),
                format!(
                    "Prefill tool {:?} does not resolve: name a tool of the catalog by its ID (namespace/tool/name)",
                    call.tool
                ),
                &call.tool,
            );
        }
    }
    // placeholders
    let unresolved = if skill { Code::PH002 } else { Code::PRM009 };
    let mut used_tools: HashSet<String> = HashSet::new();
    let mut used_resources: HashSet<String> = HashSet::new();
    let mut reported: HashSet<String> = HashSet::new();
    for found in find_interpolations(&entry.content) {
        let shown = found.text();
        let placeholder = ContentPlaceholder::of(&found.inner);
        let referenced = match &placeholder {
            Some(ContentPlaceholder::Reference { ty, target, .. }) => {
                Some(entry.target_id(*ty, target))
            }
            _ => None,
        };
        let problem: Option<(Code, String)> = match placeholder {
            Some(ContentPlaceholder::Reference { ty, target, .. }) => {
                let id = entry.target_id(ty, &target);
                match ty {
                    ContentType::Tool | ContentType::Prefill if !lib.has_tool(&id) => Some((
                        unresolved,
                        format!("`{shown}`: no tool {id} in the catalog"),
                    )),
                    ContentType::Prefill if !entry.prefill.iter().any(|c| c.tool == id) => Some((
                        unresolved,
                        format!("`{shown}`: no `prefill[]` entry runs {id}"),
                    )),
                    ContentType::Tool => {
                        if skill && !required_tools.iter().any(|(_, t)| *t == id) {
                            Some((
                                Code::SKL020,
                                format!("`{shown}` is not listed in `requires.tools`"),
                            ))
                        } else {
                            used_tools.insert(id);
                            None
                        }
                    }
                    ContentType::Resource if !lib.has_resource(&id) => Some((
                        unresolved,
                        format!("`{shown}`: no resource {id} in the catalog"),
                    )),
                    ContentType::Resource => {
                        let listed = required_resources.iter().any(|(_, r)| *r == id);
                        used_resources.insert(id);
                        (skill && !listed).then(|| {
                            (
                                Code::SKL021,
                                format!("`{shown}` is not listed in `requires.resources`"),
                            )
                        })
                    }
                    ContentType::Prompt => match lib.get(&id) {
                        Some(t) if t.kind != EntryKind::Skill => None,
                        _ => Some((
                            unresolved,
                            format!("`{shown}`: no prompt {id} in the catalog"),
                        )),
                    },
                    ContentType::Skill => match lib.get(&id) {
                        Some(t) if t.kind == EntryKind::Skill && t.id == entry.id => {
                            Some((Code::SKL023, format!("`{shown}` is this skill itself")))
                        }
                        Some(t) if t.kind == EntryKind::Skill && t.references_skills() => Some((
                            Code::SKL023,
                            format!(
                                "`{shown}`: {id} references skills itself; skill references are one level deep"
                            ),
                        )),
                        Some(t) if t.kind == EntryKind::Skill => None,
                        _ if skill => Some((
                            Code::SKL022,
                            format!("`{shown}`: no skill {id} is registered in {}", entry.owner),
                        )),
                        _ => Some((
                            unresolved,
                            format!("`{shown}`: no skill {id} in the catalog"),
                        )),
                    },
                    ContentType::Prefill | ContentType::Input => None,
                }
            }
            Some(ContentPlaceholder::ListAlias { list, alias }) => {
                match lists.map(|l| l.field_values(list, alias)) {
                    Some(Some(_)) => None,
                    _ => Some((
                        unresolved,
                        match lists.and_then(|l| l.unloaded_file_of(list)) {
                            Some(file) => format!(
                                "`{shown}`: no shared list {list:?} in the catalog; {file} would define it, but it cannot be loaded"
                            ),
                            None => format!(
                                "`{shown}`: no shared list {list:?} with a field {alias:?} in the catalog"
                            ),
                        },
                    )),
                }
            }
            _ => None,
        };
        if let Some((code, message)) = problem
            && reported.insert(shown)
        {
            // What does not resolve may be in a file that did not load (CAT009).
            match referenced.filter(|_| code == unresolved || code == Code::SKL022) {
                Some(id) => sinks.emit_ref(tp, code, &origin.text_path, message, &id),
                None => sinks.emit(tp, code, &origin.text_path, message),
            }
        }
    }
    // SKL024, SKL025
    if skill {
        unused(
            &required_tools,
            &used_tools,
            ("tools", "tool"),
            Code::SKL024,
            dp,
            sinks,
        );
        unused(
            &required_resources,
            &used_resources,
            ("resources", "resource"),
            Code::SKL025,
            dp,
            sinks,
        );
    }
}

/// One `requires` list of a skill (`key` is `tools` or `resources`, `id_type` the ID type its
/// entries name) as `(index, Primitive-ID)`, a bare name taken in the skill's own namespace; an
/// entry that names nothing in the catalog is reported with `missing`.
fn required(
    entry: &PromptEntry,
    items: &[Value],
    (key, id_type): (&str, &str),
    exists: impl Fn(&str) -> bool,
    missing: Code,
    part: usize,
    sinks: &mut Sinks<'_>,
) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let Some(name) = item.as_str() else { continue };
        let id = if name.contains('/') {
            name.to_string()
        } else {
            format!("{}/{id_type}/{name}", entry.owner)
        };
        if !exists(&id) {
            sinks.emit_ref(
                part,
                missing,
                &JsonPath::root("skill").key("requires").key(key).index(k),
                format!("No {id_type} {id} in the catalog"),
                &id,
            );
        }
        out.push((k, id));
    }
    out
}

/// Reports with `code` each entry of a `requires` list that the content never references.
fn unused(
    listed: &[(usize, String)],
    used: &HashSet<String>,
    (key, id_type): (&str, &str),
    code: Code,
    part: usize,
    sinks: &mut Sinks<'_>,
) {
    for (k, id) in listed.iter().filter(|(_, id)| !used.contains(id)) {
        // A tool of a file that did not load is not found in the content either (CAT009).
        sinks.emit_ref(
            part,
            code,
            &JsonPath::root("skill").key("requires").key(key).index(*k),
            format!("{id} is required but the content never uses `{{{{{id_type}:…}}}}` for it"),
            id,
        );
    }
}

/// Adds the library's findings for one file to its report: places them on lines of `source`
/// (when `positions`) and counts again.
pub fn attach(
    report: &mut FileReport,
    diagnostics: Vec<Diagnostic>,
    source: Option<&str>,
    positions: bool,
) {
    let mut added = diagnostics;
    if let (Some(source), true) = (source, positions) {
        crate::entry::add_source_positions(source, None, &mut added);
    }
    report.extend(added);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schema file whose exports hold `main` (when given) and one other export.
    fn schema_file(main: Option<Value>, prompts_source: bool) -> LoadedFile {
        let mut data = indexmap::IndexMap::new();
        data.insert("other".to_string(), serde_json::json!({ "a": 1 }));
        if let Some(m) = main {
            data.insert("main".to_string(), m);
        }
        LoadedFile {
            display: "providers/x/s.mjs".into(),
            source: prompts_source.then(|| "export const main = {}".to_string()),
            blanked: None,
            kind: FileKind::Schema,
            exports: Some(flowmcp_loader::Exports {
                names: data.keys().cloned().collect(),
                data,
                handlers: flowmcp_loader::HandlersExport::Absent,
                unserializable: Vec::new(),
            }),
            diagnostics: Vec::new(),
            bom: false,
            main_literal: None,
        }
    }

    /// Issue 46: a schema's part read from the JSON text of its `main` is the part read from its
    /// value, for every shape `main` and its members can take (text with duplicate members
    /// included: the later wins and the first keeps its place, as in a value).
    #[test]
    fn i46_a_part_from_the_text_of_main_is_the_part_from_its_value() {
        let texts = [
            r#"{"namespace":"x","tools":{"a":{},"b":1},"resources":{"r":{}},"prompts":{"p":{}}}"#,
            r#"{"namespace":"x","tools":{"a":{}},"routes":{"b":{},"a":{}}}"#,
            r#"{"namespace":"x","prompts":null}"#,
            r#"{"namespace":"x","tools":[1,2],"routes":"no","resources":null}"#,
            r#"{"namespace":7,"tools":{"a":{}}}"#,
            r#"{"tools":{"a":{}}}"#,
            r#"{"namespace":"x","namespace":"y","tools":{"a":1,"b":2,"a":3}}"#,
            r#"{"namespace":"x","tools":{"a":1},"tools":{"c":1}}"#,
            r#"{"namespace":"n\u00e9\"s","tools":{"t\\n":{"deep":[[[{"x":[]}]]]}},"prompts":[1,{"a":null}]}"#,
            r#"[]"#,
            r#"["x"]"#,
            r#""main""#,
            r#"null"#,
            r#"3.5"#,
            r#"true"#,
            r#"{}"#,
        ];
        for text in texts {
            let value: Value = serde_json::from_str(text).unwrap();
            for prompts_source in [false, true] {
                let whole = Part::of(
                    "providers/x/s.mjs",
                    &schema_file(Some(value.clone()), prompts_source),
                );
                let apart = schema_file(None, prompts_source);
                let from_text = Part::of_schema_json("providers/x/s.mjs", &apart, text);
                match from_text {
                    Some(p) => assert_eq!(format!("{p:?}"), format!("{whole:?}"), "{text}"),
                    // Only a `main` that is not an object has no part from its text.
                    None => {
                        assert!(!value.is_object(), "{text}");
                        assert!(matches!(whole.kind, PartKind::Other), "{text}");
                    }
                }
            }
        }
    }

    #[test]
    fn places_are_read_from_the_path() {
        assert_eq!(
            place("providers/coingecko-com/skills/a.mjs"),
            Place::Skills {
                dir: "providers/coingecko-com".into(),
                owner: OwnerDir::Namespace
            }
        );
        assert_eq!(
            place("agents/x/skills/a.mjs"),
            Place::Skills {
                dir: "agents/x".into(),
                owner: OwnerDir::Agent("x".into())
            }
        );
        assert_eq!(
            place("agents/x/prompts/a.mjs"),
            Place::AgentPrompts("x".into())
        );
        assert_eq!(place("providers/x/prompts/a.mjs"), Place::Elsewhere);
        assert_eq!(place("skills/a.mjs"), Place::Elsewhere);
    }

    #[test]
    fn relative_files_join_inside_the_catalog_only() {
        assert_eq!(
            join("providers/x", "./prompts/a.mjs").as_deref(),
            Some("providers/x/prompts/a.mjs")
        );
        assert_eq!(
            join("providers/x", "../y/a.mjs").as_deref(),
            Some("providers/y/a.mjs")
        );
        assert_eq!(join("x", "../../a.mjs"), None);
    }
}
